"""Exact race odds for rule sets whose camels only move forward (:mod:`camelup_env.odds`,
"Exact race odds near the end", for the method and when it is used).

The race from a leg's start is a function of the board alone: every die back in the pyramid,
no tile on the track (R6.1, R6.4). With no crazy camel every unit moves forward, so the boards
of later legs never repeat and the race's odds are a backward induction over leg-start
boards: a leg-start board's odds are those of the races ending inside its leg plus, per
leg-end board, its probability times that board's odds. Racing dice all have the same faces,
so a leg-start board's odds depend only on its shape (:mod:`camelup_env.odds.exact_kernels`),
kept in one cache per process across positions and games.
"""

from __future__ import annotations

import numpy as np

from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState
from camelup_env.odds.exact_kernels import _SHAPE_BITS, _fold, _leg_outcomes
from camelup_env.odds.kernels import _final_ranking
from camelup_env.odds.lru import LRU
from camelup_env.odds.tables import _mask_of, _position, _tables_of

#: Leg-start shapes whose odds are kept: more than a classic track has (15,504: 5 camels on 16
#: spaces, stacks in any order being one shape), so a process computes each at most once.
_shapes = LRU(1 << 16)
_positions = LRU()
#: :func:`near_end`'s bound on :func:`spaces_to_go`, chosen by the costs measured with
#: ``benchmarks/race_odds.py`` (``docs/odds.md``).
NEAR_END = 3


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
    """Whether the race estimates use the exact odds: the rule set allows them and the leader
    has at most :data:`NEAR_END` spaces to go, where they cost less than the rollouts."""
    return exact_applies(state.rules) and spaces_to_go(state) <= NEAR_END


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
        found = _fold_leg(
            rules,
            *_leg_outcomes(
                np.array(board, np.int64),
                _mask_of(pyramid),
                left,
                t.face_camel,
                t.face_value,
                t.face_weight,
                t.n_faces,
                n,
                rules.track_length,
                np.array(side, np.int64),
            ),
        )
        found.setflags(write=False)
        _positions.put(key, found)
    return found.copy()


def _fold_leg(
    rules: RuleSet, ended: np.ndarray, codes: np.ndarray, behind: np.ndarray, weight: np.ndarray
) -> np.ndarray:
    """A leg's outcomes (:func:`_leg_outcomes`) folded with the odds of its leg-end shapes."""
    shapes, index = np.unique(codes, return_inverse=True)
    if len(shapes):
        values = np.stack([_shape_odds(rules, int(s)) for s in shapes])
    else:
        values = np.zeros((1, 2, rules.n_racing))
    return _fold(ended, index.reshape(-1).astype(np.int64), behind, weight, values)


def _shape_odds(rules: RuleSet, code: int) -> np.ndarray:
    """``[winner / loser, index]``: the race odds of a leg-start board of shape ``code``, per
    camel by its index in the shape (0: the last camel). Its leg-end shapes are farther up the
    track (every unit moves forward), so the recursion ends; cached."""
    found = _shapes.get((rules, code))
    if found is not None:
        return found
    t = _tables_of(rules)
    n = rules.n_racing
    board = _shape_board(code, n)
    mask = t.start_mask
    if t.first_support >= 0:  # R9.1.1: the support die of the last camel, index 0
        mask |= 1 << t.first_support
    found = _fold_leg(
        rules,
        *_leg_outcomes(
            board,
            mask,
            rules.pyramid_tiles,
            t.face_camel,
            t.face_value,
            t.face_weight,
            t.n_faces,
            n,
            rules.track_length,
            np.zeros(rules.last_tile_space + 2, np.int64),
        ),
    )
    found.setflags(write=False)
    _shapes.put((rules, code), found)
    return found


def _shape_board(code: int, n_racing: int) -> np.ndarray:
    """The board of a shape: camel ``i`` at its space, above the camels of lower index there."""
    board = np.empty(n_racing, np.int64)
    spaces = [((code >> (_SHAPE_BITS * i)) & 63) + 1 for i in range(n_racing)]
    for i, space in enumerate(spaces):
        board[i] = space * 16 + spaces[:i].count(space)
    return board
