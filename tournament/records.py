"""The results folder: one writer, an append-only game log, resume without loss or doubles.

``OUT/config.json`` holds the settings a resumed run must share (:meth:`TournamentConfig.
identity`) plus the rules; ``OUT/games.jsonl`` one line per finished game, appended and fsynced
as each game ends. ``OUT/.lock`` is held (``flock``) by the one run writing the folder: a second
run on the same folder is refused at once, and the lock goes with its holder, even on
``kill -9``. Readers drop a damaged last line (a write cut short) and any repeat of a game id
(the first record counts), so a resumed run never plays or counts a game twice; any other line
that is not a game record is refused, naming the file and line (:func:`read_games`).
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from camelup_env import safe_json
from camelup_env.files import write_json
from tournament.config import TournamentConfig, TournamentError


class OutputLock:
    """Exclusive use of a results folder for the life of this object (or the process)."""

    def __init__(self, out: Path) -> None:
        out.mkdir(parents=True, exist_ok=True)
        self.path = out / ".lock"
        self.fh: IO[str] | None = open(self.path, "a+")  # noqa: SIM115 (held until release)
        try:
            fcntl.flock(self.fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.fh.seek(0)
            holder = self.fh.read().strip() or "another process"
            self.fh.close()
            self.fh = None
            raise TournamentError(
                f"{out} is in use by another run (pid {holder}); wait for it "
                "to finish, or choose another --out"
            ) from None
        self.fh.seek(0)
        self.fh.truncate()
        self.fh.write(str(os.getpid()))
        self.fh.flush()

    def release(self) -> None:
        if self.fh is not None:
            self.fh.close()  # closing drops the flock
            self.fh = None

    def __enter__(self) -> OutputLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


#: Longest line of ``games.jsonl`` (or ``config.json``) read, and the deepest nesting: far
#: beyond a game stopped at 100,000 turns (about 700 kB) or an agent's kwargs.
MAX_LINE_BYTES, MAX_RECORD_DEPTH = 8 << 20, 32
#: Bytes a crash may leave after the last full line: a torn write, or a block the file system
#: allocated but never wrote (zeros).
_TAIL_NOISE = b" \t\r\n\x00"


class BadRecord(ValueError):
    """A line of an append-only log that is not what the log holds (``games.jsonl``: a game
    record); the message says what is wrong."""


def read_games(path: Path, repair: bool = False, labels: Sequence[str] | None = None) -> list[dict]:
    """The records of ``games.jsonl`` in file order, each game id once (the first).

    The file may come from a crash or from a stranger: :func:`read_lines` says what is
    dropped and what refused. A line of JSON that is not a game record (:func:`check_record`;
    with ``labels``, of players other than these) means the file was not written by a
    tournament, and guessing which games it holds would count games wrongly."""
    records: list[dict] = []
    seen: set[int] = set()
    for record in read_lines(path, lambda r: check_record(r, labels), "a game record", repair):
        if record["game"] not in seen:
            seen.add(record["game"])
            records.append(record)
    return records


def read_lines(
    path: Path, check: Callable[[Any], None], what: str, repair: bool = False
) -> list[Any]:
    """The JSON value of every line of an append-only log, in file order (none when the file
    does not exist), each passed to ``check``, which raises :class:`BadRecord` for one that is
    not ``what`` the log holds.

    A damaged *last* line (cut off by a crash, or zeros a crash left) is what an interrupted
    write leaves: it is ignored, and with ``repair`` (the log's writer only) cut off the file,
    so a resumed run plays that game again. Any other bad line - not JSON, or not ``what`` - is
    a ``TournamentError`` naming the file and line."""
    if not path.exists():
        return []
    data = path.read_bytes()
    values: list[Any] = []
    offset = good = number = 0
    while offset < len(data):
        end = data.find(b"\n", offset)
        if end < 0:  # no newline: the last write was interrupted
            break
        line = data[offset:end]
        offset = end + 1
        number += 1
        if line.strip():
            try:
                value = safe_json.loads(
                    line, "the line", max_bytes=MAX_LINE_BYTES, max_depth=MAX_RECORD_DEPTH
                )
            except ValueError as exc:
                if data[offset:].strip(_TAIL_NOISE):
                    raise TournamentError(f"{path}:{number}: corrupt line: {exc}") from None
                break  # a damaged last line
            try:
                check(value)
            except BadRecord as exc:
                raise TournamentError(f"{path}:{number}: not {what}: {exc}") from None
            values.append(value)
        good = offset
    if repair and good < len(data):
        with open(path, "r+b") as fh:
            fh.truncate(good)
            fh.flush()
            os.fsync(fh.fileno())
    return values


def check_record(record: object, labels: Sequence[str] | None = None) -> None:
    """``BadRecord`` unless ``record`` has the fields a game record's readers use (ratings,
    reports, replays), of the right types and one entry per seat; with ``labels``, its agents
    must be among them (the tournament's)."""
    if not isinstance(record, dict):
        raise BadRecord(f"a JSON {type(record).__name__}, not an object")
    for key in ("game", "seed"):
        if not is_int(record.get(key)) or record[key] < 0:
            raise BadRecord(f"{key} must be an integer >= 0, got {_short(record.get(key))}")
    agents = record.get("agents")
    if not isinstance(agents, list) or not agents or not all(isinstance(a, str) for a in agents):
        raise BadRecord(f"agents must be a list of agent labels, got {_short(agents)}")
    n = len(agents)
    if labels is not None and set(agents) - set(labels):
        raise BadRecord(f"agents {_short(agents)} are not this tournament's")
    for key, kind in (("ranks", is_int), ("scores", is_number), ("coins", is_number)):
        value = record.get(key)
        if not isinstance(value, list) or len(value) != n or not all(map(kind, value)):
            raise BadRecord(f"{key} must be a list of {n} numbers, one a seat, got {_short(value)}")
    winners = record.get("winner_seats")
    if not isinstance(winners, list) or not all(is_int(w) and 0 <= w < n for w in winners):
        raise BadRecord(f"winner_seats must be a list of seats, got {_short(winners)}")
    forfeit = record.get("forfeit")
    if forfeit is not None and not (
        isinstance(forfeit, dict)
        and is_int(forfeit.get("seat"))
        and 0 <= forfeit["seat"] < n
        and isinstance(forfeit.get("agent"), (str, type(None)))
        and isinstance(forfeit.get("reason"), str)
    ):
        raise BadRecord(f"forfeit must be null or {{seat, agent, reason}}, got {_short(forfeit)}")
    fallbacks = record.get("fallbacks")
    if fallbacks is not None and not (
        isinstance(fallbacks, list) and all(is_int(x) for x in fallbacks)
    ):
        raise BadRecord(f"fallbacks must be a list of counts, got {_short(fallbacks)}")
    reasons = record.get("fallback_reasons")
    if reasons is not None and not (
        isinstance(reasons, list)
        and all(isinstance(r, dict) and all(is_int(c) for c in r.values()) for r in reasons)
    ):
        raise BadRecord(
            f"fallback_reasons must be a list of counts a reason, got {_short(reasons)}"
        )


def is_int(value: object) -> bool:
    """An integer, not a bool (JSON's true is Python's 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    """An int or a float, not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _short(value: object) -> str:
    return repr(value)[:60]


class GameLog:
    """Append-only ``games.jsonl``: one fsynced line per game."""

    def __init__(self, path: Path) -> None:
        self.fh = open(path, "a", encoding="utf-8")  # noqa: SIM115 (closed by close())

    def append(self, record: dict) -> None:
        self.fh.write(json.dumps(record, separators=(",", ":")) + "\n")
        self.fh.flush()
        os.fsync(self.fh.fileno())

    def close(self) -> None:
        self.fh.close()


def saved_config(out: Path) -> dict[str, Any]:
    """``OUT/config.json`` (TournamentError if it is missing or unreadable)."""
    path = out / "config.json"
    try:
        doc = safe_json.loads(
            path.read_bytes(), str(path), max_bytes=MAX_LINE_BYTES, max_depth=MAX_RECORD_DEPTH
        )
    except FileNotFoundError:
        raise TournamentError(f"{out} holds no tournament (no config.json)") from None
    except (OSError, ValueError) as exc:
        raise TournamentError(f"{path} cannot be read: {exc}") from None
    if not isinstance(doc, dict):
        raise TournamentError(f"{path} is not a tournament configuration")
    return doc


def prepare_out(out: Path, config: TournamentConfig) -> list[dict]:
    """Create or resume ``out`` (its lock held by the caller); return the games already
    played. A folder of a different configuration is refused, naming what differs; a larger
    ``games`` extends the saved tournament by more rounds."""
    cfg_path = out / "config.json"
    games_path = out / "games.jsonl"
    mine = config.identity()
    if cfg_path.exists():
        theirs, ours = _comparable(saved_config(out)), _comparable(mine)
        diff = [k for k in ours if ours[k] != theirs.get(k)]
        if diff == ["games"] and ours["games"] > theirs["games"]:
            # more rounds of the same schedule, whose games keep their ids and seeds: the
            # saved records are its first games (the caller checks each against it)
            write_json(cfg_path, mine)
        elif diff:
            details = "; ".join(f"{k}: saved {theirs.get(k)!r}, now {ours[k]!r}" for k in diff)
            raise TournamentError(
                f"{out} holds a tournament with a different configuration "
                f"({details}). Resume with the same settings, or choose "
                "another --out/--name."
            )
    elif games_path.exists() and games_path.stat().st_size:
        raise TournamentError(f"{games_path} exists without config.json; refusing to mix runs")
    else:
        write_json(cfg_path, mine)
    return read_games(games_path, repair=True, labels=[e.label for e in config.entries()])


def _comparable(identity: dict[str, Any]) -> dict[str, Any]:
    """Results written before ``seating`` existed used rotations, and before ``pairing``
    existed one seed a round; with 2 players both seatings are one schedule."""
    doc = {
        **identity,
        "seating": identity.get("seating", "rotations"),
        "pairing": identity.get("pairing", "round"),
    }
    if doc.get("players") == 2:
        doc["seating"] = "orders"
    return doc
