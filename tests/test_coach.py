"""The web coach's numbers for a person's position: greedy's values and each seat's chance to win,
from the person's public view only (R10)."""

from __future__ import annotations

import numpy as np
import pytest
from engine_positions import CLASSIC, position

from camelup_env.game.legality import legal_action_indices
from camelup_env.observation import public_view
from camelup_env.odds.win import equity, load_win_model
from webapp.coach import coach

B, G, OR, W, Y = (CLASSIC[c] for c in ("blue", "green", "orange", "white", "yellow"))


def _with_cards(blue_or_green: int):
    """Seat 1 has a race card on the winner pile (colour ``blue_or_green``), seat 0 one on blue
    on the loser pile; everything else as in a mid-race position."""
    hands = [31] * 3
    hands[0] &= ~(1 << B)
    hands[1] &= ~(1 << blue_or_green)
    return position(
        num_players=3,
        stacks={3: (OR,), 5: (Y, W), 7: (G,), 9: (B,)},
        coins=(9, 8, 7),
        winner_pile=((1, blue_or_green),),
        loser_pile=((0, B),),
        hands=tuple(hands),
    )


def test_R10_the_chances_the_coach_shows_do_not_depend_on_a_hidden_card() -> None:
    """Two games that differ only in the colour of seat 1's hidden card: seat 0 sees the same
    view, and the coach gives it the same chances, the model's on that view, summing to one."""
    views = [public_view(_with_cards(c), 0) for c in (B, G)]
    assert views[0] == views[1]
    shown = [coach(v, legal_action_indices(v)).win for v in views]
    assert shown[0] == shown[1] and shown[0] is not None
    assert sum(shown[0]) == pytest.approx(1.0)
    model = load_win_model(views[0].rules)
    np.testing.assert_allclose(shown[0], model([views[0]])[0])


def test_a_hidden_card_is_valued_between_its_possible_colours() -> None:
    """The view's equity of seat 1 (its card's camel drawn from the race odds) lies strictly
    between its equities with the card known to be on each colour."""
    known = [equity(_with_cards(c))[1] for c in (B, G, OR, W, Y)]
    drawn = equity(public_view(_with_cards(B), 0))
    assert min(known) < drawn[1] < max(known)
    assert drawn[0] == pytest.approx(equity(_with_cards(B))[0])  # seat 0's own card is known
