"""A plain torch actor-critic as a camelup model file (agents/actor_critic_file.py): the loaded
policy computes the same logits, values and actions as the torch networks that were saved."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
import torch
from torch import nn

from agents.actor_critic_file import save_actor_critic
from agents.ppo import load_agent
from camelup_env import RuleSet
from camelup_env.camelup_v1 import ENV_VERSION
from camelup_env.game.actions import action_table
from camelup_env.observation import Observer

RULES = RuleSet("classic", num_players=2)
OBSERVER = {"odds_features": False, "race_samples": 200, "action_values": False}


def mlp(sizes: list[int], activation: type[nn.Module] = nn.Tanh) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in pairwise(sizes):
        layers += [nn.Linear(a, b), activation()]
    return nn.Sequential(*layers[:-1])


@pytest.mark.parametrize("activation", [nn.Tanh, nn.ReLU])
def test_round_trip_keeps_logits_values_and_actions(tmp_path, activation) -> None:
    torch.manual_seed(0)
    size, actions = Observer(RULES, **OBSERVER).size, len(action_table(RULES).actions)
    actor = mlp([size, 32, 16, actions], activation)
    critic = mlp([size, 24, 1], activation)
    path = save_actor_critic(
        tmp_path / "cleanrl", actor, critic, RULES, observer=OBSERVER, env_version=ENV_VERSION
    )
    assert path.name == "cleanrl.zip"
    agent = load_agent(path)
    obs = torch.randn(64, size)
    with torch.no_grad():
        logits = agent.policy.get_distribution(obs).distribution.logits
        np.testing.assert_allclose(logits, torch.log_softmax(actor(obs), -1), atol=1e-5)
        np.testing.assert_allclose(agent.policy.predict_values(obs), critic(obs), atol=1e-5)
        masks = np.random.default_rng(0).random((64, actions)) < 0.5
        masks[:, 0] = True
        masked = actor(obs).masked_fill(~torch.as_tensor(masks), -torch.inf)
    chosen = agent.act_batch(obs.numpy(), masks, deterministic=True)
    np.testing.assert_array_equal(chosen, masked.argmax(-1).numpy())


def test_layers_sized_by_numpy_integers_are_saved(tmp_path) -> None:
    """CleanRL sizes its layers with the spaces' numpy integers (``envs.single_action_space.n``,
    an ``int64``); the file records plain numbers."""
    size, actions = Observer(RULES, **OBSERVER).size, len(action_table(RULES).actions)
    actor = mlp([np.int64(size), np.int64(16), np.int64(actions)])
    critic = mlp([np.int64(size), np.int64(16), 1])
    path = save_actor_critic(
        tmp_path / "m.zip", actor, critic, RULES, observer=OBSERVER, env_version=ENV_VERSION
    )
    assert load_agent(path).policy.action_net.out_features == actions


def test_refuses_networks_a_model_file_cannot_describe(tmp_path) -> None:
    size = Observer(RULES, **OBSERVER).size
    save = lambda actor, critic: save_actor_critic(  # noqa: E731
        tmp_path / "m.zip", actor, critic, RULES, observer=OBSERVER, env_version=ENV_VERSION
    )
    with pytest.raises(ValueError, match=r"actor must be an nn\.Sequential"):
        save(nn.Linear(size, 46), mlp([size, 8, 1]))
    with pytest.raises(ValueError, match="one activation"):
        save(mlp([size, 8, 46], nn.ReLU), mlp([size, 8, 1], nn.Tanh))
    with pytest.raises(ValueError, match="one value"):
        save(mlp([size, 8, 46]), mlp([size, 8, 2]))
    with pytest.raises(ValueError, match="activation Softsign"):
        save(mlp([size, 8, 46], nn.Softsign), mlp([size, 8, 1], nn.Softsign))
    with pytest.raises(ValueError, match="22 actions; classic with 2 players has 46"):
        save(mlp([size, 8, 22]), mlp([size, 8, 1]))
    with pytest.raises(ValueError, match="features"):  # not this rule set's observation
        save(mlp([size + 1, 8, 46]), mlp([size + 1, 8, 1]))
