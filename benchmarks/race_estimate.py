"""The shared race estimate (odds.position_odds) against plain Monte Carlo: error and cost.

    python benchmarks/race_estimate.py [--positions 40] [--preset classic] [--players 4]

On positions of seeded random games (every phase of the race), prints for ``N`` samples of
:func:`camelup_env.odds.position_odds` and for plain Monte Carlo
(:func:`camelup_env.odds.race_probabilities`) with the same ``N`` the root-mean-square and
largest error of P(winner) / P(loser) against plain Monte Carlo with 100,000 rollouts, and the
mean uncached cost per position (the shared estimate's includes its leg enumeration, which also
gives the leg odds; the plain one is rollouts only), all in one run. The ``camelup_v0``
observation used plain Monte Carlo with 200 rollouts: its row is the baseline.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from camelup_env import RuleSet, odds
from camelup_env.game.sampling import random_positions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args(argv)
    print(
        "command: python benchmarks/race_estimate.py "
        + " ".join(argv if argv is not None else sys.argv[1:])
    )
    states = random_positions(RuleSet(args.preset, num_players=args.players), args.positions)
    refs = [odds.race_probabilities(s, 100_000, seed=1) for s in states]
    odds.position_odds(states[0], 8)  # compile
    rows = [
        ("plain Monte Carlo", 200),
        ("shared estimate", 64),
        ("plain Monte Carlo", 64),
        ("shared estimate", 1000),
        ("plain Monte Carlo", 1000),
    ]
    print(
        f"{'estimate':<20} {'N':>6} {'rms error':>10} {'max error':>10} {'0.5/sqrt(N)':>12} "
        f"{'us/position':>12}"
    )
    for name, n in rows:
        odds.clear_cache()
        start = time.perf_counter()
        if name == "shared estimate":
            est = [odds.position_odds(s, n).race for s in states]
        else:
            est = [odds.race_probabilities(s, n, seed=7) for s in states]
        cost = (time.perf_counter() - start) / len(states) * 1e6
        err = np.array(
            [
                np.concatenate([e.winner - r.winner, e.loser - r.loser])
                for e, r in zip(est, refs, strict=True)
            ]
        )
        print(
            f"{name:<20} {n:>6} {np.sqrt(np.mean(err**2)):>10.4f} {np.abs(err).max():>10.4f} "
            f"{0.5 / np.sqrt(n):>12.4f} {cost:>12.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
