"""The register of persons; a study's version flag, number in its source, reprint and kind.

``persons`` groups the composer names (``composers.person_id``), with the
keys names are compared by; ``composer_decisions`` keeps the users'
``same``/``apart``/``alias`` decisions by name.  ``studies`` gains
``version`` (HHdb's ``(c)``/``(m)``/``(v)``/``(s)``), ``number``, ``reprint``
and ``kind``.  Schema only, as every migration: the stored names' keys and
persons, and the text entries among the stored rows, are derived by the
upgrading studydb's rules afterwards (:mod:`studydb.db.derived`).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "persons",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_persons"),
    )
    with op.batch_alter_table("composers") as batch:
        batch.add_column(sa.Column("person_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("surname_key", sa.Text(), nullable=True))
        batch.add_column(sa.Column("given_key", sa.Text(), nullable=True))
        batch.add_column(sa.Column("given_initial", sa.String(length=4), nullable=True))
        batch.create_foreign_key(
            "fk_composers_person_id_persons", "persons", ["person_id"], ["id"], ondelete="SET NULL"
        )
        batch.create_index("ix_composers_person_id", ["person_id"])
        batch.create_index("ix_composers_surname_key", ["surname_key"])
    op.create_table(
        "composer_decisions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("other", sa.Text(), nullable=False),
        sa.Column("made", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_composer_decisions"),
    )
    op.create_index(
        "uq_composer_decisions_kind_name_other",
        "composer_decisions",
        ["kind", "name", "other"],
        unique=True,
    )
    # Plain ALTER TABLE … ADD COLUMN (no table copy): cheap on a large collection.
    op.add_column("studies", sa.Column("version", sa.String(length=12), nullable=True))
    op.add_column("studies", sa.Column("number", sa.Text(), nullable=True))
    op.add_column("studies", sa.Column("reprint", sa.Text(), nullable=True))
    op.add_column(
        "studies",
        sa.Column("kind", sa.String(length=8), server_default="study", nullable=False),
    )
    op.create_index("ix_studies_kind", "studies", ["kind"])


def downgrade() -> None:
    op.drop_index("ix_studies_kind", table_name="studies")
    with op.batch_alter_table("studies") as batch:
        batch.drop_column("kind")
        batch.drop_column("reprint")
        batch.drop_column("number")
        batch.drop_column("version")
    op.drop_table("composer_decisions")
    with op.batch_alter_table("composers") as batch:
        batch.drop_index("ix_composers_surname_key")
        batch.drop_index("ix_composers_person_id")
        batch.drop_constraint("fk_composers_person_id_persons", type_="foreignkey")
        batch.drop_column("given_initial")
        batch.drop_column("given_key")
        batch.drop_column("surname_key")
        batch.drop_column("person_id")
    op.drop_table("persons")
