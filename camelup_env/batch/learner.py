"""N games with one learner seat each, on the batch core: what a learner-seat environment steps.

A learner-seat environment (SB3's ``VecEnv``, Gymnasium's single-agent env, RLlib's) hands one
seat of every game to the learner and plays the others with **opponents**. :class:`LearnerGames`
is that loop, once, over a :class:`~camelup_env.batch.games.BatchGames`:

* the learner's seat is drawn at random every episode (or fixed with ``learner_seat``);
* its reward is its own: the coin shaping of every action until its next turn plus the terminal
  reward when the race ends, whoever's action ends it (rewards as in ``camelup_v1``);
* an episode ends when the race ends (``terminated``), after ``max_turns`` actions
  (``truncated``), or on an illegal learner action (``illegal_reward``); the last observation
  is kept, and the game is dealt again at once;
* opponents move until it is the learner's turn, every opponent deciding for all the games
  where it is on move in one call: ``act_batch(observations, masks)`` for a frozen policy, the
  batch core's own random player for an opponent marked ``uniform_random = True`` (the
  ``random`` agent: a uniformly random legal move, drawn from per-game streams seeded at every
  deal), and game by game, on the public view of the engine's state
  (``agent(observation, public_state)``), for any other agent.

Each game draws everything from its own generator (seeded ``seed + i``): the learner's seat,
the seeds of its opponents with a ``reset(seed)`` method and the seed of the game's dice, so a
run is reproduced by its seed whatever the batch size or thread count. The games are the
compiled batch core's wherever it plays the preset, else the engine's behind the same
interface (Supercup, :mod:`camelup_env.batch.engine_games`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from camelup_env.batch.engine_games import make_games
from camelup_env.batch.games import BatchGames, random_streams
from camelup_env.batch.observe import BatchObserver
from camelup_env.camelup_v1 import REWARD_MODES
from camelup_env.engine import IllegalActionError
from camelup_env.observation import LazyObservation, Observer, public_view
from camelup_env.rules import RuleSet

#: Where each episode's opponents come from: called at every deal of one game, it returns the
#: opponents of seats learner + 1, ..., learner + n - 1 (relative seats, in turn order).
OpponentSource = Callable[[], Sequence[Any]]


class LearnerGames:
    """``n`` games, one learner seat each (see the module docstring).

    Args:
        rules: the rule set of every game (classic or second edition).
        n: games side by side.
        opponents: one :data:`OpponentSource` for every game, or one per game.
        learner_seat: the learner's seat, or ``None`` for a random seat every episode.
        reward_mode, coin_shaping, max_turns: as in ``camelup_v1.raw_env`` (``max_turns=None``:
            no limit).
        seed: game ``i`` draws from a generator seeded ``seed + i`` (``None``: fresh entropy).
        illegal_reward: an illegal learner action ends its episode with this reward.
        **observer_settings: :class:`~camelup_env.observation.Observer` keywords
            (``odds_features``, ``race_samples``, ``action_values``): the learner's and the
            policy opponents' observation.
    """

    def __init__(self, rules: RuleSet, n: int, opponents: OpponentSource | Sequence[OpponentSource],
                 *, learner_seat: int | None = None, reward_mode: str = "win",
                 coin_shaping: float = 0.0, max_turns: int | None = 1000,
                 seed: int | None = None, illegal_reward: float = -1.0,
                 **observer_settings: Any) -> None:
        if n < 1:
            raise ValueError(f"the number of games must be positive, got {n}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        players = rules.num_players
        if learner_seat is not None and not 0 <= learner_seat < players:
            raise ValueError(f"learner_seat must be None or 0..{players - 1}, got {learner_seat}")
        if max_turns is not None and max_turns < 1:
            raise ValueError(f"max_turns must be positive or None, got {max_turns}")
        sources = [opponents] * n if callable(opponents) else list(opponents)
        if len(sources) != n or not all(callable(s) for s in sources):
            raise ValueError(f"opponents must be one opponent source or {n} of them")
        self.rules = rules
        self.games = make_games(rules, n)
        self.sources = sources
        self.learner_seat = learner_seat
        self.reward_mode = reward_mode
        self.coin_shaping = float(coin_shaping)
        self.max_turns = max_turns or 0
        self.illegal_reward = float(illegal_reward)
        self.observers = [Observer(rules, **observer_settings) for _ in range(n)]
        self.observation_size = self.observers[0].size
        #: The compiled observation for the batch core's games (the engine's: an Observer each).
        self.batch_observer = (BatchObserver(rules, **observer_settings)
                               if isinstance(self.games, BatchGames) else None)
        self.num_actions = self.games.num_actions
        self.np_random = [np.random.default_rng(None if seed is None else seed + i)
                          for i in range(n)]
        self.seats = np.zeros(n, np.int64)
        self.opponents: list[list[Any]] = [[] for _ in range(n)]
        self.random_streams = random_streams(n)  # the uniform-random opponents' draws
        self.returns = np.zeros(n)  # the learner's reward since the episode began
        self.lengths = np.zeros(n, np.int64)  # learner decisions this episode
        #: Seconds in the games and observations, and in the opponents' decisions.
        self.timers = {"env": 0.0, "opponents": 0.0}

    def __len__(self) -> int:
        return len(self.games)

    # Episodes ---------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        """Deal every game and play the opponents up to the learners' turns; the learners'
        observations (N, F)."""
        everything = np.arange(len(self))
        self._deal(everything)
        self._play_opponents(np.zeros(len(self), np.float64))
        return self.observe(everything, self.seats)

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                   list[dict[str, Any]]]:
        """The learners play ``actions``; the opponents reply until the learners' next turns.

        Returns the learners' observations, rewards, ``dones`` and per-game infos, as SB3's
        ``VecEnv`` does: a game whose episode ended is already dealt again, its last observation
        in ``infos[i]["terminal_observation"]``, ``infos[i]["TimeLimit.truncated"]`` for a
        truncation, ``"illegal_action"`` for an illegal learner action, and
        ``"episode_return"``.
        """
        start, before = time.perf_counter(), self.timers["opponents"]
        out = self._step(actions)
        elapsed = time.perf_counter() - start
        self.timers["env"] += elapsed - (self.timers["opponents"] - before)
        return out

    def _step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                    list[dict[str, Any]]]:
        n = len(self)
        actions = np.asarray(actions).astype(np.int64).reshape(n)
        masks = self.action_masks()
        legal = (actions >= 0) & (actions < self.num_actions)
        legal[legal] = masks[legal.nonzero()[0], actions[legal]]
        rewards = np.zeros(n, np.float64)
        done = ~legal
        rewards[done] = self.illegal_reward
        self.lengths += 1
        truncated = np.zeros(n, bool)
        result = self.games.step(np.where(legal, actions, -1), **self._step_args(), check=False)
        rewards += result.rewards[np.arange(n), self.seats]
        done |= result.terminated | result.truncated
        truncated |= result.truncated
        truncated |= self._play_opponents(rewards, done)
        self.returns += rewards
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        ended = np.flatnonzero(done)
        if ended.size:
            last = self.observe(ended, self.seats[ended])
            for row, i in enumerate(ended):
                infos[i].update(terminal_observation=last[row],
                                episode_return=float(self.returns[i]),
                                **{"TimeLimit.truncated": bool(truncated[i])})
                if not legal[i]:
                    infos[i]["illegal_action"] = True
            self._deal(ended)
            self._play_opponents(np.zeros(n, np.float64))
        return self.observe(np.arange(n), self.seats), rewards.astype(np.float32), done, infos

    def action_masks(self) -> np.ndarray:
        """(N, A) bool: the learners' legal actions (none in a game that is over)."""
        return self.games.legal_action_mask().astype(bool)

    def observe(self, indices: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The observations of ``seats[j]`` in game ``indices[j]`` (len(indices), F)."""
        if self.batch_observer is not None:
            return self.batch_observer.observe(self.games, seats, indices)
        states = self.games.to_states(indices)
        return np.stack([self.observers[i].observe(state, int(seat))
                         for i, state, seat in zip(indices, states, seats, strict=True)])

    def _step_args(self) -> dict[str, Any]:
        return {"reward_mode": self.reward_mode, "coin_shaping": self.coin_shaping,
                "max_turns": self.max_turns}

    def _deal(self, indices: np.ndarray) -> None:
        """A new episode in each game of ``indices``: seat, opponents, dice (in that order from
        the game's generator)."""
        players = self.rules.num_players
        seeds = np.empty(len(indices), np.int64)
        for j, i in enumerate(indices):
            rng = self.np_random[i]
            self.seats[i] = (int(rng.integers(players)) if self.learner_seat is None
                             else self.learner_seat)
            self.opponents[i] = list(self.sources[i]())
            if len(self.opponents[i]) != players - 1:
                raise ValueError(f"an opponent source returned {len(self.opponents[i])} "
                                 f"opponents; {players - 1} are needed")
            seen = set()
            for opponent in self.opponents[i]:
                if hasattr(opponent, "reset") and id(opponent) not in seen:
                    seen.add(id(opponent))
                    opponent.reset(int(rng.integers(1 << 31)))
            seeds[j] = rng.integers(1 << 62)
        self.random_streams[indices] = random_streams(len(indices), seeds + 1)
        self.games.reset(indices, seed=seeds)
        self.returns[indices] = 0.0
        self.lengths[indices] = 0

    def _play_opponents(self, rewards: np.ndarray, done: np.ndarray | None = None) -> np.ndarray:
        """Opponents move in every game not ``done`` until it is the learner's turn or the
        episode ends; the learner's rewards are added to ``rewards`` and ended episodes marked
        in ``done``. A game that ends before its learner has moved is dealt again. Returns the
        truncations."""
        n = len(self)
        done = np.zeros(n, bool) if done is None else done
        fresh = self.lengths == 0
        truncated = np.zeros(n, bool)
        while True:
            waiting = np.flatnonzero(~done & (self.games.current_player != self.seats))
            if not waiting.size:
                return truncated
            actions = np.full(n, -1, np.int64)
            masks = self.games.legal_action_mask()  # once a round, for every opponent's games
            for opponent, idx in self._by_opponent(waiting).items():
                actions[idx] = self._decide(opponent, idx, masks[idx])
            result = self.games.step(actions, **self._step_args())
            rewards += result.rewards[np.arange(n), self.seats]
            ended = result.terminated | result.truncated
            truncated |= result.truncated
            redeal = np.flatnonzero(ended & fresh)  # the learner never moved: deal again
            if redeal.size:
                rewards[redeal] = 0.0
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
            return np.asarray(opponent.act_batch(self.observe(idx, seats), masks.astype(bool)))
        out = np.empty(len(idx), np.int64)
        for j, (i, state) in enumerate(zip(idx, self.games.to_states(idx), strict=True)):
            seat = int(seats[j])
            observer = self.observers[i]
            observation = LazyObservation(masks[j],
                                          lambda s=state, q=seat, o=observer: o.observe(s, q))
            action = opponent(observation, public_view(state, seat))
            try:
                out[j] = int(action)
            except (TypeError, ValueError) as exc:
                raise IllegalActionError(f"the opponent in seat {seat} ({opponent!r}) returned "
                                         f"{action!r}, not an action index") from exc
            if not 0 <= out[j] < self.num_actions or not masks[j, out[j]]:
                raise IllegalActionError(f"the opponent in seat {seat} ({opponent!r}) chose an "
                                         f"illegal action {out[j]}")
        return out
