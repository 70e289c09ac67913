"""How long games run under each preset: actions and legs per game with the same bots and seeds.

    .venv/bin/python benchmarks/game_length.py --presets classic persian_tutorial \\
        --agents random,heuristic,greedy,lookahead --games 96 --out game_length.csv

Plays ``--games`` games per preset in one process with :func:`camelup_env.match.play_game` (the
tournament's game loop and seeds), the lineup rotated one seat per game so every bot sits in
every seat equally often, and prints per preset the mean (and standard deviation) of the
actions per game (every decision, as the tournament's ``turns``) and of the legs per game (the
leg the race ended in, R7.1), then each bot's actions by kind (``TakeLegBet``, ``RaceBet``,
...: what it spends its turns on), then the exact command. ``--out`` also writes the first
table as CSV, ``--mix-out`` the second.
"""

from __future__ import annotations

import argparse
import csv
import shlex
import statistics
import sys
from collections import Counter

import agents as registry
from camelup_env.game.actions import action_table
from camelup_env.game.rules import RuleSet
from camelup_env.match import play_game


def measure(
    rules: RuleSet, specs: list[str], games: int
) -> tuple[list[int], list[int], dict[str, Counter]]:
    """(actions, legs) of each of ``games`` games of the rotated lineup under ``rules``, and
    every bot's actions counted by kind."""
    actions, legs = [], []
    mix: dict[str, Counter] = {spec: Counter() for spec in specs}
    kinds = [type(a).__name__ for a in action_table(rules).actions]
    final: dict = {}
    names: list[str] = []

    def keep(state, seat, action, _events) -> None:
        final["state"] = state
        mix[names[seat]][kinds[action]] += 1

    for game in range(games):
        names[:] = [specs[(seat + game) % len(specs)] for seat in range(rules.num_players)]
        lineup = [registry.make(name) for name in names]
        for seat, agent in enumerate(lineup):
            agent.reset(game * 16 + seat)
        result = play_game(rules, lineup, game, catch=False, on_step=keep)
        actions.append(result.turns)
        legs.append(final["state"].leg)
    return actions, legs, mix


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", nargs="+", default=["classic", "persian_tutorial"])
    parser.add_argument(
        "--agents",
        default="random,heuristic,greedy,lookahead",
        help="comma-separated agent names, one per seat",
    )
    parser.add_argument("--games", type=int, default=96)
    parser.add_argument("--out", default=None, help="also write the table to this CSV file")
    parser.add_argument(
        "--mix-out", default=None, help="also write the actions by kind to this CSV file"
    )
    args = parser.parse_args(argv)
    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    rows, mixes = [], []
    for preset in args.presets:
        actions, legs, mix = measure(RuleSet(preset, num_players=len(specs)), specs, args.games)
        for spec, counts in mix.items():
            total = sum(counts.values())
            mixes += [
                {
                    "preset": preset,
                    "agent": spec,
                    "action": kind,
                    "count": count,
                    "share": round(count / total, 3),
                }
                for kind, count in sorted(counts.items(), key=lambda kv: -kv[1])
            ]
        rows.append(
            {
                "preset": preset,
                "games": args.games,
                "agents": " ".join(specs),
                "actions_mean": round(statistics.mean(actions), 2),
                "actions_sd": round(statistics.stdev(actions), 2),
                "legs_mean": round(statistics.mean(legs), 2),
                "legs_sd": round(statistics.stdev(legs), 2),
                "actions_per_leg": round(sum(actions) / sum(legs), 2),
            }
        )
    print(f"{'preset':<18} {'games':>5} {'actions/game':>15} {'legs/game':>12} {'actions/leg':>11}")
    for r in rows:
        print(
            f"{r['preset']:<18} {r['games']:>5} {r['actions_mean']:>8} ± {r['actions_sd']:<5} "
            f"{r['legs_mean']:>5} ± {r['legs_sd']:<4} {r['actions_per_leg']:>11}"
        )
    print("\nactions by kind (share of the bot's actions)")
    for preset in args.presets:
        for spec in specs:
            shares = [
                f"{m['action']} {m['share']:.2f}"
                for m in mixes
                if m["preset"] == preset and m["agent"] == spec
            ]
            print(f"{preset:<18} {spec:<10} " + ", ".join(shares))
    for path, table in ((args.out, rows), (args.mix_out, mixes)):
        if path:
            with open(path, "w", newline="") as f:
                writer = csv.DictWriter(f, fieldnames=list(table[0]))
                writer.writeheader()
                writer.writerows(table)
    print(
        "command: .venv/bin/python benchmarks/game_length.py "
        + shlex.join(argv if argv is not None else sys.argv[1:])
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
