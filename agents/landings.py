"""Fast approximate tile values: expected landings per space over the rest of the leg.

``odds.placement_evs`` is exact but runs one leg enumeration *per* candidate placement (up to
30), which dominates a greedy player's time at the start of a leg (all dice still in the
pyramid). This module enumerates the rest of the leg *once* (a depth-first walk over every
die and face, exact probabilities) and counts, for every space, the expected number of times a
unit ends a die move there (R5.1, R5.5; before any tile effect).

A tile put on space ``s`` earns one coin per landing (R5.3). Up to the first landing on ``s`` the
game is the same with or without the tile, so ``P(at least one landing)`` is exact; the
approximation is in later landings, after the tile has displaced a unit by one space. The error
is small (``tests/test_agents_greedy.py`` measures it against the exact odds) and both sides of
the tile get the same value.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from camelup_env.rules import RuleSet
from camelup_env.state import GameState

_TABLES: dict[RuleSet, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}


def _tables(rules: RuleSet) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    found = _TABLES.get(rules)
    if found is None:
        distinct = []
        for faces in rules.dice:
            counts: dict = {}
            for face in faces:
                counts[face] = counts.get(face, 0) + 1
            distinct.append([(c, v, k / len(faces)) for (c, v), k in counts.items()])
        width = max(len(d) for d in distinct)
        fc = np.zeros((rules.n_dice, width), np.int64)
        fv = np.zeros((rules.n_dice, width), np.int64)
        fw = np.zeros((rules.n_dice, width), np.float64)
        nf = np.zeros(rules.n_dice, np.int64)
        for d, faces in enumerate(distinct):
            nf[d] = len(faces)
            for j, (c, v, w) in enumerate(faces):
                fc[d, j], fv[d, j], fw[d, j] = c, v, w
        found = (fc, fv, fw, nf)
        _TABLES[rules] = found
    return found


@njit(cache=True)
def _crazy_to_move(space, height, shown, n_racing, n_camels):
    # R5.5: the only crazy camel carrying a racing camel; else one directly on the other; else
    # the colour shown.
    n_carriers = 0
    carrier = -1
    on_other = -1
    for k in range(n_racing, n_camels):
        for c in range(n_racing):
            if space[c] == space[k] and height[c] > height[k]:
                n_carriers += 1
                carrier = k
                break
        for j in range(n_racing, n_camels):
            if space[j] == space[k] and height[j] == height[k] + 1:
                on_other = j
    if n_carriers == 1:
        return carrier
    if on_other >= 0:
        return on_other
    return shown


@njit(cache=True)
def _move(space, height, camel, steps, track_length, tile_side, n_camels):
    """Move ``camel``'s unit in place (R5.1-R5.3, R5.5 mirrored tiles); return (landed, final)."""
    src = space[camel]
    h = height[camel]
    dst = src + steps
    landed = dst
    under = False
    if 1 <= dst <= track_length and tile_side[dst] != 0:
        side = tile_side[dst]
        under = side < 0
        dst = dst + side if steps > 0 else dst - side
    size = 0
    for c in range(n_camels):
        if space[c] == src and height[c] >= h:
            size += 1
    below = 0
    for c in range(n_camels):
        if space[c] == dst and not (space[c] == src and height[c] >= h):
            if under:
                height[c] += size
            else:
                below += 1
    for c in range(n_camels):
        if space[c] == src and height[c] >= h:
            space[c] = dst
            height[c] = height[c] - h + (0 if under else below)
    return landed, dst


@njit(cache=True)
def _encode(space, height, mask, n_camels):
    # 10 bits per camel (space 7 bits, height 3 bits): camels 0-5 in the low word, camel 6+
    # from bit 16 of the high word, whose low 16 bits hold the dice mask.
    lo = 0
    hi = mask
    for c in range(n_camels):
        v = space[c] * 8 + height[c]
        if c < 6:
            lo |= v << (10 * c)
        else:
            hi |= v << (16 + 10 * (c - 6))
    return lo, hi


@njit(cache=True)
def _decode(lo, hi, space, height, n_camels):
    for c in range(n_camels):
        v = (lo >> (10 * c)) & 1023 if c < 6 else (hi >> (16 + 10 * (c - 6))) & 1023
        space[c] = v >> 3
        height[c] = v & 7
    return hi & 0xFFFF


@njit(cache=True)
def _walk(space0, height0, mask0, left, fc, fv, fw, nf, n_racing, track_length, tile_side,
          out):
    """Level by level over (board, dice left), merging equal boards (a DP, as in odds)."""
    n_camels = space0.shape[0]
    n_dice = nf.shape[0]
    space = space0.copy()
    height = height0.copy()
    sp = np.empty(n_camels, np.int64)
    ht = np.empty(n_camels, np.int64)
    lo0, hi0 = _encode(space0, height0, mask0, n_camels)
    cur_lo = np.array([lo0])
    cur_hi = np.array([hi0])
    cur_w = np.array([1.0])
    for level in range(left):
        last = level == left - 1
        nxt = dict()
        nxt[(np.int64(0), np.int64(-1))] = 0.0
        for i in range(cur_lo.shape[0]):
            mask = _decode(cur_lo[i], cur_hi[i], space, height, n_camels)
            k = 0
            for d in range(n_dice):
                k += (mask >> d) & 1
            for d in range(n_dice):
                if (mask >> d) & 1 == 0:
                    continue
                for j in range(nf[d]):
                    w = cur_w[i] * fw[d, j] / k
                    sp[:] = space
                    ht[:] = height
                    camel = fc[d, j]
                    steps = fv[d, j]
                    if camel >= n_racing:
                        camel = _crazy_to_move(sp, ht, camel, n_racing, n_camels)
                        steps = -steps
                    landed, dst = _move(sp, ht, camel, steps, track_length, tile_side,
                                        n_camels)
                    if 1 <= landed <= track_length:
                        out[landed] += w
                    if not last and 1 <= dst <= track_length:
                        key = _encode(sp, ht, mask & ~(1 << d), n_camels)
                        nxt[key] = nxt.get(key, 0.0) + w
        if last:
            break
        n = len(nxt) - 1
        cur_lo = np.empty(n, np.int64)
        cur_hi = np.empty(n, np.int64)
        cur_w = np.empty(n)
        i = 0
        for key, w in nxt.items():
            if key[1] == -1:
                continue
            cur_lo[i] = key[0]
            cur_hi[i] = key[1]
            cur_w[i] = w
            i += 1
        if n == 0:
            break
    return 0


def expected_landings(state: GameState, ignore_tiles_of: int | None = None) -> np.ndarray:
    """Expected die-move landings on each space ``0..L`` before the leg ends (index = space).

    Tiles on the track move units as usual, except those of seat ``ignore_tiles_of`` (lifted).
    """
    rules = state.rules
    L = rules.track_length
    out = np.zeros(L + 2)
    left = min(state.pyramid_tiles_left, len(state.pyramid))
    if state.game_over or left <= 0 or any(s < 1 or s > L for s in state.stacks):
        return out
    space = np.zeros(rules.n_camels, np.int64)
    height = np.zeros(rules.n_camels, np.int64)
    for s, stack in state.stacks.items():
        for h, camel in enumerate(stack):
            space[camel], height[camel] = s, h
    tile_side = np.zeros(L + 2, np.int64)
    for s, (owner, side) in state.tiles.items():
        if owner != ignore_tiles_of:
            tile_side[s] = side
    mask = 0
    for d in state.pyramid:
        mask |= 1 << d
    fc, fv, fw, nf = _tables(rules)
    _walk(space, height, mask, left, fc, fv, fw, nf, rules.n_racing, L, tile_side, out)
    return out


# The Supercup camera (R9.2) ------------------------------------------------------------------
@njit(cache=True)
def _photo_walk(space0, height0, mask0, left, fc, fv, fw, nf, n_racing, track_length,
                tile_side, camera):
    """Exact expected coins of a camera on ``camera``: E[size of the first unit that ends a die
    move there] (R9.2: the camera pays once, then returns). Boards whose unit ends on the camera
    space are scored and dropped (nothing after the photo matters to it); the rest are merged
    level by level as in :func:`_walk`."""
    n_camels = space0.shape[0]
    n_dice = nf.shape[0]
    space = space0.copy()
    height = height0.copy()
    sp = np.empty(n_camels, np.int64)
    ht = np.empty(n_camels, np.int64)
    lo0, hi0 = _encode(space0, height0, mask0, n_camels)
    cur_lo = np.array([lo0])
    cur_hi = np.array([hi0])
    cur_w = np.array([1.0])
    total = 0.0
    for level in range(left):
        last = level == left - 1
        nxt = dict()
        nxt[(np.int64(0), np.int64(-1))] = 0.0
        for i in range(cur_lo.shape[0]):
            mask = _decode(cur_lo[i], cur_hi[i], space, height, n_camels)
            k = 0
            for d in range(n_dice):
                k += (mask >> d) & 1
            for d in range(n_dice):
                if (mask >> d) & 1 == 0:
                    continue
                for j in range(nf[d]):
                    w = cur_w[i] * fw[d, j] / k
                    sp[:] = space
                    ht[:] = height
                    camel = fc[d, j]
                    steps = fv[d, j]
                    if camel >= n_racing:
                        camel = _crazy_to_move(sp, ht, camel, n_racing, n_camels)
                        steps = -steps
                    size = 0
                    for c in range(n_camels):
                        if sp[c] == sp[camel] and ht[c] >= ht[camel]:
                            size += 1
                    _, dst = _move(sp, ht, camel, steps, track_length, tile_side, n_camels)
                    if dst == camera:
                        total += w * size
                        continue
                    if not last and 1 <= dst <= track_length:
                        key = _encode(sp, ht, mask & ~(1 << d), n_camels)
                        nxt[key] = nxt.get(key, 0.0) + w
        if last:
            break
        n = len(nxt) - 1
        if n == 0:
            break
        cur_lo = np.empty(n, np.int64)
        cur_hi = np.empty(n, np.int64)
        cur_w = np.empty(n)
        i = 0
        for key, w in nxt.items():
            if key[1] == -1:
                continue
            cur_lo[i] = key[0]
            cur_hi[i] = key[1]
            cur_w[i] = w
            i += 1
    return total


_PHOTO_CACHE: dict = {}


def expected_photo_coins(state: GameState, spaces=None) -> dict[int, float]:
    """Exact expected coins this leg of a camera pointed now at each of ``spaces`` (R9.2).

    The camera pays its holder 1 coin per camel of the first unit that ends a die move on its
    space (after any desert-tile step, R5.3), then returns; it never changes movement. So the
    value is ``E[size of the first unit ending on the space]`` over the rest of the leg, computed
    by one exact enumeration per space (boards are dropped once photographed). ``spaces``
    defaults to every empty space 1..L; spaces no unit can reach are 0 without enumeration
    (units only move forward when there are no crazy camels). The camera's effect on where
    others may put their tiles, and a later photo by someone who retakes the tile, are ignored.
    Results are cached per (board, tiles, dice, reveals left).
    """
    rules = state.rules
    L = rules.track_length
    if spaces is None:
        spaces = [s for s in range(1, L + 1) if s not in state.stacks and s not in state.tiles]
    spaces = [int(s) for s in spaces]
    left = min(state.pyramid_tiles_left, len(state.pyramid))
    if state.game_over or left <= 0 or any(s < 1 or s > L for s in state.stacks):
        return {s: 0.0 for s in spaces}
    key = (rules, tuple(sorted(state.stacks.items())),
           tuple(sorted((s, side) for s, (_, side) in state.tiles.items())),
           tuple(state.pyramid), left)
    known = _PHOTO_CACHE.get(key)
    if known is None:
        known = {}
        if len(_PHOTO_CACHE) > 4096:
            _PHOTO_CACHE.clear()
        _PHOTO_CACHE[key] = known
    todo = [s for s in spaces if s not in known]
    if todo:
        space = np.zeros(rules.n_camels, np.int64)
        height = np.zeros(rules.n_camels, np.int64)
        for s, stack in state.stacks.items():
            for h, camel in enumerate(stack):
                space[camel], height[camel] = s, h
        tile_side = np.zeros(L + 2, np.int64)
        for s, (_owner, side) in state.tiles.items():
            tile_side[s] = side
        mask = 0
        for d in state.pyramid:
            mask |= 1 << d
        fc, fv, fw, nf = _tables(rules)
        lowest = min(state.stacks)
        reach = max(state.stacks) + left * int(fv.max()) + 1
        forward_only = rules.n_camels == rules.n_racing
        for s in todo:
            if forward_only and not lowest < s <= reach:
                known[s] = 0.0
                continue
            known[s] = float(_photo_walk(space, height, mask, left, fc, fv, fw, nf,
                                         rules.n_racing, L, tile_side, s))
    return {s: known[s] for s in spaces}
