"""A study's facts are listed once (studydb.facts): show, the study page and the judge's
report give the same labels in the same order, worded the same (#31)."""

from __future__ import annotations

import html
import re
from pathlib import Path

from helpers import REFERENCES
from starlette.testclient import TestClient
from typer.testing import CliRunner

import studydb
from studydb import report
from studydb.cli import app as cli_app
from studydb.db.report import ReportOptions
from studydb.facts import study_facts
from studydb.web.app import create_app

runner = CliRunner()

#: REFERENCES (EG numbers, a note, mate-in-n) and a study with composers and a year, Black
#: to move.
STUDIES = (
    REFERENCES
    + """
[Event "Shakhmaty v SSSR"]
[Composer "Kubbel, Leonid"]
[Date "1922.??.??"]
[Stipulation "="]
[FEN "8/8/8/8/8/2k5/1p6/K7 b - - 0 1"]

1... Kb3 *
"""
)
#: What each form adds of its own (and the report's errors, listed as ``- **Error:** …``).
OWN = {"To move", "Validated", "Imported from", "Soundness", "Moves", "Entry", "Start", "Stored as"}
OWN |= {"Error"}
PAIR = re.compile(r"<dt>(.*?)</dt><dd[^>]*>(.*?)</dd>", re.S)
TAG = re.compile(r"<[^>]+>")
#: The page's asides to a value: "(what is this?)", "(credited as …)".
ASIDE = re.compile(r"\s*<small>.*?</small>", re.S)


def shown_facts(db: str, study_id: int) -> list[tuple[str, str]]:
    """``show``'s labelled lines, from the one after the title to the first blank line
    (without the errors found replaying the moves, ``  ! …``)."""
    lines = runner.invoke(cli_app, ["show", str(study_id), "--db", db]).stdout.splitlines()
    block = [line for line in lines[1 : lines.index("")] if not line.startswith("  ! ")]
    return [tuple(re.split(r" {2,}", line, maxsplit=1)) for line in block]  # type: ignore[misc]


def page_facts(page: str) -> list[tuple[str, str]]:
    """The study page's "About the study" list, as text without the asides."""
    facts = page[page.index('<dl class="facts">') :].split("</dl>")[0]
    return [
        (label, html.unescape(TAG.sub("", ASIDE.sub("", value))))
        for label, value in PAIR.findall(facts)
    ]


def report_facts(markdown: str) -> list[list[tuple[str, str]]]:
    """Each entry's ``- **Label:** value`` lines of the Markdown report."""
    entries = [part for part in markdown.split("\n## ") if re.match(r"\d+\. ", part)]
    return [re.findall(r"^- \*\*(.+?):\*\* (.*)$", entry, re.M) for entry in entries]


def common(facts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(label, value) for label, value in facts if label not in OWN]


def test_show_the_page_and_the_report_list_the_same_facts(db_url: str, tmp_path: Path) -> None:
    pgn = tmp_path / "studies.pgn"
    pgn.write_text(STUDIES, encoding="utf-8")
    db = db_url
    with studydb.open(db) as database:
        assert database.import_paths([pgn]).stored == 4
        ids = [row.id for row in database.search(sort="id")]
        judged = database.report(str(pgn), ReportOptions())
    entries = report_facts(report.to_markdown(judged))
    with (
        studydb.open(db, read_only=True) as served,
        TestClient(create_app(served.engine)) as client,
    ):
        for study_id, in_report in zip(ids, entries, strict=True):
            shown = common(shown_facts(db, study_id))
            page = common(page_facts(client.get(f"/studies/{study_id}").text))
            assert shown == page
            # The report knows fewer of them (no EG, note, material): the same where it does.
            assert common(in_report) == [pair for pair in shown if pair[0] in dict(in_report)]
    stipulations = [dict(common(shown_facts(db, i)))["Stipulation"] for i in ids]
    assert stipulations == [
        "White to play and win",
        "White to play and mate in 8",
        "White to play and mate in 3",
        "Black to play and draw",
    ]


def test_facts_are_those_given_in_one_order() -> None:
    facts = study_facts(
        composers=["Kubbel, Leonid"],
        source="64",
        number="434",
        year=1922,
        eg="1335",
        stipulation="draw",
        white=False,
        gbr="0000.01",
        signature="KvKP",
        fen="8/8/8/8/8/2k5/1p6/K7 b - - 0 1",
    )
    assert [(f.label, f.value) for f in facts] == [
        ("Composers", "Kubbel, Leonid"),
        ("Source", "64"),
        ("Number", "434"),
        ("Year", "1922"),
        ("EG", "EG#01335"),
        ("Stipulation", "Black to play and draw"),
        ("GBR", "0000.01"),
        ("Material", "KvKP (1+2)"),
    ]
    assert [f.key for f in facts][:2] == ["composers", "source"]
    assert study_facts(composer_names="Kubbel")[0].value == "Kubbel"
