"""The learner-seat environments are faces of one loop (camelup_env.batch.learner): each plays
LearnerGames's episodes for the same seed, and SingleAgentEnv plays the camelup_v1 game."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils import seeding

from camelup_env import RuleSet, action_table, camelup_v1
from camelup_env.batch.learner import LearnerGames
from camelup_env.envs.single_agent import RandomOpponent, SingleAgentEnv

PLAIN = {"odds_features": False, "action_values": False}
SETTINGS = {"reward_mode": "rank", "coin_shaping": 0.05, "max_turns": 40, **PLAIN}


def racer(observation: dict, public_state) -> int:
    """Takes a pyramid tile whenever it may (the race moves on), else the last legal action."""
    pyramid = action_table(public_state.rules).pyramid
    legal = np.flatnonzero(observation["action_mask"])
    return pyramid if observation["action_mask"][pyramid] else int(legal[-1])


def lineup() -> list:
    return [RandomOpponent(), racer, racer]


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_single_agent_env_plays_learner_games_episodes(preset: str) -> None:
    """reset(seed=s), then plain resets: the episodes of a one-game LearnerGames seeded s
    (its automatic deals are the env's resets), observation for observation."""
    rules = RuleSet(preset, num_players=4)
    env = SingleAgentEnv(lineup(), learner_seat=None, rules=rules, **SETTINGS)
    theirs = lineup()
    games = LearnerGames(rules, 1, lambda: theirs, seed=7, engine=True, **SETTINGS)
    obs, info = env.reset(seed=7)
    np.testing.assert_array_equal(obs, games.reset()[0])
    rng = np.random.default_rng(0)
    ends = {"terminated": 0, "truncated": 0}
    for _ in range(400):
        np.testing.assert_array_equal(info["action_mask"], games.action_masks()[0])
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        expected, rewards, dones, infos = games.step(np.array([action]))
        assert reward == rewards[0] and (terminated or truncated) == dones[0]
        if dones[0]:
            assert truncated == infos[0]["TimeLimit.truncated"]
            ends["truncated" if truncated else "terminated"] += 1
            np.testing.assert_array_equal(obs, infos[0]["terminal_observation"])
            obs, info = env.reset()
        np.testing.assert_array_equal(obs, expected[0])
    assert min(ends.values()) > 0  # both ends, and the deals after them, were compared


class Recorder:
    """A seeded random opponent that logs its moves (and has no reset: the env's generator
    draws only the learner's seat and the dice seed)."""

    def __init__(self, log: list[int], seed: int) -> None:
        self.log, self.rng = log, np.random.default_rng(seed)

    def __call__(self, observation: dict, public_state) -> int:
        self.log.append(int(self.rng.choice(np.flatnonzero(observation["action_mask"]))))
        return self.log[-1]


@pytest.mark.parametrize(
    ("preset", "players"), [("classic", 4), ("second_edition", 6), ("supercup", 3)]
)
def test_a_single_agent_env_game_is_the_camelup_v1_game(preset: str, players: int) -> None:
    """The same actions, and the dice of camelup_v1 reset with the seed the episode drew
    (after the learner's seat), give the same states, observations, rewards and events."""
    rules = RuleSet(preset, num_players=players)
    settings = {"reward_mode": "win", "coin_shaping": 0.1, **PLAIN}
    for seed in range(3):
        log: list[int] = []
        env = SingleAgentEnv(
            [Recorder(log, seed * 10 + k) for k in range(players - 1)],
            learner_seat=None,
            rules=rules,
            info_events=True,
            **settings,
        )
        obs, info = env.reset(seed=seed)
        assert info["events"] is env.last_events
        seen = [(obs, info["action_mask"], 0.0, info["events"])]
        mine = []  # the learner's actions, by their place in the log
        done = False
        rng = np.random.default_rng(seed)
        while not done:
            mine.append(len(log))
            log.append(int(rng.choice(np.flatnonzero(env.action_masks()))))
            obs, reward, terminated, truncated, info = env.step(log[-1])
            assert info["events"] is env.last_events
            seen.append((obs, info["action_mask"], reward, info["events"]))
            done = terminated or truncated
        draws = seeding.np_random(seed)[0]
        learner = f"player_{int(draws.integers(players))}"
        aec = camelup_v1.raw_env(rules=rules, **settings)
        aec.reset(seed=int(draws.integers(1 << 62)))
        reward, events = 0.0, []
        played = []
        for k, action in enumerate(log):
            if k in mine:
                obs = aec.observe(learner)
                played.append(
                    (obs["observation"], obs["action_mask"].astype(bool), reward, tuple(events))
                )
                reward, events = 0.0, []
            assert (aec.agent_selection == learner) == (k in mine)
            aec.step(action)
            reward += aec.rewards[learner]
            events += aec.last_events[learner]
        obs = aec.observe(learner)
        played.append((obs["observation"], obs["action_mask"].astype(bool), reward, tuple(events)))
        assert aec.state.to_dict() == env.state.to_dict()
        assert len(played) == len(seen)
        for (o, m, r, e), (o1, m1, r1, e1) in zip(seen, played, strict=True):
            np.testing.assert_array_equal(o, o1)
            np.testing.assert_array_equal(m, m1)
            assert r == pytest.approx(r1, abs=1e-6) and e == e1


def test_vec_env_plays_learner_games_episodes() -> None:
    pytest.importorskip("stable_baselines3")
    from training.policy.vec_env import CamelUpVecEnv

    rules = RuleSet("classic", num_players=4)
    mine, theirs = lineup(), lineup()
    venv = CamelUpVecEnv(3, rules, lambda: mine, seed=4, **SETTINGS)
    games = LearnerGames(rules, 3, lambda: theirs, seed=4, **SETTINGS)
    np.testing.assert_array_equal(venv.reset(), games.reset())
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(150):
        masks = venv.action_masks()
        np.testing.assert_array_equal(masks, games.action_masks())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        expected, rewards1, dones1, infos1 = games.step(actions)
        np.testing.assert_array_equal(obs, expected)
        np.testing.assert_array_equal(rewards, rewards1)
        np.testing.assert_array_equal(dones, dones1)
        for i in np.flatnonzero(dones):
            np.testing.assert_array_equal(
                infos[i]["terminal_observation"], infos1[i]["terminal_observation"]
            )
            ended += 1
    assert ended >= 3
