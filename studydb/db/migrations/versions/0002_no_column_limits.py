"""No column limit rejects a legitimate game: ``studies.result`` becomes text.

A Result tag may say more than 16 characters (``1-0 (White wins on time)``);
PostgreSQL enforced ``VARCHAR(16)`` and aborted the batch, SQLite did not.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("studies") as batch:
        batch.alter_column("result", type_=sa.Text(), existing_type=sa.String(16))


def downgrade() -> None:
    with op.batch_alter_table("studies") as batch:
        batch.alter_column("result", type_=sa.String(16), existing_type=sa.Text())
