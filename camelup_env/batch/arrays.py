"""The batch core's data: one rule set as a few numbers and tables, N games as fixed-size arrays.

Both are ``NamedTuple``\\ s of numpy arrays and ints, so the numba kernels
(:mod:`camelup_env.batch.kernels`) take them as one argument each and read fields by name, and
one compiled kernel serves every rule set (the rule numbers are values, not compile-time
constants).

Game ``i`` is row ``i`` of every array of :class:`BatchState`. The track is stored per camel, not
per space: ``pos[i, c]`` is camel ``c``'s space and ``height[i, c]`` its place in that space's
stack counted from the bottom (R0.2), which makes moving a unit (R0.3) a loop over seven camels.
A field that the reference :class:`~camelup_env.state.GameState` keeps as a list (leg-bet tiles
taken, race-bet piles, dice revealed) is a fixed-size array with a count; what each field holds,
and how it maps onto ``GameState``, is said field by field below and implemented once, in
:mod:`camelup_env.batch.convert`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from camelup_env.actions import action_table
from camelup_env.rules import RuleSet

#: Presets the batch core plays. Supercup (R9.1-R9.3) stays on the Python engine.
BATCH_PRESETS = ("classic", "second_edition")
#: Longest track: a space and its neighbours are bits of a signed 64-bit mask.
MAX_TRACK = 61
#: Most leg-bet tiles per colour: the order a tile was taken in is an int8.
MAX_LEG_TILES = 16


class BatchRules(NamedTuple):
    """One :class:`~camelup_env.rules.RuleSet` in the form the kernels read.

    Action indices are the reference engine's (:mod:`camelup_env.actions`), so a policy trained
    on either plays the other.
    """

    num_players: int
    n_racing: int
    n_camels: int
    n_dice: int
    track_length: int
    pyramid_tiles: int
    starting_coins: int
    partnerships: bool
    n_actions: int
    tile_offset: int
    race_offset: int
    partner_offset: int
    #: Leg-bet tile values of each colour's stack, top first (R2.3).
    leg_values: np.ndarray
    #: R7.2's payouts of correct race bets, in the order read.
    race_payouts: np.ndarray
    #: Per die, per face: the camel shown and the number of spaces (R1.1; ``RuleSet.dice``).
    face_camel: np.ndarray
    face_value: np.ndarray
    #: Per die: its number of faces (rows of ``face_*`` are padded to the longest die).
    n_faces: np.ndarray
    #: The racing die's faces and the grey die's numbers, for the setup (R2.1, R2.2).
    racing_faces: np.ndarray
    grey_values: np.ndarray


class BatchState(NamedTuple):
    """N games, game ``i`` in row ``i`` of every field (shapes with N first).

    ``P`` players, ``C`` camels (racing first, R1.3), ``R`` racing camels, ``K`` leg-bet tiles
    per colour, ``D`` dice.
    """

    #: (N, C) space of each camel; above L after a forward finish, below 1 after a backward one.
    pos: np.ndarray
    #: (N, C) place of each camel in its stack, 0 = bottom.
    height: np.ndarray
    #: (N, P) space of each seat's desert/spectator tile, 0 while it is in hand.
    tile_space: np.ndarray
    #: (N, P) the side the tile shows, +1 or -1 (meaningless while in hand).
    tile_side: np.ndarray
    #: (N,) bit mask of the dice still in the pyramid (bit d = die d).
    pyramid: np.ndarray
    #: (N, D, 3) the dice revealed this leg in order: die, camel shown, number shown.
    revealed: np.ndarray
    #: (N,) how many rows of ``revealed`` hold a die this leg.
    n_revealed: np.ndarray
    #: (N, R) leg-bet tiles taken from each colour's stack this leg (they go from the top).
    leg_taken: np.ndarray
    #: (N, R, K) the seat holding the k-th tile of each colour's stack, -1 while on the stack.
    leg_owner: np.ndarray
    #: (N, R, K) when that tile was taken this leg (0 = first): orders each seat's tiles.
    leg_order: np.ndarray
    #: (N,) pyramid tiles still in the stack this leg.
    pyramid_tiles_left: np.ndarray
    #: (N, P) coins.
    coins: np.ndarray
    #: (N, P) pyramid tiles each seat holds this leg.
    pyramid_held: np.ndarray
    #: (N, P) bit mask of the race-bet cards still in hand (bit c = racing camel c).
    hands: np.ndarray
    #: (N, P) partner seat this leg, or -1 (R9.4).
    partners: np.ndarray
    #: (N, 2, P * R) race-bet piles (winner, loser) in placing order: the card's owner ...
    pile_owner: np.ndarray
    #: ... and its camel.
    pile_camel: np.ndarray
    #: (N, 2) cards in each pile.
    pile_len: np.ndarray
    #: (N,) leg number, from 1.
    leg: np.ndarray
    #: (N,) seat to act.
    current: np.ndarray
    #: (N,) seat holding the starting-player marker.
    leg_starter: np.ndarray
    #: (N,) the race has ended and been scored.
    game_over: np.ndarray
    #: (N,) actions applied since the game was set up (for truncation).
    turns: np.ndarray
    #: (N,) the game's own random stream (splitmix64 state): dice and setups, nothing else, so
    #: a game's chance does not depend on the thread that plays it or on other games.
    rng: np.ndarray


def batch_rules(rules: RuleSet) -> BatchRules:
    """``rules`` for the kernels; a preset the batch core does not play is a ``ValueError``."""
    if rules.preset not in BATCH_PRESETS:
        raise ValueError(
            f"the batch core plays {' and '.join(BATCH_PRESETS)}; {rules.preset} (its modules, "
            f"R9.1-R9.3) is played by the Python engine (camelup_env.engine)"
        )
    if rules.track_length > MAX_TRACK:
        raise ValueError(f"the batch core's tracks are at most {MAX_TRACK} spaces long (its "
                         f"space masks are 64-bit), got track_length={rules.track_length}")
    if len(rules.leg_bet_values) > MAX_LEG_TILES:
        raise ValueError(f"the batch core holds at most {MAX_LEG_TILES} leg-bet tiles per "
                         f"colour, got {len(rules.leg_bet_values)}")
    table = action_table(rules)
    widest = max(len(die) for die in rules.dice)
    face_camel = np.zeros((rules.n_dice, widest), np.int64)
    face_value = np.zeros((rules.n_dice, widest), np.int64)
    for d, die in enumerate(rules.dice):
        for f, (camel, value) in enumerate(die):
            face_camel[d, f], face_value[d, f] = camel, value
    return BatchRules(
        num_players=rules.num_players,
        n_racing=rules.n_racing,
        n_camels=rules.n_camels,
        n_dice=rules.n_dice,
        track_length=rules.track_length,
        pyramid_tiles=rules.pyramid_tiles,
        starting_coins=rules.starting_coins,
        partnerships=bool(rules.partnerships),
        n_actions=len(table),
        tile_offset=table.tile_offset,
        race_offset=table.race_offset,
        partner_offset=table.partner_offset,
        leg_values=np.array(rules.leg_bet_values, np.int64),
        race_payouts=np.array(rules.race_bet_payouts, np.int64),
        face_camel=face_camel,
        face_value=face_value,
        n_faces=np.array([len(die) for die in rules.dice], np.int64),
        racing_faces=np.array(rules.racing_die_faces, np.int64),
        grey_values=np.array(rules.grey_die_values or (1,), np.int64),
    )


def empty_state(rules: RuleSet, n: int) -> BatchState:
    """Arrays for ``n`` games of ``rules``, zero-filled (the kernels set games up)."""
    if n < 1:
        raise ValueError(f"a batch holds at least one game, got {n}")
    p, c, r, k, d = (rules.num_players, rules.n_camels, rules.n_racing,
                     len(rules.leg_bet_values), rules.n_dice)
    return BatchState(
        pos=np.zeros((n, c), np.int16),
        height=np.zeros((n, c), np.int8),
        tile_space=np.zeros((n, p), np.int8),
        tile_side=np.zeros((n, p), np.int8),
        pyramid=np.zeros(n, np.int16),
        revealed=np.zeros((n, d, 3), np.int8),
        n_revealed=np.zeros(n, np.int8),
        leg_taken=np.zeros((n, r), np.int8),
        leg_owner=np.zeros((n, r, k), np.int8),
        leg_order=np.zeros((n, r, k), np.int8),
        pyramid_tiles_left=np.zeros(n, np.int8),
        coins=np.zeros((n, p), np.int32),
        pyramid_held=np.zeros((n, p), np.int8),
        hands=np.zeros((n, p), np.int8),
        partners=np.zeros((n, p), np.int8),
        pile_owner=np.zeros((n, 2, p * r), np.int8),
        pile_camel=np.zeros((n, 2, p * r), np.int8),
        pile_len=np.zeros((n, 2), np.int8),
        leg=np.zeros(n, np.int32),
        current=np.zeros(n, np.int8),
        leg_starter=np.zeros(n, np.int8),
        game_over=np.zeros(n, np.bool_),
        turns=np.zeros(n, np.int32),
        rng=np.zeros(n, np.uint64),
    )


def take(state: BatchState, indices: np.ndarray) -> BatchState:
    """The games at ``indices`` as a new batch (copies)."""
    return BatchState(*(field[indices] for field in state))
