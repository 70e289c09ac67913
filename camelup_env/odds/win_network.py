"""Each seat's chance to win read by a network from every seat's own observation.

The equity model (:mod:`camelup_env.odds.win`) has three coefficients and sees the players
only through what they hold now. This model is learned from the batch core's games
(:mod:`training.win_network`): one small network scores each seat from that seat's own
``camelup_v1`` observation (the exact leg odds, the race estimate and the action values are in
it), the same network for every seat, and a softmax over the seats turns the scores into win
probabilities. A seat's own race cards are in its own observation, so the model reads the
referee's view - every seat's hidden cards count, each in its owner's score - and serves the
luck corrections (:func:`camelup_env.batch.win_chances.luck_covariates`), not a seat's public
view.

A file is an ``.npz`` read with ``allow_pickle=False`` (plain arrays, nothing that runs):
``meta`` (a JSON string: preset, players, the observer's settings), ``mean`` and ``scale``
(the inputs' normalisation) and the layers ``w0, b0, w1, b1, ...``; ReLU between layers, one
score out. Inference is numpy: a referee needs no torch.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from camelup_env.game.rules import RuleSet

#: the observer settings a network file must name (``camelup_v1``'s)
OBSERVER_KEYS = ("odds_features", "race_samples", "action_values")
#: the most layers and the widest layer a file may hold (a shipped one has 3 and 256)
MAX_LAYERS, MAX_WIDTH = 8, 2048


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
        h = (np.asarray(obs, np.float32) - self.mean) / self.scale
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < len(self.layers) - 1:
                h = np.maximum(h, 0.0)
        z = h[..., 0] - h[..., 0].max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

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
    arrays: dict[str, np.ndarray] = {
        "meta": np.array(json.dumps(meta)),
        "mean": np.asarray(mean, np.float32),
        "scale": np.asarray(scale, np.float32),
    }
    for i, (w, b) in enumerate(layers):
        arrays[f"w{i}"], arrays[f"b{i}"] = np.asarray(w, np.float32), np.asarray(b, np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        np.savez_compressed(f, **arrays)  # type: ignore[arg-type]


def load_win_network(path: Path) -> WinNetwork:
    """A :class:`WinNetwork` from ``path``, checked; a one-line ValueError naming the file and
    what is wrong otherwise. Plain arrays only: a file cannot run code."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError) as exc:
        raise ValueError(f"{path}: not a win-network file ({exc})") from None
    meta = _meta(path, arrays)
    count = sum(1 for k in arrays if k.startswith("w"))
    if not 1 <= count <= MAX_LAYERS:
        raise ValueError(f"{path}: a win network has 1 to {MAX_LAYERS} layers, not {count}")
    layers = []
    width = None
    for i in range(count):
        w, b = arrays.get(f"w{i}"), arrays.get(f"b{i}")
        if w is None or b is None or w.ndim != 2 or b.shape != (w.shape[1],):
            raise ValueError(f"{path}: layer {i} must be a matrix w{i} and a vector b{i}")
        if max(w.shape) > MAX_WIDTH or (width is not None and w.shape[0] != width):
            raise ValueError(f"{path}: layer {i}'s shape {w.shape} does not follow the last")
        width = w.shape[1]
        layers.append((_finite(path, f"w{i}", w), _finite(path, f"b{i}", b)))
    if width != 1:
        raise ValueError(f"{path}: the last layer must give one score, not {width}")
    inputs = layers[0][0].shape[0]
    mean, scale = arrays.get("mean"), arrays.get("scale")
    if mean is None or scale is None or mean.shape != (inputs,) or scale.shape != (inputs,):
        raise ValueError(f"{path}: mean and scale must be vectors of the {inputs} inputs")
    if not (np.asarray(scale) > 0).all():
        raise ValueError(f"{path}: every scale must be positive")
    return WinNetwork(
        meta["preset"],
        meta["players"],
        meta["observer"],
        _finite(path, "mean", mean),
        _finite(path, "scale", scale),
        tuple(layers),
    )


def _meta(path: Path, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    raw = arrays.get("meta")
    try:
        meta = json.loads(str(raw[()])) if raw is not None and raw.ndim == 0 else None
    except ValueError:
        meta = None
    if not (
        isinstance(meta, dict)
        and isinstance(meta.get("preset"), str)
        and isinstance(meta.get("players"), int)
        and isinstance(meta.get("observer"), dict)
        and set(meta["observer"]) == set(OBSERVER_KEYS)
    ):
        raise ValueError(
            f"{path}: meta must be JSON with preset, players and observer "
            f"({', '.join(OBSERVER_KEYS)})"
        )
    return meta


def _finite(path: Path, name: str, a: np.ndarray) -> np.ndarray:
    if a.dtype.kind != "f" or not np.isfinite(a).all():
        raise ValueError(f"{path}: {name} must hold finite floats")
    return a.astype(np.float32)
