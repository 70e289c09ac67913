"""RLlib self-play training (``camelup train --trainer rllib``) and the ``rllib:`` agent loader
(docs/distributed.md): a real two-iteration run on a local Ray with 2 CPUs, its checkpoint in a
tournament, resume, one-line errors, and a checkpoint whose pickles carry a payload."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason='RLlib is the "distributed" extra')

import agents  # noqa: E402
from agents.ppo import ModelFileError  # noqa: E402
from camelup_cli.main import main  # noqa: E402
from camelup_env.game.rewards import final_rewards  # noqa: E402
from tournament.config import tournament_config  # noqa: E402
from tournament.run import run_tournament  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: Tiny and fast: 2 players, no odds features, a small network, 2 iterations of 200 steps.
TINY = [
    "--num-players",
    "2",
    "--odds-features",
    "false",
    "--action-values",
    "false",
    "--net-arch",
    "[32, 32]",
    "--train-batch-size",
    "200",
    "--minibatch-size",
    "100",
    "--num-epochs",
    "1",
    "--opponent-mix",
    "{self: 0.5, random: 0.5}",
    "--snapshot-every",
    "1",
    "--checkpoint-every",
    "1",
    "--env-runners",
    "1",
]


def train(out: Path, *extra: str) -> int:
    return main(
        [
            "train",
            "--trainer",
            "rllib",
            str(ROOT / "configs/train/rllib_selfplay.yaml"),
            *TINY,
            "--out-dir",
            str(out),
            *extra,
        ]
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ray.init(
        num_cpus=2, object_store_memory=200 * 2**20, include_dashboard=False, log_to_driver=False
    )
    out = tmp_path_factory.mktemp("rllib") / "run"
    assert train(out, "--iterations", "2") == 0
    yield out
    ray.shutdown()


def test_a_run_writes_checkpoints_tensorboard_and_the_policy_file(run: Path) -> None:
    progress = json.loads((run / "progress.json").read_text())
    assert progress["iteration"] == 2 and progress["checkpoint"] == "checkpoints/iter_000002"
    for k in (1, 2):
        folder = run / "checkpoints" / f"iter_{k:06d}"
        assert (folder / "rllib_checkpoint.json").is_file()  # RLlib's own checkpoint
        assert (folder / "camelup_policy.zip").is_file()
    assert list((run / "tensorboard").glob("events.out.tfevents.*"))
    meta = agents.ppo.read_metadata(run / "model.zip")
    assert meta["trainer"] == "rllib" and meta["trained_iterations"] == 2
    assert meta["rules"]["num_players"] == 2


def test_the_exported_network_is_the_trained_module(run: Path) -> None:
    """The RLlib module and the policy rebuilt from the file give the same masked logits."""
    import torch
    from ray.rllib.core.columns import Columns

    from agents.policy_file import read_policy_file
    from training.policy.rllib_trainer import MaskedActorCritic, SelfPlayMultiAgentEnv

    file = read_policy_file(run / "model.zip")
    config = json.loads((run / "config.json").read_text())
    env = SelfPlayMultiAgentEnv(
        {
            "rules": file.rules.to_dict(),
            "observer": file.observer_settings,
            "opponent_mix": config["opponent_mix"],
        }
    )
    module = MaskedActorCritic(
        observation_space=env.observation_spaces["learner"],
        action_space=env.action_spaces["learner"],
        model_config={"net_arch": config["net_arch"]},
    )
    module.load_state_dict(file.weights)
    obs, _ = env.reset(seed=3)
    (seen,) = obs.values()
    batch = {k: torch.as_tensor(v[None]) for k, v in seen.items()}
    with torch.no_grad():
        rllib_logits = module.forward_inference({Columns.OBS: batch})[Columns.ACTION_DIST_INPUTS]
        sb3 = file.policy().get_distribution(
            batch["observation"], action_masks=seen["action_mask"][None]
        )
    # torch's Categorical keeps normalised logits (log-probabilities): compare those
    torch.testing.assert_close(torch.log_softmax(rllib_logits, -1), sb3.distribution.logits)
    assert seen["action_mask"][int(rllib_logits.argmax())] == 1


def test_the_env_pays_each_agent_its_seats_rewards_since_its_previous_turn() -> None:
    """Only the agent on move is shown its seat's observation; each agent's rewards add up to
    its seat's coin shaping and final reward, whoever moved in between (scripted seats
    included)."""
    from camelup_env.game.rewards import win_shares
    from camelup_env.game.rules import RuleSet
    from camelup_env.observation import Observer
    from training.policy.opponent_focus import OpponentFocus
    from training.policy.rllib_trainer import SelfPlayMultiAgentEnv, module_for

    rules = RuleSet("classic", num_players=4)
    plain = {"odds_features": False, "race_samples": 8, "action_values": False}
    env = SelfPlayMultiAgentEnv(
        {
            "rules": rules.to_dict(),
            "observer": plain,
            "coin_shaping": 0.1,
            "opponent_mix": {"self": 0.5, "random": 0.25, "greedy": 0.25},
            "opponent_focus": 2.0,
            "seed": 1,
        }
    )
    observer = Observer(rules, **plain)
    rng = np.random.default_rng(0)
    drawn = set()
    focus = OpponentFocus({"self": 0.5, "random": 0.25, "greedy": 0.25}, 4, 2.0)
    for episode in range(4):
        obs, _ = env.reset(seed=episode)
        entries = list(env._entries)  # this game's draws from the mix
        start = env.state.coins
        seat_of = {a: s for s, a in env.agent_at.items()}
        drawn.add(len(seat_of))
        totals = dict.fromkeys(env.agents, 0.0)
        done = False
        while not done:
            ((agent, seen),) = obs.items()
            assert seat_of[agent] == env.state.current and seen["action_mask"].any()
            np.testing.assert_array_equal(
                seen["observation"], observer.observe(env.state, seat_of[agent])
            )
            action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
            obs, rewards, ends, cuts, _ = env.step({agent: action})
            for a, r in rewards.items():
                totals[a] += r
            done = ends["__all__"] or cuts["__all__"]
        coins = env.state.coins
        expected = final_rewards(coins, "win")
        assert totals == pytest.approx(
            {
                a: expected[seat_of[a]] + 0.1 * (coins[seat_of[a]] - start[seat_of[a]])
                for a in totals
            }
        )
        assert {module_for(a) for a in totals} <= {"learner", "frozen"}
        assert module_for("learner") == "learner"
        focus.record(entries, float(win_shares(np.array([coins]))[0, seat_of["learner"]]))
    assert len(drawn) > 1  # some games had frozen seats, some more than others
    # each game was credited to its draws with the learner's share (opponent_focus)
    np.testing.assert_allclose(env.focus.share, focus.share)
    np.testing.assert_allclose(env.focus.weights(), focus.weights())


def test_the_checkpoint_plays_a_tournament_game(run: Path, tmp_path: Path) -> None:
    spec = f"rllib:{run / 'checkpoints' / 'iter_000002'}"
    cfg = tournament_config(
        None,
        {
            "agents": [spec, "random"],
            "players": 2,
            "games": 2,
            "workers": 1,
            "load_timeout": 120.0,
            "name": "rllib",
        },
    )
    summary = run_tournament(cfg, tmp_path / "t", progress=False)
    records = [
        json.loads(line) for line in (tmp_path / "t" / "games.jsonl").read_text().splitlines()
    ]
    assert len(records) == 2 and all(r.get("forfeit") is None for r in records), records
    assert summary is not None


def test_the_run_folder_names_its_newest_checkpoint(run: Path) -> None:
    assert agents.rllib.policy_file(run) == run / "checkpoints/iter_000002/camelup_policy.zip"


def test_the_frozen_opponent_is_a_copy_of_the_learner(run: Path) -> None:
    """snapshot_every 1: the checkpoint after iteration 2 holds equal weights in both modules
    (read with pickle here: these are the test's own files)."""
    modules = run / "checkpoints/iter_000002/learner_group/learner/rl_module"
    learner, frozen = (
        pickle.loads((modules / m / "module_state.pkl").read_bytes()) for m in ("learner", "frozen")
    )
    assert learner.keys() == frozen.keys()
    for key in learner:
        np.testing.assert_array_equal(np.asarray(learner[key]), np.asarray(frozen[key]))


def test_resume_continues_the_run(run: Path, tmp_path: Path, capsys) -> None:
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    assert train(copy, "--iterations", "3", "--resume") == 0
    trained = [
        line for line in capsys.readouterr().out.splitlines() if line.startswith("iteration ")
    ]
    assert [line.split(":")[0] for line in trained] == ["iteration 3/3"]  # not 1 and 2 again
    progress = json.loads((copy / "progress.json").read_text())
    assert progress["iteration"] == 3
    assert agents.ppo.read_metadata(copy / "model.zip")["trained_iterations"] == 3


def test_config_errors_are_one_line_and_exit_2(run: Path, tmp_path: Path, capsys) -> None:
    cases = [
        (["--iterations", "0"], "iterations must be positive"),
        (["--minibatch-size", "500"], "minibatch_size (500) must be at most"),
        (["--opponent-mix", "{nobody: 1}"], "unknown agent 'nobody'"),
        (["--iterations", "5", "--resume"], "nothing to resume"),
        (
            ["--iterations", "5", "--resume", "--out-dir", str(run), "--gamma", "0.5"],
            "different config",
        ),
        (["--iterations", "5", "--out-dir", str(run)], "already holds a run"),
    ]
    for extra, why in cases:
        assert train(tmp_path / "fresh", *extra) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and why in err[0], err
    assert not (tmp_path / "fresh").exists()  # nothing written before the checks


def _payload(marker: Path) -> bytes:
    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    return pickle.dumps(Payload())


def test_loading_runs_nothing_from_the_checkpoints_pickles(run: Path, tmp_path: Path) -> None:
    crafted = tmp_path / "crafted"
    shutil.copytree(run / "checkpoints" / "iter_000002", crafted)
    marker = tmp_path / "payload-ran"
    pickles = list(crafted.rglob("*.pkl"))
    assert len(pickles) >= 4  # RLlib's class_and_ctor_args.pkl and state files
    for path in pickles:
        path.write_bytes(_payload(marker))
    agent = agents.make(f"rllib:{crafted}")
    from camelup_env import camelup_v1

    env = camelup_v1.env(num_players=2, odds_features=False, action_values=False)
    env.reset(seed=0)
    from camelup_env.observation import public_view

    observation = env.observe(env.agent_selection)
    action = agent(observation, public_view(env.unwrapped.state, env.unwrapped.state.current))
    assert observation["action_mask"][action] == 1
    assert not marker.exists()
    pickle.loads(pickles[0].read_bytes())  # the payload is live: unpickling runs it
    assert marker.exists()


def test_unusable_checkpoints_are_one_line_errors(run: Path, tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="not a folder"):
        agents.make(f"rllib:{tmp_path / 'missing'}")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelFileError, match=r"holds no camelup_policy\.zip"):
        agents.make(f"rllib:{tmp_path / 'empty'}")
    broken = tmp_path / "broken"
    shutil.copytree(run / "checkpoints" / "iter_000002", broken)
    (broken / "camelup_policy.zip").write_bytes(b"not a zip")
    with pytest.raises(ModelFileError, match="corrupt"):
        agents.make(f"rllib:{broken}")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "camelup_cli",
            "tournament",
            "--agents",
            f"random,rllib:{tmp_path / 'empty'}",
            "--players",
            "2",
            "--games",
            "2",
            "--out",
            str(tmp_path / "t"),
            "--no-progress",
        ],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "holds no camelup_policy.zip" in lines[0], lines


def test_an_unreachable_cluster_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """In a fresh process (the module's local Ray would be reused in this one)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "camelup_cli",
            "train",
            "--trainer",
            "rllib",
            *TINY,
            "--address",
            "127.0.0.1:9",
            "--out-dir",
            str(tmp_path / "run"),
        ],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach the Ray cluster at '127.0.0.1:9'" in lines[0], lines
    assert not (tmp_path / "run").exists()
