"""Manoeuvre search: ``study_index.moves``, every node's ply facts, and ``study_moves``.

``moves`` is a zlib-compressed block of fixed-width lines, one per node in node
order (:mod:`studydb.lines`, "ply facts"); ``study_moves`` holds the keys of a
study's moves (a man to a square, a man's capture, a promotion, a check, mate
or stalemate), each with whether it occurs on the main line: the prefilter of
``--line``.  Studies indexed before this revision have neither: ``studydb
index`` adds them.  Frozen: no studydb imports.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("study_index") as batch:
        batch.add_column(sa.Column("moves", sa.LargeBinary(), nullable=True))
    op.create_table(
        "study_moves",
        sa.Column("key", sa.SmallInteger(), nullable=False),
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("main", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("key", "study_id", name="pk_study_moves"),
        sqlite_with_rowid=False,
    )


def downgrade() -> None:
    op.drop_table("study_moves")
    with op.batch_alter_table("study_index") as batch:
        batch.drop_column("moves")
