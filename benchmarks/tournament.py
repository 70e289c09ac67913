"""Tournament throughput with every bot in its own process, against in-process play.

    python benchmarks/tournament.py [--games 1000] [--workers 2] [--agent greedy]
    python benchmarks/tournament.py --backends [--games 200]   # local against Ray, 1 and 2 CPUs

Side by side in one run, on the same schedule (4-player classic, seat-rotated, paired seeds):

* *in-process*: ``workers`` processes play the games with the agents in the same process as the
  game (:func:`agents.arena.play_game`) - no isolation, the speed to match;
* *isolated*: the real tournament (:func:`tournament.run.run_tournament`): the referee, one
  sandboxed bot process per seat speaking the line protocol, fsynced ``games.jsonl``.

Prints both times and their ratio (issue #14: at most 1.5), and checks that both played the
same games (the same final coins: the referee is the in-process game, moved).

With ``--backends`` it measures the real tournament instead on the local backend and on Ray
(a local Ray instance, :mod:`tournament.ray_pool`) at 1 and 2 workers each, side by side, and
prints the games per second, the Ray/local ratio and Ray's overhead per game (the extra
worker-seconds per game), checking that all four played the same games.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, this file's own folder comes first on sys.path and its name would hide the
# tournament package: look in the project root instead.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from tournament.config import tournament_config  # noqa: E402
from tournament.records import read_games  # noqa: E402
from tournament.run import run_tournament  # noqa: E402
from tournament.schedule import GameSpec, schedule  # noqa: E402

_AGENTS: dict = {}


def _in_process(job: tuple[str, dict, GameSpec]) -> tuple[int, list[int]]:
    import agents
    from agents.arena import play_game
    from camelup_env.rules import RuleSet

    spec_name, rules_doc, spec = job
    lineup = []
    for seat, index in enumerate(spec.seats):
        key = (index, seat)
        if key not in _AGENTS:
            _AGENTS[key] = agents.make(spec_name)
        agent = _AGENTS[key]
        agent.reset(spec.seed * 64 + index)
        lineup.append(agent)
    result = play_game(RuleSet.from_dict(rules_doc), lineup, spec.seed)
    return spec.game, result.coins


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--agent", default="greedy")
    parser.add_argument("--backends", action="store_true",
                        help="local against Ray at 1 and 2 workers (needs the distributed extra)")
    args = parser.parse_args()
    if args.backends:
        compare_backends(args.games, args.agent)
        return
    config = tournament_config(None, {
        "name": "bench", "agents": [args.agent] * 4, "players": 4, "games": args.games,
        "preset": "classic", "workers": args.workers})
    games = schedule(config)
    rules_doc = config.ruleset().to_dict()

    start = time.perf_counter()
    with mp.get_context("spawn").Pool(args.workers) as pool:
        baseline = dict(pool.map(_in_process, [(args.agent, rules_doc, g) for g in games],
                                 chunksize=8))
    in_process = time.perf_counter() - start

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run_tournament(config, Path(tmp), progress=False)
        isolated = time.perf_counter() - start
        coins = {r["game"]: r["coins"] for r in read_games(Path(tmp) / "games.jsonl")}
    same = "same games" if coins == baseline else "DIFFERENT GAMES"
    n = len(games)
    print(f"{n} games of 4 x {args.agent}, classic, {args.workers} workers: in-process "
          f"{in_process:.1f} s ({n / in_process:.2f} games/s), isolated {isolated:.1f} s "
          f"({n / isolated:.2f} games/s), ratio {isolated / in_process:.2f} ({same})")


def _timed_run(settings: dict) -> tuple[float, dict]:
    config = tournament_config(None, settings)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run_tournament(config, Path(tmp), progress=False)
        seconds = time.perf_counter() - start
        return seconds, {r["game"]: r["coins"] for r in read_games(Path(tmp) / "games.jsonl")}


def compare_backends(games: int, agent: str) -> None:
    """The --backends mode (module docstring); Ray's start-up is outside the timings."""
    import ray

    ray.init(num_cpus=2, object_store_memory=200 * 2**20, include_dashboard=False,
             log_to_driver=False)
    base = {"name": "bench", "agents": [agent] * 4, "players": 4, "games": games,
            "preset": "classic"}
    for backend in ("local", "ray"):  # untimed: fills the agents' compiled-code caches
        _timed_run({**base, "games": 1, "workers": 1, "backend": backend})
    print(f"4 x {agent}, classic, {games} games (rounded up to whole rounds)")
    print("| workers | local games/s | Ray games/s | Ray / local time | Ray overhead per game |")
    print("|---|---|---|---|---|")
    coins = []
    for workers in (1, 2):
        local, local_coins = _timed_run({**base, "workers": workers})
        on_ray, ray_coins = _timed_run({**base, "workers": workers, "backend": "ray"})
        coins += [local_coins, ray_coins]
        n = len(local_coins)
        overhead = (on_ray - local) * workers / n
        print(f"| {workers} | {n / local:.2f} | {n / on_ray:.2f} | {on_ray / local:.2f} | "
              f"{overhead * 1000:+.1f} ms |")
    print("same games" if all(c == coins[0] for c in coins) else "DIFFERENT GAMES")
    ray.shutdown()


if __name__ == "__main__":
    main()
