"""The batched env split over worker processes (training/policy/sharded_vec_env.py): the same
games as one CamelUpVecEnv, one round trip per step, snapshots reaching every shard, clear
errors."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from camelup_env.game.rules import RuleSet
from training.policy.sharded_vec_env import ShardedVecEnv
from training.policy.vec_env import CamelUpVecEnv, fixed_opponents

RULES = RuleSet("classic", num_players=3)
LINEUP = ["heuristic", "random"]
SIZES = [3, 2]


def _batch(n: int, seed: int) -> CamelUpVecEnv:
    # Opponents of their own per game: a shared bot would be reseeded by every game's episode.
    return CamelUpVecEnv(
        n,
        RULES,
        [fixed_opponents(LINEUP) for _ in range(n)],
        seed=seed,
        odds_features=True,
        race_samples=16,
        coin_shaping=0.05,
    )


def _shard(sizes: list[int], seed: int, k: int) -> CamelUpVecEnv:
    return _batch(sizes[k], seed + sum(sizes[:k]))


def _broken(k: int) -> CamelUpVecEnv:
    raise ValueError(f"shard {k} cannot be built")


def test_same_games_as_one_batched_env():
    one = _batch(sum(SIZES), 7)
    split = ShardedVecEnv(partial(_shard, SIZES, 7), len(SIZES))
    try:
        assert split.num_envs == one.num_envs
        assert split.observation_space == one.observation_space
        o_one, o_split = one.reset(), split.reset()
        rng = np.random.default_rng(1)
        finished = 0
        for _ in range(120):
            np.testing.assert_array_equal(o_one, o_split)
            masks = one.action_masks()
            np.testing.assert_array_equal(masks, split.action_masks())
            np.testing.assert_array_equal(np.stack(split.env_method("action_masks")), masks)
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            o_one, r_one, d_one, i_one = one.step(actions)
            o_split, r_split, d_split, i_split = split.step(actions)
            np.testing.assert_array_equal(r_one, r_split)
            np.testing.assert_array_equal(d_one, d_split)
            for a, b, done in zip(i_one, i_split, d_one, strict=True):
                if done:
                    finished += 1
                    np.testing.assert_array_equal(
                        a["terminal_observation"], b["terminal_observation"]
                    )
        assert finished >= 3
        timers = split.shard_attr("timers")
        assert len(timers) == 2 and all(t["env"] > 0 for t in timers)
        assert split.get_attr("num_envs") == [3, 3, 3, 2, 2]
    finally:
        split.close()


def test_env_method_runs_once_per_shard(tmp_path):
    """add_snapshot must reach each shard's pool once, not once per game."""
    from training.policy.sb3_trainer import TrainConfig, make_env
    from training.policy.selfplay import SelfPlayVecEnv

    cfg = TrainConfig(
        num_players=2,
        n_envs=4,
        env_workers=2,
        odds_features=False,
        opponent_mix={"random": 1.0},
        out_dir=str(tmp_path / "run"),
    )
    venv = make_env(cfg, ["a.zip"])
    try:
        assert isinstance(venv.venv, ShardedVecEnv)
        assert venv.env_method("add_snapshot", "b.zip") == [None] * 4  # one entry per game
        pools = venv.venv.shard_attr("pool")
        assert [p.snapshots for p in pools] == [["a.zip", "b.zip"]] * 2
    finally:
        venv.close()
    single = SelfPlayVecEnv(
        3, RuleSet("classic", num_players=2), {"random": 1.0}, pool_seed=0, odds_features=False
    )
    single.env_method("add_snapshot", "c.zip")
    assert single.pool.snapshots == ["c.zip"]


def test_a_shard_that_cannot_be_built_is_a_clear_error():
    with pytest.raises(RuntimeError, match=r"(?s)env worker 0 failed.*shard 0 cannot be built"):
        ShardedVecEnv(_broken, 2)
