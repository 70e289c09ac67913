"""A line on stderr before the first of the project's numba kernels compiles in a process.

Until numba's disk cache holds a kernel (``camelup compile`` fills it, which ``make install``
runs: :mod:`camelup_cli.compile_kernels`), its first call compiles it, which takes seconds per kernel
and minutes for the batch core on a busy machine. :func:`announce_compiles` makes that wait say
what it is, once per process, instead of sitting silent; a kernel loaded from the cache says
nothing. Each kernel module calls it at import.
"""

from __future__ import annotations

import sys
from typing import Any

from numba.core import event

#: What :func:`announce_compiles` prints, before the first compile of a process.
NOTICE = (
    "compiling kernels, first run only (numba caches them on disk; "
    "`camelup compile` compiles them all ahead, once, as `make install` does)"
)


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
