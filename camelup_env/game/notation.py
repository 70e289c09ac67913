"""Positions from a short text notation, for the odds CLI, tests and notebooks.

Notation (colour names are the preset's, R1; spaces are 1..L, R0.1):

* **track** ``"1:orange;2:yellow,blue;3:green,white"`` - occupied spaces separated by ``;``,
  each ``space:camel,camel,...`` with the stack written **bottom → top** (R0.2). Every camel of
  the preset, crazy camels included (second edition), appears exactly once.
* **dice_left** ``"blue,green"`` or ``["blue", "green"]`` - dice still in the pyramid, named by
  their camel's colour; ``grey`` is the second edition's grey die; a Supercup support die
  (R9.1) is its camel's colour followed by ``+`` (``"blue+"``; ``"blue support"``, the engine's
  die name, is accepted too). Default: the dice of a leg start
  (:func:`camelup_env.game.setup.leg_start_pyramid`: every die; Supercup: the racing dice plus the
  last camel's support die, R9.1.1).
* **wanderer** ``6`` - the Persian tutorial's desert wanderer (R14.1): its space, 2..L and not
  behind a camel (R14.5). Default: the farthest camel's space, at least 2.
* **tiles** ``"4:-1;7:+1"`` - desert/spectator tiles as ``space:side`` (side ``+1``/``1`` or
  ``-1``), each optionally ``@seat`` (``"4:-1@2"``). Tiles without an owner take the lowest
  seats not named explicitly, in the order written (0, 1, 2, ...). R4.2 is enforced: spaces
  2..L, no camel on the space, no tile on a neighbouring space, one tile per player.

The result is an otherwise fresh state of leg 1 (R2.3): ``starting_coins`` each, no bets, all
leg-bet tiles on their stacks, seat 0 to play. ``pyramid_tiles_left`` is the number of reveals
that remain in a reachable state with these dice left: ``rules.pyramid_tiles - (dice revealed)``
where dice revealed = ``rules.n_dice - len(dice_left)`` (classic: one reveal per die left; second
edition: one die fewer, because one die stays in the pyramid, R6.1). With Supercup support dice
every die left is one reveal (the pyramid always holds one die per pyramid tile left, R9.1.5);
more than one support die in the pyramid is only reachable with the extra action (R9.1.4), so
such a position's rule set has ``extra_action=True``. A leg that would already be over (second
edition with a single die left) is an error. Which faces the revealed dice showed is
unknown, so ``revealed`` is empty and nobody holds pyramid tiles.

Every error is a :class:`PositionError` (a ``ValueError``) whose message names the offending
token.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from camelup_env.game.rules import PRESETS, RuleSet
from camelup_env.game.setup import leg_start_stacks
from camelup_env.game.state import GameState

__all__ = ["PositionError", "die_notation", "parse_position", "position_notation"]

GREY = "grey"


class PositionError(ValueError):
    """A position in the text notation is malformed or breaks a rule; the message says where."""


def _int(token: str, what: str) -> int:
    text = token.strip()
    try:
        return int(text)
    except ValueError:
        raise PositionError(f"bad {what} {token.strip()!r}: not a whole number") from None


def _split(text: str, sep: str) -> list[str]:
    return [part.strip() for part in text.split(sep)]


def _parse_track(rules: RuleSet, track: str) -> dict[int, tuple[int, ...]]:
    if not isinstance(track, str) or not track.strip():
        raise PositionError("empty track: expected e.g. '1:orange;2:yellow,blue'")
    index = {name: i for i, name in enumerate(rules.colours)}
    stacks: dict[int, tuple[int, ...]] = {}
    seen: set[int] = set()
    for part in _split(track.strip().rstrip(";"), ";"):
        if ":" not in part:
            raise PositionError(f"bad track entry {part!r}: expected 'space:camel,camel,...'")
        space_text, camels_text = part.split(":", 1)
        space = _int(space_text, "space")
        if not 1 <= space <= rules.track_length:
            raise PositionError(
                f"bad space {space_text.strip()!r} in {part!r}: "
                f"the track is 1..{rules.track_length}"
            )
        if space in stacks:
            raise PositionError(f"space {space} is listed twice (in {part!r})")
        stack = []
        for name in _split(camels_text, ","):
            key = name.lower()
            if key not in index:
                raise PositionError(
                    f"unknown camel {name!r} for preset {rules.preset} "
                    f"(camels: {', '.join(rules.colours)})"
                )
            camel = index[key]
            if camel in seen:
                raise PositionError(f"camel {name!r} appears twice")
            seen.add(camel)
            stack.append(camel)
        stacks[space] = tuple(stack)
    missing = [rules.colours[c] for c in range(rules.n_camels) if c not in seen]
    if missing:
        raise PositionError(f"missing camel(s) {', '.join(missing)}: every camel must be placed")
    return stacks


def die_notation(rules: RuleSet, die: int) -> str:
    """A die's name in the ``dice_left`` notation (``blue``, ``grey``, ``blue+``)."""
    if rules.support_dice and die >= rules.first_support_die:
        return rules.racing_colours[die - rules.first_support_die] + "+"
    return rules.die_name(die)


def position_notation(state: GameState) -> tuple[str, str, str]:
    """The ``(track, dice_left, tiles)`` notation of ``state``'s position, which
    :func:`parse_position` reads back into the same stacks, dice and tiles: what the leg odds
    depend on, so ``camelup odds`` can check the odds shown for any position of a game (the web
    app's coach prints it). Every camel must be on the track (a race not yet over)."""
    rules = state.rules
    track = ";".join(
        f"{space}:" + ",".join(rules.colours[c] for c in stack)
        for space, stack in sorted(state.stacks.items())
    )
    dice = ",".join(die_notation(rules, d) for d in state.pyramid)
    tiles = ";".join(
        f"{space}:{side:+d}@{owner}" for space, (owner, side) in sorted(state.tiles.items())
    )
    return track, dice, tiles


def _parse_dice(
    rules: RuleSet, dice_left: str | Iterable[str] | None, stacks: dict[int, tuple[int, ...]]
) -> tuple[int, ...]:
    if dice_left is None:
        from camelup_env.game.setup import leg_start_pyramid

        return tuple(sorted(leg_start_pyramid(rules, stacks)))
    names = (
        _split(dice_left, ",")
        if isinstance(dice_left, str)
        else [str(n).strip() for n in dice_left]
    )
    names = [n for n in names if n]
    if not names:
        raise PositionError("no dice left: name at least one die (or omit dice_left)")
    by_name = {die_notation(rules, d): d for d in range(rules.n_dice)}
    aliases = {rules.die_name(d): d for d in range(rules.n_dice)}
    dice: list[int] = []
    for name in names:
        key = " ".join(name.lower().split())
        die = by_name.get(key, aliases.get(key))
        if die is None:
            raise PositionError(
                f"unknown die {name!r} for preset {rules.preset} (dice: {', '.join(by_name)})"
            )
        if die in dice:
            raise PositionError(f"duplicate die {name!r}")
        dice.append(die)
    return tuple(sorted(dice))


def _parse_tiles(
    rules: RuleSet, tiles: str | None, stacks: dict[int, tuple[int, ...]]
) -> dict[int, tuple[int, int]]:
    if tiles is None or not tiles.strip():
        return {}
    parsed: list[tuple[str, int, int, int | None]] = []
    for part in _split(tiles.strip().rstrip(";"), ";"):
        if ":" not in part:
            raise PositionError(f"bad tile {part!r}: expected 'space:+1' or 'space:-1[@seat]'")
        space_text, rest = part.split(":", 1)
        owner: int | None = None
        if "@" in rest:
            rest, owner_text = rest.split("@", 1)
            owner = _int(owner_text, "tile owner")
            if not 0 <= owner < rules.num_players:
                raise PositionError(
                    f"bad tile owner {owner_text.strip()!r} in {part!r}: seats are "
                    f"0..{rules.num_players - 1}"
                )
        space = _int(space_text, "tile space")
        side_text = rest.strip()
        if side_text not in ("+1", "1", "-1"):
            raise PositionError(f"bad tile side {side_text!r} in {part!r}: expected +1 or -1")
        parsed.append((part, space, int(side_text), owner))
    named = {owner for *_, owner in parsed if owner is not None}
    free = iter(s for s in range(rules.num_players) if s not in named)
    out: dict[int, tuple[int, int]] = {}
    owners: set[int] = set()
    for part, space, side, owner in parsed:
        if not 2 <= space <= rules.last_tile_space:
            rule = "C6" if rules.last_tile_space > rules.track_length else "R4.2"
            raise PositionError(
                f"tile {part!r} is off the allowed spaces 2..{rules.last_tile_space} ({rule})"
            )
        if space in stacks:
            raise PositionError(f"tile {part!r} is on space {space}, which holds camels (R4.2)")
        if space in out:
            raise PositionError(f"tile {part!r}: space {space} already holds a tile (R4.2)")
        if space - 1 in out or space + 1 in out:
            raise PositionError(f"tile {part!r} is next to another tile (R4.2)")
        if owner is None:
            owner = next(free, None)
            if owner is None:
                raise PositionError(
                    f"tile {part!r}: more tiles than the {rules.num_players} players own"
                )
        if owner in owners:
            raise PositionError(f"tile {part!r}: player {owner} already owns a tile (R1.2)")
        owners.add(owner)
        out[space] = (owner, side)
    return out


def parse_position(
    preset: str,
    track: str,
    dice_left: str | Iterable[str] | None = None,
    tiles: str | None = None,
    num_players: int = 4,
    wanderer: int | None = None,
) -> GameState:
    """A leg-1 :class:`GameState` from the notation in the module docstring.

    >>> s = parse_position("classic", "1:orange;2:yellow,blue;3:green,white", "blue,green")
    >>> s.stacks[2], s.pyramid, s.pyramid_tiles_left
    ((3, 0), (0, 1), 2)
    """
    if preset not in PRESETS:
        raise PositionError(f"unknown preset {preset!r} (presets: {', '.join(PRESETS)})")
    try:
        rules = RuleSet(preset, num_players=num_players)
    except ValueError as exc:
        raise PositionError(str(exc)) from None
    stacks = _parse_track(rules, track)
    pyramid = _parse_dice(rules, dice_left, stacks)
    tile_map = _parse_tiles(rules, tiles, stacks)
    if rules.support_dice:  # one reveal per die left (R9.1.5)
        tiles_left = len(pyramid)
        if sum(d >= rules.first_support_die for d in pyramid) > 1 and not rules.extra_action:
            rules = replace(rules, extra_action=True)  # only the extra action adds more (R9.1.4)
    else:
        tiles_left = rules.pyramid_tiles - (rules.n_dice - len(pyramid))
    if tiles_left < 1:
        raise PositionError(
            f"dice left {dice_left!r}: with {len(pyramid)} dice left the {preset} leg is already "
            f"over (R6.1: {rules.pyramid_tiles} of {rules.n_dice} dice are revealed per leg)"
        )
    if wanderer is not None and not rules.wanderer:
        raise PositionError(
            f"wanderer {wanderer}: the {preset} rules have no desert wanderer (R14.1)"
        )
    if rules.wanderer:
        wanderer = max(2, *stacks) if wanderer is None else wanderer
        if not max(stacks) <= wanderer <= rules.track_length or wanderer < 2:
            raise PositionError(
                f"wanderer {wanderer}: it lies on a space 2..{rules.track_length}"
                " and no camel is beyond it (R14.1, R14.5)"
            )
    n = rules.num_players
    return GameState(
        rules=rules,
        stacks=stacks,
        tiles=tile_map,
        pyramid=pyramid,
        revealed=(),
        leg_stacks=leg_start_stacks(rules),
        pyramid_tiles_left=tiles_left,
        coins=(rules.starting_coins,) * n,
        leg_bets=((),) * n,
        pyramid_tiles=(0,) * n,
        hands=((1 << rules.n_racing) - 1,) * n,
        partners=(-1,) * n,
        winner_pile=(),
        loser_pile=(),
        leg=1,
        current=0,
        leg_starter=0,
        game_over=False,
        wanderer=wanderer or 0,
    )
