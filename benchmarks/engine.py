"""Rules-engine throughput: random play, one process, per preset (4 players).

For each preset the benchmark plays random full games for a fixed wall time. A random player
asks for ``legal_action_indices`` and applies one index chosen uniformly through
``apply_action``, as an environment's random agent does; the engine draws the dice from a
``numpy.random.Generator`` as its API requires. The player picks with Python's
``random.Random``: one ``Generator.random()`` call costs about 1 us, a tenth of an engine step,
and the player's own choice is not what is measured. It prints actions per second, full games
per second and the mean game length in actions, then the exact command.

These machines are shared and their speed drifts by tens of percent within minutes, so the
presets are timed round-robin in ``--rounds`` short rounds; the table shows each preset's best
round (the machine at its quietest, as ``timeit`` reports a minimum) and the median round.
Actions per CPU-second (this process's CPU time) is printed for the best round as well.

    .venv/bin/python benchmarks/engine.py --seconds 1 --rounds 5
"""

from __future__ import annotations

import argparse
import platform
import random
import shlex
import statistics
import sys
import time

import numpy as np

from camelup_env import RuleSet, apply_action, legal_action_indices, new_game


def play_games(
    rules: RuleSet, games: int, seed: int, deadline: float | None = None
) -> tuple[int, int]:
    """Random full games: ``games`` of them or, given a ``deadline`` (``time.perf_counter``),
    as many as start before it. Returns (games played, actions applied)."""
    rng = np.random.default_rng(seed)
    pick = random.Random(seed).random
    played = actions = 0
    clock = time.perf_counter
    while clock() < deadline if deadline is not None else played < games:
        state = new_game(rules, seed=rng)
        while not state.game_over:
            legal = legal_action_indices(state)
            state, _ = apply_action(state, legal[int(pick() * len(legal))], rng)
            actions += 1
        played += 1
    return played, actions


def run(preset: str, players: int, seconds: float, seed: int) -> dict[str, float]:
    rules = RuleSet(preset, num_players=players)
    clock = time.perf_counter
    start = clock()
    cpu_start = time.process_time()
    games, actions = play_games(rules, 0, seed, deadline=start + seconds)
    elapsed = clock() - start
    cpu = time.process_time() - cpu_start
    return {
        "actions_per_cpu_s": actions / cpu,
        "games": games,
        "actions": actions,
        "seconds": elapsed,
        "actions_per_s": actions / elapsed,
        "games_per_s": games / elapsed,
        "mean_length": actions / games if games else float("nan"),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="wall time per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--presets", nargs="+", default=["classic", "second_edition"])
    args = parser.parse_args(argv)

    print(
        f"camelup rules engine, random play, {args.players} players, one process, "
        f"{args.rounds} rounds of {args.seconds:g} s per preset (Python "
        f"{platform.python_version()}, {platform.machine()})"
    )
    rounds: dict[str, list[dict[str, float]]] = {p: [] for p in args.presets}
    for r in range(args.rounds):
        for preset in args.presets:
            rounds[preset].append(run(preset, args.players, args.seconds, args.seed + r))
    header = (
        f"{'preset':<16}{'actions/s':>12}{'median':>10}{'per CPU-s':>12}{'games/s':>10}"
        f"{'mean length':>13}{'games':>8}"
    )
    print(header)
    print("-" * len(header))
    for preset, results in rounds.items():
        best = max(results, key=lambda x: x["actions_per_s"])
        median = statistics.median(x["actions_per_s"] for x in results)
        games = sum(x["games"] for x in results)
        length = sum(x["actions"] for x in results) / games if games else float("nan")
        print(
            f"{preset:<16}{best['actions_per_s']:>12,.0f}{median:>10,.0f}"
            f"{best['actions_per_cpu_s']:>12,.0f}{best['games_per_s']:>10.1f}"
            f"{length:>13.1f}{games:>8d}"
        )
    command = " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv])
    print(f"command: {command}")


if __name__ == "__main__":
    main()
