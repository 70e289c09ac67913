"""Rule sets: a frozen, validated description of one game (docs/rules.md R1).

A :class:`RuleSet` is pure data. Everything the engine does differently between presets is read
from it — the camels, the dice and their faces, the leg-bet stacks, the pyramid tiles — so new
modules (Supercup, R9) are added as fields and small rules rather than as a second engine.

Camel indices (R1.3): racing camels are ``0 .. n_racing-1`` in the preset's colour order, crazy
camels follow (``n_racing ..``). Dice are indexed ``0 .. n_racing-1`` for the racing dice (die *i*
moves camel *i*), then the grey die if the preset has crazy camels.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any

PRESETS = ("classic", "second_edition", "supercup", "persian_tutorial", "cup")


def preset_list() -> str:
    """:data:`PRESETS` as the end of a sentence, "classic, ... or cup": every help text that
    names the presets says this, so a new preset appears in all of them at once."""
    return ", ".join(PRESETS[:-1]) + " or " + PRESETS[-1]


_CLASSIC_COLOURS = ("blue", "green", "orange", "yellow", "white")
_RACING = {
    "classic": _CLASSIC_COLOURS,
    "second_edition": ("blue", "green", "red", "yellow", "purple"),
    "supercup": _CLASSIC_COLOURS,
    "persian_tutorial": ("red", "yellow", "blue", "green", "orange"),
    "cup": _CLASSIC_COLOURS,
}
_CRAZY = {
    "classic": (),
    "second_edition": ("black", "white"),
    "supercup": (),
    "persian_tutorial": (),
    "cup": (),
}
#: Leg-bet values; with leg cards (R14.3) the value of the 1st, 2nd, ... winner card played.
_LEG_BETS = {
    "classic": (5, 3, 2),
    "second_edition": (5, 3, 2, 2),
    "supercup": (5, 3, 2),
    "persian_tutorial": (5, 3, 2, 1, 1),
    "cup": (5, 3, 2, 0),
}
#: Supercup's extra 2-valued leg-bet tile per colour, a component of modules 1 and 3 (R1, R9.1).
_SUPERCUP_EXTRA_LEG_BET = 2
#: "none": no desert/spectator tiles, so no R4.2 action (the Persian tutorial, R14).
_TILE_KIND = {
    "classic": "desert",
    "second_edition": "spectator",
    "supercup": "desert",
    "persian_tutorial": "none",
    "cup": "trap",
}
#: The Persian tutorial's game (R14): every die moves its camel one space (R14.2).
_PERSIAN_DIE_FACES = (1, 1, 1, 1, 1, 1)
#: R14.4: the value of the 1st, 2nd, ... leg loser card played in a leg.
_PERSIAN_LOSER_VALUES = (1, 1, 2, 3, 5)
#: The Camel Up Cup's track (C1): its engine's 29-slot track, Cup spaces 0-28, whose traps may
#: go on Cup spaces 1-27, that is spaces 2-28 here, past the finish line (C6).
_CUP_LAST_TILE_SPACE = 28
#: The presets with betting partnerships (R9.4): the second edition's base game and Supercup's
#: module 4, each from 6 players (R1.4); neither the classic game nor the Persian tutorial
#: (R14.7) has them.
_PARTNERSHIPS = ("second_edition", "supercup")
#: The Supercup modules (R9.1-R9.4) as RuleSet switches.
SUPERCUP_MODULES = ("support_dice", "photographer", "position_bets", "partnerships")

#: One die face: (camel shown by the face, number of spaces).
Face = tuple[int, int]
#: The default of each field the preset decides (R1): ``None``, replaced on construction by the
#: preset's value (an explicit ``None`` means the same). Typed ``Any`` so that such a field is
#: annotated with the type it holds once the rule set is built (``track_length: int =
#: FROM_PRESET``).
FROM_PRESET: Any = None


@dataclass(frozen=True)
class RuleSet:
    """One game's rules. Unset fields take the preset's values (R1); every field is validated.

    ``supercup`` is classic plus the four modules of R9, each a switch that defaults to on
    (partnerships only from 6 players, R1.4): ``support_dice`` (module 1: 20 spaces, 6 pyramid
    tiles, support dice, and the optional ``extra_action``), ``photographer`` (module 2),
    ``position_bets`` (module 3) and ``partnerships`` (module 4).

    ``persian_tutorial`` is the game of source 000 (R14): a start line, dice that move one
    space, the desert ``wanderer`` (it ends legs and is an action), ``leg_cards`` (winner and
    loser cards whose values follow the order played), no track tiles and no coin for a roll.

    ``cup`` is the Camel Up Cup's four-player game (C1-C13, the bot competition's engine):
    classic camels and dice, 2 starting coins, endless leg-bet stacks 5, 3, 2, then 0
    (``endless_leg_bets``), no money floor, a roll paid at once, traps up to space 28
    (``last_tile_space``) that may be put again on their own space, and race bets paying 8, 5,
    3, 1, then 1.

    >>> RuleSet("second_edition", num_players=6).partnerships
    True
    >>> RuleSet("supercup", num_players=4, photographer=False).track_length
    20
    """

    preset: str = "classic"
    num_players: int = 4
    track_length: int = FROM_PRESET
    racing_colours: tuple[str, ...] = FROM_PRESET
    crazy_colours: tuple[str, ...] = FROM_PRESET
    racing_die_faces: tuple[int, ...] = FROM_PRESET
    grey_die_values: tuple[int, ...] = (1, 2, 3)
    leg_bet_values: tuple[int, ...] = FROM_PRESET
    tile_kind: str = FROM_PRESET
    starting_coins: int = FROM_PRESET
    pyramid_tiles: int = FROM_PRESET
    partnerships: bool = FROM_PRESET
    race_bet_payouts: tuple[int, ...] = FROM_PRESET
    #: Supercup module 1 (R9.1): support dice, one per racing camel; their faces (R9.1.3,
    #: an assumption: the seed's numbers are unreadable); the optional extra action (R9.1.4).
    support_dice: bool = FROM_PRESET
    support_die_faces: tuple[int, ...] = (1, 1, 1, 2, 2, 2)
    extra_action: bool = False
    #: Supercup module 2 (R9.2) and module 3 (R9.3, the position shown on each tile).
    photographer: bool = FROM_PRESET
    position_bets: bool = FROM_PRESET
    position_tiles: tuple[int, ...] = (2, 3, 4, 5)
    #: The Persian tutorial (R14): the desert wanderer (R14.1, R14.5, R14.6); leg bets as
    #: winner and loser cards (R14.3, R14.4, ``loser_bet_values`` in the order played); the
    #: coins a roll earns at leg scoring (R6.2's pyramid tile; R14.2: none).
    wanderer: bool = FROM_PRESET
    leg_cards: bool = FROM_PRESET
    loser_bet_values: tuple[int, ...] = FROM_PRESET
    pyramid_tile_value: int = FROM_PRESET
    #: The Camel Up Cup (C1-C13): the last value of each leg-bet stack is never used up (C5);
    #: coins may go below 0 (C10, no R8.1 floor); a roll pays its coin at once, not at leg
    #: scoring (C4); track tiles may go on spaces up to ``last_tile_space``, past the finish
    #: line (C6), and a placed tile may be put again on its own space (C6).
    endless_leg_bets: bool = FROM_PRESET
    money_floor: bool = FROM_PRESET
    roll_pays_at_once: bool = FROM_PRESET
    last_tile_space: int = FROM_PRESET
    tile_same_space: bool = FROM_PRESET
    #: Per die: its faces. Derived from the fields above; not an argument.
    dice: tuple[tuple[Face, ...], ...] = field(init=False, repr=False, compare=False)
    _hash: int = field(init=False, repr=False, compare=False)
    #: Tables other modules derive from these rules (``actions.action_table``), built on first
    #: use and kept here by name, not in a cache keyed by rule set: equal rule sets are often
    #: distinct objects, and comparing them field by field on every engine step cost about a
    #: twentieth of the step. Not pickled. Each module reads its own tables with their types.
    _derived: dict[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise ValueError(f"unknown preset {self.preset!r}; expected one of {PRESETS}")
        supercup = self.preset == "supercup"
        persian = self.preset == "persian_tutorial"
        cup = self.preset == "cup"
        defaults = {
            "starting_coins": 2 if cup else 3,
            "race_bet_payouts": (8, 5, 3, 1) if cup else (8, 5, 3, 2, 1),
            "endless_leg_bets": cup,
            "money_floor": not cup,
            "roll_pays_at_once": cup,
            "tile_same_space": cup,
            "racing_die_faces": _PERSIAN_DIE_FACES if persian else (1, 1, 2, 2, 3, 3),
            "wanderer": persian,
            "leg_cards": persian,
            "loser_bet_values": _PERSIAN_LOSER_VALUES if persian else (),
            "pyramid_tile_value": 0 if persian else 1,
            "racing_colours": _RACING[self.preset],
            "crazy_colours": _CRAZY[self.preset],
            "leg_bet_values": _LEG_BETS[self.preset],
            "tile_kind": _TILE_KIND[self.preset],
            "partnerships": self.preset in _PARTNERSHIPS and self.num_players >= 6,
            "support_dice": supercup,
            "photographer": supercup,
            "position_bets": supercup,
        }
        leg_bets_given = self.leg_bet_values is not None
        for name, value in defaults.items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, value)
        # Modules 1 and 3 each bring the extra 2-tile per colour (R1): 5, 3, 2, 2 with either on.
        if supercup and not leg_bets_given and (self.support_dice or self.position_bets):
            object.__setattr__(
                self, "leg_bet_values", (*self.leg_bet_values, _SUPERCUP_EXTRA_LEG_BET)
            )
        # Module 1 lengthens the track and adds a sixth pyramid tile (R9.1).
        if self.track_length is None:
            object.__setattr__(self, "track_length", 20 if self.support_dice else 16)
        if self.pyramid_tiles is None:
            object.__setattr__(self, "pyramid_tiles", 6 if self.support_dice else 5)
        if self.last_tile_space is None:
            object.__setattr__(
                self, "last_tile_space", _CUP_LAST_TILE_SPACE if cup else self.track_length
            )
        for name in (
            "racing_colours",
            "crazy_colours",
            "leg_bet_values",
            "racing_die_faces",
            "grey_die_values",
            "race_bet_payouts",
            "support_die_faces",
            "position_tiles",
            "loser_bet_values",
        ):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        self._validate()
        object.__setattr__(self, "dice", self._build_dice())
        # Rule sets key the action-table and odds caches on every step: hash once.
        key = tuple(
            getattr(self, f)
            for f in self.__dataclass_fields__
            if not f.startswith("_") and f != "dice"
        )
        object.__setattr__(self, "_hash", hash(key))
        object.__setattr__(self, "_derived", {})

    def __hash__(self) -> int:
        return self._hash

    def __getstate__(self) -> dict[str, object]:
        return {k: v for k, v in self.__dict__.items() if k != "_derived"}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state, _derived={})

    def _validate(self) -> None:
        most = 10 if self.preset == "supercup" else 8
        if not isinstance(self.num_players, int) or not 2 <= self.num_players <= most:
            raise ValueError(
                f"{self.preset} is played by 2 to {most} players (R1), "
                f"got num_players={self.num_players}"
            )
        if self.preset != "supercup":
            for module in ("support_dice", "photographer", "position_bets", "extra_action"):
                if getattr(self, module):
                    raise ValueError(f"{module} is a Supercup module (R9); use preset='supercup'")
        elif self.num_players >= 9 and not all(getattr(self, m) for m in SUPERCUP_MODULES):
            off = [m for m in SUPERCUP_MODULES if not getattr(self, m)]
            raise ValueError(f"9 or 10 players need all four Supercup modules (R1.4); off: {off}")
        if self.preset == "cup" and self.num_players != 4:
            raise ValueError(
                f"the Camel Up Cup is played by 4 players (C1), got num_players={self.num_players}"
            )
        if self.preset != "persian_tutorial":
            for rule in ("wanderer", "leg_cards", "loser_bet_values"):
                if getattr(self, rule):
                    raise ValueError(
                        f"{rule} is a rule of the Persian tutorial (R14); use "
                        "preset='persian_tutorial'"
                    )
        if self.wanderer and (self.tile_kind != "none" or self.crazy_colours):
            raise ValueError(
                "the desert wanderer's game has no track tiles and no crazy camels (R14.7)"
            )
        if self.leg_cards and (
            len(self.leg_bet_values) != self.n_racing or len(self.loser_bet_values) != self.n_racing
        ):
            raise ValueError(
                f"leg cards pay by the order played, one value per racing camel (R14.3, R14.4), "
                f"got {self.leg_bet_values} and {self.loser_bet_values}"
            )
        if any(v < 1 for v in self.loser_bet_values):
            raise ValueError(
                f"loser card values must be positive (R14.4), got {self.loser_bet_values}"
            )
        if self.pyramid_tile_value < 0:
            raise ValueError(f"pyramid_tile_value must be >= 0, got {self.pyramid_tile_value}")
        if self.extra_action and not self.support_dice:
            raise ValueError("extra_action is part of module 1 and needs support_dice (R9.1.4)")
        if self.support_dice and (
            not self.support_die_faces or any(v < 1 for v in self.support_die_faces)
        ):
            raise ValueError(f"support die faces must be positive, got {self.support_die_faces}")
        if self.position_bets and (
            len(set(self.position_tiles)) != len(self.position_tiles)
            or any(not 1 <= p <= len(self.racing_colours) for p in self.position_tiles)
        ):
            raise ValueError(
                f"position tiles must be distinct ranks 1..5, got {self.position_tiles}"
            )
        if not 6 <= self.track_length <= 64:
            raise ValueError(f"track_length must be between 6 and 64, got {self.track_length}")
        if not self.track_length <= self.last_tile_space <= 64:
            raise ValueError(
                f"last_tile_space must be between the track length "
                f"({self.track_length}) and 64 (R4.2, C6), got {self.last_tile_space}"
            )
        colours = self.racing_colours + self.crazy_colours
        if len(self.racing_colours) != 5:
            raise ValueError(f"{self.preset} has 5 racing camels (R1), got {self.racing_colours}")
        if len(set(colours)) != len(colours):
            raise ValueError(f"camel colour names must be distinct, got {colours}")
        if self.preset != "second_edition" and self.crazy_colours:
            raise ValueError(f"{self.preset} has no crazy camels (R1); use preset='second_edition'")
        if self.preset == "second_edition" and len(self.crazy_colours) != 2:
            raise ValueError(f"second_edition has 2 crazy camels (R1), got {self.crazy_colours}")
        if self.tile_kind not in ("desert", "spectator", "trap", "none"):
            raise ValueError(
                f"tile_kind must be 'desert', 'spectator', 'trap' or 'none', got {self.tile_kind!r}"
            )
        if not self.racing_die_faces or any(v < 1 for v in self.racing_die_faces):
            raise ValueError(f"racing die faces must be positive, got {self.racing_die_faces}")
        faces = self.racing_die_faces + self.grey_die_values + self.support_die_faces
        if max(faces) > self.track_length:
            raise ValueError(
                f"a die face moves at most the track length ({self.track_length} "
                f"spaces), got {max(faces)}"
            )
        if self.crazy_colours and (
            not self.grey_die_values or any(v < 1 for v in self.grey_die_values)
        ):
            raise ValueError(f"grey die values must be positive, got {self.grey_die_values}")
        values = self.leg_bet_values
        # C5: an endless stack may end in a 0-valued tile (a late bet that pays nothing).
        lowest = 0 if self.endless_leg_bets else 1
        if (
            not values
            or values[0] < 1
            or any(v < lowest for v in values)
            or list(values) != sorted(values, reverse=True)
        ):
            raise ValueError(
                f"leg-bet stack values must be positive, highest on top (R2.3; an endless stack "
                f"may end in 0, C5), got {values}"
            )
        if self.endless_leg_bets and self.leg_cards:
            raise ValueError(
                "leg cards are played once per leg (R14.3); they cannot be endless (C5)"
            )
        if self.starting_coins < 0:
            raise ValueError(f"starting_coins must be >= 0, got {self.starting_coins}")
        # A leg starts with every racing die (+ grey) and, with support dice, exactly one support
        # die (R9.1.1): more pyramid tiles than that would leave a tile with no die to draw.
        n_dice = (
            len(self.racing_colours)
            + (1 if self.crazy_colours else 0)
            + (1 if self.support_dice else 0)
        )
        if not 1 <= self.pyramid_tiles <= n_dice:
            raise ValueError(
                f"pyramid_tiles must be between 1 and the {n_dice} dice in the pyramid at a leg "
                f"start (R6.1, R9.1.1), got {self.pyramid_tiles}"
            )
        if self.partnerships and self.preset not in _PARTNERSHIPS:
            raise ValueError(
                f"{self.preset} has no betting partnerships (R9.4: second edition or Supercup "
                "module 4)"
            )
        if self.partnerships and self.num_players < 6:
            raise ValueError(
                f"betting partnerships need at least 6 players (R1.4, R9.4), "
                f"got num_players={self.num_players}"
            )
        if not self.race_bet_payouts or any(v < 0 for v in self.race_bet_payouts):
            raise ValueError(f"race-bet payouts must be non-negative, got {self.race_bet_payouts}")
        self._refuse_unplayed()

    def _refuse_unplayed(self) -> None:
        """A field for a rule this game does not play would be ignored without a word (say
        tiles' spaces in a game without tiles): it is refused, naming the field and the preset,
        unless it holds the value it has anyway."""
        no_tiles = "it has no track tiles (tile_kind 'none')"
        unplayed = {  # field: (its rule is off, its value when not given, why)
            "grey_die_values": (not self.crazy_colours, (1, 2, 3), "it has no grey die (R1)"),
            "support_die_faces": (
                not self.support_dice,
                (1, 1, 1, 2, 2, 2),
                "it has no support dice (Supercup module 1, R9.1)",
            ),
            "position_tiles": (
                not self.position_bets,
                (2, 3, 4, 5),
                "it has no position bets (Supercup module 3, R9.3)",
            ),
            "loser_bet_values": (
                not self.leg_cards,
                _PERSIAN_LOSER_VALUES if self.preset == "persian_tutorial" else (),
                "it has no leg loser cards (R14.4)",
            ),
            "last_tile_space": (
                self.tile_kind == "none",
                _CUP_LAST_TILE_SPACE if self.preset == "cup" else self.track_length,
                no_tiles,
            ),
            "tile_same_space": (self.tile_kind == "none", self.preset == "cup", no_tiles),
        }
        for name, (off, unset, why) in unplayed.items():
            if off and getattr(self, name) != unset:
                raise ValueError(
                    f"{name} is not a rule of this {self.preset} game: {why}, so it would be "
                    "ignored"
                )

    def _build_dice(self) -> tuple[tuple[Face, ...], ...]:
        dice = [tuple((c, v) for v in self.racing_die_faces) for c in range(self.n_racing)]
        if self.crazy_colours:
            dice.append(
                tuple(
                    (self.n_racing + k, v)
                    for k in range(len(self.crazy_colours))
                    for v in self.grey_die_values
                )
            )
        if self.support_dice:
            dice += [tuple((c, v) for v in self.support_die_faces) for c in range(self.n_racing)]
        return tuple(dice)

    # Derived sizes -------------------------------------------------------------------------
    @property
    def n_racing(self) -> int:
        return len(self.racing_colours)

    @property
    def n_camels(self) -> int:
        return len(self.racing_colours) + len(self.crazy_colours)

    @property
    def colours(self) -> tuple[str, ...]:
        """Colour names of every camel, racing first, indexed as in the engine (R1.3)."""
        return self.racing_colours + self.crazy_colours

    @property
    def n_dice(self) -> int:
        return len(self.dice)

    def is_crazy(self, camel: int) -> bool:
        return camel >= self.n_racing

    @property
    def first_support_die(self) -> int:
        """Die index of the support die of camel 0 (support die of camel c = this + c)."""
        return self.n_racing + (1 if self.crazy_colours else 0)

    @property
    def leg_start_dice(self) -> tuple[int, ...]:
        """The dice that are always in the pyramid at a leg start (R2.3; R9.1.1 adds one)."""
        return tuple(range(self.first_support_die))

    def die_name(self, die: int) -> str:
        if die < self.n_racing:
            return self.racing_colours[die]
        if die >= self.first_support_die:
            return f"{self.racing_colours[die - self.first_support_die]} support"
        return "grey"

    @property
    def tile_sides(self) -> tuple[str, str]:
        """Names of the +1 and -1 sides of the track tile (R4.2)."""
        return {"desert": ("oasis", "mirage"), "trap": ("boost", "slow")}.get(
            self.tile_kind, ("cheering", "booing")
        )

    def to_dict(self) -> dict[str, Any]:
        """The fields that differ from the preset, plus preset and num_players (JSON-safe).
        Built once per rule set (every state document of a tournament carries it); each call
        returns a fresh copy."""
        doc: dict[str, Any] | None = self._derived.get("document")
        if doc is None:
            doc = self._derived["document"] = self._document()
        return {k: list(v) if isinstance(v, list) else v for k, v in doc.items()}

    def _document(self) -> dict[str, Any]:
        base = RuleSet(self.preset, self.num_players)
        out: dict[str, Any] = {"preset": self.preset, "num_players": self.num_players}
        for name in self.__dataclass_fields__:
            if name in ("preset", "num_players") or name in _NOT_ARGUMENTS:
                continue
            value = getattr(self, name)
            if value != getattr(base, name):
                out[name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: object) -> RuleSet:
        """The rule set of a :meth:`to_dict` document, which may come from a stranger: every
        value's JSON type is checked against the field's annotation before the constructor
        validates the rules, so a bad document is a ``ValueError`` naming the field. Equal
        documents give the same (immutable) object, so a bot rebuilding every state it is sent
        keeps one rule set and its caches."""
        try:
            key = json.dumps(data, sort_keys=True)
        except (TypeError, ValueError):
            key = None
        known = _FROM_DICT.get(key) if key is not None else None
        if known is None:
            known = cls._from_document(data)
            if key is not None and len(_FROM_DICT) < 256:
                _FROM_DICT[key] = known
        return known

    @classmethod
    def _from_document(cls, data: object) -> RuleSet:
        if not isinstance(data, dict) or "preset" not in data:
            raise ValueError(f"a rule set document needs at least a 'preset', got {str(data)[:80]}")
        known = set(cls.__dataclass_fields__) - _NOT_ARGUMENTS
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown rule set field(s) {sorted(map(str, unknown))[:5]}")
        # each value of the type its field's annotation names (checked by _typed)
        kwargs: dict[str, Any] = {k: _typed(k, v) for k, v in data.items()}
        return cls(**kwargs)


#: RuleSet.from_dict's rule sets by canonical document (bounded: a few rule sets per process).
_FROM_DICT: dict[str, RuleSet] = {}
#: Derived fields of a rule set: neither constructor arguments nor part of its document.
_NOT_ARGUMENTS = frozenset(f.name for f in fields(RuleSet) if not f.init)
#: JSON type of each document field, read off its annotation ("int", "tuple[int, ...]").
_DOCUMENT_TYPES = {f.name: str(f.type) for f in fields(RuleSet) if f.init}
#: Longest list and largest magnitude a rule set document may hold (far beyond any game).
_MOST_ITEMS, _MOST_MAGNITUDE = 64, 1 << 31


def _typed(name: str, value: object) -> object:
    """``value`` of document field ``name`` as the constructor takes it, or ``ValueError``."""
    kind = _DOCUMENT_TYPES[name]
    if value is None and name in _NULLABLE:
        return None
    if kind.startswith("tuple["):
        item = kind[len("tuple[") :].split(",")[0]
        if type(value) is not list or len(value) > _MOST_ITEMS:
            raise ValueError(
                f"rule set field {name} must be a list of at most {_MOST_ITEMS} "
                f"{item}s, got {str(value)[:60]}"
            )
        return tuple(_typed_scalar(name, v, item) for v in value)
    return _typed_scalar(name, value, kind)


def _typed_scalar(name: str, value: object, kind: str) -> object:
    expected = {"int": int, "bool": bool, "str": str}[kind]
    if type(value) is not expected:
        raise ValueError(f"rule set field {name} must be {kind}, got {str(value)[:60]}")
    if kind == "int" and isinstance(value, int) and abs(value) >= _MOST_MAGNITUDE:
        raise ValueError(f"rule set field {name} is out of range: {value}")
    if kind == "str" and isinstance(value, str) and len(value) > _MOST_ITEMS:
        raise ValueError(f"rule set field {name} is longer than {_MOST_ITEMS} characters")
    return value


#: Fields whose ``None`` means "the preset's value".
_NULLABLE = frozenset(f.name for f in fields(RuleSet) if f.init and f.default is FROM_PRESET)
