"""Terms, presets, setup, turns and movement: docs/rules.md R0-R3, R5 and the worked examples
E1, E2, E5-E7 (R13), each built from an exact position."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from engine_positions import CLASSIC, GREY, SECOND, of_type, pile_scored, position, roll

from camelup_env import (
    PlaceTile,
    RaceBet,
    RuleSet,
    TakeLegBet,
    TakePyramidTile,
    action_table,
    apply_action,
    apply_outcome,
    legal_actions,
    new_game,
    ranking,
)
from camelup_env.game.events import (
    DieRevealed,
    GameOver,
    LegScored,
    RaceEnded,
    TilePayout,
    UnitMoved,
)

B, G, OR, Y, W = (CLASSIC[c] for c in ("blue", "green", "orange", "yellow", "white"))
sB, sG, sR, sY, sP, BLACK, WHITE = (
    SECOND[c] for c in ("blue", "green", "red", "yellow", "purple", "black", "white")
)


# R0 Terms --------------------------------------------------------------------------------
def test_R0_1_track_spaces_1_to_16_and_tiles_on_2_to_L() -> None:
    rules = RuleSet("classic")
    assert rules.track_length == 16
    spaces = {a.space for a in action_table(rules).actions if isinstance(a, PlaceTile)}
    assert spaces == set(range(2, 17))


def test_R0_2_stack_is_bottom_to_top_and_R5_2_lands_on_top() -> None:
    s = position(stacks={1: (OR,), 2: (Y,), 3: (G, W), 4: (B,)})
    s, _ = roll(s, Y, 1)
    assert s.stacks[3] == (G, W, Y)
    assert 2 not in s.stacks


def test_R0_3_unit_is_camel_and_everything_above_it() -> None:
    s = position(stacks={1: (OR, Y, B), 5: (G, W)})
    s, events = roll(s, Y, 2)
    assert s.stacks[1] == (OR,)
    assert s.stacks[3] == (Y, B)
    assert of_type(events, UnitMoved)[0].camels == (Y, B)


def test_R0_4_ranking_farther_first_higher_first_crazy_ignored() -> None:
    n = 5
    stacks = {3: (sB, BLACK, sG), 7: (sR,), 2: (sY, WHITE), 1: (sP,)}
    assert ranking(stacks, n) == [sR, sG, sB, sY, sP]


def test_R0_4_crossed_camels_are_ahead_of_every_space() -> None:
    # R5.4: a crossing unit is recorded at L + k; farther crossers lead, higher on one spot.
    stacks = {16: (B,), 18: (G,), 17: (OR, Y), 2: (W,)}
    assert ranking(stacks, 5) == [G, Y, OR, B, W]


def test_R0_5_leading_second_and_last_camel_used_by_scoring() -> None:
    # Leading/second pay the leg bets (R6.2); the last camel decides the loser pile (R7.2).
    s = position(
        stacks={15: (Y,), 16: (OR,), 10: (B, G), 1: (W,)},
        leg_bets=(((OR, 5), (Y, 5), (G, 5)), (), (), ()),
        loser_pile=((1, W), (2, B)),
        current=3,
    )
    s, events = roll(s, OR, 1)  # orange crosses: orange leads, yellow second, white last
    (scored,) = of_type(events, LegScored)
    assert scored.ranking[:2] == (OR, Y) and scored.ranking[-1] == W
    assert [amount for _, amount in scored.items[0]] == [5, 1, -1]
    loser = pile_scored(events, 1)
    assert loser.target == W
    assert loser.cards == ((1, W, 8), (2, B, -1))


# R1 Presets ------------------------------------------------------------------------------
def test_R1_presets_components() -> None:
    classic, second = RuleSet("classic"), RuleSet("second_edition")
    assert classic.racing_colours == ("blue", "green", "orange", "yellow", "white")
    assert classic.crazy_colours == ()
    assert classic.leg_bet_values == (5, 3, 2)
    assert classic.pyramid_tiles == 5 and classic.n_dice == 5
    assert classic.tile_kind == "desert" and classic.tile_sides == ("oasis", "mirage")
    assert second.racing_colours == ("blue", "green", "red", "yellow", "purple")
    assert second.crazy_colours == ("black", "white")
    assert second.leg_bet_values == (5, 3, 2, 2)
    assert second.pyramid_tiles == 5 and second.n_dice == 6
    assert second.tile_kind == "spectator" and second.tile_sides == ("cheering", "booing")
    for preset in ("classic", "second_edition"):
        for n in range(2, 9):
            assert RuleSet(preset, num_players=n).num_players == n


def test_R1_1_die_faces() -> None:
    second = RuleSet("second_edition")
    for die in range(5):
        assert sorted(second.dice[die]) == sorted((die, v) for v in (1, 1, 2, 2, 3, 3))
    grey = second.dice[GREY]
    assert sorted(grey) == sorted((c, v) for c in (BLACK, WHITE) for v in (1, 2, 3))
    assert second.die_name(GREY) == "grey"


def test_R1_2_each_player_starts_with_3_coins_5_cards_and_a_tile() -> None:
    for preset in ("classic", "second_edition"):
        s = new_game(RuleSet(preset, num_players=5), seed=1)
        assert s.coins == (3,) * 5
        assert s.hands == (0b11111,) * 5
        assert all(s.tile_of(seat) is None for seat in range(5))
        assert any(isinstance(a, PlaceTile) for a in legal_actions(s))
        bets = {(a.pile, a.camel) for a in legal_actions(s) if isinstance(a, RaceBet)}
        assert bets == {(pile, c) for pile in (0, 1) for c in range(5)}


def test_R1_3_camel_indices_racing_first_then_crazy() -> None:
    rules = RuleSet("second_edition")
    assert rules.colours[:5] == rules.racing_colours and rules.colours[5:] == ("black", "white")
    assert [rules.is_crazy(c) for c in range(7)] == [False] * 5 + [True] * 2


def test_R1_4_second_edition_partnerships_with_6_or_more_players() -> None:
    for n in range(2, 9):
        assert RuleSet("second_edition", num_players=n).partnerships == (n >= 6)
        assert RuleSet("classic", num_players=n).partnerships is False


# R2 Setup --------------------------------------------------------------------------------
def test_R2_1_racing_camels_on_spaces_1_to_3_uniformly_in_random_stack_order() -> None:
    rules = RuleSet("classic")
    spaces, orders = Counter(), Counter()
    for seed in range(600):
        s = new_game(rules, seed=seed)
        for camel in range(5):
            spaces[s.camel_space(camel)] += 1
        assert set(s.stacks) <= {1, 2, 3}
        if s.camel_space(B) == s.camel_space(G):
            stack = s.stacks[s.camel_space(B)]
            orders[stack.index(B) < stack.index(G)] += 1
    assert set(spaces) == {1, 2, 3}
    for count in spaces.values():  # 3000 placements, 1/3 each: sd ~ 26
        assert abs(count - 1000) < 130
    assert orders[True] > 30 and orders[False] > 30  # both stacking orders occur (R11.1)


def test_R2_2_crazy_camels_on_14_to_16_and_same_space_stacks() -> None:
    rules = RuleSet("second_edition")
    spaces, top = Counter(), Counter()
    for seed in range(600):
        s = new_game(rules, seed=seed)
        assert set(s.camel_space(c) for c in range(5)) <= {1, 2, 3}
        for camel in (BLACK, WHITE):
            spaces[s.camel_space(camel)] += 1
        if s.camel_space(BLACK) == s.camel_space(WHITE):
            top[s.stacks[s.camel_space(BLACK)][-1]] += 1
    assert set(spaces) == {14, 15, 16}
    for count in spaces.values():
        assert abs(count - 400) < 110
    assert top[BLACK] > 20 and top[WHITE] > 20


def test_R2_3_initial_pyramid_stacks_tiles_and_first_player() -> None:
    rules = RuleSet("second_edition", num_players=4)
    s = new_game(rules, seed=3, first_player=2)
    assert s.pyramid == tuple(range(6)) and s.revealed == ()
    assert s.leg_stacks == ((5, 3, 2, 2),) * 5
    assert s.pyramid_tiles_left == 5 and s.pyramid_tiles == (0,) * 4
    assert s.current == 2 and s.leg_starter == 2 and s.leg == 1
    assert s.winner_pile == () and s.loser_pile == () and s.tiles == {}
    with pytest.raises(ValueError, match="first_player"):
        new_game(rules, seed=3, first_player=4)


# R3 Turns --------------------------------------------------------------------------------
@pytest.mark.parametrize("action", [TakeLegBet(0), PlaceTile(9, 1), RaceBet(0, 2)])
def test_R3_1_play_passes_seat_by_seat(action) -> None:
    s = position(num_players=3, current=2)
    s2, _ = apply_outcome(s, action, None)
    assert s2.current == 0
    s3, _ = roll(s, 0, 1)
    assert s3.current == 0


def test_R3_2_leg_starter_begins_each_leg() -> None:
    rng = np.random.default_rng(5)
    s = new_game(RuleSet("classic", num_players=3), seed=5)
    starts = 0
    while not s.game_over:
        leg = s.leg
        s, _ = _step(s, rng)
        if s.leg != leg and not s.game_over:
            assert s.current == s.leg_starter
            starts += 1
    assert starts >= 1


def _step(s, rng):
    actions = legal_actions(s)
    return apply_action(s, actions[int(rng.integers(len(actions)))], rng)


# R5 Movement and R13 examples -----------------------------------------------------------
def test_E1_carrying_R5_1() -> None:
    s = position(stacks={1: (OR,), 2: (Y, B), 3: (G, W)})
    s, _ = roll(s, B, 1)
    assert s.stacks[3] == (G, W, B) and s.stacks[2] == (Y,)
    assert ranking(s.stacks, 5) == [B, W, G, Y, OR]
    s, _ = roll(s, G, 2)
    assert s.stacks[5] == (G, W, B) and 3 not in s.stacks


def test_E2_mirage_underneath_R5_3() -> None:
    s = position(stacks={1: (G, W), 2: (Y, B), 3: (OR,)}, tiles={4: (1, -1)}, current=0)
    s, events = roll(s, Y, 2)
    assert s.stacks[3] == (Y, B, OR)
    assert s.coins == (3, 4, 3, 3)
    assert of_type(events, TilePayout) == [TilePayout(1, 4, 1)]
    assert ranking(s.stacks, 5)[0] == OR
    assert s.tiles == {4: (1, -1)}  # the tile stays (R5.3)


def test_R5_3_oasis_moves_unit_forward_on_top_and_pays_owner() -> None:
    s = position(stacks={1: (G,), 2: (Y, B), 3: (W,), 6: (OR,)}, tiles={5: (2, 1)})
    s, events = roll(s, Y, 3)
    assert s.stacks[6] == (OR, Y, B)
    assert s.coins[2] == 4
    tile_moves = [e for e in of_type(events, UnitMoved) if e.reason == "tile"]
    assert tile_moves == [UnitMoved((Y, B), 5, 6, False, "tile")]


def test_R5_3_mirage_back_to_own_start_goes_under_what_it_left() -> None:
    s = position(stacks={2: (OR, Y, B), 1: (G, W)}, tiles={3: (0, -1)})
    s, _ = roll(s, Y, 1)
    assert s.stacks[2] == (Y, B, OR)


def test_R5_4_crossing_ends_race_at_once_recorded_as_L_plus_k() -> None:
    s = position(stacks={1: (G, W), 2: (Y,), 3: (OR,), 15: (B,)}, pyramid_tiles_left=1)
    s, events = roll(s, B, 3)
    assert s.game_over
    assert s.stacks[18] == (B,)
    assert of_type(events, RaceEnded) == [RaceEnded((B, OR, Y, W, G), False)]
    # The race ends at once: one (final) leg scoring, no leg clean-up (R7.1).
    assert len(of_type(events, LegScored)) == 1 and s.leg == 1
    assert isinstance(events[-1], GameOver)


def test_R5_4_oasis_on_space_L_sends_unit_across() -> None:
    s = position(stacks={1: (G, W), 2: (Y,), 3: (OR,), 14: (B,)}, tiles={16: (3, 1)})
    s, _ = roll(s, B, 2)
    assert s.game_over and s.stacks[17] == (B,) and s.coins[3] == 4  # +1 from the tile


def test_R5_4_landing_exactly_on_L_does_not_end_race() -> None:
    s = position(stacks={1: (G, W), 2: (Y,), 3: (OR,), 14: (B,)})
    s, _ = roll(s, B, 2)
    assert not s.game_over and s.stacks[16] == (B,)


def test_E5_grey_die_exception_1_only_carrier_moves() -> None:
    s = position("second_edition", stacks={1: (sB, sG), 2: (sY, sP), 14: (WHITE, sR), 15: (BLACK,)})
    s, events = roll(s, GREY, 2, shown=BLACK)
    assert s.stacks[12] == (WHITE, sR)
    assert s.stacks[15] == (BLACK,) and 14 not in s.stacks
    # the event says why white moved although the die shows black
    assert of_type(events, UnitMoved) == [UnitMoved((WHITE, sR), 14, 12, False, "carrier")]


def test_E6_grey_die_exception_2_upper_crazy_moves() -> None:
    s = position("second_edition", stacks={1: (sB, sG, sR, sY, sP), 16: (WHITE, BLACK)})
    s, events = roll(s, GREY, 1, shown=WHITE)
    assert s.stacks[15] == (BLACK,) and s.stacks[16] == (WHITE,)
    assert of_type(events, UnitMoved) == [UnitMoved((BLACK,), 16, 15, False, "on top")]


def test_R5_5_the_die_colour_moving_its_own_camel_is_a_plain_die_move() -> None:
    # Rule 1 picks black and the die shows black: nothing to explain.
    s = position("second_edition", stacks={1: (sB, sG, sY, sP), 10: (BLACK, sR), 12: (WHITE,)})
    _, events = roll(s, GREY, 1, shown=BLACK)
    assert of_type(events, UnitMoved) == [UnitMoved((BLACK, sR), 10, 9, False, "die")]


def test_R5_5_2_both_carry_but_stacked_directly_upper_moves() -> None:
    # Black sits directly on white and both carry red: not exactly one carrier, so rule 2.
    s = position("second_edition", stacks={1: (sB, sG, sY, sP), 10: (WHITE, BLACK, sR)})
    s, _ = roll(s, GREY, 1, shown=WHITE)
    assert s.stacks[9] == (BLACK, sR) and s.stacks[10] == (WHITE,)


def test_R5_5_1_one_carrier_moves_whatever_the_colour_shown() -> None:
    s = position("second_edition", stacks={1: (sB, sG, sY, sP), 10: (BLACK, sR), 12: (WHITE,)})
    for shown in (BLACK, WHITE):
        s2, _ = roll(s, GREY, 3, shown=shown)
        assert s2.stacks[7] == (BLACK, sR) and s2.stacks[12] == (WHITE,)


def test_R5_5_3_two_carriers_not_stacked_directly_die_colour_moves() -> None:
    s = position("second_edition", stacks={1: (sG, sY, sP), 10: (BLACK, sR), 12: (WHITE, sB)})
    s2, _ = roll(s, GREY, 1, shown=WHITE)
    assert s2.stacks[11] == (WHITE, sB) and s2.stacks[10] == (BLACK, sR)
    s3, _ = roll(s, GREY, 1, shown=BLACK)
    assert s3.stacks[9] == (BLACK, sR) and s3.stacks[12] == (WHITE, sB)


def test_R5_5_3_both_carry_in_one_stack_separated_die_colour_moves() -> None:
    s = position("second_edition", stacks={1: (sG, sY, sP), 10: (WHITE, sR, BLACK, sB)})
    s2, _ = roll(s, GREY, 2, shown=WHITE)
    assert s2.stacks[8] == (WHITE, sR, BLACK, sB) and 10 not in s2.stacks
    s3, _ = roll(s, GREY, 2, shown=BLACK)
    assert s3.stacks[8] == (BLACK, sB) and s3.stacks[10] == (WHITE, sR)


def test_R5_5_3_no_exception_die_colour_moves_backward_and_on_top() -> None:
    s = position(
        "second_edition", stacks={1: (sG, sY, sP), 8: (sR, sB), 10: (BLACK,), 12: (WHITE,)}
    )
    s2, _ = roll(s, GREY, 2, shown=BLACK)
    assert s2.stacks[8] == (sR, sB, BLACK) and s2.stacks[12] == (WHITE,)
    s3, _ = roll(s, GREY, 3, shown=WHITE)
    assert s3.stacks[9] == (WHITE,) and s3.stacks[10] == (BLACK,)


def test_R5_5_cheering_sends_crazy_unit_one_more_back_on_top_owner_paid() -> None:
    s = position(
        "second_edition",
        stacks={1: (sG, sY, sP), 7: (sB,), 10: (BLACK, sR), 14: (WHITE,)},
        tiles={8: (2, 1)},
    )
    s, events = roll(s, GREY, 2, shown=BLACK)
    assert s.stacks[7] == (sB, BLACK, sR)
    assert s.coins[2] == 4
    assert [e for e in of_type(events, UnitMoved) if e.reason == "tile"] == [
        UnitMoved((BLACK, sR), 8, 7, False, "tile")
    ]


def test_R5_5_booing_sends_crazy_unit_one_forward_underneath_owner_paid() -> None:
    s = position(
        "second_edition",
        stacks={1: (sG, sY, sP), 9: (sB,), 10: (BLACK, sR), 14: (WHITE,)},
        tiles={8: (1, -1)},
    )
    s, events = roll(s, GREY, 2, shown=BLACK)
    assert s.stacks[9] == (BLACK, sR, sB)
    assert s.coins[1] == 4
    assert [e for e in of_type(events, UnitMoved) if e.reason == "tile"] == [
        UnitMoved((BLACK, sR), 8, 9, True, "tile")
    ]


def test_E7_backward_crossing_ends_race_yellow_last() -> None:
    s = position(
        "second_edition",
        stacks={2: (BLACK, sY), 5: (sB,), 6: (sG, sR), 7: (sP,), 10: (WHITE,)},
        loser_pile=((0, sY), (1, sB)),
        winner_pile=((2, sP),),
        current=3,
    )
    s, events = roll(s, GREY, 3, shown=BLACK)
    assert s.game_over
    assert s.stacks[-1] == (BLACK, sY)
    (ended,) = of_type(events, RaceEnded)
    assert ended.backward and ended.ranking == (sP, sR, sG, sB, sY)
    loser = pile_scored(events, 1)
    assert loser.target == sY and loser.cards == ((0, sY, 8), (1, sB, -1))
    winner = pile_scored(events, 0)
    assert winner.target == sP and winner.cards == ((2, sP, 8),)


def test_R5_6_carried_racing_camels_rank_last_higher_ahead() -> None:
    s = position("second_edition", stacks={1: (BLACK, sY, sB), 3: (sG,), 4: (sR, sP), 10: (WHITE,)})
    s, events = roll(s, GREY, 1, shown=WHITE)  # only black carries: it moves (R5.5 1)
    assert s.game_over and s.stacks[0] == (BLACK, sY, sB)
    assert of_type(events, RaceEnded)[0].ranking == (sP, sR, sG, sB, sY)


def test_R5_6_crazy_camel_landing_on_space_1_does_not_end_race() -> None:
    s = position(
        "second_edition",
        stacks={4: (BLACK, sY), 5: (sB, sG, sR, sP), 10: (WHITE,)},
        tiles={2: (0, 1)},
    )
    s2, _ = roll(s, GREY, 3, shown=BLACK)
    assert not s2.game_over and s2.stacks[1] == (BLACK, sY)
    s3, _ = roll(s, GREY, 2, shown=BLACK)  # cheering on 2: one more back, to space 1
    assert not s3.game_over and s3.stacks[1] == (BLACK, sY) and s3.coins[0] == 4


def test_R5_1_die_only_moves_its_camel_and_reveals_itself() -> None:
    s = position(stacks={1: (OR,), 2: (Y, B), 3: (G, W)})
    s2, events = roll(s, W, 3)
    assert s2.stacks[6] == (W,) and s2.stacks[3] == (G,)
    assert of_type(events, DieRevealed) == [DieRevealed(W, W, 3)]
    assert W not in s2.pyramid and s2.revealed == ((W, W, 3),)
    assert isinstance(legal_actions(s2)[5], TakePyramidTile)
