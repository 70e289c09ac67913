"""An agent deciding whole batches of games on the batch core: a policy model file (one forward
pass for every game where it is on move) or the built-in uniform random agent (drawn by the
batch core's own random streams, one per game); and, for training only, a registered scripted
bot such as ``champion`` deciding the games one by one through the reference engine.

Evaluations on the batch core (:mod:`tournament.batch_evaluate`) and the win network's games
(:mod:`training.odds.win_network`) seat :class:`BatchPlayer`. Nothing else decides batches
there: a model file is data, loaded here; any other agent may run a stranger's code and plays
through the referee. :class:`EngineBatchPlayer` takes only the registry's own names (never a
``py:`` or ``cup:`` spec), for the afterstate trainer's opponents (a user's own config).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import agents.base as registry
from agents.base import Agent
from agents.ppo import PolicyAgent
from camelup_env.batch.games import BatchGames, random_streams
from camelup_env.game.rules import RuleSet
from camelup_env.match import observe
from camelup_env.observation import public_view


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

    def deal(self, idx: np.ndarray, seeds: np.ndarray) -> None:
        """The games ``idx`` start anew: nothing to forget (a policy file and the random
        streams remember no game)."""


def scripted(spec: str) -> bool:
    """Whether ``spec`` is a registered agent's plain name (``champion``, ``expert``...), which
    :class:`EngineBatchPlayer` may play in this process: not a prefix spec, which may load a
    stranger's code or file."""
    return ":" not in spec and spec in registry.names()


class EngineBatchPlayer:
    """The registered agent ``name`` deciding the games of a batch one at a time: each game where
    it is on move is read back as the engine's state, and the agent answers that seat's
    observation and public view, as the referee hands them. An agent that remembers a game
    (``per_game``: the champion reads when each race card was placed) is one object per game
    and seat, made anew when the game is dealt (:meth:`deal`), seeded by the game's seed and the
    seat. The engine's speed, not the batch core's: for opponents during training."""

    def __init__(self, name: str, n: int, seed: int) -> None:
        if not scripted(name):
            raise ValueError(f"{name!r} is not a registered agent's name (camelup agents)")
        self.name = name
        self.shared = registry.make(name)
        self.seeds = np.arange(seed, seed + n, dtype=np.int64)
        self.objects: dict[tuple[int, int], Agent] = {}

    def deal(self, idx: np.ndarray, seeds: np.ndarray) -> None:
        """The games ``idx`` start anew from ``seeds``: their memories go."""
        self.seeds[idx] = seeds
        gone = set(np.asarray(idx).tolist())
        self.objects = {k: a for k, a in self.objects.items() if k[0] not in gone}

    def _agent(self, game: int, seat: int) -> Agent:
        if not self.shared.per_game:
            return self.shared
        if (game, seat) not in self.objects:
            agent = registry.make(self.name)
            agent.reset(int(self.seeds[game]) * 16 + seat)
            self.objects[game, seat] = agent
        return self.objects[game, seat]

    def act(self, games: BatchGames, idx: np.ndarray) -> np.ndarray:
        """The actions of the games ``idx`` (their current player is this one)."""
        actions = np.empty(len(idx), np.int64)
        for k, (game, state) in enumerate(zip(idx.tolist(), games.to_states(idx), strict=True)):
            seat = state.current
            actions[k] = self._agent(game, seat)(observe(state, seat), public_view(state, seat))
        return actions


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
