"""Train a Camel Up agent with self-play MaskablePPO (``camelup train CONFIG.yaml``).

Read top to bottom: the configuration, the environments, the callback that snapshots, evaluates
and checkpoints, and the main loop.

* The learner plays a random seat of :class:`~training.selfplay.SelfPlayEnv` each episode; the
  other seats are drawn per episode from ``opponent_mix`` — frozen snapshots of the learner
  (``"self"``, one added every ``snapshot_every`` steps) and scripted baselines.
* Every ``eval_every`` steps the current policy plays ``eval_games`` seat-rotated games against
  each of ``eval_opponents``; win rates with 95% CIs go to TensorBoard and ``eval.csv``.
* Every ``checkpoint_every`` steps ``checkpoints/latest.zip`` and ``progress.json`` are written;
  ``--resume`` continues from them after an interruption with the same snapshots and counters.
* The result is ``model.zip`` in ``out_dir``: a camelup model file (tensors and JSON only,
  :mod:`agents.policy_file`), loadable with ``agents.make("ppo:OUT_DIR/model.zip")``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from camelup_env.rules import RuleSet
from training.config import ConfigError, add_override_flags, load_config, overrides_from_args


# 1. Configuration --------------------------------------------------------------------------
@dataclass
class TrainConfig:
    """Every setting of a run; YAML files and ``--field-name`` flags set them."""

    name: str = "ppo_selfplay"
    preset: str = "classic"
    num_players: int = 4
    reward_mode: str = "win"
    odds_features: bool = True
    race_samples: int = 200
    coin_shaping: float = 0.0
    total_timesteps: int = 1_000_000
    n_envs: int = 0  # 0 = one per CPU core
    seed: int = 0
    learning_rate: float = 3e-4
    n_steps: int = 1024  # per environment, per update
    batch_size: int = 512
    n_epochs: int = 10
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    opponent_mix: dict[str, float] = field(
        default_factory=lambda: {"self": 0.5, "greedy": 0.3, "heuristic": 0.1, "random": 0.1})
    snapshot_every: int = 50_000
    max_snapshots: int = 20
    eval_every: int = 100_000
    eval_games: int = 100
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "heuristic", "greedy"])
    checkpoint_every: int = 25_000
    out_dir: str = "runs/ppo_selfplay"
    #: Optional warm start (training.imitation): games of the teacher against itself to imitate
    #: before PPO starts; 0 = off.
    imitation_teacher: str = "greedy"
    imitation_games: int = 0
    imitation_epochs: int = 8

    def __post_init__(self) -> None:
        self.rules()  # a bad preset / player count fails here, with the engine's message
        positive = ("total_timesteps", "n_steps", "batch_size", "n_epochs", "snapshot_every",
                    "eval_every", "eval_games", "checkpoint_every", "max_snapshots",
                    "race_samples")
        for name in positive:
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.n_envs < 0:
            raise ValueError(f"n_envs must be >= 0 (0 = one per core), got {self.n_envs}")
        if self.imitation_games < 0 or self.imitation_epochs < 0:
            raise ValueError("imitation_games and imitation_epochs must be >= 0")
        if not 0 < self.gamma <= 1 or not 0 <= self.gae_lambda <= 1:
            raise ValueError("gamma must be in (0, 1] and gae_lambda in [0, 1]")

    def rules(self) -> RuleSet:
        return RuleSet(self.preset, num_players=self.num_players)

    def env_count(self) -> int:
        return self.n_envs or os.cpu_count() or 1


# 2. Environments ---------------------------------------------------------------------------
def make_env(cfg: TrainConfig, rank: int, snapshots: list[str]):
    """A thunk building worker ``rank``'s self-play env (SubprocVecEnv calls it in the worker)."""

    def build():
        import torch
        from stable_baselines3.common.monitor import Monitor

        from training.selfplay import SelfPlayEnv

        torch.set_num_threads(1)
        env = SelfPlayEnv(
            opponent_mix=cfg.opponent_mix, pool_seed=cfg.seed * 1000 + rank,
            max_snapshots=cfg.max_snapshots, snapshots=snapshots, rules=cfg.rules(),
            reward_mode=cfg.reward_mode, odds_features=cfg.odds_features,
            race_samples=cfg.race_samples, coin_shaping=cfg.coin_shaping,
        )
        env.reset(seed=cfg.seed * 1000 + rank)
        return Monitor(env)  # episode rewards and lengths for TensorBoard (rollout/ep_rew_mean)

    return build


def save_model(model, path: Path, cfg: TrainConfig) -> Path:
    """Save a camelup model file (tensors + JSON, see agents.policy_file) for ``ppo:``."""
    from agents.ppo import save_policy

    return save_policy(model, path, cfg.rules(), env_version="camelup_v0",
                       observer={"odds_features": cfg.odds_features,
                                 "race_samples": cfg.race_samples},
                       trained_steps=int(model.num_timesteps), config=asdict(cfg))


# 3. Snapshots, evaluation, checkpoints -----------------------------------------------------
def make_callback(cfg: TrainConfig, out: Path, progress: dict):
    from stable_baselines3.common.callbacks import BaseCallback

    from training.curves import plot_learning_curve
    from training.evaluate import evaluate

    class SelfPlayCallback(BaseCallback):
        def __init__(self):
            super().__init__()
            self.bar = None

        def _on_training_start(self) -> None:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                                MofNCompleteColumn(), TimeRemainingColumn(),
                                TextColumn("{task.fields[rates]}"))
            self.task = self.bar.add_task("training", total=cfg.total_timesteps,
                                          completed=self.num_timesteps,
                                          rates=progress.get("rates", ""))
            self.bar.start()

        def _due(self, key: str, every: int) -> bool:
            if self.num_timesteps - progress[key] >= every:
                progress[key] = self.num_timesteps
                return True
            return False

        def _on_step(self) -> bool:
            self.bar.update(self.task, completed=self.num_timesteps)
            if self._due("last_snapshot", cfg.snapshot_every):
                path = save_model(self.model, out / "snapshots" / f"step_{self.num_timesteps}",
                                  cfg)
                progress["snapshots"].append(str(path))
                self.training_env.env_method("add_snapshot", str(path))
            if self._due("last_eval", cfg.eval_every):
                self.evaluate()
            if self._due("last_checkpoint", cfg.checkpoint_every):
                self.checkpoint()
            return True

        def evaluate(self) -> None:
            path = save_model(self.model, out / "checkpoints" / "eval_candidate", cfg)
            rates = []
            for opponent in cfg.eval_opponents:
                r = evaluate(f"ppo:{path}", opponent, cfg.rules(), cfg.eval_games,
                             seed=10_000 + self.num_timesteps, workers=1)
                self.logger.record(f"eval/win_rate_vs_{opponent}", r.win_rate)
                row = {"timesteps": self.num_timesteps, **r.as_row()}
                new_file = not (out / "eval.csv").exists()
                with open(out / "eval.csv", "a", newline="") as f:
                    writer = csv.DictWriter(f, fieldnames=list(row))
                    if new_file:
                        writer.writeheader()
                    writer.writerow(row)
                rates.append(f"{opponent} {r.win_rate:.2f}")
            progress["rates"] = "win: " + ", ".join(rates)
            self.bar.update(self.task, rates=progress["rates"])
            plot_learning_curve(out)

        def checkpoint(self) -> None:
            save_model(self.model, out / "checkpoints" / "latest", cfg)
            progress["timesteps"] = self.num_timesteps
            # One plain line per checkpoint, so a log file (no terminal) shows progress too.
            self.bar.console.log(f"{self.num_timesteps} steps, checkpoint saved; "
                                 f"{progress.get('rates', 'no evaluation yet')}")
            tmp = out / "progress.json.tmp"
            tmp.write_text(json.dumps(progress, indent=2))
            os.replace(tmp, out / "progress.json")  # atomic: a kill never leaves half a file

        def _on_training_end(self) -> None:
            self.bar.stop()

    return SelfPlayCallback()


# 4. Main loop ------------------------------------------------------------------------------
#: Settings a ``--resume`` may change: train longer, or continue a run whose folder was moved.
RESUME_MAY_CHANGE = frozenset({"total_timesteps", "out_dir"})


def warm_start(model, cfg: TrainConfig) -> dict[str, float]:
    """Imitate ``cfg.imitation_teacher`` before PPO (see :mod:`training.imitation`)."""
    from camelup_env.observation import Observer
    from training.imitation import collect_demonstrations, pretrain

    start = time.time()
    observer = Observer(cfg.rules(), odds_features=cfg.odds_features,
                        race_samples=cfg.race_samples)
    data = collect_demonstrations(cfg.rules(), observer, cfg.imitation_teacher,
                                  cfg.imitation_games, cfg.seed, cfg.reward_mode,
                                  cfg.coin_shaping)
    stats = pretrain(model, data, cfg.imitation_epochs, cfg.batch_size, cfg.seed)
    stats["seconds"] = round(time.time() - start, 1)
    print(f"imitation of {cfg.imitation_teacher}: {int(stats['samples'])} decisions from "
          f"{cfg.imitation_games} games, accuracy {stats['accuracy']:.3f}, value mse "
          f"{stats['value_mse']:.3f} ({stats['seconds']} s)", flush=True)
    return stats


def train(cfg: TrainConfig, resume: bool = False) -> Path:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    torch.set_num_threads(1)
    out = Path(cfg.out_dir)
    progress_file = out / "progress.json"
    latest = out / "checkpoints" / "latest.zip"
    if resume:
        if not progress_file.exists() or not latest.exists():
            raise FileNotFoundError(f"nothing to resume in {out}: no checkpoint yet")
        progress = json.loads(progress_file.read_text())
        # A resumed run may be longer, or its folder moved; anything else would mix two runs.
        changed = sorted(k for k, v in asdict(cfg).items()
                         if progress["config"].get(k) != v and k not in RESUME_MAY_CHANGE)
        if changed:
            raise ConfigError(f"--resume with a different config (changed: {changed}); use the "
                              "config of the interrupted run or a new out_dir")
        progress["config"] = asdict(cfg)
    else:
        if progress_file.exists():
            raise FileExistsError(f"{out} already holds a run; pass --resume or use a new "
                                  "out_dir")
        progress = {"config": asdict(cfg), "timesteps": 0, "snapshots": [],
                    "last_snapshot": 0, "last_eval": 0, "last_checkpoint": 0}
    for sub in ("snapshots", "checkpoints"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(asdict(cfg), indent=2))

    n = cfg.env_count()
    thunks = [make_env(cfg, rank, progress["snapshots"]) for rank in range(n)]
    vec_env = SubprocVecEnv(thunks, start_method="forkserver") if n > 1 else DummyVecEnv(thunks)
    model = MaskablePPO(
        "MlpPolicy", vec_env, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
        batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range, ent_coef=cfg.ent_coef,
        policy_kwargs={"net_arch": list(cfg.net_arch)}, seed=cfg.seed, device="cpu",
        tensorboard_log=str(out / "tensorboard"), verbose=0,
    )
    if resume:
        from agents.ppo import load_into

        load_into(model, latest)  # weights, optimizer, counters; never unpickles the file
    elif cfg.imitation_games:
        progress["imitation"] = warm_start(model, cfg)
    remaining = cfg.total_timesteps - progress["timesteps"]
    callback = make_callback(cfg, out, progress)
    start = time.time()
    if remaining > 0:
        model.learn(remaining, callback=callback, reset_num_timesteps=not resume,
                    tb_log_name="ppo")
        callback.checkpoint()
    vec_env.close()
    final = save_model(model, out / "model", cfg)
    print(f"trained {model.num_timesteps} steps in {time.time() - start:.0f} s -> {final}")
    return final


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", nargs="?", help="YAML config (configs/train/*.yaml)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in out_dir from its last checkpoint")
    add_override_flags(parser, TrainConfig)


def run(args: argparse.Namespace) -> int:
    cfg = load_config(TrainConfig, args.config, overrides_from_args(args, TrainConfig))
    train(cfg, resume=args.resume)
    return 0
