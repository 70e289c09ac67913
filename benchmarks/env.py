"""AEC steps per second under random legal play: camelup_v0 (odds features off and on) against
PettingZoo's connect_four_v3, in one run, all through the wrapped ``env()``.

    python benchmarks/env.py [--seconds 0.3] [--rounds 15] [--preset classic] [--players 4]

The machine may be shared, so the environments are measured round-robin in short rounds and
each one's best round is reported. Every step of the standard loop counts (``last()``, choose a
legal action uniformly from the action mask, ``step()``), including the final ``None`` steps of
terminated agents, the same way for both games. Raw (unwrapped) rows show the cost of PettingZoo's
three standard wrappers, which both games pay. connect_four_v3 imports pygame only to draw; if
pygame is missing a stub module stands in (rendering is off here).

The "floor" row is an environment that does nothing (two agents, a constant observation, every
action legal, 40 steps a game) inside the same three wrappers and the same loop: no wrapped
environment can step faster, so ``floor / connect_four_v3`` bounds the ratio any environment
can reach under PettingZoo's standard wrappers on this machine.
"""

from __future__ import annotations

import argparse
import sys
import time
import types
from typing import ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers


class NullEnv(AECEnv):
    """The cheapest legal AEC environment: the floor of the wrapped loop (see the docstring)."""

    metadata: ClassVar[dict] = {"name": "null_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, steps: int = 40) -> None:
        super().__init__()
        self.possible_agents = ["player_0", "player_1"]
        self._steps = steps
        self._space = spaces.Discrete(10)
        self._obs = {"observation": np.zeros(3, np.float32),
                     "action_mask": np.ones(10, np.int8)}

    def observation_space(self, agent: str) -> spaces.Space:
        return spaces.Dict({"observation": spaces.Box(0, 1, (3,), np.float32),
                            "action_mask": spaces.Box(0, 1, (10,), np.int8)})

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._space

    def observe(self, agent: str) -> dict:
        return self._obs

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.agents = list(self.possible_agents)
        self._t = 0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def step(self, action: int | None) -> None:
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self._t += 1
        if self._t >= self._steps:
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.agents[self._t % 2]
        self._accumulate_rewards()


def null_env() -> AECEnv:
    """NullEnv in the wrappers ``camelup_v0.env()`` uses, in the same order."""
    env: AECEnv = wrappers.TerminateIllegalWrapper(NullEnv(), illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def steps_per_second(make_env, seconds: float, seed: int = 0) -> tuple[float, int]:
    env = make_env()
    rng = np.random.default_rng(seed)
    steps, games = 0, 0
    env.reset(seed=seed)  # warm-up game: first calls may compile or fill caches
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=int(rng.integers(1 << 31)))
        games += 1
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - start), games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.3, help="per round")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args(argv)
    try:
        import pygame  # noqa: F401
    except ImportError:
        sys.modules["pygame"] = types.ModuleType("pygame")
    from pettingzoo.classic import connect_four_v3

    from camelup_env import camelup_v0

    print("command: python benchmarks/env.py " + " ".join(argv if argv is not None
                                                          else sys.argv[1:]))
    kw = dict(preset=args.preset, num_players=args.players)
    rows = [
        ("connect_four_v3", connect_four_v3.env),
        ("camelup_v0 odds_features=False", lambda: camelup_v0.env(odds_features=False, **kw)),
        ("camelup_v0 odds_features=True", lambda: camelup_v0.env(odds_features=True, **kw)),
        ("raw connect_four_v3 (no wrappers)", connect_four_v3.raw_env),
        ("raw camelup_v0 odds_features=False",
         lambda: camelup_v0.raw_env(odds_features=False, **kw)),
        ("floor: do-nothing env, same wrappers", null_env),
    ]
    best = dict.fromkeys([name for name, _ in rows], 0.0)
    for r in range(args.rounds):
        for name, make in rows:
            sps, _ = steps_per_second(make, args.seconds, seed=r)
            best[name] = max(best[name], sps)
    for name, _ in rows:
        print(f"{name:<36} {best[name]:>9,.0f} steps/s")
    base = best["connect_four_v3"]
    for name in ("camelup_v0 odds_features=False", "camelup_v0 odds_features=True"):
        print(f"{name:<36} {best[name] / base:>9.2f} x connect_four_v3")
    raw = best["raw camelup_v0 odds_features=False"] / best["raw connect_four_v3 (no wrappers)"]
    print(f"{'raw camelup_v0 odds_features=False':<36} {raw:>9.2f} x raw connect_four_v3")
    floor = best["floor: do-nothing env, same wrappers"] / base
    print(f"{'floor (no env can step faster)':<36} {floor:>9.2f} x connect_four_v3")
    for name in ("camelup_v0 odds_features=False", "connect_four_v3"):
        own = 1e6 / best[name] - 1e6 / best["floor: do-nothing env, same wrappers"]
        print(f"{name + ', own cost':<36} {own:>9.1f} us/step above the floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
