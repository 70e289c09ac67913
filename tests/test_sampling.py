"""camelup_env.game.sampling: the positions every odds and value test is checked on."""

from __future__ import annotations

from camelup_env import RuleSet
from camelup_env.game.sampling import random_positions


def test_random_positions_are_reproducible_filtered_and_unfinished() -> None:
    rules = RuleSet("classic", num_players=3)
    few_dice = lambda s: s.pyramid_tiles_left <= 2  # noqa: E731
    first = random_positions(rules, 12, seed=5, keep=0.5, accept=few_dice)
    again = random_positions(rules, 12, seed=5, keep=0.5, accept=few_dice)
    assert [s.to_json() for s in first] == [s.to_json() for s in again]
    assert all(not s.game_over and s.pyramid_tiles_left <= 2 for s in first)
    other = random_positions(rules, 12, seed=6, keep=0.5, accept=few_dice)
    assert [s.to_json() for s in other] != [s.to_json() for s in first]
