"""The Camel Up Cup preset (docs/rules.md C1-C11): each rule from an exact position.

Classic colours (R1.3): blue 0, green 1, orange 2, yellow 3, white 4; they are also the Cup's
camels 0-4. Spaces are this project's (Cup space + 1, C1). The bots' rules (C12, C13) are in
``tests/test_cup_bots.py``; the whole engine against the Cup's own, in
``benchmarks/cup_side_by_side.py``.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from engine_positions import CLASSIC, of_type, position, roll

from camelup_env import (
    IllegalActionError,
    PlaceTile,
    RaceBet,
    RuleSet,
    TakeLegBet,
    apply_action,
    apply_outcome,
    check_legal,
    legal_action_indices,
    legal_actions,
    new_game,
)
from camelup_env.batch import BatchGames
from camelup_env.batch.engine_games import EngineGames, make_games
from camelup_env.game.events import GameOver, LegScored, TilePayout
from camelup_env.game.state import LOSER_PILE, WINNER_PILE

B, G, OR, Y, W = (CLASSIC[c] for c in ("blue", "green", "orange", "yellow", "white"))
CUP = RuleSet("cup")
START = {1: (OR,), 2: (Y, B), 3: (G, W)}  # ranking white, green, blue, yellow, orange


def cup(stacks=START, **fields: object):
    return position(rules=CUP, stacks=stacks, **fields)


def play(state, *actions):
    """Apply chance-free actions in turn."""
    for action in actions:
        state, _ = apply_outcome(state, action, None)
    return state


# C1 Preset ------------------------------------------------------------------------------------
def test_C1_cup_is_classic_camels_and_dice_for_four_players() -> None:
    assert CUP.colours == RuleSet("classic").colours
    assert CUP.dice == RuleSet("classic").dice and CUP.track_length == 16
    assert CUP.pyramid_tiles == 5
    for players in (2, 3, 5, 8):
        with pytest.raises(ValueError, match=r"4 players \(C1\)"):
            RuleSet("cup", num_players=players)


def test_C1_the_batch_core_names_the_python_engine_for_the_cup() -> None:
    with pytest.raises(ValueError, match="cup is played by the Python engine") as err:
        BatchGames(CUP, 2)
    assert "\n" not in str(err.value)
    games = make_games(CUP, 2, seed=1)
    assert isinstance(games, EngineGames) and games.legal_action_mask().shape[0] == 2


# C2 Setup -------------------------------------------------------------------------------------
def test_C2_two_coins_camels_on_spaces_1_to_3_seat_0_starts() -> None:
    spaces = Counter()
    for seed in range(300):
        s = new_game(CUP, seed=seed)
        assert s.coins == (2, 2, 2, 2) and s.current == 0
        for space, stack in s.stacks.items():
            spaces[space] += len(stack)
    assert set(spaces) == {1, 2, 3}
    assert min(spaces.values()) > 0.28 * 1500  # each space a third of the camels


# C4 Rolling pays at once ----------------------------------------------------------------------
def test_C4_a_roll_pays_one_coin_at_once_and_nothing_at_round_end() -> None:
    s = cup(coins=(2, 2, 2, 2))
    s, _ = roll(s, B, 1)
    assert s.coins == (3, 2, 2, 2)
    for die, seat in ((G, 1), (OR, 2), (Y, 3)):
        s, _ = roll(s, die, 1)
        assert s.coins[seat] == 3
    s, events = roll(s, W, 1)  # the fifth roll ends the round
    assert s.coins == (4, 3, 3, 3)
    assert all(amount == 0 for amount in of_type(events, LegScored)[0].deltas)


# C5 Round bets --------------------------------------------------------------------------------
def test_C5_round_bets_are_unlimited_5_3_2_then_0() -> None:
    s = cup()
    s = play(s, *[TakeLegBet(W)] * 6)
    assert [v for seat in range(4) for _, v in s.leg_bets[seat]] == [5, 0, 3, 0, 2, 0]
    assert s.leg_stacks[W] == (0,)
    assert TakeLegBet(W) in legal_actions(s)


def test_C5_leader_pays_its_value_runner_up_pays_the_first_three_others_cost_one() -> None:
    # white leads, green is second; seat 0 holds white 5 and white 0, seat 1 green 5, 3, 2, 0
    # (the fourth bet on green pays nothing), seat 2 blue 5 and seat 3 white 3.
    bets = (((W, 5), (W, 0)), ((G, 5), (G, 3), (G, 2), (G, 0)), ((B, 5),), ((W, 3),))
    s = cup(leg_bets=bets, coins=(2, 2, 2, 2), pyramid=(B,), pyramid_tiles_left=1)
    s, events = roll(s, B, 1)  # blue moves onto white on 3: white is no longer the leader
    scored = of_type(events, LegScored)[0]
    assert scored.ranking[:2] == (B, W)
    # blue leads: seat 2 +5; white second: seat 0 5-tile +1, 0-tile 0, seat 3 +1; green -1 x4
    assert scored.deltas == (1, -4, 5, 1)
    assert s.coins == (2 + 1 + 1, 2 - 4, 2 + 5, 2 + 1)  # the roller (seat 0) also got 1 (C4)


# C6 Trap placement ----------------------------------------------------------------------------
def test_C6_traps_go_on_spaces_2_to_28_past_the_finish_line() -> None:
    s = cup()
    spaces = {a.space for a in legal_actions(s) if isinstance(a, PlaceTile)}
    assert spaces == set(range(4, 29))  # 1-3 hold camels
    check_legal(s, PlaceTile(28, -1))
    with pytest.raises(IllegalActionError, match=r"spaces 2\.\.28 \(C6\)"):
        check_legal(s, PlaceTile(29, 1))


def test_C6_no_trap_on_a_camel_or_on_or_next_to_another_players_trap() -> None:
    s = cup(tiles={8: (1, 1)})
    with pytest.raises(IllegalActionError, match="holds a camel"):
        check_legal(s, PlaceTile(2, 1))
    for space in (7, 8, 9):
        with pytest.raises(IllegalActionError, match="tile"):
            check_legal(s, PlaceTile(space, -1))
    check_legal(s, PlaceTile(10, -1))


def test_C6_a_trap_may_be_put_again_on_its_own_space() -> None:
    s = cup(tiles={8: (0, 1), 11: (1, 1)})
    legal = legal_actions(s)
    assert PlaceTile(8, -1) in legal and PlaceTile(8, 1) in legal  # turned over, or as it is
    assert PlaceTile(9, 1) in legal  # next to where it lay: lifted first
    s = play(s, PlaceTile(8, -1))
    assert s.tiles == {8: (0, -1), 11: (1, 1)}
    classic = position(stacks=START, tiles={8: (0, 1)})
    with pytest.raises(IllegalActionError, match=r"different space \(R4\.2\)"):
        check_legal(classic, PlaceTile(8, -1))


# C7 Traps past the line -----------------------------------------------------------------------
def test_C7_a_minus_trap_past_the_line_keeps_a_camel_from_finishing() -> None:
    s = cup(stacks={14: (B,), 16: (G,), 1: (OR, Y, W)}, tiles={17: (2, -1)})
    s, events = roll(s, B, 3)  # blue reaches 17, the trap sends it under green on 16
    assert not s.game_over and s.stacks[16] == (B, G)
    assert of_type(events, TilePayout)[0].owner == 2 and s.coins[2] == 3


def test_C7_a_plus_trap_past_the_line_carries_a_camel_further() -> None:
    s = cup(stacks={15: (B,), 16: (G,), 1: (OR, Y, W)}, tiles={18: (3, 1)})
    s, events = roll(s, B, 3)  # 18, then 19: blue wins ahead of any camel on 17 or 18
    assert s.game_over and s.stacks[19] == (B,)
    assert of_type(events, GameOver)[0].coins[3] == 3


# C8 Round end ---------------------------------------------------------------------------------
def test_C8_the_round_end_clears_traps_and_bets_and_frees_every_camel() -> None:
    s = cup(tiles={9: (1, 1)}, leg_bets=(((W, 5),), (), (), ()), pyramid=(B,), pyramid_tiles_left=1)
    s, _ = roll(s, B, 1)
    assert s.tiles == {} and s.leg_bets == ((),) * 4 and s.leg_stacks[W] == (5, 3, 2, 0)
    assert s.pyramid == (B, G, OR, Y, W) and s.current == 1


# C9 Game bets ---------------------------------------------------------------------------------
def test_C9_one_game_bet_per_camel_per_player_over_both_piles() -> None:
    s = cup()
    s = play(s, RaceBet(WINNER_PILE, B), *[TakeLegBet(G)] * 3)
    with pytest.raises(IllegalActionError, match="already used"):
        check_legal(s, RaceBet(LOSER_PILE, B))


def test_C9_game_bets_pay_8_5_3_1_then_1_and_minus_1_when_wrong() -> None:
    # white wins: winner pile in the order placed
    pile = ((0, W), (1, B), (1, W), (2, W), (3, W), (0, G))
    s = cup(
        stacks={16: (B, W), 1: (OR, Y), 2: (G,)},
        winner_pile=pile,
        hands=(0b01110, 0b01110, 0b01111, 0b01111),
        coins=(0, 0, 0, 0),
    )
    s, events = roll(s, W, 1)
    assert s.game_over
    winner_coins = Counter()
    for owner, _camel, amount in next(
        e for e in events if getattr(e, "pile", None) == WINNER_PILE
    ).cards:
        winner_coins[owner] += amount
    assert dict(winner_coins) == {0: 8 - 1, 1: -1 + 5, 2: 3, 3: 1}


# C10 No floor ---------------------------------------------------------------------------------
def test_C10_coins_go_below_zero() -> None:
    bets = (((G, 5), (OR, 3), (Y, 2)), (), (), ())
    s = cup(leg_bets=bets, coins=(0, 0, 0, 0), pyramid=(B,), pyramid_tiles_left=1)
    s, _ = roll(s, B, 3)  # seat 0 rolls: +1, then three wrong bets: -3
    assert s.coins[0] == -2
    s.validate()
    floor = RuleSet("cup", money_floor=True)
    t = position(
        rules=floor,
        stacks=START,
        leg_bets=bets,
        coins=(0, 0, 0, 0),
        pyramid=(B,),
        pyramid_tiles_left=1,
    )
    assert roll(t, B, 3)[0].coins[0] == 0


# C11 The end ----------------------------------------------------------------------------------
def test_C11_random_cup_games_end_with_the_most_coins_winning() -> None:
    rng = np.random.default_rng(3)
    for seed in range(20):
        s = new_game(CUP, seed=seed)
        while not s.game_over:
            legal = legal_action_indices(s)
            s, events = apply_action(s, legal[rng.integers(len(legal))], rng)
            s.validate()
        over = of_type(events, GameOver)[0]
        assert max(s.stacks) > 16
        assert set(over.winners) == {p for p in range(4) if s.coins[p] == max(s.coins)}
