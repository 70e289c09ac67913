"""The camelup_v1 observation: named slices, contents, and no leak of hidden cards (R10)."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from camelup_env import RuleSet, apply_action, legal_action_indices, new_game, ranking
from camelup_env.observation import (
    HIDDEN,
    SLICES,
    Observer,
    ReferenceObserver,
    layout_of,
    markdown_table,
    public_view,
)
from camelup_env.observation.reference import ENCODERS, ODDS_SLICES

RULESETS = [
    RuleSet("classic", num_players=2),
    RuleSet("classic", num_players=4),
    RuleSet("second_edition", num_players=4),
    RuleSet("second_edition", num_players=6),
    RuleSet("second_edition", num_players=8),
    RuleSet("supercup", num_players=4, extra_action=True),
    RuleSet("supercup", num_players=10),
]


def random_state(rules: RuleSet, seed: int, steps: int):
    rng = np.random.default_rng(seed)
    state = new_game(rules, seed=rng)
    for _ in range(steps):
        if state.game_over:
            break
        legal = legal_action_indices(state)
        state, _ = apply_action(state, legal[rng.integers(len(legal))], rng)
    return state


@pytest.mark.parametrize("odds", [False, True])
@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: f"{r.preset}-{r.num_players}")
def test_layout_covers_vector_exactly(rules: RuleSet, odds: bool) -> None:
    ob = Observer(rules, odds_features=odds)
    spans = sorted(ob.layout.values())
    assert spans[0][0] == 0 and spans[-1][1] == ob.size
    for (_, stop), (start, _) in itertools.pairwise(spans):
        assert stop == start  # contiguous, no overlap, no gap
    for name, (a, b) in ob.layout.items():
        assert b - a == int(np.prod(ob.shapes[name])) > 0
    assert ob.low.shape == ob.high.shape == (ob.size,)


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: f"{r.preset}-{r.num_players}")
def test_observation_decodes_to_the_state(rules: RuleSet) -> None:
    ob = Observer(rules, odds_features=False)
    n, R, L = rules.num_players, rules.n_racing, rules.track_length
    for seed in range(6):
        state = random_state(rules, seed, 10 + 25 * seed)
        for seat in range(n):
            obs = ob.observe(state, seat)
            assert obs.dtype == np.float32 and obs.shape == (ob.size,)
            assert np.all(obs >= ob.low) and np.all(obs <= ob.high)
            space = ob.view(obs, "camel_space")
            for s, stack in state.stacks.items():
                for h, camel in enumerate(stack):
                    if 1 <= s <= L:
                        assert space[camel, s - 1] == 1 and space[camel].sum() == 1
                    assert ob.view(obs, "camel_height")[camel] == pytest.approx(
                        h / (rules.n_camels - 1)
                    )
            rank = ob.view(obs, "racing_rank")
            assert [int(np.argmax(rank[:, r])) for r in range(R)] == ranking(state.stacks, R)
            rel = [(s - seat) % n for s in range(n)]
            coins = ob.view(obs, "coins")
            assert [coins[rel[s]] * 20 for s in range(n)] == pytest.approx(list(state.coins))
            assert ob.view(obs, "is_current")[rel[state.current]] == 1
            for slot, (owner, camel) in enumerate(state.winner_pile):
                assert np.argmax(ob.view(obs, "winner_pile")[slot]) == rel[owner]
                if owner == seat:
                    assert ob.view(obs, "own_cards")[camel, 1] == 1
            for space_, (owner, side) in state.tiles.items():
                row = ob.view(obs, "tiles")[space_ - 2]
                assert row[rel[owner]] == 1 and row[n + (0 if side > 0 else 1)] == 1
            own = ob.view(obs, "own_cards")
            assert [bool(own[c, 0]) for c in range(R)] == [
                bool(state.hands[seat] >> c & 1) for c in range(R)
            ]
            values = sorted(set(rules.leg_bet_values), reverse=True)
            mult = np.array([rules.leg_bet_values.count(v) for v in values])
            held = ob.view(obs, "leg_bets_held") * mult  # tiles held per seat, colour, value
            for s in range(n):
                assert held[rel[s]].sum() == pytest.approx(len(state.leg_bets[s]))
                for camel, value in state.leg_bets[s]:
                    assert held[rel[s], camel, values.index(value)] >= 1 - 1e-6


def scramble_hidden(state, viewer_owner: int, data: st.DataObject):
    """Give ``viewer_owner``'s pile cards other colours (each colour at most once per player)
    and derive its hand from them, as the rules allow."""
    R = state.rules.n_racing
    mine = [i for i, (o, _) in enumerate(state.winner_pile + state.loser_pile) if o == viewer_owner]
    colours = data.draw(st.permutations(range(R)))[: len(mine)]
    cards = list(state.winner_pile + state.loser_pile)
    for i, c in zip(mine, colours, strict=True):
        cards[i] = (viewer_owner, c)
    nw = len(state.winner_pile)
    hands = list(state.hands)
    hands[viewer_owner] = ((1 << R) - 1) & ~sum(1 << c for c in colours)
    return replace(
        state, winner_pile=tuple(cards[:nw]), loser_pile=tuple(cards[nw:]), hands=tuple(hands)
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules_i=st.integers(0, len(RULESETS) - 1),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 120),
    data=st.data(),
)
def test_no_leak_of_other_players_race_bet_colours(
    rules_i: int, seed: int, steps: int, data: st.DataObject
) -> None:
    rules = RULESETS[rules_i]
    ob = Observer(rules, odds_features=False)
    state = random_state(rules, seed, steps)
    owner = data.draw(st.integers(0, rules.num_players - 1))
    other = scramble_hidden(state, owner, data)
    for seat in range(rules.num_players):
        a, b = ob.observe(state, seat), ob.observe(other, seat)
        if seat != owner:
            assert np.array_equal(a, b), f"seat {seat} sees seat {owner}'s hidden cards"
        elif other.hands[owner] != state.hands[owner]:
            assert not np.array_equal(a, b), "a seat must see its own cards"
        if seat != owner:
            assert public_view(state, seat) == public_view(other, seat)


def test_own_cards_are_visible_to_their_owner() -> None:
    rules = RuleSet("classic", num_players=3)
    ob = Observer(rules, odds_features=False)
    state = replace(
        new_game(rules, seed=0),
        winner_pile=((1, 3),),
        loser_pile=((0, 2),),
        hands=(0b11011, 0b10111, 0b11111),
    )
    own0 = ob.view(ob.observe(state, 0), "own_cards")
    own1 = ob.view(ob.observe(state, 1), "own_cards")
    assert own0[2].tolist() == [0, 0, 1, 0] and own1[3].tolist() == [0, 1, 0, 0]
    assert own0[3, 1] == 0 and own1[2, 2] == 0  # not the other seat's card
    assert ob.view(ob.observe(state, 2), "own_cards")[:, 1:].sum() == 0


def test_public_view_hides_exactly_the_private_fields() -> None:
    rules = RuleSet("classic", num_players=3)
    state = replace(
        new_game(rules, seed=0),
        winner_pile=((1, 3), (0, 1)),
        loser_pile=((2, 2),),
        hands=(0b11101, 0b10111, 0b11011),
    )
    view = public_view(state, 0)
    assert view.winner_pile == ((1, HIDDEN), (0, 1)) and view.loser_pile == ((2, HIDDEN),)
    assert view.hands == (0b11101, HIDDEN, HIDDEN)
    assert view.stacks == state.stacks and view.coins == state.coins
    assert public_view(state, None).hands == (HIDDEN,) * 3
    assert state.hands == (0b11101, 0b10111, 0b11011)  # the original is untouched


@pytest.mark.parametrize("rules", [RULESETS[1], RULESETS[3]], ids=["classic-4", "second_edition-6"])
def test_odds_features_match_the_odds_module(rules: RuleSet) -> None:
    from camelup_env import odds

    ob = Observer(rules, odds_features=True, race_samples=100)
    R = rules.n_racing
    for seed, steps in ((0, 0), (1, 30), (2, 200)):
        state = random_state(rules, seed, steps)
        obs = ob.observe(state, 0)
        assert np.array_equal(obs, ob.observe(state, 0))  # deterministic
        if state.game_over:
            order = ranking(state.stacks, R)
            assert ob.view(obs, "race_winner_prob")[order[0]] == 1
            continue
        probs = odds.leg_rank_probabilities(state)
        assert ob.view(obs, "leg_rank_prob") == pytest.approx(probs, abs=1e-6)
        evs = odds.leg_bet_evs(state)
        got = ob.view(obs, "leg_bet_ev") * max(rules.leg_bet_values)
        avail = ob.view(obs, "leg_bet_available")
        assert got[avail == 1] == pytest.approx(evs[~np.isnan(evs)], abs=1e-5)
        assert ob.view(obs, "race_winner_prob").sum() == pytest.approx(1, abs=1e-5)
        assert np.all(obs >= ob.low) and np.all(obs <= ob.high)


ALL_RULESETS = [
    *RULESETS,
    RuleSet("cup"),
    RuleSet("persian_tutorial", num_players=4),
    RuleSet("second_edition", num_players=6, partnerships=True),
]


@pytest.mark.parametrize(
    ("odds", "values"), [(False, False), (True, False), (False, True), (True, True)]
)
@pytest.mark.parametrize(
    "rules",
    ALL_RULESETS,
    ids=lambda r: f"{r.preset}-{r.num_players}{'-partners' if r.partnerships else ''}",
)
def test_incremental_observer_equals_the_reference_observer(
    rules: RuleSet, odds: bool, values: bool
) -> None:
    """The Observer updates a seat-independent vector part by part and permutes it per seat;
    it must equal the reference observer (every slice from scratch) exactly, whatever order
    states come in (steps of one game, then states of several games shuffled, which defeats
    every part's memo)."""
    ob = Observer(rules, odds_features=odds, race_samples=20, action_values=values)
    ref = ReferenceObserver(rules, odds_features=odds, race_samples=20, action_values=values)
    assert ref.layout.spans == ob.layout and ref.layout.size == ob.size
    rng = np.random.default_rng(7)
    games = []
    n_games, length = (3, 150) if not values else (2, 40)  # values: a few ms per state
    for seed in range(n_games):
        state, states = new_game(rules, seed=seed), []
        while not state.game_over and len(states) < length:
            states.append(state)
            legal = legal_action_indices(state)
            state, _ = apply_action(state, legal[rng.integers(len(legal))], rng)
        games.append([*states, state])
    in_order = [s for game in games for s in game]
    shuffled = [in_order[i] for i in rng.permutation(len(in_order))]
    for state in in_order + shuffled:
        for seat in range(rules.num_players):
            fast = ob.observe(state, seat)
            assert np.array_equal(fast, ref.observe(state, seat)), (seat, state)


def test_the_slice_table_is_the_one_description_of_every_slice() -> None:
    """Each slice has one entry (name, shape, meaning), the reference observer one encoder
    for each (the estimates aside), and the rendered table shows each one."""
    names = [s.name for s in SLICES]
    assert len(names) == len(set(names))
    assert set(names) == set(ENCODERS) | set(ODDS_SLICES) | {"action_values"}
    table = markdown_table()
    for piece in SLICES:
        assert f"| `{piece.name}` |" in table and piece.meaning in table
    layout = layout_of(RuleSet("classic", num_players=4), True, True)
    concrete = markdown_table(layout)
    assert "| `tiles` | (15, 6) | [" in concrete and "support_dice" not in concrete


def test_the_sizes_in_the_env_docstring() -> None:
    """camelup_v1's docstring quotes the vector's size per rule set: each figure is the size."""
    import re

    import camelup_env.camelup_v1 as mod

    sizes = mod.__doc__.split("Sizes with the default slices:")[1].split("\n\n")[0]
    checked = 0
    for group in " ".join(sizes.split()).rstrip(".").split(";"):
        preset = re.match(r"\s*([a-zA-Z ]+?) \d+p", group)
        if preset is None:  # the Cup has one table size: test_C1_cup_sizes_in_the_docstring
            continue
        name = preset.group(1).lower().replace(" ", "_")
        for players, extra, size in re.findall(r"(\d+)p (\(extra action\) )?(\d+)", group):
            rules = RuleSet(name, num_players=int(players), extra_action=bool(extra))
            assert Observer(rules).size == int(size), (name, players)
            checked += 1
    assert checked == 9


def test_the_docs_render_the_slice_table_from_the_code() -> None:
    """docs/environment.md carries a marker, not a copy; the MkDocs hook puts the table there."""
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    page = (root / "docs" / "environment.md").read_text()
    spec = importlib.util.spec_from_file_location("docs_hooks", root / "docs" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    assert page.count(hooks.SLICE_TABLE_MARKER) == 1
    rendered = hooks.on_page_markdown(page, None, None, None)
    assert markdown_table() in rendered and hooks.SLICE_TABLE_MARKER not in rendered


@pytest.mark.parametrize("odds", [False, True])
def test_action_values_off_is_the_camelup_v0_observation_bit_for_bit(odds: bool) -> None:
    """Models trained on camelup_v0 are loaded with ``action_values=False``: the vector must be
    the one they were trained on, to the bit (digests written by the v0 Observer, see
    ``observation_v0_states``), odds slices and their race estimate included."""
    import hashlib
    import json
    from pathlib import Path

    from observation_v0_states import STATE_RECIPES, states_of

    recorded = json.loads((Path(__file__).parent / "observation_v0.json").read_text())
    for name, (preset, players, seed, count) in STATE_RECIPES.items():
        rules = RuleSet(preset, num_players=players)
        ob = Observer(rules, odds_features=odds, action_values=False)
        assert ob.metadata == {"odds_features": odds, "race_samples": 200, "action_values": False}
        digests = [
            hashlib.sha256(ob.observe(state, seat).tobytes()).hexdigest()[:16]
            for state in states_of(rules, seed, count)
            for seat in range(players)
        ]
        assert digests == recorded[f"{name}/odds={odds}"], name
