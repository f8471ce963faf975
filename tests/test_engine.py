"""Database location, SQLite settings and migrations (studydb.db.engine)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from typer.testing import CliRunner

from studydb.cli import app
from studydb.db import engine as dbengine
from studydb.db.models import Base
from studydb.migrations import HEAD_REVISION, alembic_config

runner = CliRunner()


def test_head_revision_constant_matches_alembic() -> None:
    assert ScriptDirectory.from_config(alembic_config()).get_current_head() == HEAD_REVISION


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("sqlite:////tmp/a.sqlite", "sqlite:////tmp/a.sqlite"),
        ("postgresql+psycopg://u@h/db", "postgresql+psycopg://u@h/db"),
        ("/tmp/a.sqlite", "sqlite:////tmp/a.sqlite"),
    ],
)
def test_resolve_url(given: str, expected: str) -> None:
    assert dbengine.resolve_url(given) == expected


def test_resolve_url_relative_path_is_absolute(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert dbengine.resolve_url("x.sqlite") == f"sqlite:///{tmp_path / 'x.sqlite'}"


def test_resolve_url_environment_then_default(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("STUDYDB_DB", str(tmp_path / "env.sqlite"))
    assert dbengine.resolve_url(None) == f"sqlite:///{tmp_path / 'env.sqlite'}"
    monkeypatch.delenv("STUDYDB_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert dbengine.resolve_url(None).endswith("/studydb/studies.sqlite")


def test_bad_url_is_a_database_error() -> None:
    with pytest.raises(dbengine.DatabaseError, match="not a database URL"):
        dbengine.resolve_url("://x")
    with pytest.raises(dbengine.DatabaseError, match="nonsense"):
        dbengine.open_database("nonsense://somewhere/db")


def test_open_empty_file_migrates_to_head(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite"
    path.touch()
    engine = dbengine.open_database(path)
    assert dbengine.current_revision(engine) == HEAD_REVISION
    assert {"studies", "composers", "study_composers", "import_runs", "rejects"} <= set(
        inspect(engine).get_table_names()
    )


def test_sqlite_settings(tmp_path: Path) -> None:
    engine = dbengine.open_database(tmp_path / "s.sqlite")
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert conn.execute(text("PRAGMA busy_timeout")).scalar() == dbengine.BUSY_TIMEOUT_MS
    # WAL is a property of the file: a plain sqlite3 connection sees it too.
    with sqlite3.connect(tmp_path / "s.sqlite") as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_schema_matches_models(db_url: str) -> None:
    """The Alembic revisions build exactly the schema the models describe, on both engines."""
    engine = dbengine.open_database(db_url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        assert diff == []
        assert dbengine.current_revision(engine) == HEAD_REVISION
    finally:
        engine.dispose()


def test_reopen_does_not_import_alembic(tmp_path: Path) -> None:
    """An up-to-date database is recognised without importing Alembic (start-up time)."""
    import subprocess
    import sys

    path = tmp_path / "r.sqlite"
    dbengine.open_database(path).dispose()
    code = (
        "import sys; from studydb.db.engine import open_database; "
        f"open_database({str(path)!r}); print('alembic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_cli_db_commands(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    result = runner.invoke(app, ["db", "path", "--db", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(path)

    result = runner.invoke(app, ["db", "current", "--db", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("empty")

    result = runner.invoke(app, ["db", "upgrade", "--db", str(path)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["db", "current", "--db", str(path)])
    assert result.output.strip() == f"{HEAD_REVISION} (head)"


def test_cli_db_path_from_environment(tmp_path: Path) -> None:
    path = tmp_path / "env.sqlite"
    result = runner.invoke(app, ["db", "path"], env={"STUDYDB_DB": str(path)})
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(path)


def test_cli_unreachable_server_is_a_clear_error() -> None:
    url = "postgresql+psycopg://nobody@127.0.0.1:1/nothing"
    result = runner.invoke(app, ["db", "current", "--db", url])
    assert result.exit_code == 1
    assert "127.0.0.1" in result.output and "Traceback" not in result.output


# -- read-only access (studydb serve) ------------------------------------------------


def test_read_only_engine_reads_but_cannot_write(db_url: str) -> None:
    dbengine.open_database(db_url).dispose()
    engine = dbengine.open_read_only(db_url)
    try:
        with engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM studies")).scalar() == 0
        for statement in (
            "INSERT INTO composers (name, key) VALUES ('x', 'x')",
            "CREATE TABLE intruder (id INTEGER)",
        ):
            with pytest.raises(Exception, match=r"(?i)read-?only"), engine.begin() as conn:
                conn.execute(text(statement))
    finally:
        engine.dispose()
    writable = dbengine.open_database(db_url)
    with writable.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM composers")).scalar() == 0
    assert "intruder" not in inspect(writable).get_table_names()
    writable.dispose()


def test_read_only_never_creates_a_database(tmp_path: Path) -> None:
    missing = tmp_path / "sub" / "none.sqlite"
    with pytest.raises(dbengine.DatabaseError, match="no such database file"):
        dbengine.open_read_only(missing)
    assert not missing.parent.exists()


def test_read_only_wants_the_current_schema(tmp_path: Path) -> None:
    path = tmp_path / "plain.sqlite"
    sqlite3.connect(path).close()
    with pytest.raises(dbengine.DatabaseError, match="it has no studydb schema"):
        dbengine.open_read_only(path)


def test_read_only_sqlite_path_with_spaces_and_percent(tmp_path: Path) -> None:
    path = tmp_path / "my studies 100%#.sqlite"
    dbengine.open_database(path).dispose()
    engine = dbengine.open_read_only(path)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM studies")).scalar() == 0
    engine.dispose()


def test_doctests() -> None:
    import doctest

    result = doctest.testmod(dbengine)
    assert result.attempted > 0
    assert result.failed == 0


def test_new_sqlite_files_get_large_pages(tmp_path: Path) -> None:
    from studydb.db.engine import PAGE_BYTES

    engine = dbengine.open_database(tmp_path / "pages.sqlite")
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA page_size").scalar() == PAGE_BYTES
    engine.dispose()
