"""Reading back the games an import rejected: where they were and why, and their bytes."""

from __future__ import annotations

from collections.abc import Iterator

from sqlalchemy import Engine, select

from studydb.db.connect import database_errors
from studydb.db.models import Reject
from studydb.db.search import BATCH_SIZE

__all__ = ["reject_texts", "rejects"]


def rejects(engine: Engine) -> Iterator[tuple[int, str | None, int | None, str]]:
    """The rejected games, oldest first: ``(id, file, line, reason)``."""
    statement = select(Reject.id, Reject.file, Reject.line, Reject.reason).order_by(Reject.id)
    with database_errors(engine), engine.connect() as conn:
        yield from ((row[0], row[1], row[2], row[3]) for row in conn.execute(statement))


def reject_texts(engine: Engine) -> Iterator[bytes]:
    """The rejected games' bytes exactly as read, oldest first."""
    statement = select(Reject.raw).order_by(Reject.id)
    with database_errors(engine), engine.connect() as conn:
        for (raw,) in conn.execution_options(yield_per=BATCH_SIZE).execute(statement):
            yield raw
