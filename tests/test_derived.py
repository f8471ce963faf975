"""An old database upgrades (``studydb db upgrade``) to what a fresh import of its games
gives: the migrations change the schema only (no studydb code), and studydb.db.derived
brings the rest."""

from __future__ import annotations

import ast
import sqlite3
from pathlib import Path

import pytest
from helpers import CLASSICS, MIGRATIONS
from typer.testing import CliRunner

from studydb import open as studydb_open
from studydb.cli import app
from studydb.db.migrations import HEAD_REVISION
from studydb.pgn import inflate_text, tags_of

FIXTURES = Path(__file__).parent / "fixtures"
#: A database written by studydb at revision 0005, as ``sqlite3 .dump`` wrote it.
DUMP_0005 = FIXTURES / "studies-0005.sql"
#: The games it holds besides the classics: a text entry, two transliterations of a name,
#: and two names that differ only in digits.
UPGRADE_PGN = FIXTURES / "upgrade.pgn"


def persons(path: Path) -> set[frozenset[str]]:
    """The register's persons, each as the set of its names."""
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT person_id, name FROM composers").fetchall()
    found: dict[int, set[str]] = {}
    for person, name in rows:
        assert person is not None, name
        found.setdefault(person, set()).add(name)
    return {frozenset(names) for names in found.values()}


def kinds(path: Path) -> dict[str, str]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT pgn, kind FROM studies").fetchall()
    return {tags_of(inflate_text(pgn))["Event"]: kind for pgn, kind in rows}


def run(*args: str) -> str:
    """A studydb command, in this process (the command line's own code, no start-up)."""
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("old") / "studies.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(DUMP_0005.read_text(encoding="utf-8"))
    run("db", "upgrade", "--db", str(path))  # as a user upgrades it
    return path


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fresh") / "studies.sqlite"
    run("import", str(CLASSICS), str(UPGRADE_PGN), "--db", str(path))
    return path


def test_a_0005_database_upgrades_to_the_head(upgraded: Path) -> None:
    with sqlite3.connect(upgraded) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [
            (HEAD_REVISION,)
        ]


def test_the_upgrade_derives_what_a_fresh_import_does(upgraded: Path, fresh: Path) -> None:
    assert kinds(upgraded) == kinds(fresh)
    assert kinds(upgraded)["Pawn Endgames"] == "text"
    assert persons(upgraded) == persons(fresh)
    assert frozenset({"Surname12, Given"}) in persons(upgraded)  # digits keep names apart
    troitzky = {"Troitzky, Alexey", "Troitzky, Alexey Alexeyevich"}
    assert any(troitzky <= names for names in persons(upgraded))


def test_after_index_the_upgraded_database_answers_as_the_fresh_one(
    upgraded: Path, fresh: Path
) -> None:
    with studydb_open(upgraded) as old:
        old.index()
    queries = [
        {"composers": ("Troitzky",)},
        {"composers": ("Surname12",)},
        {"material": ("0300.10",)},
        {"pieces": "R[a-h]7"},
        {"line": "P-[a-h]8=R"},
    ]
    with studydb_open(upgraded, read_only=True) as old, studydb_open(fresh, read_only=True) as new:
        assert [old.count(**q) for q in queries] == [new.count(**q) for q in queries]
        assert old.count(composers=("Surname12",)) == 1


@pytest.mark.parametrize("script", sorted(MIGRATIONS.glob("versions/*.py")), ids=lambda p: p.name)
def test_no_migration_imports_studydb(script: Path) -> None:
    """A migration is frozen: what it does never changes when studydb's code does."""
    tree = ast.parse(script.read_text(encoding="utf-8"))
    imported = [
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]
    assert not [name for name in imported if name and name.split(".")[0] == "studydb"]
