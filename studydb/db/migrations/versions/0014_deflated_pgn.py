"""``studies.pgn`` stored deflated: a game's text in a third of its bytes, read back exactly.

A format byte (1: zlib, with its checksum) and the UTF-8 of the
text as read, compressed.  The rows stored before are rewritten in place,
a thousand at a time.  Frozen: no studydb imports (the format is written
out here as ``studydb.db.models.deflate_text`` writes it today).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

_FORMAT = b"\x01"
_CHUNK = 1000


def _deflate(value: bytes) -> bytes:
    return _FORMAT + zlib.compress(value, 1)


def _inflate(value: bytes) -> bytes:
    if value[:1] != _FORMAT:
        raise ValueError(f"studies.pgn: not a deflated text (format byte {value[:1]!r})")
    return zlib.decompress(value[1:])


def _rewrite(
    change: Callable[[bytes], bytes | str],
    *,
    read: sa.types.TypeEngine[Any],
    write: sa.types.TypeEngine[Any],
) -> None:
    """Rewrite every stored PGN with ``change``, read as ``read`` and written as ``write``."""
    studies = sa.table("studies", sa.column("id", sa.Integer), sa.column("pgn", read))
    target = sa.table("studies", sa.column("id", sa.Integer), sa.column("pgn", write))
    conn = op.get_bind()
    last = 0
    while True:
        rows = conn.execute(
            sa.select(studies.c.id, studies.c.pgn)
            .where(studies.c.id > last)
            .order_by(studies.c.id)
            .limit(_CHUNK)
        ).all()
        if not rows:
            return
        values = []
        for study_id, pgn in rows:
            data = pgn.encode("utf-8") if isinstance(pgn, str) else bytes(pgn)
            values.append({"study_id": study_id, "stored": change(data)})
        conn.execute(
            target.update()
            .where(target.c.id == sa.bindparam("study_id"))
            .values(pgn=sa.bindparam("stored")),
            values,
        )
        last = rows[-1][0]


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE studies ALTER COLUMN pgn TYPE bytea USING convert_to(pgn, 'UTF8')")
        _rewrite(_deflate, read=sa.LargeBinary(), write=sa.LargeBinary())
    else:  # SQLite keeps a blob in a TEXT column: rewritten first, then the type changed
        _rewrite(_deflate, read=sa.Text(), write=sa.LargeBinary())
        with op.batch_alter_table("studies") as batch:
            batch.alter_column("pgn", type_=sa.LargeBinary(), existing_nullable=False)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _rewrite(_inflate, read=sa.LargeBinary(), write=sa.LargeBinary())
        op.execute("ALTER TABLE studies ALTER COLUMN pgn TYPE text USING convert_from(pgn, 'UTF8')")
    else:
        _rewrite(lambda v: _inflate(v).decode("utf-8"), read=sa.LargeBinary(), write=sa.Text())
        with op.batch_alter_table("studies") as batch:
            batch.alter_column("pgn", type_=sa.Text(), existing_nullable=False)
