"""``persons.id`` never given twice on SQLite: the table is ``AUTOINCREMENT``.

Without it SQLite gives a new row the highest id in the table plus one, so the
id of the last person a merge removed went to the next new person (PostgreSQL's
sequence never gives an id twice): a person's page, ``/composers/ID``, and the
ids ``studydb composers`` lists came to name another person.  The upgrade
rebuilds the SQLite table as ``AUTOINCREMENT``, its rows and ids kept (the
ids removed before it cannot be known, so only those from now on are never
reused); PostgreSQL is left as it is.  Frozen: no studydb imports.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-05
"""

from __future__ import annotations

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    _rebuild(autoincrement=True)


def downgrade() -> None:
    _rebuild(autoincrement=False)


def _rebuild(*, autoincrement: bool) -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    with op.batch_alter_table(
        "persons", recreate="always", table_kwargs={"sqlite_autoincrement": autoincrement}
    ):
        pass
