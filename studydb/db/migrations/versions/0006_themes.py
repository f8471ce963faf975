"""Themes: one row per theme of a study (found by studydb, or named by its tags).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "study_themes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("theme", sa.String(length=64), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=True),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("source", sa.String(length=4), nullable=False),
        sa.ForeignKeyConstraint(
            ["study_id"],
            ["studies.id"],
            name="fk_study_themes_study_id_studies",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_study_themes"),
    )
    op.create_index("ix_study_themes_study_id", "study_themes", ["study_id"])
    op.create_index("ix_study_themes_theme_study_id", "study_themes", ["theme", "study_id"])


def downgrade() -> None:
    op.drop_table("study_themes")
