"""Shared fixtures: the corpus beside the clone, and databases on both engines.

Helpers that are not fixtures live in ``helpers.py``.

Tests that need ``../shared`` or a PostgreSQL server skip when they are
absent, except under ``CI=true``, where their absence is a failure.
"""

from __future__ import annotations

import gc
import os
import re
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Write the bytecode of what the tests import (studydb, the tests themselves and pytest's
# rewritten asserts) even when PYTHONDONTWRITEBYTECODE is set: without it, every
# worker of every run compiles them all again, some 4 s of each worker's start.
sys.dont_write_bytecode = False

#: Where the tests' temporary files go unless TMPDIR says otherwise: a RAM disk, where the
#: machine has one.  On this machine's disk (ext4 mounted with ``discard``) an fsync
#: takes 3.6 ms and an unlink 2.6 ms, against 0.01 ms on tmpfs, and the suite makes
#: thousands of SQLite files (each commit of a test database, each tmp_path removed).
#: The files are real files all the same; the workers and the commands they start
#: inherit TMPDIR.  Set TMPDIR to run the tests on a disk.
RAM_DISK = "/dev/shm"
if not os.environ.get("TMPDIR") and os.access(RAM_DISK, os.W_OK | os.X_OK):
    os.environ["TMPDIR"] = RAM_DISK
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again

import typer.testing
from helpers import (
    DROPPER,
    FIXTURE,
    GAMES,
    SHARED,
    SUPPLIER,
    WORKER,
    database_on,
    examples,
    pg_database,
    require,
)
from hypothesis import settings
from sqlalchemy import Engine

from studydb.db.connect import open_database
from studydb.db.importer import import_paths

# The hypothesis tests that ask for no number of examples run as many as helpers.examples
# gives of hypothesis's 100: all of them under CI=true.
settings.register_profile("studydb", max_examples=examples(100))
settings.load_profile("studydb")

#: The fixtures that give a test a PostgreSQL database whatever their parameter.
_PG_FIXTURES = frozenset({"pg_url", "empty_pg_url"})
#: The test modules whose PostgreSQL runs are the full suite's: the adapters over
#: ``Database`` (the web, the command line, and the facts that show, the study page and
#: the report list alike), and the features computed over the stored rows (checks, the
#: report, anticipations, the position index, the person register), whose every answer
#: test_postgres.py compares on the two engines in the fast loop.
_PG_IN_FULL_SUITE = re.compile(
    r"test_(?:web|facts|cli_\w+|checks|report|anticipate|index|persons)\.py"
)
#: The data home this process made (pytest_configure), removed at the end.
_DATA_HOME: list[str] = []


def _command_built_once(app: Any) -> Any:
    """The Click command of a Typer app, built once in this process.

    ``typer.testing.CliRunner.invoke`` builds it anew on every call, some 30 ms
    of the signatures read again: a quarter of the fast loop's CPU, for the same
    object each time (a Click command keeps no state between invocations).
    """
    key = id(app)
    if key not in _COMMANDS:
        _COMMANDS[key] = (app, _BUILD_COMMAND(app))  # the app kept: its id stays its own
    return _COMMANDS[key][1]


_BUILD_COMMAND = typer.testing._get_command
_COMMANDS: dict[int, tuple[Any, Any]] = {}
typer.testing._get_command = _command_built_once


def pytest_configure(config: pytest.Config) -> None:
    """Give this process a data home of its own: no test reads or writes the user's database.

    Under pytest-xdist every worker runs this, so two workers never share a
    default database either.
    """
    _DATA_HOME.append(tempfile.mkdtemp(prefix=f"studydb-home-{WORKER}-"))
    os.environ["XDG_DATA_HOME"] = _DATA_HOME[-1]
    os.environ.pop("STUDYDB_DB", None)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove this process's data home."""
    for path in _DATA_HOME:
        shutil.rmtree(path, ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that runs on PostgreSQL ``postgres``; some modules' also ``slow``.

    ``-m "not postgres"`` is then the SQLite-only quick run, for a change that
    touches no SQL.  The modules of :data:`_PG_IN_FULL_SUITE` leave their
    PostgreSQL runs to the full suite, which CI runs: the adapters (the web, the
    command line) run no SQL of their own, they call ``Database``; the features
    over stored rows run Database's reads and writes, whose every answer
    ``test_postgres.py`` compares on both engines in the fast loop, beside the
    filters' (``test_conditions.py``) and the import's.

    The order is pytest-randomly's, modules kept together.  Moving tests ahead of
    it was measured and made the full suite slower: every test marked slow
    first, 257 s against 186 s; the tests that took a second or more the run
    before first, 213 s against 177 s (same seed, the same CPU time, so the
    cores waited longer: xdist hands each worker its first quarter in one piece,
    and the first worker's then held every long test).
    """
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if (
            "postgresql" in params.values()
            or _PG_FIXTURES & set(getattr(item, "fixturenames", ()))
            or item.path.name == "test_postgres.py"
        ):
            item.add_marker(pytest.mark.postgres)
            if _PG_IN_FULL_SUITE.fullmatch(item.path.name):
                item.add_marker(pytest.mark.slow)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move what collection made (modules, items, fixtures) out of the garbage collector's
    sight: its full collections then scan only what the tests make (measured: 3.5 s of
    collections a worker in the fast loop, 2.7 s frozen).
    """
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _sigint_handler_kept() -> Iterator[None]:
    """Every test leaves Ctrl-C's handler as it found it.  One left behind (a batch
    runner's, which only notes the first Ctrl-C) made a later test in the same worker
    process fail (test_ctrl_c_waits_until_an_engine_is_started_or_stopped, now and then
    on a loaded machine): the test that leaves it fails instead, named."""
    before = signal.getsignal(signal.SIGINT)
    yield
    after = signal.getsignal(signal.SIGINT)
    if after is not before:
        signal.signal(signal.SIGINT, before)
        pytest.fail(f"the test left SIGINT's handler {after!r} (it found {before!r})")


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ``../shared`` folder beside the clone (corpus and syzygy)."""
    require(SHARED.is_dir(), f"{SHARED} is absent")
    return SHARED


@pytest.fixture(scope="session")
def corpus_dir(shared_dir: Path) -> Path:
    path = shared_dir / "corpus"
    require(path.is_dir(), f"{path} is absent")
    return path


#: Tables the tests need by name (``../shared/syzygy`` has every 3-man one and many 4-man).
_SYZYGY_NEEDED = ("KPvK.rtbw", "KRvK.rtbw", "KPvKP.rtbw")


@pytest.fixture(scope="session")
def syzygy(shared_dir: Path) -> str:
    """The Syzygy tables' folder (``../shared/syzygy``), as the commands take it."""
    path = shared_dir / "syzygy"
    missing = [name for name in _SYZYGY_NEEDED if not (path / name).exists()]
    require(not missing, f"no {', '.join(missing)} in {path}")
    return str(path)


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL database of the test's own at the head revision, dropped afterwards.

    A copy of a migrated template (``helpers.pg_template``): creating and
    migrating a database for each test cost about a minute of the suite.  A
    copy whose schema the test did not change is emptied and given to the next
    test instead of dropped (``helpers.DROPPER``).
    """
    yield from pg_database()


@pytest.fixture
def empty_pg_url() -> Iterator[str]:
    """An empty PostgreSQL database of the test's own (no schema), dropped afterwards."""
    yield from pg_database(migrated=False)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to the head revision once per session, to copy."""
    path = tmp_path_factory.mktemp("template") / "studies.sqlite"
    open_database(path).dispose()  # the last connection closed: no -wal file to copy
    return path


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    """A SQLite file of the test's own at the head revision (a plain path, as users give it)."""
    path = tmp_path / "studies.sqlite"
    shutil.copyfile(sqlite_template, path)
    return str(path)


@pytest.fixture
def empty_sqlite_url(tmp_path: Path) -> str:
    """A path where no SQLite file is yet."""
    return str(tmp_path / "studies.sqlite")


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest) -> str:
    """A database of the test's own at the head revision, on each engine in turn."""
    return request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_db_url(request: pytest.FixtureRequest) -> str:
    """No database yet (SQLite) or one without a schema (PostgreSQL), on each engine."""
    name = "empty_sqlite_url" if request.param == "sqlite" else "empty_pg_url"
    return request.getfixturevalue(name)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def collection(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    """The fixture collection imported (with --validate) into a database of each engine."""
    with database_on(request.param, tmp_path_factory.mktemp("search") / "s.sqlite") as url:
        engine = open_database(url)
        try:
            summary = import_paths(engine, [FIXTURE], validate=True, jobs=1)
            assert summary.stored == len(GAMES), summary
            yield engine
        finally:
            engine.dispose()


@pytest.fixture
def fresh_engine(db_url: str) -> Iterator[Engine]:
    """An empty, migrated database of each engine."""
    engine = open_database(db_url)
    yield engine
    engine.dispose()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Wait for the test databases' drops; one that failed is left on the server: say so."""
    SUPPLIER.close()
    DROPPER.wait()
    for error in DROPPER.errors:
        sys.stderr.write(f"warning: test database not dropped: {error}\n")
