"""Episode settings: how an episode is rewarded and how long it may run, defined and checked once.

Every environment (``camelup_v0``/``camelup_v1``, the single-agent and vector envs, the learner
loop behind them), the batch core's ``step``, the trainers' configs and the search agents take
the same three settings:

* ``reward_mode``: the terminal reward (:data:`~camelup_env.game.rewards.REWARD_MODES`);
* ``coin_shaping``: a dense reward of this much per coin a seat gains or loses at every step,
  a finite number ``>= 0``;
* ``max_turns``: actions (everyone's, Supercup extra decisions included) before a running
  game is truncated with no terminal reward, a positive whole number or ``None`` (no limit).

:class:`EpisodeSettings` checks them together and :func:`step_rewards` turns one step's coin
changes and final coins into rewards, so a new setting, or a new rule for one, is one edit here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from camelup_env.game.rewards import check_reward_mode, final_rewards_batch

#: The defaults every entry point shares (the environments' documented ones).
DEFAULT_REWARD_MODE = "win"
DEFAULT_COIN_SHAPING = 0.0
DEFAULT_MAX_TURNS = 1000


def check_coin_shaping(value: float) -> float:
    """``value`` as a float if it is a finite number ``>= 0``, else ``ValueError`` naming it."""
    try:
        shaping = float(value)
    except (TypeError, ValueError):
        shaping = math.nan
    if isinstance(value, bool) or not 0 <= shaping < math.inf:  # NaN fails too
        raise ValueError(f"coin_shaping must be a finite number >= 0, got {value!r}")
    return shaping


def check_max_turns(value: int | None) -> int | None:
    """``value`` as an int if it is a positive whole number, ``None`` for no limit, else
    ``ValueError`` naming it."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(
            f"max_turns must be a positive whole number or None (no limit), got {value!r}"
        )
    return int(value)


@dataclass(frozen=True)
class EpisodeSettings:
    """The three settings (module docstring), checked when built: a bad one is a
    ``ValueError`` naming it, before any game is dealt."""

    reward_mode: str = DEFAULT_REWARD_MODE
    coin_shaping: float = DEFAULT_COIN_SHAPING
    max_turns: int | None = DEFAULT_MAX_TURNS

    def __post_init__(self) -> None:
        check_reward_mode(self.reward_mode)
        object.__setattr__(self, "coin_shaping", check_coin_shaping(self.coin_shaping))
        object.__setattr__(self, "max_turns", check_max_turns(self.max_turns))

    @property
    def turn_limit(self) -> int:
        """``max_turns`` as the compiled kernels take it: 0 for no limit."""
        return self.max_turns or 0

    def truncates(self, turns: int) -> bool:
        """A running game that has played ``turns`` actions is truncated now."""
        return self.max_turns is not None and turns >= self.max_turns


def step_rewards(
    settings: EpisodeSettings,
    coin_delta: np.ndarray,
    terminated: np.ndarray,
    final_coins: np.ndarray,
) -> np.ndarray:
    """(N, P) float32 rewards of one step of N games: ``coin_shaping`` times each seat's
    (N, P) coin change, plus the terminal reward of the (N,) ``terminated`` games from their
    (N, P) final coins."""
    rewards = (
        (settings.coin_shaping * coin_delta).astype(np.float32)
        if settings.coin_shaping
        else np.zeros(coin_delta.shape, np.float32)
    )
    if terminated.any():
        rewards[terminated] += final_rewards_batch(final_coins[terminated], settings.reward_mode)
    return rewards
