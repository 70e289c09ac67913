"""``camelup demo``: the narrated rules walk-through is a documented, working subcommand."""

from __future__ import annotations

import argparse
from pathlib import Path

from camelup_env.cli import demo

ROOT = Path(__file__).resolve().parents[1]


def test_demo_narrates_a_whole_game(capsys) -> None:
    assert demo.run(argparse.Namespace(games=1, seed=3)) == 0
    out = capsys.readouterr().out
    assert "=== game 1: classic, 4 random players, seed 3 ===" in out
    assert "leg 1 scored" in out and "the race is over" in out and "game over" in out


def test_demo_is_documented_and_says_what_it_is() -> None:
    first_line = demo.__doc__.strip().splitlines()[0]
    assert "(camelup demo)" in first_line and "make demo" not in first_line
    assert "camelup demo" in (ROOT / "docs" / "getting-started.md").read_text()
