"""Compiled kernels of the batched observation: :class:`camelup_env.observation.Observer`'s
vector for every game of a batch, one observing seat per game, threads across games.

``observe_games`` loops over the games with ``prange`` (compiled serial and parallel,
:func:`~camelup_env.batch.game_loops.over_games`); each game calls functions that are
compiled once (not inlined, to keep compile time down): :func:`_public_features` (the board,
the bets and the piles as the seat sees them), :func:`_odds` (the leg enumeration and the race
estimate of the public position), :func:`_odds_features` (their slices) and
:func:`_action_values` (the seat's immediate expected coins of each action). The Observer's
slices are found through ``spec``, an ``int64`` vector of the slice offsets in the
observation (``-1``: the slice is absent) followed by a few settings; :data:`SPEC` names its
entries and :mod:`camelup_env.batch.observe` fills it from the Observer's own layout, so the
two cannot disagree on where a slice lies.

The odds are not re-implemented: the leg enumeration (``odds.kernels._leg_kernel``) and the
rollouts (``odds.kernels._race_kernel``, which seeds numba's per-thread generator at each call, so
a thread replays exactly the reference's draws) are the reference kernels, called per game. What is
re-implemented in compiled form - the feature encodings, :func:`_race_card_ev` (R7.2's pay
itself is :mod:`camelup_env.game.rule_kernels`', as are the ranks and R6.2's expected pay) and
the action values - is tested equal to the Observer on every seat of
thousands of positions (``tests/test_batch_observation.py``).

What a seat may not see (R10) is never read: the hand of another seat and the colour of a pile
card another seat owns.

numba's disk cache is keyed by this file only, but these kernels bake in the layout and rule
helpers of :mod:`camelup_env.batch.kernels`, the compiled rules of
:mod:`camelup_env.game.rule_kernels` and the odds kernels of :mod:`camelup_env.odds.kernels`,
compiled as :mod:`camelup_env.batch.game_loops` says: :func:`drop_stale_cache` flushes this
file's cache at import when a fingerprint of those files differs from the one recorded beside
the cache (:mod:`camelup_env.stale_cache`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from camelup_env import stale_cache
from camelup_env.batch import game_loops, streams
from camelup_env.batch import kernels as batch_kernels
from camelup_env.batch.game_loops import over_games
from camelup_env.batch.kernels import (
    CAMEL,
    COINS,
    CURRENT,
    GAME_OVER,
    HANDS,
    LEG,
    LEG_OWNER,
    LEG_STARTER,
    LEG_TAKEN,
    LEG_VALUES,
    MAX_CARDS,
    MAX_LEG_TILES,
    N_CAMELS,
    N_LEG_VALUES,
    N_PAYOUTS,
    N_RACING,
    N_REVEALED,
    NUM_PLAYERS,
    PARTNER_OFFSET,
    PARTNERS,
    PAYOUTS,
    PILE_CAMEL,
    PILE_LEN,
    PILE_OWNER,
    PYRAMID,
    PYRAMID_HELD,
    PYRAMID_LEFT,
    PYRAMID_TILES,
    RACE_OFFSET,
    REVEALED,
    TILE_OFFSET,
    TILE_SIDE,
    TILE_SPACE,
    TRACK,
    _blocked_spaces,
    _free_partners,
    _leg_bits,
    _popcount,
)
from camelup_env.game import rule_kernels
from camelup_env.game.rule_kernels import (
    ahead_of,
    height_of,
    leg_tile_ev,
    race_card_pay,
    space_of,
)
from camelup_env.odds import kernels as reference_odds
from camelup_env.odds.kernels import _leg_kernel, _race_kernel

#: The entries of ``spec``: the Observer's slices (their start in the observation, -1 when the
#: observer has none), then settings.
SPEC = (
    "camel_space",
    "camel_progress",
    "camel_height",
    "camel_crossed",
    "racing_rank",
    "tiles",
    "dice_revealed",
    "grey_die_shown",
    "pyramid_tiles_left",
    "leg_stacks",
    "leg_number",
    "coins",
    "coin_margin",
    "leg_bets_held",
    "pyramid_tiles_held",
    "tile_on_track",
    "race_cards_in_hand",
    "is_current",
    "is_leg_starter",
    "partner",
    "partner_card_available",
    "winner_pile",
    "loser_pile",
    "own_cards",
    "leg_rank_prob",
    "leg_bet_ev",
    "leg_bet_available",
    "race_winner_prob",
    "race_loser_prob",
    "action_values",
    # settings
    "dice_width",  # 1 + the highest die number: a row of dice_revealed
    "n_values",  # distinct leg-bet values (columns of leg_bets_held)
    "first_support",  # rules.first_support_die: dice from R up to it are grey
    "odds_mode",  # ODDS_NONE, ODDS_SHARED (position_odds) or ODDS_V0 (race_probabilities)
    "race_samples",
    "start_mask",  # the dice a new leg starts with, as a bit mask (the race kernel's)
    "race_support",  # the race kernel's first_support (-1: no support dice)
    "race_seed",  # the seed of position_odds' rollouts
)
(
    CAMEL_SPACE,
    CAMEL_PROGRESS,
    CAMEL_HEIGHT,
    CAMEL_CROSSED,
    RACING_RANK,
    TILES,
    DICE_REVEALED,
    GREY_DIE_SHOWN,
    PYRAMID_TILES_LEFT,
    LEG_STACKS,
    LEG_NUMBER,
    COINS_SLICE,
    COIN_MARGIN,
    LEG_BETS_HELD,
    PYRAMID_TILES_HELD,
    TILE_ON_TRACK,
    RACE_CARDS_IN_HAND,
    IS_CURRENT,
    IS_LEG_STARTER,
    PARTNER,
    PARTNER_CARD_AVAILABLE,
    WINNER_PILE,
    LOSER_PILE,
    OWN_CARDS,
    LEG_RANK_PROB,
    LEG_BET_EV,
    LEG_BET_AVAILABLE,
    RACE_WINNER_PROB,
    RACE_LOSER_PROB,
    ACTION_VALUES,
    DICE_WIDTH,
    N_VALUES,
    FIRST_SUPPORT,
    ODDS_MODE,
    RACE_SAMPLES,
    START_MASK,
    RACE_SUPPORT,
    RACE_SEED,
) = range(len(SPEC))

#: ``odds_mode``: no odds; :func:`camelup_env.odds.position_odds` (with ``action_values``);
#: the ``camelup_v0`` numbers (exact leg odds, plain rollouts seeded per position).
ODDS_NONE, ODDS_SHARED, ODDS_V0 = 0, 1, 2
#: The reference's bound on a rollout's legs (``odds.race_probabilities``, ``_race_estimate``).
MAX_LEGS = 10_000
#: Coins per unit of the action_values slice (``observation.ACTION_VALUE_SCALE``; checked equal
#: by the tests, a constant here so that the compiled code folds it).
ACTION_VALUE_SCALE = 10.0


@njit(cache=True, inline="always")
def _rel(q, seat, n):
    """Relative seat of absolute seat ``q`` seen from ``seat``."""
    return (q - seat + n) % n


@njit(cache=True, inline="always")
def _max_leg_value(r):
    best = 0
    for k in range(r[N_LEG_VALUES]):
        best = max(best, r[LEG_VALUES + k])
    return float(best)


@njit(cache=True)
def _public_features(g, r, i, seat, spec, value_col, inv_mult, out):
    """Every slice but the odds and the action values, of game ``i`` seen from ``seat``, into
    the zeroed row ``out`` (the Observer's ``_part_*`` writers and seat block, with relative
    seats written directly instead of through a permutation)."""
    n = r[NUM_PLAYERS]
    n_camels = r[N_CAMELS]
    length = r[TRACK]
    hdiv = 1.0 / (n_camels - 1) if n_camels > 1 else 0.0
    for c in range(n_camels):  # camel_space .. camel_height
        space = space_of(g[i, CAMEL + c])
        if 1 <= space <= length:
            out[spec[CAMEL_SPACE] + c * length + space - 1] = 1.0
        else:
            out[spec[CAMEL_CROSSED] + 2 * c + (0 if space > length else 1)] = 1.0
        out[spec[CAMEL_PROGRESS] + c] = min(max(space / length, -0.5), 1.5)
        out[spec[CAMEL_HEIGHT] + c] = height_of(g[i, CAMEL + c]) * hdiv
    for c in range(N_RACING):
        out[spec[RACING_RANK] + c * N_RACING + ahead_of(g, i, CAMEL, c, N_RACING)] = 1.0
    for q in range(n):  # tiles, tile_on_track
        space = g[i, TILE_SPACE + q]
        if space > 0:
            base = spec[TILES] + (space - 2) * (n + 2)
            out[base + _rel(q, seat, n)] = 1.0
            out[base + n + (0 if g[i, TILE_SIDE + q] > 0 else 1)] = 1.0
            out[spec[TILE_ON_TRACK] + _rel(q, seat, n)] = 1.0
    width = spec[DICE_WIDTH]
    for k in range(g[i, N_REVEALED]):  # dice_revealed, grey_die_shown
        die = g[i, REVEALED + 3 * k]
        out[spec[DICE_REVEALED] + die * width] = 1.0
        out[spec[DICE_REVEALED] + die * width + g[i, REVEALED + 3 * k + 2]] = 1.0
        if N_RACING <= die < spec[FIRST_SUPPORT]:
            out[spec[GREY_DIE_SHOWN] + g[i, REVEALED + 3 * k + 1] - N_RACING] = 1.0
    out[spec[PYRAMID_TILES_LEFT]] = g[i, PYRAMID_LEFT] / r[PYRAMID_TILES]
    out[spec[LEG_NUMBER]] = min(g[i, LEG], 20) / 20.0
    n_tiles = r[N_LEG_VALUES]
    top = _max_leg_value(r)
    n_values = spec[N_VALUES]
    for c in range(N_RACING):  # leg_stacks, leg_bets_held
        taken = g[i, LEG_TAKEN + c]
        if taken < n_tiles:
            out[spec[LEG_STACKS] + 2 * c] = r[LEG_VALUES + taken] / top
            out[spec[LEG_STACKS] + 2 * c + 1] = (n_tiles - taken) / n_tiles
        for k in range(taken):
            holder = _rel(g[i, LEG_OWNER + c * MAX_LEG_TILES + k], seat, n)
            j = spec[LEG_BETS_HELD] + (holder * N_RACING + c) * n_values + value_col[k]
            out[j] = out[j] + inv_mult[value_col[k]]
    own = g[i, COINS + seat]
    for q in range(n):  # coins, pyramid_tiles_held, is_current, is_leg_starter
        rq = _rel(q, seat, n)
        coins = g[i, COINS + q]
        out[spec[COINS_SLICE] + rq] = min(coins, 100) / 20.0
        out[spec[COIN_MARGIN] + rq] = min(max((coins - own) / 20.0, -5.0), 5.0)
        out[spec[PYRAMID_TILES_HELD] + rq] = g[i, PYRAMID_HELD + q] / r[PYRAMID_TILES]
        partner = g[i, PARTNERS + q]
        if spec[PARTNER] >= 0:  # R9.4
            if partner >= 0:
                out[spec[PARTNER] + rq * n + _rel(partner, seat, n)] = 1.0
            else:
                out[spec[PARTNER_CARD_AVAILABLE] + rq] = 1.0
    out[spec[IS_CURRENT] + _rel(g[i, CURRENT], seat, n)] = 1.0
    out[spec[IS_LEG_STARTER] + _rel(g[i, LEG_STARTER], seat, n)] = 1.0
    # The piles show owners only (R10); own_cards reads the colours of the seat's own cards.
    in_hand = np.full(n, N_RACING, np.int64)
    kdiv = 1.0 / (n * N_RACING - 1)
    hand = g[i, HANDS + seat]
    for c in range(N_RACING):
        out[spec[OWN_CARDS] + 4 * c] = hand >> c & 1
    for pile in range(2):
        base = spec[WINNER_PILE] if pile == 0 else spec[LOSER_PILE]
        for k in range(g[i, PILE_LEN + pile]):
            owner = g[i, PILE_OWNER + pile * MAX_CARDS + k]
            out[base + k * n + _rel(owner, seat, n)] = 1.0
            in_hand[owner] -= 1
            if owner == seat:
                camel = g[i, PILE_CAMEL + pile * MAX_CARDS + k]
                out[spec[OWN_CARDS] + 4 * camel + 1 + pile] = 1.0
                out[spec[OWN_CARDS] + 4 * camel + 3] = k * kdiv
    for q in range(n):
        out[spec[RACE_CARDS_IN_HAND] + _rel(q, seat, n)] = in_hand[q] / N_RACING


@njit(cache=True)
def _race_card_ev(p, g, r, i, pile, seat, below):
    """:func:`camelup_env.game.payouts.race_card_ev` of one camel with probability ``p``: a card of
    ``seat`` on ``pile`` of game ``i`` above its first ``below`` cards (the pile's length: a card
    put on top now). Only the owners of the cards below are read (R10); the other players are
    convolved in the order they first appear in the pile, as the reference's dict does."""
    n = r[NUM_PLAYERS]
    hidden = np.zeros(n, np.int64)
    order = np.empty(n, np.int64)
    n_owners = 0
    for k in range(below):
        owner = g[i, PILE_OWNER + pile * MAX_CARDS + k]
        if owner != seat:
            if hidden[owner] == 0:
                order[n_owners] = owner
                n_owners += 1
            hidden[owner] += 1
    dist = np.zeros(n_owners + 1)  # P(x correct hidden cards below ours | the camel is right)
    dist[0] = 1.0
    for o in range(n_owners):
        q = 1.0 - (1.0 - p) ** hidden[order[o]]
        keep = 1.0 - q
        for x in range(o + 1, -1, -1):  # grown[x] = dist[x] (1 - q) + dist[x - 1] q
            grown = dist[x] * keep if x <= o else 0.0
            if x > 0:
                grown = grown + dist[x - 1] * q
            dist[x] = grown
    paid = 0.0
    for x in range(n_owners + 1):
        paid += dist[x] * race_card_pay(r, PAYOUTS, r[N_PAYOUTS], x)
    return p * paid + (1.0 - p) * rule_kernels.WRONG_CARD


def position_key_width(n_camels: int, track_length: int) -> int:
    """Entries of a :func:`_position_key`: one per camel, one per space ``0..L+1``, then the
    dice mask, the reveals left and the seed."""
    return n_camels + track_length + 5


@njit(cache=True, inline="always")
def _position_key(g, r, i, seed, key):
    """Game ``i``'s public position as one ``int64`` vector: the board (``space * 16 +
    height`` per camel, as :mod:`camelup_env.odds` encodes it), the tile side per space
    ``0..L+1``, the dice left (bit mask), the reveals left and the rollout seed (``ODDS_V0``;
    0 otherwise). Everything the odds depend on, nothing a seat may not see (R10)."""
    n_camels = r[N_CAMELS]
    length = r[TRACK]
    for c in range(n_camels):
        key[c] = g[i, CAMEL + c]
    for s in range(length + 2):
        key[n_camels + s] = 0
    for q in range(r[NUM_PLAYERS]):
        if g[i, TILE_SPACE + q] > 0:
            key[n_camels + g[i, TILE_SPACE + q]] = g[i, TILE_SIDE + q]
    mask = np.int64(g[i, PYRAMID])
    key[n_camels + length + 2] = mask
    key[n_camels + length + 3] = min(np.int64(g[i, PYRAMID_LEFT]), _popcount(mask))
    key[n_camels + length + 4] = seed


@njit(cache=True)
def _leg_of_key(key, n_camels, length, fc, fv, fw, nf, pick_at, pick_row):
    """``odds.kernels._leg_kernel`` (no camera) on a :func:`_position_key`'s board, tiles, dice
    left and reveals left: the one place a key is unpacked for the leg's enumeration."""
    return _leg_kernel(
        key[:n_camels].copy(),
        key[n_camels + length + 2],
        key[n_camels + length + 3],
        fc,
        fv,
        fw,
        nf,
        N_RACING,
        length,
        key[n_camels : n_camels + length + 2].copy(),
        0,
        pick_at,
        pick_row,
    )


@njit(cache=True)
def _odds(key, r, spec, fc, fv, fw, nf, rc, rv, rn, pick_at, pick_row):
    """The odds of a public position (:func:`_position_key`): exact leg ranks ``[camel,
    rank]``, expected arrivals per space ``0..L+1`` and the race estimate ``[winner / loser,
    camel]``, as :func:`camelup_env.odds.position_odds` computes them (``ODDS_SHARED``: one
    enumeration that also samples the leg's end, one rollout from each open pick among the
    first ``race_samples``, common seed) or as the ``camelup_v0`` observation does
    (``ODDS_V0``: plain rollouts from the position with the position's seed). For a game not
    over."""
    n_camels = r[N_CAMELS]
    length = r[TRACK]
    n = spec[RACE_SAMPLES]
    race = np.zeros((2, N_RACING))
    if spec[ODDS_MODE] == ODDS_V0:
        leg, landings, _, _, _, _ = _leg_of_key(
            key, n_camels, length, fc, fv, fw, nf, pick_at[:0], pick_row[:0]
        )
        wins, lasts, unfinished, _, _ = _race_kernel(
            key[:n_camels].copy().reshape((1, n_camels)),
            key[n_camels + length + 2],
            key[n_camels + length + 3],
            key[n_camels : n_camels + length + 2].copy(),
            rc,
            rv,
            rn,
            N_RACING,
            length,
            r[PYRAMID_TILES],
            n,
            key[n_camels + length + 4],  # the position's rollout seed
            MAX_LEGS,
            spec[START_MASK],
            spec[RACE_SUPPORT],
        )
        for c in range(N_RACING):
            race[0, c] = wins[c] / (n - unfinished)
            race[1, c] = lasts[c] / (n - unfinished)
        return leg, landings, race
    leg, landings, _, ended, picks, pick_open = _leg_of_key(
        key, n_camels, length, fc, fv, fw, nf, pick_at, pick_row
    )
    n_open = 0
    for t in range(n):
        n_open += pick_open[t]
    starts = np.empty((n_open, n_camels), np.int64)  # the open picks, in sequence order
    k = 0
    for t in range(n):
        if pick_open[t]:
            starts[k] = picks[t]
            k += 1
    wins = np.zeros(N_RACING, np.int64)
    lasts = np.zeros(N_RACING, np.int64)
    if n_open:
        _, _, _, first_of, last_of = _race_kernel(
            starts,
            0,
            0,
            np.zeros(length + 2, np.int64),
            rc,
            rv,
            rn,
            N_RACING,
            length,
            r[PYRAMID_TILES],
            n_open,
            spec[RACE_SEED],
            MAX_LEGS,
            spec[START_MASK],
            spec[RACE_SUPPORT],
        )
        for s in range(n_open):
            wins[first_of[s]] += 1
            lasts[last_of[s]] += 1
    for c in range(
        N_RACING
    ):  # odds.position_estimate._race_estimate: the exact in-leg ends plus 1/n a rollout
        race[0, c] = min(max(ended[c, 0] + wins[c] / n, 0.0), 1.0)
        race[1, c] = min(max(ended[c, 1] + lasts[c] / n, 0.0), 1.0)
    return leg, landings, race


@njit(cache=True, inline="always")
def _put_value(out, j, coins):
    """One entry of the action_values slice: coins / scale, clipped to [-1, 1]."""
    out[j] = min(max(coins / ACTION_VALUE_SCALE, -1.0), 1.0)


@njit(cache=True)
def _action_values(g, r, i, me, leg, landings, race, spec, out):
    """:func:`camelup_env.odds.action_values.action_values` of seat ``me`` in game ``i`` (tile
    placements ``"approx"``), scaled into ``out``'s action_values slice: the actions ``me`` may
    take now, or on its next normal turn when another seat is to act; 0 elsewhere."""
    base = spec[ACTION_VALUES]
    legs = _leg_bits(g, r, i)
    for c in range(N_RACING):  # leg bets (R4.1, R6.2)
        if legs >> c & 1:
            value = r[LEG_VALUES + g[i, LEG_TAKEN + c]]
            _put_value(out, base + c, leg_tile_ev(value, leg[c, 0], leg[c, 1]))
    if legs >> N_RACING & 1:  # the pyramid tile (R4.3)
        _put_value(out, base + N_RACING, 1.0)
    own_tile = g[i, TILE_SPACE + me]  # tiles (R4.2, R5.3): arrivals there minus where it lies
    lifted = landings[own_tile] if own_tile > 0 else 0.0
    blocked = _blocked_spaces(g, r, i, me)
    for space in range(2, r[TRACK] + 1):
        if not blocked >> space & 1:
            for k in range(2):
                _put_value(
                    out, base + r[TILE_OFFSET] + 2 * (space - 2) + k, landings[space] - lifted
                )
    hand = g[i, HANDS + me]
    for pile in range(2):  # race bets (R4.4, R7.2)
        for c in range(N_RACING):
            if hand >> c & 1:
                _put_value(
                    out,
                    base + r[RACE_OFFSET] + pile * N_RACING + c,
                    _race_card_ev(race[pile, c], g, r, i, pile, me, g[i, PILE_LEN + pile]),
                )
    free = _free_partners(g, r, i, me)
    for q in range(r[NUM_PLAYERS]):  # partnerships (R9.4): q's best tile held, floored at 0
        if free >> q & 1:
            best = 1.0 if g[i, PYRAMID_HELD + q] > 0 else 0.0
            for c in range(N_RACING):
                for k in range(g[i, LEG_TAKEN + c]):
                    if g[i, LEG_OWNER + c * MAX_LEG_TILES + k] == q:
                        best = max(best, leg_tile_ev(r[LEG_VALUES + k], leg[c, 0], leg[c, 1]))
            _put_value(out, base + r[PARTNER_OFFSET] + q, best)


@njit(cache=True)
def _odds_features(g, r, i, spec, leg, race, out):
    """leg_rank_prob .. race_loser_prob: the odds, or the final result once the race is over
    (``leg``/``race`` unused then)."""
    if g[i, GAME_OVER]:
        for c in range(N_RACING):
            rank = ahead_of(g, i, CAMEL, c, N_RACING)
            out[spec[LEG_RANK_PROB] + c * N_RACING + rank] = 1.0
            if rank == 0:
                out[spec[RACE_WINNER_PROB] + c] = 1.0
            if rank == N_RACING - 1:
                out[spec[RACE_LOSER_PROB] + c] = 1.0
        return
    top = _max_leg_value(r)
    for c in range(N_RACING):
        for rank in range(N_RACING):
            out[spec[LEG_RANK_PROB] + c * N_RACING + rank] = leg[c, rank]
        taken = g[i, LEG_TAKEN + c]
        if taken < r[N_LEG_VALUES]:
            ev = leg_tile_ev(r[LEG_VALUES + taken], leg[c, 0], leg[c, 1])
            out[spec[LEG_BET_EV] + c] = ev / top
            out[spec[LEG_BET_AVAILABLE] + c] = 1.0
        out[spec[RACE_WINNER_PROB] + c] = race[0, c]
        out[spec[RACE_LOSER_PROB] + c] = race[1, c]


@over_games(allocates=True)
def observe_games(
    g,
    r,
    games,
    seats,
    spec,
    value_col,
    inv_mult,
    fc,
    fv,
    fw,
    nf,
    rc,
    rv,
    rn,
    pick_at,
    pick_row,
    seeds,
    exact_race,
    exact_rows,
    memo_key,
    memo_leg,
    memo_landings,
    memo_race,
    out,
):
    """``out[j]`` (zeroed): the observation of game ``i = games[j]`` seen from ``seats[j]``. The
    face tables are :class:`camelup_env.odds.tables._Tables`'; ``pick_at``/``pick_row`` the pick
    points of ``position_odds``; ``seeds[i]`` game ``i``'s rollout seed with ``ODDS_V0``;
    ``exact_race[i]`` game ``i``'s exact race odds where ``exact_rows[i]`` (``position_odds``
    near the end of the race, computed by the caller), in place of the estimate.

    ``memo_*[i]``: the last position whose odds were computed in row ``i`` (its
    :func:`_position_key`) and those odds. A bet leaves the position as it was, so the next
    observation of that game reuses them; the odds are a function of the key alone, so a row
    holding another game is merely a miss."""
    for j in prange(out.shape[0]):
        i = games[j]
        row = out[j]
        _public_features(g, r, i, seats[j], spec, value_col, inv_mult, row)
        if spec[ODDS_MODE] == ODDS_NONE:
            continue
        if g[i, GAME_OVER]:  # final odds; every action value 0
            if spec[LEG_RANK_PROB] >= 0:
                _odds_features(g, r, i, spec, np.empty((0, 0)), np.empty((0, 0)), row)
            continue
        key = np.empty(memo_key.shape[1], np.int64)
        _position_key(g, r, i, seeds[i], key)
        seen = True
        for k in range(key.shape[0]):
            seen = seen and key[k] == memo_key[i, k]
        if not seen:
            leg, landings, race = _odds(key, r, spec, fc, fv, fw, nf, rc, rv, rn, pick_at, pick_row)
            memo_key[i] = key
            memo_leg[i] = leg
            memo_landings[i] = landings
            memo_race[i] = exact_race[i] if exact_rows[i] else race
        if spec[LEG_RANK_PROB] >= 0:
            _odds_features(g, r, i, spec, memo_leg[i], memo_race[i], row)
        if spec[ACTION_VALUES] >= 0:
            _action_values(
                g, r, i, seats[j], memo_leg[i], memo_landings[i], memo_race[i], spec, row
            )


def drop_stale_cache() -> bool:
    """Flush this file's numba disk cache when the files it bakes in changed (the layout and
    the inlined rule helpers of :mod:`camelup_env.batch.kernels`, the odds kernels it calls,
    how :mod:`camelup_env.batch.game_loops` compiles); returns whether it flushed."""
    return stale_cache.drop_stale_cache(__name__, DEPENDENCIES)


DEPENDENCIES = (batch_kernels, rule_kernels, reference_odds, game_loops, streams)
drop_stale_cache()
