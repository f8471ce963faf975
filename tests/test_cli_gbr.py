"""Tests for the ``studydb gbr`` commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from helpers import STUDYDB
from typer.testing import CliRunner

from studydb.cli import app

SAAVEDRA = "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"
KUBBEL = "6n1/8/2p4P/8/8/r1p3K1/B7/4B1k1 w - - 0 1"
CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"

runner = CliRunner()


def run(*args: str, input: str | None = None):
    return runner.invoke(app, ["gbr", *args], input=input)


def test_encode_arguments() -> None:
    result = run("encode", SAAVEDRA, KUBBEL)
    assert result.exit_code == 0, result.output
    assert result.stdout == "0300.10\n0323.12\n"


def test_encode_stdin_skips_blank_lines() -> None:
    result = run("encode", input=f"{SAAVEDRA}\n\n  \n{KUBBEL}\n")
    assert result.exit_code == 0, result.output
    assert result.stdout == "0300.10\n0323.12\n"


def test_encode_extended() -> None:
    result = run("encode", "--extended", SAAVEDRA, KUBBEL)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "b6a1 0300.10 d5.c6 2/2",
        "g3g1 0323.12 a3a2e1g8.h6c3c6 4/5",
    ]


def test_encode_bad_lines_keep_good_ones() -> None:
    result = run("encode", input=f"{SAAVEDRA}\nnonsense\n8/8/8/8/8/8/8/8 w - - 0 1\n{KUBBEL}\n")
    assert result.exit_code == 1
    assert result.stdout == "0300.10\n0323.12\n"
    assert "line 2: invalid FEN 'nonsense'" in result.stderr
    assert "line 3: invalid position" in result.stderr
    assert "White has 0 kings" in result.stderr


def test_encode_bad_argument() -> None:
    result = run("encode", SAAVEDRA, "8/8/8/8/8/8/8/K5k w - - 0 1")
    assert result.exit_code == 1
    assert result.stdout == "0300.10\n"
    assert "argument 2: invalid FEN" in result.stderr


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_encode_json(fmt: str) -> None:
    result = run("encode", "--format", fmt, input=f"{SAAVEDRA}\nbad\n")
    assert result.exit_code == 1
    if fmt == "json":
        records = json.loads(result.stdout)
    else:
        records = [json.loads(line) for line in result.stdout.splitlines()]
    assert records[0] == {
        "input": SAAVEDRA,
        "source": "line 1",
        "gbr": "0300.10",
        "signature": "KPvKR",
        "extended": "b6a1 0300.10 d5.c6 2/2",
        "men": 4,
        "error": None,
    }
    assert records[1]["input"] == "bad"
    assert records[1]["gbr"] is None
    assert "invalid FEN 'bad'" in records[1]["error"]


def test_encode_json_all_good_exits_zero() -> None:
    result = run("encode", "--format", "json", SAAVEDRA)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["gbr"] == "0300.10"


def test_encode_pgn(tmp_path: Path) -> None:
    pgn = tmp_path / "studies.pgn"
    pgn.write_text(
        f'[Event "Saavedra"]\n[SetUp "1"]\n[FEN "{SAAVEDRA}"]\n\n1. c7 *\n\n'
        '[Event "no fen"]\n\n1. e4 *\n\n'
        f'[Event "Kubbel"]\n[FEN "{KUBBEL}"]\n\n*\n\n'
        '[Event "broken"]\n[FEN "8/8/8 w - - 0 1"]\n\n*\n'
    )
    result = run("encode", "--pgn", str(pgn))
    assert result.exit_code == 1
    assert result.stdout == "0300.10\n4888.88\n0323.12\n"
    assert f"{pgn}:16: invalid FEN" in result.stderr


def test_encode_pgn_missing_file(tmp_path: Path) -> None:
    result = run("encode", "--pgn", str(tmp_path / "nope.pgn"))
    assert result.exit_code == 2
    assert "no such file" in result.output
    folder = run("encode", "--pgn", str(tmp_path))
    assert folder.exit_code == 2 and "is a folder, not a PGN file" in folder.output
    empty = run("encode", "--pgn", "")  # "$FILE" unset: it said " is a folder"
    assert empty.exit_code == 2 and "an empty path names no file" in empty.output


def test_encode_pgn_gives_no_code_for_what_import_rejects_as_no_game(tmp_path: Path) -> None:
    # Binary junk was "4888.88" (the initial position), exit 0; so was an antichess game.
    path = tmp_path / "junk.pgn"
    path.write_bytes(
        b"\x00\x01binary\n\n"
        b'[Event "a"]\n[Variant "Antichess"]\n\n1. e3 *\n\n'
        + f'[Event "b"]\n[FEN "{SAAVEDRA}"]\n\n1. c7 *\n'.encode()
    )
    result = run("encode", "--pgn", str(path))
    assert result.exit_code == 1, result.output
    assert result.stdout == "0300.10\n"
    assert result.stderr.splitlines() == [
        f"--pgn: {path}:1: NUL byte in the game text at line 1",
        f"--pgn: {path}:3: unsupported variant 'Antichess': no GBR code for it",
    ]


def test_encode_pgn_reads_standard_input_and_a_fifo(tmp_path: Path) -> None:
    # A FIFO, <(…) or /dev/stdin was "no such file: /dev/fd/63" (exit 2), and '-' too.
    game = f'[Event "x"]\n[FEN "{SAAVEDRA}"]\n\n1. c7 *\n'
    piped = run("encode", "--pgn", "-", input=game)
    assert piped.exit_code == 0, piped.output
    assert piped.stdout == "0300.10\n"
    fifo = tmp_path / "studies.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_text, args=(game,), daemon=True)
    writer.start()
    try:
        result = run("encode", "--pgn", str(fifo))
    finally:
        writer.join(timeout=10)
    assert result.exit_code == 0, result.output
    assert result.stdout == "0300.10\n"


@pytest.mark.skipif(
    not CORPUS.is_dir() and os.environ.get("CI") != "true", reason="../shared absent"
)
def test_encode_pgn_corpus() -> None:
    result = run(
        "encode", "--pgn", str(CORPUS / "studies" / "Alekhine, Alexander Alexandrovich.pgn")
    )
    assert result.exit_code == 0, result.output
    codes = result.stdout.splitlines()
    assert codes and all(len(code) == 7 and code[4] == "." for code in codes)


@pytest.mark.skipif(
    not CORPUS.is_dir() and os.environ.get("CI") != "true", reason="../shared absent"
)
def test_encode_pgn_counts_games_like_pgn_extract() -> None:
    """Endgame Selection.pgn holds 11 games; python-chess's reader makes 21 of them."""
    result = run("encode", "--pgn", str(CORPUS / "studies" / "Endgame Selection.pgn"))
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 11


def test_encode_pgn_truncated_gzip(tmp_path: Path) -> None:
    import gzip

    games = "".join(f'[Event "{i}"]\n[FEN "{SAAVEDRA}"]\n\n1. c7 *\n\n' for i in range(50))
    data = gzip.compress(games.encode())
    path = tmp_path / "cut.pgn.gz"
    path.write_bytes(data[: len(data) // 2])
    result = run("encode", "--pgn", str(path))
    assert result.exit_code == 1
    assert result.stdout == ""  # nothing of unverified data is read (issue 27)
    assert "cut.pgn.gz: truncated or damaged gzip file" in result.stderr
    assert "none of it was read" in result.stderr


def test_usage_error_exit_2() -> None:
    result = run("encode", "--format", "xml", SAAVEDRA)
    assert result.exit_code == 2
    assert "'xml' is not one of" in result.output
    assert run("encode", "--bogus").exit_code == 2
    assert run("decode").exit_code == 2


def test_decode_text() -> None:
    result = run("decode", "0300.10", "0009.00", "4100")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "0300.10  KPvKR" in out
    assert "White: king, pawn" in out
    assert "Black: king, rook" in out
    assert "Men:   4" in out
    assert "Flipped (colours swapped): 0100.01  KRvKP" in out
    assert "knights: three or more on at least one side, split unknown" in out
    assert "pawns: unspecified" in out


def test_decode_stipulation_form_and_signature() -> None:
    result = run("decode", "=0323.12g3g1", "KRPvKR")
    assert result.exit_code == 0, result.output
    assert "White to play and draw" in result.stdout
    assert "Kings: White g3, Black g1" in result.stdout
    assert "0400.10  KRPvKR" in result.stdout


@pytest.mark.parametrize("material", ["KRP v KR", "KRPKR", "R+P v R", "rook and pawn versus rook"])
def test_decode_reads_material_as_people_write_it(material: str) -> None:
    result = run("decode", material)
    assert result.exit_code == 0, result.output
    assert "0400.10  KRPvKR" in result.stdout


def test_decode_errors() -> None:
    result = run("decode", "0300.10", "03a0.10", "12345")
    assert result.exit_code == 1
    assert "0300.10  KPvKR" in result.stdout
    assert "argument 2: malformed GBR code '03a0.10'" in result.stderr
    assert "argument 3: malformed GBR code '12345'" in result.stderr


def test_decode_json() -> None:
    result = run("decode", "--format", "jsonl", "0300.10", "0300.1")
    assert result.exit_code == 1
    good, bad = (json.loads(line) for line in result.stdout.splitlines())
    assert good["gbr"] == "0300.10"
    assert good["signature"] == "KPvKR"
    assert good["white"] == {"q": 0, "r": 0, "b": 0, "n": 0, "p": 1}
    assert good["flipped"] == "0100.01"
    assert good["men"] == 4
    assert good["error"] is None
    assert bad["gbr"] is None and "expected 2 pawn digits" in bad["error"]


def test_position_text() -> None:
    result = run("position", "g3g1 0323.12 a3a2e1g8.h6c3c6 4/5=")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == KUBBEL
    assert lines[1] == "0323.12  KBBPvKRNPP  White to play and draw"
    assert lines[2] == "8 · · · · · · ♞ ·"
    assert lines[-1] == "  a b c d e f g h"


def test_position_words_ascii_black() -> None:
    result = run("position", "--ascii", "--black", "b6a1", "0300.10", "d5.c6", "2/2")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "8/8/1KP5/3r4/8/8/8/k7 b - - 0 1"
    assert "6 . K P . . . . ." in lines


def test_position_errors() -> None:
    result = run("position", "b6a1 0300.10 d5.c6 3/2")
    assert result.exit_code == 1
    assert "argument 1: bad extended GBR" in result.stderr
    assert "control count 3/2 disagrees" in result.stderr
    result = run("position", "b6a1 0009.00 d5e5f5")
    assert result.exit_code == 1
    assert "9 digit" in result.stderr


def test_position_json() -> None:
    result = run("position", "--format", "json", "b6a1 0300.10 d5.c6 2/2", "b6a1 0300.10 d5.d5")
    assert result.exit_code == 1
    good, bad = json.loads(result.stdout)
    assert good["fen"] == SAAVEDRA
    assert good["gbr"] == "0300.10" and good["signature"] == "KPvKR"
    assert good["error"] is None
    assert "used twice" in bad["error"]


def test_help_has_examples() -> None:
    for command in ("encode", "decode", "position"):
        result = run(command, "--help")
        assert result.exit_code == 0, result.output
        assert f"studydb gbr {command}" in result.stdout


def test_installed_script_reads_stdin() -> None:
    done = subprocess.run(
        [str(STUDYDB), "gbr", "encode"],
        input=f"{SAAVEDRA}\nbad\n{KUBBEL}\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stdout == "0300.10\n0323.12\n"
    assert done.stderr.startswith("line 2: invalid FEN 'bad'")


def test_encode_does_not_import_database_or_pydantic() -> None:
    code = (
        "import sys\n"
        f"sys.argv = ['studydb', 'gbr', 'encode', {SAAVEDRA!r}]\n"
        "from studydb.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('sqlalchemy', 'alembic', 'chess.pgn', 'pydantic', 'rich',"
        " 'starlette', 'jinja2', 'uvicorn')"
        " if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "0300.10" in done.stdout
    assert "HEAVY []" in done.stdout


def test_encode_strips_a_bom_on_stdin() -> None:
    # Windows tools write a BOM first: the first FEN must still be read.
    result = subprocess.run(
        [str(STUDYDB), "gbr", "encode"],
        input="\ufeff8/8/1KP5/3r4/8/8/8/k7 w - - 0 1\n".encode(),
        capture_output=True,
        check=False,
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, b"0300.10\n", b"")


def test_encode_quotes_a_prefix_of_a_huge_bad_line() -> None:
    # A 5 MB line is quoted once, cut at 80 characters, with its length.
    result = subprocess.run(
        [str(STUDYDB), "gbr", "encode"],
        input=b"x" * 5_000_000 + b"\n",
        capture_output=True,
        check=False,
    )
    assert result.returncode == 1
    assert len(result.stderr) < 400, len(result.stderr)
    assert b"(5,000,000 characters)" in result.stderr
    assert result.stderr.count(b"x" * 80) == 1
