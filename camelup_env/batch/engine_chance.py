"""The compiled batch core playing the engine's chance: the same seed deals and rolls the same game.

:class:`~camelup_env.batch.games.BatchGames` draws each game's setup and dice from its own
splitmix64 stream: fast, reproducible, but not the engine's draws, so a batch game seeded ``s``
is not the game ``camelup_v1`` or ``SingleAgentEnv`` play after ``reset(seed=s)``.
:class:`EngineChanceGames` keeps the compiled rules and observation and only moves the chance to
a ``numpy.random.Generator`` per game, drawn exactly as :class:`~camelup_env.batch.engine_games.
EngineGames` draws it: the setup is :func:`~camelup_env.game.setup.new_game` on the generator
(written into the game's row), and a pyramid tile's die is the engine's one uniform draw
(:func:`~camelup_env.game.engine.apply_action`: the integer part of ``x * dice left`` picks the die
among the dice left in ascending order, the fraction its face), handed to the kernels as a given
roll. A vectorised environment built on it therefore plays, game for game, what the one-game
environment seeded alike plays, at the batch core's speed: the Python work is one setup per
episode and one draw per die rolled, a few in a hundred actions.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from camelup_env.batch.convert import from_states
from camelup_env.batch.games import BatchGames, StepResult, seed_array
from camelup_env.game.actions import action_table
from camelup_env.game.legality import IllegalActionError
from camelup_env.game.rules import RuleSet
from camelup_env.game.setup import new_game
from camelup_env.game.state import GameState


class EngineChanceGames(BatchGames):
    """``n`` games on the batch core whose setups and dice are the engine's for their seeds."""

    def __init__(
        self,
        rules: RuleSet,
        n: int,
        seed: int | Sequence[int] | np.ndarray = 0,
        first_player: int | Sequence[int] = 0,
        threads: int = 1,
    ) -> None:
        self.chance = [np.random.default_rng(int(s)) for s in seed_array(seed, n)]
        self._pyramid_action = action_table(rules).pyramid
        super().__init__(rules, n, seed=seed, first_player=first_player, threads=threads)

    @classmethod
    def from_states(
        cls, states: Sequence[GameState], seed: int | Sequence[int] | np.ndarray = 0
    ) -> EngineChanceGames:
        """A batch holding ``states``, their dice drawn by generators seeded ``seed + i``."""
        games = cast(EngineChanceGames, super().from_states(states, seed))
        games._pyramid_action = action_table(games.rules).pyramid
        games.chance = [np.random.default_rng(int(s)) for s in seed_array(seed, len(states))]
        return games

    def take(self, indices: Sequence[int] | np.ndarray) -> EngineChanceGames:
        """The games at ``indices`` as a new batch; each keeps a copy of its generator, so
        the copy rolls the same dice (:meth:`copy` is all of them)."""
        idx = np.asarray(indices, dtype=np.int64).reshape(-1)
        games = cast(EngineChanceGames, super().take(idx))
        games._pyramid_action = self._pyramid_action
        games.chance = [copy.deepcopy(self.chance[i]) for i in idx]
        return games

    def copy(self) -> EngineChanceGames:
        return self.take(np.arange(len(self)))

    def reset(
        self,
        indices: Sequence[int] | np.ndarray | None = None,
        seed: int | Sequence[int] | np.ndarray | None = None,
        first_player: int | Sequence[int] = 0,
    ) -> None:
        """Set up the games at ``indices`` (all by default) as the engine does from ``seed``
        (game ``j`` of ``indices`` the j-th seed; without one, from each game's generator)."""
        idx = (
            np.arange(len(self))
            if indices is None
            else np.asarray(indices, dtype=np.int64).reshape(-1)
        )
        if idx.size and (idx.min() < 0 or idx.max() >= len(self)):
            raise ValueError(f"game indices must be in 0..{len(self) - 1}")
        first = np.broadcast_to(np.asarray(first_player, dtype=np.int64), idx.shape)
        seeds = None if seed is None else seed_array(seed, idx.size)
        states = []
        for j, i in enumerate(idx):
            if seeds is not None:
                self.chance[i] = np.random.default_rng(int(seeds[j]))
            states.append(new_game(self.rules, seed=self.chance[i], first_player=int(first[j])))
        if states:
            self.state.rows[idx] = from_states(states).rows

    def step(
        self, actions: Sequence[int] | np.ndarray, rolls: np.ndarray | None = None, **kwargs: Any
    ) -> StepResult:
        """As :meth:`BatchGames.step`; the dice of the games taking a pyramid tile are drawn
        from their generators (unless ``rolls`` gives them). A step refused for an illegal
        action leaves every generator as it was, as it leaves every game."""
        if rolls is not None:
            return super().step(actions, rolls, **kwargs)
        drawn, before = self._draw_rolls(np.asarray(actions))
        try:
            return super().step(actions, drawn, **kwargs)
        except (IllegalActionError, ValueError):
            for i, state in before.items():
                self.chance[i].bit_generator.state = state
            raise

    def step_unchecked(
        self, actions: Sequence[int] | np.ndarray, rolls: np.ndarray | None = None, **kwargs: Any
    ) -> StepResult:
        """As :meth:`BatchGames.step_unchecked`; the dice drawn as :meth:`step` draws them."""
        if rolls is None:
            rolls, _ = self._draw_rolls(np.asarray(actions))
        return super().step_unchecked(actions, rolls, **kwargs)

    def _draw_rolls(self, actions: np.ndarray) -> tuple[np.ndarray, dict[int, Any]]:
        """(N, 3) the engine's draw for every game taking a pyramid tile that it may take,
        -1s elsewhere (an illegal take draws nothing, as in the engine); and the states of
        the generators that drew, from before the draw."""
        s = self.state
        rolls = np.full((len(self), 3), -1, np.int64)
        takes = (actions == self._pyramid_action) & (s.pyramid != 0) & (s.pyramid_left > 0)
        dice_faces = self.rules.dice
        before = {}
        for i in np.flatnonzero(takes & (s.game_over == 0)).tolist():
            before[i] = self.chance[i].bit_generator.state
            mask = int(s.pyramid[i])
            left = [d for d in range(self.rules.n_dice) if mask >> d & 1]
            x = self.chance[i].random() * len(left)
            k = int(x)
            faces = dice_faces[left[k]]
            camel, value = faces[int((x - k) * len(faces))]
            rolls[i] = (left[k], camel, value)
        return rolls, before
