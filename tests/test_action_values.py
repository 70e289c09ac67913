"""Per-action expected values (camelup_env.odds.action_values) against the engine's brute force.

The brute force plays an action through the engine, then reveals dice - every chance outcome,
weighted by the engine's own probabilities (``chance_outcomes``) - until the leg is scored or
the race ends, and sums what the scoring events pay the seat. An action's value must equal the
expected payout with it minus the expected payout without it (the dice revealed anyway), for
every kind the module values exactly: leg bets (R6.2), the pyramid tile (R4.3), tile placements
(R5.3), race bets on an empty pile when the race ends this leg (R7.2), position bets (R9.3),
the camera (R9.2) and support dice (R9.1.4). Partnerships (R9.4) are valued by the best
*expected* copied reward, which the brute force gives tile by tile.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from camelup_env import (
    RuleSet,
    apply_action,
    apply_outcome,
    chance_outcomes,
    legal_action_indices,
    new_game,
)
from camelup_env.game.actions import (
    AddSupportDie,
    Partner,
    Photograph,
    PlaceTile,
    PositionBet,
    RaceBet,
    SkipExtra,
    TakeLegBet,
    TakePyramidTile,
    action_table,
)
from camelup_env.game.events import FinalBetsScored, LegScored, PhotoPayout, TilePayout
from camelup_env.game.sampling import random_positions
from camelup_env.game.state import GameState
from camelup_env.observation import public_view
from camelup_env.odds.action_values import action_values

ALL = (LegScored, TilePayout, PhotoPayout, FinalBetsScored)


def payout(events, seat: int, counted: tuple[type, ...]) -> float:
    """Coins the scoring events of the types ``counted`` pay ``seat``; pyramid-tile items are
    left out (the brute force's die rolls hand them to whoever rolls)."""
    total = 0.0
    for e in events:
        if not isinstance(e, counted):
            continue
        if isinstance(e, LegScored):
            total += sum(amount for name, amount in e.items[seat] if name != "pyramid tile")
        elif isinstance(e, (TilePayout, PhotoPayout)) and e.owner == seat:
            total += e.coins
        elif isinstance(e, FinalBetsScored):
            total += sum(coins for owner, _, coins in e.cards if owner == seat)
    return total


def expected_payout(state: GameState, seat: int, counted: tuple[type, ...] = ALL) -> float:
    """E[what the rest of the leg pays ``seat``] when only dice are revealed (brute force)."""
    if state.game_over:
        return 0.0
    table = action_table(state.rules)
    if state.extra_pending:
        state, _ = apply_outcome(state, table.index[SkipExtra()], None)
    return expected_after(state, table.pyramid, seat, counted)


def expected_after(
    state: GameState, index: int, seat: int, counted: tuple[type, ...] = ALL
) -> float:
    """E[what ``index`` and the rest of the leg pay ``seat``], every chance outcome weighted by
    the engine's probability."""
    total = Fraction(0)
    for outcome, p in chance_outcomes(state, index):
        nxt, events = apply_outcome(state, index, outcome)
        value = payout(events, seat, counted)
        if not any(isinstance(e, LegScored) for e in events) and not nxt.game_over:
            value += expected_payout(nxt, seat, counted)
        total += p * Fraction(value)
    return float(total)


def positions(rules: RuleSet, n: int, max_left: int = 3, seed: int = 0) -> list[GameState]:
    """States of seeded random games with at most ``max_left`` reveals left in the leg."""

    def few_left(s: GameState) -> bool:
        return not s.extra_pending and 0 < min(s.pyramid_tiles_left, len(s.pyramid)) <= max_left

    return random_positions(rules, n, seed, keep=0.3, accept=few_left)


#: What each kind's value counts (the module docstring): a tile's own payouts only (not its
#: effect on the seat's leg bets); a support die's effect on leg scoring only.
COUNTED = {PlaceTile: (TilePayout,), AddSupportDie: (LegScored,), SkipExtra: (LegScored,)}


def check_against_brute_force(state: GameState, kinds: tuple[type, ...]) -> int:
    """Compare every legal action of ``kinds`` with the brute force; how many were checked."""
    seat = state.current
    table = action_table(state.rules)
    values = action_values(public_view(state, seat), seat, tile_odds="exact", race_samples=64)
    checked = 0
    for i in legal_action_indices(state):
        a = table.actions[i]
        if not isinstance(a, kinds):
            continue
        counted = COUNTED.get(type(a), ALL)
        brute = expected_after(state, i, seat, counted) - expected_payout(state, seat, counted)
        if isinstance(a, TakePyramidTile):
            brute += 1  # the tile's own coin (R6.2), kept out of the brute force's rolls
        elif isinstance(a, AddSupportDie):
            brute -= 1  # the returned pyramid tile (R9.1.4)
        assert values[i] == pytest.approx(brute, abs=1e-9), (a, state)
        checked += 1
    return checked


@pytest.mark.parametrize(("preset", "max_left"), [("classic", 3), ("second_edition", 2)])
def test_leg_bet_pyramid_and_tile_values_equal_the_brute_force(preset: str, max_left: int) -> None:
    """R6.2, R4.3, R5.3 (tiles exactly, both sides, with the seat's own tile lifted)."""
    checked = sum(
        check_against_brute_force(s, (TakeLegBet, TakePyramidTile, PlaceTile))
        for s in positions(RuleSet(preset, num_players=3), 4, max_left)
    )
    assert checked > 40


def test_race_bet_values_equal_the_brute_force_when_the_race_ends_this_leg() -> None:
    """R7.2: all camels on the last space, so the first reveal ends the race: the race
    estimate is exact and a card on an empty pile pays 8 if right, -1 if wrong."""
    rules = RuleSet("classic", num_players=3)
    state = replace(new_game(rules, seed=0), stacks={16: (3, 0, 4, 1, 2)})
    assert check_against_brute_force(state, (RaceBet,)) == 2 * rules.n_racing
    table = action_table(rules)
    values = action_values(state)
    assert values[table.race_index(0, 2)] == pytest.approx(8)  # on top: carried, always leads
    assert values[table.race_index(0, 3)] == pytest.approx(-1)  # at the bottom: never leads


@pytest.mark.parametrize(
    "modules",
    [dict(position_bets=True, photographer=False), dict(position_bets=False, photographer=True)],
)
def test_position_bet_and_camera_values_equal_the_brute_force(modules: dict) -> None:
    """R9.3 (covering an own tile gives up its leg-bet value) and R9.2 (a re-pointed camera
    gives up the old space's value)."""
    rules = RuleSet("supercup", num_players=3, support_dice=False, **modules)
    # Random play takes every position tile early in a leg: give back all but the first.
    checked = sum(
        check_against_brute_force(
            replace(s, position_bets=s.position_bets[:1]), (PositionBet, Photograph)
        )
        for s in positions(rules, 6, max_left=2, seed=1)
    )
    assert checked > 5


def test_support_die_values_equal_the_brute_force() -> None:
    """R9.1.4: the die joins the pyramid with one more reveal; the pyramid tile goes back."""
    rules = RuleSet(
        "supercup", num_players=3, extra_action=True, photographer=False, position_bets=False
    )
    rng = np.random.default_rng(2)
    checked = 0
    state = new_game(rules, seed=2)
    while checked < 4:
        if state.game_over:
            state = new_game(rules, seed=int(rng.integers(1 << 30)))
        left = min(state.pyramid_tiles_left, len(state.pyramid))
        if state.extra_pending and state.leg_bets[state.current] and left <= 2:
            checked += check_against_brute_force(state, (AddSupportDie, SkipExtra))
        legal = legal_action_indices(state)
        state, _ = apply_action(state, legal[rng.integers(len(legal))], rng)


def test_partnership_is_the_best_expected_copy() -> None:
    """R9.4: max(0, the best of the partner's tiles by its brute-force expected reward)."""
    rules = RuleSet("second_edition", num_players=6)
    checked = 0
    for s in positions(rules, 40, max_left=2, seed=3):
        table = action_table(rules)
        values = action_values(s)
        for i in legal_action_indices(s):
            a = table.actions[i]
            if not isinstance(a, Partner) or not s.leg_bets[a.seat]:
                continue
            rewards = []
            for camel, value in s.leg_bets[a.seat]:
                probe = replace(
                    s,
                    leg_bets=tuple(((camel, value),) if q == a.seat else () for q in range(6)),
                    pyramid_tiles=(0,) * 6,
                    partners=(-1,) * 6,
                )
                rewards.append(expected_payout(probe, a.seat, (LegScored,)))
            if s.pyramid_tiles[a.seat]:
                rewards.append(1.0)
            assert values[i] == pytest.approx(max(0.0, *rewards), abs=1e-9)
            checked += 1
    assert checked >= 3


def test_illegal_actions_are_zero_and_the_public_view_is_enough() -> None:
    """Every entry outside the seat's legal actions is 0, and hidden cards change nothing."""
    rules = RuleSet("classic", num_players=4)
    for s in positions(rules, 5, max_left=5, seed=4):
        for seat in range(4):
            values = action_values(s, seat)
            assert values.shape == (len(action_table(rules)),)
            view = public_view(s, seat)
            assert np.array_equal(values, action_values(view, seat))
            if seat == s.current:
                illegal = np.ones(len(values), bool)
                illegal[legal_action_indices(s)] = False
                assert not values[illegal].any()
