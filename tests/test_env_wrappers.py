"""SingleAgentEnv: Gymnasium/SB3 checks, opponents, learner-own transitions, MaskablePPO."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from camelup_env import IllegalActionError, action_table
from camelup_env.envs.single_agent import RandomOpponent, SingleAgentEnv, random_opponent
from camelup_env.game.rewards import final_rewards
from camelup_env.observation import HIDDEN


@pytest.mark.parametrize(
    "kw",
    [
        dict(odds_features=False),
        dict(preset="second_edition", num_players=6, learner_seat=None, odds_features=False),
        dict(num_players=2, learner_seat=1),
        dict(preset="cup", dict_observation=True, odds_features=False),
    ],
    ids=["classic-4", "second_edition-6-random-seat", "classic-2-odds", "cup-dict-observation"],
)
def test_gymnasium_and_sb3_checkers(kw: dict) -> None:
    env = SingleAgentEnv(**kw)
    check_env(env, skip_render_check=True)
    sb3_check_env(env)


def play_episode(env: SingleAgentEnv, seed: int):
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps, total, done = 0, 0.0, False
    while not done:
        mask = env.action_masks()
        assert np.array_equal(mask, info["action_mask"]) and mask.any()
        assert env.state.current == env.seat
        obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        steps += 1
        done = term or trunc
    return obs, total, term, steps


def test_learner_gets_its_own_reward_and_terminal_observation() -> None:
    for seed in range(6):
        env = SingleAgentEnv(learner_seat=None, odds_features=False, num_players=3)
        obs, total, term, _ = play_episode(env, seed)
        state = env.state
        assert term and state.game_over
        assert total == pytest.approx(final_rewards(state.coins, "win")[env.seat])
        assert np.array_equal(obs, env.observer.observe(state, env.seat))
        assert not env.action_masks().any()


def test_reset_seed_fixes_the_episode() -> None:
    a = SingleAgentEnv(learner_seat=None, odds_features=False)
    b = SingleAgentEnv(learner_seat=None, odds_features=False)
    ra, rb = play_episode(a, 11), play_episode(b, 11)
    assert np.array_equal(ra[0], rb[0]) and ra[1:] == rb[1:]
    assert a.state.to_dict() == b.state.to_dict()


def test_opponents_get_their_observation_and_public_view_only() -> None:
    seen = []

    def spy(observation: dict, public_state) -> int:
        seat = public_state.current
        seen.append(seat)
        for owner, camel in public_state.winner_pile + public_state.loser_pile:
            assert camel == HIDDEN or owner == seat
        assert all(h == HIDDEN for s, h in enumerate(public_state.hands) if s != seat)
        legal = np.flatnonzero(observation["action_mask"])
        race = [a for a in legal if a >= action_table(public_state.rules).race_offset]
        return int(race[0] if race else legal[0])

    env = SingleAgentEnv(opponents=spy, learner_seat=1, odds_features=False)
    play_episode(env, 0)
    assert set(seen) == {0, 2, 3}


def test_set_opponents_and_illegal_opponent_names_its_seat() -> None:
    env = SingleAgentEnv(odds_features=False, learner_seat=0)
    env.reset(seed=0)
    bad = [random_opponent(0), lambda obs, state: 10_000, random_opponent(1)]
    env.set_opponents(bad)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"seat 2 \(player_2\)"):
        for _ in range(10):
            env.step(int(np.flatnonzero(env.action_masks())[0]))
    with pytest.raises(ValueError, match="need 3 opponent"):
        env.set_opponents([RandomOpponent()])


def test_illegal_learner_action_terminates_with_penalty() -> None:
    env = SingleAgentEnv(odds_features=False)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, term, trunc, info = env.step(illegal)
    assert (reward, term, trunc, info["illegal_action"]) == (-1.0, True, False, True)
    strict = SingleAgentEnv(odds_features=False, illegal_reward=None)
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError):
        strict.step(illegal)


def test_maskable_ppo_smoke(tmp_path) -> None:
    """A few thousand steps train, save, reload and play legal moves only (learning is not
    asserted, and neither is wall time: CI machines are shared; it takes ~10 s when idle)."""
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = SingleAgentEnv(num_players=2, odds_features=False)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=256,
        batch_size=64,
        n_epochs=2,
        seed=0,
        policy_kwargs=dict(net_arch=[64, 64]),
        device="cpu",
    )
    model.learn(2_048)
    model.save(tmp_path / "camelup_ppo")
    loaded = MaskablePPO.load(tmp_path / "camelup_ppo", device="cpu")
    for seed in range(2):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            mask = env.action_masks()
            action, _ = loaded.predict(obs, action_masks=mask, deterministic=False)
            assert mask[int(action)]
            obs, _, term, trunc, _ = env.step(int(action))
            done = term or trunc
