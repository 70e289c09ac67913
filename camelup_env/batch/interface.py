"""``Games``: what a batch of games offers, whoever plays it.

Two classes play N games behind one interface: :class:`~camelup_env.batch.games.BatchGames`
(the compiled core, for the presets it plays) and
:class:`~camelup_env.batch.engine_games.EngineGames` (the Python engine, for every preset).
The learner-seat loop (:mod:`camelup_env.batch.learner`) and everything above it are written
against this protocol only, so a new implementation (another backend, a recorder) is checked
by the type checker against the same list, not discovered by a failing run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from camelup_env.batch.games import StepResult
from camelup_env.game.episode import DEFAULT_COIN_SHAPING, DEFAULT_REWARD_MODE
from camelup_env.game.rules import RuleSet
from camelup_env.game.state import GameState


@runtime_checkable
class Games(Protocol):
    """N games of one rule set, stepped together (see :class:`BatchGames` for each member's
    meaning; :class:`EngineGames` follows it)."""

    rules: RuleSet

    def __len__(self) -> int: ...

    @property
    def num_actions(self) -> int: ...

    @property
    def current_player(self) -> np.ndarray: ...

    @property
    def game_over(self) -> np.ndarray: ...

    @property
    def coins(self) -> np.ndarray: ...

    def reset(
        self,
        indices: Sequence[int] | np.ndarray | None = None,
        seed: int | Sequence[int] | np.ndarray | None = None,
        first_player: int | Sequence[int] = 0,
    ) -> None: ...

    def legal_action_mask(self) -> np.ndarray: ...

    def random_actions(
        self, streams: np.ndarray, indices: Sequence[int] | np.ndarray | None = None
    ) -> np.ndarray: ...

    def step(
        self,
        actions: Sequence[int] | np.ndarray,
        rolls: np.ndarray | None = None,
        *,
        autoreset: bool = False,
        max_turns: int | None = None,
        reward_mode: str = DEFAULT_REWARD_MODE,
        coin_shaping: float = DEFAULT_COIN_SHAPING,
    ) -> StepResult:
        """Every game's seat to move plays its action, each checked first."""
        ...

    def step_unchecked(
        self,
        actions: Sequence[int] | np.ndarray,
        rolls: np.ndarray | None = None,
        *,
        autoreset: bool = False,
        max_turns: int | None = None,
        reward_mode: str = DEFAULT_REWARD_MODE,
        coin_shaping: float = DEFAULT_COIN_SHAPING,
    ) -> StepResult:
        """:meth:`step` for callers holding this position's legal masks (an implementation
        whose step checks for free may check here too)."""
        ...

    def to_states(self, indices: Sequence[int] | np.ndarray | None = None) -> list[GameState]: ...
