"""Many Camel Up games behind Stable-Baselines3's ``VecEnv`` interface, on the batch core.

:class:`CamelUpVecEnv` is SB3's face of :class:`camelup_env.batch.learner.LearnerGames`, the one
learner-seat loop: ``num_envs`` games, each one learner seat against ``n - 1`` opponents, the
games stepped together by the batch core (Supercup by the engine behind the same interface), and
every opponent deciding for all the games where it is on move in one call (one forward pass for
a frozen policy). What a game does - seats, rewards, the end of an episode, the opponents' calls,
the randomness - is said there; this module only speaks SB3's protocol:

* ``dones[i]`` when the race is over, ``max_turns`` is reached or the learner's action was
  illegal; the last observation in ``infos[i]["terminal_observation"]``,
  ``infos[i]["TimeLimit.truncated"]`` for a truncation, and the new episode's first observation
  in the returned batch;
* :meth:`CamelUpVecEnv.action_masks` answers sb3-contrib's ``MaskablePPO`` from the batch;
* ``seed(s)`` (SB3's convention) gives game ``i`` the seed ``s + i`` at the next ``reset``.

Example::

    from sb3_contrib import MaskablePPO
    from camelup_env.game.rules import RuleSet
    from training.policy.vec_env import CamelUpVecEnv, fixed_opponents

    venv = CamelUpVecEnv(64, RuleSet("classic", num_players=4),
                         opponents=fixed_opponents(["greedy", "random", "random"]), seed=0)
    MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=512).learn(20_000)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from camelup_env.batch.learner import LearnerGames, Opponent, OpponentSource
from camelup_env.game.episode import DEFAULT_COIN_SHAPING, DEFAULT_MAX_TURNS, DEFAULT_REWARD_MODE
from camelup_env.game.rules import RuleSet

__all__ = ["CamelUpVecEnv", "Opponent", "OpponentSource", "fixed_opponents"]


def fixed_opponents(opponents: Sequence[Opponent | str]) -> OpponentSource:
    """The same opponents every episode; names are built once with :func:`agents.make`."""
    import agents

    built = [agents.make(o) if isinstance(o, str) else o for o in opponents]
    return lambda: built


class CamelUpVecEnv(VecEnv):
    """``num_envs`` games of Camel Up with one learner seat each (see the module docstring).

    Args:
        num_envs: games played side by side.
        rules: the rule set of every game.
        opponents: where each episode's opponents come from: one :data:`OpponentSource` for all
            games, or one per game (:class:`~camelup_env.batch.learner.LearnerGames`).
        learner_seat, reward_mode, coin_shaping, max_turns, illegal_reward, luck_correction: as in
            :class:`~camelup_env.batch.learner.LearnerGames`.
        seed: game ``i`` is seeded with ``seed + i`` (``None``: fresh entropy).
        **observer_settings: the learner's observation (``odds_features``, ``race_samples``,
            ``action_values``).
    """

    def __init__(
        self,
        num_envs: int,
        rules: RuleSet,
        opponents: OpponentSource | Sequence[OpponentSource],
        *,
        learner_seat: int | None = None,
        reward_mode: str = DEFAULT_REWARD_MODE,
        coin_shaping: float = DEFAULT_COIN_SHAPING,
        max_turns: int | None = DEFAULT_MAX_TURNS,
        seed: int | None = None,
        illegal_reward: float = -1.0,
        luck_correction: float = 0.0,
        **observer_settings: Any,
    ):
        if num_envs < 1:
            raise ValueError(f"num_envs must be positive, got {num_envs}")
        self.learner = LearnerGames(
            rules,
            num_envs,
            opponents,
            learner_seat=learner_seat,
            reward_mode=reward_mode,
            coin_shaping=coin_shaping,
            max_turns=max_turns,
            seed=seed,
            illegal_reward=illegal_reward,
            luck_correction=luck_correction,
            **observer_settings,
        )
        self.rules = rules
        self.render_mode = None
        observer = self.learner.observers[0]
        obs_space = gymnasium.spaces.Box(observer.low, observer.high, dtype=np.float32)
        super().__init__(num_envs, obs_space, gymnasium.spaces.Discrete(self.learner.num_actions))
        self._actions = np.zeros(num_envs, np.int64)
        #: Seconds spent in the games and observations, and in opponents' decisions.
        self.timers = self.learner.timers

    # VecEnv API ---------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        for i, seed in enumerate(self._seeds):
            if seed is not None:
                self.learner.np_random[i] = np.random.default_rng(seed)
        self._reset_seeds()
        self._reset_options()
        return self.learner.reset()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        return self.learner.step(self._actions)

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, one row per game (for ``MaskablePPO``)."""
        return self.learner.action_masks()

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
            masks = self.action_masks()
            return [masks[i] for i in indices]
        # Every index is this one object: call once (a method with an effect, such as
        # add_snapshot, must not run num_envs times), one answer per index.
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in indices]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
