"""The ladder's game records: tournament folders, one per runner, indexed by the database.

Each runner writes ``DIR/games/rNNNNNN/``: a ``config.json`` with the rule set and a
``games.jsonl`` of the tournament's game records (:mod:`tournament.records`), appended and
fsynced before the database stores the game, so every stored game's record is on disk. The
database keeps where each record starts and how long it is (:class:`~tournament.ladder.
results.Place`), so a page reads one record, not a whole file. A runner killed after writing a
record but before storing it leaves that line behind unstored; the game is played again, by
this or another runner, and only the line the database names counts (an export, a page, a
replay by game id through the ladder all go by the index). Each folder is a tournament folder
as ``camelup replay`` and ``camelup serve --runs`` read them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from camelup_env import safe_json
from camelup_env.files import write_json
from tournament.ladder.results import Place
from tournament.ladder.store import Settings
from tournament.records import MAX_LINE_BYTES, MAX_RECORD_DEPTH, check_record


def config_doc(settings: Settings) -> dict[str, Any]:
    """What a tournament folder's ``config.json`` says of the ladder's games (the rule set,
    which :func:`tournament.replay.rules_of` reads)."""
    return {
        "name": "ladder",
        "preset": settings.preset,
        "players": settings.players,
        "rules": settings.rules,
        "seed": settings.seed,
        "max_turns": settings.max_turns,
    }


class Segment:
    """A runner's append-only tournament folder (module docstring)."""

    def __init__(self, folder: Path, name: str, settings: Settings) -> None:
        self.name = name
        path = folder / "games" / name
        path.mkdir(parents=True, exist_ok=True)
        write_json(path / "config.json", config_doc(settings))
        self.fh = open(path / "games.jsonl", "ab")  # noqa: SIM115 (closed by close())

    def append(self, record: dict[str, Any]) -> Place:
        """Write ``record`` as one line, on disk before this returns."""
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode()
        offset = self.fh.seek(0, os.SEEK_END)
        self.fh.write(line)
        self.fh.flush()
        os.fsync(self.fh.fileno())
        return Place(self.name, offset, len(line))

    def close(self) -> None:
        self.fh.close()


def read_record(folder: Path, place: Place) -> dict[str, Any]:
    """The record the index places at ``place`` (``ValueError`` if it is not one)."""
    if "/" in place.segment or place.segment.startswith("."):
        raise ValueError(f"bad segment name {place.segment!r}")
    with open(folder / "games" / place.segment / "games.jsonl", "rb") as fh:
        fh.seek(place.offset)
        data = fh.read(place.length)
    record = safe_json.loads(
        data, "the record", max_bytes=MAX_LINE_BYTES, max_depth=MAX_RECORD_DEPTH
    )
    check_record(record)
    return record
