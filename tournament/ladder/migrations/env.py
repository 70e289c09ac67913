"""Alembic's entry point: run the migrations on the connection the ladder hands over (no ini
file, no URL of its own: :func:`tournament.ladder.db.migrate` passes its connection)."""

from __future__ import annotations

from alembic import context

from tournament.ladder.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
