"""Race odds by Monte Carlo rollouts of dice to the end of the race, or exactly near its end
(:mod:`camelup_env.odds` for the methods)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from camelup_env.game.state import GameState
from camelup_env.odds import race_exact, wanderer
from camelup_env.odds.kernels import _final_ranking, _race_kernel
from camelup_env.odds.lru import LRU
from camelup_env.odds.tables import _mask_of, _position, _tables_of

_race_cache = LRU()
#: Most races one estimate rolls out: its standard error is below 0.0002 there already, and the
#: rollouts' memory grows with the races (10^11 of them was a MemoryError).
MAX_RACE_SAMPLES = 10_000_000


# Race odds ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class RaceOdds:
    """The overall winner and loser (R7.2), per racing camel: a Monte Carlo estimate, or exact
    (``exact``: standard errors 0) near the end of the race or once it is over."""

    winner: np.ndarray
    loser: np.ndarray
    winner_se: np.ndarray
    loser_se: np.ndarray
    n_samples: int
    exact: bool = False


def race_probabilities(
    state: GameState, n_samples: int = 1000, seed: int = 0, exact: bool | None = None
) -> RaceOdds:
    """P(overall winner) and P(overall loser) per racing camel by Monte Carlo rollouts, or
    exactly near the end of the race.

    ``exact=None`` (the default) gives the exact odds
    (:func:`camelup_env.odds.race_exact.exact_race_rates`, SE 0, ``RaceOdds.exact``) where
    :func:`camelup_env.odds.race_exact.near_end` holds, where they cost less than the rollouts,
    and the rollouts elsewhere; ``exact=True`` gives them wherever the rule set allows
    (camels that only move forward), ``exact=False`` never.

    The current leg continues from ``state`` (its tiles stay until it ends), later legs reveal
    ``rules.pyramid_tiles`` of the leg-start dice with no tiles on the track (R6.1, R6.4), until
    the race ends (R5.4, R5.6). The leg-start dice are those of
    :func:`camelup_env.game.setup.leg_start_pyramid`: with Supercup support dice, the 5 racing dice
    plus the support die of the camel that is last when the leg starts (R9.1.1).
    Supercup's optional extra action (R9.1.4: a player puts another support die into the
    pyramid) is a player's choice, not chance, so rollouts never take it.
    Deterministic for a given ``seed``. ``*_se`` are the binomial
    standard errors ``sqrt(p (1 - p) / n)``. A finished race gives its result with SE 0.
    """
    if not 1 <= n_samples <= MAX_RACE_SAMPLES:
        raise ValueError(f"n_samples must be between 1 and {MAX_RACE_SAMPLES:,}, got {n_samples:,}")
    if state.rules.wanderer:  # R14: its own rollouts
        return _race_odds(*wanderer.race_probabilities(state, n_samples, seed))
    if race_exact.exact_applies(state.rules) and (
        exact or (exact is None and race_exact.near_end(state))
    ):
        return exact_odds(race_exact.exact_race_rates(state), n_samples)
    rules = state.rules
    n = rules.n_racing
    board, side, over = _position(state)
    pyramid = tuple(state.pyramid)
    key = (
        rules,
        tuple(board),
        tuple(side),
        pyramid,
        state.pyramid_tiles_left,
        state.game_over,
        n_samples,
        seed,
    )
    found = _race_cache.get(key)
    if found is not None:
        return found
    if state.game_over or over:
        probs = _final_ranking(board, n)
        rates = np.stack((probs[:, 0], probs[:, n - 1]))
        samples = n_samples
    else:
        t = _tables_of(rules)
        wins, lasts, unfinished, _, _ = _race_kernel(
            np.array([board], np.int64),
            _mask_of(pyramid),
            min(state.pyramid_tiles_left, len(pyramid)),
            np.array(side, np.int64),
            t.raw_camel,
            t.raw_value,
            t.raw_n,
            n,
            rules.track_length,
            rules.pyramid_tiles,
            int(n_samples),
            int(seed) & 0xFFFFFFFF,
            10_000,
            t.start_mask,
            t.first_support,
        )
        samples = n_samples - int(unfinished)
        if samples <= 0:
            raise RuntimeError("no rollout finished the race within 10,000 legs")
        rates = np.stack((wins, lasts)) / samples
    odds = _race_odds(rates, samples)
    _race_cache.put(key, odds)
    return odds


def exact_odds(rates: np.ndarray, n_samples: int) -> RaceOdds:
    """RaceOdds of exact ``[winner, loser]`` rates: standard errors 0, ``n_samples`` the samples
    asked for (none drawn)."""
    zero = np.zeros_like(rates)
    rates.setflags(write=False)
    zero.setflags(write=False)
    return RaceOdds(rates[0], rates[1], zero[0], zero[1], n_samples, exact=True)


def _race_odds(rates: np.ndarray, samples: int) -> RaceOdds:
    """RaceOdds from ``[winner, loser]`` rates, with the SE bound ``sqrt(p (1 - p) / n)``."""
    se = np.sqrt(rates * (1.0 - rates) / samples)
    rates.setflags(write=False)  # the rows below are read-only views
    se.setflags(write=False)
    return RaceOdds(rates[0], rates[1], se[0], se[1], samples)
