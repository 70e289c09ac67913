"""State files are untrusted input: GameState.from_json checks types and ranges against the rule
set and raises ValueError naming the field; nothing else escapes, and a state it accepts can be
played, observed and given odds without a later crash."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from camelup_env import GameState, RuleSet, apply_action, legal_action_indices, new_game
from camelup_env.observation import Observer, public_view
from camelup_env.odds import leg_bet_evs, leg_rank_probabilities


def _states() -> list[GameState]:
    """States met in random games: start, middle and end, for every preset's features."""
    out = []
    for i, rules in enumerate(
        [
            RuleSet("classic", num_players=4),
            RuleSet("second_edition", num_players=6),
            RuleSet("supercup", num_players=4, extra_action=True),
            RuleSet("supercup", num_players=9),
        ]
    ):
        rng = np.random.default_rng(i)
        state = new_game(rules, seed=i)
        history = [state]
        while not state.game_over:
            state, _ = apply_action(state, int(rng.choice(legal_action_indices(state))), rng)
            history.append(state)
        out += [history[0], history[len(history) // 3], history[2 * len(history) // 3], history[-1]]
    return out


STATES = _states()
DOC = STATES[0].to_dict()


def _with(**changes) -> str:
    return json.dumps({**DOC, **changes})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # The cases: a stack far off the track, negative tiles left, unknown camels.
        (_with(stacks=[[10**6, [0, 1, 2, 3, 4]]]), r"stacks: space 1000000 is outside 1\.\.16"),
        (_with(pyramid_tiles_left=-1), r"pyramid_tiles_left must be 0\.\.5, got -1"),
        (_with(stacks=[[1, [0, 1, 2, 3, 4, 7]]]), r"every camel must be on the track exactly once"),
        ("[" * 100_000 + "]" * 100_000, r"game state nests 100000 levels deep"),
        ('{"leg": 1' + "0" * 5000 + "}", r"integer of 5001 digits"),
        ('{"leg": NaN}', r"holds NaN"),
        ('{"leg": 1e999}', r"number out of range"),
        ("x" * (2 << 20), r"at most 1048576 are accepted"),
        # Types: floats, booleans and strings are not integers; shapes are checked.
        (_with(leg=1.0), r"leg must be an integer"),
        (_with(coins=[3, True, 3, 3]), r"coins\[1\] must be an integer"),
        (_with(coins=[3, 3, 3]), r"coins must have 4 entries"),
        (_with(game_over=0), r"game_over must be true or false"),
        (_with(tiles=[[5, 0]]), r"tiles\[0\] must have 3 entries"),
        (_with(stacks={"1": [0]}), r"stacks must be a list, got dict"),
        (_with(tiles=[[5, 0, 1], [5, 1, -1]]), r"each space once"),
        # Ranges against the rule set.
        (_with(pyramid_tiles_left=5, pyramid=[0, 1]), r"exceeds the 2 dice in the pyramid"),
        (_with(pyramid=[0, 0, 1]), r"unknown or repeated dice"),
        (_with(revealed=[[0, 1, 2]]), r"revealed: die 0 cannot show camel 1 with 2"),
        (_with(leg_stacks=[[5, 3, 2, 9], *DOC["leg_stacks"][1:]]), r"leg_stacks\[0\]"),
        (_with(leg_bets=[[[7, 5]], [], [], []]), r"leg_bets\[0\]: a tile that is no leg-bet tile"),
        (_with(hands=[31, 32, 31, 31]), r"hands must be bit masks"),
        (_with(winner_pile=[[0, 5]]), r"winner_pile/loser_pile: bad card"),
        (_with(partners=[1, -1, -1, -1]), r"partners must pair seats both ways"),
        (_with(current=4), r"current \(4\) and leg_starter must be seats 0\.\.3"),
        (_with(coins=[3, 3, 3, 2**40]), r"coins\[3\] must be an integer of at most"),
        (_with(leg=0), r"leg must be at most .* \(leg from 1\)"),
        (_with(crater=-1), r"extra_action"),
        # Rule sets in a state file are untrusted too.
        (
            _with(rules={"preset": "classic", "racing_die_faces": [1, 10**9]}),
            r"die face moves at most",
        ),
        (_with(rules={"preset": "classic", "track_length": "16"}), r"track_length must be int"),
        (_with(rules={"preset": "classic", "num_players": True}), r"num_players must be int"),
        (_with(rules={"preset": ["classic"]}), r"preset must be str"),
    ],
)
def test_bad_state_files_raise_value_error_naming_the_field(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GameState.from_json(text)


# Property: mutate valid documents at random; only ValueError may escape, and what is accepted
# plays on. ----------------------------------------------------------------------------------
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def mutated_documents(draw) -> str:
    doc = json.loads(draw(st.sampled_from(STATES)).to_json())
    for _ in range(draw(st.integers(1, 3))):
        parent, key = None, None
        node = doc
        while isinstance(node, (list, dict)) and node and (parent is None or draw(st.booleans())):
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            parent, key = node, draw(st.sampled_from(keys))
            node = node[key]
        if parent is None:
            continue
        kind = draw(st.sampled_from(["nudge", "replace", "drop", "copy"]))
        if kind == "nudge" and type(node) is int:  # near-valid values find range holes
            parent[key] = node + draw(st.integers(-20, 20))
        elif kind == "drop":
            del parent[key]
        elif kind == "copy" and isinstance(parent, list):
            parent.append(node)
        else:
            parent[key] = draw(JSON)
    return json.dumps(doc)


def _play_on(state: GameState) -> None:
    """What a tournament, an observer and the odds do with a state."""
    seat = state.current
    view = public_view(state, seat)
    Observer(state.rules, odds_features=False).observe(view, seat)
    if not state.game_over:
        leg_rank_probabilities(state)
        leg_bet_evs(state)
        legal = legal_action_indices(state)
        if legal:
            apply_action(state, legal[0], np.random.default_rng(0))
    assert GameState.from_json(state.to_json()) == state


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_documents())
def test_mutated_state_files_raise_only_value_error(text: str) -> None:
    try:
        state = GameState.from_json(text)
    except ValueError:
        return
    _play_on(state)


def test_every_sampled_state_is_accepted_and_plays_on() -> None:
    """The generator's base states are valid, so the property above starts from real ones."""
    for state in STATES:
        _play_on(GameState.from_json(state.to_json()))
