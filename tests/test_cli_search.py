"""``studydb search``, ``show`` and ``stats`` from the command line."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest
from helpers import (
    CLASSICS,
    FIXTURE,
    GAMES,
    REFERENCES,
    SQL_NAME,
    STUDYDB,
    WALKS,
    line_ends_studies,
    run_on_terminal,
    walks_pgn,
)
from sqlalchemy import select
from typer.testing import CliRunner

import studydb
from studydb.cli import app
from studydb.db.connect import open_database
from studydb.db.importer import import_paths
from studydb.db.models import Study

runner = CliRunner()


@pytest.fixture(scope="module")
def db(collection) -> str:
    """The fixture collection (both engines), as a --db value."""
    return collection.url.render_as_string(hide_password=False)


def run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def events(fens: list[str]) -> set[str]:
    by_fen = {tags["FEN"]: event for event, tags in GAMES.items()}
    return {by_fen[fen] for fen in fens}


def ids_by_event(db: str) -> dict[str, int]:
    rows = json.loads(run("search", "--db", db, "--format", "json"))
    by_fen = {tags["FEN"]: event for event, tags in GAMES.items()}
    return {by_fen[row["fen"]]: row["id"] for row in rows}


def test_json_has_the_fields_and_parses(db: str) -> None:
    rows = json.loads(
        run("search", "KRBvKRN", "-z", "--stipulation", "draw", "--db", db, "-f", "json")
    )
    assert events([r["fen"] for r in rows]) == {"kasparyan-rbrn", "nadareishvili-rnrb"}
    for field in (
        "id",
        "gbr",
        "signature",
        "stipulation",
        "composers",
        "year",
        "source",
        "award",
        "fen",
    ):
        assert field in rows[0]
    assert rows[0]["gbr"] == "0413.00" and rows[0]["composers"] == ["Kasparyan, Genrikh"]
    assert json.loads(run("search", "KQQvK", "--db", db, "--format", "json")) == []


def test_jsonl(db: str) -> None:
    out = run("search", "--composer", "reti", "--db", db, "--format", "jsonl")
    rows = [json.loads(line) for line in out.splitlines()]
    assert events([r["fen"] for r in rows]) == {"reti-draw", "reti-rook", "reti-initial"}
    assert [r["gbr"] for r in rows] == sorted(r["gbr"] for r in rows)


def test_csv(db: str) -> None:
    out = run("search", "--composer", SQL_NAME.split(";")[0], "--db", db, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 1
    assert rows[0]["composers"] == "; ".join(part.strip() for part in SQL_NAME.split(";"))
    assert rows[0]["source"] == "100% Endgames_Weekly"
    assert rows[0]["award"] == ""
    assert events([rows[0]["fen"]]) == {"obrien"}


def test_fen(db: str) -> None:
    out = run("search", "0009", "--db", db, "--format", "fen")
    fens = out.splitlines()
    assert events(fens) == {"horwitz-3n", "kling-3n", "kling-black-3n"}
    for fen in fens:
        assert chess.Board(fen).is_valid()


def test_pgn_export_is_the_games_as_imported(db: str) -> None:
    out = run("search", "--year", "1920..1939", "--db", db, "--format", "pgn")
    games = []
    stream = io.StringIO(out)
    while (game := chess.pgn.read_game(stream)) is not None:
        games.append(game)
    assert {g.headers["Event"] for g in games} == {
        "reti-draw", "reti-rook", "reti-initial", "kubbel-knights", "kubbel-troitzky",
        "grigoriev-krkrp", "rook-vs-pawns",
    }  # fmt: skip
    originals = FIXTURE.read_text(encoding="utf-8")
    for block in out.split("\n\n[Event ")[1:]:
        assert "[Event " + block.rstrip("\n") in originals


def test_pgn_export_reimports_as_the_same_studies(db: str, db_url: str, tmp_path: Path) -> None:
    exported = tmp_path / "export.pgn"
    exported.write_text(run("search", "--award", "--db", db, "--format", "pgn"), encoding="utf-8")
    fresh = open_database(db_url)
    try:
        summary = import_paths(fresh, [exported])
        assert (summary.stored, summary.rejected) == (7, 0)
        source = open_database(db)
        columns = (Study.fen, Study.gbr, Study.pgn, Study.composer_names,
                   Study.year, Study.award, Study.stipulation, Study.source)  # fmt: skip

        def studies(engine) -> list:
            with engine.connect() as conn:
                rows = conn.execute(select(*columns).where(Study.award.is_not(None)))
                return sorted(tuple(json.dumps(v, sort_keys=True) for v in r) for r in rows)

        assert studies(fresh) == studies(source)
        source.dispose()
    finally:
        fresh.dispose()


def test_table_and_count(db: str) -> None:
    ids = ids_by_event(db)
    out = run("search", "0300.10", "KQvKR", "--db", db)
    assert "Saavedra, Fernando" in out and "Philidor" in out and "0300.10" in out
    assert f"{ids['saavedra']} " in out
    assert run("search", "--composer", "reti", "--count", "--db", db).strip() == "3"
    assert run("search", "--count", "--db", db).strip() == str(len(GAMES))


def test_sort_limit_offset(db: str) -> None:
    ids = ids_by_event(db)
    out = run("search", "--sort", "id", "--limit", "3", "--offset", "2", "--db", db, "-f", "jsonl")
    assert [json.loads(line)["id"] for line in out.splitlines()] == sorted(ids.values())[2:5]
    out = run("search", "--sort", "year", "--limit", "2", "--db", db, "-f", "fen")
    assert events(out.splitlines()) == {"lucena-pp", "philidor-krp"}  # 1497, 1777 0400.10
    # piped output is not limited: all studies come out
    assert len(run("search", "--db", db, "-f", "fen").splitlines()) == len(GAMES)


def test_filters_on_the_command_line(db: str) -> None:
    def fens(*args: str) -> set[str]:
        return events(run("search", *args, "--db", db, "-f", "fen").splitlines())

    assert fens("0400.10", "--either-colour") == {"philidor-krp", "grigoriev-krkrp"}
    assert fens("0?0?.1?") == {"saavedra", "philidor-krp", "reti-draw", "troitzky-knights"}
    assert fens("--where", "wR>=1 bN=1 men<=5") == {"reti-rook"}
    assert fens("--where", "wR>=1", "--where", "men<=4") == {
        "reti-rook", "obrien", "thousand", "illegal-solution",
    }  # fmt: skip
    assert fens("--composer", "RÉTI", "--year", "1920..1925") == {"reti-draw"}
    assert fens("--composer", "RÉTI", "--year", "1920-1925") == {"reti-draw"}  # as people write it
    assert fens("KRP v KR") == fens("0400.10") == fens("rook and pawn versus rook")
    assert fens("R+P v R", "--either-colour") == {"philidor-krp", "grigoriev-krkrp"}
    assert fens("--composer", "kubbel", "--composer", "pervakov") == {
        "kubbel-knights", "kubbel-troitzky", "pervakov-qq",
    }  # fmt: skip
    assert fens("--source", "100%") == {"obrien"}
    assert fens("--award", "--stipulation", "draw", "--where", "men<=5") == {"pervakov-qq"}
    assert fens("--invalid") == {"illegal-solution"}
    assert len(fens("--valid")) == len(GAMES) - 1


@pytest.mark.parametrize(
    ("args", "token"),
    [
        (["--where", "wR>=1 bX=1"], "'bX'"),
        (["--where", "men<="], "'<='"),
        (["--year", "1999-1990"], "'1999-1990'"),
        (["--year", "1990~1999"], "'1990~1999'"),
        (["03a0"], "'03a0'"),
        (["03a0", "--either-colour"], "'03a0'"),
        (["--stipulation", "helpmate"], "'helpmate'"),
        (["--eg", "EG#x"], "'EG#x'"),
    ],
)
def test_bad_filters_are_usage_errors(db: str, args: list[str], token: str) -> None:
    for command in ("search", "stats"):
        result = runner.invoke(app, [command, *args, "--db", db])
        assert result.exit_code == 2, result.output
        assert token in result.output
        assert "Traceback" not in result.output


def test_show(db: str, tmp_path: Path) -> None:
    ids = ids_by_event(db)
    svg = tmp_path / "saavedra.svg"
    out = run("show", str(ids["saavedra"]), "--svg", str(svg), "--db", db)
    for text in (
        "Saavedra, Fernando",
        "Glasgow Weekly Citizen",
        "0300.10",
        "b6a1 0300.10 d5.c6 2/2+",  # extended notation
        "+0300.10b6a1",  # stipulation form
        "KPvKR",
        "White to play and win",
        "c8=R",
        "the famous underpromotion",
        "♔",
        "♜",
        "a  b  c  d  e  f  g  h",
        "Date",
        "1895.05.18",
    ):
        assert text in out, text
    assert svg.read_text(encoding="utf-8").startswith("<svg")
    black = run("show", str(ids["black-to-move"]), "--db", db)
    assert "Black to play and draw" in black and "1... Kc3" in black
    bad = run("show", str(ids["illegal-solution"]), "--db", db)
    assert "moves illegal" in bad and "Ka1" in bad


def test_show_json_and_pgn(db: str) -> None:
    ids = ids_by_event(db)
    data = json.loads(run("show", str(ids["kubbel-troitzky"]), "--db", db, "-f", "json"))
    assert data["composers"] == ["Kubbel, Leonid", "Troitzky, Alexei"]
    assert data["gbr_extended"] == "g3g1 0323.12 a3a2e1g8.h6c3c6 4/5="
    assert data["headers"]["Composer2"] == "Troitzky, Alexei"
    pgn = run("show", str(ids["obrien"]), "--db", db, "-f", "pgn")
    escaped = SQL_NAME.replace('"', '\\"')
    assert f'[Composer "{escaped}"]' in pgn  # the tag exactly as in the file
    assert chess.pgn.read_game(io.StringIO(pgn)).headers["Event"] == "obrien"


def test_show_missing_id_is_an_error(db: str) -> None:
    result = runner.invoke(app, ["show", "999999", "--db", db])
    assert result.exit_code == 1
    assert "no study with id 999999" in result.output


def test_stats(db: str) -> None:
    out = run("stats", "--db", db, "--top", "3")
    for text in ("Studies", str(len(GAMES)), "1497–2012", "0009.00", "█", "1920s", "undated"):
        assert text in out, text
    data = json.loads(run("stats", "--composer", "kubbel", "--db", db, "--format", "json"))
    assert data["studies"] == 2 and data["composers"] == 2
    top = data["top_composers"][0]
    assert (top["composer"], top["count"], top["variants"]) == ("Kubbel, Leonid", 2, [])
    assert data["decades"] == [{"decade": 1920, "count": 1}, {"decade": 1930, "count": 1}]
    data = json.loads(run("stats", "0009", "--db", db, "-f", "json"))
    assert data["gbr"] == [{"gbr": "0009.00", "count": 3}]


def test_help_texts_have_examples() -> None:
    for command in ("search", "show", "stats"):
        out = run(command, "--help")
        assert f"studydb {command}" in out
    assert "--either-colour" in run("stats", "--help")


@pytest.mark.slow
def test_installed_script(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with studydb.open(path) as writable:
        writable.import_paths([FIXTURE])
    out = subprocess.run(
        [str(STUDYDB), "search", "0300.10", "--db", str(path), "--format", "fen"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert events(out.stdout.splitlines()) == {"saavedra"}
    bad = subprocess.run(
        [str(STUDYDB), "search", "--where", "wK=1", "--db", str(path)],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "'wK'" in bad.stderr


def test_cli_module_does_not_import_sqlalchemy() -> None:
    code = "import sys, studydb.cli.search; print('sqlalchemy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.slow
def test_a_count_by_material_imports_no_python_chess(tmp_path: Path) -> None:
    """``search 0300.10 --count`` reads no move nor position: python-chess and the modules
    built on it (positions' tables, patterns, themes) are not imported (issue 25)."""
    path = tmp_path / "empty.sqlite"
    studydb.open(path).close()
    code = (
        "import sys\n"
        "from studydb.cli import main\n"
        f"sys.argv = ['studydb', 'search', '0300.10', '--count', '--db', {str(path)!r}]\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code\n"
        "heavy = ('chess', 'studydb.positions', 'studydb.patterns', 'studydb.themes')\n"
        "print('HEAVY', [m for m in heavy if m in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "0\nHEAVY []\n"


@pytest.mark.slow
def test_read_commands_import_no_orm(tmp_path: Path) -> None:
    """``search --count``, ``show`` and ``stats`` run on SQLAlchemy Core: neither the
    ORM nor Alembic is imported (start-up time, issue 25)."""
    pgn = tmp_path / "one.pgn"
    pgn.write_text('[Event "E"]\n[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n1. c7 *\n')
    path = tmp_path / "one.sqlite"
    with studydb.open(path) as writable:
        writable.import_paths([pgn], positions="none")
    commands = [["search", "0300.10", "--count"], ["show", "1"], ["stats"]]
    code = (
        "import sys\n"
        "from studydb.cli import main\n"
        f"for argv in {commands!r}:\n"
        f"    sys.argv = ['studydb', *argv, '--db', {str(path)!r}]\n"
        "    try:\n        main()\n    except SystemExit as exc:\n        assert not exc.code\n"
        "print('HEAVY', [m for m in ('sqlalchemy.orm', 'alembic') if m in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("1\n") and "HEAVY []" in done.stdout


@pytest.mark.slow
def test_terminal_output_is_limited_to_50(corpus_dir: Path, tmp_path: Path) -> None:
    """On a terminal, search shows 50 studies and says how many there are; piped, all."""
    path = tmp_path / "corpus.sqlite"
    with studydb.open(path) as writable:
        summary = writable.import_paths([corpus_dir / "studies"])
    assert summary.stored > 50
    command = [str(STUDYDB), "search", "--db", str(path), "--format", "fen"]
    code, shown, err = run_on_terminal(command, stream="stdout")
    assert code == 0, err
    lines = shown.splitlines()
    assert len(lines) == 50
    texts = 3  # the corpus's chapter headings and introductions: not studies
    assert f"50 of {summary.stored - texts:,} studies shown" in err.decode()
    piped = subprocess.run(command, capture_output=True, text=True, check=True)
    assert len(piped.stdout.splitlines()) == summary.stored - texts


@pytest.mark.slow
def test_eg_notes_and_mates_from_the_command_line(tmp_path: Path) -> None:
    pgn = tmp_path / "references.pgn"
    pgn.write_text(REFERENCES, encoding="utf-8")
    db = str(tmp_path / "refs.sqlite")
    imported = subprocess.run(
        [str(STUDYDB), "import", str(pgn), "--db", db], capture_output=True, text=True
    )
    assert imported.returncode == 0, imported.stderr
    found = subprocess.run(
        [str(STUDYDB), "search", "--db", db, "--eg", "EG#01335", "--format", "jsonl"],
        capture_output=True,
        text=True,
    )
    assert found.returncode == 0, found.stderr
    (row,) = [json.loads(line) for line in found.stdout.splitlines()]
    assert (row["source"], row["award"], row["stipulation"]) == ("Lenin MT 64", "3.p", "win")
    mates = json.loads(run("search", "--db", db, "--stipulation", "#8", "--format", "json"))
    assert [m["source"] for m in mates] == ["Bohemia"]
    shown = run("show", str(mates[0]["id"]), "--db", db)
    assert "EG#13350" in shown
    assert "(v): after Kubbel 1920 EG#13350" in shown
    assert "White to play and mate in 8" in shown
    data = json.loads(run("show", str(mates[0]["id"]), "--db", db, "--format", "json"))
    assert (data["eg"], data["mate_in"], data["stipulation_form"]) == ("13350", 8, None)
    bad = runner.invoke(app, ["search", "--db", db, "--eg", "EG#x"])
    assert bad.exit_code == 2
    assert "EG#x" in bad.output


# -- issue 9: outputs that fail, odd FEN tags -----------------------------------

ODD_FENS = (
    '[Event "É ♜ x"]\n[FEN ""]\n\n1. e4 e5 *\n\n'
    '[Event "two"]\n[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n[FEN "bad"]\n\n1. c7 *\n\n'
    '[Event "ill"]\n\n1. e4 Ke3 *\n\n'
    '[Variant "Atomic"]\n\n1. e4 *\n'
)


@pytest.fixture
def odd_db(tmp_path: Path) -> str:
    path = tmp_path / "odd.pgn"
    path.write_text(ODD_FENS, encoding="utf-8")
    db = str(tmp_path / "odd.sqlite")
    with studydb.open(db) as writable:  # every game indexed: no note of unsearched ones
        assert writable.import_paths([path], positions="all").stored == 3
    return db


def test_show_applies_the_first_fen_rule(odd_db: str) -> None:
    result = runner.invoke(app, ["show", "1", "--db", odd_db])
    assert result.exit_code == 0, result.output
    assert "1. e4 e5 *" in result.output  # empty FEN: the initial position
    result = runner.invoke(app, ["show", "2", "--db", odd_db])
    assert result.exit_code == 0, result.output
    assert "1. c7 *" in result.output  # the first FEN, not python-chess's last


@pytest.mark.slow
def test_show_does_not_print_python_chess_logs(odd_db: str) -> None:
    result = subprocess.run(
        [STUDYDB, "show", "3", "--db", odd_db], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


COMMANDS = [
    ["search"],
    ["search", "--format", "jsonl"],
    ["search", "--format", "csv"],
    ["search", "--format", "pgn"],
    ["show", "1"],
    ["stats"],
    ["gbr", "encode", "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"],
    ["gbr", "decode", "0300.10"],
]


def run_shell(command: list[str], odd_db: str, redirect: str, **env: str) -> tuple[int, str]:
    args = [*command, "--db", odd_db] if command[0] != "gbr" else command
    line = " ".join(f"'{a}'" for a in [str(STUDYDB), *args]) + redirect
    result = subprocess.run(
        ["bash", "-c", line], capture_output=True, text=True, check=False, env={**os.environ, **env}
    )
    return result.returncode, result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_full_disk_and_closed_stdout_are_messages(odd_db: str, command: list[str]) -> None:
    for redirect, message in ((" > /dev/full", "No space left"), (" >&-", "closed")):
        code, stderr = run_shell(command, odd_db, redirect)
        assert code == 1, stderr
        assert message in stderr and "Traceback" not in stderr


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_latin1_stdout_and_closed_pipe(odd_db: str, command: list[str]) -> None:
    code, stderr = run_shell(command, odd_db, " > /dev/null", PYTHONIOENCODING="latin-1")
    assert (code, stderr) == (0, "")
    code, stderr = run_shell(command, odd_db, " | true; exit ${PIPESTATUS[0]}")
    assert (code, stderr) == (0, "")


@pytest.mark.parametrize("target", ["folder", "missing/x.pgn", "/dev/full"])
def test_rejects_export_to_a_bad_place(odd_db: str, tmp_path: Path, target: str) -> None:
    (tmp_path / "folder").mkdir()
    where = target if target.startswith("/") else str(tmp_path / target)
    result = runner.invoke(app, ["rejects", "--export", where, "--db", odd_db])
    assert result.exit_code == 1, result.output
    assert "studydb: error:" in result.output and result.exception.__class__ is SystemExit


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([f"--composer=x{i}" for i in range(1200)], "too many values for --composer: 1200"),
        (["0300.10"] * 101, "too many values for MATERIAL: 101"),
        (["--where", "men<=" + "9" * 5000], "longer than 1000 characters"),
        (["--where", "men<=1" + "0" * 12], "out of range"),
        (["--composer", "re\x00ti"], "NUL character"),
    ],
)
def test_oversized_filters_are_usage_errors(db: str, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["search", *args, "--db", db])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output and "Expression tree" not in result.output


@pytest.fixture(scope="module")
def walks_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The studies each movetext reader once got wrong (helpers.WALKS), indexed, ids in order."""
    folder = tmp_path_factory.mktemp("walks")
    path = folder / "walks.pgn"
    path.write_text(walks_pgn(), encoding="utf-8")
    db = str(folder / "walks.sqlite")
    with studydb.open(db) as writable:
        assert writable.import_paths([path]).stored == len(WALKS)
    return db


@pytest.mark.parametrize(
    ("study", "args", "shown"),
    [
        (1, [], ["moves legal", "1. Rh3+ Kd4 2. Kb2 Ke4 *"]),  # two blank lines
        (2, ["--node", "4"], ["Node 4, ply 2 (variation): 1. Rh4 Kd3"]),
        (2, [], ["1. Rh3+ ( 1. Rh4 ( 1. Rh5 ) 1... Kd3 ) 1... Kd4 *"]),  # as written
        (
            3,
            [],
            [
                "moves illegal",
                "'Qc2'",
                "( 1. Rc2+ Kb3 { illegal move, not played: 2. Qc2 } ) 1... Kd4",
            ],
        ),
        (3, ["--node", "5"], ["Node 5, ply 3 (main line): 1. Rh3+ Kd4 2. Rd3+"]),
        (4, [], ["moves legal", "9999. Kb1 Kb8 10000. Ka1 Ka8 *"]),
        pytest.param(
            5,
            ["--node", "4500"],
            ["Node 4500, ply 3000 (variation): 1. Kb1 Kg8 2. Ka1"],
            marks=pytest.mark.slow,
        ),
    ],
)
def test_show_reads_the_moves_as_the_index_does(
    walks_db: str, study: int, args: list[str], shown: list[str]
) -> None:
    """issue 15: each of these once showed no moves, other moves, or failed."""
    out = run("show", str(study), "--db", walks_db, *args)
    for text in shown:
        assert text in out, text


def test_show_pads_no_line_with_spaces(db: str) -> None:
    """Every study of the fixture on SQLite; a few on PostgreSQL (the text is the same)."""
    ids = sorted(ids_by_event(db).values())
    for study_id in ids if "://" not in db else ids[:3]:
        text = run("show", str(study_id), "--db", db)
        assert [line for line in text.splitlines() if line != line.rstrip()] == [], study_id


@pytest.mark.parametrize("option", ["--similar", "--side-to-move=white"])
def test_a_modifier_without_what_it_modifies_is_a_usage_error(db: str, option: str) -> None:
    result = runner.invoke(app, ["search", option, "--count", "--db", db])
    assert result.exit_code == 2
    assert "needs --position, --pattern or --pieces" in result.output


def test_an_offset_past_the_end_says_so(db: str) -> None:
    result = runner.invoke(app, ["search", "--offset", "1000", "--db", db])
    assert result.exit_code == 0, result.output
    total = run("search", "--count", "--db", db).strip()
    assert f"No studies from --offset 1000: {total} match" in result.output


def test_python_m_studydb_is_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "studydb", "--version"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout.startswith("studydb "), done.stderr


def test_an_index_search_says_which_studies_it_did_not_search(tmp_path: Path) -> None:
    # A --line, --pattern or --reaches search of studies imported with --positions none
    # said "0" / "No studies match", a count of nothing searched.
    path = str(tmp_path / "bare.sqlite")
    imported = runner.invoke(app, ["import", str(CLASSICS), "--positions", "none", "--db", path])
    assert imported.exit_code == 0, imported.output
    note = (
        "studydb: note: {} of the studies the other filters select are not in the position"
        " index (imported with --positions none, or games from the initial position) and were"
        " not searched: studydb index indexes them\n"
    )
    for args, unsearched in [
        (["search", "--line", "P-[a-h]8 then mate", "--count"], 25),
        (["search", "--pattern", "*/*/1KP5/*/*/*/*/*", "--composer", "saavedra"], 1),
        (["stats", "--reaches", "KQvK"], 25),
        (["themes", "--pieces", "R[a-h]7"], 25),
        # the main line's themes are found by the index's replay: 'search --theme
        # underpromotion' said 0 of the Saavedra, never replayed
        (["search", "--theme", "underpromotion", "--count"], 25),
        (["stats", "--theme", "switchback", "--composer", "saavedra"], 1),
        # theme counts rest on the replay whatever the filters: 'themes' listed them as if
        # every study had been searched
        (["themes"], 25),
        (["stats", "--composer", "saavedra"], 1),
    ]:
        result = runner.invoke(app, [*args, "--db", path])
        assert result.exit_code == 0, result.output
        assert note.format(unsearched) in result.stderr, (args, result.stderr)
    plain = runner.invoke(app, ["search", "--composer", "saavedra", "--count", "--db", path])
    assert plain.stdout == "1\n" and plain.stderr == ""  # no index filter: nothing to say
    indexed = runner.invoke(app, ["index", "--db", path])
    assert indexed.exit_code == 0, indexed.output
    result = runner.invoke(app, ["search", "--line", "P-[a-h]8 then mate", "--count", "--db", path])
    assert result.stdout != "0\n" and result.stderr == ""


def test_pgn_is_each_game_as_stored_to_its_line_ends(tmp_path: Path) -> None:
    # A game read with CR LF line ends ended with an LF in search -f pgn and show -f pgn.
    db = str(tmp_path / "ends.sqlite")
    stored = line_ends_studies(db, tmp_path)
    assert stored[0].endswith("*\r\n")
    every = runner.invoke(app, ["search", "--db", db, "--sort", "id", "-f", "pgn"])
    assert every.stdout_bytes.decode() == f"{stored[0]}\r\n{stored[1]}\n{stored[2]}\n"
    for number, text in enumerate(stored, 1):
        one = runner.invoke(app, ["show", str(number), "--db", db, "-f", "pgn"])
        assert one.stdout_bytes.decode() == text + ("" if number < 3 else "\n")
