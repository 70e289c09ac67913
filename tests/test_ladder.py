"""The ladder: its database and migrations, entries and versions, the choice of tables, a run
through the tournament's own referee and records, the table and the export, and the command
line's one-line refusals."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from camelup_cli.main import main
from tournament.ladder.choice import choose_table, rotations
from tournament.ladder.claims import register, take
from tournament.ladder.db import current_revision, head_revision, make_engine, migrate
from tournament.ladder.results import Place, store_game
from tournament.ladder.runner import run_ladder
from tournament.ladder.schema import metadata
from tournament.ladder.store import START_MU, START_SIGMA, Entry, Ladder
from tournament.ladder.table import export, head_to_head, rating_history, standings
from tournament.records import read_games
from tournament.replay import replay, rules_of


def ladder_cli(*args: str) -> int:
    return main(["ladder", *map(str, args)])


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-player ladder of three bots after 24 games on two workers."""
    folder = tmp_path_factory.mktemp("ladder") / "club"
    assert (
        ladder_cli("init", folder, "--players", 2, "--move-timeout", 5, "--newcomer-games", 2) == 0
    )
    assert ladder_cli("add", folder, "ann", "greedy") == 0  # the command, once
    ladder = Ladder.open(folder)
    for name, spec in [("bob", "random"), ("cid", "heuristic")]:
        ladder.add(name, spec)
    assert run_ladder(folder, workers=2, games=24) == 24
    return folder


def test_migrations_build_the_schema_the_code_reads(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'x.db'}")
    assert current_revision(engine) is None
    migrate(engine)
    migrate(engine)  # at the head: nothing to do
    assert current_revision(engine) == head_revision()
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []


def test_a_run_stores_every_game_once_with_its_record(played: Path) -> None:
    ladder = Ladder.open(played)
    with sqlite3.connect(played / "ladder.db") as db:
        done = db.execute("select id, deal, rotation, seed, seats from games").fetchall()
        assert db.execute("select count(*) from games where status != 'done'").fetchone()[0] == 0
        seats = db.execute("select count(*) from seats").fetchone()[0]
        met = db.execute("select sum(met) from pairs").fetchone()[0]
        assert db.execute("pragma integrity_check").fetchone()[0] == "ok"
    assert len(done) == 24 and seats == 48 and met == 48
    assert sum(e.games for e in ladder.entries()) == 48
    # each deal: one seed, the table in both rotations
    deals: dict[int, list] = {}
    for _, deal, rotation, seed, seat_ids in done:
        deals.setdefault(deal, []).append((rotation, seed, json.loads(seat_ids)))
    for games in deals.values():
        assert sorted(r for r, _, _ in games) == [0, 1] and len({s for _, s, _ in games}) == 1
        assert games[0][2] == list(reversed(games[1][2]))
    # the runner's folder is a tournament folder the replay reads; every record replays
    records = [r for seg in (played / "games").iterdir() for r in read_games(seg / "games.jsonl")]
    assert sorted(r["game"] for r in records) == sorted(g[0] for g in done)
    rules = rules_of(next((played / "games").iterdir()))
    for record in records:
        replay(rules, record)  # checks the recorded coins
        assert len(record["luck"]) == 2


def test_the_table_sorts_by_rating_and_shows_luck_adjusted_shares(played: Path) -> None:
    ladder = Ladder.open(played)
    rows = standings(ladder)
    assert [r.entry.ordinal for r in rows] == sorted((r.entry.ordinal for r in rows), reverse=True)
    assert sum(r.entry.wins for r in rows) == pytest.approx(24)
    greedy = next(r for r in rows if r.entry.name == "ann")
    assert greedy.entry.sigma < START_SIGMA and greedy.adjusted == greedy.adjusted  # not nan
    h2h = head_to_head(ladder, greedy.entry)
    assert sum(h["games"] for h in h2h) == greedy.entry.games
    history = rating_history(ladder, greedy.entry)
    assert len(history) == greedy.entry.games and history[-1][1] == pytest.approx(greedy.entry.mu)


def test_a_rating_history_follows_the_order_the_games_were_stored(tmp_path: Path) -> None:
    """Two workers store a deal's games in either order; the history is the ratings' order."""
    folder = tmp_path / "club"
    assert ladder_cli("init", folder, "--players", 2) == 0
    ladder = Ladder.open(folder)
    for name, spec in [("ann", "greedy"), ("bob", "random")]:
        ladder.add(name, spec)
    labels = {e.id: e.label for e in ladder.entries()}
    runner = register(ladder)
    try:
        claims = take(ladder, runner.id, set(labels), None, random.Random(0)).claims
        ann = next(i for i, label in labels.items() if label.startswith("ann"))
        # the later id is stored first, and ann wins it; ann loses the earlier id, stored last
        for claim, ann_wins in [(claims[1], True), (claims[0], False)]:
            winner = claim.seats.index(ann) if ann_wins else 1 - claim.seats.index(ann)
            record = {
                "game": claim.game,
                "agents": [labels[i] for i in claim.seats],
                "ranks": [1 if s == winner else 2 for s in range(2)],
                "coins": [10.0 if s == winner else 5.0 for s in range(2)],
                "winner_seats": [winner],
            }
            store_game(ladder, runner.id, record, Place("s", 0, 1))
    finally:
        runner.release()
    entry = ladder.entry("ann")
    history = rating_history(ladder, entry)
    assert [n for n, _, _ in history] == [1, 2]
    assert history[0][1] > START_MU > history[1][1] == pytest.approx(entry.mu)


def test_the_upgrade_numbers_stored_games_in_the_order_they_finished(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    migrate(make_engine(f"sqlite:///{path}"), "0001")
    with sqlite3.connect(path) as db:
        db.execute("insert into runners values (1, 'h', 1, 0, 0, null)")
        db.execute(
            "insert into entries values (7, 'ann', 1, 'greedy', '{}', 'owner', null, 0, null,"
            " null, 0, 25, 8, 3, 1, 0, 0, 0, 0)"
        )
        for game_id, finished in [(1, 30.0), (2, 10.0), (3, 20.0)]:
            db.execute(
                "insert into games (id, deal, rotation, seed, seats, status, runner_id,"
                " claimed_at, finished_at) values (?, ?, 0, 0, '[7]', 'done', 1, 0, ?)",
                (game_id, game_id, finished),
            )
            db.execute(
                "insert into seats (game_id, seat, entry_id, rank, coins, share, mu, sigma)"
                " values (?, 0, 7, 1, 0, 1, 25, 8)",
                (game_id,),
            )
    migrate(make_engine(f"sqlite:///{path}"))
    with sqlite3.connect(path) as db:
        rows = db.execute("select game_id, entry_game from seats order by game_id").fetchall()
    assert rows == [(1, 3), (2, 1), (3, 2)]


def test_export_is_a_tournament_folder_in_game_order(played: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert export(Ladder.open(played), out) == 24
    records = read_games(out / "games.jsonl")
    assert [r["game"] for r in records] == sorted(r["game"] for r in records)
    assert main(["replay", str(out), "--game", str(records[5]["game"]), "--quiet"]) == 0


def test_the_table_command_prints_text_and_csv(played: Path, capsys) -> None:
    assert ladder_cli("table", played) == 0
    text = capsys.readouterr().out
    assert "ann@1" in text and "luck-adj. win" in text
    assert ladder_cli("table", played, "--csv") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("place,bot,") and len(lines) == 4
    assert ladder_cli("table", played, "--bot", "ann") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("ann@1: rating") and {line.split()[0] for line in lines[2:]} == {
        "bob@1",
        "cid@1",
    }


def test_a_new_version_replaces_the_old_one_which_keeps_its_games(tmp_path: Path) -> None:
    folder = tmp_path / "l"
    assert ladder_cli("init", folder, "--players", 2) == 0
    assert ladder_cli("add", folder, "ann", "random") == 0
    assert ladder_cli("add", folder, "ann", "greedy") == 0
    ladder = Ladder.open(folder)
    old, new = ladder.entries()
    assert (old.label, old.retired, new.label, new.active) == ("ann@1", True, "ann@2", True)
    assert ladder.entry("ann").label == "ann@2"
    assert ladder_cli("retire", folder, "ann") == 0
    assert not ladder.entry("ann@2").active
    assert ladder_cli("retire", folder, "ann@2") == 2


@pytest.mark.parametrize(
    "args, words",
    [
        (["add", "{dir}", "x", "py:tests.faulty_bots:CrashingBot"], "--allow-code"),
        (["add", "{dir}", "x", "no-such-agent"], "no-such-agent"),
        (["add", "{dir}", "bad name", "random"], "bad bot name"),
        (["add", "{dir}", "x", "random", "--kwargs", "[1]"], "JSON object"),
        (["add", "{dir}", "x", "cmd:/no/such/program"], "not found"),
        (["add", "{dir}/nowhere", "x", "random"], "holds no ladder"),
        (["init", "{dir}"], "holds a ladder already"),
        (["init", "{dir}/new", "--players", "1"], "players"),
        (["run", "{dir}", "--games", "0"], "--games"),
        (["retire", "{dir}", "nobody"], "no bot"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys, args, words) -> None:
    assert ladder_cli("init", tmp_path, "--players", 2) == 0
    capsys.readouterr()
    assert ladder_cli(*[a.replace("{dir}", str(tmp_path)) for a in args]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and words in err


def entry(i: int, games: int, mu: float = START_MU, sigma: float = START_SIGMA) -> Entry:
    return Entry(
        i, f"b{i}", 1, "random", {}, "owner", False, None, 0, mu, sigma, games, 0, 0, 0, 0, 0
    )


def test_newcomers_are_seated_first_then_the_least_certain() -> None:
    rng = random.Random(0)
    old = [entry(i, 50, sigma=1.0 + i / 10) for i in range(6)]
    new = entry(9, 0)
    for _ in range(20):
        table = choose_table([*old, new], 3, newcomer_games=5, rng=rng)
        assert new in table and len({e.id for e in table}) == 3
    firsts = [
        {e.id for e in choose_table(old, 2, 5, rng)} for _ in range(200)
    ]  # the least certain (id 5) is always seated; far ratings meet seldom
    assert all(5 in t for t in firsts)
    assert rotations([1, 2, 3]) == [(1, 2, 3), (2, 3, 1), (3, 1, 2)]
    with pytest.raises(ValueError, match="needs 3"):
        choose_table(old[:2], 3, 5, rng)


def test_the_database_may_live_elsewhere_named_by_its_url(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'elsewhere' / 'league.db'}"
    (tmp_path / "elsewhere").mkdir()
    assert ladder_cli("init", tmp_path / "l", "--players", 2, "--database", url) == 0
    assert not (tmp_path / "l" / "ladder.db").exists()
    Ladder.open(tmp_path / "l").add("ann", "random")
    assert Ladder.open(tmp_path / "l").url == url
    with sqlite3.connect(tmp_path / "elsewhere" / "league.db") as db:
        assert db.execute("select name from entries").fetchall() == [("ann",)]
