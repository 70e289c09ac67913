"""Watch: the recorded games of tournament folders under one root, step by step.

``camelup serve --runs DIR`` names the root; a page names a folder by its path relative to it
(``demo``, ``2026/classic4``). :meth:`RunsRoot.folder` resolves that path, symbolic links
included, and refuses anything that lands outside the root (``..``, an absolute path, a link
out), so the browser can read nothing else. A folder is a tournament's ``--out``: its
``config.json`` gives the rules and its ``games.jsonl`` the games, each replayed from its seed
and actions and checked against its recorded coins (:func:`tournament.replay.replay`); no
file per game is written or needed. Results folders may come from strangers: they are read as
JSON only, and every name in them is escaped by the templates.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from camelup_env import odds
from camelup_env.game.rules import RuleSet
from tournament.config import TournamentError
from tournament.records import read_games
from tournament.replay import Step, replay, rules_of
from webapp.pages import move_lines

#: how deep under the root tournament folders are looked for, and how many are listed
SEARCH_DEPTH, MAX_FOLDERS = 4, 500
#: race rollouts of the odds shown at each step
RACE_SAMPLES = 1000


class WatchError(ValueError):
    """A folder or game that cannot be shown; the message is the one-line answer."""


class RunsRoot:
    """The folder ``camelup serve --runs`` names, and the tournament folders under it."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def folder(self, relative: str) -> Path:
        """The tournament folder at ``relative`` under the root (:class:`WatchError` if the
        path leaves the root or holds no tournament)."""
        if not relative or "\0" in relative or Path(relative).is_absolute():
            raise WatchError(f"not a folder under the runs root: {relative[:80]!r}")
        path = (self.root / relative).resolve()
        if not path.is_relative_to(self.root):
            raise WatchError(f"not a folder under the runs root: {relative[:80]!r}")
        if not (path / "games.jsonl").is_file() or not (path / "config.json").is_file():
            raise WatchError(f"{relative[:80]!r} holds no tournament (config.json and games.jsonl)")
        return path

    def tournaments(self) -> list[str]:
        """The tournament folders under the root, as paths relative to it (``.``: the root
        itself), sorted."""
        found: list[str] = []
        for here, dirs, files in os.walk(self.root):
            depth = len(Path(here).relative_to(self.root).parts)
            dirs[:] = (
                sorted(d for d in dirs if not d.startswith(".")) if depth < SEARCH_DEPTH else []
            )
            if "games.jsonl" in files and "config.json" in files:
                found.append(Path(here).relative_to(self.root).as_posix())
                if len(found) >= MAX_FOLDERS:
                    break
        return sorted(found)

    def games(self, relative: str) -> tuple[RuleSet, list[dict]]:
        """The rules and game records of a tournament folder."""
        folder = self.folder(relative)
        try:
            return rules_of(folder), read_games(folder / "games.jsonl")
        except TournamentError as exc:
            raise WatchError(str(exc)) from None


@dataclass(frozen=True)
class GameRow:
    """A game in a folder's list, its fields made text whatever the record holds."""

    game: int
    agents: str
    coins: str
    winners: str
    forfeit: bool
    moves: int


def _listed(value: object) -> str:
    return ", ".join(str(x)[:60] for x in value) if isinstance(value, list) else ""


def game_rows(records: list[dict]) -> list[GameRow]:
    """The list of a folder's games (:meth:`RunsRoot.games`)."""
    return [
        GameRow(
            game=r["game"],
            agents=_listed(r.get("agents")),
            coins=_listed(r.get("coins")),
            winners=_listed(r.get("winners")),
            forfeit=bool(r.get("forfeit")),
            moves=len(r["actions"]) if isinstance(r.get("actions"), list) else 0,
        )
        for r in records
    ]


@dataclass(frozen=True)
class StepView:
    """One step of a replay as the page shows it."""

    step: Step
    lines: tuple[str, ...]  # the move and its events, in words
    leg: tuple[tuple[float, ...], ...] | None  # leg[camel][rank]; None once the race is over
    race_winner: tuple[float, ...] | None
    race_loser: tuple[float, ...] | None


def labels_of(record: dict, rules: RuleSet) -> list[str]:
    """The seats' agent labels of a record (``seat N`` where the record lacks one)."""
    labels = [str(a)[:60] for a in record.get("agents", [])][: rules.num_players]
    return labels + [f"seat {s}" for s in range(len(labels), rules.num_players)]


def find(records: list[dict], game: int) -> dict:
    for record in records:
        if record["game"] == game:
            return record
    raise WatchError(f"no game {game} in this folder")


def replayed(rules: RuleSet, record: dict) -> list[Step]:
    """Every step of a recorded game (:class:`WatchError` if it does not replay)."""
    try:
        return replay(rules, record)
    except TournamentError as exc:
        raise WatchError(str(exc)) from None


def step_view(rules: RuleSet, steps: list[Step], k: int, labels: list[str]) -> StepView:
    """Step ``k``: its move and events (every card shown: the game is over) and the odds of
    the position it leaves."""
    step = steps[k]
    if step.seat is None:
        lines = ["The deal: " + ", ".join(f"P{s} {name}" for s, name in enumerate(labels))]
    else:
        head, events = move_lines(rules, step.seat, step.action, step.events, labels)
        lines = [head, *events]
    if step.state.game_over:
        return StepView(step, tuple(lines), None, None, None)
    shared = odds.position_odds(step.state, RACE_SAMPLES)
    return StepView(
        step,
        tuple(lines),
        leg=tuple(tuple(float(p) for p in row) for row in shared.leg),
        race_winner=tuple(float(p) for p in shared.race.winner),
        race_loser=tuple(float(p) for p in shared.race.loser),
    )
