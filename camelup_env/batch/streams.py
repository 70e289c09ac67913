"""Random streams for the batch core: splitmix64, one 64-bit state per game.

Each game draws its setup, its dice and a random player's moves from streams of its own, so a
game's chance does not depend on the batch size, the thread running it or the other games (the
brief's rule: one random stream per game, never numba's per-thread generator). The constants
are unsigned on purpose: mixing signed and unsigned integers in numba silently gives floats.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S27, _S30, _S31, _S33 = np.uint64(27), np.uint64(30), np.uint64(31), np.uint64(33)


@njit(cache=True, inline="always")
def next_u64(rng, i):
    z = rng[i] + _GAMMA
    rng[i] = z
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def below(rng, i, n):
    """A uniform integer in ``[0, n)`` (31 random bits scaled; the bias is below 1e-9)."""
    return np.int64(((next_u64(rng, i) >> _S33) * np.uint64(n)) >> _S31)


@njit(cache=True)
def draw_below(rng, i, n):
    """A uniform integer in ``[0, n)`` from stream ``i``, for Python callers (the engine's
    random player in :mod:`camelup_env.batch.engine_games` draws as the kernels do)."""
    return below(rng, i, n)


@njit(cache=True)
def seed_streams(rng, seeds):
    """Each game's stream from its seed, mixed so that nearby seeds give unrelated streams."""
    for i in range(seeds.shape[0]):
        rng[i] = np.uint64(seeds[i]) ^ _MIX2
        next_u64(rng, i)
