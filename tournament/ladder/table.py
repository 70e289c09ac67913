"""What the ladder shows: the standings, a bot's head-to-head, its rating over its games, its
recent games, and the export of every game as a tournament folder.

Every figure here is read from the database's running totals (:mod:`tournament.ladder.
results`), so the table costs the same at a hundred games or a hundred thousand. A rating is
shown with its interval ``mu ± 2 sigma``; the win share beside the luck-adjusted one (the share
minus the game's luck, :mod:`tournament.luck`) with a 95% normal interval over the bot's games;
head to head, the share of games in which the bot finished ahead of the other (ties half) and
its luck-adjusted win share in the games they shared.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select

from camelup_env.files import replacing, write_json
from tournament.ladder import schema
from tournament.ladder.results import Place
from tournament.ladder.segments import config_doc, read_record
from tournament.ladder.store import Entry, Ladder
from tournament.ratings import Z95


def mean_interval(total: float, squares: float, n: int) -> tuple[float, float]:
    """Mean and 95% half-width of ``n`` values from their sum and sum of squares (nan where
    ``n`` cannot measure them)."""
    if n == 0:
        return math.nan, math.nan
    mean = total / n
    if n < 2:
        return mean, math.nan
    var = max(squares - n * mean * mean, 0.0) / (n - 1)
    return mean, Z95 * math.sqrt(var / n)


@dataclass(frozen=True)
class Standing:
    """A row of the table."""

    place: int
    entry: Entry
    win_share: float
    adjusted: float
    adjusted_ci: float

    def as_dict(self) -> dict[str, Any]:
        e = self.entry

        def number(x: float) -> float | None:
            return None if math.isnan(x) else round(x, 4)

        return {
            "place": self.place,
            "bot": e.label,
            "name": e.name,
            "version": e.version,
            "status": e.status,
            "rating": round(e.ordinal, 3),
            "mu": round(e.mu, 3),
            "sigma": round(e.sigma, 3),
            "low": round(e.mu - 2 * e.sigma, 3),
            "high": round(e.mu + 2 * e.sigma, 3),
            "games": e.games,
            "win_share": number(self.win_share),
            "adjusted": number(self.adjusted),
            "adjusted_ci": number(self.adjusted_ci),
            "forfeits": e.forfeits,
        }


def standings(ladder: Ladder, everyone: bool = False) -> list[Standing]:
    """The table: active bots (with ``everyone``, retired and suspended ones too) by rating."""
    shown = [e for e in ladder.entries() if everyone or e.active or e.suspended_reason]
    shown.sort(key=lambda e: -e.ordinal)
    rows = []
    for place, e in enumerate(shown, 1):
        adjusted, ci = mean_interval(e.adjusted_sum, e.adjusted_squares, e.adjusted_games)
        rows.append(Standing(place, e, e.wins / e.games if e.games else math.nan, adjusted, ci))
    return rows


def _fmt(x: float | None, form: str = ".3f") -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:{form}}"


def text_table(rows: list[Standing]) -> str:
    """The standings for a terminal."""
    head = ["#", "bot", "rating", "mu ± 2 sigma", "games", "win", "luck-adj. win", "status"]
    lines = [head]
    for row in rows:
        e = row.entry
        lines.append(
            [
                str(row.place),
                e.label,
                f"{e.ordinal:.2f}",
                f"{e.mu:.2f} ± {2 * e.sigma:.2f}",
                str(e.games),
                _fmt(row.win_share),
                f"{_fmt(row.adjusted)} ± {_fmt(row.adjusted_ci)}",
                e.status,
            ]
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )


#: The columns of the CSV table (:meth:`Standing.as_dict`).
CSV_FIELDS = (
    "place",
    "bot",
    "name",
    "version",
    "status",
    "rating",
    "mu",
    "sigma",
    "low",
    "high",
    "games",
    "win_share",
    "adjusted",
    "adjusted_ci",
    "forfeits",
)


def text_head_to_head(entry: Entry, rows: list[dict[str, Any]]) -> str:
    """:func:`head_to_head` for a terminal."""
    lines = [["against", "games", "finished ahead", "luck-adj. win"]]
    for row in rows:
        adjusted = f"{_fmt(row['adjusted'])} ± {_fmt(row['adjusted_ci'])}"
        lines.append([row["opponent"], str(row["games"]), f"{row['ahead']:.3f}", adjusted])
    widths = [max(len(line[i]) for line in lines) for i in range(4)]
    body = "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )
    return f"{entry.label}: rating {entry.ordinal:.2f}, {entry.games} games\n{body}"


def csv_table(rows: list[Standing]) -> str:
    out = io.StringIO()
    dicts = [row.as_dict() for row in rows]
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(dicts)
    return out.getvalue()


def head_to_head(ladder: Ladder, entry: Entry) -> list[dict[str, Any]]:
    """``entry`` against every bot it met, most met first (module docstring)."""
    pairs = schema.pairs
    labels = {e.id: e.label for e in ladder.entries()}
    with ladder.reader.connect() as conn:
        rows = conn.execute(
            select(pairs).where(pairs.c.a == entry.id).order_by(pairs.c.met.desc())
        ).all()
    found = []
    for r in rows:
        adjusted, ci = mean_interval(r.adjusted_sum, r.adjusted_squares, r.adjusted_games)
        found.append(
            {
                "opponent": labels[r.b],
                "games": r.met,
                "ahead": r.ahead / r.met,
                "adjusted": None if math.isnan(adjusted) else adjusted,
                "adjusted_ci": None if math.isnan(ci) else ci,
            }
        )
    return found


#: Most points of a rating plot: a long history is thinned to this many games.
PLOT_POINTS = 400


def rating_history(ladder: Ladder, entry: Entry) -> list[tuple[int, float, float]]:
    """``(game number of the bot, mu, sigma)`` after each of its games, thinned to at most
    :data:`PLOT_POINTS` (every k-th game, and the last)."""
    seats = schema.seats
    with ladder.reader.connect() as conn:
        rows = conn.execute(
            select(seats.c.mu, seats.c.sigma)
            .where(seats.c.entry_id == entry.id)
            .order_by(seats.c.entry_game)
        ).all()
    step = max(1, math.ceil(len(rows) / PLOT_POINTS))
    points = [(i + 1, r.mu, r.sigma) for i, r in enumerate(rows) if i % step == 0]
    if rows and points[-1][0] != len(rows):
        points.append((len(rows), rows[-1].mu, rows[-1].sigma))
    return points


def recent_games(ladder: Ladder, entry: Entry, limit: int = 20) -> list[dict]:
    """The last stored games of ``entry``, newest first: id, bots by seat, ranks, forfeit."""
    games, seats = schema.games, schema.seats
    query = select(games).where(
        games.c.status == "done",
        games.c.id.in_(
            select(seats.c.game_id)
            .where(seats.c.entry_id == entry.id)
            .order_by(seats.c.game_id.desc())
            .limit(limit)
        ),
    )
    labels = {e.id: e.label for e in ladder.entries()}
    with ladder.reader.connect() as conn:
        rows = conn.execute(query.order_by(games.c.id.desc()).limit(limit)).all()
        ids = [r.id for r in rows]
        ranks: dict[int, dict[int, int]] = {}
        for s in conn.execute(select(seats).where(seats.c.game_id.in_(ids))):
            ranks.setdefault(s.game_id, {})[s.seat] = s.rank
    return [
        {
            "game": r.id,
            "bots": [labels[i] for i in json.loads(r.seats)],
            "ranks": [ranks.get(r.id, {}).get(s) for s in range(len(json.loads(r.seats)))],
            "forfeit": r.forfeit_reason,
            "turns": r.turns,
        }
        for r in rows
    ]


def place_of(ladder: Ladder, game: int) -> Place | None:
    """Where the record of stored game ``game`` lies (None: no such stored game)."""
    games = schema.games
    with ladder.reader.connect() as conn:
        row = conn.execute(
            select(games.c.segment, games.c.offset, games.c.length).where(
                games.c.id == game, games.c.status == "done"
            )
        ).first()
    return None if row is None else Place(row.segment, row.offset, row.length)


def export(ladder: Ladder, out: Path) -> int:
    """Every stored game, in id order, as a tournament folder ``out`` (``config.json`` and
    ``games.jsonl``: ``camelup replay OUT --game N`` replays game N); returns the count."""
    games = schema.games
    with ladder.reader.connect() as conn:
        rows = conn.execute(
            select(games.c.segment, games.c.offset, games.c.length)
            .where(games.c.status == "done")
            .order_by(games.c.id)
        ).all()
    out.mkdir(parents=True, exist_ok=True)
    doc = config_doc(ladder.settings())
    doc["agents"] = [e.label for e in ladder.entries()]
    write_json(out / "config.json", doc)
    with replacing(out / "games.jsonl") as tmp, open(tmp, "w", encoding="utf-8") as fh:
        for r in rows:
            record = read_record(ladder.folder, Place(r.segment, r.offset, r.length))
            fh.write(json.dumps(record, separators=(",", ":")) + "\n")
    return len(rows)
