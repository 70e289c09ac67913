"""The ladder's costs: its bookkeeping against a tournament's, and its table page under load.

    python benchmarks/ladder.py throughput [--games 240] [--workers 2] [--repeats 2]
                                           [--agents greedy,greedy,heuristic,random]
    python benchmarks/ladder.py table [--bots 100] [--games 100000] [--readers 20]
                                      [--seconds 20] [--keep DIR]

``throughput`` plays the same bots on the same machine as a tournament (``camelup tournament``:
:func:`tournament.run.run_tournament`, luck included) and as a ladder (``camelup ladder run``:
:func:`tournament.ladder.runner.run_ladder`, which adds the claims, the ratings and the index
in the database), ``--repeats`` times each, alternating, and prints the games an hour of each
and the ratio ladder / tournament (the target: at least 0.9). Four agents at four players:
both play every game with the same four bots, so the games are alike.

``table`` builds a ladder of ``--bots`` bots holding ``--games`` stored games (synthetic
results, stored through the ladder's own :func:`tournament.ladder.results.record_game`, a
thousand a transaction; their records are placeholders, so only the table and the ratings are
real), serves it with ``camelup serve --ladder``, and measures the ``/ladder`` page's latency
at ``--readers`` concurrent readers (each a thread with its own HTTP connection, one request
after another) for ``--seconds``: first with nothing else running (the baseline of the same
run), then while ``camelup ladder run`` plays and stores games in the same database. Prints
p50/p99/max of each, the games stored meanwhile and the ratio of the two p99s (the target: p99
under 200 ms while the run writes).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

# Run as a script, this file's own folder comes first on sys.path: look in the project root.
ROOT = Path(__file__).resolve().parents[1]
sys.path[0] = str(ROOT)

from sqlalchemy import insert  # noqa: E402

from tournament.config import tournament_config  # noqa: E402
from tournament.ladder import schema  # noqa: E402
from tournament.ladder.claims import register, unregister  # noqa: E402
from tournament.ladder.results import Place, record_game  # noqa: E402
from tournament.ladder.runner import run_ladder  # noqa: E402
from tournament.ladder.store import Ladder, Settings, new_id  # noqa: E402
from tournament.run import run_tournament  # noqa: E402
from tournament.schedule import schedule  # noqa: E402


def throughput(args: argparse.Namespace) -> None:
    agents = args.agents.split(",")
    config = tournament_config(
        None,
        {
            "name": "bench",
            "agents": agents,
            "players": 4,
            "games": args.games,
            "workers": args.workers,
        },
    )
    games = len(schedule(config))
    rules = config.ruleset()
    seconds = {"tournament": 0.0, "ladder": 0.0}
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(args.repeats):
            out = Path(tmp) / f"t{repeat}"
            start = time.perf_counter()
            run_tournament(config, out, progress=False)
            seconds["tournament"] += time.perf_counter() - start
            folder = Path(tmp) / f"l{repeat}"
            settings = Settings(
                preset=rules.preset,
                players=4,
                rules={},
                seed=0,
                limits=config.limits(),
                max_turns=config.max_turns,
                suspend_after=3,
                newcomer_games=0,
            )
            ladder = Ladder.create(folder, settings)
            for i, spec in enumerate(agents):
                ladder.add(f"bot{i}", spec)
            start = time.perf_counter()
            stored = run_ladder(folder, workers=args.workers, games=games, say=lambda _: None)
            seconds["ladder"] += time.perf_counter() - start
            assert stored == games, (stored, games)
    rate = {k: 3600 * games * args.repeats / v for k, v in seconds.items()}
    print(f"{games} games x {args.repeats}, agents {args.agents}, {args.workers} workers")
    for key, value in rate.items():
        print(f"  {key:<10} {value:10,.0f} games/hour  ({seconds[key]:.1f} s)")
    print(f"  ratio ladder / tournament: {rate['ladder'] / rate['tournament']:.3f} (target >= 0.9)")


def build(folder: Path, bots: int, games: int, players: int = 4) -> None:
    """A ladder of ``bots`` random bots holding ``games`` synthetic stored games (module
    docstring), or the rest of them where ``folder`` holds fewer (the build resumes): bot
    ``i`` wins more often the larger ``i``, so the table has an order."""
    if (folder / "ladder.json").exists():
        ladder = Ladder.open(folder)
        settings = ladder.settings()
        entries = ladder.entries()
    else:
        settings = Settings(
            preset="classic",
            players=players,
            rules={},
            seed=0,
            limits=tournament_config(None, {"agents": ["random"]}).limits(),
            max_turns=2000,
            suspend_after=3,
            newcomer_games=0,
        )
        ladder = Ladder.create(folder, settings)
        entries = [ladder.add(f"b{i:03d}", "random") for i in range(bots)]
    runner = register(ladder)
    segment = folder / "games" / "bulk"
    segment.mkdir(parents=True, exist_ok=True)
    deals = games // players
    start = stored_games(folder) // players
    rng = random.Random(start)
    with open(segment / "games.jsonl", "ab") as log:
        for first in range(start, deals, 250):
            with ladder.engine.begin() as conn:
                for deal in range(first, min(first + 250, deals)):
                    table = rng.sample(entries, players)
                    for rotation in range(players):
                        seats = [table[(i + rotation) % players] for i in range(players)]
                        strength = [e.id + rng.gauss(0, bots / 3) for e in seats]
                        order = sorted(range(players), key=lambda s: -strength[s])
                        ranks = [order.index(s) + 1 for s in range(players)]
                        game = new_id(
                            conn.execute(
                                insert(schema.games).values(
                                    deal=deal,
                                    rotation=rotation,
                                    seed=deal,
                                    seats=json.dumps([e.id for e in seats]),
                                    status="claimed",
                                    runner_id=runner.id,
                                    claimed_at=time.time(),
                                )
                            )
                        )
                        record = {
                            "game": game,
                            "seed": deal,
                            "agents": [e.label for e in seats],
                            "ranks": ranks,
                            "coins": [10 * (players - r) for r in ranks],
                            "scores": [10 * (players - r) for r in ranks],
                            "winner_seats": [ranks.index(1)],
                            "forfeit": None,
                            "turns": 0,
                            "actions": [],
                            "luck": [rng.gauss(0, 0.1) for _ in seats],
                        }
                        line = (json.dumps(record) + "\n").encode()
                        place = Place("bulk", log.seek(0, os.SEEK_END), len(line))
                        log.write(line)
                        record_game(conn, settings, runner.id, record, place)
            print(f"\r  built {min(first + 250, deals) * players:,} games", end="", flush=True)
    print()
    unregister(ladder, runner)
    ladder.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def readers(port: int, count: int, seconds: float) -> list[float]:
    """``count`` threads reading ``/ladder`` for ``seconds``; every request's latency (an error
    stops the run)."""
    latencies: list[float] = []
    errors: list[str] = []
    end = time.monotonic() + seconds

    def read() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while time.monotonic() < end:
            start = time.perf_counter()
            conn.request("GET", "/ladder")
            answer = conn.getresponse()
            answer.read()
            latencies.append(time.perf_counter() - start)
            if answer.status != 200:
                errors.append(str(answer.status))
        conn.close()

    threads = [threading.Thread(target=read) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise SystemExit(f"{len(errors)} requests failed: {errors[:3]}")
    return latencies


def quantile(latencies: list[float], q: float) -> float:
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def quantiles(latencies: list[float]) -> str:
    p50, p99, most = (1000 * quantile(latencies, q) for q in (0.5, 0.99, 1.0))
    return f"{len(latencies):6d} requests  p50 {p50:6.1f} ms  p99 {p99:6.1f} ms  max {most:6.1f} ms"


def stored_games(folder: Path) -> int:
    with sqlite3.connect(folder / "ladder.db") as db:
        return db.execute("select count(*) from games where status = 'done'").fetchone()[0]


def table(args: argparse.Namespace) -> None:
    tmp = tempfile.TemporaryDirectory()
    folder = Path(args.keep) if args.keep else Path(tmp.name) / "ladder"
    if not (folder / "ladder.json").exists() or stored_games(folder) < args.games:
        start = time.perf_counter()
        build(folder, args.bots, args.games)
        print(f"  built in {time.perf_counter() - start:.0f} s")
    port = free_port()
    command = [sys.executable, "-m", "camelup_cli.main"]
    server = subprocess.Popen(
        [*command, "serve", "--ladder", str(folder), "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    runner = None
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.2)
        readers(port, args.readers, 2.0)  # warm-up
        quiet = readers(port, args.readers, args.seconds)
        before = stored_games(folder)
        runner = subprocess.Popen(
            [*command, "ladder", "run", str(folder), "--workers", "2"],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        while stored_games(folder) == before:  # the run is storing games
            time.sleep(0.2)
        started = stored_games(folder)
        busy = readers(port, args.readers, args.seconds)
        written = stored_games(folder) - started
    finally:
        for process, stop in ((runner, signal.SIGINT), (server, signal.SIGTERM)):
            if process is not None:
                process.send_signal(stop)
                process.wait(60)
        tmp.cleanup()
    print(f"/ladder, {args.bots} bots, {before:,} games, {args.readers} readers")
    print(f"  alone:              {quantiles(quiet)}")
    print(f"  while a run writes: {quantiles(busy)}  ({written} games stored meanwhile)")
    ratio = quantile(busy, 0.99) / quantile(quiet, 0.99)
    print(f"  p99 ratio writing / alone: {ratio:.2f} (target: p99 < 200 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="part", required=True)
    one = sub.add_parser("throughput")
    one.add_argument("--games", type=int, default=240)
    one.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    one.add_argument("--repeats", type=int, default=2)
    one.add_argument("--agents", default="greedy,greedy,heuristic,random")
    two = sub.add_parser("table")
    two.add_argument("--bots", type=int, default=100)
    two.add_argument("--games", type=int, default=100_000)
    two.add_argument("--readers", type=int, default=20)
    two.add_argument("--seconds", type=float, default=20.0)
    two.add_argument("--keep", help="build the ladder here (or reuse the one there)")
    args = parser.parse_args()
    throughput(args) if args.part == "throughput" else table(args)


if __name__ == "__main__":
    main()
