"""A single-agent Gymnasium view of ``camelup_v1`` for Stable-Baselines3 / sb3-contrib.

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

Example (sb3-contrib's MaskablePPO reads :meth:`~SingleAgentEnv.action_masks`)::

    from sb3_contrib import MaskablePPO
    from camelup_env.wrappers import SingleAgentEnv

    env = SingleAgentEnv(num_players=4, odds_features=False)
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64).learn(5_000)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np

from camelup_env.camelup_v1 import raw_env
from camelup_env.engine import IllegalActionError
from camelup_env.observation import LazyObservation, public_view
from camelup_env.state import GameState

Opponent = Callable[[dict, GameState], int]

__all__ = ["Opponent", "RandomOpponent", "SingleAgentEnv", "random_opponent"]


class RandomOpponent:
    """Plays a uniformly random legal action. Seeded by the env on every ``reset(seed=...)``."""

    #: Batched envs may draw this opponent's moves themselves (camelup_env.batch.learner).
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


class SingleAgentEnv(gymnasium.Env):
    """One learner seat of ``camelup_v1`` as a ``gymnasium.Env``; opponents play the rest.

    Args:
        opponents: one callable per other seat, in turn order after the learner (relative seats
            1..n-1), or a single callable for all of them. Default: :func:`random_opponent`
            for each. Opponents with a ``reset(seed)`` method are re-seeded from the env's
            generator on every reset, so ``reset(seed=s)`` fixes the whole episode.
        learner_seat: the learner's seat, or ``None`` for a random seat every episode.
        illegal_reward: an illegal learner action ends the episode with this reward (like
            PettingZoo's ``TerminateIllegalWrapper``); ``None`` raises ``IllegalActionError``.
        **env_kwargs: passed to ``camelup_v1.raw_env`` (``preset``, ``num_players``,
            ``reward_mode``, ``odds_features``, ``coin_shaping``, ``rules``, ``render_mode``...).

    Observation: the learner's ``camelup_v1`` observation vector (``Box``, float32; the
    ``observation_layout`` of ``env.aec_env``). Action: ``Discrete`` as in ``camelup_v1``; use
    :meth:`action_masks`. ``info`` holds ``"action_mask"`` and ``"events"`` (everything that
    happened since the learner's previous action, as the learner may see it). ``terminated`` when
    the race is over, ``truncated`` when ``max_turns`` is reached. An opponent returning an illegal
    action raises ``IllegalActionError`` naming its seat.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2,
    }

    def __init__(
        self,
        opponents: Opponent | Sequence[Opponent] | None = None,
        learner_seat: int | None = 0,
        illegal_reward: float | None = -1.0,
        **env_kwargs: Any,
    ):
        self.aec_env = raw_env(**env_kwargs)
        self.render_mode = self.aec_env.render_mode
        self.num_players = self.aec_env.rules.num_players
        if learner_seat is not None and not 0 <= learner_seat < self.num_players:
            raise ValueError(f"learner_seat must be None or 0..{self.num_players - 1}, "
                             f"got {learner_seat}")
        self.learner_seat = learner_seat
        self.illegal_reward = illegal_reward
        agent0 = self.aec_env.possible_agents[0]
        self.observation_space = self.aec_env.observation_space(agent0)["observation"]
        self.action_space = self.aec_env.action_space(agent0)
        self.set_opponents(opponents)
        self._seat = 0 if learner_seat is None else learner_seat
        self._agent = self.aec_env.possible_agents[self._seat]
        self._done = True

    # Opponents ---------------------------------------------------------------------------
    def set_opponents(self, opponents: Opponent | Sequence[Opponent] | None) -> None:
        """Replace the opponents (takes effect at the next ``reset``; e.g. for self-play)."""
        n = self.num_players - 1
        if opponents is None:
            opponents = [random_opponent() for _ in range(n)]
        elif callable(opponents):
            opponents = [opponents] * n
        opponents = list(opponents)
        if len(opponents) != n or not all(callable(o) for o in opponents):
            raise ValueError(f"need {n} opponent callables (one per other seat), "
                             f"got {len(opponents)}")
        self.opponents = opponents

    @property
    def seat(self) -> int:
        """The learner's seat this episode."""
        return self._seat

    # Gymnasium API ------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        if self.learner_seat is None:
            self._seat = int(rng.integers(self.num_players))
        self._agent = self.aec_env.possible_agents[self._seat]
        seen = set()
        for opp in self.opponents:
            if hasattr(opp, "reset") and id(opp) not in seen:
                seen.add(id(opp))
                opp.reset(int(rng.integers(1 << 31)))
        for _ in range(100):
            self.aec_env.reset(seed=int(rng.integers(1 << 31)), options=options)
            self._done = False
            _, events = self._play_opponents()
            if not self._done:  # the race cannot end before the learner's turn on real tracks
                break
        return self._observation(), {"action_mask": self.action_masks(), "events": events}

    def step(self, action: int):
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        env = self.aec_env
        if not env.state.game_over and not self._legal(int(action)):
            if self.illegal_reward is None:
                env.step(action)  # raises IllegalActionError naming the rule
            self._done = True
            info = {"action_mask": np.zeros(self.action_space.n, dtype=bool), "events": (),
                    "illegal_action": True}
            return self._observation(), float(self.illegal_reward), True, False, info
        env.step(int(action))
        reward = env.rewards[self._agent]
        events = list(env.infos[self._agent]["events"])
        more, later = self._play_opponents()
        reward += more
        events += later
        terminated = any(env.terminations.values())
        truncated = any(env.truncations.values()) and not terminated
        self._done = terminated or truncated
        info = {"action_mask": self.action_masks(), "events": tuple(events)}
        return self._observation(), float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all False once the episode is over)."""
        env = self.aec_env
        if self._done or env.agent_selection != self._agent:
            return np.zeros(self.action_space.n, dtype=bool)
        return env.infos[self._agent]["action_mask"].astype(bool)

    def render(self):
        return self.aec_env.render()

    def close(self) -> None:
        self.aec_env.close()

    # Internals ----------------------------------------------------------------------------
    def _legal(self, action: int) -> bool:
        return 0 <= action < self.action_space.n and bool(self.action_masks()[action])

    def _observation(self) -> np.ndarray:
        return self.aec_env.observer.observe(self.aec_env.state, self._seat)

    def _play_opponents(self) -> tuple[float, list]:
        """Opponents act until it is the learner's turn or the game ends; returns the learner's
        reward and the events it saw meanwhile."""
        env = self.aec_env
        reward, events = 0.0, []
        while not (any(env.terminations.values()) or any(env.truncations.values())):
            agent = env.agent_selection
            if agent == self._agent:
                return reward, events
            seat = env.possible_agents.index(agent)
            opp = self.opponents[(seat - self._seat) % self.num_players - 1]
            state = env.state
            # Lazy: scripted opponents read only the mask, so the features (odds included)
            # are built only for opponents that look at them.
            observation = LazyObservation(env.infos[agent]["action_mask"].copy(),
                                          lambda s=state, k=seat: env.observer.observe(s, k))
            action = opp(observation, public_view(state, seat))
            try:
                env.step(int(action))
            except IllegalActionError as exc:
                raise IllegalActionError(
                    f"the opponent in seat {seat} ({agent}) chose an illegal action {action}: "
                    f"{exc}"
                ) from exc
            except (TypeError, ValueError) as exc:
                raise IllegalActionError(
                    f"the opponent in seat {seat} ({agent}) returned {action!r}, not an action "
                    f"index: {exc}"
                ) from exc
            reward += env.rewards[self._agent]
            events += env.infos[self._agent]["events"]
        self._done = True
        return reward, events
