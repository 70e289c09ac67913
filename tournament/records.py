"""The results folder: one writer, an append-only game log, resume without loss or doubles.

``OUT/config.json`` holds the settings a resumed run must share (:meth:`TournamentConfig.
identity`) plus the rules; ``OUT/games.jsonl`` one line per finished game, appended and fsynced
as each game ends. ``OUT/.lock`` is held (``flock``) by the one run writing the folder: a second
run on the same folder is refused at once, and the lock goes with its holder, even on
``kill -9``. Readers drop a truncated last line (a write cut short) and any repeat of a game id
(the first record counts), so a resumed run never plays or counts a game twice.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import IO, Any

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


def read_games(path: Path, repair: bool = False) -> list[dict]:
    """The records of ``games.jsonl`` in file order, each game id once (the first); a truncated
    last line is ignored, and with ``repair`` (the folder's writer only) cut off the file."""
    if not path.exists():
        return []
    data = path.read_bytes()
    records: list[dict] = []
    seen: set[int] = set()
    offset = good = 0
    while offset < len(data):
        end = data.find(b"\n", offset)
        if end < 0:  # no newline: the last write was interrupted
            break
        line = data[offset:end]
        offset = end + 1
        if line.strip():
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                if data[offset:].strip():
                    raise TournamentError(
                        f"{path}: corrupt line {len(records) + 1}: {exc}"
                    ) from exc
                break  # a damaged last line
            if not isinstance(record, dict) or not isinstance(record.get("game"), int):
                raise TournamentError(f"{path}: line {len(records) + 1} is not a game record")
            if record["game"] not in seen:
                seen.add(record["game"])
                records.append(record)
        good = offset
    if repair and good < len(data):
        with open(path, "r+b") as fh:
            fh.truncate(good)
            fh.flush()
            os.fsync(fh.fileno())
    return records


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
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        raise TournamentError(f"{out} holds no tournament (no config.json)") from None
    except (OSError, ValueError) as exc:
        raise TournamentError(f"{path} cannot be read: {exc}") from None
    if not isinstance(doc, dict):
        raise TournamentError(f"{path} is not a tournament configuration")
    return doc


def prepare_out(out: Path, config: TournamentConfig) -> list[dict]:
    """Create or resume ``out`` (its lock held by the caller); return the games already
    played. A folder of a different configuration is refused, naming what differs."""
    cfg_path = out / "config.json"
    games_path = out / "games.jsonl"
    mine = config.identity()
    if cfg_path.exists():
        theirs, ours = _comparable(saved_config(out)), _comparable(mine)
        diff = [k for k in ours if ours[k] != theirs.get(k)]
        if diff:
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
    return read_games(games_path, repair=True)


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
