"""What the luck-adjusted figures cost the referee, against the games they adjust.

    python benchmarks/luck_cost.py [--games 40] [--seed 9900000]

For each rule set with a shipped win-probability model: the seconds once per process (the
deals' mean, :func:`camelup_env.odds.luck.setup_mean`, behind
:meth:`tournament.luck.GameLuck.shipped`), then per game the replay with the ledger
(:meth:`tournament.luck.GameLuck.of_game`) against the game's own play by greedy in every seat,
measured in the same run on the same games. Ends with one line per rule set:

    luck cost: PRESET Np: once S s; L s a game = R x the game's play (G s)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])

import agents  # noqa: E402
from camelup_env.game.rules import RuleSet  # noqa: E402
from camelup_env.match import observe, run_game  # noqa: E402
from tournament.luck import GameLuck  # noqa: E402

GAMES = (("classic", 2), ("classic", 4), ("second_edition", 4))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=9_900_000)
    args = parser.parse_args()
    for preset, players in GAMES:
        rules = RuleSet(preset, num_players=players)
        start = time.perf_counter()
        luck = GameLuck.shipped(rules)
        once = time.perf_counter() - start
        assert luck is not None, f"{preset}/{players} has no shipped model"
        bots = [agents.make("greedy") for _ in range(players)]

        def play(seed: int, bots: list = bots, rules: RuleSet = rules) -> tuple[int, list]:
            for bot in bots:
                bot.reset(seed)

            def move(state, thinking):
                return int(bots[state.current](observe(state, state.current), state))

            return seed, run_game(rules, seed, move)[1]

        luck.of_game(*play(args.seed - 1))  # warms both sides' kernels; not counted
        start = time.perf_counter()
        games = [play(seed) for seed in range(args.seed, args.seed + args.games)]
        game = (time.perf_counter() - start) / args.games
        start = time.perf_counter()
        for seed, actions in games:
            luck.of_game(seed, actions)
        per_game = (time.perf_counter() - start) / args.games
        print(
            f"luck cost: {preset} {players}p: once {once:.1f} s; {per_game:.3f} s a game = "
            f"{per_game / game:.2f} x the game's play ({game:.3f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
