"""The incremental observer: the reference observation, computed fast for the steps of a game.

:class:`Observer` gives exactly :class:`~camelup_env.observation.ReferenceObserver`'s vector
(tested equal on every rule set, in game order and shuffled). How: it keeps one seat-independent
*absolute* vector, laid out like an observation but with absolute seats where the slices have
relative ones, and leaving out the slices that depend on who looks (``per_observer`` in the slice
table), which follow it in a block rewritten for the observing seat. Each part of the absolute
vector is rewritten only when the state fields it encodes differ from the last state seen (one
step usually changes one or two of them). A seat's observation is then one gather through a
precomputed index array that maps relative seats to absolute ones (the slices' ``seat_axes``)
and reads the seat block.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

import numpy as np

from camelup_env.game.movement import ranking
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState
from camelup_env.observation.estimates import action_value_slice, odds_slices, race_samples_of
from camelup_env.observation.slices import layout_of

_UNSEEN = object()  # no state seen yet: differs from every field value


def _snapshot(value: object) -> object:
    """What an Observer part remembers of the fields it read: dicts (the track, the tiles) are
    copied, so a later comparison never looks at a dict that has changed since."""
    if type(value) is dict:
        return dict(value)
    if type(value) is tuple and any(type(v) is dict for v in value):
        return tuple(dict(v) if type(v) is dict else v for v in value)
    return value


class Observer:
    """Builds the observation vector of any seat for one rule set (see the module docstring).

    Args:
        rules: the rule set.
        odds_features: add the ``leg_*`` / ``race_*`` odds slices (needs numba; the first call
            compiles, later calls are cached).
        race_samples: samples of the race estimate (``race_winner_prob``, ``race_loser_prob``
            and the race bets' values). Default: :data:`camelup_env.odds.RACE_SAMPLES` with
            ``action_values``, else ``estimates.V0_RACE_SAMPLES`` (the ``camelup_v0`` default).
        action_values: add the ``action_values`` slice and take the odds from
            :func:`camelup_env.odds.position_odds`; ``False`` gives the ``camelup_v0``
            observation bit for bit (how models trained on it are loaded).

    ``metadata`` is what a trained model must record to get the same observer back.
    """

    def __init__(
        self,
        rules: RuleSet,
        odds_features: bool = True,
        race_samples: int | None = None,
        action_values: bool = True,
    ):
        self.rules = rules
        self.odds_features = odds_features
        self.action_values = action_values
        self.race_samples = race_samples_of(race_samples, action_values)
        table = layout_of(rules, odds_features, action_values)
        self.slices = table.slices
        #: slice name -> ``(start, stop)`` in the vector, and its shape before flattening
        self.layout: dict[str, tuple[int, int]] = table.spans
        self.shapes: dict[str, tuple[int, ...]] = table.shapes
        self.size, self.low, self.high = table.size, table.low, table.high
        r, d = rules, table.dims
        self._dims = d
        n, K = d["n"], d["K"]
        values = sorted(set(r.leg_bet_values), reverse=True)
        self._value_col = {v: i for i, v in enumerate(values)}
        self._inv_mult = [1.0 / r.leg_bet_values.count(v) for v in values]
        self._first_support = r.first_support_die
        self._position_row = {pos: i for i, pos in enumerate(r.position_tiles)}
        self._o = {name: a for name, (a, _) in self.layout.items()}
        self._max_leg_value = float(max(r.leg_bet_values))
        self._kdiv = 1.0 / (K - 1) if K > 1 else 0.0
        self._supercup = r.support_dice or r.extra_action or r.photographer or r.position_bets
        # The seat-independent ("absolute") vector, kept up to date part by part, followed by
        # the observing seat's own block: its per-observer slices, in table order (observe()).
        writers = {
            "coin_margin": self._margins,
            "own_cards": self._own_cards,
            "action_values": self._action_values,
        }
        self._seat_writers: list[tuple[int, int, Callable]] = []
        end = self.size
        for piece in self.slices:
            if piece.per_observer:
                a, b = self.layout[piece.name]
                self._seat_writers.append((end, end + b - a, writers[piece.name]))
                end += b - a
        self._src = np.zeros(end, dtype=np.float32)
        self._make_views()
        self._parts = self._build_parts()
        self._seen: list[object] = [_UNSEEN] * len(self._parts)
        self._margin_memo: list[tuple | None] = [None] * n
        self._cards_memo: list[tuple | None] = [None] * n
        self._perm = [self._seat_permutation(seat) for seat in range(n)]

    def _make_views(self) -> None:
        """The memoryviews observe() writes through (not picklable: rebuilt on unpickling)."""
        # Any: memoryviews of float32 buffers take floats; typeshed types byte views only.
        self._m: Any = self._src.data
        self._zeros: Any = np.zeros(self.size, dtype=np.float32).data

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        del state["_m"], state["_zeros"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._make_views()

    # ------------------------------------------------------------------------------------
    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The named slice of an observation vector, reshaped to its documented shape."""
        a, b = self.layout[name]
        return obs[..., a:b].reshape(*obs.shape[:-1], *self.shapes[name])

    def observe(self, state: GameState, seat: int) -> np.ndarray:
        """The observation vector of ``seat`` (a new ``float32`` array).

        Observing states in any order is correct; in game order it is cheapest (the module
        docstring says how). Entries are written through memoryviews: far cheaper than numpy
        item or slice assignment for the few dozen scattered entries of one step.
        """
        m, zeros = self._m, self._zeros
        seen = self._seen
        for i, (fields_of, spans, write) in enumerate(self._parts):
            value = fields_of(state)
            if seen[i] != value:
                for a, b in spans:
                    m[a:b] = zeros[: b - a]
                write(state)
                seen[i] = _snapshot(value)
        for a, b, write in self._seat_writers:
            m[a:b] = write(state, seat)
        return self._src[self._perm[seat]]

    @property
    def metadata(self) -> dict:
        """The constructor flags a trained model records (absent ``action_values``: False)."""
        return {
            "odds_features": bool(self.odds_features),
            "race_samples": self.race_samples,
            "action_values": bool(self.action_values),
        }

    def _action_values(self, state: GameState, seat: int) -> np.ndarray:
        return action_value_slice(state, seat, self.race_samples)

    def _margins(self, state: GameState, seat: int) -> np.ndarray:
        """``coin_margin`` of ``seat``, memoised per seat (coins change a few times a leg)."""
        coins = state.coins
        memo = self._margin_memo[seat]
        if memo is None or memo[0] != coins:
            n = self._dims["n"]
            own = coins[seat]
            memo = self._margin_memo[seat] = (
                coins,
                np.array(
                    [min(max((coins[(seat + k) % n] - own) / 20.0, -5.0), 5.0) for k in range(n)],
                    dtype=np.float32,
                ),
            )
        return memo[1]

    def _own_cards(self, state: GameState, seat: int) -> np.ndarray:
        """``own_cards`` of ``seat`` (R10: a seat sees only its own race-betting cards),
        memoised per seat (cards are played a few times a leg)."""
        key = (state.hands[seat], state.winner_pile, state.loser_pile)
        memo = self._cards_memo[seat]
        if memo is None or memo[0] != key:
            R = self._dims["R"]
            cards = np.zeros((R, 4), dtype=np.float32)
            hand = state.hands[seat]
            for camel in range(R):
                cards[camel, 0] = hand >> camel & 1
            for pile, col in ((state.winner_pile, 1), (state.loser_pile, 2)):
                for slot, (owner, camel) in enumerate(pile):
                    if owner == seat:
                        cards[camel, col] = 1.0
                        cards[camel, 3] = slot * self._kdiv
            memo = self._cards_memo[seat] = (key, cards.reshape(-1))
        return memo[1]

    def _seat_permutation(self, seat: int) -> np.ndarray:
        """Index array: observation entry ``j`` of ``seat`` is source entry ``perm[j]``.

        Along every seat axis, relative seat ``k`` reads absolute seat ``(seat + k) % n``; the
        per-observer slices read the seat block after the absolute vector.
        """
        n = self._dims["n"]
        order = [(seat + k) % n for k in range(n)]
        perm = np.arange(self.size)
        for piece, (start, _, _) in zip(
            (s for s in self.slices if s.per_observer), self._seat_writers, strict=True
        ):
            lo, hi = self.layout[piece.name]
            perm[lo:hi] = np.arange(start, start + hi - lo)
        for piece in self.slices:
            a, b = self.layout[piece.name]
            idx = perm[a:b].reshape(self.shapes[piece.name])  # a view: edits land in perm
            for axis, first in piece.seat_axes:
                sel = [slice(None)] * idx.ndim
                sel[axis] = slice(first, first + n)
                idx[tuple(sel)] = np.take(idx[tuple(sel)], order, axis=axis)
        return perm

    # The absolute vector, part by part ----------------------------------------------------
    def _build_parts(self) -> list[tuple[Callable, list[tuple[int, int]], Callable]]:
        """(state fields read, slices written, writer) for each part of the absolute vector.
        A writer finds its slices zeroed and writes absolute seats."""
        r = self.rules
        parts = [
            (
                attrgetter("stacks"),
                ["camel_space", "camel_progress", "camel_height", "camel_crossed", "racing_rank"],
                self._part_track,
            ),
            (attrgetter("tiles"), ["tiles", "tile_on_track"], self._part_tiles),
            (
                attrgetter("revealed", "pyramid_tiles_left", "leg"),
                ["dice_revealed", "grey_die_shown", "pyramid_tiles_left", "leg_number"],
                self._part_dice,
            ),
            (attrgetter("leg_stacks"), ["leg_stacks"], self._part_leg_stacks),
            (attrgetter("coins"), [], self._part_coins),
            (attrgetter("leg_bets"), ["leg_bets_held"], self._part_leg_bets),
            (attrgetter("pyramid_tiles"), [], self._part_pyramid_tiles),
            (
                attrgetter("current", "leg_starter"),
                ["is_current", "is_leg_starter"],
                self._part_turn,
            ),
            (
                attrgetter("winner_pile", "loser_pile"),
                ["winner_pile", "loser_pile"],
                self._part_piles,
            ),
        ]
        if r.partnerships:
            parts.append(
                (attrgetter("partners"), ["partner", "partner_card_available"], self._part_partners)
            )
        if self._supercup:
            parts.append(
                (
                    attrgetter(
                        "pyramid", "crater", "extra_pending", "photographer", "position_bets"
                    ),
                    ["support_dice", "photographer", "camera_space", "position_bets"],
                    self._part_supercup,
                )
            )
        if r.wanderer or r.leg_cards:
            parts.append(
                (
                    attrgetter("wanderer", "loser_cards"),
                    ["wanderer", "loser_cards", "loser_card_value"],
                    self._part_persian,
                )
            )
        if self.odds_features:  # public fields only: no seat's hidden cards reach the odds
            parts.append(
                (
                    attrgetter(
                        "stacks",
                        "tiles",
                        "pyramid",
                        "pyramid_tiles_left",
                        "leg_stacks",
                        "game_over",
                    ),
                    [
                        "leg_rank_prob",
                        "leg_bet_ev",
                        "leg_bet_available",
                        "race_winner_prob",
                        "race_loser_prob",
                    ],
                    self._part_odds,
                )
            )
        return [
            (get, [self.layout[name] for name in names if name in self.layout], write)
            for get, names, write in parts
        ]

    def _part_track(self, state: GameState) -> None:
        d, o, m = self._dims, self._o, self._m
        C, R, L = d["C"], d["R"], d["L"]
        cs, cp = o["camel_space"], o["camel_progress"]
        ch, cc = o["camel_height"], o["camel_crossed"]
        hdiv = 1.0 / (C - 1) if C > 1 else 0.0
        for space, stack in state.stacks.items():
            prog = min(max(space / L, -0.5), 1.5)
            for h, camel in enumerate(stack):
                if 1 <= space <= L:
                    m[cs + camel * L + space - 1] = 1.0
                else:
                    m[cc + 2 * camel + (0 if space > L else 1)] = 1.0
                m[cp + camel] = prog
                m[ch + camel] = h * hdiv
        rr = o["racing_rank"]
        for rank, camel in enumerate(ranking(state.stacks, R)):
            m[rr + camel * R + rank] = 1.0

    def _part_tiles(self, state: GameState) -> None:
        o, m, n = self._o, self._m, self._dims["n"]
        t, w = o["tiles"], n + 2
        for space, (owner, side) in state.tiles.items():
            base = t + (space - 2) * w
            m[base + owner] = 1.0
            m[base + n + (0 if side > 0 else 1)] = 1.0
            m[o["tile_on_track"] + owner] = 1.0

    def _part_dice(self, state: GameState) -> None:
        o, m, R = self._o, self._m, self._dims["R"]
        dr, w = o["dice_revealed"], 1 + self._dims["M"]
        for die, camel_shown, value in state.revealed:
            m[dr + die * w] = 1.0
            m[dr + die * w + value] = 1.0
            if R <= die < self._first_support:  # the grey die (support dice come after it)
                m[o["grey_die_shown"] + camel_shown - R] = 1.0
        m[o["pyramid_tiles_left"]] = state.pyramid_tiles_left / self.rules.pyramid_tiles
        m[o["leg_number"]] = min(state.leg, 20) / 20.0

    def _part_leg_stacks(self, state: GameState) -> None:
        ls, m, nv = self._o["leg_stacks"], self._m, len(self.rules.leg_bet_values)
        for camel, stack in enumerate(state.leg_stacks):
            if stack:
                m[ls + 2 * camel] = stack[0] / self._max_leg_value
                m[ls + 2 * camel + 1] = len(stack) / nv

    def _part_coins(self, state: GameState) -> None:
        c, m = self._o["coins"], self._m
        for s, coins in enumerate(state.coins):
            m[c + s] = min(max(coins, -100), 100) / 20.0  # below 0 only in the Cup (C10)

    def _part_leg_bets(self, state: GameState) -> None:
        R, U = self._dims["R"], self._dims["U"]
        lb, m, vcol, inv_mult = self._o["leg_bets_held"], self._m, self._value_col, self._inv_mult
        for s, bets in enumerate(state.leg_bets):
            for camel, value in bets:
                c = vcol[value]
                j = lb + (s * R + camel) * U + c
                m[j] = min(m[j] + inv_mult[c], 1.0)  # endless Cup stacks (C5) hold more

    def _part_pyramid_tiles(self, state: GameState) -> None:
        ph, m, per_leg = self._o["pyramid_tiles_held"], self._m, self.rules.pyramid_tiles
        for s, held in enumerate(state.pyramid_tiles):
            m[ph + s] = held / per_leg

    def _part_turn(self, state: GameState) -> None:
        self._m[self._o["is_current"] + state.current] = 1.0
        self._m[self._o["is_leg_starter"] + state.leg_starter] = 1.0

    def _part_partners(self, state: GameState) -> None:
        o, m, n = self._o, self._m, self._dims["n"]
        pa, pc = o["partner"], o["partner_card_available"]
        for s, partner in enumerate(state.partners):
            if partner >= 0:
                m[pa + s * n + partner] = 1.0
            else:
                m[pc + s] = 1.0

    def _part_piles(self, state: GameState) -> None:
        """Owners only, never a colour; ``race_cards_in_hand`` is a count derived from the
        public piles."""
        o, m, n, R = self._o, self._m, self._dims["n"], self._dims["R"]
        in_hand = [R] * n
        for base, pile in (
            (o["winner_pile"], state.winner_pile),
            (o["loser_pile"], state.loser_pile),
        ):
            for slot, (owner, _) in enumerate(pile):
                m[base + slot * n + owner] = 1.0
                in_hand[owner] -= 1
        for s in range(n):
            m[o["race_cards_in_hand"] + s] = in_hand[s] / R

    def _part_supercup(self, state: GameState) -> None:
        """The Supercup modules' slices (R9.1-R9.3)."""
        rules, o, m = self.rules, self._o, self._m
        n, R = self._dims["n"], self._dims["R"]
        if rules.support_dice:
            sd, first = o["support_dice"], self._first_support
            for die in state.pyramid:
                if die >= first:
                    m[sd + 2 * (die - first)] = 1.0
            for camel in range(R):
                if state.crater >> camel & 1:
                    m[sd + 2 * camel + 1] = 1.0
        if rules.extra_action:
            m[o["extra_pending"]] = float(state.extra_pending)
        if rules.photographer and state.photographer is not None:
            owner, space = state.photographer
            m[o["photographer"] + owner] = 1.0
            m[o["camera_space"] + space - 1] = 1.0
        if rules.position_bets:
            pb, w = o["position_bets"], 2 + n + R
            for owner, pos, camel, value in state.position_bets:
                base = pb + self._position_row[pos] * w
                m[base] = 1.0
                m[base + 1 + owner] = 1.0
                m[base + 1 + n + camel] = 1.0
                m[base + 1 + n + R] = value / self._max_leg_value

    def _part_persian(self, state: GameState) -> None:
        """The Persian tutorial's slices (R14.1, R14.4)."""
        rules, o, m, R = self.rules, self._o, self._m, self._dims["R"]
        if rules.wanderer:
            m[o["wanderer"] + state.wanderer - 1] = 1.0
        if rules.leg_cards:
            values = rules.loser_bet_values
            top = float(max(values))
            played = set()
            for seat, camel, value in state.loser_cards:
                m[o["loser_cards"] + seat * R + camel] = value / top
                played.add(camel)
            if len(state.loser_cards) < len(values):
                following = values[len(state.loser_cards)] / top
                for camel in range(R):
                    if camel not in played:
                        m[o["loser_card_value"] + camel] = following

    # ------------------------------------------------------------------------------------
    def _part_odds(self, state: GameState) -> None:
        """``leg_rank_prob`` .. ``race_loser_prob``, from the public track alone."""
        vec = odds_slices(state, self.rules, self.race_samples, self.action_values)
        start = self._o["leg_rank_prob"]
        self._src[start : start + vec.size] = vec
