"""Storing a played game: its index row, its seats, the ratings and totals, in one transaction.

:func:`store_game` marks the game done only if this runner still holds its claim
(:mod:`tournament.ladder.claims`), and in the same transaction rates the table (openskill
Plackett-Luce, as :func:`tournament.ratings.summarise` does, in the order games are stored),
adds each seat's result and rating after the game (``seats``), the entries' running totals and
the pair totals of the head-to-head table; so a game counts everywhere or nowhere. A bot that
forfeits has its fault streak raised, and is suspended (seated no more) when the streak reaches
the ladder's ``suspend_after``, the forfeit's reason kept for its owner; a game without a
forfeit clears the streak of every bot at the table.
"""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.engine import Connection

from tournament.ladder import schema
from tournament.ladder.store import Ladder, Settings, bump_entries_version, entry_of
from tournament.ratings import win_share


@dataclass(frozen=True)
class Place:
    """Where a game's record lies: ``DIR/games/SEGMENT/games.jsonl`` from ``offset``."""

    segment: str
    offset: int
    length: int


def store_game(ladder: Ladder, runner_id: int, record: dict[str, Any], place: Place) -> list[str]:
    """Store the played game ``record`` (module docstring) and return the labels of the bots it
    suspended; :class:`Lost` when the claim was taken over (the game is another runner's)."""
    with ladder.engine.begin() as conn:
        return record_game(conn, ladder.settings(conn), runner_id, record, place)


def record_game(
    conn: Connection, settings: Settings, runner_id: int, record: dict[str, Any], place: Place
) -> list[str]:
    """:func:`store_game` within the caller's transaction ``conn`` (a bulk load stores many
    games in one)."""
    from openskill.models import PlackettLuce

    games, entries = schema.games, schema.entries
    game_id = record["game"]
    row = conn.execute(select(games).where(games.c.id == game_id)).first()
    if row is None or row.status != "claimed" or row.runner_id != runner_id:
        raise Lost(f"game {game_id} is no longer this runner's to store")
    seat_ids = json.loads(row.seats)
    by_id = {
        r["id"]: entry_of(r)
        for r in conn.execute(select(entries).where(entries.c.id.in_(seat_ids))).mappings()
    }
    labels = [by_id[i].label for i in seat_ids]
    if labels != record["agents"]:
        raise ValueError(f"game {game_id}: seats {record['agents']} are not the claim's")
    forfeit = record.get("forfeit")
    forfeit_entry = seat_ids[forfeit["seat"]] if forfeit else None
    reason = str(forfeit["reason"])[:500] if forfeit else None
    conn.execute(
        update(games)
        .where(games.c.id == game_id)
        .values(
            status="done",
            finished_at=time.time(),
            segment=place.segment,
            offset=place.offset,
            length=place.length,
            forfeit_entry=forfeit_entry,
            forfeit_reason=reason,
            turns=record.get("turns"),
        )
    )
    model = PlackettLuce()
    teams = [[model.rating(mu=by_id[i].mu, sigma=by_id[i].sigma)] for i in seat_ids]
    rated = model.rate(teams, ranks=list(record["ranks"]))
    luck = record.get("luck")
    suspended = []
    for seat, entry_id in enumerate(seat_ids):
        entry = by_id[entry_id]
        share = win_share(record, seat)
        adjusted = None if luck is None else share - float(luck[seat])
        new = rated[seat][0]
        conn.execute(
            insert(schema.seats).values(
                game_id=game_id,
                seat=seat,
                entry_id=entry_id,
                rank=int(record["ranks"][seat]),
                coins=float(record["coins"][seat]),
                share=share,
                luck=None if luck is None else float(luck[seat]),
                mu=new.mu,
                sigma=new.sigma,
            )
        )
        values: dict[str, Any] = {
            "mu": new.mu,
            "sigma": new.sigma,
            "games": entries.c.games + 1,
            "wins": entries.c.wins + share,
        }
        if adjusted is not None:
            values.update(
                adjusted_sum=entries.c.adjusted_sum + adjusted,
                adjusted_squares=entries.c.adjusted_squares + adjusted * adjusted,
                adjusted_games=entries.c.adjusted_games + 1,
            )
        if entry_id == forfeit_entry:
            streak = entry.fault_streak + 1
            values.update(forfeits=entries.c.forfeits + 1, fault_streak=streak)
            if streak >= settings.suspend_after and entry.suspended_reason is None:
                values["suspended_reason"] = f"{streak} forfeits in a row, the last: {reason}"[:500]
                suspended.append(entry.label)
        elif forfeit_entry is None:
            values["fault_streak"] = 0
        conn.execute(update(entries).where(entries.c.id == entry_id).values(**values))
    for i, j in itertools.permutations(range(len(seat_ids)), 2):
        ranks = record["ranks"]
        ahead = 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
        adjusted = None if luck is None else win_share(record, i) - float(luck[i])
        _add_pair(conn, seat_ids[i], seat_ids[j], ahead, adjusted)
    if suspended:
        bump_entries_version(conn)
    return suspended


class Lost(Exception):
    """The game's claim went to another runner (this one was taken for gone)."""


def _add_pair(conn: Connection, a: int, b: int, ahead: float, adjusted: float | None) -> None:
    """Add one game to the totals of ``a`` against ``b`` (an upsert where the database has
    one)."""
    n = 0 if adjusted is None else 1
    adj = adjusted or 0.0
    values = {
        "met": 1,
        "ahead": ahead,
        "adjusted_sum": adj,
        "adjusted_squares": adj * adj,
        "adjusted_games": n,
    }
    pairs = schema.pairs
    dialect = conn.dialect.name
    added = {key: getattr(pairs.c, key) + value for key, value in values.items()}
    if dialect == "sqlite":
        from sqlalchemy.dialects import sqlite

        lite = sqlite.insert(pairs).values(a=a, b=b, **values)
        conn.execute(lite.on_conflict_do_update(index_elements=["a", "b"], set_=added))
        return
    if dialect == "postgresql":
        from sqlalchemy.dialects import postgresql

        pg = postgresql.insert(pairs).values(a=a, b=b, **values)
        conn.execute(pg.on_conflict_do_update(index_elements=["a", "b"], set_=added))
        return
    done = conn.execute(update(pairs).where(pairs.c.a == a, pairs.c.b == b).values(**added))
    if done.rowcount == 0:
        conn.execute(insert(pairs).values(a=a, b=b, **values))
