"""Afterstates on the batch core against the reference engine, state for state.

From varied positions of every batch rule set (random play from many seeds: leg starts, dice
half drawn, piles filled, races about to end, partnerships), every legal action's outcome rows
(:func:`camelup_env.batch.afterstates.afterstates`) must be exactly the reference's
:func:`~camelup_env.game.engine.chance_outcomes` of that action, each with its probability, and
each row the state :func:`~camelup_env.game.engine.apply_outcome` makes (R4.1-R4.4, R4.3's
dice with repeated faces merged, R5-R7 on the rolls that end a leg or the race, R9.4).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from camelup_env import DieRoll, RuleSet, apply_outcome, chance_outcomes, legal_action_indices
from camelup_env.batch import BatchGames, random_streams
from camelup_env.batch.afterstates import afterstates

SETTINGS = [
    ("classic", 2),
    ("classic", 4),
    ("classic", 8),
    ("second_edition", 3),
    ("second_edition", 6),  # partnerships (R9.4)
    ("second_edition", 8),
]


def varied_positions(rules: RuleSet, n: int, seed: int) -> BatchGames:
    """``n`` games, each played at random (the pyramid a third of the time) for its own number
    of steps: positions from the first move to the race's last leg."""
    games = BatchGames(rules, n, seed=seed)
    rng = np.random.default_rng(seed)
    streams = random_streams(n, seed=seed + 1)
    stop = rng.integers(0, 90, n)
    for step in range(int(stop.max())):
        actions = games.random_actions(streams)
        pyramid = games.legal_action_mask()[:, 5] == 1
        actions = np.where(pyramid & (rng.random(n) < 0.35), 5, actions)
        actions[(stop <= step) | games.game_over] = -1
        games.step_unchecked(actions)
    return games


@pytest.mark.parametrize(("preset", "players"), SETTINGS)
def test_afterstates_equal_the_engines_chance_outcomes(preset: str, players: int) -> None:
    rules = RuleSet(preset, num_players=players)
    games = varied_positions(rules, 48, seed=players * 101)
    after = afterstates(games)
    states = games.to_states()
    outcomes = after.games.to_states()
    checked_rolls = ended = 0
    for i, state in enumerate(states):
        rows = range(after.offsets[i], after.offsets[i + 1])
        legal = legal_action_indices(state) if not state.game_over else []
        assert list(np.flatnonzero(after.legal[i])) == legal
        expected = [
            (a, roll, p, apply_outcome(state, a, roll)[0])
            for a in legal
            for roll, p in chance_outcomes(state, a)
        ]
        assert len(rows) == len(expected), f"game {i}: {len(rows)} rows, {len(expected)} outcomes"
        for j, (a, roll, p, new) in zip(rows, expected, strict=True):
            assert after.game[j] == i and after.action[j] == a
            if roll is None:
                assert tuple(after.rolls[j]) == (-1, -1, -1)
            else:
                assert DieRoll(*map(int, after.rolls[j])) == roll
                checked_rolls += 1
            assert Fraction(after.probability[j]).limit_denominator(10_000) == p
            assert outcomes[j] == new, f"game {i}, action {a}, roll {roll}"
            assert after.ended[j] == new.game_over
            ended += new.game_over
    assert checked_rolls > 0 and ended > 0  # rolls were met, and rolls that end the race


def test_expectation_weights_each_outcome_by_its_chance() -> None:
    rules = RuleSet("classic", num_players=4)
    games = varied_positions(rules, 16, seed=7)
    after = afterstates(games)
    coins = after.games.state.coins.astype(np.float64)
    q = after.expect(coins)
    assert q.shape == (len(games), games.num_actions, 4)
    for j in range(len(after)):
        i, a = after.game[j], after.action[j]
        rows = (after.game == i) & (after.action == a)
        want = (after.probability[rows, None] * coins[rows]).sum(axis=0)
        np.testing.assert_allclose(q[i, a], want)
    assert np.all(np.isneginf(q[after.legal == 0]))
    per_game = np.bincount(after.game, weights=after.probability, minlength=len(games))
    np.testing.assert_allclose(per_game, after.legal.sum(axis=1))  # 1 per legal action
