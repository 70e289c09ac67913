"""A loop over the games, compiled twice: a plain loop for one thread, a parallel one for more.

Each public kernel of the batch core is one loop over the games whose body plays one game. A
parallel region costs a launch of numba's threading layer at every call, even on one thread:
on the 2-core machine the workqueue layer's launch made one step of 1,024 games several times
slower than the games themselves (docs/performance.md, Batch core). So :func:`over_games`
compiles the same loop twice from one source: ``serial``, where ``prange`` is a plain
``range`` and no threading layer is ever started, and ``parallel``. :meth:`GameLoop.run` picks
by the caller's thread count, and only the parallel one touches numba's thread setting.

The serial copy of a loop that allocates no array is also compiled without numba's reference
counting (``_nrt=False``): with it, every array handed to an inlined helper is increfed and
decrefed once per game, atomic operations that made the plain loop several times slower than
the same loop as a parallel region on one thread, whose body numba compiles with borrowed
arrays (a random step of 1,024 games: 5.8 million actions/s with counting, 9.0 million without;
docs/performance.md, Batch core). A loop that allocates (the observation's odds) keeps it.

Each copy is cached on disk under its own name (numba keys its cache by the function's
qualified name, not by the compile flags, so the two must not share one).
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numba
from numba import njit
from numba.core.dispatcher import Dispatcher

from camelup_env.compile_notice import announce_compiles

announce_compiles()  # a first run says why it waits (camelup_env.compile_notice)


@contextlib.contextmanager
def numba_threads(threads: int) -> Iterator[None]:
    """Run the kernels inside on ``threads`` of numba's threads (0: all of them); numba's
    setting is per calling thread, and is restored after."""
    if threads == 0:
        yield
        return
    before = numba.get_num_threads()
    # numba.config sets its settings at import, from the environment: no declared attributes
    most = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    numba.set_num_threads(min(threads, most))
    try:
        yield
    finally:
        numba.set_num_threads(before)


class GameLoop(NamedTuple):
    """The two compiled copies of one loop over the games."""

    #: ``prange`` compiled as ``range``: no parallel region, no threading layer.
    serial: Dispatcher
    #: ``prange`` over numba's threads.
    parallel: Dispatcher

    def __call__(self, *args: Any) -> Any:
        """The loop on the calling thread (the results do not depend on the thread count)."""
        return self.serial(*args)

    def run(self, threads: int, *args: Any) -> Any:
        """The loop on ``threads`` threads (1: the serial copy on the calling thread; 0: all
        of numba's threads)."""
        if threads == 1:
            return self.serial(*args)
        with numba_threads(threads):
            return self.parallel(*args)


def _renamed(loop: Callable[..., Any], suffix: str) -> Callable[..., Any]:
    """A copy of ``loop`` (same code, globals and source line) under another name."""
    copy = types.FunctionType(
        loop.__code__, loop.__globals__, loop.__name__ + suffix, loop.__defaults__
    )
    copy.__qualname__ = loop.__qualname__ + suffix
    copy.__module__ = loop.__module__
    copy.__doc__ = loop.__doc__
    return copy


def over_games(loop: Callable[..., Any] | None = None, *, allocates: bool = False) -> Any:
    """Decorator: ``loop`` (one ``prange`` over the games, each iteration one game) compiled
    serial and parallel, both cached. ``@over_games(allocates=True)`` for a loop that creates
    arrays: its serial copy keeps numba's reference counting (the module docstring)."""

    # ``_nrt`` is a numba target option its type stubs do not declare
    serial_options: dict[str, Any] = {"cache": True, "_nrt": allocates}

    def compile_both(loop: Callable[..., Any]) -> GameLoop:
        return GameLoop(
            serial=njit(**serial_options)(_renamed(loop, "_serial")),
            parallel=njit(cache=True, parallel=True)(loop),
        )

    return compile_both if loop is None else compile_both(loop)
