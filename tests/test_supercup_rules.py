"""Supercup (docs/rules.md R9, R1.4): module switches and player counts, support dice and the extra
action (R9.1, R9.1.1-R9.1.5), the photographer (R9.2), position bets (R9.3) and partnerships
(R9.4 with module 4), each from an exact position, with one worked example per module.

Classic colours (R1.3): blue 0, green 1, orange 2, yellow 3, white 4. A support die's index is
``rules.first_support_die + camel`` (5 + camel); ``roll(s, SUP + c, v, c)`` reveals it.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from engine_positions import CLASSIC, of_type, position, roll

from camelup_env import (
    AddSupportDie,
    GameState,
    IllegalActionError,
    Partner,
    Photograph,
    PlaceTile,
    PositionBet,
    RuleSet,
    SkipExtra,
    TakeLegBet,
    TakePyramidTile,
    action_table,
    apply_outcome,
    chance_outcomes,
    check_legal,
    legal_action_indices,
    legal_actions,
    new_game,
)
from camelup_env.game.events import (
    ExtraSkipped,
    LegScored,
    PhotographerPlaced,
    PhotoPayout,
    PositionBetTaken,
    SupportDieAdded,
    TilePayout,
)
from camelup_env.game.movement import ranking
from camelup_env.game.rules import SUPERCUP_MODULES
from camelup_env.game.setup import leg_start_pyramid

B, G, OR, Y, W = (CLASSIC[c] for c in ("blue", "green", "orange", "yellow", "white"))
SUP = 5  # die index of blue's support die; camel c's is SUP + c
RACING_DICE = (0, 1, 2, 3, 4)
START = {1: (OR,), 2: (Y, B), 3: (G, W)}  # R13 E1: ranking white, green, blue, yellow, orange


def sc(num_players: int = 4, **modules: object) -> RuleSet:
    return RuleSet("supercup", num_players=num_players, **modules)


def at(rules: RuleSet, stacks=START, **fields: object) -> GameState:
    """A leg-1 position under ``rules``; the pyramid is a leg start's unless given."""
    fields.setdefault("pyramid", leg_start_pyramid(rules, stacks))
    return position(rules=rules, stacks=stacks, **fields)


def play(state, *actions):
    for action in actions:
        state, _ = apply_outcome(state, action, None)
    return state


def assert_mask_matches_check_legal(state) -> None:
    legal = set(legal_action_indices(state))
    for i, action in enumerate(action_table(state.rules).actions):
        try:
            check_legal(state, action)
            ok = True
        except IllegalActionError:
            ok = False
        assert ok == (i in legal), action


# R1 / R1.4: the preset, module switches and player counts ------------------------------------
@pytest.mark.parametrize("n", range(2, 11))
def test_R1_4_supercup_is_played_by_2_to_10_players_with_default_modules(n) -> None:
    """R1 table: supercup 2-10 players. Modules 1-3 default on, module 4 on from 6 players."""
    rules = sc(n)
    assert (rules.support_dice, rules.photographer, rules.position_bets) == (True, True, True)
    assert rules.partnerships == (n >= 6)
    assert rules.extra_action is False  # R9.1.4: the "spicy" rule is off by default


@pytest.mark.parametrize("n", [1, 11])
def test_R1_4_supercup_player_count_out_of_range(n) -> None:
    with pytest.raises(ValueError, match=r"supercup is played by 2 to 10 players \(R1\)"):
        sc(n)


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_R1_4_nine_players_only_with_supercup(preset) -> None:
    with pytest.raises(ValueError, match=r"played by 2 to 8 players \(R1\)"):
        RuleSet(preset, num_players=9)


@pytest.mark.parametrize("n", [9, 10])
@pytest.mark.parametrize("module", SUPERCUP_MODULES)
def test_R1_4_nine_or_ten_players_need_all_four_modules(n, module) -> None:
    with pytest.raises(
        ValueError,
        match=rf"9 or 10 players need all four Supercup modules "
        rf"\(R1\.4\); off: \['{module}'\]",
    ):
        sc(n, **{module: False})


@pytest.mark.parametrize("n", [2, 5])
def test_R1_4_module_4_needs_six_players(n) -> None:
    with pytest.raises(ValueError, match=r"partnerships need at least 6 players \(R1\.4, R9\.4\)"):
        sc(n, partnerships=True)
    assert not sc(6, partnerships=False).partnerships  # switched off explicitly


@pytest.mark.parametrize(
    "module", ["support_dice", "photographer", "position_bets", "extra_action"]
)
@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_R9_modules_only_exist_in_the_supercup_preset(preset, module) -> None:
    with pytest.raises(
        ValueError,
        match=rf"{module} is a Supercup module \(R9\); use "
        r"preset='supercup'",
    ):
        RuleSet(preset, **{module: True})


def test_R9_1_4_extra_action_needs_support_dice() -> None:
    with pytest.raises(
        ValueError,
        match=r"extra_action is part of module 1 and needs "
        r"support_dice \(R9\.1\.4\)",
    ):
        sc(4, support_dice=False, extra_action=True)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"support_die_faces": (0, 1, 1, 2, 2, 2)}, r"support die faces must be positive"),
        ({"support_die_faces": ()}, r"support die faces must be positive"),
        ({"position_tiles": (2, 2, 3)}, r"position tiles must be distinct ranks 1\.\.5"),
        ({"position_tiles": (2, 6)}, r"position tiles must be distinct ranks 1\.\.5"),
        (
            {"pyramid_tiles": 7},
            r"pyramid_tiles must be between 1 and the 6 dice in the pyramid "
            r"at a leg start \(R6\.1, R9\.1\.1\)",
        ),
    ],
)
def test_R9_supercup_field_validation(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        sc(4, **kwargs)


@pytest.mark.parametrize(
    ("modules", "stack"),
    [
        ({}, (5, 3, 2, 2)),
        ({"position_bets": False}, (5, 3, 2, 2)),  # module 1 brings the extra 2-tiles
        ({"support_dice": False}, (5, 3, 2, 2)),  # so does module 3
        ({"support_dice": False, "position_bets": False}, (5, 3, 2)),  # neither: classic stacks
        ({"support_dice": False, "position_bets": False, "photographer": False}, (5, 3, 2)),
    ],
)
def test_R1_supercup_leg_bet_stacks_follow_modules_1_and_3(modules, stack) -> None:
    """R1 table, R9.1, R9.3: the extra 2-valued leg-bet tile per colour is a component of
    module 1 and of module 3; with both off the stacks are the classic 5, 3, 2."""
    rules = sc(4, **modules)
    assert rules.leg_bet_values == stack
    assert new_game(rules, seed=1).leg_stacks == (stack,) * 5
    assert RuleSet.from_dict(rules.to_dict()) == rules


# R9.1 Module 1: track, pyramid tiles, support dice ---------------------------------------------
def test_R9_1_track_20_six_pyramid_tiles_and_five_support_dice() -> None:
    rules = sc(4)
    assert (rules.track_length, rules.pyramid_tiles, rules.n_dice) == (20, 6, 10)
    assert rules.first_support_die == SUP
    assert rules.dice[SUP + Y] == tuple((Y, v) for v in (1, 1, 1, 2, 2, 2))  # R9.1.3
    assert rules.die_name(SUP + Y) == "yellow support"
    off = sc(4, support_dice=False)
    assert (off.track_length, off.pyramid_tiles, off.n_dice) == (16, 5, 5)
    assert new_game(off, seed=3).pyramid == RACING_DICE


@pytest.mark.parametrize("seed", range(8))
def test_R9_1_1_setup_puts_the_last_camels_support_die_into_the_pyramid(seed) -> None:
    s = new_game(sc(3), seed=seed)
    last = ranking(s.stacks, 5)[-1]
    assert s.pyramid == (*RACING_DICE, SUP + last)
    assert s.pyramid_tiles_left == 6 == len(s.pyramid)


def test_R9_1_2_support_die_moves_its_unit_then_returns_to_the_pedestal() -> None:
    """R9.1.2 (with R5.1): the yellow support die shows 2: yellow carries blue from 2 to 4.
    Without the extra-action rule the die simply leaves the pyramid (pedestal): no crater."""
    s = at(sc(4), pyramid=(*RACING_DICE, SUP + Y), pyramid_tiles_left=6)
    s2, _ = roll(s, SUP + Y, 2, Y)
    assert s2.stacks == {1: (OR,), 3: (G, W), 4: (Y, B)}
    assert s2.pyramid == RACING_DICE and s2.crater == 0 and s2.pyramid_tiles_left == 5
    assert s2.revealed == ((SUP + Y, Y, 2),)
    assert not s2.extra_pending and s2.current == 1  # no extra action without the rule


def test_R9_1_3_support_die_faces_and_chance_outcomes() -> None:
    """R9.1.3: faces 1,1,1,2,2,2 (assumption) and configurable; each die 1/6 of the draws."""
    s = new_game(sc(2), seed=0)
    sup = s.pyramid[-1]
    outcomes = {(r.die, r.value): p for r, p in chance_outcomes(s, TakePyramidTile())}
    assert outcomes[(sup, 1)] == outcomes[(sup, 2)] == Fraction(1, 12)
    assert (sup, 3) not in outcomes
    assert sum(outcomes.values()) == 1
    custom = new_game(sc(2, support_die_faces=(2, 2, 3, 3, 4, 4)), seed=0)
    values = {r.value for r, _ in chance_outcomes(custom, TakePyramidTile()) if r.die >= SUP}
    assert values == {2, 3, 4}


def test_R9_1_5_leg_ends_after_six_reveals_and_the_new_leg_adds_the_new_last_camels_die() -> None:
    """R9.1.5 / R6.1 and R9.1.1 at a leg start (R6.4). From E1's start (last camel orange, so
    the orange support die is in), six reveals: orange+ 1 (orange 1->2 on yellow-blue),
    blue 1 (blue carries orange 2->3 on green-white), green 1 (the whole stack 3->4), yellow 3
    (alone 2->5), orange 1 (the top camel alone 4->5 on yellow), white 1 (white-blue 4->5 on
    orange). Now green is last (alone on 4): the next leg's pyramid is the racing dice plus
    green's support die."""
    s = at(sc(2))
    assert s.pyramid == (*RACING_DICE, SUP + OR)
    for die, value, shown in ((SUP + OR, 1, OR), (B, 1, B), (G, 1, G), (Y, 3, Y), (OR, 1, OR)):
        s, events = roll(s, die, value, shown)
        assert not of_type(events, LegScored)
    assert s.pyramid == (W,) and s.pyramid_tiles_left == 1
    s, events = roll(s, W, 1)
    assert of_type(events, LegScored)
    assert s.stacks == {4: (G,), 5: (Y, OR, W, B)}
    assert s.leg == 2 and s.pyramid_tiles_left == 6
    assert s.pyramid == (*RACING_DICE, SUP + G)


# R9.1.4 The extra action ---------------------------------------------------------------------
def test_R9_1_4_extra_action_after_a_normal_action_with_a_pyramid_tile_from_earlier() -> None:
    """A pyramid tile taken on an earlier turn may be returned after any normal action (here a
    leg bet). The support die may not be the leader's (white) nor one already in the pyramid
    (orange's, the last camel's): blue, green and yellow remain."""
    rules = sc(4, extra_action=True)
    s = at(
        rules, pyramid=(*RACING_DICE, SUP + OR), pyramid_tiles_left=5, pyramid_tiles=(1, 0, 0, 0)
    )
    s = play(s, TakeLegBet(G))
    assert s.extra_pending and s.current == 0
    assert legal_actions(s) == [SkipExtra(), AddSupportDie(B), AddSupportDie(G), AddSupportDie(Y)]
    assert_mask_matches_check_legal(s)
    for bad, why in (
        (TakeLegBet(B), r"first decide the optional extra action"),
        (AddSupportDie(W), r"not on the pedestal, or its camel leads \(R9\.1\.4\)"),
        (AddSupportDie(OR), r"not on the pedestal"),
    ):
        with pytest.raises(IllegalActionError, match=why):
            check_legal(s, bad)
    s2, events = apply_outcome(s, AddSupportDie(Y), None)
    assert events == (SupportDieAdded(0, Y),)
    assert s2.pyramid == (*RACING_DICE, SUP + OR, SUP + Y)
    assert s2.pyramid_tiles == (0, 0, 0, 0) and s2.pyramid_tiles_left == 6
    assert not s2.extra_pending and s2.current == 1
    with pytest.raises(IllegalActionError, match=r"no extra action to decide now \(R9\.1\.4\)"):
        check_legal(s2, SkipExtra())
    s3, events = apply_outcome(s, SkipExtra(), None)
    assert events == (ExtraSkipped(0),) and s3.current == 1 and s3.pyramid == s.pyramid


def test_R9_1_4_no_extra_action_without_a_pyramid_tile_or_without_the_rule() -> None:
    s = play(at(sc(4, extra_action=True)), TakeLegBet(G))
    assert not s.extra_pending and s.current == 1
    s = play(at(sc(4), pyramid_tiles=(1, 0, 0, 0)), TakeLegBet(G))
    assert not s.extra_pending and s.current == 1


def test_R9_1_4_not_after_taking_the_last_pyramid_tile_nor_after_the_race_ends() -> None:
    rules = sc(2, extra_action=True)
    s = at(rules, pyramid=(B,), pyramid_tiles_left=1, pyramid_tiles=(2, 0))
    s2, events = roll(s, B, 1)
    assert of_type(events, LegScored) and not s2.extra_pending and s2.leg == 2
    s = at(
        rules,
        stacks={1: (OR,), 2: (Y, B), 20: (G, W)},
        pyramid=(G, B),
        pyramid_tiles_left=2,
        pyramid_tiles=(2, 0),
    )
    s2, _ = roll(s, G, 1)
    assert s2.game_over and not s2.extra_pending


def test_R9_1_4_revealed_support_dice_go_to_their_crater_until_the_next_leg() -> None:
    rules = sc(2, extra_action=True)
    s = at(rules, pyramid=(B, G, SUP + OR), pyramid_tiles_left=3)
    s, _ = roll(s, SUP + OR, 1, OR)  # orange 1 -> 2, on top of yellow-blue
    assert s.crater == 1 << OR and s.extra_pending and s.current == 0
    assert legal_actions(s) == [
        SkipExtra(),
        AddSupportDie(B),
        AddSupportDie(G),
        AddSupportDie(Y),
    ]  # white leads; orange is in its crater
    s = play(s, SkipExtra())
    s, _ = roll(s, B, 1)
    s = play(s, SkipExtra())
    s, events = roll(s, G, 1)  # the leg's last tile: leg 2 starts, craters empty
    assert of_type(events, LegScored) and s.crater == 0 and s.leg == 2


def test_R9_1_worked_example_extra_action_makes_the_leg_one_reveal_longer() -> None:
    """Module 1 worked example (2 players, extra action on), derived by hand.

    Start E1 (space 1 orange; 2 yellow, blue; 3 green, white): white leads, orange is last, so
    the pyramid holds the 5 racing dice and the orange support die; 6 pyramid tiles (R9.1.1).

    1. P0 takes a tile: orange support die shows 2: orange 1 -> 3 on top of green-white and
       leads. The die goes to its crater. P0 holds a tile, so P0 decides the extra action:
       orange's die is excluded (crater and leader); P0 returns the tile and adds the white
       support die. Tiles left: 6 - 1 + 1 = 6: the leg now needs 7 reveals in all.
    2. P1: white support die shows 1: white carries orange 3 -> 4. P1 may add blue, green or
       yellow (white and orange are in craters) but skips.
    3. P0 blue 1 (blue 2 -> 3 on green), P1 green 1 (green-blue 3 -> 4 on white-orange), P0
       yellow 3 (2 -> 5), P1 orange 1 (orange-green-blue 4 -> 5 on yellow), each skipping.
       One tile is left after 6 reveals: the leg is not over (without the extra action it
       would have been).
    4. P0 white 2: white 4 -> 6, the 7th reveal takes the last tile: the leg ends (R9.1.5),
       no extra action. Ranking white (6), blue, green, orange, yellow (5, top first).
       P0 kept 3 tiles (returned one), P1 3: both +3 (R6.2). Yellow is now last: leg 2's
       pyramid gets the yellow support die, craters are emptied, P1 starts (R6.3).
    """
    s = at(sc(2, extra_action=True))
    assert s.pyramid == (*RACING_DICE, SUP + OR) and s.pyramid_tiles_left == 6
    s, _ = roll(s, SUP + OR, 2, OR)
    assert s.stacks[3] == (G, W, OR) and s.crater == 1 << OR
    assert s.extra_pending and s.current == 0
    assert AddSupportDie(OR) not in legal_actions(s)
    s = play(s, AddSupportDie(W))
    assert s.pyramid_tiles_left == 6 and s.pyramid_tiles == (0, 0) and s.current == 1
    s, _ = roll(s, SUP + W, 1, W)
    assert s.stacks[4] == (W, OR) and s.crater == (1 << OR) | (1 << W)
    assert legal_actions(s) == [SkipExtra(), AddSupportDie(B), AddSupportDie(G), AddSupportDie(Y)]
    s = play(s, SkipExtra())
    for die, value in ((B, 1), (G, 1), (Y, 3), (OR, 1)):
        s, events = roll(s, die, value)
        assert not of_type(events, LegScored) and s.extra_pending
        s = play(s, SkipExtra())
    assert s.stacks == {4: (W,), 5: (Y, OR, G, B)}
    assert s.pyramid == (W,) and s.pyramid_tiles_left == 1 and len(s.revealed) == 6
    s, events = roll(s, W, 2)
    scored = of_type(events, LegScored)[0]
    assert scored.ranking == (W, B, G, OR, Y)
    assert scored.deltas == (3, 3) and s.coins == (6, 6)
    assert s.leg == 2 and s.crater == 0 and s.leg_starter == 1 and s.current == 1
    assert s.pyramid == (*RACING_DICE, SUP + Y) and not s.extra_pending


# R9.2 Module 2: the photographer ---------------------------------------------------------------
def test_R9_2_camera_spaces_are_empty_spaces_and_the_tile_is_exclusive() -> None:
    """Empty = no camel and no desert tile; space 1 and 20 count. While P0 holds the tile nobody
    else may take it; P0 may re-point only to a *different* empty space."""
    s = at(sc(4), tiles={8: (1, -1)})
    spaces = [a.space for a in legal_actions(s) if isinstance(a, Photograph)]
    assert spaces == [s_ for s_ in range(4, 21) if s_ != 8]
    s = at(sc(4), stacks={2: (Y, B), 3: (G, W), 5: (OR,)})
    assert Photograph(1) in legal_actions(s)
    s = play(s, Photograph(10))
    assert s.photographer == (0, 10) and s.current == 1
    assert not any(isinstance(a, Photograph) for a in legal_actions(s))
    with pytest.raises(IllegalActionError, match=r"player 0 holds the photographer tile"):
        check_legal(s, Photograph(11))
    s = play(s, TakeLegBet(B), TakeLegBet(B), TakeLegBet(B))  # back to P0
    assert Photograph(10) not in legal_actions(s) and Photograph(11) in legal_actions(s)
    with pytest.raises(IllegalActionError, match=r"other than its current one"):
        check_legal(s, Photograph(10))
    with pytest.raises(IllegalActionError, match=r"empty space"):
        check_legal(s, Photograph(3))
    s2, events = apply_outcome(s, Photograph(12), None)
    assert s2.photographer == (0, 12) and events == (PhotographerPlaced(0, 12),)
    assert_mask_matches_check_legal(s)


def test_R9_2_R4_2_no_desert_tile_on_the_camera_space() -> None:
    s = play(at(sc(4)), Photograph(10))
    with pytest.raises(IllegalActionError, match=r"space 10 is the camera space \(R9\.2\)"):
        check_legal(s, PlaceTile(10, 1))
    assert PlaceTile(9, 1) in legal_actions(s) and PlaceTile(11, -1) in legal_actions(s)
    assert PlaceTile(10, 1) not in legal_actions(s)
    assert_mask_matches_check_legal(s)


def test_R9_2_camera_pays_one_per_camel_of_the_unit_then_returns() -> None:
    """Blue rolls 2: the unit [blue] (yellow stays, R5.1) stops on camera space 4: +1 to P2.
    Then green rolls 1 onto 4: nothing (the tile has returned)."""
    s = at(sc(4), photographer=(2, 4))
    s, events = roll(s, B, 2)
    assert of_type(events, PhotoPayout) == [PhotoPayout(2, 4, 1)]
    assert s.coins == (3, 3, 4, 3) and s.photographer is None
    assert Photograph(5) in legal_actions(s)  # anyone may take it again
    s, events = roll(s, G, 1)
    assert not of_type(events, PhotoPayout) and s.coins == (3, 3, 4, 3)


def test_R9_2_camera_ignores_a_unit_that_passes_it() -> None:
    s = at(sc(4), photographer=(2, 4))
    s, events = roll(s, G, 2)  # green-white 3 -> 5, over the camera space
    assert not of_type(events, PhotoPayout) and s.photographer == (2, 4)


def test_R9_2_worked_example_photo_after_a_desert_tile_bounce() -> None:
    """Module 2 worked example, derived by hand (4 players).

    Start E1 (1 orange; 2 yellow, blue; 3 green, white), P1's mirage on space 6. P0 becomes the
    photographer and points the camera at space 5 (empty; next to a tile is fine). Green rolls
    3: the unit green-white lands on 6, P1 gains 1 (R5.3) and the unit goes back to 5
    underneath (5 is empty): it *ends its movement* on the camera space, so P0 gains 1 per
    camel of the unit = 2, and the tile and camera return to the supply (R9.2). Coins: P0
    3 + 2 = 5, P1 3 + 1 = 4. At the next leg start an unused camera returns too.
    """
    s = at(sc(4), tiles={6: (1, -1)})
    s = play(s, Photograph(5))
    assert s.photographer == (0, 5)
    s.current = 2
    s, events = roll(s, G, 3)
    assert of_type(events, TilePayout)[0].owner == 1
    assert of_type(events, PhotoPayout) == [PhotoPayout(0, 5, 2)]
    assert s.stacks[5] == (G, W) and s.coins == (5, 4, 3, 3) and s.photographer is None
    # R9.2: at each leg start it returns regardless
    s = at(sc(4), photographer=(1, 12), pyramid=(B,), pyramid_tiles_left=1)
    s, events = roll(s, B, 1)
    assert of_type(events, LegScored) and s.photographer is None


# R9.3 Module 3: position bets ------------------------------------------------------------------
def test_R9_3_position_bet_actions_and_legality() -> None:
    s = at(sc(4))
    bets = [a for a in legal_actions(s) if isinstance(a, PositionBet)]
    assert bets == [PositionBet(pos, c, True) for pos in (2, 3, 4, 5) for c in range(5)]
    s = play(s, TakeLegBet(Y), TakeLegBet(Y), TakeLegBet(Y), TakeLegBet(Y))  # P0 5, P3 2
    assert s.leg_stacks[Y] == ()
    s.current = 0
    legal = legal_actions(s)
    assert PositionBet(2, Y, False) in legal and PositionBet(2, Y, True) not in legal
    s = play(s, PositionBet(2, Y, False))
    assert s.position_bets == ((0, 2, Y, 5),)
    s.current = 0
    assert PositionBet(3, Y, False) not in legal_actions(s)  # its only yellow tile is covered
    with pytest.raises(
        IllegalActionError,
        match=r"position tile is taken, or there is no such "
        r"leg-bet tile to cover \(R9\.3\)",
    ):
        check_legal(s, PositionBet(2, G, True))
    assert_mask_matches_check_legal(s)


def test_R9_3_worked_example_cover_own_lowest_tile_and_stack_bottom() -> None:
    """Module 3 worked example, derived by hand (4 players).

    P0 takes yellow 5, P1 yellow 3, P0 yellow 2. P0 takes the position-5 tile and covers one
    of its own yellow tiles: the engine covers the lowest, the 2 (R11.4), keeping the 5
    uncovered. P1 takes the position-4 tile with the **bottom** green tile (a 2) from the
    green stack, which becomes 5, 3, 2 (the top is still 5). P3 cannot take position 5 again.
    Then P2 takes the leg's last pyramid tile: orange 1 (1 -> 2 on yellow-blue).
    Ranking: white, green, orange, blue, yellow (ranks 1..5).
      P0: yellow 5 uncovered, yellow 5th: -1; position-5 on yellow 2: exact, +3 => +2 (5).
      P1: yellow 3: -1; position-4 on green 2: green is 2nd, not 4th: -1 (uncovered it would
          have paid +1) => -2 (1).
      P2: one pyramid tile +1 (4). P3: 0 (3).
    The position tiles then return (R9.3), like the leg-bet tiles (R6.4).
    """
    s = at(sc(4), pyramid=(OR,), pyramid_tiles_left=1)
    s = play(s, TakeLegBet(Y), TakeLegBet(Y))
    s.current = 0
    s = play(s, TakeLegBet(Y))
    assert s.leg_bets[0] == ((Y, 5), (Y, 2))
    s.current = 0
    s, events = apply_outcome(s, PositionBet(5, Y, False), None)
    assert events == (PositionBetTaken(0, 5, Y, 2, False),)
    s, events = apply_outcome(s, PositionBet(4, G, True), None)
    assert events == (PositionBetTaken(1, 4, G, 2, True),)
    assert s.leg_stacks[G] == (5, 3, 2) and s.leg_bets[1] == ((Y, 3), (G, 2))
    s.current = 3
    assert PositionBet(5, B, True) not in legal_actions(s)
    s.current = 2
    s, events = roll(s, OR, 1)
    scored = of_type(events, LegScored)[0]
    assert scored.ranking == (W, G, OR, B, Y)
    assert scored.items[0] == (("yellow 5 leg bet", -1), ("position-5 tile on yellow", 3))
    assert scored.items[1] == (("yellow 3 leg bet", -1), ("position-4 tile on green", -1))
    assert scored.deltas == (2, -2, 1, 0) and s.coins == (5, 1, 4, 3)
    assert s.position_bets == () and s.leg_stacks == ((5, 3, 2, 2),) * 5


def test_R9_3_position_bets_are_scored_in_the_final_leg_scoring() -> None:
    """R7.1 + R9.3: a race that ends mid-leg still scores the position tiles."""
    s = at(
        sc(2),
        stacks={1: (OR,), 2: (Y, B), 20: (G, W)},
        pyramid=(B, G),
        pyramid_tiles_left=2,
        leg_bets=(((W, 2),), ()),
        position_bets=((0, 2, W, 2),),
        photographer=(1, 10),
    )
    s, events = roll(s, G, 1)  # green-white cross: white wins, green is second
    scored = of_type(events, LegScored)[0]
    assert scored.items[0] == (("position-2 tile on white", -1), ("pyramid tile", 1))
    assert s.game_over and s.photographer == (1, 10)  # the tile stays where it was


# R9.4 Module 4: partnerships -------------------------------------------------------------------
def test_R9_4_partnership_action_in_supercup_six_players() -> None:
    s = at(sc(6))
    assert Partner(3) in legal_actions(s) and Partner(0) not in legal_actions(s)
    s = play(s, Partner(3))
    assert s.partners == (3, -1, -1, 0, -1, -1)
    s.current = 3
    assert not any(isinstance(a, Partner) for a in legal_actions(s))
    with pytest.raises(IllegalActionError, match=r"partnership card is not available"):
        check_legal(s, Partner(4))


def test_R9_4_worked_example_partner_copies_a_position_bet_reward() -> None:
    """Module 4 worked example, derived by hand (6 players, P0 and P1 partners).

    P1 holds the position-2 tile on a green 2 (from the stack) and blue 5; P0 holds yellow 5.
    P0 takes the leg's last pyramid tile: orange 1 (onto yellow-blue on 2). Ranking white,
    green, orange, blue, yellow. Own rewards: P0 yellow -1, pyramid tile +1; P1 position-2 on
    green +3 (green is 2nd), blue 5 -1. Copies (R9.4, the best non-negative reward of the
    partner's own tiles): P0 copies P1's position-2 reward +3; P1 copies P0's pyramid tile +1.
    P0: -1 + 1 + 3 = +3 (6); P1: 3 - 1 + 1 = +3 (6). Cards return after scoring.
    """
    s = at(
        sc(6),
        pyramid=(OR,),
        pyramid_tiles_left=1,
        partners=(1, 0, -1, -1, -1, -1),
        leg_bets=(((Y, 5),), ((B, 5), (G, 2)), (), (), (), ()),
        position_bets=((1, 2, G, 2),),
        leg_stacks=((3, 2, 2), (5, 3, 2), (5, 3, 2, 2), (3, 2, 2), (5, 3, 2, 2)),
    )
    s, events = roll(s, OR, 1)
    scored = of_type(events, LegScored)[0]
    assert scored.ranking == (W, G, OR, B, Y)
    assert scored.items[0] == (
        ("yellow 5 leg bet", -1),
        ("pyramid tile", 1),
        ("partner 1's position-2 tile on green", 3),
    )
    assert scored.items[1] == (
        ("blue 5 leg bet", -1),
        ("position-2 tile on green", 3),
        ("partner 0's pyramid tile", 1),
    )
    assert scored.deltas[:2] == (3, 3) and s.coins[:2] == (6, 6)
    assert s.partners == (-1,) * 6 and s.position_bets == ()


# State: JSON, validation, events -------------------------------------------------------------
def test_R9_supercup_state_json_round_trip() -> None:
    s = at(
        sc(6, extra_action=True),
        photographer=(2, 9),
        crater=1 << B,
        leg_bets=(((Y, 5),), (), (), (), (), ()),
        position_bets=((0, 3, Y, 5),),
        pyramid_tiles=(1, 0, 0, 0, 0, 0),
        pyramid_tiles_left=5,
        extra_pending=True,
    )
    assert GameState.from_json(s.to_json()) == s


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"position_bets": ((0, 3, Y, 5),)}, r"must cover a leg-bet tile of its owner \(R9\.3\)"),
        ({"photographer": (0, 21)}, r"bad photographer"),
        ({"photographer": (0, 8), "tiles": {8: (1, 1)}}, r"no desert tile on the camera space"),
        ({"crater": 1}, r"craters and the extra action need extra_action"),
        ({"extra_pending": True}, r"craters and the extra action need extra_action"),
    ],
)
def test_R9_validate_rejects_impossible_supercup_states(fields, message) -> None:
    with pytest.raises(ValueError, match=message):
        at(sc(4), **fields)


def test_R9_new_actions_have_descriptions_and_stable_indices() -> None:
    from camelup_env import describe

    full = action_table(sc(6, extra_action=True))
    base = action_table(sc(6, photographer=False, position_bets=False))
    assert full.actions[: len(base)] == base.actions  # modules only append blocks
    assert len(full) == len(base) + 20 + 4 * 5 * 2 + 1 + 5
    rules = sc(6, extra_action=True)
    for a in (Photograph(3), PositionBet(2, Y, True), SkipExtra(), AddSupportDie(G)):
        assert describe(a, rules)
