"""A line on stderr before the first of the project's numba kernels compiles in a process, and
a line of progress every few seconds while they do.

Until numba's disk cache holds a kernel (``camelup compile`` fills it, which ``make install``
runs: :mod:`camelup_cli.compile_kernels`), its first call compiles it, which takes seconds per
kernel and minutes for the batch core on a busy machine: a project installed with pip meets
this on its first use. :func:`announce_compiles` makes that wait say what it is, once per
process, and then how far it has got (:data:`PROGRESS_SECONDS` apart, so a short compile says
one line and a long one does not look hung); a kernel loaded from the cache says nothing. Each
kernel module calls it at import.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from numba.core import event

#: What :func:`announce_compiles` prints, before the first compile of a process.
NOTICE = (
    "compiling kernels, first run only (numba caches them on disk; "
    "`camelup compile` compiles them all ahead, once, as `make install` does)"
)
#: Seconds between two progress lines (``  ... 12 kernels compiled, 31 s``).
PROGRESS_SECONDS = 15.0


def _ours(event: event.Event) -> bool:
    dispatcher: Any = event.data["dispatcher"]
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
    return module.startswith("camelup_env.")


class _Notice(event.Listener):
    """Prints :data:`NOTICE` when a kernel of this project starts compiling, the first time,
    then a progress line when a compile ends :data:`PROGRESS_SECONDS` after the last line."""

    said = False
    started: float | None = None  # when this listener printed the notice
    last = 0.0
    compiled = 0

    def on_start(self, event: event.Event) -> None:
        if not self.said and _ours(event):
            self.said = True
            self.started = self.last = time.monotonic()
            print(NOTICE, file=sys.stderr, flush=True)

    def on_end(self, event: event.Event) -> None:
        if self.started is None or not _ours(event):
            return
        self.compiled += 1
        now = time.monotonic()
        if now - self.last >= PROGRESS_SECONDS:
            self.last = now
            print(
                f"  ... {self.compiled} kernels compiled, {now - self.started:.0f} s",
                file=sys.stderr,
                flush=True,
            )


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
