"""Exact leg odds and Monte Carlo race odds under the desert wanderer (the Persian tutorial, R14).

:mod:`camelup_env.odds` enumerates a leg as a fixed number of reveals (R6.1). With the wanderer a
leg also ends as soon as a unit passes the wanderer's space (R14.5), whatever is left in the
pyramid, and the wanderer then moves on. :mod:`camelup_env.odds` sends rule sets with
``wanderer`` here; the public functions there keep their names and meaning.

* :func:`leg_rank_probabilities`: the odds' exact enumeration of a leg
  (:func:`camelup_env.odds.kernels._leg_kernel`: every die left, merging the boards that
  several sequences reach), with the wanderer's space where the finish line would be: a unit
  that passes it (or the finish line, R5.4) ends the leg with the ranking of that moment, and
  so does the last die (R6.1). ``tests/test_persian_odds.py`` checks it exactly against a
  brute-force enumeration through the engine's ``chance_outcomes`` / ``apply_outcome``.
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
from camelup_env.odds.kernels import _leg_kernel
from camelup_env.odds.tables import _mask_of, _position, _tables_of

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
    found = _cached(_leg_cache, key, lambda: _leg_odds(state, key[2]))
    return found.copy()


def _leg_odds(state: GameState, pyramid: tuple[int, ...]) -> np.ndarray:
    """The odds' leg kernel over every die left, with the wanderer's space as the line that ends
    the enumeration: a unit passing it ends the leg (R14.5) where a unit passing the finish
    ends the race (the wanderer is never beyond L, so this covers R5.4)."""
    rules = state.rules
    board, side, _ = _position(state)
    t = _tables_of(rules)
    out, *_ = _leg_kernel(
        np.array(board, np.int64),
        _mask_of(pyramid),
        len(pyramid),
        t.face_camel,
        t.face_value,
        t.face_weight,
        t.n_faces,
        rules.n_racing,
        state.wanderer,
        np.array(side, np.int64),
        0,
        np.empty(0),
        np.empty(0, np.int64),
    )
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
