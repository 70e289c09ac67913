"""The standing copy (training.afterstate.standing_copy): its labels are the standing player's
comparison, its choice score counts what a choice gives up, and a run labels, fits, resumes and
fits another run's labels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from engine_positions import random_positions

import agents
from agents.afterstate import AfterstateAgent, StandingValue
from agents.afterstate_network import load_afterstate_network
from camelup_config import ConfigError
from camelup_env.batch.afterstate_features import AfterstateFeatures
from camelup_env.game.rules import RuleSet
from camelup_env.match import play_game
from camelup_env.observation import public_view
from training.afterstate.standing_copy import (
    Rows,
    StandingCopyConfig,
    choice_quality,
    label_position,
    shard_path,
    train,
)


def tiny(out: Path, **changes: object) -> StandingCopyConfig:
    settings: dict[str, object] = {
        "out_dir": str(out),
        "num_players": 2,
        "label_games": 2,
        "shard_games": 1,
        "workers": 1,
        "deals": 2,
        "hidden": [8],
        "epochs": 1,
        "holdout_every": 2,
        "threads": 1,
    }
    settings.update(changes)
    return StandingCopyConfig(**settings)  # type: ignore[arg-type]


def test_a_positions_labels_are_the_standing_players_chances() -> None:
    """Each action's labels, weighed by their outcomes' chances, are the mover's chance the
    standing player gives that action (same seed: same deals); a label read in seat order
    instead of the mover's relative order would fail it for a mover in seat 1."""
    rules = RuleSet("classic", num_players=4)
    s = next(p for p in random_positions(rules, 20, seed=11) if p.current != 0 and p.winner_pile)
    view = public_view(s, s.current)
    cfg = StandingCopyConfig(num_players=4)
    features = AfterstateFeatures(s.rules, cfg.observer, cfg.leg_equity, cfg.race_equity)
    rows = label_position(AfterstateAgent(StandingValue(), seed=3), features, view)
    q = AfterstateAgent(StandingValue(), seed=3).action_chances(view)[:, s.current]
    labelled = np.zeros(len(q))
    np.add.at(labelled, rows["action"], rows["target"][:, 0] * rows["probability"])
    legal = np.isfinite(q)
    assert set(np.flatnonzero(legal)) == set(rows["action"].tolist())
    np.testing.assert_allclose(labelled[legal], q[legal], atol=1e-5)
    assert rows["features"].shape == (len(rows["action"]), features.size)


def test_the_choice_score_counts_what_a_choice_gives_up() -> None:
    # two positions: actions 0 and 1 (action 1 a roll with two outcomes), then actions 0 and 2
    target = np.array([[0.5, 0.5], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7], [0.35, 0.65]])
    rows = Rows(
        features=np.zeros((5, 1), np.float32),
        target=target.astype(np.float32),
        position=np.array([0, 0, 0, 1, 1]),
        action=np.array([0, 1, 1, 0, 2], np.int16),
        probability=np.array([1.0, 0.5, 0.5, 1.0, 1.0], np.float32),
        ended=np.zeros(5, bool),
    )
    assert choice_quality(rows, target, 3) == pytest.approx((1.0, 0.0))
    # the first position's best is action 0 (0.5 against 0.4); choosing 1 gives up 0.1
    wrong = target.copy()
    wrong[1, 0] = 0.9
    agree, regret = choice_quality(rows, wrong, 3)
    assert agree == 0.5 and regret == pytest.approx(5.0)  # 10 points in one of two positions
    # a race-ending row is taken at its label, whatever the network says of it
    rows.ended[1] = True
    assert choice_quality(rows, wrong, 3) == pytest.approx((1.0, 0.0), abs=1e-6)


def test_a_run_labels_fits_resumes_and_fits_another_runs_labels(tmp_path: Path) -> None:
    cfg = tiny(tmp_path / "run")
    path = train(cfg)
    network = load_afterstate_network(path)
    assert network.training["trainer"] == "standing-copy"
    fit_log = (tmp_path / "run" / "fit.csv").read_text().splitlines()
    assert len(fit_log) == 1 + cfg.epochs + 1  # header, the start, each epoch
    # the file plays by spec
    player = agents.make(f"afterstate:{path}")
    result = play_game(RuleSet("classic", num_players=2), [player, agents.make("random")], 5)
    assert result.forfeit is None

    # a lost shard is labelled again on --resume, alike (the labels are seeded); the others kept
    labels = cfg.labels
    kept, lost = shard_path(labels, 0), shard_path(labels, 1)
    before, kept_time = np.load(lost)["target"], kept.stat().st_mtime_ns
    lost.unlink()
    train(cfg, resume=True)
    np.testing.assert_array_equal(np.load(lost)["target"], before)
    assert kept.stat().st_mtime_ns == kept_time

    # another fit of the same labels; labels made otherwise are refused by name
    again = tiny(tmp_path / "again", labels_from=str(tmp_path / "run"), spread_weight=0.0)
    assert load_afterstate_network(train(again)).players == 2
    assert not (tmp_path / "again" / "labels").exists()
    other = tiny(tmp_path / "other", labels_from=str(tmp_path / "run"), deals=4)
    with pytest.raises(ConfigError, match="deals"):
        train(other)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"play_by": "nobody"}, "nobody"),
        ({"preset": "persian_tutorial", "num_players": 4}, "batch core"),
        ({"holdout_every": 1}, "holdout_every"),
        ({"race_equity": True, "leg_equity": False}, "leg_equity"),
    ],
)
def test_bad_settings_are_refused_in_one_line(
    tmp_path: Path, changes: dict[str, object], message: str
) -> None:
    with pytest.raises((ConfigError, ValueError), match=message):
        train(tiny(tmp_path / "bad", **changes))
    assert not (tmp_path / "bad").exists()


def test_a_stopped_run_ends_its_workers_and_keeps_its_shards(tmp_path: Path) -> None:
    """``kill`` (SIGTERM) on a background run ends it and its labelling workers within
    seconds (not after the shards still queued), exit code 130; the finished shards stay and
    the progress record says what was done."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "run"
    job = subprocess.Popen(
        [
            *(sys.executable, "-m", "camelup_cli", "train", "--trainer", "standing-copy"),
            *("--out-dir", str(out), "--num-players", "2", "--label-games", "400"),
            *("--shard-games", "1", "--workers", "2", "--deals", "2"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        deadline = time.time() + 120
        while not shard_path(out / "labels", 0).exists() and time.time() < deadline:
            time.sleep(0.2)
        assert job.poll() is None, job.stderr.read() if job.stderr else ""
        job.send_signal(signal.SIGTERM)
        stopped = time.time()
        said, err = job.communicate(timeout=60)
        took = time.time() - stopped
    finally:
        job.kill()
    assert job.returncode == 130, err
    assert took < 20  # 398 queued shards would take minutes
    assert "--resume" in said + err
    shards = sorted((out / "labels").glob("shard_*.npz"))
    assert shards and all(np.load(p)["target"].shape[1] == 2 for p in shards)
    assert not list((out / "labels").glob("*.tmp"))
