"""The batched training env (training/vec_env.py) against SingleAgentEnv, and SB3's conventions."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from stable_baselines3.common.vec_env import DummyVecEnv

import agents
from camelup_env.rules import RuleSet
from camelup_env.wrappers import RandomOpponent, SingleAgentEnv
from training.vec_env import CamelUpVecEnv, fixed_opponents


def _opponents(names: list[str]) -> list:
    return [RandomOpponent() if n == "random" else agents.make(n) for n in names]


LINEUPS = [["random", "random", "random"], ["greedy", "random", "heuristic"],
           ["heuristic", "random", "random"]]


def _pair(rules: RuleSet, seed: int, **kwargs):
    old = DummyVecEnv([
        (lambda names=names: SingleAgentEnv(opponents=_opponents(names), learner_seat=None,
                                            rules=rules, **kwargs))
        for names in LINEUPS])
    old.seed(seed)
    new = CamelUpVecEnv(len(LINEUPS), rules,
                        [fixed_opponents(_opponents(names)) for names in LINEUPS],
                        seed=seed, **kwargs)
    return old, new


@pytest.mark.parametrize("shaping", [0.0, 0.05])
def test_same_trajectories_as_single_agent_env(shaping):
    rules = RuleSet("classic", num_players=4)
    old, new = _pair(rules, seed=11, odds_features=False, coin_shaping=shaping,
                     reward_mode="rank")
    o_old, o_new = old.reset(), new.reset()
    rng = np.random.default_rng(5)
    episodes = 0
    for _ in range(400):
        np.testing.assert_array_equal(o_old, o_new)
        m_old = np.stack(old.env_method("action_masks"))
        m_new = np.stack(new.env_method("action_masks"))
        np.testing.assert_array_equal(m_old, m_new)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in m_new])
        o_old, r_old, d_old, i_old = old.step(actions)
        o_new, r_new, d_new, i_new = new.step(actions)
        np.testing.assert_allclose(r_old, r_new)
        np.testing.assert_array_equal(d_old, d_new)
        for a, b, d in zip(i_old, i_new, d_new, strict=True):
            if d:
                episodes += 1
                np.testing.assert_array_equal(a["terminal_observation"], b["terminal_observation"])
                assert a["TimeLimit.truncated"] == b["TimeLimit.truncated"]
    assert episodes >= 3  # several automatic resets were compared


def test_learner_seat_varies_and_masks_are_the_learners():
    rules = RuleSet("classic", num_players=2)
    venv = CamelUpVecEnv(8, rules, fixed_opponents(["random"]), seed=0, odds_features=False)
    venv.reset()
    seats = {g.seat for g in venv.games}
    assert seats == {0, 1}
    for game, mask in zip(venv.games, venv.action_masks(), strict=True):
        assert game.state.current == game.seat
        assert mask.any()


def test_illegal_learner_action_ends_its_episode():
    rules = RuleSet("classic", num_players=2)
    venv = CamelUpVecEnv(2, rules, fixed_opponents(["random"]), seed=0, odds_features=False,
                         illegal_reward=-3.0)
    venv.reset()
    masks = venv.action_masks()
    bad = int(np.flatnonzero(~masks[0])[0])
    good = int(np.flatnonzero(masks[1])[0])
    _, rewards, dones, infos = venv.step(np.array([bad, good]))
    assert dones[0] and rewards[0] == -3.0 and infos[0]["illegal_action"]
    assert not infos[0]["TimeLimit.truncated"]


def test_rejects_a_source_with_the_wrong_number_of_opponents():
    rules = RuleSet("classic", num_players=4)
    venv = CamelUpVecEnv(1, rules, fixed_opponents(["random"]), odds_features=False)
    with pytest.raises(ValueError, match="3 are needed"):
        venv.reset()


def test_trains_with_maskable_ppo():
    from sb3_contrib import MaskablePPO

    rules = RuleSet("classic", num_players=2)
    venv = CamelUpVecEnv(4, rules, fixed_opponents(["random"]), seed=0, odds_features=False)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1,
                        policy_kwargs={"net_arch": [16]}, seed=0, device="cpu")
    model.learn(128)
    assert model.num_timesteps >= 128


def test_sb3_vecenv_conventions_hold():
    """What SB3's env checker asks of an env, asked of the batch: spaces, dtypes, shapes, bounds,
    and the auto-reset protocol (terminal observation in the infos, a fresh first observation)."""
    rules = RuleSet("classic", num_players=3)
    venv = CamelUpVecEnv(5, rules, fixed_opponents(["heuristic", "random"]), seed=3,
                         odds_features=True, race_samples=16)
    obs = venv.reset()
    assert obs.shape == (5, *venv.observation_space.shape) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(150):
        assert all(venv.observation_space.contains(row) for row in obs)
        masks = venv.action_masks()
        assert masks.dtype == bool and masks.shape == (5, venv.action_space.n)
        assert masks.any(1).all()
        obs, rewards, dones, infos = venv.step(np.array([rng.choice(np.flatnonzero(m))
                                                         for m in masks]))
        assert rewards.shape == (5,) and dones.shape == (5,) and len(infos) == 5
        for done, info in zip(dones, infos, strict=True):
            assert ("terminal_observation" in info) == bool(done)
            if done:
                finished += 1
                assert venv.observation_space.contains(info["terminal_observation"])
    assert finished > 0
    assert venv.has_attr("action_masks")
    np.testing.assert_array_equal(np.stack(venv.env_method("action_masks")), venv.action_masks())
