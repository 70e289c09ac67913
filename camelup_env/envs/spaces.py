"""The masked observation every camelup environment can hand out, and the mask's two dtypes.

PettingZoo's classic games put the legal actions inside the observation, as a dict
``{"observation", "action_mask"}`` whose mask is an ``int8`` 0/1 ``Box``; the libraries that read
a mask from an observation take that form (TorchRL's ``PettingZooWrapper(use_mask=True)`` and
``ActionMask``, Tianshou's ``PettingZooEnv``). A mask handed out beside the observation - a
Gymnasium env's ``info["action_mask"]`` and ``action_masks()``, the vector env's batch of them -
is ``bool``, what sb3-contrib's ``MaskablePPO`` and a CleanRL loop's ``torch.where`` take. One
space builder for both the PettingZoo env and the Gymnasium ``dict_observation`` option keeps
the two observations the same space.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from camelup_env.observation import Observer

#: dtype of ``"action_mask"`` inside an observation (a ``Box(0, 1)``, PettingZoo's convention)
OBSERVATION_MASK_DTYPE = np.int8
#: dtype of a mask handed out beside the observation (``info["action_mask"]``, ``action_masks()``)
INFO_MASK_DTYPE = np.bool_


def vector_space(observer: Observer) -> spaces.Box:
    """The flat observation vector of ``observer``: ``float32``, bounded entry by entry."""
    return spaces.Box(observer.low, observer.high, dtype=np.float32)


def masked_observation_space(observer: Observer, num_actions: int) -> spaces.Dict:
    """An agent's observation with its legal actions: ``"observation"`` (:func:`vector_space`)
    and ``"action_mask"`` (``int8`` 0/1, all zero unless the agent is to act)."""
    return spaces.Dict(
        {
            "observation": vector_space(observer),
            "action_mask": spaces.Box(0, 1, shape=(num_actions,), dtype=OBSERVATION_MASK_DTYPE),
        }
    )


def masked_observation(vector: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
    """The dict observation of :func:`masked_observation_space` from a vector and a mask of
    any dtype (a fresh ``int8`` copy: the caller's mask may be shared or read-only)."""
    return {"observation": vector, "action_mask": mask.astype(OBSERVATION_MASK_DTYPE)}
