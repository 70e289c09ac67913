"""The ``camelup`` command: every ``--help`` works, and every user error in every
subcommand is one line on stderr and exit code 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from camelup_cli.main import SUBCOMMANDS, main


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_top_level_help_lists_every_subcommand(capsys) -> None:
    code, out, _ = _run(["--help"], capsys)
    assert code == 0
    for name in SUBCOMMANDS:
        assert name in out


@pytest.mark.parametrize("name", list(SUBCOMMANDS))
def test_every_subcommand_has_help(name: str, capsys) -> None:
    code, out, _ = _run([name, "--help"], capsys)
    assert code == 0 and f"camelup {name}" in out
    assert "%%" not in out  # help text is %-formatted by argparse, descriptions are not


def test_top_level_help_prints_percent_signs_once(capsys) -> None:
    _, out, _ = _run(["--help"], capsys)
    assert "95% CI" in out and "%%" not in out


def test_tournament_help_documents_every_setting(capsys) -> None:
    import dataclasses

    from tournament.config import TournamentConfig

    _, out, _ = _run(["tournament", "--help"], capsys)
    for field in dataclasses.fields(TournamentConfig):
        assert "--" + field.name.replace("_", "-") in out
        assert field.metadata["help"].split()[0] in out


@pytest.mark.parametrize(
    "argv",
    [
        ["nonsense"],
        ["tournament", "--agents", "random,nobody", "--players", "2"],
        ["tournament", "/nonexistent/config.yaml"],
        ["tournament", "--games", "many"],
        ["tournament", "--move-timeout", "[1"],
        ["tournament", "--agents", "random,cmd:/nonexistent/bot", "--players", "2"],
        ["evaluate", "greedy", "--opponents", "foo", "--games", "4"],
        ["evaluate", "greedy", "--games", "x"],
        ["evaluate", "ppo:/nonexistent.zip", "--games", "4"],
        ["evaluate", "search:/nonexistent.zip", "--games", "4"],
        ["compare", "/nonexistent/a", "/nonexistent/b"],
        ["replay", "/nonexistent/folder", "--game", "0"],
        ["replay", "/nonexistent/folder", "--game", "zero"],
        ["train", "/nonexistent/train.yaml"],
        ["play", "--opponents", "nobody", "--seed", "1"],
        ["play", "--seat", "x"],
        ["odds", "--preset", "nope"],
        ["demo", "--games", "x"],
        ["agents", "--bogus"],
        ["serve", "--runs", "/nonexistent/runs"],
        ["serve", "--max-games", "0"],
        ["serve", "--port", "http"],
    ],
)
def test_user_errors_are_one_line_and_exit_2(argv: list[str], capsys) -> None:
    code, _, err = _run(argv, capsys)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0] and "Traceback" not in err, err


def test_agents_lists_the_shipped_models(capsys, monkeypatch) -> None:
    """`camelup agents` names every shipped model file with the spec that plays it and its
    game, read from the file (run from the repository's folder)."""
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    assert "ppo:results/models/classic4/model.zip" in out
    line = next(x for x in out.splitlines() if "results/models/cup4/model.zip" in x)
    assert line.endswith("a trained policy: cup, 4 players")
    assert "a network copying expert: classic, 4 players" in out
