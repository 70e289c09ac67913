"""camelup iterate: the policy fitted to a teacher's moves on the positions the policy reaches."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from camelup_cli.main import main

CONFIG = """\
name: iterate_test
preset: classic
num_players: 3
odds_features: false
action_values: true
race_samples: 8
net_arch: [32]
reward_mode: win
coin_shaping: 0.0
gamma: 1.0
opponent_mix: {self: 0.5, random: 0.5}
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> dict:
    """A student that copies random play, then two rounds with greedy as the teacher."""
    tmp = tmp_path_factory.mktemp("iterate")
    config = tmp / "config.yaml"
    config.write_text(CONFIG)
    assert (
        main(
            [
                "distill",
                str(config),
                "--teacher",
                "random",
                "--games",
                "4",
                "--holdout",
                "1",
                "--epochs",
                "1",
                "--out",
                str(tmp / "student"),
            ]
        )
        == 0
    )
    out = tmp / "run"
    argv = [
        "iterate",
        str(config),
        "--teacher",
        "greedy",
        "--student",
        str(tmp / "student" / "model.zip"),
        "--games",
        "30",
        "--envs",
        "8",
        "--epochs",
        "20",
        "--batch-size",
        "64",
        "--lr",
        "1e-3",
        "--out",
        str(out),
    ]
    assert main([*argv, "--rounds", "2"]) == 0
    first = json.loads((out / "progress.json").read_text())
    return {"config": config, "out": out, "argv": argv, "first": first}


def test_rounds_move_the_policy_towards_its_teacher(run) -> None:
    rounds = run["first"]["rounds"]
    assert [r["round"] for r in rounds] == [0, 1]
    # Greedy plays the best entry of the action_values slice; a copy of random play does not,
    # and one round of greedy's labels on the student's own positions teaches it to.
    assert rounds[1]["agreement"] > rounds[0]["agreement"] + 0.1
    # Round 1 is fitted to both rounds' decisions (the aggregated data set).
    assert rounds[1]["samples"] == rounds[0]["decisions"] + rounds[1]["decisions"]
    assert (run["out"] / "round_1" / "model.zip").exists()


def test_the_data_holds_the_teachers_moves_and_the_returns(run) -> None:
    data = np.load(run["out"] / "data" / "round_0.npz")
    n = run["first"]["rounds"][0]["decisions"]
    assert len(data["actions"]) == len(data["returns"]) == len(data["obs"]) == n
    assert data["masks"][np.arange(n), data["actions"]].all()  # the teacher's moves are legal
    # Win reward, no shaping, no discount: each return is the episode's final reward, one of
    # the win/lose values of camelup_v1 (winners share +1, the others share -1).
    assert np.all(np.abs(data["returns"]) <= 1.0) and np.any(data["returns"] > 0)
    assert np.any(data["returns"] < 0)


def test_resume_continues_from_the_last_round(run, capsys) -> None:
    argv = [*run["argv"], "--rounds", "3"]
    assert main(argv) == 2  # the run exists: refused without --resume
    assert "--resume" in capsys.readouterr().err
    assert main([*argv, "--resume"]) == 0
    rounds = json.loads((run["out"] / "progress.json").read_text())["rounds"]
    assert rounds[:2] == run["first"]["rounds"]
    assert rounds[2]["round"] == 2 and (run["out"] / "round_2" / "model.zip").exists()


def test_bad_input_is_refused_before_playing(run, tmp_path, capsys) -> None:
    base = ["iterate", str(run["config"]), "--out", str(tmp_path / "x")]
    student = str(run["out"] / "round_0" / "model.zip")
    assert main([*base, "--teacher", "nobody", "--student", student]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err
    assert main([*base, "--teacher", "greedy", "--student", student, "--games", "0"]) == 2
    assert "--games must be positive" in capsys.readouterr().err
    assert main([*base, "--teacher", "greedy", "--student", str(tmp_path / "none.zip")]) == 2
    assert "--student" in capsys.readouterr().err
    assert main([*base, "--teacher", "greedy", "--student", student, "--resume"]) == 2
    assert "holds no run" in capsys.readouterr().err


def test_the_teacher_can_be_the_rounds_own_policy(run, tmp_path) -> None:
    """``{student}`` in the teacher's spec is each round's policy file: with ``ppo:{student}``
    the teacher is the policy itself, so it agrees with the policy everywhere, round after
    round, and each round names the file it was."""
    argv = list(run["argv"])
    argv[argv.index("--teacher") + 1] = "ppo:{student}"
    argv[argv.index("--out") + 1] = str(tmp_path / "self")
    argv[argv.index("--games") + 1] = "6"
    assert main([*argv, "--rounds", "2"]) == 0
    rounds = json.loads((tmp_path / "self" / "progress.json").read_text())["rounds"]
    student = argv[argv.index("--student") + 1]
    assert rounds[0]["teacher"] == f"ppo:{student}"
    assert rounds[1]["teacher"] == f"ppo:{rounds[0]['model']}"
    assert all(r["agreement"] == 1.0 for r in rounds)
    # every round's file, like the distilled start, records the reward its value head was
    # fitted to, so search: can score with it (it refuses a file without)
    import agents

    for path in (student, rounds[1]["model"]):
        assert agents.make(f"search:{path}").episode.reward_mode == "win"
