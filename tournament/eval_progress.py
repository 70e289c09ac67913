"""An evaluation's progress on disk: every finished game saved as it ends, so a stopped
``camelup evaluate --out OUT`` resumes where it stopped instead of starting over.

A four-player evaluation of 2,000 games through the referee takes from half an hour to hours
(search agents: seconds a move); a session, a machine or a Ctrl-C may end it first. With
``--out``, ``OUT/evaluation.progress.jsonl`` holds a first line with the settings every game
depends on (the candidate and its arguments, the rules, the seed, whether luck is measured and
the referee forced) and then one line per finished game: the opponent and the candidate's
:class:`~tournament.eval_result.CandidateGame`, appended and fsynced as the game ends. The same
command run again reads them, plays only the games missing, and writes the reports from all of
them. The file stays once the reports are written: a report of the games so far (a shorter
``--games``, how a stopped evaluation is reported) followed by the longer command plays only the
games it lacks, not every game again. ``OUT/.lock`` keeps a second run off the folder while one
writes it (:class:`tournament.records.OutputLock`).

The file is read as a stranger's (:func:`tournament.records.read_lines`): a damaged last line
is what a crash leaves and is played again; any other line that is not a game of this
evaluation's schedule (its seed and seat fixed by its id, :func:`tournament.evaluate.
evaluation_games`), or settings that differ from the command's, is refused with one line
naming the file and what differs. ``--games`` may change: game ``g`` is the same game in a
shorter or a longer evaluation of the same seed.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from tournament.config import TournamentError
from tournament.eval_result import CandidateGame
from tournament.records import BadRecord, OutputLock, is_int, is_number, read_lines

PROGRESS = "evaluation.progress.jsonl"
_FIELDS = tuple(f.name for f in fields(CandidateGame))


class EvalProgress:
    """The progress file of one evaluation command in ``out`` (module docstring). Open it for
    the command's life (it holds the folder's lock) and :meth:`close` it at the end, the
    reports written or not: the games stay on disk either way."""

    def __init__(self, out: Path, settings: dict[str, Any], players: int) -> None:
        self.path = out / PROGRESS
        self.settings = json.loads(json.dumps(settings))  # as the file will hold it
        self.players = players
        self.lock = OutputLock(out)
        self._lines = 0  # read so far: the first must be the settings
        try:
            lines = read_lines(self.path, self._check, "a game of this evaluation", repair=True)
        except TournamentError:
            self.lock.release()
            raise
        self.saved: dict[str, dict[int, CandidateGame]] = {}
        for line in lines[1:]:
            row = CandidateGame(**{k: _number(line.get(k)) for k in _FIELDS})
            self.saved.setdefault(line["opponent"], {}).setdefault(row.game, row)
        self.fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (closed by finish/close)
        if not lines:
            self._append({"settings": self.settings})

    def done(self, opponent: str, games: int) -> list[CandidateGame]:
        """The saved games against ``opponent`` among the first ``games``, in game order."""
        return [r for g, r in sorted(self.saved.get(opponent, {}).items()) if g < games]

    def save(self, opponent: str, row: CandidateGame) -> None:
        """One more finished game, on disk before this returns (JSON has no nan: null)."""
        doc = {k: None if _is_nan(v) else v for k, v in asdict(row).items()}
        self._append({"opponent": opponent, **doc})

    def close(self) -> None:
        """The file stays for the next run; the folder's lock is released."""
        self.fh.close()
        self.lock.release()

    def _append(self, doc: dict[str, Any]) -> None:
        self.fh.write(json.dumps(doc, separators=(",", ":")) + "\n")
        self.fh.flush()
        os.fsync(self.fh.fileno())

    def _check(self, line: object) -> None:
        """The first line: these settings (else a ``TournamentError`` naming what differs);
        every other: a game of this evaluation's schedule (else ``BadRecord``)."""
        self._lines += 1
        if not isinstance(line, dict):
            raise BadRecord(f"a JSON {type(line).__name__}, not an object")
        if self._lines == 1:
            if line.get("settings") != self.settings:
                raise TournamentError(_differs(self.path, line.get("settings"), self.settings))
            return
        if not isinstance(line.get("opponent"), str):
            raise BadRecord("no opponent")
        for key in ("game", "seed", "seat"):
            if not is_int(line.get(key)) or line[key] < 0:
                raise BadRecord(f"{key} must be an integer >= 0, got {line.get(key)!r:.60}")
        game = line["game"]
        seed, seat = self.settings["seed"] + game // self.players, game % self.players
        if (line["seed"], line["seat"]) != (seed, seat):
            raise BadRecord(
                f"game {game} is seed {seed} with the candidate in seat {seat}, "
                f"not seed {line['seed']} and seat {line['seat']}"
            )
        for key in ("win_share", "coins", "opponent_coins"):
            if not is_number(line.get(key)):
                raise BadRecord(f"{key} must be a number, got {line.get(key)!r:.60}")
        if not 0 <= line["win_share"] <= 1:
            raise BadRecord(f"win_share must be in [0, 1], got {line['win_share']!r}")
        if not isinstance(line.get("forfeit"), bool):
            raise BadRecord(f"forfeit must be true or false, got {line.get('forfeit')!r:.60}")
        adjusted = line.get("win_share_adjusted")
        if adjusted is not None and not is_number(adjusted):
            raise BadRecord(f"win_share_adjusted must be a number or null, got {adjusted!r:.60}")


def _differs(path: Path, saved: object, settings: dict[str, Any]) -> str:
    """One line: which settings the saved evaluation had that this command does not."""
    if not isinstance(saved, dict):
        return f"{path}: its first line holds no settings: not an evaluation's progress file"
    keys = [k for k in settings if saved.get(k) != settings[k]] or sorted(
        set(saved) - set(settings)
    )
    details = "; ".join(
        f"{k}: saved {saved.get(k)!r:.80}, now {settings.get(k)!r:.80}" for k in keys
    )
    return (
        f"{path} holds the games of an evaluation with other settings ({details}): run it "
        "again with those, or choose another --out"
    )


def _number(value: Any) -> Any:
    return math.nan if value is None else value


def _is_nan(value: object) -> bool:
    return isinstance(value, float) and math.isnan(value)
