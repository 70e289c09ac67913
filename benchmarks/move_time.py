"""Per-move time of scripted agents, warmed up, on the same positions, against a budget.

    python benchmarks/move_time.py [--agents greedy,expert,champion] [--preset classic]
        [--players 4] [--positions 200] [--seed 0]

Times each agent's whole move (``agent(observation, public_view)``, what a tournament times)
on the decisions of seeded random-play games (:func:`camelup_env.game.sampling.random_positions`,
seen from the seat on move), after the agent's own ``warmup`` on a new game, as the tournament
host does. Every agent starts from empty odds caches (:func:`camelup_env.odds.clear_cache`: the
agents share them, and a later agent would otherwise find the earlier one's enumerations done).
Prints the mean, the 99th percentile and the maximum in milliseconds, and the maximum as a
share of the one-second budget of a scripted bot. Run it pinned to one core
(``taskset -c 0``) for one-core figures.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import agents
from camelup_env import RuleSet, new_game, odds
from camelup_env.game.rules import PRESETS
from camelup_env.game.sampling import random_positions
from camelup_env.match import observe
from camelup_env.observation import public_view

BUDGET_S = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agents", default="greedy,expert,champion")
    parser.add_argument("--preset", default="classic", choices=PRESETS)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rules = RuleSet(args.preset, num_players=args.players)
    states = random_positions(rules, args.positions, seed=args.seed, keep=0.1)
    print(f"{len(states)} positions of {rules.preset}, {rules.num_players} players")
    for spec in [a for a in args.agents.split(",") if a]:
        agent = agents.make(spec)
        odds.clear_cache()
        agent.warmup(public_view(new_game(rules, seed=0), 0))
        agent.reset(0)
        times = []
        for state in states:
            obs, view = observe(state, state.current), public_view(state, state.current)
            start = time.perf_counter()
            agent(obs, view)
            times.append(time.perf_counter() - start)
        ms = np.array(times) * 1e3
        print(
            f"{spec:10} mean {ms.mean():7.1f} ms  p99 {np.percentile(ms, 99):7.1f} ms  "
            f"max {ms.max():7.1f} ms ({ms.max() / 1e3 / BUDGET_S:.2f} of the {BUDGET_S:g} s budget)"
        )


if __name__ == "__main__":
    main()
