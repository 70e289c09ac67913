"""A first end-to-end check: random games of every preset finish (R7) with consistent coins."""

import numpy as np
import pytest

from camelup_env import RuleSet, apply_action, legal_actions, new_game


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_random_games_finish(preset: str) -> None:
    rng = np.random.default_rng(0)
    for seed in range(20):
        state = new_game(RuleSet(preset), seed=seed)
        for _ in range(2000):
            if state.game_over:
                break
            actions = legal_actions(state)
            state, _ = apply_action(state, actions[rng.integers(len(actions))], rng)
        assert state.game_over
        assert min(state.coins) >= 0
