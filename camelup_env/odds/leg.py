"""Exact odds of the current leg: rank probabilities, leg-bet values, tile placements, landings
and camera values, each cached by position (:mod:`camelup_env.odds` for the method)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from camelup_env.game.payouts import top_leg_bet_evs
from camelup_env.game.state import GameState
from camelup_env.odds import wanderer
from camelup_env.odds.kernels import _final_ranking, _leg_kernel, _placement_kernel
from camelup_env.odds.lru import LRU
from camelup_env.odds.tables import _position, _pyramid_mask, _tables_of, _tile_sides

_NO_PICKS = np.empty(0)  # the leg kernel's ``pick_at`` when no sample of the leg end is wanted
_NO_ROWS = np.empty(0, np.int64)
_leg_cache = LRU()
#: The first ten arguments of the leg and placement kernels: the board, the dice left, the
#: reveals left, the dice faces (camel, value, weight, count), the racing camels, the track's
#: length and the tile side per space.
_LegArguments = tuple[
    np.ndarray, int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int, np.ndarray
]
_place_cache = LRU()
_photo_cache = LRU()


def _leg_key(state: GameState, board: list, side: list) -> tuple:
    return (
        state.rules,
        tuple(board),
        tuple(side),
        state.pyramid,
        state.pyramid_tiles_left,
        state.game_over,
    )


def _leg_kernel_on(
    state: GameState,
    board: list,
    side: list,
    camera: int = 0,
    pick_at: np.ndarray = _NO_PICKS,
    pick_order: np.ndarray = _NO_ROWS,
) -> tuple:
    """:func:`_leg_kernel` for the rest of ``state``'s leg: its dice and reveals left, the
    board ``board`` and the tile side per space ``side`` (:func:`_position`'s), with the camera
    on ``camera`` (0: none) and leg-end samples at ``pick_at`` (none by default). The one place
    a state becomes the kernel's arguments (:func:`_placement_kernel` takes the same first
    ten)."""
    return _leg_kernel(*_leg_arguments(state, board, side), camera, pick_at, pick_order)


def _leg_arguments(state: GameState, board: list, side: list) -> _LegArguments:
    """The first ten arguments of the leg and placement kernels for ``state`` (see
    :func:`_leg_kernel_on`)."""
    rules = state.rules
    t = _tables_of(rules)
    return (
        np.array(board, np.int64),
        _pyramid_mask(state),
        min(state.pyramid_tiles_left, len(state.pyramid)),
        t.face_camel,
        t.face_value,
        t.face_weight,
        t.n_faces,
        rules.n_racing,
        rules.track_length,
        np.array(side, np.int64),
    )


def _leg_entry(
    state: GameState, board: list, side: list, over: bool
) -> tuple[np.ndarray, np.ndarray]:
    """(rank probabilities, expected arrivals per space) of one enumeration, cached (LRU) by
    position: the board, the tile side per space, the dice left and the reveals left."""
    key = _leg_key(state, board, side)
    found = _leg_cache.get(key)
    if found is None:
        rules = state.rules
        if state.game_over or over:
            found = (_final_ranking(board, rules.n_racing), np.zeros(rules.last_tile_space + 2))
        else:
            found = _leg_kernel_on(state, board, side)[:2]
        for a in found:
            a.setflags(write=False)
        _leg_cache.put(key, found)
    return found


def leg_rank_probabilities(state: GameState) -> np.ndarray:
    """Exact ``P(camel ends the current leg at rank r)`` as a float64 ``[camel, rank]`` array.

    Rank 0 is the leading camel (R0.4). Every row and every column sums to 1. A finished race
    (or a leg with no reveals left) gives the current ranking with probability 1. With the
    desert wanderer (R14.5) the leg lasts until a unit passes it: :mod:`camelup_env.odds.wanderer`.
    """
    if state.rules.wanderer:
        return wanderer.leg_rank_probabilities(state)
    board, side, over = _position(state)
    return _leg_entry(state, board, side, over)[0].copy()


def leg_bet_evs(state: GameState) -> np.ndarray:
    """Expected coins at leg scoring of taking each colour's top leg-bet tile now (R6.2).

    ``value * P(first) + 1 * P(second) - 1 * P(any other rank)``; NaN where the stack is empty.
    """
    return top_leg_bet_evs(leg_rank_probabilities(state), state.leg_stacks)


def placement_evs(state: GameState, seat: int) -> dict[tuple[int, int], float]:
    """Exact expected tile payouts (R5.3) to ``seat`` for each of its legal tile placements.

    Keys are ``(space, side)`` of every legal ``PlaceTile`` of ``seat`` (R4.2, decided by the
    engine's own legality code); the seat's tile already on the track, if any, is lifted first.
    The value is the expected number of units that land on the tile before the leg (or race)
    ends, i.e. the coins it earns its owner. Costs one leg enumeration per placement (see the
    module docstring); empty when the game is over or no reveal is left.
    """
    return {place: found.landings for place, found in placement_odds(state, seat).items()}


@dataclass(frozen=True)
class PlacementOdds:
    """One tile placement's effect on the leg (:func:`placement_odds`)."""

    landings: float  # expected units landing on the tile this leg: its owner's coins (R5.3)
    leg: np.ndarray  # (R, R) exact P(camel ends this leg at rank r) with the tile there


def placement_odds(state: GameState, seat: int) -> dict[tuple[int, int], PlacementOdds]:
    """:func:`placement_evs` with, for each placement, the exact leg-rank probabilities of the
    leg with the tile there (what a tile does to the leg bets already taken), from the same
    enumerations, cached together.

    A space no unit can reach this leg (behind every camel, or beyond the farthest reach of the
    dice left, when no camel moves backwards) changes nothing: its landings are 0 and its leg
    odds those of the position with ``seat``'s tile lifted, without an enumeration of its own.
    """
    from camelup_env.game.actions import PlaceTile
    from camelup_env.game.legality import legal_actions

    if state.game_over:
        return {}
    rules = state.rules
    board, _, over = _position(state)
    key = (
        rules,
        tuple(board),
        tuple(sorted(state.tiles.items())),
        tuple(state.pyramid),
        state.pyramid_tiles_left,
        seat,
    )
    found = _place_cache.get(key)
    if found is not None:
        return dict(found)
    probe = state.copy()
    probe.current = seat
    probe.extra_pending = False  # the placements of a normal action (R4.2, R9.2's camera)
    places = [(a.space, a.side) for a in legal_actions(probe) if isinstance(a, PlaceTile)]
    if not places:
        return {}
    probe.tiles = {s: t for s, t in state.tiles.items() if t[0] != seat}
    side = _tile_sides(probe.tiles, rules)
    lifted = _leg_entry(probe, board, side, over)[0]
    left = min(state.pyramid_tiles_left, len(state.pyramid))
    result = {p: PlacementOdds(0.0, lifted) for p in places}
    reached = [p for p in places if _reachable(state, p[0], left)]
    if reached and left > 0 and not over:
        spaces = np.array([p[0] for p in reached], np.int64)
        sides = np.array([p[1] for p in reached], np.int64)
        landings, ranks = _placement_kernel(*_leg_arguments(state, board, side), spaces, sides)
        ranks.setflags(write=False)
        for p, v, r in zip(reached, landings, ranks, strict=True):
            result[p] = PlacementOdds(float(v), r)
    _place_cache.put(key, result)
    return dict(result)


def _reachable(state: GameState, space: int, left: int) -> bool:
    """Whether a unit may end a die move on ``space`` in the ``left`` reveals left. Only
    forward movement is bounded: with crazy camels (R9.1) every space counts as reachable.
    A die moves a unit at most its largest face, plus one from a tile (R5.3)."""
    rules = state.rules
    if rules.n_camels != rules.n_racing:
        return True
    reach = max(state.stacks) + left * (int(_tables_of(rules).face_value.max()) + 1)
    return min(state.stacks) < space <= reach


def _leg_enumeration(state: GameState, side: list[int], camera: int = 0):
    """The leg kernel's results (see :func:`_leg_kernel`) for ``state`` with the tile sides
    ``side`` (per space 0..L+1), or None when no reveal is left or the race is over."""
    board, _, over = _position(state)
    if state.game_over or over or min(state.pyramid_tiles_left, len(state.pyramid)) <= 0:
        return None
    return _leg_kernel_on(state, board, side, camera)


def expected_landings(state: GameState, ignore_tiles_of: int | None = None) -> np.ndarray:
    """Expected die moves arriving on each space ``0..L+1`` (index = space) before the leg
    ends, before any tile effect (R5.1, R5.5): one exact enumeration for every space at once.

    Tiles on the track move units as usual, except those of seat ``ignore_tiles_of`` (lifted).
    A tile put on space ``s`` earns one coin per arrival (R5.3), and up to the first arrival on
    ``s`` the leg is the same with or without it, so as a tile value this is exact up to the
    first landing and approximate after it (the tile then displaces units by one space); both
    sides of the tile get the same value. :func:`placement_evs` is exact but enumerates once
    per placement. Cached with the leg odds of the same position (one enumeration gives both).
    """
    board, side, over = _position(state)
    if ignore_tiles_of is not None and any(t[0] == ignore_tiles_of for t in state.tiles.values()):
        others = {sp: t for sp, t in state.tiles.items() if t[0] != ignore_tiles_of}
        side = _tile_sides(others, state.rules)
    return _leg_entry(state, board, side, over)[1].copy()


def expected_photo_coins(state: GameState, spaces=None) -> dict[int, float]:
    """Exact expected coins this leg of a camera pointed now at each of ``spaces`` (R9.2).

    The camera pays its holder 1 coin per camel of the first unit that ends a die move on its
    space (after any desert-tile step, R5.3), then returns; it never changes movement. So the
    value is ``E[size of the first unit ending on the space]`` over the rest of the leg, computed
    by one exact enumeration per space (boards leave it once photographed). ``spaces``
    defaults to every empty space 1..L; spaces no unit can reach are 0 without enumeration
    (units only move forward when there are no crazy camels). The camera's effect on where
    others may put their tiles, and a later photo by someone who retakes the tile, are ignored.
    Results are cached per (board, tiles, dice, reveals left).
    """
    rules = state.rules
    L = rules.track_length
    if spaces is None:
        spaces = [s for s in range(1, L + 1) if s not in state.stacks and s not in state.tiles]
    spaces = [int(s) for s in spaces]
    left = min(state.pyramid_tiles_left, len(state.pyramid))
    board, side, over = _position(state)
    if state.game_over or over or left <= 0:
        return {s: 0.0 for s in spaces}
    key = (rules, tuple(board), tuple(side), tuple(state.pyramid), left)
    known = _photo_cache.get(key)
    if known is None:
        known = {}
        _photo_cache.put(key, known)
    for s in spaces:
        if s not in known:
            if not _reachable(state, s, left):
                known[s] = 0.0
            else:
                known[s] = float(_leg_enumeration(state, side, camera=s)[2])
    return {s: known[s] for s in spaces}
