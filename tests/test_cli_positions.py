"""``studydb index``, ``anticipate``, ``versions``, and the position options of search/show."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import chess
import pytest
from helpers import AFTER_KB5, ILLEGAL, LATER, MIRRORED, SAAVEDRA, STUDYDB, VERSION, write
from typer.testing import CliRunner

from studydb.cli import app

runner = CliRunner()


def run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture
def db(db_url: str, tmp_path: Path) -> str:
    path = write(tmp_path / "s.pgn", SAAVEDRA, MIRRORED, ILLEGAL, VERSION)
    run("import", str(path), "--db", db_url, "--jobs", "1", "--positions", "none")
    return db_url


def test_index_then_search_position_every_format(db: str) -> None:
    summary = json.loads(run("index", "--db", db, "--format", "json"))
    assert (summary["studies"], summary["positions"], summary["invalid"]) == (4, 16 + 4 + 5 + 16, 1)
    assert json.loads(run("index", "--db", db, "--format", "json"))["studies"] == 0
    table = run("search", "--db", db, "--position", AFTER_KB5)
    assert "after 2.Kb5" in table and "ply 3 (after 2.)" not in table
    rows = json.loads(run("search", "--db", db, "--position", AFTER_KB5, "-f", "json"))
    assert [r["occurrences"] for r in rows] == [
        [{"ply": 3, "move": "2.Kb5", "main": True, "node": 3, "variation": ""}]
    ] * 2
    lines = run("search", "--db", db, "--position", AFTER_KB5, "--similar", "-f", "jsonl")
    assert len([json.loads(line) for line in lines.splitlines()]) == 3
    assert run("search", "--db", db, "--reaches", "KRvKR", "--count").strip() == "2"
    # Mirror ends in K+P v K+R (0300.10): found from the colour-reversed code only with -z.
    assert run("search", "--db", db, "--ends-in", "0100.01", "--count").strip() == "0"
    assert run("search", "--db", db, "--ends-in", "0100.01", "-z", "--count").strip() == "1"


def test_index_reindex_selection(db: str) -> None:
    run("index", "--db", db)
    again = json.loads(
        run("index", "--db", db, "--composer", "copy", "--reindex", "--format", "json")
    )
    assert (again["studies"], again["positions"]) == (1, 4)


def test_index_says_which_studies_it_failed_on_and_exits_1(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error of studydb's own on one study stopped the index with a traceback; the
    others are indexed now, that one is named, left as it was, and the exit status is 1."""
    from studydb.db import index

    real = index.index_game
    mirrored = re.search(r'FEN "([^"]+)"', MIRRORED)
    assert mirrored is not None

    def broken(movetext: str, fen: str, **options: object) -> object:
        if fen == mirrored[1]:
            raise RuntimeError("no such case \x1b[31m")
        return real(movetext, fen, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(index, "index_game", broken)
    result = runner.invoke(app, ["index", "--db", db, "--format", "json"])
    assert result.exit_code == 1
    summary = json.loads(result.stdout)
    reason = "studydb failed on this game (an error of its own: please report it)"
    assert (summary["studies"], summary["failures"]) == (
        3,
        [f"study 2: {reason}: RuntimeError: no such case \x1b[31m"],
    )
    assert (
        result.stderr
        == f"studydb: error: study 2: {reason}: RuntimeError: no such case \\x1b[31m\n"
    )
    monkeypatch.setattr(index, "index_game", real)
    assert json.loads(run("index", "--db", db, "--format", "json"))["studies"] == 1


def test_anticipate_files_and_ids_every_format(db: str, tmp_path: Path) -> None:
    run("index", "--db", db)
    entry = write(tmp_path / "entries.pgn", LATER)
    text = run("anticipate", str(entry), "--db", db, "--min-men", "4")
    assert "2 studies share positions, up to 1960" in text
    assert "first after 1.Kb5" in text and "♔" in text
    assert "after 1.Kb5 (main line) = its position after 2.Kb5 (main line)" in text
    reports = json.loads(
        run("anticipate", str(entry), "1", "--db", db, "--min-men", "4", "-f", "json")
    )
    assert [r["game"] for r in reports] == [f"{entry}:1", "study 1"]
    assert [a["id"] for a in reports[0]["anticipations"]] == [1, 4]
    assert reports[0]["anticipations"][0]["shared"][0] == {
        "ply": 1,
        "main": True,
        "other_ply": 3,
        "other_main": True,
        "fen": AFTER_KB5.replace(" 0 1", " 1 1"),
        "colour_reversed": False,
        "other_node": 3,
        "move": "1.Kb5",
        "other_move": "2.Kb5",
        "transformation": "",
    }
    # Study 1 (1895): its own version (also 1895) is listed, order unknown.
    assert [(a["id"], a["same_year"]) for a in reports[1]["anticipations"]] == [(4, True)]
    assert "same year, order unknown" in run("anticipate", "1", "--db", db, "--min-men", "4")
    lines = run("anticipate", "1", "--db", db, "--min-men", "4", "--before", "2000", "-f", "jsonl")
    (report,) = [json.loads(line) for line in lines.splitlines()]
    assert [a["id"] for a in report["anticipations"]] == [4]


def test_anticipate_says_a_game_under_min_men_was_not_compared(db: str, tmp_path: Path) -> None:
    # A 4-man entry said "0 studies share positions" at --min-men 5: none of its positions
    # was looked up (men are never added), and the Saavedra shares all of them.
    run("index", "--db", db)
    entry = write(tmp_path / "entries.pgn", LATER)
    text = run("anticipate", str(entry), "--db", db)
    assert (
        text == f"{entry}:1: no position compared: it starts with 4 men, fewer than --min-men 5\n"
    )
    (record,) = json.loads(run("anticipate", str(entry), "--db", db, "-f", "json"))
    assert (record["compared"], record["studies"], record["anticipations"]) == (False, None, [])
    (record,) = json.loads(
        run("anticipate", str(entry), "--db", db, "--min-men", "4", "-f", "json")
    )
    assert (record["compared"], record["studies"]) == (True, 2)


def test_anticipate_says_which_files_held_no_game(db: str, tmp_path: Path) -> None:
    # A file of no game printed nothing at all, as if it had been checked.
    empty, entry = write(tmp_path / "empty.pgn", ""), write(tmp_path / "entries.pgn", LATER)
    result = runner.invoke(app, ["anticipate", str(empty), str(entry), "1", "--db", db])
    assert result.exit_code == 0
    assert f"{entry}:1: " in result.stdout and "study 1: " in result.stdout
    assert result.stderr == f"studydb: note: {empty} holds no game\n"


def test_show_node_prints_the_moves_that_reach_it(db: str) -> None:
    run("index", "--db", db)
    shown = run("show", "1", "--db", db, "--node", "5")  # 2. Kc5 Rd1, the variation
    assert "Node 5, ply 4 (variation): 1. c7 Rd6+ 2. Kc5 Rd1" in shown
    data = json.loads(run("show", "1", "--db", db, "--node", "3", "-f", "json"))
    assert data["reached"] == {
        "node": 3,
        "ply": 3,
        "main": True,
        "moves": "1. c7 Rd6+ 2. Kb5",
        "fen": AFTER_KB5.replace(" 0 1", " 2 2"),
    }
    result = runner.invoke(app, ["show", "1", "--db", db, "--node", "99"])
    assert result.exit_code == 1
    assert "study 1 has no node 99: its nodes are 0 to 15" in result.output


def test_versions_and_show(db: str) -> None:
    run("index", "--db", db)
    groups = json.loads(run("versions", "--db", db, "-f", "json"))
    assert [[m["id"] for m in g] for g in groups] == [[1, 4]]
    lines = run("versions", "--db", db, "--similar", "-f", "jsonl").splitlines()
    assert [sorted(m["id"] for m in json.loads(line)) for line in lines] == [[1, 2, 4]]
    assert "4 studies in 1 groups" not in run("versions", "--db", db)
    # The Saavedra has 4 men: none of its positions is compared at --min-men 5.
    shown = run("show", "1", "--db", db)
    assert "Shares positions: no position compared: it starts with 4 men" in shown
    assert "with 0 other studies" not in shown
    data = json.loads(run("show", "1", "--db", db, "-f", "json"))
    assert (data["shares_positions_with"], data["compared"]) == (None, False)
    shown = run("show", "1", "--db", db, "--anticipations", "--min-men", "4")
    assert "Shares positions (4+ men) with 1 other study" in shown
    assert "study 4" in shown and "Version: study 4" in shown
    data = json.loads(run("show", "1", "--db", db, "-f", "json", "--min-men", "4"))
    assert (data["shares_positions_with"], data["compared"]) == (1, True)
    assert [m["id"] for m in data["versions"]] == [4]


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["search", "--position", "nonsense"], 2, "bad FEN 'nonsense'"),
        (["search", "--reaches", "03x?"], 2, "--reaches"),
        (["anticipate", "/no/such.pgn"], 1, "/no/such.pgn"),
        (["anticipate", "999"], 1, "no study with id 999"),
        (["index", "--batch-size", "99999999999999999999999"], 2, "maximum 100000"),
        (["index", "--batch-size", "100001"], 2, "maximum 100000"),
        (["index", "--jobs", "10" * 12], 2, "maximum 256"),
        (["index", "--jobs", "257"], 2, "maximum 256"),
        (["anticipate", "1", "--before", "1" + "0" * 40], 2, "maximum 9999"),
        (["anticipate", "1", "--min-men", "33"], 2, "maximum 32"),
        (["anticipate", "1", "--limit", "1" + "0" * 30], 2, "maximum 1000000"),
        (["show", "1", "--min-men", "1" + "0" * 30], 2, "maximum 32"),
    ],
)
def test_bad_input_is_a_clear_error(db: str, args: list[str], code: int, message: str) -> None:
    result = runner.invoke(app, [*args, "--db", db])
    assert result.exit_code == code, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_bad_fen_in_an_entry_names_file_and_line(db: str, tmp_path: Path) -> None:
    entry = write(tmp_path / "bad.pgn", '[Event "x"]\n[FEN "8/8/8/8/8/8/8/9 w - - 0 1"]\n\n*\n')
    result = runner.invoke(app, ["anticipate", str(entry), "--db", db])
    assert result.exit_code == 1
    assert f"{entry}:1: bad FEN" in result.output


@pytest.mark.slow
def test_installed_script_end_to_end(tmp_path: Path) -> None:
    db = str(tmp_path / "s.sqlite")
    entries = write(tmp_path / "entries.pgn", LATER)
    studies = write(tmp_path / "s.pgn", SAAVEDRA, MIRRORED, VERSION)

    def script(*args: str) -> str:
        done = subprocess.run(
            [str(STUDYDB), *args, "--db", db], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    script("import", str(studies), "--positions", "none", "--jobs", "1")
    assert json.loads(script("index", "--format", "json", "--jobs", "2"))["studies"] == 3
    found = json.loads(
        script("search", "--position", AFTER_KB5, "--similar", "--sort", "id", "-f", "json")
    )
    assert [r["id"] for r in found] == [1, 2, 3]
    reversed_fen = chess.Board(AFTER_KB5).mirror().fen()
    assert script("search", "--position", reversed_fen, "--count").strip() == "0"
    assert script("search", "--position", reversed_fen, "-z", "--count").strip() == "2"
    report = json.loads(script("anticipate", str(entries), "--min-men", "4", "-f", "jsonl"))
    assert [a["id"] for a in report["anticipations"]] == [1, 3]
    assert [[m["id"] for m in g] for g in json.loads(script("versions", "-f", "json"))] == [[1, 3]]


@pytest.mark.parametrize("kind", ["rank", "id"])
def test_anticipate_meets_hostile_input(db_url: str, tmp_path: Path, kind: str) -> None:
    """A 5,000-digit award rank, an id beyond any integer column: a message, exit 1 (#26)."""
    path = tmp_path / "rank.pgn"
    path.write_text(
        f'[Award "{"9" * 5000}th prize"]\n[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n1. c7 *\n',
        encoding="utf-8",
    )
    runner.invoke(app, ["import", str(write(tmp_path / "s.pgn", SAAVEDRA)), "--db", db_url])
    argument = str(path) if kind == "rank" else "99999999999999999999999"
    result = runner.invoke(app, ["anticipate", argument, "--db", db_url])
    assert result.exit_code == 1, result.output
    expected = f"{path}:1: unreadable header" if kind == "rank" else "no study with id 9999"
    assert expected in result.output and "Traceback" not in result.output


def test_versions_text_shows_a_page_of_a_large_group(tmp_path: Path) -> None:
    """25 studies with one start: the table lists the 20 oldest and says how many more."""
    db = str(tmp_path / "v.sqlite")
    copies = [SAAVEDRA.replace("Glasgow Weekly Citizen", f"Copy {n}") for n in range(25)]
    run("import", str(write(tmp_path / "copies.pgn", *copies)), "--db", db)
    text = run("versions", "--db", db)
    assert "25 studies in 1 group share a start position" in text
    assert "… and 5 more in this group (--format json lists them all)" in text
    assert len(json.loads(run("versions", "--db", db, "-f", "json"))[0]) == 25


def test_anticipate_says_which_stored_studies_were_not_compared(tmp_path: Path) -> None:
    # The classics indexed, Troitzky's two versions not (--positions none): `anticipate
    # 12` said "0 studies share positions", though study 26 shares 12.
    data = Path(__file__).resolve().parent.parent / "data"
    path = str(tmp_path / "studies.sqlite")
    for args in (["--positions", "studies", str(data / "classics.pgn")],
                 ["--positions", "none", str(data / "versions.pgn")]):  # fmt: skip
        result = runner.invoke(app, ["import", *args, "--db", path])
        assert result.exit_code == 0, result.output
    note = (
        "studydb: note: 2 stored studies of 5+ men are not in the position index and were"
        " not compared: studydb index indexes them\n"
    )
    for args in (["anticipate", "12"], ["anticipate", "12", "-f", "json"]):
        result = runner.invoke(app, [*args, "--db", path])
        assert result.exit_code == 0, result.output
        assert result.stderr == note, args
    one = runner.invoke(app, ["anticipate", "26", "--db", path])  # itself left out
    assert "1 stored study of 5+ men is not in the position index and was" in one.stderr
    assert runner.invoke(app, ["index", "--db", path]).exit_code == 0
    result = runner.invoke(app, ["anticipate", "12", "--db", path])
    assert result.stderr == "" and "1 study shares positions" in result.stdout


def test_anticipate_refuses_what_import_rejects_as_no_game(tmp_path: Path) -> None:
    # Binary junk was "junk.pgn:1: 0 studies share positions" (the initial position), exit 0.
    path = tmp_path / "junk.pgn"
    path.write_bytes(b"\x00\x01binary\n")
    db = str(tmp_path / "studies.sqlite")
    data = Path(__file__).resolve().parent.parent / "data"
    assert runner.invoke(app, ["import", str(data / "classics.pgn"), "--db", db]).exit_code == 0
    result = runner.invoke(app, ["anticipate", str(path), "--db", db])
    assert result.exit_code == 1, result.output
    assert f"{path}:1: NUL byte in the game text at line 1" in result.stderr
    assert "share" not in result.stdout
