"""Run (or resume) a tournament into a results folder: lock, check agents, play, summarise.

Games are played by the referee (:mod:`tournament.referee`) on the game workers of
:mod:`tournament.pool`, each bot in its own sandboxed process; each record is appended to
``games.jsonl`` as its game ends, so a run stopped any way (Ctrl-C, ``kill -9``) resumes with
the same command: finished games are kept, the rest are played, and the summary is the one an
uninterrupted run writes.

Each record also gets every seat's luck (:mod:`tournament.luck`: the chance corrections of the
shipped win-probability model, where the rule set has one) as its game ends, so the summary
shows each agent's luck-adjusted win share beside the raw one.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from tournament.config import TournamentConfig, TournamentError
from tournament.luck import GameLuck
from tournament.pool import MatchSetup, check_bots_start, run_games
from tournament.ratings import summarise
from tournament.records import GameLog, OutputLock, prepare_out
from tournament.report import write_summary
from tournament.schedule import GameSpec, schedule

#: Where a tournament writes without ``out``: a run folder (``runs/`` is not tracked by git), never
#: the committed results under ``results/tournaments/``, which only an explicit ``--out`` rewrites.
DEFAULT_ROOT = Path("runs") / "tournaments"


def results_folder(config: TournamentConfig) -> Path:
    """``config.out``, else ``runs/tournaments/NAME`` (:data:`DEFAULT_ROOT`)."""
    return Path(config.out) if config.out else DEFAULT_ROOT / config.name


def match_setup(config: TournamentConfig, out: Path | None) -> MatchSetup:
    log_dir = None
    if out is not None:
        log_dir = out / "bots"
        log_dir.mkdir(parents=True, exist_ok=True)
    return MatchSetup(
        tuple(config.entries()),
        config.ruleset().to_dict(),
        config.limits(),
        config.max_turns,
        str(log_dir) if log_dir else None,
    )


def run_tournament(
    config: TournamentConfig,
    out: Path | None = None,
    progress: bool = True,
    command: str | None = None,
    luck: bool = True,
) -> dict[str, Any]:
    """Play (or resume) the tournament into ``out`` (default :func:`results_folder`) and write
    the summaries; :class:`~tournament.config.TournamentError` for a problem of the user's.
    With ``luck``, each record gets its seats' luck (module docstring), and the summary the
    luck-adjusted win shares; records of an earlier run without it get it at the summary."""
    out = out or results_folder(config)
    with OutputLock(out):
        done = prepare_out(out, config)
        games = schedule(config)
        check_schedule(done, games, config, out / "games.jsonl")
        done_ids = {r["game"] for r in done}
        todo = [g for g in games if g.game not in done_ids]
        if done:  # a rerun of the same command continues the folder's games
            print(
                f"resuming {out}/: {len(done)} of {len(games)} games already played, "
                f"{len(todo)} to play",
                file=sys.stderr,
                flush=True,
            )
        setup = match_setup(config, out)
        if todo:
            if config.backend == "ray":  # a missing Ray or cluster is found before any game
                from tournament.ray_pool import connect

                connect(config.address, config.workers)
            check_bots_start(setup)
        records = list(done)
        game_luck = GameLuck.shipped(config.ruleset()) if luck else None
        log = GameLog(out / "games.jsonl")
        bar = _progress_bar(config.name, len(games), len(done)) if progress and todo else None
        try:

            def on_record(record: dict) -> None:
                if game_luck is not None:
                    add_luck(record, game_luck)
                log.append(record)
                records.append(record)
                if bar is not None:
                    bar.advance(bar.task_ids[0])

            if config.backend == "ray":
                from tournament.ray_pool import run_games_ray

                run_games_ray(todo, setup, config.workers, on_record, config.address)
            else:
                run_games(todo, setup, config.workers or os.cpu_count() or 1, on_record)
        finally:
            if bar is not None:
                bar.stop()
            log.close()
        if game_luck is not None:
            for record in records:
                add_luck(record, game_luck)
        summary = summarise(records, [e.label for e in config.entries()])
        write_summary(out, config, summary, command)
    return summary


def add_luck(record: dict, game_luck: GameLuck) -> None:
    """Put each seat's luck in the game ``record`` (key ``luck``) unless it is there."""
    if "luck" not in record:
        record["luck"] = [float(x) for x in game_luck.of_game(record["seed"], record["actions"])]


def check_schedule(
    records: list[dict], games: list[GameSpec], config: TournamentConfig, path: Path
) -> None:
    """Every saved record is the game of this schedule that its id names (same seed, same
    agents in the same seats): a file of another run would otherwise be counted as this one's."""
    labels = [e.label for e in config.entries()]
    for record in records:
        game = record["game"]
        spec = games[game] if game < len(games) else None
        if spec is None or (record["seed"], record["agents"]) != (
            spec.seed,
            [labels[a] for a in spec.seats],
        ):
            raise TournamentError(
                f"{path}: game {game} is not that game of this tournament's schedule (its id, "
                "seed or seats differ); the file belongs to another run"
            )


def _progress_bar(name: str, total: int, done: int):
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn(f"[bold]{name}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        transient=False,
    )
    bar.add_task("games", total=total, completed=done)
    bar.start()
    return bar
