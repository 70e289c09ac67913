"""N games with one learner seat each: the one loop behind every learner-seat environment.

A learner-seat environment hands one seat of every game to the learner and plays the others with
**opponents**. :class:`LearnerGames` is that loop, once, and the environments are thin faces over
it that only speak their library's protocol: SB3's ``VecEnv`` (:mod:`training.policy.vec_env`,
N games), Gymnasium's single-agent env (:mod:`camelup_env.envs.single_agent`, one game) and
RLlib's multi-agent env (:mod:`training.policy.rllib_trainer`, one game whose "self" seats are
RLlib's agents).

* the learner's seat is drawn at random every episode (or fixed with ``learner_seat``);
* opponents move until an **external** seat is on move: the learner's, or a seat whose opponent
  is :data:`EXTERNAL` (an agent the caller plays, such as RLlib's frozen copy of the learner).
  Every opponent decides for all the games where it is on move in one call:
  ``act_batch(observations, masks)`` for a frozen policy, the batch core's own random player
  for an opponent marked ``uniform_random = True`` (the ``random`` agent: a uniformly random
  legal move, drawn from per-game streams seeded at every deal), and game by game, on the
  public view of the engine's state (``agent(observation, public_state)``), for any other agent;
* every seat's rewards since its own previous decision collect in :attr:`LearnerGames.pending`
  (the AEC ``last()`` reward): the coin shaping of every action plus the terminal reward when the
  race ends, whoever's action ends it (rewards as in ``camelup_v1``). :meth:`LearnerGames.step`
  hands the learner its own;
* an episode ends when the race ends (``terminated``), after ``max_turns`` actions
  (``truncated``), or on an illegal action of an external seat (``illegal_reward`` for that
  seat; ``None``: :class:`~camelup_env.game.legality.IllegalActionError` naming the rule, before any
  game moves). With ``autoreset`` (SB3's convention) the game is dealt again at once and its
  last observation goes in the infos; without it (Gymnasium's and RLlib's: the caller resets)
  the game stays as it ended, its masks empty, until :meth:`LearnerGames.reset` deals it.

Each game draws everything from its own generator (seeded ``seed + i``): the learner's seat,
the seeds of its opponents with a ``reset(seed)`` method and the seed of the game's dice, in
that order, so a run is reproduced by its seed whatever the batch size or thread count. The
games are the compiled batch core's wherever it plays the preset, else (Supercup, or
``engine=True``) the engine's behind the same interface (:mod:`camelup_env.batch.engine_games`),
which also records each game's typed events.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, cast

import numpy as np

from camelup_env.batch.engine_games import make_games
from camelup_env.batch.games import BatchGames, StepResult, random_streams
from camelup_env.batch.observe import BatchObserver
from camelup_env.batch.roll_luck import MAX_DICE_LEFT, RollLuck, check_luck_correction
from camelup_env.game.episode import (
    DEFAULT_COIN_SHAPING,
    DEFAULT_MAX_TURNS,
    DEFAULT_REWARD_MODE,
    EpisodeSettings,
)
from camelup_env.game.legality import IllegalActionError
from camelup_env.game.rewards import win_shares
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState
from camelup_env.observation import LazyObservation, Observer, public_view

#: An opponent (:mod:`agents.base`'s protocol): ``opponent(observation, public_state) -> index``,
#: its own observation dict and the public view of the state for its seat.
Opponent = Callable[[dict, GameState], int]

#: Where each episode's opponents come from: called at every deal of one game, it returns the
#: opponents of seats learner + 1, ..., learner + n - 1 (relative seats, in turn order).
OpponentSource = Callable[[], Sequence[Any]]


class External:
    """The opponent of a seat whose moves the caller makes (:data:`EXTERNAL`)."""

    def __repr__(self) -> str:
        return "EXTERNAL"


#: What an :data:`OpponentSource` returns for a seat the caller plays: the loop hands control
#: back at that seat's turn, as at the learner's (:meth:`LearnerGames.play`).
EXTERNAL = External()


class LearnerGames:
    """``n`` games, one learner seat each (see the module docstring).

    Args:
        rules: the rule set of every game.
        n: games side by side.
        opponents: one :data:`OpponentSource` for every game, or one per game.
        learner_seat: the learner's seat, or ``None`` for a random seat every episode.
        reward_mode, coin_shaping, max_turns: the episode's settings, kept as
            :attr:`episode` (:mod:`camelup_env.game.episode`; ``max_turns=None``: no limit).
        seed: game ``i`` draws from a generator seeded ``seed + i`` (``None``: fresh entropy).
        illegal_reward: an illegal action of an external seat ends its episode with this reward
            (``None``: it raises ``IllegalActionError`` naming the rule).
        autoreset: deal an ended game again at once (SB3); else it waits for :meth:`reset`.
        engine: play on the Python engine even where the compiled core plays the preset.
        luck_correction: subtract this share of every roll's luck from each seat's rewards
            (:mod:`camelup_env.batch.roll_luck`; 0: none). Each roll's luck has zero mean given
            everything before it, so the expected returns, and the policy gradient, are
            unchanged; only the dice's share of their spread goes. Classic and second edition.
        luck_dice: the rolls measured, those with at most this many dice left (the default
            leaves out a leg's first roll, whose measurement costs more than the step).
        **observer_settings: :class:`~camelup_env.observation.Observer` keywords
            (``odds_features``, ``race_samples``, ``action_values``): the learner's and the
            policy opponents' observation.
    """

    def __init__(
        self,
        rules: RuleSet,
        n: int,
        opponents: OpponentSource | Sequence[OpponentSource],
        *,
        learner_seat: int | None = None,
        reward_mode: str = DEFAULT_REWARD_MODE,
        coin_shaping: float = DEFAULT_COIN_SHAPING,
        max_turns: int | None = DEFAULT_MAX_TURNS,
        seed: int | None = None,
        illegal_reward: float | None = -1.0,
        autoreset: bool = True,
        engine: bool = False,
        luck_correction: float = 0.0,
        luck_dice: int = MAX_DICE_LEFT,
        **observer_settings: Any,
    ) -> None:
        if n < 1:
            raise ValueError(f"the number of games must be positive, got {n}")
        self.episode = EpisodeSettings(reward_mode, coin_shaping, max_turns)
        self.luck_correction = check_luck_correction(luck_correction)
        #: Each roll's luck per seat, when the rewards are corrected for it.
        self.luck = RollLuck(rules, self.episode, max_dice=luck_dice) if luck_correction else None
        #: The episode's settings as the games' ``step`` keywords.
        self._step_args = dataclasses.asdict(self.episode)
        players = rules.num_players
        if learner_seat is not None and not 0 <= learner_seat < players:
            raise ValueError(f"learner_seat must be None or 0..{players - 1}, got {learner_seat}")
        sources = [opponents] * n if callable(opponents) else list(opponents)
        if len(sources) != n or not all(callable(s) for s in sources):
            raise ValueError(f"opponents must be one opponent source or {n} of them")
        self.rules = rules
        self.games = make_games(rules, n, engine=engine)
        self.sources = sources
        self.learner_seat = learner_seat
        self.illegal_reward = None if illegal_reward is None else float(illegal_reward)
        self.autoreset = autoreset
        self.observers = [Observer(rules, **observer_settings) for _ in range(n)]
        self.observation_size = self.observers[0].size
        #: The compiled observation for the batch core's games (the engine's: an Observer each).
        self.batch_observer = (
            BatchObserver(rules, **observer_settings)
            if isinstance(self.games, BatchGames)
            else None
        )
        self.num_actions = self.games.num_actions
        self.np_random = [
            np.random.default_rng(None if seed is None else seed + i) for i in range(n)
        ]
        self.rows = np.arange(n)
        self.seats = np.zeros(n, np.int64)
        self.opponents: list[list[Any]] = [[] for _ in range(n)]
        #: (N, P) the seats the caller plays: the learner's, and those of EXTERNAL opponents.
        self.external = np.zeros((n, players), bool)
        self.external_opponents = False  # any EXTERNAL opponent dealt yet
        self.random_streams = random_streams(n)  # the uniform-random opponents' draws
        #: (N, P) every seat's reward since its own previous decision (taken by take_rewards).
        self.pending = np.zeros((n, players))
        #: (N,) episodes that ended and wait for reset (only without autoreset).
        self.over = np.zeros(n, bool)
        self.returns = np.zeros(n)  # the learner's reward since the episode began
        #: (N, P) each seat's luck of the rolls this episode (with ``luck_correction``: the
        #: rewards went without ``luck_correction`` times it).
        self.episode_luck = np.zeros((n, rules.num_players))
        self.decisions = np.zeros(n, np.int64)  # external seats' decisions this episode
        #: Seconds in the games and observations, and in the opponents' decisions.
        self.timers = {"env": 0.0, "opponents": 0.0}
        #: The legal masks of the games as they stand, computed once after each change of the
        #: games and handed to everyone who asks (the learner's check, the opponents, the
        #: policy's ``action_masks()``); ``None`` once the games have moved.
        self._masks: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.games)

    # Episodes ---------------------------------------------------------------------------------
    def reset(self, indices: np.ndarray | None = None) -> np.ndarray:
        """Deal the games at ``indices`` (all by default) and play their opponents up to an
        external seat's turn; the learners' observations of those games (len(indices), F)."""
        idx = self.rows if indices is None else np.asarray(indices, np.int64).reshape(-1)
        self._open(idx)
        return self.observe(idx, self.seats[idx])

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """The learners play ``actions``; the opponents reply until the learners' next turns.

        Returns the learners' observations, rewards, ``dones`` and per-game infos, as SB3's
        ``VecEnv`` does: the last observation of a game whose episode ended is in
        ``infos[i]["terminal_observation"]`` (with ``autoreset`` the returned one is already
        the next episode's), ``infos[i]["TimeLimit.truncated"]`` for a truncation,
        ``"illegal_action"`` for an illegal learner action, ``"episode_return"`` and
        ``"episode_luck"`` (the learner's luck of the rolls, 0 without ``luck_correction``) and, for
        a race that was run to its end, ``"win_share"`` (the learner's share of the win, R7.3). For
        games whose only external seat is the learner's; with :data:`EXTERNAL` opponents the
        caller uses :meth:`play`, :meth:`take_rewards` and :meth:`observe`.
        """
        start, before = time.perf_counter(), self.timers["opponents"]
        out = self._step(actions)
        elapsed = time.perf_counter() - start
        self.timers["env"] += elapsed - (self.timers["opponents"] - before)
        return out

    def _step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self.external_opponents:
            raise RuntimeError(
                "step() plays the learner alone; with EXTERNAL opponents use "
                "play(), take_rewards() and observe()"
            )
        done, truncated, illegal = self.play(actions)
        rewards = self.take_rewards(self.rows, self.seats)
        self.returns += rewards
        infos: list[dict[str, Any]] = [{} for _ in range(len(self))]
        ended = np.flatnonzero(done)
        if ended.size:
            last = self.observe(ended, self.seats[ended])
            finished = self.games.game_over[ended]
            shares = self.learner_win_shares(ended)
            for row, i in enumerate(ended):
                infos[i].update(
                    terminal_observation=last[row],
                    episode_return=float(self.returns[i]),
                    episode_luck=float(self.episode_luck[i, self.seats[i]]),
                    **{"TimeLimit.truncated": bool(truncated[i])},
                )
                if finished[row]:
                    infos[i]["win_share"] = float(shares[row])
                if illegal[i]:
                    infos[i]["illegal_action"] = True
            if self.autoreset:
                self._open(ended)
        return self.observe(self.rows, self.seats), rewards.astype(np.float32), done, infos

    def play(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The external seat on move in every game plays ``actions[i]``, then the opponents
        until an external seat's turn or the episode's end; every seat's rewards go to
        :attr:`pending`. A game whose episode is over (without autoreset) sits the call out.

        Returns, per game: the episode ended, it was truncated (``max_turns``), the action was
        illegal (its seat is charged ``illegal_reward``; the game does not move).
        """
        n = len(self)
        actions = np.asarray(actions).astype(np.int64).reshape(n)
        masks = self.legal_masks()
        legal = (actions >= 0) & (actions < self.num_actions)
        legal[legal] = masks[legal.nonzero()[0], actions[legal]] == 1
        legal |= self.over
        illegal = ~legal
        if illegal.any():
            if self.illegal_reward is None:  # the game names the rule, before anything moves
                self.games.step(np.where(self.over, -1, actions), **self._step_args)
            bad = np.flatnonzero(illegal)
            self.pending[bad, self.games.current_player[bad]] += self.illegal_reward
        done = illegal | self.over
        self.decisions += ~done
        result = self._step_trusted(np.where(done, -1, actions))
        self.pending += result.rewards
        done |= result.terminated | result.truncated
        truncated = result.truncated | self._play_opponents(done)
        done &= ~self.over
        if not self.autoreset:
            self.over |= done
        return done, truncated, illegal

    def learner_win_shares(self, indices: np.ndarray) -> np.ndarray:
        """The learner's share of the win (R7.3) in each game of ``indices`` by its coins now:
        its result once the race is over."""
        return win_shares(self.games.coins[indices])[np.arange(len(indices)), self.seats[indices]]

    def take_rewards(self, indices: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The rewards of ``seats[j]`` in game ``indices[j]`` since that seat's previous
        decision, handed over: its :attr:`pending` starts again from 0."""
        out = self.pending[indices, seats]
        self.pending[indices, seats] = 0.0
        return out

    def action_masks(self) -> np.ndarray:
        """(N, A) bool: the legal actions of the seat on move (none in a game that is over)."""
        masks = self.legal_masks().astype(bool)
        masks[self.over] = False
        return masks

    def legal_masks(self) -> np.ndarray:
        """(N, A) int8: the games' legal masks as they stand (read-only; computed once per
        position of the games, however many readers ask)."""
        if self._masks is None:
            self._masks = self.games.legal_action_mask()
            self._masks.flags.writeable = False
        return self._masks

    def _step_trusted(self, actions: np.ndarray) -> StepResult:
        """Step the games with actions already checked against :meth:`legal_masks` (no second
        legality pass); the masks then no longer hold."""
        self._masks = None
        rolls = None if self.luck is None else self.luck.before(self.games, actions)
        result = self.games.step_unchecked(actions, **self._step_args)
        if self.luck is None:
            return result
        luck = self.luck.after(rolls, result.rolls, len(self))
        self.episode_luck += luck
        return result._replace(rewards=result.rewards - self.luck_correction * luck)

    def observe(self, indices: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The observations of ``seats[j]`` in game ``indices[j]`` (len(indices), F)."""
        if self.batch_observer is not None:
            # built only for the batch core's games (__init__)
            return self.batch_observer.observe(cast(BatchGames, self.games), seats, indices)
        states = self.games.to_states(indices)
        return np.stack(
            [
                self.observers[i].observe(state, int(seat))
                for i, state, seat in zip(indices, states, seats, strict=True)
            ]
        )

    def _open(self, indices: np.ndarray) -> None:
        """Deal the games at ``indices`` and play them up to an external seat's turn."""
        self._deal(indices)
        others = np.ones(len(self), bool)
        others[indices] = False
        self._play_opponents(others)

    def _deal(self, indices: np.ndarray) -> None:
        """A new episode in each game of ``indices``: seat, opponents, dice (in that order from
        the game's generator)."""
        players = self.rules.num_players
        seeds = np.empty(len(indices), np.int64)
        for j, i in enumerate(indices):
            rng = self.np_random[i]
            seat = int(rng.integers(players)) if self.learner_seat is None else self.learner_seat
            self.seats[i] = seat
            self.opponents[i] = list(self.sources[i]())
            if len(self.opponents[i]) != players - 1:
                raise ValueError(
                    f"an opponent source returned {len(self.opponents[i])} "
                    f"opponents; {players - 1} are needed"
                )
            self.external[i] = False
            self.external[i, seat] = True
            seen = set()
            for k, opponent in enumerate(self.opponents[i], 1):
                if opponent is EXTERNAL:
                    self.external[i, (seat + k) % players] = True
                    self.external_opponents = True
                elif hasattr(opponent, "reset") and id(opponent) not in seen:
                    seen.add(id(opponent))
                    opponent.reset(int(rng.integers(1 << 31)))
            seeds[j] = rng.integers(1 << 62)
        self.random_streams[indices] = random_streams(len(indices), seeds + 1)
        self._masks = None
        self.games.reset(indices, seed=seeds)
        self.pending[indices] = 0.0
        self.over[indices] = False
        self.returns[indices] = 0.0
        self.episode_luck[indices] = 0.0
        self.decisions[indices] = 0

    def _play_opponents(self, done: np.ndarray) -> np.ndarray:
        """Opponents move in every game not ``done`` until an external seat is on move or the
        episode ends (marked in ``done``); their rewards go to :attr:`pending`. A game that
        ends before any external seat has moved is dealt again. Returns the truncations."""
        n = len(self)
        fresh = self.decisions == 0
        truncated = np.zeros(n, bool)
        while True:
            current = self.games.current_player
            waiting = np.flatnonzero(~done & ~self.external[self.rows, current])
            if not waiting.size:
                return truncated
            actions = np.full(n, -1, np.int64)
            masks = self.legal_masks()  # once a round, for every opponent's games
            for opponent, idx in self._by_opponent(waiting).items():
                actions[idx] = self._decide(opponent, idx, masks[idx])
            result = self._step_trusted(actions)  # every action was checked against masks
            self.pending += result.rewards
            ended = result.terminated | result.truncated
            truncated |= result.truncated
            redeal = np.flatnonzero(ended & fresh)  # no external seat ever moved: deal again
            if redeal.size:
                truncated[redeal] = False
                self._deal(redeal)
            done |= ended & ~fresh

    def _by_opponent(self, waiting: np.ndarray) -> dict[Any, np.ndarray]:
        """The waiting games grouped by the opponent on move (one decision call each)."""
        players = self.rules.num_players
        current = self.games.current_player
        groups: dict[int, tuple[Any, list[int]]] = {}
        for i in waiting:
            opponent = self.opponents[i][(current[i] - self.seats[i]) % players - 1]
            groups.setdefault(id(opponent), (opponent, []))[1].append(int(i))
        return {opponent: np.array(idx) for opponent, idx in groups.values()}

    def _decide(self, opponent: Any, idx: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The moves of ``opponent`` in the games at ``idx`` (it is on move in each; ``masks``:
        those games' legal actions)."""
        start = time.perf_counter()
        try:
            return self._ask(opponent, idx, masks)
        finally:
            self.timers["opponents"] += time.perf_counter() - start

    def _ask(self, opponent: Any, idx: np.ndarray, masks: np.ndarray) -> np.ndarray:
        seats = self.games.current_player[idx].astype(np.int64)
        if getattr(opponent, "uniform_random", False):
            return self.games.random_actions(self.random_streams, idx)[idx]
        if hasattr(opponent, "act_batch"):
            chosen = np.asarray(opponent.act_batch(self.observe(idx, seats), masks.astype(bool)))
            chosen = chosen.astype(np.int64).reshape(len(idx))
            inside = (chosen >= 0) & (chosen < self.num_actions)
            bad = ~inside
            bad[inside] = masks[np.flatnonzero(inside), chosen[inside]] == 0
            if bad.any():
                j = int(np.flatnonzero(bad)[0])
                raise IllegalActionError(
                    f"the opponent {opponent!r} in seat {seats[j]} (player_{seats[j]}) chose "
                    f"an illegal action {chosen[j]}"
                )
            return chosen
        out = np.empty(len(idx), np.int64)
        for j, (i, state) in enumerate(zip(idx, self.games.to_states(idx), strict=True)):
            seat = int(seats[j])
            observer = self.observers[i]
            observation = LazyObservation(masks[j], partial(observer.observe, state, seat))
            action = opponent(observation, public_view(state, seat))
            try:
                out[j] = int(action)
            except (TypeError, ValueError) as exc:
                raise IllegalActionError(
                    f"the opponent {opponent!r} in seat {seat} "
                    f"(player_{seat}) returned {action!r}, not an action "
                    f"index"
                ) from exc
            if not 0 <= out[j] < self.num_actions or not masks[j, out[j]]:
                raise IllegalActionError(
                    f"the opponent {opponent!r} in seat {seat} "
                    f"(player_{seat}) chose an illegal action {out[j]}"
                )
        return out
