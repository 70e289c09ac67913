"""A single-agent Gymnasium view of Camel Up for Stable-Baselines3 / sb3-contrib.

:class:`SingleAgentEnv` seats one learner and plays every other seat with **opponents**: callables
``opponent(observation: dict, public_state: GameState) -> int`` that receive their own
``{"observation", "action_mask"}`` dict and :func:`~camelup_env.observation.public_view` of the
state for their seat (never the omniscient state), and return an action index. Scripted agents,
frozen policies and earlier copies of the learner (self-play, :meth:`SingleAgentEnv.set_opponents`)
all fit.

Unlike PettingZoo's generic SB3 recipe, every transition returned by :meth:`~SingleAgentEnv.step`
is the learner's own: its reward (summed over the learner's action and the opponents' replies,
including the terminal reward when an opponent's move ends the race) together with the learner's
own next observation (its terminal observation when the game is over).

The environment is a thin face over :class:`camelup_env.batch.learner.LearnerGames` with one
game: the one learner-seat loop, which SB3's batched :class:`training.policy.vec_env.CamelUpVecEnv`
and RLlib's environment run too, so seats, opponents' calls, rewards, episode ends and seeds
are the same code and mean the same in all three. This module speaks Gymnasium's protocol
(``terminated`` apart from ``truncated``, no automatic reset, ``render``) and keeps what happened
(:attr:`SingleAgentEnv.last_events`).

**Why its game runs on the engine** (``LearnerGames(engine=True)``), not on the compiled batch
core, even for the presets the core plays: one game gains nothing from compiled batches (a
step's cost is per-call overhead either way, and the Observer's per-position caches serve one
game well), while the engine records the typed events :attr:`~SingleAgentEnv.last_events`
holds and the ``GameState`` that ``render`` draws and ``state`` shows; the core would have to
rebuild states and replay every step to say the same. It also makes a game here the
``camelup_v1`` game: its dice generator is seeded as ``camelup_v1.raw_env.reset(seed=...)``
seeds its own, so the same actions play the same game (``tests/test_env_wrappers.py``). Many
games at once belong on the batch core: ``gymnasium.make_vec`` (:mod:`camelup_env.envs.vector`,
these very games, N at a time) or SB3's ``CamelUpVecEnv``.

Example (sb3-contrib's MaskablePPO reads :meth:`~SingleAgentEnv.action_masks`)::

    from sb3_contrib import MaskablePPO
    from camelup_env.envs.single_agent import SingleAgentEnv

    env = SingleAgentEnv(num_players=4, odds_features=False)
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64).learn(5_000)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import gymnasium
import numpy as np

from camelup_env.batch.engine_games import EngineGames
from camelup_env.batch.learner import LearnerGames, Opponent
from camelup_env.envs.spaces import GYMNASIUM_MASK_DTYPE, GymnasiumObservation
from camelup_env.game.episode import DEFAULT_COIN_SHAPING, DEFAULT_MAX_TURNS, DEFAULT_REWARD_MODE
from camelup_env.game.events import Event
from camelup_env.game.events import public_view as public_event
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState
from camelup_env.observation import Observer
from camelup_env.render.text import RENDER_MODES, check_render_settings, render_state

__all__ = ["Opponent", "RandomOpponent", "SingleAgentEnv", "opponent_list", "random_opponent"]


class RandomOpponent:
    """Plays a uniformly random legal action. Seeded by the env on every ``reset(seed=...)``."""

    #: The learner-seat loop draws this opponent's moves itself (camelup_env.batch.learner).
    uniform_random = True

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, observation: dict, public_state: GameState) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[self.rng.integers(len(legal))])


def random_opponent(seed: int | None = None) -> RandomOpponent:
    """A new uniform-random legal opponent (see :class:`RandomOpponent`)."""
    return RandomOpponent(seed)


def opponent_list(
    opponents: Opponent | Sequence[Opponent] | None, num_players: int
) -> list[Opponent]:
    """The opponents of seats 1..n-1 (relative to the learner) from what a caller passes: one
    :func:`random_opponent` each for ``None``, one callable for every seat, or one per seat."""
    n = num_players - 1
    if opponents is None:
        opponents = [random_opponent() for _ in range(n)]
    elif callable(opponents):
        opponents = [opponents] * n
    opponents = list(opponents)
    if len(opponents) != n or not all(callable(o) for o in opponents):
        raise ValueError(f"need {n} opponent callables (one per other seat), got {len(opponents)}")
    return opponents


class SingleAgentEnv(gymnasium.Env):
    """One learner seat of Camel Up as a ``gymnasium.Env``; opponents play the rest.

    Args:
        opponents: one callable per other seat, in turn order after the learner (relative seats
            1..n-1), or a single callable for all of them. Default: :func:`random_opponent`
            for each. Opponents with a ``reset(seed)`` method are re-seeded from the env's
            generator on every reset, so ``reset(seed=s)`` fixes the whole episode.
        learner_seat: the learner's seat, or ``None`` for a random seat every episode.
        illegal_reward: an illegal learner action ends the episode with this reward (like
            PettingZoo's ``TerminateIllegalWrapper``); ``None`` raises ``IllegalActionError``.
        preset: the game, as in ``camelup_v1.raw_env`` (as are the arguments below).
        num_players: seats at the table.
        rules: a ``RuleSet`` (overrides ``preset`` and ``num_players``).
        reward_mode: ``"win"``, ``"rank"`` or ``"coins"``.
        coin_shaping: reward per coin won or lost, at every step.
        max_turns: actions (everyone's) before the game is truncated (``None``: no limit).
        odds_features: the odds slices of the observation.
        race_samples: the race estimate's samples.
        action_values: the action-values slice of the observation.
        render_mode: ``"human"``, ``"ansi"``, ``"rgb_array"`` or ``None``.
        render_viewer: whose view ``render`` shows: ``"current"``, a seat, or ``None``.
        dict_observation: observe ``{"observation", "action_mask"}`` (the ``camelup_v1``
            observation dict, its mask ``bool`` as every mask of this env) instead of the
            vector alone: for the libraries that read the mask from the observation (TorchRL's
            ``ActionMask`` and ``MaskedCategorical``). Two key names instead of ``True``
            rename the vector's and the mask's keys: ``("obs", "mask")`` are Tianshou's.
        info_events: put :attr:`last_events` in ``info["events"]`` too (a tuple of event
            objects: off by default, as libraries that stack infos into arrays fail on it).

    Observation: the learner's ``camelup_v1`` observation vector (``Box``, float32; the slices
    of :attr:`observer`), or with ``dict_observation`` the dict of it and the mask. Action:
    ``Discrete`` as in ``camelup_v1``; use :meth:`action_masks`. ``info`` holds, at every step,
    ``"action_mask"`` (``bool`` (A,), as :meth:`action_masks`) and ``"illegal_action"``
    (``bool``: the learner's action was illegal and ended the episode): fixed shapes and
    dtypes, so ``info`` stacks into arrays. ``terminated`` when the race is over,
    ``truncated`` when ``max_turns`` is reached. An opponent returning an illegal action raises
    ``IllegalActionError`` naming its seat. ``reset``'s ``options`` are not used (seat 0 starts
    every game, as in ``camelup_v1`` without options).
    """

    # declared as gymnasium.Env declares it (an instance variable), though shared by the class
    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 2}  # noqa: RUF012
    action_space: gymnasium.spaces.Discrete

    def __init__(
        self,
        opponents: Opponent | Sequence[Opponent] | None = None,
        learner_seat: int | None = 0,
        illegal_reward: float | None = -1.0,
        *,
        preset: str = "classic",
        num_players: int = 4,
        rules: RuleSet | None = None,
        reward_mode: str = DEFAULT_REWARD_MODE,
        coin_shaping: float = DEFAULT_COIN_SHAPING,
        max_turns: int | None = DEFAULT_MAX_TURNS,
        odds_features: bool = True,
        race_samples: int | None = None,
        action_values: bool = True,
        render_mode: str | None = None,
        render_viewer: int | str | None = "current",
        dict_observation: bool | Sequence[str] = False,
        info_events: bool = False,
    ):
        self.rules = RuleSet(preset, num_players=num_players) if rules is None else rules
        self.num_players = self.rules.num_players
        check_render_settings(render_mode, render_viewer, self.num_players)
        self.render_mode = render_mode
        self.render_viewer = render_viewer
        self.learner_seat = learner_seat
        self.illegal_reward = illegal_reward
        self.set_opponents(opponents)
        self.learner = LearnerGames(
            self.rules,
            1,
            lambda: self.opponents,
            learner_seat=learner_seat,
            reward_mode=reward_mode,
            coin_shaping=coin_shaping,
            max_turns=max_turns,
            illegal_reward=illegal_reward,
            autoreset=False,
            engine=True,
            odds_features=odds_features,
            race_samples=race_samples,
            action_values=action_values,
        )
        #: The learner's observation (its ``layout`` names the vector's slices).
        self.observer: Observer = self.learner.observers[0]
        self.dict_observation = dict_observation
        self.info_events = info_events
        self._observation = GymnasiumObservation(
            self.observer, self.learner.num_actions, dict_observation
        )
        self.observation_space: gymnasium.spaces.Box | gymnasium.spaces.Dict = (
            self._observation.space
        )
        self.action_space = gymnasium.spaces.Discrete(self.learner.num_actions)
        self._done = True
        self._events_seen = 0  # of the game's event log, handed to the learner already
        #: The engine's events since the learner's previous action (since the deal after
        #: ``reset``), as the learner may see them: other players' race-bet colours hidden.
        self.last_events: tuple[Event, ...] = ()

    # Opponents ---------------------------------------------------------------------------
    def set_opponents(self, opponents: Opponent | Sequence[Opponent] | None) -> None:
        """Replace the opponents (takes effect at the next ``reset``; e.g. for self-play)."""
        self.opponents = opponent_list(opponents, self.num_players)

    @property
    def seat(self) -> int:
        """The learner's seat this episode."""
        return int(self.learner.seats[0])

    @property
    def state(self) -> GameState:
        """The engine's omniscient state of the game (debugging only; never give it to bots)."""
        return cast(EngineGames, self.learner.games).states[0]  # engine=True in __init__

    # Gymnasium API ------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.learner.np_random[0] = self.np_random  # the episode draws from the env's generator
        obs = self.learner.reset()[0]
        self._done = False
        self._events_seen = 0
        observation, info = self._observation_and_info(obs, illegal=False)
        if self.render_mode == "human":
            self.render()
        return observation, info

    def step(self, action: int):
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        obs, rewards, dones, infos = self.learner.step(np.array([action]))
        self._done = bool(dones[0])
        truncated = bool(infos[0].get("TimeLimit.truncated", False))
        illegal = bool(infos[0].get("illegal_action", False))
        observation, info = self._observation_and_info(obs[0], illegal)
        if self.render_mode == "human":
            self.render()
        return observation, float(rewards[0]), self._done and not truncated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all False once the episode is over)."""
        if self._done:
            return np.zeros(self.action_space.n, dtype=GYMNASIUM_MASK_DTYPE)
        return self.learner.action_masks()[0]

    # gymnasium.Env.render returns a type variable of the method, which no concrete frame meets
    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        return render_state(self.state, self.render_mode, self.render_viewer)

    # Internals ----------------------------------------------------------------------------
    def _observation_and_info(
        self, vector: np.ndarray, illegal: bool
    ) -> tuple[np.ndarray | dict[str, np.ndarray], dict[str, Any]]:
        """The step's observation and info (the class docstring); reads the step's events into
        :attr:`last_events`."""
        mask = self.action_masks()
        self.last_events = self._new_events()
        info: dict[str, Any] = {"action_mask": mask, "illegal_action": np.bool_(illegal)}
        if self.info_events:
            info["events"] = self.last_events
        return self._observation(vector, mask), info

    def _new_events(self) -> tuple[Event, ...]:
        """The game's events since the learner last saw them, as the learner may see them."""
        log = cast(EngineGames, self.learner.games).events[0]  # engine=True in __init__
        seat = self.seat
        new = tuple(public_event(event, seat) for event in log[self._events_seen :])
        self._events_seen = len(log)
        return new
