"""What one seat observes (docs/rules.md R10), as a flat ``float32`` vector with named slices.

An :class:`Observer` is built once per rule set (OpenSpiel style). ``observer.observe(state,
seat)`` writes everything ``seat`` may know into one vector; ``observer.layout`` maps each slice
name to its ``(start, stop)`` in that vector and ``observer.shapes`` to its shape before
flattening (row-major). ``observer.low`` / ``observer.high`` bound every entry, for a
``gymnasium.spaces.Box``.

Seats are **relative**: relative seat 0 is the observing seat, then the others in turn order
(relative seat ``k`` is absolute seat ``(seat + k) % n``). Every per-seat slice and every "owner"
one-hot uses relative seats, so one policy can play any seat.

Symbols: ``C`` camels (racing first, then crazy), ``R`` racing camels, ``L`` track length, ``n``
players, ``D`` dice (racing dice, then grey, then Supercup support dice), ``M`` highest die
number, ``P`` position tiles (Supercup), ``X`` crazy camels,
``U`` distinct leg-bet values (descending; classic 5,3,2), ``K = n * R`` race-bet card slots per
pile. The slices, in order (those marked † only exist for some rule sets):

==========================  ==========  ===========================================================
slice                       shape       meaning
==========================  ==========  ===========================================================
``camel_space``             (C, L)      one-hot of the space 1..L each camel stands on (all zero
                                        once it has crossed the finish line)
``camel_progress``          (C,)        space / L, clipped to [-0.5, 1.5] (past the line: > 1 or
                                        <= 0)
``camel_height``            (C,)        height in its stack / (C - 1); 0 = bottom (R0.2)
``camel_crossed``           (C, 2)      [crossed the line forward (R5.4), carried backward (R5.6)]
``racing_rank``             (R, R)      one-hot [camel, rank] of the current ranking (R0.4)
``tiles``                   (T - 1, n   per space 2..T (``rules.last_tile_space``: L, or 28 in the
                            + 2)        Cup, C6): owner's relative seat one-hot (n), then
                                        [+1 side, -1 side] (R4.2, R5.3)
``dice_revealed``           (D, 1 + M)  per die: [revealed this leg, one-hot of the number shown
                                        1..M] (R4.3)
``grey_die_shown`` †        (X,)        colour the grey die showed, one-hot over crazy camels
                                        (second edition, once revealed this leg)
``pyramid_tiles_left``      (1,)        pyramid tiles left / pyramid tiles per leg (R6.1)
``leg_stacks``              (R, 2)      per racing camel: [top leg-bet tile value / highest value
                                        (0 if empty), tiles left / tiles per stack] (R4.1)
``leg_number``              (1,)        min(leg, 20) / 20
``coins``                   (n,)        per relative seat: coins clipped to [-100, 100] / 20 (R8.2:
                                        public; below 0 only without the floor, C10)
``coin_margin``             (n,)        per relative seat: (its coins - own coins) / 20, clipped
                                        to [-5, 5] (0 for self)
``leg_bets_held``           (n, R, U)   per relative seat and racing camel: leg-bet tiles held of
                                        each value / tiles of that value per stack (at most 1:
                                        the Cup's endless 0-valued tiles, C5)
``pyramid_tiles_held``      (n,)        pyramid tiles held this leg / pyramid tiles per leg
``tile_on_track``           (n,)        1 if the seat's desert/spectator tile is on the track
``race_cards_in_hand``      (n,)        race-betting cards still in hand / R (a count only: the
                                        colours of other seats' cards are hidden, R10)
``is_current``              (n,)        one-hot: the seat to act
``is_leg_starter``          (n,)        one-hot: the seat holding the starting-player marker
``partner`` †               (n, n)      per relative seat: its partner's relative seat one-hot
                                        (only with partnerships, R9.4)
``partner_card_available`` † (n,)       1 if the seat's partnership card is still available
``winner_pile``             (K, n)      overall-winner pile, one row per card slot in placing order
                                        (first placed first): the card owner's relative seat
                                        one-hot; empty slots are all zero. **Never a colour.**
``loser_pile``              (K, n)      the overall-loser pile, likewise (R4.4, R10)
``own_cards``               (R, 4)      the observer's own card of each racing colour: [in hand,
                                        on the winner pile, on the loser pile, its slot in that
                                        pile / (K - 1)]
``support_dice`` †          (R, 2)      per racing camel's support die: [in the pyramid, in its
                                        crater] (neither = on the pedestal; Supercup module 1,
                                        R9.1; craters only with the extra action, R9.1.4)
``extra_pending`` †         (1,)        1 while the current player decides the optional extra
                                        action (R9.1.4; only with ``extra_action``)
``photographer`` †          (n,)        relative seat one-hot of the photographer-tile holder
                                        (all zero: the tile is free; module 2, R9.2)
``camera_space`` †          (L,)        one-hot of the space 1..L the camera points at
``position_bets`` †         (P, 2 + n   per position tile (rows in ``rules.position_tiles``
                            + R)        order: 2nd, 3rd, 4th, 5th): [taken, owner's relative seat
                                        one-hot (n), camel of the covered leg-bet tile one-hot
                                        (R), covered tile value / highest leg-bet value]
                                        (module 3, R9.3)
``wanderer`` †              (L,)        one-hot of the space 1..L the desert wanderer lies on
                                        (the Persian tutorial, R14.1)
``loser_cards`` †           (n, R)      per relative seat and racing camel: the value of the leg
                                        loser card it played this leg / highest loser value
                                        (R14.4)
``loser_card_value`` †      (R,)        per racing camel: what its loser card would pay if
                                        played now / highest loser value (0 once it is out)
``leg_rank_prob`` ‡         (R, R)      exact P(camel ends this leg at rank r) [camel, rank]
``leg_bet_ev`` ‡            (R,)        expected coins of taking the top leg-bet tile / highest
                                        leg-bet value (0 where the stack is empty)
``leg_bet_available`` ‡     (R,)        1 where the colour's leg-bet stack is not empty
``race_winner_prob`` ‡      (R,)        Monte Carlo P(camel wins the race)
``race_loser_prob`` ‡       (R,)        Monte Carlo P(camel is last at the end of the race)
``action_values`` §         (A,)        per action index: the immediate expected coins of that
                                        action for the observing seat / 10, clipped to [-1, 1];
                                        0 for every action the seat may not take
==========================  ==========  ===========================================================

‡ only with ``odds_features=True`` (from :mod:`camelup_env.odds`; they depend on the public track
only). After the race is over these slices show the final result (the actual ranking with
probability 1). With ``action_values=True`` the leg and race odds are
:func:`camelup_env.odds.position_odds` of the position (``race_samples`` samples of its race
estimate; the numbers a greedy opponent uses, computed once per position for both). With
``action_values=False`` they are the ``camelup_v0`` numbers, bit for bit: exact leg odds and
``race_samples`` plain Monte Carlo rollouts (:func:`camelup_env.odds.race_probabilities`) seeded
from a hash of the track position. Either way an observation is a deterministic function of the
state.

§ only with ``action_values=True`` (``A = len(action_table(rules))``, in action-index order, like
the action mask, so ``Partner`` actions name absolute seats): the values of
:func:`camelup_env.action_values.action_values` for the observing seat, the numbers the greedy
agent maximises, so that a policy can represent greedy as an argmax over the legal actions and
learn corrections. Tile placements are valued by the one-enumeration approximation
(``tile_odds="approx"``, exact up to the first landing on the tile, mean error about 0.01
coin; greedy's default switches to the exact values late in a leg, where they cost one
enumeration per space: ``GreedyAgent(tile_odds="approx")`` maximises the slice exactly).
Divided by 10 coins and clipped to [-1, 1] (a bound no value reaches in
practice: race bets pay at most 8). When it is another seat's turn the seat's values are those of
its next normal turn in this position. They use only what the seat may see (R10).

What is hidden (R10): the colour of every race-betting card of another seat, and which colours
another seat still holds. :func:`public_view` removes exactly that from a :class:`GameState`.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from operator import attrgetter

import numpy as np

from camelup_env.actions import action_table
from camelup_env.movement import ranking
from camelup_env.payouts import leg_tile_ev
from camelup_env.rules import RuleSet
from camelup_env.state import HIDDEN, GameState

#: Marker for a hidden value in :func:`public_view` (a card's colour, a hand).

_UNSEEN = object()  # no state seen yet: differs from every field value


def _snapshot(value: object) -> object:
    """What an Observer part remembers of the fields it read: dicts (the track, the tiles) are
    copied, so a later comparison never looks at a dict that has changed since."""
    if type(value) is dict:
        return dict(value)
    if type(value) is tuple and any(type(v) is dict for v in value):
        return tuple(dict(v) if type(v) is dict else v for v in value)
    return value


def public_view(state: GameState, seat: int | None) -> GameState:
    """A copy of ``state`` with what ``seat`` may not see removed (R10).

    * every race-bet card of another seat has camel ``-1`` (owner and pile order stay visible);
    * ``hands`` of every other seat are ``-1`` (unknown; how many cards a seat still holds is
      ``n_racing`` minus its cards in the piles).

    ``seat=None`` hides every seat's cards (a spectator's view). Everything else is public. The
    view is for reading only: the engine cannot continue a game from it.
    """
    # Built from copy() rather than dataclasses.replace: every opponent move of a training game
    # makes one view, and replace() (which re-runs __init__ on 22 fields) cost three times more.
    view = state.copy()
    if state.winner_pile:
        view.winner_pile = tuple(c if c[0] == seat else (c[0], HIDDEN) for c in state.winner_pile)
    if state.loser_pile:
        view.loser_pile = tuple(c if c[0] == seat else (c[0], HIDDEN) for c in state.loser_pile)
    view.hands = tuple(h if s == seat else HIDDEN for s, h in enumerate(state.hands))
    return view


def v0_race_seed(state: GameState) -> int:
    """The seed of the ``camelup_v0`` race estimate (``action_values=False``): a hash of the
    public track position, the same in every process, so that the estimate is a deterministic
    function of the state."""
    position = (
        tuple(sorted(state.stacks.items())),
        tuple(sorted(state.tiles.items())),
        state.pyramid,
        state.pyramid_tiles_left,
    )
    return zlib.crc32(repr(position).encode())


#: Coins per unit of the ``action_values`` slice (values are divided by it, then clipped to ±1).
ACTION_VALUE_SCALE = 10.0
#: How the ``action_values`` slice values tile placements: the one-enumeration approximation
#: (see :mod:`camelup_env.action_values`), at every point of a leg.
OBSERVED_TILE_ODDS = "approx"
#: ``race_samples`` of the ``camelup_v0`` observation (``action_values=False``) by default.
V0_RACE_SAMPLES = 200


class Observer:
    """Builds the observation vector of any seat for one rule set (see the module docstring).

    Args:
        rules: the rule set.
        odds_features: add the ``leg_*`` / ``race_*`` odds slices (needs numba; the first call
            compiles, later calls are cached).
        race_samples: samples of the race estimate (``race_winner_prob``, ``race_loser_prob``
            and the race bets' values). Default: :data:`camelup_env.odds.RACE_SAMPLES` with
            ``action_values``, else ``V0_RACE_SAMPLES`` (the ``camelup_v0`` default).
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
        if race_samples is None:
            if action_values:
                from camelup_env import odds  # lazy: numba is only needed for odds

                race_samples = odds.RACE_SAMPLES
            else:
                race_samples = V0_RACE_SAMPLES
        self.race_samples = int(race_samples)
        if self.race_samples < 1:
            raise ValueError(f"race_samples must be >= 1, got {self.race_samples}")
        r = rules
        C, R, L, n, D = r.n_camels, r.n_racing, r.track_length, r.num_players, r.n_dice
        X = len(r.crazy_colours)
        M = max(
            max(r.racing_die_faces),
            max(r.grey_die_values) if X else 0,
            max(r.support_die_faces) if r.support_dice else 0,
        )
        U = sorted(set(r.leg_bet_values), reverse=True)
        K = n * R
        self._dims = dict(C=C, R=R, L=L, n=n, D=D, X=X, M=M, U=len(U), K=K)
        self._value_col = {v: i for i, v in enumerate(U)}
        self._inv_mult = [1.0 / r.leg_bet_values.count(v) for v in U]
        spec: list[tuple[str, tuple[int, ...], float, float]] = [
            ("camel_space", (C, L), 0, 1),
            ("camel_progress", (C,), -0.5, 1.5),
            ("camel_height", (C,), 0, 1),
            ("camel_crossed", (C, 2), 0, 1),
            ("racing_rank", (R, R), 0, 1),
            ("tiles", (r.last_tile_space - 1, n + 2), 0, 1),
            ("dice_revealed", (D, 1 + M), 0, 1),
        ]
        if X:
            spec.append(("grey_die_shown", (X,), 0, 1))
        spec += [
            ("pyramid_tiles_left", (1,), 0, 1),
            ("leg_stacks", (R, 2), 0, 1),
            ("leg_number", (1,), 0, 1),
            ("coins", (n,), 0 if r.money_floor else -5, 5),
            ("coin_margin", (n,), -5, 5),
            ("leg_bets_held", (n, R, len(U)), 0, 1),
            ("pyramid_tiles_held", (n,), 0, 1),
            ("tile_on_track", (n,), 0, 1),
            ("race_cards_in_hand", (n,), 0, 1),
            ("is_current", (n,), 0, 1),
            ("is_leg_starter", (n,), 0, 1),
        ]
        if r.partnerships:
            spec += [("partner", (n, n), 0, 1), ("partner_card_available", (n,), 0, 1)]
        spec += [
            ("winner_pile", (K, n), 0, 1),
            ("loser_pile", (K, n), 0, 1),
            ("own_cards", (R, 4), 0, 1),
        ]
        P = len(r.position_tiles)
        if r.support_dice:
            spec.append(("support_dice", (R, 2), 0, 1))
        if r.extra_action:
            spec.append(("extra_pending", (1,), 0, 1))
        if r.photographer:
            spec += [("photographer", (n,), 0, 1), ("camera_space", (L,), 0, 1)]
        if r.position_bets:
            spec.append(("position_bets", (P, 2 + n + R), 0, 1))
        if r.wanderer:
            spec.append(("wanderer", (L,), 0, 1))
        if r.leg_cards:
            spec += [("loser_cards", (n, R), 0, 1), ("loser_card_value", (R,), 0, 1)]
        self._dims.update(P=P)
        self._first_support = r.first_support_die
        self._position_row = {pos: i for i, pos in enumerate(r.position_tiles)}
        if odds_features:
            spec += [
                ("leg_rank_prob", (R, R), 0, 1),
                ("leg_bet_ev", (R,), -1.0 / max(r.leg_bet_values), 1),
                ("leg_bet_available", (R,), 0, 1),
                ("race_winner_prob", (R,), 0, 1),
                ("race_loser_prob", (R,), 0, 1),
            ]
        if action_values:
            self._n_actions = len(action_table(r))
            spec.append(("action_values", (self._n_actions,), -1, 1))
        self.layout: dict[str, tuple[int, int]] = {}
        self.shapes: dict[str, tuple[int, ...]] = {}
        lows, highs = [], []
        start = 0
        for name, shape, lo, hi in spec:
            size = int(np.prod(shape))
            self.layout[name] = (start, start + size)
            self.shapes[name] = shape
            lows.append(np.full(size, lo, dtype=np.float32))
            highs.append(np.full(size, hi, dtype=np.float32))
            start += size
        self.size = start
        self.low = np.concatenate(lows)
        self.high = np.concatenate(highs)
        self._o = {name: a for name, (a, _) in self.layout.items()}
        self._max_leg_value = float(max(r.leg_bet_values))
        self._kdiv = 1.0 / (K - 1) if K > 1 else 0.0
        self._supercup = r.support_dice or r.extra_action or r.photographer or r.position_bets
        # The seat-independent ("absolute") vector, kept up to date part by part, followed by
        # the observing seat's own block (coin margins, own cards, action values): observe().
        a = self.size + n + 4 * R
        self._seat_block = (
            self.size,
            self.size + n,
            a,
            a + (self._n_actions if action_values else 0),
        )
        self._src = np.zeros(self._seat_block[3], dtype=np.float32)
        self._make_views()
        self._parts = self._build_parts()
        self._seen: list[object] = [_UNSEEN] * len(self._parts)
        self._margin_memo: list[tuple | None] = [None] * n
        self._cards_memo: list[tuple | None] = [None] * n
        self._perm = [self._seat_permutation(seat) for seat in range(n)]

    def _make_views(self) -> None:
        """The memoryviews observe() writes through (not picklable: rebuilt on unpickling)."""
        self._m = memoryview(self._src)
        self._zeros = memoryview(np.zeros(self.size, dtype=np.float32))

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

        How: the Observer keeps one *absolute* vector, laid out like an observation but with
        absolute seats where the documented slices have relative ones, and leaving out the two
        slices that depend on who looks (``coin_margin``, ``own_cards``), which follow it in a
        block rewritten for the observing seat. Each part of the absolute vector is rewritten
        only when the state fields it encodes differ from the last state seen (one step usually
        changes one or two of them). A seat's observation is then one gather through a
        precomputed index array that maps relative seats to absolute ones and reads the two
        seat-dependent slices from the block. Observing states in any order is correct; in game
        order it is cheapest. (Entries are written through memoryviews: far cheaper than numpy
        item or slice assignment for the few dozen scattered entries of one step.)
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
        a, b, c, d = self._seat_block
        m[a:b] = self._margins(state, seat)
        m[b:c] = self._own_cards(state, seat)
        if self.action_values:
            m[c:d] = self._action_values(state, seat)
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
        """``action_values`` of ``seat``: scaled :func:`camelup_env.action_values.action_values`
        (the odds behind them are cached per position in :mod:`camelup_env.odds`)."""
        from camelup_env.action_values import action_values

        values = action_values(
            state, seat, race_samples=self.race_samples, tile_odds=OBSERVED_TILE_ODDS
        )
        return np.clip(values / ACTION_VALUE_SCALE, -1.0, 1.0).astype(np.float32)

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

        Along every seat axis, relative seat ``k`` reads absolute seat ``(seat + k) % n``;
        ``coin_margin`` and ``own_cards`` read the seat block after the absolute vector.
        """
        n = self._dims["n"]
        order = [(seat + k) % n for k in range(n)]
        perm = np.arange(self.size)
        a, b, c, _ = self._seat_block
        blocks = [("coin_margin", a), ("own_cards", b)]
        if self.action_values:
            blocks.append(("action_values", c))
        for name, start in blocks:
            lo, hi = self.layout[name]
            perm[lo:hi] = np.arange(start, start + hi - lo)
        for name, axis, first in self._seat_axes():
            a, b = self.layout[name]
            idx = perm[a:b].reshape(self.shapes[name])  # a view: edits land in perm
            sel = [slice(None)] * idx.ndim
            sel[axis] = slice(first, first + n)
            idx[tuple(sel)] = np.take(idx[tuple(sel)], order, axis=axis)
        return perm

    def _seat_axes(self) -> list[tuple[str, int, int]]:
        """(slice, axis, first index) of every run of ``n`` seat entries in the layout."""
        per_seat = [
            "coins",
            "leg_bets_held",
            "pyramid_tiles_held",
            "tile_on_track",
            "race_cards_in_hand",
            "is_current",
            "is_leg_starter",
            "partner",
            "partner_card_available",
            "photographer",
            "loser_cards",
        ]
        axes = [(name, 0, 0) for name in per_seat if name in self.layout]
        axes += [("tiles", 1, 0), ("winner_pile", 1, 0), ("loser_pile", 1, 0)]
        if "partner" in self.layout:
            axes.append(("partner", 1, 0))
        if "position_bets" in self.layout:
            axes.append(("position_bets", 1, 1))
        return axes

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
        """``leg_rank_prob`` .. ``race_loser_prob``, from the track, tiles, dice and leg-bet
        stacks."""
        from camelup_env import odds  # lazy: numba is only needed with odds features

        R = self.rules.n_racing
        vec = np.zeros(R * R + 4 * R, dtype=np.float32)
        if state.game_over:
            order = ranking(state.stacks, R)
            for rank, camel in enumerate(order):
                vec[camel * R + rank] = 1.0
            vec[R * R + 2 * R + order[0]] = 1.0  # race_winner_prob
            vec[R * R + 3 * R + order[-1]] = 1.0  # race_loser_prob
        else:
            if self.action_values:  # one computation per position, shared with greedy
                shared = odds.position_odds(state, self.race_samples)
                probs, race = shared.leg, shared.race
            else:  # camelup_v0's numbers, bit for bit (see the module docstring)
                probs = odds.leg_rank_probabilities(state)
                race = odds.race_probabilities(
                    state, n_samples=self.race_samples, seed=v0_race_seed(state)
                )
            vec[: R * R] = probs.reshape(-1)
            ev = vec[R * R : R * R + R]
            avail = vec[R * R + R : R * R + 2 * R]
            for camel, stack in enumerate(state.leg_stacks):
                if stack:
                    ev[camel] = leg_tile_ev(probs, camel, stack[0]) / self._max_leg_value
                    avail[camel] = 1.0
            vec[R * R + 2 * R : R * R + 3 * R] = race.winner
            vec[R * R + 3 * R : R * R + 4 * R] = race.loser
        start = self._o["leg_rank_prob"]
        self._src[start : start + vec.size] = vec


class LazyObservation(dict):
    """The observation dict whose float vector is only computed when first read.

    Scripted agents read only ``action_mask``; building the feature vector (it includes leg and
    race odds) for them would double a tournament's cost. Every read path - ``obs[key]``,
    ``get``, ``in``, iteration, ``keys/values/items``, ``copy``, ``len``, pickling - behaves
    as for a plain dict holding both arrays.
    """

    __slots__ = ("_compute",)

    def __init__(self, action_mask: np.ndarray, compute: Callable[[], np.ndarray]) -> None:
        super().__init__(action_mask=action_mask)
        self._compute: Callable[[], np.ndarray] | None = compute

    def _fill(self) -> None:
        if self._compute is not None:
            compute, self._compute = self._compute, None
            features = compute()
            mask = dict.pop(self, "action_mask")
            dict.__setitem__(self, "observation", features)
            dict.__setitem__(self, "action_mask", mask)

    def __getitem__(self, key: str) -> np.ndarray:
        if key == "observation":
            self._fill()
        return dict.__getitem__(self, key)

    def get(self, key: str, default: object = None) -> object:
        if key == "observation":
            self._fill()
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        return key == "observation" or dict.__contains__(self, key)

    def __len__(self) -> int:
        return dict.__len__(self) + (self._compute is not None)  # the features, once computed

    def __iter__(self):  # type: ignore[override]
        self._fill()
        return dict.__iter__(self)

    def keys(self):  # type: ignore[override]
        self._fill()
        return dict.keys(self)

    def values(self):  # type: ignore[override]
        self._fill()
        return dict.values(self)

    def items(self):  # type: ignore[override]
        self._fill()
        return dict.items(self)

    def copy(self) -> dict:  # type: ignore[override]
        self._fill()
        return dict(dict.items(self))

    def __eq__(self, other: object) -> bool:
        self._fill()
        return dict.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        self._fill()
        return dict.__repr__(self)

    def __reduce__(self):
        self._fill()
        return (dict, (dict(dict.items(self)),))
