"""Soundness checks: one row per checked study, with its verdict and plies.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "checks",
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("verdict", sa.String(length=10), nullable=False),
        sa.Column("table_plies", sa.Integer(), nullable=False),
        sa.Column("engine_plies", sa.Integer(), nullable=False),
        sa.Column("claim_ply", sa.Integer(), nullable=True),
        sa.Column("error_ply", sa.Integer(), nullable=True),
        sa.Column("tables_men", sa.SmallInteger(), nullable=True),
        sa.Column("engine", sa.Text(), nullable=True),
        sa.Column("settings", sa.String(length=64), nullable=False),
        sa.Column("checked", sa.DateTime(timezone=True), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("plies", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["study_id"], ["studies.id"], name="fk_checks_study_id_studies", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("study_id", name="pk_checks"),
    )
    op.create_index("ix_checks_verdict", "checks", ["verdict"])


def downgrade() -> None:
    op.drop_table("checks")
