"""Game workers: processes that each referee one game at a time with bot processes of their own.

The referee's work is cheap next to a bot's thinking, so a pool of ``workers`` game workers
(default: one per core), each keeping one warm bot process per seat it has needed, keeps the
cores busy. With no more workers than usable CPUs, each worker is pinned to a CPU of its own,
and its bots inherit the pin: a game is a relay (referee, bot, referee, ...) that never needs
two CPUs at once, and every hand-over between processes on different CPUs is a cross-CPU
wake-up, which on a virtual machine costs about ten times a hand-over on one CPU
(``docs/tournaments.md``, Speed). Pinning is scheduling only: the bots' limits and pipes are
the same. Workers are trusted code (the referee); only bot processes run agent code. A worker
that dies (it should not: no bot code runs in it) has its game played again by a fresh worker,
once; twice is an error of the runner, reported, never blamed on a bot.

:func:`check_bots_start` starts every agent once before the first game, so an agent that cannot be
built stops the run at once, named, instead of forfeiting game after game.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing as mp
import os
import re
import signal
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from camelup_env.game.rules import RuleSet
from tournament.bots import BotFault, BotProcess
from tournament.config import AgentEntry, Limits, TournamentError
from tournament.schedule import GameSpec


@dataclass(frozen=True)
class MatchSetup:
    """What every game of a run shares (sent to each worker once)."""

    entries: tuple[AgentEntry, ...]
    rules: dict[str, Any]
    limits: Limits
    max_turns: int
    log_dir: str | None = None  # bots' stderr logs; None: discarded
    #: warm bot processes a worker keeps, the least recently seated closed first (None: every
    #: bot it has needed; a ladder of a hundred bots would otherwise keep a hundred a worker)
    warm_bots: int | None = None


def _log_path(setup: MatchSetup, agent: int, worker: int) -> Path | None:
    if setup.log_dir is None:
        return None
    label = re.sub(r"[^A-Za-z0-9_.#-]+", "_", setup.entries[agent].label)[:60]
    return Path(setup.log_dir) / f"{agent:02d}-{label}.w{worker}.log"


def check_bots_start(setup: MatchSetup) -> None:
    """Start each agent as a bot, all at once, and wait until each is loaded and warmed up;
    :class:`TournamentError` naming the first that cannot be (module docstring)."""
    rules = RuleSet.from_dict(setup.rules)

    def start(index: int) -> str | None:
        bot = BotProcess(setup.entries[index], setup.limits, _log_path(setup, index, 0))
        try:
            bot.begin(-1, 0, 0, rules)
        except BotFault as fault:
            return str(fault)
        finally:
            bot.close()
        return None

    distinct: dict[str, int] = {}  # one start per spec and arguments
    for index, entry in enumerate(setup.entries):
        distinct.setdefault(json.dumps([entry.spec, entry.kwargs], sort_keys=True), index)
    with ThreadPoolExecutor(len(distinct)) as threads:
        problems = dict(zip(distinct.values(), threads.map(start, distinct.values()), strict=True))
    for index, problem in sorted(problems.items()):
        entry = setup.entries[index]
        if problem is not None:
            name = entry.label if entry.label == entry.spec else f"{entry.label} ({entry.spec})"
            raise TournamentError(f"agent {name!r} cannot be built: {problem}")


def play_spec(
    spec: GameSpec, setup: MatchSetup, bots: dict[tuple[int, int], BotProcess], worker: int = 0
) -> dict:
    """Play one scheduled game with the worker's bots (started or replaced as needed) and
    return its record."""
    import time

    from tournament.referee import play_match

    rules = RuleSet.from_dict(setup.rules)
    lineup: list[BotProcess] = []
    count: dict[int, int] = {}
    for agent in spec.seats:
        key = (agent, count.get(agent, 0))
        count[agent] = key[1] + 1
        bot = bots.pop(key, None)  # put back last: the dict's order is least recent first
        if bot is None or not bot.fresh_enough():
            if bot is not None:
                bot.kill()
            bot = BotProcess(setup.entries[agent], setup.limits, _log_path(setup, agent, worker))
        bots[key] = bot
        lineup.append(bot)
    while setup.warm_bots is not None and len(bots) > max(setup.warm_bots, len(lineup)):
        bots.pop(next(iter(bots))).close()
    start = time.perf_counter()
    match = play_match(
        rules,
        lineup,
        spec.seed,
        [spec.seed * 64 + a for a in spec.seats],
        game=spec.game,
        max_turns=setup.max_turns,
    )
    result = match.result
    labels = [setup.entries[a].label for a in spec.seats]
    forfeit = None
    if result.forfeit:
        forfeit = {**result.forfeit, "agent": labels[result.forfeit["seat"]]}
    return {
        "game": spec.game,
        "round": spec.round,
        "lineup": spec.lineup,
        "order": spec.order,
        "rotation": spec.rotation,
        "seed": spec.seed,
        "agents": labels,
        "coins": result.coins,
        "scores": result.scores,
        "ranks": result.ranks,
        "winners": [labels[s] for s in result.winners],
        "winner_seats": result.winners,
        "forfeit": forfeit,
        "truncated": result.truncated,
        "turns": result.turns,
        "seconds": round(time.perf_counter() - start, 4),
        "move_seconds": [round(x, 4) for x in result.move_seconds],
        "fallbacks": match.fallbacks,
        "fallback_reasons": match.fallback_reasons,
        "actions": match.actions,
    }


def worker_cpus(workers: int) -> list[int] | list[None]:
    """The CPU each game worker and its bots are pinned to (module docstring), or None each
    where there are more workers than usable CPUs (or no affinity API: not Linux)."""
    try:
        usable = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return [None] * workers
    if workers > len(usable):
        return [None] * workers
    return usable[:workers]


def _set_pdeathsig() -> None:
    """Linux: die with the parent (a kill -9 of the run leaves no orphans)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _worker_main(conn, setup: MatchSetup, worker: int, cpu: int | None = None) -> None:
    _set_pdeathsig()
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    bots: dict = {}
    try:
        while True:
            try:
                task = conn.recv()
            except (EOFError, OSError):
                return
            if task is None:
                return
            record = play_spec(GameSpec(**task), setup, bots, worker)
            try:
                conn.send(record)
            except (BrokenPipeError, OSError):
                return
    finally:
        for bot in bots.values():
            bot.close()


@contextlib.contextmanager
def _main_module_hidden() -> Iterator[None]:
    """``__main__`` is an empty module while a game worker starts.

    A spawned process first runs the parent's main script again (as ``__mp_main__``, to find
    what it defines), and a game worker needs nothing from it. Hidden, a script that plays
    games (a tutorial run with ``python``) needs no ``if __name__ == "__main__":`` guard, and
    its top-level code (training a model, say) does not run again in every worker.
    """
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


class _Worker:
    def __init__(self, ctx, setup: MatchSetup, index: int, cpu: int | None) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(
            target=_worker_main, args=(child, setup, index, cpu), daemon=True
        )
        with _main_module_hidden():
            self.process.start()
        child.close()
        self.task: GameSpec | None = None

    def send(self, spec: GameSpec) -> None:
        self.task = spec
        self.conn.send(asdict(spec))

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.send(None)
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)


def run_games(
    todo: Sequence[GameSpec],
    setup: MatchSetup,
    workers: int,
    on_record: Callable[[dict], None],
    more: Callable[[], Sequence[GameSpec]] | None = None,
) -> None:
    """Play ``todo`` on ``workers`` game workers, calling ``on_record(record)`` as each ends
    (in the order games finish). ``more``, if given, is asked for further games whenever the
    queue runs dry (a ladder plays on with its bots warm); the run ends when it has none and
    the games in flight are done."""
    if not todo:
        return
    ctx = mp.get_context("spawn")  # a fresh interpreter: the parent may run threads
    pending = list(reversed(todo))

    def refill() -> bool:
        if not pending and more is not None:
            pending.extend(reversed(more()))
        return bool(pending)

    retried: set[int] = set()
    count = workers if more is not None else min(workers, len(todo))
    cpus = worker_cpus(count)
    pool = [_Worker(ctx, setup, i, cpus[i]) for i in range(count)]
    try:
        for w in pool:
            if not refill():
                break
            w.send(pending.pop())
        while any(w.task is not None for w in pool):
            busy = {w.conn: w for w in pool if w.task is not None}
            for conn in wait(list(busy)):
                w = busy[conn]
                try:
                    record = w.conn.recv()
                except (EOFError, OSError):
                    record = None
                if record is None:  # the worker died: play its game again, once
                    spec = w.task
                    assert spec is not None
                    w.process.join(1)
                    if spec.game in retried:
                        raise TournamentError(
                            f"game {spec.game}: the game worker died twice (exit code "
                            f"{w.process.exitcode}); this is a fault of the runner, not of a "
                            "bot - please report it"
                        )
                    retried.add(spec.game)
                    pending.append(spec)
                    i = pool.index(w)
                    w = pool[i] = _Worker(ctx, setup, i, cpus[i])
                else:
                    on_record(record)
                w.task = None
                if refill():
                    w.send(pending.pop())
    finally:
        for w in pool:
            w.stop()
