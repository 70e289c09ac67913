"""The referee's side of a bot process: start it in the sandbox, talk to it under deadlines,
end it.

A :class:`BotProcess` is one agent entry running as a program (``cmd:``) or as an in-project
agent in :mod:`tournament.host`, started through :mod:`tournament.sandbox` in a session of its
own. Every exchange has a deadline; a bot that misses it, ends, writes something that is not a
protocol message, or writes a line longer than the output limit raises :class:`BotFault`, whose
text is the forfeit reason. After a fault the process and everything it started (its process
group) is killed; the next game starts a fresh one. Processes stay up across games otherwise
(warm), and one is replaced before a game when its CPU time runs short of a game's worth.

Every bot is forked by :mod:`tournament.spawner`'s one thread, so it lives as long as this
process wants it, whichever thread asked for it. With ``private_dir`` (the web app's bots) a
bot runs in a fresh empty folder of its own (its working directory, ``HOME`` and ``TMPDIR``),
removed when the bot is killed; a tournament's bots keep the caller's working directory, since
their specs name paths relative to it.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from camelup_env.game.rules import RuleSet
from tournament import protocol, spawner
from tournament.config import AgentEntry, Limits, command_of

#: the project root, so that ``python -m tournament.host`` imports this checkout
ROOT = Path(__file__).resolve().parents[1]
_SIGNAL_REASONS = {
    signal.SIGXCPU: "cpu limit: CPU time limit exceeded",
    signal.SIGXFSZ: "output limit: stderr log exceeded its size limit",
}


class BotFault(Exception):
    """A bot broke a rule of the protocol or a limit; the message is the forfeit reason."""


def _clock_ticks() -> int:
    return os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class BotProcess:
    """One running bot (module docstring). ``log`` receives its stderr (None: discarded);
    ``private_dir``: run it in a fresh folder of its own."""

    def __init__(
        self, entry: AgentEntry, limits: Limits, log: Path | None = None, private_dir: bool = False
    ) -> None:
        self.entry, self.limits, self.log = entry, limits, log
        self.cap = limits.output_kb * 1024
        self.wants_observation = False
        self.started = False  # has answered a start (loaded and warmed up)
        self.buffer = b""
        argv = command_of(entry.spec)
        if argv is None:
            doc = json.dumps({"spec": entry.spec, "kwargs": entry.kwargs})
            argv = [sys.executable, "-m", "tournament.host", doc]
        log_size = log.stat().st_size if log is not None and log.exists() else 0
        sandbox = {
            "memory_mb": limits.memory_mb,
            "cpu_seconds": limits.cpu_seconds,
            "file_bytes": log_size + self.cap,
            "max_processes": limits.max_processes,
        }
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(
                p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p
            ),
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "PYTHONUNBUFFERED": "1",
        }
        self.folder = Path(tempfile.mkdtemp(prefix="camelup-bot-")) if private_dir else None
        if self.folder is not None:
            env.update(HOME=str(self.folder), TMPDIR=str(self.folder))
        log_file = open(log, "ab") if log is not None else None  # noqa: SIM115
        try:
            self.process = spawner.popen(
                [sys.executable, "-m", "tournament.sandbox", json.dumps(sandbox), "--", *argv],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL if log_file is None else log_file,
                env=env,
                cwd=self.folder,
                start_new_session=True,
                close_fds=True,
            )
        except BaseException:
            self._remove_folder()
            raise
        finally:
            if log_file is not None:
                log_file.close()
        assert self.process.stdin is not None and self.process.stdout is not None  # the pipes
        self.stdin = self.process.stdin.fileno()
        self.stdout = self.process.stdout.fileno()
        os.set_blocking(self.stdin, False)
        os.set_blocking(self.stdout, False)

    # Exchanges ---------------------------------------------------------------------------
    def begin(self, game: int, seat: int, seed: int, rules: RuleSet) -> None:
        """Start a game; the first start of the process is loading and warm-up."""
        first = not self.started
        limit = (
            self.limits.load_timeout
            if first
            else (self.limits.move_timeout or self.limits.load_timeout)
        )
        why = (
            f"timeout: not ready within {limit:g} s (loading and warm-up)"
            if first
            else f"timeout: not ready for the game within {limit:g} s"
        )
        reply = self.ask(protocol.start_message(game, seat, seed, rules), limit, why)
        if reply.get("type") != "ready":
            raise BotFault(f'protocol: expected {{"type": "ready"}}, got {_short(reply)}')
        self.wants_observation = reply.get("observation") is True
        self.started = True

    def ask(self, message: dict[str, Any], limit: float | None, late: str) -> dict[str, Any]:
        """Send ``message`` and return the reply within ``limit`` seconds (None: no limit);
        ``late`` is the forfeit reason if it does not come in time."""
        deadline = None if limit is None else time.monotonic() + limit
        self._write(protocol.encode(message), deadline, late)
        reply = self._read(deadline, late)
        if "error" in reply:
            raise BotFault(_clean(str(reply["error"])) or "error: (no reason given)")
        return reply

    def tell(self, message: dict[str, Any]) -> None:
        """Send a message that needs no answer (``end``); a bot that cannot take it will fail
        its next exchange instead."""
        with contextlib.suppress(BotFault):
            self._write(protocol.encode(message), time.monotonic() + 1.0, "timeout: no reading")

    def _write(self, data: bytes, deadline: float | None, late: str) -> None:
        view = memoryview(data)
        while view:
            try:
                sent = os.write(self.stdin, view)
            except BlockingIOError:
                self._wait(self.stdin, "w", deadline, late)
                continue
            except (BrokenPipeError, OSError):
                raise BotFault(self._ended()) from None
            view = view[sent:]

    def _read(self, deadline: float | None, late: str) -> dict[str, Any]:
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line, self.buffer = self.buffer[:end], self.buffer[end + 1 :]
                if len(line) > self.cap:
                    raise BotFault(f"output limit: a message over {self.limits.output_kb} KiB")
                if not line.strip():
                    continue
                try:
                    return protocol.decode(line)
                except protocol.ProtocolError as exc:
                    raise BotFault(f"protocol: {exc}") from None
            if len(self.buffer) > self.cap:
                raise BotFault(f"output limit: a message over {self.limits.output_kb} KiB")
            self._wait(self.stdout, "r", deadline, late)
            try:
                chunk = os.read(self.stdout, 1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                raise BotFault(self._ended())
            self.buffer += chunk

    def _wait(self, fd: int, mode: str, deadline: float | None, late: str) -> None:
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            raise BotFault(late)
        select.select([fd] if mode == "r" else [], [fd] if mode == "w" else [], [], remaining)

    def _ended(self) -> str:
        """Why the process is gone (it closed its pipes, so it ended or is about to)."""
        try:
            code = self.process.wait(2.0)
        except subprocess.TimeoutExpired:
            return "protocol: closed its output but kept running"
        if code < 0:
            sig = signal.Signals(-code)
            return _SIGNAL_REASONS.get(sig, f"crashed: bot process killed by {sig.name}")
        return f"crashed: bot process ended (exit code {code})"

    # Life cycle ---------------------------------------------------------------------------
    def cpu_seconds(self) -> float:
        """CPU time the process has used so far (Linux; 0 elsewhere)."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return 0.0
        return (int(fields[11]) + int(fields[12])) / _clock_ticks()

    def fresh_enough(self) -> bool:
        """Alive, and with a game's worth of CPU time left before its limit."""
        need = self.limits.game_timeout or self.limits.cpu_seconds / 4
        return self.process.poll() is None and self.cpu_seconds() + need < self.limits.cpu_seconds

    def kill(self) -> None:
        """End the process and every process it started in its session."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.process.wait(5)
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.close()
        self._remove_folder()

    def _remove_folder(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)

    def close(self) -> None:
        """Ask the bot to quit, then make sure of it."""
        with contextlib.suppress(BotFault):
            self._write(protocol.encode(protocol.QUIT), time.monotonic() + 0.5, "timeout")
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(0.5)
        self.kill()


def _clean(text: str) -> str:
    """A bot's own words made safe for a one-line report."""
    return "".join(c if c.isprintable() else " " for c in text)[:300].strip()


def _short(message: dict[str, Any]) -> str:
    return _clean(json.dumps(message))[:80]
