"""Names that differ only in digits are distinct (#28): re-key them and regroup.

``word_key`` used to drop digits, so ``Surname12`` and ``Surname13`` had one key
and were one person.  The names whose key columns change get their new keys,
and every name of their old and new surname keys is regrouped (decisions kept).
Uses studydb's register code, as 0007 does.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

BATCH = 1000
COLUMNS = ("key", "surname_key", "given_key", "given_initial")


def upgrade() -> None:
    from studydb.db.persons import name_columns, regroup

    connection = op.get_bind()
    composers = sa.table(
        "composers",
        sa.column("id", sa.Integer),
        sa.column("name", sa.Text),
        *(sa.column(column, sa.Text) for column in COLUMNS),
    )
    rows = connection.execute(
        sa.select(composers.c.id, composers.c.name, *(composers.c[c] for c in COLUMNS))
    ).all()
    changed = []
    for cid, name, *stored in rows:
        fresh = name_columns(name)
        if [fresh[c] for c in COLUMNS] == list(stored):
            continue
        changed.append((cid, name, stored[1], fresh))
    if not changed:
        return
    old_keys = sorted({old for _, _, old, _ in changed if old is not None})
    old_bucket = [
        name
        for start in range(0, len(old_keys), BATCH)
        for (name,) in connection.execute(
            sa.select(composers.c.name).where(
                composers.c.surname_key.in_(old_keys[start : start + BATCH])
            )
        )
    ]
    for start in range(0, len(changed), BATCH):
        connection.execute(
            sa.update(composers)
            .where(composers.c.id == sa.bindparam("b_id"))
            .values({c: sa.bindparam(f"b_{c}") for c in COLUMNS}),
            [
                {"b_id": cid, **{f"b_{c}": fresh[c] for c in COLUMNS}}
                for cid, _, _, fresh in changed[start : start + BATCH]
            ],
        )
    regroup(connection, [name for _, name, _, _ in changed] + old_bucket)


def downgrade() -> None:
    """Keys with digits stay: the older rules regroup them at their next import."""
