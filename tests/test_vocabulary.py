"""The names studydb uses, defined once (studydb.vocabulary), and what reads them."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from studydb import filters, report
from studydb import vocabulary as verdicts
from studydb.cli import app

ROOT = Path(__file__).resolve().parent.parent


def test_one_list_without_python_chess() -> None:
    code = "import sys, studydb.vocabulary; print('chess' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
    assert set(verdicts.MEANINGS) == set(verdicts.BADGE_COLOURS) == set(verdicts.VERDICTS)


def test_help_texts_and_badges_name_every_verdict() -> None:
    def help_of(command: str) -> str:
        return " ".join(CliRunner().invoke(app, [command, "--help"]).stdout.split())

    check_help = help_of("check")
    filter_help = filters.spec_named("verdict").help
    css = verdicts.badge_css()
    for verdict in verdicts.VERDICTS:
        assert f"{verdict}: {verdicts.MEANINGS[verdict]}." in check_help
        assert verdict in filter_help
        back, text = verdicts.BADGE_COLOURS[verdict]
        assert f".verdict-{verdict} {{ background: {back}; color: {text}; }}" in css
        assert f"background:{back};color:{text}" in report._badge(verdict)


def _readme_table(header: str) -> list[str]:
    """The first column's names (each ``name`` in backquotes) of the README's table under
    ``header``."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index(header) + 2
    rows = itertools.takewhile(lambda line: line.startswith("|"), lines[start:])
    return [name for row in rows for name in re.findall(r"`([^`]+)`", row.split("|")[1])]


def test_the_readme_tables_name_every_verdict_and_theme_in_order() -> None:
    """The README's tables explain the verdicts and themes at more length, but name the
    vocabulary's, in its order."""
    assert _readme_table("| verdict | meaning |") == list(verdicts.VERDICTS)
    assert _readme_table("| theme | rule |") == list(verdicts.THEMES)
