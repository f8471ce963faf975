"""A time budget per SQL statement: a query that runs longer is cancelled by the database.

``studydb serve`` answers strangers; one request must not hold a connection
for minutes (fifty composers on a large collection, a huge ``IN`` list).
SQLite gets a progress handler that interrupts the statement once its
deadline has passed; PostgreSQL gets ``statement_timeout``.  Either way the
driver's error becomes :class:`~studydb.errors.QueryTimeoutError` (see
:func:`studydb.db.connect.database_error`).

>>> from sqlalchemy import text
>>> from studydb.db.connect import create_engine, database_errors
>>> engine = limit_statements(create_engine("sqlite://"), seconds=0.01)
>>> endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n"
>>> with database_errors(engine), engine.connect() as conn:
...     conn.execute(text(endless))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
studydb.errors.QueryTimeoutError: cannot read :memory:: the query ran over its time budget and ...
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Engine, event

__all__ = ["PROGRESS_STEPS", "limit_statements"]

#: SQLite virtual-machine steps between two looks at the clock (about a millisecond).
PROGRESS_STEPS = 20_000
_DEADLINE = "studydb_deadline"


def limit_statements(engine: Engine, *, seconds: float, steps: int = PROGRESS_STEPS) -> Engine:
    """Cancel every statement of ``engine`` that runs longer than ``seconds``; return it.

    ``steps``: SQLite virtual-machine steps between two looks at the clock.
    """
    engine.dispose()  # connections opened already (the schema check) get the limit too
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _progress_handler(steps))
        event.listen(engine, "before_cursor_execute", _start_clock(seconds))
    else:
        event.listen(engine, "connect", _statement_timeout(seconds))
    return engine


def _progress_handler(steps: int) -> Any:
    def install(dbapi_connection: Any, record: Any) -> None:
        info = record.info

        def over_budget() -> int:
            deadline = info.get(_DEADLINE)
            return int(deadline is not None and time.monotonic() > deadline)

        dbapi_connection.set_progress_handler(over_budget, steps)

    return install


def _start_clock(seconds: float) -> Any:
    def start(conn: Any, *_args: Any) -> None:
        conn.connection.info[_DEADLINE] = time.monotonic() + seconds

    return start


def _statement_timeout(seconds: float) -> Any:
    milliseconds = max(1, round(seconds * 1000))

    def configure(dbapi_connection: Any, _record: Any) -> None:
        with dbapi_connection.cursor() as cursor:
            cursor.execute(f"SET statement_timeout = {milliseconds:d}")
        dbapi_connection.commit()

    return configure
