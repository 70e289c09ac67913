"""Work sharing: runners claim deals in the database, so no game is played twice.

A runner (:func:`register`) is a row of ``runners`` and a lock file ``DIR/runners/ID.lock``
that it holds (``flock``) for its life; the kernel drops the lock when the process ends, even on
``kill -9``. A runner takes work in one write transaction (:func:`take`): first the unfinished
games of runners that are gone - stopped, their lock free on this machine, or silent for
:data:`STALE_SECONDS` (a runner on another machine) - else a new deal, chosen by
:mod:`tournament.ladder.choice`, its games inserted as ``claimed`` by this runner. Storing a
game (:mod:`tournament.ladder.results`) succeeds only for the runner that holds its claim, in
the same transaction that marks it done, so a game taken over from a runner believed gone is
stored once whoever finishes it first.
"""

from __future__ import annotations

import fcntl
import json
import os
import random
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Connection

from tournament.ladder import schema
from tournament.ladder.choice import choose_table, rotations
from tournament.ladder.store import Ladder, LadderError, entry_of, new_id
from tournament.schedule import SEED_STRIDE

#: A runner that has not written its heartbeat for this long is taken for gone (its games are
#: played by others); the heartbeat is written every :data:`HEARTBEAT_SECONDS`.
STALE_SECONDS, HEARTBEAT_SECONDS = 60.0, 5.0


@dataclass(frozen=True)
class Claim:
    """A game this runner is to play."""

    game: int
    deal: int
    rotation: int
    seed: int
    seats: tuple[int, ...]  # entry ids


@dataclass
class Runner:
    """This process as a runner of the ladder: its id and its held lock."""

    id: int
    lock: IO[str] | None

    def release(self) -> None:
        if self.lock is not None:
            self.lock.close()
            self.lock = None


def _lock_path(ladder: Ladder, runner_id: int) -> Path:
    return ladder.folder / "runners" / f"{runner_id}.lock"


def register(ladder: Ladder) -> Runner:
    """Enter this process as a runner and hold its lock (module docstring)."""
    now = time.time()
    with ladder.engine.begin() as conn:
        runner_id = new_id(
            conn.execute(
                insert(schema.runners).values(
                    host=socket.gethostname(), pid=os.getpid(), started_at=now, heartbeat_at=now
                )
            )
        )
    path = _lock_path(ladder, runner_id)
    path.parent.mkdir(exist_ok=True)
    lock = open(path, "w")  # noqa: SIM115 (held for the runner's life)
    fcntl.flock(lock, fcntl.LOCK_EX)
    return Runner(runner_id, lock)


def heartbeat(ladder: Ladder, runner_id: int) -> None:
    with ladder.engine.begin() as conn:
        conn.execute(
            update(schema.runners)
            .where(schema.runners.c.id == runner_id)
            .values(heartbeat_at=time.time())
        )


def unregister(ladder: Ladder, runner: Runner) -> None:
    """This runner stops: its unfinished claims go to whoever takes work next."""
    with ladder.engine.begin() as conn:
        conn.execute(
            update(schema.runners)
            .where(schema.runners.c.id == runner.id)
            .values(stopped_at=time.time())
        )
    runner.release()


def _gone(ladder: Ladder, row) -> bool:
    """Whether the runner of ``row`` has ended (module docstring)."""
    if row.stopped_at is not None:
        return True
    if row.host == socket.gethostname():
        path = _lock_path(ladder, row.id)
        try:
            with open(path) as fh:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True  # nobody holds it: closing the file drops it again
        except BlockingIOError:
            return False
        except FileNotFoundError:
            return True
    return time.time() - row.heartbeat_at > STALE_SECONDS


def _orphans(ladder: Ladder, conn: Connection, runner_id: int) -> list:
    """The claimed games of runners that are gone."""
    games, runners = schema.games, schema.runners
    others = conn.execute(
        select(runners)
        .where(runners.c.id != runner_id)
        .where(
            runners.c.id.in_(
                select(games.c.runner_id).where(games.c.status == "claimed").distinct()
            )
        )
    ).all()
    gone = [row.id for row in others if _gone(ladder, row)]
    if not gone:
        return []
    return list(
        conn.execute(
            select(games)
            .where(games.c.status == "claimed", games.c.runner_id.in_(gone))
            .order_by(games.c.id)
        )
    )


def _claim(row) -> Claim:
    return Claim(row.id, row.deal, row.rotation, row.seed, tuple(json.loads(row.seats)))


@dataclass(frozen=True)
class Work:
    """What :func:`take` found: games to play; ``refresh`` if the runner's bots are out of
    date (an entry added since it started); ``idle`` a line saying why there is nothing."""

    claims: list[Claim]
    refresh: bool = False
    idle: str = ""


def take(
    ladder: Ladder, runner_id: int, known: set[int], target: int | None, rng: random.Random
) -> Work:
    """Games for this runner (module docstring): orphans first, else a new deal, unless the
    ladder holds (or has claimed) ``target`` games."""
    games = schema.games
    with ladder.engine.begin() as conn:
        # one runner takes work at a time: SQLite's BEGIN IMMEDIATE, a server's row lock
        conn.execute(select(schema.settings.c.id).with_for_update())
        orphans = _orphans(ladder, conn, runner_id)
        if orphans:
            if any(set(json.loads(row.seats)) - known for row in orphans):
                return Work([], refresh=True)
            conn.execute(
                update(games)
                .where(games.c.id.in_([row.id for row in orphans]), games.c.status == "claimed")
                .values(runner_id=runner_id, claimed_at=time.time())
            )
            return Work([_claim(row) for row in orphans])
        if target is not None:
            held = conn.execute(select(func.count()).select_from(games)).scalar_one()
            if held >= target:
                return Work([], idle=f"the ladder holds or is playing {held} of {target} games")
        settings = ladder.settings(conn)
        active = [
            entry_of(r)
            for r in conn.execute(
                select(schema.entries).where(
                    schema.entries.c.retired_at.is_(None),
                    schema.entries.c.suspended_reason.is_(None),
                )
            ).mappings()
        ]
        if any(e.id not in known for e in active):
            return Work([], refresh=True)
        try:
            table = choose_table(active, settings.players, settings.newcomer_games, rng)
        except ValueError as exc:
            return Work([], idle=f"waiting for bots: {exc}")
        last = conn.execute(select(func.max(games.c.deal))).scalar_one()
        deal = 0 if last is None else last + 1
        if deal >= SEED_STRIDE:
            raise LadderError(f"the ladder has dealt {SEED_STRIDE:,} deals, its most")
        seed = settings.seed * SEED_STRIDE + deal
        now = time.time()
        claims = []
        for rotation, seats in enumerate(rotations([e.id for e in table])):
            game_id = new_id(
                conn.execute(
                    insert(games).values(
                        deal=deal,
                        rotation=rotation,
                        seed=seed,
                        seats=json.dumps(seats),
                        status="claimed",
                        runner_id=runner_id,
                        claimed_at=now,
                    )
                )
            )
            claims.append(Claim(game_id, deal, rotation, seed, seats))
        return Work(claims)


def counts(ladder: Ladder) -> dict[str, int]:
    """Games by status (``done``, ``claimed``)."""
    games = schema.games
    with ladder.reader.connect() as conn:
        rows = conn.execute(select(games.c.status, func.count()).group_by(games.c.status)).all()
    found = {status: n for status, n in rows}
    return {"done": found.get("done", 0), "claimed": found.get("claimed", 0)}
