"""Exact race odds near the end against the Monte Carlo estimates: cost and error, per distance.

    python benchmarks/race_odds.py [--positions 20] [--preset classic] [--players 4]
        [--distances 1,2,3,4,5,6]

On positions of seeded random games whose leader has ``d`` spaces to go to cross the line
(:func:`camelup_env.odds.race_exact.spaces_to_go`), prints per ``d`` the mean uncached cost of
the exact odds (:func:`camelup_env.odds.race_exact.exact_race_rates`) with the cache of
leg-start shapes emptied before each position ("cold") and kept across the bucket's positions
("warm", as in a process that has played other games), of plain Monte Carlo
(:func:`camelup_env.odds.race_probabilities`, the race's rollouts only) and of the shared
estimate (:func:`camelup_env.odds.position_odds`: one leg enumeration plus its rollouts) with
the samples the bots use (1,000 for greedy, expert and champion, 64 for the observation), the
ratio of each to the cold exact cost, and each Monte Carlo estimate's largest absolute error
against the exact odds. All timings come from the same run.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np

from camelup_env import RuleSet, odds
from camelup_env.game.sampling import random_positions
from camelup_env.game.state import GameState
from camelup_env.odds import race_exact
from camelup_env.odds.position_estimate import position_odds


def _mc_estimates() -> list[tuple[str, Callable[[GameState], np.ndarray]]]:
    """The Monte Carlo estimates timed, each as ``state -> [winner / loser, camel]``."""

    def plain(n: int) -> Callable[[GameState], np.ndarray]:
        def run(s: GameState) -> np.ndarray:
            r = odds.race_probabilities(s, n, seed=7, exact=False)
            return np.stack((r.winner, r.loser))

        return run

    def shared(n: int) -> Callable[[GameState], np.ndarray]:
        def run(s: GameState) -> np.ndarray:
            r = position_odds(s, n, exact=False).race
            return np.stack((r.winner, r.loser))

        return run

    return [
        ("plain MC 1000", plain(1000)),
        ("shared 1000", shared(1000)),
        ("shared 64", shared(64)),
    ]


def _timed(fn: Callable[[GameState], np.ndarray], s: GameState, clear: bool) -> tuple:
    if clear:
        odds.clear_cache()
    start = time.perf_counter()
    out = fn(s)
    return out, (time.perf_counter() - start) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--distances", default="1,2,3,4,5,6")
    args = parser.parse_args(argv)
    print(
        "command: python benchmarks/race_odds.py "
        + " ".join(argv if argv is not None else sys.argv[1:])
    )
    rules = RuleSet(args.preset, num_players=args.players)
    if not race_exact.exact_applies(rules):
        print(f"{args.preset}: no exact race odds (camels that move backward, or the wanderer)")
        return 2
    distances = [int(d) for d in args.distances.split(",")]
    estimates = _mc_estimates()
    warm_state = random_positions(rules, 1, seed=1)[0]
    odds.warm_up(warm_state)  # compile
    race_exact.exact_race_rates(warm_state.copy())
    head = f"{'d':>2} {'positions':>9} {'exact cold us':>14} {'exact warm us':>14}"
    for name, _ in estimates:
        head += f" | {name + ' us':>18} {'ratio':>6} {'max err':>8}"
    print(head)
    for d in distances:
        states = random_positions(
            rules, args.positions, seed=d, accept=lambda s, d=d: race_exact.spaces_to_go(s) == d
        )
        cold, warm, exact = [], [], []
        for s in states:
            e, t = _timed(race_exact.exact_race_rates, s, clear=True)
            cold.append(t)
            exact.append(e)
        odds.clear_cache()
        for s in states:  # shapes kept across the bucket; each position's own leg uncached
            race_exact._positions.clear()
            warm.append(_timed(race_exact.exact_race_rates, s, clear=False)[1])
        line = f"{d:>2} {len(states):>9} {np.mean(cold):>14.0f} {np.mean(warm):>14.0f}"
        for _, fn in estimates:
            cost, err = [], 0.0
            for s, e in zip(states, exact, strict=True):
                est, t = _timed(fn, s, clear=True)
                cost.append(t)
                err = max(err, float(np.abs(est - e).max()))
            line += f" | {np.mean(cost):>18.0f} {np.mean(cost) / np.mean(cold):>6.2f} {err:>8.4f}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
