"""What a scripted opponent of the batch core pays to rebuild a state, against what it pays to move.

    python benchmarks/opponent_rebuild.py [--games 256] [--steps 30] [--players 4]

A scripted opponent in a learner's games (:class:`camelup_env.batch.learner.LearnerGames`)
reads the engine's state: each of its moves rebuilds a ``GameState`` from the batch rows
(:func:`camelup_env.batch.convert.to_state`) and its public view. This times that rebuild over
``--games`` classic games after ``--steps`` random steps, then greedy's valuation of the same
positions twice: with empty odds caches (a new position: the leg enumeration and the race
estimate) and again with them filled (a position seen before, as after a bet). The last line:
``opponent rebuild: X us a state = R of a greedy move (new position), W (position seen)``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.greedy import GreedyAgent
from camelup_env import odds
from camelup_env.batch import BatchGames, random_streams
from camelup_env.game.legality import legal_action_indices
from camelup_env.game.rules import RuleSet
from camelup_env.observation import public_view


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=256)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    rules = RuleSet("classic", num_players=args.players)
    games = BatchGames(rules, args.games, seed=1)
    streams = random_streams(args.games, seed=2)
    for _ in range(args.steps):
        games.step(games.random_actions(streams))
    running = np.flatnonzero(~games.game_over)
    greedy = GreedyAgent()
    greedy.warmup(games.to_states(running[:1])[0])
    start = time.perf_counter()
    states = games.to_states(running)
    views = [public_view(s, s.current) for s in states]
    rebuild = (time.perf_counter() - start) / len(running)
    legal = [legal_action_indices(v) for v in views]
    odds.clear_cache()
    passes = []
    for _ in range(2):  # new positions, then the same ones again
        start = time.perf_counter()
        for view, indices in zip(views, legal, strict=True):
            greedy.action_values(view, indices)
        passes.append((time.perf_counter() - start) / len(running))
    print(
        f"{len(running)} classic {args.players}-player positions after {args.steps} random "
        f"steps: rebuild (to_state + public_view) {rebuild * 1e6:.0f} us, greedy's values "
        f"{passes[0] * 1e6:.0f} us (new position), {passes[1] * 1e6:.0f} us (seen)"
    )
    print(
        f"opponent rebuild: {rebuild * 1e6:.0f} us a state = {rebuild / passes[0]:.3f} of a greedy "
        f"move (new position), {rebuild / passes[1]:.3f} (position seen)"
    )


if __name__ == "__main__":
    main()
