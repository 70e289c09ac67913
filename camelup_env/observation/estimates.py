"""The estimated slices, the same numbers for every observer: the odds (``leg_rank_prob`` ..
``race_loser_prob``) and greedy's ``action_values``.

Two modes, fixed by the observer's ``action_values`` flag:

* with action values, the odds are :func:`camelup_env.odds.position_odds` of the position
  (``race_samples`` samples of its race estimate): the numbers a greedy opponent uses, computed
  once per position for both;
* without them, the ``camelup_v0`` numbers, bit for bit: exact leg odds and ``race_samples``
  plain Monte Carlo rollouts (:func:`camelup_env.odds.race_probabilities`) seeded from a hash of
  the track position (:func:`v0_race_seed`).

Either way an observation is a deterministic function of the state, and the odds read only the
public track (no seat's hidden cards). After the race is over the odds slices show the final
result: the actual ranking with probability 1.
"""

from __future__ import annotations

import zlib

import numpy as np

from camelup_env.game.movement import ranking
from camelup_env.game.payouts import leg_tile_ev
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState

#: Coins per unit of the ``action_values`` slice (values are divided by it, then clipped to ±1:
#: a bound no value reaches in practice, race bets pay at most 8).
ACTION_VALUE_SCALE = 10.0
#: How the ``action_values`` slice values tile placements: the one-enumeration approximation
#: (:mod:`camelup_env.odds.action_values`; exact up to the first landing on the tile, mean error
#: about
#: 0.01 coin), at every point of a leg. ``GreedyAgent(tile_odds="approx")`` maximises the slice
#: exactly; greedy's default switches to the exact values late in a leg.
OBSERVED_TILE_ODDS = "approx"
#: ``race_samples`` of the ``camelup_v0`` observation (``action_values=False``) by default.
V0_RACE_SAMPLES = 200


def race_samples_of(race_samples: int | None, action_values: bool) -> int:
    """An observer's race samples: the given number, or the default of its mode."""
    if race_samples is None:
        if action_values:
            from camelup_env import odds  # lazy: numba is only needed for odds

            race_samples = odds.RACE_SAMPLES
        else:
            race_samples = V0_RACE_SAMPLES
    if int(race_samples) < 1:
        raise ValueError(f"race_samples must be >= 1, got {race_samples}")
    return int(race_samples)


def v0_race_seed(state: GameState) -> int:
    """The seed of the ``camelup_v0`` race estimate: a hash of the public track position, the
    same in every process, so that the estimate is a deterministic function of the state."""
    position = (
        tuple(sorted(state.stacks.items())),
        tuple(sorted(state.tiles.items())),
        state.pyramid,
        state.pyramid_tiles_left,
    )
    return zlib.crc32(repr(position).encode())


def odds_slices(state: GameState, rules: RuleSet, race_samples: int, shared: bool) -> np.ndarray:
    """``leg_rank_prob``, ``leg_bet_ev``, ``leg_bet_available``, ``race_winner_prob`` and
    ``race_loser_prob`` of ``state``, one after the other (``float32``); ``shared`` picks the
    mode (see the module docstring)."""
    from camelup_env import odds  # lazy: numba is only needed with odds features

    R = rules.n_racing
    vec = np.zeros(R * R + 4 * R, dtype=np.float32)
    if state.game_over:
        order = ranking(state.stacks, R)
        for rank, camel in enumerate(order):
            vec[camel * R + rank] = 1.0
        vec[R * R + 2 * R + order[0]] = 1.0
        vec[R * R + 3 * R + order[-1]] = 1.0
        return vec
    if shared:
        estimate = odds.position_odds(state, race_samples)
        probs, race = estimate.leg, estimate.race
    else:
        probs = odds.leg_rank_probabilities(state)
        race = odds.race_probabilities(  # camelup_v0's rollouts, also near the end
            state, n_samples=race_samples, seed=v0_race_seed(state), exact=False
        )
    top = float(max(rules.leg_bet_values))
    vec[: R * R] = probs.reshape(-1)
    for camel, stack in enumerate(state.leg_stacks):
        if stack:
            vec[R * R + camel] = leg_tile_ev(probs, camel, stack[0]) / top
            vec[R * R + R + camel] = 1.0
    vec[R * R + 2 * R : R * R + 3 * R] = race.winner
    vec[R * R + 3 * R :] = race.loser
    return vec


def action_value_slice(state: GameState, seat: int, race_samples: int) -> np.ndarray:
    """``action_values`` of ``seat``: :func:`camelup_env.odds.action_values.action_values` scaled
    (what ``seat`` may see only, R10; the odds behind them are cached per position)."""
    from camelup_env.odds.action_values import action_values

    values = action_values(state, seat, race_samples=race_samples, tile_odds=OBSERVED_TILE_ODDS)
    return np.clip(values / ACTION_VALUE_SCALE, -1.0, 1.0).astype(np.float32)
