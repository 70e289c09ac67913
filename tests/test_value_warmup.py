"""The value warm start (training/policy/value_warmup.py): targets are the win-probability model's
expected return of the acting seat (R7.3's win shares blurred by what is left to play), the fit
moves the value head alone, and a run records what it reached."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from camelup_config import ConfigError
from camelup_env.game.episode import EpisodeSettings
from camelup_env.game.rules import RuleSet
from camelup_env.observation import Observer
from training.policy.value_warmup import collect_value_targets, explained, fit_value_head

RULES = RuleSet("classic", num_players=4)


@pytest.fixture(scope="module")
def data() -> dict[str, np.ndarray]:
    observer = Observer(RULES, odds_features=False, action_values=False)
    return collect_value_targets(RULES, observer, "heuristic", 12, 0, EpisodeSettings("win", 0.0))


def test_targets_are_expected_win_rewards_that_explain_the_returns(data) -> None:
    n = RULES.num_players
    assert len(data["obs"]) == len(data["targets"]) == len(data["returns"]) > 200
    # "win" pays 1 to a sole winner and -1/(n-1) to every loser: its expectation lies between
    assert data["targets"].min() >= -1 / (n - 1) - 1e-6 and data["targets"].max() <= 1 + 1e-6
    # no coin shaping: a return is the final reward, 1/k to each of k winners, -1/(n-k) else
    paid = [0.0, *(1 / k for k in range(1, n)), *(-1 / (n - k) for k in range(1, n))]
    assert np.all(np.isclose(data["returns"][:, None], paid, atol=1e-6).any(axis=1))
    # the model follows the games: it explains part of what the seats then got (not all: dice)
    assert explained(data["targets"], data["returns"]) > 0.05


def test_the_fit_moves_the_value_head_alone(data, tmp_path: Path) -> None:
    from training.policy.sb3_trainer import TrainConfig, build_model, make_env

    cfg = TrainConfig(
        num_players=4,
        odds_features=False,
        action_values=False,
        n_envs=2,
        net_arch=[32],
        opponent_mix={"random": 1.0},
        out_dir=str(tmp_path / "run"),
    )
    env = make_env(cfg, [])
    model = build_model(cfg, env, "cpu")
    policy = model.policy
    actor = [p.detach().clone() for p in policy.mlp_extractor.policy_net.parameters()]
    actor += [p.detach().clone() for p in policy.action_net.parameters()]
    obs = torch.as_tensor(data["obs"])
    with torch.no_grad():
        before = float(
            ((policy.predict_values(obs).flatten().numpy() - data["targets"]) ** 2).mean()
        )
    stats = fit_value_head(model, data, epochs=20, batch_size=64, seed=0)
    assert stats["target_mse"] < before / 2
    after = [*policy.mlp_extractor.policy_net.parameters(), *policy.action_net.parameters()]
    assert all(torch.equal(a, b) for a, b in zip(actor, after, strict=True))


def test_a_run_starts_its_critic_from_the_model(tmp_path: Path) -> None:
    from test_training import tiny

    from training.policy.sb3_trainer import train

    cfg = tiny(
        tmp_path / "run", total_timesteps=64, value_warmup_games=2, imitation_teacher="heuristic"
    )
    train(cfg)
    record = json.loads((tmp_path / "run" / "progress.json").read_text())["value_warmup"]
    assert record["samples"] > 0 and record["target_mse"] >= 0


def test_value_warmup_is_checked_before_anything_starts(tmp_path: Path) -> None:
    from test_training import tiny

    with pytest.raises(ConfigError, match="value_warmup_games must be >= 0"):
        tiny(tmp_path / "a", value_warmup_games=-1)
    with pytest.raises(ConfigError, match="value_warmup_games: no win-probability model"):
        tiny(tmp_path / "b", preset="supercup", value_warmup_games=5)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
