"""Flush a kernel file's numba disk cache when a file it bakes in has changed.

numba checks only the time stamp of the file that defines a cached kernel. A kernel also bakes
in what it inlines from other files (the compiled rules of :mod:`camelup_env.game.rule_kernels`,
the batch layout's constants) and how :func:`~camelup_env.batch.game_loops.over_games` compiled
it (with or without reference counting): a change there would leave the old machine code in the
cache. Each kernel file calls :func:`drop_stale_cache` at import, before anything compiles, with
the modules it depends on.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from types import ModuleType

from numba.core.registry import CPUDispatcher as Dispatcher


def fingerprint(dependencies: tuple[ModuleType, ...]) -> str:
    """A hash of the source files of ``dependencies``."""
    digest = hashlib.sha256()
    for module in dependencies:
        assert module.__file__ is not None  # modules imported from files
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()


def dispatchers(module_name: str) -> list[Dispatcher]:
    """The cached kernels defined in ``module_name`` (both copies of each loop over the games,
    :class:`~camelup_env.batch.game_loops.GameLoop`, a tuple of two)."""
    return [
        dispatcher
        for value in vars(sys.modules[module_name]).values()
        for dispatcher in (value if isinstance(value, tuple) else (value,))
        if isinstance(dispatcher, Dispatcher) and dispatcher.py_func.__module__ == module_name
    ]


def drop_stale_cache(module_name: str, dependencies: tuple[ModuleType, ...]) -> bool:
    """Flush the disk cache of ``module_name``'s kernels when ``dependencies`` changed since it
    was written (a marker file beside the cache holds their fingerprint); returns whether it
    flushed. A cache that cannot be written is left to numba."""
    kernels = dispatchers(module_name)
    # numba's disk cache is a private attribute of its dispatchers, absent from its types
    folder = kernels[0]._cache.cache_path if kernels else None  # type: ignore[attr-defined]
    if folder is None:  # caching disabled
        return False
    module_file = sys.modules[module_name].__file__
    assert module_file is not None
    marker = Path(folder) / f"{Path(module_file).stem}.deps"
    expected = fingerprint(dependencies)
    try:
        if marker.is_file() and marker.read_text() == expected:
            return False
        for dispatcher in kernels:
            dispatcher._cache.flush()  # type: ignore[attr-defined]
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(expected)
    except OSError:
        return False
    return True
