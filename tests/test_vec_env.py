"""The batched training env (training/policy/vec_env.py): reproducible games, and SB3's
conventions."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

import agents
from camelup_env.envs.single_agent import RandomOpponent
from camelup_env.game.rules import RuleSet
from training.policy.vec_env import CamelUpVecEnv, fixed_opponents


def _opponents(names: list[str]) -> list:
    return [RandomOpponent() if n == "random" else agents.make(n) for n in names]


LINEUPS = [
    ["random", "random", "random"],
    ["greedy", "random", "heuristic"],
    ["heuristic", "random", "random"],
]


@pytest.mark.parametrize("shaping", [0.0, 0.05])
def test_each_game_plays_as_a_one_game_env_with_its_seed(shaping):
    """Game ``i`` of a batch seeded ``s`` is the one game of an env seeded ``s + i``: its seat,
    opponents' seeds and dice come from its own generator."""
    rules = RuleSet("classic", num_players=4)
    settings = {"odds_features": False, "coin_shaping": shaping, "reward_mode": "rank"}
    together = CamelUpVecEnv(
        len(LINEUPS),
        rules,
        [fixed_opponents(_opponents(names)) for names in LINEUPS],
        seed=11,
        **settings,
    )
    alone = [
        CamelUpVecEnv(1, rules, fixed_opponents(_opponents(names)), seed=11 + i, **settings)
        for i, names in enumerate(LINEUPS)
    ]
    obs = together.reset()
    np.testing.assert_array_equal(obs, np.concatenate([env.reset() for env in alone]))
    rng = np.random.default_rng(5)
    episodes = 0
    for _ in range(400):
        masks = together.action_masks()
        np.testing.assert_array_equal(masks, np.concatenate([e.action_masks() for e in alone]))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = together.step(actions)
        for i, env in enumerate(alone):
            o, r, d, info = env.step(actions[i : i + 1])
            np.testing.assert_array_equal(obs[i], o[0])
            assert rewards[i] == r[0] and dones[i] == d[0]
            if d[0]:
                episodes += 1
                np.testing.assert_array_equal(
                    infos[i]["terminal_observation"], info[0]["terminal_observation"]
                )
                assert infos[i]["TimeLimit.truncated"] == info[0]["TimeLimit.truncated"]
    assert episodes >= 3  # several automatic resets were compared


def test_learner_seat_varies_and_masks_are_the_learners():
    rules = RuleSet("classic", num_players=2)
    venv = CamelUpVecEnv(8, rules, fixed_opponents(["random"]), seed=0, odds_features=False)
    venv.reset()
    learner = venv.learner
    assert set(learner.seats.tolist()) == {0, 1}
    assert (learner.games.current_player == learner.seats).all()
    assert venv.action_masks().any(axis=1).all()


def test_illegal_learner_action_ends_its_episode():
    rules = RuleSet("classic", num_players=2)
    venv = CamelUpVecEnv(
        2, rules, fixed_opponents(["random"]), seed=0, odds_features=False, illegal_reward=-3.0
    )
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
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=16,
        batch_size=32,
        n_epochs=1,
        policy_kwargs={"net_arch": [16]},
        seed=0,
        device="cpu",
    )
    model.learn(128)
    assert model.num_timesteps >= 128


def test_sb3_vecenv_conventions_hold():
    """What SB3's env checker asks of an env, asked of the batch: spaces, dtypes, shapes, bounds,
    and the auto-reset protocol (terminal observation in the infos, a fresh first observation)."""
    rules = RuleSet("classic", num_players=3)
    venv = CamelUpVecEnv(
        5,
        rules,
        fixed_opponents(["heuristic", "random"]),
        seed=3,
        odds_features=True,
        race_samples=16,
    )
    obs = venv.reset()
    assert obs.shape == (5, *venv.observation_space.shape) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(150):
        assert all(venv.observation_space.contains(row) for row in obs)
        masks = venv.action_masks()
        assert masks.dtype == bool and masks.shape == (5, venv.action_space.n)
        assert masks.any(1).all()
        obs, rewards, dones, infos = venv.step(
            np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        )
        assert rewards.shape == (5,) and dones.shape == (5,) and len(infos) == 5
        for done, info in zip(dones, infos, strict=True):
            assert ("terminal_observation" in info) == bool(done)
            if done:
                finished += 1
                assert venv.observation_space.contains(info["terminal_observation"])
    assert finished > 0
    assert venv.has_attr("action_masks")
    np.testing.assert_array_equal(np.stack(venv.env_method("action_masks")), venv.action_masks())


@pytest.mark.parametrize("preset", ["supercup", "persian_tutorial"])
def test_presets_the_batch_core_does_not_play_train_on_the_engine(preset):
    """Supercup and the Persian tutorial step through EngineGames behind the same loop."""
    venv = CamelUpVecEnv(
        3,
        RuleSet(preset, num_players=3),
        fixed_opponents(["greedy", "random"]),
        seed=0,
        race_samples=16,
    )
    obs = venv.reset()
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(120):
        masks = venv.action_masks()
        assert masks.any(axis=1).all()
        obs, _, dones, _ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        episodes += dones.sum()
    assert obs.shape == (3, *venv.observation_space.shape) and episodes > 0
