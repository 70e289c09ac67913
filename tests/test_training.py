"""Self-play PPO training: a short run saves, reloads, resumes, and its agent plays legally."""

from __future__ import annotations

import csv
import json
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import agents
from agents.ppo import ModelFileError, load_agent
from camelup_config import ConfigError, load_config
from camelup_env.game.rules import RuleSet
from camelup_env.match import play_game
from tournament.ratings import share_interval
from training.policy.sb3_trainer import TrainConfig, train


def tiny(out: Path, **kw) -> TrainConfig:
    base = TrainConfig(
        name="test",
        preset="classic",
        num_players=2,
        odds_features=False,
        total_timesteps=256,
        n_envs=1,
        n_steps=64,
        batch_size=64,
        n_epochs=1,
        net_arch=[32],
        opponent_mix={"self": 0.5, "random": 0.5},
        snapshot_every=128,
        eval_every=256,
        eval_games=4,
        eval_opponents=["random"],
        checkpoint_every=128,
        out_dir=str(out),
    )
    return replace(base, **kw)


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> tuple[TrainConfig, Path]:
    out = tmp_path_factory.mktemp("run")
    cfg = tiny(out)
    return cfg, train(cfg)


def test_short_run_writes_model_snapshots_eval_and_checkpoint(trained) -> None:
    cfg, model_path = trained
    out = Path(cfg.out_dir)
    assert model_path == out / "model.zip" and model_path.exists()
    assert len(list((out / "snapshots").glob("*.zip"))) >= 2
    rows = (out / "eval.csv").read_text().splitlines()
    assert rows[0].startswith("timesteps,") and len(rows) >= 2
    assert (out / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"
    progress = json.loads((out / "progress.json").read_text())
    assert progress["timesteps"] >= cfg.total_timesteps
    meta = json.loads(zipfile.ZipFile(model_path).read("camelup.json"))
    assert meta["rules"] == {"preset": "classic", "num_players": 2}


def test_a_model_file_plays_in_the_opponent_mix(trained, tmp_path) -> None:
    """A distilled bot (any ppo: model file of the run's game and observation) as an opponent."""
    _, model_path = trained
    cfg = tiny(tmp_path / "vs_file", opponent_mix={f"ppo:{model_path}": 1.0}, total_timesteps=128)
    assert (Path(cfg.out_dir) / "model.zip") == train(cfg)


def test_loaded_agent_plays_only_legal_moves(trained) -> None:
    _, model_path = trained
    agent = agents.make(f"ppo:{model_path}")
    rules = RuleSet("classic", num_players=2)
    for seed in range(3):
        lineup = [agent, agents.make("random")] if seed % 2 else [agents.make("random"), agent]
        result = play_game(rules, lineup, seed=seed, catch=False)  # an illegal move raises
        assert result.forfeit is None and not result.truncated


def test_resume_continues_from_the_checkpoint_and_says_so(trained, tmp_path, capsys) -> None:
    cfg, _ = trained
    # Copy the finished run, then ask for more steps: --resume picks up the checkpoint.
    import shutil

    out = tmp_path / "resumed"
    shutil.copytree(cfg.out_dir, out)
    # a run recorded before a setting existed resumes with that setting at its default
    record = json.loads((out / "progress.json").read_text())
    del record["config"]["opponent_focus"]
    (out / "progress.json").write_text(json.dumps(record))
    more = replace(cfg, out_dir=str(out), total_timesteps=cfg.total_timesteps + 128)
    path = train(more, resume=True)
    said = capsys.readouterr().out
    assert f"resuming the run in {out}/ from its last checkpoint: " in said
    assert f"of {more.total_timesteps:,} decisions" in said
    assert "evaluations (" in said and "win share" in said  # the final table
    meta = json.loads(zipfile.ZipFile(path).read("camelup.json"))
    assert meta["trained_steps"] >= more.total_timesteps
    assert json.loads((out / "progress.json").read_text())["timesteps"] >= more.total_timesteps


def test_games_split_over_worker_processes_train_and_take_snapshots(tmp_path) -> None:
    """env_workers=2: the games run in two shard processes; a snapshot reaches both pools."""
    cfg = tiny(
        tmp_path / "run",
        n_envs=2,
        env_workers=2,
        n_steps=32,
        total_timesteps=192,
        snapshot_every=64,
        eval_every=10**6,
    )
    path = train(cfg)
    progress = json.loads((tmp_path / "run" / "progress.json").read_text())
    assert progress["timesteps"] >= 192 and len(progress["snapshots"]) >= 2
    assert json.loads(zipfile.ZipFile(path).read("camelup.json"))["trained_steps"] >= 192


def test_resume_refuses_a_different_config_and_a_fresh_dir(trained, tmp_path) -> None:
    cfg, _ = trained
    with pytest.raises(ConfigError, match="learning_rate"):
        train(replace(cfg, learning_rate=0.1), resume=True)
    with pytest.raises(ConfigError, match="nothing to resume"):
        train(tiny(tmp_path / "empty"), resume=True)
    with pytest.raises(ConfigError, match="already holds a run"):
        train(cfg)


def test_init_from_fine_tunes_the_files_weights(trained, tmp_path) -> None:
    """init_from: the run starts from the file's weights (its first "self" opponent is the file)
    and counts its own decisions; a negligible learning rate leaves those weights in place."""
    import torch

    from agents.policy_file import read_policy_file

    cfg, model_path = trained
    out = tmp_path / "fine"
    fine = replace(
        cfg,
        out_dir=str(out),
        init_from=str(model_path),
        total_timesteps=128,
        learning_rate=1e-12,
        eval_every=10**6,
    )
    path = train(fine)
    start, end = read_policy_file(model_path), read_policy_file(path)
    progress = json.loads((out / "progress.json").read_text())
    assert progress["snapshots"][0] == str(model_path)
    assert progress["init_from"] == {
        "path": str(model_path),
        "trained_steps": start.meta["trained_steps"],
    }
    assert end.meta["trained_steps"] < 256
    assert all(torch.allclose(start.weights[k], end.weights[k], atol=1e-6) for k in start.weights)


def test_init_from_refuses_a_file_of_another_run_shape(trained, tmp_path) -> None:
    cfg, model_path = trained
    fine = {"out_dir": str(tmp_path / "fine"), "init_from": str(model_path)}
    with pytest.raises(ConfigError, match="init_from: model file not found"):
        replace(cfg, **{**fine, "init_from": str(tmp_path / "none.zip")})
    with pytest.raises(ConfigError, match="other net_arch"):
        replace(cfg, **fine, net_arch=[16])
    with pytest.raises(ConfigError, match="other rules"):
        replace(cfg, **fine, num_players=3)
    with pytest.raises(ConfigError, match="other observation"):
        replace(cfg, **fine, odds_features=True)
    with pytest.raises(ConfigError, match="exclude each other"):
        replace(cfg, **fine, imitation_games=5)


def test_corrupt_and_mismatched_model_files_get_clear_errors(trained, tmp_path) -> None:
    _, model_path = trained
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"not a zip at all")
    with pytest.raises(ModelFileError, match="corrupt"):
        load_agent(garbage)
    plain = tmp_path / "plain.zip"
    with zipfile.ZipFile(plain, "w") as z:
        z.writestr("data", "{}")
    with pytest.raises(ModelFileError, match="not a camelup model"):
        agents.make(f"ppo:{plain}")
    with pytest.raises(ModelFileError, match="not found"):
        agents.make(f"ppo:{tmp_path / 'missing.zip'}")
    agent = load_agent(model_path)
    four = RuleSet("classic", num_players=4)
    with pytest.raises(ModelFileError, match="trained for classic with 2 players"):
        play_game(four, [agent] * 4, seed=0, catch=False)
    # A truncated archive (a crash mid-copy) is refused, not half-loaded.
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(model_path.read_bytes()[: model_path.stat().st_size // 2])
    with pytest.raises(ModelFileError):
        load_agent(truncated)


def test_config_errors_name_the_problem(tmp_path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("preset: classic\nlerning_rate: 0.1\n")
    with pytest.raises(ConfigError, match="lerning_rate"):
        load_config(TrainConfig, bad, {})
    bad.write_text("n_steps: lots\n")
    with pytest.raises(ConfigError, match="n_steps must be int"):
        load_config(TrainConfig, bad, {})
    bad.write_text("num_players: 9\n")
    with pytest.raises(ConfigError, match="2 to 8 players"):
        load_config(TrainConfig, bad, {})
    with pytest.raises(ConfigError, match="not found"):
        load_config(TrainConfig, tmp_path / "nope.yaml", {})
    cfg = load_config(TrainConfig, None, {"total_timesteps": 10, "net_arch": [8, 8]})
    assert cfg.total_timesteps == 10 and cfg.net_arch == [8, 8]
    assert np.isclose(load_config(TrainConfig, None, {"learning_rate": 1}).learning_rate, 1.0)


def test_evaluate_command_writes_a_seat_rotated_report(trained, tmp_path, capsys) -> None:
    from camelup_cli.main import main

    _, model_path = trained
    assert (
        main(
            [
                "evaluate",
                f"ppo:{model_path}",
                "--opponents",
                "random",
                "--games",
                "6",
                "--workers",
                "1",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    assert "vs random" in capsys.readouterr().out
    report = (tmp_path / "evaluation.md").read_text()
    assert "| random | 6 |" in report and "Command: `camelup evaluate" in report
    rows = (tmp_path / "evaluation.csv").read_text().splitlines()
    assert rows[1].split(",")[3] == "2"  # num_players from the model's own metadata
    with open(tmp_path / "games.csv", newline="") as f:
        games = list(csv.DictReader(f))
    assert [int(g["game"]) for g in games] == list(range(6))
    assert [int(g["seat"]) for g in games] == [0, 1] * 3  # seats rotate
    assert [int(g["seed"]) for g in games] == [0, 0, 1, 1, 2, 2]  # a seed per rotation pair
    win_share, ci_low, ci_high = (float(x) for x in rows[1].split(",")[5:8])
    expected = share_interval([float(g["win_share"]) for g in games], [g["seed"] for g in games])
    # the interval is clustered by seed
    assert (win_share, ci_low, ci_high) == pytest.approx(expected)
    assert 0.0 <= ci_low <= win_share <= ci_high <= 1.0


def test_imitation_warm_start_fits_the_teacher(tmp_path) -> None:
    """The warm start records every teacher decision and fits the policy to it."""
    from sb3_contrib import MaskablePPO

    from camelup_env.envs.single_agent import SingleAgentEnv
    from camelup_env.observation import Observer
    from training.policy.imitation import collect_demonstrations, pretrain

    rules = RuleSet("classic", num_players=2)
    observer = Observer(rules, odds_features=False)
    data = collect_demonstrations(
        rules, observer, "heuristic", games=3, seed=0, reward_mode="win", coin_shaping=0.0
    )
    n = len(data["actions"])
    assert n > 30 and data["obs"].shape == (n, observer.size)
    assert data["masks"][np.arange(n), data["actions"]].all()  # the teacher moved legally
    assert set(np.round(data["returns"], 6)) <= {-1.0, 0.0, 1.0}  # win mode, 2 players
    model = MaskablePPO(
        "MlpPolicy",
        SingleAgentEnv(num_players=2, odds_features=False),
        policy_kwargs={"net_arch": [64]},
        device="cpu",
        seed=0,
    )
    before = pretrain(model, data, epochs=0, batch_size=64, seed=0)
    after = pretrain(model, data, epochs=120, batch_size=64, seed=0)
    majority = np.bincount(data["actions"]).max() / n  # what predicting the prior scores
    # Fitting a few games must go well past the prior: moves and masks are wired right.
    assert after["accuracy"] > max(majority + 0.2, 0.8) > before["accuracy"]
    assert after["value_mse"] < before["value_mse"]


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"opponent_mix": {"self": 0.5, "bogus": 0.5}}, "opponent_mix: .*bogus"),
        ({"eval_opponents": ["bogus"]}, "eval_opponents: .*bogus"),
        ({"eval_opponents": []}, "eval_opponents must name"),
        ({"imitation_games": 5, "imitation_teacher": "nobody"}, "imitation_teacher"),
        ({"reward_mode": "money"}, "reward_mode must be one of"),
        ({"device": "tpu"}, "device must be"),
        ({"net_arch": [64, 0]}, "net_arch"),
        ({"eval_games": 3, "num_players": 4}, "eval_games must be at least"),
        ({"n_envs": 0}, "n_envs must be positive"),
        ({"env_workers": 2}, r"env_workers must be in 0\.\.n_envs \(1\)"),
    ],
)
def test_every_config_value_is_checked_before_training(tmp_path, override, message) -> None:
    with pytest.raises(ConfigError, match=message):
        tiny(tmp_path / "run", **override)


def test_train_command_reports_config_errors_in_one_line(tmp_path, capsys) -> None:
    from camelup_cli.main import main

    out = tmp_path / "r"
    assert main(["train", "--eval-opponents", "[bogus]", "--out-dir", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("camelup train: error: ") and "eval_opponents: " in err
    assert "\n" not in err
    assert not out.exists()  # nothing was started


def test_eval_rows_are_never_written_twice(trained, tmp_path) -> None:
    import shutil

    from training.policy.sb3_trainer import BackgroundEvaluator

    cfg, _ = trained
    out = tmp_path / "copy"
    shutil.copytree(cfg.out_dir, out)
    rows = list(csv.DictReader((out / "eval.csv").read_text().splitlines()))
    evaluator = BackgroundEvaluator(cfg, out, {"evals_pending": []})
    evaluator._append([{**rows[0]}])  # a result that arrives again after a resume
    again = list(csv.DictReader((out / "eval.csv").read_text().splitlines()))
    assert again == rows
    keys = [(r["timesteps"], r["opponent"]) for r in again]
    assert len(keys) == len(set(keys))


def test_ctrl_c_saves_a_checkpoint_and_resumes(tmp_path, monkeypatch, capsys) -> None:
    from stable_baselines3.common.callbacks import BaseCallback

    cfg = tiny(tmp_path / "run", total_timesteps=10_000)
    original = BaseCallback.on_step

    def interrupt(self):
        if self.num_timesteps >= 128:
            raise KeyboardInterrupt
        return original(self)

    monkeypatch.setattr(BaseCallback, "on_step", interrupt)
    with pytest.raises(KeyboardInterrupt):
        train(cfg, command="camelup train tiny.yaml")
    assert "camelup train tiny.yaml --resume" in capsys.readouterr().err
    progress = json.loads((tmp_path / "run" / "progress.json").read_text())
    assert progress["timesteps"] >= 128
    monkeypatch.setattr(BaseCallback, "on_step", original)
    path = train(replace(cfg, total_timesteps=384), resume=True)
    assert json.loads(zipfile.ZipFile(path).read("camelup.json"))["trained_steps"] >= 384


def test_an_interrupt_inside_a_compiled_kernel_still_saves_a_checkpoint(
    tmp_path, monkeypatch, capsys
) -> None:
    """numba reports a KeyboardInterrupt raised during its dispatcher's callbacks as a
    SystemError caused by it; the run stops as on Ctrl-C (seen on a SIGTERM'd run)."""
    from stable_baselines3.common.callbacks import BaseCallback

    cfg = tiny(tmp_path / "run", total_timesteps=10_000)
    original = BaseCallback.on_step

    def interrupt_in_kernel(self):
        if self.num_timesteps >= 128:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as exc:
                raise SystemError("CPUDispatcher returned a result with an exception set") from exc
        return original(self)

    monkeypatch.setattr(BaseCallback, "on_step", interrupt_in_kernel)
    with pytest.raises(KeyboardInterrupt):
        train(cfg, command="camelup train tiny.yaml")
    assert "camelup train tiny.yaml --resume" in capsys.readouterr().err
    assert json.loads((tmp_path / "run" / "progress.json").read_text())["timesteps"] >= 128


def test_other_errors_are_not_taken_for_a_stop(tmp_path, monkeypatch) -> None:
    from stable_baselines3.common.callbacks import BaseCallback

    cfg = tiny(tmp_path / "run", total_timesteps=10_000)

    def broken(self):
        raise SystemError("a real error")

    monkeypatch.setattr(BaseCallback, "on_step", broken)
    with pytest.raises(SystemError, match="a real error"):
        train(cfg)


def test_a_background_run_stopped_by_kill_saves_a_checkpoint(tmp_path) -> None:
    """A run started as a shell's background job (SIGINT ignored) and stopped with ``kill``
    (SIGTERM) stops as Ctrl-C stops it: a checkpoint and the --resume command, exit code 130."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "run"
    config = tmp_path / "tiny.yaml"
    config.write_text(
        f"name: test\nnum_players: 2\nodds_features: false\nn_envs: 1\n"
        f"n_steps: 64\nbatch_size: 64\nn_epochs: 1\nnet_arch: [32]\n"
        f"opponent_mix: {{random: 1.0}}\nsnapshot_every: 64\neval_every: 1000000\n"
        f"eval_games: 4\neval_opponents: [random]\ncheckpoint_every: 64\n"
        f"total_timesteps: 100000000\nout_dir: {out}\n"
    )
    job = subprocess.Popen(
        [sys.executable, "-m", "camelup_cli", "train", str(config)],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        deadline = time.time() + 120
        while not (out / "checkpoints" / "latest.zip").exists() and time.time() < deadline:
            time.sleep(0.2)
        assert job.poll() is None, job.stderr.read()
        job.send_signal(signal.SIGTERM)
        _, err = job.communicate(timeout=60)
    finally:
        job.kill()
    assert job.returncode == 130, err
    assert "--resume" in err
    assert json.loads((out / "progress.json").read_text())["timesteps"] >= 64
