"""Self-play PPO training, evaluation and tournaments for camelup."""

from __future__ import annotations

import argparse

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
