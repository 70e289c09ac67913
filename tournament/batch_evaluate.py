"""Evaluation on the batch core: every game of an evaluation at once, for agents that decide
whole batches.

``camelup evaluate`` plays its games through the referee: isolated bot processes, one game at a
time per worker. When the candidate and the opponent can both decide a batch of games in one
call - a policy model file (``ppo:``, one forward pass; a model file is data, so it is loaded
here, not sandboxed) or the built-in ``random`` (drawn by the batch core) - and the batch core
plays the rule set, :func:`evaluate_on_batch` plays the same evaluation on
:class:`~camelup_env.batch.games.BatchGames` instead: the same seat rotations and paired seeds
(game ``g``: the candidate in seat ``g mod n``, seed ``seed + g // n``), the same win shares,
coins and clustered interval, the same ``max_turns``. The dice of a seed are the batch core's,
so a game is not the referee's game of that seed; the results are equal in distribution
(``tests/test_batch_evaluate.py``).
"""

from __future__ import annotations

import numpy as np

import agents
from agents.batch_player import BatchPlayer, batch_capable, mixed_actions
from camelup_env.batch.arrays import BATCH_PRESETS
from camelup_env.batch.games import BatchGames
from camelup_env.batch.playout import play_to_end
from camelup_env.game.rewards import win_shares
from camelup_env.game.rules import RuleSet
from tournament.eval_result import CandidateGame, EvalResult, evaluation_result


def plays_on_batch(candidate: str, opponent: str, rules: RuleSet) -> bool:
    return rules.preset in BATCH_PRESETS and batch_capable(candidate) and batch_capable(opponent)


def evaluate_on_batch(
    candidate: str, opponent: str, rules: RuleSet, games: int, seed: int, max_turns: int
) -> EvalResult:
    """``games`` seat-rotated, paired games of ``candidate`` against ``opponent`` in every
    other seat, all on the batch core (see the module docstring)."""
    n = rules.num_players
    seat = np.arange(games) % n  # the candidate's seat in each game
    seeds = seed + np.arange(games) // n
    board = BatchGames(rules, games, seed=seeds)
    players = [
        BatchPlayer(agents.make(spec), rules, games, player_seed)
        for spec, player_seed in ((candidate, seed), (opponent, seed + 1))
    ]
    who = np.ones((games, n), np.int64)  # the opponent in every seat
    who[np.arange(games), seat] = 0  # the candidate in its own
    final = play_to_end(
        board, lambda b, idx: mixed_actions(players, who, b, idx), max_turns=max_turns
    )
    shares = win_shares(final)[np.arange(games), seat]
    rows = []
    for g in range(games):
        coins, me = final[g], int(seat[g])
        others = np.delete(coins, me)
        rows.append(
            CandidateGame(
                game=g,
                seed=int(seeds[g]),
                seat=me,
                win_share=float(shares[g]),
                coins=float(coins[me]),
                opponent_coins=float(others.mean()),
                forfeit=False,
            )
        )
    return evaluation_result(candidate, opponent, rules, rows)
