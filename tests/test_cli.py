"""The ``camelup`` command: every ``--help`` works, and every user error in every
subcommand is one line on stderr and exit code 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from camelup_cli.main import SUBCOMMANDS, main

#: a tournament and an evaluation that would start at once but for the value a case adds
TWO = ["tournament", "--agents", "random,greedy", "--players", "2"]
#: the shipped models (a two-player and a four-player one)
EVALUATE = ["evaluate", "greedy", "--opponents", "random", "--preset", "classic", "--players", "2"]


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


@pytest.mark.parametrize("name", list(SUBCOMMANDS))
def test_every_help_that_names_a_preset_names_them_all(name: str, capsys) -> None:
    """One list, the registry's: a help that offers presets offers every one of them."""
    from camelup_env.game.rules import PRESETS

    _, out, _ = _run([name, "--help"], capsys)
    for line in out.splitlines():
        if "--preset" in line or "rule set" in line.lower() or "rule preset" in line.lower():
            break
    else:
        return  # no preset setting in this subcommand
    words = out.replace(",", " ").replace("{", " ").replace("}", " ").split()
    assert set(PRESETS) <= {w.strip(".;:") for w in words}, out


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
        # a two-player model at a four-player table: refused before any game
        ["evaluate", "ppo:classic2", "--players", "4", "--games", "4"],
        ["evaluate", "greedy", "--opponents", "ppo:classic4"],
        ["play", "--opponents", "ppo:classic4", "--seed", "1"],
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
        # values in range, checked before any work (no results folder, no game worker)
        [*TWO, "--seed", "-1"],
        [*TWO, "--games", "10000000000000"],
        [*TWO, "--workers", "100000"],
        [*TWO, "--move-timeout", ".inf"],  # an OverflowError in a game worker before
        [*TWO, "--memory-mb", "1000000000000000"],  # "cannot be built: crashed" before
        ["tournament", "--agents", "[{spec: random, kwargs: [1]}, greedy]", "--players", "2"],
        [*TWO, "--preset", "persian_tutorial", "--rules", "{last_tile_space: 20}"],
        [*TWO, "--preset", "classic", "--rules", "{grey_die_values: [1]}"],
        ["odds", "--track", "1:orange;2:yellow,blue", "--race-samples", "100000000000"],
        [*EVALUATE, "--seed", "-1"],
        [*EVALUATE, "--games", "0"],
        [*EVALUATE, "--games", "-5"],
        [*EVALUATE, "--games", "4000000000"],
        [*EVALUATE, "--workers", "100000"],
        [*EVALUATE, "--candidate-kwargs", "{margin: 3}"],  # not JSON
        [*EVALUATE, "--candidate-kwargs", "[3]"],  # not an object
        [*EVALUATE, "--candidate-kwargs", '{"no_such_option": 1}', "--games", "2"],
        ["demo", "--games", "-1"],  # played nothing, silently, before
        ["demo", "--games", "100000000000000"],  # a MemoryError before
        ["demo", "--seed", "-1"],
        ["play", "--seed", "-1", "--opponents", "random"],
    ],
)
def test_user_errors_are_one_line_and_exit_2(argv: list[str], capsys) -> None:
    code, _, err = _run(argv, capsys)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0] and "Traceback" not in err, err


def test_agents_lists_the_shipped_models(tmp_path: Path, capsys, monkeypatch) -> None:
    """`camelup agents` names every shipped model file with the spec that plays it and its
    game, read from the file, from any folder (tests/test_wheel.py: from an installed wheel)."""
    monkeypatch.chdir(tmp_path)
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("ppo:cup4 "))
    assert line.endswith("a trained policy: cup, 4 players")
    assert "ppo:classic4 " in out and "a network copying expert: classic, 4 players" in out
    for name, game in [
        ("afterstate_classic2", "classic, 2 players"),
        ("afterstate_classic4", "classic, 4 players"),
        ("afterstate_second4", "second_edition, 4 players"),
    ]:
        line = next(x for x in out.splitlines() if x.startswith(f"afterstate:{name} "))
        assert "games of self-play from the equity skip" in line and line.endswith(game)
    for name, what in [
        ("standing_td_classic2", "400 games of champion, on the champion's shortlist (margin 1)"),
        ("standing_td_classic4", "2,400 games of champion: classic, 4 players"),
        ("standing_td_second4", "600 games of champion: second_edition, 4 players"),
    ]:
        line = next(x for x in out.splitlines() if x.startswith(f"afterstate:{name} "))
        assert "the standing taught what the next mover takes" in line and what in line


def test_a_shipped_afterstate_value_plays_by_name_from_any_folder(tmp_path: Path, monkeypatch):
    """``afterstate:afterstate_classic4`` is the package's file, whatever the folder; a bare
    word that is no shipped name stays a path, refused in one line."""
    import agents
    from agents import shipped
    from camelup_env import RuleSet, legal_action_indices
    from camelup_env.game.setup import new_game
    from camelup_env.observation import public_view

    monkeypatch.chdir(tmp_path)
    assert shipped.value_names() == [
        "afterstate_classic2",
        "afterstate_classic4",
        "afterstate_second4",
        "standing_td_classic2",
        "standing_td_classic4",
        "standing_td_second4",
    ]
    agent = agents.make("afterstate:afterstate_classic4")
    state = new_game(RuleSet("classic", num_players=4), seed=3)
    assert agent(None, public_view(state, state.current)) in legal_action_indices(state)
    with pytest.raises(ValueError, match="afterstate_classic9"):
        agents.make("afterstate:afterstate_classic9")


def _one_line_error(code: int, err: str) -> str:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0] and "Traceback" not in err, err
    return lines[0]


def test_bad_results_files_are_one_line_naming_file_and_line(tmp_path: Path, capsys) -> None:
    """A results folder from a crash or a stranger: replay and resume say which line is bad."""
    from tournament.config import tournament_config

    argv = ["--agents", "random,greedy", "--players", "2", "--games", "2", "--out", str(tmp_path)]
    config = tournament_config(None, {"agents": ["random", "greedy"], "players": 2, "games": 2})
    (tmp_path / "config.json").write_text(json.dumps(config.identity()))
    record = {"game": 0, "seed": 0, "agents": ["random", "greedy"], "coins": [1, 2]}
    games = tmp_path / "games.jsonl"
    for lines, where in [
        ([json.dumps(record)], ":1: not a game record: ranks must be"),  # KeyError before
        (["\x00\x00{}", json.dumps(record)], ":1: corrupt line"),
    ]:
        games.write_text("\n".join(lines) + "\n")
        for command in (["replay", str(tmp_path), "--game", "0"], ["tournament", *argv]):
            line = _one_line_error(*_run(command, capsys)[::2])
            assert f"{games}{where}" in line, line


@pytest.mark.parametrize(
    "options",
    [
        ["--delay", "inf"],
        ["--delay", "nan"],
        ["--delay", "-1"],
        ["--frame-ms", "99999999999999999999"],
        ["--gif", "/nonexistent/folder/game.gif"],
        ["--html", "."],
    ],
)
def test_replay_options_out_of_range_are_one_line(tmp_path: Path, options, capsys) -> None:
    """Checked before the results folder is even read (which does not exist here)."""
    line = _one_line_error(*_run(["replay", str(tmp_path), "--game", "0", *options], capsys)[::2])
    assert options[0] in line


def test_compare_refuses_a_win_share_out_of_range(tmp_path: Path, capsys) -> None:
    (tmp_path / "games.csv").write_text("opponent,game,seed,seat,win_share\nrandom,0,0,0,nan\n")
    line = _one_line_error(*_run(["compare", str(tmp_path), str(tmp_path)], capsys)[::2])
    assert "win_share 'nan' is not from 0 to 1" in line
