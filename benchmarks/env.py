"""AEC steps per second under random legal play: camelup_v0 (odds features off and on) against
PettingZoo's connect_four_v3, in one run, all through the wrapped ``env()``.

    python benchmarks/env.py [--seconds 1] [--rounds 5] [--preset classic] [--players 4]

The machine may be shared, so the environments are measured round-robin in short rounds and
each one's best round is reported. Every step of the standard loop counts (``last()``, choose a
legal action uniformly from the action mask, ``step()``), including the final ``None`` steps of
terminated agents, the same way for both games. Raw (unwrapped) rows show the cost of PettingZoo's
three standard wrappers, which both games pay. connect_four_v3 imports pygame only to draw; if
pygame is missing a stub module stands in (rendering is off here).
"""

from __future__ import annotations

import argparse
import sys
import time
import types

import numpy as np


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
    parser.add_argument("--seconds", type=float, default=1.0, help="per round")
    parser.add_argument("--rounds", type=int, default=5)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
