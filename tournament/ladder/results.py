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

from sqlalchemy import bindparam, func, insert, select, update
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
        for r in conn.execute(
            # a server database locks the rows (SQLite's BEGIN IMMEDIATE has locked it all)
            select(entries)
            .where(entries.c.id.in_(seat_ids))
            .order_by(entries.c.id)
            .with_for_update()
        ).mappings()
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
    ranks = record["ranks"]
    shares = [win_share(record, seat) for seat in range(len(seat_ids))]
    adjusted = [None if luck is None else shares[s] - float(luck[s]) for s in range(len(shares))]
    seat_rows, entry_rows, suspended = [], [], []
    for seat, entry_id in enumerate(seat_ids):
        entry, new, adj = by_id[entry_id], rated[seat][0], adjusted[seat]
        seat_rows.append(
            {
                "game_id": game_id,
                "seat": seat,
                "entry_id": entry_id,
                "rank": int(ranks[seat]),
                "coins": float(record["coins"][seat]),
                "share": shares[seat],
                "luck": None if luck is None else float(luck[seat]),
                "mu": new.mu,
                "sigma": new.sigma,
                "entry_game": entry.games + 1,
            }
        )
        streak = 0 if forfeit_entry is None else entry.fault_streak
        why = None
        if entry_id == forfeit_entry:
            streak += 1
            if streak >= settings.suspend_after and entry.suspended_reason is None:
                why = f"{streak} forfeits in a row, the last: {reason}"[:500]
                suspended.append(entry.label)
        entry_rows.append(
            {
                "entry": entry_id,
                "new_mu": new.mu,
                "new_sigma": new.sigma,
                "share": shares[seat],
                "adj": adj or 0.0,
                "adj2": (adj or 0.0) ** 2,
                "adj_n": 0 if adj is None else 1,
                "forfeit": int(entry_id == forfeit_entry),
                "streak": streak,
                "why": why,
            }
        )
    conn.execute(insert(schema.seats), seat_rows)
    conn.execute(ENTRY_UPDATE, entry_rows)
    pair_rows = []
    for i, j in itertools.permutations(range(len(seat_ids)), 2):
        adj = adjusted[i]
        pair_rows.append(
            {
                "a": seat_ids[i],
                "b": seat_ids[j],
                "met": 1,
                "ahead": 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0,
                "adjusted_sum": adj or 0.0,
                "adjusted_squares": (adj or 0.0) ** 2,
                "adjusted_games": 0 if adj is None else 1,
            }
        )
    _add_pairs(conn, pair_rows)
    if suspended:
        bump_entries_version(conn)
    return suspended


#: One seat's game added to its entry: the new rating, the totals, the fault streak, and the
#: suspension's reason where this game suspends it (one statement for every seat of a game).
ENTRY_UPDATE = (
    update(schema.entries)
    .where(schema.entries.c.id == bindparam("entry"))
    .values(
        mu=bindparam("new_mu"),
        sigma=bindparam("new_sigma"),
        games=schema.entries.c.games + 1,
        wins=schema.entries.c.wins + bindparam("share"),
        adjusted_sum=schema.entries.c.adjusted_sum + bindparam("adj"),
        adjusted_squares=schema.entries.c.adjusted_squares + bindparam("adj2"),
        adjusted_games=schema.entries.c.adjusted_games + bindparam("adj_n"),
        forfeits=schema.entries.c.forfeits + bindparam("forfeit"),
        fault_streak=bindparam("streak"),
        suspended_reason=func.coalesce(schema.entries.c.suspended_reason, bindparam("why")),
    )
)
PAIR_TOTALS = ("met", "ahead", "adjusted_sum", "adjusted_squares", "adjusted_games")


class Lost(Exception):
    """The game's claim went to another runner (this one was taken for gone)."""


def _add_pairs(conn: Connection, rows: list[dict[str, Any]]) -> None:
    """Add one game to the totals of each ordered pair of its seats (an upsert where the
    database has one)."""
    pairs = schema.pairs
    dialect = conn.dialect.name
    if dialect in ("sqlite", "postgresql"):
        if dialect == "sqlite":
            from sqlalchemy.dialects.sqlite import insert as upsert_sqlite

            statement: Any = upsert_sqlite(pairs)
        else:
            from sqlalchemy.dialects.postgresql import insert as upsert_pg

            statement = upsert_pg(pairs)
        added = {k: getattr(pairs.c, k) + getattr(statement.excluded, k) for k in PAIR_TOTALS}
        conn.execute(statement.on_conflict_do_update(index_elements=["a", "b"], set_=added), rows)
        return
    for row in rows:
        added = {k: getattr(pairs.c, k) + row[k] for k in PAIR_TOTALS}
        where = (pairs.c.a == row["a"]) & (pairs.c.b == row["b"])
        if conn.execute(update(pairs).where(where).values(**added)).rowcount == 0:
            conn.execute(insert(pairs).values(**row))
