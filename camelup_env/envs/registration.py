"""Gymnasium ids for the single-agent environment, so ``gymnasium.make("camelup/...")`` works.

Every preset is registered for 2 to 6 players as ``camelup/<Preset><n>p-v0``:
``Classic``, ``SecondEdition``, ``Supercup`` and ``PersianTutorial`` (e.g.
``camelup/Classic2p-v0``, ``camelup/SecondEdition4p-v0``, ``camelup/Supercup6p-v0``,
``camelup/PersianTutorial4p-v0``); the Camel Up Cup, a four-player game (C1), only as
``camelup/Cup4p-v0``. Each id is
:class:`~camelup_env.envs.single_agent.SingleAgentEnv` with the learner in seat 0 and uniform-random
opponents; keyword arguments of ``gymnasium.make`` go to ``SingleAgentEnv`` (``opponents``,
``learner_seat``, ``reward_mode``, ``odds_features``...). ``gymnasium.make_vec(id, num_envs=N)``
builds :class:`~camelup_env.envs.vector.SingleAgentVectorEnv`, N of those games stepped together
on the batch core (the id's vector entry point; ``vectorization_mode="sync"`` still gives
Gymnasium's ``SyncVectorEnv`` of single envs). Other player counts or rule variants: build
``SingleAgentEnv(rules=RuleSet(...))`` or ``SingleAgentVectorEnv(N, rules=...)`` directly.

``gymnasium.make(id)`` returns the ``SingleAgentEnv`` itself, not wrapped in Gymnasium's
``PassiveEnvChecker`` and ``OrderEnforcing`` (Gymnasium 1.x wrappers do not pass attribute
lookups through, so ``env.action_masks()`` would be an AttributeError): the env refuses a step
before ``reset`` on its own, and the tests run Gymnasium's full checker on every preset. Under
wrappers of your own, ``env.get_wrapper_attr("action_masks")()`` or ``env.unwrapped`` reach it,
and ``info["action_mask"]`` holds the same mask.

The entry point is a string, so registering imports nothing heavy: the wrapper is imported when
an environment is made. The ``-v0`` suffix versions the id's behaviour; it changes when an id's
observations or rewards change meaning.
"""

from __future__ import annotations

import gymnasium

#: preset -> the CamelCase name used in its ids
ID_NAMES = {
    "classic": "Classic",
    "second_edition": "SecondEdition",
    "supercup": "Supercup",
    "persian_tutorial": "PersianTutorial",
    "cup": "Cup",
}
#: player counts with a registered id (every preset supports these, R1)
PLAYER_COUNTS = range(2, 7)
#: presets played by other player counts only: the Camel Up Cup seats four (C1)
ONLY_PLAYER_COUNTS = {"cup": (4,)}
ENTRY_POINT = "camelup_env.envs.single_agent:SingleAgentEnv"
#: ``gymnasium.make_vec``'s: N of those games stepped together on the batch core
VECTOR_ENTRY_POINT = "camelup_env.envs.vector:SingleAgentVectorEnv"


def env_id(preset: str, num_players: int) -> str:
    """The registered id of a preset and player count, e.g. ``camelup/Classic2p-v0``."""
    return f"camelup/{ID_NAMES[preset]}{num_players}p-v0"


def register_envs() -> tuple[str, ...]:
    """Register every id (idempotent: ids already registered are left alone); returns them."""
    ids = []
    for preset in ID_NAMES:
        for n in ONLY_PLAYER_COUNTS.get(preset, PLAYER_COUNTS):
            name = env_id(preset, n)
            if name not in gymnasium.registry:
                gymnasium.register(
                    id=name,
                    entry_point=ENTRY_POINT,
                    vector_entry_point=VECTOR_ENTRY_POINT,
                    kwargs={"preset": preset, "num_players": n},
                    # make() hands back the env itself (module docstring): action_masks() and
                    # the env's other methods are reached without digging through wrappers
                    order_enforce=False,
                    disable_env_checker=True,
                )
            ids.append(name)
    return tuple(ids)
