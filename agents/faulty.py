"""Misbehaving agents for testing fault isolation (``py:agents.faulty:SleepyBot`` etc.).

Each plays legally (first legal move) until its ``after``-th move, then misbehaves.
"""

from __future__ import annotations

import contextlib
import os
import time

from agents.base import Agent, Observation, legal_indices
from camelup_env.state import GameState


class _Faulty(Agent):
    def __init__(self, after: int = 3) -> None:
        self.after = after
        self.moves = 0

    def reset(self, seed: int | None = None) -> None:
        self.moves = 0

    def act(self, observation: Observation, public_state: GameState) -> int:
        self.moves += 1
        if self.moves > self.after:
            return self.misbehave(observation, public_state)
        return int(legal_indices(observation)[0])

    def misbehave(self, observation: Observation, public_state: GameState) -> int:
        raise NotImplementedError


class RaisingBot(_Faulty):
    description = "raises RuntimeError"

    def misbehave(self, observation, public_state):
        raise RuntimeError("bot exploded")


class IllegalBot(_Faulty):
    description = "returns an illegal action"

    def misbehave(self, observation, public_state):
        illegal = [i for i, ok in enumerate(observation["action_mask"]) if not ok]
        return illegal[0] if illegal else -1


class SleepyBot(_Faulty):
    description = "sleeps for an hour"

    def misbehave(self, observation, public_state):
        time.sleep(3600)
        return 0


class StubbornBot(_Faulty):
    description = "ignores the time-limit signal and spins"

    def misbehave(self, observation, public_state):
        deadline = time.time() + 3600
        while time.time() < deadline:
            with contextlib.suppress(BaseException):  # swallowing the alarm is the point
                time.sleep(0.05)
        return 0


class CheatingBot(_Faulty):
    description = "tries to rig the game through the state it is given"

    def misbehave(self, observation, public_state):
        public_state.coins = (999,) * len(public_state.coins)
        public_state.stacks.clear()
        observation["action_mask"][:] = 1
        return int(legal_indices(observation)[0])


class CrashingBot(_Faulty):
    description = "kills its own process"

    def misbehave(self, observation, public_state):
        os._exit(3)
