"""The project's numba kernels as one list (what ``make install`` compiles, what tests probe).

Every kernel is compiled with ``cache=True``: numba writes the machine code beside its source
file (``__pycache__/*.nbi`` and ``*.nbc``, or under ``NUMBA_CACHE_DIR`` when that is set) and
later processes load it in a fraction of a second. ``make install`` fills that cache once
(``python -m camelup_cli.compile_kernels``); until it is filled, or after a kernel file
changes, the first call of a kernel compiles it, which takes seconds per kernel and minutes
for the batch core on a busy machine (:mod:`camelup_env.compile_notice` says so when it
happens).
"""

from __future__ import annotations

import importlib

from numba.core.registry import CPUDispatcher

from camelup_env.stale_cache import dispatchers

#: The modules that hold the project's kernels (every other module calls these).
KERNEL_MODULES = (
    "camelup_env.game.rule_kernels",
    "camelup_env.odds.kernels",
    "camelup_env.odds.exact_kernels",
    "camelup_env.batch.streams",
    "camelup_env.batch.kernels",
    "camelup_env.batch.observation_kernels",
    "camelup_env.batch.luck_kernels",
    "camelup_env.batch.afterstate_kernels",
)


def kernels() -> dict[str, CPUDispatcher]:
    """Every compiled function of :data:`KERNEL_MODULES` by qualified name, both copies of a
    loop over the games (:mod:`camelup_env.batch.game_loops`) included."""
    found: dict[str, CPUDispatcher] = {}
    for name in KERNEL_MODULES:
        importlib.import_module(name)
        for dispatcher in dispatchers(name):
            found[f"{name}.{dispatcher.py_func.__qualname__}"] = dispatcher
    return found


def signatures() -> dict[str, set[str]]:
    """The argument types each kernel is compiled (or loaded) for in this process so far."""
    return {name: {str(sig) for sig in d.signatures} for name, d in kernels().items()}
