"""Checks say what they rest on: ``checked_from`` and ``reason``; older checks are stale.

``checks`` gains ``checked_from`` (the main-line position from which every
position was checked; 0 = the start) and ``reason`` (why the start was not
judged: the reason of ``unchecked``).  Checks stored before this revision
called a study ``sound`` when only its last positions were checked, so none
of them is kept as it was: an old ``sound`` becomes ``unchecked`` with the
reason below, and every old check gets settings no run has, so that
``studydb check`` checks the study again.  Frozen: no studydb imports.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

#: The reason an old check now gives.
STALE_REASON = "checked by an older studydb that said more than it checked: run studydb check"
#: The settings of an old check: no run has them, so every run checks the study again.
STALE_SETTINGS = "stale-0008"


def upgrade() -> None:
    with op.batch_alter_table("checks") as batch:
        batch.add_column(sa.Column("checked_from", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("reason", sa.Text(), nullable=True))
    checks = sa.table(
        "checks",
        sa.column("verdict", sa.String()),
        sa.column("settings", sa.String()),
        sa.column("reason", sa.Text()),
    )
    op.execute(
        checks.update()
        .where(checks.c.verdict.in_(("sound", "unchecked")))
        .values(verdict="unchecked", reason=STALE_REASON)
    )
    op.execute(checks.update().values(settings=STALE_SETTINGS))


def downgrade() -> None:
    with op.batch_alter_table("checks") as batch:
        batch.drop_column("reason")
        batch.drop_column("checked_from")
