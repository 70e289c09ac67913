"""How long games run under each preset: actions and legs per game with the same bots and seeds.

    .venv/bin/python benchmarks/game_length.py --presets classic persian_tutorial \\
        --agents random,heuristic,greedy,lookahead --games 96 --out game_length.csv

Plays ``--games`` games per preset in one process with :func:`agents.arena.play_game` (the
tournament's game loop and seeds), the lineup rotated one seat per game so every bot sits in
every seat equally often, and prints per preset the mean (and standard deviation) of the
actions per game (every decision, as the tournament's ``turns``) and of the legs per game (the
leg the race ended in, R7.1), then the exact command. ``--out`` also writes the table as CSV.
"""

from __future__ import annotations

import argparse
import csv
import shlex
import statistics
import sys

import agents as registry
from agents.arena import play_game
from camelup_env.rules import RuleSet


def measure(rules: RuleSet, specs: list[str], games: int) -> tuple[list[int], list[int]]:
    """(actions, legs) of each of ``games`` games of the rotated lineup under ``rules``."""
    actions, legs = [], []
    final: dict = {}

    def keep(state, *_) -> None:
        final["state"] = state

    for game in range(games):
        lineup = [registry.make(specs[(seat + game) % len(specs)])
                  for seat in range(rules.num_players)]
        for seat, agent in enumerate(lineup):
            agent.reset(game * 16 + seat)
        result = play_game(rules, lineup, game, catch=False, on_step=keep)
        actions.append(result.turns)
        legs.append(final["state"].leg)
    return actions, legs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", nargs="+", default=["classic", "persian_tutorial"])
    parser.add_argument("--agents", default="random,heuristic,greedy,lookahead",
                        help="comma-separated agent names, one per seat")
    parser.add_argument("--games", type=int, default=96)
    parser.add_argument("--out", default=None, help="also write the table to this CSV file")
    args = parser.parse_args(argv)
    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    rows = []
    for preset in args.presets:
        actions, legs = measure(RuleSet(preset, num_players=len(specs)), specs, args.games)
        rows.append({
            "preset": preset, "games": args.games, "agents": " ".join(specs),
            "actions_mean": round(statistics.mean(actions), 2),
            "actions_sd": round(statistics.stdev(actions), 2),
            "legs_mean": round(statistics.mean(legs), 2),
            "legs_sd": round(statistics.stdev(legs), 2),
            "actions_per_leg": round(sum(actions) / sum(legs), 2),
        })
    print(f"{'preset':<18} {'games':>5} {'actions/game':>15} {'legs/game':>12} "
          f"{'actions/leg':>11}")
    for r in rows:
        print(f"{r['preset']:<18} {r['games']:>5} {r['actions_mean']:>8} ± {r['actions_sd']:<5} "
              f"{r['legs_mean']:>5} ± {r['legs_sd']:<4} {r['actions_per_leg']:>11}")
    if args.out:
        with open(args.out, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    print("command: .venv/bin/python benchmarks/game_length.py "
          + shlex.join(argv if argv is not None else sys.argv[1:]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
