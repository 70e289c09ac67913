"""Camel movement on the track (R5) and the ranking of racing camels (R0.4).

These functions work on a ``stacks`` dict (space -> camels bottom -> top) that the caller owns and
may be changed in place; the engine hands them a fresh copy. They are the single implementation
of movement: the engine, the odds tests and the chance API all go through them.
"""

from __future__ import annotations

from camelup_env.game.events import Event, TilePayout, UnitMoved


def move_unit(
    stacks: dict[int, tuple[int, ...]],
    tiles: dict[int, tuple[int, int]],
    camel: int,
    steps: int,
    last_tile_space: int,
    events: list[Event],
    reason: str = "die",
) -> tuple[int, list[int], tuple[int, ...]]:
    """Move ``camel`` and everything above it ``steps`` spaces (negative = backward, R5.5).

    Applies R5.1-R5.3 (and R5.5's mirrored tile effect for backward units). Appends
    :class:`UnitMoved`/:class:`TilePayout` events and returns (final space, tile owners to pay,
    the unit bottom -> top). ``reason`` is recorded on the die's move (see ``UnitMoved``).
    Tiles lie on spaces ``1..last_tile_space``: the track length, or past the finish line in
    the Cup (C6, C7), where a -1 tile keeps a unit from crossing.
    """
    src = _space_of(stacks, camel)
    stack = stacks[src]
    h = stack.index(camel)
    unit, rest = stack[h:], stack[:h]
    if rest:
        stacks[src] = rest
    else:
        del stacks[src]
    dst = src + steps
    events.append(UnitMoved(unit, src, dst, False, reason))
    paid: list[int] = []
    tile = tiles.get(dst) if 1 <= dst <= last_tile_space else None
    underneath = False
    if tile is not None:
        owner, side = tile
        paid.append(owner)
        events.append(TilePayout(owner, dst, 1))
        # R5.3: +1 sends a forward unit on, -1 back underneath. R5.5: a backward (crazy) unit is
        # sent the opposite way: cheering -> one more back (on top), booing -> forward underneath.
        underneath = side < 0
        step = side if steps > 0 else -side
        events.append(UnitMoved(unit, dst, dst + step, underneath, "tile"))
        dst += step
    below = stacks.get(dst, ())
    stacks[dst] = unit + below if underneath else below + unit
    return dst, paid, unit


def crazy_camel_to_move(stacks: dict[int, tuple[int, ...]], shown: int, n_racing: int) -> int:
    """R5.5: which crazy camel the grey die moves, given the colour it shows."""
    exception = crazy_exception(stacks, n_racing)
    return shown if exception is None else exception[0]


def crazy_exception(stacks: dict[int, tuple[int, ...]], n_racing: int) -> tuple[int, str] | None:
    """R5.5 rules 1 and 2: the crazy camel that moves whatever the grey die shows, and why.

    Returns ``(camel, "carrier")`` when exactly one crazy camel carries racing camels (rule 1),
    ``(camel, "on top")`` when one crazy camel sits directly on the other (rule 2), and ``None``
    when the die's colour decides (rule 3).
    """
    carriers = []
    on_other = -1
    for stack in stacks.values():
        for i, camel in enumerate(stack):
            if camel < n_racing:
                continue
            if any(c < n_racing for c in stack[i + 1 :]):
                carriers.append(camel)
            if i + 1 < len(stack) and stack[i + 1] >= n_racing:
                on_other = stack[i + 1]
    if len(carriers) == 1:
        return carriers[0], "carrier"
    if on_other >= 0:
        return on_other, "on top"
    return None


def ranking(stacks: dict[int, tuple[int, ...]], n_racing: int) -> list[int]:
    """Racing camels from first to last (R0.4): farther space first, higher in a stack first.

    Camels past the finish (spaces > L) rank by how far they went; camels carried backward over
    the line (spaces < 1) rank behind every other camel (R5.6). Crazy camels are ignored.
    """
    order: list[int] = []
    for space in sorted(stacks, reverse=True):
        order.extend(c for c in reversed(stacks[space]) if c < n_racing)
    return order


def _space_of(stacks: dict[int, tuple[int, ...]], camel: int) -> int:
    for space, stack in stacks.items():
        if camel in stack:
            return space
    raise KeyError(f"camel {camel} is not on the track")
