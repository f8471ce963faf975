"""Pattern search: ``study_index.boards``, every indexed position's board, per study.

A zlib-compressed block of fixed-width lines, one per node in node order
(:mod:`studydb.patterns`, "board lines").  Studies indexed before this revision
have none (NULL): ``studydb index`` adds it.  Frozen: no studydb imports.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("study_index") as batch:
        batch.add_column(sa.Column("boards", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("study_index") as batch:
        batch.drop_column("boards")
