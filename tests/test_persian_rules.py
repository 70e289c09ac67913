"""The Persian tutorial's game, preset ``persian_tutorial`` (docs/rules.md R14), rule by rule from
exact positions, with its worked example (E8).

Colours (R1.3): red 0, yellow 1, blue 2, green 3, orange 4. The start line is space 1 and the
desert wanderer starts on space 2 (R14.1). Every die shows 1 (R14.2): ``roll(s, c, 1)``.
"""

from __future__ import annotations

import numpy as np
import pytest
from engine_positions import of_type, pile_scored, position, roll

from camelup_env import (
    GameState,
    IllegalActionError,
    PlaceTile,
    RaceBet,
    RuleSet,
    TakeLegBet,
    action_table,
    apply_action,
    apply_outcome,
    check_legal,
    legal_action_indices,
    legal_actions,
    new_game,
)
from camelup_env.game.actions import PlayLoserCard, WandererSendBack, WandererSwap
from camelup_env.game.events import (
    CamelSentBack,
    CamelsSwapped,
    LegScored,
    WandererMoved,
)

RED, YELLOW, BLUE, GREEN, ORANGE = range(5)
PERSIAN = "persian_tutorial"


def persian(stacks: dict[int, tuple[int, ...]], wanderer: int, **fields: object) -> GameState:
    return position(PERSIAN, stacks=stacks, wanderer=wanderer, **fields)


def act(state: GameState, action) -> tuple[GameState, tuple]:
    return apply_outcome(state, action, None)


# R14.1 Setup ---------------------------------------------------------------------------------
def test_R14_1_camels_start_stacked_on_the_start_line_and_the_wanderer_on_space_2() -> None:
    rules = RuleSet(PERSIAN)
    orders = set()
    for seed in range(30):
        state = new_game(rules, seed=seed)
        assert list(state.stacks) == [1] and sorted(state.stacks[1]) == list(range(5))
        orders.add(state.stacks[1])
        assert state.wanderer == 2 and state.tiles == {} and state.loser_cards == ()
        assert state.coins == (3,) * 4 and state.leg_stacks == ((5,),) * 5
    assert len(orders) > 20  # a random stack order (R11.1)
    assert rules.racing_colours == ("red", "yellow", "blue", "green", "orange")


def test_R14_1_the_preset_rules_are_data_and_belong_to_the_preset() -> None:
    rules = RuleSet(PERSIAN)
    assert rules.racing_die_faces == (1,) * 6 and rules.leg_bet_values == (5, 3, 2, 1, 1)
    assert rules.loser_bet_values == (1, 1, 2, 3, 5) and rules.race_bet_payouts == (8, 5, 3, 2, 1)
    assert rules.tile_kind == "none" and rules.pyramid_tile_value == 0
    with pytest.raises(ValueError, match=r"wanderer is a rule of the Persian tutorial \(R14\)"):
        RuleSet("classic", wanderer=True)
    with pytest.raises(ValueError, match=r"no track tiles and no crazy camels \(R14.7\)"):
        RuleSet(PERSIAN, tile_kind="desert")
    with pytest.raises(ValueError, match=r"one value per racing camel \(R14.3, R14.4\)"):
        RuleSet(PERSIAN, loser_bet_values=(1, 2))
    for name in ("classic", "second_edition", "supercup"):
        other = RuleSet(name)
        assert not other.wanderer and not other.leg_cards and other.pyramid_tile_value == 1


def test_R14_1_other_presets_keep_their_action_indices() -> None:
    assert len(action_table(RuleSet("classic"))) == 46
    assert len(action_table(RuleSet("second_edition"))) == 46
    table = action_table(RuleSet(PERSIAN))
    # 5 winner cards, the die, no tiles, 10 race bets, 5 loser cards, 10 swaps, 5 send-backs
    assert len(table) == 36 and table.race_offset == 6 and table.loser_offset == 16


# R14.2 Dice ------------------------------------------------------------------------------------
def test_R14_2_a_die_moves_its_camels_unit_one_space_and_earns_no_coin() -> None:
    s = persian({1: (RED, YELLOW), 2: (BLUE, GREEN, ORANGE)}, wanderer=3)
    new, _ = roll(s, RED, 1)
    assert new.stacks == {2: (BLUE, GREEN, ORANGE, RED, YELLOW)}
    assert new.pyramid_tiles == (1, 0, 0, 0) and new.coins == s.coins
    assert new.rules.dice[RED] == ((RED, 1),) * 6


def test_R14_2_the_last_die_out_ends_the_leg_even_if_no_camel_passed_the_wanderer() -> None:
    s = persian(
        {1: (RED, YELLOW, BLUE, GREEN), 3: (ORANGE,)},
        wanderer=5,
        pyramid=(GREEN,),
        pyramid_tiles_left=1,
        revealed=((0, 0, 1), (1, 1, 1), (2, 2, 1), (4, 4, 1)),
    )
    new, events = roll(s, GREEN, 1)
    assert of_type(events, LegScored)[0].ranking == (ORANGE, GREEN, BLUE, YELLOW, RED)
    assert of_type(events, WandererMoved) == [WandererMoved(5, 6, "leg")]
    assert new.pyramid == (0, 1, 2, 3, 4) and new.pyramid_tiles_left == 5 and new.leg == 2


def test_R14_5_the_wanderer_on_the_last_space_stays_there_at_a_leg_end() -> None:
    s = persian(
        {16: (RED,), 15: (YELLOW, BLUE), 14: (GREEN, ORANGE)},
        wanderer=16,
        pyramid=(GREEN,),
        pyramid_tiles_left=1,
    )
    new, events = roll(s, GREEN, 1)
    assert of_type(events, LegScored) and not of_type(events, WandererMoved)
    assert new.wanderer == 16 and not new.game_over


# R14.3 / R14.4 Leg cards ---------------------------------------------------------------------
def test_R14_3_winner_cards_are_worth_5_3_2_1_1_in_the_order_played_one_per_camel() -> None:
    s = persian({1: (RED, YELLOW, BLUE, GREEN, ORANGE)}, wanderer=2)
    values = []
    for camel in (BLUE, RED, GREEN, ORANGE, YELLOW):
        s, events = act(s, TakeLegBet(camel))
        values.append(events[0].value)
    assert values == [5, 3, 2, 1, 1] and s.leg_stacks == ((),) * 5
    with pytest.raises(IllegalActionError, match=r"already played this leg \(R14.3\)$"):
        check_legal(s, TakeLegBet(RED))


def test_R14_4_loser_cards_are_worth_1_1_2_3_5_in_the_order_played_one_per_camel() -> None:
    s = persian({1: (RED, YELLOW, BLUE, GREEN, ORANGE)}, wanderer=2)
    for camel in (BLUE, RED, GREEN, ORANGE, YELLOW):
        s, _ = act(s, PlayLoserCard(camel))
    assert [v for _, _, v in s.loser_cards] == [1, 1, 2, 3, 5]
    assert [seat for seat, _, _ in s.loser_cards] == [0, 1, 2, 3, 0]
    with pytest.raises(IllegalActionError, match=r"already played this leg \(R14.4\)$"):
        check_legal(s, PlayLoserCard(BLUE))
    with pytest.raises(IllegalActionError, match=r"\(R14.4\)$"):
        check_legal(position("classic"), PlayLoserCard(0))


# R14.5 Leg end -------------------------------------------------------------------------------
def test_R14_5_a_unit_landing_on_the_wanderer_does_not_end_the_leg() -> None:
    s = persian({1: (RED, YELLOW), 2: (BLUE, GREEN, ORANGE)}, wanderer=2)
    new, events = roll(s, YELLOW, 1)
    assert not of_type(events, LegScored) and new.wanderer == 2


def test_R14_5_passing_the_wanderer_scores_the_leg_and_moves_it_on() -> None:
    s = persian(
        {1: (RED, YELLOW), 2: (BLUE, GREEN, ORANGE)},
        wanderer=2,
        leg_bets=(((GREEN, 5),), ((ORANGE, 3),), (), ()),
        leg_stacks=((2,), (2,), (2,), (), ()),
        loser_cards=((2, RED, 1), (3, YELLOW, 1)),
        current=1,
    )
    new, events = roll(s, GREEN, 1)  # [green, orange] 2 -> 3 passes the wanderer
    scored = of_type(events, LegScored)[0]
    assert scored.ranking == (ORANGE, GREEN, BLUE, YELLOW, RED)
    # green second +1, orange first +3 (card value), red last +1, yellow second-last +1
    assert scored.deltas == (1, 3, 1, 1)
    assert of_type(events, WandererMoved) == [WandererMoved(2, 3, "leg")]
    assert new.wanderer == 3 and new.leg == 2 and new.leg_starter == 2 and new.current == 2
    assert new.leg_stacks == ((5,),) * 5 and new.loser_cards == () and new.leg_bets == ((),) * 4
    assert new.pyramid == (0, 1, 2, 3, 4)


# R14.6 The wanderer --------------------------------------------------------------------------
def test_R14_6_swap_two_camels_of_one_stack_then_the_wanderer_moves_on() -> None:
    s = persian({1: (RED, YELLOW, BLUE), 2: (GREEN, ORANGE)}, wanderer=3)
    new, events = act(s, WandererSwap(RED, BLUE))
    assert new.stacks == {1: (BLUE, YELLOW, RED), 2: (GREEN, ORANGE)}
    assert events == (CamelsSwapped(0, 1, (BLUE, YELLOW, RED)), WandererMoved(3, 4, "used"))
    with pytest.raises(IllegalActionError, match=r"two camels of one space \(R14.6\)$"):
        check_legal(s, WandererSwap(RED, GREEN))


def test_R14_6_send_a_lone_camel_back_onto_the_top_of_the_last_camels_stack() -> None:
    s = persian({1: (RED, YELLOW), 3: (BLUE,), 4: (GREEN, ORANGE)}, wanderer=4)
    new, events = act(s, WandererSendBack(BLUE))
    assert new.stacks == {1: (RED, YELLOW, BLUE), 4: (GREEN, ORANGE)}
    assert events == (CamelSentBack(0, BLUE, 3, 1), WandererMoved(4, 5, "used"))
    with pytest.raises(IllegalActionError, match=r"alone on its space \(R14.6\)$"):
        check_legal(s, WandererSendBack(GREEN))
    lone_last = persian({1: (RED,), 3: (BLUE, YELLOW, GREEN, ORANGE)}, wanderer=4)
    with pytest.raises(IllegalActionError, match=r"onto itself \(R14.6\)$"):
        check_legal(lone_last, WandererSendBack(RED))


def test_R14_6_the_wanderer_on_the_last_space_cannot_be_used() -> None:
    s = persian({15: (RED, YELLOW), 16: (BLUE,), 14: (GREEN, ORANGE)}, wanderer=16)
    assert not any(isinstance(a, (WandererSwap, WandererSendBack)) for a in legal_actions(s))
    with pytest.raises(IllegalActionError, match=r"no next space to move on to \(R14.6\)$"):
        check_legal(s, WandererSwap(RED, YELLOW))


def test_R14_6_legal_uses_are_listed_exactly() -> None:
    s = persian({1: (RED, YELLOW), 2: (BLUE,), 3: (GREEN,), 4: (ORANGE,)}, wanderer=5)
    uses = [a for a in legal_actions(s) if isinstance(a, (WandererSwap, WandererSendBack))]
    assert uses == [
        WandererSwap(RED, YELLOW),
        WandererSendBack(BLUE),
        WandererSendBack(GREEN),
        WandererSendBack(ORANGE),
    ]


# R14.7 What the game does not have -----------------------------------------------------------
def test_R14_7_no_desert_tiles_and_no_coin_for_a_roll() -> None:
    s = persian({1: (RED, YELLOW, BLUE, GREEN, ORANGE)}, wanderer=2)
    assert not any(isinstance(a, PlaceTile) for a in legal_actions(s))
    with pytest.raises(IllegalActionError, match=r"no desert or spectator tiles \(R14.7\)$"):
        check_legal(s, PlaceTile(5, 1))
    s = persian(
        {1: (RED, YELLOW, BLUE, GREEN), 2: (ORANGE,)}, wanderer=2, pyramid_tiles=(3, 0, 0, 0)
    )
    _, events = roll(s, ORANGE, 1)
    assert of_type(events, LegScored)[0].items[0] == ()


# R14.8 The race end --------------------------------------------------------------------------
def test_R14_8_crossing_the_finish_ends_the_race_with_8_5_3_2_1_race_cards() -> None:
    s = persian(
        {16: (RED, YELLOW), 15: (BLUE,), 14: (GREEN, ORANGE)},
        wanderer=16,
        winner_pile=((1, YELLOW), (0, YELLOW), (2, RED)),
        loser_pile=((3, GREEN), (2, ORANGE)),
        hands=(0b11101, 0b11101, 0b11110, 0b10111),
    )
    new, events = roll(s, YELLOW, 1)
    assert new.game_over
    assert pile_scored(events, 0).cards == ((1, YELLOW, 8), (0, YELLOW, 5), (2, RED, -1))
    assert pile_scored(events, 1).cards == ((3, GREEN, 8), (2, ORANGE, -1))


# E8 Worked example ---------------------------------------------------------------------------
def test_E8_a_persian_tutorial_leg_R14() -> None:
    """E8 on docs/rules.md: a first leg from the start line, with a swap and both card kinds."""
    s = persian({1: (GREEN, RED, YELLOW, BLUE, ORANGE)}, wanderer=2, num_players=3)
    s, _ = act(s, TakeLegBet(BLUE))  # P0: blue winner card, worth 5
    s, _ = act(s, PlayLoserCard(GREEN))  # P1: green loser card, worth 1
    s, _ = roll(s, BLUE, 1)  # P2: [blue, orange] 1 -> 2, onto the wanderer's space
    assert s.stacks == {1: (GREEN, RED, YELLOW), 2: (BLUE, ORANGE)}
    s, _ = act(s, WandererSwap(BLUE, ORANGE))  # P0: 2 = [orange, blue]; wanderer 2 -> 3
    s, _ = act(s, RaceBet(0, BLUE))  # P1: blue on the overall-winner pile
    s, _ = roll(s, ORANGE, 1)  # P2: [orange, blue] 2 -> 3, onto the wanderer again
    s, _ = roll(s, YELLOW, 1)  # P0: [yellow] 1 -> 2
    s, _ = roll(s, GREEN, 1)  # P1: [green, red] 1 -> 2: 2 = [yellow, green, red]
    s, events = roll(s, RED, 1)  # P2: [red] 2 -> 3: 3 = [orange, blue, red]; the last die
    scored = of_type(events, LegScored)[0]
    assert scored.ranking == (RED, BLUE, ORANGE, GREEN, YELLOW)
    # P0's blue winner card: second, +1; P1's green loser card: second-last, +1
    assert scored.deltas == (1, 1, 0)
    assert s.coins == (4, 4, 3) and s.wanderer == 4 and s.leg_starter == 0 and s.leg == 2


def test_R14_random_games_finish_under_every_player_count() -> None:
    for n in (2, 4, 8):
        rules = RuleSet(PERSIAN, num_players=n)
        rng = np.random.default_rng(n)
        for _ in range(5):
            s = new_game(rules, rng)
            steps = 0
            while not s.game_over:
                s, _ = apply_action(s, int(rng.choice(legal_action_indices(s))), rng)
                steps += 1
                assert steps < 2000
            s.validate()
            assert GameState.from_json(s.to_json()) == s


# R14.9 Interpretations -----------------------------------------------------------------------
def test_R14_9_unmatched_leg_cards_cost_one_coin_and_near_misses_pay_one() -> None:
    """Interpretation 1: R6.2 for winner cards, mirrored for loser cards."""
    s = persian(
        {1: (RED, YELLOW), 2: (BLUE, GREEN, ORANGE)},
        wanderer=2,
        leg_bets=(((RED, 5),), ((GREEN, 3),), (), ()),
        leg_stacks=((), (2,), (2,), (), (2,)),
        loser_cards=((2, BLUE, 1), (3, YELLOW, 1)),
        current=1,
    )
    _, events = roll(s, ORANGE, 1)  # [orange] 2 -> 3: orange, green, blue, yellow, red
    scored = of_type(events, LegScored)[0]
    assert scored.ranking == (ORANGE, GREEN, BLUE, YELLOW, RED)
    # P0 red winner (last) -1; P1 green winner (second) +1; P2 blue loser (middle) -1;
    # P3 yellow loser (second-last) +1
    assert scored.deltas == (-1, 1, -1, 1)


def test_R14_9_the_swap_trades_places_and_keeps_the_camels_between() -> None:
    """Interpretation 7: a swap exchanges two heights of one stack, whatever lies between."""
    s = persian({1: (RED, YELLOW, BLUE, GREEN, ORANGE)}, wanderer=2)
    new, _ = act(s, WandererSwap(RED, ORANGE))
    assert new.stacks == {1: (ORANGE, YELLOW, BLUE, GREEN, RED)} and new.wanderer == 3
