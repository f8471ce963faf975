"""The library's entry point (studydb.open, studydb.db.database.Database) and its README example."""

from __future__ import annotations

import doctest
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import studydb
from studydb.db.database import Database
from studydb.db.report import ReportOptions
from studydb.errors import ArgumentError, DatabaseError, PgnError, QueryError, StudydbError
from studydb.pgn import read_games

ROOT = Path(__file__).resolve().parent.parent
CLASSICS = ROOT / "data" / "classics.pgn"
SAAVEDRA = "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"
#: SQL, or the means to run it, that the command line and the web must not use.
SQL_USE = re.compile(
    r"(?<![\w.])(?<!def )(select|text|insert|update|delete)\(|conn\.execute|\.connect\(\)"
    r"|^\s*from sqlalchemy import (?!Engine$)|^\s*import sqlalchemy",
    re.M,
)


@pytest.fixture
def classics(db_url: str) -> Database:
    """The sample collection imported into a database of each engine."""
    database = studydb.open(db_url)
    summary = database.import_paths([CLASSICS])
    assert summary.stored == 25, summary
    yield database
    database.close()


def test_readme_python_api_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the example reads data/classics.pgn
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("<!-- section:python-api -->")[1].split("<!-- /section:python-api -->")[0]
    code = re.sub(r"^```.*$", "", section, flags=re.M)  # fences end the examples' output
    test = doctest.DocTestParser().get_doctest(code, {}, "README Python API", "README.md", 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.summarize(verbose=False) == (0, len(test.examples))
    assert len(test.examples) >= 8


def test_search_count_study_and_stats(classics: Database) -> None:
    draws = studydb.Filters(stipulations=("draw",))
    rows = list(classics.search(draws, sort="year"))
    assert len(rows) == classics.count(draws) > 0
    assert all(row.stipulation == "draw" for row in rows)
    years = [row.year for row in rows if row.year is not None]
    assert years == sorted(years)
    (saavedra,) = classics.search(studydb.Filters(material=("0300.10",)), with_pgn=True)
    study = classics.study(saavedra.id)
    assert study is not None and study.pgn == saavedra.pgn
    assert classics.study(10**6) is None
    assert classics.stats().studies == classics.count() == 25
    assert classics.stats(draws).studies == len(rows)


def test_anticipations_versions_and_related(classics: Database) -> None:
    [hit] = classics.anticipations(SAAVEDRA, "1. c7 Rd6+ 2. Kb5", min_men=4)
    assert hit.gbr == "0300.10" and hit.first_ply == 0 and hit.positions == 4  # start and 3 plies
    assert classics.anticipations(SAAVEDRA, "1. c7", min_men=5) == []  # four men only
    study = classics.study(hit.id)
    assert study is not None
    related = classics.related(study, min_men=4)
    assert related.min_men == 4 and related.shared == ()  # it shares only with itself
    assert classics.versions() == []  # the sample has no two studies from one position
    game = classics.study_game(hit.id)
    assert game is not None and game.fen == study.fen


def test_stored_id_start_fens_and_verdicts(classics: Database) -> None:
    with CLASSICS.open("rb") as stream:
        first = next(iter(read_games(stream, name="classics.pgn")))
    found = classics.stored_id(first)
    assert found is not None
    study = classics.study(found)
    assert study is not None
    assert classics.start_fens([found, 10**6]) == {found: study.fen}
    assert classics.verdicts([found]) == {}  # never checked
    assert classics.stored_check(found) is None


def test_rejects_and_index(classics: Database, tmp_path: Path) -> None:
    broken = tmp_path / "broken.pgn"
    broken.write_text('[Event "x"]\n[FEN "not a fen"]\n\n1. e4 *\n', encoding="utf-8")
    summary = classics.import_paths([broken])
    assert summary.rejected == 1
    [(_, file, line, reason)] = list(classics.rejects())
    assert file.endswith("broken.pgn") and line == 1 and "FEN" in reason
    assert b"not a fen" in b"".join(classics.reject_texts())
    again = classics.index(studydb.Filters(material=("0300.10",)), reindex=True)
    assert again.studies == 1 and again.positions > 0


def test_unindexed_counts_what_an_index_search_passed_over(db_url: str) -> None:
    database = studydb.open(db_url)
    try:
        database.import_paths([CLASSICS], positions="none")
        assert database.unindexed(line="mate") == 25
        assert database.count(line="mate") == 0  # what it rests on: no study searched
        assert database.unindexed(pattern="*/*/1KP5/*/*/*/*/*", composers=("saavedra",)) == 1
        assert database.unindexed(composers=("saavedra",)) == 0  # no index filter
        # mutual zugzwangs are check's, not the replay's: the index is not read for them
        assert database.unindexed(themes=("mutual-zugzwang",)) == 0
        assert database.unindexed(themes=("mate",)) == 25
        # the other filters select the studies with a mutual zugzwang: none, never checked
        assert database.unindexed(themes=("mutual-zugzwang", "mate")) == 0
        database.index(studydb.Filters(composers=("saavedra",)))
        assert database.unindexed(reaches=("KQvK",)) == 24
        database.index()
        assert database.unindexed(line="mate") == 0
    finally:
        database.close()


def test_a_bad_filter_is_a_query_error_naming_its_option() -> None:
    with pytest.raises(QueryError) as caught:
        studydb.Filters(years=("19x",))
    assert caught.value.param == "--year"


#: Library calls given an argument of the wrong type or value, what they raise and what the
#: message says: each named the argument with a builtin's error, or answered wrongly (a
#: text of composers read letter by letter found every study).
BAD_CALLS = [
    ("count", lambda db: db.count(composers="reti"), ArgumentError, "composers must be a tuple"),
    ("years", lambda db: db.count(years=1921), ArgumentError, "not the int 1921"),
    ("valid", lambda db: db.count(valid="no"), ArgumentError, "valid must be True, False"),
    ("pattern", lambda db: db.count(pattern=5), ArgumentError, "pattern must be a text"),
    ("pieces", lambda db: db.count(pieces=["Ra1"]), ArgumentError, "not the list ['Ra1']"),
    ("line", lambda db: db.count(line=3), ArgumentError, "line must be a text or None"),
    ("main line", lambda db: db.count(main_line="yes"), ArgumentError, "not the str 'yes'"),
    ("unknown", lambda db: db.count(colour=1), ArgumentError, "unknown filter 'colour'"),
    ("filters", lambda db: db.count("0300"), ArgumentError, "not the str '0300'"),
    ("versions", lambda db: db.versions("0300"), ArgumentError, "filters must be"),
    ("limit", lambda db: db.search(limit="5"), ArgumentError, "limit must be a whole number"),
    ("offset", lambda db: db.search(offset=10**20), QueryError, "must be at most"),
    ("study", lambda db: db.study("1"), ArgumentError, "study_id must be a whole number"),
    ("top", lambda db: db.stats(top="a"), ArgumentError, "top must be a whole number"),
    ("verdicts", lambda db: db.verdicts(None), ArgumentError, "ids must be a sequence"),
    ("related", lambda db: db.related(None), ArgumentError, "study must be a StoredStudy"),
    ("check", lambda db: db.check(None, None), ArgumentError, "config must be a CheckConfig"),
    ("report", lambda db: db.report("x.pgn", None), ArgumentError, "options must be"),
    ("fen", lambda db: db.anticipations("not a fen", ""), QueryError, "bad FEN 'not a fen'"),
    ("no fen", lambda db: db.anticipations(None, ""), ArgumentError, "fen must be a text"),
    ("positions", lambda db: db.import_paths([CLASSICS], positions="x"), QueryError, "'x'"),
    ("one path", lambda db: db.import_paths("x.pgn"), ArgumentError, "a list of paths"),
    ("a Path", lambda db: db.import_paths(Path(".")), ArgumentError, "PosixPath('.')"),
    ("None", lambda db: db.import_paths([None]), ArgumentError, "each of paths must be"),
    ("bytes", lambda db: db.import_paths([b"x.pgn"]), ArgumentError, "not the bytes b'x.pgn'"),
    ("empty", lambda db: db.import_paths([""]), PgnError, "an empty path names no file"),
    ("stdin twice", lambda db: db.import_paths(["-", "-"]), PgnError, "only once"),
    ("no game", lambda db: list(db.games_named([""])), PgnError, "an empty path names no"),
    ("no entries", lambda db: db.report("", ReportOptions()), PgnError, "an empty path names"),
    ("jobs", lambda db: db.index(jobs="2"), ArgumentError, "jobs must be a whole number"),
    ("games", lambda db: list(db.games_named("12")), ArgumentError, "not the str '12'"),
    ("game", lambda db: list(db.games_named([5])), ArgumentError, "arguments must be a text"),
    ("query", lambda db: db.persons(5), ArgumentError, "query must be a text or None"),
    ("persons", lambda db: db.persons(ids="1"), ArgumentError, "a sequence of person ids"),
    ("merge", lambda db: db.merge_persons("ab"), ArgumentError, "names must be a list"),
    ("alias", lambda db: db.add_alias(None, "x"), ArgumentError, "name must be a text"),
    ("minimum", lambda db: db.person_suggestions(minimum="x"), ArgumentError, "a number"),
    ("page", lambda db: db.person_studies(1, limit="x"), ArgumentError, "limit must be"),
    ("exclude", lambda db: db.not_indexed(exclude="x"), ArgumentError, "exclude must be"),
    ("raw game", lambda db: db.stored_id(None), ArgumentError, "game must be a RawGame"),
    ("both", lambda db: db.count(studydb.Filters(), line="mate"), ArgumentError, "not both"),
    ("reindex", lambda db: db.index(reindex="no"), ArgumentError, "reindex must be True or"),
    ("similar", lambda db: db.versions(similar="no"), ArgumentError, "not the str 'no'"),
    ("with_pgn", lambda db: db.search(with_pgn=1), ArgumentError, "with_pgn must be True"),
]


@pytest.mark.parametrize(
    ("call", "error", "message"), [case[1:] for case in BAD_CALLS], ids=[c[0] for c in BAD_CALLS]
)
def test_an_argument_of_the_wrong_type_is_named(
    call, error: type[StudydbError], message: str, sqlite_url: str, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a text of paths read letter by letter imported '.'
    with studydb.open(sqlite_url) as database:
        with pytest.raises(error, match=re.escape(message)):
            call(database)
        assert database.count() == 0


def test_a_closed_database_says_so_when_used(sqlite_url: str) -> None:
    """It reopened its connections silently: a use after the with block went unseen."""
    with studydb.open(sqlite_url) as database:
        rows = database.search()  # given before the close: read on to its end
        assert database.count() == 0
    for use in (
        database.count,
        lambda: database.study(1),
        lambda: database.import_paths([CLASSICS]),
        lambda: database.stats(),
    ):
        with pytest.raises(DatabaseError, match=re.escape(f"{sqlite_url} is closed")):
            use()
    assert list(rows) == [] and database.closed
    database.close()  # again: nothing
    assert repr(database) == f"<studydb.Database {sqlite_url}>"


@pytest.mark.parametrize("db", [5, b"/tmp/studies.sqlite", ""])
def test_open_refuses_what_names_no_database(db: object) -> None:
    """An empty path opened the default database (and created it), as --db '' does not."""
    with pytest.raises((ArgumentError, DatabaseError)):
        studydb.open(db)  # type: ignore[arg-type]


def test_an_id_no_database_holds_is_absent_on_both_engines(db_url: str) -> None:
    with studydb.open(db_url) as database:
        huge = 10**30
        assert database.study(huge) is None and database.study_game(-huge) is None
        assert database.stored_check(huge) is None and database.person(huge) is None
        assert database.verdicts([huge]) == {} and database.start_fens([huge]) == {}
        assert database.person_studies(huge) == [] and database.study_themes(huge).themes == []


@pytest.mark.slow  # 1.5 s or more on a busy machine
def test_read_only_reads_and_refuses_to_write(tmp_path: Path) -> None:
    path = tmp_path / "studies.sqlite"
    with studydb.open(path) as writable:
        writable.import_paths([CLASSICS])
    with studydb.open(path, read_only=True) as readable:
        assert readable.count() == 25
        assert repr(readable) == f"<studydb.Database {path}>"
        for write in (
            lambda: readable.import_paths([CLASSICS]),
            lambda: readable.index(reindex=True),
        ):
            with pytest.raises(DatabaseError, match="is opened read-only"):
                write()
        assert readable.count() == 25
    with pytest.raises(DatabaseError, match="no such database file"):
        studydb.open(tmp_path / "absent.sqlite", read_only=True)


@pytest.mark.slow  # 1.5 s or more on a busy machine
def test_importing_studydb_loads_no_database_code(tmp_path: Path) -> None:
    code = (
        "import sys, studydb\n"
        "studydb.Filters(years=('1927',))\n"
        "print(sorted(m for m in ('sqlalchemy', 'alembic', 'studydb.db', 'typer') "
        "if m in sys.modules))\n"
        "studydb.open(sys.argv[1]).close()\n"
        "print('sqlalchemy' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "studies.sqlite")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split("\n")[:2] == ["[]", "True"]


@pytest.mark.parametrize("layer", ["cli", "web"])
def test_the_command_line_and_the_web_run_no_sql_of_their_own(layer: str) -> None:
    found = [
        f"{path.relative_to(ROOT)}:{text[: match.start()].count(chr(10)) + 1}: {match.group()}"
        for path in sorted((ROOT / "studydb" / layer).glob("*.py"))
        for text in [path.read_text(encoding="utf-8")]
        for match in SQL_USE.finditer(text)
    ]
    assert found == []


def test_the_sql_pattern_finds_sql() -> None:
    sample = "rows = conn.execute(select(Study.id))\nfrom sqlalchemy import func\n"
    assert [m.group() for m in SQL_USE.finditer(sample)] == [
        "conn.execute",
        "select(",
        "from sqlalchemy import ",
    ]
    assert not SQL_USE.search(
        "writer.text(line)\ndef text(self):\n    from sqlalchemy import Engine\n"
    )


@pytest.mark.slow
def test_the_wheel_ships_py_typed(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    [wheel] = tmp_path.glob("studydb-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "studydb/py.typed" in names
    assert "studydb/db/database.py" in names
