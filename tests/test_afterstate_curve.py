"""``camelup curve`` (training/afterstate/curve.py): every snapshot of a real tiny run played,
luck-adjusted, into one table and a picture; a point is played once; a stopped curve resumes
mid-snapshot; bad input is one line."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from camelup_cli.main import main as camelup
from training.afterstate.trainer import AfterstateConfig, train


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny classic 4p run with snapshots at 0, 6 and 12 games."""
    out = tmp_path_factory.mktemp("curve") / "run"
    train(
        AfterstateConfig(
            out_dir=str(out),
            total_games=12,
            games=8,
            hidden=[16],
            batch_size=64,
            replay_size=2_000,
            snapshot_every=6,
            checkpoint_every=6,
        )
    )
    return out


def table(run: Path) -> list[dict[str, str]]:
    with open(run / "curve.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_every_snapshot_is_a_luck_adjusted_point_played_once(
    run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert camelup(["curve", str(run), "--opponents", "random", "--games", "4", "--seed", "3"]) == 0
    rows = table(run)
    assert [(r["snapshot_games"], r["opponent"], r["games"]) for r in rows] == [
        ("0", "random", "4"),
        ("6", "random", "4"),
        ("12", "random", "4"),
    ]
    for r in rows:
        assert 0.0 <= float(r["win_share"]) <= 1.0
        assert r["adjusted"] != "nan"  # the referee replayed each game with the win model
        assert (run / "curve" / f"value_{r['snapshot_games']}" / "games.csv").exists()
    assert (run / "curve.png").stat().st_size > 0
    capsys.readouterr()
    assert camelup(["curve", str(run), "--opponents", "random", "--games", "4", "--seed", "3"]) == 0
    assert "0 new points" in capsys.readouterr().out
    assert table(run) == rows


def test_every_keeps_the_start_and_the_multiples(run: Path) -> None:
    from training.afterstate.curve import snapshots

    assert [g for g, _ in snapshots(run, every=12)] == [0, 12]
    assert [g for g, _ in snapshots(run)] == [0, 6, 12]


def test_a_stopped_curve_resumes_mid_snapshot(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tournament.eval_progress import EvalProgress

    copy = tmp_path / "copy"
    (copy / "snapshots").mkdir(parents=True)
    (copy / "snapshots" / "value_0.npz").write_bytes((run / "snapshots/value_0.npz").read_bytes())
    save = EvalProgress.save
    played: list[int] = []

    def stop_after_two(self: EvalProgress, opponent: str, row) -> None:  # Ctrl-C mid-way
        save(self, opponent, row)
        played.append(row.game)
        if len(played) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(EvalProgress, "save", stop_after_two)
    args = ["curve", str(copy), "--opponents", "random", "--games", "4", "--seed", "3"]
    assert camelup(args) == 130
    assert not (copy / "curve.csv").exists()
    assert (copy / "curve" / "value_0" / "evaluation.progress.jsonl").exists()
    assert camelup(args) == 0
    assert sorted(played) == [0, 1, 2, 3]  # the two saved games were not played again
    assert [r["games"] for r in table(copy)] == ["4"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--every", "0"], "--every must be >= 1"),
        (["--workers", "0"], "--workers must be between 1"),
    ],
)
def test_bad_input_is_one_line(
    run: Path, extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert camelup(["curve", str(run), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_folder_without_snapshots_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert camelup(["curve", str(tmp_path)]) == 2
    assert "holds no snapshots/value_<games>.npz" in capsys.readouterr().err
