"""Terminal rewards for a whole batch of final coins at once.

The reference formula is :func:`camelup_env.camelup_v1.final_rewards` (one game, Python lists);
this is the same formula over an (N, P) array with numpy, tested equal to it on random coins
(``tests/test_batch_core.py``).
"""

from __future__ import annotations

import numpy as np

from camelup_env.camelup_v1 import REWARD_MODES


def win_shares(coins: np.ndarray) -> np.ndarray:
    """(N, P) each seat's share of the win from final coins: 1/k for each of the k seats with
    the most coins (R7.3: they all win), 0 for the others; how evaluations count a tie."""
    coins = np.asarray(coins, np.int64)
    winner = coins == coins.max(axis=1, keepdims=True)
    return np.where(winner, 1.0 / winner.sum(axis=1, keepdims=True), 0.0)


def final_rewards_batch(coins: np.ndarray, mode: str) -> np.ndarray:
    """(N, P) float64 rewards per seat from (N, P) final coins (``camelup_v1``'s Rewards)."""
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
    raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {mode!r}")
