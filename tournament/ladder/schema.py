"""The ladder's tables: what a tournament folder cannot answer quickly.

A game's record (every action, the coins, the luck) lives in a tournament folder's
``games.jsonl`` (:mod:`tournament.ladder.segments`); the database keeps what is asked of many
games at once: the entries and their versions, each entry's rating and running totals, the
index of games (who sat where, who claimed it, where its record lies), each seat's result and
rating after the game (the rating plot, a bot's recent games), and the pair totals of the
head-to-head table. The tables change only through the migrations in
:mod:`tournament.ladder.migrations`; this module is what the code reads and writes with.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

#: One row: the game every table of the ladder plays, and the limits of its bots.
settings = Table(
    "settings",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("preset", String(32), nullable=False),
    Column("players", Integer, nullable=False),
    Column("rules", Text, nullable=False),  # JSON: extra RuleSet fields
    Column("seed", BigInteger, nullable=False),
    Column("limits", Text, nullable=False),  # JSON: tournament.config.Limits
    Column("max_turns", Integer, nullable=False),
    Column("suspend_after", Integer, nullable=False),
    Column("newcomer_games", Integer, nullable=False),
    Column("entries_version", Integer, nullable=False),  # bumped by add, retire, suspend
    Column("created_at", Float, nullable=False),
)

entries = Table(
    "entries",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(64), nullable=False),
    Column("version", Integer, nullable=False),
    Column("spec", Text, nullable=False),
    Column("kwargs", Text, nullable=False),  # JSON
    Column("origin", String(16), nullable=False),  # owner (command line) or upload (a page)
    Column("token_hash", String(128)),  # an uploaded name's token, hashed
    Column("added_at", Float, nullable=False),
    Column("retired_at", Float),
    Column("suspended_reason", Text),  # why the ladder stopped seating it
    Column("fault_streak", Integer, nullable=False, default=0),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False, default=0),
    Column("wins", Float, nullable=False, default=0.0),  # sum of win shares
    Column("adjusted_sum", Float, nullable=False, default=0.0),  # sum of share - luck
    Column("adjusted_squares", Float, nullable=False, default=0.0),
    Column("adjusted_games", Integer, nullable=False, default=0),
    Column("forfeits", Integer, nullable=False, default=0),
    UniqueConstraint("name", "version", name="uq_entries_name_version"),
)

#: A process playing the ladder's games; its claims are void once it is gone.
runners = Table(
    "runners",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("host", String(255), nullable=False),
    Column("pid", Integer, nullable=False),
    Column("started_at", Float, nullable=False),
    Column("heartbeat_at", Float, nullable=False),
    Column("stopped_at", Float),
)

#: The index of games: one row from the claim on, ``done`` once its record is stored.
games = Table(
    "games",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("deal", Integer, nullable=False),  # the games of one deal share seed and line-up
    Column("rotation", Integer, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("seats", Text, nullable=False),  # JSON: entry id per seat
    Column("status", String(8), nullable=False),  # claimed | done
    Column("runner_id", Integer, ForeignKey("runners.id"), nullable=False),
    Column("claimed_at", Float, nullable=False),
    Column("finished_at", Float),
    Column("segment", String(64)),  # the tournament folder its record is in
    Column("offset", BigInteger),
    Column("length", Integer),
    Column("forfeit_entry", Integer),
    Column("forfeit_reason", Text),
    Column("turns", Integer),
    UniqueConstraint("deal", "rotation", name="uq_games_deal_rotation"),
    Index("ix_games_status", "status"),
)

#: Each seat of each stored game: its result, its luck and its entry's rating after it.
seats = Table(
    "seats",
    metadata,
    Column("game_id", Integer, ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("entry_id", Integer, ForeignKey("entries.id"), nullable=False),
    Column("rank", Integer, nullable=False),
    Column("coins", Float, nullable=False),
    Column("share", Float, nullable=False),
    Column("luck", Float),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    # the entry's games after this one: the order its rating moved in, which is the order the
    # games were stored (under the entry's lock), not their ids' (claimed earlier, finished later)
    Column("entry_game", Integer, nullable=False),
    Index("ix_seats_entry_game", "entry_id", "game_id"),
)

#: Running totals of entry ``a`` in the games it shared with entry ``b``.
pairs = Table(
    "pairs",
    metadata,
    Column("a", Integer, ForeignKey("entries.id"), primary_key=True),
    Column("b", Integer, ForeignKey("entries.id"), primary_key=True),
    Column("met", Integer, nullable=False),
    Column("ahead", Float, nullable=False),  # a ranked above b: 1, tied: 1/2
    Column("adjusted_sum", Float, nullable=False),
    Column("adjusted_squares", Float, nullable=False),
    Column("adjusted_games", Integer, nullable=False),
)
