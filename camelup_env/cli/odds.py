"""Exact leg odds, leg-bet EVs and Monte Carlo race odds for a position.

Example::

    camelup odds --preset classic --track "1:orange;2:yellow,blue;3:green,white" \\
        --dice-left blue,green --tiles "4:-1;7:+1"
    camelup odds --preset supercup --track "1:orange;2:yellow,blue;3:green,white" \\
        --dice-left "blue,green,orange+"

With ``--preset supercup`` (20-space track, module 1) a support die is written as its camel's
colour followed by ``+`` (``orange+``); each die left is one reveal.

The notation is described in :mod:`camelup_env.game.notation`. ``--json`` prints
``{"leg": {camel: [p_rank1, ...]}, "race": {"winner": {camel: p}, "loser": {camel: p}}}`` plus
``"race_se"`` (standard errors), ``"leg_bet_ev"`` (null where no tile is left) and
``"race_samples"``. A malformed position is reported on stderr with exit code 2.

``--win`` adds each seat's chance to win the game (the win-probability model of
:mod:`camelup_env.odds.win`, ``docs/luck.md``), with the seats' coins from ``--coins``
(default: the starting coins) and nothing else held; JSON key ``"win"``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import TYPE_CHECKING

from camelup_env.game.rules import PRESETS

if TYPE_CHECKING:  # imported when run, not when the CLI starts
    import numpy as np

    from camelup_env.game.state import GameState
    from camelup_env.odds import RaceOdds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", choices=PRESETS, default="classic")
    parser.add_argument(
        "--track",
        required=True,
        help='stacks bottom->top, e.g. "1:orange;2:yellow,blue;3:green,white"',
    )
    parser.add_argument(
        "--dice-left",
        default=None,
        help='dice still in the pyramid, e.g. "blue,green,grey"; a Supercup '
        'support die is its colour + "+", e.g. "blue,white+" (default: '
        "the dice of a leg start; Supercup: racing dice + the last "
        "camel's support die)",
    )
    parser.add_argument(
        "--tiles",
        default=None,
        help='desert/spectator tiles, e.g. "4:-1;7:+1@2" (space:side[@seat])',
    )
    parser.add_argument(
        "--wanderer",
        type=int,
        default=None,
        help="persian_tutorial: the desert wanderer's space (default: the "
        "farthest camel's, at least 2)",
    )
    parser.add_argument("--players", type=int, default=4, help="number of players (tile owners)")
    parser.add_argument(
        "--race-samples",
        type=int,
        default=10_000,
        help="Monte Carlo races for the race odds (default 10000)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the race rollouts")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument(
        "--win", action="store_true", help="each seat's chance to win the game (docs/luck.md)"
    )
    parser.add_argument("--coins", default=None, help='with --win: coins per seat, e.g. "3,7,2,5"')


def run(args: argparse.Namespace) -> int:
    from camelup_env.game.notation import PositionError, parse_position
    from camelup_env.odds import leg_bet_evs, leg_rank_probabilities, race_probabilities
    from camelup_env.odds.race import MAX_RACE_SAMPLES

    if not 1 <= args.race_samples <= MAX_RACE_SAMPLES:
        print(
            f"camelup odds: error: --race-samples must be between 1 and {MAX_RACE_SAMPLES:,}, "
            f"got {args.race_samples:,}",
            file=sys.stderr,
        )
        return 2
    try:
        state = parse_position(
            args.preset,
            args.track,
            args.dice_left,
            args.tiles,
            num_players=args.players,
            wanderer=args.wanderer,
        )
        if args.win:
            state = _with_coins(state, args.coins)
    except (PositionError, ValueError) as exc:
        print(f"camelup odds: error: {exc}", file=sys.stderr)
        return 2
    win = None
    if args.win:
        from camelup_env.odds.win import load_win_model

        try:
            win = load_win_model(state.rules)([state])[0]
        except ValueError as exc:
            print(f"camelup odds: error: {exc}", file=sys.stderr)
            return 2
    names = state.rules.racing_colours
    leg = leg_rank_probabilities(state)
    evs = leg_bet_evs(state)
    race = race_probabilities(state, args.race_samples, args.seed)
    if args.json:
        doc = {
            "leg": {name: [float(p) for p in leg[c]] for c, name in enumerate(names)},
            "race": {
                "winner": {name: float(race.winner[c]) for c, name in enumerate(names)},
                "loser": {name: float(race.loser[c]) for c, name in enumerate(names)},
            },
            "race_se": {
                "winner": {name: float(race.winner_se[c]) for c, name in enumerate(names)},
                "loser": {name: float(race.loser_se[c]) for c, name in enumerate(names)},
            },
            "leg_bet_ev": {
                name: None if math.isnan(evs[c]) else float(evs[c]) for c, name in enumerate(names)
            },
            "race_samples": race.n_samples,
        }
        if win is not None:
            doc["win"] = [float(p) for p in win]
        print(json.dumps(doc, indent=2))
        return 0
    _print_tables(state, leg, evs, race)
    if win is not None:
        coins = ", ".join(f"seat {s}: {c}" for s, c in enumerate(state.coins))
        print(f"Chance to win the game ({coins}):")
        print("  " + "  ".join(f"seat {s} {p:.3f}" for s, p in enumerate(win)))
    return 0


def _with_coins(state: GameState, coins: str | None) -> GameState:
    """``state`` with the seats' ``coins`` (``--coins``), checked."""
    if coins is not None:
        try:
            values = tuple(int(c) for c in coins.split(","))
        except ValueError:
            raise ValueError(
                f"--coins must be whole numbers separated by commas, got {coins!r}"
            ) from None
        if len(values) != state.rules.num_players:
            raise ValueError(
                f"--coins gives {len(values)} seats, the game has {state.rules.num_players} "
                "(--players)"
            )
        state = state.copy()
        state.coins = values
    return state


def _print_tables(state: GameState, leg: np.ndarray, evs: np.ndarray, race: RaceOdds) -> None:
    from rich.console import Console
    from rich.table import Table

    names = state.rules.racing_colours
    n = len(names)
    from camelup_env.game.notation import die_notation

    dice = ", ".join(die_notation(state.rules, d) for d in state.pyramid)
    console = Console(highlight=False)
    table = Table(title=f"Leg odds ({state.pyramid_tiles_left} reveals left; dice: {dice})")
    table.add_column("camel")
    for r in range(n):
        table.add_column(f"rank {r + 1}", justify="right")
    table.add_column("leg bet EV", justify="right")
    for c, name in enumerate(names):
        ev = "-" if math.isnan(evs[c]) else f"{evs[c]:+.3f}"
        table.add_row(name, *(f"{p:.4f}" for p in leg[c]), ev)
    console.print(table)
    method = "exact" if race.exact else f"Monte Carlo, {race.n_samples} races"
    race_table = Table(title=f"Race odds ({method})")
    race_table.add_column("camel")
    race_table.add_column("P(winner)", justify="right")
    race_table.add_column("P(loser)", justify="right")
    for c, name in enumerate(names):
        race_table.add_row(
            name,
            f"{race.winner[c]:.4f} ± {race.winner_se[c]:.4f}",
            f"{race.loser[c]:.4f} ± {race.loser_se[c]:.4f}",
        )
    console.print(race_table)
