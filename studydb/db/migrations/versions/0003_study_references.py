"""Study references (EG numbers, version notes, mate-in-n); one index for the counts.

The eleven single-column indexes on the count columns (wq … bp, men) become
one index on (men, wq, wr, wb, wn, wp, bq, br, bb, bn, bp): ``--where``
conditions are answered from it alone, and the import maintains one index
where it maintained eleven.  The indexes on ``award_kind`` and ``run_id``
go: no query reads them (and no command deletes import runs).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


COUNTS = ("wq", "wr", "wb", "wn", "wp", "bq", "br", "bb", "bn", "bp", "men")
COUNTS_INDEX = "ix_studies_men_wq_wr_wb_wn_wp_bq_br_bb_bn_bp"
UNREAD = ("award_kind", "run_id")


def upgrade() -> None:
    with op.batch_alter_table("studies") as batch:
        batch.add_column(sa.Column("mate_in", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("eg", sa.Text(), nullable=True))
        batch.add_column(sa.Column("note", sa.Text(), nullable=True))
    for name in COUNTS:
        op.drop_index(f"ix_studies_{name}", table_name="studies")
    op.create_index(COUNTS_INDEX, "studies", ["men", *COUNTS[:-1]])
    for name in UNREAD:
        op.drop_index(f"ix_studies_{name}", table_name="studies")


def downgrade() -> None:
    for name in UNREAD:
        op.create_index(f"ix_studies_{name}", "studies", [name])
    op.drop_index(COUNTS_INDEX, table_name="studies")
    for name in COUNTS:
        op.create_index(f"ix_studies_{name}", "studies", [name])
    with op.batch_alter_table("studies") as batch:
        batch.drop_column("note")
        batch.drop_column("eg")
        batch.drop_column("mate_in")
