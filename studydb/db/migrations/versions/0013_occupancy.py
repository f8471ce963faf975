"""Pattern search's exact prefilter: ``study_index.occupancy``, each node's occupied squares.

A block a study, in node order: nine planes of a byte a node (ranks 1 to 8,
bit f file f set where a man stands; then flags: main line, White to move),
raw-deflated after a format byte (``studydb.patterns.encode_occupancy``).  A
pattern about empty or occupied squares (``8/*/*/*/*/*/*/*``, ``_a[1-8]{8}``)
is decided by it without reading the boards, and every FENPattern's ranks
narrow the studies whose boards are read.  Studies indexed before this
revision have NULL: ``studydb index`` adds it.  Frozen: no studydb imports.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("study_index") as batch:
        batch.add_column(sa.Column("occupancy", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("study_index") as batch:
        batch.drop_column("occupancy")
