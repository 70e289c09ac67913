"""A ladder folder and its database: the settings, the entries and their versions.

``DIR/ladder.json`` names the database (``sqlite:///DIR/ladder.db`` unless ``camelup ladder
init --database URL`` chose a server); the database holds the tables of
:mod:`tournament.ladder.schema`, and ``DIR/games/`` the game records
(:mod:`tournament.ladder.segments`). An entry is one version of a named bot: adding a name
that exists adds ``NAME@2`` and retires the version before it, whose games and rating stay in
the table, so a new version never inherits an old one's standing.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, insert, select, update
from sqlalchemy.engine import Connection, CursorResult, RowMapping

from camelup_env import safe_json
from camelup_env.files import write_json
from camelup_env.game.rules import RuleSet
from tournament.config import Limits, TournamentError
from tournament.ladder import schema
from tournament.ladder.db import make_engine, migrate

#: The openskill Plackett-Luce model's starting rating (its defaults: mu 25, sigma 25/3).
START_MU, START_SIGMA = 25.0, 25.0 / 3.0
#: A bot's name: letters, digits and ``_.-``, so it is safe in a file name, a URL and a table.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


class LadderError(TournamentError):
    """A ladder problem of the user's, in one line."""


@dataclass(frozen=True)
class Settings:
    """What every game of a ladder shares."""

    preset: str
    players: int
    rules: dict[str, Any]
    seed: int
    limits: Limits
    max_turns: int
    suspend_after: int  # forfeits in a row after which a bot is no longer seated
    newcomer_games: int  # a bot with fewer games is seated before any other

    def ruleset(self) -> RuleSet:
        return RuleSet.from_dict({"preset": self.preset, "num_players": self.players, **self.rules})


@dataclass(frozen=True)
class Entry:
    """One version of a bot, with its rating and running totals."""

    id: int
    name: str
    version: int
    spec: str
    kwargs: dict[str, Any]
    origin: str
    retired: bool
    suspended_reason: str | None
    fault_streak: int
    mu: float
    sigma: float
    games: int
    wins: float
    adjusted_sum: float
    adjusted_squares: float
    adjusted_games: int
    forfeits: int

    @property
    def label(self) -> str:
        """``NAME@VERSION``: the name in game records and tables."""
        return f"{self.name}@{self.version}"

    @property
    def active(self) -> bool:
        """Seated in new games: neither retired nor suspended."""
        return not self.retired and self.suspended_reason is None

    @property
    def ordinal(self) -> float:
        """The rating the table sorts by: ``mu - 3 sigma`` (openskill's ordinal), which a bot
        climbs by winning and by being measured."""
        return self.mu - 3.0 * self.sigma

    @property
    def status(self) -> str:
        if self.retired:
            return "retired"
        if self.suspended_reason is not None:
            return f"suspended: {self.suspended_reason}"
        return "active"


def entry_of(row: RowMapping) -> Entry:
    return Entry(
        id=row["id"],
        name=row["name"],
        version=row["version"],
        spec=row["spec"],
        kwargs=json.loads(row["kwargs"]),
        origin=row["origin"],
        retired=row["retired_at"] is not None,
        suspended_reason=row["suspended_reason"],
        fault_streak=row["fault_streak"],
        mu=row["mu"],
        sigma=row["sigma"],
        games=row["games"],
        wins=row["wins"],
        adjusted_sum=row["adjusted_sum"],
        adjusted_squares=row["adjusted_squares"],
        adjusted_games=row["adjusted_games"],
        forfeits=row["forfeits"],
    )


def new_id(result: CursorResult) -> int:
    """The primary key an insert gave its row."""
    key = result.inserted_primary_key
    assert key is not None
    return int(key[0])


def split_label(text: str) -> tuple[str, int | None]:
    """``NAME`` or ``NAME@VERSION`` -> (name, version or None)."""
    name, sep, version = text.partition("@")
    if sep and version.isdigit():
        return name, int(version)
    return text, None


class Ladder:
    """An open ladder folder (module docstring). ``engine`` writes; ``reader`` only reads and
    never waits for a writer."""

    def __init__(self, folder: Path, url: str) -> None:
        self.folder = folder
        self.url = url
        self.engine: Engine = make_engine(url)
        self.reader: Engine = make_engine(url, writer=False)

    # Making and opening --------------------------------------------------------------------
    @classmethod
    def create(cls, folder: Path, settings: Settings, url: str | None = None) -> Ladder:
        """A new ladder in ``folder`` (refused where one is)."""
        if (folder / "ladder.json").exists():
            raise LadderError(f"{folder} holds a ladder already (ladder.json)")
        folder.mkdir(parents=True, exist_ok=True)
        url = url or f"sqlite:///{(folder / 'ladder.db').resolve()}"
        ladder = cls(folder, url)
        migrate(ladder.engine)
        with ladder.engine.begin() as conn:
            if conn.execute(select(func.count()).select_from(schema.settings)).scalar_one():
                raise LadderError(f"the database {url} holds a ladder already")
            conn.execute(
                insert(schema.settings).values(
                    id=1,
                    preset=settings.preset,
                    players=settings.players,
                    rules=json.dumps(settings.rules),
                    seed=settings.seed,
                    limits=json.dumps(dataclasses.asdict(settings.limits)),
                    max_turns=settings.max_turns,
                    suspend_after=settings.suspend_after,
                    newcomer_games=settings.newcomer_games,
                    entries_version=0,
                    created_at=time.time(),
                )
            )
        write_json(folder / "ladder.json", {"format": "camelup-ladder", "database": url})
        return ladder

    @classmethod
    def open(cls, folder: Path) -> Ladder:
        """The ladder in ``folder``, its database brought to this release's schema."""
        path = folder / "ladder.json"
        try:
            doc = safe_json.loads(path.read_bytes(), str(path), max_bytes=1 << 16, max_depth=4)
        except FileNotFoundError:
            raise LadderError(
                f"{folder} holds no ladder (no ladder.json): camelup ladder init {folder}"
            ) from None
        except (OSError, ValueError) as exc:
            raise LadderError(f"{path} cannot be read: {exc}") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("database"), str):
            raise LadderError(f"{path} is not a ladder's (no database URL)")
        ladder = cls(folder, doc["database"])
        migrate(ladder.engine)
        return ladder

    def close(self) -> None:
        self.engine.dispose()
        self.reader.dispose()

    # Reading ---------------------------------------------------------------------------------
    def settings(self, conn: Connection | None = None) -> Settings:
        def read(c: Connection) -> Settings:
            row = c.execute(select(schema.settings)).mappings().one()
            return Settings(
                preset=row["preset"],
                players=row["players"],
                rules=json.loads(row["rules"]),
                seed=row["seed"],
                limits=Limits(**json.loads(row["limits"])),
                max_turns=row["max_turns"],
                suspend_after=row["suspend_after"],
                newcomer_games=row["newcomer_games"],
            )

        if conn is not None:
            return read(conn)
        with self.reader.connect() as c:
            return read(c)

    def entries(self, conn: Connection | None = None) -> list[Entry]:
        """Every entry, retired ones included, in the order they were added."""
        query = select(schema.entries).order_by(schema.entries.c.id)
        if conn is not None:
            return [entry_of(r) for r in conn.execute(query).mappings()]
        with self.reader.connect() as c:
            return [entry_of(r) for r in c.execute(query).mappings()]

    def entry(self, label: str) -> Entry:
        """The entry ``NAME@VERSION``, or the newest version of ``NAME``."""
        name, version = split_label(label)
        found = [e for e in self.entries() if e.name == name]
        if version is not None:
            found = [e for e in found if e.version == version]
        if not found:
            raise LadderError(f"no bot {label!r} in this ladder")
        return found[-1]

    def entries_version(self) -> int:
        """A counter that changes whenever the set of seatable entries does."""
        with self.reader.connect() as c:
            return int(c.execute(select(schema.settings.c.entries_version)).scalar_one())

    # Changing the entries ----------------------------------------------------------------------
    def add(
        self,
        name: str,
        spec: str,
        kwargs: dict[str, Any] | None = None,
        origin: str = "owner",
        token_hash: str | None = None,
    ) -> Entry:
        """Add a version of ``name`` (module docstring); the caller has checked the spec."""
        if not NAME.fullmatch(name):
            raise LadderError(
                f"bad bot name {name[:50]!r}: 1-40 letters, digits and _.- (starting with a "
                "letter or digit)"
            )
        now = time.time()
        with self.engine.begin() as conn:
            table = schema.entries
            before = conn.execute(
                select(func.max(table.c.version)).where(table.c.name == name)
            ).scalar_one()
            conn.execute(
                update(table)
                .where(table.c.name == name, table.c.retired_at.is_(None))
                .values(retired_at=now)
            )
            added = new_id(
                conn.execute(
                    insert(table).values(
                        name=name,
                        version=(before or 0) + 1,
                        spec=spec,
                        kwargs=json.dumps(kwargs or {}),
                        origin=origin,
                        token_hash=token_hash,
                        added_at=now,
                        fault_streak=0,
                        mu=START_MU,
                        sigma=START_SIGMA,
                        games=0,
                        wins=0.0,
                        adjusted_sum=0.0,
                        adjusted_squares=0.0,
                        adjusted_games=0,
                        forfeits=0,
                    )
                )
            )
            bump_entries_version(conn)
            row = conn.execute(select(table).where(table.c.id == added)).mappings().one()
        return entry_of(row)

    def token_hash(self, name: str) -> str | None:
        """The token hash of the newest version of ``name`` (None: no such name, or a bot the
        owner added on the command line, which no upload may replace)."""
        table = schema.entries
        with self.reader.connect() as c:
            row = c.execute(
                select(table.c.origin, table.c.token_hash)
                .where(table.c.name == name)
                .order_by(table.c.version.desc())
                .limit(1)
            ).first()
        return None if row is None else row.token_hash

    def retire(self, label: str) -> Entry:
        """Retire the bot ``label`` (its newest version if no ``@VERSION``): it is seated in no
        new game; its games and rating stay."""
        entry = self.entry(label)
        if entry.retired:
            raise LadderError(f"{entry.label} is retired already")
        with self.engine.begin() as conn:
            conn.execute(
                update(schema.entries)
                .where(schema.entries.c.id == entry.id)
                .values(retired_at=time.time())
            )
            bump_entries_version(conn)
        return self.entry(entry.label)


def bump_entries_version(conn: Connection) -> None:
    conn.execute(
        update(schema.settings).values(entries_version=schema.settings.c.entries_version + 1)
    )
