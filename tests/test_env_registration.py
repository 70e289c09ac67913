"""``gymnasium.make("camelup/...")``: every registered id builds the single-agent env it names,
which passes Gymnasium's own environment checker."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import camelup_env  # noqa: F401  (registers the ids)
from camelup_env.envs.registration import PLAYER_COUNTS, env_id, register_envs
from camelup_env.envs.single_agent import SingleAgentEnv


def test_every_preset_and_player_count_has_an_id() -> None:
    ids = register_envs()  # idempotent: importing camelup_env registered them already
    assert len(ids) == 4 * len(PLAYER_COUNTS) + 1 == len(set(ids))  # + Cup4p (C1)
    assert "camelup/Classic2p-v0" in ids and "camelup/SecondEdition4p-v0" in ids
    assert all(i in gymnasium.registry for i in ids)


@pytest.mark.parametrize(
    ("preset", "players"),
    [
        ("classic", 2),
        ("second_edition", 6),
        ("supercup", 4),
        ("persian_tutorial", 3),
        ("cup", 4),
    ],
)
def test_registered_env_passes_gymnasiums_env_checker(preset, players, capsys) -> None:
    env = gymnasium.make(env_id(preset, players))
    inner = env.unwrapped
    assert isinstance(inner, SingleAgentEnv)
    assert inner.rules.preset == preset and inner.num_players == players
    check_env(inner)  # raises on any API violation
    capsys.readouterr()  # the checker renders the board


def test_make_passes_keyword_arguments_and_plays_an_episode() -> None:
    env = gymnasium.make("camelup/Classic2p-v0", odds_features=False, learner_seat=1)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    rng = np.random.default_rng(3)
    done, steps = False, 0
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, _, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs)
        done, steps = terminated or truncated, steps + 1
    assert env.unwrapped.seat == 1 and steps > 5 and terminated


def test_action_masks_are_reached_through_make() -> None:
    """``gymnasium.make(id).action_masks()`` (what sb3-contrib's MaskablePPO calls) works on
    the made env, equal to ``info["action_mask"]``; under a wrapper of the user's own, through
    Gymnasium's ``get_wrapper_attr``."""
    env = gymnasium.make("camelup/Classic4p-v0", odds_features=False)
    _, info = env.reset(seed=2)
    assert np.array_equal(env.action_masks(), info["action_mask"]) and info["action_mask"].any()
    wrapped = gymnasium.wrappers.RecordEpisodeStatistics(env)
    action = int(np.flatnonzero(wrapped.get_wrapper_attr("action_masks")())[0])
    _, _, _, _, info = wrapped.step(action)
    assert np.array_equal(wrapped.get_wrapper_attr("action_masks")(), info["action_mask"])
    with pytest.raises(RuntimeError, match="reset"):  # no order wrapper: the env refuses itself
        gymnasium.make("camelup/Classic2p-v0").step(0)
