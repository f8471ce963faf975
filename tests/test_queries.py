"""Search filters, the --where language and statistics (studydb.db.queries).

The collection is ``tests/fixtures/search.pgn``, imported with the real
importer once per engine (SQLite and PostgreSQL).  Each game's ``Event`` tag
is its name here; results are compared as exact sets of those names.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import GAMES, REFERENCES, SQL_NAME
from sqlalchemy import Engine, func, select

from studydb.db.conditions import build_condition, material_condition
from studydb.db.engine import open_database
from studydb.db.importer import import_paths
from studydb.db.models import Study
from studydb.db.search import count, count_statement, fetch_study, search
from studydb.db.stats import stats
from studydb.db.where import where_gbr_codes, where_piece_codes
from studydb.errors import QueryError
from studydb.filters import Filters, parse_years
from studydb.where import WHERE_NAMES, parse_where

ALL = set(GAMES)


def names_of(engine: Engine, filters: Filters, **options) -> list[str]:
    """Event names of the studies found, in result order."""
    by_fen = {tags["FEN"]: event for event, tags in GAMES.items()}
    return [by_fen[row.fen] for row in search(engine, filters, **options)]


def found(engine: Engine, **filters) -> set[str]:
    names = names_of(engine, Filters(**filters))
    assert len(names) == len(set(names))
    assert count(engine, Filters(**filters)) == len(names)
    return set(names)


DRAWS = {e for e, t in GAMES.items() if t.get("Stipulation") == "draw"}
WINS = {e for e, t in GAMES.items() if t.get("Stipulation") == "win"}

CASES = [
    # GBR codes, codes without pawns, patterns
    ({"material": ("0300.10",)}, {"saavedra"}),
    ({"material": ("0400",)}, {"philidor-krp", "grigoriev-krkrp", "lucena-pp"}),
    ({"material": ("0400.10",)}, {"philidor-krp"}),
    (
        {"material": ("04??",)},
        {"philidor-krp", "grigoriev-krkrp", "lucena-pp", "kasparyan-rbrn", "nadareishvili-rnrb"},
    ),
    ({"material": ("0?0?.1?",)}, {"saavedra", "philidor-krp", "reti-draw", "troitzky-knights"}),
    ({"material": ("????.?2",)}, {"kubbel-troitzky", "rook-vs-pawns"}),
    ({"material": ("0300.10", "KQvKR")}, {"saavedra", "philidor-qr"}),
    # digit 9: three or more knights on a side
    ({"material": ("0009.00",)}, {"horwitz-3n", "kling-3n", "kling-black-3n"}),
    ({"material": ("0009",)}, {"horwitz-3n", "kling-3n", "kling-black-3n"}),
    ({"material": ("000?.00",)}, {"horwitz-3n", "kling-3n", "kling-black-3n"}),
    ({"material": ("KNNNvK",)}, {"horwitz-3n"}),
    ({"material": ("knvknnn",)}, {"kling-3n"}),
    ({"material": ("KNNNvK",), "either_colour": True}, {"horwitz-3n", "kling-black-3n"}),
    ({"material": ("KNNvK",)}, set()),
    # signatures and colour reversal
    ({"material": ("KRPvKR",)}, {"philidor-krp"}),
    ({"material": ("KRPvKR",), "either_colour": True}, {"philidor-krp", "grigoriev-krkrp"}),
    ({"material": ("0400.10",), "either_colour": True}, {"philidor-krp", "grigoriev-krkrp"}),
    ({"material": ("0002.01",), "either_colour": True}, {"kubbel-knights", "troitzky-knights"}),
    ({"material": ("0?02",), "either_colour": True}, {"kubbel-knights", "troitzky-knights"}),
    ({"material": ("KQvKQ",), "either_colour": True}, {"pervakov-qq"}),
    ({"material": ("KRBvKRN",), "stipulations": ("draw",)}, {"kasparyan-rbrn"}),
    (
        {"material": ("KRBvKRN",), "stipulations": ("draw",), "either_colour": True},
        {"kasparyan-rbrn", "nadareishvili-rnrb"},
    ),
    ({"material": ("KRPPvKR", "KR*vK")}, {"lucena-pp"}),
    # N* = any number of knights, none included
    ({"material": ("KN*vKP",)}, {"reti-initial", "kubbel-knights", "black-to-move"}),
    # --where
    ({"where": ("wN=3",)}, {"horwitz-3n"}),
    ({"where": ("bN>=3",)}, {"kling-3n", "kling-black-3n"}),
    ({"where": ("wR>=1 bN=1 men<=5",)}, {"reti-rook"}),
    ({"where": ("men>=30",)}, {"full-board"}),
    ({"where": ("pawns=0 and pieces=1",)}, {"undated"}),
    ({"where": ("white=3", "black==1")}, {"kasparyan-bn"}),
    ({"where": ("wQ!=0 bQ=1",)}, {"pervakov-qq", "becker-qp", "full-board"}),
    ({"where": ("wP > 1",)}, {"lucena-pp", "full-board"}),
    (
        {"where": ("WR<1, BR<1, wq<1, bq<1, pieces>=3",)},
        {"horwitz-3n", "kling-3n", "kling-black-3n", "timman-bbn"},
    ),
    # composers: case- and accent-insensitive substrings; repeats are alternatives
    ({"composers": ("reti",)}, {"reti-draw", "reti-rook", "reti-initial"}),
    ({"composers": ("RÉTI",)}, {"reti-draw", "reti-rook", "reti-initial"}),
    # a name finds every study of its person: "Reti, R." is Réti, Richard
    ({"composers": ("Réti, Richard",)}, {"reti-draw", "reti-rook", "reti-initial"}),
    ({"composers": ("Richard Reti",)}, {"reti-draw", "reti-rook", "reti-initial"}),
    ({"composers": ("troitsky",)}, {"kubbel-troitzky", "troitzky-knights"}),
    ({"composers": ("kasparian",)}, {"kasparyan-bn", "kasparyan-rbrn"}),
    ({"composers": ("Genrikh Kasparjan",)}, {"kasparyan-bn", "kasparyan-rbrn"}),
    ({"composers": ("Richard Becker",)}, {"becker-qp"}),
    ({"composers": ("Rudolf Reti",)}, set()),
    ({"composers": ("troitzky",)}, {"kubbel-troitzky", "troitzky-knights"}),
    ({"composers": ("kubbel", "pervakov")}, {"kubbel-knights", "kubbel-troitzky", "pervakov-qq"}),
    ({"composers": ("francois-andre",)}, {"philidor-krp", "philidor-qr"}),
    ({"composers": ("ramirez",)}, {"lucena-pp"}),
    # a ';' list is split into names: the credit finds its study by each name
    ({"composers": (SQL_NAME,)}, set()),
    ({"composers": (SQL_NAME.split(";")[0],)}, {"obrien"}),
    ({"composers": ("DROP TABLE studies",)}, {"obrien"}),
    ({"composers": ('"50%_off"',)}, {"obrien"}),
    ({"composers": ("%",)}, {"obrien"}),
    ({"composers": ("_",)}, {"obrien"}),
    ({"composers": ("o'brien",)}, {"obrien", "thousand"}),  # O'Brien = Obrien, Patrick
    ({"composers": ("obrien",)}, {"thousand"}),
    ({"composers": ("' OR 1=1 --",)}, set()),
    ({"composers": ("nobody",)}, set()),
    # stipulation, years, source, award
    ({"stipulations": ("draw",)}, DRAWS),
    ({"stipulations": ("win",)}, WINS),
    ({"stipulations": ("win", "=")}, WINS | DRAWS),
    (
        {"years": ("1920..1939",)},
        {
            "reti-draw", "reti-rook", "reti-initial", "kubbel-knights", "kubbel-troitzky",
            "grigoriev-krkrp", "rook-vs-pawns",
        },
    ),
    ({"years": ("..1800",)}, {"lucena-pp", "philidor-krp", "philidor-qr"}),
    ({"years": ("2000..",)}, {"obrien", "thousand", "becker-qp"}),
    ({"years": ("1851",)}, {"horwitz-3n"}),
    ({"years": ("1851", "1852..1852")}, {"horwitz-3n", "kling-3n"}),
    ({"composers": ("reti",), "years": ("1920..1925",)}, {"reti-draw"}),
    ({"sources": ("100%",)}, {"obrien"}),
    ({"sources": ("_",)}, {"obrien"}),
    ({"sources": ("1000",)}, {"thousand"}),
    (
        {"sources": ("shakhmaty v",)},
        {
            "kubbel-troitzky", "grigoriev-krkrp", "kasparyan-bn", "kasparyan-rbrn",
            "black-to-move", "illegal-solution",
        },
    ),
    ({"sources": ("ANALYSE du",)}, {"philidor-krp", "philidor-qr"}),
    (
        {"award": True},
        {
            "reti-rook", "kubbel-knights", "kubbel-troitzky", "pervakov-qq", "kasparyan-rbrn",
            "nadareishvili-rnrb", "timman-bbn",
        },
    ),
    ({"award": True, "stipulations": ("draw",), "where": ("men<=5",)}, {"pervakov-qq"}),
    # validation (the fixture is imported with --validate)
    ({"valid": False}, {"illegal-solution"}),
    ({"valid": True}, ALL - {"illegal-solution"}),
    ({}, ALL),
]  # fmt: skip


@pytest.mark.parametrize(("filters", "expected"), CASES, ids=lambda v: repr(v)[:60])
def test_filters_find_exactly(collection: Engine, filters: dict, expected: set[str]) -> None:
    assert found(collection, **filters) == expected


def test_fixture_has_what_the_tests_rely_on() -> None:
    assert len(GAMES) == 27
    assert GAMES["obrien"]["Composer"] == SQL_NAME
    assert {"draw", "win"} == {t.get("Stipulation") for t in GAMES.values()} - {None}


def test_sql_metacharacters_leave_the_database_intact(collection: Engine) -> None:
    for text in (SQL_NAME, "'; DROP TABLE studies; --", "\\", "%'"):
        list(search(collection, Filters(composers=(text,), sources=(text,))))
    with collection.connect() as conn:
        assert conn.execute(select(func.count()).select_from(Study)).scalar() == len(GAMES)


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
    assert study["fen"] == GAMES["saavedra"]["FEN"]
    assert study["headers"]["Composer"] == "Saavedra, Fernando"
    assert study["composers"] == ["Saavedra, Fernando"]
    assert fetch_study(collection, 10**6) is None


def _decades() -> list[tuple[int | None, int]]:
    years = [t["Date"][:4] for t in GAMES.values()]
    counts = Counter(int(y) // 10 * 10 if y.isdigit() else None for y in years)
    return sorted(counts.items(), key=lambda item: (item[0] is None, item[0] or 0))


def test_stats_of_everything(collection: Engine) -> None:
    result = stats(collection, top=3)
    composers = {v for t in GAMES.values() for k, v in t.items() if k.startswith("Composer")}
    assert result.studies == len(GAMES)
    # persons: 'Reti, R.' is Réti, Richard; the ';' credit splits into 3 names
    assert result.composers == len(composers) - 1 + 2
    assert (result.first_year, result.last_year, result.undated) == (1497, 2012, 1)
    assert result.gbr[:2] == [("0009.00", 3), ("0130.00", 2)]
    assert len(result.gbr) == 3 and result.gbr[2][1] == 1
    assert result.decades == _decades()
    assert sum(n for _, n in result.men) == len(GAMES)
    men = Counter(sum(c.isalpha() for c in t["FEN"].split()[0]) for t in GAMES.values())
    assert result.men == sorted(men.items())
    assert dict(result.stipulations) == {"win": len(WINS), "draw": len(DRAWS), None: 3}
    assert [(c.name, c.studies) for c in result.top_composers] == [
        ("Réti, Richard", 3),
        ("Averbakh, Yuri", 2),
        ("Grigoriev, Nikolai", 2),
    ]
    assert result.top_composers[0].variants == ("Reti, R.",)
    data = result.as_dict()
    assert data["studies"] == len(GAMES)
    assert data["gbr"][0] == {"gbr": "0009.00", "count": 3}


def test_stats_of_a_selection(collection: Engine) -> None:
    result = stats(collection, Filters(composers=("kubbel",)))
    assert result.studies == 2
    assert result.composers == 2  # Kubbel and his co-author Troitzky
    assert [(c.name, c.studies, c.variants) for c in result.top_composers] == [
        ("Kubbel, Leonid", 2, ()),
        ("Troitzky, Alexei", 1, ()),
    ]
    assert result.decades == [(1920, 1), (1930, 1)]
    empty = stats(collection, Filters(composers=("nobody",)))
    assert (empty.studies, empty.composers, empty.first_year, empty.gbr) == (0, 0, None, [])


# -- parsing, without a database ------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("wR>=1 bN=1 men<=5", [("wr", ">=", 1), ("bn", "=", 1), ("men", "<=", 5)]),
        ("wq == 0 and BQ != 2", [("wq", "==", 0), ("bq", "!=", 2)]),
        ("white>2,black<3", [("white", ">", 2), ("black", "<", 3)]),
        ("  pawns = 0  AND pieces >= 4 ", [("pawns", "=", 0), ("pieces", ">=", 4)]),
    ],
)
def test_parse_where(expression: str, expected: list) -> None:
    assert [(c.name, c.op, c.value) for c in parse_where(expression)] == expected


@pytest.mark.parametrize(
    ("expression", "token", "column"),
    [
        ("wR>=1 bX=1", "bX", 6),
        ("wR>=1 men<=", "<=", 9),
        ("wR>=one", "one", 4),
        ("wR 1", "1", 3),
        ("wR=1 or bR=1", "or", 5),
        ("wR=1 and", "and", 5),
        ("wR=-1", "-", 3),
        ("wR=1; drop table studies", ";", 4),
        ("", "", 0),
    ],
)
def test_bad_where_names_the_token(expression: str, token: str, column: int) -> None:
    with pytest.raises(QueryError) as info:
        parse_where(expression)
    message = str(info.value)
    assert info.value.param == "--where"
    assert f"at {token!r}" in message
    caret_line = message.splitlines()[-1]
    assert caret_line.index("^") - 2 == column


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1920..1939", (1920, 1939)),
        ("1927", (1927, 1927)),
        ("..1900", (None, 1900)),
        ("1990..", (1990, None)),
        (" 1990 .. 1999 ", (1990, 1999)),
        ("1920-1925", (1920, 1925)),  # a dash, as people write a range
        ("1920 – 1925", (1920, 1925)),
        ("-1900", (None, 1900)),
        ("1990-", (1990, None)),
    ],
)
def test_parse_years(text: str, expected: tuple) -> None:
    assert parse_years(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", "..", "-", "1990~1999", "1939..1920", "1939-1920", "19x0", "12345", "1..2..3", "1-2-3"],
)
def test_bad_years(text: str) -> None:
    with pytest.raises(QueryError, match="year") as info:
        parse_years(text)
    assert info.value.param == "--year"


@pytest.mark.parametrize("term", ["03a0", "0300.1", "12345", "KRvKRv", "KQZvK", "03??.9?", "v"])
def test_bad_material_terms(term: str) -> None:
    with pytest.raises(QueryError) as info:
        material_condition(term)
    assert info.value.param == "MATERIAL"
    assert repr(term) in str(info.value)


@pytest.mark.parametrize("text", ["mate-ish", "h#2", "#x", "helpmate"])
def test_bad_stipulation_is_a_query_error(text: str) -> None:
    with pytest.raises(QueryError, match="'mate'") as caught:
        build_condition(Filters(stipulations=(text,)))
    assert caught.value.param == "--stipulation"


@pytest.mark.parametrize("text", ["", "EG#", "13a5", "EG#-1", "1335.5"])
def test_bad_eg_reference_is_a_query_error(text: str) -> None:
    with pytest.raises(QueryError, match="EG reference") as caught:
        build_condition(Filters(eg=(text,)))
    assert caught.value.param == "--eg"


def test_patterns_use_the_piece_digit_index() -> None:
    every = {"include_non_studies": True}
    sql = str(build_condition(Filters(material=("03??",), **every)))
    assert "studies.pieces IN" in sql
    gbr_condition = build_condition(Filters(material=("0300.10",), **every))
    assert str(gbr_condition) == "studies.gbr = :gbr_1"
    pieces_condition = build_condition(Filters(material=("0300",), **every))
    assert str(pieces_condition) == "studies.pieces = :pieces_1"


# -- the --where prefilter: sound and, for codes without a 9, exact --------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

NAMES = [name.lower() for name in WHERE_NAMES]
OPS = ["=", "!=", "<", "<=", ">", ">="]
CHECK = {
    "=": int.__eq__,
    "!=": int.__ne__,
    "<": int.__lt__,
    "<=": int.__le__,
    ">": int.__gt__,
    ">=": int.__ge__,
}


def values_of(counts: dict[str, int]) -> dict[str, int]:
    white = sum(counts["w" + c] for c in "qrbnp")
    black = sum(counts["b" + c] for c in "qrbnp")
    return {
        **counts,
        "white": white + 1,
        "black": black + 1,
        "men": white + black + 2,
        "pawns": counts["wp"] + counts["bp"],
        "pieces": white + black - counts["wp"] - counts["bp"],
    }


def satisfies(counts: dict[str, int], conditions: list[tuple[str, str, int]]) -> bool:
    values = values_of(counts)
    return all(CHECK[op](values[name], value) for name, op, value in conditions)


def counts_of_fen(fen: str) -> dict[str, int]:
    board = fen.split()[0]
    return {
        side + c: board.count(c.upper() if side == "w" else c) for side in "wb" for c in "qrbnp"
    }


def code_of(counts: dict[str, int]) -> str:
    """The GBR code of some counts, written out from the definition."""
    digits = ""
    for c in "qrbn":
        white, black = counts["w" + c], counts["b" + c]
        digits += "9" if max(white, black) > 2 else str(white + 3 * black)
    return f"{digits}.{counts['wp']}{counts['bp']}"


conditions_strategy = st.lists(
    st.tuples(st.sampled_from(NAMES), st.sampled_from(OPS), st.integers(0, 12)),
    min_size=1,
    max_size=3,
)
counts_strategy = st.fixed_dictionaries(
    {side + c: st.integers(0, 10 if c != "p" else 8) for side in "wb" for c in "qrbnp"}
)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(conditions=conditions_strategy, counts=counts_strategy)
def test_prefilter_codes_are_sound_and_exact(conditions, counts) -> None:
    parsed = parse_where(" ".join(f"{n}{o}{v}" for n, o, v in conditions))
    code = code_of(counts)
    matching = satisfies(counts, conditions)
    codes = where_gbr_codes(parsed)
    if codes is not None:
        if matching:
            assert code in codes  # sound: never drops a matching study
        if "9" not in code[:4]:
            assert (code in codes) == matching  # exact: a code without a 9 decides
    pieces = where_piece_codes(parsed)
    if pieces is not None and matching:
        assert code[:4] in pieces


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(conditions=conditions_strategy)
def test_where_matches_python_evaluation(collection: Engine, conditions) -> None:
    expression = " and ".join(f"{n} {o} {v}" for n, o, v in conditions)
    expected = {e for e, t in GAMES.items() if satisfies(counts_of_fen(t["FEN"]), conditions)}
    assert found(collection, where=(expression,)) == expected


@pytest.mark.parametrize(
    ("expression", "index"),
    [
        ("wR>=1 bN=1 men<=5", "gbr"),  # codes decide: a covering index count
        ("wN>=3 men<=6", "gbr"),  # 9 digits: codes, then the exact counts
        # One column: the one index on all the counts (migration 0003), read alone.
        ("wN=3", "men_wq_wr_wb_wn_wp_bq_br_bb_bn_bp"),
        ("men<=5", "men_wq_wr_wb_wn_wp_bq_br_bb_bn_bp"),
    ],
)
def test_where_plans_use_an_index(tmp_path: Path, expression: str, index: str) -> None:
    engine = open_database(tmp_path / "plan.sqlite")
    statement = count_statement(Filters(where=(expression,)))
    sql = str(statement.compile(engine, compile_kwargs={"literal_binds": True}))
    with engine.connect() as conn:
        plan = " ".join(row[3] for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}"))
    engine.dispose()
    assert re.search(rf"INDEX ix_studies_{index}\b", plan), plan


# -- study references: EG numbers, notes, mate-in-n (both engines) ---------------


@pytest.fixture
def references(db_url: str, tmp_path: Path) -> Engine:
    path = tmp_path / "references.pgn"
    path.write_text(REFERENCES, encoding="utf-8")
    engine = open_database(db_url)
    assert import_paths(engine, [path]).stored == 3
    return engine


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
    assert [(s["eg"], s["note"], s["stipulation"], s["mate_in"], s["award"]) for s in studies] == [
        ("1335", None, "win", None, "3.p"),
        ("13350", "(v): after Kubbel 1920 EG#13350", "mate", 8, "1.p"),
        ("4716 21335", None, "mate", 3, "3.p"),
    ]
    assert dict(stats(references).stipulations) == {"mate": 2, "win": 1}


def test_unfiltered_stats_read_no_filter_and_no_decade_expression(collection: Engine) -> None:
    from sqlalchemy import event

    statements: list[str] = []

    def record(conn, cursor, statement, *args) -> None:
        statements.append(statement)

    event.listen(collection, "before_cursor_execute", record)
    try:
        stats(collection)
    finally:
        event.remove(collection, "before_cursor_execute", record)
    assert statements
    for statement in statements:  # but the few entries that are not studies, by id
        statement = re.sub(
            r"studies\.id NOT IN \(SELECT non_studies\.id.*?\)\)", "", statement, flags=re.S
        )
        assert "IN (SELECT" not in statement, statement
        assert not re.search(r"year\s*%", statement), statement  # no year - year % 10


# -- issue 9: both engines give the same answers --------------------------------


@pytest.fixture
def fresh_engine(db_url: str) -> Iterator[Engine]:
    engine = open_database(db_url)
    yield engine
    engine.dispose()


def import_text(engine: Engine, path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    summary = import_paths(engine, [path])
    assert summary.failures == [] and summary.rejected == 0


def test_source_is_case_insensitive_beyond_ascii(fresh_engine: Engine, tmp_path: Path) -> None:
    import_text(fresh_engine, tmp_path / "s.pgn", '[Source "ÉCHECS Ça"]\n\n1. e4 *\n')
    for text in ("échecs", "ÉCHECS", "Échecs", "ça"):
        found = count(fresh_engine, Filters(sources=(text,)))
        assert found == 1, text


@pytest.mark.parametrize("expression", ["men<=99999", "wq<999999999", "men!=70000", "white<=40000"])
def test_where_numbers_beyond_the_columns(fresh_engine: Engine, tmp_path: Path, expression: str):
    import_text(fresh_engine, tmp_path / "w.pgn", "1. e4 *\n")
    filters = Filters(where=(expression,))
    assert count(fresh_engine, filters) == 1


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
