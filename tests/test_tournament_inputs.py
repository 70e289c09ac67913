"""Hostile and broken tournament inputs: settings out of range are refused before any work, and
every bad line of a results file is refused or recovered from, naming it - never a traceback,
a hang or a run that eats memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tournament.config import MAX_GAMES, MAX_SEED, TournamentError, tournament_config
from tournament.records import check_record, read_games
from tournament.run import run_tournament
from tournament.schedule import cyclic_orders, lineups, round_size


def config(**kw):
    base = {"agents": ["random", "heuristic"], "players": 2, "games": 4, "name": "t", "workers": 1}
    return tournament_config(None, {**base, **kw})


@pytest.mark.parametrize("seating", ["orders", "rotations"])
def test_round_size_counts_the_games_the_schedule_lists(seating: str) -> None:
    """The config checks a tournament's size with the arithmetic count; it must be the count of
    the line-ups and orders the schedule enumerates."""
    for k in range(1, 7):
        for p in range(2, 10):
            if p > k and p % k:
                continue
            listed = sum(len(cyclic_orders(up, seating)) for up in lineups(k, p)) * p
            assert round_size(k, p, seating) == listed, (k, p)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"games": 10_000_000_000_000},
            r"games must be at most 1,000,000 .*got 10,000,000,000,000",
        ),
        ({"games": 0}, r"games must be >= 1"),
        (  # one round of 12 agents at 8 seats is 19,958,400 games: refused before listing it
            {"agents": ["random"] * 12, "players": 8, "games": 1},
            r"whole rounds of 19,958,400 games",
        ),
        ({"seed": -1}, rf"seed must be between 0 and {MAX_SEED}.*got -1"),
        ({"seed": MAX_SEED + 1}, r"seed must be between"),
        ({"agents": [{"spec": "random", "kwargs": [1]}, "heuristic"]}, r"kwargs must be a mapping"),
        ({"agents": [{"spec": "random", "kwargs": {1: 2}}, "heuristic"]}, r"kwargs must be a map"),
        (
            {"agents": [{"spec": "random", "kwarg": {}}, "heuristic"]},
            r"unknown key\(s\) \['kwarg'\]",
        ),
        ({"workers": 100_000}, r"workers must be between 1 and \d+ \(4 per CPU"),
        ({"workers": 0}, r"workers must be between 1"),
        ({"memory_mb": 10**15}, r"memory_mb must be > 0 and at most 1,048,576"),
        ({"output_kb": 10**20}, r"output_kb must be > 0 and at most"),
        ({"max_processes": 10**20}, r"max_processes must be > 0 and at most 65,536"),
        ({"max_turns": 10**20}, r"max_turns must be > 0 and at most 100,000"),
        ({"cpu_seconds": 1e300}, r"cpu_seconds must be > 0 and at most 10,000,000"),
        ({"move_timeout": float("inf")}, r"move_timeout must be seconds from 0 .* got inf"),
        ({"game_timeout": float("nan")}, r"game_timeout must be seconds .* got nan"),
        ({"load_timeout": -1}, r"load_timeout must be seconds"),
        ({"agents": ["random"], "players": 10**6}, r"2 to 8 players"),  # before counting rounds
        ({"preset": "persian_tutorial", "rules": {"last_tile_space": 20}}, r"last_tile_space"),
    ],
)
def test_out_of_range_settings_are_refused_naming_the_field(settings, message) -> None:
    with pytest.raises(TournamentError, match=message):
        config(**settings)


def test_the_largest_settings_allowed_are_accepted() -> None:
    assert config(seed=MAX_SEED, games=MAX_GAMES).games == MAX_GAMES


# games.jsonl ----------------------------------------------------------------------------------
def _record(game: int, **changes) -> dict:
    return {
        "game": game,
        "seed": game // 2,
        "agents": ["random", "heuristic"],
        "coins": [10, 12],
        "scores": [10, 12],
        "ranks": [2, 1],
        "winner_seats": [1],
        "forfeit": None,
        **changes,
    }


def _write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(lines))
    return path


def _line(record: dict) -> bytes:
    return json.dumps(record).encode() + b"\n"


@pytest.mark.parametrize(
    "tail",
    [
        b'{"game": 2, "seed": 1, "ag',  # a write cut short
        b"\x00" * 4096,  # a block the file system allocated but never wrote
        b"\x00\x00\x00" + _line(_record(2)),  # zeros, then a line (UnicodeDecodeError before)
        b"\xff\xfe\x00garbage\n",
        b"\x00\x00\x00\n\x00\x00",
    ],
)
def test_a_damaged_last_line_is_dropped_and_cut_off_on_repair(tmp_path: Path, tail) -> None:
    good = _line(_record(0)) + _line(_record(1))
    path = _write(tmp_path / "games.jsonl", [good, tail])
    assert [r["game"] for r in read_games(path)] == [0, 1]
    assert path.read_bytes() == good + tail  # a reader changes nothing
    assert [r["game"] for r in read_games(path, repair=True)] == [0, 1]
    assert path.read_bytes() == good  # the writer cuts the damage off before appending


#: Lines that are not JSON (or JSON too big to trust): in the middle of the file, no crash
#: leaves them.
NOT_JSON = [
    (b"\x00\x00\x00" + _line(_record(1)), r"corrupt line: the line is not valid JSON"),
    (b"\xff\xfe" + _line(_record(1)), r"corrupt line: the line is not UTF-8"),
    (b"not json\n", r"corrupt line: the line is not valid JSON"),
    (b"[" * 100_000 + b"\n", r"corrupt line: the line nests 100000 levels"),
    (b'{"game": 1, "seed": ' + b"9" * 5000 + b"}\n", r"integer of 5000 digits"),
]
#: Well-formed JSON that is not a game record: no crash leaves these anywhere in the file.
NOT_RECORDS = [
    (_line(_record(1, ranks=None)), r"not a game record: ranks must be"),
    (_line({k: v for k, v in _record(1).items() if k != "ranks"}), r"ranks must be a list"),
    (_line(_record(1, scores=[1])), r"scores must be a list of 2 numbers"),
    (_line(_record(1, winner_seats=[7])), r"winner_seats must be a list of seats"),
    (_line(_record(1, forfeit={"seat": 9, "agent": None, "reason": "x"})), r"forfeit must"),
    (_line(_record(1, fallbacks="many")), r"fallbacks must be a list"),
    (_line(_record(-1)), r"game must be an integer >= 0"),
    (_line(_record(True)), r"game must be an integer >= 0"),
    (b"[1, 2]\n", r"a JSON list, not an object"),
]


@pytest.mark.parametrize(
    ("bad", "message", "last"),
    [(*case, False) for case in NOT_JSON + NOT_RECORDS] + [(*c, True) for c in NOT_RECORDS],
)
def test_a_bad_line_is_refused_naming_file_and_line(tmp_path: Path, bad, message, last) -> None:
    lines = [_line(_record(0)), bad] + ([] if last else [_line(_record(2))])
    path = _write(tmp_path / "games.jsonl", lines)
    with pytest.raises(TournamentError, match=message) as info:
        read_games(path)
    assert str(info.value).startswith(f"{path}:2: ")
    assert "\n" not in str(info.value)


def test_records_of_other_agents_are_refused_with_the_tournament_labels(tmp_path: Path) -> None:
    path = _write(tmp_path / "games.jsonl", [_line(_record(0, agents=["greedy", "random"]))])
    assert read_games(path)  # readers that do not know the tournament read it
    with pytest.raises(TournamentError, match=r":1: not a game record: agents .* are not"):
        read_games(path, labels=["random", "heuristic"])


def test_check_record_accepts_every_committed_record() -> None:
    """The record check is no stricter than the files the project wrote."""
    root = Path(__file__).resolve().parents[1] / "results"
    checked = 0
    for path in sorted(root.rglob("games.jsonl")):
        with open(path) as fh:
            for line in list(fh)[:50]:
                check_record(json.loads(line))
                checked += 1
    assert checked


def test_resume_recovers_a_zeroed_last_line_and_refuses_another_runs_record(
    tmp_path: Path,
) -> None:
    cfg = config(games=4)
    whole = run_tournament(cfg, tmp_path / "whole", progress=False)
    out = tmp_path / "cut"
    run_tournament(cfg, out, progress=False)
    games = out / "games.jsonl"
    lines = games.read_bytes().splitlines(keepends=True)
    _write(games, [*lines[:2], b"\x00" * 8 + lines[2]])  # zeros in front of a line: a crash's
    resumed = run_tournament(cfg, out, progress=False)
    assert resumed == whole
    assert sorted(r["game"] for r in read_games(games)) == [0, 1, 2, 3]
    # a well-formed record of another run (another seed) in the file: refused, naming it
    other = json.loads(lines[1]) | {"seed": 999}
    _write(games, [lines[0], _line(other)])
    with pytest.raises(TournamentError, match=r"game 1 is not that game of this tournament"):
        run_tournament(cfg, out, progress=False)
