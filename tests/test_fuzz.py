"""Hostile query strings and numbers: the web never answers 500, the CLI never shows a traceback.

Bounded fuzzing with hypothesis over every query parameter of every page, and
over every whole-number option of every command (but ``serve``, which would
listen), against a real SQLite collection.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
import typer.main
from helpers import examples
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from typer.testing import CliRunner

import studydb
from studydb.cli import app
from studydb.cli.light import light_kind
from studydb.web import create_app
from studydb.web.params import PAGE_PARAMS, form_fields

CLASSICS = Path(__file__).resolve().parent.parent / "data" / "classics.pgn"
ROUTES = (
    "/",
    "/search",
    "/stats",
    "/api/search",
    "/export.csv",
    "/export.json",
    "/diagram.svg",
    "/studies/1",
    "/studies/2.pgn",
    "/api/studies/3",
)
PARAMS = (
    *(field.name for field in form_fields()),
    *PAGE_PARAMS,
    "fen",
    "lastmove",
    "flip",
    "size",
    "node",
    "view",
    "x",
)
NASTY = st.sampled_from(
    [
        "",
        " ",
        "0",
        "-1",
        "1e9",
        "²",
        "٣",
        "10" * 20,
        "9" * 5000,
        str(2**62),
        str(2**63),
        "\x00",
        "re\x00ti",
        "'; DROP TABLE studies; --",
        "<script>alert(1)</script>",
        "%00",
        "..",
        "1920-1925",
        "1925..1920",
        "men<=" + "9" * 30,
        "0300.10",
        "03??",
        "KRPvKR",
        "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1",
        "x" * 3000,
        "true",
        "é" * 10,
    ]
)
VALUES = st.one_of(NASTY, st.text(max_size=40), st.integers().map(str))
#: The longest URL the test client sends (httpx refuses longer ones).
MAX_URL = 60_000
QUERIES = st.lists(st.tuples(st.sampled_from(PARAMS), VALUES), max_size=5)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = str(tmp_path_factory.mktemp("fuzz") / "studies.sqlite")
    with studydb.open(db) as writable:
        writable.import_paths([CLASSICS])
    with (
        studydb.open(db, read_only=True) as served,
        TestClient(create_app(served.engine), raise_server_exceptions=False) as test_client,
    ):
        yield test_client


@pytest.mark.slow
@settings(
    max_examples=examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(route=st.sampled_from(ROUTES), query=QUERIES, repeat=st.integers(0, 3))
def test_no_query_string_makes_a_500(
    client: TestClient, route: str, query: list[tuple[str, str]], repeat: int
) -> None:
    pairs = query * (1 + repeat * 100) if query else query
    url = f"{route}?{urlencode(pairs)}" if pairs else route
    while len(url) > MAX_URL and len(pairs) > 1:  # what a client sends at most
        pairs = pairs[: len(pairs) // 2]
        url = f"{route}?{urlencode(pairs)}"
    response = client.get(url[:MAX_URL])
    assert response.status_code < 500, (route, pairs[:5], response.text[:300])
    assert "Traceback" not in response.text


@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None)
@given(study=st.one_of(NASTY, st.integers().map(str)), node=VALUES)
def test_no_study_path_makes_a_500(client: TestClient, study: str, node: str) -> None:
    response = client.get(f"/studies/{quote(study, safe='')}", params={"node": node})
    assert response.status_code < 500, (study, node, response.text[:300])


def _integer_options() -> list[tuple[str, str]]:
    """(command, option) for every whole-number option of every command but serve."""
    found: list[tuple[str, str]] = []

    def walk(command: Any, path: str) -> None:
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                if name != "serve":
                    walk(sub, f"{path} {name}".strip())
            return
        for param in command.params:
            descriptor = getattr(param, "type_descriptor", None)
            if descriptor is None or param.param_type_name != "option":
                continue
            if light_kind(descriptor.annotation) is int:
                found.append((path, param.opts[0]))

    walk(typer.main.get_command(app), "")
    return found


INTEGER_OPTIONS = _integer_options()


def test_the_commands_have_integer_options_to_fuzz() -> None:
    assert {("search", "--limit"), ("index", "--jobs"), ("check", "--jobs")} <= set(INTEGER_OPTIONS)


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = str(tmp_path_factory.mktemp("fuzz-cli") / "studies.sqlite")
    with studydb.open(db) as writable:
        writable.import_paths([CLASSICS])
    return db


def _starts_a_pool(value: str) -> bool:
    try:
        return 2 < int(value.strip().replace("_", "")) <= 256
    except ValueError:
        return False


@pytest.mark.slow
@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(option=st.sampled_from(INTEGER_OPTIONS), value=VALUES)
def test_no_number_makes_a_traceback(database: str, option: tuple[str, str], value: str) -> None:
    command, name = option
    assume(not (name == "--jobs" and _starts_a_pool(value)))  # a real pool: no fuzzing matter
    args = [*command.split(), f"{name}={value}", "--db", database]
    if command in ("import", "anticipate"):
        args.append(str(CLASSICS))
    if command == "check":
        args += ["--syzygy", "/nonexistent"]  # no tables: a clear error, never a run
    result = CliRunner().invoke(app, args)
    assert result.exit_code in (0, 1, 2), (args, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        args,
        result.exception,
    )
    assert "Traceback" not in result.output
