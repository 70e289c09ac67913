"""The tournament runner: exact schedule, statistics, records, resume, locks,
replay of every game, and the command line."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tournament.config import TournamentError, tournament_config
from tournament.ratings import summarise
from tournament.records import OutputLock, read_games
from tournament.replay import replay, rules_of
from tournament.run import run_tournament
from tournament.schedule import round_size, schedule

ROOT = Path(__file__).resolve().parents[1]
LINE_BOT = f"cmd:{sys.executable} {ROOT / 'examples' / 'line_bot.py'}"


def config(**kw):
    base = {
        "agents": ["random", "heuristic"],
        "players": 2,
        "games": 8,
        "move_timeout": 5.0,
        "load_timeout": 60.0,
        "name": "t",
        "workers": 2,
    }
    base.update(kw)
    return tournament_config(None, base)


@pytest.mark.parametrize("pairing", ["order", "round"])
@pytest.mark.parametrize("seating", ["orders", "rotations"])
@pytest.mark.parametrize("k,p", [(4, 4), (4, 2), (3, 2), (5, 3), (2, 4)])
def test_every_agent_sits_in_every_seat_equally_often(
    k: int, p: int, seating: str, pairing: str
) -> None:
    names = ["random"] + [f"py:agents.random_agent:RandomAgent#{i}" for i in range(k - 1)]
    size = round_size(k, p, seating)
    cfg = config(agents=names, players=p, games=3 * size, seating=seating, pairing=pairing)
    games = schedule(cfg)
    assert len(games) == 3 * size
    seats = Counter((g.seats[s], s) for g in games for s in range(p))
    assert len(set(seats.values())) == 1 and len(seats) == k * p
    # every seating of a line-up is played in all p rotations, all with one seed
    for g in games:
        group = [h for h in games if (h.round, h.lineup, h.order) == (g.round, g.lineup, g.order)]
        assert sorted(h.rotation for h in group) == list(range(p))
        assert {h.seed for h in group} == {g.seed}
        base = next(h for h in group if h.rotation == 0).seats
        assert g.seats == tuple(base[(i + g.rotation) % p] for i in range(p))
    if pairing == "round":  # one seed a round
        assert len({g.seed for g in games}) == 3
        assert len({g.seed for g in games if g.round == 0}) == 1
    else:  # a seed of its own for every seating of every round
        assert len({g.seed for g in games}) == len(games) // p
    if seating == "orders" and p <= k:
        # and every agent moves right after every other agent equally often
        after = Counter((g.seats[i], g.seats[(i + 1) % p]) for g in games for i in range(p))
        assert len(set(after.values())) == 1
        assert size == math.comb(k, p) * math.factorial(p)


def test_rotations_alone_fix_who_moves_after_whom() -> None:
    cfg = config(
        agents=["random", "heuristic", "greedy", "lookahead"],
        players=4,
        games=4,
        seating="rotations",
    )
    after = Counter((g.seats[i], g.seats[(i + 1) % 4]) for g in schedule(cfg) for i in range(4))
    assert set(after) == {(0, 1), (1, 2), (2, 3), (3, 0)}


def test_games_round_up_to_whole_rounds_and_pairs_meet_equally() -> None:
    cfg = config(agents=["random", "heuristic", "greedy", "lookahead"], players=2, games=13)
    games = schedule(cfg)
    assert len(games) == 24  # 6 pairs x 2 seatings per round, 2 rounds
    pairs = Counter(tuple(sorted(g.seats)) for g in games)
    assert set(pairs.values()) == {4}


def test_paired_games_see_the_same_dice() -> None:
    from camelup_env.match import game_rngs

    a_setup, a_dice = game_rngs(5)
    b_setup, b_dice = game_rngs(5)
    assert a_setup.random() == b_setup.random() and a_dice.random() == b_dice.random()


def test_bad_configs_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TournamentError, match="known agents"):
        config(agents=["random", "nobody"])
    with pytest.raises(TournamentError, match="seating"):
        config(seating="shuffled")
    with pytest.raises(TournamentError, match="multiple"):
        config(agents=["random", "heuristic", "greedy"], players=4)
    with pytest.raises(TournamentError, match="not found"):
        config(agents=["random", "cmd:/nonexistent/bot"])
    with pytest.raises(TournamentError, match=r"move_timeout=.soon. is not a float"):
        config(move_timeout="soon")
    path = tmp_path / "c.yaml"
    path.write_text("agents: [random, greedy]\nplayrs: 2\n")
    with pytest.raises(TournamentError, match="unknown setting"):
        tournament_config(str(path), {})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "config file not found"),
        ("agents: [random, greedy\n", "is not valid YAML"),
        ("- random\n- greedy\n", "expected a mapping"),
    ],
)
def test_unreadable_config_files_are_refused_naming_the_file(tmp_path: Path, text, message):
    """The tournament reads its YAML like the training configs do: a clear error, no trace."""
    path = tmp_path / "t.yaml"
    if text is not None:
        path.write_text(text)
    with pytest.raises(TournamentError, match=message) as info:
        tournament_config(str(path), {})
    assert "t.yaml" in str(info.value)


def test_summary_statistics_by_hand(tmp_path: Path) -> None:
    records = [
        {
            "game": 0,
            "round": 0,
            "seed": 0,
            "agents": ["a", "b", "c"],
            "scores": [5, 5, 1],
            "ranks": [1, 1, 3],
            "winner_seats": [0, 1],
            "forfeit": None,
        },
        {
            "game": 1,
            "round": 0,
            "seed": 0,
            "agents": ["b", "c", "a"],
            "scores": [0, 9, 4],
            "ranks": [3, 1, 2],
            "winner_seats": [1],
            "forfeit": {"seat": 0, "agent": "b", "reason": "x"},
        },
    ]
    s = summarise(records, ["a", "b", "c"])
    rows = {r["agent"]: r for r in s["rows"]}
    assert rows["a"]["win_share"] == 0.25 and rows["b"]["win_share"] == 0.25
    assert rows["c"]["win_share"] == 0.5
    assert rows["b"]["forfeits"] == 1 and rows["a"]["mean_coins"] == 4.5
    assert s["h2h"]["a"]["b"] == 0.75 and s["h2h"]["b"]["a"] == 0.25
    assert s["h2h"]["c"]["a"] == 0.5
    # both games have one seed: the interval is clustered by seed, and one cluster has no
    # measurable spread
    assert s["seeds"] == 1 and math.isnan(rows["a"]["win_low"])
    # ... which the summary says in words, never "± nan"
    from tournament.report import write_summary

    write_summary(tmp_path, config(agents=["random", "heuristic", "greedy"], players=3), s)
    text = (tmp_path / "summary.md").read_text()
    assert "nan" not in text and "| 25.0% (too few seeds) | 4.50 (too few seeds) |" in text
    records[1]["seed"] = 1
    row = summarise(records, ["a", "b", "c"])["rows"][0]
    assert 0.0 <= row["win_low"] < row["win_share"] < row["win_high"] <= 1.0


def test_a_tournament_with_a_cmd_bot_and_a_crasher_replays_every_game(tmp_path: Path) -> None:
    """A real tournament: a standalone program speaking the line protocol, a bot that kills its
    own process; every game is recorded, the crasher forfeits each of its games, and every game
    replays from its seed and moves to the recorded coins."""
    cfg = config(agents=["random", LINE_BOT, "py:tests.faulty_bots:CrashingBot"], games=6)
    run_tournament(cfg, tmp_path, progress=False)
    records = read_games(tmp_path / "games.jsonl")
    assert len(records) == 6
    for r in records:
        crasher = "py:tests.faulty_bots:CrashingBot" in r["agents"]
        assert (r["forfeit"] is not None) == crasher, r
        if crasher:
            assert r["forfeit"]["agent"] == "py:tests.faulty_bots:CrashingBot"
            assert r["forfeit"]["reason"] == "crashed: bot process ended (exit code 3)"
    rules = rules_of(tmp_path)
    for r in records:
        assert list(replay(rules, r)[-1].state.coins) == r["coins"]
    summary = (tmp_path / "summary.md").read_text()
    assert "Forfeits" in summary and (tmp_path / "summary.png").stat().st_size > 1000
    # ... and is written as an animated picture and a page that needs nothing else
    from camelup_cli.main import main

    gif, page = tmp_path / "g.gif", tmp_path / "g.html"
    assert (
        main(
            [
                "replay",
                str(tmp_path),
                "--game",
                "1",
                "--gif",
                str(gif),
                "--html",
                str(page),
                "--quiet",
            ]
        )
        == 0
    )
    assert gif.read_bytes()[:6] == b"GIF89a"
    text = page.read_text()
    game1 = next(r for r in records if r["game"] == 1)
    assert text.count("data:image/png;base64,") == game1["turns"] + 1
    assert 'src="http' not in text and "<link" not in text and "<script src" not in text


def test_a_tampered_record_does_not_replay(tmp_path: Path) -> None:
    from tournament.replay import ReplayError

    cfg = config(games=2)
    run_tournament(cfg, tmp_path, progress=False)
    record = read_games(tmp_path / "games.jsonl")[0]
    rules = rules_of(tmp_path)
    with pytest.raises(ReplayError, match="does not replay"):
        replay(rules, {**record, "coins": [c + 1 for c in record["coins"]]})
    with pytest.raises(ReplayError, match=r"illegal|cannot be played"):
        replay(rules, {**record, "actions": [10**6, *record["actions"]]})


def test_one_writer_per_folder_and_readers_drop_duplicates(tmp_path: Path) -> None:
    cfg = config(games=2)
    with OutputLock(tmp_path), pytest.raises(TournamentError, match="in use by another run"):
        run_tournament(cfg, tmp_path, progress=False)
    run_tournament(cfg, tmp_path, progress=False)  # the lock went with its holder
    games = tmp_path / "games.jsonl"
    lines = games.read_text().splitlines()
    games.write_text("\n".join([*lines, lines[0], lines[1]]) + "\n")
    assert sorted(r["game"] for r in read_games(games)) == [0, 1]


def test_a_tournament_leaves_the_callers_plotting_backend_alone(tmp_path: Path) -> None:
    """A notebook that runs a tournament still shows its plots: the summary chart is drawn
    without switching pyplot's backend."""
    import matplotlib
    import matplotlib.pyplot as plt

    before = matplotlib.get_backend()
    plt.switch_backend("svg")
    try:
        run_tournament(config(games=2, workers=1), tmp_path, progress=False)
        assert matplotlib.get_backend() == "svg"
        assert (tmp_path / "summary.png").read_bytes().startswith(b"\x89PNG")
    finally:
        plt.switch_backend(before)


def test_a_script_plays_games_without_a_main_guard(tmp_path: Path) -> None:
    """Game workers do not run the caller's script again: a script that plays games at its top
    level (a tutorial run with ``python``) needs no ``if __name__ == "__main__":``, and its
    top-level code runs once."""
    script = tmp_path / "play.py"
    settings = {"agents": ["random", "heuristic"], "players": 2, "games": 2, "workers": 1}
    script.write_text(
        "from pathlib import Path\n"
        "from tournament.config import tournament_config\n"
        "from tournament.run import run_tournament\n"
        "print('top level')\n"
        f"run_tournament(tournament_config(None, {settings!r}), Path({str(tmp_path / 'out')!r}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("top level") == 1
    assert len(read_games(tmp_path / "out" / "games.jsonl")) == 2


def test_an_agent_that_cannot_be_built_stops_the_run_before_any_game(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for spec, why in [
        ("ppo:/nonexistent.zip", "nonexistent.zip"),
        ("py:no_such_module:Bot", "ModuleNotFoundError"),
    ]:
        out = tmp_path / spec.split(":")[0]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "camelup_cli",
                "tournament",
                "--agents",
                f"random,{spec}",
                "--players",
                "2",
                "--games",
                "2",
                "--out",
                str(out),
                "--no-progress",
            ],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and f"agent '{spec}' cannot be built" in lines[0]
        assert why in lines[0]
        assert not (out / "games.jsonl").exists() or not (out / "games.jsonl").read_text()


def _strip(records: list[dict]) -> list[dict]:
    drop = {"seconds", "move_seconds"}
    return sorted(
        ({k: v for k, v in r.items() if k not in drop} for r in records), key=lambda r: r["game"]
    )


def _command(out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "camelup_cli",
        "tournament",
        "--agents",
        "random,heuristic,py:agents.random_agent:RandomAgent",
        "--players",
        "2",
        "--games",
        "120",
        "--workers",
        "2",
        "--out",
        str(out),
        "--no-progress",
    ]


def test_kill_and_resume_gives_the_uninterrupted_results(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    full, cut = tmp_path / "full", tmp_path / "cut"
    subprocess.run(_command(full), check=True, env=env, cwd=ROOT, capture_output=True)
    proc = subprocess.Popen(
        _command(cut), env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    games = cut / "games.jsonl"
    deadline = time.time() + 60
    while time.time() < deadline:
        if games.exists() and games.read_bytes().count(b"\n") >= 20:
            break
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = read_games(games)
    assert 20 <= len(partial) < 120
    with open(games, "ab") as fh:  # as if killed in the middle of writing a line
        fh.write(b'{"game": 119, "round": 19, "agen')
    resumed = subprocess.run(_command(cut), env=env, cwd=ROOT, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    a, b = read_games(full / "games.jsonl"), read_games(games)
    assert len(b) == 120 and len({r["game"] for r in b}) == 120
    assert _strip(a) == _strip(b)
    assert (full / "summary.csv").read_text() == (cut / "summary.csv").read_text()
    # a different configuration is refused, with the reason
    other = _command(cut)
    other[other.index("--players") + 1] = "3"
    refused = subprocess.run(other, env=env, cwd=ROOT, capture_output=True, text=True)
    assert refused.returncode == 2 and "different configuration" in refused.stderr
    assert "players" in refused.stderr


def test_results_from_before_seating_resume_as_rotations(tmp_path: Path) -> None:
    from tournament.records import prepare_out

    cfg = config(agents=["random", "heuristic", "greedy"], players=3, seating="rotations")
    old = cfg.identity()
    del old["seating"]
    (tmp_path / "config.json").write_text(json.dumps(old))
    prepare_out(tmp_path, cfg)  # accepted
    with pytest.raises(TournamentError, match="seating"):
        prepare_out(tmp_path, config(agents=["random", "heuristic", "greedy"], players=3))


def test_resume_skips_finished_games_and_says_so(tmp_path: Path, capsys) -> None:
    cfg = config(games=8)
    run_tournament(cfg, tmp_path, progress=False)
    assert "resuming" not in capsys.readouterr().err
    lines = (tmp_path / "games.jsonl").read_text().splitlines()
    (tmp_path / "games.jsonl").write_text("\n".join(lines[:5]) + "\n")
    run_tournament(cfg, tmp_path, progress=False)
    said = capsys.readouterr().err
    assert f"resuming {tmp_path}/: 5 of 8 games already played, 3 to play" in said
    again = read_games(tmp_path / "games.jsonl")
    assert sorted(r["game"] for r in again) == [0, 1, 2, 3, 4, 5, 6, 7]
    assert _strip(again) == _strip([json.loads(x) for x in lines])


def test_more_games_extend_a_finished_tournament_by_rounds(tmp_path: Path, capsys) -> None:
    """Rerun with a larger ``games``: the saved games are the first of the longer schedule
    (same ids and seeds), so only the new rounds are played; fewer games are refused."""
    run_tournament(config(games=8), tmp_path, progress=False)
    first = read_games(tmp_path / "games.jsonl")
    longer = run_tournament(config(games=16), tmp_path, progress=False)
    assert "resuming" in capsys.readouterr().err and longer["games"] == 16
    again = read_games(tmp_path / "games.jsonl")
    assert _strip(again[:8]) == _strip(first) and len(again) == 16
    fresh = tmp_path / "fresh"
    run_tournament(config(games=16), fresh, progress=False)
    assert _strip(read_games(fresh / "games.jsonl")) == _strip(again)
    with pytest.raises(TournamentError, match="games"):
        run_tournament(config(games=8), tmp_path, progress=False)


@pytest.mark.parametrize("path", sorted((ROOT / "configs" / "tournament").glob("*.yaml")))
def test_no_config_writes_into_the_committed_results_unless_told(path: Path) -> None:
    """Without ``--out`` a tournament writes a run folder under ``runs/`` (not tracked by git):
    running a shipped config never rewrites ``results/tournaments/``."""
    from tournament.run import results_folder

    default = results_folder(tournament_config(str(path), {}))
    assert default.parts[:2] == ("runs", "tournaments") and "results" not in default.parts
    chosen = tournament_config(str(path), {"out": "results/tournaments/mine"})
    assert results_folder(chosen) == Path("results/tournaments/mine")


@pytest.mark.parametrize(
    "label",
    ["greedy", "ppo:runs/my_run/snapshots/model.zip", "expert (opponent)", "x" * 40],
)
def test_chart_labels_wrap_to_the_width_of_a_bar(label: str) -> None:
    """A long agent label in summary.png goes onto lines of its own instead of running into
    its neighbour's; nothing of it is lost."""
    from tournament.report import LABEL_WIDTH, _wrapped

    lines = _wrapped(label).split("\n")
    assert all(0 < len(line) <= LABEL_WIDTH for line in lines)
    assert "".join(lines).replace(" ", "") == label.replace(" ", "")
    assert len(lines) == 1 or len(label) > LABEL_WIDTH


def test_a_tournament_reports_each_agents_luck_adjusted_win_share(tmp_path: Path) -> None:
    """Every record carries its seats' luck, measured as ``camelup evaluate`` measures it, and
    the summary's adjusted win share is the mean of the results minus that luck; a record
    without it (an older run's) gets it at the summary; ``luck=False`` leaves the column out."""
    from camelup_env.game.rules import RuleSet
    from tournament.luck import GameLuck

    cfg = config(agents=["random", "greedy"], games=4, workers=1)
    summary = run_tournament(cfg, tmp_path / "lucky", progress=False)
    records = read_games(tmp_path / "lucky" / "games.jsonl")
    game_luck = GameLuck.shipped(RuleSet("classic", num_players=2))
    assert game_luck is not None
    for r in records:
        expected = game_luck.of_game(r["seed"], r["actions"])
        assert r["luck"] == pytest.approx(expected.tolist())
    for row in summary["rows"]:
        seats = [(r, r["agents"].index(row["agent"])) for r in records]
        adjusted = [
            (1.0 / len(r["winner_seats"]) if s in r["winner_seats"] else 0.0) - r["luck"][s]
            for r, s in seats
        ]
        assert row["win_share_adjusted"] == pytest.approx(sum(adjusted) / len(adjusted))
    assert "luck-adjusted" in (tmp_path / "lucky" / "summary.md").read_text()
    del records[0]["luck"]
    again = summarise(records, ["random", "greedy"])
    assert math.isnan(again["rows"][0]["win_share_adjusted"])  # half-measured: no figure
    log = tmp_path / "lucky" / "games.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    resumed = run_tournament(cfg, tmp_path / "lucky", progress=False)  # every game played
    assert [r["win_share_adjusted"] for r in resumed["rows"]] == pytest.approx(
        [r["win_share_adjusted"] for r in summary["rows"]]
    )

    plain = run_tournament(cfg, tmp_path / "plain", progress=False, luck=False)
    assert all(math.isnan(row["win_share_adjusted"]) for row in plain["rows"])
    assert "luck" not in read_games(tmp_path / "plain" / "games.jsonl")[0]
    assert "luck-adjusted" not in (tmp_path / "plain" / "summary.md").read_text()
