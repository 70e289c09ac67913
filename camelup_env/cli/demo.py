"""Watch narrated games between random players, to see the rules at work (camelup demo).

``camelup demo [--games N] [--seed S]`` alternates classic and second-edition games between four
random players and prints the board at the start and at every leg end, and every event that
moved coins. It is a rules walk-through for newcomers; ``make demo`` is something else (a short
tournament of the shipped agents, docs/getting-started.md).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from camelup_env import RuleSet, apply_action, legal_actions, new_game, render_text
from camelup_env.game.events import (
    FinalBetsScored,
    GameOver,
    LegScored,
    RaceEnded,
    TilePayout,
)
from camelup_env.render.event_text import describe_event

_NARRATED = (LegScored, RaceEnded, FinalBetsScored, GameOver, TilePayout)


#: Most games one demo narrates: each prints a few hundred lines, for reading.
MAX_GAMES = 1000


def play_narrated(rules: RuleSet, seed: int) -> None:
    rng = np.random.default_rng(seed)
    state = new_game(rules, seed=rng)
    print(render_text(state))
    while not state.game_over:
        actions = legal_actions(state)
        state, events = apply_action(state, actions[rng.integers(len(actions))], rng)
        for event in events:
            if isinstance(event, _NARRATED):
                print(describe_event(event, rules))
        if any(isinstance(e, LegScored) for e in events) and not state.game_over:
            print(render_text(state))
    print(render_text(state))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=2, help=f"games to play (1 to {MAX_GAMES})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (>= 0)")


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.games <= MAX_GAMES:
        print(f"camelup demo: error: --games must be from 1 to {MAX_GAMES}", file=sys.stderr)
        return 2
    if args.seed < 0:
        print(f"camelup demo: error: --seed must be >= 0, got {args.seed}", file=sys.stderr)
        return 2
    for i, preset in enumerate(["classic", "second_edition"] * args.games):
        if i >= args.games:
            break
        print(f"\n=== game {i + 1}: {preset}, 4 random players, seed {args.seed + i} ===")
        play_narrated(RuleSet(preset, num_players=4), args.seed + i)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    add_arguments(parser)
    raise SystemExit(run(parser.parse_args()))
