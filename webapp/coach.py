"""The coach: the numbers the ``greedy`` bot plays by, for the person's position.

Computed from the person's public view only (R10), like any bot's: the exact leg odds
(:func:`camelup_env.odds.leg_rank_probabilities`), the race estimate greedy values race bets
with (:func:`camelup_env.odds.position_odds`), and each legal action's expected immediate coins
(:meth:`agents.greedy.GreedyAgent.action_values` with greedy's own defaults, so the largest is
greedy's move), and each seat's chance to win the game from the win-probability model
(:mod:`camelup_env.odds.win`, valuing the other seats' hidden race cards by drawing them from
the race odds, never by reading them). The ``camelup odds`` command of the same position comes
with them, so anyone can check the leg odds in the terminal.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from agents.greedy import GreedyAgent
from camelup_env import odds
from camelup_env.game.notation import position_notation
from camelup_env.game.state import GameState
from camelup_env.odds.win import load_win_model


@dataclass(frozen=True)
class Coach:
    """What the coach shows for one position."""

    colours: tuple[str, ...]  # the racing camels, in camel order
    leg: tuple[tuple[float, ...], ...]  # leg[camel][rank]: P(camel ends the leg at rank)
    race_winner: tuple[float, ...]  # P(camel wins the race), Monte Carlo
    race_loser: tuple[float, ...]  # P(camel is last), Monte Carlo
    values: dict[int, float]  # legal action index -> expected immediate coins
    best: int  # the action greedy plays (ties to the lowest index, as greedy)
    command: str  # `camelup odds` of this position
    win: tuple[float, ...] | None  # P(seat wins the game), None without a fitted model


def coach(view: GameState, legal: list[int]) -> Coach:
    """The coach's numbers for the seat on move in ``view``, its public view, over ``legal``."""
    greedy = GreedyAgent()
    values = greedy.action_values(view, legal)
    top = max(values.values())
    shared = odds.position_odds(view, greedy.race_samples)
    track, dice, tiles = position_notation(view)
    rules = view.rules
    argv = [
        "camelup",
        "odds",
        "--preset",
        rules.preset,
        "--players",
        str(rules.num_players),
        "--track",
        track,
        "--dice-left",
        dice,
    ]
    if tiles:
        argv += ["--tiles", tiles]
    return Coach(
        colours=rules.racing_colours,
        leg=tuple(tuple(float(p) for p in row) for row in shared.leg),
        race_winner=tuple(float(p) for p in shared.race.winner),
        race_loser=tuple(float(p) for p in shared.race.loser),
        values={i: float(v) for i, v in values.items()},
        best=min(i for i, v in values.items() if v >= top - 1e-12),
        command=shlex.join(argv),
        win=_win_chances(view),
    )


def _win_chances(view: GameState) -> tuple[float, ...] | None:
    try:
        model = load_win_model(view.rules)
    except ValueError:  # no model fitted for this preset
        return None
    return tuple(float(p) for p in model([view])[0])
