"""Exact leg odds and Monte Carlo race odds (issue #3).

Public API (used by the environment and the agents; keep names and signatures):

* :func:`leg_rank_probabilities` ``(state) -> (n_racing, n_racing)`` array ``[camel, rank]``,
  rank 0 = leading: the exact probability that each racing camel ends the **current leg** at each
  rank, given the dice still in ``state.pyramid`` and ``state.pyramid_tiles_left`` more reveals
  (R4.3, R6.1). Tiles move units (R5.3), crazy camels move backward and mirror tiles (R5.5), and a
  race that ends inside the leg (R5.4, R5.6) is ranked at that moment, as the engine ranks it.
* :func:`leg_bet_evs` ``(state) -> (n_racing,)``: expected coins at leg scoring of taking each
  colour's top leg-bet tile now (R6.2: value if first, +1 if second, -1 otherwise); NaN where the
  stack is empty.
* :func:`placement_evs` ``(state, seat) -> {(space, side): coins}``: for every legal
  ``PlaceTile`` of ``seat`` (R4.2), the exact expected tile payouts (R5.3) the owner collects
  before the leg ends, with that tile on the track (it changes movement).
* :func:`expected_landings` ``(state, ignore_tiles_of=None) -> (L + 2,)``: expected die moves
  arriving on each space (before any tile effect) over the rest of the leg, from one
  enumeration: a fast approximate tile value for every space at once (exact up to a unit's
  first landing on the tile; the greedy agent uses it at the start of a leg).
* :func:`expected_photo_coins` ``(state, spaces=None) -> {space: coins}``: the exact expected
  coins this leg of the Supercup camera (R9.2) pointed at each space.
* :func:`race_probabilities` ``(state, n_samples, seed) -> RaceOdds``: P(overall winner) and
  P(overall loser) per racing camel by Monte Carlo rollouts of dice to the end of the race, with
  standard errors ``sqrt(p (1 - p) / n)`` (plain Monte Carlo: the high-sample reference, and the
  ``camelup_v0`` observation's estimate).
* :func:`position_odds` ``(state, race_samples=RACE_SAMPLES) -> PositionOdds``: the leg odds,
  the expected landings and a cheaper race estimate of one public position, from one
  enumeration, cached and shared by the observation and the greedy agent (next sections).

The expected-payout formulas of the betting tiles (R6.2, R9.3, R7.2) live in
:mod:`camelup_env.payouts`; the values of whole actions in :mod:`camelup_env.action_values`.

How the exact odds are computed
-------------------------------
A numba kernel enumerates the rest of the leg level by level (one level per reveal): each board
is expanded by every (die left, distinct face), weighted ``1 / dice left * face multiplicity /
faces`` (a die is drawn uniformly from the pyramid, then a face uniformly from its faces, R4.3),
so sequences are *not* equally likely when dice differ (the grey die has 6 distinct faces, a
racing die 3). Boards reached by several sequences with the same dice left are merged (a DP over
(board, dice left), hash table in numpy arrays), which is exact. From the benchmark's start
position a classic full leg has 29,160 sequences but only 3,396 distinct boards before its last
reveal; a second-edition full leg 320,760 sequences but 16,615 boards. A board is one integer
per camel (``space * 16 + height``); tiles are an array indexed by space; the rule set enters
only as data: the face table ``rules.dice``, the track length and ``pyramid_tiles_left``.
Nothing depends on the preset, so other dice (Supercup support dice), tracks and tile counts
work unchanged (limits: 10 camels, 23 dice, 64 spaces). Results are float64 sums of products;
against exact ``Fraction`` arithmetic the error is below 1e-13.

The kernel reimplements :mod:`camelup_env.movement`; ``tests/test_odds.py`` checks it exactly
(to 1e-12) against a brute-force enumeration through the real engine.

Cost (2-core shared container, warm numba cache, ``.venv/bin/python benchmarks/odds.py``):

* classic full leg: about 0.6 ms (about 300x a plain-Python enumeration in the same run);
* second-edition full leg (5 of 6 dice drawn): about 4 ms (about 600x);
* a repeated position is answered from an LRU cache (4,096 entries per function): ~4 us;
* on the positions of random 4-player classic games (what an environment step sees, uncached):
  about 110 us per call on average, 16 us with 1-2 reveals left (mostly Python: the cache key
  and the kernel's arrays), 230 us with 4-5 left. Before the kernels were tuned (branch-free
  movement shared by all kernels and inlined, one hash table per call, fewer Python steps per
  call) the same run measured about 1.6x these times (``/tmp`` copy of the old module, same
  states, same process).

:func:`placement_evs` runs the enumeration once per legal placement inside one kernel call (up to
``2 (L - 1)`` placements, 30 on a 16-space track): at the start of a leg ~17 ms for 26 classic
placements and ~85 ms for 22 second-edition placements, far less later in the leg (a few
reveals left: well under a millisecond); results are cached.

Race odds
---------
:func:`race_probabilities` rolls out whole races in a numba kernel: the current leg continues
with the tiles on the track and the dice left; at each leg end the tiles are removed (R6.4), all
dice return to the pyramid and ``rules.pyramid_tiles`` are revealed per leg (R6.1), until a unit
crosses the line (R5.4, R5.6). With Supercup support dice a new leg's pyramid is the engine's
(:func:`camelup_env.engine.leg_start_pyramid`: the racing dice plus the last camel's support die,
R9.1.1). Supercup's optional extra action (R9.1.4) is a player's choice, not chance: rollouts
never take it, so with ``extra_action`` the race odds are those of players who always skip it.
Photographer and position tiles (R9.2, R9.3) do not move camels and change nothing here.
Draws come from numba's generator seeded with ``seed``, one uniform ``x`` per reveal: the die is
the ``int(x * k)``-th of the ``k`` dice left (ascending), the face comes from the fractional part,
so a call is deterministic. Standard error is ``sqrt(p (1 - p) / n) <= 0.5 / sqrt(n)``. Measured
at the start of a game (whole races, uncached; same benchmark):

==========  =============  =================  ===================
n_samples   worst-case SE  classic            second edition
==========  =============  =================  ===================
100         0.050          0.17 ms            0.23 ms
1,000       0.016          1.5 ms             2.2 ms
10,000      0.005          14 ms              22 ms
100,000     0.0016         0.16 s             0.22 s
==========  =============  =================  ===================

On the positions of random 4-player classic games, 200 samples cost about 225 us per uncached
call (about 1.4x faster than before the kernels were tuned, same results for every seed).

The default 1,000 samples (SE <= 0.016, 1-2 ms) is cheap enough for every decision of a greedy
agent; later in the race rollouts are shorter and faster.

Shared position odds
--------------------
:func:`position_odds` is what the observation (``camelup_v1``) and the greedy agent use. Per
public position (board, tile sides, dice left, reveals left: nothing hidden, R10) it runs the
leg enumeration **once**, which gives the exact leg odds and the expected landings, plus a
race estimate with ``N = race_samples`` samples (:data:`RACE_SAMPLES` = 64 for the
observation, 1,000 for greedy):

* the enumeration also adds up, exactly, the probability that the race ends *inside* the
  current leg with each camel first / last (R5.4, R5.6): that part of the estimate has no
  error, so a race that must end this leg (say, a camel on the last space and its die still in
  the pyramid with every die to be revealed) gets exact odds from any ``N``;
* the rest comes from systematic sampling of the leg's outcomes: the ``i``-th pick point
  ``x_i`` (base-2 van der Corput sequence: the first ``N`` points stratify [0, 1) when ``N``
  is a power of two) selects the outcome whose cumulative weight interval holds it; each
  selected leg-end board (race not over) is rolled out once from a fresh leg (R6.1, R6.4,
  R9.1.1), each adding ``1 / N`` to its winner and loser. Rollouts use one fixed seed
  (``RACE_SEED``, common random numbers), so the estimate is a deterministic function of the
  position and ``N``;
* the picks and rollouts are nested: the estimate with ``N`` reads the first rollouts of one
  with more samples, so an observation (64) and a greedy bot (1,000) of the same game share
  one enumeration and one rollout run per position (the larger run, when the larger request
  comes first; otherwise the small run is repeated inside the large one).

Error bound (tested in ``tests/test_position_odds.py`` against plain Monte Carlo with 20,000
rollouts, on random positions of all three presets): every entry is unbiased up to the
systematic sampling of the first leg, its root-mean-square error over positions is at most
``0.5 / sqrt(N)`` (the worst-case binomial SE), and no entry is off by more than ``2 / sqrt(N)``.
``RaceOdds.*_se`` report ``sqrt(p (1 - p) / N)``, an upper bound of the sampling part. Away
from the end of the race the stratified first leg buys little: the estimate is then about as
accurate as plain Monte Carlo with the same ``N``; what is cheaper is fewer samples, the exact
in-leg part near the end, and one computation shared by the observation and greedy. Cost:
one enumeration plus at most ``N`` rollouts. Measured errors and costs, with their commands,
are in ``docs/observation.md``.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from numba import njit

from camelup_env import wanderer_odds
from camelup_env.payouts import top_leg_bet_evs
from camelup_env.rules import RuleSet
from camelup_env.state import GameState

__all__ = [
    "RACE_SAMPLES",
    "PlacementOdds",
    "PositionOdds",
    "RaceOdds",
    "clear_cache",
    "expected_landings",
    "expected_photo_coins",
    "leg_bet_evs",
    "leg_rank_probabilities",
    "placement_evs",
    "placement_odds",
    "position_odds",
    "race_probabilities",
]

_CACHE_SIZE = 4096
_NO_PICKS = np.empty(0)  # the leg kernel's ``pick_at`` when no sample of the leg end is wanted
_NO_ROWS = np.empty(0, np.int64)
_leg_cache: OrderedDict = OrderedDict()
_place_cache: OrderedDict = OrderedDict()
_race_cache: OrderedDict = OrderedDict()
_photo_cache: OrderedDict = OrderedDict()
_position_cache: OrderedDict = OrderedDict()
_tables: dict = {}


def clear_cache() -> None:
    """Forget every cached result (the caches are bounded LRU dicts, so this is rarely needed)."""
    _leg_cache.clear()
    _place_cache.clear()
    _race_cache.clear()
    _photo_cache.clear()
    _position_cache.clear()
    wanderer_odds.clear_cache()


def _cache_get(cache: OrderedDict, key):
    found = cache.get(key)
    if found is not None:
        cache.move_to_end(key)
    return found


def _cache_put(cache: OrderedDict, key, value) -> None:
    cache[key] = value
    if len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)


# Rule-set data as arrays ---------------------------------------------------------------------
@dataclass(frozen=True)
class _Tables:
    """Face tables of one rule set: distinct faces with weights (exact) and all faces (sampling)."""

    face_camel: np.ndarray  # (n_dice, max distinct faces) camel shown
    face_value: np.ndarray  # (n_dice, max distinct faces) spaces
    face_weight: np.ndarray  # (n_dice, max distinct faces) probability of the face given the die
    n_faces: np.ndarray  # (n_dice,) distinct faces per die
    raw_camel: np.ndarray  # (n_dice, max faces) every face, for uniform sampling
    raw_value: np.ndarray
    raw_n: np.ndarray
    start_mask: int  # the dice a new leg starts with (R6.1), as a bit mask
    first_support: int  # die index of the first support die (R9.1.1), or -1 without them


def _tables_of(rules: RuleSet) -> _Tables:
    found = _tables.get(rules)
    if found is not None:
        return found
    _check_limits(rules)
    n_dice = rules.n_dice
    distinct = []
    for faces in rules.dice:
        counts: dict = {}
        for face in faces:
            counts[face] = counts.get(face, 0) + 1
        distinct.append([(c, v, k / len(faces)) for (c, v), k in counts.items()])
    width = max(len(d) for d in distinct)
    raw_width = max(len(f) for f in rules.dice)
    fc = np.zeros((n_dice, width), np.int64)
    fv = np.zeros((n_dice, width), np.int64)
    fw = np.zeros((n_dice, width), np.float64)
    nf = np.zeros(n_dice, np.int64)
    rc = np.zeros((n_dice, raw_width), np.int64)
    rv = np.zeros((n_dice, raw_width), np.int64)
    rn = np.zeros(n_dice, np.int64)
    for d in range(n_dice):
        nf[d] = len(distinct[d])
        for j, (c, v, w) in enumerate(distinct[d]):
            fc[d, j], fv[d, j], fw[d, j] = c, v, w
        rn[d] = len(rules.dice[d])
        for j, (c, v) in enumerate(rules.dice[d]):
            rc[d, j], rv[d, j] = c, v
    tables = _Tables(
        fc,
        fv,
        fw,
        nf,
        rc,
        rv,
        rn,
        _mask_of(rules.leg_start_dice),
        rules.first_support_die if rules.support_dice else -1,
    )
    _tables[rules] = tables
    return tables


def _position(state: GameState) -> tuple[list, list, bool]:
    """The board as ``space * 16 + height`` per camel, the tile side per space (0: none), and
    whether a unit has crossed either end. Plain lists: they key the caches (as tuples; both
    determine the stacks and the tile sides exactly) and become the kernels' arrays on a miss.
    """
    rules = state.rules
    length = rules.track_length
    board = [0] * rules.n_camels
    over = False
    for space, stack in state.stacks.items():
        if space < 1 or space > length:
            over = True
        base = space * 16
        for h, camel in enumerate(stack):
            board[camel] = base + h
    return board, _tile_sides(state.tiles, rules), over


def _tile_sides(tiles: dict, rules: RuleSet) -> list[int]:
    """Per space 0..T+1 (T = ``rules.last_tile_space``: L, or 28 in the Cup, C6): the side
    (+1/-1) of the tile on it, 0 for none. Owners do not change movement, so the odds ignore
    them."""
    side = [0] * (rules.last_tile_space + 2)
    for space, (_, s) in tiles.items():
        side[space] = s
    return side


def _mask_of(dice) -> int:
    mask = 0
    for d in dice:
        mask |= 1 << d
    return mask


def _pyramid_mask(state: GameState) -> int:
    return _mask_of(state.pyramid)


# Movement kernels (mirror camelup_env.movement) -----------------------------------------------
# A board is one int per camel, key = space * 16 + height (0 = bottom; at most 16 camels), so a
# camel ahead has a larger key (R0.4) and the camels of one space have keys space*16 .. +15.
# Boards are rows of a 2-D array (one row per board in flight), indexed without array views.
@njit(cache=True, inline="always")
def _crazy_to_move(key, r, shown, n_racing, n_camels):
    """R5.5: the crazy camel the grey die moves (rule 1 carrier, rule 2 upper, else shown)."""
    n_carriers = 0
    carrier = -1
    on_other = -1
    for k in range(n_racing, n_camels):
        kk = key[r, k]
        top = (kk | 15) + 1
        for c in range(n_racing):
            if kk < key[r, c] < top:
                n_carriers += 1
                carrier = k
                break
        for j in range(n_racing, n_camels):
            if key[r, j] == kk + 1:
                on_other = j
    if n_carriers == 1:
        return carrier
    if on_other >= 0:
        return on_other
    return shown


@njit(cache=True, inline="always")
def _move(key, r, w, camel, steps, tile_side, n_camels):
    """R5.1-R5.3 and R5.5's mirrored tile effect: board ``r`` moved, written to row ``w``.

    ``w`` may be ``r`` (in place). ``steps`` < 0 for a backward (crazy) unit. Returns (final
    space, the space the die move arrived on before any tile effect (a tile there paid its
    owner), the unit's size). Branch-free over the camels: the unit
    is every camel from ``camel`` up on its space; it lands on top of the camels already on
    the destination (``bottom`` of them), or under them (a negative tile, R5.3), which then
    rise by the unit's size.
    """
    kc = key[r, camel]
    src = kc >> 4
    top = (src + 1) * 16
    dst = src + steps
    arrival = dst
    under = 0
    if 1 <= dst < tile_side.shape[0]:  # tiles lie on 2..L, in the Cup past the line (C7)
        side = tile_side[dst]
        if side != 0:
            under = side < 0
            if steps > 0:
                dst += side
            else:
                dst -= side
    lo = dst * 16
    hi = lo + 16
    size = 0
    bottom = 0
    for c in range(n_camels):
        k = key[r, c]
        u = (k >= kc) & (k < top)
        size += u
        bottom += (1 - u) & (k >= lo) & (k < hi)
    bottom *= 1 - under
    shift = lo + bottom - kc
    for c in range(n_camels):
        k = key[r, c]
        u = (k >= kc) & (k < top)
        below = (1 - u) & (k >= lo) & (k < hi) & under
        key[w, c] = k + u * shift + below * size
    return dst, arrival, size


@njit(cache=True, inline="always")
def _roll(key, r, w, camel, value, n_racing, n_camels, tile_side):
    """Reveal one face on board ``r`` (result in row ``w``): a racing camel forward, or the
    grey die's choice backward."""
    if camel >= n_racing:  # R5.5: backward, and the rule picks the crazy camel
        camel = _crazy_to_move(key, r, camel, n_racing, n_camels)
        return _move(key, r, w, camel, -value, tile_side, n_camels)
    return _move(key, r, w, camel, value, tile_side, n_camels)


@njit(cache=True, inline="always")
def _add_ends(key, r, n_racing, weight, ended):
    """R7.2 on a finished board: ended[first camel, 0] and ended[last camel, 1] += weight."""
    first = 0
    last = 0
    for c in range(1, n_racing):
        if key[r, c] > key[r, first]:
            first = c
        if key[r, c] < key[r, last]:
            last = c
    ended[first, 0] += weight
    ended[last, 1] += weight


@njit(cache=True, inline="always")
def _add_ranking(key, r, n_racing, weight, out):
    """R0.4 (and R5.6: backward-crossed camels have the lowest keys): out[camel, rank] += w."""
    for c in range(n_racing):
        kc = key[r, c]
        rank = 0
        for d in range(n_racing):
            rank += key[r, d] > kc
        out[c, rank] += weight


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
        cap = 1
        if not last:
            children = 0  # an upper bound on the boards of the next level
            for i in range(n_cur):
                mask = cur2[i] >> _MASK_SHIFT
                for d in range(n_dice):
                    children += ((mask >> d) & 1) * nf[d]
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
                    if last or dst > track_length or dst < 1:  # R6.1 leg over; R5.4/R5.6 race
                        _add_ranking(key, 1, n_racing, w, out)
                        race_over = dst > track_length or dst < 1
                        if race_over:
                            _add_ends(key, 1, n_racing, w, ended)
                        cum += w
                        while t < n_pick and pick_at[t] < cum:
                            row = pick_row[t]
                            for c in range(n_camels):
                                picks[row, c] = key[1, c]
                            pick_open[row] = 1 - race_over
                            t += 1
                        continue
                    e1, e2 = _encode(key, 1, child_mask, n_camels)
                    slot = _hash_slot(e1, e2, cap_mask)
                    while nxt2[slot] != -1 and (nxt1[slot] != e1 or nxt2[slot] != e2):
                        slot = (slot + 1) & cap_mask
                    if nxt2[slot] == -1:
                        nxt1[slot] = e1
                        nxt2[slot] = e2
                        n_next += 1
                    nxtw[slot] += w
        if last:
            break
        n_cur = n_next
        if n_cur > cur1.shape[0]:
            cur1 = np.empty(n_cur, np.int64)
            cur2 = np.empty(n_cur, np.int64)
            curw = np.empty(n_cur)
        i = 0
        for slot in range(cap):
            if nxt2[slot] != -1:
                cur1[i] = nxt1[slot]
                cur2[i] = nxt2[slot]
                curw[i] = nxtw[slot]
                nxt2[slot] = -1
                nxtw[slot] = 0.0
                i += 1
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


def _check_limits(rules: RuleSet) -> None:
    if rules.n_camels > 10 or rules.n_dice > 23 or rules.track_length > 64:
        raise ValueError("the odds kernels support up to 10 camels, 23 dice and 64 spaces")


def _leg_key(state: GameState, board: list, side: list) -> tuple:
    return (
        state.rules,
        tuple(board),
        tuple(side),
        state.pyramid,
        state.pyramid_tiles_left,
        state.game_over,
    )


def _leg_entry(
    state: GameState, board: list, side: list, over: bool
) -> tuple[np.ndarray, np.ndarray]:
    """(rank probabilities, expected arrivals per space) of one enumeration, cached (LRU) by
    position: the board, the tile side per space, the dice left and the reveals left."""
    key = _leg_key(state, board, side)
    found = _cache_get(_leg_cache, key)
    if found is None:
        rules = state.rules
        if state.game_over or over:
            found = (_final_ranking(board, rules.n_racing), np.zeros(rules.last_tile_space + 2))
        else:
            t = _tables_of(rules)
            found = _leg_kernel(
                np.array(board, np.int64),
                _mask_of(state.pyramid),
                min(state.pyramid_tiles_left, len(state.pyramid)),
                t.face_camel,
                t.face_value,
                t.face_weight,
                t.n_faces,
                rules.n_racing,
                rules.track_length,
                np.array(side, np.int64),
                0,
                _NO_PICKS,
                _NO_ROWS,
            )[:2]
        for a in found:
            a.setflags(write=False)
        _cache_put(_leg_cache, key, found)
    return found


def leg_rank_probabilities(state: GameState) -> np.ndarray:
    """Exact ``P(camel ends the current leg at rank r)`` as a float64 ``[camel, rank]`` array.

    Rank 0 is the leading camel (R0.4). Every row and every column sums to 1. A finished race
    (or a leg with no reveals left) gives the current ranking with probability 1. With the
    desert wanderer (R14.5) the leg lasts until a unit passes it: :mod:`camelup_env.wanderer_odds`.
    """
    if state.rules.wanderer:
        return wanderer_odds.leg_rank_probabilities(state)
    board, side, over = _position(state)
    return _leg_entry(state, board, side, over)[0].copy()


def leg_bet_evs(state: GameState) -> np.ndarray:
    """Expected coins at leg scoring of taking each colour's top leg-bet tile now (R6.2).

    ``value * P(first) + 1 * P(second) - 1 * P(any other rank)``; NaN where the stack is empty.
    """
    return top_leg_bet_evs(leg_rank_probabilities(state), state.leg_stacks)


def placement_evs(state: GameState, seat: int) -> dict[tuple[int, int], float]:
    """Exact expected tile payouts (R5.3) to ``seat`` for each of its legal tile placements.

    Keys are ``(space, side)`` of every legal ``PlaceTile`` of ``seat`` (R4.2, decided by the
    engine's own legality code); the seat's tile already on the track, if any, is lifted first.
    The value is the expected number of units that land on the tile before the leg (or race)
    ends, i.e. the coins it earns its owner. Costs one leg enumeration per placement (see the
    module docstring); empty when the game is over or no reveal is left.
    """
    return {place: found.landings for place, found in placement_odds(state, seat).items()}


@dataclass(frozen=True)
class PlacementOdds:
    """One tile placement's effect on the leg (:func:`placement_odds`)."""

    landings: float  # expected units landing on the tile this leg: its owner's coins (R5.3)
    leg: np.ndarray  # (R, R) exact P(camel ends this leg at rank r) with the tile there


def placement_odds(state: GameState, seat: int) -> dict[tuple[int, int], PlacementOdds]:
    """:func:`placement_evs` with, for each placement, the exact leg-rank probabilities of the
    leg with the tile there (what a tile does to the leg bets already taken), from the same
    enumerations, cached together.

    A space no unit can reach this leg (behind every camel, or beyond the farthest reach of the
    dice left, when no camel moves backwards) changes nothing: its landings are 0 and its leg
    odds those of the position with ``seat``'s tile lifted, without an enumeration of its own.
    """
    from camelup_env.actions import PlaceTile
    from camelup_env.engine import legal_actions

    if state.game_over:
        return {}
    rules = state.rules
    board, _, over = _position(state)
    key = (
        rules,
        tuple(board),
        tuple(sorted(state.tiles.items())),
        tuple(state.pyramid),
        state.pyramid_tiles_left,
        seat,
    )
    found = _cache_get(_place_cache, key)
    if found is not None:
        return dict(found)
    probe = state.copy()
    probe.current = seat
    probe.extra_pending = False  # the placements of a normal action (R4.2, R9.2's camera)
    places = [(a.space, a.side) for a in legal_actions(probe) if isinstance(a, PlaceTile)]
    if not places:
        return {}
    probe.tiles = {s: t for s, t in state.tiles.items() if t[0] != seat}
    side = _tile_sides(probe.tiles, rules)
    lifted = _leg_entry(probe, board, side, over)[0]
    left = min(state.pyramid_tiles_left, len(state.pyramid))
    result = {p: PlacementOdds(0.0, lifted) for p in places}
    reached = [p for p in places if _reachable(state, p[0], left)]
    if reached and left > 0 and not over:
        t = _tables_of(rules)
        landings, ranks = _placement_kernel(
            np.array(board, np.int64),
            _pyramid_mask(state),
            left,
            t.face_camel,
            t.face_value,
            t.face_weight,
            t.n_faces,
            rules.n_racing,
            rules.track_length,
            np.array(side, np.int64),
            np.array([p[0] for p in reached], np.int64),
            np.array([p[1] for p in reached], np.int64),
        )
        ranks.setflags(write=False)
        for p, v, r in zip(reached, landings, ranks, strict=True):
            result[p] = PlacementOdds(float(v), r)
    _cache_put(_place_cache, key, result)
    return dict(result)


def _reachable(state: GameState, space: int, left: int) -> bool:
    """Whether a unit may end a die move on ``space`` in the ``left`` reveals left. Only
    forward movement is bounded: with crazy camels (R9.1) every space counts as reachable.
    A die moves a unit at most its largest face, plus one from a tile (R5.3)."""
    rules = state.rules
    if rules.n_camels != rules.n_racing:
        return True
    reach = max(state.stacks) + left * (int(_tables_of(rules).face_value.max()) + 1)
    return min(state.stacks) < space <= reach


def _leg_enumeration(state: GameState, side: list[int], camera: int = 0):
    """The leg kernel's results (see :func:`_leg_kernel`) for ``state`` with the tile sides
    ``side`` (per space 0..L+1), or None when no reveal is left or the race is over."""
    rules = state.rules
    board, _, over = _position(state)
    left = min(state.pyramid_tiles_left, len(state.pyramid))
    if state.game_over or over or left <= 0:
        return None
    t = _tables_of(rules)
    return _leg_kernel(
        np.array(board, np.int64),
        _pyramid_mask(state),
        left,
        t.face_camel,
        t.face_value,
        t.face_weight,
        t.n_faces,
        rules.n_racing,
        rules.track_length,
        np.array(side, np.int64),
        camera,
        _NO_PICKS,
        _NO_ROWS,
    )


def expected_landings(state: GameState, ignore_tiles_of: int | None = None) -> np.ndarray:
    """Expected die moves arriving on each space ``0..L+1`` (index = space) before the leg
    ends, before any tile effect (R5.1, R5.5): one exact enumeration for every space at once.

    Tiles on the track move units as usual, except those of seat ``ignore_tiles_of`` (lifted).
    A tile put on space ``s`` earns one coin per arrival (R5.3), and up to the first arrival on
    ``s`` the leg is the same with or without it, so as a tile value this is exact up to the
    first landing and approximate after it (the tile then displaces units by one space); both
    sides of the tile get the same value. :func:`placement_evs` is exact but enumerates once
    per placement. Cached with the leg odds of the same position (one enumeration gives both).
    """
    board, side, over = _position(state)
    if ignore_tiles_of is not None and any(t[0] == ignore_tiles_of for t in state.tiles.values()):
        others = {sp: t for sp, t in state.tiles.items() if t[0] != ignore_tiles_of}
        side = _tile_sides(others, state.rules)
    return _leg_entry(state, board, side, over)[1].copy()


def expected_photo_coins(state: GameState, spaces=None) -> dict[int, float]:
    """Exact expected coins this leg of a camera pointed now at each of ``spaces`` (R9.2).

    The camera pays its holder 1 coin per camel of the first unit that ends a die move on its
    space (after any desert-tile step, R5.3), then returns; it never changes movement. So the
    value is ``E[size of the first unit ending on the space]`` over the rest of the leg, computed
    by one exact enumeration per space (boards leave it once photographed). ``spaces``
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
    board, side, over = _position(state)
    if state.game_over or over or left <= 0:
        return {s: 0.0 for s in spaces}
    key = (rules, tuple(board), tuple(side), tuple(state.pyramid), left)
    known = _cache_get(_photo_cache, key)
    if known is None:
        known = {}
        _cache_put(_photo_cache, key, known)
    for s in spaces:
        if s not in known:
            if not _reachable(state, s, left):
                known[s] = 0.0
            else:
                known[s] = float(_leg_enumeration(state, side, camera=s)[2])
    return {s: known[s] for s in spaces}


# Race odds ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class RaceOdds:
    """Monte Carlo estimate of the overall winner and loser (R7.2), per racing camel."""

    winner: np.ndarray
    loser: np.ndarray
    winner_se: np.ndarray
    loser_se: np.ndarray
    n_samples: int


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
                    last = 0
                    for c in range(1, n_racing):
                        if key[0, c] < key[0, last]:
                            last = c
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
            if dst > track_length or dst < 1:
                finished = True
                break
        if not finished:
            unfinished += 1
            continue
        for c in range(n_racing):
            ahead = 0
            for e in range(n_racing):
                ahead += key[0, e] > key[0, c]
            if ahead == 0:
                wins[c] += 1
                first_of[sample] = c
            if ahead == n_racing - 1:
                lasts[c] += 1
                last_of[sample] = c
    return wins, lasts, unfinished, first_of, last_of


def race_probabilities(state: GameState, n_samples: int = 1000, seed: int = 0) -> RaceOdds:
    """P(overall winner) and P(overall loser) per racing camel by Monte Carlo rollouts.

    The current leg continues from ``state`` (its tiles stay until it ends), later legs reveal
    ``rules.pyramid_tiles`` of the leg-start dice with no tiles on the track (R6.1, R6.4), until
    the race ends (R5.4, R5.6). The leg-start dice are those of
    :func:`camelup_env.engine.leg_start_pyramid`: with Supercup support dice, the 5 racing dice
    plus the support die of the camel that is last when the leg starts (R9.1.1).
    Supercup's optional extra action (R9.1.4: a player puts another support die into the
    pyramid) is a player's choice, not chance, so rollouts never take it.
    Deterministic for a given ``seed``. ``*_se`` are the binomial
    standard errors ``sqrt(p (1 - p) / n)``. A finished race gives its result with SE 0.
    """
    if n_samples < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples}")
    if state.rules.wanderer:  # R14: its own rollouts
        return _race_odds(*wanderer_odds.race_probabilities(state, n_samples, seed))
    rules = state.rules
    n = rules.n_racing
    board, side, over = _position(state)
    pyramid = tuple(state.pyramid)
    key = (
        rules,
        tuple(board),
        tuple(side),
        pyramid,
        state.pyramid_tiles_left,
        state.game_over,
        n_samples,
        seed,
    )
    found = _cache_get(_race_cache, key)
    if found is not None:
        return found
    if state.game_over or over:
        probs = _final_ranking(board, n)
        rates = np.stack((probs[:, 0], probs[:, n - 1]))
        samples = n_samples
    else:
        t = _tables_of(rules)
        wins, lasts, unfinished, _, _ = _race_kernel(
            np.array([board], np.int64),
            _mask_of(pyramid),
            min(state.pyramid_tiles_left, len(pyramid)),
            np.array(side, np.int64),
            t.raw_camel,
            t.raw_value,
            t.raw_n,
            n,
            rules.track_length,
            rules.pyramid_tiles,
            int(n_samples),
            int(seed) & 0xFFFFFFFF,
            10_000,
            t.start_mask,
            t.first_support,
        )
        samples = n_samples - int(unfinished)
        if samples <= 0:
            raise RuntimeError("no rollout finished the race within 10,000 legs")
        rates = np.stack((wins, lasts)) / samples
    odds = _race_odds(rates, samples)
    _cache_put(_race_cache, key, odds)
    return odds


def _race_odds(rates: np.ndarray, samples: int) -> RaceOdds:
    """RaceOdds from ``[winner, loser]`` rates, with the SE bound ``sqrt(p (1 - p) / n)``."""
    se = np.sqrt(rates * (1.0 - rates) / samples)
    rates.setflags(write=False)  # the rows below are read-only views
    se.setflags(write=False)
    return RaceOdds(rates[0], rates[1], se[0], se[1], samples)


# One position's odds, shared -----------------------------------------------------------------
#: Default samples of :func:`position_odds`' race estimate (the observation's default).
RACE_SAMPLES = 64
#: The rollouts' seed: the same for every position (common random numbers).
RACE_SEED = 12345
#: Leg-end samples drawn by every enumeration of :func:`position_odds` (more when asked for).
_PICKS = 1024


@dataclass(frozen=True)
class PositionOdds:
    """Everything :func:`position_odds` computes for one public position (arrays read-only)."""

    leg: np.ndarray  # (R, R) exact P(camel ends this leg at rank r), as leg_rank_probabilities
    landings: np.ndarray  # (L + 2,) expected arrivals per space, as expected_landings
    race: RaceOdds  # P(overall winner / loser), the estimate of "Shared position odds"


@dataclass
class _Enumerated:
    """One position's enumeration, and the rollouts done from its leg-end sample so far."""

    leg: np.ndarray
    landings: np.ndarray
    ended: np.ndarray  # (R, 2) P(the race ends inside this leg with the camel first / last)
    picks: np.ndarray  # (P, C) the leg outcome at pick point i (see _pick_points), in i order
    open: np.ndarray  # (P,) 1 where the race goes on from picks[i]
    first_of: np.ndarray  # per rollout from the open picks, in pick order: the winner
    last_of: np.ndarray
    by_samples: dict  # race_samples -> PositionOdds


def _pick_points(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Pick points ``x_0 .. x_{n-1}`` in [0, 1): the base-2 van der Corput sequence (shifted by
    2^-24 off the interval ends), so the first ``N`` points put one point in each of the ``N``
    equal intervals whenever ``N`` is a power of two, and every prefix is well spread. Returned
    sorted, with the sequence index of each sorted point."""
    found = _tables.get(("picks", n))
    if found is None:
        x = np.zeros(n)
        for i in range(n):
            f, k, v = 0.5, i, 0.0
            while k:
                v += f * (k & 1)
                k >>= 1
                f /= 2
            x[i] = v + 2.0**-24
        order = np.argsort(x, kind="stable")
        found = _tables[("picks", n)] = (x[order], order)
    return found


def _picks_for(race_samples: int) -> int:
    """Leg-end samples an enumeration draws for a race estimate of ``race_samples``:
    :data:`_PICKS`, doubled until it covers them (so the estimates of every ``N`` up to it
    share the enumeration)."""
    n_picks = _PICKS
    while n_picks < race_samples:
        n_picks *= 2
    return n_picks


def _enumerate(state: GameState, board: list, side: list, n_picks: int) -> _Enumerated:
    rules = state.rules
    t = _tables_of(rules)
    at, order = _pick_points(n_picks)
    probs, landings, _, ended, picks, pick_open = _leg_kernel(
        np.array(board, np.int64),
        _mask_of(state.pyramid),
        min(state.pyramid_tiles_left, len(state.pyramid)),
        t.face_camel,
        t.face_value,
        t.face_weight,
        t.n_faces,
        rules.n_racing,
        rules.track_length,
        np.array(side, np.int64),
        0,
        at,
        order,
    )
    probs.setflags(write=False)
    landings.setflags(write=False)
    return _Enumerated(probs, landings, ended, picks, pick_open, _NO_ROWS, _NO_ROWS, {})


def position_odds(state: GameState, race_samples: int = RACE_SAMPLES) -> PositionOdds:
    """The leg odds, the expected landings and the race odds of ``state``'s public position,
    from **one** leg enumeration plus rollouts, cached (LRU) by position across steps, seats,
    agents and games.

    The position is the board, the tile sides, the dice left and the reveals left: what every
    odds number depends on, and nothing a seat may not see (R10), so an observer and a greedy
    opponent of the same game share each computation, whatever ``race_samples`` each uses:
    the estimate with ``N`` samples reads the first rollouts of the one with more (module
    docstring, "Shared position odds"). The race estimate is exact where the race ends inside
    the current leg; its error elsewhere is bounded as documented there. Deterministic: it
    depends on the position and ``race_samples`` only, not on what was computed before.
    """
    if race_samples < 1:
        raise ValueError(f"race_samples must be >= 1, got {race_samples}")
    rules = state.rules
    if rules.wanderer:  # R14: no tiles, so no landings to count
        return PositionOdds(
            leg_rank_probabilities(state),
            np.zeros(rules.last_tile_space + 2),
            race_probabilities(state, race_samples, RACE_SEED),
        )
    board, side, over = _position(state)
    leg_key = _leg_key(state, board, side)
    if state.game_over or over:
        probs, landings = _leg_entry(state, board, side, over)
        n = rules.n_racing
        return PositionOdds(
            probs, landings, _race_odds(np.stack((probs[:, 0], probs[:, n - 1])), race_samples)
        )
    entry = _cache_get(_position_cache, leg_key)
    if entry is None or len(entry.open) < race_samples:
        entry = _enumerate(state, board, side, _picks_for(race_samples))
        _cache_put(_position_cache, leg_key, entry)
        _cache_put(_leg_cache, leg_key, (entry.leg, entry.landings))
    found = entry.by_samples.get(race_samples)
    if found is None:
        found = PositionOdds(entry.leg, entry.landings, _race_estimate(state, entry, race_samples))
        entry.by_samples[race_samples] = found
    return found


def _race_estimate(state: GameState, entry: _Enumerated, n: int) -> RaceOdds:
    """``ended`` plus ``1 / n`` per rollout from the open picks among the first ``n``."""
    rules = state.rules
    n_open = int(entry.open[:n].sum())
    if len(entry.first_of) < n_open:  # roll out (again, from the first: the same draws)
        t = _tables_of(rules)
        starts = entry.picks[np.flatnonzero(entry.open)[:n_open]]
        _, _, unfinished, entry.first_of, entry.last_of = _race_kernel(
            starts,
            0,
            0,
            np.zeros(rules.last_tile_space + 2, np.int64),
            t.raw_camel,
            t.raw_value,
            t.raw_n,
            rules.n_racing,
            rules.track_length,
            rules.pyramid_tiles,
            n_open,
            RACE_SEED,
            10_000,
            t.start_mask,
            t.first_support,
        )
        if unfinished:
            raise RuntimeError("a rollout did not finish the race within 10,000 legs")
    R = rules.n_racing
    rates = entry.ended.T.copy()
    rates[0] += np.bincount(entry.first_of[:n_open], minlength=R) / n
    rates[1] += np.bincount(entry.last_of[:n_open], minlength=R) / n
    np.clip(rates, 0.0, 1.0, out=rates)  # float sums may stray by an ulp
    return _race_odds(rates, n)
