"""Games played to their end on the batch core, and who won them.

Evaluation (:mod:`tournament.batch_evaluate`) and search by rollouts
(:mod:`agents.rollout_search`) both hand a batch of games to players that decide many games
per call and need each game's final coins; this loop is theirs. A player is a function
``choose(games, idx) -> actions`` giving the action of the seat on move in each game of
``idx`` (one forward pass of a policy, say).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from camelup_env.batch.games import BatchGames

#: ``choose(games, idx)``: the (len(idx),) actions of the seats on move in games ``idx``.
Chooser = Callable[[BatchGames, np.ndarray], np.ndarray]


def play_to_end(
    games: BatchGames,
    choose: Chooser,
    *,
    max_turns: int | None = None,
    check: bool = True,
) -> np.ndarray:
    """Step every unfinished game with ``choose`` until all have ended; (N, P) final coins.

    A game over on entry keeps its coins. ``max_turns`` (``None``: no limit): a game that
    reaches that many actions is truncated and scored with its coins as they stand.
    ``check=False`` steps through :meth:`BatchGames.step_unchecked`, for choosers whose
    actions follow the legal masks.
    """
    final = np.zeros((len(games), games.rules.num_players), np.int64)
    done = games.game_over.copy()
    final[done] = games.coins[done]
    while not done.all():
        idx = np.flatnonzero(~done)
        actions = np.full(len(games), -1, np.int64)
        actions[idx] = choose(games, idx)
        step = games.step if check else games.step_unchecked
        result = step(actions, max_turns=max_turns)
        ended = (result.terminated | result.truncated) & ~done
        final[ended] = result.final_coins[ended]
        done |= ended
    return final
