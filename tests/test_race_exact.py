"""Exact race odds (camelup_env.odds.race_exact) against a brute-force enumeration through the
engine and against Monte Carlo; when the race estimates use them (R7.2's winner and loser)."""

from __future__ import annotations

import numpy as np
import pytest
from engine_positions import skip_extra

from camelup_env import (
    RuleSet,
    TakePyramidTile,
    apply_outcome,
    chance_outcomes,
    new_game,
    odds,
    parse_position,
    ranking,
)
from camelup_env.game.state import GameState
from camelup_env.odds import race_exact

#: Near-end positions: (preset, track, dice left, tiles). Each race ends within two legs, so
#: the engine's enumeration stays small; the tiles lie where units land.
NEAR_END = [
    ("classic", "12:orange;13:yellow,blue;15:green;16:white", "blue,green", "14:-1"),
    ("classic", "13:orange,yellow;15:blue;16:green,white", "orange,white,yellow", "14:-1"),
    ("cup", "14:orange;15:yellow,blue,green;16:white", "blue,white", None),
    ("supercup", "17:orange;19:yellow,blue;20:green,white", "blue,green,orange+", "18:+1"),
]


def engine_race_odds(state: GameState) -> np.ndarray:
    """``[winner / loser, camel]`` by brute force through the engine: every die and face of every
    reveal to the race's end (R4.3, R5, R6.1's new legs, R6.4), each position's value kept once
    (plain Python, no odds code)."""
    n = state.rules.n_racing
    pyramid = TakePyramidTile()
    memo: dict = {}

    def value(s: GameState) -> np.ndarray:
        if s.game_over:  # R7.2: ranked as the race ended
            order = ranking(s.stacks, n)
            out = np.zeros((2, n))
            out[0, order[0]] = out[1, order[-1]] = 1.0
            return out
        key = (
            tuple(sorted(s.stacks.items())),
            s.pyramid,
            s.pyramid_tiles_left,
            tuple(sorted((space, side) for space, (_, side) in s.tiles.items())),
        )
        if key not in memo:
            total = np.zeros((2, n))
            for roll, p in chance_outcomes(s, pyramid):
                total += float(p) * value(skip_extra(apply_outcome(s, pyramid, roll)[0]))
            memo[key] = total
        return memo[key]

    return value(skip_extra(state))


@pytest.mark.parametrize(("preset", "track", "dice", "tiles"), NEAR_END)
def test_R7_2_exact_race_odds_equal_the_engines_enumeration(preset, track, dice, tiles) -> None:
    state = parse_position(preset, track, dice_left=dice, tiles=tiles)
    odds.clear_cache()
    exact = race_exact.exact_race_rates(state)
    np.testing.assert_allclose(exact, engine_race_odds(state), rtol=0, atol=1e-12)
    np.testing.assert_allclose(exact.sum(axis=1), 1.0, atol=1e-12)


def test_R5_3_a_tile_on_the_track_changes_the_exact_race_odds() -> None:
    """The tile of the first near-end position moves units (R5.3): without it the odds differ,
    so the enumeration above does read the tiles."""
    preset, track, dice, tiles = NEAR_END[0]
    with_tile = race_exact.exact_race_rates(parse_position(preset, track, dice, tiles))
    without = race_exact.exact_race_rates(parse_position(preset, track, dice))
    assert np.abs(with_tile - without).max() > 0.01


@pytest.mark.parametrize(
    ("preset", "track", "dice", "tiles"),
    [
        ("classic", "5:orange;8:yellow,blue;9:green;11:white", "blue,green,white", "10:-1"),
        ("cup", "3:orange,yellow;7:blue;10:green,white", None, None),
        ("supercup", "9:orange;12:yellow,blue;13:green,white", "blue,white+", "14:+1"),
    ],
)
def test_R7_2_exact_race_odds_agree_with_monte_carlo(preset, track, dice, tiles) -> None:
    """Several legs from the end, against 200,000 rollouts: within 4.5 standard errors."""
    state = parse_position(preset, track, dice_left=dice, tiles=tiles)
    exact = race_exact.exact_race_rates(state)
    mc = odds.race_probabilities(state, 200_000, seed=11, exact=False)
    assert not mc.exact
    se = np.sqrt(np.clip(exact * (1 - exact), 1e-12, None) / mc.n_samples)
    assert np.all(np.abs(exact - np.stack((mc.winner, mc.loser))) <= 4.5 * se)
    np.testing.assert_allclose(exact.sum(axis=1), 1.0, atol=1e-12)


def test_R7_2_a_finished_race_has_its_result() -> None:
    state = parse_position("classic", "3:orange;9:yellow,blue;16:green,white")
    state.stacks = {3: (2,), 9: (3, 0), 17: (1, 4)}  # green and white crossed the line
    state.game_over = True
    exact = race_exact.exact_race_rates(state)
    expected = np.zeros((2, 5))
    expected[0, 4] = expected[1, 2] = 1.0  # white on top of the winning unit, orange last
    np.testing.assert_array_equal(exact, expected)


def test_exact_race_odds_do_not_depend_on_what_was_solved_before() -> None:
    """The table of solved states is shared by every position of a process: a position's odds
    are the same bits whether the table is empty or holds the states of a whole game."""
    state = parse_position("classic", "10:orange;12:yellow,blue;13:green;15:white", "green,white")
    odds.clear_cache()
    alone = race_exact.exact_race_rates(state)
    odds.clear_cache()
    race_exact.exact_race_rates(new_game(RuleSet("classic"), seed=3))
    race_exact._positions.clear()
    np.testing.assert_array_equal(race_exact.exact_race_rates(state), alone)


def test_R7_2_race_estimates_are_exact_near_the_end_and_sampled_elsewhere() -> None:
    near = parse_position("classic", "12:orange;14:yellow,blue;15:green;16:white", "blue,green")
    far = parse_position("classic", "2:orange;4:yellow,blue;5:green;6:white")
    assert race_exact.near_end(near) and not race_exact.near_end(far)
    exact = race_exact.exact_race_rates(near)
    plain = odds.race_probabilities(near, 100, seed=1)
    shared = odds.position_odds(near, 64).race
    for got in (plain, shared):
        assert got.exact and got.n_samples in (100, 64)
        np.testing.assert_array_equal(np.stack((got.winner, got.loser)), exact)
        assert not got.winner_se.any() and not got.loser_se.any()
    assert not odds.race_probabilities(far, 100, seed=1).exact
    assert not odds.position_odds(far, 64).race.exact
    assert odds.race_probabilities(far, 100, seed=1, exact=True).exact
    assert not odds.race_probabilities(near, 100, seed=1, exact=False).exact


@pytest.mark.parametrize("preset", ["second_edition", "persian_tutorial"])
def test_rule_sets_with_camels_moving_back_or_the_wanderer_keep_their_rollouts(preset) -> None:
    """R5.5's crazy camels carry units backward (boards repeat), R14 has its own odds."""
    rules = RuleSet(preset)
    assert not race_exact.exact_applies(rules)
    state = new_game(rules, seed=0)
    with pytest.raises(ValueError, match="only move forward"):
        race_exact.exact_race_rates(state)
    assert not odds.race_probabilities(state, 50, seed=0, exact=True).exact


def test_stale_numba_cache_of_the_exact_kernels_is_flushed_when_the_baked_in_files_change(
    monkeypatch,
) -> None:
    """The kernels inline the compiled rules and the leg enumeration's helpers: a change there
    flushes this file's numba cache (camelup_env.stale_cache)."""
    from pathlib import Path

    from camelup_env import stale_cache
    from camelup_env.odds import exact_kernels

    flushed = []
    kernels = stale_cache.dispatchers(exact_kernels.__name__)
    for kernel in kernels:
        monkeypatch.setattr(kernel._cache, "flush", lambda v=kernel: flushed.append(v))
    marker = Path(exact_kernels._solve._cache.cache_path) / "exact_kernels.deps"
    marker.write_text("a fingerprint of other files")
    assert exact_kernels.drop_stale_cache()
    assert set(flushed) == set(kernels) and exact_kernels._solve in flushed
    assert marker.read_text() == stale_cache.fingerprint(exact_kernels.DEPENDENCIES)
    assert not exact_kernels.drop_stale_cache()  # up to date: nothing flushed
