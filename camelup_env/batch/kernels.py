"""Compiled kernels of the batch core: the rules of :mod:`camelup_env.game.engine`, one game a call.

**Layout.** Game ``i`` is row ``i`` of one ``int32`` array ``g`` of shape (N, :data:`WIDTH`);
each field of the game has a fixed column range, named by the offsets below (``g[i, COINS +
seat]``), sized for the largest game the core plays (8 seats, 7 camels, 6 dice). The rule set
is one ``int64`` vector ``r`` laid out the same way (``r[TRACK]``, ``r[LEG_VALUES + k]``), and
each game's random stream is ``rng[i]`` (splitmix64). Plain arrays, not named tuples of
arrays: numba updates the reference count of every array of a tuple at each access it cannot
prove redundant, which made a legality check twenty times slower than this. What each field
holds is said once, in :data:`FIELDS`; :mod:`camelup_env.batch.arrays` gives Python readers a
named view of each, and :mod:`camelup_env.batch.convert` maps them onto ``GameState``. The
layout lives in this file because numba's disk cache is invalidated only by a change to the
file of the kernel: constants imported from another module could go stale in the cache.

**Rules.** Each ``_name(g, r, i, ...)`` plays rule R-something on game ``i`` in place: the
bookkeeping of actions, legs and piles here, movement, ranking and pay through the compiled
rules every kernel shares (:mod:`camelup_env.game.rule_kernels`, on the camels' keys of field
``camel``). Together they are a second implementation of the reference engine's rules, and
``tests/test_batch_differential.py`` drives both with the same actions and dice and compares
the states after every step: the rule ids in the comments point to the reference. The public
kernels at the end loop over the games with ``prange``, each compiled twice
(:func:`~camelup_env.batch.game_loops.over_games`): a plain loop for one thread and a parallel
one; call them as ``kernel.run(threads, ...)``.

numba notes: every kernel is cached on disk (``cache=True``); the small rule helpers are inlined
(``inline='always'``), the setup of a game (once a game) is a call; integer constants that meet
unsigned values are cast (numba turns a signed-unsigned mix into a float).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from camelup_env import stale_cache
from camelup_env.batch import game_loops, streams
from camelup_env.batch.game_loops import over_games
from camelup_env.batch.streams import below
from camelup_env.game import rule_kernels
from camelup_env.game.rule_kernels import (
    camel_key,
    die_move,
    first_second_last,
    leg_tile_pay,
    move_unit,
    paid,
    race_card_pay,
    race_over,
    space_of,
    tile_push,
)

# Sizes: the largest game the core holds.
MAX_PLAYERS = 8
MAX_CAMELS = 7
N_RACING = 5
MAX_DICE = 6
MAX_LEG_TILES = 8
MAX_FACES = 12
MAX_PAYOUTS = 16
MAX_CARDS = MAX_PLAYERS * N_RACING

#: The fields of a game's row: name, width, what it holds. Their offsets follow in this order.
FIELDS = (
    (
        "camel",
        MAX_CAMELS,
        "each camel's key, space * 16 + height (0 = bottom; game.rule_kernels): the space is "
        "above L after a forward finish, below 1 after a backward one",
    ),
    ("tile_space", MAX_PLAYERS, "space of each seat's desert/spectator tile, 0 while in hand"),
    ("tile_side", MAX_PLAYERS, "the side it shows, +1 or -1 (1 while in hand)"),
    ("pyramid", 1, "bit mask of the dice still in the pyramid (bit d = die d)"),
    ("revealed", 3 * MAX_DICE, "the dice revealed this leg in order: die, camel shown, number"),
    ("n_revealed", 1, "how many dice of ``revealed`` are this leg's"),
    ("leg_taken", N_RACING, "leg-bet tiles taken from each colour's stack (from the top)"),
    (
        "leg_owner",
        N_RACING * MAX_LEG_TILES,
        "per colour, per tile k of its stack: the seat holding it, -1 on the stack",
    ),
    ("leg_order", N_RACING * MAX_LEG_TILES, "when that tile was taken this leg (0 = first)"),
    ("pyramid_left", 1, "pyramid tiles still in the stack this leg"),
    ("coins", MAX_PLAYERS, "coins per seat"),
    ("pyramid_held", MAX_PLAYERS, "pyramid tiles each seat holds this leg"),
    ("hands", MAX_PLAYERS, "bit mask of the race-bet cards still in hand (bit c = camel c)"),
    ("partners", MAX_PLAYERS, "partner seat this leg, or -1 (R9.4)"),
    ("pile_owner", 2 * MAX_CARDS, "race-bet piles (winner, loser) in placing order: owner"),
    ("pile_camel", 2 * MAX_CARDS, "... and camel of each card"),
    ("pile_len", 2, "cards in each pile"),
    ("leg", 1, "leg number, from 1"),
    ("current", 1, "seat to act"),
    ("leg_starter", 1, "seat holding the starting-player marker"),
    ("game_over", 1, "1 once the race has ended and been scored"),
    ("turns", 1, "actions applied since the game was set up (for truncation)"),
)
(
    CAMEL,
    TILE_SPACE,
    TILE_SIDE,
    PYRAMID,
    REVEALED,
    N_REVEALED,
    LEG_TAKEN,
    LEG_OWNER,
    LEG_ORDER,
    PYRAMID_LEFT,
    COINS,
    PYRAMID_HELD,
    HANDS,
    PARTNERS,
    PILE_OWNER,
    PILE_CAMEL,
    PILE_LEN,
    LEG,
    CURRENT,
    LEG_STARTER,
    GAME_OVER,
    TURNS,
    WIDTH,
) = np.cumsum([0] + [width for _, width, _ in FIELDS]).tolist()

#: The rule vector ``r``: name, width, what it holds.
RULE_FIELDS = (
    ("num_players", 1, ""),
    ("n_camels", 1, ""),
    ("n_dice", 1, ""),
    ("track", 1, "L"),
    ("pyramid_tiles", 1, "per leg"),
    ("starting_coins", 1, ""),
    ("partnerships", 1, "1 with R9.4"),
    ("n_actions", 1, "action indices (engine's)"),
    ("tile_offset", 1, "first PlaceTile index"),
    ("race_offset", 1, "first RaceBet index"),
    ("partner_offset", 1, "first Partner index"),
    ("n_leg_values", 1, "tiles per colour"),
    ("n_payouts", 1, "R7.2 payouts listed"),
    ("n_racing_faces", 1, "racing die faces"),
    ("n_grey", 1, "grey die numbers"),
    ("leg_values", MAX_LEG_TILES, "leg-bet tile values, top first"),
    ("payouts", MAX_PAYOUTS, "R7.2 payouts of correct race bets in order"),
    ("n_faces", MAX_DICE, "faces per die"),
    ("face_camel", MAX_DICE * MAX_FACES, "per die, per face: the camel shown"),
    ("face_value", MAX_DICE * MAX_FACES, "... and the number"),
    ("racing_faces", MAX_FACES, "a racing die's numbers (setup, R2.1)"),
    ("grey_values", MAX_FACES, "the grey die's numbers (setup, R2.2)"),
)
(
    NUM_PLAYERS,
    N_CAMELS,
    N_DICE,
    TRACK,
    PYRAMID_TILES,
    STARTING_COINS,
    PARTNERSHIPS,
    N_ACTIONS,
    TILE_OFFSET,
    RACE_OFFSET,
    PARTNER_OFFSET,
    N_LEG_VALUES,
    N_PAYOUTS,
    N_RACING_FACES,
    N_GREY,
    LEG_VALUES,
    PAYOUTS,
    N_FACES,
    FACE_CAMEL,
    FACE_VALUE,
    RACING_FACES,
    GREY_VALUES,
    RULES_WIDTH,
) = np.cumsum([0] + [width for _, width, _ in RULE_FIELDS]).tolist()

#: Step outcomes written per game (``status`` of :func:`step_games`).
RUNNING, TERMINATED, TRUNCATED = 0, 1, 2
#: Reasons :func:`check_actions` gives for refusing a game's action or roll.
OK, ILLEGAL_ACTION, BAD_ROLL, ROLL_WITHOUT_PYRAMID = 0, 1, 2, 3


# Setup (R2) ------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _place_on_top(g, r, i, camel, space, placed):
    """Put ``camel`` on top of the camels of ``placed`` (bit mask) standing on ``space``."""
    h = 0
    for c in range(r[N_CAMELS]):
        if placed >> c & 1 and space_of(g[i, CAMEL + c]) == space:
            h += 1
    g[i, CAMEL + camel] = camel_key(space, h)


@njit(cache=True)
def _setup_game(g, rng, r, i, first):
    """R2: racing camels on the space their die shows, stacked in random order (R2.1, R11.1);
    crazy camels on 14-16 counted back from the end, in random order (R2.2); the rest (R2.3)."""
    g[i, :] = 0
    rolls = 0  # die number of camel c in bits 8c..8c+7
    for c in range(N_RACING):
        rolls |= r[RACING_FACES + below(rng, i, r[N_RACING_FACES])] << (8 * c)
    order = 0x43210  # the bottom-to-top order, camel k in bits 4k..4k+3: Fisher-Yates
    for k in range(N_RACING - 1, 0, -1):
        j = below(rng, i, k + 1)
        a, b = order >> (4 * k) & 15, order >> (4 * j) & 15
        order ^= ((a ^ b) << (4 * k)) | ((a ^ b) << (4 * j))
    placed = 0
    for k in range(N_RACING):
        camel = order >> (4 * k) & 15
        _place_on_top(g, r, i, camel, rolls >> (8 * camel) & 255, placed)
        placed |= 1 << camel
    if r[N_CAMELS] > N_RACING:
        first_crazy = N_RACING + below(rng, i, 2)
        for camel in (first_crazy, 2 * N_RACING + 1 - first_crazy):
            value = r[GREY_VALUES + below(rng, i, r[N_GREY])]
            _place_on_top(g, r, i, camel, r[TRACK] + 1 - value, placed)
            placed |= 1 << camel
    for q in range(r[NUM_PLAYERS]):
        g[i, COINS + q] = r[STARTING_COINS]
        g[i, HANDS + q] = (1 << N_RACING) - 1
    g[i, LEG] = 1
    _start_leg(g, r, i, first)


@njit(cache=True, inline="always")
def _start_leg(g, r, i, starter):
    """R2.3 and R6.4: dice into the pyramid, tiles back on their stacks and to their owners."""
    g[i, PYRAMID] = (1 << r[N_DICE]) - 1
    g[i, REVEALED:N_REVEALED] = -1
    g[i, N_REVEALED] = 0
    g[i, LEG_TAKEN:LEG_OWNER] = 0
    g[i, LEG_OWNER:PYRAMID_LEFT] = -1  # owners and order
    g[i, PYRAMID_LEFT] = r[PYRAMID_TILES]
    for q in range(r[NUM_PLAYERS]):
        g[i, PYRAMID_HELD + q] = 0
        g[i, PARTNERS + q] = -1
        g[i, TILE_SPACE + q] = 0
        g[i, TILE_SIDE + q] = 1
    g[i, CURRENT] = starter
    g[i, LEG_STARTER] = starter


# Legal actions (R4, R9.4) ----------------------------------------------------------------------
@njit(cache=True, inline="always")
def _blocked_spaces(g, r, i, p):
    """Bit mask of the spaces where seat ``p`` may not put its tile (R4.2): camels, tiles and
    their neighbours; its own tile's space, but not that space's neighbours."""
    blocked = 0
    for c in range(r[N_CAMELS]):
        space = space_of(g[i, CAMEL + c])
        if 0 < space <= r[TRACK]:
            blocked |= 1 << space
    for q in range(r[NUM_PLAYERS]):
        space = g[i, TILE_SPACE + q]
        if space > 0:
            blocked |= (1 << space) if q == p else (7 << (space - 1))
    return blocked


@njit(cache=True, inline="always")
def _leg_bits(g, r, i):
    """R4.1 and R4.3: bit c for each colour whose stack has a tile, bit 5 if a pyramid tile is
    left (the leg-bet and pyramid action indices)."""
    bits = 0
    for c in range(N_RACING):
        if g[i, LEG_TAKEN + c] < r[N_LEG_VALUES]:
            bits |= 1 << c
    if g[i, PYRAMID_LEFT] > 0:
        bits |= 1 << N_RACING
    return bits


@njit(cache=True, inline="always")
def _free_partners(g, r, i, p):
    """R9.4: bit q for each seat ``p`` may partner now (none without partnerships)."""
    bits = 0
    if r[PARTNERSHIPS] and g[i, PARTNERS + p] < 0:
        for q in range(r[NUM_PLAYERS]):
            if q != p and g[i, PARTNERS + q] < 0:
                bits |= 1 << q
    return bits


@njit(cache=True, inline="always")
def _legal_row(g, r, i, out):
    """Write game ``i``'s legal actions as 0/1 into ``out`` (one row of the mask)."""
    out[:] = 0
    if g[i, GAME_OVER]:
        return
    p = g[i, CURRENT]
    legs = _leg_bits(g, r, i)
    for a in range(N_RACING + 1):  # R4.1, R4.3
        out[a] = legs >> a & 1
    blocked = _blocked_spaces(g, r, i, p)
    for space in range(2, r[TRACK] + 1):  # R4.2
        free = 1 - (blocked >> space & 1)
        out[r[TILE_OFFSET] + 2 * (space - 2)] = free
        out[r[TILE_OFFSET] + 2 * (space - 2) + 1] = free
    hand = g[i, HANDS + p]
    for c in range(N_RACING):  # R4.4
        out[r[RACE_OFFSET] + c] = hand >> c & 1
        out[r[RACE_OFFSET] + N_RACING + c] = hand >> c & 1
    partners = _free_partners(g, r, i, p)
    for q in range(r[NUM_PLAYERS] if r[PARTNERSHIPS] else 0):
        out[r[PARTNER_OFFSET] + q] = partners >> q & 1


@njit(cache=True, inline="always")
def _is_legal(g, r, i, a):
    """Whether the seat to move in game ``i`` may play action ``a``: the test of
    :func:`_legal_row` for that one action."""
    if g[i, GAME_OVER] or a < 0 or a >= r[N_ACTIONS]:
        return False
    p = g[i, CURRENT]
    if a <= N_RACING:
        return _leg_bits(g, r, i) >> a & 1 == 1
    if a < r[RACE_OFFSET]:
        return _blocked_spaces(g, r, i, p) >> (2 + (a - r[TILE_OFFSET]) // 2) & 1 == 0
    if a < r[RACE_OFFSET] + 2 * N_RACING:
        return g[i, HANDS + p] >> ((a - r[RACE_OFFSET]) % N_RACING) & 1 == 1
    return _free_partners(g, r, i, p) >> (a - r[PARTNER_OFFSET]) & 1 == 1


@njit(cache=True, inline="always")
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, inline="always")
def _nth_bit(x, n):
    """The index of the ``n``-th set bit of ``x`` (from 0, lowest first)."""
    for b in range(64):
        if x >> b & 1:
            if n == 0:
                return b
            n -= 1
    return -1


@njit(cache=True, inline="always")
def _random_legal(g, r, i, stream):
    """A legal action of game ``i``, uniformly, drawn from ``stream``; -1 if the game is over.
    Counts each block of legal actions as :func:`_legal_row` finds them and picks within the
    block, so no row of the mask is written."""
    if g[i, GAME_OVER]:
        return -1
    p = g[i, CURRENT]
    legs = _leg_bits(g, r, i)
    free = ~_blocked_spaces(g, r, i, p) & ((1 << (r[TRACK] + 1)) - 4)  # spaces 2..L
    hand = np.int64(g[i, HANDS + p])
    partners = _free_partners(g, r, i, p)
    n_legs, n_free, n_hand = _popcount(legs), _popcount(free), _popcount(hand)
    pick = below(stream, i, n_legs + 2 * n_free + 2 * n_hand + _popcount(partners))
    if pick < n_legs:
        return _nth_bit(legs, pick)
    pick -= n_legs
    if pick < 2 * n_free:
        return r[TILE_OFFSET] + 2 * (_nth_bit(free, pick // 2) - 2) + pick % 2
    pick -= 2 * n_free
    if pick < 2 * n_hand:
        return r[RACE_OFFSET] + (pick // n_hand) * N_RACING + _nth_bit(hand, pick % n_hand)
    return r[PARTNER_OFFSET] + _nth_bit(partners, pick - 2 * n_hand)


# Movement (R5) -------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _move(g, r, i, camel, steps):
    """R5.1-R5.3 and R5.5: move ``camel`` and the camels above it ``steps`` spaces (negative:
    backward); a tile pays its owner (R5.3) and pushes the unit one more space. Returns the
    space where the unit ends."""
    arrival = space_of(g[i, CAMEL + camel]) + steps
    side = 0
    if 1 <= arrival <= r[TRACK]:
        for owner in range(r[NUM_PLAYERS]):
            if g[i, TILE_SPACE + owner] == arrival:
                g[i, COINS + owner] += 1
                side = g[i, TILE_SIDE + owner]
                break
    dst, under = tile_push(arrival, steps, side)
    move_unit(g, i, i, CAMEL, camel, dst, under, r[N_CAMELS])
    return dst


# Scoring (R6, R7, R8.1, R9.4) ------------------------------------------------------------------
@njit(cache=True, inline="always")
def _leg_rewards(g, r, i, seat, first, second):
    """R6.2 for one seat: the sum of its tiles' rewards and the best single reward (what a
    partner copies, R9.4/R11.5; very negative when the seat holds nothing)."""
    total = 0
    best = -(1 << 30)
    for c in range(N_RACING):
        for k in range(g[i, LEG_TAKEN + c]):
            if g[i, LEG_OWNER + c * MAX_LEG_TILES + k] == seat:
                value = leg_tile_pay(r[LEG_VALUES + k], c, first, second)
                total += value
                best = max(best, value)
    held = g[i, PYRAMID_HELD + seat]
    total += held
    if held > 0:
        best = max(best, 1)
    return total, best


@njit(cache=True, inline="always")
def _score_leg(g, r, i):
    """R6.2 with R9.4's partner copy; R8.1's floor on each seat's sum."""
    first, second, _ = first_second_last(g, i, CAMEL, N_RACING)
    for seat in range(r[NUM_PLAYERS]):
        total, _ = _leg_rewards(g, r, i, seat, first, second)
        partner = g[i, PARTNERS + seat]
        if partner >= 0:
            _, best = _leg_rewards(g, r, i, partner, first, second)
            if best > 0:
                total += best
        g[i, COINS + seat] = paid(g[i, COINS + seat], total)


@njit(cache=True, inline="always")
def _end_race(g, r, i):
    """R7: the leg in progress is scored, then the winner and loser piles card by card (R7.2,
    floor R8.1)."""
    _score_leg(g, r, i)
    first, _, last = first_second_last(g, i, CAMEL, N_RACING)
    for pile in range(2):
        target = first if pile == 0 else last
        correct = 0
        for k in range(g[i, PILE_LEN + pile]):
            owner = g[i, PILE_OWNER + pile * MAX_CARDS + k]
            if g[i, PILE_CAMEL + pile * MAX_CARDS + k] == target:
                amount = race_card_pay(r, PAYOUTS, r[N_PAYOUTS], correct)
                correct += 1
            else:
                amount = rule_kernels.WRONG_CARD
            g[i, COINS + owner] = paid(g[i, COINS + owner], amount)
    g[i, GAME_OVER] = 1


# Actions (R4) ----------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _roll(g, r, i, p, die, face):
    """R4.3 and R5-R7: seat ``p`` took a pyramid tile and ``die`` shows ``face``. Returns True
    when the race ended."""
    shown = r[FACE_CAMEL + die * MAX_FACES + face]
    value = r[FACE_VALUE + die * MAX_FACES + face]
    g[i, PYRAMID_LEFT] -= 1
    g[i, PYRAMID_HELD + p] += 1
    g[i, PYRAMID] &= ~(1 << die)
    n = g[i, N_REVEALED]
    g[i, REVEALED + 3 * n] = die
    g[i, REVEALED + 3 * n + 1] = shown
    g[i, REVEALED + 3 * n + 2] = value
    g[i, N_REVEALED] = n + 1
    camel, steps = die_move(g, i, CAMEL, shown, value, N_RACING, r[N_CAMELS])
    if race_over(_move(g, r, i, camel, steps), r[TRACK]):  # R5.4, R5.6
        _end_race(g, r, i)
        return True
    if g[i, PYRAMID_LEFT] == 0:  # R6.1, then R6.3/R6.4
        _score_leg(g, r, i)
        g[i, LEG] += 1
        _start_leg(g, r, i, (p + 1) % r[NUM_PLAYERS])
    return False


@njit(cache=True, inline="always")
def _draw_roll(g, rng, r, i):
    """R4.3: a die uniformly among those left in the pyramid, then a face. Returns (die, face)."""
    die = _nth_bit(g[i, PYRAMID], below(rng, i, _popcount(g[i, PYRAMID])))
    return die, below(rng, i, r[N_FACES + die])


@njit(cache=True, inline="always")
def _apply(g, rng, r, i, action, die, face):
    """Seat to move plays ``action`` (legal); a pyramid tile uses ``die``/``face``, or draws
    them from the game's stream when ``die`` is negative. Returns (race ended, die, face)."""
    p = g[i, CURRENT]
    g[i, CURRENT] = (p + 1) % r[NUM_PLAYERS]
    g[i, TURNS] += 1
    if action < N_RACING:  # R4.1: the top tile of the colour's stack
        k = g[i, LEG_TAKEN + action]
        taken = 0
        for c in range(N_RACING):
            taken += g[i, LEG_TAKEN + c]
        g[i, LEG_OWNER + action * MAX_LEG_TILES + k] = p
        g[i, LEG_ORDER + action * MAX_LEG_TILES + k] = taken
        g[i, LEG_TAKEN + action] = k + 1
    elif action == N_RACING:  # R4.3
        if die < 0:
            die, face = _draw_roll(g, rng, r, i)
        return _roll(g, r, i, p, die, face), die, face
    elif action < r[RACE_OFFSET]:  # R4.2: placed or moved
        a = action - r[TILE_OFFSET]
        g[i, TILE_SPACE + p] = 2 + a // 2
        g[i, TILE_SIDE + p] = 1 - 2 * (a % 2)
    elif action < r[RACE_OFFSET] + 2 * N_RACING:  # R4.4
        a = action - r[RACE_OFFSET]
        pile = a // N_RACING
        camel = a % N_RACING
        n = g[i, PILE_LEN + pile]
        g[i, PILE_OWNER + pile * MAX_CARDS + n] = p
        g[i, PILE_CAMEL + pile * MAX_CARDS + n] = camel
        g[i, PILE_LEN + pile] = n + 1
        g[i, HANDS + p] &= ~(1 << camel)
    else:  # R9.4
        q = action - r[PARTNER_OFFSET]
        g[i, PARTNERS + p] = q
        g[i, PARTNERS + q] = p
    return False, -1, -1


@njit(cache=True, inline="always")
def _face_of(r, die, camel, value):
    """The face of ``die`` showing ``camel`` and ``value``, or -1."""
    for f in range(r[N_FACES + die]):
        if r[FACE_CAMEL + die * MAX_FACES + f] == camel and (
            r[FACE_VALUE + die * MAX_FACES + f] == value
        ):
            return f
    return -1


# Public kernels: prange over the games, serial and parallel ------------------------------------
@over_games
def setup_games(g, rng, r, indices, first):
    """Set up the games at ``indices`` from their own streams, ``first[j]`` to start."""
    for j in prange(indices.shape[0]):
        _setup_game(g, rng, r, indices[j], first[j])


@over_games
def legal_masks(g, r, out):
    """``out[i]``: game ``i``'s legal actions as 0/1."""
    for i in prange(out.shape[0]):
        _legal_row(g, r, i, out[i])


@over_games
def check_actions(g, r, actions, rolls, out):
    """``out[i]``: :data:`OK`, or why game ``i``'s action (or given roll) is refused."""
    for i in prange(actions.shape[0]):
        a = actions[i]
        die = rolls[i, 0]
        if a == -1 and die < 0:  # the game sits this step out
            out[i] = OK
        elif not _is_legal(g, r, i, a):
            out[i] = ILLEGAL_ACTION
        elif die < 0:
            out[i] = OK
        elif a != N_RACING:
            out[i] = ROLL_WITHOUT_PYRAMID
        elif (
            die >= r[N_DICE]
            or not g[i, PYRAMID] >> die & 1
            or _face_of(r, die, rolls[i, 1], rolls[i, 2]) < 0
        ):
            out[i] = BAD_ROLL
        else:
            out[i] = OK


@over_games
def step_games(g, rng, r, actions, rolls, max_turns, autoreset, status, coin_delta, final_coins):
    """Apply one (checked) action per game. ``rolls[i]`` gives game ``i``'s die as (die, camel
    shown, number), or -1s to draw it; it is overwritten with the roll made (-1s if none).
    ``status``: :data:`RUNNING`, :data:`TERMINATED` or :data:`TRUNCATED` (``max_turns`` actions,
    0 = no limit); ``coin_delta``: coins won this step; ``final_coins``: the coins when a game
    ended. With ``autoreset`` an ended game is set up again from its stream, seat 0 first. A
    game whose action is -1 sits the step out."""
    n_players = r[NUM_PLAYERS]
    for i in prange(actions.shape[0]):
        status[i] = RUNNING
        for q in range(n_players):
            coin_delta[i, q] = 0
        if actions[i] == -1:  # the game sits this step out
            rolls[i, 0] = rolls[i, 1] = rolls[i, 2] = -1
            continue
        for q in range(n_players):
            coin_delta[i, q] = g[i, COINS + q]
        die = rolls[i, 0]
        face = -1 if die < 0 else _face_of(r, die, rolls[i, 1], rolls[i, 2])
        ended, die, face = _apply(g, rng, r, i, actions[i], die, face)
        if die >= 0:
            rolls[i, 0] = die
            rolls[i, 1] = r[FACE_CAMEL + die * MAX_FACES + face]
            rolls[i, 2] = r[FACE_VALUE + die * MAX_FACES + face]
        else:
            rolls[i, 0] = rolls[i, 1] = rolls[i, 2] = -1
        for q in range(n_players):
            coin_delta[i, q] = g[i, COINS + q] - coin_delta[i, q]
        if ended:
            status[i] = TERMINATED
        elif max_turns > 0 and g[i, TURNS] >= max_turns:
            status[i] = TRUNCATED
        if status[i] != RUNNING:
            for q in range(n_players):
                final_coins[i, q] = g[i, COINS + q]
            if autoreset:
                _setup_game(g, rng, r, i, 0)


@over_games
def random_actions(g, r, stream, active, out):
    """``out[i]``: a legal action of game ``i`` drawn uniformly from ``stream`` (a separate
    per-game stream, so a random player does not change the dice); -1 for an ended game or one
    not ``active`` (whose stream does not advance)."""
    for i in prange(out.shape[0]):
        out[i] = _random_legal(g, r, i, stream) if active[i] else -1


def drop_stale_cache() -> bool:
    """Flush this file's numba disk cache when :data:`DEPENDENCIES` changed (how its loops
    compile; the compiled rules and the random streams it inlines); returns whether it
    flushed."""
    return stale_cache.drop_stale_cache(__name__, DEPENDENCIES)


DEPENDENCIES = (game_loops, rule_kernels, streams)


drop_stale_cache()
