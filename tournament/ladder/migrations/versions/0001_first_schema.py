"""The first schema: settings, entries, runners, games, seats, pairs.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "settings",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("limits", sa.Text, nullable=False),
        sa.Column("max_turns", sa.Integer, nullable=False),
        sa.Column("suspend_after", sa.Integer, nullable=False),
        sa.Column("newcomer_games", sa.Integer, nullable=False),
        sa.Column("entries_version", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "entries",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("spec", sa.Text, nullable=False),
        sa.Column("kwargs", sa.Text, nullable=False),
        sa.Column("origin", sa.String(16), nullable=False),
        sa.Column("token_hash", sa.String(128)),
        sa.Column("added_at", sa.Float, nullable=False),
        sa.Column("retired_at", sa.Float),
        sa.Column("suspended_reason", sa.Text),
        sa.Column("fault_streak", sa.Integer, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Float, nullable=False),
        sa.Column("adjusted_sum", sa.Float, nullable=False),
        sa.Column("adjusted_squares", sa.Float, nullable=False),
        sa.Column("adjusted_games", sa.Integer, nullable=False),
        sa.Column("forfeits", sa.Integer, nullable=False),
        sa.UniqueConstraint("name", "version", name="uq_entries_name_version"),
    )
    op.create_table(
        "runners",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("heartbeat_at", sa.Float, nullable=False),
        sa.Column("stopped_at", sa.Float),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("deal", sa.Integer, nullable=False),
        sa.Column("rotation", sa.Integer, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("runner_id", sa.Integer, sa.ForeignKey("runners.id"), nullable=False),
        sa.Column("claimed_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float),
        sa.Column("segment", sa.String(64)),
        sa.Column("offset", sa.BigInteger),
        sa.Column("length", sa.Integer),
        sa.Column("forfeit_entry", sa.Integer),
        sa.Column("forfeit_reason", sa.Text),
        sa.Column("turns", sa.Integer),
        sa.UniqueConstraint("deal", "rotation", name="uq_games_deal_rotation"),
    )
    op.create_index("ix_games_status", "games", ["status"])
    op.create_table(
        "seats",
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("entry_id", sa.Integer, sa.ForeignKey("entries.id"), nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("coins", sa.Float, nullable=False),
        sa.Column("share", sa.Float, nullable=False),
        sa.Column("luck", sa.Float),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
    )
    op.create_index("ix_seats_entry_game", "seats", ["entry_id", "game_id"])
    op.create_table(
        "pairs",
        sa.Column("a", sa.Integer, sa.ForeignKey("entries.id"), primary_key=True),
        sa.Column("b", sa.Integer, sa.ForeignKey("entries.id"), primary_key=True),
        sa.Column("met", sa.Integer, nullable=False),
        sa.Column("ahead", sa.Float, nullable=False),
        sa.Column("adjusted_sum", sa.Float, nullable=False),
        sa.Column("adjusted_squares", sa.Float, nullable=False),
        sa.Column("adjusted_games", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    for table in ("pairs", "seats", "games", "runners", "entries", "settings"):
        op.drop_table(table)
