"""``studydb composers`` from the command line: the list, suggestions, decisions, the file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import BROTHERS, CLASSICS, TROITSKY, credits_pgn
from typer.testing import CliRunner

from studydb.cli import app

runner = CliRunner()
STUDYDB = Path(sys.executable).with_name("studydb")


def run(*args: str, code: int = 0) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result.output


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = tmp_path / "studies.pgn"
    path.write_text(TROITSKY + "\n" + BROTHERS, encoding="utf-8")
    database = str(tmp_path / "c.sqlite")
    run("import", str(path), "--db", database)
    return database


def test_composers_lists_persons_with_their_names_studies_and_years(db: str) -> None:
    text = run("composers", "--name", "troitzky", "--db", db)
    lines = text.splitlines()
    assert lines[0].endswith("Troitsky, Alexey Alexeyevich  (4 studies, 1895-1909)")
    assert {line.strip() for line in lines[1:]} == {
        "also Troitzky, Alexey Alexeyevich (1)",
        "also Troitsky (1)",
        "also Troitski (1)",
    }
    records = json.loads(run("composers", "--db", db, "-f", "json"))
    assert len(records) == 9
    reti = next(r for r in records if r["name"] == "Réti, Richard")
    assert {v["name"] for v in reti["variants"]} == {"Réti, Richard", "R. Reti", "Reti"}


def test_composers_finding_nobody_says_so(db: str) -> None:
    # It printed nothing at all, as if the command had not run.
    result = runner.invoke(app, ["composers", "--name", "zzz", "--db", db])
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == "No composer is found by 'zzz'.\n"
    assert run("composers", "--name", "zzz", "--db", db, "-f", "json") == "[]\n"


def test_composers_of_an_empty_database_and_no_suggestion_say_so(tmp_path: Path) -> None:
    database = str(tmp_path / "e.sqlite")
    run("db", "upgrade", "--db", database)
    result = runner.invoke(app, ["composers", "--db", database])
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == "No composers: none of the stored studies credits one.\n"
    result = runner.invoke(app, ["composers", "--suggest", "--db", database])
    assert result.stderr == "No suggestions: no two persons look like one.\n"
    assert run("composers", "--db", database, "-f", "json") == "[]\n"


def test_suggest_merge_split_alias_export_import(db: str, tmp_path: Path) -> None:
    text = run("composers", "--suggest", "--db", db)
    assert "Sarychev" in text and "surname alone: Sarychev (2 persons have it)" in text
    assert "Platov" in text
    merged = run("composers", "merge", "Sarychev", "Sarychev, Kirill", "--db", db)
    assert "Sarychev, Kirill" in merged.splitlines()[0] and "also Sarychev (1)" in merged
    assert "Sarychev (1 study" not in run("composers", "--suggest", "--db", db)
    run("composers", "split", "Troitski", "--db", db)
    assert run("search", "--composer", "Troitski", "--count", "--db", db).strip() == "4"
    assert run("search", "--composer", "Troitzky, Alexey", "--count", "--db", db).strip() == "3"
    run("composers", "alias", "Gasparyan", "Kasparyan, Genrikh", "--db", db)
    assert run("search", "--composer", "gasparyan", "--count", "--db", db).strip() == "1"
    register = tmp_path / "club.json"
    run("composers", "export", str(register), "--db", db)
    kinds = sorted(d["kind"] for d in json.loads(register.read_text())["decisions"])
    assert kinds == ["alias", "apart", "apart", "apart", "same"]
    other = str(tmp_path / "other.sqlite")
    source = tmp_path / "more.pgn"
    source.write_text(credits_pgn(("Gasparyan", 1936), ("Sarychev", 1948)), encoding="utf-8")
    run("import", str(source), "--db", other)
    assert run("composers", "import", str(register), "--db", other).startswith("5 new decisions")
    assert run("search", "--composer", "kasparyan", "--count", "--db", other).strip() == "1"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("merge", "Platov", "nobody"), "no composer named 'nobody'"),
        (("merge", "Platov"), "give at least two names or ids"),
        (("split", "Platov"), "'Platov' is the only name of its person"),
    ],
)
def test_bad_decisions_end_with_a_message(db: str, args: tuple[str, ...], message: str) -> None:
    result = runner.invoke(app, ["composers", *args, "--db", db])
    assert result.exit_code in (1, 2)
    assert message in result.output
    assert "Traceback" not in result.output


@pytest.mark.slow
def test_a_bad_register_file_is_a_message_not_a_traceback(db: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    done = subprocess.run(
        [str(STUDYDB), "composers", "import", str(bad), "--db", db], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert done.stderr.startswith(f"studydb: error: {bad}: not a JSON file")


def test_db_before_the_subcommand_is_the_database_used(
    db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``composers --db X merge …`` acts on X, not on $STUDYDB_DB or the default database."""
    elsewhere = tmp_path / "elsewhere.sqlite"
    monkeypatch.setenv("STUDYDB_DB", str(elsewhere))
    register = tmp_path / "club.json"
    run("composers", "--db", db, "merge", "Sarychev", "Sarychev, Kirill")
    run("composers", "--db", db, "split", "Troitski")
    run("composers", "--db", db, "alias", "Gasparyan", "Kasparyan, Genrikh")
    run("composers", "--db", db, "export", str(register))
    kinds = sorted(d["kind"] for d in json.loads(register.read_text())["decisions"])
    assert kinds == ["alias", "apart", "apart", "apart", "same"]
    assert run("composers", "--db", db, "import", str(register)).startswith("0 new decisions")
    assert not elsewhere.exists()
    # Given after the subcommand too, the subcommand's own --db wins over the group's.
    other = str(tmp_path / "other.sqlite")
    run("import", str(CLASSICS), "--db", other)
    run("composers", "--db", other, "export", str(register), "--db", db)
    assert len(json.loads(register.read_text())["decisions"]) == 5
