"""Pattern search's prefilter: ``study_index.seen_wp`` … ``seen_bk``, where each man stood.

Twelve signed 64-bit bitboards a study (python-chess's squares, a1 = bit 0; bit
63 is the sign bit): the squares where a man of that kind stood in some node's
position, the start included.  A pattern that needs a man on some squares
skips, in SQL, every study whose man never stood there.  Studies indexed
before this revision have NULL: ``studydb index`` adds them.  Frozen: no
studydb imports.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

#: The columns, white pawn to black king (the order of studydb.positions' man codes).
COLUMNS = tuple(f"seen_{side}{piece}" for side in "wb" for piece in "pnbrqk")


def upgrade() -> None:
    with op.batch_alter_table("study_index") as batch:
        for column in COLUMNS:
            batch.add_column(sa.Column(column, sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("study_index") as batch:
        for column in reversed(COLUMNS):
            batch.drop_column(column)
