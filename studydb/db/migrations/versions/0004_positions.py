"""The position index: positions, the classes studies reach, indexed studies.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

COUNTS = ("wq", "wr", "wb", "wn", "wp", "bq", "br", "bb", "bn", "bp", "men")


def upgrade() -> None:
    op.create_table(
        "materials",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("signature", sa.String(length=40), nullable=False),
        sa.Column("gbr", sa.String(length=7), nullable=False),
        sa.Column("pieces", sa.String(length=4), nullable=False),
        *(sa.Column(name, sa.SmallInteger(), nullable=False) for name in COUNTS),
        sa.PrimaryKeyConstraint("id", name="pk_materials"),
        sa.UniqueConstraint("signature", name="uq_materials_signature"),
    )
    op.create_table(
        "positions",
        sa.Column("similar", sa.BigInteger(), nullable=False),
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("node", sa.Integer(), nullable=False),
        sa.Column("image", sa.SmallInteger(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("main", sa.Boolean(), nullable=False),
        sa.Column("material_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("similar", "study_id", "node", name="pk_positions"),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "study_materials",
        sa.Column("material_id", sa.Integer(), nullable=False),
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("ends", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("material_id", "study_id", name="pk_study_materials"),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "study_index",
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("positions", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["study_id"],
            ["studies.id"],
            name="fk_study_index_study_id_studies",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("study_id", name="pk_study_index"),
        sqlite_with_rowid=False,
    )


def downgrade() -> None:
    op.drop_table("study_index")
    op.drop_table("study_materials")
    op.drop_table("positions")
    op.drop_table("materials")
