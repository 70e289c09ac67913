"""Tournaments on Ray (docs/distributed.md): the same games, records and ratings as the local
backend, resume after a cut, and the user errors of the backend."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tournament.config import tournament_config
from tournament.records import read_games
from tournament.run import run_tournament

ray = pytest.importorskip("ray", reason='Ray is the "distributed" extra')

ROOT = Path(__file__).resolve().parents[1]
LINE_BOT = f"cmd:{sys.executable} {ROOT / 'examples' / 'line_bot.py'}"


def config(**kw):
    base = {
        "agents": ["random", "heuristic", LINE_BOT],
        "players": 3,
        "games": 12,
        "move_timeout": 5.0,
        "load_timeout": 60.0,
        "name": "t",
        "workers": 2,
    }
    base.update(kw)
    return tournament_config(None, base)


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(
        num_cpus=2, object_store_memory=200 * 2**20, include_dashboard=False, log_to_driver=False
    )
    yield
    ray.shutdown()


def _strip(records: list[dict]) -> list[dict]:
    drop = {"seconds", "move_seconds"}  # timings: the only fields that may differ
    return sorted(
        ({k: v for k, v in r.items() if k not in drop} for r in records), key=lambda r: r["game"]
    )


def test_ray_plays_the_local_games_game_for_game_and_resumes(tmp_path: Path) -> None:
    local = run_tournament(config(), tmp_path / "local", progress=False)
    on_ray = run_tournament(config(backend="ray"), tmp_path / "ray", progress=False)
    a = read_games(tmp_path / "local" / "games.jsonl")
    b = read_games(tmp_path / "ray" / "games.jsonl")
    assert len(a) == len(b) == 12
    assert _strip(a) == _strip(b)
    assert local == on_ray
    assert (tmp_path / "local" / "summary.csv").read_text() == (
        tmp_path / "ray" / "summary.csv"
    ).read_text()
    # cut the Ray run's log to 5 games (as a kill would) and resume it on Ray
    games = tmp_path / "ray" / "games.jsonl"
    games.write_text("".join(games.read_text().splitlines(keepends=True)[:5]))
    resumed = run_tournament(config(backend="ray"), tmp_path / "ray", progress=False)
    assert resumed == local
    assert _strip(read_games(games)) == _strip(a)


def test_bad_backend_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="backend must be"):
        config(backend="spark")
    with pytest.raises(ValueError, match="address is for backend ray"):
        config(address="127.0.0.1:6379")


def test_an_unreachable_cluster_is_one_line_and_exit_2_before_any_game(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "camelup_cli",
            "tournament",
            "--agents",
            "random,heuristic",
            "--players",
            "2",
            "--games",
            "2",
            "--backend",
            "ray",
            "--address",
            "127.0.0.1:1",
            "--out",
            str(out),
            "--no-progress",
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach the Ray cluster at '127.0.0.1:1'" in lines[0]
    assert not (out / "games.jsonl").exists() or not (out / "games.jsonl").read_text()


def test_a_ladder_on_ray_stores_the_games_the_local_backend_plays(tmp_path: Path) -> None:
    """``camelup ladder run --backend ray``: the games are played by Ray's game workers and
    stored by the one process that owns the database, the same games as locally."""
    from tournament.ladder.runner import run_ladder
    from tournament.ladder.store import Ladder
    from tournament.ladder.table import export

    folders = {}
    for backend in ("local", "ray"):
        folder = folders[backend] = tmp_path / backend
        assert main_ladder("init", folder, "--players", 2) == 0
        ladder = Ladder.open(folder)
        for name, spec in [("ann", "random"), ("bob", "heuristic")]:
            ladder.add(name, spec)
        assert run_ladder(folder, workers=2, games=6, backend=backend) == 6
        export(ladder, folder / "export")
    a, b = (read_games(folders[k] / "export" / "games.jsonl") for k in ("local", "ray"))
    assert len(a) == len(b) == 6 and _strip(a) == _strip(b)


def main_ladder(*args: object) -> int:
    from camelup_cli.main import main

    return main(["ladder", *map(str, args)])
