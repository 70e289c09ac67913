"""Tournament throughput with every bot in its own process, against in-process play.

    python benchmarks/tournament.py [--games 1000] [--workers 2] [--agent greedy]
    python benchmarks/tournament.py --backends [--games 200]   # local against Ray, 1 and 2 CPUs

Side by side in one run, on the same schedule (4-player classic, seat-rotated, paired seeds):

* *in-process*: ``workers`` processes play the games with the agents in the same process as the
  game (:func:`camelup_env.match.play_game`) - no isolation, the speed to match;
* *in-process, own caches*: the same, but each agent keeps odds caches of its own (the
  :mod:`camelup_env.odds` LRU dicts, swapped in for each of its moves), as it does in a bot
  process of its own: the share of isolation's cost that is the agents' own extra computing,
  not the messages and processes (the four seats of a table no longer share one position's
  odds; with identical agents and paired seeds that sharing is large);
* *isolated*: the real tournament (:func:`tournament.run.run_tournament`): the referee, one
  sandboxed bot process per seat speaking the line protocol, fsynced ``games.jsonl``.

Prints the three times and the ratios to in-process (the target: isolated at most 1.5), and
checks that all played the same games (the same final coins: the referee is the in-process
game, moved).

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
from collections import OrderedDict
from pathlib import Path

# Run as a script, this file's own folder comes first on sys.path and its name would hide the
# tournament package: look in the project root instead.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from tournament.config import tournament_config  # noqa: E402
from tournament.records import read_games  # noqa: E402
from tournament.run import run_tournament  # noqa: E402
from tournament.schedule import GameSpec, schedule  # noqa: E402

_AGENTS: dict = {}


class _OwnCaches:
    """An agent that plays with odds caches of its own, as in a bot process (module docstring)."""

    def __init__(self, agent) -> None:
        from camelup_env import odds

        self.agent, self.odds = agent, odds
        self.caches = {
            name: OrderedDict()
            for name, value in vars(odds).items()
            if name.endswith("_cache") and isinstance(value, OrderedDict)
        }

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def __call__(self, observation, public_state) -> int:
        for name, cache in self.caches.items():
            setattr(self.odds, name, cache)
        return self.agent(observation, public_state)


def _in_process(job: tuple[str, dict, GameSpec, bool]) -> tuple[int, list[int]]:
    import agents
    from camelup_env.game.rules import RuleSet
    from camelup_env.match import play_game

    spec_name, rules_doc, spec, own_caches = job
    lineup = []
    for seat, index in enumerate(spec.seats):
        key = (index, seat, own_caches)
        if key not in _AGENTS:
            agent = agents.make(spec_name)
            _AGENTS[key] = _OwnCaches(agent) if own_caches else agent
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
    parser.add_argument(
        "--backends",
        action="store_true",
        help="local against Ray at 1 and 2 workers (needs the distributed extra)",
    )
    args = parser.parse_args()
    if args.backends:
        compare_backends(args.games, args.agent)
        return
    config = tournament_config(
        None,
        {
            "name": "bench",
            "agents": [args.agent] * 4,
            "players": 4,
            "games": args.games,
            "preset": "classic",
            "workers": args.workers,
        },
    )
    games = schedule(config)
    rules_doc = config.ruleset().to_dict()

    def in_process(own_caches: bool) -> tuple[float, dict]:
        start = time.perf_counter()
        with mp.get_context("spawn").Pool(args.workers) as pool:
            coins = dict(
                pool.map(
                    _in_process,
                    [(args.agent, rules_doc, g, own_caches) for g in games],
                    chunksize=8,
                )
            )
        return time.perf_counter() - start, coins

    shared, baseline = in_process(False)
    own, own_coins = in_process(True)

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run_tournament(config, Path(tmp), progress=False)
        isolated = time.perf_counter() - start
        coins = {r["game"]: r["coins"] for r in read_games(Path(tmp) / "games.jsonl")}
    same = "same games" if coins == baseline == own_coins else "DIFFERENT GAMES"
    n = len(games)
    print(
        f"{n} games of 4 x {args.agent}, classic, {args.workers} workers: in-process "
        f"{shared:.1f} s ({n / shared:.2f} games/s), in-process with own caches {own:.1f} s "
        f"(ratio {own / shared:.2f}), isolated {isolated:.1f} s ({n / isolated:.2f} "
        f"games/s), ratio {isolated / shared:.2f} ({same})"
    )


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

    ray.init(
        num_cpus=2, object_store_memory=200 * 2**20, include_dashboard=False, log_to_driver=False
    )
    base = {
        "name": "bench",
        "agents": [agent] * 4,
        "players": 4,
        "games": games,
        "preset": "classic",
    }
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
        print(
            f"| {workers} | {n / local:.2f} | {n / on_ray:.2f} | {on_ray / local:.2f} | "
            f"{overhead * 1000:+.1f} ms |"
        )
    print("same games" if all(c == coins[0] for c in coins) else "DIFFERENT GAMES")
    ray.shutdown()


if __name__ == "__main__":
    main()
