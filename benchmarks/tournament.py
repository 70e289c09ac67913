"""Tournament throughput: greedy-vs-greedy 4-player classic games per second.

    python benchmarks/tournament.py [--games 1000] [--workers N]

Plays the games through the real tournament runner (worker processes, forfeit watchdog,
fsynced games.jsonl) into a temporary folder and prints games per second. The target of
issue #5 is 1,000 games in under 2 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from training.tournament import load_config, run_tournament


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--agent", default="greedy")
    args = parser.parse_args()
    config = load_config(None, {"name": "bench", "agents": [args.agent] * 4, "players": 4,
                                "games": args.games, "preset": "classic"})
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        summary = run_tournament(config, Path(tmp), workers=args.workers, progress=False)
        elapsed = time.perf_counter() - start
    games = summary["games"]
    print(f"{games} games of 4 x {args.agent}, classic, {args.workers} workers: "
          f"{elapsed:.1f} s, {games / elapsed:.2f} games/s "
          f"({'meets' if elapsed * 1000 / games < 120 else 'misses'} the 1,000 games in "
          f"2 minutes target)")


if __name__ == "__main__":
    main()
