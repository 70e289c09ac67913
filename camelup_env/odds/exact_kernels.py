"""The compiled half of the exact race odds (:mod:`camelup_env.odds.race_exact`): a leg's full
distribution of outcomes, the race odds of every state of a tile-free leg by backward induction,
and the fold of the one into the other.

Boards are racing camels only (rule sets with no crazy camel: every unit moves forward), in the
keys of :mod:`camelup_env.game.rule_kernels`. With no tile on the track (every leg after the
current one, R6.4) the race from a board depends on the camels' keys and on which dice are
left, not on the colours: every racing die has the same faces, and so has every support die
(R9.1). So a *state* is the camels sorted by key (the camel with ``i`` racing camels behind it
is camel ``i`` of the state), each with two flags: its racing die is still in the pyramid, its
support die is. It packs into one integer: camel ``i`` in bits ``8 i`` to ``8 i + 7``, its
space less one in the low 6 (the heights follow from the order) and the flags above, so up to 8
camels on 64 spaces. A state whose leg is over becomes the next leg's start at once: every
racing die back, and with support dice that of the last camel, index 0 (R6.1, R9.1.1).

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
from camelup_env.game.rule_kernels import first_second_last, race_over, space_of
from camelup_env.odds import kernels
from camelup_env.odds.kernels import (
    _MASK_SHIFT,
    _add_ends,
    _decode,
    _encode,
    _level_table,
    _next_level,
    _roll,
    _table_add,
)

announce_compiles()  # a first run says why it waits (camelup_env.compile_notice)

#: Bits per camel of a state code, and the flags of its dice above its space.
_STATE_BITS = 8
_SPACE_MASK = 63
_RACING_DIE = 64
_SUPPORT_DIE = 128


@njit(cache=True)
def _leg_outcomes(key0, mask0, left, fc, fv, fw, nf, n_racing, track_length, tile_side, support):
    """The rest of the leg from board ``key0`` (dice ``mask0``, ``left`` reveals, the tile
    side per space ``tile_side``), every outcome kept: (``ended[camel, 0]``, the probability
    that the race ends inside the leg with the camel first, ``[camel, 1]`` last (R5.4, R7.2);
    and per distinct board where the leg ends with the race going on (R6.1): the state code
    of the next leg's start (``support``: with support dice), ``behind[camel]`` (racing
    camels behind it there: its index in the state) and its probability).

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
        cap, size, nxt1, nxt2, nxtw = _level_table(cur2, n_cur, nf, size, nxt1, nxt2, nxtw)
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
        cur1, cur2, curw = _next_level(nxt1, nxt2, nxtw, cap, n_cur, cur1, cur2, curw)
        if n_cur == 0:
            break
    codes = np.empty(n_cur, np.int64)
    behind = np.empty((n_cur, n_camels), np.int64)
    no_dice = np.zeros(n_camels, np.int64)
    for i in range(n_cur):
        _decode(cur1[i], cur2[i], key, 0, n_camels)
        codes[i] = _state_code(key, 0, no_dice, n_camels, support, behind, i)
    return ended, codes, behind, curw[:n_cur].copy()


@njit(cache=True, inline="always")
def _state_code(key, row, dice, n_racing, support, behind, i):
    """The state code of board ``row`` of ``key`` with the dice flags ``dice[camel]`` (a
    leg's start when none is left), each camel's index in it to ``behind[i]``."""
    code = 0
    left = 0
    for c in range(n_racing):
        b = 0
        for o in range(n_racing):
            b += key[row, o] < key[row, c]
        behind[i, c] = b
        code |= ((space_of(key[row, c]) - 1) | dice[c]) << (_STATE_BITS * b)
        left |= dice[c]
    if left == 0:  # R6.1, R9.1.1: the next leg's dice
        for b in range(n_racing):
            code |= _RACING_DIE << (_STATE_BITS * b)
        if support:
            code |= _SUPPORT_DIE
    return code


@njit(cache=True, inline="always")
def _state_board(code, key, dice, n_racing):
    """Board row 0 of ``key`` and the dice flags of state ``code`` (camel ``i`` above the camels
    of lower index on its space)."""
    for i in range(n_racing):
        part = (code >> (_STATE_BITS * i)) & 255
        space = (part & _SPACE_MASK) + 1
        height = 0
        for o in range(i):
            height += space_of(key[0, o]) == space
        key[0, i] = space * 16 + height
        dice[i] = part & (_RACING_DIE | _SUPPORT_DIE)


@njit(cache=True)
def _solve(roots, memo, values, n_rows, rv, rw, sv, sw, n_racing, track_length):
    """The race odds ``values[memo[code]]`` (``[winner / loser, index]``) of every state reachable
    from the state codes ``roots``, by backward induction: a state's odds are the dice left's
    (drawn uniformly, then a face: the racing faces ``rv`` with weights ``rw``, the support
    faces ``sv``, ``sw``) ends of the race plus their children's odds. A unit only moves
    forward, so a child is farther up the track and the recursion (an explicit stack) ends.
    Rows from ``n_rows`` on are free; returns the rows used, or -1 when ``values`` is full (the
    rows filled so far stay valid: call again with more)."""
    tiles = np.zeros(track_length + 2, np.int64)
    key = np.empty((2, n_racing), np.int64)
    dice = np.empty(n_racing, np.int64)
    child = np.empty(n_racing, np.int64)
    behind = np.empty((1, n_racing), np.int64)
    acc = np.empty((2, n_racing))
    stack = np.empty(256, np.int64)
    for r in range(roots.shape[0]):
        stack[0] = roots[r]
        top = 1
        while top > 0:
            code = stack[top - 1]
            if code in memo:
                top -= 1
                continue
            _state_board(code, key, dice, n_racing)
            k = 0
            for c in range(n_racing):
                k += ((dice[c] >> 6) & 1) + ((dice[c] >> 7) & 1)
            missing = 0
            acc[:] = 0.0
            for c in range(n_racing):
                for flag in (_RACING_DIE, _SUPPORT_DIE):
                    if dice[c] & flag == 0:
                        continue
                    fv = rv if flag == _RACING_DIE else sv
                    fw = rw if flag == _RACING_DIE else sw
                    for o in range(n_racing):
                        child[o] = dice[o]
                    child[c] = dice[c] & ~flag
                    for j in range(fv.shape[0]):
                        w = fw[j] / k
                        dst, _, _ = _roll(key, 0, 1, c, fv[j], n_racing, n_racing, tiles)
                        if race_over(dst, track_length):  # R5.4, R7.2
                            first, _, last = first_second_last(key, 1, 0, n_racing)
                            acc[0, first] += w
                            acc[1, last] += w
                            continue
                        ccode = _state_code(key, 1, child, n_racing, sw.shape[0] > 0, behind, 0)
                        if ccode not in memo:
                            if top == stack.shape[0]:
                                grown = np.empty(2 * top, np.int64)
                                grown[:top] = stack
                                stack = grown
                            stack[top] = ccode
                            top += 1
                            missing += 1
                        elif missing == 0:
                            found = memo[ccode]
                            for o in range(n_racing):
                                acc[0, o] += w * values[found, 0, behind[0, o]]
                                acc[1, o] += w * values[found, 1, behind[0, o]]
            if missing:
                continue  # its children first, then this state again
            if n_rows == values.shape[0]:
                return -1
            values[n_rows] = acc
            memo[code] = n_rows
            n_rows += 1
            top -= 1
    return n_rows


@njit(cache=True)
def _fold(ended, codes, behind, weight, memo, values):
    """A position's race odds ``[winner / loser, camel]``: the race's ends inside the leg
    (``ended``, :func:`_leg_outcomes`) plus, per leg-end board, its probability ``weight`` times
    its state's odds (``values[memo[code]]``, :func:`_solve`) read at each camel's index in the
    state."""
    n_racing = ended.shape[0]
    out = np.empty((2, n_racing))
    for c in range(n_racing):
        out[0, c] = ended[c, 0]
        out[1, c] = ended[c, 1]
    for i in range(weight.shape[0]):
        row = memo[codes[i]]
        for c in range(n_racing):
            out[0, c] += weight[i] * values[row, 0, behind[i, c]]
            out[1, c] += weight[i] * values[row, 1, behind[i, c]]
    return out


@njit(cache=True)
def _root_state(key0, dice, support):
    """The state code of a tile-free position whose dice left are all revealed this leg, as one
    leg-end board of :func:`_leg_outcomes` (its ``codes``, ``behind``)."""
    n_racing = key0.shape[0]
    key = np.empty((1, n_racing), np.int64)
    for c in range(n_racing):
        key[0, c] = key0[c]
    behind = np.empty((1, n_racing), np.int64)
    codes = np.empty(1, np.int64)
    codes[0] = _state_code(key, 0, dice, n_racing, support, behind, 0)
    return codes, behind


def drop_stale_cache() -> bool:
    """Flush this file's numba disk cache when a file it inlines changed; returns whether it
    flushed."""
    return stale_cache.drop_stale_cache(__name__, DEPENDENCIES)


DEPENDENCIES = (rule_kernels, kernels)
drop_stale_cache()
