"""Initial schema: studies, composers, import runs, rejects.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

COUNTS = ("wq", "wr", "wb", "wn", "wp", "bq", "br", "bb", "bn", "bp", "men")
STUDY_INDEXES = (
    "gbr", "pieces", *COUNTS, "signature", "zobrist", "stipulation", "year",
    "award_kind", "valid", "run_id",
)  # fmt: skip


def _run_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["run_id"], ["import_runs.id"], name=f"fk_{table}_run_id_import_runs", ondelete="SET NULL"
    )


def upgrade() -> None:
    op.create_table(
        "import_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("file", sa.Text(), nullable=False),
        sa.Column("started", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished", sa.DateTime(timezone=True), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("read", sa.Integer(), nullable=False),
        sa.Column("stored", sa.Integer(), nullable=False),
        sa.Column("duplicates", sa.Integer(), nullable=False),
        sa.Column("rejected", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_import_runs"),
    )
    op.create_table(
        "composers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("key", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_composers"),
        sa.UniqueConstraint("name", name="uq_composers_name"),
    )
    op.create_index("ix_composers_key", "composers", ["key"])
    op.create_table(
        "studies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("gbr", sa.String(length=7), nullable=False),
        sa.Column("pieces", sa.String(length=4), nullable=False),
        *(sa.Column(name, sa.SmallInteger(), nullable=False) for name in COUNTS),
        sa.Column("signature", sa.String(length=40), nullable=False),
        sa.Column("fen", sa.Text(), nullable=False),
        sa.Column("turn", sa.String(length=1), nullable=False),
        sa.Column("zobrist", sa.BigInteger(), nullable=False),
        sa.Column("stipulation", sa.String(length=8), nullable=True),
        sa.Column("result", sa.String(length=16), nullable=True),
        sa.Column("composer_names", sa.Text(), nullable=True),
        sa.Column("source", sa.Text(), nullable=True),
        sa.Column("year", sa.Integer(), nullable=True),
        sa.Column("award", sa.Text(), nullable=True),
        sa.Column("award_kind", sa.String(length=16), nullable=True),
        sa.Column("award_rank", sa.Integer(), nullable=True),
        sa.Column("headers", sa.JSON(), nullable=False),
        sa.Column("pgn", sa.Text(), nullable=False),
        sa.Column("encoding", sa.String(length=16), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("valid", sa.Boolean(), nullable=True),
        sa.Column("errors", sa.JSON(), nullable=True),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("file", sa.Text(), nullable=True),
        sa.Column("line", sa.Integer(), nullable=True),
        sa.Column("offset", sa.BigInteger(), nullable=True),
        _run_fk("studies"),
        sa.PrimaryKeyConstraint("id", name="pk_studies"),
        sa.UniqueConstraint("content_hash", name="uq_studies_content_hash"),
    )
    for column in STUDY_INDEXES:
        op.create_index(f"ix_studies_{column}", "studies", [column])
    op.create_table(
        "study_composers",
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.SmallInteger(), nullable=False),
        sa.Column("composer_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["composer_id"],
            ["composers.id"],
            name="fk_study_composers_composer_id_composers",
            ondelete="RESTRICT",
        ),
        sa.ForeignKeyConstraint(
            ["study_id"],
            ["studies.id"],
            name="fk_study_composers_study_id_studies",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("study_id", "position", name="pk_study_composers"),
    )
    op.create_index(
        "ix_study_composers_composer_id_study_id", "study_composers", ["composer_id", "study_id"]
    )
    op.create_table(
        "rejects",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("raw_hash", sa.String(length=64), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("file", sa.Text(), nullable=True),
        sa.Column("line", sa.Integer(), nullable=True),
        sa.Column("offset", sa.BigInteger(), nullable=True),
        _run_fk("rejects"),
        sa.PrimaryKeyConstraint("id", name="pk_rejects"),
        sa.UniqueConstraint("raw_hash", name="uq_rejects_raw_hash"),
    )
    op.create_index("ix_rejects_run_id", "rejects", ["run_id"])


def downgrade() -> None:
    op.drop_table("rejects")
    op.drop_table("study_composers")
    op.drop_table("studies")
    op.drop_table("composers")
    op.drop_table("import_runs")
