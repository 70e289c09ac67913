"""A human at the terminal: the board, the numbered legal moves, and a prompt."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import TextIO

from agents.base import Agent, Observation, legal_indices
from camelup_env.game.actions import PlaceTile, action_table, describe
from camelup_env.game.state import GameState
from camelup_env.match import QuitGame
from camelup_env.render.text import render_text

HELP = (
    "Type the number of a move and press Enter (a move keeps its number all game). "
    "Other keys: b = show the board again, o = leg odds (exact chances of each camel's "
    "rank at the end of this leg), h = this help, q = quit the game."
)

#: rich styles of camel colour names
STYLES = {
    "blue": "bold blue",
    "green": "bold green",
    "orange": "bold dark_orange",
    "yellow": "bold yellow",
    "white": "bold white",
    "red": "bold red",
    "purple": "bold magenta",
    "black": "bold bright_black",
}


def make_console(file: TextIO | None = None, color: bool = True):
    from rich.console import Console

    return Console(
        file=file or sys.stdout, highlight=False, no_color=not color, soft_wrap=True, emoji=False
    )


def styled(text: str, colours: tuple[str, ...]):
    """``text`` as rich Text with every camel colour name in its colour."""
    from rich.text import Text

    out = Text(text)
    for name in colours:
        out.highlight_regex(rf"\b{re.escape(name)}\b", STYLES.get(name, "bold"))
    return out


def board_text(public_state: GameState, seat: int) -> str:
    """``render_text`` of a public view (hidden hands shown as their size, R10)."""
    s = public_state.copy()
    n = s.rules.n_racing
    hands = []
    for p, hand in enumerate(s.hands):
        if hand >= 0:
            hands.append(hand)
        else:
            placed = sum(1 for o, _ in (*s.winner_pile, *s.loser_pile) if o == p)
            hands.append((1 << (n - placed)) - 1)
    s.hands = tuple(hands)
    s.winner_pile = tuple((o, max(c, 0)) for o, c in s.winner_pile)
    s.loser_pile = tuple((o, max(c, 0)) for o, c in s.loser_pile)
    return render_text(s, viewer=seat)


def leg_odds_text(public_state: GameState) -> str:
    from camelup_env import odds

    probs = odds.leg_rank_probabilities(public_state)
    evs = odds.leg_bet_evs(public_state)
    col = public_state.rules.colours
    lines = ["leg odds:   P(1st)  P(2nd)  EV of its top leg-bet tile"]
    for c in range(public_state.rules.n_racing):
        ev = "  (none left)" if evs[c] != evs[c] else f"{evs[c]:+.2f}"
        lines.append(f"  {col[c]:<8} {probs[c, 0]:6.1%}  {probs[c, 1]:6.1%}  {ev}")
    return "\n".join(lines)


class HumanAgent(Agent):
    description = "you, at the terminal: the board, numbered legal moves, q to quit"

    def __init__(
        self, input_fn: Callable[[str], str] | None = None, console=None, color: bool = True
    ) -> None:
        self.input_fn = input_fn or input
        self.console = console or make_console(color=color)

    def say(self, text: str, colours: tuple[str, ...] = ()) -> None:
        self.console.print(styled(text, colours))

    def act(self, observation: Observation, public_state: GameState) -> int:
        s = public_state
        rules = s.rules
        me = s.current
        colours = rules.colours
        legal = [int(i) for i in legal_indices(observation)]
        actions = action_table(rules).actions
        self.say("")
        self.say(board_text(s, me), colours)
        self.say(f"\nYour move, player {me}. Legal moves:")
        plus, minus = rules.tile_sides
        # A move keeps its number from turn to turn: its action index + 1 (R4's fixed layout).
        numbered = [(i + 1, i) for i in legal]
        j = 0
        while j < len(numbered):
            k, i = numbered[j]
            a = actions[i]
            if (
                isinstance(a, PlaceTile)
                and j + 1 < len(numbered)
                and isinstance(b := actions[numbered[j + 1][1]], PlaceTile)
                and b.space == a.space
            ):
                # both sides of one space on one line
                self.say(
                    f"  {k:>2}. / {k + 1}. put your {rules.tile_kind} tile on space "
                    f"{a.space}: {k} = {plus} (+1), {k + 1} = {minus} (-1)"
                )
                j += 2
                continue
            self.say(f"  {k:>2}. {describe(a, rules)}", colours)
            j += 1
        choices = dict(numbered)
        while True:
            try:
                line = self.input_fn("move [number, b board, o odds, h help, q quit]: ")
            except EOFError:
                raise QuitGame from None
            line = line.strip().lower()
            if line in ("q", "quit", "exit"):
                raise QuitGame
            if line in ("b", "board"):
                self.say(board_text(s, me), colours)
            elif line in ("o", "odds"):
                self.say(leg_odds_text(s), colours)
            elif line in ("h", "help", "?"):
                self.say(HELP)
            elif line.isdigit() and int(line) in choices:
                return choices[int(line)]
            else:
                self.say(
                    f"'{line}' is not a move: type the number of a move listed above "
                    "(h for help, q to quit)."
                )
