"""``camelup_v0``: the previous version of the Camel Up environment, kept for models trained on it.

It is :mod:`camelup_env.camelup_v1` with ``action_values=False`` (and ``race_samples`` 200 by
default): the v0 observation bit for bit, odds slices and their race estimate included (see
camelup_v1's Version History). Everything else - actions, rewards, arguments, rendering - is
camelup_v1's. New work uses ``camelup_v1``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo import AECEnv

from camelup_env import camelup_v1
from camelup_env.game.rewards import REWARD_MODES, final_rewards

__all__ = ["ENV_VERSION", "REWARD_MODES", "env", "final_rewards", "raw_env"]

ENV_VERSION = "camelup_v0"


class raw_env(camelup_v1.raw_env):
    """camelup_v1's environment with the v0 observation (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {**camelup_v1.raw_env.metadata, "name": ENV_VERSION}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # v0 has no action values: passing them (by keyword or as v1's last positional
        # argument) is the TypeError the checker warns of
        super().__init__(*args, action_values=False, **kwargs)  # type: ignore[misc]


def env(**kwargs: Any) -> AECEnv:
    """The v0 environment with PettingZoo's standard classic-game wrappers."""
    return camelup_v1.standard_wrappers(raw_env(**kwargs))
