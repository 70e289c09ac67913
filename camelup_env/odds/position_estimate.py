"""One public position's odds, shared by the observation and the greedy agent: one enumeration
for the leg odds, the landings and a stratified race estimate (:mod:`camelup_env.odds`, "Shared
position odds")."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from camelup_env.game.state import GameState
from camelup_env.odds import race_exact
from camelup_env.odds.kernels import _race_kernel
from camelup_env.odds.leg import (
    _NO_ROWS,
    _leg_cache,
    _leg_entry,
    _leg_kernel_on,
    _leg_key,
    leg_rank_probabilities,
)
from camelup_env.odds.lru import LRU
from camelup_env.odds.race import RaceOdds, _race_odds, exact_odds, race_probabilities
from camelup_env.odds.tables import _position, _tables, _tables_of

_position_cache = LRU()


# One position's odds, shared -----------------------------------------------------------------
#: Default samples of :func:`position_odds`' race estimate (the observation's default).
RACE_SAMPLES = 64
#: The rollouts' seed: the same for every position (common random numbers).
RACE_SEED = 12345
#: Leg-end samples drawn by every enumeration of :func:`position_odds` (more when asked for).
_PICKS = 1024


@dataclass(frozen=True)
class PositionOdds:
    """Everything :func:`position_odds` computes for one public position (arrays read-only)."""

    leg: np.ndarray  # (R, R) exact P(camel ends this leg at rank r), as leg_rank_probabilities
    landings: np.ndarray  # (L + 2,) expected arrivals per space, as expected_landings
    race: RaceOdds  # P(overall winner / loser), the estimate of "Shared position odds"


@dataclass
class _Enumerated:
    """One position's enumeration, and the rollouts done from its leg-end sample so far."""

    leg: np.ndarray
    landings: np.ndarray
    ended: np.ndarray  # (R, 2) P(the race ends inside this leg with the camel first / last)
    picks: np.ndarray  # (P, C) the leg outcome at pick point i (see _pick_points), in i order
    open: np.ndarray  # (P,) 1 where the race goes on from picks[i]
    first_of: np.ndarray  # per rollout from the open picks, in pick order: the winner
    last_of: np.ndarray
    by_samples: dict  # (race_samples, exact) -> PositionOdds
    scenarios: dict = field(default_factory=dict)  # race_samples -> LegScenarios


def _pick_points(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Pick points ``x_0 .. x_{n-1}`` in [0, 1): the base-2 van der Corput sequence (shifted by
    2^-24 off the interval ends), so the first ``N`` points put one point in each of the ``N``
    equal intervals whenever ``N`` is a power of two, and every prefix is well spread. Returned
    sorted, with the sequence index of each sorted point."""
    found = _tables.get(("picks", n))
    if found is None:
        x = np.zeros(n)
        for i in range(n):
            f, k, v = 0.5, i, 0.0
            while k:
                v += f * (k & 1)
                k >>= 1
                f /= 2
            x[i] = v + 2.0**-24
        order = np.argsort(x, kind="stable")
        found = _tables[("picks", n)] = (x[order], order)
    return found


def _picks_for(race_samples: int) -> int:
    """Leg-end samples an enumeration draws for a race estimate of ``race_samples``:
    :data:`_PICKS`, doubled until it covers them (so the estimates of every ``N`` up to it
    share the enumeration)."""
    n_picks = _PICKS
    while n_picks < race_samples:
        n_picks *= 2
    return n_picks


def _enumerate(state: GameState, board: list, side: list, n_picks: int) -> _Enumerated:
    at, order = _pick_points(n_picks)
    probs, landings, _, ended, picks, pick_open = _leg_kernel_on(
        state, board, side, pick_at=at, pick_order=order
    )
    probs.setflags(write=False)
    landings.setflags(write=False)
    return _Enumerated(probs, landings, ended, picks, pick_open, _NO_ROWS, _NO_ROWS, {})


def position_odds(
    state: GameState, race_samples: int = RACE_SAMPLES, exact: bool | None = None
) -> PositionOdds:
    """The leg odds, the expected landings and the race odds of ``state``'s public position,
    from **one** leg enumeration plus rollouts, cached (LRU) by position across steps, seats,
    agents and games.

    The position is the board, the tile sides, the dice left and the reveals left: what every
    odds number depends on, and nothing a seat may not see (R10), so an observer and a greedy
    opponent of the same game share each computation, whatever ``race_samples`` each uses:
    the estimate with ``N`` samples reads the first rollouts of the one with more (module
    docstring, "Shared position odds"). The race estimate is exact where the race ends inside
    the current leg; its error elsewhere is bounded as documented there. Near the end of the
    race it is exact, as :func:`camelup_env.odds.race_probabilities`' (``exact`` means the
    same there). Deterministic: it depends on the position and ``race_samples`` only, not on
    what was computed before.
    """
    if race_samples < 1:
        raise ValueError(f"race_samples must be >= 1, got {race_samples}")
    rules = state.rules
    if rules.wanderer:  # R14: no tiles, so no landings to count
        return PositionOdds(
            leg_rank_probabilities(state),
            np.zeros(rules.last_tile_space + 2),
            race_probabilities(state, race_samples, RACE_SEED),
        )
    board, side, over = _position(state)
    leg_key = _leg_key(state, board, side)
    if state.game_over or over:
        probs, landings = _leg_entry(state, board, side, over)
        n = rules.n_racing
        return PositionOdds(
            probs, landings, _race_odds(np.stack((probs[:, 0], probs[:, n - 1])), race_samples)
        )
    entry = _position_cache.get(leg_key)
    if entry is None or len(entry.open) < race_samples:
        entry = _enumerate(state, board, side, _picks_for(race_samples))
        _position_cache.put(leg_key, entry)
        _leg_cache.put(leg_key, (entry.leg, entry.landings))
    if race_exact.exact_applies(rules) and (
        exact or (exact is None and race_exact.near_end(state))
    ):
        choice = (race_samples, True)
    else:
        choice = (race_samples, False)
    found = entry.by_samples.get(choice)
    if found is None:
        if choice[1]:
            race = exact_odds(race_exact.exact_race_rates(state), race_samples)
        else:
            race = _race_estimate(state, entry, race_samples)
        found = PositionOdds(entry.leg, entry.landings, race)
        entry.by_samples[choice] = found
    return found


def _race_estimate(state: GameState, entry: _Enumerated, n: int) -> RaceOdds:
    """``ended`` plus ``1 / n`` per rollout from the open picks among the first ``n``."""
    rules = state.rules
    n_open = int(entry.open[:n].sum())
    if len(entry.first_of) < n_open:  # roll out (again, from the first: the same draws)
        t = _tables_of(rules)
        starts = entry.picks[np.flatnonzero(entry.open)[:n_open]]
        _, _, unfinished, entry.first_of, entry.last_of = _race_kernel(
            starts,
            0,
            0,
            np.zeros(rules.last_tile_space + 2, np.int64),
            t.raw_camel,
            t.raw_value,
            t.raw_n,
            rules.n_racing,
            rules.track_length,
            rules.pyramid_tiles,
            n_open,
            RACE_SEED,
            10_000,
            t.start_mask,
            t.first_support,
        )
        if unfinished:
            raise RuntimeError("a rollout did not finish the race within 10,000 legs")
    R = rules.n_racing
    rates = entry.ended.T.copy()
    rates[0] += np.bincount(entry.first_of[:n_open], minlength=R) / n
    rates[1] += np.bincount(entry.last_of[:n_open], minlength=R) / n
    np.clip(rates, 0.0, 1.0, out=rates)  # float sums may stray by an ulp
    return _race_odds(rates, n)


@dataclass(frozen=True)
class LegScenarios:
    """Equally likely joint outcomes of one position (:func:`leg_scenarios`), arrays read-only.

    Row ``k`` is one systematic pick of the leg's end and the race played out from it: the
    joint of the leg ranks and the race's winner and loser, which the marginals of
    :class:`PositionOdds` lose (a leg bet and a race card on the same camel pay together)."""

    ranks: np.ndarray  # (N, R) each racing camel's rank when the leg ends, 0 = leading
    winner: np.ndarray  # (N,) the race's overall winner (R7.2)
    loser: np.ndarray  # (N,) the race's overall loser
    lead: np.ndarray  # (N,) the leading racing camel's space when the leg ends


def leg_scenarios(state: GameState, race_samples: int = RACE_SAMPLES) -> LegScenarios | None:
    """The ``race_samples`` leg ends and race results behind :func:`position_odds`' estimate
    with as many samples, one row each (no extra enumeration or rollout: the same picks and
    rollouts, read row by row instead of counted; also near the end of the race, where
    :func:`position_odds` gives the exact marginals: rows are joint outcomes, which those
    cannot give). A pick where the race ends inside the leg is scored on its own board.
    ``None`` where the position has no such sample: a finished race, or the desert wanderer's
    rule set (its odds are rolled out elsewhere). Cached with the position's enumeration
    (read-only arrays): a position's scenarios are asked for once per deal of it by the
    afterstate player's standing."""
    rules = state.rules
    if rules.wanderer or state.game_over:
        return None
    board, side, over = _position(state)
    if over:
        return None
    position_odds(state, race_samples, exact=False)  # the enumeration and its rollouts, cached
    entry = _position_cache.get(_leg_key(state, board, side))
    if entry is None:  # pragma: no cover - position_odds has just stored it
        raise RuntimeError("the position's enumeration left the cache")
    found = entry.scenarios.get(race_samples)
    if found is not None:
        return found
    R = rules.n_racing
    keys = entry.picks[:race_samples, :R]
    ranks = (keys[:, None, :] > keys[:, :, None]).sum(axis=2)
    winner = keys.argmax(axis=1)
    loser = keys.argmin(axis=1)
    still = np.flatnonzero(entry.open[:race_samples])
    winner[still] = entry.first_of[: len(still)]
    loser[still] = entry.last_of[: len(still)]
    lead = keys.max(axis=1) >> 4
    for a in (ranks, winner, loser, lead):
        a.setflags(write=False)
    found = entry.scenarios[race_samples] = LegScenarios(ranks, winner, loser, lead)
    return found
