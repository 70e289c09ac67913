"""Start a bot program under resource limits: ``python -m tournament.sandbox LIMITS -- PROGRAM``.

The referee starts every bot process through this launcher (in-project agents too, as
``python -m tournament.host``): it sets the limits with ``resource.setrlimit`` and then
``exec``\\ s the program, so the limits hold before any bot code runs, and no code of the
referee's process survives into the bot (a fresh program, not a fork of the referee).

Limits (``LIMITS`` is a JSON object): ``memory_mb`` (address space, ``RLIMIT_AS``),
``cpu_seconds`` (``RLIMIT_CPU``: SIGXCPU, then SIGKILL), ``file_bytes`` (``RLIMIT_FSIZE``: the
bot's stderr log and any file it writes cannot grow past it), ``max_processes`` (``RLIMIT_NPROC``:
tasks the bot may add to those its user already runs; the kernel does not apply it to root), no
core dumps. The process also dies with its parent (``PR_SET_PDEATHSIG``; the parent is the
thread that forked it, which :mod:`tournament.spawner` keeps alive as long as the referee).

No network: on Linux the launcher moves itself into a network namespace of its own
(``unshare(CLONE_NEWNET)``, or with a user namespace first where the user is not root and the
kernel lets unprivileged users have one), which holds only a loopback interface that is down:
the bot can reach no address, local or remote. Where neither is allowed (another system, a
kernel or container that forbids it) the bot keeps the referee's network; the documentation
says so. Files are not isolated: the bot runs as the referee's user.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import sys


def _user_tasks() -> int:
    """Processes and threads of this user now (what ``RLIMIT_NPROC`` counts)."""
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
    return count


def apply_limits(limits: dict) -> None:
    """Set this process's limits (module docstring)."""
    memory = int(limits["memory_mb"]) * 1024 * 1024
    cpu = max(1, int(limits["cpu_seconds"]))
    size = int(limits["file_bytes"])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if os.path.isdir("/proc"):
        tasks = _user_tasks() + int(limits["max_processes"])
        resource.setrlimit(resource.RLIMIT_NPROC, (tasks, tasks))
    with contextlib.suppress(Exception):  # Linux only
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000


def isolate_network() -> bool:
    """Move this process into a network namespace of its own (module docstring); False where
    the platform does not allow it."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(CLONE_NEWNET) == 0:
            return True
        uid, gid = os.getuid(), os.getgid()
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
            return False
    except (OSError, AttributeError):  # no C library to call (not Linux)
        return False
    # the same user and group inside the new user namespace, so files look as they did
    with contextlib.suppress(OSError):
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"{uid} {uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"{gid} {gid} 1")
    return True


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        print("usage: python -m tournament.sandbox LIMITS_JSON -- PROGRAM [ARGS]", file=sys.stderr)
        return 2
    isolate_network()
    apply_limits(json.loads(argv[1]))
    try:
        os.execvp(argv[3], argv[3:])
    except OSError as exc:  # tell the referee in its own protocol why the bot never started
        error = {"error": f"cannot start {argv[3]!r}: {exc.strerror}"}
        sys.stdout.write(json.dumps(error) + "\n")
        sys.stdout.flush()
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv))
