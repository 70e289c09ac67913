"""The uniform random baseline."""

from __future__ import annotations

import numpy as np

from agents.base import Agent, Observation, legal_indices
from camelup_env.state import GameState


class RandomAgent(Agent):
    description = "uniform over the legal moves (seeded)"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Observation, public_state: GameState) -> int:
        legal = legal_indices(observation)
        return int(legal[self.rng.integers(len(legal))])
