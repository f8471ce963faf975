"""Where the database is, and opening it at the latest schema revision.

A plain path means SQLite; a URL (``sqlite:///…``, ``postgresql+psycopg://…``)
is used as given.  Without ``--db`` the environment variable ``STUDYDB_DB``
decides, else ``studies.sqlite`` in the platform's user data directory.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from sqlalchemy import Connection, Engine, event, text
from sqlalchemy import create_engine as sa_create_engine
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, SQLAlchemyError

from studydb.db.migrations import HEAD_REVISION, KNOWN_REVISIONS
from studydb.errors import DatabaseError, QueryTimeoutError

if TYPE_CHECKING:
    from sqlalchemy.dialects import postgresql, sqlite

log = logging.getLogger(__name__)

ENV_VAR = "STUDYDB_DB"
DEFAULT_NAME = "studies.sqlite"
#: Milliseconds a SQLite connection waits for another writer before giving up.
BUSY_TIMEOUT_MS = 120_000
#: Bytes of a SQLite file read through mmap: faster searches of large collections.
MMAP_BYTES = 256 * 1024 * 1024
#: Page size of a new SQLite file.  Rows of 1-4 KB (a study, a game) fill 4 KB pages
#: badly (often one row to a page, the rest wasted): 16 KB pages hold the same rows
#: in 5-20% fewer bytes; larger pages cost more per insert into the indexes.
PAGE_BYTES = 16384
#: Key of the PostgreSQL advisory lock held while migrating.
_PG_MIGRATION_LOCK = 0x5354_5544_5944_42  # "STUDYDB"
#: The head revision's schema as every migration in turn leaves a new SQLite file (what
#: :func:`schema_script` reads back from it).  A new file is given these statements in
#: one transaction instead (Rails' schema load): 10-40 ms instead of 60-90 ms, and no
#: Alembic imported.  ``tests/test_connect.py`` keeps it equal to what the migrations write;
#: :func:`write_head_schema` writes it again after a new migration.
HEAD_SCHEMA = Path(__file__).parent / "migrations" / "head.sqlite.sql"


def default_path() -> Path:
    """Return the default database file in the user data directory."""
    import platformdirs

    return platformdirs.user_data_path("studydb", appauthor=False) / DEFAULT_NAME


def resolve_url(db: str | os.PathLike[str] | None = None) -> str:
    """Turn ``--db`` (a path or URL), ``$STUDYDB_DB`` or the default into a URL.

    >>> resolve_url("sqlite:///tmp/x.sqlite")
    'sqlite:///tmp/x.sqlite'
    >>> resolve_url("/tmp/x.sqlite")
    'sqlite:////tmp/x.sqlite'
    """
    if db is None or str(db) == "":
        db = os.environ.get(ENV_VAR) or default_path()
    value = os.fspath(db)
    if "://" in value:
        try:
            parsed = make_url(value)
            parsed.port  # noqa: B018  (a port that is not a number raises here)
        except (ArgumentError, ValueError) as exc:
            raise DatabaseError(f"not a database URL: {_hide_password(value)!r}") from exc
        return value
    return "sqlite:///" + str(Path(value).expanduser().resolve())


def _hide_password(url: str) -> str:
    """A URL for messages: everything between ``scheme://user:`` and the last ``@`` hidden.

    >>> _hide_password("postgresql://me:p@ss@host/db")
    'postgresql://me:***@host/db'
    """
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at or ":" not in credentials:
        return url
    return f"{scheme}{sep}{credentials.split(':', 1)[0]}:***@{host}"


def describe(url: str) -> str:
    """Return a URL or SQLite path for messages, without any password."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return parsed.database or ":memory:"
    return parsed.render_as_string(hide_password=True)


@contextlib.contextmanager
def database_errors(engine: Engine, *, doing: str = "read") -> Iterator[None]:
    """Raise the driver's errors inside the block as :class:`DatabaseError` naming the database.

    >>> engine = sa_create_engine("sqlite://")
    >>> with database_errors(engine):
    ...     with engine.connect() as conn:
    ...         conn.execute(text("SELECT * FROM nowhere"))
    Traceback (most recent call last):
    ...
    studydb.errors.DatabaseError: cannot read :memory:: no such table: nowhere
    """
    try:
        yield
    except SQLAlchemyError as exc:
        raise database_error(engine, exc, doing=doing) from exc


def database_error(engine: Engine, exc: SQLAlchemyError, *, doing: str) -> DatabaseError:
    """The :class:`DatabaseError` for a driver error: what we were doing, where, and why.

    >>> from sqlalchemy.exc import OperationalError
    >>> error = OperationalError("INSERT", {}, Exception("attempt to write a readonly database"))
    >>> engine = create_engine("sqlite:////s.db")
    >>> print(database_error(engine, error, doing="write to"))  # doctest: +ELLIPSIS
    cannot write to /s.db: attempt to write a readonly database (the database file or its ...)
    """
    detail = str(getattr(exc, "orig", None) or exc)
    if _is_cancelled(exc):  # studydb.db.budget's time limit
        return QueryTimeoutError(
            f"cannot {doing} {describe(str(engine.url))}: "
            "the query ran over its time budget and was stopped"
        )
    if "readonly" in detail.replace(" ", "").lower():  # SQLite in WAL mode writes to open
        detail += " (the database file or its folder is read-only)"
    return DatabaseError(f"cannot {doing} {describe(str(engine.url))}: {detail}")


def _is_cancelled(exc: SQLAlchemyError) -> bool:
    """Whether the driver stopped the statement on our request (a time budget)."""
    orig = getattr(exc, "orig", None)
    if getattr(orig, "sqlstate", None) == "57014":  # PostgreSQL: query_canceled
        return True
    return isinstance(orig, sqlite3.OperationalError) and str(orig) == "interrupted"


@contextlib.contextmanager
def transaction(engine: Engine) -> Iterator[Connection]:
    """A write transaction (``BEGIN IMMEDIATE`` on SQLite) whose errors name the database.

    Ctrl-C inside the driver can leave the connection mid-statement
    (psycopg: "connection in transaction status ACTIVE"): such a connection
    is dropped instead of going back to the pool.

    >>> engine = sa_create_engine("sqlite://")
    >>> with transaction(engine) as conn:
    ...     conn.execute(text("INSERT INTO nowhere VALUES (1)"))
    Traceback (most recent call last):
    ...
    studydb.errors.DatabaseError: cannot write to :memory:: no such table: nowhere
    """
    with database_errors(engine, doing="write to"), writer(engine).begin() as conn:
        try:
            yield conn
        except BaseException as exc:
            if not isinstance(exc, Exception):
                conn.invalidate()
            raise


#: Connections a read-only engine keeps open for concurrent requests (studydb serve).
READ_ONLY_POOL = 8
#: Seconds a PostgreSQL connection may take to be made, unless the URL's
#: ``connect_timeout`` or ``$PGCONNECT_TIMEOUT`` says otherwise: libpq has no bound of its
#: own, and a server that accepts and never answers (or a firewall that drops the packets)
#: held every command for ever.
CONNECT_TIMEOUT = 10


def create_engine(
    url: str,
    *,
    read_only: bool = False,
    immutable: bool = False,
    page_cache_kib: int | None = None,
    echo: bool = False,
) -> Engine:
    """Create an engine whose every connection is set up here, read-only or not, on both engines.

    SQLite connections get the same functions and pragmas (a Unicode
    ``lower()``, foreign keys, a busy timeout, mmap); writers put the file
    in WAL mode, and ``read_only`` opens it with ``mode=ro`` and
    ``query_only`` (and with ``immutable``, ``immutable=1``: for a file whose
    folder cannot be written, SQLite then takes no lock and makes no ``-shm``
    file).  PostgreSQL sessions of a ``read_only`` engine start with
    ``default_transaction_read_only``.  ``page_cache_kib``: read SQLite
    through a page cache of that size instead of mmap, so that the process's
    memory stays flat however large the file grows (the import).

    SQLite transactions are begun by us: ``BEGIN`` for readers and, on a
    connection with the execution option ``sqlite_begin="immediate"``,
    ``BEGIN IMMEDIATE`` so that concurrent writers queue on the busy timeout
    instead of failing with "database is locked" when a read turns into a write.

    >>> with create_engine("sqlite://").connect() as conn:
    ...     conn.execute(text("SELECT lower('ÉCHECS')")).scalar()
    'échecs'
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        connect_args: dict[str, Any] = {}
        if "connect_timeout" not in parsed.query and "PGCONNECT_TIMEOUT" not in os.environ:
            connect_args["connect_timeout"] = CONNECT_TIMEOUT
        if not read_only:
            return sa_create_engine(url, echo=echo, pool_pre_ping=True, connect_args=connect_args)
        connect_args["options"] = "-c default_transaction_read_only=on"
        return sa_create_engine(
            url,
            echo=echo,
            pool_pre_ping=True,
            pool_size=READ_ONLY_POOL,
            connect_args=connect_args,
        )
    if read_only:
        engine = _sqlite_read_only(parsed.database or "", echo=echo, immutable=immutable)
    else:
        engine = sa_create_engine(url, echo=echo, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})

    def configure(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        _configure_sqlite(dbapi_connection, read_only=read_only, page_cache_kib=page_cache_kib)

    event.listen(engine, "connect", configure)
    event.listen(engine, "begin", _begin_sqlite)
    return engine


def _sqlite_read_only(path: str, *, echo: bool, immutable: bool = False) -> Engine:
    """An engine on a SQLite file opened with ``mode=ro`` (and ``immutable=1``)."""
    resolved = Path(path).resolve()
    # A SQLite URI filename with mode=ro, made by us (not parsed from a URL), so that
    # any character in the path is taken literally.
    uri = "file:" + quote(str(resolved), safe="/") + "?mode=ro"
    if immutable:
        uri += "&immutable=1"

    def connect() -> sqlite3.Connection:
        return sqlite3.connect(
            uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False
        )

    return sa_create_engine(
        URL.create("sqlite+pysqlite", database=str(resolved)),
        echo=echo,
        creator=connect,
        pool_size=READ_ONLY_POOL,
    )


def _configure_sqlite(
    dbapi_connection: sqlite3.Connection, *, read_only: bool, page_cache_kib: int | None
) -> None:
    """Set up one SQLite connection: functions and pragmas, the same for readers and writers."""
    dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
    # SQLite's lower() (behind ILIKE) folds ASCII only; PostgreSQL's folds all
    # letters.  Ours folds like Python, so that both engines find "ÉCHECS".
    dbapi_connection.create_function("lower", 1, _lower, deterministic=True)
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        if page_cache_kib is None:
            cursor.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
        else:
            cursor.execute("PRAGMA mmap_size = 0")
            cursor.execute(f"PRAGMA cache_size = -{page_cache_kib}")
        if read_only:
            cursor.execute("PRAGMA query_only = ON")
        else:
            cursor.execute(f"PRAGMA page_size = {PAGE_BYTES}")  # only a new, empty file takes it
            if not _foreign_tables(cursor):  # another program's file is left as it is
                _use_wal(cursor)
            cursor.execute("PRAGMA synchronous = NORMAL")
    finally:
        cursor.close()


def foreign_tables(engine: Engine) -> list[str]:
    """The tables of another program's SQLite file (tables, but no studydb schema
    revision); empty for a studydb database, a new empty file or PostgreSQL."""
    if engine.dialect.name != "sqlite":
        return []
    with database_errors(engine), engine.connect() as conn:
        return _foreign_tables(conn)


def foreign_message(engine: Engine, tables: list[str]) -> str:
    """Why studydb leaves another program's SQLite file alone, naming a few of its tables."""
    more = ", …" if len(tables) > 5 else ""
    return (
        f"{describe(str(engine.url))} is not a studydb database: it holds another program's"
        f" tables ({', '.join(tables[:5])}{more}) and no studydb schema revision;"
        " give --db a new file"
    )


def _foreign_tables(cursor: sqlite3.Cursor | Connection) -> list[str]:
    """The tables of a SQLite file that holds tables but no studydb schema revision: another
    program's database, which studydb neither migrates nor switches to WAL.  Empty for a
    new, empty file and for a studydb database.
    """
    statement = "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
    if isinstance(cursor, Connection):
        names = [row[0] for row in cursor.exec_driver_sql(statement)]
    else:
        names = [row[0] for row in cursor.execute(statement)]
    return [] if not names or "alembic_version" in names else names


def _use_wal(cursor: sqlite3.Cursor) -> None:
    """Switch a SQLite file to WAL mode, waiting for other processes opening it too.

    The switch needs the file to itself, and SQLite answers "database is
    locked" at once, without its busy handler, while another process holds
    it (two imports into a new file): try again until the busy timeout.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            mode = cursor.execute("PRAGMA journal_mode").fetchone()[0]
            if mode.lower() != "wal":
                cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


#: What SQLite passes to, and takes back from, a function written in Python.
SqliteValue = str | bytes | int | float | None


def _lower(value: SqliteValue) -> SqliteValue:
    return value.lower() if isinstance(value, str) else value


def _begin_sqlite(conn: Connection) -> None:
    if conn.get_execution_options().get("sqlite_begin") == "immediate":
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        conn.exec_driver_sql("BEGIN")


def upsert(engine: Engine | Connection, table: Any) -> postgresql.Insert | sqlite.Insert:
    """An INSERT into ``table`` in the engine's own dialect, which has ``on_conflict_do_nothing``.

    The dialect's module is imported here, not at the top: PostgreSQL's costs some
    80 ms, a fifth of a SQLite command's start.

    >>> from studydb.db.models import Material
    >>> engine = create_engine("sqlite://")
    >>> statement = upsert(engine, Material).on_conflict_do_nothing()
    >>> str(statement.compile(engine)).endswith("ON CONFLICT DO NOTHING")
    True
    """
    if engine.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table)


def writer(engine: Engine) -> Engine:
    """Return the engine to write with: SQLite transactions begin IMMEDIATE."""
    return engine.execution_options(sqlite_begin="immediate")


def current_revision(engine: Engine) -> str | None:
    """Return the schema revision stored in the database, None when it has none."""
    try:
        with engine.connect() as conn:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except DBAPIError as exc:
        if _is_missing_table(exc):
            return None
        raise database_error(engine, exc, doing="open") from exc


def _is_missing_table(exc: DBAPIError) -> bool:
    """Tell "no alembic_version table" from a missing database or role."""
    if getattr(exc.orig, "sqlstate", None) == "42P01":  # PostgreSQL: undefined table
        return True
    return "no such table" in str(exc.orig).lower()


def check_revision(engine: Engine, revision: str | None) -> None:
    """Fail on a schema written by a newer studydb (a revision we have no script for)."""
    if revision is not None and revision not in KNOWN_REVISIONS:
        raise DatabaseError(
            f"this database was written by a newer studydb: {describe(str(engine.url))} is at"
            f" schema revision {revision}, this studydb knows up to {HEAD_REVISION};"
            " upgrade studydb to use it"
        )


def upgrade(engine: Engine, revision: str = "head", *, stepwise: bool = False) -> None:
    """Bring the schema to ``revision`` with Alembic, one migrator at a time, then what the
    stored rows imply to today's rules (:mod:`studydb.db.derived`), in one transaction.

    An empty SQLite file is given :data:`HEAD_SCHEMA` instead, unless ``stepwise``.
    """
    if revision != "head" and revision not in KNOWN_REVISIONS:
        known = ", ".join(sorted(KNOWN_REVISIONS))
        raise DatabaseError(f"unknown schema revision {revision!r}: known are {known} and head")
    before = current_revision(engine)
    check_revision(engine, before)
    with database_errors(engine, doing="migrate"), writer(engine).connect() as conn:
        if conn.dialect.name != "sqlite":
            with conn.begin():
                conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_MIGRATION_LOCK})
                _migrate(conn, revision, before=before)
        else:
            with foreign_keys_off(conn), conn.begin():
                foreign = _foreign_tables(conn)
                if foreign:
                    raise DatabaseError(foreign_message(engine, foreign))
                if stepwise or revision != "head" or not _load_head_schema(conn):
                    _migrate(conn, revision, before=before)
                _check_foreign_keys(conn)
    log.info("database %s at revision %s", describe(str(engine.url)), revision)


def _migrate(conn: Connection, revision: str, *, before: str | None) -> None:
    """Run the migrations from ``before`` to ``revision``, then refresh the derived rows."""
    from alembic import command
    from alembic.util import CommandError

    from studydb.db.derived import refresh
    from studydb.db.migrations import alembic_config

    after = HEAD_REVISION if revision == "head" else revision
    try:
        command.upgrade(alembic_config(conn), revision)
    except CommandError as exc:
        raise DatabaseError(f"cannot migrate {describe(str(conn.engine.url))}: {exc}") from exc
    for done in refresh(conn, before=before, after=after):
        log.info("refreshed by today's rules: %s", done)


def _load_head_schema(conn: Connection) -> bool:
    """Give an empty SQLite file :data:`HEAD_SCHEMA`; False (and nothing done) if it is not empty.

    Asked in the writer's transaction: of two processes making one file, the
    second finds the first one's tables.
    """
    if conn.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar():
        return False
    for statement in split_statements(HEAD_SCHEMA.read_text(encoding="utf-8")):
        conn.exec_driver_sql(statement)
    return True


def split_statements(script: str) -> Iterator[str]:
    """The SQL statements of a script, each complete (a trigger's ``;`` inside kept).

    >>> list(split_statements("CREATE TABLE a (x);\\nINSERT INTO a VALUES (';');\\n"))
    ['CREATE TABLE a (x);', "INSERT INTO a VALUES (';');"]
    """
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending.strip()
            pending = ""
    if pending.strip():
        raise DatabaseError(f"incomplete SQL statement at the end of a script: {pending[:60]!r}")


def schema_script(conn: Connection) -> str:
    """The statements that make an empty SQLite file what ``conn``'s is: its tables,
    triggers and views in the order they were made, then its indexes by name (a table a
    migration rebuilt gets its indexes back in the order of a Python set), and its
    ``alembic_version``.

    >>> engine = sa_create_engine("sqlite://")
    >>> with engine.begin() as conn:
    ...     _ = conn.exec_driver_sql("CREATE TABLE alembic_version (version_num TEXT)")
    ...     _ = conn.exec_driver_sql("INSERT INTO alembic_version VALUES ('0001')")
    ...     print(schema_script(conn), end="")
    CREATE TABLE alembic_version (version_num TEXT);
    INSERT INTO alembic_version (version_num) VALUES ('0001');
    """
    made = conn.exec_driver_sql(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"
        " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        " ORDER BY type = 'index', CASE type WHEN 'index' THEN name END, rowid"
    )
    statements = [f"{sql};\n" for (sql,) in made]
    for (version,) in conn.exec_driver_sql("SELECT version_num FROM alembic_version"):
        statements.append(f"INSERT INTO alembic_version (version_num) VALUES ('{version}');\n")
    return "".join(statements)


def migrated_schema() -> str:
    """:func:`schema_script` of a new SQLite file that every migration in turn brought to
    the head revision (what :data:`HEAD_SCHEMA` must hold)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        engine = create_engine(f"sqlite:///{Path(folder) / 'head.sqlite'}")
        try:
            upgrade(engine, stepwise=True)
            with engine.connect() as conn:
                return schema_script(conn)
        finally:
            engine.dispose()


def write_head_schema() -> None:
    """Write :data:`HEAD_SCHEMA` again: ``python -c "from studydb.db.connect import
    write_head_schema; write_head_schema()"`` after adding a migration."""
    HEAD_SCHEMA.write_text(migrated_schema(), encoding="utf-8")


@contextlib.contextmanager
def foreign_keys_off(conn: Connection) -> Iterator[None]:
    """SQLite's foreign-key checks off for the block, as a migration needs them: SQLite
    rebuilds a table others point at by dropping it, and ``ON DELETE CASCADE`` would
    empty those.  Nothing changes on PostgreSQL."""
    if conn.dialect.name != "sqlite":
        yield
        return
    _set_foreign_keys(conn, on=False)
    try:
        yield
    finally:
        _set_foreign_keys(conn, on=True)


def _set_foreign_keys(conn: Connection, *, on: bool) -> None:
    """Turn SQLite's foreign-key checks on or off (outside a transaction, as SQLite needs)."""
    driver = conn.connection.driver_connection
    assert driver is not None
    driver.execute(f"PRAGMA foreign_keys = {'ON' if on else 'OFF'}")


def _check_foreign_keys(conn: Connection) -> None:
    """Fail the migration when a rebuilt table left a dangling reference (SQLite)."""
    dangling = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if dangling:
        table, rowid, parent, _ = dangling[0]
        raise DatabaseError(
            f"migration left {len(dangling)} dangling reference(s), the first from "
            f"{table} row {rowid} to {parent}"
        )


def open_database(
    db: str | os.PathLike[str] | None = None,
    *,
    upgrade_schema: bool = True,
    write: bool = True,
    echo: bool = False,
) -> Engine:
    """Open the database; for writing, create it if needed and bring it to the latest revision.

    Only writers (``write=True``, the default) create or migrate: opened for
    reading, a missing SQLite file, a database without studydb's schema, or
    one at an older revision is an error, and nothing is written to it.  A
    schema newer than this studydb is an error either way.

    >>> try:
    ...     open_database("/nonexistent/studies.sqlite", write=False)
    ... except DatabaseError as exc:
    ...     print(exc)
    no database at /nonexistent/studies.sqlite: import some PGN first (studydb import)
    """
    url = resolve_url(db)
    parsed = make_url(url)
    where = describe(url)
    database = parsed.database or ""
    is_file = parsed.get_backend_name() == "sqlite" and database not in ("", ":memory:")
    if not write and is_file and not Path(database).exists():
        raise DatabaseError(f"no database at {where}: import some PGN first (studydb import)")
    if write and upgrade_schema and is_file:
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    try:
        if not write and is_file and not _writable(Path(database)):
            engine = _reader(url)  # nothing may be written: not even the switch to WAL
        else:
            engine = create_engine(url, echo=echo)
    except (ArgumentError, ImportError, ValueError) as exc:
        raise DatabaseError(f"cannot open {where}: {exc}") from exc
    if not upgrade_schema:
        return engine
    revision = current_revision(engine)
    check_revision(engine, revision)
    if revision == HEAD_REVISION:
        return engine
    if write:
        upgrade(engine)
    elif revision is None:
        raise DatabaseError(f"{where} is not a studydb database (it has no schema revision)")
    else:
        raise DatabaseError(
            f"{where} is at schema revision {revision}: run `studydb db upgrade` (or an import)"
        )
    return engine


# -- read-only access (studydb serve) ----------------------------------------------


def _writable(path: Path) -> bool:
    """Whether this process may write a SQLite file and its folder (its -wal, -shm files).

    >>> _writable(Path("/nonexistent/studies.sqlite"))
    False
    """
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _reader(url: str, *, page_cache_kib: int | None = None) -> Engine:
    """A read-only engine on a SQLite file: ``mode=ro``, else (a WAL file in a folder
    that cannot be written, where SQLite cannot make its ``-shm`` file) ``immutable``."""
    engine = create_engine(url, read_only=True, page_cache_kib=page_cache_kib)
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT count(*) FROM sqlite_master")).scalar()
    except DBAPIError as exc:
        detail = str(exc.orig).lower()
        if "readonly" not in detail.replace(" ", "") and "unable to open" not in detail:
            return engine  # another trouble: the first query says it, naming the file
        engine.dispose()
        log.info("reading %s as immutable: %s", describe(url), exc.orig)
        return create_engine(url, read_only=True, immutable=True, page_cache_kib=page_cache_kib)
    return engine


def open_read_only(
    db: str | os.PathLike[str] | None = None, *, page_cache_kib: int | None = None
) -> Engine:
    """Open an existing database for reading only, enforced by the connection itself.

    SQLite is opened with ``mode=ro`` (and ``query_only``); PostgreSQL sessions
    start with ``default_transaction_read_only``, so every transaction is
    read-only.  The schema must be at the latest revision already: nothing is
    created or migrated.  ``page_cache_kib``: SQLite is read through a page
    cache of that size a connection instead of mmap (see :func:`create_engine`).

    >>> open_read_only("/nowhere/studies.sqlite")
    Traceback (most recent call last):
    ...
    studydb.errors.DatabaseError: cannot open /nowhere/studies.sqlite: no such database file

    :raises DatabaseError: if it is absent, cannot be read or has an older schema.
    """
    url = resolve_url(db)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = parsed.database
        if not path or path == ":memory:" or not Path(path).is_file():
            raise DatabaseError(f"cannot open {path or ':memory:'}: no such database file")
    try:
        is_sqlite = parsed.get_backend_name() == "sqlite"
        engine = (
            _reader(url, page_cache_kib=page_cache_kib)
            if is_sqlite
            else create_engine(url, read_only=True)
        )
    except (ArgumentError, ImportError) as exc:
        raise DatabaseError(f"cannot open {describe(url)}: {exc}") from exc
    revision = current_revision(engine)
    if revision != HEAD_REVISION:
        engine.dispose()
        check_revision(engine, revision)  # a newer studydb's: upgrading the database cannot help
        found = "no studydb schema" if revision is None else f"schema revision {revision}"
        raise DatabaseError(
            f"cannot serve {describe(url)}: it has {found}, this studydb needs {HEAD_REVISION} "
            "(run 'studydb db upgrade' or import into it first)"
        )
    return engine
