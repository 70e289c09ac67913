"""Positions sampled from seeded random play, for tests, benchmarks and error measurements.

Odds, action values and agents are checked against references on many positions; those
positions should cover every phase of a race (fresh legs, crowded stacks, tiles on the track)
and be the same on every run. Uniform random play from seeded games gives both, and one
function for it keeps every caller's sample reproducible from its seed alone.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from camelup_env.game.engine import apply_action
from camelup_env.game.legality import legal_action_indices
from camelup_env.game.rules import RuleSet
from camelup_env.game.setup import new_game
from camelup_env.game.state import GameState

__all__ = ["random_positions"]


def random_positions(
    rules: RuleSet,
    count: int,
    seed: int = 0,
    keep: float = 0.1,
    accept: Callable[[GameState], bool] | None = None,
) -> list[GameState]:
    """``count`` positions of seeded games played with uniformly random legal moves.

    After each move the position is kept with probability ``keep`` if the game is not over and
    ``accept(state)`` holds (a filter such as "few dice left in the leg"); a finished game is
    followed by a new one seeded from the same generator.
    """
    rng = np.random.default_rng(seed)
    state = new_game(rules, seed=seed)
    out: list[GameState] = []
    while len(out) < count:
        if state.game_over:
            state = new_game(rules, seed=int(rng.integers(1 << 30)))
        legal = legal_action_indices(state)
        state, _ = apply_action(state, legal[rng.integers(len(legal))], rng)
        if not state.game_over and (accept is None or accept(state)) and rng.random() < keep:
            out.append(state)
    return out
