"""Fast bulk insert of study rows: PostgreSQL with ``COPY``, SQLite through its driver.

A multi-row ``INSERT … VALUES`` of a thousand 36-column rows costs psycopg
more time converting the query text than the server spends storing it.  So
on PostgreSQL a batch is copied into a temporary table (``COPY … FROM
STDIN``, values converted by the columns' own bind processors, so that the
rows stored are the same as with ``INSERT``) and moved into ``studies`` with
one ``INSERT … SELECT … ON CONFLICT DO NOTHING RETURNING``.

On SQLite, SQLAlchemy's handling of each row's 36 parameters costs more
than SQLite's storing it; so the rows go to the driver's cursor directly,
one prepared ``INSERT … ON CONFLICT DO NOTHING`` each (SQLite reuses the
compiled statement), values converted by the same bind processors; the
cursor's ``rowcount`` and ``lastrowid`` say whether and as which id a row was
stored.  No ``RETURNING``: with it SQLite writes a statement journal for
every row, four times the CPU the rows themselves take.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError

from studydb.db.models import Study
from studydb.errors import DatabaseError

_COLUMNS = tuple(column for column in Study.__table__.columns if column.name != "id")
_NAMES = ", ".join(f'"{column.name}"' for column in _COLUMNS)
_NAMES_LIST = tuple(column.name for column in _COLUMNS)
#: Per connection; emptied at every commit (``ON COMMIT DELETE ROWS``).
_STAGING = "studydb_staging_studies"
_CREATE = (
    f"CREATE TEMPORARY TABLE IF NOT EXISTS {_STAGING} ON COMMIT DELETE ROWS AS "
    f"SELECT {_NAMES} FROM studies WITH NO DATA"
)
_COPY = f"COPY {_STAGING} ({_NAMES}) FROM STDIN"
_MOVE = (
    f"INSERT INTO studies ({_NAMES}) SELECT {_NAMES} FROM {_STAGING} "
    # A batch is one file's games: their offsets give the file order, which the
    # staging table's heap does not keep (rows land wherever a page has room).
    'ORDER BY "offset" '
    "ON CONFLICT (content_hash) DO NOTHING RETURNING id, content_hash"
)


_SQLITE_INSERT = (
    f"INSERT INTO studies ({_NAMES}) VALUES ({', '.join('?' * len(_COLUMNS))}) "
    "ON CONFLICT (content_hash) DO NOTHING"
)


def insert_studies_sqlite(
    conn: Connection, rows: Sequence[dict[str, Any]]
) -> list[tuple[int, str]]:
    """Insert study rows on SQLite, like :func:`copy_studies` (same arguments and result)."""
    # Only pgn, valid and errors have a processor; None is converted once ('null' for
    # errors: 6 us a row for JSON's processor, most rows holding None).
    processed = [
        (index, process, process(None))
        for index, column in enumerate(_COLUMNS)
        if (process := column.type._cached_bind_processor(conn.dialect)) is not None
    ]
    driver_error = conn.dialect.loaded_dbapi.Error
    cursor = driver_cursor(conn)
    inserted = []
    try:
        for row in rows:
            values = list(map(row.get, _NAMES_LIST))
            for index, process, none in processed:
                value = values[index]
                values[index] = none if value is None else process(value)
            cursor.execute(_SQLITE_INSERT, values)
            if cursor.rowcount == 1:  # 0: its content hash was stored already
                inserted.append((cursor.lastrowid, row["content_hash"]))
    except driver_error as exc:
        raise DBAPIError.instance(_SQLITE_INSERT, None, exc, driver_error) from exc
    finally:
        cursor.close()
    return inserted


def copy_studies(conn: Connection, rows: Sequence[dict[str, Any]]) -> list[tuple[int, str]]:
    """Insert study rows (keys: the ``studies`` columns but ``id``) on PostgreSQL.

    Rows whose content hash is already stored are skipped.  Returns
    ``(id, content_hash)`` of the rows inserted.  Runs in the caller's
    transaction; driver errors come out as SQLAlchemy's ``DBAPIError``.
    """
    processors = [column.type._cached_bind_processor(conn.dialect) for column in _COLUMNS]
    driver_error = conn.dialect.loaded_dbapi.Error
    cursor = driver_cursor(conn)
    try:
        cursor.execute(_CREATE)
        with cursor.copy(_COPY) as copy:
            for row in rows:
                copy.write_row(
                    [
                        process(row.get(column.name)) if process else row.get(column.name)
                        for column, process in zip(_COLUMNS, processors, strict=True)
                    ]
                )
        cursor.execute(_MOVE)
        inserted = [(study_id, digest) for study_id, digest in cursor.fetchall()]
        cursor.execute(f"DELETE FROM {_STAGING}")
    except driver_error as exc:
        raise DBAPIError.instance(_COPY, None, exc, driver_error) from exc
    finally:
        cursor.close()
    return inserted


def driver_cursor(conn: Connection) -> Any:
    """A cursor of the driver's own connection under ``conn`` (in its transaction)."""
    driver = conn.connection.driver_connection
    if driver is None:  # only once the connection is closed or invalidated
        raise DatabaseError("the database connection was closed during the import")
    return driver.cursor()
