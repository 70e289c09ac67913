"""Terminal rewards and win shares from final coins: the one home of the reward modes.

Every environment (``camelup_v0``/``camelup_v1``, the single-agent env, the batch core, the
learner loop, the search agents) rewards the end of a race with :func:`final_rewards_batch`, and
:func:`check_reward_mode` is the one place a mode is validated, so a new mode is one edit here.
With k tied winners (most coins, R7.3) among n players:

* ``"win"`` (zero-sum): each winner ``+1/k``, each other player ``-1/(n-k)``; an n-way tie 0;
* ``"rank"`` (zero-sum): rank r (0 = most coins) maps to ``1 - 2 r / (n - 1)``; tied players
  share the mean of the values of the ranks they occupy;
* ``"coins"``: ``(own coins - best opponent's coins) / 10`` (not zero-sum).

:func:`win_shares` is how evaluations count a game: 1/k to each of the k winners.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: The terminal reward modes (module docstring).
REWARD_MODES = ("win", "rank", "coins")


def check_reward_mode(mode: str) -> str:
    """``mode`` if it is one of :data:`REWARD_MODES`, else ``ValueError`` naming them."""
    if mode not in REWARD_MODES:
        raise ValueError(f"reward_mode must be one of {', '.join(REWARD_MODES)}, got {mode!r}")
    return mode


def win_shares(coins: np.ndarray) -> np.ndarray:
    """(N, P) each seat's share of the win from final coins: 1/k for each of the k seats with
    the most coins (R7.3: they all win), 0 for the others; how evaluations count a tie."""
    coins = np.asarray(coins, np.int64)
    winner = coins == coins.max(axis=1, keepdims=True)
    return np.where(winner, 1.0 / winner.sum(axis=1, keepdims=True), 0.0)


def final_rewards_batch(coins: np.ndarray, mode: str) -> np.ndarray:
    """(N, P) float64 rewards per seat from (N, P) final coins (module docstring)."""
    coins = np.asarray(coins, np.int64)
    n = coins.shape[1]
    if mode == "win":
        best = coins.max(axis=1, keepdims=True)
        winner = coins == best
        k = winner.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore"):
            out = np.where(winner, 1.0 / k, -1.0 / (n - k))
        out[(k == n)[:, 0]] = 0.0
        return out
    if mode == "rank":
        above = (coins[:, None, :] > coins[:, :, None]).sum(axis=2)
        tied = (coins[:, None, :] == coins[:, :, None]).sum(axis=2)
        mean_rank = above + (tied - 1) / 2.0
        return 1.0 - 2.0 * mean_rank / (n - 1)
    if mode == "coins":
        others = np.where(np.eye(n, dtype=bool)[None], np.iinfo(np.int64).min, coins[:, None, :])
        return (coins - others.max(axis=2)) / 10.0
    check_reward_mode(mode)
    raise AssertionError(f"reward mode {mode!r} has no formula")


def final_rewards(coins: Sequence[int], mode: str) -> list[float]:
    """One game's rewards per seat (the same formula as :func:`final_rewards_batch`)."""
    return [float(x) for x in final_rewards_batch(np.asarray([coins]), mode)[0]]
