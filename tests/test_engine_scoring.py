"""Actions, leg end, race end, money and partnerships: docs/rules.md R4, R6-R8, R9.4 and the worked
examples E3, E4 (R13), each built from an exact position."""

from __future__ import annotations

import pytest
from engine_positions import CLASSIC, SECOND, of_type, pile_scored, position, roll

from camelup_env import (
    IllegalActionError,
    Partner,
    PlaceTile,
    RaceBet,
    RuleSet,
    TakeLegBet,
    TakePyramidTile,
    action_table,
    apply_outcome,
    check_legal,
    legal_action_indices,
    legal_actions,
    winners,
)
from camelup_env.game.events import GameOver, LegScored, PartnershipFormed

B, G, OR, Y, W = (CLASSIC[c] for c in ("blue", "green", "orange", "yellow", "white"))
sB, sG, sR, sY, sP, BLACK, WHITE = (
    SECOND[c] for c in ("blue", "green", "red", "yellow", "purple", "black", "white")
)
START = {1: (OR,), 2: (Y, B), 3: (G, W)}


def play(state, *actions):
    for action in actions:
        state, _ = apply_outcome(state, action, None)
    return state


def assert_mask_matches_check_legal(state) -> None:
    """The legal-action list and check_legal agree on every index."""
    table = action_table(state.rules)
    legal = set(legal_action_indices(state))
    for i, action in enumerate(table.actions):
        try:
            check_legal(state, action)
            ok = True
        except IllegalActionError:
            ok = False
        assert ok == (i in legal), action


# R4.1 Leg bets --------------------------------------------------------------------------
def test_R4_1_take_top_leg_bet_tile_several_of_one_colour_until_empty() -> None:
    s = position(num_players=2, stacks=START)
    s = play(s, TakeLegBet(B), TakeLegBet(B), TakeLegBet(B))
    assert s.leg_bets == (((B, 5), (B, 2)), ((B, 3),))
    assert s.leg_stacks[B] == () and s.leg_stacks[G] == (5, 3, 2)
    assert TakeLegBet(B) not in legal_actions(s)
    with pytest.raises(IllegalActionError, match=r"no blue leg-bet tile .*\(R4\.1\)"):
        check_legal(s, TakeLegBet(B))
    assert_mask_matches_check_legal(s)


def test_R4_1_second_edition_stack_is_5_3_2_2() -> None:
    s = position("second_edition", num_players=2)
    s = play(s, *[TakeLegBet(sR)] * 4)
    assert [v for _, v in s.leg_bets[0] + s.leg_bets[1]] == [5, 2, 3, 2]
    assert not s.leg_stacks[sR]


# R4.2 Track tiles ------------------------------------------------------------------------
def test_R4_2_space_1_is_forbidden() -> None:
    s = position(stacks={5: (OR,), 6: (Y, B), 7: (G, W)})
    assert not any(a.space == 1 for a in legal_actions(s) if isinstance(a, PlaceTile))
    with pytest.raises(IllegalActionError, match=r"spaces 2\.\.16 \(R4\.2\)"):
        check_legal(s, PlaceTile(1, 1))
    with pytest.raises(IllegalActionError, match=r"R4\.2"):
        check_legal(s, PlaceTile(17, -1))


def test_R4_2_no_tile_on_a_camel_space_including_crazy_camels() -> None:
    s = position(
        "second_edition", stacks={1: (sB,), 2: (sG, sR), 3: (sY, sP), 15: (BLACK,), 16: (WHITE,)}
    )
    spaces = {a.space for a in legal_actions(s) if isinstance(a, PlaceTile)}
    assert spaces == set(range(4, 15))
    for space in (2, 3, 15, 16):
        with pytest.raises(IllegalActionError, match=rf"space {space} holds a camel \(R4\.2\)"):
            check_legal(s, PlaceTile(space, 1))
    assert_mask_matches_check_legal(s)


def test_R4_2_no_tile_on_or_next_to_another_tile() -> None:
    s = position(stacks=START, tiles={7: (1, 1)}, current=0)
    spaces = {a.space for a in legal_actions(s) if isinstance(a, PlaceTile)}
    assert spaces == set(range(4, 17)) - {6, 7, 8}
    with pytest.raises(IllegalActionError, match=r"already holds a tile \(R4\.2\)"):
        check_legal(s, PlaceTile(7, -1))
    for space in (6, 8):
        with pytest.raises(IllegalActionError, match=r"next to another tile \(R4\.2\)"):
            check_legal(s, PlaceTile(space, 1))
    check_legal(s, PlaceTile(9, -1))
    assert_mask_matches_check_legal(s)


def test_R4_2_own_tile_moves_to_a_different_space_old_neighbours_free() -> None:
    s = position(stacks=START, tiles={7: (0, 1), 12: (2, -1)}, current=0)
    spaces = {(a.space, a.side) for a in legal_actions(s) if isinstance(a, PlaceTile)}
    assert (7, 1) not in spaces and (7, -1) not in spaces  # no flipping in place
    assert {(6, 1), (6, -1), (8, 1), (8, -1)} <= spaces  # own old neighbours are free
    assert not {11, 12, 13} & {sp for sp, _ in spaces}
    with pytest.raises(IllegalActionError, match=r"different space \(R4\.2\)"):
        check_legal(s, PlaceTile(7, -1))
    s2, events = apply_outcome(s, PlaceTile(8, -1), None)
    assert s2.tiles == {8: (0, -1), 12: (2, -1)}
    assert events[0].from_space == 7
    assert_mask_matches_check_legal(s)


def test_R4_2_side_must_be_plus_or_minus_one() -> None:
    s = position(stacks=START)
    with pytest.raises(IllegalActionError, match=r"\+1 or -1 \(R4\.2\)"):
        check_legal(s, PlaceTile(9, 0))


# R4.3 Pyramid tiles ----------------------------------------------------------------------
def test_R4_3_pyramid_tile_kept_until_leg_scoring_and_die_leaves_pyramid() -> None:
    s = position(num_players=2, stacks=START)
    s, _ = roll(s, G, 2)
    s, _ = roll(s, OR, 1)
    s, _ = roll(s, B, 3)
    assert s.pyramid_tiles == (2, 1) and s.pyramid_tiles_left == 2
    assert s.pyramid == (Y, W)
    assert [r[0] for r in s.revealed] == [G, OR, B]
    with pytest.raises(ValueError, match="not a possible roll"):
        roll(s, G, 1)  # green's die is no longer in the pyramid
    with pytest.raises(ValueError, match="not a possible roll"):
        roll(s, Y, 4)  # no such face
    s0 = position(stacks=START, pyramid_tiles_left=0)
    with pytest.raises(IllegalActionError, match=r"no pyramid tile is left \(R4\.3\)"):
        check_legal(s0, TakePyramidTile())
    assert TakePyramidTile() not in legal_actions(s0)


# R4.4 Race bets --------------------------------------------------------------------------
def test_R4_4_each_race_card_used_once_across_both_piles() -> None:
    s = position(num_players=2, stacks=START)
    s = play(s, RaceBet(0, B), RaceBet(0, B), RaceBet(1, G))
    assert s.winner_pile == ((0, B), (1, B)) and s.loser_pile == ((0, G),)
    assert s.hands[0] == 0b11111 & ~(1 << B) & ~(1 << G)
    assert s.current == 1
    s = play(s, TakeLegBet(W))
    for pile in (0, 1):
        for camel in (B, G):
            assert RaceBet(pile, camel) not in legal_actions(s)
            with pytest.raises(IllegalActionError, match=r"already used \(R4\.4\)"):
                check_legal(s, RaceBet(pile, camel))
    assert RaceBet(1, OR) in legal_actions(s)
    assert_mask_matches_check_legal(s)


def test_R4_4_no_cards_left_no_race_bets() -> None:
    s = position(stacks=START, hands=(0, 31, 31, 31))
    assert not any(isinstance(a, RaceBet) for a in legal_actions(s))


# R4.5 / R9.4 Partnerships ----------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 5, 6, 7, 8])
def test_R4_5_partnership_action_only_in_second_edition_with_6_plus(n: int) -> None:
    second = [
        a
        for a in action_table(RuleSet("second_edition", num_players=n)).actions
        if isinstance(a, Partner)
    ]
    assert len(second) == (n if n >= 6 else 0)
    assert not any(
        isinstance(a, Partner) for a in action_table(RuleSet("classic", num_players=n)).actions
    )
    if n < 6:
        s = position("second_edition", num_players=n)
        with pytest.raises(IllegalActionError, match=r"no betting partnerships"):
            check_legal(s, Partner(1))


@pytest.mark.parametrize("n", [6, 7, 8])
def test_R9_4_partner_action_masks(n: int) -> None:
    s = position("second_edition", num_players=n)
    assert {a.seat for a in legal_actions(s) if isinstance(a, Partner)} == set(range(1, n))
    s, events = apply_outcome(s, Partner(3), None)  # player 3 cannot refuse
    assert events == (PartnershipFormed(0, 3),)
    assert s.partners[0] == 3 and s.partners[3] == 0
    # Player 1: seats 0 and 3 are taken, and never oneself.
    assert {a.seat for a in legal_actions(s) if isinstance(a, Partner)} == set(range(2, n)) - {3}
    with pytest.raises(IllegalActionError, match=r"player 3's partnership card .*R9\.4"):
        check_legal(s, Partner(3))
    with pytest.raises(IllegalActionError, match=r"another player \(R9\.4\)"):
        check_legal(s, Partner(1))
    assert_mask_matches_check_legal(s)
    s = play(s, TakeLegBet(0), TakeLegBet(0))  # players 1, 2
    assert s.current == 3
    assert not any(isinstance(a, Partner) for a in legal_actions(s))
    with pytest.raises(IllegalActionError, match=r"your partnership card .*R9\.4"):
        check_legal(s, Partner(4))


def test_R9_4_partner_copies_best_nonnegative_tile_and_cards_return() -> None:
    # Blue leads, green second. P0 holds green 5 (+1) and yellow 5 (-1); P1 holds blue 5 (+5)
    # and one pyramid tile; P2 and P3 are partners holding only losing bets.
    s = position(
        "second_edition",
        num_players=6,
        stacks={10: (sB,), 8: (sG,), 2: (sR, sY), 1: (sP,), 15: (BLACK,), 16: (WHITE,)},
        leg_bets=(((sG, 5), (sY, 5)), ((sB, 5),), ((sY, 3),), ((sR, 3),), (), ()),
        pyramid_tiles=(0, 1, 0, 0, 0, 0),
        partners=(1, 0, 3, 2, -1, -1),
        pyramid_tiles_left=1,
        pyramid=(sP, 5),
        current=5,
    )
    s, events = roll(s, sP, 1)  # purple 1 -> 2, on top; blue still leads
    (scored,) = of_type(events, LegScored)
    assert scored.ranking[:2] == (sB, sG)
    assert scored.items[0] == (
        ("green 5 leg bet", 1),
        ("yellow 5 leg bet", -1),
        ("partner 1's blue 5 leg bet", 5),
    )
    # P1: own 5 + 1, plus a copy of P0's best (green 5 in second place: +1); P2/P3 copy nothing.
    assert scored.items[1][-1] == ("partner 0's green 5 leg bet", 1)
    assert scored.deltas == (5, 7, -1, -1, 0, 1)
    assert s.coins == (8, 10, 2, 2, 3, 4)
    assert s.partners == (-1,) * 6  # cards available again (R9.4, R6.4)
    assert {a.seat for a in legal_actions(s) if isinstance(a, Partner)} == {1, 2, 3, 4, 5}


def test_R9_4_partner_copies_a_pyramid_tile() -> None:
    s = position(
        "second_edition",
        num_players=6,
        stacks={10: (sB,), 8: (sG,), 2: (sR, sY), 1: (sP,), 15: (BLACK,), 16: (WHITE,)},
        partners=(5, -1, -1, -1, -1, 0),
        pyramid_tiles_left=1,
        pyramid=(sP,),
        current=5,
    )
    s, events = roll(s, sP, 1)
    (scored,) = of_type(events, LegScored)
    assert scored.items[0] == (("partner 5's pyramid tile", 1),)
    assert scored.deltas == (1, 0, 0, 0, 0, 1)


# R6 Leg end -------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_R6_1_leg_ends_after_the_fifth_pyramid_tile(preset: str) -> None:
    s = position(preset, num_players=3)
    racing = [0, 1, 2, 3, 4]
    for k, die in enumerate(racing):
        assert s.leg == 1 and s.pyramid_tiles_left == 5 - k
        s, events = roll(s, die, 1)
        assert bool(of_type(events, LegScored)) == (k == 4)
    assert s.leg == 2 and not s.game_over
    # Second edition: 5 of the 6 dice were revealed; the grey die stayed in the pyramid.
    assert s.pyramid == tuple(range(s.rules.n_dice)) and s.revealed == ()


def test_R6_1_second_edition_grey_die_among_the_five() -> None:
    s = position(
        "second_edition",
        num_players=3,
        stacks={1: (sB, sG, sR, sY, sP), 10: (BLACK,), 12: (WHITE,)},
    )
    s, _ = roll(s, 5, 1, shown=BLACK)
    for die in (0, 1, 2):
        s, events = roll(s, die, 1)
        assert not of_type(events, LegScored)
    assert s.pyramid == (3, 4)
    s, events = roll(s, 4, 1)
    assert of_type(events, LegScored) and s.leg == 2


def test_E3_leg_scoring() -> None:
    s = position(
        stacks={12: (B,), 9: (G,), 3: (Y, OR), 2: (W,)},
        leg_bets=(((B, 5), (B, 3), (G, 2), (Y, 5)), (), (), ()),
        pyramid_tiles=(1, 0, 0, 0),
        pyramid_tiles_left=1,
        pyramid=(W,),
        current=0,
    )
    s, events = roll(s, W, 1)  # white 2 -> 3 on top: blue leads, green second
    (scored,) = of_type(events, LegScored)
    assert scored.deltas == (10, 0, 0, 0)
    assert [a for _, a in scored.items[0]] == [5, 3, 1, -1, 1, 1]
    assert s.coins == (13, 3, 3, 3)


def test_R6_2_other_players_score_independently() -> None:
    s = position(
        stacks={12: (B,), 9: (G,), 3: (Y, OR), 2: (W,)},
        leg_bets=((), ((G, 5),), ((OR, 5), (W, 3)), ((B, 2),)),
        pyramid_tiles_left=1,
        pyramid=(W,),
        current=0,
    )
    s, events = roll(s, W, 1)
    assert of_type(events, LegScored)[0].deltas == (1, 1, -2, 2)


def test_R6_3_starting_player_after_last_pyramid_taker() -> None:
    s = position(stacks=START, pyramid_tiles_left=1, pyramid=(W,), current=3, leg_starter=1)
    s, _ = roll(s, W, 1)
    assert s.leg_starter == 0 and s.current == 0
    s = position(stacks=START, pyramid_tiles_left=1, pyramid=(W,), current=1, leg_starter=0)
    s, _ = roll(s, W, 1)
    assert s.leg_starter == 2 and s.current == 2


def test_R6_4_clean_up_returns_tiles_dice_and_keeps_race_bets() -> None:
    s = position(
        stacks=START,
        tiles={9: (2, 1), 12: (1, -1)},
        pyramid_tiles_left=1,
        pyramid=(W,),
        leg_stacks=((2,), (), (5, 3, 2), (3, 2), (5, 3, 2)),
        leg_bets=(((B, 5), (B, 3)), ((G, 5), (G, 3), (G, 2)), ((Y, 5),), ()),
        pyramid_tiles=(1, 2, 1, 0),
        hands=(0b11110, 31, 31, 0b01111),
        winner_pile=((0, B),),
        loser_pile=((3, W),),
        current=3,
    )
    s, _ = roll(s, W, 1)
    assert s.leg == 2
    assert s.leg_stacks == ((5, 3, 2),) * 5
    assert s.leg_bets == ((),) * 4 and s.pyramid_tiles == (0,) * 4
    assert s.pyramid_tiles_left == 5 and s.pyramid == (0, 1, 2, 3, 4) and s.revealed == ()
    assert s.tiles == {} and all(s.tile_of(p) is None for p in range(4))
    assert s.winner_pile == ((0, B),) and s.loser_pile == ((3, W),)
    assert s.hands == (0b11110, 31, 31, 0b01111)


# R7 Race end -------------------------------------------------------------------------------
def test_R7_1_final_leg_scoring_whatever_dice_revealed() -> None:
    s = position(
        stacks={1: (OR,), 2: (Y,), 3: (G, W), 16: (B,)},
        leg_bets=(((B, 5),), ((G, 5),), ((W, 3),), ()),
        current=3,
    )
    s, events = roll(s, B, 1)  # first die of the leg
    (scored,) = of_type(events, LegScored)
    assert scored.ranking[:2] == (B, W)
    assert scored.deltas == (5, -1, 1, 1)
    assert s.game_over and legal_action_indices(s) == []
    with pytest.raises(IllegalActionError, match=r"race is over \(R7\)"):
        check_legal(s, TakeLegBet(0))


def test_E4_final_bets_in_placing_order() -> None:
    s = position(
        stacks={1: (OR,), 2: (Y,), 3: (G, W), 16: (B,)},
        winner_pile=((2, B), (0, G), (1, B), (3, B)),
        current=3,
    )
    s, events = roll(s, B, 1)
    winner = pile_scored(events, 0)
    assert winner.target == B
    assert winner.cards == ((2, B, 8), (0, G, -1), (1, B, 5), (3, B, 3))
    assert s.coins == (3 - 1, 3 + 5, 3 + 8, 3 + 3 + 1)  # P3 also held a pyramid tile


def test_R7_2_payouts_8_5_3_2_then_1_and_loser_pile_against_last_camel() -> None:
    s = position(
        num_players=8,
        stacks={1: (OR,), 2: (Y,), 3: (G, W), 16: (B,)},
        winner_pile=(*((p, B) for p in range(7)), (7, G)),
        loser_pile=((7, Y), (6, OR), (5, OR), (4, W)),
        current=7,
    )
    s, events = roll(s, B, 1)
    assert [d for _, _, d in pile_scored(events, 0).cards] == [8, 5, 3, 2, 1, 1, 1, -1]
    loser = pile_scored(events, 1)
    assert loser.target == OR
    assert loser.cards == ((7, Y, -1), (6, OR, 8), (5, OR, 5), (4, W, -1))


def test_R7_3_most_coins_win_ties_share() -> None:
    s = position(
        stacks={1: (OR,), 2: (Y,), 3: (G, W), 16: (B,)},
        coins=(7, 3, 8, 4),
        winner_pile=((0, B),),
        current=3,
    )
    s, events = roll(s, B, 1)  # P0: 7 + 8 = 15; P3: 4 + 1 pyramid tile = 5
    assert s.coins == (15, 3, 8, 5)
    assert events[-1] == GameOver((15, 3, 8, 5), (0,))
    assert winners(s) == (0,)
    s = position(
        stacks={1: (OR,), 2: (Y,), 3: (G, W), 16: (B,)},
        coins=(7, 3, 15, 4),
        winner_pile=((0, B),),
        current=3,
    )
    s, events = roll(s, B, 1)
    assert events[-1].winners == (0, 2) and winners(s) == (0, 2)


# R8 Money -----------------------------------------------------------------------------------
def test_R8_1_leg_scoring_applies_net_sum_once() -> None:
    # P0 has 0 coins: -1 then +5. Item by item with a floor would give 5; the net sum gives 4.
    s = position(
        stacks={12: (B,), 9: (G,), 3: (Y, OR), 2: (W,)},
        leg_bets=(((Y, 5), (B, 5)), ((Y, 5),), (), ()),
        coins=(0, 0, 3, 3),
        pyramid_tiles_left=1,
        pyramid=(W,),
        current=3,
    )
    s, events = roll(s, W, 1)
    assert s.coins[:2] == (4, 0)
    assert of_type(events, LegScored)[0].deltas[:2] == (4, 0)


def test_R8_1_final_bets_card_by_card() -> None:
    # P0 has 0 coins: a wrong winner card (-1, stops at 0), then a right loser card (+8) = 8.
    s = position(
        stacks={1: (OR,), 2: (Y,), 3: (G, W), 16: (B,)},
        coins=(0, 1, 3, 3),
        winner_pile=((0, G), (1, Y)),
        loser_pile=((0, OR), (1, W)),
        current=3,
    )
    s, events = roll(s, B, 1)
    assert pile_scored(events, 0).cards == ((0, G, 0), (1, Y, -1))
    assert pile_scored(events, 1).cards == ((0, OR, 8), (1, W, 0))
    assert s.coins[:2] == (8, 0)


def test_R8_2_coins_are_public_in_every_view() -> None:
    from camelup_env import render_text

    s = position(stacks=START, coins=(11, 22, 33, 44))
    for viewer in (None, 0, 1, 2, 3):
        text = render_text(s, viewer=viewer)
        for c in (11, 22, 33, 44):
            assert f"{c} coins" in text
