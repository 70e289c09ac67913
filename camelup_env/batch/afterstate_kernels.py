"""Compiled kernels of afterstates on the batch core: every legal action's outcomes, with their
chances.

An afterstate learner (TD-Gammon's way: value the positions a move leads to, take the move with
the best exact expectation over the dice) needs, for each position, every legal action and every
state it can lead to. Only a pyramid tile has chance (R4.3): a die uniformly among those left in
the pyramid, then a face of that die uniformly; every other action has one outcome. Two faces of
one die that show the same camel and number (R4.3's dice repeat their numbers) are one outcome,
their chances added, as the reference's :func:`camelup_env.game.engine.chance_outcomes` merges
them.

:func:`count_afterstates` writes each game's legal actions and how many outcome rows they make;
:func:`expand_afterstates` copies each game's row once per outcome and plays it there with the
batch core's own rule helper (``_apply``), so the outcomes are the rules' and nobody else's.
Rows are laid out game by game, then action by action in index order, then die by die and face
by face.

numba's disk cache is keyed by this file only, but the kernels bake in the layout and the rule
helpers of :mod:`camelup_env.batch.kernels`: :func:`drop_stale_cache` flushes this file's cache
when those change (:mod:`camelup_env.stale_cache`).
"""

from __future__ import annotations

from numba import njit, prange

from camelup_env import stale_cache
from camelup_env.batch import game_loops, luck_kernels, observation_kernels, streams
from camelup_env.batch import kernels as batch_kernels
from camelup_env.batch.game_loops import over_games
from camelup_env.batch.kernels import (
    COINS,
    FACE_CAMEL,
    FACE_VALUE,
    GAME_OVER,
    MAX_CARDS,
    MAX_FACES,
    N_ACTIONS,
    N_DICE,
    N_FACES,
    N_RACING,
    PILE_CAMEL,
    PILE_LEN,
    PILE_OWNER,
    PYRAMID,
    WIDTH,
    _apply,
    _legal_row,
    _popcount,
)
from camelup_env.batch.luck_kernels import _add_held, _held_coins, _leg_odds
from camelup_env.batch.observation_kernels import _race_card_ev
from camelup_env.game import rule_kernels
from camelup_env.odds import kernels as reference_odds


@njit(cache=True, inline="always")
def _face_weight(r, die, face):
    """How many faces of ``die`` show what ``face`` shows (camel and number), counted at the
    first of them; 0 at every later one (R4.3: one outcome, its chances added)."""
    base = die * MAX_FACES
    camel = r[FACE_CAMEL + base + face]
    value = r[FACE_VALUE + base + face]
    for e in range(face):
        if r[FACE_CAMEL + base + e] == camel and r[FACE_VALUE + base + e] == value:
            return 0
    weight = 1
    for e in range(face + 1, r[N_FACES + die]):
        if r[FACE_CAMEL + base + e] == camel and r[FACE_VALUE + base + e] == value:
            weight += 1
    return weight


@njit(cache=True, inline="always")
def _roll_outcomes(g, r, i):
    """How many distinct outcomes taking a pyramid tile has in game ``i`` (R4.3)."""
    left = g[i, PYRAMID]
    n = 0
    for d in range(r[N_DICE]):
        if left >> d & 1:
            for f in range(r[N_FACES + d]):
                if _face_weight(r, d, f) > 0:
                    n += 1
    return n


@over_games
def count_afterstates(g, r, legal, counts):
    """``legal[i]``: game ``i``'s legal actions as 0/1 (none once it is over); ``counts[i]``:
    the outcome rows they make (one per action, one per distinct roll for the pyramid)."""
    for i in prange(g.shape[0]):
        _legal_row(g, r, i, legal[i])
        n = 0
        for a in range(r[N_ACTIONS]):
            if legal[i, a]:
                n += _roll_outcomes(g, r, i) if a == N_RACING else 1
        counts[i] = n


@over_games
def expand_afterstates(g, r, legal, start, rng, rows, game, action, probability, die, face, ended):
    """Fill rows ``start[i]`` onwards with game ``i``'s outcomes (the module docstring's
    order): the state after each (``rows``), the game and action it comes from, its chance
    (``probability``; 1 for an action without chance), the roll (``die``, ``face``: -1 for
    none) and whether it ended the race. ``rng`` is a stream per row, never drawn from: every
    roll is given."""
    for i in prange(g.shape[0]):
        j = start[i]
        for a in range(r[N_ACTIONS]):
            if not legal[i, a]:
                continue
            if a != N_RACING:
                for k in range(WIDTH):
                    rows[j, k] = g[i, k]
                _apply(rows, rng, r, j, a, -1, -1)
                game[j] = i
                action[j] = a
                probability[j] = 1.0
                die[j] = -1
                face[j] = -1
                ended[j] = rows[j, GAME_OVER] == 1
                j += 1
                continue
            left = g[i, PYRAMID]
            dice = _popcount(left)
            for d in range(r[N_DICE]):
                if not left >> d & 1:
                    continue
                faces = r[N_FACES + d]
                for f in range(faces):
                    weight = _face_weight(r, d, f)
                    if weight == 0:
                        continue
                    for k in range(WIDTH):
                        rows[j, k] = g[i, k]
                    _apply(rows, rng, r, j, a, d, f)
                    game[j] = i
                    action[j] = a
                    probability[j] = weight / (dice * faces)
                    die[j] = d
                    face[j] = f
                    ended[j] = rows[j, GAME_OVER] == 1
                    j += 1


@over_games(allocates=True)
def leg_odds(g, r, idx, fc, fv, fw, nf, leg, arrivals):
    """``leg[j]`` and ``arrivals[j]``: game ``idx[j]``'s exact leg odds (each racing camel's
    chance of each rank at the leg's end, the arrivals on each space), by the odds' own
    enumeration. ``fc, fv, fw, nf``: the odds' face tables."""
    for j in prange(idx.shape[0]):
        rank, arrive = _leg_odds(g, r, idx[j], fc, fv, fw, nf)
        leg[j, :, :] = rank
        arrivals[j, :] = arrive


@over_games(allocates=True)
def leg_equities(g, r, idx, odds_of, leg, arrivals, fc, fv, fw, nf, out):
    """``out[j, seat]``: each seat's leg equity in game ``idx[j]`` - its coins plus what its
    leg bets, pyramid tiles and desert tile are expected to pay by the leg's end
    (:func:`camelup_env.batch.luck_kernels._leg_equity`, the measure of the dice's luck) - at
    the leg odds ``leg[odds_of[j]]`` / ``arrivals[odds_of[j]]``, or at the game's own exact
    odds where ``odds_of[j]`` is -1; the coins of a finished game."""
    for j in prange(idx.shape[0]):
        i = idx[j]
        if g[i, GAME_OVER]:
            for q in range(out.shape[1]):
                out[j, q] = g[i, COINS + q]
        elif _held_coins(g, r, i, out[j]):
            k = odds_of[j]
            if k >= 0:
                _add_held(g, r, i, leg[k], arrivals[k], out[j])
            else:
                rank, arrive = _leg_odds(g, r, i, fc, fv, fw, nf)
                _add_held(g, r, i, rank, arrive, out[j])


@over_games(allocates=True)
def race_equities(g, r, idx, viewers, odds_of, race, out):
    """``out[j, q]``: what seat ``q``'s race cards on the piles of game ``idx[j]`` are expected
    to pay at the race's end (R7.2) as seat ``viewers[j]`` may judge them, at the race odds
    ``race[odds_of[j]]`` (winner, loser per racing camel). Each card is valued as
    :func:`camelup_env.game.payouts.race_card_ev` values it (the owners of the cards below it
    read, their colours not); the viewer's own cards by their camels, another seat's hidden
    card (R10) by its expectation over the camels, each weighed by its odds on that pile (the
    model of ``race_card_ev``: players back camels in proportion to their odds)."""
    for j in prange(idx.shape[0]):
        i, seat, k = idx[j], viewers[j], odds_of[j]
        for pile in range(2):
            p = race[k, pile]
            weight = p / max(p.sum(), 1e-12)
            for below in range(g[i, PILE_LEN + pile]):
                owner = g[i, PILE_OWNER + pile * MAX_CARDS + below]
                if owner == seat:
                    camel = g[i, PILE_CAMEL + pile * MAX_CARDS + below]
                    out[j, owner] += _race_card_ev(p[camel], g, r, i, pile, owner, below)
                else:
                    for c in range(p.shape[0]):
                        if weight[c] > 0.0:
                            ev = _race_card_ev(p[c], g, r, i, pile, owner, below)
                            out[j, owner] += weight[c] * ev


def drop_stale_cache() -> bool:
    """Flush this file's numba disk cache when the files it bakes in changed (the layout and
    the inlined rule helpers of :mod:`camelup_env.batch.kernels`, the luck measure's equity
    helpers and the odds' leg kernel they call, the compiled rules, how
    :mod:`camelup_env.batch.game_loops` compiles); returns whether it flushed."""
    return stale_cache.drop_stale_cache(__name__, DEPENDENCIES)


DEPENDENCIES = (
    batch_kernels,
    luck_kernels,
    observation_kernels,
    reference_odds,
    rule_kernels,
    game_loops,
    streams,
)


drop_stale_cache()
