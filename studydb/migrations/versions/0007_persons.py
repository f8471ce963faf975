"""The register of persons; a study's version flag, number in its source, reprint and kind.

``persons`` groups the composer names (``composers.person_id``), with the
keys names are compared by; ``composer_decisions`` keeps the users'
``same``/``apart``/``alias`` decisions by name.  The names already stored
get their keys (the fold now transliterates every script) and persons.
``studies`` gains ``version`` (HHdb's ``(c)``/``(m)``/``(v)``/``(s)``),
``number``, ``reprint`` and ``kind``: ``text`` for an entry with no set-up
position and no moves, found again here among the stored rows.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import io

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

#: The start position of an entry without a FEN tag.
STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
BATCH = 1000


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
    connection = op.get_bind()
    _mark_text_entries(connection)
    _register_names(connection)


def _mark_text_entries(connection: sa.Connection) -> None:
    """``kind = 'text'`` for the stored entries with no FEN tag and no moves."""
    from studydb.db.classify import entry_kind

    studies = sa.table(
        "studies",
        sa.column("id", sa.Integer),
        sa.column("fen", sa.Text),
        sa.column("headers", sa.JSON),
        sa.column("pgn", sa.Text),
        sa.column("kind", sa.String),
    )
    rows = connection.execute(
        sa.select(studies.c.id, studies.c.headers, studies.c.pgn)
        .where(studies.c.fen == STARTING_FEN)
        .execution_options(yield_per=BATCH)
    )
    text = [
        study_id
        for study_id, headers, pgn in rows
        if entry_kind(headers or {}, _movetext(pgn)) == "text"
    ]
    for start in range(0, len(text), BATCH):
        chunk = text[start : start + BATCH]
        connection.execute(sa.update(studies).where(studies.c.id.in_(chunk)).values(kind="text"))


def _movetext(pgn: str) -> str:
    """The movetext of a stored game (its text as read)."""
    from studydb.pgn import read_games

    games = list(read_games(io.BytesIO(pgn.encode("utf-8")), name="stored"))
    return games[0].movetext if games else ""


def _register_names(connection: sa.Connection) -> None:
    """Every stored name gets its keys, then every name its person."""
    from studydb.db.persons import name_columns, rebuild

    composers = sa.table(
        "composers",
        sa.column("id", sa.Integer),
        sa.column("name", sa.Text),
        sa.column("key", sa.Text),
        sa.column("surname_key", sa.Text),
        sa.column("given_key", sa.Text),
        sa.column("given_initial", sa.String),
    )
    names = connection.execute(sa.select(composers.c.id, composers.c.name)).all()
    for start in range(0, len(names), BATCH):
        chunk = names[start : start + BATCH]
        connection.execute(
            sa.update(composers)
            .where(composers.c.id == sa.bindparam("b_id"))
            .values(
                key=sa.bindparam("b_key"),
                surname_key=sa.bindparam("b_surname_key"),
                given_key=sa.bindparam("b_given_key"),
                given_initial=sa.bindparam("b_given_initial"),
            ),
            [
                {f"b_{k}": v for k, v in {"id": cid, **name_columns(name)}.items() if k != "name"}
                for cid, name in chunk
            ],
        )
    rebuild(connection)


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
