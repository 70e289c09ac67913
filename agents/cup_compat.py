"""What a Camel Up Cup bot expects, built from this project's game: the Cup's game-state object,
its action lists, its bet hashes, and its ``PlayerInterface`` base class.

The Camel Up Cup (``git clone https://github.com/trbarron/Camel_Up_Cup_2K18``) is a bot
competition with its own engine. A Cup bot is a class whose ``move(player, g)`` is called on the
class itself with the seat and a redacted copy of the Cup's ``GameState`` (``player_view``), and
returns an action list. This module is written here from the Cup's documented interface (its
README and engine), not copied from it; ``docs/cup.md`` lists the interface and the points where
the Cup's engine and README disagree.

Numbering: Cup spaces are this project's spaces minus one (the Cup's camels start on 0-2 and
finish on 16, ours on 1-3 and beyond 16, C1); camels are 0-4 in both. Actions:

=======================  ==========================================
Cup action               this project's action
=======================  ==========================================
``[0]``                  ``TakePyramidTile()`` (roll)
``[1, side, space]``     ``PlaceTile(space + 1, side)`` (C6)
``[2, camel]``           ``TakeLegBet(camel)`` (C5)
``[3, camel]``           ``RaceBet(WINNER_PILE, camel)`` (C9)
``[4, camel]``           ``RaceBet(LOSER_PILE, camel)``
=======================  ==========================================

:func:`our_action` reads an action list the way the Cup's engine does (values are compared with
``==``, a space must index a list, a game-bet camel is hashed as ``str(camel)``) and returns
None where the Cup's engine would refuse it, or where its effect has no counterpart here (a
game bet on ``1.0`` or ``True``, which the Cup records as a bet that can never win): the caller
then rolls (C12).
"""

from __future__ import annotations

import hashlib
import operator
import uuid
from typing import Any

from camelup_env.game.actions import Action, PlaceTile, RaceBet, TakeLegBet, TakePyramidTile
from camelup_env.game.state import HIDDEN, LOSER_PILE, WINNER_PILE, GameState

#: Slots of the Cup's track lists (``camel_track``, ``trap_track``): Cup spaces 0-28.
CUP_SLOTS = 29
#: Camels, as the Cup numbers them (``g.camels``).
CUP_CAMELS = (0, 1, 2, 3, 4)


class PlayerInterface:
    """The base class Cup bots derive from (the Cup's ``playerinterface.PlayerInterface``):
    the Cup calls ``move(player, g)`` on the class, with no instance."""

    def move(player, g):
        raise NotImplementedError("a Cup bot implements move(player, g)")


def hash_bet(bet: str) -> str:
    """A game bet as the Cup stores it: ``sha256(salt + bet)`` in hex, ``:``, the random salt."""
    salt = uuid.uuid4().hex
    return hashlib.sha256(salt.encode() + bet.encode()).hexdigest() + ":" + salt


def check_bet(hashed_bet: str, user_bet: str) -> bool:
    """Whether ``hashed_bet`` (:func:`hash_bet`) hides ``user_bet``: how a Cup bot reads its own
    game bets."""
    digest, salt = hashed_bet.split(":")
    return digest == hashlib.sha256(salt.encode() + user_bet.encode()).hexdigest()


class CupGameState:
    """The Cup's game-state object, with the Cup's attribute names and layouts (its README's
    "GameState Fields"); built by :class:`CupView`. Plain lists, so a bot may copy, deep-copy
    and change it freely."""

    #: Set from the second leg on, as the Cup's engine does (unused by bots).
    camel_bet_values: list[int]

    def __init__(self) -> None:
        self.camel_track: list[list[int]] = [[] for _ in range(CUP_SLOTS)]
        self.trap_track: list[list[int]] = [[] for _ in range(CUP_SLOTS)]
        self.player_has_placed_trap = [False] * 4
        self.round_bets: list[list[int]] = []
        self.game_winner_bets: list[list[Any]] = []
        self.game_loser_bets: list[list[Any]] = []
        self.player_game_bets: list[list[Any]] = [[], [], [], []]
        self.player_money_values = [2] * 4
        self.camel_yet_to_move = [True] * 5
        self.active_game = True
        self.game_winner: list[int] = []
        self.camels = list(CUP_CAMELS)


class CupView:
    """One seat's view of one game in the Cup's form, kept across the seat's turns.

    Two things the Cup's state holds are not in this project's state, and are rebuilt here
    from the seat's successive views: the order of the leg's round bets across players (the
    Cup lists them in the order made; a state here keeps each seat's own in order) and the
    seat's own game bets across both piles in the order made. With four seats taking one action
    per turn (C3), the bets that are new since the seat's last turn were made by the seat itself
    first, then by the seats after it in turn order, one each at most. The seat's own hashes are
    kept for the game, as the Cup keeps them.
    """

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.leg = 0
        self.round_bets: list[list[int]] = []
        self.seen_bets = [0] * 4
        self.own_cards: list[tuple[int, int]] = []  # (pile, camel) in the order placed
        self.hashes: dict[tuple[int, int], str] = {}

    def update(self, state: GameState) -> None:
        """Take in the seat's view of its next turn."""
        n = state.rules.num_players
        if state.leg != self.leg:  # a new leg: its bets are all new (R6.4)
            self.leg, self.round_bets, self.seen_bets = state.leg, [], [0] * n
        for k in range(n):
            q = (self.seat + k) % n
            for camel, _value in state.leg_bets[q][self.seen_bets[q] :]:
                self.round_bets.append([camel, q])
            self.seen_bets[q] = len(state.leg_bets[q])
        for pile, cards in ((WINNER_PILE, state.winner_pile), (LOSER_PILE, state.loser_pile)):
            for owner, camel in cards:
                if owner == self.seat and (pile, camel) not in self.own_cards:
                    self.own_cards.append((pile, camel))
                    self.hashes[pile, camel] = hash_bet(str(camel))

    def game_state(self, state: GameState) -> CupGameState:
        """The Cup's ``player_view(g, seat)`` of ``state`` (this seat's public view, R10):
        other players' game bets show ``None`` for the camel, the seat's own are hashed."""
        g = CupGameState()
        for space, stack in state.stacks.items():
            g.camel_track[space - 1] = list(stack)
        for space, (owner, side) in state.tiles.items():
            g.trap_track[space - 1] = [side, owner]
        g.player_has_placed_trap = [state.tile_of(p) is not None for p in range(4)]
        g.round_bets = [list(bet) for bet in self.round_bets]
        for pile, cards, into in (
            (WINNER_PILE, state.winner_pile, g.game_winner_bets),
            (LOSER_PILE, state.loser_pile, g.game_loser_bets),
        ):
            for owner, camel in cards:
                mine = owner == self.seat and camel != HIDDEN
                into.append([self.hashes[pile, camel] if mine else None, owner])
                if not mine:
                    g.player_game_bets[owner].append(None)
        g.player_game_bets[self.seat] = [self.hashes[card] for card in self.own_cards]
        g.player_money_values = list(state.coins)
        g.camel_yet_to_move = [c in state.pyramid for c in CUP_CAMELS]
        if state.leg > 1:  # the Cup's engine sets this (unused) field at its first round end
            g.camel_bet_values = [5] * 5
        return g


def cup_action(action: Action) -> list[int]:
    """This project's action as the Cup's action list (module docstring)."""
    if isinstance(action, TakePyramidTile):
        return [0]
    if isinstance(action, PlaceTile):
        return [1, action.side, action.space - 1]
    if isinstance(action, TakeLegBet):
        return [2, action.camel]
    if isinstance(action, RaceBet):
        return [3 if action.pile == WINNER_PILE else 4, action.camel]
    raise ValueError(f"the Camel Up Cup has no action {action!r} (C1)")


def our_action(result: Any) -> Action | None:
    """The action a Cup action list asks for, read as the Cup's engine reads it (module
    docstring), or None where it would roll instead. Whether the action is legal now is the
    engine's question (the caller checks it)."""
    try:
        code = result[0]
        if code == 0:
            return TakePyramidTile()
        if code == 1:
            side, space = result[1], result[2]
            if side not in (-1, 1):
                return None
            return PlaceTile(operator.index(space) + 1, 1 if side == 1 else -1)
        if code == 2:
            camel = result[1]
            return TakeLegBet(CUP_CAMELS.index(camel)) if camel in CUP_CAMELS else None
        if code in (3, 4):
            camel = result[1]
            if camel not in CUP_CAMELS or str(camel) not in map(str, CUP_CAMELS):
                return None  # the Cup hashes str(camel): "1.0" or "True" never wins
            return RaceBet(WINNER_PILE if code == 3 else LOSER_PILE, int(camel))
    except Exception:  # anything the Cup's engine would fail on: a roll (C12)
        return None
    return None
