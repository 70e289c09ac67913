"""Exact leg odds and Monte Carlo race odds under the desert wanderer (the Persian tutorial, R14).

:mod:`camelup_env.odds` enumerates a leg as a fixed number of reveals (R6.1). With the wanderer a
leg also ends as soon as a unit passes the wanderer's space (R14.5), whatever is left in the
pyramid, and the wanderer then moves on. :mod:`camelup_env.odds` sends rule sets with
``wanderer`` here; the public functions there keep their names and meaning.

* :func:`leg_rank_probabilities`: an enumeration of the reveals left, level by level, merging
  the boards that several sequences reach (a DP over (board, dice left)). Each board is
  expanded by every (die left, distinct face) with probability ``1 / dice left * face
  multiplicity / faces`` (R4.3); a unit that passes the wanderer (or the finish line, R5.4)
  ends the leg with the ranking of that moment, and so does the last die (R6.1). It
  reimplements forward movement (R5.1, R5.2: the preset has no tiles and no crazy camels);
  ``tests/test_persian_odds.py`` checks it exactly against a brute-force enumeration through
  the engine's ``chance_outcomes`` / ``apply_outcome``. A full leg is at most 5! die orders,
  under a millisecond in plain Python on the positions of random games (cached per position).
* :func:`race_probabilities`: rollouts of the dice only (no bets, no wanderer actions) to the
  end of the race: at every leg end (R6.1, R14.5) every die goes back into the pyramid and the
  wanderer moves on one space, if there is one. The rollouts of one seed are drawn in order,
  so the estimate with ``N`` samples reads the first ``N`` rollouts of a larger one.
"""

from __future__ import annotations

import random
from collections import OrderedDict

import numpy as np

from camelup_env.game.movement import move_unit, ranking
from camelup_env.game.state import GameState

_CACHE_SIZE = 4096
_leg_cache: OrderedDict = OrderedDict()
_race_cache: OrderedDict = OrderedDict()

Board = tuple[tuple[int, tuple[int, ...]], ...]


def clear_cache() -> None:
    """Forget every cached result."""
    _leg_cache.clear()
    _race_cache.clear()


def _cached(cache: OrderedDict, key, compute):
    found = cache.get(key)
    if found is None:
        found = cache[key] = compute()
        if len(cache) > _CACHE_SIZE:
            cache.popitem(last=False)
    else:
        cache.move_to_end(key)
    return found


def _board(state: GameState) -> Board:
    return tuple(sorted(state.stacks.items()))


def _one_hot_ranking(stacks: dict, n_racing: int) -> np.ndarray:
    out = np.zeros((n_racing, n_racing))
    for rank, camel in enumerate(ranking(stacks, n_racing)):
        out[camel, rank] = 1.0
    return out


def leg_rank_probabilities(state: GameState) -> np.ndarray:
    """Exact ``P(camel ends the current leg at rank r)`` as a float64 ``[camel, rank]`` array
    (rank 0 leads), as :func:`camelup_env.odds.leg_rank_probabilities` for the wanderer."""
    rules = state.rules
    if state.game_over:
        return _one_hot_ranking(state.stacks, rules.n_racing)
    key = (rules, _board(state), state.pyramid, state.wanderer)
    found = _cached(_leg_cache, key, lambda: _leg_odds(state, key[1], key[2]))
    return found.copy()


def _leg_odds(state: GameState, board: Board, pyramid: tuple[int, ...]) -> np.ndarray:
    """The enumeration of the module docstring. A board is one key per camel, ``space * 16 +
    height``, so a unit is the camels of its space with a key at least its bottom camel's; the
    boards reached after each number of reveals are merged before the next reveal."""
    rules = state.rules
    n, wanderer = rules.n_racing, state.wanderer
    faces = []  # per die: ((camel, value), probability of the face) for each distinct face
    for die_faces in rules.dice:
        counts: dict[tuple[int, int], int] = {}
        for face in die_faces:
            counts[face] = counts.get(face, 0) + 1
        faces.append(tuple((face, k / len(die_faces)) for face, k in counts.items()))
    start = [0] * n
    for space, stack in board:
        for height, camel in enumerate(stack):
            start[camel] = space * 16 + height
    level: dict[tuple[tuple[int, ...], tuple[int, ...]], float] = {(tuple(start), pyramid): 1.0}
    out = np.zeros((n, n))
    while level:
        following: dict[tuple[tuple[int, ...], tuple[int, ...]], float] = {}
        for (keys, dice), p in level.items():
            for die in dice:
                rest = tuple(d for d in dice if d != die)
                for (camel, value), w in faces[die]:
                    bottom = keys[camel]
                    src = bottom >> 4
                    dst = src + value
                    height = sum(1 for k in keys if k >> 4 == dst)
                    moved = tuple(
                        (dst << 4) + height + k - bottom if k >= bottom and k >> 4 == src else k
                        for k in keys
                    )
                    q = p * w / len(dice)
                    # R14.5 (the wanderer is never beyond L, so this covers R5.4) and R6.1
                    if dst > wanderer or not rest:
                        order = sorted(range(n), key=moved.__getitem__, reverse=True)
                        out[order, range(n)] += q
                    else:
                        following[(moved, rest)] = following.get((moved, rest), 0.0) + q
        level = following
    out.setflags(write=False)
    return out


def race_probabilities(state: GameState, n_samples: int, seed: int) -> tuple[np.ndarray, int]:
    """``[winner, loser]`` rates per racing camel from ``n_samples`` dice-only rollouts
    (module docstring), and the sample count; deterministic for a given ``seed``."""
    rules = state.rules
    n = rules.n_racing
    if state.game_over:
        probs = _one_hot_ranking(state.stacks, n)
        return np.stack((probs[:, 0], probs[:, n - 1])), n_samples
    key = (rules, _board(state), state.pyramid, state.wanderer, n_samples, seed)
    return _cached(_race_cache, key, lambda: (_rollouts(state, n_samples, seed), n_samples))


def _rollouts(state: GameState, n_samples: int, seed: int) -> np.ndarray:
    rules = state.rules
    n, length, refill, dice = rules.n_racing, rules.track_length, rules.leg_start_dice, rules.dice
    rng = random.Random(seed)
    rates = np.zeros((2, n))
    for _ in range(n_samples):
        stacks = dict(state.stacks)
        pyramid = list(state.pyramid)
        wanderer = state.wanderer
        while True:
            die = pyramid.pop(rng.randrange(len(pyramid)))
            camel, value = rng.choice(dice[die])
            dst = move_unit(stacks, {}, camel, value, length, [])[0]
            if dst > length:  # R5.4
                break
            if dst > wanderer or not pyramid:  # R14.5, R6.1: every die goes back
                wanderer = min(wanderer + 1, length)
                pyramid = list(refill)
        order = ranking(stacks, n)
        rates[0, order[0]] += 1
        rates[1, order[-1]] += 1
    rates /= n_samples
    rates.setflags(write=False)
    return rates
