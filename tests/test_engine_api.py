"""The engine's contract: rule-set validation, illegal actions naming their rule, plain-word
descriptions, JSON round trips, determinism, and what each player may see (docs/rules.md R10)."""

from __future__ import annotations

import json
import pickle
from dataclasses import fields

import numpy as np
import pytest
from engine_positions import CLASSIC, position, roll

from camelup_env import (
    PRESETS,
    GameState,
    IllegalActionError,
    Partner,
    PlaceTile,
    RaceBet,
    RuleSet,
    TakeLegBet,
    TakePyramidTile,
    action_table,
    apply_action,
    apply_outcome,
    chance_outcomes,
    check_legal,
    describe,
    legal_action_indices,
    legal_action_mask,
    new_game,
    render_text,
)
from camelup_env.game.events import (
    DieRevealed,
    FinalBetsScored,
    GameOver,
    LegBetTaken,
    LegScored,
    PartnershipFormed,
    PyramidTileTaken,
    RaceBetPlaced,
    RaceEnded,
    TilePayout,
    TilePlaced,
    UnitMoved,
    public_view,
)
from camelup_env.game.legality import _camel_spaces
from camelup_env.render.event_text import describe_event

B, G, OR, Y, W = (CLASSIC[c] for c in ("blue", "green", "orange", "yellow", "white"))
START = {1: (OR,), 2: (Y, B), 3: (G, W)}


# RuleSet validation (R1, R1.4, R9.4) ------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"preset": "persian"}, r"unknown preset 'persian'"),
        ({"preset": "classic", "num_players": 9}, r"2 to 8 players \(R1\).*num_players=9"),
        ({"preset": "second_edition", "num_players": 1}, r"2 to 8 players"),
        (
            {"preset": "classic", "num_players": 6, "partnerships": True},
            r"classic has no betting partnerships",
        ),
        (
            {"preset": "second_edition", "num_players": 5, "partnerships": True},
            r"at least 6 players.*num_players=5",
        ),
        ({"leg_bet_values": (2, 3, 5)}, r"leg-bet stack values .*highest on top"),
        ({"leg_bet_values": (5, 0)}, r"leg-bet stack values must be positive"),
        ({"leg_bet_values": ()}, r"leg-bet stack values"),
        ({"track_length": 3}, r"track_length"),
        ({"racing_colours": ("a", "b", "c")}, r"5 racing camels"),
        ({"racing_colours": ("a", "a", "b", "c", "d")}, r"distinct"),
        ({"crazy_colours": ("black", "grey")}, r"classic has no crazy camels"),
        ({"preset": "second_edition", "crazy_colours": ("black",)}, r"2 crazy camels"),
        ({"tile_kind": "carpet"}, r"tile_kind"),
        ({"racing_die_faces": (0, 1, 2)}, r"racing die faces must be positive"),
        ({"preset": "second_edition", "grey_die_values": (0, 1)}, r"grey die values"),
        ({"starting_coins": -1}, r"starting_coins"),
        ({"pyramid_tiles": 6}, r"pyramid_tiles must be between 1 and the 5 dice"),
        ({"preset": "second_edition", "pyramid_tiles": 7}, r"the 6 dice"),
        ({"race_bet_payouts": (8, -1)}, r"race-bet payouts"),
    ],
)
def test_R1_invalid_rule_sets_raise_value_error_naming_the_problem(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        RuleSet(**kwargs)


#: (preset, a field for a rule that preset's game does not play): refused, not ignored
UNPLAYED = [
    ("persian_tutorial", {"last_tile_space": 20}),
    ("persian_tutorial", {"tile_same_space": True}),
    ("persian_tutorial", {"position_tiles": (2, 3)}),
    ("persian_tutorial", {"grey_die_values": (1,)}),
    ("persian_tutorial", {"support_die_faces": (3,)}),
    ("persian_tutorial", {"leg_cards": False, "loser_bet_values": (1, 1, 1, 1, 1)}),
    ("classic", {"grey_die_values": (1,)}),
    ("classic", {"position_tiles": (2, 3)}),
    ("classic", {"support_die_faces": (3,)}),
    ("classic", {"tile_kind": "none", "last_tile_space": 20}),
    ("second_edition", {"position_tiles": (2, 3)}),
    ("second_edition", {"support_die_faces": (3,)}),
    ("supercup", {"grey_die_values": (1,)}),
    ("supercup", {"position_bets": False, "position_tiles": (2, 3)}),
    ("supercup", {"support_dice": False, "support_die_faces": (3,)}),
    ("cup", {"grey_die_values": (1,)}),
    ("cup", {"position_tiles": (2, 3)}),
    ("cup", {"support_die_faces": (3,)}),
]


@pytest.mark.parametrize(("preset", "fields"), UNPLAYED)
def test_R1_a_preset_refuses_fields_it_has_no_rules_for(preset, fields) -> None:
    name = list(fields)[-1]
    with pytest.raises(ValueError, match=rf"^{name} is not a rule of this {preset} game"):
        RuleSet(preset, num_players=4, **fields)
    with pytest.raises(ValueError, match=name):  # a tournament's or a stranger's document
        RuleSet.from_dict({"preset": preset, "num_players": 4, **fields})


@pytest.mark.parametrize(
    ("preset", "fields", "message"),
    [
        ("supercup", {"crazy_colours": ("black", "grey")}, "supercup has no crazy camels"),
        ("cup", {"crazy_colours": ("black", "grey")}, "cup has no crazy camels"),
        ("persian_tutorial", {"num_players": 6, "partnerships": True}, "no betting partnerships"),
    ],
)
def test_R1_R14_7_only_the_second_edition_has_crazy_camels_and_not_every_preset_partners(
    preset, fields, message
) -> None:
    with pytest.raises(ValueError, match=message):
        RuleSet(preset, **fields)


def test_R14_7_the_persian_tutorial_has_no_partnerships_at_any_player_count() -> None:
    assert not any(RuleSet("persian_tutorial", num_players=n).partnerships for n in range(2, 9))
    assert RuleSet("second_edition", num_players=6).partnerships
    assert RuleSet("supercup", num_players=6).partnerships


def test_R1_fields_holding_the_value_they_take_anyway_round_trip() -> None:
    """Only a value a rule would ignore is refused: every preset's own document, and a game
    without tiles on a longer track (its last tile space follows the track), build again."""
    for rules in (
        RuleSet("classic", num_players=3, tile_kind="none", track_length=20),
        *(RuleSet(preset, num_players=4) for preset in PRESETS),
    ):
        assert RuleSet.from_dict(rules.to_dict()) == rules


def test_R1_rule_set_dict_round_trip_and_bad_documents() -> None:
    rules = RuleSet("second_edition", num_players=7, starting_coins=5)
    assert RuleSet.from_dict(rules.to_dict()) == rules
    assert hash(RuleSet.from_dict(rules.to_dict())) == hash(rules)
    with pytest.raises(ValueError, match=r"unknown rule set field\(s\) \['speed'\]"):
        RuleSet.from_dict({"preset": "classic", "speed": 3})
    with pytest.raises(ValueError, match="needs at least a 'preset'"):
        RuleSet.from_dict({"num_players": 3})


def test_derived_tables_belong_to_one_rule_set_object_and_are_not_pickled() -> None:
    rules = RuleSet("second_edition", num_players=6)
    twin = RuleSet("second_edition", num_players=6)
    assert twin == rules and twin is not rules
    table = action_table(rules)
    assert action_table(rules) is table  # built once per object
    assert action_table(twin) is not table and action_table(twin) == table
    clone = pickle.loads(pickle.dumps(rules))
    assert clone == rules and "actions" not in clone._derived
    assert action_table(clone) == table
    assert pickle.dumps(clone) == pickle.dumps(RuleSet("second_edition", num_players=6))
    assert "_derived" not in rules.to_dict()


# Illegal actions ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("preset", "action", "state_fields", "rule"),
    [
        ("classic", TakeLegBet(5), {}, "R4.1"),
        ("classic", TakeLegBet(-1), {}, "R4.1"),
        ("classic", TakeLegBet(B), {"leg_stacks": ((),) * 5}, "R4.1"),
        ("classic", TakePyramidTile(), {"pyramid_tiles_left": 0}, "R4.3"),
        ("classic", PlaceTile(2, 1), {}, "R4.2"),
        ("classic", PlaceTile(1, -1), {}, "R4.2"),
        ("classic", PlaceTile(6, 1), {"tiles": {7: (1, 1)}}, "R4.2"),
        ("classic", RaceBet(2, B), {}, "R4.4"),
        ("classic", RaceBet(0, 5), {}, "R4.4"),
        ("classic", RaceBet(1, G), {"hands": (0b11101, 31, 31, 31)}, "R4.4"),
        ("classic", Partner(1), {}, "R9.4"),
        ("second_edition", Partner(0), {}, "R9.4"),
        ("second_edition", Partner(9), {}, "R9.4"),
        ("classic", TakeLegBet(0), {"game_over": True}, "R7"),
    ],
)
def test_illegal_actions_name_action_and_rule(preset, action, state_fields, rule) -> None:
    n = 6 if preset == "second_edition" else 4
    stacks = START if preset == "classic" else {**START, 14: (5,), 15: (6,)}
    s = position(preset, num_players=n, stacks=stacks, **state_fields)
    assert issubclass(IllegalActionError, ValueError)
    for call in (
        lambda: check_legal(s, action),
        lambda: apply_action(s, action, np.random.default_rng(0)),
        lambda: apply_outcome(s, action, None),
        lambda: chance_outcomes(s, action),
    ):
        with pytest.raises(IllegalActionError) as info:
            call()
        text = str(info.value)
        assert f"({rule}" in text or f"{rule})" in text or f", {rule}" in text, text
        assert repr(action) in text
        assert "player 0" in text
    index = action_table(s.rules).index.get(action)
    if index is not None:
        assert legal_action_mask(s)[index] == 0


@pytest.mark.parametrize("index", [-1, 10**6])
def test_out_of_range_action_index_is_illegal(index: int) -> None:
    s = position(stacks=START)
    n = len(action_table(s.rules))
    message = rf"action index {index} is out of range 0\.\.{n - 1}"
    with pytest.raises(IllegalActionError, match=message):
        apply_action(s, index, np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match="out of range"):
        apply_action(s, np.int64(n), np.random.default_rng(0))


def test_not_an_action_is_rejected() -> None:
    s = position(stacks=START)
    with pytest.raises(IllegalActionError, match="not a camelup action"):
        check_legal(s, "roll")
    with pytest.raises(TypeError, match="not a camelup action"):
        describe("roll", s.rules)

    class Lookalike(PlaceTile):  # actions are matched by exact type
        pass

    with pytest.raises(IllegalActionError, match="not a camelup action"):
        apply_action(s, Lookalike(6, 1), np.random.default_rng(0))


def test_chance_outcome_arguments_are_checked() -> None:
    s = position(stacks=START)
    with pytest.raises(ValueError, match="needs a DieRoll outcome"):
        apply_outcome(s, TakePyramidTile(), None)
    with pytest.raises(ValueError, match="has no chance outcome"):
        apply_outcome(s, TakeLegBet(0), chance_outcomes(s, TakePyramidTile())[0][0])
    assert chance_outcomes(s, TakeLegBet(0)) == [(None, 1)]


def test_apply_action_accepts_indices_like_actions() -> None:
    s = position(stacks=START)
    table = action_table(s.rules)
    for i in legal_action_indices(s):
        a, _ = apply_action(s, i, np.random.default_rng(1))
        b, _ = apply_action(s, table.actions[i], np.random.default_rng(1))
        assert a == b


# Plain words ----------------------------------------------------------------------------------
def test_describe_every_action_kind() -> None:
    classic = RuleSet("classic")
    second = RuleSet("second_edition", num_players=6)
    assert describe(TakeLegBet(B), classic) == "take the top blue leg-bet tile"
    assert describe(TakePyramidTile(), classic) == "take a pyramid tile and roll a die"
    assert describe(PlaceTile(5, 1), classic) == (
        "put your desert tile on space 5, oasis (+1) side up"
    )
    assert describe(PlaceTile(7, -1), second) == (
        "put your spectator tile on space 7, booing (-1) side up"
    )
    assert describe(RaceBet(0, 2), classic) == "bet on orange as overall winner"
    assert describe(RaceBet(1, 2), second) == "bet on red as overall loser"
    assert describe(Partner(4), second) == "form a betting partnership with player 4"
    # Out-of-range camels (reported by IllegalActionError) are named by number, never wrapped.
    assert describe(TakeLegBet(-1), classic) == "take the top camel -1 leg-bet tile"
    assert describe(RaceBet(0, 5), classic) == "bet on camel 5 as overall winner"
    for rules in (classic, second):
        texts = [describe(a, rules) for a in action_table(rules).actions]
        assert len(set(texts)) == len(texts)  # every index reads differently


def test_describe_event_every_kind() -> None:
    rules = RuleSet("second_edition", num_players=6)
    cases = [
        (LegBetTaken(1, 2, 5), "player 1 took the red 5 leg-bet tile"),
        (TilePlaced(0, 7, -1, None), "player 0 put a booing tile on space 7"),
        (TilePlaced(0, 9, 1, 7), "player 0 put a cheering tile on space 9 (moved from space 7)"),
        (RaceBetPlaced(2, 0, 4), "player 2 placed purple on the overall-winner pile"),
        (RaceBetPlaced(2, 1, None), "player 2 placed a card on the overall-loser pile"),
        (PartnershipFormed(3, 5), "player 3 partnered with player 5"),
        (PyramidTileTaken(4), "player 4 took a pyramid tile"),
        (DieRevealed(5, 6, 2), "the grey die shows white 2"),
        (DieRevealed(0, 0, 3), "the blue die shows blue 3"),
        (UnitMoved((5, 2), 10, 8, False, "die"), "[black, red] moved 10 -> 8"),
        (UnitMoved((5, 2), 8, 9, True, "tile"), "[black, red] moved 8 -> 9 underneath (tile)"),
        (
            UnitMoved((6, 2), 14, 12, False, "carrier"),
            "[white, red] moved 14 -> 12 (white moves whatever colour the grey die shows: it is "
            "the only crazy camel carrying racing camels, R5.5)",
        ),
        (
            UnitMoved((5,), 16, 15, False, "on top"),
            "[black] moved 16 -> 15 (black moves whatever colour the grey die shows: it sits "
            "directly on the other crazy camel, R5.5)",
        ),
        (
            UnitMoved((0, 1), 15, 18, False, "die"),
            "[blue, green] moved 15 -> 18 - over the finish line, 2 past space 16 (R5.4)",
        ),
        (
            UnitMoved((5, 3), 2, -1, False, "die"),
            "[black, yellow] moved 2 -> -1 - backward over the finish line, 2 behind space 1"
            " (R5.6)",
        ),
        (TilePlaced(0, 7, 1, None), "player 0 put a cheering tile on space 7"),
        (TilePayout(1, 8, 1), "player 1 earned 1 from the tile on space 8"),
        (
            RaceEnded((0, 1, 2, 3, 4), True),
            "the race is over (backward crossing): winner blue, last purple",
        ),
        (
            FinalBetsScored(0, 0, ((2, 0, 8), (1, 3, -1))),
            "overall-winner pile (blue): P2 blue +8, P1 yellow -1",
        ),
        (FinalBetsScored(1, 4, ()), "overall-loser pile (purple): no cards"),
        (
            FinalBetsScored(0, 0, ((1, 3, 0), (2, 0, 0))),  # R8.1 floor: P1 had 0 coins
            "overall-winner pile (blue): P1 yellow +0 (wrong, but no coins left to lose: R8.1), "
            "P2 blue +0",
        ),
        (
            GameOver((3, 9, 9, 0, 1, 2), (1, 2)),
            "game over: coins [3, 9, 9, 0, 1, 2]; winner(s): player 1, player 2",
        ),
    ]
    for event, text in cases:
        assert describe_event(event, rules) == text
    leg = LegScored(
        2,
        (0, 1, 2, 3, 4),
        ((("blue 5 leg bet", 5), ("pyramid tile", 1)), (), (), (), (), ()),
        (6, 0, 0, 0, 0, 0),
    )
    assert describe_event(leg, rules) == (
        "leg 2 scored (ranking: blue, green, red, yellow, purple)\n"
        "  player 0: blue 5 leg bet +5, pyramid tile +1 => +6"
    )
    with pytest.raises(TypeError, match="not a camelup event"):
        describe_event("bang", rules)
    classic = RuleSet("classic")
    assert describe_event(TilePlaced(1, 4, 1, None), classic) == (
        "player 1 put an oasis tile on space 4"
    )
    assert describe_event(TilePlaced(1, 4, -1, None), classic) == (
        "player 1 put a mirage tile on space 4"
    )


def test_text_view_aligns_spaces_past_the_line_and_names_empty_craters() -> None:
    s = position(stacks={1: (OR,), 3: (G, W), 17: (Y, B)}, game_over=True)  # past the line: over
    rows = [line for line in render_text(s).splitlines() if "|" in line]
    assert rows[0] == "    1  | orange" and rows[-1] == "   17* | yellow blue"
    assert len({row.index("|") for row in rows}) == 1
    rules = RuleSet("supercup", num_players=4, extra_action=True)
    text = render_text(new_game(rules, seed=0))
    assert "in craters: none" in text


# JSON ----------------------------------------------------------------------------------------
def test_json_round_trip_of_an_exact_position() -> None:
    s = position(
        "second_edition",
        num_players=6,
        stacks={-1: (5, 3), 2: (0, 1), 7: (2,), 17: (4,), 15: (6,)},
        tiles={4: (1, -1), 9: (2, 1)},
        partners=(3, -1, -1, 0, -1, -1),
        winner_pile=((0, 1),),
        loser_pile=((2, 3), (1, 3)),
        game_over=True,
    )
    text = s.to_json()
    assert json.loads(text)["schema_version"] == 1
    assert GameState.from_json(text) == s


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(schema_version=2), r"unsupported game state schema_version 2"),
        (lambda d: d.pop("schema_version"), r"schema_version None"),
        (lambda d: d.pop("coins"), r"missing field\(s\) \['coins'\]"),
        (lambda d: d.update(dice_order=[1, 2]), r"unknown field\(s\) \['dice_order'\]"),
        (lambda d: d.update(coins=[3, 3, -2, 3]), r"below 0 \(R8\.1\)"),
        (lambda d: d.update(coins=["a", 3, 3, 3]), r"coins\[0\] must be an integer"),
        (lambda d: d.update(stacks=[[1, [0, 1, 2, 3]]]), r"every camel must be on the track"),
        (lambda d: d.update(rules={"preset": "classic", "num_players": 12}), r"2 to 8 players"),
    ],
)
def test_bad_json_documents_raise_value_error(mutate, message) -> None:
    doc = position(stacks=START).to_dict()
    mutate(doc)
    with pytest.raises(ValueError, match=message):
        GameState.from_json(json.dumps(doc))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "must be a JSON object, got list"),
        ("42", "must be a JSON object, got int"),
        ("{not json", "not valid JSON"),
    ],
)
def test_non_object_json_raises_value_error(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GameState.from_json(text)


# Determinism --------------------------------------------------------------------------------
def _record(preset: str, n: int, seed: int):
    rng = np.random.default_rng(seed)
    s = new_game(RuleSet(preset, num_players=n), seed=seed)
    states, events = [s], []
    while not s.game_over:
        legal = legal_action_indices(s)
        s, ev = apply_action(s, legal[int(rng.random() * len(legal))], rng)
        states.append(s)
        events.append(ev)
    return states, events


@pytest.mark.parametrize(
    ("preset", "n"), [("classic", 2), ("classic", 5), ("second_edition", 4), ("second_edition", 7)]
)
def test_same_seed_same_actions_same_game_and_json_round_trip_every_step(preset, n) -> None:
    for seed in range(4):
        states, events = _record(preset, n, seed)
        again, events_again = _record(preset, n, seed)
        assert states == again and events == events_again
        for s in states:
            assert GameState.from_json(s.to_json()) == s
            assert GameState.from_dict(json.loads(s.to_json())).to_json() == s.to_json()
    other, _ = _record(preset, n, 99)
    assert other != states  # the seed matters


def test_replaying_recorded_die_rolls_reproduces_the_game() -> None:
    states, events = _record("second_edition", 6, 3)
    s = states[0]
    for ev, expected in zip(events, states[1:], strict=True):
        if isinstance(ev[0], PyramidTileTaken):
            d = ev[1]
            from camelup_env import DieRoll

            s, _ = apply_outcome(s, TakePyramidTile(), DieRoll(d.die, d.camel_shown, d.value))
        else:
            action = _action_from_event(ev[0])
            s, _ = apply_outcome(s, action, None)
        assert s == expected


def _action_from_event(event):
    if isinstance(event, LegBetTaken):
        return TakeLegBet(event.camel)
    if isinstance(event, TilePlaced):
        return PlaceTile(event.space, event.side)
    if isinstance(event, RaceBetPlaced):
        return RaceBet(event.pile, event.camel)
    assert isinstance(event, PartnershipFormed)
    return Partner(event.partner)


def test_states_are_never_mutated() -> None:
    s = position(stacks=START, tiles={9: (1, 1)}, current=0)
    before = s.to_json()
    for action in (TakeLegBet(0), PlaceTile(12, -1), RaceBet(0, 1)):
        apply_outcome(s, action, None)
    for roll_args in ((B, 3), (G, 3), (W, 3)):
        roll(s, *roll_args)
    assert s.to_json() == before


# R10 What each player observes ---------------------------------------------------------------
def test_R10_text_view_hides_other_players_race_bet_colours() -> None:
    s = position(
        stacks=START,
        winner_pile=((0, B), (1, G)),
        loser_pile=((2, OR),),
        hands=(0b11110, 0b11101, 0b11011, 31),
    )
    view = render_text(s, viewer=1)
    winner_line = next(line for line in view.splitlines() if "overall-winner" in line)
    loser_line = next(line for line in view.splitlines() if "overall-loser" in line)
    assert "P0:?" in winner_line and "P1:green" in winner_line and "blue" not in winner_line
    assert loser_line.endswith("P2:?")
    p0 = next(line for line in view.splitlines() if line.strip().startswith("P0:"))
    p1 = next(line for line in view.splitlines() if line.strip().startswith("P1 (you)"))
    assert "4 hidden" in p0 and "green" not in p1.split("race cards in hand")[1]
    assert "blue orange yellow white" in p1
    full = render_text(s)
    assert "P0:blue" in full and "P2:orange" in full


def test_R10_public_view_hides_colour_from_other_seats_only() -> None:
    bet = RaceBetPlaced(2, 1, 3)
    assert public_view(bet, 2) == bet
    assert public_view(bet, 0) == RaceBetPlaced(2, 1, None)
    assert public_view(bet, None) == RaceBetPlaced(2, 1, None)
    final = FinalBetsScored(1, 3, ((2, 3, 8),))  # final scoring reveals every card
    for event in (final, LegBetTaken(2, 1, 5), DieRevealed(0, 0, 1), TilePlaced(1, 5, 1, None)):
        assert public_view(event, 0) == event


def test_R10_pyramid_order_is_not_part_of_the_state() -> None:
    # The die is drawn at reveal time: one state, different generators, different dice.
    s = position(stacks=START)
    assert s.pyramid == tuple(sorted(s.pyramid))
    dice = {
        apply_action(s, TakePyramidTile(), np.random.default_rng(k))[0].revealed[0][0]
        for k in range(40)
    }
    assert dice == set(range(5))


@pytest.mark.parametrize("preset,players", [("classic", 4), ("second_edition", 6), ("supercup", 5)])
def test_shared_containers_never_change_an_earlier_state(preset: str, players: int) -> None:
    """A new state shares unchanged ``stacks``/``tiles`` dicts with its parent and memoises its
    legal indices and camel spaces: no later step may change any earlier state, and the memos
    must equal a fresh derivation on an independent copy (R4, states as values)."""
    rules = RuleSet(preset, num_players=players)
    rng = np.random.default_rng(11)
    for seed in range(3):
        state = new_game(rules, seed=seed)
        history = []
        while not state.game_over:
            legal = legal_action_indices(state)
            fresh = state.copy()
            assert legal == legal_action_indices(fresh)
            assert _camel_spaces(state) == _camel_spaces(fresh)
            successor = state.successor()  # built slot by slot: every field carried over
            assert all(
                getattr(successor, f.name) is getattr(state, f.name)
                for f in fields(GameState)
                if f.name != "_legal"
            )
            assert successor._legal is None
            history.append((state, state.to_json()))
            state, _ = apply_action(state, legal[rng.integers(len(legal))], rng)
        for old, snapshot in history:
            assert old.to_json() == snapshot
