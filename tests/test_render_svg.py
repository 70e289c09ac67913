"""The SVG board: well-formed for every preset, names escaped, other seats' cards hidden (R10)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from camelup_env import RuleSet, apply_action, new_game
from camelup_env.game.actions import RaceBet, action_table
from camelup_env.game.legality import legal_action_indices
from camelup_env.observation import public_view
from camelup_env.render.svg import render_svg

SVG = "{http://www.w3.org/2000/svg}"


def played(rules: RuleSet, moves: int, seed: int = 0):
    """A game after ``moves`` random moves, race bets first whenever one is legal."""
    rng = np.random.default_rng(seed)
    state = new_game(rules, seed=seed)
    table = action_table(rules).actions
    for _ in range(moves):
        legal = legal_action_indices(state)
        bets = [i for i in legal if isinstance(table[i], RaceBet)]
        state, _ = apply_action(state, int(rng.choice(bets or legal)), rng)
    return state


def cards(svg: str) -> list[tuple[int, str]]:
    root = ET.fromstring(svg)
    return [
        (int(g.get("data-owner")), g.get("data-camel"))
        for g in root.iter(f"{SVG}g")
        if g.get("class") == "card"
    ]


@pytest.mark.parametrize("preset", ["classic", "second_edition", "supercup"])
def test_the_board_is_well_formed_svg_with_every_camel(preset: str) -> None:
    state = played(RuleSet(preset, num_players=4), 12)
    root = ET.fromstring(render_svg(state, 0))
    camels = [g.get("data-camel") for g in root.iter(f"{SVG}g") if g.get("class") == "camel"]
    assert sorted(camels) == sorted(state.rules.colours)


def test_R10_other_seats_cards_are_drawn_without_their_colour() -> None:
    state = played(RuleSet("classic", num_players=3), 6)
    piles = [*state.winner_pile, *state.loser_pile]
    assert {owner for owner, _ in piles} == {0, 1, 2}
    colours = state.rules.colours
    mine = sorted((o, colours[c]) for o, c in piles if o == 1)
    assert sorted(c for c in cards(render_svg(state, 1)) if c[0] == 1) == mine
    assert all(camel == "hidden" for owner, camel in cards(render_svg(state, 1)) if owner != 1)
    # a public view hides them even from an omniscient drawing; the real game shows them all
    assert all(
        camel == "hidden"
        for owner, camel in cards(render_svg(public_view(state, 1), None))
        if owner != 1
    )
    assert sorted(cards(render_svg(state, None))) == sorted((o, colours[c]) for o, c in piles)


def test_every_name_is_escaped() -> None:
    rules = RuleSet(
        "classic", num_players=2, racing_colours=("<script>", "a&b", "orange", "yellow", "white")
    )
    svg = render_svg(played(rules, 4), None)
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    ET.fromstring(svg)
