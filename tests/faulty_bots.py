"""Misbehaving agents for testing fault isolation (``py:tests.faulty_bots:SleepyBot`` etc.).

Each plays legally (first legal move) until its ``after``-th move, then misbehaves. The zoo of
``tests/test_referee.py`` runs every one of them in a tournament: each must forfeit with the
reason that names its fault (or, for the ones that attack the game, change nothing).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import time
from pathlib import Path

from agents.base import Agent, Observation, legal_indices
from camelup_env.game.state import GameState


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


class InitHangBot(_Faulty):
    description = "hangs in __init__ once the marker file exists (the second build on)"

    def __init__(self, marker: str, after: int = 3) -> None:
        super().__init__(after)
        if Path(marker).exists():
            time.sleep(3600)
        Path(marker).touch()

    def misbehave(self, observation, public_state):
        return int(legal_indices(observation)[0])


class ExitBot(_Faulty):
    description = "calls sys.exit(0)"

    def misbehave(self, observation, public_state):
        sys.exit(0)


class InterruptBot(_Faulty):
    description = "raises KeyboardInterrupt"

    def misbehave(self, observation, public_state):
        raise KeyboardInterrupt


class HugeIntBot(_Faulty):
    description = "returns 10**5000"

    def misbehave(self, observation, public_state):
        return 10**5000


class FloatBot(_Faulty):
    description = "returns a float"

    def misbehave(self, observation, public_state):
        return 1.5


class HogBot(_Faulty):
    description = "allocates memory without bound"

    def misbehave(self, observation, public_state):
        hoard = []
        while True:
            hoard.append(bytearray(256 * 1024 * 1024))


class FloodBot(_Faulty):
    description = "floods stdout and every other open file descriptor"

    def misbehave(self, observation, public_state):
        junk = b"x" * (1 << 20)
        while True:
            for fd in range(1, 16):
                with contextlib.suppress(OSError):
                    os.write(fd, junk)


class ForkBot(_Faulty):
    description = "forks repeatedly; the children sleep (their pids go to ``pidfile``)"

    def __init__(self, pidfile: str, after: int = 3) -> None:
        super().__init__(after)
        self.pidfile = pidfile

    def misbehave(self, observation, public_state):
        for _ in range(200):
            pid = os.fork()
            if pid == 0:
                time.sleep(3600)
                os._exit(0)
            with open(self.pidfile, "a") as fh:
                fh.write(f"{pid}\n")
        time.sleep(3600)
        return 0


class SnoopBot(_Faulty):
    description = "walks stack frames and gc for game states and sets their coins to 999"

    def misbehave(self, observation, public_state):
        from camelup_env.game.state import GameState

        frame = sys._getframe()
        while frame is not None:
            for value in list(frame.f_locals.values()):
                if isinstance(value, GameState):
                    value.coins = (999,) * len(value.coins)
            frame = frame.f_back
        for obj in gc.get_objects():
            if isinstance(obj, GameState):
                obj.coins = (999,) * len(obj.coins)
        return int(legal_indices(observation)[0])
