"""The compiled kernels of the odds: the enumeration of a leg's rest and race rollouts.

:func:`_leg_kernel` enumerates the rest of a leg level by level, merging boards reached with the
same dice left; :func:`_placement_kernel` runs it once per tile placement; :func:`_race_kernel`
rolls races out to their end. How and why: :mod:`camelup_env.odds`. They play the rules through
the compiled rules every kernel shares (:mod:`camelup_env.game.rule_kernels`: movement, the
crazy camels, ranking), on boards of camel keys; ``tests/test_odds.py`` checks the results
against a brute-force enumeration through the real engine.

numba's disk cache is keyed by the file of each kernel, and these inline the compiled rules:
:func:`drop_stale_cache` flushes this file's cache at import when the rules' file changed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from camelup_env import stale_cache
from camelup_env.compile_notice import announce_compiles
from camelup_env.game import rule_kernels
from camelup_env.game.rule_kernels import (
    ahead_of,
    die_move,
    first_second_last,
    move_unit,
    race_over,
    space_of,
    tile_push,
)

announce_compiles()  # a first run says why it waits (camelup_env.compile_notice)


# A die's move on a board (game.rule_kernels' keys): one row of a 2-D array per board in flight,
# indexed without array views; the tiles as one side per space (0: none).
@njit(cache=True, inline="always")
def _roll(key, r, w, camel, value, n_racing, n_camels, tile_side):
    """Reveal one face (``camel`` shown, ``value``) on board ``r``, the result in row ``w``
    (``w`` may be ``r``). Returns (final space, the space the die move arrived on before any
    tile effect (a tile there paid its owner, R5.3), the unit's size)."""
    camel, steps = die_move(key, r, 0, camel, value, n_racing, n_camels)
    arrival = space_of(key[r, camel]) + steps
    side = 0
    if 1 <= arrival < tile_side.shape[0]:  # tiles lie on 2..L, in the Cup past the line (C7)
        side = tile_side[arrival]
    dst, under = tile_push(arrival, steps, side)
    return dst, arrival, move_unit(key, r, w, 0, camel, dst, under, n_camels)


@njit(cache=True, inline="always")
def _add_ends(key, r, n_racing, weight, ended):
    """R7.2 on a finished board: ended[first camel, 0] and ended[last camel, 1] += weight."""
    first, _, last = first_second_last(key, r, 0, n_racing)
    ended[first, 0] += weight
    ended[last, 1] += weight


@njit(cache=True, inline="always")
def _add_ranking(key, r, n_racing, weight, out):
    """R0.4: out[camel, rank] += weight for the ranking of board ``r``."""
    for c in range(n_racing):
        out[c, ahead_of(key, r, 0, c, n_racing)] += weight


# Exact enumeration -------------------------------------------------------------------------
# Level by level: every board reachable after i reveals, merged when the same board is reached
# with the same dice left (a DP over (board, dice left); e.g. a classic full leg has 29,160 die
# sequences but only 3,396 distinct boards before the last reveal). A stored board lies on the
# track (a board where the race ended is scored at once), so a camel packs into 10 bits
# ((space - 1) * 16 + height): camels 0-5 in one int64, camels 6-9 and the dice mask (from bit
# 40) in a second; so up to 10 camels, 23 dice and 64 spaces (checked by the caller).
_MASK_SHIFT = 40


@njit(cache=True, inline="always")
def _encode(key, r, mask, n_camels):
    c1 = 0
    c2 = mask << _MASK_SHIFT
    for c in range(n_camels):
        v = key[r, c] - 16
        if c < 6:
            c1 |= v << (10 * c)
        else:
            c2 |= v << (10 * (c - 6))
    return c1, c2


@njit(cache=True, inline="always")
def _decode(c1, c2, key, r, n_camels):
    for c in range(n_camels):
        if c < 6:
            key[r, c] = ((c1 >> (10 * c)) & 1023) + 16
        else:
            key[r, c] = ((c2 >> (10 * (c - 6))) & 1023) + 16


@njit(cache=True, inline="always")
def _hash_slot(c1, c2, cap_mask):
    h = (c1 * 0x9E3779B97F4A7C15) ^ (c2 * 0xC2B2AE3D27D4EB4F)
    h ^= h >> 29
    return h & cap_mask


# The level table of an enumeration: open addressing over (code1, code2, weight) arrays, code2
# -1 in an empty slot (a real code2 is >= 0); read back in slot order, so every sum below runs
# in an order that depends on the boards alone, never on the table's size.
@njit(cache=True, inline="always")
def _children_bound(cur2, n_cur, nf):
    """An upper bound on the boards one reveal makes of the ``n_cur`` boards of a level."""
    children = 0
    for i in range(n_cur):
        mask = cur2[i] >> _MASK_SHIFT
        for d in range(nf.shape[0]):
            children += ((mask >> d) & 1) * nf[d]
    return children


@njit(cache=True, inline="always")
def _table_add(nxt1, nxt2, nxtw, e1, e2, w, cap_mask):
    """Add weight ``w`` to board ``(e1, e2)``; returns 1 when the board is new to the table."""
    slot = _hash_slot(e1, e2, cap_mask)
    while nxt2[slot] != -1 and (nxt1[slot] != e1 or nxt2[slot] != e2):
        slot = (slot + 1) & cap_mask
    new = 0
    if nxt2[slot] == -1:
        nxt1[slot] = e1
        nxt2[slot] = e2
        new = 1
    nxtw[slot] += w
    return new


@njit(cache=True, inline="always")
def _table_drain(nxt1, nxt2, nxtw, cap, cur1, cur2, curw):
    """Move the table's boards (slots ``0..cap-1``) to ``cur*`` in slot order, emptying it."""
    i = 0
    for slot in range(cap):
        if nxt2[slot] != -1:
            cur1[i] = nxt1[slot]
            cur2[i] = nxt2[slot]
            curw[i] = nxtw[slot]
            nxt2[slot] = -1
            nxtw[slot] = 0.0
            i += 1


@njit(cache=True, inline="always")
def _level_table(cur2, n_cur, nf, size, nxt1, nxt2, nxtw):
    """The table for the children of a level's ``n_cur`` boards: ``cap`` slots (a power of two
    above their bound, so never full) of the one table, grown to ``size`` slots when needed.
    Returns (cap, size, nxt1, nxt2, nxtw)."""
    cap = 1
    children = _children_bound(cur2, n_cur, nf)
    while cap <= children:  # never full; about half full as boards merge
        cap *= 2
    if cap > size:
        size = cap
        nxt1 = np.empty(size, np.int64)
        nxt2 = np.full(size, -1, np.int64)  # -1: empty slot (a real code2 is >= 0)
        nxtw = np.zeros(size)
    return cap, size, nxt1, nxt2, nxtw


@njit(cache=True, inline="always")
def _next_level(nxt1, nxt2, nxtw, cap, n_next, cur1, cur2, curw):
    """The table's ``n_next`` boards as the next level (``cur*``, grown when needed), the table
    emptied. Returns (cur1, cur2, curw)."""
    if n_next > cur1.shape[0]:
        cur1 = np.empty(n_next, np.int64)
        cur2 = np.empty(n_next, np.int64)
        curw = np.empty(n_next)
    _table_drain(nxt1, nxt2, nxtw, cap, cur1, cur2, curw)
    return cur1, cur2, curw


@njit(cache=True)
def _leg_kernel(
    key0, mask0, left, fc, fv, fw, nf, n_racing, track_length, tile_side, camera, pick_at, pick_row
):
    """The rest of the leg, exactly: (rank probabilities ``[camel, rank]``, expected die-move
    arrivals per space ``0..L+1`` before any tile effect (on a tile space: the coins the tile
    pays, R5.3), expected coins of a camera on space ``camera``, the probability ``[camel, 0]``
    that the race ends inside this leg (R5.4, R5.6) with the camel first and ``[camel, 1]``
    with it last, and the systematic sample of the leg's end described next).

    ``pick_at`` (sorted, in [0, 1)) samples the leg's outcomes: each outcome (a board where the
    leg or the race ended) covers the next ``weight`` of [0, 1) in enumeration order, and row
    ``pick_row[t]`` of ``picks`` is the board whose interval holds ``pick_at[t]``;
    ``pick_open`` of that row is 1 when the race goes on from it (a leg-end board), 0 when it
    ended. Only with ``camera = 0``.

    The camera (R9.2; ``camera = 0``: none) pays the size of the first unit that ends a die
    move on its space, then leaves: a photographed board is scored and leaves the enumeration,
    so with a camera the other two results cover only the boards never photographed.

    One hash table (open addressing, sized by an upper bound on the next level's boards) serves
    every level: it only grows, and a level is emptied slot by slot as it is read back in slot
    order, so the summation order, hence every result bit, does not depend on the table's size.
    """
    n_camels = key0.shape[0]
    n_dice = nf.shape[0]
    out = np.zeros((n_racing, n_racing))
    arrivals = np.zeros(tile_side.shape[0])
    last_tile = tile_side.shape[0] - 2  # the last space a tile may lie on (R4.2, C6)
    photo = 0.0
    ended = np.zeros((n_racing, 2))
    n_pick = pick_at.shape[0]
    picks = np.empty((n_pick, n_camels), np.int64)
    pick_open = np.zeros(n_pick, np.int64)
    t = 0  # the next pick
    cum = 0.0  # outcome weight enumerated so far
    key = np.empty((2, n_camels), np.int64)  # row 0: the board being expanded, row 1: a child
    for c in range(n_camels):
        key[0, c] = key0[c]
    if left <= 0 or mask0 == 0:
        _add_ranking(key, 0, n_racing, 1.0, out)
        for t in range(n_pick):
            for c in range(n_camels):
                picks[t, c] = key0[c]
            pick_open[t] = 1
        return out, arrivals, photo, ended, picks, pick_open
    cur1 = np.empty(1, np.int64)
    cur2 = np.empty(1, np.int64)
    curw = np.ones(1)
    cur1[0], cur2[0] = _encode(key, 0, mask0, n_camels)
    n_cur = 1
    size = 0  # the table: empty until a level stores boards
    nxt1 = np.empty(0, np.int64)
    nxt2 = np.empty(0, np.int64)
    nxtw = np.empty(0)
    for level in range(left):
        last = level == left - 1
        cap = 1  # the last level stores no board
        if not last:
            cap, size, nxt1, nxt2, nxtw = _level_table(cur2, n_cur, nf, size, nxt1, nxt2, nxtw)
        cap_mask = cap - 1
        n_next = 0
        for i in range(n_cur):
            c2 = cur2[i]
            mask = c2 >> _MASK_SHIFT
            _decode(cur1[i], c2, key, 0, n_camels)
            k = 0
            for d in range(n_dice):
                k += (mask >> d) & 1
            wk = curw[i] / k
            for d in range(n_dice):
                if (mask >> d) & 1 == 0:
                    continue
                child_mask = mask & ~(1 << d)
                for j in range(nf[d]):
                    w = wk * fw[d, j]
                    dst, arrival, unit = _roll(
                        key, 0, 1, fc[d, j], fv[d, j], n_racing, n_camels, tile_side
                    )
                    if 1 <= arrival <= last_tile:
                        arrivals[arrival] += w
                    if camera > 0 and dst == camera:
                        photo += w * unit
                        continue
                    ended_race = race_over(dst, track_length)  # R5.4, R5.6
                    if last or ended_race:  # R6.1: the leg is over
                        _add_ranking(key, 1, n_racing, w, out)
                        if ended_race:
                            _add_ends(key, 1, n_racing, w, ended)
                        cum += w
                        while t < n_pick and pick_at[t] < cum:
                            row = pick_row[t]
                            for c in range(n_camels):
                                picks[row, c] = key[1, c]
                            pick_open[row] = 1 - ended_race
                            t += 1
                        continue
                    e1, e2 = _encode(key, 1, child_mask, n_camels)
                    n_next += _table_add(nxt1, nxt2, nxtw, e1, e2, w, cap_mask)
        if last:
            break
        n_cur = n_next
        cur1, cur2, curw = _next_level(nxt1, nxt2, nxtw, cap, n_cur, cur1, cur2, curw)
        if n_cur == 0:
            break
    return out, arrivals, photo, ended, picks, pick_open


@njit(cache=True)
def _placement_kernel(
    key, mask, left, fc, fv, fw, nf, n_racing, track_length, tile_side, spaces, sides
):
    """For a tile put on ``spaces[i]`` with ``sides[i]``, one enumeration each: the expected
    landings on it (its owner's coins, R5.3) and the leg's rank probabilities ``[i, camel,
    rank]`` with it there."""
    n = spaces.shape[0]
    landings = np.zeros(n)
    ranks = np.zeros((n, n_racing, n_racing))
    for i in range(n):
        tile_side[spaces[i]] = sides[i]
        out, arrivals, _, _, _, _ = _leg_kernel(
            key,
            mask,
            left,
            fc,
            fv,
            fw,
            nf,
            n_racing,
            track_length,
            tile_side,
            0,
            np.empty(0),
            np.empty(0, np.int64),
        )
        tile_side[spaces[i]] = 0
        landings[i] = arrivals[spaces[i]]
        ranks[i] = out
    return landings, ranks


def _final_ranking(board: list, n_racing: int) -> np.ndarray:
    out = np.zeros((n_racing, n_racing))
    _add_ranking(np.array([board], np.int64), 0, n_racing, 1.0, out)
    return out


@njit(cache=True, inline="always")
def _dice_of(mask, n_dice):
    """The dice of a bit mask, ascending, in an array of ``n_dice`` slots, and their count."""
    dice = np.empty(n_dice, np.int64)
    k = 0
    for d in range(n_dice):
        if (mask >> d) & 1:
            dice[k] = d
            k += 1
    return dice, k


@njit(cache=True)
def _race_kernel(
    key0,
    mask0,
    left0,
    tile_side0,
    rc,
    rv,
    rn,
    n_racing,
    track_length,
    legs_tiles,
    n_samples,
    seed,
    max_legs,
    start_mask,
    first_support,
):
    """Roll out ``n_samples`` races; count who wins (rank first) and who is last (R0.5, R5.6),
    in all and per sample (``first_of``, ``last_of``).

    ``key0`` holds one start board per row; sample ``i`` starts from row ``i % rows``, with the
    dice ``mask0``, ``left0`` reveals and the tiles ``tile_side0`` (``left0 = 0``: at the start
    of a new leg).

    A new leg's pyramid is ``start_mask`` plus, when ``first_support >= 0`` (Supercup support
    dice), the support die ``first_support + last camel`` (R9.1.1). One uniform draw ``x`` per
    reveal picks the die (``int(x * k)``-th of the ``k`` dice left, in ascending order) and the
    face (from the fractional part); the dice left are kept as a sorted array.
    """
    np.random.seed(seed)
    n_camels = key0.shape[1]
    n_starts = key0.shape[0]
    n_dice = rn.shape[0]
    n_spaces = tile_side0.shape[0]
    wins = np.zeros(n_racing, np.int64)
    lasts = np.zeros(n_racing, np.int64)
    first_of = np.full(n_samples, -1, np.int64)  # per sample: the winner (-1: unfinished)
    last_of = np.full(n_samples, -1, np.int64)
    key = np.empty((1, n_camels), np.int64)
    tile_side = np.empty(n_spaces, np.int64)
    dice = np.empty(n_dice, np.int64)  # the dice left, ascending
    dice0, k0 = _dice_of(mask0, n_dice)
    start, k_start = _dice_of(start_mask, n_dice)
    unfinished = 0
    for sample in range(n_samples):
        row = sample % n_starts
        for c in range(n_camels):
            key[0, c] = key0[row, c]
        for s in range(n_spaces):
            tile_side[s] = tile_side0[s]
        k = k0
        for j in range(k):
            dice[j] = dice0[j]
        left = left0
        legs = 0
        finished = False
        while legs < max_legs:
            if left <= 0 or k == 0:  # R6.4: the next leg starts clean
                for s in range(n_spaces):
                    tile_side[s] = 0
                k = k_start
                for j in range(k):
                    dice[j] = start[j]
                if first_support >= 0:  # R9.1.1: the last camel's support die joins
                    _, _, last = first_second_last(key, 0, 0, n_racing)
                    extra = first_support + last
                    j = k
                    while j > 0 and dice[j - 1] > extra:
                        dice[j] = dice[j - 1]
                        j -= 1
                    dice[j] = extra
                    k += 1
                left = legs_tiles
                legs += 1
            x = np.random.random() * k
            i = int(x)
            if i >= k:
                i = k - 1
            d = dice[i]
            f = int((x - i) * rn[d])
            if f >= rn[d]:
                f = rn[d] - 1
            dst, _, _ = _roll(key, 0, 0, rc[d, f], rv[d, f], n_racing, n_camels, tile_side)
            k -= 1
            for j in range(i, k):
                dice[j] = dice[j + 1]
            left -= 1
            if race_over(dst, track_length):
                finished = True
                break
        if not finished:
            unfinished += 1
            continue
        first, _, last = first_second_last(key, 0, 0, n_racing)
        wins[first] += 1
        first_of[sample] = first
        lasts[last] += 1
        last_of[sample] = last
    return wins, lasts, unfinished, first_of, last_of


def drop_stale_cache() -> bool:
    """Flush this file's numba disk cache when the compiled rules it inlines changed; returns
    whether it flushed."""
    return stale_cache.drop_stale_cache(__name__, DEPENDENCIES)


DEPENDENCIES = (rule_kernels,)
drop_stale_cache()
