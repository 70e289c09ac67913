"""Fork every bot process from one long-lived thread, so that it dies with this process only.

The sandbox asks the kernel to kill a bot when its parent dies (``PR_SET_PDEATHSIG``,
:mod:`tournament.sandbox`). To the kernel the parent is the *thread* that forked the bot, not
the process: a bot started from a thread that later ends would be killed in the middle of its
game. A web server's worker threads end after a few idle seconds, so its bots died mid-game
(forfeiting "killed by SIGKILL"). :func:`popen` therefore hands every ``subprocess.Popen`` to a
single daemon thread that lives as long as the process; the death signal then fires when the
process ends, and only then. A process forked from this one (a tournament's game worker)
starts a thread of its own on its first bot.
"""

from __future__ import annotations

import os
import queue
import subprocess
import threading
from concurrent.futures import Future
from typing import Any

_requests: queue.SimpleQueue[tuple[Future, tuple, dict]] = queue.SimpleQueue()
_thread: threading.Thread | None = None
_lock = threading.Lock()


def _serve() -> None:
    while True:
        future, args, kwargs = _requests.get()
        if future.set_running_or_notify_cancel():
            try:
                future.set_result(subprocess.Popen(*args, **kwargs))
            except BaseException as exc:  # handed to the caller, who raises it
                future.set_exception(exc)


def _forget_thread() -> None:
    """In a forked child: the parent's thread is not running here."""
    global _thread, _requests, _lock
    _thread, _requests, _lock = None, queue.SimpleQueue(), threading.Lock()


os.register_at_fork(after_in_child=_forget_thread)


def popen(*args: Any, **kwargs: Any) -> subprocess.Popen:
    """``subprocess.Popen(*args, **kwargs)``, forked by the spawner thread (module docstring)."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_serve, name="camelup-bot-spawner", daemon=True)
            _thread.start()
    future: Future[subprocess.Popen] = Future()
    _requests.put((future, args, kwargs))
    return future.result()
