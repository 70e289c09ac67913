"""The batch core's data as Python sees it: the rule vector and named views of the game rows.

The kernels (:mod:`camelup_env.batch.kernels`, which owns the layout) read one ``int32`` row per
game and one ``int64`` rule vector. :class:`BatchState` holds the rows and the random streams
and gives each field of :data:`~camelup_env.batch.kernels.FIELDS` a numpy view of its own,
shaped for the rule set (``state.coins`` is (N, players), ``state.leg_owner`` (N, 5, tiles per
colour)), so Python code reads and writes fields by name with no copy.
"""

from __future__ import annotations

import numpy as np

from camelup_env.batch import kernels as k
from camelup_env.game.actions import action_table
from camelup_env.game.rules import RuleSet

#: Presets the batch core plays. Supercup (R9), the Persian tutorial (R14) and the Camel Up
#: Cup (C1-C13) stay on the Python engine (:mod:`camelup_env.batch.engine_games`).
BATCH_PRESETS = ("classic", "second_edition")
#: Longest track: a space and its neighbours are bits of a signed 64-bit mask.
MAX_TRACK = 61


def rule_vector(rules: RuleSet) -> np.ndarray:
    """``rules`` as the kernels' ``int64`` vector; what the core cannot play is a
    ``ValueError`` that says why."""
    if rules.preset not in BATCH_PRESETS:
        raise ValueError(
            f"the batch core plays {' and '.join(BATCH_PRESETS)}; {rules.preset} is played by "
            f"the Python engine (camelup_env.game.engine; EngineGames behind the batch interface)"
        )
    limits = (
        (rules.track_length, MAX_TRACK, "track_length", "spaces (64-bit space masks)"),
        (len(rules.leg_bet_values), k.MAX_LEG_TILES, "leg_bet_values", "tiles per colour"),
        (len(rules.race_bet_payouts), k.MAX_PAYOUTS, "race_bet_payouts", "payouts listed"),
        (max(len(die) for die in rules.dice), k.MAX_FACES, "die faces", "faces per die"),
        (len(rules.racing_die_faces), k.MAX_FACES, "racing_die_faces", "faces per die"),
    )
    for value, most, name, what in limits:
        if value > most:
            raise ValueError(f"the batch core holds at most {most} {what}, got {name} with {value}")
    table = action_table(rules)
    r = np.zeros(k.RULES_WIDTH, np.int64)
    r[k.NUM_PLAYERS] = rules.num_players
    r[k.N_CAMELS] = rules.n_camels
    r[k.N_DICE] = rules.n_dice
    r[k.TRACK] = rules.track_length
    r[k.PYRAMID_TILES] = rules.pyramid_tiles
    r[k.STARTING_COINS] = rules.starting_coins
    r[k.PARTNERSHIPS] = bool(rules.partnerships)
    r[k.N_ACTIONS] = len(table)
    r[k.TILE_OFFSET] = table.tile_offset
    r[k.RACE_OFFSET] = table.race_offset
    r[k.PARTNER_OFFSET] = table.partner_offset
    for count, start, values in (
        (k.N_LEG_VALUES, k.LEG_VALUES, rules.leg_bet_values),
        (k.N_PAYOUTS, k.PAYOUTS, rules.race_bet_payouts),
        (k.N_RACING_FACES, k.RACING_FACES, rules.racing_die_faces),
        (k.N_GREY, k.GREY_VALUES, rules.grey_die_values),
    ):
        r[count] = len(values)
        r[start : start + len(values)] = values
    for d, die in enumerate(rules.dice):
        r[k.N_FACES + d] = len(die)
        for f, (camel, value) in enumerate(die):
            r[k.FACE_CAMEL + d * k.MAX_FACES + f] = camel
            r[k.FACE_VALUE + d * k.MAX_FACES + f] = value
    return r


class BatchState:
    """N games: ``rows`` (N, WIDTH) ``int32``, ``rng`` (N,) ``uint64`` streams (dice and
    setups, nothing else: a game's chance depends on nothing but its seed), and one view per
    field (see :data:`camelup_env.batch.kernels.FIELDS` for what each holds)."""

    def __init__(self, rules: RuleSet, rows: np.ndarray, rng: np.ndarray) -> None:
        self.rules, self.rows, self.rng = rules, rows, rng
        n, p, c = len(rows), rules.num_players, rules.n_camels
        tiles, dice = len(rules.leg_bet_values), rules.n_dice

        def cols(start: int, width: int) -> np.ndarray:
            return rows[:, start : start + width]

        self.camel = cols(k.CAMEL, c)
        self.tile_space, self.tile_side = cols(k.TILE_SPACE, p), cols(k.TILE_SIDE, p)
        self.pyramid = rows[:, k.PYRAMID]
        self.revealed = cols(k.REVEALED, 3 * k.MAX_DICE).reshape(n, k.MAX_DICE, 3)[:, :dice]
        self.n_revealed = rows[:, k.N_REVEALED]
        self.leg_taken = cols(k.LEG_TAKEN, k.N_RACING)
        per_colour = (n, k.N_RACING, k.MAX_LEG_TILES)
        self.leg_owner = cols(k.LEG_OWNER, k.N_RACING * k.MAX_LEG_TILES).reshape(per_colour)[
            :, :, :tiles
        ]
        self.leg_order = cols(k.LEG_ORDER, k.N_RACING * k.MAX_LEG_TILES).reshape(per_colour)[
            :, :, :tiles
        ]
        self.pyramid_left = rows[:, k.PYRAMID_LEFT]
        self.coins, self.pyramid_held = cols(k.COINS, p), cols(k.PYRAMID_HELD, p)
        self.hands, self.partners = cols(k.HANDS, p), cols(k.PARTNERS, p)
        piles = (n, 2, k.MAX_CARDS)
        self.pile_owner = cols(k.PILE_OWNER, 2 * k.MAX_CARDS).reshape(piles)[:, :, : p * 5]
        self.pile_camel = cols(k.PILE_CAMEL, 2 * k.MAX_CARDS).reshape(piles)[:, :, : p * 5]
        self.pile_len = cols(k.PILE_LEN, 2)
        self.leg, self.current = rows[:, k.LEG], rows[:, k.CURRENT]
        self.leg_starter, self.game_over = rows[:, k.LEG_STARTER], rows[:, k.GAME_OVER]
        self.turns = rows[:, k.TURNS]

    def leg_position(self, rows: np.ndarray) -> np.ndarray:
        """One row per game of ``rows``: the board, the tiles' places and sides, the dice and
        pyramid tiles left - all that a position's leg odds and joint outcomes read
        (:func:`camelup_env.odds.leg_scenarios`), so games with equal rows share them."""
        board = (self.camel, self.tile_space, self.tile_side, self.pyramid, self.pyramid_left)
        return np.column_stack([a[rows] for a in board])

    @classmethod
    def empty(cls, rules: RuleSet, n: int) -> BatchState:
        """Zeroed rows and streams for ``n`` games of ``rules``."""
        if n < 1:
            raise ValueError(f"a batch holds at least one game, got {n}")
        return cls(rules, np.zeros((n, k.WIDTH), np.int32), np.zeros(n, np.uint64))

    def take(self, indices: np.ndarray) -> BatchState:
        """The games at ``indices`` as a new state (copies)."""
        return BatchState(self.rules, self.rows[indices], self.rng[indices])
