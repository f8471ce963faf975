"""``studydb.export``: the serializers behind ``search --format`` and the web downloads."""

from __future__ import annotations

import csv
import doctest
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import studydb.export
from studydb.db.search import StudyRow
from studydb.export import CSV_COLUMNS, FORMATS, MEDIA_TYPES, spreadsheet_safe, study_record
from studydb.soundness.verdict import StoredCheck

texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\x00"))
rows = st.builds(
    StudyRow,
    id=st.integers(min_value=1, max_value=10**9),
    gbr=st.just("0300.10"),
    signature=st.just("KPvKR"),
    stipulation=st.sampled_from([None, "win", "draw"]),
    composers=st.lists(texts, max_size=3).map(tuple),
    year=st.one_of(st.none(), st.integers(min_value=1000, max_value=2100)),
    source=st.one_of(st.none(), texts),
    award=st.one_of(st.none(), texts),
    fen=st.just("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"),
    men=st.just(4),
    valid=st.sampled_from([None, True, False]),
    pgn=st.just('[Event "x"]\n\n1. c7 *\n'),
)


@given(st.lists(rows, max_size=5))
def test_json_and_jsonl_round_trip(items: list[StudyRow]) -> None:
    assert json.loads("".join(FORMATS["json"](items))) == [r.as_dict() for r in items]
    lines = "".join(FORMATS["jsonl"](items)).split("\n")[:-1]  # JSON Lines: \n only
    assert [json.loads(line) for line in lines] == [r.as_dict() for r in items]


@given(st.lists(rows, max_size=5))
def test_csv_round_trips(items: list[StudyRow]) -> None:
    table = list(csv.reader(io.StringIO("".join(FORMATS["csv"](items)))))
    assert tuple(table[0]) == CSV_COLUMNS
    for row, line in zip(items, table[1:], strict=True):
        record = dict(zip(CSV_COLUMNS, line, strict=True))
        assert record["id"] == str(row.id)
        assert record["composers"] == spreadsheet_safe("; ".join(row.composers))
        assert record["source"] == spreadsheet_safe(row.source or "")
        assert record["year"] == ("" if row.year is None else str(row.year))


@pytest.mark.parametrize(
    ("given", "written"),
    [
        ("=cmd|'/C calc'!A0", "'=cmd|'/C calc'!A0"),
        ("@SUM(1+1)*cmd|' /C calc'!A0", "'@SUM(1+1)*cmd|' /C calc'!A0"),
        ("+1+1", "'+1+1"),
        ("-2+3", "'-2+3"),
        ("\t=1", "'\t=1"),
        ("Lenin MT 64", "Lenin MT 64"),
        ("64 = chess", "64 = chess"),
        ("", ""),
    ],
)
def test_csv_cells_never_start_a_formula(given: str, written: str) -> None:
    row = StudyRow(
        id=1,
        gbr="0300.10",
        signature="KPvKR",
        stipulation="win",
        composers=(given,),
        year=1895,
        source=given,
        award=given,
        fen="8/8/1KP5/3r4/8/8/8/k7 w - - 0 1",
        men=4,
        valid=True,
    )
    [_, line] = list(csv.reader(io.StringIO("".join(FORMATS["csv"]([row])))))
    record = dict(zip(CSV_COLUMNS, line, strict=True))
    assert (record["source"], record["award"], record["composers"]) == (written,) * 3


@given(st.lists(rows, max_size=5))
def test_pgn_games_are_separated_by_one_blank_line(items: list[StudyRow]) -> None:
    text = "".join(FORMATS["pgn"](items))
    assert text.count('[Event "x"]') == len(items)
    assert "\n\n\n" not in text
    assert text == "\n".join(r.pgn for r in items)


def test_every_format_has_a_media_type() -> None:
    assert set(FORMATS) == set(MEDIA_TYPES)


def test_study_record_drops_the_hash_and_adds_the_notations() -> None:
    record = study_record(
        {"id": 3, "content_hash": "ff", "gbr": "0300.10"}, extended="x", form="+0300.10"
    )
    assert record == {
        "id": 3,
        "gbr": "0300.10",
        "gbr_extended": "x",
        "stipulation_form": "+0300.10",
        "check": None,
    }
    stored = StoredCheck("win", verdict="sound", study_id=3, settings="abc")
    checked = study_record({"id": 3}, extended="x", form=None, check=stored)
    assert checked["check"]["verdict"] == "sound" and checked["check"]["study_id"] == 3
    assert checked["check"] == json.loads(json.dumps(checked["check"]))


def test_doctests() -> None:
    result = doctest.testmod(studydb.export)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.slow
def test_search_csv_from_the_installed_script_writes_no_formula(tmp_path: Path) -> None:
    pgn = tmp_path / "hostile.pgn"
    pgn.write_text(
        "[Event \"@SUM(1+1)*cmd|' /C calc'!A0\"]\n[White \"=cmd|' /C calc'!A0\"]\n"
        '[Black "+0300.10"]\n[Source "=HYPERLINK(\\"http://x\\")"]\n'
        '[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n[SetUp "1"]\n\n1. c7 *\n',
        encoding="utf-8",
    )
    db = str(tmp_path / "studies.sqlite")
    studydb = Path(sys.executable).with_name("studydb")
    subprocess.run([studydb, "import", str(pgn), "--db", db], check=True, capture_output=True)
    out = subprocess.run(
        [studydb, "search", "--db", db, "--format", "csv"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    [record] = list(csv.DictReader(io.StringIO(out)))
    assert record["composers"].startswith("'=cmd|'")
    assert record["source"].startswith("'=HYPERLINK(")
    assert all(not value.startswith(("=", "+", "-", "@")) for value in record.values())


def test_pgn_keeps_each_games_line_ends() -> None:
    """A game read with CR LF (or CR) line ends ended its export with an LF."""
    from types import SimpleNamespace as Row

    from studydb.export import pgn_games, pgn_text

    crlf, cr, open_end = '[Event "a"]\r\n\r\n*\r\n', '[Event "b"]\r\r*\r', '[Event "c"]\n\n*'
    assert [pgn_text(crlf), pgn_text(cr), pgn_text(open_end)] == [crlf, cr, open_end + "\n"]
    out = "".join(pgn_games([Row(pgn=crlf), Row(pgn=cr), Row(pgn=open_end)]))
    assert out == crlf + "\r\n" + cr + "\r" + open_end + "\n"
