"""Names that differ only in digits are distinct (#28): re-key them and regroup.

``word_key`` used to drop digits, so ``Surname12`` and ``Surname13`` had one key
and were one person.  A revision with no schema change: the upgrading studydb
re-keys the names and regroups those whose keys change, with every name of
their old and new surname keys (decisions kept), in :mod:`studydb.db.derived`.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from __future__ import annotations

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Nothing in the schema: the names are re-keyed and regrouped by :mod:`studydb.db.derived`."""


def downgrade() -> None:
    """Keys with digits stay: the older rules regroup them at their next import."""
