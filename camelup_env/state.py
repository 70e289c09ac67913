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

Camels, dice and colours are indexed as described in :mod:`camelup_env.rules`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any

from camelup_env.rules import RuleSet

SCHEMA_VERSION = 1
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
        leg_stacks: per racing camel, the leg-bet tile values still on its stack, top first.
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

    Two memos are not part of the state's value (no ``__init__`` argument, no JSON, ignored by
    equality): ``_legal`` holds :func:`camelup_env.engine.legal_action_indices`, and ``_camels``
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

    # Serialisation -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe document; ``GameState.from_dict(s.to_dict()) == s``."""
        return {
            "schema_version": SCHEMA_VERSION,
            "rules": self.rules.to_dict(),
            "stacks": [[space, list(stack)] for space, stack in sorted(self.stacks.items())],
            "tiles": [[space, owner, side] for space, (owner, side) in sorted(self.tiles.items())],
            "pyramid": list(self.pyramid),
            "revealed": [list(r) for r in self.revealed],
            "leg_stacks": [list(s) for s in self.leg_stacks],
            "pyramid_tiles_left": self.pyramid_tiles_left,
            "coins": list(self.coins),
            "leg_bets": [[list(b) for b in bets] for bets in self.leg_bets],
            "pyramid_tiles": list(self.pyramid_tiles),
            "hands": list(self.hands),
            "partners": list(self.partners),
            "winner_pile": [list(c) for c in self.winner_pile],
            "loser_pile": [list(c) for c in self.loser_pile],
            "leg": self.leg,
            "current": self.current,
            "leg_starter": self.leg_starter,
            "game_over": self.game_over,
            "crater": self.crater,
            "photographer": list(self.photographer) if self.photographer else None,
            "position_bets": [list(b) for b in self.position_bets],
            "extra_pending": self.extra_pending,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> GameState:
        """Rebuild a state from :meth:`to_dict` output; a bad document raises ``ValueError``."""
        if not isinstance(doc, dict):
            raise ValueError(
                f"a game state document must be a JSON object, got {type(doc).__name__}"
            )
        version = doc.get("schema_version")
        if version != SCHEMA_VERSION:
            raise ValueError(
                f"unsupported game state schema_version {version!r} (this camelup reads "
                f"{SCHEMA_VERSION})"
            )
        missing = [f for f in _FIELD_NAMES if f not in doc]
        if missing:
            raise ValueError(f"game state document is missing field(s) {missing}")
        extra = set(doc) - set(_FIELD_NAMES) - {"schema_version"}
        if extra:
            raise ValueError(f"game state document has unknown field(s) {sorted(extra)}")
        try:
            state = cls(
                rules=RuleSet.from_dict(doc["rules"]),
                stacks={int(s): tuple(int(c) for c in st) for s, st in doc["stacks"]},
                tiles={int(s): (int(o), int(side)) for s, o, side in doc["tiles"]},
                pyramid=tuple(int(d) for d in doc["pyramid"]),
                revealed=tuple((int(d), int(c), int(v)) for d, c, v in doc["revealed"]),
                leg_stacks=tuple(tuple(int(v) for v in s) for s in doc["leg_stacks"]),
                pyramid_tiles_left=int(doc["pyramid_tiles_left"]),
                coins=tuple(int(c) for c in doc["coins"]),
                leg_bets=tuple(
                    tuple((int(c), int(v)) for c, v in bets) for bets in doc["leg_bets"]
                ),
                pyramid_tiles=tuple(int(n) for n in doc["pyramid_tiles"]),
                hands=tuple(int(h) for h in doc["hands"]),
                partners=tuple(int(p) for p in doc["partners"]),
                winner_pile=tuple((int(o), int(c)) for o, c in doc["winner_pile"]),
                loser_pile=tuple((int(o), int(c)) for o, c in doc["loser_pile"]),
                leg=int(doc["leg"]),
                current=int(doc["current"]),
                leg_starter=int(doc["leg_starter"]),
                game_over=bool(doc["game_over"]),
                crater=int(doc["crater"]),
                photographer=(None if doc["photographer"] is None
                              else (int(doc["photographer"][0]), int(doc["photographer"][1]))),
                position_bets=tuple(
                    (int(o), int(p), int(c), int(v)) for o, p, c, v in doc["position_bets"]
                ),
                extra_pending=bool(doc["extra_pending"]),
            )
        except (TypeError, ValueError) as exc:
            raise ValueError(f"malformed game state document: {exc}") from exc
        state.validate()
        return state

    @classmethod
    def from_json(cls, text: str) -> GameState:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"game state is not valid JSON: {exc}") from exc
        return cls.from_dict(doc)

    def validate(self) -> None:
        """Check the invariants every reachable state satisfies; raise ``ValueError`` if not."""
        r = self.rules
        n = r.num_players
        camels = sorted(c for stack in self.stacks.values() for c in stack)
        if camels != list(range(r.n_camels)):
            raise ValueError(f"every camel must be on the track exactly once, got {camels}")
        if any(not stack for stack in self.stacks.values()):
            raise ValueError("stacks must not contain empty spaces")
        for name in ("coins", "leg_bets", "pyramid_tiles", "hands", "partners"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name} must have one entry per player ({n})")
        if any(c < 0 for c in self.coins):
            raise ValueError(f"coins never go below 0 (R8.1), got {self.coins}")
        if len(self.leg_stacks) != r.n_racing:
            raise ValueError(f"leg_stacks must have one stack per racing camel ({r.n_racing})")
        for space, (owner, side) in self.tiles.items():
            if not 2 <= space <= r.track_length or not 0 <= owner < n or side not in (1, -1):
                raise ValueError(f"bad tile {owner=} {side=} on space {space}")
        if len({owner for owner, _ in self.tiles.values()}) != len(self.tiles):
            raise ValueError("a player owns one desert/spectator tile")
        if not 0 <= self.current < n or not 0 <= self.leg_starter < n:
            raise ValueError(f"current ({self.current}) and leg_starter must be seats 0..{n - 1}")
        if set(self.pyramid) - set(range(r.n_dice)):
            raise ValueError(f"unknown dice in the pyramid: {self.pyramid}")
        if not r.photographer and self.photographer is not None:
            raise ValueError("this rule set has no photographer (R9.2)")
        if not r.position_bets and self.position_bets:
            raise ValueError("this rule set has no position bets (R9.3)")
        taken = [pos for _, pos, _, _ in self.position_bets]
        if len(set(taken)) != len(taken) or set(taken) - set(r.position_tiles):
            raise ValueError(f"each position tile is taken at most once, got {taken}")
        held = [list(bets) for bets in self.leg_bets]
        for owner, pos, camel, value in self.position_bets:
            if not 0 <= owner < n or (camel, value) not in held[owner]:
                raise ValueError(f"position tile {pos} must cover a leg-bet tile of its owner "
                                 f"(R9.3), got owner {owner}, tile {(camel, value)}")
            held[owner].remove((camel, value))
        if self.photographer is not None:
            owner, space = self.photographer
            if not 0 <= owner < n or not 1 <= space <= r.track_length:
                raise ValueError(f"bad photographer {self.photographer} (R9.2)")
            if space in self.tiles:
                raise ValueError(f"no desert tile on the camera space {space} (R9.2)")
        if (self.crater or self.extra_pending) and not r.extra_action:
            raise ValueError("craters and the extra action need extra_action (R9.1.4)")
        if self.crater >> r.n_racing:
            raise ValueError(f"bad crater mask {self.crater}")


_FIELD_NAMES = tuple(f.name for f in fields(GameState) if f.init)
