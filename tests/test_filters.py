"""The filters (studydb.filters): the spec table, parsing once, and the adapters over it."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import Any

import pytest
import typer.main
from hypothesis import given
from hypothesis import strategies as st

from studydb.cli import app
from studydb.db.conditions import CONDITIONS, build_condition
from studydb.errors import QueryError
from studydb.filters import (
    SPECS,
    VERDICTS,
    Filters,
    Stipulation,
    parse_eg,
    parse_stipulation,
    parse_years,
    spec_named,
)
from studydb.web.params import form_fields, read_query

#: The commands that take every filter.
FILTERED_COMMANDS = ("search", "stats", "check", "index", "versions")


def command_params(name: str) -> dict[str, Any]:
    command = typer.main.get_command(app)
    assert hasattr(command, "commands")
    return {p.name: p for p in command.commands[name].params if p.name}


# -- the table ---------------------------------------------------------------------


def test_every_field_of_filters_has_one_spec_in_field_order() -> None:
    """Every field but ``pattern_ids`` and ``line_ids``: what a pattern or a line found,
    filled in by the database."""
    found = ("pattern_ids", "line_ids")
    fields = [f.name for f in dataclasses.fields(Filters) if f.init and f.name not in found]
    assert [spec.field for spec in SPECS] == fields


def test_spec_names_and_option_names_are_unique() -> None:
    names = [spec.name for spec in SPECS]
    options = [o for spec in SPECS for option in spec.options for o in option.split("/")]
    assert len(set(names)) == len(names)
    assert len(set(options)) == len(options)


def test_every_condition_key_is_in_the_db_table_and_every_entry_is_used() -> None:
    keys = [spec.condition for spec in SPECS if spec.condition is not None]
    assert sorted(keys) == sorted(CONDITIONS)


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_a_spec_that_is_parsed_has_a_kind_with_values(spec) -> None:
    assert (spec.parse is not None) == (spec.kind in ("many", "text", "int"))
    assert spec.help.endswith((".", ".."))
    assert spec_named(spec.name) is spec is spec_named(spec.param)


@pytest.mark.parametrize("command", FILTERED_COMMANDS)
def test_every_filtering_command_takes_every_spec_as_declared(command: str) -> None:
    params = command_params(command)
    for spec in SPECS:
        param = params[spec.name]
        assert param.help == spec.help
        declared = [o for option in spec.options for o in option.split("/")]
        assert sorted([*param.opts, *param.secondary_opts]) == sorted(declared or [spec.name])
        assert param.param_type_name == ("option" if spec.options else "argument")
        # A single text is read as a list too, so that giving it twice can be refused.
        assert (param.multiple or param.nargs == -1) == (spec.kind in ("many", "text"))
        assert param.metavar == spec.metavar


def test_web_form_follows_the_specs() -> None:
    assert [(f.name, f.field, f.kind) for f in form_fields()] == [
        (spec.name, spec.field, spec.kind) for spec in SPECS
    ]
    verdict = {f.name: f for f in form_fields()}["verdict"]
    assert verdict.choices == VERDICTS


# -- parsing once ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "param", "message"),
    [
        ({"material": ("03a0",)}, "MATERIAL", "expected a GBR code"),
        ({"where": ("wR>>1",)}, "--where", "bad --where expression"),
        ({"composers": ("  ",)}, "--composer", "empty composer name"),
        ({"stipulations": ("helpmate",)}, "--stipulation", "unknown stipulation"),
        ({"years": ("1939..1920",)}, "--year", "1939 is after 1920"),
        ({"eg": ("EG#x",)}, "--eg", "bad EG reference"),
        ({"verdicts": ("cooked",)}, "--verdict", "unknown verdict 'cooked'"),
        ({"position": "8/8/8/8/8/8/8/K7 w - - 0 1"}, "--position", "each side needs a king"),
        ({"reaches": ("KQvKx",)}, "--reaches", "expected a GBR code"),
        ({"ends_in": ("03?x",)}, "--ends-in", "expected a GBR code"),
        ({"composers": ("x",) * 101}, "--composer", "too many values for --composer: 101"),
        ({"material": ("0300.10",) * 1200}, "MATERIAL", "too many values for MATERIAL: 1200"),
        ({"composers": ("re\x00ti",)}, "--composer", "NUL character"),
        ({"sources": ("x" * 1001,)}, "--source", "longer than 1000 characters"),
        ({"sources": (" ",)}, "--source", "empty source ' '"),
        ({"stipulations": ("#0",)}, "--stipulation", "mate in 0: a mate takes 1 move or more"),
        ({"where": ("men<=" + "9" * 5000,)}, "--where", "longer than 1000 characters"),
        ({"where": ("men<=" + "9" * 900,)}, "--where", "out of range"),
        ({"where": ("men<=1234567890",)}, "--where", "out of range"),
    ],
)
def test_a_bad_value_fails_when_the_filters_are_made(options, param, message) -> None:
    with pytest.raises(QueryError, match=message) as caught:
        Filters(**options)
    assert caught.value.param == param


def test_values_are_parsed_once_when_made() -> None:
    filters = Filters(
        years=("1920..1939", "..1900"),
        stipulations=("#3", "draw"),
        eg=("EG#01335",),
        composers=("Réti",),
        verdicts=("No-Errors",),
    )
    assert filters.parsed("years") == ((1920, 1939), (None, 1900))
    assert filters.parsed("stipulations") == (Stipulation("mate", 3), Stipulation("draw"))
    assert filters.parsed("eg") == (1335,)
    assert filters.parsed("composers") == ("Réti",)  # read as a name by the condition
    assert filters.parsed("verdicts") == ("no-errors",)
    assert [spec.name for spec in filters.given()] == [
        "composer",
        "stipulation",
        "year",
        "eg",
        "verdict",
    ]


def test_no_errors_is_a_verdict_the_filter_takes_in_the_decided_order() -> None:
    assert VERDICTS == ("sound", "no-errors", "unsound", "duals", "doubts", "unchecked")
    assert "checks.verdict IN" in str(build_condition(Filters(verdicts=("no-errors",))))
    assert read_query([("verdict", "no-errors")]).filters.verdicts == ("no-errors",)


def test_filters_stay_equal_and_hashable_by_their_values() -> None:
    one, two = Filters(years=("1927",)), Filters(years=("1927",))
    assert one == two and hash(one) == hash(two)
    assert Filters() != one


@given(
    low=st.integers(min_value=0, max_value=9999),
    high=st.integers(min_value=0, max_value=9999),
)
def test_a_year_range_parses_to_its_bounds(low: int, high: int) -> None:
    low, high = sorted((low, high))
    assert parse_years(f"{low}..{high}") == (low, high)
    assert parse_years(f" ..{high} ") == (None, high)
    assert parse_years(f"{low}..") == (low, None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("win", "win"), ("+", "win"), ("draw", "draw"), ("=", "draw"), ("mate", "mate")],
)
def test_stipulations(text: str, expected: str) -> None:
    assert parse_stipulation(text) == Stipulation(expected)


@pytest.mark.parametrize(("n", "text"), [(3, "#3"), (8, "mate in 8"), (12, "Mate In 12")])
def test_mate_in_n(n: int, text: str) -> None:
    assert parse_stipulation(text) == Stipulation("mate", n)


@given(st.integers(min_value=0, max_value=10**9 - 1))
def test_eg_references_read_back_their_number(number: int) -> None:
    assert parse_eg(str(number)) == parse_eg(f"EG#{number:05d}") == number


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
        Filters(material=(term,))
    assert info.value.param == "MATERIAL"
    assert repr(term) in str(info.value)


@pytest.mark.parametrize("text", ["mate-ish", "h#2", "#x", "helpmate"])
def test_bad_stipulation_is_a_query_error(text: str) -> None:
    with pytest.raises(QueryError, match="'mate'") as caught:
        Filters(stipulations=(text,))
    assert caught.value.param == "--stipulation"


@pytest.mark.parametrize("text", ["", "EG#", "13a5", "EG#-1", "1335.5"])
def test_bad_eg_reference_is_a_query_error(text: str) -> None:
    with pytest.raises(QueryError, match="EG reference") as caught:
        Filters(eg=(text,))
    assert caught.value.param == "--eg"


# -- layering ----------------------------------------------------------------------


def run_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout


def test_filters_need_no_database() -> None:
    out = run_python(
        "import sys\nimport studydb.filters\n"
        "print(sorted(m for m in ('sqlalchemy', 'studydb.db', 'studydb.cli', 'typer')"
        " if m in sys.modules))"
    )
    assert out.strip() == "[]"


@pytest.mark.slow
def test_web_does_not_import_the_command_line() -> None:
    out = run_python(
        "import sys\nimport studydb.web.app\n"
        "from studydb.web.params import form_fields, read_query\n"
        "form_fields(); read_query([('year', '1927')])\n"
        "print(sorted(m for m in sys.modules if m.startswith('studydb.cli')))"
    )
    assert out.strip() == "[]"
