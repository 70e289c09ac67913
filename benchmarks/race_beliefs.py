"""How often the champion's reading of hidden race cards names the right camel.

    python benchmarks/race_beliefs.py [--preset classic] [--players 4] [--games 100]
        [--seed 0] [--bots greedy,expert] [--greed 1,2,4,8]

Plays ``--games`` games whose seats are drawn from ``--bots`` (seat 0 included: it is only
watched), and at each of seat 0's turns reads the piles as seat 0 does
(:class:`agents.race_beliefs.RaceCardReader`, one reader per ``--greed``). At the end of each
game every opponent card is scored against its true camel (the referee's state): top-1
accuracy (the belief's most likely camel is the card's) and the Brier score (squared error
summed over camels; lower is better, and it rewards a confident belief only where it is right).
The baseline is greedy's model of a hidden card (it backs a camel in proportion to the race
odds of the moment it is read, :func:`camelup_env.game.payouts.race_card_ev`): the row of
today's odds at the last turn seat 0 saw the card, ``greed = 1`` without the memory of when it
was placed.
"""

from __future__ import annotations

import argparse

import numpy as np

import agents
from agents.race_beliefs import RaceCardReader
from camelup_env import odds
from camelup_env.game.rules import PRESETS, RuleSet
from camelup_env.game.state import GameState
from camelup_env.match import observe, run_game
from camelup_env.observation import public_view


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="classic", choices=PRESETS)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bots", default="greedy,expert")
    parser.add_argument("--greed", default="1,2,4,8")
    args = parser.parse_args()
    rules = RuleSet(args.preset, num_players=args.players)
    mix = [b for b in args.bots.split(",") if b]
    bots = {b: agents.make(b) for b in mix}
    greeds = [float(g) for g in args.greed.split(",")]
    pick = np.random.default_rng([args.seed, 11])
    hits = {g: [] for g in ["today", *greeds]}
    brier = {g: [] for g in ["today", *greeds]}
    for g in range(args.games):
        seats = [bots[mix[i]] for i in pick.integers(0, len(mix), rules.num_players)]
        readers = {k: RaceCardReader(k) for k in greeds}
        read: dict = {}
        last: list[GameState] = []

        def move(
            state: GameState,
            thinking: list[float],
            seats=seats,
            readers=readers,
            read=read,
            last=last,
        ) -> int:
            if state.current == 0 and not state.extra_pending:
                view = public_view(state, 0)
                race = odds.position_odds(view, 1000).race
                for k, reader in readers.items():
                    read[k] = reader.update(view, 0, race.winner, race.loser)
                read["today"] = tuple(
                    np.tile(p, (len(pile), 1))
                    for pile, p in ((view.winner_pile, race.winner), (view.loser_pile, race.loser))
                )
                last[:] = [state]
            return int(seats[state.current](observe(state, state.current), state))

        run_game(rules, args.seed + g, move)
        if not last:
            continue
        truth = last[0]
        for k, (win, lose) in read.items():
            for pile, rows in ((truth.winner_pile, win), (truth.loser_pile, lose)):
                for (owner, camel), row in zip(pile, rows, strict=False):
                    if owner != 0:
                        hits[k].append(int(np.argmax(row)) == camel)
                        brier[k].append(float(((row - np.eye(len(row))[camel]) ** 2).sum()))
    print(f"{args.preset}, {args.players} players, {args.games} games, bots {args.bots}")
    for k in hits:
        name = "today's odds (greedy's model)" if k == "today" else f"reader, greed {k:g}"
        print(
            f"{name:32} cards {len(hits[k]):5}  top-1 {np.mean(hits[k]):.3f}  "
            f"Brier {np.mean(brier[k]):.3f}"
        )


if __name__ == "__main__":
    main()
