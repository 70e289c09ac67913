"""camelup distill: a scripted bot fitted into a model file, with its agreement recorded."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import agents
from camelup_cli.main import main

CONFIG = """\
name: distill_test
preset: classic
num_players: 3
odds_features: false
action_values: true
race_samples: 8
net_arch: [32]
"""


def test_distill_writes_a_policy_that_follows_its_teacher(tmp_path, capsys) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG)
    out = tmp_path / "greedy"
    argv = [
        "distill",
        str(config),
        "--teacher",
        "greedy",
        "--games",
        "40",
        "--holdout",
        "6",
        "--epochs",
        "20",
        "--batch-size",
        "32",
        "--net-arch",
        "[64]",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    report = json.loads((out / "distillation.json").read_text())
    assert report["teacher"] == "greedy" and report["holdout_decisions"] > 100
    assert report["net_arch"] == [64]  # --net-arch over the config's [32]
    # Greedy plays the best entry of its action_values slice: far above a random pick's ~0.04
    assert 0.4 < report["holdout_agreement"] <= 1.0
    assert "agreement" in capsys.readouterr().out
    bot = agents.make(f"ppo:{out / 'model.zip'}")
    obs = np.zeros((2, bot.observer.size), np.float32)
    masks = np.zeros((2, bot.policy.action_space.n), bool)
    masks[:, 5] = True
    assert list(bot.act_batch(obs, masks)) == [5, 5]
    assert main(argv) == 2  # the model exists: refused without --overwrite
    assert "--overwrite" in capsys.readouterr().err


def test_distill_refuses_bad_input_before_playing(tmp_path, capsys) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG)
    assert main(["distill", str(config), "--teacher", "nobody", "--out", str(tmp_path)]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err
    assert (
        main(
            ["distill", str(config), "--teacher", "greedy", "--games", "0", "--out", str(tmp_path)]
        )
        == 2
    )
    assert "--games must be positive" in capsys.readouterr().err
    bad_net = ["distill", str(config), "--teacher", "greedy", "--net-arch", "[0]"]
    assert main([*bad_net, "--out", str(tmp_path)]) == 2
    assert "net_arch must be positive layer widths" in capsys.readouterr().err
