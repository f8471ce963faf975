"""Study references: EG numbers, version/correction notes, mate-in-n.

Revision ID: 0003
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("studies") as batch:
        batch.add_column(sa.Column("mate_in", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("eg", sa.Text(), nullable=True))
        batch.add_column(sa.Column("note", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("studies") as batch:
        batch.drop_column("note")
        batch.drop_column("eg")
        batch.drop_column("mate_in")
