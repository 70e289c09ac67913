"""Race-card timing (agents/card_timing.py, R4.4 a card is used once, R7.2 its payout by its
place on the pile): the horizon's arithmetic, the late payout read from the piles, and the
champion's option playing every kind of rule set."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.card_timing import keep_charges, next_turn_horizon
from agents.expert import keep_value
from camelup_env import RuleSet, new_game
from camelup_env.match import play_game
from camelup_env.odds import LegScenarios, RaceOdds


def _scenarios(leads: list[int]) -> LegScenarios:
    n = len(leads)
    zeros = np.zeros(n, dtype=np.int64)
    return LegScenarios(np.zeros((n, 5), dtype=np.int64), zeros, zeros, np.array(leads))


def _race(win: list[float], last: list[float]) -> RaceOdds:
    z = np.zeros(5)
    return RaceOdds(np.array(win), np.array(last), z, z, 1000)


def test_r4_4_horizon_is_the_chance_the_race_outlives_the_others_turns() -> None:
    s = new_game(RuleSet("classic", num_players=4), seed=0).copy()  # 5 reveals left
    L = s.rules.track_length
    assert next_turn_horizon(s, _scenarios([L, L - 3, 5, 9])) == 1.0  # no leg end past the line
    half = _scenarios([L + 1, L + 2, L, 3])  # the race ends in half the leg's outcomes
    assert next_turn_horizon(s, half) == pytest.approx(1 - 0.5 * 3 / 5)
    s.pyramid, s.pyramid_tiles_left = s.pyramid[:2], 2  # the other three can make both reveals
    assert next_turn_horizon(s, half) == pytest.approx(0.5)


def test_r7_2_late_payout_is_read_from_the_piles() -> None:
    s = new_game(RuleSet("classic", num_players=4), seed=0).copy()
    win, last = [0.4, 0.3, 0.2, 0.1, 0.0], [0.0, 0.1, 0.2, 0.3, 0.4]
    none = (np.zeros((0, 5)), np.zeros((0, 5)))
    keep = keep_charges(s, _race(win, last), none, _scenarios([5, 6]))
    # empty piles, the race sure to go on: the expert's keep value at its first payout
    expected = [
        keep_value(w, lo, 1.0, s.rules.race_bet_payouts[0]) for w, lo in zip(win, last, strict=True)
    ]
    np.testing.assert_allclose(keep, expected)
    # a card read as surely backing camel 0 on the winner pile: a late card on 0 is second
    s.winner_pile = ((1, -1),)
    read = (np.eye(5)[[0]], np.zeros((0, 5)))
    keep = keep_charges(s, _race(win, last), read, _scenarios([5, 6]))
    pay = s.rules.race_bet_payouts
    assert keep[0] == pytest.approx(0.4 * pay[1] + 0.0 * pay[0])
    assert keep[1] == pytest.approx(0.3 * pay[0] + 0.1 * pay[0])


@pytest.mark.parametrize(
    "rules",
    [
        RuleSet("classic", num_players=4),
        RuleSet("second_edition", num_players=6),
        RuleSet("persian_tutorial", num_players=3),  # no joint outcomes: the expert's charge
    ],
    ids=lambda r: f"{r.preset}-{r.num_players}",
)
def test_champion_with_race_timing_plays_legal_moves(rules: RuleSet) -> None:
    timed = agents.make("champion", race_timing=True)
    lineup = [timed if s % 2 == 0 else agents.make("greedy") for s in range(rules.num_players)]
    result = play_game(rules, lineup, seed=7, catch=False)
    assert result.forfeit is None and not result.truncated
