"""The observation dict of the environments, whose feature vector is built on first read."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


class LazyObservation(dict):
    """The observation dict whose float vector is only computed when first read.

    Scripted agents read only ``action_mask``; building the feature vector (it includes leg and
    race odds) for them would double a tournament's cost. Every read path - ``obs[key]``,
    ``get``, ``in``, iteration, ``keys/values/items``, ``copy``, ``len``, pickling - behaves
    as for a plain dict holding both arrays.
    """

    __slots__ = ("_compute",)

    def __init__(self, action_mask: np.ndarray, compute: Callable[[], np.ndarray]) -> None:
        super().__init__(action_mask=action_mask)
        self._compute: Callable[[], np.ndarray] | None = compute

    def _fill(self) -> None:
        if self._compute is not None:
            compute, self._compute = self._compute, None
            features = compute()
            mask = dict.pop(self, "action_mask")
            dict.__setitem__(self, "observation", features)
            dict.__setitem__(self, "action_mask", mask)

    def __getitem__(self, key: str) -> np.ndarray:
        if key == "observation":
            self._fill()
        return dict.__getitem__(self, key)

    def get(self, key: str, default: object = None) -> object:
        if key == "observation":
            self._fill()
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        return key == "observation" or dict.__contains__(self, key)

    def __len__(self) -> int:
        return dict.__len__(self) + (self._compute is not None)  # the features, once computed

    def __iter__(self):
        self._fill()
        return dict.__iter__(self)

    def keys(self):
        self._fill()
        return dict.keys(self)

    def values(self):
        self._fill()
        return dict.values(self)

    def items(self):
        self._fill()
        return dict.items(self)

    def copy(self) -> dict:
        self._fill()
        return dict(dict.items(self))

    def __eq__(self, other: object) -> bool:
        self._fill()
        return dict.__eq__(self, other)

    __hash__ = None

    def __repr__(self) -> str:
        self._fill()
        return dict.__repr__(self)

    def __reduce__(self):
        self._fill()
        return (dict, (dict(dict.items(self)),))
