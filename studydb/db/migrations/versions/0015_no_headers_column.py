"""``studies.headers`` dropped: the tags are read from the stored PGN's tag section.

The JSON column held again what ``studies.pgn`` holds (deflated) in its tag
section, which ``studydb.pgn.tags_of`` reads back.  The downgrade adds the
column back and fills it from the stored PGN, a thousand rows at a time, then
makes it NOT NULL again (as 0001 made it).  It inflates each text (format byte
1, zlib) and reads the tag pairs of its tag section as ``tags_of`` does today
(written out here, frozen): the same dict for a text that starts with a tag
line.  For a text that starts otherwise (a comment or an escape line first,
which ``tags_of`` hands to the reader) the tag section read is the first run of
tag lines at the start of a line; with none, ``{}``.  Frozen: no studydb imports.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02
"""

from __future__ import annotations

import re
import zlib

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

_FORMAT = b"\x01"
_CHUNK = 1000

_TAG = re.compile(r'\[[ \t]*(\w+)[ \t]*"([^"\\\r\n]*(?:\\.[^"\\\r\n]*)*)"[ \t]*\]', re.ASCII)
_LOOSE_TAG = re.compile(r'[ \t]*\[[ \t]*([A-Za-z0-9_]+)[ \t]*"(.*)"[ \t]*\][ \t]*\r?')
_UNESCAPE = re.compile(r"\\([\\\"])")
_FIRST_TAG = re.compile(r'[ \t]*\[[ \t]*[A-Za-z0-9_]+[ \t]*"')
_TAG_LINE = re.compile(r'^[ \t]*\[[ \t]*[A-Za-z0-9_]+[ \t]*"', re.MULTILINE)
_TAG_SECTION = re.compile(
    r'(?:(?:[ \t\r]*\n|%[^\n]*\n)*[ \t]*\[[ \t]*[A-Za-z0-9_]+[ \t]*"[^\n]*(?:\n|\Z))+'
)


def _inflate(value: bytes) -> str:
    if value[:1] != _FORMAT:
        raise ValueError(f"studies.pgn: not a deflated text (format byte {value[:1]!r})")
    return zlib.decompress(value[1:]).decode("utf-8")


def _pairs(head: str) -> dict[str, str]:
    """Tag pairs of a tag section, in order; the first of a repeated name wins."""
    pairs = _TAG.findall(head)
    if len(pairs) != head.count("["):
        pairs = []
        for line in head.split("\n"):
            found = _TAG.findall(line)
            if not found:
                loose = _LOOSE_TAG.fullmatch(line)
                found = [loose.groups()] if loose else []
            pairs.extend(found)
    tags: dict[str, str] = {}
    for name, value in pairs:
        tags.setdefault(name, _UNESCAPE.sub(r"\1", value) if "\\" in value else value)
    return tags


def _tags(text: str) -> dict[str, str]:
    """The tags of a stored game's text: its tag section's pairs (see the module's note)."""
    start = 0
    if not _FIRST_TAG.match(text):
        first = _TAG_LINE.search(text)
        if first is None:
            return {}
        start = first.start()
    head = _TAG_SECTION.match(text, start)
    return _pairs(head.group()) if head is not None else {}


#: The first SQLite with ``ALTER TABLE … DROP COLUMN``.
_SQLITE_DROPS = (3, 35, 0)


def upgrade() -> None:
    dialect = op.get_bind().dialect
    if dialect.name == "postgresql":
        op.drop_column("studies", "headers")
        return
    # SQLite drops the column in place where it can: a copy of the table (the batch's
    # rebuild) would leave the file twice the size until a VACUUM.
    native = tuple(dialect.server_version_info or ()) >= _SQLITE_DROPS
    with op.batch_alter_table("studies", recreate="never" if native else "auto") as batch:
        batch.drop_column("headers")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.add_column("studies", sa.Column("headers", sa.JSON(), nullable=True))
    else:
        with op.batch_alter_table("studies") as batch:
            batch.add_column(sa.Column("headers", sa.JSON(), nullable=True))
    studies = sa.table(
        "studies",
        sa.column("id", sa.Integer),
        sa.column("pgn", sa.LargeBinary),
        sa.column("headers", sa.JSON),
    )
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
            break
        conn.execute(
            studies.update()
            .where(studies.c.id == sa.bindparam("study_id"))
            .values(headers=sa.bindparam("tags")),
            [{"study_id": i, "tags": _tags(_inflate(bytes(pgn)))} for i, pgn in rows],
        )
        last = rows[-1][0]
    if conn.dialect.name == "postgresql":  # every row filled: NOT NULL again, as 0001 made it
        op.alter_column("studies", "headers", existing_type=sa.JSON(), nullable=False)
    else:
        with op.batch_alter_table("studies") as batch:
            batch.alter_column("headers", existing_type=sa.JSON(), nullable=False)
