"""``camelup play`` driven end to end by a scripted stdin."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def play(stdin: str, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "camelup_cli", "play", "--no-color", *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        cmd, input=stdin, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120
    )


def test_a_whole_game_from_a_script() -> None:
    # bad input first (re-prompted), then help, board and odds, then always move 6: the
    # pyramid tile, which keeps its number (action index 5 + 1) every turn
    script = "x\n0\n999\nh\nb\no\n" + "6\n" * 400
    done = play(script, "--seed", "4", "--opponents", "greedy,random", "--seat", "1")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "'x' is not a move" in out and "'999' is not a move" in out
    assert "Type the number of a move" in out  # help
    assert "leg odds:" in out and "P(1st)" in out
    assert "Your move, player 1" in out and "1. take the top" in out
    assert "player 0 (greedy)" in out and "player 2 (random)" in out  # who did what
    assert "the blue die shows" in out or "die shows" in out
    assert "leg 1 scored" in out and "overall-winner pile" in out
    assert "Final scoreboard" in out and "winner" in out
    assert "Traceback" not in out + done.stderr
    # every listing numbers the same move the same way
    listings = out.split("Legal moves:")[1:]
    assert len(listings) > 3
    assert all("  6. take a pyramid tile and roll a die" in listing for listing in listings)
    assert " a oasis" not in out and " a orange" not in out


def test_quit_and_end_of_input_leave_cleanly() -> None:
    for script in ("q\n", ""):
        done = play(script, "--seed", "1", "--opponents", "random")
        assert done.returncode == 0, done.stderr
        assert "You left the game" in done.stdout and "Traceback" not in done.stderr


def test_bad_arguments_are_reported() -> None:
    done = play("", "--opponents", "random,nobody")
    assert done.returncode == 2 and "unknown agent 'nobody'" in done.stderr
    done = play("", "--opponents", "random", "--seat", "5")
    assert done.returncode == 2 and "--seat" in done.stderr
