"""An agent deciding whole batches of games on the batch core: a policy model file (one forward
pass for every game where it is on move) or the built-in uniform random agent (drawn by the
batch core's own random streams, one per game).

Evaluations on the batch core (:mod:`tournament.batch_evaluate`) and the win network's games
(:mod:`training.odds.win_network`) seat these players. Nothing else decides batches: a model file is
data, loaded here; any other agent may run a stranger's code and plays through the referee.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.base import Agent
from agents.ppo import PolicyAgent
from camelup_env.batch.games import BatchGames, random_streams
from camelup_env.game.rules import RuleSet


def batch_capable(spec: str) -> bool:
    """Whether ``spec`` decides batches of games in this process: a policy model file or the
    built-in random agent (nothing that runs a stranger's code)."""
    return spec == "random" or spec.startswith("ppo:")


class BatchPlayer:
    """``agent`` (a policy file's or the random agent) deciding every game of a batch of ``n``
    where it is on move; a random player draws from ``n`` streams seeded by ``seed`` (game
    ``i``: stream ``i``)."""

    def __init__(self, agent: Agent, rules: RuleSet, n: int, seed: int) -> None:
        self.random = getattr(agent, "uniform_random", False)
        if self.random:
            self.streams = random_streams(n, seed)
        else:
            if not isinstance(agent, PolicyAgent):
                raise ValueError(f"{agent!r} cannot decide batches: only ppo:FILE and random can")
            agent.check_rules(rules)
            self.policy = agent

    def act(self, games: BatchGames, idx: np.ndarray) -> np.ndarray:
        """The actions of the games ``idx`` (their current player is this one)."""
        if self.random:
            return games.random_actions(self.streams, idx)[idx]
        return self.policy.act_games(games, idx)


def mixed_actions(
    players: Sequence[BatchPlayer], who: np.ndarray, games: BatchGames, idx: np.ndarray
) -> np.ndarray:
    """The actions of the games ``idx``, each decided by ``players[who[game, seat on move]]``
    (one call per player for all of its games)."""
    seats = games.current_player[idx].astype(np.int64)
    mover = who[idx, seats]
    actions = np.empty(idx.size, np.int64)
    for p, player in enumerate(players):
        rows = mover == p
        if rows.any():
            actions[rows] = player.act(games, idx[rows])
    return actions
