"""Self-play training for camelup: the trainers behind ``camelup train`` and what they share."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: ``camelup train --trainer NAME`` -> the module implementing it (imported only when chosen)
TRAINERS: dict[str, str] = {
    "sb3": "training.train_ppo",
    "rllib": "training.rllib_selfplay",
}


def trainer_module(argv: list[str]) -> str:
    """The module of the trainer ``argv`` (``camelup train``'s arguments) asks for; an unknown
    name falls back to the default, whose parser then refuses it (one line, exit code 2)."""
    name = "sb3"
    for i, arg in enumerate(argv):
        if arg == "--trainer" and i + 1 < len(argv):
            name = argv[i + 1]
        elif arg.startswith("--trainer="):
            name = arg.partition("=")[2]
    return TRAINERS.get(name, TRAINERS["sb3"])


def add_trainer_flag(parser: argparse.ArgumentParser) -> None:
    """``--trainer``, in every trainer's parser (so each accepts the flag that chose it)."""
    parser.add_argument("--trainer", choices=list(TRAINERS), default="sb3",
                        help="sb3: MaskablePPO (docs/training.md); rllib: RLlib's PPO on Ray "
                             "(docs/distributed.md); `--trainer rllib --help` lists its settings")


def add_train_arguments(parser: argparse.ArgumentParser, config_cls: type,
                        config_files: str) -> None:
    """What every trainer's command line takes: a config file, ``--trainer``, ``--resume`` and
    one ``--field-name`` flag per field of ``config_cls``."""
    from camelup_config import add_override_flags

    parser.add_argument("config", nargs="?", help=f"YAML config ({config_files})")
    add_trainer_flag(parser)
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in out_dir from its last checkpoint")
    add_override_flags(parser, config_cls)


def run_trainer(args: argparse.Namespace, config_cls: type, train: Callable[..., Any],
                user_errors: tuple[type[Exception], ...] = ()) -> int:
    """``camelup train``: a config error (or one of ``user_errors``) is one line, exit code 2
    (camelup_cli prints ConfigError); Ctrl-C leaves a checkpoint and exit code 130."""
    from camelup_config import ConfigError, load_config, overrides_from_args

    cfg = load_config(config_cls, args.config, overrides_from_args(args, config_cls))
    try:
        train(cfg, resume=args.resume, command=getattr(args, "command_line", None))
    except user_errors as exc:
        raise ConfigError(str(exc)) from exc
    except KeyboardInterrupt:
        return 130
    return 0


def resume_command(command: str | None, fallback: str) -> str:
    """The command that continues an interrupted run: the one given, with ``--resume``."""
    again = command or fallback
    return again if "--resume" in again else f"{again} --resume"


def open_run(cfg: Any, resume: bool, may_change: frozenset[str], fresh: dict[str, Any],
             has_checkpoint: Callable[[Path, dict[str, Any]], bool]) -> dict[str, Any]:
    """A run's progress record (``out_dir/progress.json``): ``fresh`` for a new run, or the
    interrupted run's when resuming. A resumed run may change only ``may_change`` (train
    longer, move the folder, change the machine); anything else would mix two runs."""
    from dataclasses import asdict

    from camelup_config import ConfigError

    out = Path(cfg.out_dir)
    progress_file = out / "progress.json"
    if resume:
        if not progress_file.exists():
            raise ConfigError(f"nothing to resume in {out}: no checkpoint yet")
        progress = json.loads(progress_file.read_text())
        changed = sorted(k for k, v in asdict(cfg).items()
                         if progress["config"].get(k) != v and k not in may_change)
        if changed:
            raise ConfigError(f"--resume with a different config (changed: {changed}); use the "
                              "config of the interrupted run or a new out_dir")
        if not has_checkpoint(out, progress):
            raise ConfigError(f"nothing to resume in {out}: its checkpoint is missing")
        progress["config"] = asdict(cfg)
        return progress
    if progress_file.exists():
        raise ConfigError(f"{out} already holds a run; pass --resume or use a new out_dir")
    return {"config": asdict(cfg), **fresh}
