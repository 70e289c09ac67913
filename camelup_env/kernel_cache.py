"""The project's numba kernels as one list, and a line on stderr before the first one compiles.

Every kernel is compiled with ``cache=True``: numba writes the machine code beside its source
file (``__pycache__/*.nbi`` and ``*.nbc``, or under ``NUMBA_CACHE_DIR`` when that is set) and
later processes load it in a fraction of a second. ``make install`` fills that cache once
(``python -m camelup_cli.compile_kernels``); until it is filled, or after a kernel file
changes, the first call of a kernel compiles it, which takes seconds per kernel and minutes
for the batch core on a busy machine. :func:`announce_compiles` makes that wait say what it is,
once per process, instead of sitting silent.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from numba.core import event
from numba.core.registry import CPUDispatcher

#: The modules that hold the project's kernels (every other module calls these).
KERNEL_MODULES = (
    "camelup_env.odds.kernels",
    "camelup_env.batch.kernels",
    "camelup_env.batch.observation_kernels",
)
#: What :func:`announce_compiles` prints, before the first compile of a process.
NOTICE = (
    "compiling kernels, first run only (numba caches them on disk; "
    "`make install` or `python -m camelup_cli.compile_kernels` compiles them all ahead)"
)


def kernels() -> dict[str, CPUDispatcher]:
    """Every compiled function of :data:`KERNEL_MODULES` by qualified name, both copies of a
    loop over the games (:mod:`camelup_env.batch.game_loops`) included."""
    from camelup_env.batch.stale_cache import dispatchers

    found: dict[str, CPUDispatcher] = {}
    for name in KERNEL_MODULES:
        importlib.import_module(name)
        for dispatcher in dispatchers(name):
            found[f"{name}.{dispatcher.py_func.__qualname__}"] = dispatcher
    return found


def signatures() -> dict[str, set[str]]:
    """The argument types each kernel is compiled (or loaded) for in this process so far."""
    return {name: {str(sig) for sig in d.signatures} for name, d in kernels().items()}


class _Notice(event.Listener):
    """Prints :data:`NOTICE` when a kernel of this project starts compiling, the first time."""

    said = False

    def on_start(self, event: event.Event) -> None:
        dispatcher: Any = event.data["dispatcher"]
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        if not self.said and module.startswith("camelup_env."):
            self.said = True
            print(NOTICE, file=sys.stderr, flush=True)

    def on_end(self, event: event.Event) -> None:
        """Nothing to say when a compile ends."""


_NOTICE = _Notice()
_listening: list[bool] = []  # one entry once the notice is registered


def announce_compiles() -> None:
    """Print :data:`NOTICE` on stderr before the first compile of a kernel in this process
    (a kernel loaded from the disk cache says nothing). Idempotent; each kernel module calls
    it at import, so it holds before anything can compile."""
    if not _listening:
        event.register("numba:compile", _NOTICE)
        _listening.append(True)


def notice_given() -> None:
    """The caller has said that kernels compile (``camelup_cli.compile_kernels`` prints its own
    line): :data:`NOTICE` is not printed again in this process."""
    _NOTICE.said = True
