"""What the value warm start gives a trained critic: returns explained on held-out games.

    python benchmarks/value_warmup.py [--config configs/train/ppo_luck_4p.yaml]
        [--model agents/models/classic4.zip] [--teacher greedy] [--games 400]
        [--holdout 60]

Loads ``--model`` into the config's network, then plays ``--games`` games of ``--teacher``
against itself and fits the value head alone to the win-probability model's expected return
of each acting seat (:mod:`training.policy.value_warmup`, what ``value_warmup_games`` does before a
run), and scores, on ``--holdout`` other games of the same teacher, how much of the returns the
seats then got each critic explains: the model file's own, the fitted one, and the model's
values themselves. The last line: ``value warmup: held-out returns explained: the file's
critic A, fitted B, the model C (N positions fitted)``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

# Run as a script, this file's own folder comes first on sys.path and its tournament.py would
# hide the tournament package: look in the project root instead.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np  # noqa: E402
import torch  # noqa: E402

from agents.ppo import load_into  # noqa: E402
from camelup_config import load_config  # noqa: E402
from camelup_env.observation import Observer  # noqa: E402
from training.policy.sb3_trainer import TrainConfig, build_model, make_env  # noqa: E402
from training.policy.value_warmup import (  # noqa: E402
    collect_value_targets,
    critic_values,
    explained,
    fit_value_head,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", default="configs/train/ppo_luck_4p.yaml")
    parser.add_argument("--model", default="agents/models/classic4.zip")
    parser.add_argument("--teacher", default="greedy")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--holdout", type=int, default=60)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    torch.set_num_threads(1)
    cfg = load_config(TrainConfig, args.config, {})
    cfg = replace(cfg, n_envs=2, env_workers=1, opponent_mix={"random": 1.0}, out_dir="unused")
    model = build_model(cfg, make_env(cfg, []), "cpu")
    load_into(model, args.model, weights_only=True)
    observer = Observer(cfg.rules(), **cfg.observer_settings())

    def games(n: int, seed: int) -> dict[str, np.ndarray]:
        return collect_value_targets(cfg.rules(), observer, args.teacher, n, seed, cfg.episode())

    fit, held = games(args.games, args.seed), games(args.holdout, args.seed + 1)

    before = explained(critic_values(model, held["obs"]), held["returns"])
    fit_value_head(model, fit, cfg.imitation_epochs, cfg.imitation_batch_size, cfg.seed)
    after = explained(critic_values(model, held["obs"]), held["returns"])
    print(
        f"value warmup: held-out returns explained: the file's critic {before:.3f}, fitted "
        f"{after:.3f}, the model {explained(held['targets'], held['returns']):.3f} "
        f"({len(fit['obs'])} positions fitted)"
    )


if __name__ == "__main__":
    main()
