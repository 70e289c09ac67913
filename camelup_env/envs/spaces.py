"""The masked observation every camelup environment can hand out, and the mask's dtypes.

PettingZoo's classic games put the legal actions inside the observation, as a dict
``{"observation", "action_mask"}`` whose mask is an ``int8`` 0/1 ``Box``: ``camelup_v1`` does the
same, and the libraries that wrap a PettingZoo env read it there (TorchRL's
``PettingZooWrapper(use_mask=True)``, Tianshou's and RLlib's ``PettingZooEnv``). The Gymnasium
envs hand out ``bool`` masks - ``info["action_mask"]``, ``action_masks()``, the vector env's
batch, and the mask of their ``dict_observation`` - which is what sb3-contrib's ``MaskablePPO``,
a CleanRL loop's ``torch.where`` and TorchRL's ``MaskedCategorical`` take (the last refuses an
``int8`` mask; a ``bool`` ``Box`` becomes a ``bool`` spec in TorchRL's ``GymEnv``). One space
builder serves both, so the two observations differ only in that dtype. The keys may be
renamed for a library that looks elsewhere: Tianshou's masked algorithms read ``obs.obs`` and
``obs.mask`` (``dict_observation=("obs", "mask")``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from gymnasium import spaces

from camelup_env.observation import Observer

#: dtype of the PettingZoo env's ``"action_mask"`` (PettingZoo's convention)
PETTINGZOO_MASK_DTYPE = np.int8
#: dtype of every mask a Gymnasium env hands out, in its observation or beside it
GYMNASIUM_MASK_DTYPE = np.bool_
#: the keys of the vector and of the mask in a dict observation (PettingZoo's)
KEYS = ("observation", "action_mask")


def vector_space(observer: Observer) -> spaces.Box:
    """The flat observation vector of ``observer``: ``float32``, bounded entry by entry."""
    return spaces.Box(observer.low, observer.high, dtype=np.float32)


def masked_observation_space(
    observer: Observer,
    num_actions: int,
    mask_dtype: type[np.generic] = PETTINGZOO_MASK_DTYPE,
    keys: tuple[str, str] = KEYS,
) -> spaces.Dict:
    """An agent's observation with its legal actions: ``"observation"`` (:func:`vector_space`)
    and ``"action_mask"`` (0/1 of ``mask_dtype``, all zero unless the agent is to act), or
    the two under ``keys``."""
    vector_key, mask_key = keys
    return spaces.Dict(
        {
            vector_key: vector_space(observer),
            # Box takes bool (a bool Box), though its annotation names numbers only
            mask_key: spaces.Box(0, 1, shape=(num_actions,), dtype=mask_dtype),  # type: ignore[arg-type]
        }
    )


def masked_observation(
    vector: np.ndarray,
    mask: np.ndarray,
    mask_dtype: type[np.generic] = PETTINGZOO_MASK_DTYPE,
    keys: tuple[str, str] = KEYS,
) -> dict[str, np.ndarray]:
    """The dict observation of :func:`masked_observation_space` from a vector (or a batch of
    them) and its mask of any dtype (copied: the caller's mask may be shared or read-only)."""
    vector_key, mask_key = keys
    return {vector_key: vector, mask_key: mask.astype(mask_dtype)}


def observation_keys(dict_observation: bool | Sequence[str]) -> tuple[str, str] | None:
    """The keys of a Gymnasium env's dict observation: ``None`` for the vector alone (``False``),
    :data:`KEYS` for ``True``, or the two names given (the vector's, then the mask's)."""
    if dict_observation is True or dict_observation is False:
        return KEYS if dict_observation else None
    names = tuple(dict_observation) if isinstance(dict_observation, (tuple, list)) else ()
    if len(names) != 2 or not all(isinstance(n, str) and n for n in names) or len(set(names)) < 2:
        raise ValueError(
            "dict_observation must be True, False or two different key names (the vector's, "
            f"the mask's), e.g. ('obs', 'mask'); got {dict_observation!r}"
        )
    return (names[0], names[1])


class GymnasiumObservation:
    """A Gymnasium env's observation: the vector alone, or the dict of the vector and its
    ``bool`` mask (``dict_observation``, see :func:`observation_keys`); its space and the
    observations themselves, one game's or a batch's."""

    def __init__(
        self, observer: Observer, num_actions: int, dict_observation: bool | Sequence[str]
    ) -> None:
        self.keys = observation_keys(dict_observation)
        self.space: spaces.Box | spaces.Dict = (
            vector_space(observer)
            if self.keys is None
            else masked_observation_space(observer, num_actions, GYMNASIUM_MASK_DTYPE, self.keys)
        )

    def __call__(
        self, vectors: np.ndarray, masks: np.ndarray
    ) -> np.ndarray | dict[str, np.ndarray]:
        if self.keys is None:
            return vectors
        return masked_observation(vectors, masks, GYMNASIUM_MASK_DTYPE, self.keys)
