"""The baselines play the Camel Up Cup preset (docs/rules.md C1-C11): whole games, greedy's and
expert's values on the Cup's payouts (the odds against the engine itself), and greedy and expert
against random."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from engine_positions import CLASSIC, position

import agents
from camelup_env import RuleSet, apply_outcome, chance_outcomes, odds
from camelup_env.game.actions import PlaceTile, RaceBet, TakeLegBet, TakePyramidTile, action_table
from camelup_env.game.events import TilePayout
from camelup_env.game.movement import ranking
from camelup_env.game.state import WINNER_PILE
from camelup_env.match import play_game
from camelup_env.odds.action_values import action_values

CUP = RuleSet("cup")
B, G, OR, Y, W = (CLASSIC[c] for c in ("blue", "green", "orange", "yellow", "white"))
#: Near the line, two dice left: traps past it matter (C7).
NEAR = {13: (OR,), 14: (Y, B), 15: (G, W)}


def leg_outcomes(state, owner: int):
    """Exact (ranking, coins to ``owner`` from its tile) of every way the leg can end, with
    probabilities: the engine's own chance outcomes, enumerated."""
    out = []
    stack = [(state, Fraction(1), 0)]
    while stack:
        s, p, paid = stack.pop()
        if s.game_over or s.leg != state.leg:
            out.append((s, p, paid))
            continue
        for roll, q in chance_outcomes(s, TakePyramidTile()):
            t, events = apply_outcome(s, TakePyramidTile(), roll)
            got = sum(e.coins for e in events if isinstance(e, TilePayout) and e.owner == owner)
            stack.append((t, p * q, paid + got))
    return out


@pytest.mark.parametrize("tile", [(17, -1), (16, 1), (18, 1)])
def test_C7_tile_and_leg_odds_with_traps_past_the_line_match_the_engine(tile) -> None:
    s = position(rules=CUP, stacks=NEAR, pyramid=(B, G, W), pyramid_tiles_left=3)
    space, side = tile
    exact = odds.placement_evs(s, 0)[(space, side)]
    placed, _ = apply_outcome(s, PlaceTile(space, side), None)
    ends = leg_outcomes(placed, owner=0)
    assert exact == pytest.approx(float(sum(p * paid for _, p, paid in ends)), abs=1e-12)
    probs = odds.leg_rank_probabilities(placed)
    for camel in range(5):
        first = sum(p for t, p, _ in ends if ranking(t.stacks, 5)[0] == camel)
        assert probs[camel, 0] == pytest.approx(float(first), abs=1e-12)


def test_C5_greedy_values_a_late_round_bet_at_the_cups_payout() -> None:
    s = position(rules=CUP, stacks=NEAR, leg_stacks=((0,), (5, 3, 2, 0), (0,), (2, 0), (0,)))
    values = action_values(s)
    probs = odds.leg_rank_probabilities(s)
    table = action_table(CUP)
    for camel in (B, OR, W):  # a fourth bet: 0 if first or second, -1 otherwise
        assert values[table.index[TakeLegBet(camel)]] == pytest.approx(
            -(1 - probs[camel, 0] - probs[camel, 1])
        )
    assert values[table.index[TakeLegBet(Y)]] == pytest.approx(
        2 * probs[Y, 0] + probs[Y, 1] - (1 - probs[Y, 0] - probs[Y, 1])
    )
    assert values[table.pyramid] == 1


def test_C9_greedy_values_race_bets_on_the_cups_ladder() -> None:
    # three cards below ours: with the Cup's 8, 5, 3, 1 a fourth correct card pays 1, not 2
    s = position(
        rules=CUP,
        stacks={15: (OR, Y, B, G, W)},
        winner_pile=((1, -1), (2, -1), (3, -1)),
        hands=(31, -1, -1, -1),
    )
    race = odds.position_odds(s, 1000).race
    p = float(race.winner[W])
    q = 1 - (1 - p) ** 1
    ladder = (8, 5, 3, 1)
    spread = np.zeros(4)
    spread[0] = 1
    for _ in range(3):
        spread = np.concatenate([spread[:1] * (1 - q), spread[1:] * (1 - q) + spread[:-1] * q])
    expected = p * float(spread @ np.array(ladder)) - (1 - p)
    greedy = agents.make("greedy").action_values(
        s, [action_table(CUP).index[RaceBet(WINNER_PILE, W)]]
    )
    assert next(iter(greedy.values())) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("name", ["random", "heuristic", "greedy", "lookahead", "expert"])
def test_C1_every_baseline_plays_whole_cup_games(name: str) -> None:
    result = play_game(
        CUP,
        [agents.make(name), agents.make("random"), agents.make(name), agents.make("random")],
        seed=4,
    )
    assert result.forfeit is None and not result.truncated


def test_C1_greedy_and_expert_beat_random_at_the_cup() -> None:
    margins = {"greedy": [], "expert": []}
    wins = 0
    for seed in range(8):
        seats = (
            ["greedy", "random", "expert", "random"]
            if seed % 2
            else ["random", "expert", "random", "greedy"]
        )
        result = play_game(CUP, [agents.make(n) for n in seats], seed=seed)
        best_random = max(c for n, c in zip(seats, result.coins, strict=True) if n == "random")
        for name in margins:
            margins[name].append(result.coins[seats.index(name)] - best_random)
        wins += all(seats[w] != "random" for w in result.winners)
    assert wins >= 7
    for name, m in margins.items():
        assert np.mean(m) > 8, (name, m)
