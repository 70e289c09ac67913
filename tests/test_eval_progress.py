"""A stopped ``camelup evaluate --out`` resumes: every finished game saved as it ends, only the
missing ones played again, the reports those of an uninterrupted run (tournament.eval_progress).
"""

from __future__ import annotations

import csv
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from camelup_cli.main import main
from tournament.eval_progress import PROGRESS
from tournament.records import OutputLock

#: a quick evaluation through the referee: scripted bots, no luck replay
ARGS = ["greedy", "--opponents", "random", "--games", "12", "--players", "2", "--preset"]
ARGS += ["classic", "--workers", "1", "--no-luck", "--seed", "3"]


def evaluate(out: Path, capsys, *extra: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["evaluate", *ARGS, *extra, "--out", str(out)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    """The reference: the evaluation played without a stop."""
    out = tmp_path_factory.mktemp("whole")
    assert main(["evaluate", *ARGS, "--out", str(out)]) == 0
    return out


def progress_lines(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / PROGRESS).read_text().splitlines()]


def saved_progress(whole: Path, out: Path, games: int) -> list[str]:
    """A progress file as a run stopped after ``games`` games leaves it: the settings line,
    then those games (from the reference run's ``games.csv``)."""
    rows = list(csv.DictReader((whole / "games.csv").read_text().splitlines()))[:games]
    settings = {
        "candidate": "greedy",
        "candidate_kwargs": {},
        "rules": {"preset": "classic", "num_players": 2},
        "seed": 3,
        "luck": False,
        "referee": False,
    }
    lines = [json.dumps({"settings": settings})]
    for r in rows:
        game = {
            "opponent": r["opponent"],
            "game": int(r["game"]),
            "seed": int(r["seed"]),
            "seat": int(r["seat"]),
            "win_share": float(r["win_share"]),
            "coins": float(r["coins"]),
            "opponent_coins": float(r["opponent_coins"]),
            "forfeit": r["forfeit"] == "True",
            "win_share_adjusted": None,
        }
        lines.append(json.dumps(game))
    out.mkdir(parents=True, exist_ok=True)
    (out / PROGRESS).write_text("\n".join(lines) + "\n")
    return lines


def test_a_resumed_run_keeps_the_saved_games_and_plays_only_the_rest(whole, tmp_path, capsys):
    out = tmp_path / "resumed"
    lines = saved_progress(whole, out, 5)
    # mark the saved games: a run that replayed them instead of reading them would lose this
    marked = [json.loads(line) for line in lines]
    for game in marked[1:]:
        game["coins"] = 999.0
    (out / PROGRESS).write_text("\n".join(json.dumps(g) for g in marked) + "\n")
    code, stdout, _ = evaluate(out, capsys)
    assert code == 0
    assert "vs random: 5 of 12 games saved in" in stdout
    ours = (out / "games.csv").read_text().splitlines()
    theirs = (whole / "games.csv").read_text().splitlines()
    assert len(ours) == len(theirs) == 13
    assert all(",999.0," in line for line in ours[1:6])
    assert ours[6:] == theirs[6:]


def test_a_cut_off_last_line_is_played_again(whole, tmp_path, capsys):
    out = tmp_path / "cut"
    saved_progress(whole, out, 4)
    with open(out / PROGRESS, "a") as f:
        f.write('{"opponent":"random","game":4,"se')  # a write the stop cut short
    code, stdout, _ = evaluate(out, capsys)
    assert code == 0 and "4 of 12 games saved" in stdout
    assert (out / "games.csv").read_text() == (whole / "games.csv").read_text()


def test_the_games_stay_saved_once_the_reports_are_written(whole):
    """Every game of the finished run is still in the progress file, after its settings."""
    lines = progress_lines(whole)
    assert "settings" in lines[0]
    assert sorted(line["game"] for line in lines[1:]) == list(range(12))


def test_a_shorter_report_then_the_longer_command_plays_only_the_missing_games(
    whole, tmp_path, capsys
):
    """How a stopped evaluation is reported (its games so far, with a smaller ``--games``)
    must not cost its games: the longer command afterwards plays only those it lacks."""
    out = tmp_path / "reported"
    saved_progress(whole, out, 7)
    code, stdout, _ = evaluate(out, capsys, "--games", "7")
    assert code == 0 and "7 of 7 games saved" in stdout
    assert len((out / "games.csv").read_text().splitlines()) == 8
    code, stdout, _ = evaluate(out, capsys)
    assert code == 0 and "7 of 12 games saved" in stdout
    assert (out / "games.csv").read_text() == (whole / "games.csv").read_text()


def test_a_finished_evaluation_with_other_settings_is_not_overwritten(whole, tmp_path, capsys):
    out = tmp_path / "finished"
    saved_progress(whole, out, 12)
    assert evaluate(out, capsys)[0] == 0
    code, _, err = evaluate(out, capsys, "--seed", "4")
    assert code == 2 and "seed: saved 3, now 4" in err
    assert (out / "games.csv").read_text() == (whole / "games.csv").read_text()


def test_a_larger_games_count_extends_the_saved_evaluation(whole, tmp_path, capsys):
    out = tmp_path / "longer"
    saved_progress(whole, out, 12)
    code, stdout, _ = evaluate(out, capsys, "--games", "16")
    assert code == 0 and "12 of 16 games saved" in stdout
    longer = (out / "games.csv").read_text().splitlines()
    assert longer[:13] == (whole / "games.csv").read_text().splitlines()
    assert len(longer) == 17


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ({"seed": 4}, r"evaluation.progress.jsonl holds the games of an evaluation with other "),
        ({"line": "not json"}, r"evaluation.progress.jsonl:3: corrupt line"),
        ({"seat": 1}, r":2: not a game of this evaluation: game 0 is seed 3 with the candidate "),
        ({"win_share": 2}, r":2: not a game of this evaluation: win_share must be in \[0, 1\]"),
        ({"forfeit": "no"}, r":2: not a game of this evaluation: forfeit must be true or false"),
    ],
)
def test_a_progress_file_that_is_not_this_evaluations_is_refused(
    whole, tmp_path, capsys, damage, message
):
    """Settings of another evaluation, a damaged line that is not the last, or a game off the
    schedule: one line naming the file and what is wrong, exit code 2, nothing played."""
    out = tmp_path / "bad"
    lines = saved_progress(whole, out, 3)
    docs = [json.loads(line) for line in lines]
    if "seed" in damage:
        docs[0]["settings"]["seed"] = damage["seed"]
    texts = [json.dumps(d) for d in docs]
    if "line" in damage:
        texts[2] = damage["line"]
    for key in ("seat", "win_share", "forfeit"):
        if key in damage:
            texts[1] = json.dumps({**docs[1], key: damage[key]})
    (out / PROGRESS).write_text("\n".join(texts) + "\n")
    code, stdout, err = evaluate(out, capsys)
    assert code == 2 and stdout == ""
    assert err.startswith("camelup evaluate: error: ") and len(err.splitlines()) == 1
    assert re.search(message, err), err
    if "seed" in damage:
        assert "seed: saved 4, now 3" in err
    assert not (out / "games.csv").exists()


def test_a_second_run_on_the_folder_is_refused(tmp_path, capsys):
    out = tmp_path / "busy"
    with OutputLock(out):
        code, _, err = evaluate(out, capsys)
    assert code == 2 and "is in use by another run" in err


def test_an_evaluation_stopped_with_ctrl_c_resumes_to_the_same_reports(whole, tmp_path):
    """The real thing: a CLI process stopped by SIGINT while it plays (exit code 130, the
    command to resume), then the same command, whose reports equal the uninterrupted run's."""
    out = tmp_path / "stopped"
    command = [sys.executable, "-m", "camelup_cli", "evaluate", *ARGS, "--out", str(out)]
    job = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and job.poll() is None:
            # whole lines only: the last one may be half written while we look
            if (out / PROGRESS).exists() and (out / PROGRESS).read_bytes().count(b"\n") >= 4:
                break
            time.sleep(0.05)
        assert job.poll() is None, job.communicate()
        job.send_signal(signal.SIGINT)
        _, err = job.communicate(timeout=60)
    finally:
        job.kill()
    assert job.returncode == 130, err
    assert "run the same command again to resume" in err
    saved = progress_lines(out)
    assert 4 <= len(saved) < 13 and "settings" in saved[0]
    assert not (out / "games.csv").exists()
    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"{len(saved) - 1} of 12 games saved" in again.stdout
    assert (out / "games.csv").read_text() == (whole / "games.csv").read_text()
