"""The position notation (``camelup_env.game.notation``): parsing and every error it reports."""

from __future__ import annotations

import numpy as np
import pytest

from camelup_env import GameState, PositionError, RuleSet, apply_action, new_game, parse_position
from camelup_env.game.legality import legal_action_indices
from camelup_env.game.notation import position_notation
from camelup_env.odds import leg_rank_probabilities

TRACK = "1:orange;2:yellow,blue;3:green,white"
SECOND = "1:blue;2:green;3:red;4:yellow,purple;14:white;15:black"


def test_parse_classic_example_r13_e1():
    """R0.2 stacks bottom -> top, R1.3 indices, defaults of a fresh leg (R2.3)."""
    state = parse_position("classic", TRACK)
    assert isinstance(state, GameState)
    c = {name: i for i, name in enumerate(state.rules.colours)}
    assert state.stacks == {
        1: (c["orange"],),
        2: (c["yellow"], c["blue"]),
        3: (c["green"], c["white"]),
    }
    assert state.pyramid == (0, 1, 2, 3, 4) and state.pyramid_tiles_left == 5
    assert state.tiles == {} and state.coins == (3, 3, 3, 3) and state.current == 0
    assert state.leg_stacks == ((5, 3, 2),) * 5
    state.validate()


def test_dice_left_and_tiles():
    state = parse_position("classic", TRACK, "green, blue", "4:-1;7:+1;10:1@3")
    assert state.pyramid == (0, 1) and state.pyramid_tiles_left == 2
    assert state.tiles == {4: (0, -1), 7: (1, 1), 10: (3, 1)}
    assert parse_position("classic", TRACK, ["white"]).pyramid == (4,)


def test_default_tile_owners_skip_named_seats():
    state = parse_position("classic", TRACK, tiles="5:+1;8:-1@0;11:+1")
    assert state.tiles == {5: (1, 1), 8: (0, -1), 11: (2, 1)}


def test_second_edition_grey_die_and_reveals_left():
    """R6.1: 5 of 6 dice per leg, so with k dice left there are k - 1 reveals left."""
    full = parse_position("second_edition", SECOND)
    assert full.pyramid == (0, 1, 2, 3, 4, 5) and full.pyramid_tiles_left == 5
    state = parse_position("second_edition", SECOND, "grey,red,blue")
    assert state.pyramid == (0, 2, 5) and state.pyramid_tiles_left == 2
    assert leg_rank_probabilities(state).sum() == pytest.approx(5)


@pytest.mark.parametrize(
    "preset,track,dice,tiles,token",
    [
        ("classic", "1:orange;2:yellow,blue;3:green,pink", None, None, "'pink'"),  # unknown camel
        (
            "classic",
            "1:orange;2:yellow,blue;3:green,red",
            None,
            None,
            "'red'",
        ),  # wrong preset colour
        (
            "second_edition",
            TRACK.replace("orange", "red").replace("white", "purple"),
            None,
            None,
            "black",
        ),  # missing crazy camels
        ("classic", "1:orange;2:yellow,blue;3:green,blue", None, None, "'blue'"),  # camel twice
        ("classic", "1:orange;2:yellow,blue;3:green", None, None, "white"),  # missing camel
        ("classic", "1:orange;2:yellow,blue;x:green,white", None, None, "'x'"),  # bad number
        ("classic", "0:orange;2:yellow,blue;3:green,white", None, None, "'0'"),  # off the track
        ("classic", "17:orange;2:yellow,blue;3:green,white", None, None, "'17'"),
        ("classic", "1:orange;1:yellow,blue;3:green,white", None, None, "space 1"),  # listed twice
        ("classic", "1 orange;2:yellow,blue;3:green,white", None, None, "'1 orange'"),
        ("classic", "", None, None, "empty track"),
        ("classic", TRACK, "blue,blue", None, "'blue'"),  # duplicate die
        ("classic", TRACK, "blue,grey", None, "'grey'"),  # unknown die (no grey die in classic)
        ("classic", TRACK, "purple", None, "'purple'"),
        ("second_edition", SECOND, "grey", None, "'grey'"),  # the leg would already be over (R6.1)
        ("classic", TRACK, None, "3:+1", "'3:+1'"),  # tile on an occupied space (R4.2)
        ("classic", TRACK, None, "5:+1;6:-1", "'6:-1'"),  # adjacent tiles (R4.2)
        ("classic", TRACK, None, "5:+1;5:-1", "'5:-1'"),  # same space
        ("classic", "2:orange;3:yellow,blue;4:green,white", None, "1:+1", "'1:+1'"),  # space 1
        ("classic", TRACK, None, "17:+1", "'17:+1'"),  # off the track
        ("classic", TRACK, None, "x:+1", "'x'"),  # bad number
        ("classic", TRACK, None, "5:+2", "'+2'"),  # bad side
        ("classic", TRACK, None, "5:+1@x", "'x'"),  # bad owner
        ("classic", TRACK, None, "5:+1@4", "'4'"),  # no seat 4 with 4 players
        ("classic", TRACK, None, "5:+1@1;8:-1@1", "'8:-1@1'"),  # two tiles with the same owner
        ("classic", TRACK, None, "5:+1", None),  # (valid: control)
    ],
)
def test_parse_errors_name_the_token(preset, track, dice, tiles, token):
    if token is None:
        parse_position(preset, track, dice, tiles)
        return
    with pytest.raises(PositionError) as info:
        parse_position(preset, track, dice, tiles)
    assert isinstance(info.value, ValueError)
    assert token in str(info.value)


def test_more_tiles_than_players():
    with pytest.raises(PositionError, match="'11:-1'"):
        parse_position("classic", TRACK, tiles="5:+1;8:-1;11:-1", num_players=2)


def test_unknown_preset_and_bad_player_count():
    with pytest.raises(PositionError, match="'tabletop'"):
        parse_position("tabletop", TRACK)
    with pytest.raises(PositionError, match="players"):
        parse_position("classic", TRACK, num_players=1)


@pytest.mark.parametrize("preset", ["classic", "second_edition", "supercup"])
def test_position_notation_reads_back_to_the_same_leg_odds(preset):
    """position_notation of positions along a game parses back to the same stacks, dice and
    tiles, so `camelup odds` of it gives the game's leg odds (the web app's coach relies on it)."""
    rng = np.random.default_rng(1)
    state = new_game(RuleSet(preset, num_players=3), seed=2)
    checked = 0
    while not state.game_over and checked < 40:
        if min(state.pyramid_tiles_left, len(state.pyramid)) > 1:
            track, dice, tiles = position_notation(state)
            back = parse_position(preset, track, dice, tiles, num_players=3)
            assert (back.stacks, back.pyramid, back.tiles) == (
                state.stacks,
                state.pyramid,
                state.tiles,
            )
            assert np.allclose(leg_rank_probabilities(back), leg_rank_probabilities(state))
            checked += 1
        state, _ = apply_action(state, int(rng.choice(legal_action_indices(state))), rng)
    assert checked >= 20
