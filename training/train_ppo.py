"""Train a Camel Up agent with self-play MaskablePPO (``camelup train CONFIG.yaml``).

Read top to bottom: the configuration (every field documented, every value checked before
anything runs), the environment, the background evaluator, the callback that snapshots,
evaluates and checkpoints, and the main loop.

* The learner plays ``n_envs`` games at once (:class:`training.vec_env.CamelUpVecEnv`, split
  over ``env_workers`` processes by :class:`training.sharded_vec_env.ShardedVecEnv`), a random
  seat in each; every episode's opponents are drawn from
  ``opponent_mix``: frozen snapshots of the learner (``"self"``, one added every
  ``snapshot_every`` steps, all games where one snapshot must move decided by one forward pass)
  and scripted bots.
* Every ``eval_every`` steps the current policy is saved and evaluated **in a background
  process** (training goes on): ``eval_games`` paired, seat-rotated games against each of
  ``eval_opponents``, win share with a 95% interval, appended to ``eval.csv`` (one row per
  step and opponent, also after a resume) and drawn in ``learning_curve.png``.
* Every ``checkpoint_every`` steps ``checkpoints/latest.zip`` and ``progress.json`` are written;
  Ctrl-C writes them too and prints the ``--resume`` command.
* The result is ``model.zip`` in ``out_dir``: a camelup model file (tensors and JSON only,
  :mod:`agents.policy_file`), loadable with ``agents.make("ppo:OUT_DIR/model.zip")``.
"""

from __future__ import annotations

import argparse
import csv
import json
import multiprocessing as mp
import os
import shlex
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from camelup_config import (
    ConfigError,
    setting,
)
from camelup_env.camelup_v1 import ENV_VERSION, REWARD_MODES
from camelup_env.rules import RuleSet


# 1. Configuration --------------------------------------------------------------------------
@dataclass
class TrainConfig:
    """Every setting of a run; YAML files and ``--field-name`` flags set them."""

    name: str = setting("ppo_selfplay", help="Name of the run (recorded in the model file).")
    preset: str = setting("classic", help="Rule set: classic, second_edition, supercup or "
                                          "persian_tutorial.")
    num_players: int = setting(4,
        help="Players per game (the learner and num_players - 1 opponents).")
    reward_mode: str = setting("win",
        help="Terminal reward: win (zero-sum), rank or coins (see camelup_v1).")
    odds_features: bool = setting(True,
        help="Exact leg odds, leg-bet values and race odds in the observation.")
    action_values: bool = setting(True,
        help="Per-action expected coins in the observation (camelup_v1's action_values).")
    race_samples: int = setting(64,
        help="Monte Carlo rollouts behind the race odds of the observation.")
    coin_shaping: float = setting(0.0,
        help="Dense reward: this much per coin the learner gains or loses during the game.")
    total_timesteps: int = setting(1_000_000, help="Learner decisions to train for.")
    n_envs: int = setting(64,
        help="Games played side by side (one policy forward pass decides all of them).")
    env_workers: int = setting(0,
        help="Processes stepping the games, n_envs split between them (0 or 1: the learner's "
             "own process; about one per core is fastest).")
    seed: int = setting(0, help="Seed of the games, the opponent draws and the network.")
    device: str = setting("auto", help="Torch device: auto (CUDA when present), cpu or cuda.")
    torch_threads: int = setting(0, help="Torch threads for the updates (0: one per core).")
    learning_rate: float = setting(3e-4, help="Adam learning rate.")
    n_steps: int = setting(64,
        help="Decisions per game per update (a rollout is n_steps * n_envs decisions).")
    batch_size: int = setting(1024, help="Minibatch size of the updates.")
    n_epochs: int = setting(4, help="Passes over each rollout.")
    gamma: float = setting(0.995, help="Discount factor.")
    gae_lambda: float = setting(0.95, help="GAE lambda.")
    clip_range: float = setting(0.2, help="PPO clip range.")
    ent_coef: float = setting(0.01, help="Entropy bonus.")
    net_arch: list[int] = setting(
        default_factory=lambda: [256, 256],
        help="Hidden layers of the policy and value networks.")
    opponent_mix: dict[str, float] = setting(
        default_factory=lambda: {"self": 0.5, "greedy": 0.3, "heuristic": 0.1, "random": 0.1},
        help="Opponent draw weights: 'self' (a frozen snapshot) or any agent name.")
    snapshot_every: int = setting(50_000, help="Decisions between snapshots of the learner.")
    max_snapshots: int = setting(20,
        help="Snapshots kept in the opponent pool (oldest dropped first).")
    eval_every: int = setting(250_000, help="Decisions between evaluations.")
    eval_games: int = setting(500,
        help="Games per evaluation and opponent (paired seeds, rotated seats; 500+ to compare "
             "checkpoints).")
    eval_opponents: list[str] = setting(
        default_factory=lambda: ["greedy"],
        help="Agents each evaluation plays against.")
    checkpoint_every: int = setting(50_000, help="Decisions between checkpoints.")
    out_dir: str = setting("runs/ppo_selfplay", help="Output folder of the run.")
    imitation_teacher: str = setting("greedy", help="Imitation warm start: the teacher agent.")
    imitation_games: int = setting(0,
        help="Imitation warm start: teacher self-play games (0: no warm start).")
    imitation_epochs: int = setting(8, help="Imitation warm start: passes over the demonstrations.")
    imitation_batch_size: int = setting(
        256, help="Imitation warm start: minibatch size (small: the demonstrations are few).")
    init_from: str = setting("",
        help="Fine-tune: start from this model file's weights (same game, observation and "
             "network; a fresh optimizer, decisions counted from 0). Empty: a new network.")

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Every value checked up front: a bad config fails in a second, not after an hour."""
        check_game_settings(self)
        check_positive(self, ("total_timesteps", "n_envs", "n_steps", "batch_size", "n_epochs",
                              "snapshot_every", "eval_every", "eval_games", "checkpoint_every",
                              "max_snapshots", "learning_rate", "imitation_batch_size"))
        if self.device not in ("auto", "cpu", "cuda") and not self.device.startswith("cuda:"):
            raise ConfigError(f"device must be auto, cpu or cuda[:N], got {self.device!r}")
        if self.env_workers < 0 or self.env_workers > self.n_envs:
            raise ConfigError(f"env_workers must be in 0..n_envs ({self.n_envs}), got "
                              f"{self.env_workers}")
        if self.torch_threads < 0:
            raise ConfigError(f"torch_threads must be >= 0, got {self.torch_threads}")
        if self.imitation_games < 0 or self.imitation_epochs < 0:
            raise ConfigError("imitation_games and imitation_epochs must be >= 0")
        if not 0 < self.gamma <= 1 or not 0 <= self.gae_lambda <= 1:
            raise ConfigError("gamma must be in (0, 1] and gae_lambda in [0, 1]")
        if self.clip_range <= 0 or self.ent_coef < 0:
            raise ConfigError("clip_range must be positive, ent_coef >= 0")
        if self.eval_games < self.num_players:
            raise ConfigError(f"eval_games must be at least num_players ({self.num_players}) "
                              "so every seat is played")
        if not self.eval_opponents:
            raise ConfigError("eval_opponents must name at least one agent")
        check_agents("eval_opponents", self.eval_opponents)
        if self.imitation_games:
            check_agents("imitation_teacher", [self.imitation_teacher])
        if self.init_from:
            if self.imitation_games:
                raise ConfigError("init_from and imitation_games exclude each other: a "
                                  "fine-tuned run starts from the file's weights")
            check_model_file(self, self.init_from, "init_from")

    def rules(self) -> RuleSet:
        return RuleSet(self.preset, num_players=self.num_players)

    def observer_settings(self) -> dict[str, Any]:
        """The learner's observation (keyword arguments of ``Observer``)."""
        return {"odds_features": self.odds_features, "race_samples": self.race_samples,
                "action_values": self.action_values}


# Checks shared with training.rllib_selfplay's config, which has the same game settings.
def check_positive(cfg: Any, names: tuple[str, ...]) -> None:
    for name in names:
        if getattr(cfg, name) <= 0:
            raise ConfigError(f"{name} must be positive, got {getattr(cfg, name)}")


def check_agents(field_name: str, specs: list[str]) -> None:
    """Every spec names an agent that can be made (a ``ppo:`` file is read now)."""
    import agents

    for spec in specs:
        try:
            agents.factory(spec) if ":" not in spec else agents.make(spec)
        except (ValueError, ImportError, OSError) as exc:
            raise ConfigError(f"{field_name}: {exc}") from exc


def check_model_file(cfg: TrainConfig, path: str, field_name: str) -> None:
    """``path`` (the setting ``field_name``) is a readable model file for exactly this run's
    game, observation and network (read without its tensors: a second, not a load)."""
    from agents.policy_file import ModelFileError, read_policy_file

    try:
        file = read_policy_file(path, tensors=False)
    except ModelFileError as exc:
        raise ConfigError(f"{field_name}: {exc}") from exc
    mismatch = [what for what, mine, theirs in (
        ("rules", cfg.rules().to_dict(), file.rules.to_dict()),
        ("observation", cfg.observer_settings(), file.observer_settings),
        ("net_arch", [list(cfg.net_arch)] * 2,
         [list(file.architecture.pi), list(file.architecture.vf)]),
    ) if mine != theirs]
    if mismatch:
        raise ConfigError(f"{field_name}: {path} was trained with other "
                          f"{', '.join(mismatch)} than this config")


def check_game_settings(cfg: Any) -> None:
    """The settings of the games, the observation, the network and the opponents, and
    ``out_dir``: fields both trainers have (``rules()`` builds the rule set)."""
    try:
        cfg.rules()
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    check_positive(cfg, ("race_samples",))
    if cfg.reward_mode not in REWARD_MODES:
        raise ConfigError(f"reward_mode must be one of {', '.join(REWARD_MODES)}, got "
                          f"{cfg.reward_mode!r}")
    if cfg.coin_shaping < 0:
        raise ConfigError(f"coin_shaping must be >= 0, got {cfg.coin_shaping}")
    if not cfg.net_arch or any(w <= 0 for w in cfg.net_arch):
        raise ConfigError(f"net_arch must be positive layer widths, got {cfg.net_arch}")
    mix = cfg.opponent_mix
    if not mix or any(w < 0 for w in mix.values()) or sum(mix.values()) <= 0:
        raise ConfigError(f"opponent_mix needs non-negative weights with a positive sum, "
                          f"got {mix}")
    check_agents("opponent_mix", [n for n in mix if n != "self"])
    out = Path(cfg.out_dir)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"out_dir {cfg.out_dir} exists and is not a folder")


# 2. Environment ----------------------------------------------------------------------------
def make_env(cfg: TrainConfig, snapshots: list[str]):
    """The batched self-play env (in ``env_workers`` processes when more than one): every
    episode draws its opponents from a pool of ``cfg.opponent_mix`` holding ``snapshots``."""
    from functools import partial

    from stable_baselines3.common.vec_env import VecMonitor

    from training.sharded_vec_env import ShardedVecEnv

    if cfg.env_workers <= 1:
        venv = _self_play_shard(cfg, snapshots, 1, 0)
    else:
        venv = ShardedVecEnv(partial(_self_play_shard, cfg, snapshots, cfg.env_workers),
                             cfg.env_workers)
    return VecMonitor(venv)  # episode rewards and lengths for TensorBoard (rollout/ep_rew_mean)


def _self_play_shard(cfg: TrainConfig, snapshots: list[str], shards: int, k: int):
    """Shard ``k`` of ``shards``: its share of the games, seeded where the previous one's end
    (game ``i`` has seed ``seed + i`` however the games are split), its own opponent pool."""
    from training.selfplay import SelfPlayVecEnv

    sizes = [cfg.n_envs // shards + (j < cfg.n_envs % shards) for j in range(shards)]
    if shards > 1:
        import torch

        torch.set_num_threads(1)  # frozen snapshots' forward passes: one core per worker
    return SelfPlayVecEnv(sizes[k], cfg.rules(), cfg.opponent_mix,
                          pool_seed=cfg.seed if shards == 1 else [cfg.seed, k],
                          max_snapshots=cfg.max_snapshots, snapshots=snapshots,
                          reward_mode=cfg.reward_mode, coin_shaping=cfg.coin_shaping,
                          seed=cfg.seed + sum(sizes[:k]), **cfg.observer_settings())


def save_model(model, path: Path, cfg: TrainConfig, optimizer: bool = False) -> Path:
    """Save a camelup model file (tensors + JSON, see agents.policy_file) for ``ppo:``."""
    from agents.ppo import save_policy

    return save_policy(model, path, cfg.rules(), env_version=ENV_VERSION,
                       observer=cfg.observer_settings(), optimizer=optimizer,
                       trained_steps=int(model.num_timesteps), config=asdict(cfg))


# 3. Background evaluation ------------------------------------------------------------------
def _evaluate_file(candidate: str, opponents: list[str], rules_doc: dict, games: int,
                   seed: int, result_path: str) -> None:
    """Child process: evaluate one saved policy, write its rows as JSON (atomically)."""
    import torch

    from tournament.evaluate import evaluate

    torch.set_num_threads(1)
    if hasattr(os, "nice"):
        os.nice(5)  # training keeps priority on a busy machine
    rules = RuleSet.from_dict(rules_doc)
    rows = [evaluate(f"ppo:{candidate}", opponent, rules, games, seed=seed, workers=1).as_row()
            for opponent in opponents]
    tmp = Path(result_path + ".tmp")
    tmp.write_text(json.dumps(rows))
    os.replace(tmp, result_path)


class BackgroundEvaluator:
    """Evaluates saved checkpoints one at a time in a child process while training goes on.

    Pending evaluations live in ``progress["evals_pending"]`` (steps), so a resumed run
    evaluates what an interrupted one had queued; rows land in ``eval.csv`` keyed by
    (timesteps, opponent), so nothing is written twice.
    """

    def __init__(self, cfg: TrainConfig, out: Path, progress: dict):
        self.cfg, self.out, self.progress = cfg, out, progress
        progress.setdefault("evals_pending", [])
        self.process: mp.Process | None = None
        self.running: int | None = None
        (out / "evals").mkdir(parents=True, exist_ok=True)

    def candidate(self, steps: int) -> Path:
        return self.out / "evals" / f"step_{steps}.zip"

    def submit(self, model, steps: int) -> None:
        save_model(model, self.candidate(steps), self.cfg)
        self.progress["evals_pending"].append(steps)
        self.poll()

    def poll(self) -> list[dict]:
        """Collect a finished evaluation and start the next; returns the new rows."""
        rows: list[dict] = []
        if self.process is not None and not self.process.is_alive():
            result = self.out / "evals" / f"step_{self.running}.json"
            if self.process.exitcode == 0 and result.exists():
                rows = [{"timesteps": self.running, **r} for r in json.loads(result.read_text())]
                self._append(rows)
            else:
                print(f"evaluation at {self.running} steps failed (exit code "
                      f"{self.process.exitcode}); it is skipped", file=sys.stderr)
            self.progress["evals_pending"].remove(self.running)
            self.process = self.running = None
        if self.process is None and self.progress["evals_pending"]:
            self.running = self.progress["evals_pending"][0]
            cfg = self.cfg
            self.process = mp.get_context("spawn").Process(
                target=_evaluate_file,
                args=(str(self.candidate(self.running)), list(cfg.eval_opponents),
                      cfg.rules().to_dict(), cfg.eval_games, 10_000 + self.running,
                      str(self.out / "evals" / f"step_{self.running}.json")))
            self.process.start()
        return rows

    def drain(self) -> list[dict]:
        """Wait for every queued evaluation (end of training)."""
        rows = []
        while self.process is not None or self.progress["evals_pending"]:
            if self.process is not None:
                self.process.join()
            rows += self.poll()
        return rows

    def stop(self) -> None:
        if self.process is not None and self.process.is_alive():
            self.process.terminate()
            self.process.join()

    def _append(self, rows: list[dict]) -> None:
        """Add rows to eval.csv, dropping any (timesteps, opponent) already there."""
        path = self.out / "eval.csv"
        old: list[dict] = []
        if path.exists():
            with open(path, newline="") as f:
                old = list(csv.DictReader(f))
        seen = {(str(r["timesteps"]), r["opponent"]) for r in old}
        new = [r for r in rows if (str(r["timesteps"]), r["opponent"]) not in seen]
        if not new:
            return
        tmp = path.with_suffix(".csv.tmp")
        with open(tmp, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(new[0]))
            writer.writeheader()
            writer.writerows(old + new)
        os.replace(tmp, path)
        from training.curves import plot_learning_curve

        plot_learning_curve(self.out)


# 4. Snapshots, evaluation and checkpoints during training ----------------------------------
def make_callback(cfg: TrainConfig, out: Path, progress: dict, evaluator):
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlayCallback(BaseCallback):
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
                evaluator.submit(self.model, self.num_timesteps)
            self.show(evaluator.poll())
            if self._due("last_checkpoint", cfg.checkpoint_every):
                self.checkpoint()
            return True

        def show(self, rows: list[dict]) -> None:
            for row in rows:
                self.logger.record(f"eval/win_rate_vs_{row['opponent']}", row["win_rate"])
            if rows:
                progress["rates"] = f"at {rows[0]['timesteps']}: " + ", ".join(
                    f"{r['opponent']} {r['win_rate']:.3f} [{r['ci_low']:.3f}, "
                    f"{r['ci_high']:.3f}]" for r in rows)
                self.bar.update(self.task, rates=progress["rates"])

        def checkpoint(self) -> None:
            save_model(self.model, out / "checkpoints" / "latest", cfg, optimizer=True)
            progress["timesteps"] = self.num_timesteps
            # One plain line per checkpoint, so a log file (no terminal) shows progress too.
            self.bar.console.log(f"{self.num_timesteps} steps, checkpoint saved; "
                                 f"{progress.get('rates', 'no evaluation yet')}")
            write_progress(out, progress)

        def _on_training_end(self) -> None:
            self.bar.stop()

    return SelfPlayCallback()


def write_progress(out: Path, progress: dict) -> None:
    tmp = out / "progress.json.tmp"
    tmp.write_text(json.dumps(progress, indent=2))
    os.replace(tmp, out / "progress.json")  # atomic: a kill never leaves half a file


# 5. Main loop ------------------------------------------------------------------------------
#: Settings a ``--resume`` may change: train longer, move the folder, or the machine.
RESUME_MAY_CHANGE = frozenset({"total_timesteps", "out_dir", "device", "torch_threads",
                               "env_workers"})


def warm_start(model, cfg: TrainConfig) -> dict[str, float]:
    """Imitate ``cfg.imitation_teacher`` before PPO (see :mod:`training.imitation`)."""
    from camelup_env.observation import Observer
    from training.imitation import collect_demonstrations, pretrain

    start = time.time()
    observer = Observer(cfg.rules(), **cfg.observer_settings())
    data = collect_demonstrations(cfg.rules(), observer, cfg.imitation_teacher,
                                  cfg.imitation_games, cfg.seed, cfg.reward_mode,
                                  cfg.coin_shaping)
    stats = pretrain(model, data, cfg.imitation_epochs, cfg.imitation_batch_size, cfg.seed)
    stats["seconds"] = round(time.time() - start, 1)
    print(f"imitation of {cfg.imitation_teacher}: {int(stats['samples'])} decisions from "
          f"{cfg.imitation_games} games, accuracy {stats['accuracy']:.3f}, value mse "
          f"{stats['value_mse']:.3f} ({stats['seconds']} s)", flush=True)
    return stats


def resolve_device(name: str) -> str:
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"device {name}: no CUDA device is available")
    return name


def open_run(cfg: TrainConfig, resume: bool) -> dict:
    """The run's progress record: new, or the interrupted run's (same config required)."""
    from training import open_run as open_progress

    return open_progress(
        cfg, resume, RESUME_MAY_CHANGE,
        fresh={"timesteps": 0, "snapshots": [], "last_snapshot": 0, "last_eval": 0,
               "last_checkpoint": 0, "evals_pending": []},
        has_checkpoint=lambda out, _: (out / "checkpoints" / "latest.zip").exists())


def train(cfg: TrainConfig, resume: bool = False, command: str | None = None) -> Path:
    import torch
    from sb3_contrib import MaskablePPO

    device = resolve_device(cfg.device)
    progress = open_run(cfg, resume)
    torch.set_num_threads(cfg.torch_threads or os.cpu_count() or 1)
    out = Path(cfg.out_dir)
    for sub in ("snapshots", "checkpoints"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(asdict(cfg), indent=2))

    if cfg.init_from and not resume:
        progress["snapshots"].append(cfg.init_from)  # "self" opponents start as the model refined
    vec_env = make_env(cfg, list(progress["snapshots"]))
    model = MaskablePPO(
        "MlpPolicy", vec_env, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
        batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range, ent_coef=cfg.ent_coef,
        policy_kwargs={"net_arch": list(cfg.net_arch)}, seed=cfg.seed, device=device,
        tensorboard_log=str(out / "tensorboard"), verbose=0,
    )
    from agents.ppo import load_into

    if resume:
        load_into(model, out / "checkpoints" / "latest.zip")  # never unpickles the file
    elif cfg.init_from:
        meta = load_into(model, cfg.init_from, weights_only=True)
        progress["init_from"] = {"path": cfg.init_from,
                                 "trained_steps": meta.get("trained_steps")}
    elif cfg.imitation_games:
        progress["imitation"] = warm_start(model, cfg)
    evaluator = BackgroundEvaluator(cfg, out, progress)
    callback = make_callback(cfg, out, progress, evaluator)
    remaining = cfg.total_timesteps - progress["timesteps"]
    start = time.time()
    try:
        if remaining > 0:
            model.learn(remaining, callback=callback, reset_num_timesteps=not resume,
                        tb_log_name="ppo")
            callback.checkpoint()
    except KeyboardInterrupt:
        callback.checkpoint()
        evaluator.stop()
        from training import resume_command

        again = resume_command(command,
                               f"camelup train CONFIG --out-dir {shlex.quote(cfg.out_dir)}")
        print(f"\ninterrupted at {model.num_timesteps} steps; checkpoint saved. Resume with:\n"
              f"  {again}", file=sys.stderr)
        raise
    finally:
        vec_env.close()
    if evaluator.process is not None or progress["evals_pending"]:
        print("waiting for the last evaluation...", flush=True)
    evaluator.drain()
    write_progress(out, progress)
    final = save_model(model, out / "model", cfg)
    print(f"trained {model.num_timesteps} steps in {time.time() - start:.0f} s -> {final}")
    return final


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from training import add_train_arguments

    add_train_arguments(parser, TrainConfig, "configs/train/*.yaml")


def run(args: argparse.Namespace) -> int:
    """``camelup train``: an unusable checkpoint is one line and exit code 2, like a config
    error."""
    from agents.ppo import ModelFileError
    from training import run_trainer

    return run_trainer(args, TrainConfig, train, user_errors=(ModelFileError,))
