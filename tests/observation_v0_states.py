"""The states whose ``camelup_v0`` observations ``tests/observation_v0.json`` records.

The digests were written by the Observer of commit 1a5a0d3 (before the ``action_values`` slice
and the shared position odds) with ``race_samples=200``: for every recipe, every seat, odds
features off and on, the first 16 hex digits of the sha256 of the observation's bytes. The
states come from seeded random play through the engine's public API only, so the same recipe
gives the same states in both versions.
"""

from __future__ import annotations

import numpy as np

from camelup_env import RuleSet, apply_action, legal_action_indices, new_game

#: name -> (preset, players, seed, states): every 3rd state of seeded random play, then the end.
STATE_RECIPES = {
    "classic-2": ("classic", 2, 0, 40),
    "classic-4": ("classic", 4, 1, 40),
    "second_edition-6": ("second_edition", 6, 2, 30),
    "supercup-4": ("supercup", 4, 3, 30),
}


def states_of(rules: RuleSet, seed: int, count: int) -> list:
    """``count`` states of one seeded random game (every 3rd), then its final state."""
    rng = np.random.default_rng(seed)
    state = new_game(rules, seed=seed)
    out = []
    step = 0
    while not state.game_over:
        if step % 3 == 0 and len(out) < count:
            out.append(state)
        legal = legal_action_indices(state)
        state, _ = apply_action(state, legal[rng.integers(len(legal))], rng)
        step += 1
    return [*out, state]
