"""Helpers shared by the engine tests: exact positions and chosen die rolls (RULES.md R13).

Positions are built from ``new_game`` and then overwritten field by field on a copy, so every
test states exactly which camels, tiles and bets are on the table.
"""

from __future__ import annotations

from camelup_env import (
    DieRoll,
    GameState,
    RuleSet,
    TakePyramidTile,
    apply_outcome,
    new_game,
)
from camelup_env.events import Event

#: Camel indices by colour name, per preset (R1.3).
CLASSIC = {name: i for i, name in enumerate(RuleSet("classic").colours)}
SECOND = {name: i for i, name in enumerate(RuleSet("second_edition").colours)}
#: Index of the grey die in the second edition (after the 5 racing dice).
GREY = 5


def position(
    preset: str = "classic",
    num_players: int = 4,
    stacks: dict[int, tuple[int, ...]] | None = None,
    **fields: object,
) -> GameState:
    """A game under ``preset`` with the given stacks and any other fields replaced."""
    rules = RuleSet(preset, num_players=num_players)
    state = new_game(rules, seed=0).copy()
    if stacks is not None:
        state.stacks = {space: tuple(stack) for space, stack in stacks.items()}
    for name, value in fields.items():
        setattr(state, name, value)
    state.validate()
    return state


def roll(state: GameState, die: int, value: int, shown: int | None = None
         ) -> tuple[GameState, tuple[Event, ...]]:
    """Take a pyramid tile with a chosen outcome: ``die`` shows ``value`` (and ``shown``)."""
    camel = die if shown is None else shown
    return apply_outcome(state, TakePyramidTile(), DieRoll(die, camel, value))


def of_type(events: tuple[Event, ...], kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


def pile_scored(events: tuple[Event, ...], pile: int):
    """The FinalBetsScored event of one race-bet pile (0 winner, 1 loser)."""
    from camelup_env.events import FinalBetsScored

    return next(e for e in events if isinstance(e, FinalBetsScored) and e.pile == pile)
