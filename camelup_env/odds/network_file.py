"""Small networks as files that cannot run code: plain arrays and a JSON header in one ``.npz``.

The learned models of this package (the win network, :mod:`camelup_env.odds.win_network`; the
afterstate values, :mod:`agents.afterstate_network`) are small fully connected networks read by
numpy, so a referee or a bot needs no torch. A file holds ``meta`` (a JSON string: what the
network reads and gives), ``mean`` and ``scale`` (the inputs' normalisation) and the layers
``w0, b0, w1, b1, ...`` with ReLU between them. It is read with ``allow_pickle=False`` and every
array is checked (shape, finite floats, sizes bounded), so a stranger's file can only be refused
with a one-line error naming the file and what is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: the most layers and the widest layer a file may hold
MAX_LAYERS, MAX_WIDTH = 8, 2048

Layers = tuple[tuple[np.ndarray, np.ndarray], ...]


def forward(x: np.ndarray, mean: np.ndarray, scale: np.ndarray, layers: Layers) -> np.ndarray:
    """The network's outputs of inputs ``x`` (..., inputs): normalised, then each layer, ReLU
    between them."""
    h = (np.asarray(x, np.float32) - mean) / scale
    for i, (w, b) in enumerate(layers):
        h = h @ w + b
        if i < len(layers) - 1:
            h = np.maximum(h, 0.0)
    return h


def softmax(scores: np.ndarray) -> np.ndarray:
    """Chances from scores along the last axis (the seats'), stable for large scores."""
    z = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def save_network(
    path: Path,
    meta: dict[str, Any],
    mean: np.ndarray,
    scale: np.ndarray,
    layers: Sequence[tuple[np.ndarray, np.ndarray]],
) -> None:
    """Write a network file (module docstring); :func:`read_network` reads it back."""
    arrays: dict[str, np.ndarray] = {
        "meta": np.array(json.dumps(meta)),
        "mean": np.asarray(mean, np.float32),
        "scale": np.asarray(scale, np.float32),
    }
    for i, (w, b) in enumerate(layers):
        arrays[f"w{i}"], arrays[f"b{i}"] = np.asarray(w, np.float32), np.asarray(b, np.float32)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Whole or not at all: a reader beside the writer (a curve beside its training run) never
    # opens half a file.
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **arrays)  # type: ignore[arg-type]
    tmp.replace(path)


def read_network(
    path: Path, what: str
) -> tuple[dict[str, Any] | None, np.ndarray, np.ndarray, Layers]:
    """The header (None when it is not a JSON object), normalisation and layers of the
    network file ``path``, each array checked; a one-line ValueError that names the file,
    ``what`` it should be (``"a win-network"``) and what is wrong otherwise. The caller checks
    the header's fields and the outputs' width."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError) as exc:
        raise ValueError(f"{path}: not {what} file ({exc})") from None
    count = sum(1 for k in arrays if k.startswith("w"))
    if not 1 <= count <= MAX_LAYERS:
        raise ValueError(f"{path}: {what} file has 1 to {MAX_LAYERS} layers, not {count}")
    layers = []
    width = None
    for i in range(count):
        w, b = arrays.get(f"w{i}"), arrays.get(f"b{i}")
        if w is None or b is None or w.ndim != 2 or b.shape != (w.shape[1],):
            raise ValueError(f"{path}: layer {i} must be a matrix w{i} and a vector b{i}")
        if max(w.shape) > MAX_WIDTH or (width is not None and w.shape[0] != width):
            raise ValueError(f"{path}: layer {i}'s shape {w.shape} does not follow the last")
        width = w.shape[1]
        layers.append((finite(path, f"w{i}", w), finite(path, f"b{i}", b)))
    inputs = layers[0][0].shape[0]
    mean, scale = arrays.get("mean"), arrays.get("scale")
    if mean is None or scale is None or mean.shape != (inputs,) or scale.shape != (inputs,):
        raise ValueError(f"{path}: mean and scale must be vectors of the {inputs} inputs")
    if not (np.asarray(scale) > 0).all():
        raise ValueError(f"{path}: every scale must be positive")
    raw = arrays.get("meta")
    try:
        meta = json.loads(str(raw[()])) if raw is not None and raw.ndim == 0 else None
    except ValueError:
        meta = None
    return (
        meta if isinstance(meta, dict) else None,
        finite(path, "mean", mean),
        finite(path, "scale", scale),
        tuple(layers),
    )


def finite(path: Path, name: str, a: np.ndarray) -> np.ndarray:
    """``a`` as float32, if it holds finite floats; a ValueError naming ``path`` otherwise."""
    if a.dtype.kind != "f" or not np.isfinite(a).all():
        raise ValueError(f"{path}: {name} must hold finite floats")
    return a.astype(np.float32)
