"""PostgreSQL as the server engine (issue 5): every command, migrations, odd text.

Most tests take ``db_url`` and so run on SQLite and on PostgreSQL; those that
are about PostgreSQL alone take ``pg_url``.  Without a server they skip,
except under CI=true, where they fail (see ``conftest.require``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from helpers import CLASSICS, crafted_pgn
from sqlalchemy import func, inspect, select, text
from typer.testing import CliRunner

from studydb.cli import app
from studydb.db.connect import current_revision, describe, open_database, upgrade
from studydb.db.importer import import_paths
from studydb.db.migrations import HEAD_REVISION, alembic_config
from studydb.db.models import Base, Composer, ImportRun, Reject, Study, StudyComposer
from studydb.db.search import count, search
from studydb.filters import Filters
from studydb.pgn import tags_of

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
TOURNEY = ROOT / "tests" / "fixtures" / "tourney.pgn"
SAAVEDRA_FEN = "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"
TABLES = {"studies", "composers", "study_composers", "import_runs", "rejects"}

BAD_FEN = '[Event "Bad FEN"]\n[FEN "8/8/8/8/8/8/8/9 w - - 0 1"]\n\n1. Kb1 *\n'
NUL_GAME = '[Event "Has a NUL"]\n[FEN "7K/8/k1P5/7p/8/8/8/8 w - - 0 1"]\n\n1. Kg7\x00 h4 *\n'
#: Header values that trip JSON, SQL or terminal handling.
ODD_VALUES = {
    "Event": 'Quotes " and \\ backslash',
    "Site": "tab\there; DROP TABLE studies; --",
    "Composer": "Ræti, Ríchard 🐴 \u2028 line separator",
    "Source": "control \x01\x1f chars and 100% _under_",
    "Annotator": "{braces} [brackets] 'single' `back`",
    "Unicode": "日本語 עברית Ελληνικά",
}


def run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def pgn_with_headers(headers: dict[str, str], fen: str, moves: str) -> str:
    lines = []
    for name, value in {**headers, "FEN": fen}.items():
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f'[{name} "{escaped}"]')
    return "\n".join(lines) + "\n\n" + moves + "\n"


# -- migrations -----------------------------------------------------------------------


@pytest.mark.slow
def test_empty_database_to_head_matches_models(empty_db_url: str) -> None:
    """From nothing to head; then down to base and up again: the same schema each time."""
    engine = open_database(empty_db_url, upgrade_schema=False)
    try:
        assert current_revision(engine) is None
        assert not TABLES & set(inspect(engine).get_table_names())
        for _ in range(2):
            upgrade(engine)
            assert current_revision(engine) == HEAD_REVISION
            assert set(inspect(engine).get_table_names()) >= TABLES
            with engine.connect() as conn:
                assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
            with engine.begin() as conn:
                command.downgrade(alembic_config(conn), "base")
            assert not TABLES & set(inspect(engine).get_table_names())
        upgrade(engine)
        assert current_revision(engine) == HEAD_REVISION
    finally:
        engine.dispose()


def test_cli_db_commands_on_postgresql(empty_pg_url: str) -> None:
    assert run("db", "path", "--db", empty_pg_url).strip() == describe(empty_pg_url)
    assert run("db", "current", "--db", empty_pg_url).startswith("empty")
    assert HEAD_REVISION in run("db", "upgrade", "--db", empty_pg_url)
    assert run("db", "current", "--db", empty_pg_url).strip() == f"{HEAD_REVISION} (head)"


def test_url_without_password_in_messages() -> None:
    url = "postgresql+psycopg://alice:secret@db.example:5432/studies"
    assert "secret" not in describe(url) and "db.example" in describe(url)


# -- every command end to end -----------------------------------------------------------


@pytest.mark.slow
def test_every_command_end_to_end(db_url: str, tmp_path: Path) -> None:
    """import, search, show, stats and rejects through the CLI with --db on both engines."""
    extra = tmp_path / "extra.pgn"
    extra.write_text(BAD_FEN + "\n" + NUL_GAME, encoding="utf-8")

    summary = json.loads(
        run("import", str(CLASSICS), str(extra), "--db", db_url, "--format", "json")
    )
    assert (summary["read"], summary["stored"], summary["rejected"]) == (27, 25, 2)
    again = json.loads(run("import", str(CLASSICS), "--db", db_url, "--format", "json"))
    assert (again["stored"], again["duplicates"]) == (0, 25)

    assert run("search", "--count", "--db", db_url).strip() == "25"
    saavedra = json.loads(run("search", "0300.10", "--format", "json", "--db", db_url))
    assert saavedra and all(row["gbr"] == "0300.10" for row in saavedra)
    reti = json.loads(run("search", "--composer", "reti", "--format", "json", "--db", db_url))
    assert reti and all(any("Réti" in c for c in row["composers"]) for row in reti)
    by_year = json.loads(
        run("search", "--year", "1900..1930", "--sort", "year", "-f", "json", "--db", db_url)
    )
    years = [row["year"] for row in by_year]
    assert years == sorted(years) and all(1900 <= y <= 1930 for y in years)

    study_id = saavedra[0]["id"]
    shown = json.loads(run("show", str(study_id), "--format", "json", "--db", db_url))
    assert shown["gbr"] == "0300.10" and shown["composers"]
    assert shown["headers"]["FEN"] == "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"
    assert run("show", str(study_id), "--format", "pgn", "--db", db_url).startswith("[Event")
    assert "0300.10" in run("show", str(study_id), "--db", db_url)
    missing = runner.invoke(app, ["show", "999999", "--db", db_url])
    assert missing.exit_code == 1 and "999999" in missing.output

    stats = json.loads(run("stats", "--format", "json", "--db", db_url))
    assert stats["studies"] == 25 and stats["composers"] == 8
    assert sum(item["count"] for item in stats["men"]) == 25

    rejected = json.loads(run("rejects", "--format", "json", "--db", db_url))
    reasons = sorted(item["reason"] for item in rejected)
    assert len(reasons) == 2 and "NUL byte" in reasons[0] and "invalid FEN" in reasons[1]
    out = tmp_path / "rejected.pgn"
    run("rejects", "--export", str(out), "--db", db_url)
    # Each game as read, a blank line between two and none after the last (#25).
    assert out.read_bytes() == (BAD_FEN + "\n" + NUL_GAME).encode()


def test_database_from_environment(db_url: str) -> None:
    """STUDYDB_DB selects the database (a path or a PostgreSQL URL) for every command."""
    env = {"STUDYDB_DB": db_url}
    result = runner.invoke(app, ["import", str(CLASSICS)], env=env)
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["search", "--count"], env=env)
    assert result.exit_code == 0 and result.stdout.strip() == "25", result.output


@pytest.mark.slow
def test_installed_script_on_postgresql(pg_url: str) -> None:
    script = Path(sys.executable).with_name("studydb")
    args = [str(script), "import", str(CLASSICS), "--db", pg_url, "--format", "json"]
    out = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["stored"] == 25
    out = subprocess.run(
        [str(script), "search", "--count", "--db", pg_url], capture_output=True, text=True
    )
    assert out.returncode == 0 and out.stdout.strip() == "25", out.stderr


# -- what PostgreSQL is strict about ------------------------------------------------------


def test_nul_bytes_are_rejected_not_fatal(db_url: str, tmp_path: Path) -> None:
    """PostgreSQL text cannot hold NUL: such games become rejects, the rest is stored."""
    source = tmp_path / "nul.pgn"
    good = CLASSICS.read_text(encoding="utf-8").split("\n\n[Event")[0] + "\n"
    source.write_bytes(
        NUL_GAME.encode() + b"\n" + good.encode() + b"\n" + b'[Event "\x00"]\n\n1. e4 *\n'
    )
    engine = open_database(db_url)
    try:
        summary = import_paths(engine, [source])
        assert (summary.read, summary.stored, summary.rejected) == (3, 1, 2)
        with engine.connect() as conn:
            raws = conn.execute(select(Reject.raw, Reject.reason).order_by(Reject.line)).all()
        assert [raw for raw, _ in raws] == [NUL_GAME.encode(), b'[Event "\x00"]\n\n1. e4 *\n']
        assert all("NUL byte" in reason for _, reason in raws)
    finally:
        engine.dispose()


def test_odd_header_values_round_trip(db_url: str, tmp_path: Path) -> None:
    """Headers JSON keeps quotes, backslashes, control characters, emoji exactly."""
    source = tmp_path / "odd.pgn"
    pgn = pgn_with_headers(ODD_VALUES, "7K/8/k1P5/7p/8/8/8/8 w - - 0 1", "1. Kg7 h4 *")
    source.write_text(pgn, encoding="utf-8")
    engine = open_database(db_url)
    try:
        summary = import_paths(engine, [source])
        assert summary.stored == 1, summary
        with engine.connect() as conn:
            source_text, pgn_text = conn.execute(select(Study.source, Study.pgn)).one()
            names = conn.execute(select(Composer.name)).scalars().all()
        headers = tags_of(pgn_text)
        assert {k: headers[k] for k in ODD_VALUES} == ODD_VALUES
        assert source_text == ODD_VALUES["Source"]
        assert pgn_text == pgn
        assert names == [ODD_VALUES["Composer"]]
        # Found again through the filters, literally.
        filters = Filters(sources=("100% _under_",), composers=("🐴",))
        assert [row.id for row in search(engine, filters)] != []
    finally:
        engine.dispose()


def test_counters_and_links_agree(db_url: str) -> None:
    """After an import through COPY (PostgreSQL) or INSERT (SQLite): run counters = rows."""
    engine = open_database(db_url)
    try:
        import_paths(engine, [CLASSICS], batch_size=7)
        with engine.connect() as conn:
            run_row = conn.execute(select(ImportRun)).one()
            studies = conn.execute(select(func.count()).select_from(Study)).scalar_one()
            links = conn.execute(select(func.count()).select_from(StudyComposer)).scalar_one()
            names = conn.execute(select(func.count(Study.composer_names))).scalar_one()
        assert (run_row.read, run_row.stored, run_row.status) == (25, 25, "done")
        assert studies == 25 and links >= names > 0
    finally:
        engine.dispose()


def test_large_batch_json_and_null_columns_match_sqlite(pg_url: str, tmp_path: Path) -> None:
    """The rows PostgreSQL stores equal SQLite's, column for column (bar ids)."""
    results = []
    for url in (str(tmp_path / "ref.sqlite"), pg_url):
        engine = open_database(url)
        try:
            import_paths(engine, [CLASSICS], validate=True, jobs=1)
            columns = [c for c in Study.__table__.columns if c.name not in ("id", "run_id")]
            with engine.connect() as conn:
                rows = conn.execute(select(*columns).order_by(Study.content_hash)).all()
                nulls = conn.execute(
                    text("SELECT count(*) FROM studies WHERE errors IS NULL")
                ).scalar_one()
            results.append(([tuple(r) for r in rows], nulls))
        finally:
            engine.dispose()
    assert results[0] == results[1]


@pytest.mark.parametrize("term", ["%", "_", "'", '"', "\\", "; DROP TABLE studies; --"])
def test_filters_with_sql_characters_on_postgresql(pg_url: str, term: str) -> None:
    engine = open_database(pg_url)
    try:
        import_paths(engine, [CLASSICS])
        for filters in (
            Filters(sources=(term,)),
            Filters(composers=(term,)),
        ):
            assert list(search(engine, filters)) == []
            assert count(engine, filters) == 0
        assert count(engine) == 25
    finally:
        engine.dispose()


# -- every Database answer on both engines --------------------------------------------


def answers_of(url: str, syzygy: str, tmp_path: Path) -> dict[str, object]:
    """What each of Database's readers answers on the classics and the crafted studies,
    checked with the tables: the facts the feature modules' tests run on PostgreSQL in the
    full suite (test_checks, test_report, test_anticipate, test_index, test_persons)."""
    from dataclasses import asdict

    import studydb
    from studydb import report
    from studydb.db.checks import CheckConfig
    from studydb.db.report import ReportOptions

    with studydb.open(url) as db:
        db.import_paths([CLASSICS, crafted_pgn(tmp_path / "crafted.pgn")])
        checked = db.check(None, CheckConfig((syzygy,)))
        ids = [row.id for row in db.search(None, sort="id")]
        saavedra = db.study(next(iter(db.search(Filters(material=("0300.10",)), sort="id"))).id)
        assert saavedra is not None
        people = db.persons()
        return {
            "checked": (checked.checked, sorted(checked.verdicts.items())),
            "rows": [asdict(row) for row in db.search(None, sort="id")],
            "counts": [db.count(f) for f in (None, Filters(verdicts=("sound", "duals")))],
            "stats": asdict(db.stats()),
            "studies": [asdict(db.study(i)) for i in ids],  # type: ignore[arg-type]
            "checks": [  # bar the time each was checked
                {**asdict(c), "checked": None} if (c := db.stored_check(i)) else None for i in ids
            ],
            "verdicts": db.verdicts(ids),
            "themes": [asdict(db.study_themes(i)) for i in ids],
            "theme counts": db.theme_counts(),
            "anticipations": [
                asdict(a) for a in db.anticipations(SAAVEDRA_FEN, "1. c7 Rd6+ 2. Kb5", min_men=4)
            ],
            "related": asdict(db.related(saavedra, min_men=4)),
            "versions": [[asdict(v) for v in group] for group in db.versions(None)],
            "persons": [asdict(p) for p in people],
            "person studies": [asdict(s) for s in db.person_studies(people[0].id)],
            "suggestions": [(s, a.name, b.name) for s, a, b in db.person_suggestions()],
            "register": db.export_register(),
            "report": {  # bar the database's name
                **json.loads(
                    report.to_json(db.report(str(TOURNEY), ReportOptions(syzygy=(syzygy,))))
                ),
                "database": None,
            },
        }


def test_every_database_answer_is_the_same_on_both_engines(
    pg_url: str, syzygy: str, tmp_path: Path
) -> None:
    """SQLite and PostgreSQL give the same answers to each of Database's readers, after the
    same import and check (the fast loop's one PostgreSQL run of the feature modules)."""
    on_sqlite = answers_of(str(tmp_path / "ref.sqlite"), syzygy, tmp_path)
    on_postgresql = answers_of(pg_url, syzygy, tmp_path)
    for key, value in on_sqlite.items():
        assert on_postgresql[key] == value, key
    assert on_sqlite["checked"] != (0, []) and on_sqlite["anticipations"]


def test_an_import_waits_for_another_dropping_the_studies_indexes(
    pg_url: str, tmp_path: Path
) -> None:
    """Two imports into an empty database: the second to look at the studies' indexes
    waits until the first has dropped them (its transaction holding ``studies``) and
    then sees them gone, instead of dropping them again (an error) or deadlocking."""
    import threading

    import psycopg

    path = tmp_path / "one.pgn"
    path.write_text(pgn_with_headers({"Event": "Waits"}, SAAVEDRA_FEN, "1. c7 *"), "utf-8")
    plain = pg_url.replace("postgresql+psycopg://", "postgresql://")
    engine = open_database(pg_url)
    with psycopg.connect(plain) as other:  # the first import, inside its transaction
        other.execute("LOCK TABLE studies IN ROW EXCLUSIVE MODE")
        found: list[object] = []
        second = threading.Thread(target=lambda: found.append(import_paths(engine, [path])))
        second.start()
        waiting = (
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
        with psycopg.connect(plain, autocommit=True) as watch:
            while not watch.execute(waiting).fetchone()[0]:  # type: ignore[index]  # a row
                second.join(0.01)
                assert second.is_alive(), found
        other.execute("DROP INDEX ix_studies_year")
        other.commit()
        second.join()
    engine.dispose()
    (summary,) = found
    assert summary.stored == 1 and not summary.failures, summary  # type: ignore[attr-defined]
    with open_database(pg_url).connect() as conn:
        names = conn.execute(
            text("SELECT indexname FROM pg_indexes WHERE tablename = 'studies'")
        ).scalars()
        assert "ix_studies_year" in set(names)
