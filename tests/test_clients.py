"""TorchRL and Tianshou take the environments as their own documentation wraps an environment:
no wrapper of ours in between (``camelup[clients]`` pins the versions tested).

TorchRL: ``PettingZooWrapper(use_mask=True)`` on ``camelup_v1`` at 2 and 4 players, ``GymEnv``
of a registered id with its info reader and Gymnasium's vector env, ``GymWrapper`` around
``gymnasium.make_vec``, each through ``check_env_specs``, and a short masked PPO (a
``MaskedCategorical`` actor, ``ClipPPOLoss``). Tianshou: ``PettingZooEnv`` with masked random
policies under ``MultiAgentOffPolicyAlgorithm`` in a ``Collector`` with a replay buffer, and
short masked DQNs: on ``DummyVectorEnv`` of ``gymnasium.make`` (the dict observation under
Tianshou's key names) and its tic-tac-toe recipe (a DQN seat against a random one). Every
check that an action was legal reads the mask the library itself used."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
import torch
from tensordict.nn import TensorDictModule
from tianshou.algorithm import (
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net
from torch import nn
from torchrl.collectors import Collector as TorchRLCollector
from torchrl.envs import ActionMask, GymEnv, GymWrapper, PettingZooWrapper, TransformedEnv
from torchrl.envs.utils import check_env_specs
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

import camelup_env  # noqa: F401  (registers the ids)
from camelup_env import camelup_v1

ID = "camelup/Classic2p-v0"
#: small observations, and games cut at 60 turns (random play takes hundreds): the loops below
#: go through several episodes' ends and resets
PLAIN = {"odds_features": False, "action_values": False, "max_turns": 60}


def legal_taken(masks: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """Whether each action (an index) was allowed by its mask."""
    return masks.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)


# TorchRL -------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4])
def test_torchrl_pettingzoo_wrapper_with_the_mask(players: int) -> None:
    env = PettingZooWrapper(env=camelup_v1.env(num_players=players, **PLAIN), use_mask=True)
    check_env_specs(env)
    rollout = env.rollout(300, break_when_any_done=False)  # random actions from the masked spec
    for agent in env.group_map:
        acting = rollout[agent, "mask"].squeeze(-1)
        taken = legal_taken(rollout[agent, "action_mask"], rollout[agent, "action"])
        assert acting.any() and taken.squeeze(-1)[acting].all(), f"{agent} played an illegal move"
    assert rollout["next", "done"].any()  # past a game's end and the wrapper's reset


def test_torchrl_gym_env_with_its_info_reader_and_the_action_mask() -> None:
    env = TransformedEnv(
        GymEnv(
            ID, categorical_action_encoding=True, dict_observation=True, **PLAIN
        ).auto_register_info_dict(),
        ActionMask(),
    )
    check_env_specs(env)
    rollout = env.rollout(200, break_when_any_done=False)
    assert legal_taken(rollout["action_mask"], rollout["action"]).all()
    assert not rollout["next", "illegal_action"].any()
    assert rollout["next", "action_mask"].shape == (200, env.action_spec.space.n)


def test_torchrl_gym_env_of_gymnasiums_vector_env() -> None:
    """``num_envs`` games in worker processes: the module in the id (Gymnasium's
    ``module:id``) makes each worker import camelup_env, which registers the ids."""
    env = GymEnv(f"camelup_env:{ID}", num_envs=2, **PLAIN)
    try:
        check_env_specs(env)
    finally:
        env.close()


def test_torchrl_gym_wrapper_around_make_vec() -> None:
    envs = gymnasium.make_vec(ID, num_envs=3, vectorization_mode="vector_entry_point", **PLAIN)
    env = GymWrapper(envs, categorical_action_encoding=True)
    check_env_specs(env)
    assert env.batch_size == (3,)
    # Through games' ends (random actions, illegal ones included, end games early): TorchRL
    # reads the same-step autoreset, so a game's next observation at its end is its last one
    # (info["final_obs"]) and the following step starts from the new deal
    rollout = env.rollout(100, break_when_any_done=False)
    ends = rollout["next", "done"].squeeze(-1)[:, :-1].nonzero().tolist()
    assert ends
    for game, t in ends:
        last, dealt = rollout["next", "observation"][game, t], rollout["observation"][game, t + 1]
        assert not torch.equal(last, dealt)


def test_torchrl_masked_ppo_plays_no_illegal_action() -> None:
    env = GymEnv(ID, categorical_action_encoding=True, dict_observation=True, **PLAIN)
    env = env.auto_register_info_dict()
    features = env.observation_spec["observation"].shape[-1]
    actions = env.action_spec.space.n
    torch.manual_seed(0)
    logits = nn.Linear(features, actions)
    actor = ProbabilisticActor(
        TensorDictModule(logits, in_keys=["observation"], out_keys=["logits"]),
        in_keys={"logits": "logits", "mask": "action_mask"},
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    )
    critic = ValueOperator(nn.Linear(features, 1), in_keys=["observation"])
    advantage = GAE(gamma=0.99, lmbda=0.95, value_network=critic)
    loss = ClipPPOLoss(actor, critic)
    optim = torch.optim.Adam(loss.parameters(), lr=3e-4)
    collector = TorchRLCollector(env, actor, frames_per_batch=128, total_frames=256)
    for batch in collector:
        assert legal_taken(batch["action_mask"], batch["action"]).all()
        assert not batch["next", "illegal_action"].any()
        advantage(batch)
        for _ in range(2):
            out = loss(batch)
            total = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
            assert torch.isfinite(total)
            optim.zero_grad()
            total.backward()
            optim.step()
    collector.shutdown()


# Tianshou ------------------------------------------------------------------------------------


def pettingzoo_env(players: int) -> PettingZooEnv:
    return PettingZooEnv(camelup_v1.env(num_players=players, **PLAIN))


def assert_legal(buffer: VectorReplayBuffer) -> None:
    """Every stored action is allowed by the mask its policy saw."""
    stored = buffer[buffer.sample_indices(0)]  # every transition stored
    chosen = stored.obs.mask[np.arange(len(stored)), stored.act.astype(int)]
    assert len(stored) > 0 and chosen.all()


@pytest.mark.parametrize("players", [2, 4])
def test_tianshou_pettingzoo_env_with_masked_random_policies(players: int) -> None:
    env = pettingzoo_env(players)
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[
            MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
            for _ in range(players)
        ],
        env=env,
    )
    envs = DummyVectorEnv([lambda: pettingzoo_env(players) for _ in range(2)])
    buffer = VectorReplayBuffer(2_000, len(envs))
    collector = Collector[CollectStats](algorithm, envs, buffer, exploration_noise=True)
    collector.reset()
    stats = collector.collect(n_episode=2)
    assert stats.n_collected_episodes >= 2
    assert_legal(buffer)


def test_tianshou_masked_dqn_on_dummy_vector_env_of_the_gymnasium_env() -> None:
    """The Gymnasium env with its dict observation under Tianshou's key names, which its DQN
    reads (``obs.obs`` for the network, ``obs.mask`` for the legal actions)."""

    def make() -> gymnasium.Env:
        return gymnasium.make(ID, dict_observation=("obs", "mask"), **PLAIN)

    env = make()
    net = Net(state_shape=env.observation_space["obs"].shape, action_shape=env.action_space.n)
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.5)
    algorithm = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3))
    envs = DummyVectorEnv([make for _ in range(2)])
    buffer = VectorReplayBuffer(2_000, len(envs))
    collector = Collector[CollectStats](algorithm, envs, buffer, exploration_noise=True)
    collector.reset()
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=1,
            epoch_num_steps=200,
            collection_step_num_env_steps=50,
            batch_size=32,
            update_step_num_gradient_steps_per_sample=0.2,
            test_in_training=False,
        )
    )
    assert result.update_step > 0 and result.train_episode >= 2
    assert_legal(buffer)
    stored = buffer[buffer.sample_indices(0)]
    assert stored.info.action_mask.shape == (len(stored), env.action_space.n)
    assert not stored.info.illegal_action.any()


def test_tianshou_masked_dqn_learns_against_random_with_no_illegal_action() -> None:
    """Tianshou's tic-tac-toe recipe: a DQN seat and a masked random one."""
    env = pettingzoo_env(2)
    torch.manual_seed(0)
    net = Net(
        state_shape=env.observation_space["observation"].shape,
        action_shape=env.action_space.n,
        hidden_sizes=[64],
    )
    learner = DQN(
        policy=DiscreteQLearningPolicy(
            model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.05
        ),
        optim=AdamOptimizerFactory(lr=1e-3),
        target_update_freq=50,
    )
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)
    envs = DummyVectorEnv([lambda: pettingzoo_env(2) for _ in range(2)])
    buffer = VectorReplayBuffer(5_000, len(envs))
    training = Collector[CollectStats](algorithm, envs, buffer, exploration_noise=True)
    training.reset()
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=training,
            max_epochs=1,
            epoch_num_steps=300,
            collection_step_num_env_steps=50,
            batch_size=32,
            update_step_num_gradient_steps_per_sample=0.2,
            test_in_training=False,
            multi_agent_return_reduction=lambda returns: returns[:, 0],
        )
    )
    assert result.update_step > 0 and result.train_episode >= 2
    assert_legal(buffer)
