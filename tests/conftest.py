"""Shared fixtures: the corpus beside the clone, and databases on both engines.

Tests that need ``../shared`` or a PostgreSQL server skip when they are
absent, except under ``CI=true``, where their absence is a failure.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
IN_CI = os.environ.get("CI", "").lower() == "true"
PG_ADMIN_URL = os.environ.get("STUDYDB_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def require(condition: bool, reason: str) -> None:
    """Skip the test when ``condition`` is false, or fail it under CI=true."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{reason} (required under CI=true)")
    pytest.skip(reason)


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


def _pg_admin():
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


def pg_database() -> Iterator[str]:
    """Create a PostgreSQL database of the caller's own; yield its URL, then drop it."""
    admin = _pg_admin()
    name = f"studydb_test_{uuid.uuid4().hex[:12]}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield pg_url_for(name)
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database of the test's own, dropped afterwards."""
    yield from pg_database()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A SQLite file of the test's own (as a plain path, the way users give it)."""
    return str(tmp_path / "studies.sqlite")


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest) -> str:
    """A fresh database on each engine: every database test runs on both."""
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_url")
    return request.getfixturevalue("pg_url")


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


def snapshot(engine, *, where: bool = True) -> dict[str, list]:
    """What an import leaves in a database, without ids and run numbers.

    ``where=False`` leaves out the file and line each row came from.
    """
    from sqlalchemy import select

    from studydb.db.models import Composer, Reject, Study, StudyComposer

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
