"""Compiled kernels of the batch core: the rules of :mod:`camelup_env.engine`, one game a call.

Each ``_name(s, r, i, ...)`` function plays rule R-something on game ``i`` of the batch ``s``
(:class:`~camelup_env.batch.arrays.BatchState`) under the rules ``r``
(:class:`~camelup_env.batch.arrays.BatchRules`), changing the arrays in place; the public
kernels at the end loop over the games with ``prange``, one thread per block of games. Every
rule here is a second implementation of the reference engine's, and
``tests/test_batch_differential.py`` drives both with the same actions and dice and compares the
states after every step: the rule ids in the comments point to the reference.

numba notes: every kernel is cached on disk (``cache=True``); helpers are ordinary compiled
functions, not inlined, which keeps cold compiles short; integer constants that meet unsigned
values are cast (numba turns a signed-unsigned mix into a float).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S27, _S30, _S31, _S33 = np.uint64(27), np.uint64(30), np.uint64(31), np.uint64(33)

#: Step outcomes written per game (``status`` of :func:`step_games`).
RUNNING, TERMINATED, TRUNCATED = 0, 1, 2
#: Reasons :func:`check_actions` gives for refusing a game's action or roll.
OK, ILLEGAL_ACTION, BAD_ROLL, ROLL_WITHOUT_PYRAMID = 0, 1, 2, 3


# Random streams: splitmix64, one state per game ------------------------------------------------
@njit(cache=True)
def _next_u64(rng, i):
    z = rng[i] + _GAMMA
    rng[i] = z
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True)
def _below(rng, i, n):
    """A uniform integer in ``[0, n)`` (31 random bits scaled; the bias is below 1e-9)."""
    return np.int64(((_next_u64(rng, i) >> _S33) * np.uint64(n)) >> _S31)


@njit(cache=True)
def seed_streams(rng, seeds):
    """Each game's stream from its seed, mixed so that nearby seeds give unrelated streams."""
    for i in range(seeds.shape[0]):
        rng[i] = np.uint64(seeds[i]) ^ _MIX2
        _next_u64(rng, i)


# Setup (R2) ------------------------------------------------------------------------------------
@njit(cache=True)
def _place_on_top(s, i, camel, space, placed):
    """Put ``camel`` on top of the camels of ``placed`` (bit mask) standing on ``space``."""
    h = 0
    for c in range(s.pos.shape[1]):
        if placed >> c & 1 and s.pos[i, c] == space:
            h += 1
    s.pos[i, camel] = space
    s.height[i, camel] = h


@njit(cache=True)
def _setup_game(s, r, i, first):
    """R2: racing camels on the space their die shows, stacked in random order (R2.1, R11.1);
    crazy camels on 14-16 counted back from the end, in random order (R2.2); the rest (R2.3)."""
    n_racing = r.n_racing
    rolls = np.empty(n_racing, np.int64)
    for c in range(n_racing):
        rolls[c] = r.racing_faces[_below(s.rng, i, r.racing_faces.shape[0])]
    order = np.arange(n_racing)
    for k in range(n_racing - 1, 0, -1):  # Fisher-Yates: the bottom-to-top order
        j = _below(s.rng, i, k + 1)
        order[k], order[j] = order[j], order[k]
    placed = 0
    for k in range(n_racing):
        _place_on_top(s, i, order[k], rolls[order[k]], placed)
        placed |= 1 << order[k]
    n_crazy = r.n_camels - n_racing
    if n_crazy == 2:
        first_crazy = n_racing + _below(s.rng, i, 2)
        for camel in (first_crazy, 2 * n_racing + 1 - first_crazy):
            value = r.grey_values[_below(s.rng, i, r.grey_values.shape[0])]
            _place_on_top(s, i, camel, r.track_length + 1 - value, placed)
            placed |= 1 << camel
    p = r.num_players
    for q in range(p):
        s.coins[i, q] = r.starting_coins
        s.hands[i, q] = (1 << n_racing) - 1
    s.pile_len[i, 0] = 0
    s.pile_len[i, 1] = 0
    s.pile_owner[i, :, :] = -1
    s.pile_camel[i, :, :] = -1
    s.leg[i] = 1
    s.game_over[i] = False
    s.turns[i] = 0
    _start_leg(s, r, i, first)


@njit(cache=True)
def _start_leg(s, r, i, starter):
    """R2.3 and R6.4: dice into the pyramid, tiles back on their stacks and to their owners."""
    s.pyramid[i] = (1 << r.n_dice) - 1
    s.revealed[i, :, :] = -1
    s.n_revealed[i] = 0
    s.leg_taken[i, :] = 0
    s.leg_owner[i, :, :] = -1
    s.leg_order[i, :, :] = -1
    s.pyramid_tiles_left[i] = r.pyramid_tiles
    for q in range(r.num_players):
        s.pyramid_held[i, q] = 0
        s.partners[i, q] = -1
        s.tile_space[i, q] = 0
        s.tile_side[i, q] = 1
    s.current[i] = starter
    s.leg_starter[i] = starter


# Legal actions (R4, R9.4) ----------------------------------------------------------------------
@njit(cache=True)
def _blocked_spaces(s, r, i, p):
    """Bit mask of the spaces where seat ``p`` may not put its tile (R4.2): camels, tiles and
    their neighbours; its own tile's space, but not that space's neighbours."""
    blocked = 0
    for c in range(r.n_camels):
        space = s.pos[i, c]
        if 0 < space <= r.track_length:
            blocked |= 1 << space
    for q in range(r.num_players):
        space = s.tile_space[i, q]
        if space > 0:
            blocked |= (1 << space) if q == p else (7 << (space - 1))
    return blocked


@njit(cache=True)
def _legal_row(s, r, i, out):
    """Write game ``i``'s legal actions as 0/1 into ``out`` (one row of the mask); return how
    many there are."""
    out[:] = 0
    if s.game_over[i]:
        return 0
    p = s.current[i]
    k = r.leg_values.shape[0]
    count = 0
    for c in range(r.n_racing):  # R4.1
        if s.leg_taken[i, c] < k:
            out[c] = 1
            count += 1
    if s.pyramid_tiles_left[i] > 0:  # R4.3
        out[r.n_racing] = 1
        count += 1
    blocked = _blocked_spaces(s, r, i, p)
    for space in range(2, r.track_length + 1):  # R4.2
        if not blocked >> space & 1:
            a = r.tile_offset + 2 * (space - 2)
            out[a] = 1
            out[a + 1] = 1
            count += 2
    hand = s.hands[i, p]
    for c in range(r.n_racing):  # R4.4
        if hand >> c & 1:
            out[r.race_offset + c] = 1
            out[r.race_offset + r.n_racing + c] = 1
            count += 2
    if r.partnerships and s.partners[i, p] < 0:  # R9.4
        for q in range(r.num_players):
            if q != p and s.partners[i, q] < 0:
                out[r.partner_offset + q] = 1
                count += 1
    return count


# Movement (R5) and ranking (R0.4) --------------------------------------------------------------
@njit(cache=True)
def _rank_key(s, i, c):
    """Farther space first, higher in a stack first (R0.4); heights are below 16."""
    return np.int64(s.pos[i, c]) * 16 + s.height[i, c]


@njit(cache=True)
def _first_second_last(s, r, i):
    """The leading, second and last racing camels (R0.4, R0.5)."""
    first = second = last = -1
    for c in range(r.n_racing):
        key = _rank_key(s, i, c)
        if first < 0 or key > _rank_key(s, i, first):
            second = first
            first = c
        elif second < 0 or key > _rank_key(s, i, second):
            second = c
        if last < 0 or key < _rank_key(s, i, last):
            last = c
    return first, second, last


@njit(cache=True)
def _crazy_to_move(s, r, i, shown):
    """R5.5: the crazy camel the grey die moves. Rule 1: the only crazy camel carrying racing
    camels; rule 2: the crazy camel sitting directly on the other; rule 3: the colour shown."""
    carriers = 0
    carrier = -1
    on_other = -1
    for x in range(r.n_racing, r.n_camels):
        for c in range(r.n_camels):
            if s.pos[i, c] != s.pos[i, x] or c == x:
                continue
            if c < r.n_racing and s.height[i, c] > s.height[i, x]:
                if carrier != x:
                    carriers += 1
                    carrier = x
            elif c >= r.n_racing and s.height[i, c] == s.height[i, x] + 1:
                on_other = c
    if carriers == 1:
        return carrier
    if on_other >= 0:
        return on_other
    return shown


@njit(cache=True)
def _tile_at(s, r, i, space):
    """The seat whose tile lies on ``space``, or -1."""
    for q in range(r.num_players):
        if s.tile_space[i, q] == space:
            return q
    return -1


@njit(cache=True)
def _move_unit(s, r, i, camel, steps):
    """R5.1-R5.3 and R5.5: move ``camel`` and the camels above it ``steps`` spaces (negative:
    backward); a tile pays its owner and pushes the unit one more space. Returns the space where
    the unit ends."""
    src = s.pos[i, camel]
    h = s.height[i, camel]
    unit = 0
    size = 0
    for c in range(r.n_camels):
        if s.pos[i, c] == src and s.height[i, c] >= h:
            unit |= 1 << c
            size += 1
    dst = src + steps
    underneath = False
    if 1 <= dst <= r.track_length:
        owner = _tile_at(s, r, i, dst)
        if owner >= 0:  # R5.3; backward units are pushed the other way (R5.5)
            s.coins[i, owner] += 1
            side = s.tile_side[i, owner]
            underneath = side < 0
            dst += side if steps > 0 else -side
    below = 0
    for c in range(r.n_camels):
        if not unit >> c & 1 and s.pos[i, c] == dst:
            if underneath:
                s.height[i, c] += size
            below += 1
    for c in range(r.n_camels):
        if unit >> c & 1:
            s.pos[i, c] = dst
            s.height[i, c] = s.height[i, c] - h + (0 if underneath else below)
    return dst


# Scoring (R6, R7, R8.1, R9.4) ------------------------------------------------------------------
@njit(cache=True)
def _leg_rewards(s, r, i, seat, first, second):
    """R6.2 for one seat: the sum of its tiles' rewards and the best single reward (what a
    partner copies, R9.4/R11.5; very negative when the seat holds nothing)."""
    total = 0
    best = -(1 << 30)
    for c in range(r.n_racing):
        pay = 1 if c == second else -1
        for k in range(s.leg_taken[i, c]):
            if s.leg_owner[i, c, k] == seat:
                value = r.leg_values[k] if c == first else pay
                total += value
                best = max(best, value)
    held = s.pyramid_held[i, seat]
    total += held
    if held > 0:
        best = max(best, 1)
    return total, best


@njit(cache=True)
def _score_leg(s, r, i):
    """R6.2 with R9.4's partner copy; R8.1's floor on each seat's sum."""
    first, second, _ = _first_second_last(s, r, i)
    for seat in range(r.num_players):
        total, _ = _leg_rewards(s, r, i, seat, first, second)
        partner = s.partners[i, seat]
        if partner >= 0:
            _, best = _leg_rewards(s, r, i, partner, first, second)
            if best > 0:
                total += best
        s.coins[i, seat] = max(0, s.coins[i, seat] + total)


@njit(cache=True)
def _end_race(s, r, i):
    """R7: the leg in progress is scored, then the winner and loser piles card by card (R7.2,
    floor R8.1)."""
    _score_leg(s, r, i)
    first, _, last = _first_second_last(s, r, i)
    for pile in range(2):
        target = first if pile == 0 else last
        correct = 0
        for k in range(s.pile_len[i, pile]):
            owner = s.pile_owner[i, pile, k]
            if s.pile_camel[i, pile, k] == target:
                amount = r.race_payouts[min(correct, r.race_payouts.shape[0] - 1)]
                correct += 1
            else:
                amount = -1
            s.coins[i, owner] = max(0, s.coins[i, owner] + amount)
    s.game_over[i] = True


# Actions (R4) ----------------------------------------------------------------------------------
@njit(cache=True)
def _roll(s, r, i, p, die, face):
    """R4.3 and R5-R7: seat ``p`` took a pyramid tile and ``die`` shows ``face``. Returns True
    when the race ended."""
    shown = r.face_camel[die, face]
    value = r.face_value[die, face]
    s.pyramid_tiles_left[i] -= 1
    s.pyramid_held[i, p] += 1
    s.pyramid[i] &= ~(1 << die)
    n = s.n_revealed[i]
    s.revealed[i, n, 0] = die
    s.revealed[i, n, 1] = shown
    s.revealed[i, n, 2] = value
    s.n_revealed[i] = n + 1
    if shown >= r.n_racing:  # R5.5: backward, and the exceptions pick the crazy camel
        dst = _move_unit(s, r, i, _crazy_to_move(s, r, i, shown), -value)
    else:
        dst = _move_unit(s, r, i, shown, value)
    if dst > r.track_length or dst < 1:  # R5.4, R5.6
        _end_race(s, r, i)
        return True
    if s.pyramid_tiles_left[i] == 0:  # R6.1, then R6.3/R6.4
        _score_leg(s, r, i)
        s.leg[i] += 1
        _start_leg(s, r, i, (p + 1) % r.num_players)
    return False


@njit(cache=True)
def _draw_roll(s, r, i):
    """R4.3: a die uniformly among those left in the pyramid, then a face. Returns (die, face)."""
    k = _below(s.rng, i, _popcount(s.pyramid[i]))
    die = 0
    for d in range(r.n_dice):
        if s.pyramid[i] >> d & 1:
            if k == 0:
                die = d
                break
            k -= 1
    return die, _below(s.rng, i, r.n_faces[die])


@njit(cache=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def _apply(s, r, i, action, die, face):
    """Seat to move plays ``action`` (legal); a pyramid tile uses ``die``/``face``, or draws
    them from the game's stream when ``die`` is negative. Returns (race ended, die, face)."""
    p = s.current[i]
    s.current[i] = (p + 1) % r.num_players
    s.turns[i] += 1
    if action < r.n_racing:  # R4.1: the top tile of the colour's stack
        k = s.leg_taken[i, action]
        taken = 0
        for c in range(r.n_racing):
            taken += s.leg_taken[i, c]
        s.leg_owner[i, action, k] = p
        s.leg_order[i, action, k] = taken
        s.leg_taken[i, action] = k + 1
    elif action == r.n_racing:  # R4.3
        if die < 0:
            die, face = _draw_roll(s, r, i)
        return _roll(s, r, i, p, die, face), die, face
    elif action < r.race_offset:  # R4.2: placed or moved
        a = action - r.tile_offset
        s.tile_space[i, p] = 2 + a // 2
        s.tile_side[i, p] = 1 if a % 2 == 0 else -1
    elif action < r.race_offset + 2 * r.n_racing:  # R4.4
        a = action - r.race_offset
        pile = a // r.n_racing
        camel = a % r.n_racing
        n = s.pile_len[i, pile]
        s.pile_owner[i, pile, n] = p
        s.pile_camel[i, pile, n] = camel
        s.pile_len[i, pile] = n + 1
        s.hands[i, p] &= ~(1 << camel)
    else:  # R9.4
        q = action - r.partner_offset
        s.partners[i, p] = q
        s.partners[i, q] = p
    return False, -1, -1


# Public kernels: one thread per block of games -------------------------------------------------
@njit(cache=True, parallel=True)
def setup_games(s, r, indices, first):
    """Set up the games at ``indices`` from their own streams, ``first[j]`` to start."""
    for j in prange(indices.shape[0]):
        _setup_game(s, r, indices[j], first[j])


@njit(cache=True, parallel=True)
def legal_masks(s, r, out):
    """``out[i]``: game ``i``'s legal actions as 0/1."""
    for i in prange(out.shape[0]):
        _legal_row(s, r, i, out[i])


@njit(cache=True)
def _is_legal(s, r, i, a):
    """Whether the seat to move in game ``i`` may play action ``a``: the test of
    :func:`_legal_row` for that one action (R4.1-R4.4, R9.4)."""
    if s.game_over[i] or a < 0 or a >= r.n_actions:
        return False
    p = s.current[i]
    if a < r.n_racing:
        return s.leg_taken[i, a] < r.leg_values.shape[0]
    if a == r.n_racing:
        return s.pyramid_tiles_left[i] > 0
    if a < r.race_offset:
        return not _blocked_spaces(s, r, i, p) >> (2 + (a - r.tile_offset) // 2) & 1
    if a < r.race_offset + 2 * r.n_racing:
        return s.hands[i, p] >> ((a - r.race_offset) % r.n_racing) & 1 == 1
    q = a - r.partner_offset
    return r.partnerships and q != p and s.partners[i, p] < 0 and s.partners[i, q] < 0


@njit(cache=True, parallel=True)
def check_actions(s, r, actions, rolls, out):
    """``out[i]``: :data:`OK`, or why game ``i``'s action (or given roll) is refused."""
    for i in prange(actions.shape[0]):
        a = actions[i]
        out[i] = OK
        if not _is_legal(s, r, i, a):
            out[i] = ILLEGAL_ACTION
            continue
        die = rolls[i, 0]
        if die < 0:
            continue
        if a != r.n_racing:
            out[i] = ROLL_WITHOUT_PYRAMID
        elif die >= r.n_dice or not s.pyramid[i] >> die & 1 or _face_of(r, die, rolls[i, 1],
                                                                          rolls[i, 2]) < 0:
            out[i] = BAD_ROLL


@njit(cache=True)
def _face_of(r, die, camel, value):
    """The face of ``die`` showing ``camel`` and ``value``, or -1."""
    for f in range(r.n_faces[die]):
        if r.face_camel[die, f] == camel and r.face_value[die, f] == value:
            return f
    return -1


@njit(cache=True, parallel=True)
def step_games(s, r, actions, rolls, max_turns, autoreset, status, coin_delta, final_coins):
    """Apply one (checked) action per game. ``rolls[i]`` gives game ``i``'s die as (die, camel
    shown, number), or -1s to draw it; it is overwritten with the roll made (-1s if none).
    ``status``: :data:`RUNNING`, :data:`TERMINATED` or :data:`TRUNCATED` (``max_turns`` actions,
    0 = no limit); ``coin_delta``: coins won this step; ``final_coins``: the coins when a game
    ended. With ``autoreset`` an ended game is set up again from its stream, seat 0 first."""
    for i in prange(actions.shape[0]):
        for q in range(r.num_players):
            coin_delta[i, q] = s.coins[i, q]
        die = rolls[i, 0]
        face = -1 if die < 0 else _face_of(r, die, rolls[i, 1], rolls[i, 2])
        ended, die, face = _apply(s, r, i, actions[i], die, face)
        if die >= 0:
            rolls[i, 0] = die
            rolls[i, 1] = r.face_camel[die, face]
            rolls[i, 2] = r.face_value[die, face]
        else:
            rolls[i, :] = -1
        for q in range(r.num_players):
            coin_delta[i, q] = s.coins[i, q] - coin_delta[i, q]
        status[i] = TERMINATED if ended else (
            TRUNCATED if max_turns > 0 and s.turns[i] >= max_turns else RUNNING)
        if status[i] != RUNNING:
            for q in range(r.num_players):
                final_coins[i, q] = s.coins[i, q]
            if autoreset:
                _setup_game(s, r, i, 0)


@njit(cache=True, parallel=True)
def random_actions(s, r, stream, scratch, out):
    """``out[i]``: a legal action of game ``i`` drawn uniformly from ``stream`` (a separate
    per-game stream, so a random player does not change the dice); -1 for an ended game."""
    for i in prange(out.shape[0]):
        count = _legal_row(s, r, i, scratch[i])
        if count == 0:
            out[i] = -1
            continue
        k = _below(stream, i, count)
        for a in range(r.n_actions):
            if scratch[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1
