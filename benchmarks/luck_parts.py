"""Where the luck-adjusted result's variance comes from: the parts of V's path through a game.

    python benchmarks/luck_parts.py [--games 150] [--seed 8100000] [--players 4]
        [--lineup greedy,greedy,expert,heuristic]

Plays ``--games`` games of the line-up (seat ``s`` of game ``g`` gets bot ``(s + g) mod k``)
and follows the shipped win-probability model ``V`` (:mod:`camelup_env.odds.win`) through each.
A seat's adjusted result (:mod:`camelup_env.odds.luck`: its result minus each roll's ``V(after)
- E[V(after)]``) is exactly the sum of four parts, which this prints with their variances over
every seat of every game, beside the raw result's:

* ``start``: ``V`` of the deal (the ledger's deal correction, against the mean over every
  deal, would leave a constant: its variance is the deal's luck);
* ``drift``: at each roll that does not end a leg, ``E[V(after)] - V(before)``: how far ``V``
  is from a martingale over the dice;
* ``leg end``: the same at the roll that ends a leg (the leg is scored);
* ``decisions``: at each action that is not a roll, ``V(after) - V(before)``: what the players'
  bets move.

With the true win probability under the players' own (deterministic) policies every part but
``start`` would be zero; the parts say which of ``V``'s errors leave the variance. The last
line: ``luck parts: adjusted variance = A of raw; drift D, leg end E, decisions C (variances)``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# Run as a script, this file's own folder comes first on sys.path and its tournament.py would
# hide the tournament package: look in the project root instead.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np  # noqa: E402

import agents  # noqa: E402
from camelup_env.game.actions import TakePyramidTile  # noqa: E402
from camelup_env.game.engine import apply_outcome, chance_outcomes, to_action  # noqa: E402
from camelup_env.game.rules import RuleSet  # noqa: E402
from camelup_env.game.state import GameState  # noqa: E402
from camelup_env.match import play_game  # noqa: E402
from camelup_env.odds.luck import ValueFn, values, win_shares  # noqa: E402
from camelup_env.odds.win import load_win_model  # noqa: E402

PARTS = ("start", "drift", "leg end", "decisions")


def parts_of_game(states: list[GameState], rolls: list[bool], value: ValueFn) -> np.ndarray:
    """The four parts (rows, :data:`PARTS`) of every seat (columns) along one game's states;
    ``rolls[t]``: the action from ``states[t]`` to ``states[t + 1]`` took a pyramid tile."""
    v = values(states, value)
    out = np.zeros((len(PARTS), len(v[0])))
    out[0] = v[0]
    for t, roll in enumerate(rolls):
        if not roll:
            out[3] += v[t + 1] - v[t]
            continue
        outcomes = chance_outcomes(states[t], TakePyramidTile())
        after = [apply_outcome(states[t], TakePyramidTile(), o)[0] for o, _ in outcomes]
        p = np.array([float(q) for _, q in outcomes])
        expected = p @ values(after, value)
        ends_leg = states[t].pyramid_tiles_left == 1 or states[t + 1].game_over
        out[2 if ends_leg else 1] += expected - v[t]  # the roll's luck, v[t + 1] - expected,
    return out  # is what the adjustment removes


def _played(rules: RuleSet, bots: list, seed: int) -> tuple[list[GameState], list[bool]]:
    """Every state of one game, and for each action whether it took a pyramid tile."""
    states: list[GameState] = []
    rolls: list[bool] = []

    def on_step(state: GameState, seat: int, action: int, events: tuple) -> None:
        rolls.append(isinstance(to_action(states[-1], action), TakePyramidTile))
        states.append(state)

    def on_move_start(state: GameState, seat: int) -> None:
        if not states:
            states.append(state)

    play_game(rules, bots, seed, on_move_start=on_move_start, on_step=on_step, catch=False)
    return states, rolls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=150)
    parser.add_argument("--seed", type=int, default=8_100_000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--lineup", default="greedy,greedy,expert,heuristic")
    args = parser.parse_args()
    specs = args.lineup.split(",")
    for spec in specs:
        agents.check(spec)
    rules = RuleSet("classic", num_players=args.players)
    value = load_win_model(rules)
    start = time.time()
    raw, parts = [], []
    for g in range(args.games):
        seed = args.seed + g
        bots = [agents.make(specs[(s + g) % len(specs)]) for s in range(args.players)]
        states, rolls = _played(rules, bots, seed)
        raw.append(win_shares(states[-1]))
        parts.append(parts_of_game(states, rolls, value))
    raw_a, parts_a = np.array(raw), np.array(parts)
    adjusted = parts_a.sum(axis=1)
    print(
        f"{args.games} games of {args.lineup} (classic {args.players}p, seeds from {args.seed}, "
        f"{time.time() - start:.0f} s): raw variance {raw_a.var():.4f}, adjusted "
        f"{adjusted.var():.4f}"
    )
    for k, name in enumerate(PARTS):
        print(f"  {name:10s} variance {parts_a[:, k].var():.4f}")
    print(
        f"luck parts: adjusted variance = {adjusted.var() / raw_a.var():.2f} of raw; drift "
        f"{parts_a[:, 1].var():.4f}, leg end {parts_a[:, 2].var():.4f}, decisions "
        f"{parts_a[:, 3].var():.4f} (variances)"
    )


if __name__ == "__main__":
    main()
