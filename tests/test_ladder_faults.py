"""The ladder under faults: ``kill -9`` of ``ladder run`` at random moments, two runners on one
ladder, and bots that crash, hang or write garbage. After each, every stored game is stored
once with its record, every deal is whole, the totals agree with the games, and SQLite's
``PRAGMA integrity_check`` passes.

The kill test runs ``CAMELUP_LADDER_KILLS`` kills (2 by default, so CI stays short; the
performance page gives the command of the run with 20).
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from camelup_cli.main import main
from tournament.ladder.results import Place
from tournament.ladder.runner import run_ladder
from tournament.ladder.segments import read_record
from tournament.ladder.store import Ladder
from tournament.records import read_games

ROOT = Path(__file__).resolve().parents[1]
KILLS = int(os.environ.get("CAMELUP_LADDER_KILLS", "2"))

#: A bot that starts properly and then answers every move with a line that is not JSON.
GARBAGE_BOT = """
import json, sys
for line in sys.stdin:
    kind = json.loads(line).get("type")
    if kind == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif kind == "move":
        print("#!@ not a move", flush=True)
    elif kind == "quit":
        break
"""


def ladder_cli(*args: object) -> int:
    return main(["ladder", *map(str, args)])


def make_ladder(folder: Path, *bots: tuple[str, str], **settings: object) -> None:
    flags: list[object] = []
    for key, value in settings.items():
        flags += [f"--{key.replace('_', '-')}", value]
    assert ladder_cli("init", folder, "--players", 2, *flags) == 0
    ladder = Ladder.open(folder)  # the command's start-up check of each bot is tested elsewhere
    for name, spec in bots:
        ladder.add(name, spec)
    ladder.close()


def runner(folder: Path, games: int) -> subprocess.Popen:
    """``camelup ladder run`` as a process of its own, printing each stored game."""
    command = [sys.executable, "-m", "camelup_cli.main", "ladder", "run", str(folder)]
    command += ["--games", str(games), "--workers", "2", "--verbose"]
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def reported(output: bytes) -> list[int]:
    return [
        int(line.split()[1]) for line in output.decode().splitlines() if line.startswith("stored ")
    ]


def stored_count(folder: Path) -> int:
    with sqlite3.connect(folder / "ladder.db") as db:
        return db.execute("select count(*) from games where status = 'done'").fetchone()[0]


def check_ladder(folder: Path) -> int:
    """Every invariant of a ladder at rest (module docstring); the stored games' count."""
    ladder = Ladder.open(folder)
    labels = {e.id: e.label for e in ladder.entries()}
    with sqlite3.connect(folder / "ladder.db") as db:
        assert db.execute("pragma integrity_check").fetchone()[0] == "ok"
        assert db.execute("select count(*) from games where status != 'done'").fetchone()[0] == 0
        games = db.execute("select id, deal, seats, segment, offset, length from games").fetchall()
        seats = db.execute("select game_id, seat, entry_id, rank from seats").fetchall()
        met = db.execute("select coalesce(sum(met), 0) from pairs").fetchone()[0]
        per_deal = db.execute("select count(*) from games group by deal").fetchall()
    assert {n for (n,) in per_deal} <= {2}  # every deal whole: both rotations
    assert len(seats) == 2 * len(games) and met == 2 * len(games)
    assert sum(e.games for e in ladder.entries()) == 2 * len(games)
    ranks = {(g, s): r for g, s, _, r in seats}
    for game, _, seat_ids, segment, offset, length in games:
        record = read_record(folder, Place(segment, offset, length))
        assert record["game"] == game
        assert record["agents"] == [labels[i] for i in json.loads(seat_ids)]
        assert record["ranks"] == [ranks[game, s] for s in range(2)]
    ladder.close()
    return len(games)


def test_kill_9_at_random_moments_loses_nothing_stored_and_doubles_nothing(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "l"
    make_ladder(folder, ("r1", "random"), ("r2", "random"), ("h", "heuristic"))
    rng = random.Random(KILLS)
    target = 30 + 20 * KILLS
    stored: list[int] = []
    for _ in range(KILLS):
        before = stored_count(folder)
        process = runner(folder, target)
        deadline = time.monotonic() + 120
        while stored_count(folder) == before and time.monotonic() < deadline:
            time.sleep(0.05)  # the runner is up and storing games: a kill now hits the play
        time.sleep(rng.uniform(0.0, 2.0))
        process.send_signal(signal.SIGKILL)
        out, _ = process.communicate()
        stored += reported(out)
    process = runner(folder, target)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err.decode()[-500:]
    stored += reported(out)
    assert len(stored) == len(set(stored)), "a game was reported stored twice"
    held = check_ladder(folder)
    # every game a runner reported stored is there (a kill between a commit and its report
    # may leave one stored unreported, never the other way round)
    assert held == target and set(stored) <= set(range(1, target + 1))
    lines = sum(len(read_games(p / "games.jsonl")) for p in (folder / "games").iterdir())
    print(
        f"\n{KILLS} kills: {held} games stored once each, {len(stored)} reported by a runner; "
        f"{lines - held} records written by a killed runner but not stored (played again)"
    )


def test_two_runners_share_the_work_and_play_no_game_twice(tmp_path: Path) -> None:
    folder = tmp_path / "l"
    make_ladder(folder, ("r1", "random"), ("r2", "random"), ("h", "heuristic"))
    first, second = runner(folder, 30), runner(folder, 30)
    outs = [p.communicate(timeout=300) for p in (first, second)]
    assert first.returncode == second.returncode == 0, [e.decode()[-300:] for _, e in outs]
    mine, theirs = (reported(out) for out, _ in outs)
    assert not set(mine) & set(theirs)
    assert check_ladder(folder) == len(mine) + len(theirs) == 30


def test_crashing_hanging_and_garbage_bots_forfeit_and_are_suspended(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.py"
    garbage.write_text(GARBAGE_BOT)
    folder = tmp_path / "l"
    make_ladder(
        folder,
        ("r1", "random"),
        ("h", "heuristic"),
        ("crash", "py:tests.faulty_bots:CrashingBot"),
        ("hang", "py:tests.faulty_bots:SleepyBot"),
        ("junk", f"cmd:{sys.executable} {garbage}"),
        move_timeout=1,
        suspend_after=2,
        newcomer_games=2,
    )
    said: list[str] = []
    run_ladder(folder, workers=2, games=30, say=said.append)
    assert check_ladder(folder) == 30
    ladder = Ladder.open(folder)
    why = {e.name: e.suspended_reason for e in ladder.entries()}
    assert why["r1"] is None and why["h"] is None
    assert "crashed" in (why["crash"] or "")
    assert "timeout" in (why["hang"] or "")
    assert "protocol" in (why["junk"] or "")
    assert all(e.forfeits >= 2 for e in ladder.entries() if e.name in ("crash", "hang", "junk"))
    assert sum(1 for line in said if "is suspended" in line) == 3
    with sqlite3.connect(folder / "ladder.db") as db:
        forfeits = db.execute("select count(*) from games where forfeit_reason is not null")
        assert forfeits.fetchone()[0] == sum(e.forfeits for e in ladder.entries())
    ladder.close()
