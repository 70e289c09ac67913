"""The masked observation every camelup environment can hand out, and the mask's dtypes.

PettingZoo's classic games put the legal actions inside the observation, as a dict
``{"observation", "action_mask"}`` whose mask is an ``int8`` 0/1 ``Box``: ``camelup_v1`` does the
same, and the libraries that wrap a PettingZoo env read it there (TorchRL's
``PettingZooWrapper(use_mask=True)``, Tianshou's and RLlib's ``PettingZooEnv``). The Gymnasium
envs hand out ``bool`` masks - ``info["action_mask"]``, ``action_masks()``, the vector env's
batch, and the mask of their ``dict_observation`` - which is what sb3-contrib's ``MaskablePPO``,
a CleanRL loop's ``torch.where`` and TorchRL's ``MaskedCategorical`` take (the last refuses an
``int8`` mask; a ``bool`` ``Box`` becomes a ``bool`` spec in TorchRL's ``GymEnv``). One space
builder serves both, so the two observations differ only in that dtype.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from camelup_env.observation import Observer

#: dtype of the PettingZoo env's ``"action_mask"`` (PettingZoo's convention)
PETTINGZOO_MASK_DTYPE = np.int8
#: dtype of every mask a Gymnasium env hands out, in its observation or beside it
GYMNASIUM_MASK_DTYPE = np.bool_


def vector_space(observer: Observer) -> spaces.Box:
    """The flat observation vector of ``observer``: ``float32``, bounded entry by entry."""
    return spaces.Box(observer.low, observer.high, dtype=np.float32)


def masked_observation_space(
    observer: Observer, num_actions: int, mask_dtype: type[np.generic] = PETTINGZOO_MASK_DTYPE
) -> spaces.Dict:
    """An agent's observation with its legal actions: ``"observation"`` (:func:`vector_space`)
    and ``"action_mask"`` (0/1 of ``mask_dtype``, all zero unless the agent is to act)."""
    return spaces.Dict(
        {
            "observation": vector_space(observer),
            # Box takes bool (a bool Box), though its annotation names numbers only
            "action_mask": spaces.Box(0, 1, shape=(num_actions,), dtype=mask_dtype),  # type: ignore[arg-type]
        }
    )


def masked_observation(
    vector: np.ndarray, mask: np.ndarray, mask_dtype: type[np.generic] = PETTINGZOO_MASK_DTYPE
) -> dict[str, np.ndarray]:
    """The dict observation of :func:`masked_observation_space` from a vector (or a batch of
    them) and its mask of any dtype (copied: the caller's mask may be shared or read-only)."""
    return {"observation": vector, "action_mask": mask.astype(mask_dtype)}
