"""The uniform random baseline."""

from __future__ import annotations

import numpy as np

from agents.base import Agent, Observation, legal_indices
from camelup_env.game.state import GameState


class RandomAgent(Agent):
    description = "uniform over the legal moves (seeded)"
    #: Batched envs may draw this agent's moves themselves (camelup_env.batch.learner).
    uniform_random = True

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Observation, public_state: GameState) -> int:
        legal = legal_indices(observation)
        return int(legal[self.rng.integers(len(legal))])
