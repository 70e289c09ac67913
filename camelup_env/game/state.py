"""Game state as plain data.

A :class:`GameState` holds only values: ints, tuples and small dicts keyed by track space. The
engine never mutates a state it is given; it builds a new one, replacing just the fields an action
changes (every container is an immutable tuple or a dict that is copied before it is changed), so
``copy()`` is a cheap shallow copy and states can be shared freely by search trees.

States are *values*: never change a state in place once the engine has seen it (for instance
after asking for its legal actions); change a ``copy()`` instead. The engine relies on this
twice for speed: a new state shares the unchanged ``stacks``/``tiles`` dicts with its
predecessor (each is copied only by the action that changes it), and a state memoises its legal
action indices the first time they are asked for.

Camels, dice and colours are indexed as described in :mod:`camelup_env.game.rules`. A state's
JSON form, written and read back from strangers, is :mod:`camelup_env.game.state_json`; the
invariants every reachable state holds are :meth:`GameState.validate`, here.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from camelup_env.game import state_json
from camelup_env.game.rules import RuleSet
from camelup_env.game.state_json import MAX_COUNT

#: A race-bet card or hand another seat may not see (R10, ``observation.public_view``).
HIDDEN = -1
_new_state = object.__new__

#: Winner and loser race-bet piles (R4.4, R7.2).
WINNER_PILE, LOSER_PILE = 0, 1


@dataclass(slots=True)
class GameState:
    """Everything about one game at one moment (R10 says who may see what).

    Attributes:
        rules: the rule set this game is played under.
        stacks: track space -> camels on it, bottom -> top (R0.2). Only occupied spaces appear.
            Spaces past ``L`` record a forward finish (R5.4); spaces below 1 a backward one (R5.6).
        tiles: track space -> (owner seat, side) of each desert/spectator tile; side is +1 or -1.
        pyramid: dice still in the pyramid this leg, ascending die index.
        revealed: dice revealed this leg in order, as (die, camel shown, number shown).
        leg_stacks: per racing camel, the leg-bet tile values still on its stack, top first
            (with leg cards, R14.3: the value its winner card would pay now, or empty once
            that card is out this leg).
        pyramid_tiles_left: pyramid tiles still in the stack this leg.
        coins: per seat.
        leg_bets: per seat, the leg-bet tiles taken this leg as (camel, value), in order taken.
        pyramid_tiles: per seat, pyramid tiles held this leg.
        hands: per seat, bit mask of the race-bet cards (racing camel colours) still in hand.
        partners: per seat, the partner seat this leg or -1 (R9.4).
        winner_pile, loser_pile: race-bet cards in placing order as (owner seat, camel).
        leg: leg number, from 1.
        current: seat to act.
        leg_starter: seat holding the starting-player marker (R2.3, R6.3).
        game_over: the race has ended and been scored (R7).
        crater: Supercup extra-action rule (R9.1.4): bit mask, by camel, of the support dice
            revealed this leg (unusable until the next leg).
        photographer: Supercup module 2 (R9.2): (owner seat, camera space), or None.
        position_bets: Supercup module 3 (R9.3): (owner seat, position shown, camel, value of
            the covered leg-bet tile) for each position tile taken this leg, in order taken.
        extra_pending: the current player has made the turn's action and now decides the
            optional extra action (R9.1.4); the turn passes after that decision.
        wanderer: the Persian tutorial (R14.1): the space the desert wanderer card lies on;
            0 for rule sets without it.
        loser_cards: the Persian tutorial (R14.4): the leg loser cards played this leg as
            (seat, camel, value), in the order played.

    Two memos are not part of the state's value (no ``__init__`` argument, no JSON, ignored by
    equality): ``_legal`` holds :func:`camelup_env.game.legality.legal_action_indices`, and
    ``_camels``
    the bit mask of the spaces holding a camel (bit ``s`` = space ``s``), which successors
    inherit until a die moves a camel.
    """

    rules: RuleSet
    stacks: dict[int, tuple[int, ...]]
    tiles: dict[int, tuple[int, int]]
    pyramid: tuple[int, ...]
    revealed: tuple[tuple[int, int, int], ...]
    leg_stacks: tuple[tuple[int, ...], ...]
    pyramid_tiles_left: int
    coins: tuple[int, ...]
    leg_bets: tuple[tuple[tuple[int, int], ...], ...]
    pyramid_tiles: tuple[int, ...]
    hands: tuple[int, ...]
    partners: tuple[int, ...]
    winner_pile: tuple[tuple[int, int], ...]
    loser_pile: tuple[tuple[int, int], ...]
    leg: int
    current: int
    leg_starter: int
    game_over: bool
    crater: int = 0
    photographer: tuple[int, int] | None = None
    position_bets: tuple[tuple[int, int, int, int], ...] = ()
    extra_pending: bool = False
    wanderer: int = 0
    loser_cards: tuple[tuple[int, int, int], ...] = ()
    _legal: tuple[int, ...] | None = field(default=None, init=False, repr=False, compare=False)
    _camels: int | None = field(default=None, init=False, repr=False, compare=False)

    def copy(self) -> GameState:
        """An independent copy (fields are immutable or copied, so this is cheap)."""
        new = self.successor()
        new.stacks = dict(self.stacks)
        new.tiles = dict(self.tiles)
        new._camels = None  # the copy is there to be edited
        return new

    def successor(self) -> GameState:
        """A copy that *shares* the ``stacks`` and ``tiles`` dicts with this state.

        For the engine, which replaces (never edits) a shared dict: an action that changes the
        track or the tiles first gives the new state its own dict. Cheaper than :meth:`copy`
        on the hot path, where most actions (bets, tiles) leave the camels where they are.
        Built slot by slot: on Python 3.11 that costs a third less than calling the
        22-argument constructor, and every engine step makes one.
        """
        new = _new_state(GameState)
        new.rules = self.rules
        new.stacks = self.stacks
        new.tiles = self.tiles
        new.pyramid = self.pyramid
        new.revealed = self.revealed
        new.leg_stacks = self.leg_stacks
        new.pyramid_tiles_left = self.pyramid_tiles_left
        new.coins = self.coins
        new.leg_bets = self.leg_bets
        new.pyramid_tiles = self.pyramid_tiles
        new.hands = self.hands
        new.partners = self.partners
        new.winner_pile = self.winner_pile
        new.loser_pile = self.loser_pile
        new.leg = self.leg
        new.current = self.current
        new.leg_starter = self.leg_starter
        new.game_over = self.game_over
        new.crater = self.crater
        new.photographer = self.photographer
        new.position_bets = self.position_bets
        new.extra_pending = self.extra_pending
        new.wanderer = self.wanderer
        new.loser_cards = self.loser_cards
        new._legal = None
        new._camels = self._camels
        return new

    # Derived views -------------------------------------------------------------------------
    def camel_space(self, camel: int) -> int:
        """The space a camel stands on."""
        for space, stack in self.stacks.items():
            if camel in stack:
                return space
        raise KeyError(f"camel {camel} is not on the track")

    def tile_of(self, seat: int) -> tuple[int, int] | None:
        """(space, side) of a seat's desert/spectator tile, or None while it is in hand."""
        for space, (owner, side) in self.tiles.items():
            if owner == seat:
                return space, side
        return None

    # Serialisation (camelup_env.game.state_json) ---------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe document; ``GameState.from_dict(s.to_dict()) == s``."""
        return state_json.state_to_dict(self)

    def to_json(self) -> str:
        """:meth:`to_dict` as compact JSON text."""
        return state_json.state_to_json(self)

    @classmethod
    def from_dict(cls, doc: dict[str, Any], validate: bool = True) -> GameState:
        """Rebuild a state from :meth:`to_dict` output; a bad document raises ``ValueError``
        naming the field. The document may come from a stranger: its JSON types and shapes are
        checked, then :meth:`validate` checks the values against the rule set.
        ``validate=False`` skips :meth:`validate` (a third of the cost) for a document whose
        values come from this engine itself (:func:`camelup_env.game.state_json.state_from_dict`
        says when)."""
        return state_json.state_from_dict(cls, doc, validate)

    @classmethod
    def from_json(cls, text: str | bytes) -> GameState:
        """A state from :meth:`to_json` text, checked as untrusted input (see :meth:`from_dict`
        and :mod:`camelup_env.safe_json`): any problem is a ``ValueError``."""
        return state_json.state_from_json(cls, text)

    def validate(self) -> None:
        """Check the invariants every reachable state satisfies; raise ``ValueError`` naming the
        field if not. Engine code, odds and observers index and divide by these values, so a
        state that passes cannot make them fail."""
        r = self.rules
        n = r.num_players
        seats = range(n)
        camels = sorted(c for stack in self.stacks.values() for c in stack)
        if camels != list(range(r.n_camels)):
            raise ValueError(
                f"stacks: every camel must be on the track exactly once, got {camels[:20]}"
            )
        if any(not stack for stack in self.stacks.values()):
            raise ValueError("stacks must not contain empty spaces")
        # R5.4/R5.6: a unit moves at most one die face (a tile adds one more only on 1..L, or
        # past the line where tiles lie there too, C7).
        reach = max(face for die in r.dice for _, face in die) + (
            r.last_tile_space > r.track_length
        )
        lowest, highest = (
            (1, r.track_length) if not self.game_over else (1 - reach, r.track_length + reach)
        )
        for space in self.stacks:
            if not lowest <= space <= highest:
                raise ValueError(
                    f"stacks: space {space} is outside {lowest}..{highest} "
                    f"({'a finished' if self.game_over else 'a running'} race, "
                    f"R5.4, R5.6)"
                )
        for name in ("coins", "leg_bets", "pyramid_tiles", "hands", "partners"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name} must have one entry per player ({n})")
        if r.money_floor and any(c < 0 for c in self.coins):
            raise ValueError(f"coins never go below 0 (R8.1), got {self.coins}")
        if any(abs(c) > MAX_COUNT for c in self.coins) or not 1 <= self.leg <= MAX_COUNT:
            raise ValueError(f"coins and leg must be at most {MAX_COUNT} (leg from 1)")
        if len(self.leg_stacks) != r.n_racing:
            raise ValueError(f"leg_stacks must have one stack per racing camel ({r.n_racing})")
        for space, (owner, side) in self.tiles.items():
            if not 2 <= space <= r.last_tile_space or owner not in seats or side not in (1, -1):
                raise ValueError(f"tiles: bad tile {owner=} {side=} on space {space} (R4.1)")
            if space in self.stacks:
                raise ValueError(f"tiles: a tile on space {space} under camels (R4.1)")
        if len({owner for owner, _ in self.tiles.values()}) != len(self.tiles):
            raise ValueError("tiles: a player owns one desert/spectator tile")
        if self.current not in seats or self.leg_starter not in seats:
            raise ValueError(f"current ({self.current}) and leg_starter must be seats 0..{n - 1}")
        self._validate_dice()
        self._validate_bets()
        if any(
            p != -1 and (p not in seats or p == s or self.partners[p] != s)
            for s, p in enumerate(self.partners)
        ):
            raise ValueError(
                f"partners must pair seats both ways or be -1 (R9.4), got {self.partners}"
            )
        if not r.partnerships and any(p != -1 for p in self.partners):
            raise ValueError("partners: this rule set has no partnerships (R9.4)")
        if not r.photographer and self.photographer is not None:
            raise ValueError("this rule set has no photographer (R9.2)")
        if self.photographer is not None:
            owner, space = self.photographer
            if owner not in seats or not 1 <= space <= r.track_length:
                raise ValueError(f"bad photographer {self.photographer} (R9.2)")
            if space in self.tiles:
                raise ValueError(f"no desert tile on the camera space {space} (R9.2)")
        if (self.crater or self.extra_pending) and not r.extra_action:
            raise ValueError("craters and the extra action need extra_action (R9.1.4)")
        if not 0 <= self.crater < 1 << r.n_racing:
            raise ValueError(f"bad crater mask {self.crater}")
        self._validate_wanderer()

    def _validate_wanderer(self) -> None:
        """The desert wanderer and the leg cards (R14.1, R14.3, R14.4, R14.5)."""
        r = self.rules
        if not r.wanderer:
            if self.wanderer:
                raise ValueError("wanderer: this rule set has no desert wanderer (R14.1)")
        elif not 2 <= self.wanderer <= r.track_length:
            raise ValueError(
                f"wanderer must lie on a space 2..{r.track_length} (R14.1), got {self.wanderer}"
            )
        elif not self.game_over and max(self.stacks) > self.wanderer:
            raise ValueError(
                f"no camel stands beyond the wanderer on space {self.wanderer} "
                "while the race runs: passing it ends the leg (R14.5)"
            )
        if self.loser_cards and not r.leg_cards:
            raise ValueError("loser_cards: this rule set has no leg cards (R14.4)")
        camels = [camel for _, camel, _ in self.loser_cards]
        expected = r.loser_bet_values[: len(self.loser_cards)]
        if (
            len(set(camels)) != len(camels)
            or any(
                s not in range(r.num_players) or c not in range(r.n_racing)
                for s, c, _ in self.loser_cards
            )
            or tuple(v for _, _, v in self.loser_cards) != expected
        ):
            raise ValueError(
                f"loser_cards: one card per camel, valued in the order played "
                f"{r.loser_bet_values} (R14.4), got {self.loser_cards[:8]}"
            )

    def _validate_dice(self) -> None:
        """pyramid, revealed, pyramid tiles (R3, R6.1, R9.1)."""
        r = self.rules
        if len(set(self.pyramid)) != len(self.pyramid) or set(self.pyramid) - set(range(r.n_dice)):
            raise ValueError(f"unknown or repeated dice in the pyramid: {self.pyramid[:20]}")
        shown = [die for die, _, _ in self.revealed]
        for die, camel, value in self.revealed:
            if die not in range(r.n_dice) or (camel, value) not in r.dice[die]:
                raise ValueError(f"revealed: die {die} cannot show camel {camel} with {value} (R3)")
        if len(set(shown)) != len(shown) or set(shown) & set(self.pyramid):
            raise ValueError(
                f"revealed: a die is revealed once per leg and then out of the "
                f"pyramid, got {shown} with pyramid {self.pyramid}"
            )
        if any(not 0 <= t <= r.pyramid_tiles for t in self.pyramid_tiles):
            raise ValueError(
                f"pyramid_tiles must be 0..{r.pyramid_tiles} per seat, got {self.pyramid_tiles}"
            )
        left = self.pyramid_tiles_left
        if not 0 <= left <= r.pyramid_tiles:
            raise ValueError(f"pyramid_tiles_left must be 0..{r.pyramid_tiles}, got {left}")
        if not self.game_over and left > len(self.pyramid):
            raise ValueError(
                f"pyramid_tiles_left ({left}) exceeds the {len(self.pyramid)} "
                f"dice in the pyramid: each tile reveals one (R4.3, R6.1)"
            )

    def _validate_bets(self) -> None:
        """leg bets, race-bet cards and hands, position bets (R2.3, R4.4, R10, R9.3)."""
        r = self.rules
        n = r.num_players
        full = Counter(r.leg_bet_values)
        for camel, stack in enumerate(self.leg_stacks):
            if Counter(stack) - full:
                raise ValueError(
                    f"leg_stacks[{camel}] {stack[:8]} must be tiles of the stack "
                    f"{r.leg_bet_values} (R2.3)"
                )
        for seat, bets in enumerate(self.leg_bets):
            most = MAX_COUNT if r.endless_leg_bets else r.n_racing * len(r.leg_bet_values)
            if len(bets) > most or any(
                c not in range(r.n_racing) or v not in full for c, v in bets
            ):
                raise ValueError(
                    f"leg_bets[{seat}]: a tile that is no leg-bet tile (R2.3) in {bets[:8]}"
                )
        if any(not HIDDEN <= h < 1 << r.n_racing for h in self.hands):
            raise ValueError(
                f"hands must be bit masks of the {r.n_racing} racing camels (or "
                f"-1, hidden, R10), got {self.hands}"
            )
        cards = self.winner_pile + self.loser_pile
        for owner, camel in cards:
            if owner not in range(n) or not HIDDEN <= camel < r.n_racing:
                raise ValueError(f"winner_pile/loser_pile: bad card {(owner, camel)} (R4.4)")
        played = [card for card in cards if card[1] != HIDDEN]
        if len(set(played)) != len(played):
            raise ValueError("winner_pile/loser_pile: each seat has one card per camel (R4.4)")
        if not r.position_bets and self.position_bets:
            raise ValueError("this rule set has no position bets (R9.3)")
        taken = [pos for _, pos, _, _ in self.position_bets]
        if len(set(taken)) != len(taken) or set(taken) - set(r.position_tiles):
            raise ValueError(f"each position tile is taken at most once, got {taken}")
        held = [list(bets) for bets in self.leg_bets]
        for owner, pos, camel, value in self.position_bets:
            if owner not in range(n) or (camel, value) not in held[owner]:
                raise ValueError(
                    f"position tile {pos} must cover a leg-bet tile of its owner "
                    f"(R9.3), got owner {owner}, tile {(camel, value)}"
                )
            held[owner].remove((camel, value))
