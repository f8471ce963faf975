"""``study_index.boards`` and ``study_index.moves`` written with zstd: format byte 2.

Revision 0009's and 0011's format (byte 1, zlib) stays readable, so the upgrade
rewrites nothing: the blocks stored before keep their bytes, those stored after are
zstd's (``studydb.compression``), and a studydb before this revision, which cannot
read them, refuses the database as a newer studydb's.  The downgrade rewrites the
zstd blocks in the zlib format (level 6), a thousand rows at a time.  Frozen: no
studydb imports.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-05
"""

from __future__ import annotations

import zlib

import sqlalchemy as sa
import zstandard
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

_ZLIB = b"\x01"
_ZSTD = b"\x02"
_CHUNK = 1000
_COLUMNS = ("boards", "moves")


def upgrade() -> None:
    pass


def downgrade() -> None:
    index = sa.table(
        "study_index",
        sa.column("study_id", sa.Integer),
        *(sa.column(name, sa.LargeBinary) for name in _COLUMNS),
    )
    decompressor = zstandard.ZstdDecompressor()
    conn = op.get_bind()
    last = 0
    while True:
        rows = conn.execute(
            sa.select(index.c.study_id, *(index.c[name] for name in _COLUMNS))
            .where(index.c.study_id > last)
            .order_by(index.c.study_id)
            .limit(_CHUNK)
        ).all()
        if not rows:
            return
        for name, place in zip(_COLUMNS, (1, 2), strict=True):
            values = [
                {
                    "key": row[0],
                    "block": _ZLIB + zlib.compress(decompressor.decompress(row[place][1:]), 6),
                }
                for row in rows
                if row[place] is not None and bytes(row[place][:1]) == _ZSTD
            ]
            if values:
                conn.execute(
                    index.update()
                    .where(index.c.study_id == sa.bindparam("key"))
                    .values({name: sa.bindparam("block")}),
                    values,
                )
        last = rows[-1][0]
