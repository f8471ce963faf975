"""``studydb.export``: the serializers behind ``search --format`` and the web downloads."""

from __future__ import annotations

import csv
import doctest
import io
import json

from hypothesis import given
from hypothesis import strategies as st

import studydb.export
from studydb.db.queries import StudyRow
from studydb.export import CSV_COLUMNS, FORMATS, MEDIA_TYPES, study_record
from studydb.soundness.report import StoredCheck

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
        assert record["composers"] == "; ".join(row.composers)
        assert record["source"] == (row.source or "")
        assert record["year"] == ("" if row.year is None else str(row.year))


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
