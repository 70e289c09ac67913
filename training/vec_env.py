"""Many Camel Up games in one process behind Stable-Baselines3's ``VecEnv`` interface.

Why: training through :class:`~camelup_env.wrappers.SingleAgentEnv` in SB3's ``DummyVecEnv`` or
``SubprocVecEnv`` spends most of its time outside the game: a batch-1 policy forward pass for
every move of every frozen-policy opponent, two inter-process round trips per step
(``action_masks`` then ``step``), and PettingZoo's per-agent bookkeeping on every action.
:class:`CamelUpVecEnv` runs ``num_envs`` games on the engine directly, in one process, and
decides the moves of every game where the same frozen policy must move with **one** forward
pass (:meth:`agents.ppo.PolicyAgent.act_batch`); scripted opponents are called game by game.

Each game is one learner seat against ``n - 1`` opponents, exactly as in ``SingleAgentEnv``:

* the learner's seat is drawn at random every episode (or fixed with ``learner_seat``);
* its reward is its own: the coin shaping of every action until its next turn plus the terminal
  reward when the race ends, whoever's action ends it (rewards as in ``camelup_v1``);
* episodes restart by themselves, with SB3's conventions: ``dones[i]`` when the race is over or
  ``max_turns`` is reached, the last observation in ``infos[i]["terminal_observation"]``,
  ``infos[i]["TimeLimit.truncated"]`` for a truncation, and the new episode's first observation
  in the returned batch;
* :meth:`CamelUpVecEnv.action_masks` answers sb3-contrib's ``MaskablePPO`` from the batch.

Randomness follows ``SingleAgentEnv`` draw for draw: game ``i`` owns a generator seeded with
``seed + i`` (SB3's ``VecEnv.seed`` convention) from which every episode draws the learner's seat,
a seed for each opponent with a ``reset(seed)`` method and the game's own dice seed. Given the
same seeds and opponents the two produce the same trajectories (``tests/test_vec_env.py``); only
frozen policies that *sample* their moves differ, because a batched forward pass draws its
samples in another order.

Example::

    from sb3_contrib import MaskablePPO
    from camelup_env.rules import RuleSet
    from training.vec_env import CamelUpVecEnv, fixed_opponents

    venv = CamelUpVecEnv(64, RuleSet("classic", num_players=4),
                         opponents=fixed_opponents(["greedy", "random", "random"]), seed=0)
    MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=512).learn(20_000)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from stable_baselines3.common.vec_env import VecEnv

from camelup_env.camelup_v1 import REWARD_MODES, final_rewards
from camelup_env.engine import IllegalActionError, apply_action, legal_action_mask, new_game
from camelup_env.observation import LazyObservation, Observer, public_view
from camelup_env.rules import RuleSet
from camelup_env.state import GameState

#: Opponent protocol of :mod:`agents.base`: ``opponent(observation, public_state) -> index``.
Opponent = Callable[[dict, GameState], int]
#: Called at the start of every episode of one game: the opponents for seats 1..n-1 after the
#: learner (relative seats, in turn order).
OpponentSource = Callable[[], Sequence[Opponent]]

__all__ = ["CamelUpVecEnv", "Opponent", "OpponentSource", "fixed_opponents"]


def fixed_opponents(opponents: Sequence[Opponent | str]) -> OpponentSource:
    """The same opponents every episode; names are built once with :func:`agents.make`."""
    import agents

    built = [agents.make(o) if isinstance(o, str) else o for o in opponents]
    return lambda: built


class _Game:
    """One game slot of the batch: the engine state and everything its episode needs."""

    __slots__ = (
        "dice",
        "done",
        "length",
        "np_random",
        "observer",
        "opponents",
        "return_",
        "reward",
        "seat",
        "source",
        "started",
        "state",
        "turns",
    )

    def __init__(self, source: OpponentSource, observer: Observer):
        self.source = source
        self.observer = observer
        self.np_random: np.random.Generator | None = None
        self.state: GameState | None = None
        self.dice: np.random.Generator | None = None
        self.opponents: list[Opponent] = []
        self.seat = 0
        self.turns = 0
        self.reward = 0.0  # the learner's reward since its last action
        self.return_ = 0.0  # the learner's reward since the episode began
        self.length = 0  # learner decisions this episode
        self.done = False
        self.started = False  # the learner has had a turn this episode


class CamelUpVecEnv(VecEnv):
    """``num_envs`` games of Camel Up with one learner seat each (see the module docstring).

    Args:
        num_envs: games played side by side (one policy forward pass decides all learners).
        rules: the rule set of every game.
        opponents: where each episode's opponents come from: one :data:`OpponentSource` for all
            games, or one per game. Opponents are plain callables (:mod:`agents.base`); those
            with an ``act_batch(observations, masks)`` method (frozen policies) move together.
        learner_seat: the learner's seat, or ``None`` for a random seat every episode.
        reward_mode, coin_shaping, max_turns: as in ``camelup_v1.raw_env``.
        seed: game ``i`` is seeded with ``seed + i`` (``None``: fresh entropy).
        illegal_reward: an illegal learner action ends its episode with this reward.
        **observer_settings: keyword arguments of :class:`~camelup_env.observation.Observer`
            (``odds_features``, ``race_samples``, ...): the learner's observation.
    """

    def __init__(
        self,
        num_envs: int,
        rules: RuleSet,
        opponents: OpponentSource | Sequence[OpponentSource],
        *,
        learner_seat: int | None = None,
        reward_mode: str = "win",
        coin_shaping: float = 0.0,
        max_turns: int | None = 1000,
        seed: int | None = None,
        illegal_reward: float = -1.0,
        **observer_settings: Any,
    ):
        if num_envs < 1:
            raise ValueError(f"num_envs must be positive, got {num_envs}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        n = rules.num_players
        if learner_seat is not None and not 0 <= learner_seat < n:
            raise ValueError(f"learner_seat must be None or 0..{n - 1}, got {learner_seat}")
        if max_turns is not None and max_turns < 1:
            raise ValueError(f"max_turns must be positive or None, got {max_turns}")
        sources = [opponents] * num_envs if callable(opponents) else list(opponents)
        if len(sources) != num_envs or not all(callable(s) for s in sources):
            raise ValueError(f"opponents must be one opponent source or {num_envs} of them")
        self.rules = rules
        self.learner_seat = learner_seat
        self.reward_mode = reward_mode
        self.coin_shaping = float(coin_shaping)
        self.max_turns = max_turns
        self.illegal_reward = float(illegal_reward)
        self.render_mode = None
        # One Observer per game: its incremental memo then follows one game in order.
        self.games = [_Game(s, Observer(rules, **observer_settings)) for s in sources]
        observer = self.games[0].observer
        self.n_actions = len(legal_action_mask(new_game(rules, seed=0)))
        obs_space = gymnasium.spaces.Box(observer.low, observer.high, dtype=np.float32)
        super().__init__(num_envs, obs_space, gymnasium.spaces.Discrete(self.n_actions))
        self._obs = np.zeros((num_envs, observer.size), dtype=np.float32)
        self._masks = np.zeros((num_envs, self.n_actions), dtype=bool)
        self._actions: np.ndarray | None = None
        self.seed(seed)
        #: Seconds spent in the engine and observations, and in opponents' decisions.
        self.timers = {"env": 0.0, "opponents": 0.0}

    # VecEnv API ---------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        for i, game in enumerate(self.games):
            if self._seeds[i] is not None or game.np_random is None:
                game.np_random, _ = seeding.np_random(self._seeds[i])
            self._start_episode(game)
        self._reset_seeds()
        self._reset_options()
        self._play_opponents(list(self.games))
        for i, game in enumerate(self.games):
            self._write(i, game)
        return self._obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        start = time.perf_counter()
        opponent_time = self.timers["opponents"]
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i, game in enumerate(self.games):
            action = int(self._actions[i])
            game.reward = 0.0
            game.length += 1
            if not (0 <= action < self.n_actions and self._masks[i, action]):
                game.reward = self.illegal_reward
                game.done = True
                infos[i]["illegal_action"] = True
                continue
            self._apply(game, action)
        self._play_opponents(self.games)
        restarted = []
        for i, game in enumerate(self.games):
            rewards[i] = game.reward
            game.return_ += game.reward
            if game.done:
                dones[i] = True
                infos[i]["terminal_observation"] = game.observer.observe(game.state, game.seat)
                infos[i]["TimeLimit.truncated"] = not game.state.game_over and not infos[i].get(
                    "illegal_action", False)
                infos[i]["episode_return"] = game.return_
                self._start_episode(game)
                restarted.append(game)
        if restarted:
            self._play_opponents(restarted)
        for i, game in enumerate(self.games):
            self._write(i, game)
        elapsed = time.perf_counter() - start
        self.timers["env"] += elapsed - (self.timers["opponents"] - opponent_time)
        return self._obs.copy(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, one row per game (for ``MaskablePPO``)."""
        return self._masks.copy()

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        indices = list(self._get_indices(indices))
        if method_name == "action_masks":  # sb3-contrib asks every env for its own row
            return [self._masks[i].copy() for i in indices]
        # Every index is this one object: call once (a method with an effect, such as
        # add_snapshot, must not run num_envs times), one answer per index.
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in indices]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    # Episodes -----------------------------------------------------------------------------
    def _start_episode(self, game: _Game) -> None:
        """Deal a new game, drawing from the game's generator exactly as ``SingleAgentEnv``."""
        rng = game.np_random
        n = self.rules.num_players
        game.opponents = list(game.source())
        if len(game.opponents) != n - 1:
            raise ValueError(f"an opponent source returned {len(game.opponents)} opponents; "
                             f"{n - 1} are needed")
        game.seat = int(rng.integers(n)) if self.learner_seat is None else self.learner_seat
        seen = set()
        for opp in game.opponents:
            if hasattr(opp, "reset") and id(opp) not in seen:
                seen.add(id(opp))
                opp.reset(int(rng.integers(1 << 31)))
        self._deal(game)
        game.return_ = 0.0
        game.length = 0

    def _deal(self, game: _Game) -> None:
        game.dice, _ = seeding.np_random(int(game.np_random.integers(1 << 31)))
        game.state = new_game(self.rules, seed=game.dice)
        game.turns = 0
        game.done = False
        game.started = False
        game.reward = 0.0

    def _apply(self, game: _Game, action: int) -> None:
        """One action of the seat on move: the learner's reward, the end of the episode."""
        old = game.state
        new, _ = apply_action(old, action, game.dice)
        game.state = new
        game.turns += 1
        me = game.seat
        if self.coin_shaping and new.coins[me] != old.coins[me]:
            game.reward += self.coin_shaping * (new.coins[me] - old.coins[me])
        if new.game_over:
            game.reward += final_rewards(new.coins, self.reward_mode)[me]
            game.done = True
        elif self.max_turns is not None and game.turns >= self.max_turns:
            game.done = True

    def _play_opponents(self, games: Sequence[_Game]) -> None:
        """Opponents move in every game until it is the learner's turn or the game is over.

        Each round decides one move in every waiting game; moves of the same batched opponent
        (a frozen policy) are decided by one call to its ``act_batch``.
        """
        waiting = [g for g in games if not g.done and g.state.current != g.seat]
        while waiting:
            batched: dict[int, list[_Game]] = {}
            for game in waiting:
                opp = self._opponent(game)
                if hasattr(opp, "act_batch"):
                    batched.setdefault(id(opp), []).append(game)
                else:
                    self._move(game, opp, self._scripted(game, opp))
            for group in batched.values():
                opp = self._opponent(group[0])
                obs = np.stack([g.observer.observe(g.state, g.state.current) for g in group])
                masks = np.stack([legal_action_mask(g.state).astype(bool) for g in group])
                start = time.perf_counter()
                actions = opp.act_batch(obs, masks)
                self.timers["opponents"] += time.perf_counter() - start
                for game, action in zip(group, actions, strict=True):
                    self._move(game, opp, action)
            waiting = [g for g in waiting if not g.done and g.state.current != g.seat]
            for game in games:  # a game that ended before the learner's first turn is redealt
                if game.done and not game.started:
                    self._deal(game)
                    if game.state.current != game.seat:
                        waiting.append(game)
        for game in games:
            game.started = True

    def _opponent(self, game: _Game) -> Opponent:
        n = self.rules.num_players
        return game.opponents[(game.state.current - game.seat) % n - 1]

    def _scripted(self, game: _Game, opp: Opponent) -> Any:
        state, seat, observer = game.state, game.state.current, game.observer
        # Lazy: scripted opponents mostly read only the mask, so features are built on demand.
        observation = LazyObservation(legal_action_mask(state),
                                      lambda: observer.observe(state, seat))
        start = time.perf_counter()
        action = opp(observation, public_view(state, seat))
        self.timers["opponents"] += time.perf_counter() - start
        return action

    def _move(self, game: _Game, opp: Opponent, action: Any) -> None:
        seat = game.state.current
        try:
            self._apply(game, int(action))
        except IllegalActionError as exc:
            raise IllegalActionError(f"the opponent in seat {seat} ({opp!r}) chose an illegal "
                                     f"action {action}: {exc}") from exc
        except (TypeError, ValueError) as exc:
            raise IllegalActionError(f"the opponent in seat {seat} ({opp!r}) returned "
                                     f"{action!r}, not an action index: {exc}") from exc

    def _write(self, i: int, game: _Game) -> None:
        """Row ``i`` of the batch: the learner's observation and legal actions."""
        state = game.state
        self._obs[i] = game.observer.observe(state, game.seat)
        if state.game_over or game.done:
            self._masks[i] = False
        else:
            self._masks[i] = legal_action_mask(state)
