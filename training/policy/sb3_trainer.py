"""Train a Camel Up agent with self-play MaskablePPO (``camelup train CONFIG.yaml``).

Read top to bottom: the configuration (every field documented, every value checked before
anything runs), the environment, the background evaluator, the callback that snapshots,
evaluates and checkpoints, and the main loop.

* The learner plays ``n_envs`` games at once (:class:`training.policy.vec_env.CamelUpVecEnv`,
  split over ``env_workers`` processes by
  :class:`training.policy.sharded_vec_env.ShardedVecEnv`), a random seat in each; every
  episode's opponents are drawn from ``opponent_mix``: frozen snapshots of the learner
  (``"self"``, one added every ``snapshot_every`` steps, all games where one snapshot must move
  decided by one forward pass) and scripted bots.
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
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from camelup_config import ConfigError, setting
from camelup_env.camelup_v1 import ENV_VERSION
from camelup_env.files import replacing, write_json
from camelup_env.game.rules import RuleSet
from camelup_env.interrupts import stop_requested
from tournament.ratings import bracket
from training.policy.settings import (
    SelfPlaySettings,
    check_agents,
    check_model_file,
    check_positive,
)
from training.run_folder import (
    name_setting,
    open_progress,
    out_dir_setting,
    resume_command,
    write_progress,
)


# 1. Configuration --------------------------------------------------------------------------
@dataclass
class TrainConfig(SelfPlaySettings):
    """Every setting of a run (the shared ones: :class:`training.policy.settings.SelfPlaySettings`);
    YAML files and ``--field-name`` flags set them."""

    name: str = name_setting("ppo_selfplay")
    total_timesteps: int = setting(1_000_000, help="Learner decisions to train for.")
    n_envs: int = setting(
        64, help="Games played side by side (one policy forward pass decides all of them)."
    )
    env_workers: int = setting(
        0,
        help="Processes stepping the games, n_envs split between them (0 or 1: the learner's "
        "own process; about one per core is fastest).",
    )
    device: str = setting("auto", help="Torch device: auto (CUDA when present), cpu or cuda.")
    torch_threads: int = setting(0, help="Torch threads for the updates (0: one per core).")
    n_steps: int = setting(
        64, help="Decisions per game per update (a rollout is n_steps * n_envs decisions)."
    )
    batch_size: int = setting(1024, help="Minibatch size of the updates.")
    n_epochs: int = setting(4, help="Passes over each rollout.")
    snapshot_every: int = setting(50_000, help="Decisions between snapshots of the learner.")
    max_snapshots: int = setting(
        20, help="Snapshots kept in the opponent pool (oldest dropped first)."
    )
    eval_every: int = setting(250_000, help="Decisions between evaluations.")
    eval_games: int = setting(
        500,
        help="Games per evaluation and opponent (paired seeds, rotated seats; 500+ to compare "
        "checkpoints).",
    )
    eval_opponents: list[str] = setting(
        default_factory=lambda: ["greedy"], help="Agents each evaluation plays against."
    )
    checkpoint_every: int = setting(50_000, help="Decisions between checkpoints.")
    out_dir: str = out_dir_setting("runs/ppo_selfplay")
    imitation_teacher: str = setting("greedy", help="Imitation warm start: the teacher agent.")
    imitation_games: int = setting(
        0, help="Imitation warm start: teacher self-play games (0: no warm start)."
    )
    imitation_epochs: int = setting(8, help="Imitation warm start: passes over the demonstrations.")
    imitation_batch_size: int = setting(
        256, help="Imitation warm start: minibatch size (small: the demonstrations are few)."
    )
    value_warmup_games: int = setting(
        0,
        help="Value warm start: imitation_teacher self-play games whose positions the value "
        "head alone is fitted on, to the win-probability model's expected return (0: none; "
        "training/policy/value_warmup.py). Presets with a win model.",
    )
    init_from: str = setting(
        "",
        help="Fine-tune: start from this model file's weights (same game, observation and "
        "network; a fresh optimizer, decisions counted from 0). Empty: a new network.",
    )

    def validate(self) -> None:
        super().validate()
        check_positive(
            self,
            (
                "total_timesteps",
                "n_envs",
                "n_steps",
                "batch_size",
                "n_epochs",
                "snapshot_every",
                "eval_every",
                "eval_games",
                "checkpoint_every",
                "max_snapshots",
                "imitation_batch_size",
            ),
        )
        if self.device not in ("auto", "cpu", "cuda") and not self.device.startswith("cuda:"):
            raise ConfigError(f"device must be auto, cpu or cuda[:N], got {self.device!r}")
        if self.env_workers < 0 or self.env_workers > self.n_envs:
            raise ConfigError(
                f"env_workers must be in 0..n_envs ({self.n_envs}), got {self.env_workers}"
            )
        if self.torch_threads < 0:
            raise ConfigError(f"torch_threads must be >= 0, got {self.torch_threads}")
        if self.imitation_games < 0 or self.imitation_epochs < 0:
            raise ConfigError("imitation_games and imitation_epochs must be >= 0")
        if self.eval_games < self.num_players:
            raise ConfigError(
                f"eval_games must be at least num_players ({self.num_players}) "
                "so every seat is played"
            )
        if not self.eval_opponents:
            raise ConfigError("eval_opponents must name at least one agent")
        check_agents("eval_opponents", self.eval_opponents)
        if self.value_warmup_games < 0:
            raise ConfigError(f"value_warmup_games must be >= 0, got {self.value_warmup_games}")
        if self.imitation_games or self.value_warmup_games:
            check_agents("imitation_teacher", [self.imitation_teacher])
        if self.value_warmup_games:
            from camelup_env.odds.win import load_win_model

            try:
                load_win_model(self.rules())
            except ValueError as exc:
                raise ConfigError(f"value_warmup_games: {exc}") from None
        if self.init_from:
            if self.imitation_games:
                raise ConfigError(
                    "init_from and imitation_games exclude each other: a "
                    "fine-tuned run starts from the file's weights"
                )
            check_model_file(self, self.init_from, "init_from")


# 2. Environment ----------------------------------------------------------------------------
def make_env(cfg: TrainConfig, snapshots: list[str]):
    """The batched self-play env (in ``env_workers`` processes when more than one): every
    episode draws its opponents from a pool of ``cfg.opponent_mix`` holding ``snapshots``."""
    from functools import partial

    from stable_baselines3.common.vec_env import VecMonitor

    from training.policy.sharded_vec_env import ShardedVecEnv

    if cfg.env_workers <= 1:
        venv = _self_play_shard(cfg, snapshots, 1, 0)
    else:
        venv = ShardedVecEnv(
            partial(_self_play_shard, cfg, snapshots, cfg.env_workers), cfg.env_workers
        )
    return VecMonitor(venv)  # episode rewards and lengths for TensorBoard (rollout/ep_rew_mean)


def _self_play_shard(cfg: TrainConfig, snapshots: list[str], shards: int, k: int):
    """Shard ``k`` of ``shards``: its share of the games, seeded where the previous one's end
    (game ``i`` has seed ``seed + i`` however the games are split), its own opponent pool."""
    from training.policy.selfplay import SelfPlayVecEnv

    sizes = [cfg.n_envs // shards + (j < cfg.n_envs % shards) for j in range(shards)]
    if shards > 1:
        import torch

        torch.set_num_threads(1)  # frozen snapshots' forward passes: one core per worker
    return SelfPlayVecEnv(
        sizes[k],
        cfg.rules(),
        cfg.opponent_mix,
        pool_seed=cfg.seed if shards == 1 else [cfg.seed, k],
        max_snapshots=cfg.max_snapshots,
        snapshots=snapshots,
        opponent_focus=cfg.opponent_focus,
        reward_mode=cfg.reward_mode,
        coin_shaping=cfg.coin_shaping,
        luck_correction=cfg.luck_correction,
        seed=cfg.seed + sum(sizes[:k]),
        **cfg.observer_settings(),
    )


def save_model(model, path: Path, cfg: TrainConfig, optimizer: bool = False) -> Path:
    """Save a camelup model file (tensors + JSON, see agents.policy_file) for ``ppo:``."""
    from agents.ppo import save_policy

    return save_policy(
        model,
        path,
        cfg.rules(),
        env_version=ENV_VERSION,
        observer=cfg.observer_settings(),
        optimizer=optimizer,
        trained_steps=int(model.num_timesteps),
        config=asdict(cfg),
    )


# 3. Background evaluation ------------------------------------------------------------------
def _evaluate_file(
    candidate: str, opponents: list[str], rules_doc: dict, games: int, seed: int, result_path: str
) -> None:
    """Child process: evaluate one saved policy, write its rows as JSON (atomically)."""
    import torch

    from tournament.evaluate import evaluate

    torch.set_num_threads(1)
    if hasattr(os, "nice"):
        os.nice(5)  # training keeps priority on a busy machine
    rules = RuleSet.from_dict(rules_doc)
    rows = [
        evaluate(f"ppo:{candidate}", opponent, rules, games, seed=seed, workers=1).as_row()
        for opponent in opponents
    ]
    write_json(result_path, rows)


class BackgroundEvaluator:
    """Evaluates saved checkpoints one at a time in a child process while training goes on.

    Pending evaluations live in ``progress["evals_pending"]`` (steps), so a resumed run
    evaluates what an interrupted one had queued; rows land in ``eval.csv`` keyed by
    (timesteps, opponent), so nothing is written twice.
    """

    def __init__(self, cfg: TrainConfig, out: Path, progress: dict):
        self.cfg, self.out, self.progress = cfg, out, progress
        progress.setdefault("evals_pending", [])
        self.process: BaseProcess | None = None
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
                print(
                    f"evaluation at {self.running} steps failed (exit code "
                    f"{self.process.exitcode}); it is skipped",
                    file=sys.stderr,
                )
            self.progress["evals_pending"].remove(self.running)
            self.process = self.running = None
        if self.process is None and self.progress["evals_pending"]:
            self.running = self.progress["evals_pending"][0]
            cfg = self.cfg
            self.process = mp.get_context("spawn").Process(
                target=_evaluate_file,
                args=(
                    str(self.candidate(self.running)),
                    list(cfg.eval_opponents),
                    cfg.rules().to_dict(),
                    cfg.eval_games,
                    10_000 + self.running,
                    str(self.out / "evals" / f"step_{self.running}.json"),
                ),
            )
            self.process.start()
        return rows

    def drain(self) -> list[list[dict]]:
        """Wait for every queued evaluation (end of training); the rows of each, in order."""
        done = []
        while self.process is not None or self.progress["evals_pending"]:
            if self.process is not None:
                self.process.join()
            rows = self.poll()
            if rows:
                done.append(rows)
        return done

    def stop(self) -> None:
        if self.process is not None and self.process.is_alive():
            self.process.terminate()
            self.process.join()

    def status(self) -> str:
        """What the evaluations are doing, for a console line before the first result."""
        if self.running is not None:
            return f"evaluating the policy of {self.running:,} decisions in the background"
        return f"no evaluation yet (the first at {self.cfg.eval_every:,} decisions)"

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
        with replacing(path) as tmp, open(tmp, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(new[0]))
            writer.writeheader()
            writer.writerows(old + new)
        from training.policy.curves import plot_learning_curve

        plot_learning_curve(self.out)


def evaluation_line(rows: list[dict]) -> str:
    """One evaluation's results (rows of one step) as one console line."""
    return f"evaluation at {int(rows[0]['timesteps']):,} decisions: " + ", ".join(
        f"vs {r['opponent']} {float(r['win_share']):.3f} "
        f"{bracket(float(r['ci_low']), float(r['ci_high']))}"
        for r in rows
    )


def evaluation_table(out: Path) -> str:
    """Every evaluation of the run (``eval.csv``) as a table for the console: decisions,
    opponent, games, win share and its 95% interval."""
    path = out / "eval.csv"
    if not path.exists():
        return "no evaluation finished (eval.csv is empty)"
    with open(path, newline="") as f:
        rows = sorted(csv.DictReader(f), key=lambda r: (int(r["timesteps"]), r["opponent"]))
    equal = 1 / int(rows[0]["num_players"])
    width = max(len("opponent"), *(len(r["opponent"]) for r in rows))
    lines = [
        f"evaluations ({path}; 95% intervals, an equal player scores {equal:.3f}):",
        f"{'decisions':>12}  {'opponent':<{width}}  {'games':>6}  win share  interval",
    ]
    lines += [
        f"{int(r['timesteps']):>12,}  {r['opponent']:<{width}}  {int(r['games']):>6}  "
        f"{float(r['win_share']):>9.3f}  {bracket(float(r['ci_low']), float(r['ci_high']))}"
        for r in rows
    ]
    return "\n".join(lines)


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

            self.bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                TextColumn("{task.fields[rates]}"),
            )
            self.task = self.bar.add_task(
                "training",
                total=cfg.total_timesteps,
                completed=self.num_timesteps,
                rates=progress.get("rates", ""),
            )
            self.bar.start()

        def _due(self, key: str, every: int) -> bool:
            if self.num_timesteps - progress[key] >= every:
                progress[key] = self.num_timesteps
                return True
            return False

        def _on_step(self) -> bool:
            self.bar.update(self.task, completed=self.num_timesteps)
            if self._due("last_snapshot", cfg.snapshot_every):
                path = save_model(self.model, out / "snapshots" / f"step_{self.num_timesteps}", cfg)
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
                self.logger.record(f"eval/win_share_vs_{row['opponent']}", row["win_share"])
            if rows:
                progress["rates"] = evaluation_line(rows)
                self.bar.console.log(progress["rates"])
                self.bar.update(self.task, rates=progress["rates"])

        def checkpoint(self) -> None:
            save_model(self.model, out / "checkpoints" / "latest", cfg, optimizer=True)
            progress["timesteps"] = self.num_timesteps
            if cfg.opponent_focus:  # where the draws lean now (the first shard's pool)
                focus = self.training_env.env_method("opponent_focus", indices=[0])[0]
                progress["opponent_focus"] = focus
                for name, entry in focus.items():
                    self.logger.record(f"opponents/weight/{name}", entry["weight"])
                    self.logger.record(f"opponents/win_share/{name}", entry["win_share"])
            # One plain line per checkpoint, so a log file (no terminal) shows progress too.
            self.bar.console.log(
                f"{self.num_timesteps:,} decisions, checkpoint saved; "
                f"{progress.get('rates') or evaluator.status()}"
            )
            write_progress(out, progress)

        def _on_training_end(self) -> None:
            self.bar.stop()

    return SelfPlayCallback()


# 5. Main loop ------------------------------------------------------------------------------
#: Settings a ``--resume`` may change: train longer, move the folder, or the machine.
RESUME_MAY_CHANGE = frozenset(
    {"total_timesteps", "out_dir", "device", "torch_threads", "env_workers"}
)


def warm_start(model, cfg: TrainConfig) -> dict[str, float]:
    """Imitate ``cfg.imitation_teacher`` before PPO (see :mod:`training.policy.imitation`)."""
    from camelup_env.observation import Observer
    from training.policy.imitation import collect_demonstrations, pretrain

    start = time.time()
    observer = Observer(cfg.rules(), **cfg.observer_settings())
    data = collect_demonstrations(
        cfg.rules(),
        observer,
        cfg.imitation_teacher,
        cfg.imitation_games,
        cfg.seed,
        cfg.reward_mode,
        cfg.coin_shaping,
    )
    stats = pretrain(model, data, cfg.imitation_epochs, cfg.imitation_batch_size, cfg.seed)
    stats["seconds"] = round(time.time() - start, 1)
    print(
        f"imitation of {cfg.imitation_teacher}: {int(stats['samples'])} decisions from "
        f"{cfg.imitation_games} games, accuracy {stats['accuracy']:.3f}, value mse "
        f"{stats['value_mse']:.3f} ({stats['seconds']} s)",
        flush=True,
    )
    return stats


def value_start(model, cfg: TrainConfig) -> dict[str, float]:
    """Fit the value head to the win-probability model before PPO (see
    :mod:`training.policy.value_warmup`)."""
    from camelup_env.observation import Observer
    from training.policy.value_warmup import collect_value_targets, fit_value_head

    start = time.time()
    data = collect_value_targets(
        cfg.rules(),
        Observer(cfg.rules(), **cfg.observer_settings()),
        cfg.imitation_teacher,
        cfg.value_warmup_games,
        cfg.seed + 1,  # other games than the imitation's
        cfg.episode(),
    )
    stats = fit_value_head(model, data, cfg.imitation_epochs, cfg.imitation_batch_size, cfg.seed)
    stats["seconds"] = round(time.time() - start, 1)
    print(
        f"value warm start on {int(stats['samples'])} positions of {cfg.value_warmup_games} "
        f"{cfg.imitation_teacher} games: returns explained {stats['returns_explained_before']:.3f}"
        f" -> {stats['returns_explained_after']:.3f} (the model itself "
        f"{stats['model_explains_returns']:.3f}) ({stats['seconds']} s)",
        flush=True,
    )
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
    return open_progress(
        cfg,
        resume,
        RESUME_MAY_CHANGE,
        fresh={
            "timesteps": 0,
            "snapshots": [],
            "last_snapshot": 0,
            "last_eval": 0,
            "last_checkpoint": 0,
            "evals_pending": [],
        },
        has_checkpoint=lambda out, _: (out / "checkpoints" / "latest.zip").exists(),
        done=lambda p: f"{p['timesteps']:,} of {cfg.total_timesteps:,} decisions",
    )


def build_model(
    cfg: TrainConfig,
    venv: Any,
    device: str = "cpu",
    *,
    n_steps: int | None = None,
    tensorboard_log: str | None = None,
) -> Any:
    """The run's MaskablePPO on ``venv``: its network, rollout, minibatch, epochs and PPO
    settings, from ``cfg`` (``n_steps`` instead of ``cfg.n_steps`` when given). The training
    benchmark builds its PPO-only limit here too, so the two cannot differ."""
    from sb3_contrib import MaskablePPO

    return MaskablePPO(
        "MlpPolicy",
        venv,
        learning_rate=cfg.learning_rate,
        n_steps=cfg.n_steps if n_steps is None else n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef,
        policy_kwargs={"net_arch": list(cfg.net_arch)},
        seed=cfg.seed,
        device=device,
        tensorboard_log=tensorboard_log,
        verbose=0,
    )


def train(cfg: TrainConfig, resume: bool = False, command: str | None = None) -> Path:
    import torch

    device = resolve_device(cfg.device)
    progress = open_run(cfg, resume)
    torch.set_num_threads(cfg.torch_threads or os.cpu_count() or 1)
    out = Path(cfg.out_dir)
    for sub in ("snapshots", "checkpoints"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    write_json(out / "config.json", asdict(cfg))

    if cfg.init_from and not resume:
        progress["snapshots"].append(cfg.init_from)  # "self" opponents start as the model refined
    vec_env = make_env(cfg, list(progress["snapshots"]))
    model = build_model(cfg, vec_env, device, tensorboard_log=str(out / "tensorboard"))
    from agents.ppo import load_into

    if resume:
        load_into(model, out / "checkpoints" / "latest.zip")  # never unpickles the file
    elif cfg.init_from:
        meta = load_into(model, cfg.init_from, weights_only=True)
        progress["init_from"] = {"path": cfg.init_from, "trained_steps": meta.get("trained_steps")}
    elif cfg.imitation_games:
        progress["imitation"] = warm_start(model, cfg)
    if cfg.value_warmup_games and not resume:
        progress["value_warmup"] = value_start(model, cfg)
    evaluator = BackgroundEvaluator(cfg, out, progress)
    callback = make_callback(cfg, out, progress, evaluator)
    remaining = cfg.total_timesteps - progress["timesteps"]
    start = time.time()
    try:
        if remaining > 0:
            model.learn(
                remaining, callback=callback, reset_num_timesteps=not resume, tb_log_name="ppo"
            )
            callback.checkpoint()
    except BaseException as exc:
        if not stop_requested(exc):
            raise
        callback.checkpoint()
        evaluator.stop()
        again = resume_command(
            command, f"camelup train CONFIG --out-dir {shlex.quote(cfg.out_dir)}"
        )
        print(
            f"\ninterrupted at {model.num_timesteps} steps; checkpoint saved. Resume with:\n"
            f"  {again}",
            file=sys.stderr,
        )
        raise KeyboardInterrupt from exc
    finally:
        vec_env.close()
    if evaluator.process is not None or progress["evals_pending"]:
        print("waiting for the last evaluations...", flush=True)
    for rows in evaluator.drain():
        print(evaluation_line(rows), flush=True)
    write_progress(out, progress)
    final = save_model(model, out / "model", cfg)
    print(f"trained {model.num_timesteps:,} decisions in {time.time() - start:.0f} s -> {final}")
    print(evaluation_table(out), flush=True)
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
