"""The filters in SQL (studydb.db.conditions): each filter finds exactly its studies.

The collection is ``tests/fixtures/search.pgn``, imported with the real
importer once per engine (SQLite and PostgreSQL).  Each game's ``Event`` tag
is its name here; results are compared as exact sets of those names.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import GAMES, SQL_NAME, examples, import_text, names_of, stable_id
from sqlalchemy import Engine, func, select

from studydb.db.conditions import build_condition
from studydb.db.connect import open_database
from studydb.db.models import Study
from studydb.db.search import count, count_statement, search
from studydb.db.where import where_gbr_codes, where_piece_codes
from studydb.filters import Filters
from studydb.where import WHERE_NAMES, parse_where

ALL = set(GAMES)


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


@pytest.mark.parametrize(("filters", "expected"), CASES, ids=stable_id)
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


# -- conditions --------------------------------------------------------------


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
@settings(max_examples=examples(400), deadline=None)
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
@settings(max_examples=examples(60), deadline=None)
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


# -- both engines give the same answers (issue 9) ----------------------------


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
