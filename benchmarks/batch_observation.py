"""Batched observations against the Observer: observations per second on the same states.

Two workloads, each state observed from the seat to act, as an environment step does:

* positions (default): ``--positions`` states of random batch-core games (every game sampled
  every few steps), all different. The batched path is one ``BatchObserver.observe`` call for
  all of them; the Observer observes them one by one, its odds caches cleared before each round
  (nothing is reused: the cost of new positions);
* ``--play STEPS``: ``--positions`` games played at random side by side for STEPS steps,
  observed after every step, as a training run does: the batched path one call per step (its
  per-game memo reuses the odds when a bet left the position unchanged), the Observer one
  instance per game (one per environment) with its caches, cleared before each round.

numba threads: every core (``--threads`` to change). Both outputs are checked equal first.

``--by-dice`` prints, before the comparison, what a new position costs the batched path by the
dice left in the leg (the exact enumeration grows with them; the race estimate does not), on
one thread, and the same with one race sample: the enumeration's share apart from the
rollouts'. That table is the arithmetic of the training speed (docs/training.md, Speed).

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


def played(rules: RuleSet, games: int, steps: int, seed: int) -> list[BatchGames]:
    """``games`` random games side by side, one batch per step (copies), ended games set up
    anew."""
    batch = BatchGames(rules, games, seed=seed)
    streams = random_streams(games, seed + 1)
    out = []
    for _ in range(steps):
        out.append(batch.copy())
        batch.step(batch.random_actions(streams), autoreset=True)
    return out


def cost_by_dice(rules: RuleSet, games: BatchGames, flags: dict) -> None:
    """Microseconds per new position of the batched observation, by dice left (one thread)."""
    threads, games.threads = games.threads, 1
    dice = np.array([bin(int(m)).count("1") for m in games.state.pyramid])
    live = games.state.game_over == 0
    print(f"new position, one thread, by dice left ({int(live.sum())} positions):")
    print("dice left  positions  us/position  us/position, 1 race sample")
    for left in sorted(set(dice[live].tolist())):
        idx = np.flatnonzero(live & (dice == left))
        costs = []
        for samples in (flags.get("race_samples") or 64, 1):
            observer = BatchObserver(rules, **{**flags, "race_samples": samples})
            observer.observe(games, games.current_player[idx[:1]], idx[:1])  # compile or load
            observer = BatchObserver(rules, **{**flags, "race_samples": samples})  # empty memo
            start = time.perf_counter()
            observer.observe(games, games.current_player[idx], idx)
            costs.append((time.perf_counter() - start) / len(idx) * 1e6)
        print(f"{left:>9}  {len(idx):>9}  {costs[0]:>11.0f}  {costs[1]:>11.0f}")
    games.threads = threads


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--flags", choices=sorted(FLAGS), default="training")
    parser.add_argument(
        "--positions",
        type=int,
        default=1024,
        help="positions observed, or games played with --play",
    )
    parser.add_argument(
        "--play",
        type=int,
        default=0,
        metavar="STEPS",
        help="observe games along STEPS steps of random play",
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--threads",
        type=int,
        default=numba.config.NUMBA_NUM_THREADS,
        help="numba threads (default: every core)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--by-dice",
        action="store_true",
        help="also the cost of a new position by dice left (one thread)",
    )
    args = parser.parse_args(argv)
    numba.set_num_threads(args.threads)
    rules = RuleSet(args.preset, num_players=args.players)
    flags = FLAGS[args.flags]
    if args.play:
        batches = played(rules, args.positions, args.play, args.seed)
    else:
        batches = [positions(rules, args.positions, args.seed)]
    if args.by_dice:
        cost_by_dice(
            rules,
            batches[0] if not args.play else positions(rules, args.positions, args.seed),
            flags,
        )
    for games in batches:
        games.threads = args.threads
    states = [games.to_states() for games in batches]
    seats = [games.current_player.astype(np.int64) for games in batches]
    n_obs = sum(len(step) for step in states)
    references = [Observer(rules, **flags) for _ in range(len(states[0]))]

    def run_batched(observer: BatchObserver) -> list[np.ndarray]:
        return [observer.observe(games, q) for games, q in zip(batches, seats, strict=True)]

    def run_reference() -> list[np.ndarray]:
        odds.clear_cache()
        return [
            np.stack(
                [
                    ob.observe(s, int(q))
                    for ob, s, q in zip(references, step, step_seats, strict=True)
                ]
            )
            for step, step_seats in zip(states, seats, strict=True)
        ]

    for got, want in zip(run_batched(BatchObserver(rules, **flags)), run_reference(), strict=True):
        # also the warm-up: compiles or loads the kernels
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    workload = (
        f"{args.positions} games x {args.play} steps of random play"
        if args.play
        else f"{n_obs} positions of random batch-core games"
    )
    print(
        f"observations, {args.preset}, {args.players} players, flags {args.flags} {flags}: "
        f"{workload}, each from the seat to act; batched on {args.threads} thread(s) vs the "
        f"Observer in one process (odds caches cleared per round); {args.rounds} rounds "
        f"(Python {platform.python_version()}, {platform.machine()})"
    )
    rates: dict[str, list[float]] = {"batched": [], "Observer": []}
    clock = time.perf_counter
    for _ in range(args.rounds):
        start = clock()
        run_reference()
        rates["Observer"].append(n_obs / (clock() - start))
        batched = BatchObserver(rules, **flags)  # an empty memo each round
        start = clock()
        run_batched(batched)
        rates["batched"].append(n_obs / (clock() - start))
    for name, values in rates.items():
        print(
            f"{name:<9} best {max(values):>12,.0f} obs/s   median "
            f"{statistics.median(values):>12,.0f}"
        )
    command = " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv])
    print(f"command: {command}")
    best, ref = max(rates["batched"]), max(rates["Observer"])
    print(
        f"batch observation: {best:,.0f} obs/s (batched) vs {ref:,.0f} (Observer) = "
        f"{best / ref:.1f}x"
    )


if __name__ == "__main__":
    main()
