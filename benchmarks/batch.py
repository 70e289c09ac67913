"""Batch core against the Python engine: random play, actions per second, in one run.

The batch core plays N games (``--games``, 1024 by default) through its public Python API, one
call per step of all games: ``random_actions`` (a uniformly random legal action per game, from
per-game streams) and ``step(actions, autoreset=True)`` with its legality check, so every
number includes the Python calls, the check and the argument conversion. ``--threads``: the
batch core's threads, by default its own default (one: the kernels' serial copies, no threading
layer started); 0 or more than one runs the parallel copies on numba's threading layer, both
printed in the header. The engine plays
random games in one process exactly as ``benchmarks/engine.py`` does (``legal_action_indices``
+ ``apply_action``).

These machines drift by tens of percent within minutes, so the two are timed round-robin in
``--rounds`` short rounds and each side's best round is compared (as ``timeit`` reports a
minimum); the medians are printed too. Compilation is excluded (one warm-up step; numba's disk
cache). Last line: ``batch: N actions/s (batch core, T thread(s), layer X) vs M (engine) =
R×``.

    python benchmarks/batch.py --seconds 2 --rounds 5
"""

from __future__ import annotations

import argparse
import inspect
import platform
import shlex
import statistics
import sys
import time

import numba
from engine import run as run_engine

from camelup_env import RuleSet
from camelup_env.batch import BatchGames, random_streams


def run_batch(games: BatchGames, streams, seconds: float) -> dict[str, float]:
    """Random play of every game until ``seconds`` pass: actions and finished games per second."""
    n = len(games)
    clock = time.perf_counter
    start = clock()
    steps = finished = 0
    while clock() - start < seconds:
        result = games.step(games.random_actions(streams), autoreset=True)
        finished += int(result.terminated.sum())
        steps += 1
    elapsed = clock() - start
    return {"actions_per_s": steps * n / elapsed, "games_per_s": finished / elapsed}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1024, help="games in the batch (N)")
    parser.add_argument("--seconds", type=float, default=2.0, help="wall time per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--preset", default="classic")
    parser.add_argument(
        "--threads",
        type=int,
        default=inspect.signature(BatchGames).parameters["threads"].default,
        help="the batch core's threads (default: BatchGames' default; 0: every core)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rules = RuleSet(args.preset, num_players=args.players)
    games = BatchGames(rules, args.games, seed=args.seed, threads=args.threads)
    streams = random_streams(args.games, seed=args.seed + 1)
    games.step(games.random_actions(streams), autoreset=True)  # compile or load the kernels
    try:
        layer = numba.threading_layer()
    except ValueError:  # the serial kernels start no threading layer
        layer = "none started"
    threads = numba.config.NUMBA_NUM_THREADS if args.threads == 0 else args.threads
    print(
        f"random play, {args.preset}, {args.players} players: batch core N={args.games} on "
        f"{threads} thread(s), numba threading layer: {layer} (selected: "
        f"{numba.config.THREADING_LAYER}) vs the Python engine in one process; "
        f"{args.rounds} rounds of {args.seconds:g} s each (Python {platform.python_version()}, "
        f"{platform.machine()})"
    )
    batch, engine = [], []
    for r in range(args.rounds):
        engine.append(run_engine(args.preset, args.players, args.seconds, args.seed + r))
        batch.append(run_batch(games, streams, args.seconds))
    for name, results in (("batch core", batch), ("engine", engine)):
        rates = [x["actions_per_s"] for x in results]
        finished = max(x["games_per_s"] for x in results)
        print(
            f"{name:<11} best {max(rates):>13,.0f} actions/s   median "
            f"{statistics.median(rates):>13,.0f}   finished games/s (best) {finished:>10,.0f}"
        )
    command = " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv])
    print(f"command: {command}")
    best_batch = max(x["actions_per_s"] for x in batch)
    best_engine = max(x["actions_per_s"] for x in engine)
    print(
        f"batch: {best_batch:,.0f} actions/s (batch core, {threads} thread(s), layer {layer}) "
        f"vs {best_engine:,.0f} (engine) = {best_batch / best_engine:.1f}×"
    )


if __name__ == "__main__":
    main()
