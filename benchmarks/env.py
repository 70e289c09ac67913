"""AEC steps per second under random legal play: camelup_v1 (odds features and action values
off and on, and the camelup_v0 observation) against PettingZoo's connect_four_v3, in one run,
all through the wrapped ``env()``; and the cost per step of the default observation relative
to the one without odds, in random play and in greedy play.

    python benchmarks/env.py [--seconds 0.3] [--rounds 15] [--preset classic] [--players 4]
                             [--greedy-games 2]

Every row starts with the odds caches empty (``odds.clear_cache()``); within a row they work
as in training (positions repeat across steps and games). In greedy play the environment's own
time is measured (``last()`` + ``step()``) while greedy bots pick the actions: the bots and the
observation share each position's odds, so there the observation mostly reads what the bots
already computed.

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

from camelup_env import odds


class NullEnv(AECEnv):
    """The cheapest legal AEC environment: the floor of the wrapped loop (see the docstring)."""

    metadata: ClassVar[dict] = {"name": "null_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, steps: int = 40) -> None:
        super().__init__()
        self.possible_agents = ["player_0", "player_1"]
        self._steps = steps
        self._space = spaces.Discrete(10)
        self._obs = {"observation": np.zeros(3, np.float32), "action_mask": np.ones(10, np.int8)}

    def observation_space(self, agent: str) -> spaces.Space:
        return spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (3,), np.float32),
                "action_mask": spaces.Box(0, 1, (10,), np.int8),
            }
        )

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
    """NullEnv in the wrappers ``camelup_v1.env()`` uses, in the same order."""
    env: AECEnv = wrappers.TerminateIllegalWrapper(NullEnv(), illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def steps_per_second(make_env, seconds: float, seed: int = 0) -> tuple[float, int]:
    """AEC steps per second of random legal play for ``seconds`` (after a warm-up game)."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps, games = 0, 0
    env.reset(seed=seed)  # warm-up game: first calls may compile or fill caches
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    odds.clear_cache()  # every row starts cold: no row reuses another's odds
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


def greedy_play_us_per_step(make_env, games: int, seed: int = 0) -> float:
    """Microseconds per AEC step of the environment alone (``last()`` + ``step()``) while
    greedy bots choose every action; the bots' own time is not counted. The bots and the
    observation share each position's odds (odds.position_odds), as in a game against greedy
    opponents."""
    from agents.greedy import GreedyAgent
    from camelup_env.observation import public_view

    env, bot = make_env(), GreedyAgent()
    odds.clear_cache()
    env_time, steps = 0.0, 0
    for g in range(games):
        env.reset(seed=seed * 1000 + g)
        for agent in env.agent_iter():
            t = time.perf_counter()
            obs, _, term, trunc, _ = env.last()
            env_time += time.perf_counter() - t
            action = None
            if not (term or trunc):
                seat = int(agent.split("_")[1])
                action = bot(obs, public_view(env.unwrapped.state, seat))
            t = time.perf_counter()
            env.step(action)
            env_time += time.perf_counter() - t
            steps += 1
    return 1e6 * env_time / steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.3, help="per round")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument(
        "--greedy-games",
        type=int,
        default=2,
        help="games per round of the greedy-play rows (0: skip them)",
    )
    args = parser.parse_args(argv)
    try:
        import pygame  # noqa: F401
    except ImportError:
        sys.modules["pygame"] = types.ModuleType("pygame")
    from pettingzoo.classic import connect_four_v3

    from camelup_env import camelup_v1

    print(
        "command: python benchmarks/env.py " + " ".join(argv if argv is not None else sys.argv[1:])
    )
    kw = dict(preset=args.preset, num_players=args.players)
    plain = "camelup_v1 no odds, no action values"
    v0_odds = "camelup_v0 odds (v0 observation)"
    full = "camelup_v1 default (odds + values)"
    values_only = "camelup_v1 action values, no odds"
    envs = {
        plain: lambda: camelup_v1.env(odds_features=False, action_values=False, **kw),
        v0_odds: lambda: camelup_v1.env(odds_features=True, action_values=False, **kw),
        full: lambda: camelup_v1.env(**kw),
        values_only: lambda: camelup_v1.env(odds_features=False, **kw),
    }
    rows = [
        ("connect_four_v3", connect_four_v3.env),
        *envs.items(),
        ("raw connect_four_v3 (no wrappers)", connect_four_v3.raw_env),
        (
            "raw camelup_v1 no odds, no values",
            lambda: camelup_v1.raw_env(odds_features=False, action_values=False, **kw),
        ),
        ("floor: do-nothing env, same wrappers", null_env),
    ]
    best = dict.fromkeys([name for name, _ in rows], 0.0)
    greedy = dict.fromkeys([plain, full], float("inf"))
    for r in range(args.rounds):
        for name, make in rows:
            sps, _ = steps_per_second(make, args.seconds, seed=r)
            best[name] = max(best[name], sps)
        if args.greedy_games:
            for name in greedy:
                us = greedy_play_us_per_step(envs[name], args.greedy_games, seed=r)
                greedy[name] = min(greedy[name], us)
    for name, _ in rows:
        print(f"{name:<40} {best[name]:>9,.0f} steps/s")
    base = best["connect_four_v3"]
    for name in envs:
        print(f"{name:<40} {best[name] / base:>9.2f} x connect_four_v3")
    raw = best["raw camelup_v1 no odds, no values"] / best["raw connect_four_v3 (no wrappers)"]
    print(f"{'raw camelup_v1 no odds, no values':<40} {raw:>9.2f} x raw connect_four_v3")
    floor = best["floor: do-nothing env, same wrappers"] / base
    print(f"{'floor (no env can step faster)':<40} {floor:>9.2f} x connect_four_v3")
    for name in (plain, "connect_four_v3"):
        own = 1e6 / best[name] - 1e6 / best["floor: do-nothing env, same wrappers"]
        print(f"{name + ', own cost':<40} {own:>9.1f} us/step above the floor")
    print("\ncost per step relative to the observation without odds (random play, best rounds):")
    for name in (v0_odds, values_only, full):
        print(f"{name:<40} {best[plain] / best[name]:>9.2f} x")
    if args.greedy_games:
        print("greedy play (environment time only; the bots share each position's odds):")
        for name in greedy:
            print(f"{name:<40} {greedy[name]:>9.1f} us/step")
        print(f"{full:<40} {greedy[full] / greedy[plain]:>9.2f} x {plain}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
