"""Searching (studydb.db.search): sort orders, pages, the rows and one study, on both engines."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

import pytest
from helpers import GAMES, REFERENCES, database_on, import_text, names_of
from sqlalchemy import Engine, select

from studydb.db.connect import open_database
from studydb.db.importer import import_paths
from studydb.db.models import Study
from studydb.db.search import StoredStudy, count, fetch_study, search
from studydb.db.stats import stats
from studydb.errors import QueryError
from studydb.filters import Filters


def test_sort_orders(collection: Engine) -> None:
    by_gbr = list(search(collection, sort="gbr"))
    assert [(r.gbr, r.year or 9999) for r in by_gbr] == sorted(
        (r.gbr, r.year or 9999) for r in by_gbr
    )
    # gbr, then year: the three 0009.00 studies by year
    assert names_of(collection, Filters(material=("0009",))) == [
        "horwitz-3n",
        "kling-3n",
        "kling-black-3n",
    ]
    assert [r.id for r in search(collection, sort="id")] == sorted(r.id for r in by_gbr)
    by_year = [r.year for r in search(collection, sort="year")]
    assert by_year[-1] is None  # undated last on both engines
    assert by_year[:-1] == sorted(by_year[:-1])
    newest = [r.year for r in search(collection, sort="newest")]
    assert newest[-1] is None  # undated last, newest first
    assert newest[:-1] == sorted(by_year[:-1], reverse=True)
    by_composer = names_of(collection, Filters(), sort="composer")
    assert by_composer[:3] == ["full-board", "black-to-move", "illegal-solution"]
    assert by_composer[-1] == "undated"
    with pytest.raises(QueryError, match="sort key 'colour'"):
        list(search(collection, sort="colour"))


def test_limit_and_offset(collection: Engine) -> None:
    everything = [r.id for r in search(collection)]
    assert [r.id for r in search(collection, limit=5)] == everything[:5]
    assert [r.id for r in search(collection, limit=5, offset=5)] == everything[5:10]
    assert [r.id for r in search(collection, offset=25)] == everything[25:]


def test_rows_carry_composers_in_order_and_pgn_on_request(collection: Engine) -> None:
    (row,) = search(collection, Filters(material=("0323.12",)), with_pgn=True)
    assert row.composers == ("Kubbel, Leonid", "Troitzky, Alexei")
    assert row.stipulation == "draw" and row.year == 1935 and row.award == "Commendation"
    assert row.pgn is not None and row.pgn.startswith('[Event "kubbel-troitzky"]')
    data = row.as_dict()
    assert data["composers"] == ["Kubbel, Leonid", "Troitzky, Alexei"]
    (plain,) = search(collection, Filters(material=("0323.12",)))
    assert "pgn" not in plain.as_dict()


def test_fetch_study(collection: Engine) -> None:
    (row,) = search(collection, Filters(material=("0300.10",)))
    study = fetch_study(collection, row.id)
    assert study is not None
    assert study.fen == GAMES["saavedra"]["FEN"]
    assert study.headers["Composer"] == "Saavedra, Fernando"
    assert study.composers == ("Saavedra, Fernando",)
    assert fetch_study(collection, 10**6) is None


def test_stored_study_has_the_columns_in_the_table_order() -> None:
    """Its as_dict is the row's columns in order, the tags where their column stood before
    revision 0015, then what is added (the JSON's key order)."""
    added = ["salvaged", "composers", "persons"]
    columns = [column.name for column in Study.__table__.columns]
    at = columns.index("award_rank") + 1
    expected = [*columns[:at], "headers", *columns[at:], *added]
    assert [field.name for field in fields(StoredStudy)] == expected


# -- study references: EG numbers, notes, mate-in-n (both engines) ---------------


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def references(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    """The three references imported once per engine (the tests only read them)."""
    folder = tmp_path_factory.mktemp("references")
    path = folder / "references.pgn"
    path.write_text(REFERENCES, encoding="utf-8")
    with database_on(request.param, folder / "r.sqlite") as url:
        engine = open_database(url)
        try:
            assert import_paths(engine, [path]).stored == 3
            yield engine
        finally:
            engine.dispose()


def sources_found(engine: Engine, **filters) -> list[str | None]:
    rows = list(search(engine, Filters(**filters), sort="id"))
    assert count(engine, Filters(**filters)) == len(rows)
    return [row.source for row in rows]


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"eg": ("1335",)}, ["Lenin MT 64"]),
        ({"eg": ("EG#01335",)}, ["Lenin MT 64"]),
        ({"eg": ("13350",)}, ["Bohemia"]),
        ({"eg": ("4716", "1335")}, ["Lenin MT 64", "Israel Ring ty 1978"]),
        ({"eg": ("21335",)}, ["Israel Ring ty 1978"]),
        ({"eg": ("133",)}, []),
        ({"stipulations": ("mate",)}, ["Bohemia", "Israel Ring ty 1978"]),
        ({"stipulations": ("#8",)}, ["Bohemia"]),
        ({"stipulations": ("mate in 3", "win")}, ["Lenin MT 64", "Israel Ring ty 1978"]),
        ({"stipulations": ("#4",)}, []),
        ({"sources": ("Lenin MT",)}, ["Lenin MT 64"]),
        ({"sources": ("EG#",)}, []),
        ({"sources": ("after",)}, []),
    ],
    ids=repr,
)
def test_references_are_searchable(references: Engine, filters: dict, expected: list) -> None:
    assert sources_found(references, **filters) == expected


def test_references_are_stored(references: Engine) -> None:
    rows = list(search(references, Filters(), sort="id"))
    studies = [fetch_study(references, row.id) for row in rows]
    assert [(s.eg, s.note, s.stipulation, s.mate_in, s.award) for s in studies] == [
        ("1335", None, "win", None, "3.p"),
        ("13350", "(v): after Kubbel 1920 EG#13350", "mate", 8, "1.p"),
        ("4716 21335", None, "mate", 3, "3.p"),
    ]
    assert dict(stats(references).stipulations) == {"mate": 2, "win": 1}


@pytest.mark.parametrize("study_id", [2**31, -(2**31) - 1, 2**63, 10**30])
def test_fetch_study_beyond_the_id_range_is_none(fresh_engine: Engine, study_id: int) -> None:
    assert fetch_study(fresh_engine, study_id) is None


@pytest.mark.slow
def test_ids_follow_file_order(fresh_engine: Engine, tmp_path: Path) -> None:
    games = "".join(f'[Event "E{i}"]\n[Result "*"]\n\n1. e4 *\n\n' for i in range(3000))
    import_text(fresh_engine, tmp_path / "order.pgn", games)
    with fresh_engine.connect() as conn:
        offsets = conn.execute(select(Study.offset).order_by(Study.id)).scalars().all()
    assert offsets == sorted(offsets)
