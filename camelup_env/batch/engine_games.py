"""The batch interface played by the Python engine, for rule sets the compiled core does not play.

:class:`EngineGames` answers what :class:`~camelup_env.batch.games.BatchGames` answers -
``legal_action_mask``, ``current_player``, ``step`` with rewards and given dice,
``random_actions``, ``reset``, ``to_states`` - with a list of the engine's states, one game at
a time. Supercup (R9) plays through it, so code written against the batch interface (the
learner-seat loop, :mod:`camelup_env.batch.learner`) serves every preset; :func:`make_games`
picks the compiled core wherever it can.

Each game's dice come from a ``numpy.random.Generator`` seeded with the game's seed, as the
engine's API draws them (and as ``camelup_v1`` does: a game seeded ``s`` here is the AEC
environment's game after ``reset(seed=s)``); a random player draws from the same per-game
streams as the batch core's and picks the same legal action for the same draw (the k-th legal
index, ascending).

Unlike the compiled core, the engine tells what happened: :attr:`EngineGames.events` keeps
each game's typed engine events since its setup, which a one-game environment hands its player
(``SingleAgentEnv``'s ``info["events"]``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from camelup_env.batch import kernels
from camelup_env.batch.arrays import BATCH_PRESETS
from camelup_env.batch.games import BatchGames, StepResult, seed_array
from camelup_env.batch.interface import Games
from camelup_env.batch.streams import draw_below
from camelup_env.game.engine import DieRoll, apply_action, apply_outcome
from camelup_env.game.episode import (
    DEFAULT_COIN_SHAPING,
    DEFAULT_REWARD_MODE,
    EpisodeSettings,
    step_rewards,
)
from camelup_env.game.events import DieRevealed, Event
from camelup_env.game.legality import IllegalActionError, legal_action_indices, legal_action_mask
from camelup_env.game.rules import RuleSet
from camelup_env.game.setup import new_game
from camelup_env.game.state import GameState


class EngineGames:
    """``n`` games of ``rules`` on the Python engine, behind the batch interface."""

    def __init__(
        self,
        rules: RuleSet,
        n: int,
        seed: int | Sequence[int] | np.ndarray = 0,
        first_player: int | Sequence[int] = 0,
    ) -> None:
        if n < 1:
            raise ValueError(f"a batch holds at least one game, got {n}")
        self.rules = rules
        self.num_actions = len(legal_action_mask(new_game(rules, seed=0)))
        self.dice = [np.random.default_rng(int(s)) for s in seed_array(seed, n)]
        self.states = [new_game(rules, seed=0) for _ in range(n)]
        #: Per game, the engine's events (omniscient) of every step since its setup.
        self.events: list[list[Event]] = [[] for _ in range(n)]
        self.turns = np.zeros(n, np.int64)
        #: Per game, the state whose legal mask was last computed and that mask: a learner-seat
        #: loop asks for the masks several times between two moves of a game.
        self._masks: list[tuple[GameState, np.ndarray] | None] = [None] * n
        self.reset(first_player=first_player)

    def __len__(self) -> int:
        return len(self.states)

    @property
    def current_player(self) -> np.ndarray:
        return np.array([s.current for s in self.states], np.int64)

    @property
    def game_over(self) -> np.ndarray:
        return np.array([s.game_over for s in self.states], bool)

    @property
    def coins(self) -> np.ndarray:
        return np.array([s.coins for s in self.states], np.int32)

    def reset(
        self,
        indices: Sequence[int] | np.ndarray | None = None,
        seed: int | Sequence[int] | np.ndarray | None = None,
        first_player: int | Sequence[int] = 0,
    ) -> None:
        """Set up the games at ``indices`` (all by default) anew from ``seed`` (as
        :meth:`BatchGames.reset`; without one, from each game's own generator)."""
        idx = (
            np.arange(len(self))
            if indices is None
            else np.asarray(indices, dtype=np.int64).reshape(-1)
        )
        first = np.broadcast_to(np.asarray(first_player, dtype=np.int64), idx.shape)
        seeds = None if seed is None else seed_array(seed, idx.size)
        for j, i in enumerate(idx):
            if seeds is not None:
                self.dice[i] = np.random.default_rng(int(seeds[j]))
            self.states[i] = new_game(self.rules, seed=self.dice[i], first_player=int(first[j]))
            self.events[i] = []
            self.turns[i] = 0

    def legal_action_mask(self) -> np.ndarray:
        if len(self) == 1:  # the one-game faces ask often: np.stack costs more than the copy
            return self._mask(0)[None].copy()
        return np.stack([self._mask(i) for i in range(len(self))])

    def _mask(self, i: int) -> np.ndarray:
        state, cached = self.states[i], self._masks[i]
        if cached is None or cached[0] is not state:
            cached = self._masks[i] = (state, legal_action_mask(state))
        return cached[1]

    def random_actions(
        self, streams: np.ndarray, indices: Sequence[int] | np.ndarray | None = None
    ) -> np.ndarray:
        """As :meth:`BatchGames.random_actions`: the same draw picks the same legal action."""
        idx = range(len(self)) if indices is None else indices
        out = np.full(len(self), -1, np.int64)
        for i in idx:
            legal = legal_action_indices(self.states[i])
            if legal:
                out[i] = legal[draw_below(streams, int(i), len(legal))]
        return out

    def step(
        self,
        actions: Sequence[int] | np.ndarray,
        rolls: np.ndarray | None = None,
        *,
        autoreset: bool = False,
        max_turns: int | None = None,
        reward_mode: str = DEFAULT_REWARD_MODE,
        coin_shaping: float = DEFAULT_COIN_SHAPING,
    ) -> StepResult:
        """As :meth:`BatchGames.step` (every action is checked by the engine itself)."""
        episode = EpisodeSettings(reward_mode, coin_shaping, max_turns)
        n, players = len(self), self.rules.num_players
        acts = np.asarray(actions, np.int64).reshape(n).tolist()  # plain ints: one game is cheap
        given = None if rolls is None else np.asarray(rolls, np.int64).reshape(n, 3).tolist()
        stepped: dict[int, tuple[GameState, tuple]] = {}
        for i, a in enumerate(acts):
            if a == -1:
                continue
            state = self.states[i]
            try:
                stepped[i] = (
                    apply_outcome(state, a, DieRoll(*given[i]))
                    if given is not None and given[i][0] >= 0
                    else apply_action(state, a, self.dice[i])
                )
            except (IllegalActionError, ValueError) as err:
                raise type(err)(f"game {i}: {err}") from None
        coin_delta = np.zeros((n, players), np.int64)
        status = np.zeros(n, np.int8)
        final_coins = np.zeros((n, players), np.int32)
        out_rolls = np.full((n, 3), -1, np.int64)
        for i, (new, events) in stepped.items():
            old = self.states[i]
            self.states[i] = new
            self.events[i].extend(events)
            self.turns[i] += 1
            coin_delta[i] = np.subtract(new.coins, old.coins)
            for event in events:
                if isinstance(event, DieRevealed):
                    out_rolls[i] = (event.die, event.camel_shown, event.value)
            if new.game_over:
                status[i] = kernels.TERMINATED
            elif episode.truncates(self.turns[i]):
                status[i] = kernels.TRUNCATED
        ended = np.flatnonzero(status)
        if ended.size:
            final_coins[ended] = self.coins[ended]
        terminated = status == kernels.TERMINATED
        rewards = step_rewards(episode, coin_delta, terminated, final_coins)
        if ended.size and autoreset:
            self.reset(ended)
        return StepResult(
            rewards,
            terminated,
            status == kernels.TRUNCATED,
            out_rolls,
            final_coins,
        )

    #: The engine checks every action as it applies it: no step skips that here.
    step_unchecked = step

    def to_states(self, indices: Sequence[int] | np.ndarray | None = None) -> list[GameState]:
        idx = range(len(self)) if indices is None else indices
        return [self.states[int(i)] for i in idx]


def make_games(
    rules: RuleSet, n: int, seed: int | Sequence[int] | np.ndarray = 0, engine: bool = False
) -> Games:
    """``n`` games of ``rules``: the compiled batch core where it plays the preset (unless
    ``engine``), else the engine behind the same interface (:class:`Games`)."""
    if rules.preset in BATCH_PRESETS and not engine:
        return BatchGames(rules, n, seed=seed)
    return EngineGames(rules, n, seed=seed)
