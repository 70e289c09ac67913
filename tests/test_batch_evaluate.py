"""camelup evaluate on the batch core (tournament/batch_evaluate.py) against the referee."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import agents
from agents.batch_player import BatchPlayer, mixed_actions
from camelup_env.batch import BatchGames
from camelup_env.game.rules import RuleSet
from tournament.batch_evaluate import plays_on_batch
from tournament.evaluate import evaluate

CLASSIC4 = RuleSet("classic", num_players=4)
EXPERT = "ppo:expert_classic4"
GREEDY = "ppo:greedy_classic4"


def test_batch_evaluation_rotates_seats_and_pairs_seeds() -> None:
    result = evaluate(EXPERT, "random", CLASSIC4, 40, seed=5)
    assert [g.seat for g in result.per_game] == [g % 4 for g in range(40)]
    assert [g.seed for g in result.per_game] == [5 + g // 4 for g in range(40)]
    assert result.win_share > 0.9 and result.forfeits == 0  # a copy of expert against random


def test_batch_evaluation_equals_the_referee_in_distribution() -> None:
    """The same evaluation (a policy against three policies) through the referee's bot
    processes and on the batch core: win shares and coins agree within their intervals."""
    games = 320
    batch = evaluate(EXPERT, GREEDY, CLASSIC4, games, seed=21)
    referee = evaluate(EXPERT, GREEDY, CLASSIC4, games, seed=21, workers=2, referee=True)
    assert referee.games == batch.games == games
    # 95% half-widths are ~1.96 standard errors: the difference of two independent estimates
    # stays within about 2.5 combined standard errors nearly always
    se = math.hypot(batch.ci_high - batch.win_share, referee.ci_high - referee.win_share) / 1.96
    assert abs(batch.win_share - referee.win_share) < 2.5 * se + 0.01
    assert abs(batch.mean_coins - referee.mean_coins) < 2.5


def test_only_batch_capable_agents_on_batch_presets_play_on_the_batch_core() -> None:
    assert plays_on_batch(EXPERT, "random", CLASSIC4)
    assert not plays_on_batch(EXPERT, "greedy", CLASSIC4)
    assert not plays_on_batch("py:agents.random_agent:RandomAgent", "random", CLASSIC4)
    assert not plays_on_batch("random", "random", RuleSet("supercup", num_players=4))


def test_mixed_seats_are_decided_by_the_player_each_game_seats_there() -> None:
    """``mixed_actions``: every game's mover decided by the player its seat names, the same
    actions as that player gives those games alone; an agent that cannot decide batches is
    refused in one line."""
    n = 64
    board = BatchGames(CLASSIC4, n, seed=np.arange(n))
    expert = agents.make(EXPERT)
    who = np.random.default_rng(0).integers(0, 2, size=(n, 4))
    dice = agents.make("random")
    mixed = [BatchPlayer(expert, CLASSIC4, n, 0), BatchPlayer(dice, CLASSIC4, n, 9)]
    idx = np.arange(n)
    actions = mixed_actions(mixed, who, board, idx)
    mover = who[idx, board.current_player.astype(np.int64)]
    alone = BatchPlayer(dice, CLASSIC4, n, 9)
    np.testing.assert_array_equal(actions[mover == 1], alone.act(board, idx[mover == 1]))
    np.testing.assert_array_equal(actions[mover == 0], expert.act_games(board, idx[mover == 0]))
    assert 0 < (mover == 0).sum() < n
    with pytest.raises(ValueError, match="cannot decide batches: only ppo:FILE and random can"):
        BatchPlayer(agents.make("greedy"), CLASSIC4, n, 0)
