"""Text from the data never drives the terminal (studydb.terminal, and every printing command).

``tests/fixtures/escapes.pgn`` holds a study whose tags and comments carry OSC 0
(window title), CSI 2J (clear screen), SGR 8 (hidden text), OSC 8 (a hyperlink
to evil.example), a BEL, a C1 CSI and Rich markup, and a game rejected with
an escape in its FEN (the reason quotes it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import ROOT, STUDYDB, command_id, run_on_terminal
from typer.testing import CliRunner

from studydb.cli import app
from studydb.terminal import has_control, visible

runner = CliRunner()
ESCAPES = ROOT / "tests" / "fixtures" / "escapes.pgn"
#: What our own styling writes on a terminal: SGR colour and weight sequences only.
OUR_SGR = re.compile(r"\x1b\[[0-9;]*m")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain", "plain"),
        ("tab\tand\nnewline", "tab\tand\nnewline"),
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
        ("\x1b[2J", "\\x1b[2J"),
        ("nul\x00 del\x7f", "nul\\x00 del\\x7f"),
        ("carriage\rreturn", "carriage\\x0dreturn"),
        ("c1 csi\x9b31m", "c1 csi\\x9b31m"),
        ("Réti Троицкий ♔", "Réti Троицкий ♔"),
        ("right\u202eto left", "right\\u202eto left"),  # reorders the line on screen
        ("isolate\u2066x\u2069", "isolate\\u2066x\\u2069"),
        ("שמואל‏ mark", "שמואל‏ mark"),  # a right-to-left mark moves nothing else: kept
    ],
)
def test_visible_writes_control_characters_as_escapes(text: str, shown: str) -> None:
    assert visible(text) == shown
    assert has_control(text) == (text != shown)
    assert not has_control(visible(text))


#: The bidirectional embeddings, overrides and isolates, written out here, not taken from
#: the module under test.
BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


@pytest.fixture
def escapes_db(tmp_path: Path) -> str:
    db = str(tmp_path / "escapes.sqlite")
    result = runner.invoke(app, ["import", str(ESCAPES), "--db", db, "--positions", "none"])
    assert result.exit_code == 0, result.output
    runner.invoke(app, ["import", str(ESCAPES), "--db", db])  # a second copy: a version group
    return db


def assert_inert(output: str) -> None:
    """No control character but newline and tab, and the data's escapes made visible; no
    bidirectional control either (the fixture's Event holds U+202E)."""
    assert not has_control(output), repr(output)
    assert not BIDI.search(output), repr(output)


@pytest.mark.parametrize(
    "args",
    [
        ["show", "1"],
        ["search"],
        ["search", "--composer", "troitzky"],
        ["stats"],
        ["composers"],
        ["rejects"],
        ["themes"],
        ["report", str(ESCAPES)],
    ],
    ids=command_id,
)
def test_no_command_prints_the_data_s_control_characters(escapes_db: str, args: list[str]) -> None:
    result = runner.invoke(app, [*args, "--db", escapes_db])
    # the file's second entry has no usable start position: report names it, exit 1
    assert result.exit_code == (1 if args[0] == "report" else 0), result.output
    assert_inert(result.output)


def test_data_is_never_rich_markup(escapes_db: str) -> None:
    for args in (["search"], ["show", "1"], ["composers"], ["stats"]):
        output = runner.invoke(app, [*args, "--db", escapes_db]).output
        assert "[link=http://evil.example]" in output.replace("\n", "").replace(" ", ""), args
        assert "[bold red]" in output.replace("\n", " "), args


def test_data_formats_keep_their_own_escaping(escapes_db: str) -> None:
    """JSON and PGN are data: the tag values come back exactly as imported."""
    rows = json.loads(runner.invoke(app, ["search", "-f", "json", "--db", escapes_db]).stdout)
    assert "\x1b[8mhidden\x1b[0m \x1b]8;;http://evil.example" in rows[0]["source"]
    pgn = runner.invoke(app, ["search", "-f", "pgn", "--db", escapes_db]).stdout
    assert "\x1b[2J" in pgn


def test_an_error_quoting_the_input_shows_its_escapes(tmp_path: Path) -> None:
    result = runner.invoke(app, ["gbr", "encode", "8/8/8/8/8/8/8/K6\x1b[2J w - - 0 1"])
    assert result.exit_code == 1
    assert "\\x1b[2J" in result.output and "\x1b" not in result.output


@pytest.mark.slow
@pytest.mark.parametrize("args", [["show", "1"], ["search"]], ids=" ".join)
def test_a_real_terminal_gets_only_our_own_styles(escapes_db: str, args: list[str]) -> None:
    """Through the installed script on a pseudo-terminal, as a user sees it."""
    code, shown, _ = run_on_terminal([str(STUDYDB), *args, "--db", escapes_db], stream="stdout")
    assert code == 0, shown
    rest = OUR_SGR.sub("", shown).replace("\r", "")
    assert_inert(rest)
    assert "\\x1b" in rest  # the data's escapes, visible
    assert "\x1b]8;" not in shown and "\x07" not in shown  # no hyperlink, no bell
