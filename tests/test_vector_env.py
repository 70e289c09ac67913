"""``gymnasium.make_vec`` (camelup_env/envs/vector.py): every id, the single env's games game for
game across automatic resets, Gymnasium's same-step autoreset, masks and spaces."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.wrappers.vector import RecordEpisodeStatistics

import camelup_env  # noqa: F401  (registers the ids)
from camelup_env import RuleSet
from camelup_env.batch.engine_chance import EngineChanceGames
from camelup_env.batch.engine_games import EngineGames
from camelup_env.batch.games import random_streams
from camelup_env.envs.registration import register_envs
from camelup_env.envs.vector import SingleAgentVectorEnv
from camelup_env.game.actions import action_table
from camelup_env.game.legality import IllegalActionError

PLAIN = {"odds_features": False, "action_values": False}


def make_vec(env_id: str, n: int, **kwargs) -> VectorEnv:
    return gymnasium.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", **kwargs)


@pytest.mark.parametrize("env_id", register_envs())
def test_every_id_builds_the_vector_env_without_gymnasiums_warnings(env_id) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # make_vec warns on a missing or wrong autoreset_mode
        envs = make_vec(env_id, 3, **PLAIN)
    single = gymnasium.make(env_id, **PLAIN).unwrapped
    assert isinstance(envs, SingleAgentVectorEnv) and isinstance(envs, VectorEnv)
    assert envs.metadata["autoreset_mode"] is envs.autoreset_mode is AutoresetMode.SAME_STEP
    assert envs.single_observation_space == single.observation_space
    assert envs.single_action_space == single.action_space
    assert envs.observation_space.shape == (3, *single.observation_space.shape)
    assert envs.action_space == gymnasium.spaces.MultiDiscrete([single.action_space.n] * 3)
    obs, info = envs.reset(seed=1)
    assert envs.observation_space.contains(obs)
    assert info["action_mask"].shape == (3, single.action_space.n)
    assert info["action_mask"].dtype == bool and info["action_mask"].any(axis=1).all()
    # the default vectorisation of an id with a vector entry point is this env too
    assert isinstance(gymnasium.make_vec(env_id, num_envs=2, **PLAIN), SingleAgentVectorEnv)


@pytest.mark.parametrize(
    ("env_id", "settings"),
    [
        ("camelup/Classic4p-v0", {"coin_shaping": 0.1, "reward_mode": "rank"}),
        ("camelup/SecondEdition3p-v0", {"learner_seat": None}),
        ("camelup/Classic2p-v0", {"odds_features": True, "action_values": True}),
        ("camelup/Supercup4p-v0", {}),
        ("camelup/Cup4p-v0", {"max_turns": 40}),
        ("camelup/PersianTutorial3p-v0", {}),
    ],
)
def test_game_i_of_seed_s_plays_as_the_single_env_seeded_s_plus_i(env_id, settings) -> None:
    """Same observations, masks, rewards, terminations and truncations for the same actions,
    and after an automatic reset the game is the single env's next ``reset()``."""
    settings = {**PLAIN, **settings}
    n, seed = 3, 20
    envs = make_vec(env_id, n, **settings)
    singles = [gymnasium.make(env_id, **settings).unwrapped for _ in range(n)]
    obs, info = envs.reset(seed=seed)
    alone = [env.reset(seed=seed + i) for i, env in enumerate(singles)]
    for i, (o, inf) in enumerate(alone):
        np.testing.assert_array_equal(obs[i], o)
        np.testing.assert_array_equal(info["action_mask"][i], inf["action_mask"])
    rng = np.random.default_rng(0)
    episodes = np.zeros(n, int)
    steps = 0
    while episodes.min() < 2 and steps < 3000:
        steps += 1
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, rewards, terminated, truncated, info = envs.step(actions)
        for i, env in enumerate(singles):
            o, r, term, trunc, inf = env.step(int(actions[i]))
            assert (r, term, trunc) == (rewards[i], terminated[i], truncated[i])
            if term or trunc:
                episodes[i] += 1
                assert info["_final_obs"][i] and info["_final_info"][i]
                np.testing.assert_array_equal(info["final_obs"][i], o)
                np.testing.assert_array_equal(
                    info["final_info"]["action_mask"][i], inf["action_mask"]
                )
                o, inf = env.reset()  # the same step's automatic reset
            else:
                assert "_final_obs" not in info or not info["_final_obs"][i]
            np.testing.assert_array_equal(obs[i], o)
            np.testing.assert_array_equal(info["action_mask"][i], inf["action_mask"])
    assert episodes.min() >= 2  # every game was compared across an automatic reset


def test_same_step_autoreset_reports_gymnasiums_final_keys() -> None:
    """Gymnasium's RecordEpisodeStatistics reads the autoreset mode and counts episodes."""
    envs = RecordEpisodeStatistics(make_vec("camelup/Classic2p-v0", 4, max_turns=30, **PLAIN))
    _, info = envs.reset(seed=0)
    rng = np.random.default_rng(1)
    finished = 0
    for _ in range(200):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        _, _, terminated, truncated, info = envs.step(actions)
        ended = terminated | truncated
        if ended.any():
            finished += ended.sum()
            assert (info["_final_obs"] == ended).all() and (info["_episode"] == ended).all()
            assert info["final_info"]["action_mask"][ended].sum() == 0  # over: nothing legal
        assert info["action_mask"].any(axis=1).all()  # the returned games are all live
    assert finished >= 4 and truncated.dtype == terminated.dtype == bool


def test_an_illegal_action_ends_the_episode_with_the_illegal_reward() -> None:
    envs = make_vec("camelup/Classic4p-v0", 2, illegal_reward=-3.0, **PLAIN)
    _, info = envs.reset(seed=4)
    actions = info["action_mask"].argmax(axis=1)
    actions[1] = np.flatnonzero(~info["action_mask"][1])[0]
    _, rewards, terminated, truncated, info = envs.step(actions)
    assert terminated.tolist() == [False, True] and not truncated.any()
    assert rewards[1] == -3.0 and info["final_info"]["illegal_action"][1]


def test_bad_calls_say_what_is_wrong() -> None:
    envs = make_vec("camelup/Classic2p-v0", 2, **PLAIN)
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.zeros(2, int))
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        envs.step(np.zeros(3, int))
    with pytest.raises(ValueError, match="seeds"):
        envs.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match="render"):
        make_vec("camelup/Classic2p-v0", 2, render_mode="ansi")


@pytest.mark.parametrize("preset", ["classic", "second_edition"])
def test_engine_chance_games_are_the_engines_games_state_for_state(preset) -> None:
    """The batch core with the engine's chance deals and rolls what the engine does."""
    rules = RuleSet(preset, num_players=4)
    n = 8
    core, engine = EngineChanceGames(rules, n, seed=5), EngineGames(rules, n, seed=5)
    core_streams, engine_streams = random_streams(n, 1), random_streams(n, 1)
    assert core.to_states() == engine.to_states()
    ended = 0
    for _ in range(400):
        actions = core.random_actions(core_streams)
        np.testing.assert_array_equal(actions, engine.random_actions(engine_streams))
        a, b = core.step(actions), engine.step(actions)
        np.testing.assert_array_equal(a.rewards, b.rewards)
        np.testing.assert_array_equal(a.rolls, b.rolls)
        assert core.to_states() == engine.to_states()
        done = np.flatnonzero(a.terminated)
        core.reset(done)
        engine.reset(done)
        ended += done.size
    assert ended >= n // 2  # set-ups after the first were compared too


def test_reset_with_a_seed_replays_and_data_stays_in_the_spaces() -> None:
    """Gymnasium's determinism checks, vectorised: ``reset(seed=s)`` replays the same games
    (``data_equivalence`` over every step's data), and every observation is in its space."""
    envs = make_vec("camelup/SecondEdition2p-v0", 4, max_turns=60, **PLAIN)
    runs = []
    for _ in range(2):
        rng = np.random.default_rng(3)
        data = [envs.reset(seed=9)]
        for _ in range(80):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in data[-1][-1]["action_mask"]])
            data.append(envs.step(actions))
            assert envs.observation_space.contains(data[-1][0])
            assert envs.action_space.contains(actions)
        runs.append(data)
    assert data_equivalence(runs[0], runs[1], exact=True)
    assert any(step[2].any() or step[3].any() for step in runs[0][1:])  # episodes ended


def test_engine_chance_copies_roll_the_same_dice() -> None:
    rules = RuleSet("classic", num_players=3)
    games = EngineChanceGames(rules, 4, seed=2)
    pyramid = action_table(rules).pyramid
    for _ in range(3):  # a few dice rolled first
        games.step(np.full(4, pyramid))
    twin, half = games.copy(), games.take([1, 3])
    again = EngineChanceGames.from_states(games.to_states(), seed=7)
    other = EngineChanceGames.from_states(games.to_states(), seed=7)
    for _ in range(5):
        rolls = games.step(np.full(4, pyramid)).rolls
        np.testing.assert_array_equal(twin.step(np.full(4, pyramid)).rolls, rolls)
        np.testing.assert_array_equal(half.step(np.full(2, pyramid)).rolls, rolls[[1, 3]])
        np.testing.assert_array_equal(
            again.step(np.full(4, pyramid)).rolls, other.step(np.full(4, pyramid)).rolls
        )
    assert games.to_states() == twin.to_states()


def test_a_refused_step_draws_no_dice() -> None:
    """An illegal action refuses the whole step before any game moves, chance included: the
    games then roll what they would have rolled."""
    rules = RuleSet("classic", num_players=2)
    pyramid = action_table(rules).pyramid
    games, twin = EngineChanceGames(rules, 2, seed=4), EngineChanceGames(rules, 2, seed=4)
    with pytest.raises(IllegalActionError):
        games.step(np.array([pyramid, 10_000]))
    actions = np.full(2, pyramid)
    np.testing.assert_array_equal(games.step(actions).rolls, twin.step(actions).rolls)
