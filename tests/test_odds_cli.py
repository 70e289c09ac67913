"""``camelup odds``: tables, JSON, and clean errors (exit 2, message on stderr, no traceback)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from camelup_cli.main import main
from camelup_env import parse_position
from camelup_env.odds import leg_rank_probabilities, race_probabilities

TRACK = "1:orange;2:yellow,blue;3:green,white"
ARGS = [
    "odds",
    "--preset",
    "classic",
    "--track",
    TRACK,
    "--dice-left",
    "blue,green",
    "--tiles",
    "4:-1;7:+1",
    "--race-samples",
    "500",
    "--seed",
    "3",
]


def test_json_output_matches_the_api(capsys):
    assert main([*ARGS, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) >= {"leg", "race"}
    assert set(doc["race"]) == {"winner", "loser"}
    state = parse_position("classic", TRACK, "blue,green", "4:-1;7:+1")
    exact = leg_rank_probabilities(state)
    race = race_probabilities(state, 500, seed=3)
    for c, name in enumerate(state.rules.racing_colours):
        assert doc["leg"][name] == pytest.approx(list(exact[c]), abs=1e-15)
        assert len(doc["leg"][name]) == 5
        assert doc["race"]["winner"][name] == race.winner[c]
        assert doc["race"]["loser"][name] == race.loser[c]
    assert sum(doc["race"]["winner"].values()) == pytest.approx(1)
    assert np.allclose(np.array(list(doc["leg"].values())).sum(axis=0), 1)


def test_table_output(capsys):
    assert main(ARGS) == 0
    out = capsys.readouterr().out
    for word in ("rank 1", "leg bet EV", "P(winner)", "P(loser)", "orange", "white"):
        assert word in out


@pytest.mark.parametrize(
    "extra,token",
    [
        (["--track", "1:orange;2:yellow,blue;3:green,red"], "'red'"),
        (["--track", TRACK, "--dice-left", "blue,blue"], "'blue'"),
        (["--track", TRACK, "--tiles", "3:+1"], "'3:+1'"),
        (["--track", TRACK, "--race-samples", "0"], "--race-samples"),
    ],
)
def test_bad_position_exit_2_with_message(capsys, extra, token):
    assert main(["odds", "--preset", "classic", *extra]) == 2
    captured = capsys.readouterr()
    assert token in captured.err and "Traceback" not in captured.err
    assert captured.out == ""


def test_subprocess_entry_point():
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "camelup_cli",
            "odds",
            "--track",
            "1:orange;2:yellow,blue",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2
    assert "missing camel" in bad.stderr and "Traceback" not in bad.stderr
    good = subprocess.run(
        [
            sys.executable,
            "-m",
            "camelup_cli",
            "odds",
            "--preset",
            "second_edition",
            "--track",
            "1:blue;2:green;3:red;4:yellow,purple;14:white;15:black",
            "--dice-left",
            "grey,blue,red",
            "--race-samples",
            "200",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert good.returncode == 0, good.stderr
    doc = json.loads(good.stdout)
    assert set(doc["leg"]) == {"blue", "green", "red", "yellow", "purple"}


def test_win_chances_follow_the_coins_and_the_model(capsys):
    """``--win``: each seat's chance from the win-probability model, at the given coins."""
    from camelup_env.odds.win import load_win_model

    assert main([*ARGS, "--json", "--win", "--coins", "3,9,3,3"]) == 0
    win = json.loads(capsys.readouterr().out)["win"]
    state = parse_position("classic", TRACK, "blue,green", "4:-1;7:+1", num_players=4)
    state.coins = (3, 9, 3, 3)
    np.testing.assert_allclose(win, load_win_model(state.rules)([state])[0])
    assert sum(win) == pytest.approx(1.0) and max(win) == win[1]
    assert main([*ARGS, "--win"]) == 0
    assert "Chance to win the game" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--coins", "3,x,3,3"], "--coins must be whole numbers"),
        (["--coins", "3,3"], "--coins gives 2 seats, the game has 4"),
    ],
)
def test_win_with_bad_coins_is_one_line(capsys, extra, message):
    assert main([*ARGS, "--win", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_win_without_a_model_for_the_preset_is_one_line(capsys):
    args = ["odds", "--preset", "supercup", "--track", TRACK, "--win", "--race-samples", "10"]
    assert main(args) == 2
    assert "no win-probability model for the supercup preset" in capsys.readouterr().err
