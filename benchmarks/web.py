"""The web app under many players: simulated players through real HTTP against ``camelup serve``.

    python benchmarks/web.py [--games 200] [--concurrent 50] [--opponents random]
                             [--players 2] [--think 0] [--pause 0]

Starts a real ``camelup serve`` process on a free port (``--max-games`` and
``--max-games-per-client`` set to ``--concurrent``: every player is 127.0.0.1; a finished game
is forgotten after ``--idle-timeout``, 10 s, so that the last memory figure, taken ``--settle``
seconds after the games, is of a server with no games left), then
``--concurrent`` players, each a thread with an HTTP connection of its own, play ``--games``
games in all as a browser does: ``GET /play`` (answered 303), the game page, then for each of
its turns a random button's ``POST`` (303) and the page it leads to, waiting ``--think`` seconds
before each move; once in every game a player goes idle for ``--pause`` seconds (longer than the
server's idle threads live, to catch bots that die with a thread). At the end of each game it
reads ``state.json`` for the result.

Prints requests, requests per second, p50/p99/max latency (and the p50 of one player alone,
the warm-up game, as the baseline of the same run), errors (a status other than 200 or
303, or no answer), forfeits (with their reasons), and the server's resident memory (VmRSS) at
start, after one warm-up game (the imports a first game makes), after the games, and after the
server's sweeper has had time to run. The run is one measurement of this machine as it is:
say what else it was running.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import re
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUTTON = re.compile(r'formaction="(/game/[\w-]+/move/\d+/\d+)"')


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


class Player:
    """One simulated person with a connection of their own; records every request's time."""

    def __init__(self, port: int, args: argparse.Namespace, seed: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.args, self.rng = args, random.Random(seed)
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.forfeits: list[str] = []

    def request(self, method: str, path: str) -> tuple[int, str, str]:
        start = time.perf_counter()
        try:
            self.connection.request(method, path)
            response = self.connection.getresponse()
            body = response.read().decode()
        except (OSError, http.client.HTTPException) as exc:
            self.connection.close()
            self.errors.append(f"{method} {path}: {type(exc).__name__}: {exc}")
            return 0, "", ""
        self.latencies.append(time.perf_counter() - start)
        if response.status not in (200, 303):
            self.errors.append(f"{method} {path}: {response.status} {body.strip()[:200]}")
        return response.status, response.getheader("location") or "", body

    def play(self) -> None:
        args = self.args
        query = f"preset=classic&players={args.players}&seat=0&opponents={args.opponents}"
        status, where, _ = self.request("GET", f"/play?{query}")
        if status != 303:
            return
        status, _, page = self.request("GET", where)
        pause_at = self.rng.randrange(1, 10)
        moves = 0
        while status == 200:
            buttons = BUTTON.findall(page)
            if not buttons:
                break
            moves += 1
            if moves == pause_at and args.pause:
                self.connection.close()  # the server drops idle connections after 5 s
                time.sleep(args.pause)
            elif args.think:
                time.sleep(args.think)
            status, after, _ = self.request("POST", self.rng.choice(buttons))
            if status != 303:
                return
            status, _, page = self.request("GET", after)
        status, _, text = self.request("GET", f"{where}/state.json")
        if status == 200:
            result = json.loads(text)["result"]
            if result is None:
                self.errors.append(f"{where}: no buttons and no result")
            elif result["forfeit"] is not None:
                self.forfeits.append(result["forfeit"]["reason"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--concurrent", type=int, default=50)
    parser.add_argument("--opponents", default="random")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--think", type=float, default=0.0, help="seconds before each move")
    parser.add_argument(
        "--pause", type=float, default=0.0, help="one idle gap per game, s (under --idle-timeout)"
    )
    parser.add_argument(
        "--idle-timeout", type=float, default=10.0, help="the server's --idle-timeout, s"
    )
    parser.add_argument("--settle", type=float, default=15.0, help="seconds before last RSS")
    args = parser.parse_args()
    if args.games < 1 or args.concurrent < 1:
        parser.error("--games and --concurrent must be at least 1")

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "camelup_cli", "serve", "--port", str(port)]
    command += ["--max-games", str(args.concurrent)]
    command += ["--max-games-per-client", str(args.concurrent)]
    command += ["--idle-timeout", str(args.idle_timeout)]
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        server.stdout.readline()  # "camelup serve: http://..." once it is listening
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        rss_start = rss_mb(server.pid)
        alone = Player(port, argparse.Namespace(**{**vars(args), "pause": 0, "think": 0}), 0)
        alone.play()
        rss_warm = rss_mb(server.pid)

        left = iter(range(args.games))
        lock = threading.Lock()
        players = [Player(port, args, seed) for seed in range(1, args.concurrent + 1)]

        def work(player: Player) -> None:
            while True:
                with lock:
                    if next(left, None) is None:
                        return
                player.play()

        threads = [threading.Thread(target=work, args=(p,)) for p in players]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        seconds = time.perf_counter() - start
        rss_end = rss_mb(server.pid)
        time.sleep(args.settle)
        rss_settled = rss_mb(server.pid)
    finally:
        server.terminate()
        server.wait(30)

    latencies = sorted(x for p in players for x in p.latencies)
    errors = [e for p in players for e in p.errors]
    forfeits = Counter(f for p in players for f in p.forfeits)
    n = len(latencies)

    def pct(q: float) -> float:
        return latencies[min(n - 1, int(q * n))] if n else float("nan")

    print(
        f"{args.games} games ({args.players} players, opponents {args.opponents}), "
        f"{args.concurrent} at once, think {args.think:g} s, pause {args.pause:g} s"
    )
    print(f"requests: {n} in {seconds:.1f} s = {n / seconds:.1f} per second")
    print(
        f"latency: p50 {pct(0.5) * 1000:.0f} ms, p99 {pct(0.99) * 1000:.0f} ms, "
        f"max {latencies[-1] * 1000 if n else float('nan'):.0f} ms"
    )
    baseline = sorted(alone.latencies)[len(alone.latencies) // 2]
    print(
        f"baseline, one player alone (the warm-up game, same run): p50 {baseline * 1000:.1f} ms;"
        f" p50 under load is {pct(0.5) / baseline:.1f}x that"
    )
    print(f"errors: {len(errors)}" + "".join(f"\n  {e}" for e in errors[:10]))
    print(
        f"forfeits: {sum(forfeits.values())}"
        + "".join(f"\n  {k}: {v}" for k, v in forfeits.items())
    )
    print(
        f"server RSS: start {rss_start:.0f} MB, after a warm-up game {rss_warm:.0f} MB, "
        f"after the games {rss_end:.0f} MB, {args.settle:g} s later {rss_settled:.0f} MB "
        f"({rss_settled - rss_start:+.0f} MB from start)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
