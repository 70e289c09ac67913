"""A position and a rule set as the arrays the odds kernels read.

A board is one int per camel, ``space * 16 + height``; tiles are one side per space; the dice
are a bit mask; a rule set's dice become face tables (distinct faces with exact weights for the
enumeration, every face for sampling). Built once per rule set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from camelup_env.game.rule_kernels import STACK_KEYS
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState

_tables: dict = {}


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
    """The board as a key per camel (``space * 16 + height``,
    :mod:`camelup_env.game.rule_kernels`), the tile side per space (0: none), and whether a unit
    has crossed either end. Plain lists: they key the caches (as tuples; both determine the
    stacks and the tile sides exactly) and become the kernels' arrays on a miss."""
    rules = state.rules
    length = rules.track_length
    board = [0] * rules.n_camels
    over = False
    for space, stack in state.stacks.items():
        if space < 1 or space > length:
            over = True
        base = space * STACK_KEYS
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


def _check_limits(rules: RuleSet) -> None:
    if rules.n_camels > 10 or rules.n_dice > 23 or rules.track_length > 64:
        raise ValueError("the odds kernels support up to 10 camels, 23 dice and 64 spaces")
