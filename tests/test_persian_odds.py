"""Odds under the desert wanderer (docs/rules.md R14, :mod:`camelup_env.odds.wanderer`): exact leg
odds against the engine's brute force (``chance_outcomes`` / ``apply_outcome`` until the leg is
scored), through legs that end at the wanderer (R14.5) or with the last die (R14.2), and race
odds against Monte Carlo of the real engine."""

from __future__ import annotations

import numpy as np
from engine_positions import brute_force, position

from camelup_env import TakePyramidTile, apply_action, new_game, ranking
from camelup_env.odds import leg_rank_probabilities, position_odds, race_probabilities

RED, YELLOW, BLUE, GREEN, ORANGE = range(5)
PERSIAN = "persian_tutorial"

POSITIONS = [
    # the first leg from the start line
    ({1: (RED, YELLOW, BLUE, GREEN, ORANGE)}, 2, (0, 1, 2, 3, 4)),
    # a camel on the wanderer's space, some dice out
    ({3: (GREEN, ORANGE), 2: (RED,), 1: (BLUE, YELLOW)}, 3, (0, 2, 4)),
    # the wanderer two spaces ahead: some legs end with the last die
    ({4: (RED,), 3: (YELLOW, BLUE), 2: (GREEN, ORANGE)}, 6, (1, 3)),
    # one die left, wanderer three ahead
    ({5: (BLUE, RED), 4: (ORANGE,), 3: (GREEN, YELLOW)}, 7, (4,)),
    # near the finish: a pass of space 16 is also the race end (R5.4)
    ({16: (YELLOW,), 15: (RED, GREEN), 14: (BLUE, ORANGE)}, 16, (0, 1, 3)),
]


def test_R14_5_leg_odds_match_engine_brute_force() -> None:
    for stacks, wanderer, pyramid in POSITIONS:
        state = position(
            PERSIAN,
            stacks=stacks,
            wanderer=wanderer,
            pyramid=pyramid,
            pyramid_tiles_left=len(pyramid),
        )
        exact, _ = brute_force(state)
        assert np.abs(leg_rank_probabilities(state) - exact).max() < 1e-12
        odds = position_odds(state, 64)
        assert np.array_equal(odds.leg, leg_rank_probabilities(state))


def test_R14_5_race_odds_agree_with_monte_carlo_of_the_engine() -> None:
    state = position(
        PERSIAN,
        stacks={4: (RED,), 3: (YELLOW, BLUE), 2: (GREEN, ORANGE)},
        wanderer=5,
        pyramid=(1, 3),
        pyramid_tiles_left=2,
    )
    est = race_probabilities(state, n_samples=4000, seed=1)
    rng = np.random.default_rng(2)
    wins, lasts, games = np.zeros(5), np.zeros(5), 1500
    for _ in range(games):
        s = state
        while not s.game_over:
            s, _ = apply_action(s, TakePyramidTile(), rng)
        order = ranking(s.stacks, 5)
        wins[order[0]] += 1
        lasts[order[-1]] += 1
    for mc, rate, se in ((wins, est.winner, est.winner_se), (lasts, est.loser, est.loser_se)):
        p = mc / games
        assert np.all(np.abs(p - rate) < 4 * np.sqrt(se**2 + p * (1 - p) / games) + 1e-9)
    assert abs(est.winner.sum() - 1) < 1e-9 and abs(est.loser.sum() - 1) < 1e-9


def test_R14_5_race_estimates_are_deterministic_for_a_seed() -> None:
    state = new_game(position(PERSIAN).rules, seed=3)
    small = race_probabilities(state, n_samples=50, seed=9)
    again = race_probabilities(state, n_samples=50, seed=9)
    assert np.array_equal(small.winner, again.winner)
