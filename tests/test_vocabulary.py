"""The names studydb uses, defined once (studydb.vocabulary), and what reads them."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from studydb import filters, report
from studydb import vocabulary as verdicts
from studydb.cli import app


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
