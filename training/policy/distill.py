"""Distil a scripted bot into a network: an opponent that costs one batched forward pass.

``camelup distill CONFIG --teacher expert --games 1000 --holdout 200 --out DIR``

The exact-odds scripted bots (``greedy``, ``expert``) cost milliseconds a move, most of a
self-play run's time when they sit in the opponent mix. A *distilled* bot is a policy network
fitted to the teacher's moves in the teacher's own self-play games (masked cross-entropy, the
value head to the returns: :mod:`training.policy.imitation`); as an opponent it decides every game
where it is on move with one forward pass. It observes with the training config's observation
(a batched env asks every policy opponent with the learner's observation) and has the config's
network, and it is written as a camelup model file (``ppo:DIR/model.zip``).

``DIR/distillation.json`` records what it is worth: the agreement with the teacher on
``--holdout`` games of other seeds (the share of the teacher's decisions it takes as its own
most likely move), the fit on the training games, the sample counts, the time and the command.
Its strength is measured as for any agent, with ``camelup evaluate``.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from camelup_config import ConfigError, load_config, yaml_value
from camelup_env.files import write_json

#: The held-out games are seeded this far from the training games.
HOLDOUT_SEED_OFFSET = 1_000_003


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="training config: the game, observation and network")
    parser.add_argument("--teacher", required=True, help="the agent to distil (camelup agents)")
    parser.add_argument("--games", type=int, default=1000, help="teacher self-play games")
    parser.add_argument(
        "--holdout", type=int, default=200, help="teacher games of other seeds for the agreement"
    )
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--net-arch",
        type=yaml_value,
        help="hidden layer widths instead of the config's net_arch, e.g. '[512, 512, 512]' "
        "(a larger copy of the teacher)",
    )
    parser.add_argument("--out", required=True, help="folder for model.zip and distillation.json")
    parser.add_argument("--overwrite", action="store_true", help="replace a model in --out")


def run(args: argparse.Namespace) -> int:
    from training.policy.sb3_trainer import TrainConfig
    from training.policy.settings import check_agents

    cfg = load_config(TrainConfig, args.config, {"net_arch": args.net_arch})
    check_agents("--teacher", [args.teacher])
    for name in ("games", "holdout", "epochs", "batch_size"):
        if getattr(args, name) < 1:
            raise ConfigError(
                f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}"
            )
    out = Path(args.out)
    if (out / "model.zip").exists() and not args.overwrite:
        raise ConfigError(f"{out / 'model.zip'} exists; pass --overwrite to replace it")
    report = distill(
        cfg,
        args.teacher,
        args.games,
        args.holdout,
        args.epochs,
        args.batch_size,
        args.seed,
        out,
        command=getattr(args, "command_line", ""),
    )
    print(
        f"distilled {args.teacher}: agreement {report['holdout_agreement']:.3f} on "
        f"{report['holdout_decisions']} held-out decisions ({args.holdout} games), fit "
        f"{report['train_accuracy']:.3f} on {report['train_decisions']}; "
        f"{out / 'model.zip'} in {report['seconds']:.0f} s"
    )
    return 0


def distill(
    cfg,
    teacher: str,
    games: int,
    holdout: int,
    epochs: int,
    batch_size: int,
    seed: int,
    out: Path,
    command: str = "",
) -> dict:
    """Fit a network to ``teacher`` and write ``out/model.zip`` and ``out/distillation.json``."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.ppo import save_policy
    from camelup_env.camelup_v1 import ENV_VERSION
    from camelup_env.observation import Observer
    from training.policy.imitation import collect_demonstrations, pretrain
    from training.policy.vec_env import CamelUpVecEnv, fixed_opponents

    start = time.perf_counter()
    torch.manual_seed(seed)
    rules, settings = cfg.rules(), cfg.observer_settings()
    observer = Observer(rules, **settings)
    train = collect_demonstrations(
        rules, observer, teacher, games, seed, cfg.reward_mode, cfg.coin_shaping
    )
    held = collect_demonstrations(
        rules,
        observer,
        teacher,
        holdout,
        seed + HOLDOUT_SEED_OFFSET,
        cfg.reward_mode,
        cfg.coin_shaping,
    )
    spaces = CamelUpVecEnv(
        1, rules, fixed_opponents(["random"] * (rules.num_players - 1)), **settings
    )
    model = MaskablePPO(
        "MlpPolicy", spaces, policy_kwargs={"net_arch": list(cfg.net_arch)}, seed=seed, device="cpu"
    )
    fit = pretrain(model, train, epochs, batch_size, seed)
    with torch.no_grad():
        dist = model.policy.get_distribution(
            torch.as_tensor(held["obs"]), action_masks=held["masks"]
        )
        chosen = dist.mode().numpy()  # the most likely legal action of each row
    report = {
        "teacher": teacher,
        "rules": rules.to_dict(),
        "observer": settings,
        "net_arch": list(cfg.net_arch),
        "games": games,
        "holdout_games": holdout,
        "epochs": epochs,
        "batch_size": batch_size,
        "seed": seed,
        "train_decisions": int(fit["samples"]),
        "train_accuracy": fit["accuracy"],
        "holdout_decisions": len(held["actions"]),
        "holdout_agreement": float(np.mean(chosen == held["actions"])),
        "value_mse": fit["value_mse"],
        "seconds": time.perf_counter() - start,
        "command": command,
    }
    out.mkdir(parents=True, exist_ok=True)
    save_policy(
        model,
        out / "model.zip",
        rules,
        observer=settings,
        env_version=ENV_VERSION,
        optimizer=False,
        distilled_from=teacher,
        distillation=report,
        config=asdict(cfg),  # the reward the value head was fitted to (search: reads it)
    )
    write_json(out / "distillation.json", report)
    return report
