"""The straightforward per-seat observation encoding, kept as a test oracle.

This is the Observer's original implementation (every slice written for the observing seat from
scratch on every call). ``camelup_env.observation.Observer`` now keeps a seat-independent
vector up to date incrementally and permutes it per seat; tests check that both agree exactly.
The odds slices and the ``action_values`` slice are written here straight from the functions
the module docstring names (``odds.position_odds`` / the ``camelup_v0`` estimate, and
``action_values.action_values``), for the observing seat, on every call.
"""

from __future__ import annotations

import zlib

import numpy as np

from camelup_env import odds
from camelup_env.action_values import action_values
from camelup_env.movement import ranking
from camelup_env.observation import Observer
from camelup_env.state import GameState


class ReferenceObserver:
    """Wraps an :class:`Observer` for its layout; encodes every observation from scratch."""

    def __init__(self, observer: Observer) -> None:
        ob = observer
        self.layout, self.race_samples = ob.layout, ob.race_samples
        self.with_values = ob.action_values
        self.rules = ob.rules
        self._dims, self._o = ob._dims, ob._o
        self._value_col, self._inv_mult = ob._value_col, ob._inv_mult
        self._first_support, self._position_row = ob._first_support, ob._position_row
        self._max_leg_value, self._nbytes = ob._max_leg_value, 4 * ob.size
        self._track_end = ob.layout["tiles"][0]
        self._dice_start = ob.layout["dice_revealed"][0]
        self._dice_end = ob.layout["coins"][0]

    def observe(self, state, seat):
        """The observation vector of ``seat`` (a new ``float32`` array)."""
        # Entries are written through a memoryview of a fresh zeroed buffer: far cheaper than
        # numpy item assignment for the few dozen scattered entries of one observation.
        d, o = self._dims, self._o
        R, n, K = d["R"], d["n"], d["K"]
        rules = self.rules
        buf = bytearray(self._nbytes)
        m = memoryview(buf).cast("f")
        rel = [(s - seat) % n for s in range(n)]  # absolute seat -> relative seat

        t, w = o["tiles"], n + 2
        for space, (owner, side) in state.tiles.items():
            base = t + (space - 2) * w
            m[base + rel[owner]] = 1.0
            m[base + n + (0 if side > 0 else 1)] = 1.0

        # Players (relative seats) -------------------------------------------------------
        own_coins = state.coins[seat]
        U = d["U"]
        lb, vcol, inv_mult = o["leg_bets_held"], self._value_col, self._inv_mult
        oc_, om, ph = o["coins"], o["coin_margin"], o["pyramid_tiles_held"]
        ptiles = rules.pyramid_tiles
        in_hand = [R] * n
        for owner, _ in state.winner_pile:
            in_hand[owner] -= 1
        for owner, _ in state.loser_pile:
            in_hand[owner] -= 1
        rc = o["race_cards_in_hand"]
        for s in range(n):
            k = rel[s]
            coins = state.coins[s]
            m[oc_ + k] = min(coins, 100) / 20.0
            m[om + k] = min(max((coins - own_coins) / 20.0, -5.0), 5.0)
            for camel, value in state.leg_bets[s]:
                c = vcol[value]
                j = lb + (k * R + camel) * U + c
                m[j] = m[j] + inv_mult[c]
            m[ph + k] = state.pyramid_tiles[s] / ptiles
            m[rc + k] = in_hand[s] / R  # a count derived from the public piles only
        for owner, _ in state.tiles.values():
            m[o["tile_on_track"] + rel[owner]] = 1.0
        m[o["is_current"] + rel[state.current]] = 1.0
        m[o["is_leg_starter"] + rel[state.leg_starter]] = 1.0
        if rules.partnerships:
            pa, pc = o["partner"], o["partner_card_available"]
            for s, partner in enumerate(state.partners):
                if partner >= 0:
                    m[pa + rel[s] * n + rel[partner]] = 1.0
                else:
                    m[pc + rel[s]] = 1.0

        # Race-bet piles: owners only; colours of the observer's own cards -------------
        oc = o["own_cards"]
        hand = state.hands[seat]
        for camel in range(R):
            if hand >> camel & 1:
                m[oc + 4 * camel] = 1.0
        kdiv = 1.0 / (K - 1) if K > 1 else 0.0
        for base, pile, col in (
            (o["winner_pile"], state.winner_pile, 1),
            (o["loser_pile"], state.loser_pile, 2),
        ):
            for slot, (owner, camel) in enumerate(pile):
                k = rel[owner]
                m[base + slot * n + k] = 1.0
                if k == 0:
                    m[oc + 4 * camel + col] = 1.0
                    m[oc + 4 * camel + 3] = slot * kdiv

        # Supercup modules (R9.1-R9.3) ------------------------------------------------------
        if rules.support_dice:
            sd, first = o["support_dice"], self._first_support
            for die in state.pyramid:
                if die >= first:
                    m[sd + 2 * (die - first)] = 1.0
            for camel in range(R):
                if state.crater >> camel & 1:
                    m[sd + 2 * camel + 1] = 1.0
        if rules.extra_action and state.extra_pending:
            m[o["extra_pending"]] = 1.0
        if rules.photographer and state.photographer is not None:
            owner, space = state.photographer
            m[o["photographer"] + rel[owner]] = 1.0
            m[o["camera_space"] + space - 1] = 1.0
        if rules.position_bets:
            pb, w = o["position_bets"], 2 + n + R
            for owner, pos, camel, value in state.position_bets:
                base = pb + self._position_row[pos] * w
                m[base] = 1.0
                m[base + 1 + rel[owner]] = 1.0
                m[base + 1 + n + camel] = 1.0
                m[base + 1 + n + R] = value / self._max_leg_value

        out = np.frombuffer(buf, dtype=np.float32)
        out[: self._track_end] = self._track(state)
        out[self._dice_start : self._dice_end] = self._dice(state)
        if "leg_rank_prob" in self.layout:
            a, b = self.layout["leg_rank_prob"][0], self.layout["race_loser_prob"][1]
            out[a:b] = self._odds(state)
        if "action_values" in self.layout:
            a, b = self.layout["action_values"]
            values = action_values(state, seat, race_samples=self.race_samples, tile_odds="approx")
            out[a:b] = np.clip(values / 10.0, -1.0, 1.0)
        return out

    def _odds(self, state: GameState) -> np.ndarray:
        """``leg_rank_prob`` .. ``race_loser_prob``: R6.2 written out here on purpose."""
        R = self.rules.n_racing
        if state.game_over:
            probs = np.zeros((R, R))
            for rank, camel in enumerate(ranking(state.stacks, R)):
                probs[camel, rank] = 1.0
            winner, loser = probs[:, 0], probs[:, R - 1]
        elif self.with_values:
            shared = odds.position_odds(state, self.race_samples)
            probs, winner, loser = shared.leg, shared.race.winner, shared.race.loser
        else:
            probs = odds.leg_rank_probabilities(state)
            position = (
                tuple(sorted(state.stacks.items())),
                tuple(sorted(state.tiles.items())),
                state.pyramid,
                state.pyramid_tiles_left,
            )
            race = odds.race_probabilities(
                state, self.race_samples, seed=zlib.crc32(repr(position).encode())
            )
            winner, loser = race.winner, race.loser
        ev, avail = np.zeros(R), np.zeros(R)
        if not state.game_over:
            for camel, stack in enumerate(state.leg_stacks):
                if stack:
                    p1, p2 = probs[camel, 0], probs[camel, 1]
                    ev[camel] = (stack[0] * p1 + p2 - (1 - p1 - p2)) / self._max_leg_value
                    avail[camel] = 1.0
        return np.concatenate([probs.reshape(-1), ev, avail, winner, loser]).astype(np.float32)

    def _track(self, state: GameState) -> np.ndarray:
        """The seat-independent track slices (``camel_space`` .. ``racing_rank``)."""
        d, o = self._dims, self._o
        C, R, L = d["C"], d["R"], d["L"]
        idx: list[int] = []
        val: list[float] = []
        ones: list[int] = []
        put, one, putv = idx.append, ones.append, val.append
        # Track -------------------------------------------------------------------------
        cs, cp = o["camel_space"], o["camel_progress"]
        ch, cc = o["camel_height"], o["camel_crossed"]
        hdiv = 1.0 / (C - 1) if C > 1 else 0.0
        for space, stack in state.stacks.items():
            prog = min(max(space / L, -0.5), 1.5)
            if 1 <= space <= L:
                for h, camel in enumerate(stack):
                    one(cs + camel * L + space - 1)
                    put(cp + camel)
                    putv(prog)
                    put(ch + camel)
                    putv(h * hdiv)
            else:
                flag = 0 if space > L else 1
                for h, camel in enumerate(stack):
                    one(cc + 2 * camel + flag)
                    put(cp + camel)
                    putv(prog)
                    put(ch + camel)
                    putv(h * hdiv)
        rr = o["racing_rank"]
        for rank, camel in enumerate(ranking(state.stacks, R)):
            one(rr + camel * R + rank)
        seg = np.zeros(self._track_end, dtype=np.float32)
        seg[idx] = val
        seg[ones] = 1.0
        return seg

    def _dice(self, state: GameState) -> np.ndarray:
        """The seat-independent slices ``dice_revealed`` .. ``leg_number``."""
        d, o, rules = self._dims, self._o, self.rules
        R = d["R"]
        idx: list[int] = []
        val: list[float] = []
        ones: list[int] = []
        put, one, putv = idx.append, ones.append, val.append
        dr, w = o["dice_revealed"], 1 + d["M"]
        for die, camel_shown, value in state.revealed:
            one(dr + die * w)
            one(dr + die * w + value)
            if R <= die < self._first_support:  # the grey die (support dice come after it)
                one(o["grey_die_shown"] + camel_shown - R)
        put(o["pyramid_tiles_left"])
        putv(state.pyramid_tiles_left / rules.pyramid_tiles)
        ls, nv = o["leg_stacks"], len(rules.leg_bet_values)
        for camel, stack in enumerate(state.leg_stacks):
            if stack:
                put(ls + 2 * camel)
                putv(stack[0] / self._max_leg_value)
                put(ls + 2 * camel + 1)
                putv(len(stack) / nv)
        put(o["leg_number"])
        putv(min(state.leg, 20) / 20.0)

        seg = np.zeros(self._dice_end, dtype=np.float32)
        seg[idx] = val
        seg[ones] = 1.0
        return seg[self._dice_start :]
