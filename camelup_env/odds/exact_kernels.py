"""The compiled half of the exact race odds (:mod:`camelup_env.odds.race_exact`): a leg's full
distribution of outcomes, and the fold of the leg-end boards' race odds into a position's.

Boards are racing camels only (rule sets with no crazy camel: every unit moves forward), in the
keys of :mod:`camelup_env.game.rule_kernels`. A leg-end board's race odds depend only on its
*shape*, the sorted keys, since every racing die has the same faces and the dice of a new leg
do not depend on the colours (R6.1; with Supercup support dice, that of the last camel,
R9.1.1): the camel with ``i`` racing camels behind it is camel ``i`` of the shape. A shape on
the track packs into one integer, ``(space - 1) << (6 * i)`` summed over ``i`` in ascending key
order (the heights follow from the spaces), so up to 10 camels on 64 spaces.

numba's disk cache is keyed by this file alone, and these kernels inline the compiled rules
and the enumeration's helpers of :mod:`camelup_env.odds.kernels`: :func:`drop_stale_cache`
flushes this file's cache at import when either changed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from camelup_env import stale_cache
from camelup_env.compile_notice import announce_compiles
from camelup_env.game import rule_kernels
from camelup_env.game.rule_kernels import race_over, space_of
from camelup_env.odds import kernels
from camelup_env.odds.kernels import (
    _MASK_SHIFT,
    _add_ends,
    _children_bound,
    _decode,
    _encode,
    _roll,
    _table_add,
    _table_drain,
)

announce_compiles()  # a first run says why it waits (camelup_env.compile_notice)

#: Bits per camel of a shape code: a space 1..64, less one.
_SHAPE_BITS = 6


@njit(cache=True)
def _leg_outcomes(key0, mask0, left, fc, fv, fw, nf, n_racing, track_length, tile_side):
    """The rest of the leg from board ``key0`` (dice ``mask0``, ``left`` reveals, the tile
    side per space ``tile_side``), every outcome kept: (``ended[camel, 0]``, the probability
    that the race ends inside the leg with the camel first, ``[camel, 1]`` last (R5.4, R7.2);
    and per distinct board where the leg ends with the race going on (R6.1): its shape code,
    ``behind[camel]`` (racing camels behind it there: its index in the shape) and its
    probability).

    The enumeration of :func:`camelup_env.odds.kernels._leg_kernel` (level by level, boards
    merged per dice left in one table read back in slot order), whose last level is kept in
    the table, merged by board, instead of scored.
    """
    n_camels = key0.shape[0]
    ended = np.zeros((n_racing, 2))
    key = np.empty((2, n_camels), np.int64)  # row 0: the board being expanded, row 1: a child
    for c in range(n_camels):
        key[0, c] = key0[c]
    cur1 = np.empty(1, np.int64)
    cur2 = np.empty(1, np.int64)
    curw = np.ones(1)
    cur1[0], cur2[0] = _encode(key, 0, mask0, n_camels)
    n_cur = 1
    size = 0  # the table: empty until a level stores boards
    nxt1 = np.empty(0, np.int64)
    nxt2 = np.empty(0, np.int64)
    nxtw = np.empty(0)
    if mask0 == 0:
        left = 0
    for level in range(left):
        cap = 1
        children = _children_bound(cur2, n_cur, nf)
        while cap <= children:  # never full; about half full as boards merge
            cap *= 2
        if cap > size:
            size = cap
            nxt1 = np.empty(size, np.int64)
            nxt2 = np.full(size, -1, np.int64)  # -1: empty slot (a real code2 is >= 0)
            nxtw = np.zeros(size)
        cap_mask = cap - 1
        n_next = 0
        for i in range(n_cur):
            c2 = cur2[i]
            mask = c2 >> _MASK_SHIFT
            _decode(cur1[i], c2, key, 0, n_camels)
            k = 0
            for d in range(nf.shape[0]):
                k += (mask >> d) & 1
            wk = curw[i] / k
            for d in range(nf.shape[0]):
                if (mask >> d) & 1 == 0:
                    continue
                # the leg's end merges boards whatever dice stay in the pyramid
                child_mask = 0 if level == left - 1 else mask & ~(1 << d)
                for j in range(nf[d]):
                    w = wk * fw[d, j]
                    dst, _, _ = _roll(key, 0, 1, fc[d, j], fv[d, j], n_racing, n_camels, tile_side)
                    if race_over(dst, track_length):  # R5.4: scored on the board it ended
                        _add_ends(key, 1, n_racing, w, ended)
                        continue
                    e1, e2 = _encode(key, 1, child_mask, n_camels)
                    n_next += _table_add(nxt1, nxt2, nxtw, e1, e2, w, cap_mask)
        n_cur = n_next
        if n_cur > cur1.shape[0]:
            cur1 = np.empty(n_cur, np.int64)
            cur2 = np.empty(n_cur, np.int64)
            curw = np.empty(n_cur)
        _table_drain(nxt1, nxt2, nxtw, cap, cur1, cur2, curw)
        if n_cur == 0:
            break
    codes = np.empty(n_cur, np.int64)
    behind = np.empty((n_cur, n_camels), np.int64)
    for i in range(n_cur):
        _decode(cur1[i], cur2[i], key, 0, n_camels)
        codes[i] = _shape_code(key, behind, i, n_camels)
    return ended, codes, behind, curw[:n_cur].copy()


@njit(cache=True, inline="always")
def _shape_code(key, behind, i, n_camels):
    """The shape code of board row 0 of ``key``, its camels' indices in it to ``behind[i]``."""
    code = 0
    for c in range(n_camels):
        b = 0
        for o in range(n_camels):
            b += key[0, o] < key[0, c]
        behind[i, c] = b
        code |= (space_of(key[0, c]) - 1) << (_SHAPE_BITS * b)
    return code


@njit(cache=True)
def _fold(ended, index, behind, weight, values):
    """A position's race odds ``[winner / loser, camel]``: the race's ends inside the leg
    (``ended``, :func:`_leg_outcomes`) plus, per leg-end board, its probability ``weight`` times
    its shape's odds ``values[index]`` read at each camel's index in the shape."""
    n_racing = ended.shape[0]
    out = np.empty((2, n_racing))
    for c in range(n_racing):
        out[0, c] = ended[c, 0]
        out[1, c] = ended[c, 1]
    for i in range(weight.shape[0]):
        v = values[index[i]]
        for c in range(n_racing):
            out[0, c] += weight[i] * v[0, behind[i, c]]
            out[1, c] += weight[i] * v[1, behind[i, c]]
    return out


def drop_stale_cache() -> bool:
    """Flush this file's numba disk cache when a file it inlines changed; returns whether it
    flushed."""
    return stale_cache.drop_stale_cache(__name__, DEPENDENCIES)


DEPENDENCIES = (rule_kernels, kernels)
drop_stale_cache()
