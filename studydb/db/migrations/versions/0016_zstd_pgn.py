"""``studies.pgn`` written with zstd: format byte 2, a zstd frame with its checksum.

Revision 0014's format (byte 1, zlib) stays readable, so the upgrade rewrites
nothing: the rows stored before keep their bytes, the rows stored after are
zstd's (``studydb.pgn.deflate_text``), and a studydb before this revision,
which cannot read them, refuses the database as a newer studydb's.  The
downgrade rewrites the zstd rows in 0014's format (zlib level 1), a thousand
rows at a time, so that 0015's and 0014's downgrades read every row.  Frozen:
no studydb imports.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02
"""

from __future__ import annotations

import zlib

import sqlalchemy as sa
import zstandard
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

_ZLIB = b"\x01"
_ZSTD = b"\x02"
_CHUNK = 1000


def upgrade() -> None:
    pass


def downgrade() -> None:
    studies = sa.table("studies", sa.column("id", sa.Integer), sa.column("pgn", sa.LargeBinary))
    decompressor = zstandard.ZstdDecompressor()
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
        values = [
            {
                "study_id": study_id,
                "stored": _ZLIB + zlib.compress(decompressor.decompress(pgn[1:]), 1),
            }
            for study_id, pgn in rows
            if pgn[:1] == _ZSTD
        ]
        if values:
            conn.execute(
                studies.update()
                .where(studies.c.id == sa.bindparam("study_id"))
                .values(pgn=sa.bindparam("stored")),
                values,
            )
        last = rows[-1][0]
