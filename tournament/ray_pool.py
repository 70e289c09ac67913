"""Game workers on Ray: the same games as :mod:`tournament.pool`, spread over a Ray cluster.

Each game worker is a Ray actor that referees one game at a time with bot processes of its own,
exactly as a local worker does (:func:`tournament.pool.play_spec`): bots are sandboxed processes
on the actor's node, limited per game as locally, and stay warm between that worker's games.
Every game is one actor call (a Ray task), so a cluster of many machines plays as many games at
once as it has workers. A record depends only on its :class:`~tournament.schedule.GameSpec`
(seeds are the spec's), so the records, and hence the ratings, equal the local backend's.

An actor that dies (a node lost) has its game played again by a fresh actor, once; twice is an
error of the runner, as locally. Ray is an optional extra (``pip install -e ".[distributed]"``),
imported only here.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from tournament.bots import BotProcess
from tournament.config import TournamentError
from tournament.pool import MatchSetup, play_spec
from tournament.schedule import GameSpec


def connect(address: str | None, cpus: int | None = None) -> None:
    """Join the Ray cluster at ``address`` or, with none, start a local instance on this
    machine's cores (``cpus`` of them if given); :class:`TournamentError` if Ray is missing
    or the cluster cannot be reached."""
    try:
        import ray
    except ImportError as exc:
        raise TournamentError('backend "ray" needs Ray: pip install -e ".[distributed]"') from exc
    if ray.is_initialized():
        return
    if address:
        _probe(address)
    try:
        if address:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(
                num_cpus=cpus,
                include_dashboard=False,
                log_to_driver=False,
                object_store_memory=200 * 2**20,
            )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise TournamentError(f"cannot reach the Ray cluster at {address!r}: {exc}") from exc


def _probe(address: str) -> None:
    """Refuse an unreachable ``HOST:PORT`` within seconds (Ray itself retries for minutes);
    other forms (``auto``, ``ray://...``) are left to Ray."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "/" in host:
        return
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        raise TournamentError(
            f"cannot reach the Ray cluster at {address!r}: {exc} (start it "
            "with `ray start --head`; docs/distributed.md)"
        ) from exc


class _GameWorker:
    """A Ray actor: one game at a time, with the bots it has started (module docstring)."""

    def __init__(self, setup: MatchSetup, index: int) -> None:
        self.setup, self.index = setup, index
        self.bots: dict[tuple[int, int], BotProcess] = {}  # (agent, copy) -> its bot

    def play(self, task: dict) -> dict:
        return play_spec(GameSpec(**task), self.setup, self.bots, self.index)

    def close(self) -> None:
        for bot in self.bots.values():
            bot.close()
        self.bots.clear()


def run_games_ray(
    todo: Sequence[GameSpec],
    setup: MatchSetup,
    workers: int | None,
    on_record: Callable[[dict], None],
    address: str | None = None,
    more: Callable[[], Sequence[GameSpec]] | None = None,
) -> None:
    """Play ``todo`` on Ray game workers (``workers`` of them, default one per CPU of the
    cluster), calling ``on_record(record)`` as each game ends and asking ``more`` for further
    games when the queue runs dry, like :func:`tournament.pool.run_games`."""
    if not todo:
        return
    import ray

    connect(address, workers)
    count = workers or int(ray.cluster_resources().get("CPU", 1))
    if more is None:
        count = min(count, len(todo))
    actor = ray.remote(num_cpus=1)(_GameWorker)
    # actor handles: Ray's types do not describe their remote methods
    pool: list[Any] = [actor.remote(setup, i) for i in range(max(count, 1))]
    pending = list(reversed(todo))

    def refill() -> bool:
        if not pending and more is not None:
            pending.extend(reversed(more()))
        return bool(pending)

    retried: set[int] = set()
    running: dict = {}  # object ref -> (worker index, spec)

    def send(i: int) -> None:
        spec = pending.pop()
        running[pool[i].play.remote(asdict(spec))] = (i, spec)

    try:
        for i in range(len(pool)):
            if refill():
                send(i)
        while running:
            ready, _ = ray.wait(list(running), num_returns=1)
            i, spec = running.pop(ready[0])
            try:
                record = ray.get(ready[0])
            except ray.exceptions.RayActorError as exc:  # the worker died: play again, once
                if spec.game in retried:
                    raise TournamentError(
                        f"game {spec.game}: the Ray game worker died twice ({exc}); this is a "
                        "fault of the runner, not of a bot - please report it"
                    ) from exc
                retried.add(spec.game)
                pending.append(spec)
                pool[i] = actor.remote(setup, i)
            else:
                on_record(record)
            if refill():
                send(i)
    finally:
        for worker in pool:
            with contextlib.suppress(Exception):  # a dead actor has nothing left to close
                ray.get(worker.close.remote(), timeout=10)
            ray.kill(worker)
