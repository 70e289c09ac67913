"""camelup_v1 against PettingZoo's API and seed tests, pickling, illegal actions, rewards and
rendering."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from camelup_env import IllegalActionError, RuleSet, action_table
from camelup_env.camelup_v1 import env as make_env
from camelup_env.camelup_v1 import raw_env
from camelup_env.game.rewards import final_rewards

CONFIGS = [
    dict(preset="classic", num_players=2),
    dict(preset="classic", num_players=4),
    dict(preset="second_edition", num_players=4),
    dict(preset="second_edition", num_players=6),
    dict(preset="second_edition", num_players=8),
]
IDS = [f"{c['preset']}-{c['num_players']}" for c in CONFIGS]


def random_action(obs: dict, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(obs["action_mask"])
    return int(legal[rng.integers(len(legal))])


def play(env, rng: np.random.Generator, max_steps: int = 10_000) -> int:
    steps = 0
    for _ in env.agent_iter(max_steps):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else random_action(obs, rng))
        steps += 1
    return steps


@pytest.mark.parametrize("kw", CONFIGS, ids=IDS)
def test_api_test(kw: dict) -> None:
    # odds off for speed except one configuration each preset (odds on is the default)
    odds = kw["num_players"] in (4,)
    api_test(make_env(odds_features=odds, **kw), num_cycles=60)


@pytest.mark.parametrize("kw", CONFIGS, ids=IDS)
def test_seed_test(kw: dict) -> None:
    seed_test(lambda: make_env(odds_features=kw["num_players"] == 2, **kw), num_cycles=60)


@pytest.mark.parametrize("kw", [CONFIGS[1], CONFIGS[3]], ids=[IDS[1], IDS[3]])
def test_pickle_mid_game_continues_identically(kw: dict) -> None:
    env = make_env(odds_features=False, **kw)
    env.reset(seed=7)
    rng = np.random.default_rng(1)
    for _ in env.agent_iter(40):
        obs, *_ = env.last()
        env.step(random_action(obs, rng))
    clone = pickle.loads(pickle.dumps(env))
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    trace = []
    for e, r in ((env, rng_a), (clone, rng_b)):
        seen = []
        for agent in e.agent_iter(5_000):
            obs, reward, term, trunc, info = e.last()
            events = e.unwrapped.last_events[agent]
            seen.append((agent, obs["observation"].tobytes(), reward, term, info, events))
            e.step(None if term or trunc else random_action(obs, r))
        trace.append(seen)
    assert trace[0] == trace[1]
    assert env.unwrapped.state.to_dict() == clone.unwrapped.state.to_dict()


def test_illegal_action_through_env_ends_the_game() -> None:
    env = make_env(odds_features=False)
    env.reset(seed=0)
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    offender = env.agent_selection
    env.step(illegal)
    assert all(env.terminations.values()) or all(env.truncations.values())
    for agent in env.agents:
        expected = -1 if agent == offender else 0
        assert env._cumulative_rewards[agent] == expected
    play(env, np.random.default_rng(0))
    assert env.agents == []


def test_illegal_action_through_raw_env_raises() -> None:
    env = raw_env(odds_features=False)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="illegal action for player 0"):
        env.step(illegal)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(10_000)


@pytest.mark.parametrize("info_events", [False, True])
def test_last_events_hide_race_bet_colours_and_infos_carry_them_on_request(info_events) -> None:
    env = raw_env(odds_features=False, info_events=info_events)
    env.reset(seed=0)
    assert env.last_events == {a: () for a in env.agents}
    table = action_table(env.rules)
    env.step(table.race_index(0, 2))  # player_0 bets on camel 2 as overall winner
    (ev0,) = env.last_events["player_0"]
    (ev1,) = env.last_events["player_1"]
    assert ev0.camel == 2 and ev1.camel is None and ev1.player == 0
    expected = {a: {"events": env.last_events[a]} if info_events else {} for a in env.agents}
    assert env.infos == expected
    assert env.observe("player_1")["action_mask"].sum() > 0
    assert env.observe("player_0")["action_mask"].sum() == 0


@pytest.mark.parametrize("mode", ["win", "rank", "coins"])
@pytest.mark.parametrize("kw", [CONFIGS[0], CONFIGS[2], CONFIGS[4]], ids=[IDS[0], IDS[2], IDS[4]])
def test_reward_modes_at_game_end(mode: str, kw: dict) -> None:
    env = make_env(odds_features=False, reward_mode=mode, **kw)
    env.reset(seed=3)
    total = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            total[agent] = reward
        env.step(None if term or trunc else random_action(obs, rng))
    coins = env.unwrapped.state.coins
    assert [total[a] for a in env.possible_agents] == pytest.approx(final_rewards(coins, mode))
    if mode != "coins":
        assert sum(total.values()) == pytest.approx(0.0)


def test_reward_numbers_with_ties() -> None:
    assert final_rewards((10, 5), "win") == [1.0, -1.0]
    assert final_rewards((7, 7), "win") == [0.0, 0.0]
    assert final_rewards((9, 9, 3, 1), "win") == pytest.approx([0.5, 0.5, -0.5, -0.5])
    assert final_rewards((9, 2, 3, 1), "win") == pytest.approx([1, -1 / 3, -1 / 3, -1 / 3])
    assert final_rewards((4, 4, 4, 4), "win") == [0.0] * 4
    assert final_rewards((9, 2, 3, 1), "rank") == pytest.approx([1, -1 / 3, 1 / 3, -1])
    assert final_rewards((9, 9, 3, 1), "rank") == pytest.approx([2 / 3, 2 / 3, -1 / 3, -1])
    assert final_rewards((5, 5), "rank") == [0.0, 0.0]
    assert final_rewards((12, 2, 7), "coins") == pytest.approx([0.5, -1.0, -0.5])


def test_coin_shaping_pays_coin_changes() -> None:
    env = raw_env(odds_features=False, coin_shaping=0.1, reward_mode="coins")
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    start = env.state.coins
    got = dict.fromkeys(env.possible_agents, 0.0)
    while not env.state.game_over:
        env.step(random_action(env.observe(env.agent_selection), rng))
        for a, r in env.rewards.items():
            got[a] += r
    terminal = final_rewards(env.state.coins, "coins")
    for s, a in enumerate(env.possible_agents):
        assert got[a] == pytest.approx(0.1 * (env.state.coins[s] - start[s]) + terminal[s])


def test_max_turns_truncates() -> None:
    env = make_env(odds_features=False, max_turns=5)
    env.reset(seed=0)
    steps = play(env, np.random.default_rng(0))
    assert steps == 5 + 4 and env.agents == []


def test_rules_argument_and_partner_actions_only_with_partnerships() -> None:
    env = raw_env(rules=RuleSet("second_edition", num_players=6), odds_features=False)
    assert env.action_space("player_0").n == len(action_table(env.rules)) == 46 + 6
    assert "partner" in env.observation_layout
    env4 = raw_env(preset="second_edition", num_players=4, odds_features=False)
    assert env4.action_space("player_0").n == 46 and "partner" not in env4.observation_layout
    assert len(env.possible_agents) == 6


def test_render_modes() -> None:
    env = make_env(render_mode="ansi", odds_features=False)
    env.reset(seed=0)
    text = env.render()
    assert "player 0 to play" in text and "(you)" in text
    env = make_env(
        render_mode="rgb_array", odds_features=False, preset="second_edition", num_players=8
    )
    env.reset(seed=0)
    play(env, np.random.default_rng(0), max_steps=80)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[0] > 300 and image.shape[1] > 800 and image.std() > 10


def test_render_human_prints(capsys: pytest.CaptureFixture) -> None:
    env = make_env(render_mode="human", odds_features=False, num_players=2)
    env.reset(seed=0)
    assert "track (stacks bottom -> top)" in capsys.readouterr().out


def test_camelup_v0_is_v1_with_the_v0_observation() -> None:
    """The version bump (camelup_v1's Version History): camelup_v0 stays importable for models
    trained on it and gives v1's game with ``action_values=False``, under its own name."""
    from camelup_env import camelup_v0, camelup_v1

    assert camelup_v1.ENV_VERSION == raw_env.metadata["name"] == "camelup_v1"
    assert camelup_v0.raw_env.metadata["name"] == camelup_v0.ENV_VERSION == "camelup_v0"
    old, new = camelup_v0.env(num_players=2), camelup_v1.env(num_players=2)
    api_test(old, num_cycles=20)
    assert old.unwrapped.observer.metadata == {
        "odds_features": True,
        "race_samples": 200,
        "action_values": False,
    }
    assert "action_values" in new.unwrapped.observation_layout
    assert "action_values" not in old.unwrapped.observation_layout
    same = camelup_v1.env(num_players=2, action_values=False, race_samples=200)
    for e in (old, same):
        e.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in old.agent_iter(60):
        a, b = old.last(), same.last()
        assert np.array_equal(a[0]["observation"], b[0]["observation"])
        action = None if a[2] or a[3] else random_action(a[0], rng)
        old.step(action)
        same.step(action)
