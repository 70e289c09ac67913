"""Evaluate a policy against a baseline: seat-rotated, paired games, win share with a 95% CI.

In game ``g`` the candidate sits in seat ``g mod n`` and the baseline fills every other seat;
the ``n`` rotations of a group share one seed, so they see the same dice (paired seeds cut the
variance that luck adds). A game's *win share* is ``1/k`` when the candidate is one of ``k``
tied winners, else 0; its mean over games estimates the win rate (1/n is an equal player).
The 95% interval is :func:`tournament.ratings.share_interval` over per-game shares (Wilson's,
inside [0, 1]), clustered by seed group: the rotations of a group are not independent games.

Games are played like a tournament's (the same referee, bot processes and game workers), so a
bot that breaks a rule forfeits and an agent that cannot be built stops the evaluation at once;
two agents that decide whole batches (policy model files, ``random``) play on the batch core
instead (:mod:`tournament.batch_evaluate`; ``--referee`` keeps the referee).

``camelup evaluate ppo:classic2 --opponents random,heuristic,greedy
--games 2000 --out results/models/classic2`` writes ``evaluation.csv`` and ``evaluation.md``.
With ``--out``, every game the referee finishes is saved as it ends, so an evaluation stopped
any way (Ctrl-C, ``kill``, the machine) resumes when the same command runs again
(:mod:`tournament.eval_progress`).
"""

from __future__ import annotations

import argparse
import csv
import functools
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, fields
from pathlib import Path

import agents
from camelup_env.game.rules import PRESETS, RuleSet
from camelup_env.interrupts import interrupts_stop_the_run, stop_requested
from tournament.batch_evaluate import evaluate_on_batch, plays_on_batch
from tournament.config import (
    MAX_GAMES,
    MAX_SEED,
    AgentEntry,
    TournamentConfig,
    TournamentError,
    check_model_game,
    check_spec,
    check_workers,
)
from tournament.eval_progress import EvalProgress
from tournament.eval_result import CandidateGame, EvalResult, evaluation_result
from tournament.luck import GameLuck
from tournament.pool import MatchSetup, check_bots_start, run_games
from tournament.ratings import bracket, win_share
from tournament.schedule import GameSpec


def evaluation_games(games: int, players: int, seed: int) -> list[GameSpec]:
    """Game ``g``: the candidate (agent 0) in seat ``g mod n``, seed ``seed + g // n``."""
    return [
        GameSpec(
            game=g,
            round=g // players,
            lineup=0,
            rotation=g % players,
            seed=seed + g // players,
            seats=tuple(0 if s == g % players else 1 for s in range(players)),
        )
        for g in range(games)
    ]


def evaluate(
    candidate: str,
    opponent: str,
    rules: RuleSet,
    games: int,
    seed: int = 0,
    workers: int | None = None,
    config: TournamentConfig | None = None,
    referee: bool = False,
    luck: bool = True,
    candidate_kwargs: dict | None = None,
    saved: Sequence[CandidateGame] = (),
    on_game: Callable[[CandidateGame], None] | None = None,
) -> EvalResult:
    """Play ``games`` seat-rotated games of ``candidate`` against ``opponent`` (agent specs);
    the limits are those of ``config`` (default: the tournament defaults). Two agents that
    decide whole batches (policy model files, ``random``) play on the batch core
    (:mod:`tournament.batch_evaluate`) unless ``referee``. With ``luck``, games the referee
    plays also get their luck-adjusted win share where the rule set has a win-probability
    model (:mod:`tournament.luck`). ``candidate_kwargs`` are the candidate's keyword arguments
    (a variant of a scripted bot, e.g. ``{"margin": 3}``): such a candidate plays through the
    referee, whose bot processes build it with them. ``saved`` are games of this evaluation
    already played (:mod:`tournament.eval_progress`): the referee plays only the others, and
    hands each to ``on_game`` as it ends."""
    if not 2 <= games <= MAX_GAMES:
        raise TournamentError(f"evaluation needs 2 to {MAX_GAMES:,} games, got {games:,}")
    if not 0 <= seed <= MAX_SEED:
        raise TournamentError(f"seed must be between 0 and {MAX_SEED}, got {seed}")
    for spec in (candidate, opponent):
        try:
            check_spec(spec)
            check_model_game(spec, rules)
        except ValueError as exc:
            raise TournamentError(str(exc)) from None
    config = config or TournamentConfig(agents=[candidate, opponent], players=2)
    kwargs = dict(candidate_kwargs or {})
    if not referee and not kwargs and plays_on_batch(candidate, opponent, rules):
        return evaluate_on_batch(candidate, opponent, rules, games, seed, config.max_turns)
    label = f"{candidate} {json.dumps(kwargs, sort_keys=True)}" if kwargs else candidate
    entries = (
        AgentEntry(label, candidate, kwargs),
        AgentEntry(f"{opponent} (opponent)", opponent),
    )
    setup = MatchSetup(entries, rules.to_dict(), config.limits(), config.max_turns)
    check_bots_start(setup)
    rows = list(saved)
    played = {r.game for r in rows}
    game_luck = GameLuck.shipped(rules) if luck else None

    def on_record(record: dict) -> None:
        seat = record["rotation"]  # the candidate's seat (evaluation_games)
        others = [c for s, c in enumerate(record["scores"]) if s != seat]
        share = win_share(record, seat)
        adjusted = math.nan
        if game_luck is not None:
            adjusted = share - float(game_luck.of_game(record["seed"], record["actions"])[seat])
        rows.append(
            CandidateGame(
                game=record["game"],
                seed=record["seed"],
                seat=seat,
                win_share=share,
                coins=float(record["scores"][seat]),
                opponent_coins=sum(others) / len(others),
                forfeit=record["forfeit"] is not None and record["forfeit"]["seat"] == seat,
                win_share_adjusted=adjusted,
            )
        )
        if on_game is not None:
            on_game(rows[-1])

    schedule = evaluation_games(games, rules.num_players, seed)
    run_games(
        [g for g in schedule if g.game not in played],
        setup,
        workers or os.cpu_count() or 1,
        on_record,
    )
    rows.sort(key=lambda r: r.game)
    return evaluation_result(label, opponent, rules, rows)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("candidate", help="agent spec, e.g. ppo:classic2")
    parser.add_argument(
        "--opponents",
        default="random,heuristic,greedy",
        help="comma-separated agent specs (each fills every other seat)",
    )
    parser.add_argument(
        "--preset",
        default=None,
        choices=PRESETS,
        help="default: the model's own preset",
    )
    parser.add_argument(
        "--players", type=int, default=None, help="default: the model's own player count"
    )
    parser.add_argument(
        "--candidate-kwargs",
        type=candidate_kwargs,
        default=None,
        metavar="JSON",
        help="the candidate's keyword arguments as a JSON object, e.g. '{\"margin\": 3}' "
        "(a variant of a scripted bot; its options are in `camelup agents` and its docs page)",
    )
    parser.add_argument("--games", type=int, default=2000, help="games per opponent")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None, help="default: one per core")
    parser.add_argument(
        "--out",
        default=None,
        help="folder for evaluation.csv / .md; each finished game is saved there as "
        "it ends, and the same command resumes a stopped evaluation",
    )
    parser.add_argument(
        "--no-luck",
        action="store_true",
        help="skip the luck-adjusted win share (it replays each game with the "
        "win-probability model: docs/luck.md)",
    )
    parser.add_argument(
        "--referee",
        action="store_true",
        help="play through the referee's bot processes even when both agents "
        "decide whole batches (policy files, random), which otherwise "
        "play on the batch core",
    )


def candidate_kwargs(text: str) -> dict:
    """``--candidate-kwargs``: a JSON object of argument names to values, checked before any
    game starts (argparse turns the error into one line and exit 2)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON ({exc.msg}): {text[:60]!r}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(
            f"a JSON object of argument names to values, got {text[:60]!r}"
        )
    return value


def _rules(args: argparse.Namespace) -> RuleSet:
    """The game: ``--preset``/``--players``, else the one the candidate's model file records."""
    preset, players = args.preset, args.players
    if preset is None or players is None:
        from agents.policy_file import read_metadata

        try:
            path = agents.model_file(args.candidate)
            recorded = None if path is None else RuleSet.from_dict(read_metadata(path)["rules"])
        except Exception as exc:  # a missing or foreign file: the user's to fix
            raise TournamentError(
                f"cannot read the rules of {args.candidate!r}: {type(exc).__name__}: {exc}"
            ) from None
        if recorded is not None:
            preset = preset or recorded.preset
            players = players or recorded.num_players
    try:
        return RuleSet(preset or "classic", num_players=players or 2)
    except ValueError as exc:
        raise TournamentError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    progress: EvalProgress | None = None
    try:
        try:
            check_workers(args.workers, "--workers")
        except ValueError as exc:
            raise TournamentError(str(exc)) from None
        rules = _rules(args)
        opponents = [o for o in args.opponents.split(",") if o]
        if not opponents:
            raise TournamentError("--opponents names no agent")
        if args.out:
            settings = progress_settings(
                args.candidate,
                args.candidate_kwargs or {},
                rules,
                args.seed,
                luck=not args.no_luck,
                referee=args.referee,
            )
            progress = EvalProgress(Path(args.out), settings, rules.num_players)
        with interrupts_stop_the_run():
            rows = [_evaluate_one(args, rules, opponent, progress) for opponent in opponents]
    except TournamentError as exc:
        if progress is not None:
            progress.close()
        print(f"camelup evaluate: error: {exc}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, SystemError) as exc:
        if not stop_requested(exc):
            raise
        if progress is None:
            print("\ninterrupted: nothing saved (without --out)", file=sys.stderr)
        else:
            progress.close()
            print(
                f"\ninterrupted: every finished game is saved in {progress.path}; run the same "
                "command again to resume",
                file=sys.stderr,
            )
        return 130
    if progress is not None:
        write_report(Path(args.out), rows, args.command_line)
        progress.close()
    return 0


def _evaluate_one(
    args: argparse.Namespace, rules: RuleSet, opponent: str, progress: EvalProgress | None
) -> EvalResult:
    """The command's evaluation against ``opponent``, from its saved games on; its line."""
    start = time.time()
    saved = [] if progress is None else progress.done(opponent, args.games)
    if progress is not None and saved:
        print(
            f"vs {opponent}: {len(saved)} of {args.games} games saved in {progress.path}; "
            "playing the rest",
            flush=True,
        )
    result = evaluate(
        args.candidate,
        opponent,
        rules,
        args.games,
        args.seed,
        args.workers,
        referee=args.referee,
        luck=not args.no_luck,
        candidate_kwargs=args.candidate_kwargs,
        saved=saved,
        on_game=None if progress is None else functools.partial(progress.save, opponent),
    )
    print(
        f"vs {opponent:<10} win share {result.win_share:.3f} "
        f"{bracket(result.ci_low, result.ci_high)}  coins {result.mean_coins:.1f} "
        f"vs {result.mean_opponent_coins:.1f}  ({result.games} games, "
        f"{result.forfeits} forfeits, {time.time() - start:.0f} s)"
        + (
            f"; luck-adjusted {result.adjusted:.3f} "
            f"{bracket(result.adjusted_ci_low, result.adjusted_ci_high)}"
            if not math.isnan(result.adjusted)
            else ""
        ),
        flush=True,
    )
    return result


def progress_settings(
    candidate: str, kwargs: dict, rules: RuleSet, seed: int, luck: bool, referee: bool
) -> dict:
    """What every game of an evaluation depends on: a resumed run must share it
    (:mod:`tournament.eval_progress`). Not the games (game ``g`` is the same in a shorter
    or a longer evaluation), the workers or the opponents (saved by opponent)."""
    return {
        "candidate": candidate,
        "candidate_kwargs": kwargs,
        "rules": rules.to_dict(),
        "seed": seed,
        "luck": luck,
        "referee": referee,
    }


def write_report(out: Path, rows: list[EvalResult], command: str) -> None:
    """``evaluation.csv`` and ``evaluation.md`` (with the command that made them), and
    ``games.csv``: every game's result, to re-analyse or to pair with another candidate's."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "evaluation.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].as_row()))
        writer.writeheader()
        writer.writerows(r.as_row() for r in rows)
    with open(out / "games.csv", "w", newline="") as f:
        writer = csv.DictWriter(
            f, fieldnames=["opponent", *(c.name for c in fields(CandidateGame))]
        )
        writer.writeheader()
        writer.writerows({"opponent": r.opponent, **asdict(g)} for r in rows for g in r.per_game)
    r0 = rows[0]
    lines = [
        f"# Evaluation of `{r0.candidate}`",
        "",
        f"{r0.preset}, {r0.num_players} players; the candidate takes each seat equally often "
        "and the opponent fills every other seat; paired seeds across rotations. Win share: "
        f"1/k for a k-way tied win; an equal player scores {1 / r0.num_players:.3f}. 95% "
        "intervals clustered by seed group (the rotations of one seed are not independent; "
        "Wilson's for the win share); every game in `games.csv`.",
        "",
        "| opponent | games | win share | 95% CI | luck-adjusted | 95% CI "
        "| mean coins (candidate) | mean coins (opponents) | forfeits |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.opponent} | {r.games} | {r.win_share:.3f} | {bracket(r.ci_low, r.ci_high)} "
        f"| {_figure(r.adjusted)} | {_adjusted_interval(r)} "
        f"| {r.mean_coins:.1f} | {r.mean_opponent_coins:.1f} | {r.forfeits} |"
        for r in rows
    ]
    lines += [
        "",
        "Luck-adjusted: the win share less each game's luck, measured exactly by the "
        "win-probability model (docs/luck.md); the same expectation, a narrower interval; "
        "- where the rule set has no model or the games were played on the batch core.",
    ]
    lines += ["", f"Command: `{command}`", ""]
    (out / "evaluation.md").write_text("\n".join(lines))


def _figure(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.3f}"


def _adjusted_interval(r: EvalResult) -> str:
    """The luck-adjusted interval; ``-`` where no adjusted share was measured."""
    return "-" if math.isnan(r.adjusted) else bracket(r.adjusted_ci_low, r.adjusted_ci_high)
