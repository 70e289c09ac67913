"""Every environment's infos stack into arrays: each value a number array (bool, integer or
float) of one shape and dtype, under the same keys, at every step of a game, on every preset.

Libraries that turn infos into tensors (TorchRL builds a spec from the first infos and fills it
at every step) or store them in replay buffers (Tianshou stacks them) fail on anything else;
the engine's events are kept beside the infos (``last_events``) and enter them only with
``info_events=True``."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

import camelup_env  # noqa: F401  (registers the ids)
from camelup_env import camelup_v1
from camelup_env.envs.registration import ID_NAMES, env_id

PLAIN = {"odds_features": False, "action_values": False}
#: a player count every preset seats (the Cup seats four only)
PLAYERS = 4
#: the vector alone, the dict observation, and the dict under Tianshou's key names
OBSERVATIONS = [False, True, ("obs", "mask")]


def mask_key(dict_observation: bool | tuple[str, str]) -> str:
    return dict_observation[1] if isinstance(dict_observation, tuple) else "action_mask"


def signature(info: dict[str, Any], where: str) -> dict[str, Any]:
    """Key -> (dtype, shape) of a flat or nested info, each value checked to be numeric."""
    found: dict[str, Any] = {}
    for key, value in info.items():
        if isinstance(value, dict):
            found[key] = signature(value, f"{where}[{key!r}]")
            continue
        assert hasattr(value, "dtype"), f"{where}[{key!r}] is a {type(value).__name__}"
        array = np.asarray(value)
        assert array.dtype.kind in "biuf", f"{where}[{key!r}] has dtype {array.dtype}"
        found[key] = (array.dtype, array.shape)
    return found


class Walk:
    """The signature every step of one environment must repeat."""

    def __init__(self) -> None:
        self.first: dict[str, Any] | None = None
        self.steps = 0

    def see(self, info: dict[str, Any], where: str) -> None:
        seen = signature(info, where)
        if self.first is None:
            self.first = seen
        assert seen == self.first, f"{where}: {seen} != the first step's {self.first}"
        self.steps += 1


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("preset", sorted(ID_NAMES))
def test_aec_infos_are_numbers_of_one_shape_at_every_step(preset: str) -> None:
    env = camelup_v1.env(preset=preset, num_players=PLAYERS, **PLAIN)
    walks = {agent: Walk() for agent in env.possible_agents}
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        walks[agent].see(info, f"{preset} {agent} step {walks[agent].steps}")
        env.step(None if term or trunc else random_legal(obs["action_mask"], rng))
    assert all(walk.steps > 2 for walk in walks.values())
    assert not env.agents  # walked to the episode's end (the race's, or max_turns)


@pytest.mark.parametrize("dict_observation", OBSERVATIONS, ids=["box", "dict", "renamed"])
@pytest.mark.parametrize("preset", sorted(ID_NAMES))
def test_gymnasium_infos_are_numbers_of_one_shape_at_every_step(
    preset: str, dict_observation: bool | tuple[str, str]
) -> None:
    env = gymnasium.make(env_id(preset, PLAYERS), dict_observation=dict_observation, **PLAIN)
    walk = Walk()
    rng = np.random.default_rng(2)
    for episode in range(2):
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            walk.see(info, f"{preset} step {walk.steps}")
            assert env.observation_space.contains(obs)
            if dict_observation:  # the same mask in the observation, bool as in info
                mask = obs[mask_key(dict_observation)]
                np.testing.assert_array_equal(mask, info["action_mask"])
                assert mask.dtype == info["action_mask"].dtype == bool
            obs, _, terminated, truncated, info = env.step(random_legal(info["action_mask"], rng))
            done = terminated or truncated
        walk.see(info, f"{preset} last step")
        assert not info["action_mask"].any()
    assert walk.first is not None and set(walk.first) == {"action_mask", "illegal_action"}


@pytest.mark.parametrize("dict_observation", OBSERVATIONS, ids=["box", "dict", "renamed"])
@pytest.mark.parametrize("preset", sorted(ID_NAMES))
def test_vector_infos_are_numbers_of_one_shape_at_every_step(
    preset: str, dict_observation: bool | tuple[str, str]
) -> None:
    """The keys of every step are numbers of one shape; Gymnasium's same-step autoreset keys
    come with a game's end, ``final_info`` numbers too and ``final_obs`` one observation of
    the single observation space per ended game (``None`` for the others), as
    ``SyncVectorEnv`` reports them."""
    n = 3
    envs = gymnasium.make_vec(
        env_id(preset, PLAYERS),
        num_envs=n,
        vectorization_mode="vector_entry_point",
        dict_observation=dict_observation,
        max_turns=80,  # several episodes end in a short walk
        **PLAIN,
    )
    every_step, final_info = Walk(), Walk()
    obs, info = envs.reset(seed=3)
    rng = np.random.default_rng(3)
    ended = 0
    for step in range(200):
        assert envs.observation_space.contains(obs)
        if dict_observation:
            np.testing.assert_array_equal(obs[mask_key(dict_observation)], info["action_mask"])
            assert obs[mask_key(dict_observation)].dtype == bool
        final = {key: info.pop(key) for key in list(info) if "final_" in key}
        every_step.see(info, f"{preset} step {step}")
        if final:
            final_info.see(final["final_info"], f"{preset} step {step} final_info")
            for i, last in enumerate(final["final_obs"]):
                assert (last is None) != bool(final["_final_obs"][i])
                assert last is None or envs.single_observation_space.contains(last)
            ended += int(final["_final_obs"].sum())
        actions = np.array([random_legal(mask, rng) for mask in info["action_mask"]])
        obs, _, _, _, info = envs.step(actions)
    assert ended >= n and every_step.first is not None
    assert set(every_step.first) == {"action_mask", "_action_mask"}
    assert final_info.first is not None
    assert set(final_info.first) == {
        "action_mask",
        "_action_mask",
        "illegal_action",
        "_illegal_action",
    }


def test_events_are_kept_beside_the_infos_and_in_them_on_request() -> None:
    """``last_events`` always, ``info["events"]`` with ``info_events=True`` (the same tuple)."""
    for info_events in (False, True):
        env = gymnasium.make(env_id("classic", 2), info_events=info_events, **PLAIN)
        _, info = env.reset(seed=0)
        assert env.unwrapped.last_events == ()
        rng = np.random.default_rng(0)
        _, _, _, _, info = env.step(random_legal(info["action_mask"], rng))
        assert len(env.unwrapped.last_events) >= 1  # the learner's action and the replies
        if info_events:
            assert info["events"] is env.unwrapped.last_events
        else:
            assert "events" not in info


@pytest.mark.parametrize("bad", [("obs",), ("obs", "obs"), ("obs", ""), "obs", 1])
def test_a_bad_dict_observation_is_a_one_line_error(bad) -> None:
    with pytest.raises(ValueError, match="dict_observation must be True, False or two") as error:
        gymnasium.make(env_id("classic", 2), dict_observation=bad, **PLAIN)
    assert "\n" not in str(error.value)
