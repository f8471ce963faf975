"""Alembic environment: runs on the connection handed over in ``config.attributes``."""

from __future__ import annotations

from alembic import context

from studydb.db.models import Base

config = context.config
connection = config.attributes.get("connection")
if connection is None:  # pragma: no cover - only programmatic use is supported
    raise RuntimeError("studydb migrations run programmatically: use `studydb db upgrade`")

context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
