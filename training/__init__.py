"""Self-play training for camelup: the trainers behind ``camelup train`` and what they share."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from camelup_env.interrupts import interrupts_stop_the_run

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

#: ``camelup train --trainer NAME`` -> the module implementing it (imported only when chosen)
TRAINERS: dict[str, str] = {
    "sb3": "training.policy.sb3_trainer",
    "rllib": "training.policy.rllib_trainer",
    "afterstate": "training.afterstate.trainer",
    "standing-copy": "training.afterstate.standing_copy",
    "standing-td": "training.afterstate.standing_td",
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
    parser.add_argument(
        "--trainer",
        choices=list(TRAINERS),
        default="sb3",
        help="sb3: MaskablePPO (docs/training.md); rllib: RLlib's PPO on Ray "
        "(docs/distributed.md); afterstate: every seat's chance to win over afterstates "
        "(docs/afterstate.md); standing-copy: the afterstate network fitted to the standing's "
        "chances; standing-td: the standing taught what the next mover takes (both "
        "docs/afterstate.md); `--trainer NAME --help` lists its settings",
    )


def add_train_arguments(
    parser: argparse.ArgumentParser, config_cls: type, config_files: str
) -> None:
    """What every trainer's command line takes: a config file, ``--trainer``, ``--resume`` and
    one ``--field-name`` flag per field of ``config_cls``."""
    from camelup_config import add_override_flags

    parser.add_argument("config", nargs="?", help=f"YAML config ({config_files})")
    add_trainer_flag(parser)
    parser.add_argument(
        "--resume", action="store_true", help="continue the run in out_dir from its last checkpoint"
    )
    add_override_flags(parser, config_cls)


def run_trainer(
    args: argparse.Namespace,
    config_cls: type[DataclassInstance],
    train: Callable[..., Any],
    user_errors: tuple[type[Exception], ...] = (),
) -> int:
    """``camelup train``: a config error (or one of ``user_errors``) is one line, exit code 2
    (camelup_cli prints ConfigError); Ctrl-C or SIGTERM leaves a checkpoint and exit code
    130."""
    from camelup_config import ConfigError, load_config, overrides_from_args

    cfg = load_config(config_cls, args.config, overrides_from_args(args, config_cls))
    try:
        with interrupts_stop_the_run():
            train(cfg, resume=args.resume, command=getattr(args, "command_line", None))
    except user_errors as exc:
        raise ConfigError(str(exc)) from exc
    except KeyboardInterrupt:
        return 130
    return 0
