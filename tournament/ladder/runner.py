"""``camelup ladder run``: play the ladder's games until stopped or until it holds enough.

A runner (:mod:`tournament.ladder.claims`) takes deals and plays them on the tournament's game
workers (:func:`tournament.pool.run_games`, or :func:`tournament.ray_pool.run_games_ray` on a
Ray cluster), which referee each game with sandboxed bot processes exactly as a tournament
does; the pool asks for the next deal whenever its queue runs dry, so bots stay warm between
deals. As each game ends, this process - the one that owns the database - adds its luck
(:mod:`tournament.luck`), appends its record to the runner's tournament folder
(:mod:`tournament.ladder.segments`) and stores it (:mod:`tournament.ladder.results`). When a
bot is added, retired or suspended, the pool finishes its games in flight and starts again
with the new set of bots.
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tournament.config import AgentEntry
from tournament.ladder.claims import (
    HEARTBEAT_SECONDS,
    Claim,
    counts,
    heartbeat,
    register,
    take,
    unregister,
)
from tournament.ladder.results import Lost, store_game
from tournament.ladder.segments import Segment
from tournament.ladder.store import Ladder
from tournament.luck import GameLuck
from tournament.pool import MatchSetup, run_games
from tournament.run import add_luck
from tournament.schedule import GameSpec

#: Seconds between looks at the ladder while there is nothing to play.
IDLE_POLL_SECONDS = 1.0
#: Tables' worth of bot processes a game worker keeps warm: a ladder of many bots seats a
#: different table each deal, and a worker keeping every bot it met would hold them all.
WARM_TABLES = 3


@dataclass
class _PoolState:
    """What the pool's last ask for games found: the bots are out of date (``refresh``), or
    why there was nothing to play (``idle``)."""

    refresh: bool = False
    idle: str = ""


def spec_of(claim: Claim, index: dict[int, int]) -> GameSpec:
    """The pool's game for a claim (``index``: entry id -> its place in the setup)."""
    return GameSpec(
        game=claim.game,
        round=claim.deal,
        lineup=0,
        rotation=claim.rotation,
        seed=claim.seed,
        seats=tuple(index[e] for e in claim.seats),
    )


def run_ladder(
    folder: Path,
    workers: int | None = None,
    games: int | None = None,
    backend: str = "local",
    address: str | None = None,
    say: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
    each_game: Callable[[dict], None] | None = None,
) -> int:
    """Play until stopped (Ctrl-C, SIGTERM) or until the ladder holds ``games`` games; return
    the games this runner stored. ``say`` gets the lines a person reads (suspensions, waits);
    ``each_game`` every stored record."""
    ladder = Ladder.open(folder)
    settings = ladder.settings()
    rules = settings.ruleset()
    if backend == "ray":  # a missing Ray or cluster is found before anything is claimed
        from tournament.ray_pool import connect

        connect(address, workers)
    runner = register(ladder)
    segment = Segment(folder, f"r{runner.id:06d}", settings)
    game_luck = GameLuck.shipped(rules)
    beating = threading.Event()

    def beat() -> None:
        while not beating.wait(HEARTBEAT_SECONDS):
            heartbeat(ladder, runner.id)

    threading.Thread(target=beat, daemon=True, name="ladder-heartbeat").start()
    rng = random.Random(settings.seed * 1_000_003 + runner.id)
    stored = 0
    logs = folder / "bots"
    logs.mkdir(exist_ok=True)
    count = workers or os.cpu_count() or 1

    def on_record(record: dict) -> None:
        nonlocal stored
        if game_luck is not None:
            add_luck(record, game_luck)
        place = segment.append(record)
        try:
            suspended = store_game(ladder, runner.id, record, place)
        except Lost as exc:
            say(f"{exc}: another runner took it over")
            return
        stored += 1
        for label in suspended:
            say(f"{label} is suspended: {ladder.entry(label).suspended_reason}")
        if each_game is not None:
            each_game(record)

    try:
        last_idle = ""
        while True:
            version = ladder.entries_version()
            entries = ladder.entries()
            index = {e.id: i for i, e in enumerate(entries)}
            setup = MatchSetup(
                tuple(AgentEntry(e.label, e.spec, e.kwargs) for e in entries),
                rules.to_dict(),
                settings.limits,
                settings.max_turns,
                str(logs),
                warm_bots=WARM_TABLES * settings.players,
            )
            state = _PoolState()

            def more(
                version: int = version, index: dict[int, int] = index, state: _PoolState = state
            ) -> list[GameSpec]:
                if state.refresh or ladder.entries_version() != version:
                    state.refresh = True
                    return []
                work = take(ladder, runner.id, set(index), games, rng)
                state.refresh, state.idle = work.refresh, work.idle
                return [spec_of(c, index) for c in work.claims]

            first: list[GameSpec] = []
            while len(first) < count and (new := more()):
                first += new
            if first:
                last_idle = ""
                if backend == "ray":
                    from tournament.ray_pool import run_games_ray

                    run_games_ray(first, setup, workers, on_record, address, more=more)
                else:
                    run_games(first, setup, count, on_record, more=more)
                continue
            if state.refresh:
                continue
            if games is not None and counts(ladder)["done"] >= games:
                break
            if state.idle != last_idle:
                say(state.idle)
                last_idle = state.idle
            time.sleep(IDLE_POLL_SECONDS)
    finally:
        beating.set()
        segment.close()
        unregister(ladder, runner)
        ladder.close()
    return stored
