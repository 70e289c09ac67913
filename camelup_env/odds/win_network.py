"""Each seat's chance to win read by a network from every seat's own observation.

The equity model (:mod:`camelup_env.odds.win`) has three coefficients and sees the players
only through what they hold now. This model is learned from the batch core's games
(:mod:`training.odds.win_network`): one small network scores each seat from that seat's own
``camelup_v1`` observation (the exact leg odds, the race estimate and the action values are in
it), the same network for every seat, and a softmax over the seats turns the scores into win
probabilities. A seat's own race cards are in its own observation, so the model reads the
referee's view - every seat's hidden cards count, each in its owner's score - and serves the
luck corrections (:func:`camelup_env.batch.win_chances.luck_covariates`), not a seat's public
view.

A file is an ``.npz`` of :mod:`camelup_env.odds.network_file` (plain arrays, nothing that runs):
``meta`` (a JSON string: preset, players, the observer's settings), ``mean`` and ``scale``
(the inputs' normalisation) and the layers ``w0, b0, w1, b1, ...``; ReLU between layers, one
score out. Inference is numpy: a referee needs no torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from camelup_env.game.rules import RuleSet
from camelup_env.odds.network_file import forward, read_network, save_network, softmax

#: the observer settings a network file must name (``camelup_v1``'s)
OBSERVER_KEYS = ("odds_features", "race_samples", "action_values")


@dataclass(frozen=True, eq=False)
class WinNetwork:
    """A per-seat scoring network (module docstring). It reads observations, which this
    floor cannot make: :func:`camelup_env.batch.win_chances.network_chances` gives a state's."""

    preset: str
    players: int
    observer: dict[str, Any]
    mean: np.ndarray
    scale: np.ndarray
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]

    def probabilities(self, obs: np.ndarray) -> np.ndarray:
        """Win probabilities ``(B, seats)`` from every seat's observation ``(B, seats, F)``."""
        return softmax(forward(obs, self.mean, self.scale, self.layers)[..., 0])

    def check_rules(self, rules: RuleSet) -> None:
        if rules.preset != self.preset or rules.num_players != self.players:
            raise ValueError(
                f"this win network reads {self.preset} games of {self.players} players, "
                f"not {rules.preset} of {rules.num_players}"
            )


def save_win_network(
    path: Path,
    preset: str,
    players: int,
    observer: dict[str, Any],
    mean: np.ndarray,
    scale: np.ndarray,
    layers: Sequence[tuple[np.ndarray, np.ndarray]],
) -> None:
    """Write a network file (module docstring); :func:`load_win_network` reads it back."""
    meta = {"preset": preset, "players": players, "observer": observer}
    save_network(path, meta, mean, scale, layers)


def load_win_network(path: Path) -> WinNetwork:
    """A :class:`WinNetwork` from ``path``, checked; a one-line ValueError naming the file and
    what is wrong otherwise. Plain arrays only: a file cannot run code."""
    meta, mean, scale, layers = read_network(path, "a win-network")
    if not (
        meta is not None
        and isinstance(meta.get("preset"), str)
        and isinstance(meta.get("players"), int)
        and isinstance(meta.get("observer"), dict)
        and set(meta["observer"]) == set(OBSERVER_KEYS)
    ):
        raise ValueError(
            f"{path}: meta must be JSON with preset, players and observer "
            f"({', '.join(OBSERVER_KEYS)})"
        )
    width = layers[-1][0].shape[1]
    if width != 1:
        raise ValueError(f"{path}: the last layer must give one score, not {width}")
    return WinNetwork(meta["preset"], meta["players"], meta["observer"], mean, scale, layers)
