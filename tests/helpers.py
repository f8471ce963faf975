"""Helpers that test modules share: paths, sample studies, databases and processes.

Fixtures live in ``conftest.py``; whatever a test module needs from another
one lives here, so that no test module imports another (or conftest).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import chess
import pytest
from hypothesis import assume
from hypothesis import strategies as st
from sqlalchemy import select

from studydb.db.connect import open_database
from studydb.db.migrations import HEAD_REVISION
from studydb.db.models import Composer, Reject, Study, StudyComposer
from studydb.pgn import tags_of
from studydb.report import (
    Anticipation,
    Entry,
    Finding,
    MoveNote,
    Report,
    Soundness,
    Version,
)
from studydb.themes import PGN, Theme

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
IN_CI = os.environ.get("CI", "").lower() == "true"
PG_ADMIN_URL = os.environ.get("STUDYDB_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
#: The installed console script (of the virtual environment running the tests).
STUDYDB = Path(sys.executable).with_name("studydb")
MIGRATIONS = ROOT / "studydb" / "db" / "migrations"
#: The verified sample collection.
CLASSICS = ROOT / "data" / "classics.pgn"
#: The pytest-xdist worker running this process (``gw0``, ``gw1``, …), or ``main``.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
#: Seconds ``studydb serve`` may take to start.
START_TIMEOUT = 30


#: Every hypothesis example a test asks for, under CI=true or STUDYDB_TEST_EXAMPLES=all;
#: else a tenth of them (at least 10), for the fast loop on a workstation.
ALL_EXAMPLES = IN_CI or os.environ.get("STUDYDB_TEST_EXAMPLES", "") == "all"


def examples(count: int) -> int:
    """How many hypothesis examples to run of the ``count`` a test asks for (see
    :data:`ALL_EXAMPLES`).

    >>> examples(300) in (30, 300)
    True
    """
    return count if ALL_EXAMPLES else max(10, count // 10)


def require(condition: bool, reason: str) -> None:
    """Skip the test when ``condition`` is false, or fail it under CI=true."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{reason} (required under CI=true)")
    pytest.skip(reason)


def stable_id(value: Any) -> str:
    """A parametrize id that is the same in every process: sets are written sorted.

    pytest-xdist's workers must collect the same ids, and a set's repr follows
    the hash seed.

    >>> stable_id({"b", "a"}), stable_id({"x": 1})
    ("{'a', 'b'}", "{'x': 1}")
    """
    if isinstance(value, set | frozenset):
        text = "{" + ", ".join(repr(item) for item in sorted(value, key=repr)) + "}"
    else:
        text = repr(value)
    return text[:60]


def command_id(command: Sequence[str]) -> str:
    """A command's parametrize id, the paths in it written from the clone (``.``,
    ``../shared``): the same ids wherever the clone is.

    >>> command_id(["report", str(ROOT / "data" / "classics.pgn")])
    'report ./data/classics.pgn'
    """
    shared, root = str(SHARED), str(ROOT)
    return " ".join(part.replace(shared, "../shared").replace(root, ".") for part in command)


def pgn_extract() -> str:
    """The pgn-extract executable (Debian installs it in /usr/games); skip, or fail in CI."""
    import shutil

    exe = shutil.which("pgn-extract") or (
        "/usr/games/pgn-extract" if os.access("/usr/games/pgn-extract", os.X_OK) else None
    )
    require(exe is not None, "pgn-extract is not installed")
    assert exe is not None
    return exe


def downgrade(engine: Any, revision: str) -> None:
    """Undo the migrations after ``revision`` (for tests: studydb has no downgrade command),
    with SQLite's foreign keys off as an upgrade has them (``connect.foreign_keys_off``)."""
    from alembic import command

    from studydb.db.connect import foreign_keys_off, writer
    from studydb.db.migrations import alembic_config

    with writer(engine).connect() as conn, foreign_keys_off(conn), conn.begin():
        command.downgrade(alembic_config(conn), revision)


# -- PostgreSQL ---------------------------------------------------------------------


#: Key of the advisory lock under which one test run at a time makes a template.
_TEMPLATE_LOCK = 0x5354_5544_5954_4D50
#: The template databases this process has made sure of.
_templates: set[str] = set()


def _pg_admin() -> Any:
    try:
        import psycopg
    except ImportError:
        require(False, "psycopg is not installed")
    try:
        return psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        require(False, f"no PostgreSQL server at {PG_ADMIN_URL}: {exc}")


def pg_url_for(database: str) -> str:
    """The SQLAlchemy URL of ``database`` on the server $STUDYDB_TEST_PG names."""
    from sqlalchemy.engine import make_url

    url = make_url(PG_ADMIN_URL).set(drivername="postgresql+psycopg", database=database)
    return url.render_as_string(hide_password=False)


def schema_digest() -> str:
    """A digest of the migration scripts: two branches with a revision 0006 each differ.

    >>> len(schema_digest())
    10
    """
    digest = hashlib.sha256()
    for path in sorted(MIGRATIONS.rglob("*.py")):
        digest.update(path.relative_to(MIGRATIONS).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


def pg_template() -> str:
    """The name of a PostgreSQL database at the head revision to copy test databases from.

    Made once (migrated by the real migrations) and kept on the server for the
    test runs that follow, named after the head revision and the scripts'
    digest.  Test runs going on at once (several worktrees share the server)
    take turns on an advisory lock; a template appears under its name only
    once it is complete (it is migrated under another name, then renamed).
    """
    name = f"studydb_template_{HEAD_REVISION}_{schema_digest()}"
    if name in _templates:
        return name
    with _pg_admin() as admin:
        admin.execute("SELECT pg_advisory_lock(%s)", (_TEMPLATE_LOCK,))
        try:
            found = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
            if found.fetchone() is None:
                building = f"{name}_{uuid.uuid4().hex[:8]}"
                admin.execute(f'CREATE DATABASE "{building}"')
                try:
                    open_database(pg_url_for(building)).dispose()
                    admin.execute(f'ALTER DATABASE "{building}" RENAME TO "{name}"')
                except BaseException:
                    admin.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
                    raise
        finally:
            admin.execute("SELECT pg_advisory_unlock(%s)", (_TEMPLATE_LOCK,))
    _templates.add(name)
    return name


def pg_database(*, migrated: bool = True) -> Iterator[str]:
    """Create a PostgreSQL database of the caller's own; yield its URL, then empty or drop it.

    ``migrated``: a copy of :func:`pg_template` (at the head revision), else
    empty.  The drop is left to :data:`DROPPER`: PostgreSQL checkpoints for
    every ``DROP DATABASE``, seconds on a busy machine that the test need not wait.
    A database whose schema the test left as a fresh copy's is emptied
    instead, and the next test takes it (:meth:`_Dropper.recycle`); new copies
    are made ahead by :data:`SUPPLIER`, while tests run.  At the end of a run
    the emptied copies stay on the server, in a pool that the next run takes
    from first (``studydb_pool_…``, :data:`POOL_MAX` per schema), and those
    still to drop are renamed into the trash (``studydb_trash_…``), which the
    next run drops while its tests run: no run waits for a ``DROP DATABASE``.
    """
    if migrated:
        name = SUPPLIER.take()
    else:
        name = _new_database_name()
        with _pg_admin() as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield pg_url_for(name)
    finally:
        DROPPER.recycle(name)  # an empty one that the test migrated to the head is as a copy


@contextlib.contextmanager
def database_on(engine: str, path: Path) -> Iterator[str]:
    """A database URL of the caller's own on ``engine``: ``'sqlite'``, the file ``path``
    (made when first opened); ``'postgresql'``, a migrated copy dropped afterwards.

    For the module fixtures that import a collection once per engine.
    """
    if engine == "sqlite":
        yield str(path)
    else:
        yield from pg_database()


#: Everything a test could change in a test database's schema, read from the catalog:
#: schemas, relations and their columns and grants, constraints, triggers, functions,
#: extensions and the database's own settings and grants.
_SCHEMA_FINGERPRINT = r"""
SELECT md5(concat_ws('|',
  (SELECT string_agg(nspname, ',' ORDER BY nspname) FROM pg_namespace
     WHERE nspname NOT LIKE 'pg\_temp\_%' AND nspname NOT LIKE 'pg\_toast\_temp\_%'),
  (SELECT string_agg(concat_ws(':', n.nspname, c.relname, c.relkind::text, c.relacl::text,
                               a.attname, a.atttypid::text, a.attnotnull::text),
                     ',' ORDER BY n.nspname, c.relname, a.attnum)
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
     WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')),
  (SELECT string_agg(conname || ':' || contype::text, ',' ORDER BY conname, contype)
     FROM pg_constraint WHERE connamespace = 'public'::regnamespace),
  (SELECT string_agg(tgname, ',' ORDER BY tgname) FROM pg_trigger WHERE NOT tgisinternal),
  (SELECT string_agg(proname, ',' ORDER BY proname) FROM pg_proc
     WHERE pronamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)),
  (SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension),
  (SELECT string_agg(array_to_string(setconfig, ','), ';' ORDER BY setrole)
     FROM pg_db_role_setting
     WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())),
  (SELECT datacl::text FROM pg_database WHERE datname = current_database())
))
"""

#: The planner's sizes of the relations, read from a fresh copy and written back to an
#: emptied one.
_SIZES = (
    "SELECT reltuples, relpages, relallvisible, relname FROM pg_class"
    " WHERE relnamespace = 'public'::regnamespace ORDER BY relname"
)


def _reset_script(
    tables: Sequence[str], sequences: Sequence[str], sizes: Sequence[tuple[float, int, int, str]]
) -> str:
    """The statements that empty a copy at the head revision into what a fresh copy is,
    as one script in one transaction (a round trip each cost a third of the emptying).

    The revision a test wrote is undone (the schema is the head's: the fingerprint
    says so), the rows and sequences are as a fresh copy's, and so are the planner's
    sizes and statistics: never analysed (a test asserts that an import analyses).
    """
    from psycopg import sql

    def literal(value: object) -> str:
        return sql.Literal(value).as_string(None)

    sized = ", ".join(
        f"({literal(float(tuples))}::real, {literal(pages)}, {literal(visible)}, {literal(name)})"
        for tuples, pages, visible, name in sizes
    )
    statements = [
        "BEGIN",
        "SET LOCAL session_replication_role = replica",  # no foreign-key order
        "DELETE FROM alembic_version",
        f"INSERT INTO alembic_version VALUES ({literal(HEAD_REVISION)})",
        *(f"DELETE FROM {sql.Identifier(table).as_string(None)}" for table in tables),
        *(f"ALTER SEQUENCE {sql.Identifier(name).as_string(None)} RESTART" for name in sequences),
        "DELETE FROM pg_statistic WHERE starelid IN"
        " (SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace)",
        "UPDATE pg_class SET reltuples = v.tuples, relpages = v.pages, relallvisible = v.visible"
        f" FROM (VALUES {sized}) AS v(tuples, pages, visible, name)"
        " WHERE relnamespace = 'public'::regnamespace AND relname = v.name",
        "SELECT pg_stat_reset()",
        "COMMIT",
    ]
    return ";\n".join(statements)


class _Dropper:
    """Drops, or empties for reuse, test databases in a thread of its own.

    :meth:`wait` for the last ones at the end of the session.  Emptying a copy
    (``DELETE`` from its tables, its sequences restarted) costs PostgreSQL a
    fifth of the CPU of a ``CREATE DATABASE`` and a ``DROP DATABASE``.
    """

    def __init__(self) -> None:
        self.jobs: queue.Queue[tuple[str, bool] | None] = queue.Queue()
        self.thread: threading.Thread | None = None
        self.errors: list[str] = []
        #: Emptied copies at the head revision, for :meth:`_Supplier.take`.
        self.clean: queue.SimpleQueue[str] = queue.SimpleQueue()
        #: A fresh copy's :data:`_SCHEMA_FINGERPRINT`, read by :meth:`learn` once.
        self.fingerprint: str | None = None
        #: What empties a copy at the head revision into a fresh one (:func:`_reset_script`),
        #: written by :meth:`learn` before the fingerprint, which says it is there.
        self.reset = ""
        #: Set by :meth:`wait`: the copies still to drop are set aside instead.
        self.ending = threading.Event()

    def drop(self, name: str) -> None:
        self._put((name, False))

    def recycle(self, name: str) -> None:
        """Empty ``name`` for the next test if its schema is a fresh copy's, else drop it."""
        self._put((name, True))

    def keep(self, name: str) -> None:
        """Keep ``name``, a fresh copy no test has used, for the next test or the next run."""
        self.clean.put(name)

    def learn(self, name: str) -> None:
        """Read what a fresh copy of the template looks like, from ``name``."""
        with _connect(name) as conn:
            tables = conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
                " AND tablename <> 'alembic_version' ORDER BY tablename"
            ).fetchall()
            sequences = conn.execute(
                "SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'"
                " ORDER BY sequencename"
            ).fetchall()
            sizes = conn.execute(_SIZES).fetchall()
            self.reset = _reset_script([t for (t,) in tables], [q for (q,) in sequences], sizes)
            self.fingerprint = conn.execute(_SCHEMA_FINGERPRINT).fetchone()[0]

    def wait(self) -> None:
        """Return once every database handed over is emptied into the pool or set aside.

        The end of the session waits for no ``DROP DATABASE``: the copies still
        to drop are renamed into the trash (:func:`_set_aside`), which the next
        run drops while its tests run.
        """
        self.ending.set()
        if self.thread is None:
            self._pool_without_thread()
            return
        self.jobs.put(None)
        self.thread.join()
        self.thread = None

    def _pool_without_thread(self) -> None:
        """Pool the copies kept (:meth:`keep`) when no thread ever started."""
        if not self.clean.empty():
            with _pg_admin() as admin:
                self._pool_clean(admin)

    def _put(self, job: tuple[str, bool]) -> None:
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="drop-databases", daemon=True)
            self.thread.start()
        self.jobs.put(job)

    def _run(self) -> None:
        with _pg_admin() as admin:
            while (job := self.jobs.get()) is not None:
                name, recycle = job
                try:
                    if recycle and self._empty(admin, name):
                        self.clean.put(name)
                        continue
                except Exception:  # not reusable after all: dropped below
                    pass
                if self.ending.is_set():
                    self._set_aside(admin, name)
                else:
                    self._drop(admin, name)
            self._pool_clean(admin)  # the session ends: the emptied copies wait for the next

    def _pool_clean(self, admin: Any) -> None:
        """Rename the emptied copies into the pool (:data:`POOL_MAX` at most), trash the rest."""
        pooled = len(_pool_names(admin))
        while True:
            try:
                name = self.clean.get_nowait()
            except queue.Empty:
                break
            if pooled < POOL_MAX and _rename(admin, name, _pool_name()):
                pooled += 1
            else:
                self._set_aside(admin, name)

    def _set_aside(self, admin: Any, name: str) -> None:
        """Rename ``name`` into the trash, for a later run to drop; drop it if that fails."""
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )
        if not _rename(admin, name, f"{_TRASH}{uuid.uuid4().hex[:12]}"):
            self._drop(admin, name)

    def _drop(self, admin: Any, name: str) -> None:
        try:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        except Exception as exc:  # reported at the end of the session
            self.errors.append(f"{name}: {exc}")

    def _empty(self, admin: Any, name: str) -> bool:
        """Empty ``name`` as a fresh copy is, if its schema and revision are a fresh copy's."""
        if self.fingerprint is None:
            return False
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )
        with _connect(name) as conn:
            if conn.execute(_SCHEMA_FINGERPRINT).fetchone()[0] != self.fingerprint:
                return False
            conn.execute(self.reset)  # one round trip, one transaction
        return True


def _connect(database: str) -> Any:
    """A psycopg connection (autocommit) to ``database`` on the test server."""
    import psycopg
    from psycopg.conninfo import make_conninfo

    return psycopg.connect(make_conninfo(PG_ADMIN_URL, dbname=database), autocommit=True)


#: Emptied copies kept on the server between runs, at most this many per schema.
POOL_MAX = 12
#: The names of copies a run set aside, for the next run to drop.
_TRASH = "studydb_trash_"


def _pool_prefix() -> str:
    """The name that the pooled copies of this schema's template start with."""
    return f"studydb_pool_{HEAD_REVISION}_{schema_digest()}_"


def _pool_name() -> str:
    return f"{_pool_prefix()}{int(time.time())}_{uuid.uuid4().hex[:8]}"


def _pool_names(admin: Any) -> list[str]:
    prefix = _pool_prefix().replace("_", r"\_")
    found = admin.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", (prefix + "%",))
    return [row[0] for row in found]


def _rename(admin: Any, name: str, new: str) -> bool:
    """Rename a database; False when it is gone or in use (another run claimed it first)."""
    try:
        admin.execute(f'ALTER DATABASE "{name}" RENAME TO "{new}"')
    except Exception:
        return False
    return True


def _claim_pooled(admin: Any) -> str | None:
    """A pooled copy of this schema's template, renamed to a test database's name, or None.

    Runs going on at once may race for one: the rename succeeds for one of them.
    """
    for pooled in _pool_names(admin):
        name = _new_database_name()
        if _rename(admin, pooled, name):
            return name
    return None


def _sweep() -> None:
    """Drop the copies set aside by earlier runs, and other schemas' pools a day old.

    In a thread of its own, while the tests run; what a run's end cuts short,
    the next run drops.
    """
    with contextlib.suppress(BaseException), _pg_admin() as admin:  # a chore: never a failure
        found = admin.execute(
            "SELECT datname FROM pg_database WHERE datname LIKE 'studydb\\_trash\\_%'"
            " OR datname LIKE 'studydb\\_pool\\_%' ORDER BY datname"
        )
        old = time.time() - 86_400
        for (name,) in found.fetchall():
            if name.startswith(_TRASH) or (
                not name.startswith(_pool_prefix()) and int(name.rsplit("_", 2)[-2]) < old
            ):
                with contextlib.suppress(Exception):
                    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


DROPPER = _Dropper()


def _new_database_name() -> str:
    return f"studydb_test_{WORKER}_{uuid.uuid4().hex[:12]}"


class _Supplier:
    """Copies the template in a thread of its own, a few databases ahead of the tests.

    Every test still gets a database of its own that is as a fresh copy is (a
    new copy, or one emptied by :meth:`_Dropper.recycle`); it just need not
    wait for ``CREATE DATABASE``.  :meth:`close` hands the unused ones to :data:`DROPPER`.
    """

    #: Copies kept ready.
    AHEAD = 3

    def __init__(self) -> None:
        self.ready: queue.Queue[str | BaseException] = queue.Queue(maxsize=self.AHEAD)
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()

    def take(self) -> str:
        """The name of a new copy of :func:`pg_template`, the caller's to use and drop."""
        template = pg_template()  # made (or skipped) in the caller's thread
        with contextlib.suppress(queue.Empty):
            return DROPPER.clean.get_nowait()
        while True:
            if self.thread is None or not self.thread.is_alive():  # not yet, or it failed
                self.thread = threading.Thread(
                    target=self._run, args=(template,), name="create-databases", daemon=True
                )
                self.thread.start()
            try:
                made = self.ready.get(timeout=1)
            except queue.Empty:
                continue
            if isinstance(made, BaseException):
                raise made
            return made

    def close(self) -> None:
        """Stop making copies; drop those made and not taken."""
        if self.thread is None:
            return
        self.stopping.set()
        while self.thread.is_alive() or not self.ready.empty():
            try:
                made = self.ready.get(timeout=0.1)
            except queue.Empty:
                continue
            if isinstance(made, str):
                DROPPER.keep(made)
        self.thread = None

    def _run(self, template: str) -> None:
        try:
            with _pg_admin() as admin:
                while not self.stopping.is_set():
                    name = _claim_pooled(admin) or self._copy(admin, template)
                    if DROPPER.fingerprint is None:
                        DROPPER.learn(name)
                        threading.Thread(target=_sweep, name="sweep-databases", daemon=True).start()
                    self.ready.put(name)
        except BaseException as exc:  # handed to the test that takes the next copy
            self.ready.put(exc)

    @staticmethod
    def _copy(admin: Any, template: str) -> str:
        """A new copy of ``template``."""
        name = _new_database_name()
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        # A commit need not wait for the disk: only a crash of the server
        # would lose it, and no test crashes the server.
        admin.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = off')
        return name


SUPPLIER = _Supplier()


# -- processes ----------------------------------------------------------------------


def run_on_terminal(
    args: list[str], *, stream: str = "stderr", env: dict[str, str] | None = None
) -> tuple[int, str, bytes]:
    """Run a command with ``stream`` (stdout or stderr) on a pseudo-terminal.

    Returns the exit code, what the terminal showed and the other stream's bytes.
    """
    import pty
    import subprocess

    other = "stdout" if stream == "stderr" else "stderr"
    master, slave = pty.openpty()
    process = subprocess.Popen(args, env=env, **{stream: slave, other: subprocess.PIPE})
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    rest = getattr(process, other).read()
    return process.wait(timeout=120), shown.decode(errors="replace"), rest


#: The ``studydb serve`` process behind each base URL :func:`serving` yields, while it runs.
SERVERS: dict[str, subprocess.Popen[str]] = {}


@contextlib.contextmanager
def serving(db: str, *args: str, prefix: Sequence[str] = ()) -> Iterator[str]:
    """Run the installed ``studydb serve`` on a free port (after ``prefix``, a command
    such as ``setpriv …``); yield its base URL (its process: ``SERVERS[url]``)."""
    url = ""
    process = subprocess.Popen(
        [*prefix, str(STUDYDB), "serve", "--db", db, "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("studydb: serving "), line + process.stderr.read()
        url = line.split(" at ")[-1].strip()
        # Keep reading the access log (stdout), or the server blocks on a full pipe.
        threading.Thread(target=process.stdout.read, daemon=True).start()
        wait_until_answering(url)
        SERVERS[url] = process
        yield url
    finally:
        SERVERS.pop(url, None)
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        stderr = process.stderr.read()
        process.stderr.close()
    assert "Traceback" not in stderr, stderr


def wait_until_answering(url: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


def studydb(*args: str, **kwargs: Any) -> subprocess.Popen[str]:
    """Start the installed console script (text streams on pipes)."""
    assert STUDYDB.exists(), f"console script not installed next to {sys.executable}"
    return subprocess.Popen(
        [str(STUDYDB), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def finish(process: subprocess.Popen[str], timeout: float = 120) -> tuple[int, str, str]:
    """Wait for a process: its exit code, stdout and stderr."""
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out, err


def wait_for(condition: Any, timeout: float = 60, interval: float = 0.01) -> bool:
    """Poll ``condition()`` until it is true (an exception counts as false); False on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if condition():
                return True
        time.sleep(interval)
    return False


def paused_when(
    process: subprocess.Popen[Any], condition: Any, timeout: float = 60, run_for: float = 0.005
) -> bool:
    """Let ``process`` run ``run_for`` seconds at a time, stopped (SIGSTOP) while
    ``condition()`` is asked, until it is true: True with the process left stopped, so that
    a kill lands where the condition held however loaded the machine (a process polled while
    it ran could finish its work between two polls).  False on timeout or when the process
    ends first (it is left running)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        process.send_signal(signal.SIGSTOP)
        with contextlib.suppress(Exception):
            if condition():
                return True
        process.send_signal(signal.SIGCONT)
        time.sleep(run_for)
    return False


def children(pid: int) -> set[int]:
    """The process ids of a process's children (Linux /proc)."""
    found: set[int] = set()
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            found |= {int(p) for p in (task / "children").read_text().split()}
    return found


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


# -- databases ----------------------------------------------------------------------


def snapshot(engine, *, where: bool = True) -> dict[str, list]:
    """What an import leaves in a database, without ids and run numbers.

    ``where=False`` leaves out the file and line each row came from.
    """
    place = (Study.file, Study.line) if where else ()
    reject_place = (Reject.file, Reject.line) if where else ()
    with engine.connect() as conn:
        studies = conn.execute(
            select(Study.content_hash, Study.gbr, Study.fen, Study.pgn, *place).order_by(
                Study.content_hash
            )
        ).all()
        rejects = conn.execute(
            select(Reject.raw_hash, Reject.reason, Reject.raw, *reject_place).order_by(
                Reject.raw_hash
            )
        ).all()
        links = conn.execute(
            select(Study.content_hash, StudyComposer.position, Composer.name)
            .join(StudyComposer, StudyComposer.study_id == Study.id)
            .join(Composer, Composer.id == StudyComposer.composer_id)
            .order_by(Study.content_hash, StudyComposer.position)
        ).all()
        composers = conn.execute(select(Composer.name).order_by(Composer.name)).scalars().all()
    return {
        "studies": [tuple(r) for r in studies],
        "rejects": [tuple(r) for r in rejects],
        "links": [tuple(r) for r in links],
        "composers": list(composers),
    }


def write(path: Path, *games: str) -> Path:
    path.write_text("\n".join(games), encoding="utf-8")
    return path


def id_of(engine, event: str) -> int:
    with engine.connect() as conn:
        rows = conn.execute(select(Study.id, Study.pgn)).all()
    (found,) = [i for i, pgn in rows if tags_of(pgn).get("Event") == event]
    return found


# -- the search fixture (tests/fixtures/search.pgn) and references -------------------

FIXTURE = Path(__file__).parent / "fixtures" / "search.pgn"
SQL_NAME = 'O\'Brien "50%_off"; DROP TABLE studies;--'


def fixture_games() -> dict[str, dict[str, str]]:
    """The fixture's games by Event, with their tags (read with a regex, not our reader)."""
    games: dict[str, dict[str, str]] = {}
    for block in re.split(r"\n\n(?=\[Event )", FIXTURE.read_text(encoding="utf-8")):
        tags = dict(re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$', block, re.M))
        tags = {k: v.replace('\\"', '"').replace("\\\\", "\\") for k, v in tags.items()}
        games[tags["Event"]] = tags
    return games


GAMES = fixture_games()


def names_of(engine: Any, filters: Any, **options: Any) -> list[str]:
    """Event names of the fixture's studies that ``search`` finds, in result order."""
    from studydb.db.search import search

    by_fen = {tags["FEN"]: event for event, tags in GAMES.items()}
    return [by_fen[row.fen] for row in search(engine, filters, **options)]


def import_text(engine: Any, path: Path, text: str) -> None:
    """Write ``text`` to ``path`` and import it; nothing may fail or be rejected."""
    from studydb.db.importer import import_paths

    path.write_text(text, encoding="utf-8")
    summary = import_paths(engine, [path])
    assert summary.failures == [] and summary.rejected == 0


REFERENCES = """\
[Event "3.p Lenin MT 64"]
[Source "EG#01335"]
[Stipulation "win"]
[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]

1. c7 *

[Event "1.p Bohemia"]
[Source "(v): after Kubbel 1920 EG#13350"]
[Stipulation "#8"]
[FEN "8/8/8/8/8/8/1k6/KQ6 w - - 0 1"]

*

[Event "?"]
[Source "EG#04716.3.p Israel Ring ty 1978 EG#21335"]
[Stipulation "#3"]
[FEN "8/8/8/8/8/8/1k6/KR6 w - - 0 1"]

*
"""


# -- sample studies -------------------------------------------------------------------

SAAVEDRA = """[Event "Glasgow Weekly Citizen"]
[Date "1895.??.??"]
[Composer "Saavedra, Fernando"]
[Stipulation "win"]
[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]

1. c7 Rd6+ 2. Kb5 (2. Kc5 Rd1) 2... Rd5+ 3. Kb4 Rd4+ 4. Kb3 Rd3+ 5. Kc2 Rd4 6. c8=R Ra4
7. Kb3 1-0
"""

# A later study: Saavedra's first moves mirrored left-right.
MIRRORED = """[Event "Mirror"]
[Date "1990.??.??"]
[Composer "Copy, Cat"]
[Stipulation "win"]
[FEN "8/8/5PK1/4r3/8/8/8/7k w - - 0 1"]

1. f7 Re6+ 2. Kg5 *
"""

ILLEGAL = """[Event "Illegal move"]
[Date "1950.??.??"]
[FEN "8/8/8/8/8/8/R7/K6k w - - 0 1"]

1. Rh2+ (1. Ra8+ Kg2) 1... Kg1 2. Rb3 Kf1 1-0
"""

AFTER_KB5 = "8/2P5/3r4/1K6/8/8/8/k7 b - - 0 1"

# Saavedra's solution from a later start: after 1... Rd6+ 2. Kb5 of the original,
# reached here from another position (the king came from a6).
LATER = """[Event "Later"]
[Date "1960.??.??"]
[FEN "8/2P5/K2r4/8/8/8/8/k7 w - - 0 1"]

1. Kb5 Rd5+ 2. Kb4 Rd4+ 3. Kb3 Rd3+ 4. Kc2 *
"""

VERSION = SAAVEDRA.replace("Glasgow Weekly Citizen", "Another source").replace(
    "Saavedra, Fernando", "Saavedra, F."
)


# -- soundness checks ------------------------------------------------------------------

#: Crafted studies whose verdicts the tables decide exactly: (FEN, stipulation, movetext).
CRAFTED = {
    "claimed draw, won KQvK": ("8/8/8/8/8/2k5/8/KQ6 w - - 0 1", "draw", "1. Qb2+ Kc4"),
    "KRvK error at ply 3": ("8/8/8/8/8/2k5/7R/K7 w - - 0 1", "win", "1. Rh3+ Kd4 2. Rd3+ Kxd3"),
    "two winning first moves": ("8/1k6/8/4P3/2K5/8/8/8 w - - 0 1", "win", "1. Kd5"),
    "Saavedra": (
        "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1",
        "win",
        "1. c7 Rd6+ 2. Kb5 Rd5+ 3. Kb4 Rd4+ 4. Kb3 Rd3+ 5. Kc2 Rd4 6. c8=R Ra4 7. Kb3",
    ),
    "six men": ("4k3/8/8/8/8/8/3PPP2/4K3 w - - 0 1", "win", "1. e4 Kd7"),
}
#: (verdict, first solution error, plies flagged weak), in CRAFTED's order.
EXPECTED = [
    ("unsound", None, []),
    ("unsound", 3, [2]),
    ("duals", None, []),
    ("sound", None, []),
    ("unchecked", None, []),
]

#: data/classics.pgn: study number → (verdict, claim ply, plies checked by the tables):
#: sound when checked from the start, else no errors found from the claim ply on.
CLASSICS_CHECKED = {
    1: ("sound", 0, list(range(1, 14))),
    3: ("sound", 0, list(range(1, 8))),
    7: ("no-errors", 14, []),
    9: ("no-errors", 22, [23]),
    10: ("no-errors", 2, list(range(3, 10))),
    14: ("no-errors", 10, []),
    17: ("no-errors", 12, [13]),
    20: ("no-errors", 4, [5, 6, 7]),
    22: ("no-errors", 4, [5, 6, 7]),
    24: ("sound", 0, list(range(1, 8))),
    25: ("sound", 0, list(range(1, 14))),
}


def crafted_pgn(path: Path) -> Path:
    games = []
    for name, (fen, stipulation, moves) in CRAFTED.items():
        games.append(
            f'[Event "{name}"]\n[Stipulation "{stipulation}"]\n[SetUp "1"]\n[FEN "{fen}"]\n\n'
            f"{moves} *\n"
        )
    path.write_text("\n".join(games), encoding="utf-8")
    return path


# -- hypothesis: positions -------------------------------------------------------------

PIECES = "QRBNP"


@st.composite
def boards(draw: st.DrawFn, *, pawns: bool | None = None) -> chess.Board:
    """A legal position with two kings and up to four other men."""
    white_king = draw(st.integers(0, 63))
    black_king = draw(st.integers(0, 63).filter(lambda s: chess.square_distance(s, white_king) > 1))
    board = chess.Board(None)
    board.set_piece_at(white_king, chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(black_king, chess.Piece(chess.KING, chess.BLACK))
    others = draw(st.lists(st.integers(0, 63), max_size=4, unique=True))
    for square in others:
        if square in (white_king, black_king):
            continue
        symbol = draw(st.sampled_from(PIECES if pawns is not False else PIECES[:-1]))
        if symbol == "P" and chess.square_rank(square) in (0, 7):
            symbol = "N"
        colour = draw(st.booleans())
        board.set_piece_at(square, chess.Piece.from_symbol(symbol if colour else symbol.lower()))
    board.turn = draw(st.booleans())
    assume(board.is_valid() and (not pawns or bool(board.pawns)))
    return board


def shifted(board: chess.Board, files: int) -> chess.Board | None:
    image = chess.Board(None)
    for square, piece in board.piece_map().items():
        file = chess.square_file(square) + files
        if not 0 <= file < 8:
            return None
        image.set_piece_at(chess.square(file, chess.square_rank(square)), piece)
    image.turn = board.turn
    return image


def expected_images(board: chess.Board) -> list[chess.Board]:
    """The images the issue names, built with python-chess's own transforms."""
    if not board.pawns:
        transforms = [
            lambda b: b,
            chess.flip_horizontal,
            chess.flip_vertical,
            chess.flip_diagonal,
            chess.flip_anti_diagonal,
            lambda b: chess.flip_vertical(chess.flip_horizontal(b)),
            lambda b: chess.flip_vertical(chess.flip_diagonal(b)),
            lambda b: chess.flip_horizontal(chess.flip_diagonal(b)),
        ]
        return [board.transform(t) for t in transforms]
    images = []
    for base in (board, board.transform(chess.flip_horizontal)):
        images += [i for i in (shifted(base, d) for d in range(-7, 8)) if i is not None]
    return images


# -- movetext: studies the walker must read right ------------------------------------

#: Two kings far apart: every move of the nested study below stays legal.
NESTED_FEN = "7k/8/8/8/8/8/8/K7 w - - 0 1"
# White's king steps between a1 and b1, a main move and a variation each time; Black's
# between h8 and g8.
_NESTED_STEPS = {"a1": ("Ka2", "Kb1"), "b1": ("Kc1", "Ka1")}
_BLACK_STEPS = {"h8": "Kg8", "g8": "Kh8"}


def nested_study(depth: int) -> str:
    """Movetext whose variations nest ``depth`` deep, each two plies further on.

    Played from :data:`NESTED_FEN`: ``1. Ka2 (1. Kb1 Kg8 2. Kc1 (2. Ka1 Kh8 3. Ka2 (…))) *``.

    >>> nested_study(2)
    '1. Ka2 ( 1. Kb1 Kg8 2. Kc1 ( 2. Ka1 Kh8 ) ) *'
    """
    board = chess.Board(NESTED_FEN)
    parts = []
    for _ in range(depth):
        white = chess.square_name(board.king(chess.WHITE) or 0)
        main, variation = _NESTED_STEPS[white]
        number = board.fullmove_number
        reply = _BLACK_STEPS[chess.square_name(board.king(chess.BLACK) or 0)]
        parts.append(f"{number}. {main} ( {number}. {variation} {reply}")
        board.push_san(variation)
        board.push_san(reply)
    return " ".join(parts) + " )" * depth + " *"


#: Studies each movetext reader once got wrong (issue 15), by Event.
WALKS = {
    "two blank lines": (
        "8/8/8/8/8/2k5/7R/K7 w - - 0 1",
        "win",
        "\n\n1. Rh3+ Kd4 2. Kb2 Ke4 *",
    ),
    "siblings": (
        "8/8/8/8/8/2k5/8/K6R w - - 0 1",
        "win",
        "\n1. Rh3+ (1. Rh4 (1. Rh5) 1... Kd3) 1... Kd4 *",
    ),
    "broken variation": (
        "8/8/8/8/8/2k5/7R/K7 w - - 0 1",
        "win",
        "\n1. Rh3+ (1. Rc2+ Kb3 2. Qc2) 1... Kd4 2. Rd3+ Kxd3 *",
    ),
    "move 10000": ("k7/8/8/8/8/8/8/K7 w - - 0 9999", "draw", "\n9999. Kb1 Kb8 10000. Ka1 Ka8 *"),
    "nested": (NESTED_FEN, "draw", "\n" + nested_study(1500)),
}


def walks_pgn(*events: str) -> str:
    """The :data:`WALKS` studies as one PGN text: those named, in their order, or all."""
    return "".join(
        f'[Event "{event}"]\n[Stipulation "{stipulation}"]\n[FEN "{fen}"]\n{text}\n\n'
        for event, (fen, stipulation, text) in WALKS.items()
        if not events or event in events
    )


#: Crafted studies for every theme (test_themes, test_themes_db): name, FEN, movetext,
#: stipulation, the themes found as ``Theme.describe`` gives them.
THEMED_STUDIES = [
    # mate / stalemate / stalemate-line
    ("mate", "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", "1. Qf8#", None, ["mate ply 1"]),
    ("no mate: check only", "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", "1. Qa1+ Kg8", None, []),
    ("stalemate", "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1", "1. Qc7", None, ["stalemate ply 1"]),
    (
        "stalemate only in a variation",
        "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1",
        "1. Qc8# (1. Qc7 {stalemate})",
        None,
        ["mate ply 1", "stalemate-line ply 1"],
    ),
    (
        "stalemate in a nested variation, after its sub-variation",
        "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1",
        "1. Qc8# (1. Qg1 Kb8 2. Qg8#) (1. Qc2 (1. Qc3 Kb8) 1... Kb8 2. Qc4 (2. Kc6 Ka7)"
        " 2... Ka8 3. Qc7) (1. Qh1 Kb8 2. Qh8#)",
        None,
        ["mate ply 1", "stalemate-line ply 5"],
    ),
    (
        "a variation that does not end in stalemate",
        "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1",
        "1. Qc8# (1. Qc2 Kb8)",
        None,
        ["mate ply 1"],
    ),
    (
        "the main line's stalemate is no stalemate-line",
        "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1",
        "1. Qc7 (1. Qc2 Kb8 2. Qc7+ Ka8 3. Kb5 {stalemate? no: Kc6 would be})",
        None,
        ["stalemate ply 1"],
    ),
    # underpromotion
    (
        "underpromotion to a rook",
        "8/2P5/8/8/8/8/8/k1K5 w - - 0 1",
        "1. c8=R Ka2",
        None,
        ["underpromotion ply 1 (R)"],
    ),
    (
        "underpromotion to a knight",
        "8/2P5/8/8/8/8/8/k1K5 w - - 0 1",
        "1. c8=N Ka2",
        None,
        ["underpromotion ply 1 (N)"],
    ),
    (
        "underpromotion to a bishop",
        "8/2P5/8/8/8/8/8/k1K5 w - - 0 1",
        "1. c8=B Ka2",
        None,
        ["underpromotion ply 1 (B)"],
    ),
    ("promotion to a queen", "8/2P5/8/8/8/8/8/k1K5 w - - 0 1", "1. c8=Q Ka2", None, []),
    ("the defender underpromotes", "K7/8/8/8/8/8/2p5/k7 w - - 0 1", "1. Kb7 c1=N", None, []),
    (
        "underpromotion in a variation only",
        "8/2P5/8/8/8/8/8/k1K5 w - - 0 1",
        "1. c8=Q (1. c8=N Ka2) 1... Ka2",
        None,
        [],
    ),
    (
        "null moves in the main line: no man moves (a man on a1 stays)",
        "4k3/8/8/8/8/8/8/B6K w - - 0 1",
        "1. Kg1 -- 2. Bb2 Kd8 3. Ba1 Ke8 4. -- Kd8 5. Kh1",
        None,
        ["switchback ply 5 (Ba1)", "switchback ply 9 (Kh1)"],
    ),
    # excelsior
    (
        "excelsior",
        "8/8/8/8/8/8/1P5k/K7 w - - 0 1",
        "1. b4 Kg2 2. b5 Kf2 3. b6 Ke2 4. b7 Kd2 5. b8=Q",
        None,
        ["excelsior ply 9 (b2-b8)"],
    ),
    (
        "excelsior with captures, Black solving",
        "k7/6p1/5P2/4P3/8/8/8/K7 b - - 0 1",
        "1... gxf6 2. Ka2 fxe5 3. Ka3 e4 4. Ka4 e3 5. Ka5 e2 6. Kb6 e1=Q",
        None,
        ["excelsior ply 11 (g7-e1)"],
    ),
    (
        "the pawn is captured",
        "k7/6p1/5P2/4P3/8/8/8/7K b - - 0 1",
        "1... gxf6 2. Kg2 fxe5 3. Kf3 e4+ 4. Kxe4",
        None,
        [],
    ),
    (
        "the pawn did not start on its second rank",
        "8/8/8/8/8/1P6/7k/K7 w - - 0 1",
        "1. b4 Kg2 2. b5 Kf2 3. b6 Ke2 4. b7 Kd2 5. b8=Q",
        None,
        [],
    ),
    (
        "another pawn promotes",
        "8/8/8/8/2P5/8/1P5k/K7 w - - 0 1",
        "1. c5 Kg2 2. c6 Kf2 3. c7 Ke2 4. c8=Q",
        None,
        [],
    ),
    # positional draw and perpetual check
    (
        "positional draw",
        "7k/8/8/8/8/8/8/5B1K w - - 0 1",
        "1. Kg1 Kg8 2. Kh1 Kh8",
        "draw",
        ["switchback ply 3 (Kh1)", "positional-draw ply 4 (ply 0)"],
    ),
    (
        "a repetition in a win study",
        "7k/8/8/8/8/8/8/5B1K w - - 0 1",
        "1. Kg1 Kg8 2. Kh1 Kh8",
        "win",
        ["switchback ply 3 (Kh1)"],
    ),
    (
        "a draw study's repetition its line goes on from",
        "7k/8/8/8/8/8/8/5B1K w - - 0 1",
        "1. Kg1 Kg8 2. Kh1 Kh8 3. Bg2 Kg8",
        "draw",
        ["switchback ply 3 (Kh1)"],
    ),
    (
        "checks repeated, then the line goes on",
        "7k/6p1/7p/8/8/7K/8/q3Q3 w - - 0 1",
        "1. Qe8+ Kh7 2. Qe4+ Kh8 3. Qe8+ Kh7 4. Qe7 Kg8",
        "draw",
        ["switchback ply 5 (Qe8)"],
    ),
    (
        "a draw study without repetition",
        "7k/8/8/8/8/8/8/5B1K w - - 0 1",
        "1. Kg1 Kg8 2. Kf2 Kh8",
        "draw",
        [],
    ),
    (
        "perpetual check",
        "7k/6p1/7p/8/8/7K/8/q3Q3 w - - 0 1",
        "1. Qe8+ Kh7 2. Qe4+ Kh8 3. Qe8+ Kh7",
        "draw",
        [
            "switchback ply 5 (Qe8)",
            "positional-draw ply 6 (ply 2)",
            "perpetual-check ply 6 (White)",
        ],
    ),
    (
        "a repetition where one move is not check",
        "7k/6p1/7p/8/8/7K/8/q3Q3 w - - 0 1",
        "1. Qe8+ Kh7 2. Qe2 Kh8 3. Qe8+ Kh7",
        "draw",
        ["switchback ply 5 (Qe8)", "positional-draw ply 6 (ply 2)"],
    ),
    (
        "stipulation unknown: the main line ends in a position it reached before",
        "7k/6p1/7p/8/8/7K/8/q3Q3 w - - 0 1",
        "1. Qe8+ Kh7 2. Qe4+ Kh8 3. Qe8+ Kh7",
        None,
        [
            "switchback ply 5 (Qe8)",
            "positional-draw ply 6 (ply 2)",
            "perpetual-check ply 6 (White)",
        ],
    ),
    (
        "stipulation unknown: a repetition the main line goes on from",
        "7k/8/8/8/8/8/8/5B1K w - - 0 1",
        "1. Kg1 Kg8 2. Kh1 Kh8 3. Bg2 Kg8",
        None,
        ["switchback ply 3 (Kh1)"],
    ),
    # switchback
    (
        "switchback",
        "7k/8/8/8/8/8/8/3R3K w - - 0 1",
        "1. Rd5 Kg8 2. Rd1 Kh7",
        None,
        ["switchback ply 3 (Rd1)"],
    ),
    ("no return", "7k/8/8/8/8/8/8/3R3K w - - 0 1", "1. Rd5 Kg8 2. Rd8+ Kh7", None, []),
    ("the defender returns", "7k/8/8/8/8/8/8/3R3K w - - 0 1", "1. Rd5 Kg8 2. Rd6 Kh8", None, []),
    (
        "a castled rook returns",
        "k7/8/8/8/8/8/8/4K2R w K - 0 1",
        "1. O-O Kb8 2. Rf2 Ka8 3. Rf1 Ka7",
        None,
        ["switchback ply 5 (Rf1)"],
    ),
    # domination
    ("domination", "7k/8/8/8/8/3K4/8/n7 w - - 0 1", "1. Kc3", None, ["domination ply 1 (na1)"]),
    ("a flight square stays free", "7k/8/8/8/8/3K4/8/n7 w - - 0 1", "1. Kd4", None, []),
    (
        "a knight dominates a bishop",
        "8/8/8/6k1/7b/8/4KN2/8 w - - 0 1",
        "1. Nh1",
        None,
        ["domination ply 1 (bh4)"],
    ),
    ("g3 stays free", "8/8/8/6k1/7b/8/4KN2/8 w - - 0 1", "1. Nd3", None, []),
]


# -- composer credits (the register of persons) -----------------------------------------

CREDITS_FEN = "8/8/8/8/8/8/1K6/k7 w - - 0 1"


def credits_pgn(*credits: tuple[str, int]) -> str:
    """One study per (Composer tag, year); distinct games through the Event tag."""
    games = []
    for number, (credit, year) in enumerate(credits):
        games.append(
            f'[Event "study {number} {credit}"]\n[Composer "{credit}"]\n[Date "{year}.??.??"]\n'
            f'[FEN "{CREDITS_FEN}"]\n[SetUp "1"]\n\n*\n'
        )
    return "\n".join(games)


BROTHERS = credits_pgn(
    ("Platov, Mikhail", 1910),
    ("Platov, Vasily", 1911),
    ("V. Platov", 1912),
    ("M. Platov", 1913),
    ("Platov", 1925),
    ("A & K Sarychev", 1928),
    ("Sarychev, Alexander", 1930),
    ("Sarychev, Kirill", 1931),
    ("Sarychev", 1948),
)
TROITSKY = credits_pgn(
    ("Troitsky", 1895),
    ("Troitzky, Alexey Alexeyevich", 1896),
    ("Troitski", 1898),
    ("Troitsky, Alexey Alexeyevich", 1909),
    ("Kasparyan, Genrikh", 1935),
    ("R. Reti", 1921),
    ("Réti, Richard", 1922),
    ("Reti", 1923),
)


# -- manoeuvre search (issue 30): the brute-force reference in bench/ -------------------


def line_reference() -> Any:
    """``bench/line_reference.py``, the python-chess replay that ``--line`` is compared with."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "line_reference", ROOT / "bench" / "line_reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = sys.modules.get("line_reference")
    if module is None:
        module = importlib.util.module_from_spec(spec)
        sys.modules["line_reference"] = module
        spec.loader.exec_module(module)
    return module


def line_games(paths: Sequence[Path]) -> list[tuple[str, str, str, str]]:
    """The standard-chess games of ``paths`` as (start FEN, movetext, facts, boards), the
    facts and boards made by the walk the index makes."""
    from studydb.lines import PlyFacts
    from studydb.movetext import Tee, start_board, walk
    from studydb.patterns import decode_boards
    from studydb.pgn import read_games
    from studydb.positions import IndexRows

    games = []
    for path in paths:
        with open(path, "rb") as stream:
            for game in read_games(stream, name=str(path)):
                if game.headers.get("Variant", "").strip().lower() not in ("", "standard"):
                    continue
                try:
                    board = start_board(game.headers.get("FEN", chess.STARTING_FEN))
                except ValueError:
                    continue
                rows = IndexRows(board, [])
                facts = PlyFacts(board, rows.texts)  # the moves read off the rows' texts
                walk(board, game.movetext, Tee(rows, facts))
                boards = decode_boards(rows.boards())
                games.append((board.fen(), game.movetext, facts.text(), boards))
    return games


def sample_report() -> Report:
    """A report by hand with every kind of fact."""
    entry = Entry(
        1,
        "entries.pgn:1",
        composers=["Zweig, Anna", "Ortiz, Berto"],
        source="Quarterly <Studies> & Co",
        year=2024,
        award="1st Prize",
        stipulation="win",
        gbr="0300.10",
        extended="b6a1 0300.10 d5.c6 2/2+",
        form="+0300.10b6a1",
        fen="8/8/1KP5/3r4/8/8/8/k7 w - - 0 1",
        solution="1. c7 Rd6+ 2. Kb5",
        soundness=Soundness(
            "unsound",
            checked_with="tables 4-men; 3 plies by tables, 0 by engine",
            note="claimed win, but the tables give the solver a draw at ply 2",
            first_error=Finding(3, "2.", "Kb5", "throws the win away: draw after Kb5"),
            duals=[Finding(1, "1.", "c7", "win, DTZ 1; also Kb7 DTZ 9")],
            moves=[
                MoveNote(1, "1.", "c7", "win, DTZ 1; also Kb7 DTZ 9", ("dual",)),
                MoveNote(2, "1...", "Rd6+", "loss, DTZ 9"),
                MoveNote(3, "2.", "Kb5", "throws the win away: draw after Kb5", ("error",), True),
            ],
        ),
        anticipations=[
            Anticipation(
                412,
                ["Barbier, Georges"],
                1895,
                "Glasgow Weekly Citizen",
                "0300.10",
                2,
                True,
                4,
                False,
                "8/2P5/3r4/1K6/8/8/8/k7 b - - 0 1",
                7,
            )
        ],
        anticipation_count=3,
        earliest_year=1890,
        before=2024,
        versions=[Version(77, ["Lasker, Emanuel"], 1901, "Niva")],
        themes=[Theme("excelsior", source=PGN), Theme("underpromotion", 11, "R")],
        zugzwang_tables=4,
        stored_id=None,
    )
    bare = Entry(2, "entries.pgn:30", fen="8/8/8/8/8/8/8/K1k5 b - - 0 1")
    return Report("entries.pgn", [entry, bare], database="x.sqlite", studies=12, tables="4")


#: Three files of a game each, whose lines end in CR LF, in CR alone (stored with LF), and
#: in LF with none after the last.
LINE_ENDS_PGN = {
    "crlf.pgn": b'[Event "crlf"]\r\n[Result "*"]\r\n[SetUp "1"]\r\n'
    b'[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\r\n\r\n1. c7 Rd6+ *\r\n',
    "cr.pgn": b'[Event "cr"]\r[Result "*"]\r[SetUp "1"]\r'
    b'[FEN "8/8/1KP5/3r4/8/8/8/k6N w - - 0 1"]\r\r1. c7 Rd6+ *\r',
    "open.pgn": b'[Event "open"]\n[Result "*"]\n[SetUp "1"]\n'
    b'[FEN "8/8/1KP5/3r4/8/8/8/k5N1 w - - 0 1"]\n\n1. c7 Rd6+ *',
}


def line_ends_studies(db: str | Path, folder: Path) -> list[str]:
    """Import :data:`LINE_ENDS_PGN` into ``db``: the stored texts, by id (1, 2, 3)."""
    import studydb

    paths = []
    for name, data in LINE_ENDS_PGN.items():
        paths.append(folder / name)
        paths[-1].write_bytes(data)
    with studydb.open(db) as writable:
        writable.import_paths(paths, positions="none", jobs=1)
        stored = [writable.study(number) for number in (1, 2, 3)]
    texts = [study.pgn for study in stored if study is not None]
    assert [text[:12] for text in texts] == ['[Event "crlf', '[Event "cr"]', '[Event "open']
    return texts
