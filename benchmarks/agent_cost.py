"""Per-move cost of a scripted agent against greedy, on the same positions in the same run.

    python benchmarks/agent_cost.py [--agent expert] [--games 4] [--preset classic] [--players 4]

Plays ``--games`` greedy self-play games to collect the public view of every decision, then
times ``action_values`` of ``--agent`` and of greedy over all of them, each pass starting from
empty odds caches (:func:`camelup_env.odds.clear_cache`: both agents share them, and the agent
built on greedy would otherwise find greedy's enumerations done). Prints mean milliseconds per
move and the ratio to greedy. The agent is made by name and must expose ``action_values``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import agents
from camelup_env import RuleSet, apply_action, legal_action_indices, new_game, odds
from camelup_env.match import public_view


def positions(rules: RuleSet, games: int) -> list:
    """The public view of every decision of ``games`` greedy self-play games."""
    greedy = agents.make("greedy")
    out = []
    for g in range(games):
        state = new_game(rules, seed=g)
        rng = np.random.default_rng(g)
        while not state.game_over:
            view = public_view(state, state.current)
            out.append(view)
            values = greedy.action_values(view, legal_action_indices(view))
            best = max(values.values())
            choice = min(i for i, v in values.items() if v >= best - 1e-12)
            state, _ = apply_action(state, choice, rng)
    return out


def ms_per_move(agent, views: list) -> float:
    odds.clear_cache()
    start = time.perf_counter()
    for view in views:
        agent.action_values(view, legal_action_indices(view))
    return (time.perf_counter() - start) * 1000 / len(views)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="expert")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    views = positions(RuleSet(args.preset, num_players=args.players), args.games)
    candidate, greedy = agents.make(args.agent), agents.make("greedy")
    ms_per_move(candidate, views[:20])  # compile the numba kernels before timing
    base = ms_per_move(greedy, views)
    cost = ms_per_move(candidate, views)
    print(
        f"{args.preset}, {args.players} players, {len(views)} positions from {args.games} "
        f"greedy games: greedy {base:.2f} ms/move, {args.agent} {cost:.2f} ms/move "
        f"({cost / base:.2f}x greedy)"
    )


if __name__ == "__main__":
    main()
