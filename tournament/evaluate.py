"""Evaluate a policy against a baseline: seat-rotated, paired games, win share with a 95% CI.

In game ``g`` the candidate sits in seat ``g mod n`` and the baseline fills every other seat;
the ``n`` rotations of a group share one seed, so they see the same dice (paired seeds cut the
variance that luck adds). A game's *win share* is ``1/k`` when the candidate is one of ``k``
tied winners, else 0; its mean over games estimates the win rate (1/n is an equal player).
The 95% interval is the normal approximation over per-game shares (n >= a few hundred games).

Games run in worker processes; each worker loads the candidate once (a camelup model file or
any ``agents.make`` spec).

``camelup evaluate ppo:results/models/classic2/model.zip --opponents random,heuristic,greedy
--games 2000 --out results/models/classic2`` writes ``evaluation.csv`` and ``evaluation.md``.
"""

from __future__ import annotations

import argparse
import csv
import math
import multiprocessing as mp
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

import agents
from agents.arena import play_game
from camelup_env.rules import RuleSet


@dataclass(frozen=True)
class EvalResult:
    candidate: str
    opponent: str
    preset: str
    num_players: int
    games: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_coins: float
    mean_opponent_coins: float
    forfeits: int

    def as_row(self) -> dict:
        return asdict(self)


def mean_ci(values: np.ndarray) -> tuple[float, float, float]:
    """Mean and normal-approximation 95% interval."""
    n = len(values)
    mean = float(values.mean())
    half = 1.96 * float(values.std(ddof=1)) / math.sqrt(n) if n > 1 else float("nan")
    return mean, mean - half, mean + half


_WORKER: dict = {}


def _init(candidate: str, opponent: str) -> None:
    import torch

    torch.set_num_threads(1)
    _WORKER["candidate"] = agents.make(candidate)
    _WORKER["opponent"] = agents.make(opponent)


def _play(job: tuple[dict, int, int]) -> tuple[float, float, float, bool]:
    rules_doc, game, seed = job
    rules = RuleSet.from_dict(rules_doc)
    n = rules.num_players
    seat = game % n
    lineup = [_WORKER["opponent"]] * n
    lineup[seat] = _WORKER["candidate"]
    result = play_game(rules, lineup, seed=seed + game // n)
    share = 1.0 / len(result.winners) if seat in result.winners else 0.0
    others = [c for s, c in enumerate(result.scores) if s != seat]
    forfeit = result.forfeit is not None and result.forfeit["seat"] == seat
    return share, float(result.scores[seat]), float(np.mean(others)), forfeit


def evaluate(candidate: str, opponent: str, rules: RuleSet, games: int, seed: int = 0,
             workers: int | None = None) -> EvalResult:
    """Play ``games`` seat-rotated games of ``candidate`` against ``opponent`` (agent specs)."""
    if games < 2:
        raise ValueError(f"evaluation needs at least 2 games, got {games}")
    jobs = [(rules.to_dict(), g, seed) for g in range(games)]
    workers = workers or os.cpu_count() or 1
    if workers == 1:
        _init(candidate, opponent)
        rows = [_play(job) for job in jobs]
    else:
        ctx = mp.get_context("forkserver" if os.name == "posix" else "spawn")
        with ctx.Pool(workers, initializer=_init, initargs=(candidate, opponent)) as pool:
            rows = pool.map(_play, jobs, chunksize=max(1, games // (workers * 8)))
    shares, coins, opp_coins, forfeits = (np.array(col) for col in zip(*rows, strict=True))
    mean, low, high = mean_ci(shares)
    return EvalResult(
        candidate=candidate, opponent=opponent, preset=rules.preset,
        num_players=rules.num_players, games=games, win_rate=mean, ci_low=low, ci_high=high,
        mean_coins=float(coins.mean()), mean_opponent_coins=float(opp_coins.mean()),
        forfeits=int(forfeits.sum()),
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("candidate", help="agent spec, e.g. ppo:results/models/classic2/model.zip")
    parser.add_argument("--opponents", default="random,heuristic,greedy",
                        help="comma-separated agent specs (each fills every other seat)")
    parser.add_argument("--preset", default=None, help="default: the model's own preset")
    parser.add_argument("--players", type=int, default=None,
                        help="default: the model's own player count")
    parser.add_argument("--games", type=int, default=2000, help="games per opponent")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None, help="default: one per core")
    parser.add_argument("--out", default=None, help="folder for evaluation.csv / .md")


def run(args: argparse.Namespace) -> int:
    preset, players = args.preset, args.players
    if args.candidate.startswith("ppo:") and (preset is None or players is None):
        from agents.ppo import read_metadata

        recorded = RuleSet.from_dict(read_metadata(args.candidate[4:])["rules"])
        preset = preset or recorded.preset
        players = players or recorded.num_players
    rules = RuleSet(preset or "classic", num_players=players or 2)
    rows = []
    for opponent in [o for o in args.opponents.split(",") if o]:
        start = time.time()
        result = evaluate(args.candidate, opponent, rules, args.games, args.seed, args.workers)
        rows.append(result)
        print(f"vs {opponent:<10} win share {result.win_rate:.3f} "
              f"[{result.ci_low:.3f}, {result.ci_high:.3f}]  coins {result.mean_coins:.1f} vs "
              f"{result.mean_opponent_coins:.1f}  ({result.games} games, "
              f"{time.time() - start:.0f} s)", flush=True)
    if args.out:
        write_report(Path(args.out), rows, args.command_line)
    return 0


def write_report(out: Path, rows: list[EvalResult], command: str) -> None:
    """``evaluation.csv`` and ``evaluation.md`` (with the command that made them)."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "evaluation.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].as_row()))
        writer.writeheader()
        writer.writerows(r.as_row() for r in rows)
    r0 = rows[0]
    lines = [
        f"# Evaluation of `{r0.candidate}`",
        "",
        f"{r0.preset}, {r0.num_players} players; the candidate takes each seat equally often "
        "and the opponent fills every other seat; paired seeds across rotations. Win share: "
        f"1/k for a k-way tied win; an equal player scores {1 / r0.num_players:.3f}.",
        "",
        "| opponent | games | win share | 95% CI | mean coins (candidate) "
        "| mean coins (opponents) | forfeits |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.opponent} | {r.games} | {r.win_rate:.3f} | [{r.ci_low:.3f}, {r.ci_high:.3f}] "
        f"| {r.mean_coins:.1f} | {r.mean_opponent_coins:.1f} | {r.forfeits} |"
        for r in rows
    ]
    lines += ["", f"Command: `{command}`", ""]
    (out / "evaluation.md").write_text("\n".join(lines))
