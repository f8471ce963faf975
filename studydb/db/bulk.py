"""Fast bulk insert of study rows: PostgreSQL with ``COPY``, SQLite through its driver.

A multi-row ``INSERT … VALUES`` of a thousand 36-column rows costs psycopg
more time converting the query text than the server spends storing it.  So
on PostgreSQL a batch is copied into a temporary table (``COPY … FROM
STDIN``, values converted by the columns' own bind processors, so that the
rows stored are the same as with ``INSERT``) and moved into ``studies`` with
one ``INSERT … SELECT … ON CONFLICT DO NOTHING RETURNING``.  The copy is
binary: the server then parses no text, and psycopg formats the values in
half the time (a batch's copy took half the wall time and 40% of the CPU).

On SQLite, SQLAlchemy's handling of each row's 36 parameters costs more
than SQLite's storing it; so the rows go to the driver's cursor directly,
one prepared ``INSERT … ON CONFLICT DO NOTHING`` each (SQLite reuses the
compiled statement), values converted by the same bind processors; the
cursor's ``rowcount`` and ``lastrowid`` say whether and as which id a row was
stored.  No ``RETURNING``: with it SQLite writes a statement journal for
every row, four times the CPU the rows themselves take.

The position index comes from the workers (the import's, ``studydb index``'s)
packed in columns (:class:`studydb.db.classify.IndexPack`); :func:`write_packed_index`
zips them into the rows of the index tables and writes them the same two ways.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import chain, compress
from types import NoneType
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Dialect
from sqlalchemy.exc import DBAPIError

from studydb.db.models import SEEN, Study
from studydb.errors import DatabaseError

if TYPE_CHECKING:  # the import's workers' module, which the themes' readers need not load
    from studydb.db.classify import IndexPack

_COLUMNS = tuple(column for column in Study.__table__.columns if column.name != "id")
_NAMES = ", ".join(f'"{column.name}"' for column in _COLUMNS)
_NAMES_LIST = tuple(column.name for column in _COLUMNS)
#: Per connection; emptied at every commit (``ON COMMIT DELETE ROWS``).
_STAGING = "studydb_staging_studies"
_CREATE = (
    f"CREATE TEMPORARY TABLE IF NOT EXISTS {_STAGING} ON COMMIT DELETE ROWS AS "
    f"SELECT {_NAMES} FROM studies WITH NO DATA"
)
_COPY = f"COPY {_STAGING} ({_NAMES}) FROM STDIN (FORMAT BINARY)"
#: The binary format of each column's values as psycopg names it, by the column's SQL
#: type (the values of the other types, text of any length, go as UTF-8).
_BINARY_TYPES = {
    "SMALLINT": "int2", "INTEGER": "int4", "BIGINT": "int8", "BOOLEAN": "bool",
    "BYTEA": "bytea", "JSON": "json",
}  # fmt: skip
_MOVE = (
    f"INSERT INTO studies ({_NAMES}) SELECT {_NAMES} FROM {_STAGING} "
    # A batch is one file's games: their offsets give the file order, which the
    # staging table's heap does not keep (rows land wherever a page has room).
    'ORDER BY "offset" '
    "ON CONFLICT (content_hash) DO NOTHING RETURNING id, content_hash"
)


#: Whether an insert may leave a column out when its value is None (it is NULL then):
#: one with no default of its own.
_OMISSIBLE = tuple(column.default is None and column.server_default is None for column in _COLUMNS)
_PGN = _NAMES_LIST.index("pgn")
#: Distinct kinds of rows (the types of their values) whose INSERT is kept.
_INSERT_KINDS = 256
#: Values bound in one IN (…) list: PostgreSQL takes at most 65,535 parameters.
MAX_PARAMETERS = 10_000


def insert_studies_sqlite(
    conn: Connection, rows: Sequence[dict[str, Any]]
) -> list[tuple[int, str]]:
    """Insert study rows on SQLite, like :func:`copy_studies` (same arguments and result).

    A row's NULL values are left out of its INSERT (:func:`_sqlite_insert`): the driver
    adapts a bound None (a formatted AttributeError inside, for each of a row's dozen),
    where the columns left out cost nothing; the pgn blob goes as a ``bytearray``, the
    one kind of bytes the driver binds without adapting it.
    """
    # Only pgn, valid and errors have a processor; None is converted once ('null' for
    # errors: 6 us a row for JSON's processor, most rows holding None).  The pgn, bytes
    # deflated already (the import's), is bound as a bytearray without its processor
    # (which would pass the bytes on, wrapped in a memoryview).
    processed = [
        (index, process, process(None))
        for index, column in enumerate(_COLUMNS)
        if (process := column.type._cached_bind_processor(conn.dialect)) is not None
        and index != _PGN
    ]
    deflate = _COLUMNS[_PGN].type._cached_bind_processor(conn.dialect)
    assert deflate is not None  # a TypeDecorator's, around LargeBinary's
    inserted = []
    with _DriverCursor(conn) as run:
        cursor = run.cursor
        for row in rows:
            values = list(map(row.get, _NAMES_LIST))
            for index, process, none in processed:
                value = values[index]
                values[index] = none if value is None else process(value)
            blob = values[_PGN]
            if blob is not None:
                values[_PGN] = bytearray(blob if type(blob) is bytes else deflate(blob))
            run.statement, kept = _sqlite_insert(tuple(map(type, values)))
            cursor.execute(run.statement, list(compress(values, kept)))
            if cursor.rowcount == 1:  # 0: its content hash was stored already
                inserted.append((cursor.lastrowid, row["content_hash"]))
    return inserted


@lru_cache(maxsize=_INSERT_KINDS)
def _sqlite_insert(types: tuple[type, ...]) -> tuple[str, tuple[bool, ...]]:
    """The INSERT of a row whose values (in :data:`_COLUMNS`' order) have these types, and
    which of its values it binds: all but the None of columns with no default.

    >>> statement, kept = _sqlite_insert((str,) * 31 + (NoneType,) * 10)
    >>> statement.count("?"), kept.count(True), '"kind"' in statement, '"pgn"' in statement
    (32, 32, True, False)
    """
    kept = tuple(
        kind is not NoneType or not omissible
        for kind, omissible in zip(types, _OMISSIBLE, strict=True)
    )
    names = ", ".join(f'"{name}"' for name in compress(_NAMES_LIST, kept))
    marks = ", ".join("?" * kept.count(True))
    return (
        f"INSERT INTO studies ({names}) VALUES ({marks}) ON CONFLICT (content_hash) DO NOTHING",
        kept,
    )


def copy_studies(conn: Connection, rows: Sequence[dict[str, Any]]) -> list[tuple[int, str]]:
    """Insert study rows (keys: the ``studies`` columns but ``id``) on PostgreSQL.

    Rows whose content hash is already stored are skipped.  Returns
    ``(id, content_hash)`` of the rows inserted.  Runs in the caller's
    transaction; driver errors come out as SQLAlchemy's ``DBAPIError``.
    The values are converted as :func:`insert_studies_sqlite` converts them (only
    the columns with a bind processor; None once) and copied in binary.
    """
    processed = [
        (index, process, process(None))
        for index, column in enumerate(_COLUMNS)
        if (process := column.type._cached_bind_processor(conn.dialect)) is not None
    ]
    with _DriverCursor(conn, _CREATE) as run:
        cursor = run.cursor
        cursor.execute(_CREATE)
        run.statement = _COPY
        with cursor.copy(_COPY) as copy:
            copy.set_types(_binary_types(conn.dialect))
            for row in rows:
                values = list(map(row.get, _NAMES_LIST))
                for index, process, none in processed:
                    value = values[index]
                    values[index] = none if value is None else process(value)
                copy.write_row(values)
        run.statement = _MOVE
        cursor.execute(_MOVE)
        inserted = [(study_id, digest) for study_id, digest in cursor.fetchall()]
        run.statement = f"DELETE FROM {_STAGING}"
        cursor.execute(run.statement)
    return inserted


@lru_cache(maxsize=4)
def _binary_types(dialect: Dialect) -> list[str]:
    """The psycopg type of each column of :data:`_COLUMNS`, for a binary COPY.

    >>> from sqlalchemy.dialects import postgresql
    >>> types = _binary_types(postgresql.dialect())
    >>> types[_NAMES_LIST.index("wq")], types[_NAMES_LIST.index("zobrist")], types[_PGN]
    ('int2', 'int8', 'bytea')
    >>> types[_NAMES_LIST.index("gbr")], types[_NAMES_LIST.index("errors")]
    ('text', 'json')
    """
    names = [column.type.compile(dialect=dialect).split("(")[0] for column in _COLUMNS]
    return [_BINARY_TYPES.get(name, "text") for name in names]


#: The index tables' columns, in the order :func:`write_packed_index` gives their values.
POSITION_COLUMNS = ("similar", "study_id", "node", "image", "ply", "main", "material_id")
MOVES_COLUMNS = ("key", "study_id", "main")
MATERIALS_COLUMNS = ("material_id", "study_id", "ends")
INDEX_COLUMNS = (
    "study_id", "positions", "boards", "moves", "occupancy", *(column.name for column in SEEN)
)  # fmt: skip
#: A packed flag (0 or 1) as the bool the columns hold.
_FLAG = (False, True).__getitem__


def write_packed_index(
    conn: Connection,
    packs: Sequence[tuple[IndexPack, Sequence[int | None]]],
    material_ids: Mapping[tuple[int, ...], int],
) -> int:
    """Write packed index rows in the caller's transaction (through
    :func:`studydb.db.index.write_packs`, the import's and ``studydb index``'s).

    ``packs``: each slice's :class:`~studydb.db.classify.IndexPack` with the study id of
    each of its items (None: not stored, a duplicate; its rows are left out);
    ``material_ids``: the id of each material class (counts) of the stored items.
    The rows are zipped from the columns and mapped to the ids in C; the positions
    and move keys of several slices are merged into their primary key's order.
    Returns the number of positions written.
    """
    positions: list[Iterable[tuple[Any, ...]]] = []
    moves: list[Iterable[tuple[Any, ...]]] = []
    reached: list[Iterable[tuple[Any, ...]]] = []
    indexed: list[tuple[Any, ...]] = []
    for pack, ids in packs:
        if not pack.items:
            continue
        classes = [material_ids.get(counts) for counts in pack.counts]
        study, material = ids.__getitem__, classes.__getitem__
        rows: Iterable[tuple[Any, ...]] = zip(
            pack.similar,
            map(study, pack.item),
            pack.node,
            pack.image,
            pack.ply,
            map(_FLAG, pack.main),
            map(material, pack.material),
            strict=True,
        )
        keys: Iterable[tuple[Any, ...]] = zip(
            pack.move_key, map(study, pack.move_item), map(_FLAG, pack.move_main), strict=True
        )
        ends: Iterable[tuple[Any, ...]] = zip(
            map(material, pack.reached),
            map(study, pack.reached_item),
            map(_FLAG, pack.reached_ends),
            strict=True,
        )
        if any(ids[number] is None for number in pack.items):
            kept = [study_id is not None for study_id in ids].__getitem__
            rows = compress(rows, map(kept, pack.item))
            keys = compress(keys, map(kept, pack.move_item))
            ends = compress(ends, map(kept, pack.reached_item))
        positions.append(rows)
        moves.append(keys)
        reached.append(ends)
        indexed += [
            (study_id, *values)
            for number, values in zip(pack.items, pack.studies, strict=True)
            if (study_id := ids[number]) is not None
        ]
    # One slice's rows are in order already; several are merged (two sorted runs: one pass).
    merged = sorted if len(positions) > 1 else list
    written = merged(chain.from_iterable(positions))
    for table, columns, rows_of in (
        ("positions", POSITION_COLUMNS, written),
        ("study_moves", MOVES_COLUMNS, merged(chain.from_iterable(moves))),
        ("study_materials", MATERIALS_COLUMNS, list(chain.from_iterable(reached))),
        ("study_index", INDEX_COLUMNS, indexed),
    ):
        write_rows(conn, table, columns, rows_of)
    return len(written)


def write_rows(
    conn: Connection, table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]]
) -> None:
    """Write rows (values in the order of ``columns``) through the driver, in the caller's
    transaction: COPY on PostgreSQL (a multi-row INSERT is slow in psycopg), one prepared
    INSERT run for every row on SQLite (SQLAlchemy's parameter handling would cost more
    than SQLite's storing them).  No rows: nothing is run."""
    if not rows:
        return
    quoted = ", ".join(f'"{name}"' for name in columns)  # SIMILAR is an SQL keyword
    if conn.dialect.name == "postgresql":
        statement = f"COPY {table} ({quoted}) FROM STDIN"
    else:
        statement = f"INSERT INTO {table} ({quoted}) VALUES ({', '.join('?' * len(columns))})"
    with _DriverCursor(conn, statement) as run:
        if conn.dialect.name == "postgresql":
            with run.cursor.copy(statement) as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            run.cursor.executemany(statement, rows)


def insert_new_rows(
    conn: Connection,
    table: str,
    columns: Sequence[str],
    rows: Sequence[tuple[Any, ...]],
    key: str,
) -> None:
    """Insert rows (values in the order of ``columns``) through the driver, in the caller's
    transaction, passing over those whose ``key`` is stored already (``ON CONFLICT DO
    NOTHING``: another importer may have stored them meanwhile): one prepared INSERT run
    for every row, on both engines (SQLAlchemy's handling of a row's parameters costs
    more than the database's storing it).  No rows: nothing is run."""
    if not rows:
        return
    quoted = ", ".join(f'"{name}"' for name in columns)
    mark = "%s" if conn.dialect.name == "postgresql" else "?"
    statement = (
        f"INSERT INTO {table} ({quoted}) VALUES ({', '.join([mark] * len(columns))})"
        f' ON CONFLICT ("{key}") DO NOTHING'
    )
    with _DriverCursor(conn, statement) as run:
        run.cursor.executemany(statement, rows)


def ids_by(conn: Connection, table: str, key: str, values: Sequence[Any]) -> list[tuple[Any, int]]:
    """``(key, id)`` of the rows of ``table`` whose ``key`` is one of ``values``, read
    through the driver in lists of :data:`MAX_PARAMETERS`."""
    mark = "%s" if conn.dialect.name == "postgresql" else "?"
    found: list[tuple[Any, int]] = []
    for start in range(0, len(values), MAX_PARAMETERS):
        chunk = tuple(values[start : start + MAX_PARAMETERS])
        marks = ", ".join([mark] * len(chunk))
        rows = conn.exec_driver_sql(
            f'SELECT "{key}", id FROM {table} WHERE "{key}" IN ({marks})', chunk
        )
        found += [(value, id_) for value, id_ in rows]
    return found


class _DriverCursor:
    """A cursor of the driver's connection under ``conn`` (:func:`driver_cursor`), closed
    on leaving; a driver error raised meanwhile comes out as SQLAlchemy's ``DBAPIError``
    (an ``IntegrityError``, an ``OperationalError``, …) quoting :attr:`statement`, the
    statement being run, as SQLAlchemy's own execution would raise it.
    """

    def __init__(self, conn: Connection, statement: str = "") -> None:
        self.conn = conn
        self.statement = statement
        self.cursor: Any = None

    def __enter__(self) -> _DriverCursor:
        self.cursor = driver_cursor(self.conn)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, _: object
    ) -> None:
        self.cursor.close()
        driver_error = self.conn.dialect.loaded_dbapi.Error
        if isinstance(exc, driver_error):
            raise DBAPIError.instance(self.statement, None, exc, driver_error) from exc


def driver_cursor(conn: Connection) -> Any:
    """A cursor of the driver's own connection under ``conn`` (in its transaction)."""
    driver = conn.connection.driver_connection
    if driver is None:  # only once the connection is closed or invalidated
        raise DatabaseError("the database connection was closed during the import")
    return driver.cursor()
