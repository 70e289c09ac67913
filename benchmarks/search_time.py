"""Per-move time of the search agents against the pure policy and the 1-second budget.

    python benchmarks/search_time.py [--model agents/models/classic2.zip] [--positions 60]

The search agents (``search:``, ``rollout:``) are measured against a budget of one second a
move on one core. This script times each agent's ``act`` on the same positions (decisions of
random-play games, :func:`camelup_env.game.sampling.random_positions`, seed 0, seen from the seat on
move; a first call on another position, which loads numba's kernels, is not counted), with
torch on one thread, and prints the mean, the 99th percentile and the maximum in
milliseconds, the mean as a ratio to the pure policy's (``ppo:``) and the maximum as a ratio
to the 1 s budget, all measured in this run.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

import agents
from agents.policy_file import read_policy_file
from camelup_env.game.sampling import random_positions
from camelup_env.match import observe
from camelup_env.observation import public_view

BUDGET_S = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="agents/models/classic2.zip")
    parser.add_argument("--positions", type=int, default=60)
    args = parser.parse_args()
    torch.set_num_threads(1)
    rules = read_policy_file(args.model, tensors=False).rules
    states = random_positions(rules, args.positions + 1, seed=0, keep=0.1)
    warm, timed = states[0], states[1:]
    base = None
    print(f"{len(timed)} positions of {rules.preset}, {rules.num_players} players; {args.model}")
    for prefix in ("ppo", "search", "rollout"):
        agent = agents.make(f"{prefix}:{args.model}")
        agent.reset(0)
        agent(observe(warm, warm.current), public_view(warm, warm.current))
        times = []
        for state in timed:
            obs, view = observe(state, state.current), public_view(state, state.current)
            start = time.perf_counter()
            agent(obs, view)
            times.append(time.perf_counter() - start)
        ms = np.array(times) * 1e3
        base = base or ms.mean()
        print(
            f"{prefix + ':':9} mean {ms.mean():8.1f} ms ({ms.mean() / base:6.1f} x ppo)  "
            f"p99 {np.percentile(ms, 99):8.1f} ms  max {ms.max():8.1f} ms "
            f"({ms.max() / 1e3 / BUDGET_S:.2f} of the {BUDGET_S:g} s budget)"
        )


if __name__ == "__main__":
    main()
