"""Compiled kernel of the dice's luck on the batch core: every outcome of a roll, and its chance.

:func:`roll_outcomes` takes the rows of games as they stood before a pyramid tile was taken
(R4.3) and plays every outcome of that roll on a scratch copy - each die left in the pyramid,
each of its faces - with the batch core's own rule helper (``_roll``), so the outcomes are the
rules' and nobody else's. It writes each outcome's probability (R4.1: a die uniformly among
those left, then a face uniformly), each seat's **leg equity** after it (coins plus what the
seat's leg bets, pyramid tiles and desert tile are expected to pay by the leg's end, at the
exact leg odds of the odds' own enumeration, ``odds.kernels._leg_kernel``; the final coins
when the roll ends the race), and which outcome the game actually rolled. What an equity is
worth in rewards, and so each seat's luck, is :mod:`camelup_env.batch.roll_luck`'s business.

Race bets are left out of the equity on purpose: their value needs the race estimate, whose
rollouts for every outcome of every roll would cost more than the training step itself.

numba's disk cache is keyed by this file only, but the kernel bakes in the layout and rule
helpers of :mod:`camelup_env.batch.kernels`, the position key of
:mod:`camelup_env.batch.observation_kernels`, the compiled rules and the odds' leg kernel:
:func:`drop_stale_cache` flushes this file's cache when those files change
(:mod:`camelup_env.stale_cache`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from camelup_env import stale_cache
from camelup_env.batch import game_loops, observation_kernels, streams
from camelup_env.batch import kernels as batch_kernels
from camelup_env.batch.game_loops import over_games
from camelup_env.batch.kernels import (
    COINS,
    CURRENT,
    LEG_OWNER,
    LEG_TAKEN,
    LEG_VALUES,
    MAX_DICE,
    MAX_FACES,
    MAX_LEG_TILES,
    N_CAMELS,
    N_DICE,
    N_FACES,
    N_RACING,
    NUM_PLAYERS,
    PYRAMID,
    PYRAMID_HELD,
    TILE_SPACE,
    TRACK,
    WIDTH,
    _face_of,
    _popcount,
    _roll,
)
from camelup_env.batch.observation_kernels import _leg_of_key, _position_key
from camelup_env.game import rule_kernels
from camelup_env.game.rule_kernels import leg_tile_ev
from camelup_env.odds import kernels as reference_odds

#: Outcome slots per roll: outcome ``die * MAX_FACES + face``.
MAX_OUTCOMES = MAX_DICE * MAX_FACES


@njit(cache=True)
def _leg_equity(g, r, i, fc, fv, fw, nf, out):
    """``out[seat]``: game ``i``'s coins plus the expected coins of what each seat holds for
    this leg - its leg-bet tiles at the exact leg odds (R6.2), its pyramid tiles, and the
    arrivals its desert tile expects (R5.3) - the leg enumerated by the odds' own kernel."""
    if _held_coins(g, r, i, out):
        leg, arrivals = _leg_odds(g, r, i, fc, fv, fw, nf)
        _add_held(g, r, i, leg, arrivals, out)


@njit(cache=True)
def _held_coins(g, r, i, out):
    """``out[seat]``: game ``i``'s coins and pyramid tiles; whether any seat holds a leg bet
    or a desert tile (whose worth needs the leg's odds)."""
    held = False
    for q in range(r[NUM_PLAYERS]):
        out[q] = g[i, COINS + q] + g[i, PYRAMID_HELD + q]
        held = held or g[i, TILE_SPACE + q] > 0
    for c in range(N_RACING):
        held = held or g[i, LEG_TAKEN + c] > 0
    return held


@njit(cache=True)
def _leg_odds(g, r, i, fc, fv, fw, nf):
    """Game ``i``'s exact leg odds by the odds' own enumeration: each racing camel's chance of
    each rank at the leg's end, and of the camels' arrivals on each space."""
    n_camels = r[N_CAMELS]
    length = r[TRACK]
    key = np.empty(n_camels + length + 5, np.int64)
    _position_key(g, r, i, 0, key)
    leg, arrivals, _, _, _, _ = _leg_of_key(
        key, n_camels, length, fc, fv, fw, nf, np.empty(0), np.empty(0, np.int64)
    )
    return leg, arrivals


@njit(cache=True)
def _add_held(g, r, i, leg, arrivals, out):
    """Add to ``out[seat]`` what game ``i``'s leg-bet tiles (R6.2) and desert tiles (R5.3)
    are expected to pay at the leg odds ``leg`` and ``arrivals``."""
    for c in range(N_RACING):
        for k in range(g[i, LEG_TAKEN + c]):
            seat = g[i, LEG_OWNER + c * MAX_LEG_TILES + k]
            out[seat] += leg_tile_ev(r[LEG_VALUES + k], leg[c, 0], leg[c, 1])
    for q in range(r[NUM_PLAYERS]):
        if g[i, TILE_SPACE + q] > 0:
            out[q] += arrivals[g[i, TILE_SPACE + q]]


@over_games(allocates=True)
def roll_outcomes(before, r, rolled, fc, fv, fw, nf, scratch, probability, equity, ended, realised):
    """For game ``j`` (its row ``before[j]``, a pyramid tile about to be taken by the seat on
    move): ``probability[j, o]`` of each outcome ``o = die * MAX_FACES + face`` (0 for dice not
    in the pyramid), ``equity[j, o, seat]`` after it (:func:`_leg_equity`; the final coins when
    the roll ends the race, ``ended[j, o]``), and ``realised[j]`` the outcome ``rolled[j]``
    (die, camel shown, number) names. ``scratch`` is a work row per game; ``fc, fv, fw, nf``
    the odds' face tables (:func:`camelup_env.odds.tables._tables_of`)."""
    for j in prange(before.shape[0]):
        seat = before[j, CURRENT]
        left = before[j, PYRAMID]
        dice = _popcount(left)
        die = rolled[j, 0]
        realised[j] = die * MAX_FACES + _face_of(r, die, rolled[j, 1], rolled[j, 2])
        for o in range(MAX_OUTCOMES):
            probability[j, o] = 0.0
            ended[j, o] = False
        for d in range(r[N_DICE]):
            if not left >> d & 1:
                continue
            faces = r[N_FACES + d]
            for face in range(faces):
                o = d * MAX_FACES + face
                for k in range(WIDTH):
                    scratch[j, k] = before[j, k]
                ended[j, o] = _roll(scratch, r, j, seat, d, face)
                probability[j, o] = 1.0 / (dice * faces)
                if ended[j, o]:
                    for q in range(r[NUM_PLAYERS]):
                        equity[j, o, q] = scratch[j, COINS + q]
                else:
                    _leg_equity(scratch, r, j, fc, fv, fw, nf, equity[j, o])


def drop_stale_cache() -> bool:
    """Flush this file's numba disk cache when the files it bakes in changed (the layout and
    the inlined rule helpers of :mod:`camelup_env.batch.kernels`, the compiled rules, how
    :mod:`camelup_env.batch.game_loops` compiles); returns whether it flushed."""
    return stale_cache.drop_stale_cache(__name__, DEPENDENCIES)


DEPENDENCIES = (
    batch_kernels,
    observation_kernels,
    rule_kernels,
    reference_odds,
    game_loops,
    streams,
)


drop_stale_cache()
