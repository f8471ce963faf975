"""Database location, SQLite settings and migrations (studydb.db.connect)."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import zlib
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy.exc
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from helpers import CLASSICS, MIGRATIONS, ROOT, SHARED, command_id, downgrade, require
from sqlalchemy import Engine, inspect, literal, select, text
from typer.testing import CliRunner

from studydb.cli import app
from studydb.db import connect as dbengine
from studydb.db.importer import import_paths
from studydb.db.migrations import HEAD_REVISION, alembic_config
from studydb.db.models import Base, Study
from studydb.db.search import fetch_study
from studydb.lines import decode_facts
from studydb.patterns import decode_boards
from studydb.pgn import inflate_text, read_games, tags_of

runner = CliRunner()
FIXTURES = ROOT / "tests" / "fixtures"


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


@pytest.mark.slow
def test_reopen_does_not_import_alembic(tmp_path: Path) -> None:
    """An up-to-date database is recognised, and a new SQLite file made, without importing
    Alembic (start-up time)."""
    import subprocess
    import sys

    path = tmp_path / "r.sqlite"
    dbengine.open_database(path).dispose()
    code = (
        "import sys; from studydb.db.connect import open_database; "
        f"open_database({str(path)!r}); open_database({str(tmp_path / 'new.sqlite')!r}); "
        "print('alembic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _normalized(script: str) -> set[tuple[str, ...]]:
    """A schema script's statements, each as its sorted lines without their commas: Alembic's
    batch mode writes a rebuilt table's constraints and indexes in an order that follows the
    hash seed."""
    return {
        tuple(sorted(line.strip().rstrip(",").strip() for line in statement.splitlines()))
        for statement in dbengine.split_statements(script)
    }


@pytest.mark.slow
def test_a_new_sqlite_file_gets_what_every_migration_in_turn_writes(tmp_path: Path) -> None:
    """HEAD_SCHEMA is the migrations' schema, and they leave no rows but the revision."""
    engine = dbengine.create_engine(f"sqlite:///{tmp_path / 'stepwise.sqlite'}")
    try:
        dbengine.upgrade(engine, stepwise=True)
        with engine.connect() as conn:
            migrated = dbengine.schema_script(conn)
            counts = {
                table: conn.execute(text(f'SELECT count(*) FROM "{table}"')).scalar()
                for table in inspect(conn).get_table_names()
            }
    finally:
        engine.dispose()
    shipped = dbengine.HEAD_SCHEMA.read_text(encoding="utf-8")
    how = (dbengine.write_head_schema.__doc__ or "").split("``")[1]
    assert _normalized(shipped) == _normalized(migrated), f"write it again: {how}"
    assert {table: n for table, n in counts.items() if n} == {"alembic_version": 1}
    new = dbengine.open_database(tmp_path / "new.sqlite")
    try:
        with new.connect() as conn:
            assert _normalized(dbengine.schema_script(conn)) == _normalized(migrated)
    finally:
        new.dispose()


def test_two_processes_making_one_new_file_make_it_once(tmp_path: Path) -> None:
    """The second writer finds the first one's tables (asked in its transaction)."""
    path = tmp_path / "raced.sqlite"
    first = dbengine.open_database(path)
    second = dbengine.create_engine(f"sqlite:///{path}")
    try:
        dbengine.upgrade(second)  # already at the head: nothing loaded twice
        assert dbengine.current_revision(second) == HEAD_REVISION
    finally:
        first.dispose()
        second.dispose()


def test_cli_db_commands(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    result = runner.invoke(app, ["db", "path", "--db", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(path)

    result = runner.invoke(app, ["db", "current", "--db", str(path)])
    assert result.exit_code == 1, result.output
    assert "no database at" in result.output and not path.exists()

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


@pytest.mark.parametrize("read_only", [False, True], ids=["read-write", "read-only"])
def test_every_connection_folds_unicode_case(db_url: str, read_only: bool) -> None:
    """serve's read-only connection lowers "ÉCHECS" as the CLI's does (bug: it did not)."""
    dbengine.open_database(db_url).dispose()
    engine = dbengine.open_read_only(db_url) if read_only else dbengine.open_database(db_url)
    try:
        with engine.connect() as conn:
            assert conn.execute(text("SELECT lower('ÉCHECS Ølberg ΣΑ')")).scalar() == (
                "échecs ølberg σα"
            )
            matched = conn.execute(select(literal("ÉCHECS").ilike("échecs%"))).scalar()
            assert matched in (True, 1)  # what search --source does
    finally:
        engine.dispose()


SQLITE_PRAGMAS = ["foreign_keys", "busy_timeout", "mmap_size", "cache_size"]


def test_read_only_and_read_write_sqlite_connections_share_their_pragmas(tmp_path: Path) -> None:
    path = tmp_path / "pragmas.sqlite"
    writable = dbengine.open_database(path)
    readable = dbengine.open_read_only(path)
    try:
        seen = {}
        for engine in (writable, readable):
            with engine.connect() as conn:
                seen[engine] = {
                    p: conn.exec_driver_sql(f"PRAGMA {p}").scalar() for p in SQLITE_PRAGMAS
                }
                seen[engine]["query_only"] = conn.exec_driver_sql("PRAGMA query_only").scalar()
        assert seen[writable] == {
            "foreign_keys": 1,
            "busy_timeout": dbengine.BUSY_TIMEOUT_MS,
            "mmap_size": dbengine.MMAP_BYTES,
            "cache_size": seen[writable]["cache_size"],
            "query_only": 0,
        }
        assert seen[readable] == {**seen[writable], "query_only": 1}
    finally:
        writable.dispose()
        readable.dispose()


def test_page_cache_replaces_mmap(tmp_path: Path) -> None:
    engine = dbengine.create_engine(f"sqlite:///{tmp_path / 'cache.sqlite'}", page_cache_kib=1024)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA mmap_size").scalar() == 0
        assert conn.exec_driver_sql("PRAGMA cache_size").scalar() == -1024
        assert conn.execute(text("SELECT lower('É')")).scalar() == "é"
    engine.dispose()


def test_write_errors_name_the_database_and_keep_their_cause(tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    engine = dbengine.open_database(path)
    insert = text("INSERT INTO composers (name, key) VALUES ('x', 'x')")
    with (
        pytest.raises(dbengine.DatabaseError, match=f"cannot write to {path}: ") as caught,
        dbengine.transaction(engine) as conn,
    ):
        conn.execute(insert)
        conn.execute(insert)
    assert isinstance(caught.value.__cause__, sqlalchemy.exc.IntegrityError)
    with engine.connect() as conn:  # rolled back
        assert conn.execute(text("SELECT count(*) FROM composers")).scalar() == 0
    engine.dispose()


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
    from studydb.db.connect import PAGE_BYTES

    engine = dbengine.open_database(tmp_path / "pages.sqlite")
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA page_size").scalar() == PAGE_BYTES
    engine.dispose()


# -- issue 9: only writers create or migrate; newer schemas; bad URLs and revisions


#: Every command that opens a database, but ``import`` and ``db upgrade`` (which create one).
NO_CREATE = [
    ["search"], ["stats"], ["rejects"], ["db", "current"], ["show", "1"], ["versions"],
    ["themes"], ["anticipate", "1"], ["index"], ["check", "--syzygy", str(SHARED / "syzygy")],
    ["report", str(CLASSICS)], ["composers"], ["composers", "merge", "a", "b"],
    ["composers", "split", "a"], ["composers", "alias", "a", "b"], ["composers", "export"],
    ["composers", "import", str(CLASSICS)],
]  # fmt: skip


@pytest.mark.parametrize("command", NO_CREATE, ids=command_id)
def test_only_import_and_upgrade_create_a_database(tmp_path: Path, command: list[str]) -> None:
    """A mistyped --db is refused as search refuses it, and leaves no file behind."""
    if "check" in command:
        require((SHARED / "syzygy").is_dir(), "../shared/syzygy is absent")
    path = tmp_path / "typo.sqlite"
    result = runner.invoke(app, [*command, "--db", str(path)])
    assert result.exit_code == 1, result.output
    assert f"no database at {path}" in result.output
    assert not path.exists()


@pytest.mark.parametrize(
    "command",
    [["search"], ["db", "current"], ["db", "upgrade"], ["import", str(CLASSICS)]],
    ids=command_id,
)
def test_another_programs_sqlite_file_gets_no_tables(tmp_path: Path, command: list[str]) -> None:
    # `import` and `db upgrade` wrote studydb's 30 tables into it, `db current` called it
    # "empty", and even `search` (refusing it) switched it to WAL for good.
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
    result = runner.invoke(app, [*command, "--db", str(path)])
    assert result.exit_code == 1, result.output
    assert "not a studydb database" in result.output
    if command[0] != "search":
        assert "another program's tables (notes)" in result.output
    with sqlite3.connect(path) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    assert (tables, mode) == ({"notes"}, "delete")


@pytest.mark.parametrize(
    "command",
    [
        ["search"], ["stats"], ["show", "1"], ["rejects"], ["db", "current"], ["db", "upgrade"],
        ["index"], ["composers"], ["versions"], ["themes"],
    ],
    ids=" ".join,
)  # fmt: skip
def test_newer_schema_is_one_clear_message(db_url: str, command: list[str]) -> None:
    engine = dbengine.open_database(db_url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    result = runner.invoke(app, [*command, "--db", db_url])
    assert result.exit_code == 1, result.output
    assert "this database was written by a newer studydb" in result.output
    assert "upgrade studydb" in result.output and "db upgrade" not in result.output
    assert isinstance(result.exception, SystemExit), result.exception


def test_serve_on_a_newer_schema_says_upgrade_studydb(sqlite_url: str) -> None:
    """Not 'run studydb db upgrade': that cannot help a database from a newer studydb."""
    with sqlite3.connect(sqlite_url) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    result = runner.invoke(app, ["serve", "--db", sqlite_url])
    assert result.exit_code == 1, result.output
    assert "written by a newer studydb" in result.output and "upgrade studydb" in result.output
    assert "db upgrade" not in result.output


def test_newer_schema_stops_an_import(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    dbengine.open_database(path).dispose()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    pgn = tmp_path / "a.pgn"
    pgn.write_text("1. e4 *\n")
    result = runner.invoke(app, ["import", str(pgn), "--db", str(path)])
    assert result.exit_code == 1, result.output
    assert "written by a newer studydb" in result.output


def test_db_current_on_a_missing_postgresql_database(pg_url: str) -> None:
    from sqlalchemy.engine import make_url

    missing = make_url(pg_url).set(database="studydb_no_such_database").render_as_string(False)
    result = runner.invoke(app, ["db", "current", "--db", missing])
    assert result.exit_code == 1, result.output
    assert "does not exist" in result.output and "empty" not in result.output
    role = make_url(pg_url).set(username="studydb_no_such_role").render_as_string(False)
    result = runner.invoke(app, ["db", "current", "--db", role])
    assert result.exit_code == 1, result.output


@pytest.mark.parametrize("revision", ["0099", "", "-1", "zzz"])
def test_db_upgrade_to_an_unknown_revision(tmp_path: Path, revision: str) -> None:
    result = runner.invoke(
        app, ["db", "upgrade", "--db", str(tmp_path / "u.sqlite"), "--revision", revision]
    )
    assert result.exit_code == 1, result.output
    assert "unknown schema revision" in result.output


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+psycopg://me@localhost:notaport/db",
        "postgresql+psycopg://me:p@ss@localhost:x/db",
    ],
)
def test_bad_port_is_a_clear_error(url: str) -> None:
    result = runner.invoke(app, ["db", "current", "--db", url])
    assert result.exit_code == 1, result.output
    assert "not a database URL" in result.output
    assert "ss@" not in result.output  # no tail of a password with an @ in it


#: A stored game's tags as the reader gives them: an escaped quote, a repeated name.
SAAVEDRA_TAGS = {
    "Event": 'Glasgow "Weekly" Citizen',
    "White": "Saavedra, Fernando",
    "Result": "1-0",
    "FEN": "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1",
    "SetUp": "1",
}
SAAVEDRA = (
    '[Event "Glasgow \\"Weekly\\" Citizen"]\n[White "Saavedra, Fernando"]\n'
    '[Event "Glasgow, again"]\n[Result "1-0"]\n'
    '[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n[SetUp "1"]\n\n1. c7 Rd6+ 1-0\n'
)


@pytest.mark.slow
def test_upgrade_rebuilds_tables_that_others_point_at(empty_db_url: str) -> None:
    """From 0005 with a study credited to a composer: SQLite's table rebuild keeps the links;
    the PGN is deflated (0014), the headers column dropped (0015), and both undone again."""
    engine = dbengine.create_engine(dbengine.resolve_url(empty_db_url))
    dbengine.upgrade(engine, "0005")
    columns = {
        "gbr": "0300.10", "pieces": "0300", "wq": 0, "wr": 0, "wb": 0, "wn": 0, "wp": 1,
        "bq": 0, "br": 1, "bb": 0, "bn": 0, "bp": 0, "men": 4, "signature": "KPvKR",
        "fen": "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1", "turn": "w", "zobrist": 1,
        "headers": json.dumps(SAAVEDRA_TAGS), "encoding": "utf-8", "pgn": SAAVEDRA,
        "content_hash": "a",
    }  # fmt: skip
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO composers (name, key) VALUES ('Saavedra', 'saavedra')"))
        conn.execute(
            text(
                f"INSERT INTO studies ({', '.join(columns)})"
                f" VALUES ({', '.join(':' + name for name in columns)})"
            ),
            columns,
        )
        conn.execute(
            text(
                "INSERT INTO study_composers (study_id, position, composer_id)"
                " SELECT s.id, 0, c.id FROM studies s, composers c"
            )
        )
    dbengine.upgrade(engine)
    with engine.connect() as conn:
        assert dbengine.current_revision(engine) == HEAD_REVISION
        linked = conn.execute(
            text("SELECT c.name FROM study_composers sc JOIN composers c ON c.id = sc.composer_id")
        ).scalars()
        assert list(linked) == ["Saavedra"]
        if conn.dialect.name == "sqlite":
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1  # on again
        # 0014 deflated the PGN stored before it; it reads back as written
        assert conn.execute(select(Study.pgn)).scalar() == SAAVEDRA
        stored = conn.execute(text("SELECT pgn FROM studies")).scalar()
        assert inflate_text(bytes(stored)) == SAAVEDRA
        # 0015 dropped the headers column: the tags are read from the PGN
        assert "headers" not in {c["name"] for c in inspect(conn).get_columns("studies")}
        (study_id,) = conn.execute(select(Study.id)).scalars()
    shown = fetch_study(engine, study_id)
    assert shown is not None and shown.headers == SAAVEDRA_TAGS
    assert list(shown.headers) == list(SAAVEDRA_TAGS)  # in the order written
    downgrade(engine, "0014")  # and back: 0015's downgrade fills the column from the PGN
    with engine.connect() as conn:
        (headers,) = [c for c in inspect(conn).get_columns("studies") if c["name"] == "headers"]
        assert not headers["nullable"]  # NOT NULL, as 0014 had it
        value = conn.execute(text("SELECT headers FROM studies")).scalar()
        assert (json.loads(value) if isinstance(value, str) else value) == SAAVEDRA_TAGS
    downgrade(engine, "0013")  # and 0014's downgrade inflates the PGN again
    with engine.connect() as conn:
        assert conn.execute(text("SELECT pgn FROM studies")).scalar() == SAAVEDRA
    engine.dispose()


def saavedra_at_head(url: str, folder: Path) -> Engine:
    """An engine on ``url`` migrated to the head, with Saavedra's study imported."""
    engine = dbengine.create_engine(dbengine.resolve_url(url))
    dbengine.upgrade(engine)
    pgn = folder / "saavedra.pgn"
    pgn.write_text(SAAVEDRA, encoding="utf-8")
    assert import_paths(engine, [pgn]).stored == 1
    return engine


@pytest.mark.slow
def test_games_stored_with_zstd_go_back_to_zlib_and_to_text_on_downgrade(
    empty_db_url: str, tmp_path: Path
) -> None:
    """A game the head stores is zstd's (format byte 2); 0016's downgrade rewrites it as
    zlib (byte 1), which 0015's and 0014's downgrades read: text again at 0013."""
    engine = saavedra_at_head(empty_db_url, tmp_path)
    with engine.connect() as conn:
        stored = bytes(conn.execute(text("SELECT pgn FROM studies")).scalar())
    assert stored[:1] == b"\x02" and inflate_text(stored) == SAAVEDRA
    downgrade(engine, "0015")
    with engine.connect() as conn:
        stored = bytes(conn.execute(text("SELECT pgn FROM studies")).scalar())
    assert stored[:1] == b"\x01" and zlib.decompress(stored[1:]).decode() == SAAVEDRA
    downgrade(engine, "0013")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT pgn FROM studies")).scalar() == SAAVEDRA
    engine.dispose()


@pytest.mark.slow
def test_index_blocks_stored_with_zstd_go_back_to_zlib_on_downgrade(
    empty_db_url: str, tmp_path: Path
) -> None:
    """The head stores a study's board and facts blocks as zstd's (format byte 2); 0017's
    downgrade rewrites them as zlib (byte 1), and both read back to the same lines."""
    engine = saavedra_at_head(empty_db_url, tmp_path)
    query = text("SELECT boards, moves FROM study_index")
    with engine.connect() as conn:
        boards, moves = (bytes(blob) for blob in conn.execute(query).one())
    assert boards[:1] == moves[:1] == b"\x02"
    downgrade(engine, "0016")
    with engine.connect() as conn:
        old_boards, old_moves = (bytes(blob) for blob in conn.execute(query).one())
    assert old_boards[:1] == old_moves[:1] == b"\x01"
    assert decode_boards(old_boards) == decode_boards(boards) != ""
    assert decode_facts(old_moves) == decode_facts(moves) != ""
    assert zlib.decompress(old_boards[1:]).decode() == decode_boards(boards)
    engine.dispose()


@pytest.mark.slow
def test_db_upgrade_brings_a_database_of_the_previous_revision_to_the_head(
    empty_db_url: str, tmp_path: Path
) -> None:
    """A database the studydb before the newest migration wrote, a study in it, is brought
    to the head by ``studydb db upgrade``, and the study reads back (any head bump)."""
    engine = saavedra_at_head(empty_db_url, tmp_path)
    with engine.connect() as conn:
        (study_id,) = conn.execute(select(Study.id)).scalars()
    script = ScriptDirectory.from_config(alembic_config()).get_revision(HEAD_REVISION)
    previous = script.down_revision
    assert isinstance(previous, str)
    downgrade(engine, previous)
    assert dbengine.current_revision(engine) == previous
    engine.dispose()
    result = runner.invoke(app, ["db", "upgrade", "--db", empty_db_url])
    assert result.exit_code == 0, result.output
    assert f"database at revision {HEAD_REVISION}" in result.output
    result = runner.invoke(app, ["show", str(study_id), "--db", empty_db_url, "-f", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["headers"] == SAAVEDRA_TAGS


def _migration(name: str) -> Any:
    """A migration script as a module (its functions, outside of Alembic)."""
    path = next(MIGRATIONS.glob(f"versions/{name}_*.py"))
    spec = importlib.util.spec_from_file_location(f"migration_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_0015_downgrade_reads_the_tags_as_the_library_does() -> None:
    """Its frozen copy of ``tags_of`` gives the reader's tags for every fixture and corpus
    game, and for a text with a comment or an escape line first, the tags after it."""
    paths = [*FIXTURES.glob("*.pgn"), *FIXTURES.glob("pgn/*.pgn")]
    corpus = SHARED / "corpus" / "studies"
    require(corpus.is_dir(), f"no corpus at {corpus}")
    paths += sorted(corpus.glob("*.pgn"))
    tags = _migration("0015")._tags
    games = 0
    for path in paths:
        with path.open("rb") as stream:
            for game in read_games(stream, name=str(path)):
                assert tags(game.text) == game.headers == tags_of(game.text), (path, game.line)
                games += 1
    assert games > 200
    for text_ in ('{ intro }\n[Event "A"]\n[Site "B"]\n\n1. e4 *\n', '% x\n[Event "A"]\n\n*\n'):
        assert tags(text_) == tags_of(text_) != {}
    assert tags('1. e4 { [Event "x"] } *\n') == {}


def test_the_0015_upgrade_drops_the_column_in_place_on_sqlite(tmp_path: Path) -> None:
    """No copy of the studies table: the file grows by no page (a copy doubled it)."""
    path = tmp_path / "old.sqlite"
    engine = dbengine.open_database(path)
    assert import_paths(engine, [CLASSICS]).stored > 0
    downgrade(engine, "0014")
    engine.dispose()
    with sqlite3.connect(path) as conn:
        conn.execute("VACUUM")  # the downgrade's rebuild leaves free pages a copy would reuse
        before = conn.execute("PRAGMA page_count").fetchone()
    from alembic import command

    from studydb.db.migrations import alembic_config

    engine = dbengine.open_database(path, upgrade_schema=False)
    writer = dbengine.writer(engine)  # to 0015 only: 0018 rebuilds the (small) persons table
    with writer.connect() as conn, dbengine.foreign_keys_off(conn), conn.begin():
        command.upgrade(alembic_config(conn), "0015")
    engine.dispose()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA page_count").fetchone() <= before


@pytest.mark.slow  # the connection waits out its timeout: 2 s
def test_a_postgresql_server_that_never_answers_is_given_up_after_the_timeout() -> None:
    """A server that accepts and never answers (or a firewall that drops the packets) held
    every command for ever: libpq has no bound of its own.  The connection now gives up
    after :data:`CONNECT_TIMEOUT` (2 s here) with the database named."""
    import os
    import socket
    import subprocess
    import sys
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    accepted: list[socket.socket] = []
    threading.Thread(
        target=lambda: accepted.extend(iter(lambda: server.accept()[0], None)), daemon=True
    ).start()
    script = (
        "import studydb, studydb.db.connect as c\n"
        "c.CONNECT_TIMEOUT = 2\n"
        f"studydb.open('postgresql://127.0.0.1:{port}/test')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PGCONNECT_TIMEOUT"}
    try:
        done = subprocess.run(  # without the timeout: TimeoutExpired
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env
        )
    finally:
        server.close()
    assert done.returncode == 1
    assert done.stderr.rstrip().endswith(
        f"DatabaseError: cannot open postgresql://127.0.0.1:{port}/test: connection timeout expired"
    )
