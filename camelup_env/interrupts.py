"""Stopping a long run: Ctrl-C and SIGTERM end it as a stop, with its progress saved, not as a
crash. Training (a checkpoint, ``--resume``) and evaluations (every finished game, the same
command again) both stop this way."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from typing import Any


def stop_requested(exc: BaseException | None) -> bool:
    """Whether ``exc`` is a stop request: a KeyboardInterrupt, or an error raised around one.

    The interrupt is raised by a signal handler wherever the run happens to be; inside a numba
    kernel's call (its dispatcher runs Python callbacks) numba reports it as a ``SystemError``
    caused by the KeyboardInterrupt, which must stop the run the same way (a checkpoint, the
    progress saved)."""
    while exc is not None:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


@contextlib.contextmanager
def interrupts_stop_the_run() -> Iterator[None]:
    """Ctrl-C and SIGTERM both stop a run the way Ctrl-C does (a checkpoint or the progress
    saved, the command that resumes): a long run is often a background job, which a shell
    starts with SIGINT ignored, and is stopped with ``kill``."""

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    before = {
        sig: signal.signal(sig, handler)
        for sig, handler in (
            (signal.SIGINT, signal.default_int_handler),
            (signal.SIGTERM, interrupt),
        )
    }
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
