"""What kinds of move a player makes at a table: its share of leg bets, race bets, pyramid
tiles and desert-tile moves, seat-rotated against one opponent in every other seat.

``python -m training.afterstate.move_kinds afterstate:SNAPSHOT --opponent champion --games 16``

The afterstate values have twice learned a habit rather than a strength - the seat that rolls
loses, so move one's tile instead (docs/afterstate.md, attempts 11-16) - and a win share alone
does not show it. The count is of the player's own moves only, on the engine with every bot
made fresh for each game.
"""

from __future__ import annotations

import argparse
from collections import Counter

import agents
from camelup_env.game.actions import action_table
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState
from camelup_env.match import play_game


def move_kinds(
    spec: str, opponent: str, games: int, players: int, preset: str = "classic", seed: int = 0
) -> Counter[str]:
    """How often ``spec`` made each kind of move (the action's class name) in ``games``
    games, taking seat ``g % players`` in game ``g`` (deal ``seed + g // players``)."""
    rules = RuleSet(preset, num_players=players)
    table = action_table(rules).actions
    kinds: Counter[str] = Counter()
    for g in range(games):
        seat = g % players
        lineup = [agents.make(spec if s == seat else opponent) for s in range(players)]
        for s, agent in enumerate(lineup):
            agent.reset((seed + g) * 16 + s)

        def count(state: GameState, mover: int, action: int, events: tuple, me: int = seat) -> None:
            if mover == me:
                kinds[type(table[action]).__name__] += 1

        play_game(rules, lineup, seed=seed + g // players, on_step=count, catch=False)
    return kinds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agent", help="the player (an agent spec: afterstate:PATH, champion...)")
    parser.add_argument("--opponent", default="champion", help="the agent in every other seat")
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be >= 1, got {args.games}")
    kinds = move_kinds(args.agent, args.opponent, args.games, args.players, args.preset, args.seed)
    total = sum(kinds.values())
    shares = ", ".join(f"{k} {v / total:.1%}" for k, v in sorted(kinds.items()))
    print(f"{args.agent}: {shares} ({total} moves in {args.games} games)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
