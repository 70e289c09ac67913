"""``BatchGames``: N games of one rule set, stepped together by compiled kernels.

The Python face of the batch core: it owns the arrays (:mod:`camelup_env.batch.arrays`), checks
what callers pass before any kernel runs (an illegal action is an
:class:`~camelup_env.game.legality.IllegalActionError` naming the game and the rule, found by the
reference engine), and turns the kernels' outputs into rewards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from camelup_env.batch import kernels
from camelup_env.batch.arrays import BatchState, rule_vector
from camelup_env.batch.convert import from_states, to_state
from camelup_env.batch.streams import seed_streams
from camelup_env.game.engine import DieRoll, apply_outcome, to_action
from camelup_env.game.episode import (
    DEFAULT_COIN_SHAPING,
    DEFAULT_REWARD_MODE,
    EpisodeSettings,
    step_rewards,
)
from camelup_env.game.legality import IllegalActionError, check_legal
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState


class StepResult(NamedTuple):
    """What one :meth:`BatchGames.step` did, per game."""

    #: (N, P) float32: coin shaping of this step plus, for a game that ended, its terminal
    #: reward (``camelup_v1``'s Rewards; none for a truncation).
    rewards: np.ndarray
    #: (N,) the race ended this step (R5.4, R5.6).
    terminated: np.ndarray
    #: (N,) the game reached ``max_turns`` actions without ending.
    truncated: np.ndarray
    #: (N, 3) the die revealed this step as (die, camel shown, number), or -1s.
    rolls: np.ndarray
    #: (N, P) the coins when the game ended (terminated or truncated; 0 elsewhere): with
    #: ``autoreset`` the game itself is already the next one.
    final_coins: np.ndarray


def seed_array(seed: int | Sequence[int] | np.ndarray, n: int) -> np.ndarray:
    """Per-game seeds: an int ``s`` gives ``s, s + 1, ...`` (SB3's ``VecEnv.seed`` convention),
    a sequence is taken as it is."""
    if isinstance(seed, (int, np.integer)):
        return np.arange(int(seed), int(seed) + n, dtype=np.int64)
    seeds = np.asarray(seed, dtype=np.int64)
    if seeds.shape != (n,):
        raise ValueError(f"seeds must be one int or {n} ints, got shape {seeds.shape}")
    return seeds


def random_streams(n: int, seed: int | Sequence[int] | np.ndarray = 0) -> np.ndarray:
    """``n`` per-game random streams (for :meth:`BatchGames.random_actions`)."""
    streams = np.zeros(n, np.uint64)
    seed_streams(streams, seed_array(seed, n))
    return streams


class BatchGames:
    """``n`` games of ``rules`` as arrays, all stepped by one call.

    >>> games = BatchGames(RuleSet("classic", num_players=4), 8, seed=0)
    >>> result = games.step(games.random_actions(random_streams(8)))
    >>> result.rewards.shape, games.legal_action_mask().shape
    ((8, 4), (8, 46))

    Each game draws its setup and dice from its own stream (seeded with ``seed + i``), so a
    game's chance does not depend on the thread that runs it, on the batch size or on the
    other games. ``threads``: the kernels' threads. The default, one, runs the serial copy of
    each kernel on the calling thread and starts no numba threading layer: the fastest on the
    2-core development machine as measured (busy), and no worker threads beside torch. 0 (all of
    numba's) or more runs the parallel copies on the workqueue layer (``camelup_env.batch``;
    docs/performance.md, Batch core, has what each layer costs). :meth:`step` checks every
    action; :meth:`step_unchecked` is for callers that hold this position's legal masks.
    ``step`` changes the games in place; :meth:`copy` and
    :meth:`take` make independent batches (search), :meth:`to_states` and :meth:`from_states`
    cross to and from the reference engine.
    """

    def __init__(
        self,
        rules: RuleSet,
        n: int,
        seed: int | Sequence[int] | np.ndarray = 0,
        first_player: int | Sequence[int] = 0,
        threads: int = 1,
    ) -> None:
        self.rules = rules
        self.params = rule_vector(rules)
        self.state = BatchState.empty(rules, n)
        self.threads = threads
        self.reset(seed=seed, first_player=first_player)

    @classmethod
    def _wrap(cls, rules: RuleSet, state: BatchState, threads: int = 1) -> BatchGames:
        games = cls.__new__(cls)
        games.rules = rules
        games.params = rule_vector(rules)
        games.state = state
        games.threads = threads
        return games

    @classmethod
    def from_states(
        cls, states: Sequence[GameState], seed: int | Sequence[int] | np.ndarray = 0
    ) -> BatchGames:
        """A batch holding ``states`` (one rule set), their dice drawn from fresh streams."""
        state = from_states(states)
        seed_streams(state.rng, seed_array(seed, len(states)))
        return cls._wrap(states[0].rules, state)

    def __len__(self) -> int:
        return len(self.state.rows)

    @property
    def num_actions(self) -> int:
        return int(self.params[kernels.N_ACTIONS])

    @property
    def current_player(self) -> np.ndarray:
        """(N,) the seat to move in each game."""
        return self.state.current

    @property
    def game_over(self) -> np.ndarray:
        """(N,) bool: the race has ended."""
        return self.state.game_over == 1

    @property
    def coins(self) -> np.ndarray:
        return self.state.coins

    def reset(
        self,
        indices: Sequence[int] | np.ndarray | None = None,
        seed: int | Sequence[int] | np.ndarray | None = None,
        first_player: int | Sequence[int] = 0,
    ) -> None:
        """Set up the games at ``indices`` (all by default) anew (R2), from ``seed`` when given
        (as in the constructor, game ``j`` of ``indices`` getting the j-th seed), else from
        their own streams."""
        idx = (
            np.arange(len(self))
            if indices is None
            else np.asarray(indices, dtype=np.int64).reshape(-1)
        )
        if idx.size and (idx.min() < 0 or idx.max() >= len(self)):
            raise ValueError(f"game indices must be in 0..{len(self) - 1}")
        n = self.rules.num_players
        first = np.broadcast_to(np.asarray(first_player, dtype=np.int64), idx.shape).copy()
        if first.size and (first.min() < 0 or first.max() >= n):
            raise ValueError(f"first_player must be a seat 0..{n - 1}")
        if seed is not None:
            streams = np.zeros(idx.size, np.uint64)
            seed_streams(streams, seed_array(seed, idx.size))
            self.state.rng[idx] = streams
        kernels.setup_games.run(
            self.threads, self.state.rows, self.state.rng, self.params, idx, first
        )

    def legal_action_mask(self) -> np.ndarray:
        """(N, A) int8: 1 where the action index (the engine's, :mod:`camelup_env.game.actions`) is
        legal for the seat to move; a finished game has none."""
        out = np.empty((len(self), self.num_actions), np.int8)
        kernels.legal_masks.run(self.threads, self.state.rows, self.params, out)
        return out

    def random_actions(
        self, streams: np.ndarray, indices: Sequence[int] | np.ndarray | None = None
    ) -> np.ndarray:
        """(N,) one legal action per game, uniformly, drawn from ``streams``
        (:func:`random_streams`; separate from the dice); -1 for a finished game. Given
        ``indices``, only those games draw (the others get -1 and their streams stay)."""
        active = np.ones(len(self), np.bool_)
        if indices is not None:
            active[:] = False
            active[np.asarray(indices, dtype=np.int64)] = True
        out = np.empty(len(self), np.int64)
        kernels.random_actions.run(self.threads, self.state.rows, self.params, streams, active, out)
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
        """Every game's seat to move plays ``actions[i]``, each action checked first.

        ``rolls``: optional (N, 3) dice as (die, camel shown, number) for the games whose
        action takes a pyramid tile (-1s: draw it from the game's stream), the search and test
        counterpart of :func:`camelup_env.game.engine.apply_outcome`. ``autoreset``: a game that
        ends is set up again at once (seat 0 first), its last coins in
        :attr:`StepResult.final_coins`. A game whose action is -1 sits the step out: a
        finished game (without ``autoreset``; :meth:`random_actions` gives it -1), or one
        that waits for others. An illegal action or roll refuses the whole step, before any
        game moves, with the engine's error naming the game and the rule. ``max_turns``,
        ``reward_mode``, ``coin_shaping``: the episode's settings
        (:class:`~camelup_env.game.episode.EpisodeSettings`; ``max_turns=None``: no limit).
        """
        episode = EpisodeSettings(reward_mode, coin_shaping, max_turns)
        acts, given = self._arguments(actions, rolls)
        self._check(acts, given)
        return self._play(acts, given, autoreset, episode)

    def step_unchecked(
        self,
        actions: Sequence[int] | np.ndarray,
        rolls: np.ndarray | None = None,
        *,
        autoreset: bool = False,
        max_turns: int | None = None,
        reward_mode: str = DEFAULT_REWARD_MODE,
        coin_shaping: float = DEFAULT_COIN_SHAPING,
    ) -> StepResult:
        """:meth:`step` without the legality check, for trusted callers only: those whose
        actions were drawn from this very position's :meth:`legal_action_mask` (or
        :meth:`random_actions`) and who already hold that mask, so a second legality pass
        would only repeat the first. An illegal action here corrupts its game silently."""
        episode = EpisodeSettings(reward_mode, coin_shaping, max_turns)
        return self._play(*self._arguments(actions, rolls), autoreset, episode)

    def _arguments(
        self, actions: Sequence[int] | np.ndarray, rolls: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The actions as (N,) int64 and the dice as (N, 3) int64 (-1s: draw), checked for
        shape and type."""
        n = len(self)
        acts = np.asarray(actions)
        if acts.shape != (n,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions must be {n} integers, got shape {acts.shape} {acts.dtype}")
        given = np.full((n, 3), -1, np.int64)
        if rolls is not None:
            given[:] = np.asarray(rolls, np.int64).reshape(n, 3)
        return acts.astype(np.int64, copy=False), given

    def _play(
        self,
        acts: np.ndarray,
        given: np.ndarray,
        autoreset: bool,
        episode: EpisodeSettings,
    ) -> StepResult:
        n = len(self)
        status = np.empty(n, np.int8)
        coin_delta = np.empty((n, self.rules.num_players), np.int32)
        final_coins = np.zeros((n, self.rules.num_players), np.int32)
        kernels.step_games.run(
            self.threads,
            self.state.rows,
            self.state.rng,
            self.params,
            acts,
            given,
            episode.turn_limit,
            autoreset,
            status,
            coin_delta,
            final_coins,
        )
        terminated = status == kernels.TERMINATED
        rewards = step_rewards(episode, coin_delta, terminated, final_coins)
        return StepResult(rewards, terminated, status == kernels.TRUNCATED, given, final_coins)

    def _check(self, actions: np.ndarray, rolls: np.ndarray) -> None:
        """Refuse the whole step, before any game moves, if one game's action or roll is bad;
        the reference engine names the broken rule."""
        codes = np.empty(len(self), np.int8)
        kernels.check_actions.run(self.threads, self.state.rows, self.params, actions, rolls, codes)
        bad = np.flatnonzero(codes)
        if not bad.size:
            return
        i = int(bad[0])
        state = to_state(self.state, i)
        try:
            action = to_action(state, int(actions[i]))
            check_legal(state, action)
            apply_outcome(state, action, DieRoll(*map(int, rolls[i])))
        except (IllegalActionError, ValueError) as err:
            raise type(err)(f"game {i}: {err}") from None
        raise AssertionError(f"game {i}: the batch core refused an action the engine accepts")

    def to_states(self, indices: Sequence[int] | np.ndarray | None = None) -> list[GameState]:
        """The games at ``indices`` (all by default) as the reference engine's states."""
        idx = range(len(self)) if indices is None else indices
        return [to_state(self.state, int(i)) for i in idx]

    def copy(self) -> BatchGames:
        """An independent copy, random streams included (it replays the same dice)."""
        return self._wrap(self.rules, self.state.take(np.arange(len(self))), self.threads)

    def take(self, indices: Sequence[int] | np.ndarray) -> BatchGames:
        """The games at ``indices`` as a new batch (copies, streams included)."""
        return self._wrap(
            self.rules, self.state.take(np.asarray(indices, dtype=np.int64)), self.threads
        )
