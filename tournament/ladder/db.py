"""The ladder's database: an engine that writes one transaction at a time, and its migrations.

SQLite by default (one file, ``DIR/ladder.db``), any SQLAlchemy URL otherwise. On SQLite every
write transaction starts with ``BEGIN IMMEDIATE``: it takes the write lock before it reads, so
two runners that rate the same bot one after the other never both read its old rating (a
plain ``BEGIN`` would let both read, and the second write would undo the first). Readers (the
table, the web pages) get an engine whose transactions start deferred, so they never wait for
a writer: with the write-ahead log a reader sees the last committed state while a game is
being written. ``synchronous=FULL`` makes a commit durable before it returns, so a game the
runner reports stored survives a ``kill -9`` or a power cut.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event

#: How long a connection waits for another's write lock before giving up, ms: a game's write
#: takes milliseconds, so only a stuck process holds it this long.
BUSY_TIMEOUT_MS = 60_000

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def make_engine(url: str, writer: bool = True) -> Engine:
    """An engine on ``url``; ``writer``: its transactions take SQLite's write lock at once
    (module docstring)."""
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True)
    # a reader serves many page requests at once (the web app's thread pool)
    sizes = {} if writer else {"pool_size": 10, "max_overflow": 30}
    engine = create_engine(url, connect_args={"check_same_thread": False}, **sizes)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, record: Any) -> None:
        dbapi_connection.isolation_level = None  # the driver starts no transaction itself
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writer else "BEGIN")

    return engine


def _alembic_config(connection: Any) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest schema this release knows."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory(str(MIGRATIONS)).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    """The schema the database has (None: an empty database)."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def migrate(engine: Engine, revision: str | None = None) -> None:
    """Bring the database to ``revision`` (:func:`head_revision` by default; an older one only
    to test an upgrade from it); nothing to do when it is there."""
    target = revision or head_revision()
    if current_revision(engine) == target:
        return
    from alembic import command

    with engine.begin() as connection:
        command.upgrade(_alembic_config(connection), target)
