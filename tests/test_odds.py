"""Exact leg odds, placement EVs and race odds against the real engine.

The numba kernels in ``camelup_env.odds`` reimplement movement, so every check here goes through
the engine (``chance_outcomes`` + ``apply_outcome`` / ``apply_action``): exact brute force with
``Fraction`` weights, conditioning on one reveal, and Monte Carlo on hand-built positions.
Rule ids: R5.3 tiles, R5.4 finish, R5.5 crazy camels (rule 1/2 exceptions), R5.6 backward
crossing, R6.1 leg end, R6.2 leg scoring, R0.4 ranking.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from engine_positions import brute_force, random_positions

from camelup_env import (
    PlaceTile,
    RuleSet,
    TakePyramidTile,
    apply_action,
    apply_outcome,
    chance_outcomes,
    legal_actions,
    new_game,
    parse_position,
)
from camelup_env.game.events import LegScored
from camelup_env.odds import (
    RaceOdds,
    clear_cache,
    leg_bet_evs,
    leg_rank_probabilities,
    placement_evs,
    placement_odds,
    race_probabilities,
)

PYRAMID = TakePyramidTile()


def _has_crazy_interaction(state):
    r = state.rules
    return any(any(c >= r.n_racing for c in st) and len(st) > 1 for st in state.stacks.values())


# Exactness against the engine ------------------------------------------------------------------
@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_leg_odds_match_engine_brute_force_on_random_positions(preset):
    """R5.1-R5.6, R6.1: the kernel equals the engine's exact enumeration to 1e-12."""
    positions = random_positions(RuleSet(preset), 40, seed=11 if preset == "classic" else 12)
    assert sum(bool(s.tiles) for s in positions) >= 10  # R5.3 exercised
    if preset == "second_edition":
        assert sum(_has_crazy_interaction(s) for s in positions) >= 5  # R5.5 exercised
    for state in positions:
        exact, _ = brute_force(state)
        np.testing.assert_allclose(leg_rank_probabilities(state), exact, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "track,tiles",
    [
        ("1:orange;2:yellow,blue;3:green,white", "4:-1;6:+1@3"),  # start of the race
        ("11:orange;13:yellow,blue;14:green,white", "12:+1;16:+1"),  # race ends inside the leg
    ],
)
def test_leg_odds_match_engine_brute_force_full_classic_leg_with_tiles(track, tiles):
    """R6.1 classic full legs (5 reveals, up to 29,160 sequences), tiles (R5.3), R5.4."""
    state = parse_position("classic", track, tiles=tiles)
    exact, _ = brute_force(state)
    np.testing.assert_allclose(leg_rank_probabilities(state), exact, rtol=0, atol=1e-12)


def test_leg_odds_match_engine_late_race_second_edition():
    """R5.4/R5.5/R5.6: 4 of 5 reveals left near both ends of the track, crazy camels stacked."""
    state = parse_position(
        "second_edition",
        "2:white,green;3:black,purple;13:blue;14:red;15:yellow",
        dice_left="grey,blue,green,purple,yellow",
        tiles="5:+1;16:-1",
    )
    assert state.pyramid_tiles_left == 4
    exact, _ = brute_force(state)
    np.testing.assert_allclose(leg_rank_probabilities(state), exact, rtol=0, atol=1e-12)


def test_leg_odds_any_die_faces_and_track_length():
    """No preset-specific branches: other faces (support-die-like 1,1,1,2,2,2), a 20-space track."""
    rules = RuleSet("classic", track_length=20, racing_die_faces=(1, 1, 1, 2, 2, 2))
    for state in random_positions(rules, 8, seed=5, reveals=(1, 2, 3)):
        exact, _ = brute_force(state)
        np.testing.assert_allclose(leg_rank_probabilities(state), exact, rtol=0, atol=1e-12)


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_placement_evs_match_engine_brute_force(preset):
    """R4.2 legal placements (engine's own list) and R5.3 payouts to the owner, exactly."""
    positions = random_positions(RuleSet(preset), 6, seed=21, reveals=(1, 2))
    for state in positions:
        seat = int(state.current)
        evs = placement_evs(state, seat)
        probe = state.copy()
        probe.current = seat
        expected_keys = {
            (a.space, a.side) for a in legal_actions(probe) if isinstance(a, PlaceTile)
        }
        assert set(evs) == expected_keys
        for (space, side), ev in evs.items():
            placed, _ = apply_action(probe, PlaceTile(space, side), np.random.default_rng(0))
            _, paid = brute_force(placed, seat=seat)
            assert ev == pytest.approx(paid, abs=1e-12), (space, side)


@pytest.mark.parametrize("preset", ["classic", "second_edition", "supercup"])
def test_placement_odds_leg_odds_are_those_of_the_tile_placed(preset):
    """R5.3 with R6.2: each placement's leg-rank probabilities equal the exact leg odds of the
    position with the tile put there (the engine's own PlaceTile), bit for bit, including the
    unreachable spaces answered without an enumeration."""
    for state in random_positions(RuleSet(preset), 6, seed=23, reveals=(1, 2, 3)):
        seat = int(state.current)
        found = placement_odds(state, seat)
        assert {p: v.landings for p, v in found.items()} == placement_evs(state, seat)
        probe = state.copy()
        probe.current = seat
        probe.extra_pending = False
        for (space, side), spot in found.items():
            placed, _ = apply_action(probe, PlaceTile(space, side), np.random.default_rng(0))
            np.testing.assert_allclose(
                spot.leg,
                leg_rank_probabilities(placed),
                rtol=0,
                atol=1e-12,
                err_msg=str((space, side)),
            )


def test_placement_odds_skip_spaces_no_unit_can_reach():
    """R5.1/R5.3: with one die left (1-3 steps) from spaces 2..3, a tile on 12 is never landed
    on: its landings are 0 and its leg odds those of the board without the seat's tile."""
    state = parse_position("classic", "2:orange;3:yellow,blue,green,white", dice_left="blue")
    spots = placement_odds(state, 0)
    assert spots[(12, 1)].landings == 0.0
    np.testing.assert_array_equal(spots[(12, 1)].leg, leg_rank_probabilities(state))
    assert spots[(5, 1)].landings == pytest.approx(1 / 3, abs=1e-12)


def test_placement_evs_seat_with_a_tile_already_placed():
    """R4.2: the seat's own tile is lifted first (its neighbours become free, its space not)."""
    state = parse_position(
        "classic", "1:orange;2:yellow,blue;3:green,white", dice_left="green", tiles="5:+1@1;9:-1@0"
    )
    evs = placement_evs(state, 1)
    assert (5, 1) not in evs and (6, 1) in evs and (4, -1) in evs  # own old space / neighbours
    assert (8, 1) not in evs  # next to seat 0's tile
    # green on 3 moves to 4, 5 or 6 (1/3 each): a tile on 4, 5 or 6 is hit with probability 1/3
    assert evs[(4, 1)] == pytest.approx(1 / 3, abs=1e-12)
    assert evs[(6, -1)] == pytest.approx(1 / 3, abs=1e-12)
    assert evs[(7, 1)] == 0.0


# Structure ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_probabilities_sum_to_one_over_ranks_and_over_camels(preset):
    """R0.4: every camel has one rank and every rank one camel."""
    for seed in range(3):
        probs = leg_rank_probabilities(new_game(RuleSet(preset), seed=seed))
        assert probs.shape == (5, 5) and probs.dtype == np.float64
        np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-12)
        np.testing.assert_allclose(probs.sum(axis=0), 1.0, atol=1e-12)
        assert (probs >= 0).all()


def test_one_die_left_classic_hand_computed():
    """R5.1-R5.3 by hand. Orange on 1, [yellow, blue] on 2, green on 3, white on 5, oasis on 4.

    Only orange's die is left (1, 2, 3 with 1/3 each):
      1 -> top of space 2: white, green, orange, blue, yellow
      2 -> top of space 3: white, orange, green, blue, yellow
      3 -> oasis on 4 sends it to 5, on top of white (R5.3): orange, white, green, blue, yellow
    """
    state = parse_position(
        "classic", "1:orange;2:yellow,blue;3:green;5:white", "orange", tiles="4:+1"
    )
    t = Fraction(1, 3)
    expected = {  # camel: [rank 1, ..., rank 5]
        "blue": [0, 0, 0, 1, 0],
        "green": [0, t, 2 * t, 0, 0],
        "orange": [t, t, t, 0, 0],
        "yellow": [0, 0, 0, 0, 1],
        "white": [2 * t, t, 0, 0, 0],
    }
    probs = leg_rank_probabilities(state)
    for camel, row in expected.items():
        c = state.rules.colours.index(camel)
        np.testing.assert_allclose(probs[c], [float(x) for x in row], atol=1e-15)


def test_one_reveal_left_second_edition_grey_die_hand_computed():
    """R5.5 by hand: dice left grey and purple, one reveal (5 of 6 per leg, R6.1).

    Track: blue 2, green 3, red 4, [white, yellow] 5, [black, purple] 7. Both crazy camels carry
    a racing camel and neither is on the other, so the shown colour moves (R5.5 rule 3).
    Purple die (1/2): purple stays ahead -> base order purple, yellow, red, green, blue.
    Grey die (1/2, each face 1/12), backward with what it carries:
      white 1 -> [white, yellow] onto red at 4: base order
      white 2 -> onto green at 3: purple, red, yellow, green, blue
      white 3 -> onto blue at 2: purple, red, green, yellow, blue
      black 1 -> [black, purple] to 6: base order;  black 2 -> onto yellow at 5: base order
      black 3 -> onto red at 4: yellow, purple, red, green, blue
    So the base order has probability 1/2 + 3/12 = 3/4.
    """
    state = parse_position(
        "second_edition", "2:blue;3:green;4:red;5:white,yellow;7:black,purple", "grey,purple"
    )
    assert state.pyramid_tiles_left == 1
    u = Fraction(1, 12)
    expected = {
        "purple": [11 * u, u, 0, 0, 0],
        "yellow": [u, 9 * u, u, u, 0],
        "red": [0, 2 * u, 10 * u, 0, 0],
        "green": [0, 0, u, 11 * u, 0],
        "blue": [0, 0, 0, 0, 1],
    }
    probs = leg_rank_probabilities(state)
    for camel, row in expected.items():
        c = state.rules.colours.index(camel)
        np.testing.assert_allclose(probs[c], [float(x) for x in row], atol=1e-15)


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_conditioning_on_one_reveal(preset):
    """Odds = probability-weighted average of the odds after each chance outcome (R4.3)."""
    for state in random_positions(RuleSet(preset), 4, seed=31, reveals=(2, 3, 4, 5)):
        mixed = np.zeros((5, 5))
        for roll, p in chance_outcomes(state, PYRAMID):
            new, events = apply_outcome(state, PYRAMID, roll)
            scored = [e for e in events if isinstance(e, LegScored)]
            if scored:
                after = np.zeros((5, 5))
                after[list(scored[0].ranking), range(5)] = 1.0
            else:
                after = leg_rank_probabilities(new)
            mixed += float(p) * after
        np.testing.assert_allclose(leg_rank_probabilities(state), mixed, rtol=0, atol=1e-12)


# Monte Carlo through the real engine -------------------------------------------------------------
MC_POSITIONS = {
    # R5.3 tiles both sides, R5.4 finish inside the leg (camels on 14-16), classic
    "classic_tiles_finish": (
        "classic",
        "12:orange;14:yellow,blue;15:green;16:white",
        None,
        "13:+1;9:-1",
    ),
    # R5.5 rule 1: only white carries a racing camel (E5); R5.6: crossing back from 2
    "second_rule1_backward": (
        "second_edition",
        "2:white,red;5:black;6:blue;7:green,yellow;9:purple",
        None,
        "4:-1;8:+1",
    ),
    # R5.5 rule 2: black directly on white, both carry yellow (E6-like); R5.6 crossing from 3
    "second_rule2_backward": (
        "second_edition",
        "3:white,black,yellow;4:green;5:red,blue;7:purple",
        "grey,blue,green,red,yellow",
        "2:+1",
    ),
}


@pytest.mark.parametrize("name", sorted(MC_POSITIONS))
def test_exact_odds_agree_with_engine_monte_carlo(name):
    """Roll the rest of the leg with apply_action; the frequencies are within 4 SE of exact."""
    preset, track, dice, tiles = MC_POSITIONS[name]
    state = parse_position(preset, track, dice, tiles)
    exact = leg_rank_probabilities(state)
    rng = np.random.default_rng(2024)
    n = 3000
    counts = np.zeros((5, 5))
    crossings = 0
    for _ in range(n):
        s = state
        while True:
            s, events = apply_action(s, PYRAMID, rng)
            scored = [e for e in events if isinstance(e, LegScored)]
            if scored:
                counts[list(scored[0].ranking), range(5)] += 1
                crossings += s.game_over
                break
    freq = counts / n
    p = np.clip(exact, 0.0, 1.0)
    se = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(freq - exact) <= 4 * se + 1e-12), (freq - exact) / np.maximum(se, 1e-9)
    assert crossings > 0  # the race ended inside the leg in some rollouts (R5.4 / R5.6)


def test_monte_carlo_positions_exercise_both_grey_die_exceptions():
    """The two R5.5 positions above really trigger rule 1 and rule 2."""
    from camelup_env.game.movement import crazy_camel_to_move

    for name, moved in (("second_rule1_backward", "white"), ("second_rule2_backward", "black")):
        preset, track, dice, tiles = MC_POSITIONS[name]
        state = parse_position(preset, track, dice, tiles)
        colours = state.rules.colours
        for shown in ("black", "white"):
            camel = crazy_camel_to_move(state.stacks, colours.index(shown), 5)
            assert colours[camel] == moved


# Leg-bet EVs -------------------------------------------------------------------------------------
def test_leg_bet_evs_follow_r6_2_and_nan_for_empty_stacks():
    """R6.2: value x P(first) + P(second) - P(other); NaN where no tile is left (R4.1)."""
    state = new_game(RuleSet("classic"), seed=3)
    probs = leg_rank_probabilities(state)
    evs = leg_bet_evs(state)
    np.testing.assert_allclose(evs, 5 * probs[:, 0] + probs[:, 1] - probs[:, 2:].sum(axis=1))
    state.leg_stacks = ((), (3, 2), (2,), (5, 3, 2), (5, 3, 2))
    evs = leg_bet_evs(state)
    assert np.isnan(evs[0])
    assert evs[1] == pytest.approx(3 * probs[1, 0] + probs[1, 1] - probs[1, 2:].sum())
    assert evs[2] == pytest.approx(2 * probs[2, 0] + probs[2, 1] - probs[2, 2:].sum())


def test_results_are_cached_and_not_aliased():
    state = new_game(RuleSet("second_edition"), seed=4)
    first = leg_rank_probabilities(state)
    first[:] = 0  # the caller's copy, not the cache
    again = leg_rank_probabilities(state)
    np.testing.assert_allclose(again.sum(axis=1), 1.0)


# Race odds ---------------------------------------------------------------------------------------
def test_race_probabilities_deterministic_for_a_seed():
    state = new_game(RuleSet("second_edition"), seed=8)
    a = race_probabilities(state, 2000, seed=5)
    clear_cache()
    b = race_probabilities(state, 2000, seed=5)
    c = race_probabilities(state, 2000, seed=6)
    assert isinstance(a, RaceOdds) and a.n_samples == 2000
    np.testing.assert_array_equal(a.winner, b.winner)
    np.testing.assert_array_equal(a.loser, b.loser)
    assert not np.array_equal(a.winner, c.winner)
    for odds in (a, c):
        assert odds.winner.sum() == pytest.approx(1) and odds.loser.sum() == pytest.approx(1)
        np.testing.assert_allclose(odds.winner_se, np.sqrt(odds.winner * (1 - odds.winner) / 2000))


def test_race_probabilities_of_a_finished_race():
    """R7: a finished race has a certain winner and loser (SE 0)."""
    rng = np.random.default_rng(0)
    state = new_game(RuleSet("classic"), seed=0)
    while not state.game_over:
        state, _ = apply_action(state, PYRAMID, rng) if state.pyramid_tiles_left else (state, ())
    odds = race_probabilities(state, 100)
    from camelup_env import ranking

    order = ranking(state.stacks, 5)
    assert odds.winner[order[0]] == 1 and odds.winner.sum() == 1
    assert odds.loser[order[-1]] == 1 and odds.loser.sum() == 1
    assert not odds.winner_se.any() and not odds.loser_se.any()


def test_race_probabilities_when_the_next_reveal_ends_the_race():
    """R5.4: all camels on 16, so any die sends a unit (with white on top) over the line.

    White is always in the crossing unit and highest: it wins. Blue stays at the bottom (or is
    the bottom of the whole crossing stack): it is last.
    """
    state = parse_position("classic", "16:blue,green,orange,yellow,white")
    for exact in (False, True):  # the rollouts, and the exact odds (float sums of the weights)
        odds = race_probabilities(state, 500, seed=1, exact=exact)
        assert odds.winner[4] == pytest.approx(1, abs=1e-12)
        assert odds.loser[0] == pytest.approx(1, abs=1e-12)


def test_race_probabilities_equal_leg_odds_when_the_race_ends_this_leg():
    """R5.4/R6.1 classic: a camel on 16 crosses when its die is revealed, so the race surely
    ends inside this leg: P(winner) = P(leg rank 1) and P(loser) = P(leg rank 5)."""
    state = parse_position("classic", "12:orange;13:yellow,blue;15:green;16:white", tiles="14:+1")
    exact = leg_rank_probabilities(state)
    n = 20000
    odds = race_probabilities(state, n, seed=3)
    for est, p in ((odds.winner, exact[:, 0]), (odds.loser, exact[:, 4])):
        se = np.sqrt(np.clip(p * (1 - p), 0.0, None) / n)
        assert np.all(np.abs(est - p) <= 4 * se + 1e-12)
