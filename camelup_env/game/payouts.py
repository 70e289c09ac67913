"""Expected payouts of the betting tiles and cards, given outcome probabilities.

The one home of each scoring expectation (each formula is the engine's scoring rule, in
expectation): the odds module, the per-action values (:mod:`camelup_env.odds.action_values`, which
the
greedy agent and the observation use) and the user interfaces all call these.

* :func:`leg_tile_ev` - a leg-bet tile (R6.2): its value if the camel leads the leg, +1 if
  second (0 for the Cup's 0-valued tiles, C5), -1 otherwise;
* :func:`top_leg_bet_evs` - the same for the top tile of every colour's stack;
* :func:`loser_card_ev` - a leg loser card (R14.4): R6.2 counted from the last camel;
* :func:`position_tile_ev` - a position tile (R9.3): +3 if the camel ends the leg exactly at
  that position, else -1;
* :func:`race_card_ev` - a race-betting card put on top of a pile (R7.2), with a model of the
  hidden colours of the cards below it;
* :func:`pile_evs` - every card already on a pile, colours known (the referee's view).

``probs`` is always a ``[camel, rank]`` array of leg rank probabilities (rank 0 leads), as
:func:`camelup_env.odds.leg_rank_probabilities` returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

import numpy as np


def leg_tile_ev(probs: np.ndarray, camel: int, value: int) -> float:
    """Expected payout of a leg-bet tile of ``value`` on ``camel`` (R6.2):
    ``value * P(first) + P(second) - (1 - P(first) - P(second))``; a Cup tile of value 0 (a
    fourth or later bet on the camel, C5) pays nothing on the second camel either."""
    p1, p2 = probs[camel, 0], probs[camel, 1]
    return float(value * p1 + min(value, 1) * p2 - (1.0 - p1 - p2))


def loser_card_ev(probs: np.ndarray, camel: int, value: int) -> float:
    """Expected payout of a leg loser card of ``value`` on ``camel`` (R14.4): ``value`` if it
    ends the leg last, +1 if second-last, -1 otherwise: :func:`leg_tile_ev` with the ranks
    read from the back."""
    return leg_tile_ev(probs[:, ::-1], camel, value)


def top_leg_bet_evs(probs: np.ndarray, leg_stacks: Sequence[tuple[int, ...]]) -> np.ndarray:
    """:func:`leg_tile_ev` of the top tile of each colour's stack; NaN where it is empty."""
    out = np.full(len(leg_stacks), np.nan)
    for camel, stack in enumerate(leg_stacks):
        if stack:
            out[camel] = leg_tile_ev(probs, camel, stack[0])
    return out


def position_tile_ev(probs: np.ndarray, position: int, camel: int) -> float:
    """Expected payout of a position tile (R9.3): +3 if ``camel`` ends the leg exactly at
    ``position`` (1 = leading), else -1: ``3 P - (1 - P)``."""
    p = float(probs[camel, position - 1])
    return 3.0 * p - (1.0 - p)


@overload
def race_card_ev(
    p: float, pile: tuple[tuple[int, int], ...], seat: int, payouts: tuple[int, ...]
) -> float: ...
@overload
def race_card_ev(
    p: np.ndarray, pile: tuple[tuple[int, int], ...], seat: int, payouts: tuple[int, ...]
) -> np.ndarray: ...
def race_card_ev(
    p: float | np.ndarray, pile: tuple[tuple[int, int], ...], seat: int, payouts: tuple[int, ...]
) -> float | np.ndarray:
    """Expected coins of ``seat`` putting a card of probability ``p`` on top of ``pile`` (R7.2).

    The card is paid by its rank among the *correct* cards: ``payouts[min(X, len - 1)]`` where
    ``X`` is the number of correct cards already below it, and -1 if the camel is wrong. Only
    the owners of those cards are visible (R10), not their colours. Model: each other player
    ``o`` with ``j`` hidden cards on the pile holds a card of the same camel there with
    probability ``1 - (1 - p) ** j`` (players back a camel in proportion to its current odds,
    and hold one card per colour); players are independent, so ``X`` is Poisson-binomial.
    ``seat``'s own earlier cards are known and never show the same camel (one card per colour).
    Coins lost to the 0 floor (R8.1) are ignored.

    ``p`` may be a float or an array (one value per camel); the result has its shape.
    """
    scalar = np.ndim(p) == 0
    q0 = np.atleast_1d(np.asarray(p, dtype=float))
    hidden: dict[int, int] = {}
    for owner, _camel in pile:
        if owner != seat:
            hidden[owner] = hidden.get(owner, 0) + 1
    # dist[c, x] = P(X = x correct hidden cards below ours | camel c is the right one), one
    # Poisson-binomial convolution per other player, for every camel at once.
    dist = np.ones((len(q0), 1))
    for j in hidden.values():
        q = (1.0 - (1.0 - q0) ** j)[:, None]
        grown = np.zeros((len(q0), dist.shape[1] + 1))
        grown[:, :-1] += dist * (1.0 - q)
        grown[:, 1:] += dist * q
        dist = grown
    last = len(payouts) - 1
    paid = dist @ np.array([payouts[min(x, last)] for x in range(dist.shape[1])], dtype=float)
    out = q0 * paid - (1.0 - q0)
    return float(out[0]) if scalar else out


def pile_evs(
    pile: Sequence[tuple[int, int]], p: np.ndarray, payouts: tuple[int, ...], num_players: int
) -> np.ndarray:
    """Each seat's expected coins from the cards on one race pile (R7.2), every colour known:
    a card on camel ``c`` pays ``payouts[k]`` if ``c`` is the pile's camel, ``k`` being the
    cards on ``c`` below it, else -1. ``p[c]``: the chance that ``c`` is the pile's camel (the
    overall winner or loser). Coins lost to the 0 floor (R8.1) are ignored."""
    out = np.zeros(num_players)
    below: dict[int, int] = {}
    for owner, camel in pile:
        k = below.get(camel, 0)
        q = float(p[camel])
        out[owner] += q * payouts[min(k, len(payouts) - 1)] - (1.0 - q)
        below[camel] = k + 1
    return out
