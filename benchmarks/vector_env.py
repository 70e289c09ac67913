"""Learner steps per second of ``gymnasium.make_vec``: camelup's vector env (the batch core,
``vectorization_mode="vector_entry_point"``) against Gymnasium's ``SyncVectorEnv`` of single
envs (``vectorization_mode="sync"``), same id, same games, in one run; prints the ratio.

    python benchmarks/vector_env.py [--id camelup/Classic4p-v0] [--envs 64] [--seconds 1]
                                    [--rounds 5] [--observation plain|full]

A step is one learner decision in every game (the opponents' replies included), the actions
drawn uniformly from ``info["action_mask"]`` by one vectorised Gumbel-max, the same for both.
``plain``: the board without odds features or action values (``odds_features=False,
action_values=False``), the cheap observation a fast training run uses; ``full``: the
default observation. The machine may be shared, so the two are measured round-robin in short
rounds and each one's best round is reported.
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np

import camelup_env  # noqa: F401  (registers the ids)

OBSERVATIONS = {
    "plain": {"odds_features": False, "action_values": False},
    "full": {},
}


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (Gumbel-max)."""
    return np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)


def steps_per_second(envs: gymnasium.vector.VectorEnv, seconds: float, seed: int) -> float:
    """Vector steps (one decision in every game) per second, times the number of games."""
    rng = np.random.default_rng(seed)
    _, info = envs.reset(seed=seed)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, _, _, info = envs.step(random_actions(info["action_mask"], rng))
        steps += 1
    return steps * envs.num_envs / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--id", default="camelup/Classic4p-v0")
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--observation", choices=sorted(OBSERVATIONS), default="plain")
    args = parser.parse_args()
    settings = OBSERVATIONS[args.observation]
    rows = {
        mode: gymnasium.make_vec(args.id, num_envs=args.envs, vectorization_mode=mode, **settings)
        for mode in ("vector_entry_point", "sync")
    }
    for envs in rows.values():  # warm-up: first calls load (or compile) the kernels
        steps_per_second(envs, 0.2, seed=0)
    best = dict.fromkeys(rows, 0.0)
    for r in range(args.rounds):
        for mode, envs in rows.items():
            best[mode] = max(best[mode], steps_per_second(envs, args.seconds, seed=r))
    print(f"{args.id}, {args.envs} games, {args.observation} observation, best of {args.rounds}")
    for mode, rate in best.items():
        print(f"  {mode:20s} {rate:12,.0f} learner steps/s")
    ratio = best["vector_entry_point"] / best["sync"]
    print(f"  vector env / SyncVectorEnv: {ratio:.1f}x")


if __name__ == "__main__":
    main()
