"""Self-play training speed against the PPO-only limit, and the paths before it, in one run.

``python benchmarks/training.py [--config configs/train/ppo_selfplay.yaml] [--seconds 40]``

The **PPO-only limit** is MaskablePPO with the config's network, rollout size, minibatch and
epochs on a zero-cost env (:class:`ZeroCostVecEnv`: observations drawn from real ones, no game
behind them): what training would reach if the game, the observations and the opponents cost
nothing. The last line says what fraction of it the training path reaches.

Every path trains MaskablePPO with the config's hyperparameters; frozen snapshots are in the
pool from the start (an untrained copy of the learner), so ``"self"`` opponents are real
policies, as in a long run. Three runs: the training path with the config's opponent mix, the
same with every distilled bot replaced by its exact-odds scripted teacher (the mix before
distillation), and the old path with that mix. The paths:

* **new**: :class:`training.policy.vec_env.CamelUpVecEnv` (``n_envs`` games on the batch core, a
  policy opponent's moves decided by one forward pass per round), split over the config's
  ``env_workers`` processes (:class:`training.policy.sharded_vec_env.ShardedVecEnv`), what
  ``camelup train`` uses;
* **old**: ``SelfPlaySingleAgentEnv`` (a ``SingleAgentEnv``) in SB3's ``SubprocVecEnv``, one
  process per core, each opponent policy move a batch-1 ``predict``: what ``camelup train``
  used before.

Each is measured over whole rollouts plus their updates (the first rollout, which compiles
the numba kernels and fills caches, is not counted), and the time is split: env (games,
observations, rewards), opponents (their decisions and the observations they read), policy
forward (the learner's actions during rollouts, and the rest of SB3's rollout loop) and
updates (gradient steps).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import SubprocVecEnv, VecEnv, VecEnvWrapper

from camelup_config import load_config
from training.policy.sb3_trainer import TrainConfig, build_model, make_env, save_model
from training.policy.selfplay import SelfPlaySingleAgentEnv


class StepTimer(VecEnvWrapper):
    """Wall time inside ``step`` / ``reset`` of the wrapped VecEnv (env plus opponents)."""

    def __init__(self, venv):
        super().__init__(venv)
        self.seconds = 0.0

    def reset(self):
        start = time.perf_counter()
        obs = self.venv.reset()
        self.seconds += time.perf_counter() - start
        return obs

    def step_wait(self):
        start = time.perf_counter()
        out = self.venv.step_wait()
        self.seconds += time.perf_counter() - start
        return out


class ZeroCostVecEnv(VecEnv):
    """A VecEnv whose steps cost nothing: observations and masks cycle through a fixed set
    taken from the real env, rewards are small noise and an episode ends every
    ``episode_length`` steps, so PPO sees inputs of the real shape and spread."""

    def __init__(
        self, observations: np.ndarray, masks: np.ndarray, num_envs: int, episode_length: int = 30
    ):
        self.pool_obs, self.pool_masks = observations, masks
        self.episode_length = episode_length
        self.render_mode = None
        low = np.full(observations.shape[1], -np.inf, np.float32)
        super().__init__(
            num_envs,
            gymnasium.spaces.Box(low, -low, dtype=np.float32),
            gymnasium.spaces.Discrete(masks.shape[1]),
        )
        self._t = 0
        self._rows = np.arange(num_envs) % len(observations)

    def reset(self) -> np.ndarray:
        return self.pool_obs[self._rows]

    def step_async(self, actions: np.ndarray) -> None:
        self._t += 1

    def step_wait(self):
        self._rows = (self._rows + 1) % len(self.pool_obs)
        dones = np.full(self.num_envs, self._t % self.episode_length == 0)
        rewards = np.where(dones, np.sign(np.sin(self._rows)), 0.0).astype(np.float32)
        infos = [
            {"terminal_observation": o} if d else {}
            for o, d in zip(self.pool_obs[self._rows], dones, strict=True)
        ]
        return self.pool_obs[self._rows], rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        return self.pool_masks[self._rows]

    def close(self) -> None:
        pass

    def get_attr(self, attr_name, indices=None):
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name, value, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks":
            return list(self.action_masks()[list(self._get_indices(indices))])
        return [
            getattr(self, method_name)(*method_args, **method_kwargs)
            for _ in self._get_indices(indices)
        ]

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False for _ in self._get_indices(indices)]


def real_samples(cfg: TrainConfig, count: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of the learner from random play of ``cfg``'s game."""
    from training.policy.vec_env import CamelUpVecEnv, fixed_opponents

    venv = CamelUpVecEnv(
        64,
        cfg.rules(),
        fixed_opponents(["random"] * (cfg.num_players - 1)),
        seed=cfg.seed,
        **cfg.observer_settings(),
    )
    rng = np.random.default_rng(cfg.seed)
    obs, seen, masks = venv.reset(), [], []
    while len(seen) * 64 < count:
        mask = venv.action_masks()
        seen.append(obs)
        masks.append(mask)
        obs = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))[0]
    return np.concatenate(seen), np.concatenate(masks)


def ppo_only(cfg: TrainConfig, seconds: float) -> dict[str, float]:
    """MaskablePPO's own rate on :class:`ZeroCostVecEnv` with ``cfg``'s settings."""
    torch.set_num_threads(cfg.torch_threads or os.cpu_count() or 1)
    observations, masks = real_samples(cfg)
    venv = ZeroCostVecEnv(observations, masks, cfg.n_envs)
    model = build_model(cfg, venv)
    rollout = cfg.n_envs * cfg.n_steps
    model.learn(rollout)
    start = time.perf_counter()
    done = 0
    while done == 0 or time.perf_counter() - start < seconds:
        model.learn(rollout, reset_num_timesteps=False)
        done += rollout
    total = time.perf_counter() - start
    return {"decisions": done, "seconds": total, "rate": done / total}


class RolloutTimer(BaseCallback):
    """Wall time of each rollout; what is left of ``learn`` is the updates."""

    def __init__(self):
        super().__init__()
        self.rollouts: list[float] = []
        self._start = 0.0

    def _on_rollout_start(self) -> None:
        self._start = time.perf_counter()

    def _on_rollout_end(self) -> None:
        self.rollouts.append(time.perf_counter() - self._start)

    def _on_step(self) -> bool:
        return True


def _old_env(cfg: TrainConfig, rank: int, snapshot: str):
    def build():
        torch.set_num_threads(1)
        env = SelfPlaySingleAgentEnv(
            opponent_mix=cfg.opponent_mix,
            pool_seed=cfg.seed * 1000 + rank,
            max_snapshots=cfg.max_snapshots,
            snapshots=[snapshot],
            rules=cfg.rules(),
            reward_mode=cfg.reward_mode,
            coin_shaping=cfg.coin_shaping,
            **cfg.observer_settings(),
        )
        env.reset(seed=cfg.seed * 1000 + rank)
        return env

    return build


def _timers(inner) -> dict[str, float]:
    """Seconds in the env and in opponents' decisions, summed over the shards' processes."""
    if inner is None:
        return {"env": 0.0, "opponents": 0.0}
    shards = inner.shard_attr("timers") if hasattr(inner, "shard_attr") else [inner.timers]
    return {k: sum(t[k] for t in shards) for k in ("env", "opponents")}


def measure(cfg: TrainConfig, path: str, snapshot: str, seconds: float) -> dict[str, float]:
    """Train on one path until ``seconds`` have passed (whole rollouts); figures per second."""
    # The old training process ran torch on one thread (its cores went to the env workers).
    torch.set_num_threads(1 if path == "old" else cfg.torch_threads or os.cpu_count() or 1)
    if path == "new":
        venv = make_env(cfg, [snapshot])
        inner = venv.venv
        n_envs, n_steps = cfg.n_envs, cfg.n_steps
    else:
        n_envs = os.cpu_count() or 1
        inner = None
        venv = SubprocVecEnv(
            [_old_env(cfg, r, snapshot) for r in range(n_envs)], start_method="forkserver"
        )
        # The same rollout size as the new path, split over the worker processes.
        n_steps = max(cfg.batch_size // n_envs, cfg.n_envs * cfg.n_steps // n_envs)
    timed = StepTimer(venv)
    model = build_model(cfg, timed, n_steps=n_steps)
    rollout = n_envs * n_steps
    model.learn(rollout)  # warm-up: numba compilation, caches, worker start
    timer = RolloutTimer()
    step_before = timed.seconds
    timers_before = _timers(inner)
    start = time.perf_counter()
    done = 0
    while done == 0 or time.perf_counter() - start < seconds:
        model.learn(rollout, callback=timer, reset_num_timesteps=False)
        done += rollout
    total = time.perf_counter() - start
    step = timed.seconds - step_before
    opponents = float("nan")
    if inner is not None:  # the shards' own split, scaled to the wall time spent stepping
        timers = _timers(inner)
        env_s, opp_s = (timers[k] - timers_before[k] for k in ("env", "opponents"))
        opponents = step * opp_s / (env_s + opp_s)
    venv.close()
    rollouts = sum(timer.rollouts)
    return {
        "decisions": done,
        "seconds": total,
        "rate": done / total,
        "env": step - (0.0 if inner is None else opponents),
        "opponents": opponents,
        "forward": rollouts - step,
        "updates": total - rollouts,
    }


def exact_odds_mix(mix: dict[str, float]) -> dict[str, float]:
    """``mix`` with every distilled bot (a ``ppo:`` model file made by ``camelup distill``)
    replaced by its scripted teacher: the mix as it was before distillation."""
    from agents.policy_file import read_metadata

    out: dict[str, float] = {}
    for name, weight in mix.items():
        if name.startswith("ppo:"):
            name = read_metadata(name[4:]).get("distilled_from", name)
        out[name] = out.get(name, 0.0) + weight
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/train/ppo_selfplay.yaml")
    parser.add_argument(
        "--seconds",
        type=float,
        default=40.0,
        help="time per measurement (whole rollouts; the old path takes one)",
    )
    parser.add_argument("--old-seconds", type=float, default=20.0)
    args = parser.parse_args()
    base = load_config(TrainConfig, args.config, {})
    exact = replace(base, opponent_mix=exact_odds_mix(base.opponent_mix))
    print(
        f"config {args.config}: {base.preset}, {base.num_players} players, "
        f"n_envs {base.n_envs}, n_steps {base.n_steps}, batch {base.batch_size}, "
        f"epochs {base.n_epochs}, net {base.net_arch}, opponents {base.opponent_mix}; "
        f"{os.cpu_count()} cores",
        flush=True,
    )
    runs = [
        ("new", "config's mix", base, args.seconds),
        ("new", "exact-odds mix", exact, args.seconds),
        ("old", "exact-odds mix", exact, args.old_seconds),
    ]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tiny = replace(base, n_envs=1, env_workers=0, opponent_mix={"random": 1.0})
        snap_model = MaskablePPO(
            "MlpPolicy",
            make_env(tiny, []),
            policy_kwargs={"net_arch": list(base.net_arch)},
            n_steps=8,
            batch_size=8,
            device="cpu",
        )
        snapshot = str(save_model(snap_model, Path(tmp) / "snapshot", base))
        for path, label, cfg, seconds in runs:
            if label == "config's mix" and cfg.opponent_mix == exact.opponent_mix:
                continue  # the config has no distilled bots: the next row is the same run
            r = measure(cfg, path, snapshot, seconds)
            rows.append((path, label, r))
            split = "  ".join(
                f"{k} {r[k] / r['seconds']:.0%}"
                for k in ("env", "opponents", "forward", "updates")
                if r[k] == r[k]
            )
            print(
                f"{path} path, {label:15s}: {r['rate']:8.0f} learner decisions/s "
                f"({r['decisions']} in {r['seconds']:.0f} s)  {split}",
                flush=True,
            )
    limit = ppo_only(base, args.seconds)
    print(
        f"PPO-only limit: {limit['rate']:.0f} decisions/s ({limit['decisions']} in "
        f"{limit['seconds']:.0f} s on a zero-cost env)",
        flush=True,
    )
    for path, label, r in rows[1:]:
        print(
            f"{path} path, {label}: {r['rate']:.0f} decisions/s = "
            f"{r['rate'] / limit['rate']:.2f} of the limit"
        )
    new = rows[0][2]
    print(
        f"training: {new['rate']:.0f} learner decisions/s = {new['rate'] / limit['rate']:.2f} "
        f"of the PPO-only limit ({limit['rate']:.0f}/s on a zero-cost env, same network, "
        f"batch and epochs)"
    )


if __name__ == "__main__":
    main()
