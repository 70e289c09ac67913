"""Exact race odds for rule sets whose camels only move forward (:mod:`camelup_env.odds`,
"Exact race odds near the end", for the method and when it is used).

After the current leg the race is a function of the board and the dice left alone: no tile on
the track (R6.4), and every leg's dice all revealed. With no crazy camel every unit moves
forward, so no state of those legs repeats and the race's odds are a backward induction over
them (:func:`camelup_env.odds.exact_kernels._solve`); racing dice all have the same faces, so
states that differ only in the colours share one entry. The current leg, with its tiles, is
enumerated to its end (:func:`camelup_env.odds.exact_kernels._leg_outcomes`) and folded with
the states where it ends. The states solved are kept per rule set for the process: every
later position that reaches them reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import types
from numba.typed import Dict

from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState
from camelup_env.odds.exact_kernels import (
    _RACING_DIE,
    _SUPPORT_DIE,
    _fold,
    _leg_outcomes,
    _root_state,
    _solve,
)
from camelup_env.odds.kernels import _final_ranking
from camelup_env.odds.lru import LRU
from camelup_env.odds.tables import _mask_of, _position, _tables_of

_positions = LRU()
#: :func:`near_end`'s bound on :func:`spaces_to_go`, chosen by the costs measured with
#: ``benchmarks/race_odds.py`` (``docs/odds.md``).
NEAR_END = 2


@dataclass
class _Solved:
    """The states of one rule set solved so far: code -> row of ``values``, rows in use."""

    memo: Dict
    values: np.ndarray
    rows: int


_solved = LRU(8)


def exact_applies(rules: RuleSet) -> bool:
    """Whether :func:`exact_race_rates` plays ``rules``: no crazy camel (every unit moves
    forward, R5.5) and not the desert wanderer's game (R14, its own odds), with every die of a
    leg's start revealed in the leg (``pyramid_tiles`` equal to those dice, as in every preset
    without crazy camels: then each racing camel moves at least one space per leg, which
    bounds the legs left by :func:`spaces_to_go`)."""
    starting_dice = len(rules.leg_start_dice) + (1 if rules.support_dice else 0)
    return not rules.crazy_colours and not rules.wanderer and rules.pyramid_tiles == starting_dice


def spaces_to_go(state: GameState) -> int:
    """Spaces the leading camel has to go to cross the finish line (R5.4): an upper bound on the
    legs after the current one where :func:`exact_applies` (each moves it one space or more)."""
    return state.rules.track_length + 1 - max(state.stacks)


def near_end(state: GameState) -> bool:
    """Whether the race estimates use the exact odds by default: the rule set allows them and
    the leader has at most :data:`NEAR_END` spaces to go (module docstring of
    :mod:`camelup_env.odds`, "Exact race odds near the end": why there)."""
    return exact_applies(state.rules) and max(state.stacks) >= near_end_space(state.rules)


def near_end_space(rules: RuleSet) -> int:
    """The space from which a leader makes the race :func:`near_end`."""
    return rules.track_length + 1 - NEAR_END


def warm_up(state: GameState) -> None:
    """Compile (or load) the exact odds' kernels, as their callers call them, on a race that
    ends in its next leg: ``state``'s camels stacked on the last space, with no tile (a state
    itself) and with one (its leg enumerated)."""
    rules = state.rules
    if not exact_applies(rules):
        return
    end = state.copy()
    end.game_over = False
    end.stacks = {rules.track_length: tuple(range(rules.n_racing))}
    end.pyramid = rules.leg_start_dice
    end.pyramid_tiles_left = len(end.pyramid)
    end.tiles = {}
    exact_race_rates(end)
    end.tiles = {2: (0, 1)}
    exact_race_rates(end)


def exact_race_rates(state: GameState) -> np.ndarray:
    """``[winner / loser, camel]``: the exact P(overall winner) and P(overall loser) (R7.2) of
    each racing camel, for a rule set where :func:`exact_applies`.

    The current leg is enumerated with its dice and tiles, every later leg from its start
    (R6.1, R6.4; with Supercup support dice, the last camel's support die joins, R9.1.1), as
    :func:`camelup_env.odds.race_probabilities` rolls races out. Its cost grows with the legs
    left (:func:`spaces_to_go`) and is measured in ``benchmarks/race_odds.py``. Cached by
    position; a finished race gives its result."""
    rules = state.rules
    if not exact_applies(rules):
        raise ValueError(f"exact race odds need camels that only move forward, not {rules.preset}")
    board, side, over = _position(state)
    n = rules.n_racing
    if state.game_over or over:
        probs = _final_ranking(board, n)
        return np.stack((probs[:, 0], probs[:, n - 1]))
    pyramid = tuple(state.pyramid)
    left = min(state.pyramid_tiles_left, len(pyramid))
    key = (rules, tuple(board), tuple(side), pyramid, left)
    found = _positions.get(key)
    if found is None:
        t = _tables_of(rules)
        support = t.first_support >= 0
        keys = np.array(board, np.int64)
        if any(side) or left < len(pyramid) or left == 0:  # the current leg enumerated
            ended, codes, behind, weight = _leg_outcomes(
                keys,
                _mask_of(pyramid),
                left,
                t.face_camel,
                t.face_value,
                t.face_weight,
                t.n_faces,
                n,
                rules.track_length,
                np.array(side, np.int64),
                support,
            )
        else:  # no tile, every die left revealed: the position is a state itself
            dice = np.zeros(n, np.int64)
            for d in pyramid:
                if d < n:
                    dice[d] |= _RACING_DIE
                else:
                    dice[d - t.first_support] |= _SUPPORT_DIE
            codes, behind = _root_state(keys, dice, support)
            ended, weight = np.zeros((n, 2)), np.ones(1)
        solved = _solve_states(rules, np.unique(codes))
        found = _fold(ended, codes, behind, weight, solved.memo, solved.values)
        found.setflags(write=False)
        _positions.put(key, found)
    return found.copy()


def _solve_states(rules: RuleSet, roots: np.ndarray) -> _Solved:
    """The rule set's solved states, ``roots`` and every state they reach among them."""
    solved = _solved.get(rules)
    if solved is None:
        memo = Dict.empty(key_type=types.int64, value_type=types.int64)
        solved = _Solved(memo, np.empty((1 << 12, 2, rules.n_racing)), 0)
        _solved.put(rules, solved)
    t = _tables_of(rules)
    k = t.n_faces[0]  # every racing die has die 0's faces
    rv, rw = t.face_value[0, :k], t.face_weight[0, :k]
    if t.first_support >= 0:
        f = t.first_support
        sv, sw = t.face_value[f, : t.n_faces[f]], t.face_weight[f, : t.n_faces[f]]
    else:
        sv, sw = rv[:0], rw[:0]
    while True:
        rows = _solve(
            roots,
            solved.memo,
            solved.values,
            solved.rows,
            rv,
            rw,
            sv,
            sw,
            rules.n_racing,
            rules.track_length,
        )
        if rows >= 0:
            solved.rows = rows
            return solved
        solved.rows = len(solved.values)  # full: every row holds a solved state
        solved.values = np.concatenate((solved.values, np.empty_like(solved.values)))
