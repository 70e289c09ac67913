"""The greedy and lookahead agents' values agree with the odds module (R6.2, R5.3, R7.2)."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.greedy import GreedyAgent
from camelup_env import RuleSet, legal_action_indices, new_game, odds
from camelup_env.game.actions import PlaceTile, action_table
from camelup_env.game.payouts import race_card_ev
from camelup_env.game.sampling import random_positions
from camelup_env.observation import public_view
from camelup_env.odds import expected_landings


def positions(preset: str, n: int = 12, players: int = 4):
    """Public views of positions reached by random play (a spread of legs and tiles)."""
    rules = RuleSet(preset, num_players=players)
    return [public_view(s, s.current) for s in random_positions(rules, n, seed=1, keep=0.3)]


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_greedy_values_match_the_odds_module(preset: str) -> None:
    greedy = GreedyAgent(tile_odds="exact", race_samples=500)
    for s in positions(preset):
        table = action_table(s.rules)
        legal = legal_action_indices(s)
        values = greedy.action_values(s, legal)
        assert set(values) == set(legal)
        evs = odds.leg_bet_evs(s)
        for c in range(s.rules.n_racing):
            if c in legal:
                assert values[c] == pytest.approx(evs[c], abs=1e-12)
        if table.pyramid in legal:
            assert values[table.pyramid] == 1.0
        own = s.tile_of(s.current)
        probe = s.copy()
        probe.tiles = {sp: t for sp, t in s.tiles.items() if t[0] != s.current}
        place = odds.placement_evs(probe, s.current)
        base = place[own] if own else 0.0
        for i in legal:
            a = table.actions[i]
            if isinstance(a, PlaceTile):
                assert values[i] == pytest.approx(place[(a.space, a.side)] - base, abs=1e-9)
        if own is None:  # then the tile values are odds.placement_evs exactly
            direct = odds.placement_evs(s, s.current)
            for (space, side), v in direct.items():
                assert values[table.tile_index(space, side)] == pytest.approx(v, abs=1e-12)
        race = odds.position_odds(s, 500).race
        for c in range(s.rules.n_racing):
            i = table.race_index(0, c)
            if i in legal:
                assert values[i] == pytest.approx(
                    race_card_ev(race.winner[c], s.winner_pile, s.current, s.rules.race_bet_payouts)
                )


def test_race_card_ev_by_hand() -> None:
    payouts = (8, 5, 3, 2, 1)
    assert race_card_ev(0.3, (), 0, payouts) == pytest.approx(0.3 * 8 - 0.7)
    # our own earlier card never shows the same camel (one card per colour)
    assert race_card_ev(0.3, ((0, 2),), 0, payouts) == pytest.approx(0.3 * 8 - 0.7)
    # player 1 has two hidden cards, player 2 one: q1 = 1 - 0.5^2, q2 = 0.5
    pile = ((1, -1), (0, 2), (2, -1), (1, -1))
    p0, p1, p2 = 0.25 * 0.5, 0.75 * 0.5 + 0.25 * 0.5, 0.75 * 0.5
    expected = 0.5 * (8 * p0 + 5 * p1 + 3 * p2) - 0.5
    assert race_card_ev(0.5, pile, 0, payouts) == pytest.approx(expected)
    assert race_card_ev(np.array([0.5, 0.3]), pile, 0, payouts)[0] == pytest.approx(expected)


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_fast_tile_values_are_close_to_exact(preset: str) -> None:
    errors = []
    for s in positions(preset, n=8):
        if s.tile_of(s.current) is not None:
            continue
        landings = expected_landings(s)
        for (space, _side), v in odds.placement_evs(s, s.current).items():
            errors.append(landings[space] - v)
    errors = np.abs(errors)
    assert errors.mean() < 0.05 and errors.max() < 0.5


def test_greedy_prefers_a_sure_leg_bet() -> None:
    # blue two spaces clear with one die left that is not blue's: the blue 5 tile is worth 5
    s = new_game(RuleSet("classic", num_players=2), seed=0).copy()
    s.stacks = {10: (0,), 7: (1,), 6: (2, 3, 4)}
    s.pyramid, s.pyramid_tiles_left = (4,), 1
    obs = {"action_mask": np.zeros(len(action_table(s.rules)), np.int8)}
    obs["action_mask"][legal_action_indices(s)] = 1
    assert agents.make("greedy")(obs, public_view(s, 0)) == 0
    choice, scores = agents.make("lookahead").best(public_view(s, 0), legal_action_indices(s))
    assert choice == 0 and scores[0] > scores[action_table(s.rules).pyramid]
