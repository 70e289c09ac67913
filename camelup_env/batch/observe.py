"""Batched observations: the ``camelup_v1`` observation of every game of a :class:`BatchGames`,
computed in compiled code with threads across games.

``BatchObserver(rules, odds_features, race_samples, action_values).observe(games, seats)`` is
an (N, size) ``float32`` array whose row ``i`` equals
``Observer(rules, ...).observe(state_i, seats[i])`` for the state of game ``i``: the same
layout (the Observer's own, :attr:`BatchObserver.layout`), the same odds and action values.

* the exact leg odds come from the reference enumeration kernel
  (``odds.kernels._leg_kernel``), called once per game: equal to the Observer's bit for bit;
* the race estimate replays the reference's draws: with ``action_values`` the rollouts of
  :func:`camelup_env.odds.position_odds` (the enumeration's open leg-end picks, one common
  seed), without them the ``camelup_v0`` plain rollouts seeded by a hash of the position
  (:func:`camelup_env.observation.v0_race_seed`, computed in Python from each game's state:
  the one step here that is not compiled, and only in that legacy mode). Near the end of the
  race ``position_odds`` gives exact race odds (:func:`camelup_env.odds.race_exact.near_end`):
  for those games this calls the reference in Python and passes its odds in. Either way an
  observation is a deterministic function of the state;
* everything else (encodings, leg-bet and race-card values, action values) is compiled here
  (:mod:`camelup_env.batch.observation_kernels`) and equal to the Observer's up to float32
  rounding.

Instead of the Observer's caches by position (LRU, shared by every game of a process), a
:class:`BatchObserver` remembers per row the last position whose odds it computed: a bet leaves
the position unchanged, so the next observation of that game reuses its odds, and any other
position is computed (one enumeration and at most ``race_samples`` rollouts), in parallel on
as many of numba's threads as the games' ``threads`` setting. The odds are a function of the
position alone, so the memo never changes a result. It reads only what the observing seat may
see (R10).
"""

from __future__ import annotations

import numpy as np

from camelup_env.batch import observation_kernels as ok
from camelup_env.batch.arrays import rule_vector
from camelup_env.batch.convert import to_state
from camelup_env.batch.games import BatchGames
from camelup_env.game.rules import RuleSet
from camelup_env.observation import Observer, v0_race_seed
from camelup_env.odds import race_exact
from camelup_env.odds.position_estimate import RACE_SEED, _pick_points, _picks_for
from camelup_env.odds.tables import _tables_of


class BatchObserver:
    """The :class:`~camelup_env.observation.Observer` of a rule set, for whole batches.

    Args are the Observer's (same defaults); ``observer`` is the Observer itself (its
    ``layout``, ``shapes``, ``low``/``high``, ``metadata`` describe the batched rows too).
    Classic and second edition only, as the batch core. It holds the per-row memo of the
    last odds computed, so one instance serves one caller at a time.
    """

    def __init__(
        self,
        rules: RuleSet,
        odds_features: bool = True,
        race_samples: int | None = None,
        action_values: bool = True,
    ) -> None:
        rule_vector(rules)  # refuses, saying why, what the batch core does not play
        self.rules = rules
        self.observer = Observer(
            rules,
            odds_features=odds_features,
            race_samples=race_samples,
            action_values=action_values,
        )
        ob = self.observer
        spec = np.full(len(ok.SPEC), -1, np.int64)
        for name, (start, _) in ob.layout.items():
            spec[ok.SPEC.index(name)] = start
        tables = _tables_of(rules)
        spec[ok.DICE_WIDTH] = ob.shapes["dice_revealed"][1]
        spec[ok.N_VALUES] = ob.shapes["leg_bets_held"][2]
        spec[ok.FIRST_SUPPORT] = rules.first_support_die
        spec[ok.ODDS_MODE] = (
            ok.ODDS_SHARED if action_values else ok.ODDS_V0 if odds_features else ok.ODDS_NONE
        )
        spec[ok.RACE_SAMPLES] = ob.race_samples
        spec[ok.START_MASK] = tables.start_mask
        spec[ok.RACE_SUPPORT] = tables.first_support
        spec[ok.RACE_SEED] = RACE_SEED
        self._spec = spec
        # The Observer's own leg-bet columns (value -> column, 1 / tiles of that value).
        self._value_col = np.array([ob._value_col[v] for v in rules.leg_bet_values], np.int64)
        self._inv_mult = np.array(ob._inv_mult, np.float64)
        self._tables = (
            tables.face_camel,
            tables.face_value,
            tables.face_weight,
            tables.n_faces,
            tables.raw_camel,
            tables.raw_value,
            tables.raw_n,
        )
        if spec[ok.ODDS_MODE] == ok.ODDS_SHARED:
            self._picks = _pick_points(_picks_for(ob.race_samples))
        else:
            self._picks = (np.empty(0), np.empty(0, np.int64))
        self._memo = self._empty_memo(0)

    def _empty_memo(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per row: the last position whose odds were computed there (its key: board, tile
        sides, dice mask, reveals left, seed; -1s match no position) and those odds (leg ranks,
        arrivals, race)."""
        rules, racing = self.rules, self.rules.n_racing
        width = ok.position_key_width(rules.n_camels, rules.track_length)
        return (
            np.full((n, width), -1, np.int64),
            np.zeros((n, racing, racing)),
            np.zeros((n, rules.track_length + 2)),
            np.zeros((n, 2, racing)),
        )

    @property
    def size(self) -> int:
        return self.observer.size

    @property
    def layout(self) -> dict[str, tuple[int, int]]:
        return self.observer.layout

    def observe(
        self, games: BatchGames, seats: np.ndarray | int, indices: np.ndarray | None = None
    ) -> np.ndarray:
        """(N, size) ``float32``: row ``i`` is game ``i`` seen from ``seats[i]`` (one int: the
        same seat in every game). Given ``indices``, only those games: row ``j`` is game
        ``indices[j]`` seen from ``seats[j]``."""
        if games.rules != self.rules:
            raise ValueError("the games are played under other rules than this observer's")
        n = len(games)
        idx = np.arange(n) if indices is None else np.asarray(indices, dtype=np.int64).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise ValueError(f"game indices must be in 0..{n - 1}")
        seat_arr = np.broadcast_to(np.asarray(seats, np.int64), idx.shape).copy()
        if seat_arr.size and (seat_arr.min() < 0 or seat_arr.max() >= self.rules.num_players):
            raise ValueError(f"seats must be in 0..{self.rules.num_players - 1}")
        seeds = np.zeros(n, np.int64)
        if self._spec[ok.ODDS_MODE] == ok.ODDS_V0:
            for i in idx[games.state.game_over[idx] == 0]:
                seeds[i] = v0_race_seed(to_state(games.state, int(i)))
        exact_race, exact_rows = self._exact_race(games, idx)
        if len(self._memo[0]) != n:
            self._memo = self._empty_memo(n)
        out = np.zeros((idx.size, self.size), np.float32)
        ok.observe_games.run(
            games.threads,  # the games' setting (BatchGames: why one thread)
            games.state.rows,
            games.params,
            idx,
            seat_arr,
            self._spec,
            self._value_col,
            self._inv_mult,
            *self._tables,
            *self._picks,
            seeds,
            exact_race,
            exact_rows,
            *self._memo,
            out,
        )
        return out

    def _exact_race(self, games: BatchGames, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per game, the exact race odds ``position_odds`` uses near the end of the race
        (:func:`camelup_env.odds.race_exact.near_end`), and 1 where it uses them; computed here,
        in Python, by the reference itself (cached by position)."""
        rules, n = self.rules, len(games)
        exact_race = np.zeros((n, 2, rules.n_racing))
        exact_rows = np.zeros(n, np.int64)
        if self._spec[ok.ODDS_MODE] == ok.ODDS_SHARED and race_exact.exact_applies(rules):
            lead = games.state.camel[idx, : rules.n_racing].max(axis=1) >> 4
            near = (games.state.game_over[idx] == 0) & (lead >= race_exact.near_end_space(rules))
            for i in idx[near]:
                exact_race[i] = race_exact.exact_race_rates(to_state(games.state, int(i)))
                exact_rows[i] = 1
        return exact_race, exact_rows


def observe(
    games: BatchGames,
    seats: np.ndarray | int,
    odds_features: bool = True,
    race_samples: int | None = None,
    action_values: bool = True,
) -> np.ndarray:
    """:meth:`BatchObserver.observe` with an observer built for this call (build a
    :class:`BatchObserver` once to observe many batches)."""
    return BatchObserver(games.rules, odds_features, race_samples, action_values).observe(
        games, seats
    )
