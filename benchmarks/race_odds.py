"""Exact race odds against the Monte Carlo estimates: cost and error, per distance to the end.

    python benchmarks/race_odds.py [--positions 20] [--games 10] [--preset classic]
        [--players 4] [--distances 1,2,3,4,6]

Three parts, all timed in the same run, every figure a mean per position:

* **cold**: on positions of seeded random games whose leader has ``d`` spaces to go
  (:func:`camelup_env.odds.race_exact.spaces_to_go`), each estimate with every odds cache
  empty, Monte Carlo (``exact=False``) and exact (``exact=True``): plain
  :func:`camelup_env.odds.race_probabilities` with 1,000 samples (the rollouts only), and
  :func:`camelup_env.odds.position_odds` (its leg enumeration included) with 1,000 samples
  (greedy, expert, champion) and 64 (the observation); the ratio Monte Carlo / exact and the
  Monte Carlo's largest absolute error against the exact odds;
* **in play**: every position of ``--games`` seeded random games in the order played, the
  position's caches emptied but the exact odds' table of solved states kept, as a process that
  plays game after game keeps it: ``position_odds`` with 1,000 samples, per ``d``;
* **whole race**: solving the race from a new game's position with an empty table.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np

from camelup_env import RuleSet, odds
from camelup_env.game.engine import apply_action
from camelup_env.game.legality import legal_action_indices
from camelup_env.game.sampling import random_positions
from camelup_env.game.setup import new_game
from camelup_env.game.state import GameState
from camelup_env.odds import race_exact

Estimate = Callable[[GameState, bool], np.ndarray]


def _plain(s: GameState, exact: bool) -> np.ndarray:
    r = odds.race_probabilities(s, 1000, seed=7, exact=exact)
    return np.stack((r.winner, r.loser))


def _shared(n: int) -> Estimate:
    def run(s: GameState, exact: bool) -> np.ndarray:
        r = odds.position_odds(s, n, exact=exact).race
        return np.stack((r.winner, r.loser))

    return run


ESTIMATES: list[tuple[str, Estimate]] = [
    ("plain 1000", _plain),
    ("shared 1000", _shared(1000)),
    ("shared 64", _shared(64)),
]


def _timed(fn: Estimate, s: GameState, exact: bool, keep_table: bool) -> tuple[np.ndarray, float]:
    """``fn(s, exact)`` and its cost in µs, every odds cache emptied first (with ``keep_table``,
    all but the exact odds' table of solved states)."""
    if keep_table:
        for cache in odds.lru.CACHES:
            if cache is not race_exact._solved:
                cache.clear()
    else:
        odds.clear_cache()
    start = time.perf_counter()
    out = fn(s, exact)
    return out, (time.perf_counter() - start) * 1e6


def _cold(rules: RuleSet, distances: list[int], positions: int) -> None:
    head = f"{'d':>2} {'n':>3}"
    for name, _ in ESTIMATES:
        head += f" | {name + ': MC us':>17} {'exact us':>9} {'MC/exact':>8} {'max err':>7}"
    print("cold (every cache empty):")
    print(head)
    for d in distances:
        states = random_positions(
            rules, positions, seed=d, accept=lambda s, d=d: race_exact.spaces_to_go(s) == d
        )
        line = f"{d:>2} {len(states):>3}"
        for _, fn in ESTIMATES:
            mc, exact, err = [], [], 0.0
            for s in states:
                e, t = _timed(fn, s, True, keep_table=False)
                exact.append(t)
                est, t = _timed(fn, s, False, keep_table=False)
                mc.append(t)
                err = max(err, float(np.abs(est - e).max()))
            line += (
                f" | {np.mean(mc):>17.0f} {np.mean(exact):>9.0f}"
                f" {np.mean(mc) / np.mean(exact):>8.2f} {err:>7.4f}"
            )
        print(line)


def _in_play(rules: RuleSet, games: int) -> None:
    rng = np.random.default_rng(0)
    states = []
    for g in range(games):
        s = new_game(rules, seed=g)
        while not s.game_over:
            states.append(s)
            legal = legal_action_indices(s)
            s, _ = apply_action(s, legal[rng.integers(len(legal))], rng)
    shared = ESTIMATES[1][1]
    odds.clear_cache()
    by_d: dict[int, list[tuple[float, float]]] = {}
    for s in states:
        _, exact = _timed(shared, s, True, keep_table=True)
        _, mc = _timed(shared, s, False, keep_table=True)
        by_d.setdefault(min(race_exact.spaces_to_go(s), 9), []).append((mc, exact))
    print(f"in play ({games} games, {len(states)} positions, the table kept; shared 1000):")
    print(f"{'d':>3} {'n':>5} {'MC us':>7} {'exact us':>9} {'MC/exact':>8}")
    for d in sorted(by_d):
        mc, exact = np.mean(by_d[d], axis=0)
        name = str(d) if d < 9 else "9+"
        print(f"{name:>3} {len(by_d[d]):>5} {mc:>7.0f} {exact:>9.0f} {mc / exact:>8.2f}")
    total = np.sum([t for ts in by_d.values() for t in ts], axis=0) / 1e6
    print(f"all {len(states):>5} positions: MC {total[0]:.2f} s, exact {total[1]:.2f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--distances", default="1,2,3,4,6")
    args = parser.parse_args(argv)
    print(
        "command: python benchmarks/race_odds.py "
        + " ".join(argv if argv is not None else sys.argv[1:])
    )
    rules = RuleSet(args.preset, num_players=args.players)
    if not race_exact.exact_applies(rules):
        print(f"{args.preset}: no exact race odds (camels that move backward, or the wanderer)")
        return 2
    first = random_positions(rules, 1, seed=1)[0]
    odds.warm_up(first)  # compile
    for _, fn in ESTIMATES:
        fn(first, True)
    _cold(rules, [int(d) for d in args.distances.split(",")], args.positions)
    _in_play(rules, args.games)
    odds.clear_cache()
    start = time.perf_counter()
    race_exact.exact_race_rates(new_game(rules, seed=0))
    took = time.perf_counter() - start
    solved = race_exact._solved.get(rules)
    print(
        f"whole race from a new game's position, empty table: {took:.2f} s, "
        f"{solved.rows:,} states solved"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
