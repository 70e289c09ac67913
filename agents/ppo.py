"""Trained MaskablePPO policies as agents: ``agents.make("ppo:classic4")``.

The model file format, and why loading it never runs code from the file, is
:mod:`agents.policy_file` (and ``docs/model-files.md``); this module turns a loaded policy into
a player. The file records the rule set and the observation settings the policy was trained
with; the agent rebuilds its own observation from the public view it is given, with exactly
those settings, so it plays correctly whatever observation the caller computed, and a model
trained for another preset or player count is refused with a clear error instead of playing
nonsense.

:meth:`PolicyAgent.act_batch` decides many games with one forward pass (the training vector
env and self-play opponents use it); :meth:`PolicyAgent.act` is the one-game case of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.base import Agent, Observation
from agents.policy_file import (
    ModelFileError,
    load_into,
    read_metadata,
    read_policy_file,
    save_policy,
)
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState
from camelup_env.observation import Observer

if TYPE_CHECKING:  # the batch core (numba) is imported only by the callers that use it
    from camelup_env.batch.games import BatchGames
    from camelup_env.batch.observe import BatchObserver

__all__ = [
    "ModelFileError",
    "PolicyAgent",
    "load_agent",
    "load_into",
    "read_metadata",
    "save_policy",
]


class PolicyAgent(Agent):
    """A MaskablePPO policy playing one seat (greedy over its legal actions by default).

    ``policy`` is an sb3-contrib ``MaskableActorCriticPolicy``; ``observer`` must be the
    observation settings it was trained with: the agent rebuilds its observation from the public
    view with it. With ``trust_observation=True`` it uses the observation it is handed instead
    (self-play, where both come from one observer). Sampling (``deterministic=False``) draws
    from the agent's own generator, which :meth:`reset` seeds.
    """

    description = "a trained MaskablePPO policy: ppo:path/to/model.zip"

    def __init__(
        self,
        policy: Any,
        rules: RuleSet,
        observer: Observer,
        *,
        deterministic: bool = True,
        trust_observation: bool = False,
        source: str = "policy",
        env_version: str = "camelup_v0",
    ):
        expected = policy.observation_space.shape
        if expected != (observer.size,):
            raise ModelFileError(
                f"{source}: the policy expects observations of shape {expected} but its "
                f"recorded settings give {observer.size} features"
            )
        self.policy = policy
        self.rules = rules
        self.observer = observer
        self.deterministic = deterministic
        self.trust_observation = trust_observation
        self.source = source
        self.env_version = env_version
        self.rng = np.random.default_rng()
        self._batch_observer: BatchObserver | None = None  # built on the first act_games

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def check_rules(self, rules: RuleSet) -> None:
        """Refuse a game this policy was not trained for."""
        if rules != self.rules:
            raise ModelFileError(
                f"{self.source} was trained for {self.rules.preset} with "
                f"{self.rules.num_players} players; this game is {rules.preset} with "
                f"{rules.num_players} players"
            )

    def warmup(self, public_state: GameState) -> None:
        self.check_rules(public_state.rules)
        if self.observer.odds_features or self.observer.action_values:
            # the observation's odds and action values call every odds kernel as the game goes
            from camelup_env import odds

            odds.warm_up(public_state)
        self.observer.observe(public_state, public_state.current)

    def act(self, observation: Observation, public_state: GameState) -> int:
        if self.trust_observation:
            obs = observation["observation"]
        else:
            self.check_rules(public_state.rules)
            obs = self.observer.observe(public_state, public_state.current)
        mask = np.asarray(observation["action_mask"], dtype=bool)
        return int(self.act_batch(obs[None], mask[None])[0])

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """The policy head's raw logits, (B, F) observations -> (B, A) float32, unmasked.

        The masked distribution's logits differ from these by a constant per row, so a masked
        argmax, a Gumbel-max draw and logit margins are the same on either; this skips the
        distribution object (a third of a batched forward pass's time).
        """
        import torch
        from stable_baselines3.common.preprocessing import preprocess_obs

        net = self.policy
        with torch.no_grad():
            tensor = torch.as_tensor(np.asarray(obs, np.float32), device=net.device)
            features = net.pi_features_extractor(
                preprocess_obs(tensor, net.observation_space, net.normalize_images)
            )
            return net.action_net(net.mlp_extractor.forward_actor(features)).cpu().numpy()

    def values(self, obs: np.ndarray) -> np.ndarray:
        """The value head's estimate of each observation, (B, F) -> (B,): the return the policy
        was trained to predict, in its reward's units."""
        import torch

        net = self.policy
        with torch.no_grad():
            tensor = torch.as_tensor(np.asarray(obs, np.float32), device=net.device)
            return net.predict_values(tensor).cpu().numpy()[:, 0]

    def act_batch(
        self,
        obs: np.ndarray,
        masks: np.ndarray,
        deterministic: bool | None = None,
        rng_seed: int | np.random.Generator | None = None,
    ) -> np.ndarray:
        """One action per row: ``obs`` (B, F) float32, ``masks`` (B, A) bool -> (B,) int64.

        ``deterministic`` (default: the agent's setting) takes each row's most likely legal
        action; otherwise one is sampled from the masked policy (Gumbel-max with ``rng_seed``'s
        generator, or the agent's own), so a seed reproduces a batch exactly.
        """
        obs = np.asarray(obs, dtype=np.float32)
        masks = np.asarray(masks, dtype=bool)
        n_actions = self.policy.action_space.n
        if obs.ndim != 2 or obs.shape[1] != self.observer.size:
            raise ValueError(f"obs must have shape (B, {self.observer.size}), got {obs.shape}")
        if masks.shape != (obs.shape[0], n_actions):
            raise ValueError(
                f"masks must have shape ({obs.shape[0]}, {n_actions}), got {masks.shape}"
            )
        if not masks.any(axis=1).all():
            raise ValueError("every row of masks needs at least one legal action")
        logits = self.logits(obs)
        if deterministic if deterministic is not None else self.deterministic:
            return np.where(masks, logits, -np.inf).argmax(axis=1)
        rng = self.rng if rng_seed is None else np.random.default_rng(rng_seed)
        noisy = logits + rng.gumbel(size=logits.shape)
        return np.where(masks, noisy, -np.inf).argmax(axis=1)

    def act_games(self, games: BatchGames, idx: np.ndarray) -> np.ndarray:
        """The actions of the seats on move in games ``idx`` of a batch core (one compiled
        observation and one forward pass for all of them); (len(idx),) int64."""
        from camelup_env.batch.observe import BatchObserver  # numba: imported on first use

        self.check_rules(games.rules)
        if self._batch_observer is None:
            self._batch_observer = BatchObserver(self.rules, **self.observer.metadata)
        seats = games.current_player[idx].astype(np.int64)
        obs = self._batch_observer.observe(games, seats, idx)
        masks = games.legal_action_mask()[idx].astype(bool)
        return np.asarray(self.act_batch(obs, masks), np.int64)


def load_agent(path: str | Path, device: str = "cpu", **kwargs: Any) -> PolicyAgent:
    """A :class:`PolicyAgent` from a camelup model file, read without running any of its code;
    :class:`ModelFileError` (one line) if the file is unusable."""
    file = read_policy_file(path)
    return PolicyAgent(
        file.policy(device),
        file.rules,
        file.observer(),
        source=str(path),
        env_version=file.env_version,
        **kwargs,
    )


def load(rest: str, **kwargs: Any) -> PolicyAgent:
    """Loader for the ``ppo:`` prefix."""
    return load_agent(rest, **kwargs)
