"""What each RL library's own environment loop costs per step: its steps per second with random
legal actions and no learning, as a ratio to the raw environment it wraps, measured in the same
run (docs/clients.md prints the figures).

    python benchmarks/clients.py [--players 2] [--seconds 2] [--rounds 5] [--envs 16]

Three raw loops are the baselines: ``camelup_v1`` (AEC steps: ``last()`` + ``step()``, one per
agent's decision), ``gymnasium.make(id)`` (learner steps, the opponents' replies included) and
``gymnasium.make_vec(id, num_envs=N)`` (learner steps in every game). Each library's loop is
set against the raw loop of the environment it wraps: SB3's ``DummyVecEnv`` (with
sb3-contrib's ``get_action_masks``) and the Gymnasium env; RLlib's ``PettingZooEnv`` and
``camelup_v1``; a CleanRL-style loop (torch tensors in and out of the vector env) and the vector
env; TorchRL's ``PettingZooWrapper(use_mask=True)``, ``GymEnv`` and ``GymWrapper(make_vec)``
rollouts and theirs; Tianshou's ``Collector`` of masked random policies over ``PettingZooEnv``
and over ``DummyVectorEnv`` of the Gymnasium env, and theirs. The observation is the plain
board (no odds features, no action values), where the library's overhead shows most. The
machine may be shared, so the loops run round-robin in short rounds and each one's best round
is reported.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import torch

import camelup_env  # noqa: F401  (registers the ids)
from camelup_env import camelup_v1
from camelup_env.envs.registration import env_id

PLAIN = {"odds_features": False, "action_values": False}

#: A loop: run for about ``seconds``, return (steps, elapsed seconds).
Loop = Callable[[float], tuple[int, float]]


def timed(step: Callable[[], int], seconds: float) -> tuple[int, float]:
    """Call ``step`` (it returns how many steps it made) until ``seconds`` have passed."""
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += step()
    return steps, time.perf_counter() - start


def legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


# The raw environments -------------------------------------------------------------------------


def raw_aec(players: int) -> Loop:
    env = camelup_v1.env(num_players=players, **PLAIN)
    env.reset(seed=0)
    rng = np.random.default_rng(0)

    def step() -> int:
        if not env.agents:
            env.reset()
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else legal(obs["action_mask"], rng))
        return 1

    return lambda seconds: timed(step, seconds)


def raw_gymnasium(name: str) -> Loop:
    env = gymnasium.make(name, **PLAIN)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)

    def step() -> int:
        nonlocal info
        _, _, term, trunc, info = env.step(legal(info["action_mask"], rng))
        if term or trunc:
            _, info = env.reset()
        return 1

    return lambda seconds: timed(step, seconds)


def random_rows(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (Gumbel-max)."""
    return np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)


def raw_vector(name: str, envs: int) -> Loop:
    vec = gymnasium.make_vec(name, num_envs=envs, vectorization_mode="vector_entry_point", **PLAIN)
    _, info = vec.reset(seed=0)
    rng = np.random.default_rng(0)

    def step() -> int:
        nonlocal info
        _, _, _, _, info = vec.step(random_rows(info["action_mask"], rng))
        return envs

    return lambda seconds: timed(step, seconds)


# The libraries' loops ---------------------------------------------------------------------------


def sb3(name: str) -> Loop:
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    vec = DummyVecEnv([lambda: gymnasium.make(name, **PLAIN)])
    vec.seed(0)
    vec.reset()
    rng = np.random.default_rng(0)

    def step() -> int:
        vec.step(random_rows(get_action_masks(vec), rng))
        return 1

    return lambda seconds: timed(step, seconds)


def rllib(players: int) -> Loop:
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    env = PettingZooEnv(camelup_v1.env(num_players=players, **PLAIN))
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)

    def step() -> int:
        nonlocal obs
        ((agent, seen),) = obs.items()
        obs, _, terms, truncs, _ = env.step({agent: legal(seen["action_mask"], rng)})
        if terms["__all__"] or truncs["__all__"]:
            obs, _ = env.reset()
        return 1

    return lambda seconds: timed(step, seconds)


def cleanrl(name: str, envs: int) -> Loop:
    """CleanRL's loop on Gymnasium's vector API: tensors from the env, actions back as numpy."""
    vec = gymnasium.make_vec(name, num_envs=envs, vectorization_mode="vector_entry_point", **PLAIN)
    obs, info = vec.reset(seed=0)
    generator = torch.Generator().manual_seed(0)
    state = {"obs": torch.as_tensor(obs), "mask": torch.as_tensor(info["action_mask"])}

    def step() -> int:
        noise = torch.rand(state["mask"].shape, generator=generator)
        actions = torch.where(state["mask"], noise, -1.0).argmax(dim=1)
        obs, reward, term, trunc, info = vec.step(actions.numpy())
        state["obs"] = torch.as_tensor(obs)
        state["mask"] = torch.as_tensor(info["action_mask"])
        torch.as_tensor(reward), torch.as_tensor(np.logical_or(term, trunc))
        return envs

    return lambda seconds: timed(step, seconds)


def torchrl_rollout(env: Any, frames: int) -> Loop:
    """Random rollouts of ``frames`` steps (TorchRL draws the actions from the masked spec)."""
    env.set_seed(0)
    batch = env.batch_size.numel() if env.batch_size else 1

    def step() -> int:
        env.rollout(frames, break_when_any_done=False)
        return frames * batch

    return lambda seconds: timed(step, seconds)


def torchrl_pettingzoo(players: int) -> Loop:
    from torchrl.envs import PettingZooWrapper

    env = PettingZooWrapper(env=camelup_v1.env(num_players=players, **PLAIN), use_mask=True)
    return torchrl_rollout(env, 100)


def torchrl_gym_env(name: str) -> Loop:
    from torchrl.envs import ActionMask, GymEnv, TransformedEnv

    env = GymEnv(name, categorical_action_encoding=True, dict_observation=True, **PLAIN)
    return torchrl_rollout(TransformedEnv(env, ActionMask()), 100)


def torchrl_gym_wrapper(name: str, envs: int) -> Loop:
    from torchrl.envs import GymWrapper

    vec = gymnasium.make_vec(name, num_envs=envs, vectorization_mode="vector_entry_point", **PLAIN)
    return torchrl_rollout(GymWrapper(vec, categorical_action_encoding=True), 20)


def tianshou_collector(make_env: Callable[[], Any], policy_for: Callable[[Any], Any]) -> Loop:
    from tianshou.data import Collector, CollectStats, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv

    envs = DummyVectorEnv([make_env])
    collector = Collector[CollectStats](
        policy_for(make_env()), envs, VectorReplayBuffer(10_000, 1), exploration_noise=True
    )
    collector.reset()

    def step() -> int:
        return collector.collect(n_step=100).n_collected_steps

    return lambda seconds: timed(step, seconds)


def tianshou_pettingzoo(players: int) -> Loop:
    from tianshou.algorithm import (
        MARLRandomDiscreteMaskedOffPolicyAlgorithm,
        MultiAgentOffPolicyAlgorithm,
    )
    from tianshou.env import PettingZooEnv

    def policy_for(env: PettingZooEnv) -> MultiAgentOffPolicyAlgorithm:
        agents = [
            MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
            for _ in range(players)
        ]
        return MultiAgentOffPolicyAlgorithm(algorithms=agents, env=env)

    return tianshou_collector(
        lambda: PettingZooEnv(camelup_v1.env(num_players=players, **PLAIN)), policy_for
    )


def tianshou_gymnasium(name: str) -> Loop:
    """The Gymnasium env with its dict observation under Tianshou's key names, which the masked
    random policy reads (``obs.mask``)."""
    from tianshou.algorithm import MARLRandomDiscreteMaskedOffPolicyAlgorithm

    return tianshou_collector(
        lambda: gymnasium.make(name, dict_observation=("obs", "mask"), **PLAIN),
        lambda env: MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--envs", type=int, default=16, help="games of the vector loops")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    name = env_id("classic", args.players)
    baselines = {
        "camelup_v1 (AEC)": raw_aec(args.players),
        "gymnasium.make": raw_gymnasium(name),
        f"gymnasium.make_vec, {args.envs} games": raw_vector(name, args.envs),
    }
    aec, single, vector = baselines
    libraries: dict[str, tuple[str, Loop]] = {
        "SB3 DummyVecEnv + get_action_masks": (single, sb3(name)),
        "RLlib PettingZooEnv": (aec, rllib(args.players)),
        f"CleanRL-style loop, {args.envs} games": (vector, cleanrl(name, args.envs)),
        "TorchRL PettingZooWrapper(use_mask=True)": (aec, torchrl_pettingzoo(args.players)),
        "TorchRL GymEnv + ActionMask": (single, torchrl_gym_env(name)),
        f"TorchRL GymWrapper(make_vec), {args.envs} games": (
            vector,
            torchrl_gym_wrapper(name, args.envs),
        ),
        "Tianshou Collector, PettingZooEnv": (aec, tianshou_pettingzoo(args.players)),
        "Tianshou Collector, DummyVectorEnv": (single, tianshou_gymnasium(name)),
    }
    loops = {**baselines, **{label: loop for label, (_, loop) in libraries.items()}}
    for loop in loops.values():  # warm-up: first calls load kernels, build specs, compile
        loop(0.3)
    best = dict.fromkeys(loops, 0.0)
    for _ in range(args.rounds):
        for label, loop in loops.items():
            steps, elapsed = loop(args.seconds)
            best[label] = max(best[label], steps / elapsed)
    print(f"classic {args.players}p, plain observation, best of {args.rounds} rounds")
    for label in baselines:
        print(f"  {label:48s} {best[label]:10,.0f} steps/s")
    for label, (baseline, _) in libraries.items():
        ratio = best[label] / best[baseline]
        print(f"  {label:48s} {best[label]:10,.0f} steps/s = {ratio:5.2f} x {baseline}")


if __name__ == "__main__":
    main()
