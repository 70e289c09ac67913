"""Trained MaskablePPO policies as agents: ``agents.make("ppo:results/models/classic4/model.zip")``.

A camelup model file is an sb3-contrib ``MaskablePPO`` zip with one extra member,
``camelup.json``, that records what the policy was trained on: the rule set and the observation
settings. The agent rebuilds its own observation from the public view it is given, with exactly
those settings, so it plays correctly whatever observation the caller computed, and a model
trained for another preset or player count is refused with a clear error instead of playing
nonsense.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent, Observation
from camelup_env.observation import Observer
from camelup_env.rules import RuleSet
from camelup_env.state import GameState

METADATA_MEMBER = "camelup.json"
METADATA_FORMAT = "camelup-maskable-ppo"


class ModelFileError(ValueError):
    """A model file that cannot be used: missing, corrupt, not camelup's, or for other rules."""


def write_metadata(path: str | Path, rules: RuleSet, odds_features: bool, race_samples: int,
                   **extra: Any) -> None:
    """Add ``camelup.json`` to a saved MaskablePPO zip (see the module docstring)."""
    doc = {
        "format": METADATA_FORMAT,
        "version": 1,
        "rules": rules.to_dict(),
        "observer": {"odds_features": odds_features, "race_samples": race_samples},
        **extra,
    }
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(METADATA_MEMBER, json.dumps(doc, indent=2))


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The ``camelup.json`` of a model file; :class:`ModelFileError` says what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"model file not found: {path}")
    try:
        with zipfile.ZipFile(path) as archive:
            if METADATA_MEMBER not in archive.namelist():
                raise ModelFileError(
                    f"{path} is a zip but not a camelup model (no {METADATA_MEMBER}); "
                    "save models with training.train_ppo so the rules travel with them"
                )
            doc = json.loads(archive.read(METADATA_MEMBER))
    except zipfile.BadZipFile as exc:
        raise ModelFileError(f"{path} is corrupt or not a model zip: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ModelFileError(f"{path}: {METADATA_MEMBER} is not valid JSON: {exc}") from exc
    if doc.get("format") != METADATA_FORMAT:
        raise ModelFileError(f"{path}: unknown model format {doc.get('format')!r}")
    return doc


class PolicyAgent(Agent):
    """A MaskablePPO policy playing one seat (greedy over its legal actions by default).

    ``observer`` must be the observation settings the policy was trained with; the agent
    rebuilds its observation from the public view with it. With ``trust_observation=True`` it
    uses the observation it is handed instead (self-play, where both come from one observer).
    """

    description = "a trained MaskablePPO policy: ppo:path/to/model.zip"

    def __init__(self, model: Any, rules: RuleSet, observer: Observer, *,
                 deterministic: bool = True, trust_observation: bool = False,
                 source: str = "policy"):
        expected = model.observation_space.shape
        if expected != (observer.size,):
            raise ModelFileError(
                f"{source}: the policy expects observations of shape {expected} but its "
                f"recorded settings give {observer.size} features"
            )
        self.model = model
        self.rules = rules
        self.observer = observer
        self.deterministic = deterministic
        self.trust_observation = trust_observation
        self.source = source

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
        self.observer.observe(public_state, public_state.current)

    def act(self, observation: Observation, public_state: GameState) -> int:
        if self.trust_observation:
            obs = observation["observation"]
        else:
            self.check_rules(public_state.rules)
            obs = self.observer.observe(public_state, public_state.current)
        action, _ = self.model.predict(obs, action_masks=observation["action_mask"].astype(bool),
                                       deterministic=self.deterministic)
        return int(np.asarray(action).item())

    def act_batch(self, observations: np.ndarray, masks: np.ndarray,
                  deterministic: bool | None = None) -> np.ndarray:
        """Actions for many games at once (one forward pass; training's batched env uses it).

        ``observations`` is ``(B, F)`` float32 built with this agent's observer settings,
        ``masks`` ``(B, A)`` bool.
        """
        import torch

        det = self.deterministic if deterministic is None else deterministic
        policy = self.model.policy
        with torch.no_grad():
            obs = torch.as_tensor(observations, device=policy.device)
            dist = policy.get_distribution(obs, action_masks=masks)
            return dist.get_actions(deterministic=det).cpu().numpy()


def load_agent(path: str | Path, device: str = "cpu", **kwargs: Any) -> PolicyAgent:
    """A :class:`PolicyAgent` from a camelup model file; :class:`ModelFileError` if unusable."""
    from sb3_contrib import MaskablePPO  # torch is only imported when a model is used

    meta = read_metadata(path)
    try:
        rules = RuleSet.from_dict(meta["rules"])
        settings = meta["observer"]
        observer = Observer(rules, odds_features=bool(settings["odds_features"]),
                            race_samples=int(settings["race_samples"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelFileError(f"{path}: bad {METADATA_MEMBER}: {exc}") from exc
    try:
        model = MaskablePPO.load(str(path), device=device)
    except Exception as exc:  # sb3 raises many types for damaged archives
        raise ModelFileError(f"{path} could not be loaded as a MaskablePPO model: "
                             f"{type(exc).__name__}: {exc}") from exc
    return PolicyAgent(model, rules, observer, source=str(path), **kwargs)


def load(rest: str, **kwargs: Any) -> PolicyAgent:
    """Loader for the ``ppo:`` prefix."""
    return load_agent(rest, **kwargs)
