"""What the templates show, built from a game's public view: players, moves, buttons, result.

Everything here reads a :class:`~camelup_env.game.state.GameState` that is already a public view
(or, in Watch, a finished game's replay) and events already hidden for the viewer, so nothing
a seat may not see can reach a page from here. Names from bots and results files are plain
strings; the templates escape them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markupsafe import Markup

from camelup_env.game.actions import (
    PlaceTile,
    RaceBet,
    TakeLegBet,
    TakePyramidTile,
    action_table,
    describe,
)
from camelup_env.game.events import Event, GameOver
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState
from camelup_env.match import GameResult
from camelup_env.render.event_text import describe_event
from camelup_env.render.svg import render_svg

#: button groups, in page order: the action kinds of every preset, the rest after them
GROUPS = (
    (TakePyramidTile, "Roll"),
    (TakeLegBet, "Leg bets"),
    (RaceBet, "Race bets"),
    (PlaceTile, "Tiles"),
)


@dataclass(frozen=True)
class PlayerRow:
    seat: int
    label: str
    coins: int
    leg_bets: tuple[tuple[str, int], ...]  # (colour, value) in the order taken
    pyramid_tiles: int
    tile: str
    cards: str  # the race cards still in hand: colours where the viewer may see them
    to_move: bool
    partner: int


@dataclass(frozen=True)
class Button:
    index: int
    text: str


def board(view: GameState, viewer: int | None) -> Markup:
    """The board's SVG, safe to put in a page as it is (it escapes every name itself)."""
    return Markup(render_svg(view, viewer))


def players(view: GameState, labels: list[str], viewer: int | None) -> list[PlayerRow]:
    """One row per seat. The hands of seats other than ``viewer`` show only how many cards they
    hold (R10); ``viewer=None`` (a replay of a finished game) shows every hand."""
    rules = view.rules
    col = rules.colours
    rows = []
    for seat in range(rules.num_players):
        tile = view.tile_of(seat)
        placed = sum(owner == seat for owner, _ in (*view.winner_pile, *view.loser_pile))
        if viewer is None or seat == viewer:
            held = [col[c] for c in range(rules.n_racing) if view.hands[seat] >> c & 1]
            cards = ", ".join(held) or "none"
        else:
            cards = f"{rules.n_racing - placed} hidden"
        rows.append(
            PlayerRow(
                seat=seat,
                label=labels[seat],
                coins=view.coins[seat],
                leg_bets=tuple((col[c], v) for c, v in view.leg_bets[seat]),
                pyramid_tiles=view.pyramid_tiles[seat],
                tile=f"space {tile[0]}, {tile[1]:+d}" if tile else "in hand",
                cards=cards,
                to_move=seat == view.current and not view.game_over,
                partner=view.partners[seat],
            )
        )
    return rows


def named(text: str, labels: list[str]) -> str:
    """``player 2`` -> ``player 2 (greedy)`` in an event's words."""
    return re.sub(r"\bplayer (\d+)", lambda m: f"player {m[1]} ({labels[int(m[1])]})", text)


def move_lines(
    rules: RuleSet, seat: int, action: int | None, events: tuple[Event, ...], labels: list[str]
) -> tuple[str, list[str]]:
    """A move in words: the headline (who did what) and its events, one string each.
    ``action`` None is a race bet whose colour the viewer may not see (R10)."""
    what = (
        "bet on a camel, colour hidden"
        if action is None
        else describe(action_table(rules).actions[action], rules)
    )
    head = f"P{seat} ({labels[seat]}): {what}"
    return head, [
        named(describe_event(e, rules), labels) for e in events if not isinstance(e, GameOver)
    ]


def buttons(rules: RuleSet, legal: list[int]) -> list[tuple[str, list[Button]]]:
    """The legal actions as labelled buttons, grouped by kind (:data:`GROUPS`)."""
    table = action_table(rules).actions
    groups: dict[str, list[Button]] = {name: [] for _, name in GROUPS}
    for index in legal:
        action = table[index]
        name = next((n for kind, n in GROUPS if isinstance(action, kind)), "Other")
        groups.setdefault(name, []).append(Button(index, describe(action, rules)))
    return [(name, items) for name, items in groups.items() if items]


def scoreboard(result: GameResult) -> list[tuple[int, int, int]]:
    """(rank, seat, score) best first; ties in seat order."""
    order = sorted(range(len(result.ranks)), key=lambda s: (result.ranks[s], s))
    return [(result.ranks[s], s, result.scores[s]) for s in order]
