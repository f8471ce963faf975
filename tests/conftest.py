"""Shared fixtures: the corpus beside the clone, and databases on both engines.

Helpers that are not fixtures live in ``helpers.py``.

Tests that need ``../shared`` or a PostgreSQL server skip when they are
absent, except under ``CI=true``, where their absence is a failure.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import FIXTURE, GAMES, SHARED, pg_database, require
from sqlalchemy import Engine

from studydb.db.engine import open_database
from studydb.db.importer import import_paths


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


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def collection(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    """The fixture collection imported (with --validate) into a database of each engine."""
    if request.param == "sqlite":
        urls: Iterator[str] = iter([str(tmp_path_factory.mktemp("search") / "s.sqlite")])
    else:
        urls = pg_database()
    url = next(urls)
    engine = open_database(url)
    summary = import_paths(engine, [FIXTURE], validate=True, jobs=1)
    assert summary.stored == len(GAMES), summary
    try:
        yield engine
    finally:
        engine.dispose()
        for _ in urls:  # drop the PostgreSQL database
            pass
