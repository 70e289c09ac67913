"""The rollout agent (``rollout:``): its candidates played out on the batch core, on common
dice, scored by the win share at the end; legal, reproducible play; presets the batch core does
not play refused before a game."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import agents
from agents import shipped
from camelup_env.game.actions import action_table
from camelup_env.game.legality import legal_action_indices
from camelup_env.game.rules import RuleSet
from camelup_env.game.sampling import random_positions
from camelup_env.match import play_game
from camelup_env.observation import public_view

MODEL = shipped.model_path("classic2")


def test_rollouts_of_one_move_twice_score_alike_on_common_dice() -> None:
    """Rollout k of every candidate draws its dice from one stream and its hidden cards from
    one deal, so a move listed twice scores exactly the same; scores are win shares."""
    rules = RuleSet("classic", num_players=2)
    agent = agents.make(f"rollout:{MODEL}", rollouts=8)
    agent.reset(0)
    checked = 0
    for state in random_positions(rules, 6, seed=11, keep=0.5):
        view = public_view(state, state.current)
        agent.warmup(view)
        legal = legal_action_indices(state)
        moves = [legal[0], legal[-1], legal[0], legal[-1]]
        scores = agent.play_out(view, state.current, moves)
        assert scores.shape == (4,) and np.all((scores >= 0) & (scores <= 1))
        assert scores[0] == scores[2] and scores[1] == scores[3]
        checked += 1
    assert checked >= 3


def test_rollouts_are_scored_by_who_wins_at_the_end() -> None:
    """Played out to its end a game is scored by who won it: 100 coins ahead the agent wins
    every rollout, 100 behind none (no move of a race is worth 100 coins)."""
    rules = RuleSet("classic", num_players=2)
    agent = agents.make(f"rollout:{MODEL}", rollouts=4)
    agent.reset(1)
    state = random_positions(rules, 1, seed=5, keep=0.2)[0]
    me = state.current
    roll = action_table(rules).pyramid
    for rich, expected in ((me, 1.0), (1 - me, 0.0)):
        board = state.copy()
        board.coins = tuple(c + (100 if seat == rich else 0) for seat, c in enumerate(board.coins))
        view = public_view(board, me)
        agent.warmup(view)
        assert agent.play_out(view, me, [roll]).tolist() == [expected]


def test_rollout_plays_legal_moves_and_is_reproducible() -> None:
    rules = RuleSet("classic", num_players=2)
    coins = []
    for _ in range(2):
        rollout = agents.make(f"rollout:{MODEL}", candidates=2, rollouts=4)
        rollout.reset(7)
        result = play_game(rules, [rollout, agents.make("greedy")], seed=3, catch=False)
        assert result.forfeit is None
        coins.append(result.coins)
    assert coins[0] == coins[1]


def test_presets_off_the_batch_core_are_refused() -> None:
    rules = RuleSet("cup", num_players=4)  # the shipped cup4 plays it; the batch core does not
    agent = agents.make("rollout:cup4")
    state = next(iter(random_positions(rules, 1, seed=0)))
    with pytest.raises(ValueError, match="batch core"):
        agent.warmup(public_view(state, 0))
