"""Each seat's game number of its entry: the order the entry's rating moved in.

A rating history ordered by game id misplaced games that two workers claimed in one order and
stored in the other; each seat now records its entry's game count after the game, taken under
the entry's lock. Stored games get theirs from the order they finished in.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("seats", sa.Column("entry_game", sa.Integer))
    op.execute(
        """
        UPDATE seats SET entry_game = (
            SELECT numbered.n FROM (
                SELECT s.game_id AS game_id, s.seat AS seat, ROW_NUMBER() OVER (
                    PARTITION BY s.entry_id ORDER BY g.finished_at, s.game_id
                ) AS n
                FROM seats s JOIN games g ON g.id = s.game_id
            ) numbered
            WHERE numbered.game_id = seats.game_id AND numbered.seat = seats.seat
        )
        """
    )
    with op.batch_alter_table("seats") as batch:
        batch.alter_column("entry_game", existing_type=sa.Integer, nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("entry_game")
