"""The rules compiled once: what the batch core, the odds and the observation kernels all play.

:mod:`camelup_env.game.movement`, :mod:`camelup_env.game.engine` and
:mod:`camelup_env.game.payouts` are the readable reference; this module is the one compiled
copy of the rules that the kernels share: movement on stacks (R5.1-R5.3), the crazy camels
(R5.5), the race's end (R5.4, R5.6), ranking (R0.4, R0.5), and what leg-bet tiles and race-bet
cards pay (R6.2, R7.2, R8.1). A rule change is one edit here plus the reference;
``tests/test_batch_differential.py`` (the batch core against the engine, state for state) and
``tests/test_odds.py`` (the odds against an enumeration through the engine) catch a copy that
drifts.

**Boards.** A camel is one integer, its key ``space * 16 + height`` (0 = bottom of its stack;
a stack holds at most 16 camels), so a camel ahead (R0.4) has the larger key and the camels of
one space have the keys ``space * 16`` to ``space * 16 + 15``. A board is ``n_camels`` keys in
one row of a 2-D integer array, from column ``base``: the batch core keeps them in its game
rows, the odds kernels in rows of their own. Spaces past either end stay keys (``space`` above
L after a forward finish, below 1 after a backward one: ``>>`` floors, so a negative space
still reads back).

numba notes: every helper is inlined into its callers (``inline='always'``), so each kernel
file that calls one bakes it in; those files list this module among the files their stale-cache
fingerprint covers (:mod:`camelup_env.stale_cache`).
"""

from __future__ import annotations

from numba import njit

#: Keys per space: a height is below this (R0.4's order is the key's).
STACK_KEYS = 16
#: What a wrong race-bet card costs its owner (R7.2).
WRONG_CARD = -1
#: What a leg-bet tile on the second camel pays (R6.2); a tile on any other camel but the
#: first costs the same.
SECOND_PAYS = 1


@njit(cache=True, inline="always")
def camel_key(space, height):
    """The key of a camel at ``height`` in the stack on ``space``."""
    return space * STACK_KEYS + height


@njit(cache=True, inline="always")
def space_of(key):
    """The space of a camel's key (floored, so spaces below 1 read back)."""
    return key >> 4


@njit(cache=True, inline="always")
def height_of(key):
    """The place of a camel in its stack, 0 = bottom."""
    return key & 15


@njit(cache=True, inline="always")
def crazy_to_move(b, row, base, shown, n_racing, n_camels):
    """R5.5: the crazy camel the grey die moves. Rule 1: the only crazy camel carrying racing
    camels; rule 2: the crazy camel sitting directly on the other; rule 3: the colour shown."""
    n_carriers = 0
    carrier = -1
    on_other = -1
    for k in range(n_racing, n_camels):
        kk = b[row, base + k]
        top = (kk | 15) + 1
        for c in range(n_racing):
            if kk < b[row, base + c] < top:
                n_carriers += 1
                carrier = k
                break
        for j in range(n_racing, n_camels):
            if b[row, base + j] == kk + 1:
                on_other = j
    if n_carriers == 1:
        return carrier
    if on_other >= 0:
        return on_other
    return shown


@njit(cache=True, inline="always")
def die_move(b, row, base, shown, value, n_racing, n_camels):
    """R5.1 and R5.5: the camel a revealed face moves and by how many spaces (negative:
    backward, a crazy camel chosen by :func:`crazy_to_move`)."""
    if shown >= n_racing:
        return crazy_to_move(b, row, base, shown, n_racing, n_camels), -value
    return shown, value


@njit(cache=True, inline="always")
def tile_push(arrival, steps, side):
    """R5.3 and R5.5: a unit arriving on a tile showing ``side`` (+1 oasis, -1 mirage, 0 no
    tile) moves one more space that way (a backward unit the other way round). Returns (the
    space it ends on, whether it goes under the camels there: a mirage)."""
    if side == 0:
        return arrival, False
    if steps > 0:
        return arrival + side, side < 0
    return arrival - side, side < 0


@njit(cache=True, inline="always")
def move_unit(b, row, w, base, camel, dst, under, n_camels):
    """R5.1-R5.3: ``camel`` and the camels above it (its unit) onto space ``dst``, on top of
    the camels there, or under them (``under``: R5.3's mirage), which then rise by the unit's
    size. Reads board ``row`` and writes the result to row ``w`` of the same array (``w`` may
    be ``row``). Returns the unit's size. Branch-free over the camels."""
    kc = b[row, base + camel]
    top = (space_of(kc) + 1) * STACK_KEYS
    lo = dst * STACK_KEYS
    hi = lo + STACK_KEYS
    size = 0
    bottom = 0
    for c in range(n_camels):
        k = b[row, base + c]
        u = (k >= kc) & (k < top)
        size += u
        bottom += (1 - u) & (k >= lo) & (k < hi)
    bottom *= 1 - under
    shift = lo + bottom - kc
    for c in range(n_camels):
        k = b[row, base + c]
        u = (k >= kc) & (k < top)
        lifted = (1 - u) & (k >= lo) & (k < hi) & under
        b[w, base + c] = k + u * shift + lifted * size
    return size


@njit(cache=True, inline="always")
def race_over(space, track_length):
    """R5.4 and R5.6: a unit that ends past the finish line, or back over the start, ends the
    race."""
    return space > track_length or space < 1


@njit(cache=True, inline="always")
def ahead_of(b, row, base, camel, n_racing):
    """R0.4 (and R5.6: camels carried back over the start have the lowest keys): how many
    racing camels are ahead of ``camel``, farther or higher in the same stack; 0 = first."""
    kc = b[row, base + camel]
    ahead = 0
    for c in range(n_racing):
        ahead += b[row, base + c] > kc
    return ahead


@njit(cache=True, inline="always")
def first_second_last(b, row, base, n_racing):
    """R0.4 and R0.5: the leading, the second and the last racing camel."""
    first = second = last = -1
    for c in range(n_racing):
        k = b[row, base + c]
        if first < 0 or k > b[row, base + first]:
            second = first
            first = c
        elif second < 0 or k > b[row, base + second]:
            second = c
        if last < 0 or k < b[row, base + last]:
            last = c
    return first, second, last


@njit(cache=True, inline="always")
def leg_tile_pay(value, camel, first, second):
    """R6.2: a leg-bet tile of ``value`` on ``camel`` pays its value when the camel leads the
    leg, one coin when it is second, and costs one coin otherwise. (The Cup's tiles of value
    0, C5, which pay nothing on the second camel, are the reference engine's alone: no kernel
    plays that preset.)"""
    if camel == first:
        return value
    if camel == second:
        return SECOND_PAYS
    return -SECOND_PAYS


@njit(cache=True, inline="always")
def leg_tile_ev(value, p_first, p_second):
    """R6.2 in expectation: :func:`leg_tile_pay` with the camel first with probability
    ``p_first`` and second with ``p_second`` (the operations of
    :func:`camelup_env.game.payouts.leg_tile_ev` in the same order, so the two agree to the bit
    for every tile of value 1 or more)."""
    return value * p_first + p_second - (1.0 - p_first - p_second)


@njit(cache=True, inline="always")
def race_card_pay(payouts, start, n_payouts, correct_before):
    """R7.2: a correct race-bet card with ``correct_before`` correct cards under it in its pile
    pays the next payout (``payouts[start:start + n_payouts]``, the last one repeating)."""
    return payouts[start + min(correct_before, n_payouts - 1)]


@njit(cache=True, inline="always")
def paid(coins, amount):
    """R8.1: coins never go below zero."""
    return max(0, coins + amount)
