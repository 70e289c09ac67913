"""N single-agent games as one ``gymnasium.vector.VectorEnv``: ``make_vec`` on the batch core.

``gymnasium.make_vec("camelup/Classic4p-v0", num_envs=N)`` builds :class:`SingleAgentVectorEnv`
(every registered id has it as its ``vector_entry_point``): N games of
:class:`~camelup_env.envs.single_agent.SingleAgentEnv` side by side, stepped together by
:class:`~camelup_env.batch.learner.LearnerGames`, the learner-seat loop every camelup
environment runs, on the compiled batch core wherever it plays the preset (the engine
otherwise, behind the same interface). A policy written on Gymnasium's vector API (CleanRL's
single-file PPO and its kin) gets the batch core's speed without a line of batching.

What it promises, and ``tests/test_vector_env.py`` checks:

* **the single env's games**: game ``i`` after ``reset(seed=s)`` plays exactly as
  ``SingleAgentEnv`` after ``reset(seed=s + i)`` - observations, masks, rewards, terminations
  and truncations for the same actions - and a game reset automatically plays as that env's
  next ``reset()``. The learner loop draws each game's seat and opponents' seeds from the
  game's generator as the single env does; the dice, which the batch core would draw from its
  own streams, are the engine's (:class:`~camelup_env.batch.engine_chance.EngineChanceGames`);
* ``info["action_mask"]`` (N, A) bool, the legal actions of the returned observations (with
  ``info["_action_mask"]``, all True, as Gymnasium's ``SyncVectorEnv`` reports a key every
  game has);
* ``metadata["autoreset_mode"]`` and the attribute ``autoreset_mode`` (as Gymnasium's own
  ``SyncVectorEnv`` has both; TorchRL's ``GymWrapper`` reads the attribute) are
  ``AutoresetMode.SAME_STEP``, as Gymnasium 1.2 defines it:
  a game whose episode ends in a step is dealt again in that step; the returned observation
  and mask are the new episode's, its last observation is ``info["final_obs"][i]`` and the
  single env's last info ``info["final_info"]`` (each with its ``_`` mask), so no step is
  wasted on a reset. Every other info value is a number array of a fixed shape and dtype
  (``action_mask`` (N, A) bool, ``_action_mask`` (N,) bool), and ``final_info``'s are too
  (``action_mask`` (N, A), ``illegal_action`` (N,), with ``_illegal_action``...);
* spaces: ``single_observation_space`` the single env's ``Box`` (or, with
  ``dict_observation``, its ``Dict`` of the vector and the ``bool`` mask, and the
  observations are dicts of (N, ...) arrays), ``single_action_space`` its ``Discrete``;
  ``observation_space`` and ``action_space`` their batches.

Keyword arguments are the single env's (``opponents``, ``learner_seat``, ``reward_mode``,
``odds_features``, ``dict_observation``...); an opponent object is shared by the games (it
decides game by game, or for all its games at once with ``act_batch``). Not here: ``render``
(one game is drawn by the single env) and the single env's ``last_events`` / ``info_events``
(the compiled core keeps no event log).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from camelup_env.batch.engine_chance import EngineChanceGames
from camelup_env.batch.games import BatchGames
from camelup_env.batch.learner import LearnerGames
from camelup_env.envs.single_agent import Opponent, opponent_list
from camelup_env.envs.spaces import GYMNASIUM_MASK_DTYPE, GymnasiumObservation
from camelup_env.game.episode import DEFAULT_COIN_SHAPING, DEFAULT_MAX_TURNS, DEFAULT_REWARD_MODE
from camelup_env.game.rules import RuleSet
from camelup_env.observation import Observer

__all__ = ["SingleAgentVectorEnv"]


class SingleAgentVectorEnv(VectorEnv):
    """``num_envs`` games of :class:`~camelup_env.envs.single_agent.SingleAgentEnv`, stepped
    together.

    Args:
        num_envs: games side by side.
        opponents: as for ``SingleAgentEnv``; the same objects serve every game.
        render_mode: only ``None``: a vector of games is not drawn (use the single env).

    The other arguments (``learner_seat``, ``illegal_reward``, ``preset``, ``num_players``,
    ``rules``, ``reward_mode``, ``coin_shaping``, ``max_turns``, ``odds_features``,
    ``race_samples``, ``action_values``, ``dict_observation``) are ``SingleAgentEnv``'s and
    mean the same.
    """

    # declared as gymnasium's VectorEnv declares it (an instance variable), shared by the class
    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012
    single_action_space: gymnasium.spaces.Discrete

    def __init__(
        self,
        num_envs: int = 1,
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
        dict_observation: bool | Sequence[str] = False,
    ) -> None:
        if render_mode is not None:
            raise ValueError(
                "the vector env does not render; render one game with gymnasium.make(...)"
            )
        self.rules = RuleSet(preset, num_players=num_players) if rules is None else rules
        self.num_envs = int(num_envs)
        self.opponents = opponent_list(opponents, self.rules.num_players)
        self.learner = LearnerGames(
            self.rules,
            self.num_envs,
            lambda: self.opponents,
            learner_seat=learner_seat,
            reward_mode=reward_mode,
            coin_shaping=coin_shaping,
            max_turns=max_turns,
            illegal_reward=illegal_reward,
            autoreset=True,
            odds_features=odds_features,
            race_samples=race_samples,
            action_values=action_values,
        )
        if isinstance(self.learner.games, BatchGames):  # the engine's chance (module docstring)
            self.learner.games = EngineChanceGames(self.rules, self.num_envs)
        #: The learner's observation in every game (its ``layout`` names the vector's slices;
        #: ``agents.policy_file`` records its settings in a model file).
        self.observer: Observer = self.learner.observers[0]
        self.dict_observation = dict_observation
        self._observation = GymnasiumObservation(
            self.observer, self.learner.num_actions, dict_observation
        )
        self.single_observation_space: gymnasium.spaces.Box | gymnasium.spaces.Dict = (
            self._observation.space
        )
        self.single_action_space = gymnasium.spaces.Discrete(self.learner.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self._started = False

    @property
    def autoreset_mode(self) -> AutoresetMode:
        """``AutoresetMode.SAME_STEP``, the attribute Gymnasium's vector envs carry beside
        ``metadata["autoreset_mode"]`` (and TorchRL's ``GymWrapper`` reads)."""
        mode: AutoresetMode = self.metadata["autoreset_mode"]
        return mode

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Deal every game. ``seed``: game ``i`` is seeded ``seed + i`` (or ``seed[i]``), as
        ``SingleAgentEnv.reset(seed=...)``; without one each game draws its next episode from
        its own generator. ``options`` are not used (as in the single env)."""
        if seed is not None:
            seeds = (
                [int(seed) + i for i in range(self.num_envs)]
                if isinstance(seed, (int, np.integer))
                else [int(s) for s in seed]
            )
            if len(seeds) != self.num_envs:
                raise ValueError(f"need one seed or {self.num_envs} seeds, got {len(seeds)}")
            super().reset(seed=seeds[0])
            self.learner.np_random = [seeding.np_random(s)[0] for s in seeds]
        obs = self.learner.reset()
        self._started = True
        masks = self.learner.action_masks()
        return self._observation(obs, masks), self._mask_info(masks)

    def step(
        self, actions: np.ndarray
    ) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {actions.shape}")
        obs, rewards, dones, infos = self.learner.step(actions)
        truncations = np.zeros(self.num_envs, bool)
        masks = self.learner.action_masks()
        info = self._mask_info(masks)
        for i in np.flatnonzero(dones).tolist():
            truncations[i] = infos[i]["TimeLimit.truncated"]
            over = np.zeros(self.single_action_space.n, GYMNASIUM_MASK_DTYPE)  # nothing is legal
            last = {"action_mask": over, "illegal_action": bool(infos[i].get("illegal_action"))}
            final = self._observation(infos[i]["terminal_observation"], over)
            self._add_info(info, {"final_obs": final, "final_info": last}, i)
        observations = self._observation(obs, masks)
        return observations, rewards.astype(np.float64), dones & ~truncations, truncations, info

    def _mask_info(self, masks: np.ndarray) -> dict[str, Any]:
        return {"action_mask": masks, "_action_mask": np.ones(self.num_envs, bool)}
