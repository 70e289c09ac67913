"""Batched observations against the Observer: observations per second on the same states.

Positions come from random play in the batch core (``--positions`` states, every game sampled
every few steps); each is observed from the seat to act, as an environment step does. The
batched path is one ``BatchObserver.observe`` call for all of them (numba threads: every core,
``--threads`` to change); the Observer observes them one by one in one process, with the odds
caches cleared before each round (a training step sees new positions; the Observer's own
per-part memo is kept, as in an environment). Both outputs are checked equal before timing.

These machines drift, so the two are timed round-robin in ``--rounds`` rounds and each side's
best round is compared; compilation is excluded (a warm-up call). Last line:
``batch observation: N obs/s (batched) vs M (Observer) = R×``.

    python benchmarks/batch_observation.py --preset classic --players 4 --flags training
"""

from __future__ import annotations

import argparse
import platform
import shlex
import statistics
import sys
import time

import numba
import numpy as np

from camelup_env import RuleSet, odds
from camelup_env.batch import BatchGames, random_streams
from camelup_env.batch.observe import BatchObserver
from camelup_env.observation import Observer

#: Observer flags by name: the training configs', smoke.yaml's, the plain and camelup_v0's.
FLAGS = {
    "training": dict(odds_features=True, race_samples=64, action_values=True),
    "no_odds": dict(odds_features=False, race_samples=64, action_values=True),
    "plain": dict(odds_features=False, action_values=False),
    "v0": dict(odds_features=True, action_values=False),
}


def positions(rules: RuleSet, count: int, seed: int) -> BatchGames:
    """``count`` states of random batch-core games (a quarter of them as games, sampled
    every 7 steps), as one batch."""
    games = BatchGames(rules, max(1, count // 4), seed=seed)
    streams = random_streams(len(games), seed + 1)
    states = []
    while len(states) < count:
        for _ in range(7):
            games.step(games.random_actions(streams), autoreset=True)
        states += games.to_states()
    return BatchGames.from_states(states[:count])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--flags", choices=sorted(FLAGS), default="training")
    parser.add_argument("--positions", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS,
                        help="numba threads (default: every core)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    numba.set_num_threads(args.threads)
    rules = RuleSet(args.preset, num_players=args.players)
    flags = FLAGS[args.flags]
    games = positions(rules, args.positions, args.seed)
    states = games.to_states()
    seats = games.current_player.astype(np.int64)
    batched = BatchObserver(rules, **flags)
    reference = Observer(rules, **flags)

    def run_reference() -> np.ndarray:
        odds.clear_cache()
        return np.stack([reference.observe(s, int(q)) for s, q in zip(states, seats, strict=True)])

    np.testing.assert_allclose(batched.observe(games, seats), run_reference(), rtol=1e-6,
                               atol=1e-7)  # also the warm-up: compiles or loads the kernels
    print(f"observations, {args.preset}, {args.players} players, flags {args.flags} {flags}: "
          f"{len(states)} positions of random batch-core games, each from the seat to act; "
          f"batched on {args.threads} thread(s) vs the Observer in one process (odds caches "
          f"cleared per round); {args.rounds} rounds (Python {platform.python_version()}, "
          f"{platform.machine()})")
    rates: dict[str, list[float]] = {"batched": [], "Observer": []}
    clock = time.perf_counter
    for _ in range(args.rounds):
        start = clock()
        run_reference()
        rates["Observer"].append(len(states) / (clock() - start))
        start = clock()
        batched.observe(games, seats)
        rates["batched"].append(len(states) / (clock() - start))
    for name, values in rates.items():
        print(f"{name:<9} best {max(values):>12,.0f} obs/s   median "
              f"{statistics.median(values):>12,.0f}")
    command = " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv])
    print(f"command: {command}")
    best, ref = max(rates["batched"]), max(rates["Observer"])
    print(f"batch observation: {best:,.0f} obs/s (batched) vs {ref:,.0f} (Observer) = "
          f"{best / ref:.1f}x")


if __name__ == "__main__":
    main()
