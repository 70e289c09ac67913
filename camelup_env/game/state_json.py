"""A game state's JSON form: writing it, and reading one that may come from a stranger.

A state document is the :class:`~camelup_env.game.state.GameState` field by field in plain JSON
types (dicts keyed by track space become lists of rows) under a ``schema_version``. Reading one
checks every value's JSON type and shape here, naming the field (``"stacks[1][0]: ..."``), then
the state's own ``validate`` checks the values against the rule set, so nothing out of range
reaches the engine, the odds or an observer. ``GameState.to_dict``/``from_dict`` and
``to_json``/``from_json`` are the public face of these functions.

This module stands below :mod:`camelup_env.game.state` (the state's methods call it): it takes
the state's class as an argument rather than importing it.
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import TYPE_CHECKING, Any, Literal, overload

from camelup_env import safe_json
from camelup_env.game.rules import RuleSet

if TYPE_CHECKING:
    from camelup_env.game.state import GameState

SCHEMA_VERSION = 1
#: Limits for state JSON from strangers: a state is about 1 kB and nests 4 levels deep.
MAX_JSON_BYTES, MAX_JSON_DEPTH = 1 << 20, 8
#: Largest count (coins, leg number) a state may hold: what 32-bit observations and odds hold,
#: and so the largest integer a state document may hold.
MAX_COUNT = (1 << 31) - 1
#: Fields added after schema version 1 was published (the Persian tutorial, R14): a document
#: written before them has none and reads as their defaults.
ADDED_FIELDS = frozenset({"wanderer", "loser_cards"})


def state_to_dict(state: GameState) -> dict[str, Any]:
    """A JSON-safe document of ``state``, which :func:`state_from_dict` reads back equal. The
    fields added for the Persian tutorial (:data:`ADDED_FIELDS`) are written only for rule
    sets that use them, so every other document is exactly what it was before them."""
    doc = {
        "schema_version": SCHEMA_VERSION,
        "rules": state.rules.to_dict(),
        "stacks": [[space, list(stack)] for space, stack in sorted(state.stacks.items())],
        "tiles": [[space, owner, side] for space, (owner, side) in sorted(state.tiles.items())],
        "pyramid": list(state.pyramid),
        "revealed": [list(r) for r in state.revealed],
        "leg_stacks": [list(s) for s in state.leg_stacks],
        "pyramid_tiles_left": state.pyramid_tiles_left,
        "coins": list(state.coins),
        "leg_bets": [[list(b) for b in bets] for bets in state.leg_bets],
        "pyramid_tiles": list(state.pyramid_tiles),
        "hands": list(state.hands),
        "partners": list(state.partners),
        "winner_pile": [list(c) for c in state.winner_pile],
        "loser_pile": [list(c) for c in state.loser_pile],
        "leg": state.leg,
        "current": state.current,
        "leg_starter": state.leg_starter,
        "game_over": state.game_over,
        "crater": state.crater,
        "photographer": list(state.photographer) if state.photographer else None,
        "position_bets": [list(b) for b in state.position_bets],
        "extra_pending": state.extra_pending,
    }
    if state.rules.wanderer or state.rules.leg_cards:
        doc["wanderer"] = state.wanderer
        doc["loser_cards"] = [list(c) for c in state.loser_cards]
    return doc


def state_to_json(state: GameState) -> str:
    """:func:`state_to_dict` as compact JSON text."""
    return json.dumps(state_to_dict(state), separators=(",", ":"))


def state_from_dict(cls: type[GameState], doc: dict[str, Any], validate: bool = True) -> GameState:
    """A ``cls`` state rebuilt from :func:`state_to_dict` output; a bad document raises
    ``ValueError``.

    The document may come from a stranger (a state or replay file): every value's JSON type
    and shape is checked here, then ``GameState.validate`` checks the values against the rule
    set, so nothing out of range reaches the engine, the odds or an observer. Errors name
    the field (``"stacks[1][0]: ..."``).

    ``validate=False`` skips that check (a third of the cost) for a document whose
    values come from this engine itself: the public view the referee sends an in-project
    bot every move (:mod:`tournament.host`), where the check would only repeat the
    referee's engine in the bot's process. The type and shape checks still run.
    """
    if not isinstance(doc, dict):
        raise ValueError(f"a game state document must be a JSON object, got {type(doc).__name__}")
    version = doc.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ValueError(
            f"unsupported game state schema_version {str(version)[:20]} (this camelup "
            f"reads {SCHEMA_VERSION})"
        )
    names = _field_names(cls)
    missing = [f for f in names if f not in doc and f not in ADDED_FIELDS]
    if missing:
        raise ValueError(f"game state document is missing field(s) {missing}")
    extra = set(doc) - set(names) - {"schema_version"}
    if extra:
        raise ValueError(f"game state document has unknown field(s) {sorted(map(str, extra))[:5]}")
    rules = RuleSet.from_dict(doc["rules"])
    n = rules.num_players

    def seats(name: str) -> tuple[int, ...]:
        """A per-seat list of ints."""
        return _ints(doc[name], name, n)

    photographer = doc["photographer"]
    state = cls(
        rules=rules,
        stacks=_stacks(doc["stacks"]),
        tiles={space: (owner, side) for space, owner, side in _rows(doc["tiles"], "tiles", 3)},
        pyramid=_ints(doc["pyramid"], "pyramid"),
        revealed=_rows(doc["revealed"], "revealed", 3),
        leg_stacks=_rows(doc["leg_stacks"], "leg_stacks", length=rules.n_racing),
        pyramid_tiles_left=_int(doc["pyramid_tiles_left"], "pyramid_tiles_left"),
        coins=seats("coins"),
        leg_bets=tuple(
            _rows(r, f"leg_bets[{i}]", 2)
            for i, r in enumerate(_items(doc["leg_bets"], "leg_bets", length=n))
        ),
        pyramid_tiles=seats("pyramid_tiles"),
        hands=seats("hands"),
        partners=seats("partners"),
        winner_pile=_rows(doc["winner_pile"], "winner_pile", 2),
        loser_pile=_rows(doc["loser_pile"], "loser_pile", 2),
        leg=_int(doc["leg"], "leg"),
        current=_int(doc["current"], "current"),
        leg_starter=_int(doc["leg_starter"], "leg_starter"),
        game_over=_bool(doc["game_over"], "game_over"),
        crater=_int(doc["crater"], "crater"),
        photographer=(None if photographer is None else _ints(photographer, "photographer", 2)),
        position_bets=_rows(doc["position_bets"], "position_bets", 4),
        extra_pending=_bool(doc["extra_pending"], "extra_pending"),
        wanderer=_int(doc.get("wanderer", 0), "wanderer"),
        loser_cards=_rows(doc.get("loser_cards", []), "loser_cards", 3),
    )
    if len(state.stacks) != len(doc["stacks"]) or len(state.tiles) != len(doc["tiles"]):
        raise ValueError("stacks and tiles may list each space once")
    if validate:
        state.validate()
    return state


def state_from_json(cls: type[GameState], text: str | bytes) -> GameState:
    """A state from :meth:`to_json` text, checked as untrusted input (see :meth:`from_dict`
    and :mod:`camelup_env.safe_json`): any problem is a ``ValueError``."""
    return state_from_dict(
        cls, safe_json.loads(text, "game state", max_bytes=MAX_JSON_BYTES, max_depth=MAX_JSON_DEPTH)
    )


#: Each state class's document fields, found once (a bot reads a state every move).
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type[GameState]) -> tuple[str, ...]:
    """The fields a document of ``cls`` holds: its constructor's (not the memos)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls) if f.init)
    return names


def _int(value: Any, name: str) -> int:
    if type(value) is not int or abs(value) > MAX_COUNT:
        raise ValueError(f"{name} must be an integer of at most {MAX_COUNT}, got {str(value)[:40]}")
    return value


def _fits(values: list[Any]) -> bool:
    """Every value is an int ``_int`` accepts: the checks of a whole list in one pass, with no
    per-entry field name built (a bot process rebuilds every state it is sent, so this is its
    hot path); only a list that fails is walked again entry by entry, to name the bad one."""
    return all(type(v) is int and -MAX_COUNT <= v <= MAX_COUNT for v in values)


def _bool(value: Any, name: str) -> bool:
    if type(value) is not bool:
        raise ValueError(f"{name} must be true or false, got {str(value)[:40]}")
    return value


def _items(value: Any, name: str, length: int | None = None) -> list[Any]:
    if type(value) is not list:
        raise ValueError(f"{name} must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise ValueError(f"{name} must have {length} entries, got {len(value)}")
    return value


@overload
def _ints(value: Any, name: str, length: Literal[2]) -> tuple[int, int]: ...
@overload
def _ints(value: Any, name: str, length: int | None = None) -> tuple[int, ...]: ...
def _ints(value: Any, name: str, length: int | None = None) -> tuple[int, ...]:
    """A list of ints (of ``length`` entries, if given) as a tuple."""
    items = _items(value, name, length)
    if _fits(items):
        return tuple(items)
    return tuple(_int(v, f"{name}[{j}]") for j, v in enumerate(items))


# The rows' width is checked, so a fixed width gives rows of that many ints.
@overload
def _rows(value: Any, name: str, width: Literal[2]) -> tuple[tuple[int, int], ...]: ...
@overload
def _rows(value: Any, name: str, width: Literal[3]) -> tuple[tuple[int, int, int], ...]: ...
@overload
def _rows(value: Any, name: str, width: Literal[4]) -> tuple[tuple[int, int, int, int], ...]: ...
@overload
def _rows(value: Any, name: str, *, length: int) -> tuple[tuple[int, ...], ...]: ...
def _rows(
    value: Any,
    name: str,
    width: int | None = None,
    length: int | None = None,
) -> tuple[tuple[int, ...], ...]:
    """A list (of ``length`` entries) of int lists (each of ``width`` entries) as tuples."""
    rows = _items(value, name, length)
    if all(type(r) is list and (width is None or len(r) == width) and _fits(r) for r in rows):
        return tuple(map(tuple, rows))
    return tuple(_ints(r, f"{name}[{i}]", width) for i, r in enumerate(rows))


def _stacks(value: Any) -> dict[int, tuple[int, ...]]:
    """``[[space, [camel, ...]], ...]`` as the ``stacks`` dict."""
    stacks: dict[int, tuple[int, ...]] = {}
    for i, entry in enumerate(_items(value, "stacks")):
        space, camels = _items(entry, f"stacks[{i}]", 2)
        stacks[_int(space, f"stacks[{i}][0]")] = _ints(camels, f"stacks[{i}][1]")
    return stacks
