"""The web application (``studydb.web``) through Starlette's TestClient, on both engines.

Each engine gets the fixture collection plus a hostile study (``<script>`` in
tags and comments) imported once; the app reads it through
:func:`~studydb.db.connect.open_read_only`, as ``studydb serve`` does.
"""

from __future__ import annotations

import contextlib
import csv
import doctest
import html
import io
import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import anyio
import chess
import pytest
from helpers import (
    CLASSICS,
    CLASSICS_CHECKED,
    CRAFTED,
    EXPECTED,
    FIXTURE,
    GAMES,
    NESTED_FEN,
    STUDYDB,
    WALKS,
    crafted_pgn,
    database_on,
    examples,
    fetch,
    line_ends_studies,
    serving,
    walks_pgn,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, text
from starlette.testclient import TestClient
from typer.testing import CliRunner

import studydb
import studydb.web.app
import studydb.web.params
from studydb import gbr, render
from studydb.cli import app as cli_app
from studydb.db.connect import open_database, open_read_only
from studydb.filters import SORT_KEYS, SPECS, VERDICTS
from studydb.movetext import nodes
from studydb.positions import Keys, keys
from studydb.web import create_app
from studydb.web.params import MAX_PAGE_SIZE, read_query

HOSTILE = Path(__file__).parent / "fixtures" / "hostile.pgn"
runner = CliRunner()


@contextlib.contextmanager
def read_only_client(url: str | Path, **options: Any) -> Iterator[TestClient]:
    """A TestClient over the database at ``url`` opened read-only, as ``studydb serve`` does."""
    with (
        studydb.open(url, read_only=True) as db,
        TestClient(create_app(db.engine), **options) as client,
    ):
        yield client


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def served(request: pytest.FixtureRequest, tmp_path_factory) -> Iterator[tuple[TestClient, str]]:
    """A TestClient over the collection opened read-only, and the database URL."""
    with database_on(request.param, tmp_path_factory.mktemp("web") / "web.sqlite") as url:
        with studydb.open(url) as writable:
            summary = writable.import_paths([FIXTURE, HOSTILE], validate=True, jobs=1)
        assert summary.stored == len(GAMES) + 1, summary
        with read_only_client(url) as client:
            yield client, url


@pytest.fixture
def client(served: tuple[TestClient, str]) -> TestClient:
    return served[0]


def cli_json(*args: str) -> list[dict]:
    result = runner.invoke(cli_app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def api_ids(client: TestClient, query: str) -> list[int]:
    response = client.get(f"/api/search?{query}&per_page={MAX_PAGE_SIZE}")
    assert response.status_code == 200, response.text
    return [row["id"] for row in response.json()["results"]]


def hostile_id(client: TestClient) -> int:
    (study_id,) = api_ids(client, "source=Evil")
    return study_id


# -- every filter, against the command line ----------------------------------------

FILTER_CASES = [
    # (URL query, the same search on the command line)
    ("material=0300.10", ["0300.10"]),
    ("material=0300.10&material=0400", ["0300.10", "0400"]),
    ("material=03%3F%3F", ["03??"]),
    ("material=KRBvKRN&either_colour=1", ["KRBvKRN", "--either-colour"]),
    ("material=KRBvKRN", ["KRBvKRN"]),
    ("material=KRP+v+KR", ["KRP v KR"]),  # material as people write it
    ("material=KRPKR&either_colour=1", ["R+P v R", "--either-colour"]),
    ("material=rook+and+pawn+versus+rook", ["KRPvKR"]),
    ("where=men%3C%3D4", ["--where", "men<=4"]),
    ("where=men%3C%3D5&where=wR%3E%3D1", ["--where", "men<=5", "--where", "wR>=1"]),
    ("composer=reti", ["--composer", "reti"]),
    ("composer=kubbel&composer=grigoriev", ["--composer", "kubbel", "--composer", "grigoriev"]),
    ("stipulation=draw", ["--stipulation", "draw"]),
    ("year=1920..1939", ["--year", "1920..1939"]),
    ("year=..1900&year=2000..", ["--year", "..1900", "--year", "2000.."]),
    ("year=1920-1925", ["--year", "1920..1925"]),  # a dash as people write a range
    ("source=shakhmaty", ["--source", "shakhmaty"]),
    ("source=100%25", ["--source", "100%"]),
    # Non-ASCII case folds alike on the CLI's connection and serve's read-only one:
    ("source=%C3%A9checs", ["--source", "échecs"]),  # finds 'Échecs'
    ("source=%C3%89CHECS", ["--source", "ÉCHECS"]),
    ("source=REPETICI%C3%93N", ["--source", "REPETICIÓN"]),
    ("composer=R%C3%89TI", ["--composer", "RÉTI"]),
    ("composer=fran%C3%A7ois", ["--composer", "françois"]),
    ("composer=ramirez", ["--composer", "ramirez"]),
    ("award=1", ["--award"]),
    ("award=on&stipulation=win", ["--award", "--stipulation", "win"]),
    ("valid=true", ["--valid"]),
    ("valid=false", ["--invalid"]),
    ("pieces=K%5Ba-h%5D1", ["--pieces", "K[a-h]1"]),
    ("line=check+then+check", ["--line", "check then check"]),
    (
        "pieces=R.&main_line=1&side_to_move=black",
        ["--pieces", "R.", "--main-line", "--side-to-move", "black"],
    ),
    ("pattern=*%2F*%2F*%2F*%2F*%2F*%2F*%2F*K*", ["--pattern", "*/*/*/*/*/*/*/*K*"]),
    (
        "pattern=*%2F*%2F*%2F*%2F*%2F*%2F*%2F*K*&either_colour=1",
        ["--pattern", "*/*/*/*/*/*/*/*K*", "-z"],
    ),
]


@pytest.mark.parametrize(
    ("query", "args", "other_sort"),
    # Each filter in the id order and in one other, the sort keys taking turns
    # (a filter is the WHERE clause and a sort the ORDER BY: each on its own, not
    # every pair, keeps the loop fast).
    [(q, a, SORT_KEYS[i % len(SORT_KEYS)]) for i, (q, a) in enumerate(FILTER_CASES)],
)
def test_each_filter_finds_what_the_command_line_finds(
    served: tuple[TestClient, str], query: str, args: list[str], other_sort: str
) -> None:
    client, url = served
    total = len(api_ids(client, "sort=id"))
    for sort in sorted({other_sort, "id"}):
        found = api_ids(client, f"{query}&sort={sort}")
        expected = [
            r["id"] for r in cli_json("search", *args, "--sort", sort, "--db", url, "-f", "json")
        ]
        assert found == expected, (query, sort)
    assert 0 < len(found) < total, query  # the filter selects something, not everything


def test_every_filter_is_in_the_form(client: TestClient) -> None:
    page = client.get("/").text
    for spec in SPECS:
        assert f'name="{spec.name}"' in page, spec.name
    assert 'name="sort"' in page


# -- pages -------------------------------------------------------------------------


def test_the_results_page_names_a_flag_given_without_its_value(client: TestClient) -> None:
    """'Search: line K-. · either colour 1' named the checkbox's value; a flag is its name."""
    page = client.get("/search?line=K-.&either_colour=1&main_line=on").text
    terms = page[
        page.index('<p class="query">') : page.index("</p>", page.index('<p class="query">'))
    ]
    assert '<span class="term">line <code>K-.</code></span>' in terms
    assert '<span class="term">either colour</span>' in terms
    assert '<span class="term">main line</span>' in terms


def test_search_page_shows_the_results_with_diagrams(client: TestClient) -> None:
    response = client.get("/search?composer=kubbel")
    assert response.status_code == 200, response.text
    page = response.text
    rows = {r["id"]: r for r in client.get("/api/search?composer=kubbel").json()["results"]}
    assert len(rows) == 2
    for row in rows.values():
        assert f'href="/studies/{row["id"]}"' in page
        for value in (row["gbr"], row["signature"], str(row["year"]), row["source"]):
            assert value in page
        for name in row["composers"]:
            assert name in page
        assert row["fen"].replace("/", "%2F").replace(" ", "+") in page  # its diagram's URL
    assert "2nd Prize" in page and "Commendation" in page  # the awards
    assert "<h1>2 studies found</h1>" in page
    assert page.count("<h1>") == 1


def test_search_form_keeps_the_query(client: TestClient) -> None:
    page = client.get("/search?composer=reti&year=1920..1939&sort=year&valid=true").text
    assert 'value="reti"' in page and 'value="1920..1939"' in page
    assert re.search(r'<option value="year"\s+selected>', page)
    assert re.search(r'<option value="true"\s+selected>', page)


def test_pages_are_consistent_and_linked(client: TestClient) -> None:
    everything = api_ids(client, "sort=year")
    pages = []
    for page in (1, 2, 3):
        pages.append(api_ids_page(client, f"sort=year&per_page=10&page={page}"))
    assert [i for p in pages for i in p] == everything
    html = client.get("/search?sort=year&per_page=10&page=2").text
    assert 'href="/search?sort=year&amp;per_page=10"' in html  # previous: page 1
    assert 'href="/search?sort=year&amp;per_page=10&amp;page=3"' in html
    assert '<span aria-current="page">2</span>' in html
    # Numbered pages: each page's number links to it.
    numbers = re.findall(
        r'<a href="/search\?sort=year&amp;per_page=10(?:&amp;page=(\d+))?" '
        r'aria-label="page (\d+)">',
        html,
    )
    assert [n for _, n in numbers] == ["1", "3"]
    past = client.get("/search?sort=year&per_page=10&page=9")
    assert past.status_code == 200
    assert 'id="past-the-end"' in past.text and "Page 9 is past the end" in past.text
    assert (
        'href="/search?sort=year&amp;per_page=10&amp;page=3">Go to the last page (3)' in past.text
    )


def api_ids_page(client: TestClient, query: str) -> list[int]:
    response = client.get(f"/api/search?{query}")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["total"] == len(GAMES) + 1
    return [row["id"] for row in body["results"]]


def test_study_page(client: TestClient) -> None:
    (saavedra,) = api_ids(client, "material=0300.10")
    response = client.get(f"/studies/{saavedra}")
    assert response.status_code == 200, response.text
    page = response.text
    for text_ in (
        "0300.10",  # GBR
        "b6a1 0300.10 d5.c6 2/2+",  # extended
        "+0300.10b6a1",  # stipulation form
        "White to play and win",
        "Glasgow Weekly Citizen",
        "Saavedra, Fernando",
        "the famous underpromotion",
    ):
        assert text_ in page, text_
    moves = re.findall(r'<button type="button" class="move" id="m(\d+)"[^>]*>([^<]*)<', page)
    assert [san for _, san in moves][:6] == ["c7", "Rd6+", "Kb5", "Rd5+", "Kb4", "Rd4+"]
    assert "c8=R!" in page and "c8=Q?" in page  # the main line and the variation
    assert page.count('class="row depth-1 opens"') == 1  # the variation, indented
    assert 'data-fen="8/2P5/1K6/3r4/8/8/8/k7 b - - 0 1"' in page  # after 1. c7
    assert 'data-uci="c6c7"' in page
    for control in ('id="prev"', 'id="next"', 'id="flip"', 'id="board"'):
        assert control in page
    assert "/static/study.js" in page


def test_study_page_names_and_links_the_move_of_each_theme(client: TestClient) -> None:
    """A theme found in the moves shows the main line's move with its ply, and opens it."""
    (saavedra,) = api_ids(client, "material=0300.10")
    page = client.get(f"/studies/{saavedra}").text
    themes = page[page.index('<ul class="themes">') :].split("</ul>")[0]
    link = re.search(
        r'theme=underpromotion">underpromotion</a>\s*<a class="move-link" href="\?node=(\d+)" '
        r'data-node="\1">6\.c8=R</a>, ply 11: R</li>',
        themes,
    )
    assert link is not None, themes
    button = re.search(rf'<button type="button" class="move" id="m{link[1]}"[^>]*>([^<]*)<', page)
    assert button is not None and button[1] == "c8=R"  # the main line's, not the variation's c8=Q


def test_hostile_pgn_shows_as_text(client: TestClient) -> None:
    study_id = hostile_id(client)
    for path in (f"/studies/{study_id}", "/search?source=Evil", "/stats?source=Evil"):
        page = client.get(path).text
        assert "<script>window" not in page, path
        assert "<img src=x" not in page and "<b>" not in page, path
    page = client.get(f"/studies/{study_id}").text
    assert "&lt;script&gt;window.hackedComment = 1&lt;/script&gt;" in page
    # Once: the comment before the first move was shown beside "start" and again before 1.c7.
    assert page.count("&lt;script&gt;window.hackedIntro = 1&lt;/script&gt;") == 1
    assert "&lt;script&gt;window.hackedTag = 1&lt;/script&gt;Mallory" in page
    assert "&#34;quoted&#34; &amp; &lt;b&gt;bold&lt;/b&gt;" in page
    assert "&lt;img src=x onerror=" in page
    scripts = re.findall(r"<script[^>]*>", page)
    assert scripts == ['<script src="/static/study.js">']


def test_stats_page_bars_link_to_their_searches(client: TestClient) -> None:
    page = client.get("/stats").text
    assert f'id="stat-studies">{len(GAMES) + 1}<' in page
    bars = re.findall(
        r'<th scope="row"><a href="/search\?([^"]*)">([^<]*)</a></th>'
        r'\s*<td class="count">([\d,]+)<',
        page,
    )
    assert len(bars) > 20
    titles = re.findall(r"<h2>([^<]*)</h2>", page)
    assert titles == [
        "Most common GBR classes",
        "By number of men",
        "By decade",
        "By stipulation",
        "Most represented composers",
        "By soundness verdict",
        "By theme",
    ]
    for query, label, count in bars:
        if "composer=" in query:
            continue  # a composer's name also finds the names that contain it
        total = client.get(f"/api/search?{query.replace('&amp;', '&')}").json()["total"]
        assert total == int(count.replace(",", "")), (label, query)
    assert "<svg" in page and '<rect class="bar"' in page


def test_stats_of_a_search_narrow_it(client: TestClient) -> None:
    page = client.get("/stats?stipulation=draw").text
    draws = client.get("/api/search?stipulation=draw").json()["total"]
    assert f'id="stat-studies">{draws}<' in page
    link = re.search(r'href="/search\?([^"]*)">4</a>', page)  # the 4-men bar
    assert link is not None
    params = parse_qsl(link.group(1).replace("&amp;", "&"))
    assert params == [("stipulation", "draw"), ("where", "men=4")]


# -- JSON and exports ---------------------------------------------------------------


def test_api_search_mirrors_search_json(served: tuple[TestClient, str]) -> None:
    client, url = served
    body = client.get("/api/search?composer=reti&sort=year").json()
    assert body["total"] == 3 and body["page"] == 1 and body["per_page"] == 50
    assert body["results"] == cli_json(
        "search", "--composer", "reti", "--sort", "year", "--db", url, "-f", "json"
    )


def test_api_study_mirrors_show_json(served: tuple[TestClient, str]) -> None:
    client, url = served
    study_id = hostile_id(client)
    response = client.get(f"/api/studies/{study_id}")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    record = response.json()
    part = record.pop("solution")  # the moves, a part at a time: the API's own
    assert record == json.loads(
        runner.invoke(cli_app, ["show", str(study_id), "--db", url, "-f", "json"]).stdout
    )
    assert (part["part"], part["parts"], part["next"], part["previous"]) == (1, 1, None, None)
    assert part["moves"] == sum(t["kind"] == "move" for t in part["tokens"]) > 0


@pytest.mark.parametrize("fmt", ["pgn", "json", "csv"])
def test_exports_are_the_command_line_exports(served: tuple[TestClient, str], fmt: str) -> None:
    client, url = served
    response = client.get(f"/export.{fmt}?composer=reti&sort=year")
    assert response.status_code == 200, response.text
    assert response.headers["content-disposition"] == f'attachment; filename="studies.{fmt}"'
    result = runner.invoke(
        cli_app, ["search", "--composer", "reti", "--sort", "year", "--db", url, "-f", fmt]
    )
    assert result.exit_code == 0, result.output
    assert response.text == result.stdout
    if fmt == "csv":
        assert len(list(csv.DictReader(io.StringIO(response.text)))) == 3


def test_exports_beyond_the_limit_are_503_with_retry_after(client: TestClient) -> None:
    """Two exports stream at once; a third is told to come back, and a finished one frees
    its place (so do the other answers: the slots are all free again after each)."""
    slots = client.app.state.exports
    for _ in range(3):  # each export gives its place back when done
        assert client.get("/export.json?composer=reti").status_code == 200
    assert slots.acquire(blocking=False) and slots.acquire(blocking=False)  # both free
    try:
        busy = client.get("/export.pgn")
        assert busy.status_code == 503 and busy.headers["retry-after"] == "30"
        assert "exports are being written" in busy.text
    finally:
        slots.release()
        slots.release()
    assert client.get("/export.csv").status_code == 200


def long_comments_pgn(studies: int) -> str:
    """``studies`` studies of about 1 KB each (a long comment), for exports of many pieces."""
    comment = "a long comment " * 64
    return "".join(f'[Event "long {i}"]\n\n1. e4 {{{comment}}} e5 *\n\n' for i in range(studies))


async def stalled_export(app: Any, path: str) -> list[dict[str, Any]]:
    """Ask the ASGI ``app`` for ``path`` as a client that takes the headers and then reads
    nothing, nor goes away; the messages sent, once the app is done (a hang: TimeoutError)."""
    sent: list[dict[str, Any]] = []
    asked, never = anyio.Event(), anyio.Event()

    async def receive() -> dict[str, Any]:
        if not asked.is_set():
            asked.set()
            return {"type": "http.request", "body": b"", "more_body": False}
        await never.wait()
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if message["type"] == "http.response.body":
            await never.wait()  # the client's window is full: the server's send waits

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 1),
        "server": ("testserver", 80),
    }
    with anyio.fail_after(60):  # without the export's budget, it waits for ever
        await app(scope, receive, send)
    return sent


@pytest.mark.slow
@pytest.mark.parametrize("engine_name", ["sqlite", "postgresql"])
def test_an_export_its_client_stops_reading_is_cut_at_its_budget(
    tmp_path: Path, engine_name: str
) -> None:
    """A client that stops reading (nor goes away) holds an export's database connection and
    its place until the export's time budget, not for ever; the response is left unfinished."""
    path = tmp_path / "long.pgn"
    path.write_text(long_comments_pgn(300), encoding="utf-8")  # 300 KB: several pieces
    with database_on(engine_name, tmp_path / "long.sqlite") as url:
        with studydb.open(url) as writable:
            writable.import_paths([path], positions="none")
        stalled_export_is_cut(open_read_only(url))


def stalled_export_is_cut(engine: Engine) -> None:
    try:
        app = create_app(engine, export_seconds=0.5)
        sent = anyio.run(stalled_export, app, "/export.pgn")
        assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 200
        assert [m.get("more_body") for m in sent[1:]] == [True]  # one piece, then cut
        assert engine.pool.checkedout() == 0  # its connection is back in the pool
        slots = app.state.exports
        assert slots.acquire(blocking=False) and slots.acquire(blocking=False)  # both free
        slots.release()
        slots.release()
        with TestClient(app) as client:  # and a client that reads gets the whole export
            assert client.get("/export.pgn").text.count("[Event ") == 300
    finally:
        engine.dispose()


def test_export_link_holds_the_filters(client: TestClient) -> None:
    page = client.get("/search?composer=reti&page=1&per_page=2").text
    assert 'href="/export.pgn?composer=reti"' in page
    pgn = client.get("/export.pgn?composer=reti").text
    assert pgn.count("[Event ") == 3  # every match, not one page


def test_diagram(client: TestClient) -> None:
    fen = "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"
    plain = client.get("/diagram.svg", params={"fen": fen})
    assert plain.status_code == 200
    assert plain.headers["content-type"] == "image/svg+xml"
    assert plain.text.startswith("<svg") and "max-age" in plain.headers["cache-control"]
    moved = client.get("/diagram.svg", params={"fen": fen, "lastmove": "c6c7"}).text
    flipped = client.get("/diagram.svg", params={"fen": fen, "flip": "1"}).text
    small = client.get("/diagram.svg", params={"fen": fen, "size": "100"}).text
    assert len({plain.text, moved, flipped, small}) == 4
    assert 'width="100"' in small


# -- errors -------------------------------------------------------------------------

BAD_REQUESTS = [
    ("/search?year=19x", "year"),
    ("/search?pattern=8%2F8%2F8%2F8%2F8%2F8%2F8%2Fx7", "pattern"),
    ("/search?pieces=R%5Ba-h%5D9", "pieces"),
    ("/search?line=P-%5Ba-h%5D9", "line"),
    ("/search?line=then+mate", "line"),
    ("/search?pieces=K.&side_to_move=red", "side_to_move"),
    # Nothing to modify: every study was shown, as if it held such positions.
    ("/search?similar=1", "similar"),
    ("/stats?line=mate&side_to_move=white", "side_to_move"),
    ("/search?material=03x0", "material"),
    ("/search?where=foo%3D1", "where"),
    ("/search?stipulation=lose", "stipulation"),
    ("/search?valid=maybe", "valid"),
    ("/search?award=perhaps", "award"),
    ("/search?either_colour=2", "either_colour"),
    ("/search?sort=zzz", "sort"),
    ("/search?page=0", "page"),
    ("/search?page=x", "page"),
    ("/search?per_page=0", "per_page"),
    (f"/search?per_page={MAX_PAGE_SIZE + 1}", "per_page"),
    ("/search?colour=white", "colour"),
    ("/search?valid=true&valid=false", "valid"),
    ("/stats?year=2000..1900", "year"),
    ("/export.pgn?page=2", "page"),
    ("/diagram.svg?fen=bad", "fen"),
    ("/diagram.svg?lastmove=e9e4", "lastmove"),
    ("/diagram.svg?flip=yes", "flip"),
    ("/diagram.svg?size=5000", "size"),
    ("/diagram.svg?size=²", "size"),
    ("/diagram.svg?size=" + "9" * 5000, "size"),
    ("/search?page=" + "1" + "0" * 30, "page"),
    ("/search?page=4611686018427387904", "page"),
    ("/search?page=1000001", "page"),
    ("/search?page=" + "9" * 5000, "page"),
    ("/search?page=%C2%B2", "page"),
    ("/search?page=-1", "page"),
    ("/search?per_page=" + "9" * 30, "per_page"),
    ("/search?" + "&".join(f"composer=x{i}" for i in range(1200)), "composer"),
    ("/search?composer=re%00ti", "composer"),
    ("/search?where=men%3C%3D" + "9" * 5000, "where"),
    ("/stats?" + "&".join(f"material=0300.{i % 10}0" for i in range(1001)), "material"),
    ("/diagram.svg?size=%D9%A3%D9%A0%D9%A0", "size"),
    ("/diagram.svg?colour=1", "colour"),
]


@pytest.mark.parametrize(("path", "param"), BAD_REQUESTS)
def test_bad_parameters_are_400_naming_them(client: TestClient, path: str, param: str) -> None:
    response = client.get(path)
    assert response.status_code == 400, response.text
    assert f"<code>{param}</code>" in response.text
    assert "Traceback" not in response.text
    api_path = "/api/search?" + urlsplit(path).query
    if path.startswith("/search"):
        answer = client.get(api_path)
        assert answer.status_code == 400
        assert answer.json()["param"] == param
        assert answer.json()["status"] == 400


@pytest.mark.parametrize("path", ["/studies/999999", "/studies/abc", "/studies/-1", "/nowhere"])
def test_unknown_pages_are_404(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert "Not found" in response.text


def test_unknown_study_in_the_api_is_a_json_404(client: TestClient) -> None:
    response = client.get("/api/studies/999999")
    assert response.status_code == 404
    assert response.json() == {"error": "no study with id 999999", "status": 404}
    assert client.get("/export.xml").status_code == 404


@pytest.mark.parametrize("method", ["post", "put", "delete", "patch"])
def test_no_endpoint_writes(client: TestClient, method: str) -> None:
    for path in ("/", "/search", "/api/search", "/studies/1", "/export.pgn"):
        assert getattr(client, method)(path).status_code == 405, (method, path)


def test_security_headers(client: TestClient) -> None:
    headers = client.get("/").headers
    assert "script-src 'self'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"


def test_static_assets_ship_in_the_package(client: TestClient) -> None:
    for name in ("study.js", "studydb.css", "favicon.svg"):
        assert client.get(f"/static/{name}").status_code == 200, name
    page = client.get("/").text
    assert "http://" not in page and "https://" not in page  # no CDN


def test_a_database_that_fails_is_a_503_page(tmp_path: Path) -> None:
    path = tmp_path / "broken.sqlite"
    writable = open_database(path)
    engine = open_read_only(path)
    with writable.begin() as conn:  # the collection breaks under the running server
        conn.execute(text("DROP TABLE study_composers"))
    writable.dispose()
    with TestClient(create_app(engine)) as client:
        response = client.get("/search?composer=x")
        api = client.get("/api/search?composer=x")
    engine.dispose()
    assert response.status_code == 503
    assert "study_composers" in response.text and "Traceback" not in response.text
    assert api.status_code == 503 and "study_composers" in api.json()["error"]


# -- the query string ------------------------------------------------------------------


@settings(max_examples=examples(60), deadline=None)
@given(
    material=st.lists(st.sampled_from(["0300.10", "03??", "KRPvKR", "0400"]), max_size=3),
    composer=st.lists(
        st.text(alphabet="abc &%_é", min_size=1, max_size=5).filter(str.strip), max_size=2
    ),
    year=st.sampled_from([None, "1920..1939", "..1900"]),
    award=st.booleans(),
    page=st.integers(min_value=1, max_value=50),
    sort=st.sampled_from(["gbr", "year", "composer", "id"]),
)
def test_query_url_round_trips(material, composer, year, award, page, sort) -> None:
    pairs = [("material", m) for m in material] + [("composer", c.strip()) for c in composer]
    if year:
        pairs.append(("year", year))
    if award:
        pairs.append(("award", "1"))
    pairs += [("sort", sort), ("page", str(page))]
    query = read_query(pairs)
    again = read_query(parse_qsl(query.url()))
    assert again == query
    assert again.filters.material == tuple(material)


@pytest.mark.parametrize("module", [studydb.web.params, studydb.web.app])
def test_doctests(module) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.slow
def test_search_command_does_not_import_the_web_stack(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    open_database(db).dispose()  # search only reads: the database must exist
    code = (
        "import sys\n"
        f"sys.argv = ['studydb', 'search', '0300.10', '--db', {str(db)!r}, '--count']\n"
        "from studydb.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('WEB', [m for m in ('starlette', 'jinja2', 'uvicorn') if m in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["0", "WEB []"], done.stderr


def test_a_bug_is_a_500_page_without_traceback(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.sqlite"
    with studydb.open(path) as writable:
        writable.import_paths([HOSTILE], jobs=1)
        with writable.engine.begin() as conn:  # a position no chess.Board accepts
            conn.execute(text("UPDATE studies SET fen = 'not a position'"))
            study_id = conn.execute(text("SELECT id FROM studies")).scalar_one()
    with read_only_client(path, raise_server_exceptions=False) as client:
        page = client.get(f"/studies/{study_id}")
        api = client.get(f"/api/studies/{study_id}")
    assert page.status_code == 500
    assert "internal error" in page.text and "Traceback" not in page.text
    assert "not a position" not in page.text
    assert api.status_code == 500 and api.json()["error"].startswith("internal error")


def test_a_mate_in_n_study_shows_like_show(tmp_path: Path) -> None:
    # A mate stipulation has no GBR sign: the page and the API give what show gives.
    pgn = tmp_path / "mate.pgn"
    pgn.write_text(
        '[Event "x"]\n[Stipulation "#2"]\n[FEN "8/8/8/8/8/8/6k1/4K2R w - - 0 1"]\n\n1. Rh2+ *\n'
    )
    path = tmp_path / "mate.sqlite"
    with studydb.open(path) as writable:
        writable.import_paths([pgn], jobs=1)
    shown = json.loads(
        runner.invoke(cli_app, ["show", "1", "--db", str(path), "-f", "json"]).stdout
    )
    with read_only_client(path) as client:
        page = client.get("/studies/1")
        api = client.get("/api/studies/1")
    assert page.status_code == 200 and shown["gbr_extended"] in page.text
    assert api.status_code == 200
    assert api.json()["gbr_extended"] == shown["gbr_extended"] == "e1g2 0100.00 h1 2/1"
    assert api.json()["stipulation_form"] is None and api.json()["mate_in"] == 2
    # One sentence for the task, as show writes it (the page said "and mate").
    text = runner.invoke(cli_app, ["show", "1", "--db", str(path)]).stdout
    assert "White to play and mate in 2" in text
    assert "White to play and mate in 2" in page.text
    assert "<dt>Stipulation</dt><dd>White to play and mate in 2</dd>" in page.text


def test_a_study_without_a_stipulation_says_so_in_one_sentence(tmp_path: Path) -> None:
    pgn = tmp_path / "none.pgn"
    pgn.write_text('[Event "x"]\n[FEN "8/8/8/8/8/8/6k1/4K2R b - - 0 1"]\n\n1... Kg3 *\n')
    path = tmp_path / "none.sqlite"
    with studydb.open(path) as writable:
        writable.import_paths([pgn], jobs=1)
    text = runner.invoke(cli_app, ["show", "1", "--db", str(path)]).stdout
    with read_only_client(path) as client:
        page = client.get("/studies/1").text
    assert "Black to play (no stipulation)" in text
    assert "Black to play (no stipulation)" in page and "to play and ?" not in page


# -- soundness checks (studydb check) on the pages --------------------------------------

#: ``show``'s annotated move: number, SAN, annotation, the first-error mark.
SHOW_LINE = re.compile(r"^  (\d+\.(?:\.\.)?) (\S+) \((.*)\)(  <-- first solution error)?$")
#: The study page's annotated move: node, SAN, annotation's classes, ply and text.
PAGE_NOTE = re.compile(
    r'id="m(\d+)"[^>]*>([^<]*)(?:<span class="glyph">[^<]*</span>)?</button> '
    r'<span class="annotation([^"]*)" data-ply="(\d+)">'
    r"\(([^<]*)\)( <strong>[^<]*first solution error</strong>)?</span>"
)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def checked(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    syzygy: str,
) -> Iterator[tuple[TestClient, str]]:
    """The crafted and classic studies and the hostile one, checked by ``studydb check``."""
    folder = tmp_path_factory.mktemp("checked")
    with database_on(request.param, folder / "checked.sqlite") as url:
        crafted = crafted_pgn(folder / "crafted.pgn")
        with studydb.open(url) as writable:
            summary = writable.import_paths([crafted, CLASSICS, HOSTILE], jobs=1)
        assert summary.rejected == 0, summary
        result = runner.invoke(cli_app, ["check", "--syzygy", syzygy, "--db", url])
        assert result.exit_code == 0, result.output
        with read_only_client(url) as client:
            yield client, url


def crafted_id(client: TestClient, name: str) -> int:
    """The id of a study of test_checks.CRAFTED, found by its (unique) position."""
    fen = CRAFTED[name][0]
    rows = client.get(f"/api/search?per_page={MAX_PAGE_SIZE}").json()["results"]
    (study_id,) = [row["id"] for row in rows if row["fen"] == fen]
    return study_id


def show_annotations(url: str, study_id: int) -> list[tuple[str, str, str, bool]]:
    """The annotated moves ``studydb show`` prints (on a wide terminal, unwrapped)."""
    result = runner.invoke(cli_app, ["show", str(study_id), "--db", url], env={"COLUMNS": "500"})
    assert result.exit_code == 0, result.output
    found = [SHOW_LINE.match(line) for line in result.stdout.splitlines()]
    return [(m[1], m[2], m[3], bool(m[4])) for m in found if m]


def page_annotations(page: str) -> list[tuple[str, str, str, bool]]:
    """The annotated moves of a study page, as ``show`` would print them."""
    numbered = re.findall(r'<span class="number">([^<]*)</span><button[^>]*id="m(\d+)"', page)
    numbers = {node: number for number, node in numbered}
    notes = []
    for node, san, _classes, _ply, text_, error in PAGE_NOTE.findall(page):
        notes.append((numbers.get(node, ""), html.unescape(san), html.unescape(text_), bool(error)))
    return notes


def test_study_page_shows_the_verdict_and_the_annotations(
    checked: tuple[TestClient, str],
) -> None:
    client, url = checked
    study_id = crafted_id(client, "KRvK error at ply 3")
    page = client.get(f"/studies/{study_id}").text
    assert '<h2>Soundness: <span class="verdict verdict-unsound">unsound</span></h2>' in page
    assert '<a class="verdict verdict-unsound" href="#soundness">unsound</a>' in page
    for fact in (
        "<dt>Plies checked</dt><dd>4 by tables, 0 by engine</dd>",
        "<dt>Tables</dt><dd>4-men</dd>",
        "<dt>Engine</dt><dd>none</dd>",
        "<dt>Claim</dt><dd>checked by the tables at ply 0</dd>",
    ):
        assert fact in page, fact
    # The first error is a link that selects its move (?node=N without scripts).
    link = re.search(
        r'<dt>First solution error</dt><dd class="first-error"><a class="move-link" '
        r'id="first-error-link" href="\?node=(\d+)" data-node="\1">([^<]*)</a> \(ply 3\)</dd>',
        page,
    )
    assert link is not None
    assert re.search(rf'id="m{link[1]}"[^>]*>Rd3\+<', page) and link[2].endswith("Rd3+")
    assert re.search(r"<dt>Checked</dt><dd>\d{4}-\d\d-\d\d \d\d:\d\d</dd>", page)
    notes = page_annotations(page)
    # Every main-line move annotated as `show` prints it, with its number: an
    # annotation interrupts the line, so the next move is numbered again.
    expected = show_annotations(url, study_id)
    assert len(notes) == len(expected) == 4
    for (number, san, text_, error), (show_number, show_san, show_text, show_error) in zip(
        notes, expected, strict=True
    ):
        assert (number, san, text_, error) == (show_number, show_san, show_text, show_error)
    assert [n[3] for n in notes] == [False, False, True, False]
    assert notes[2][1] == "Rd3+" and "throws the win away" in notes[2][2]
    assert "2.Rd3+? draws: 2…Kxd3!; 2.Kb2 wins" in notes[2][2]  # refutation, what wins
    assert "DTZ 30 &lt; 32" in page  # our own notes are escaped too
    assert page.count("first solution error</strong>") == 1
    assert 'class="annotation note-error first-error" data-ply="3"' in page


def test_a_dual_is_annotated_with_its_alternatives(checked: tuple[TestClient, str]) -> None:
    client, url = checked
    study_id = crafted_id(client, "two winning first moves")
    page = client.get(f"/studies/{study_id}").text
    assert '<span class="verdict verdict-duals">duals</span>' in page
    (note,) = page_annotations(page)
    assert note == ("1.", "Kd5", "win, DTZ 3; also Kc5 DTZ 3 (as fast)", False)
    assert show_annotations(url, study_id) == [note]
    assert 'class="annotation note-dual"' in page
    assert "first solution error</strong>" not in page


def test_api_study_has_the_check(checked: tuple[TestClient, str]) -> None:
    client, url = checked
    study_id = crafted_id(client, "KRvK error at ply 3")
    body = client.get(f"/api/studies/{study_id}").json()
    check = body["check"]
    assert (check["verdict"], check["error_ply"], check["claim_ply"]) == ("unsound", 3, 0)
    assert (check["table_plies"], check["tables_men"]) == (4, 4)
    assert [p["san"] for p in check["plies"]] == ["Rh3+", "Kd4", "Rd3+", "Kxd3"]
    assert check["plies"][2]["refutation"] == "Kxd3"
    shown = runner.invoke(cli_app, ["show", str(study_id), "--db", url, "-f", "json"])
    assert {k: v for k, v in body.items() if k != "solution"} == json.loads(shown.stdout)


def test_no_errors_says_from_which_move(checked: tuple[TestClient, str]) -> None:
    """A study checked from a later move only: not "sound", and the page says from where."""
    client, url = checked
    study_id = client.get("/api/search?verdict=no-errors&sort=id").json()["results"][0]["id"]
    check = client.get(f"/api/studies/{study_id}").json()["check"]
    assert check["verdict"] == "no-errors" and check["checked_from"] > 0
    assert check["summary"].startswith("no errors found ")
    assert "beyond the 4-man tables, and no engine" in check["reason"]
    page = client.get(f"/studies/{study_id}").text
    assert '<span class="verdict verdict-no-errors">no-errors</span>' in page
    assert f'<p class="checked-from">{html.escape(check["summary"])}</p>' in page
    assert f'<p class="reason">{html.escape(check["reason"])}</p>' in page
    shown = runner.invoke(cli_app, ["show", str(study_id), "--db", url], env={"COLUMNS": "500"})
    assert f"Soundness: {check['summary']}  (" in shown.stdout
    assert f"  {check['reason']}" in shown.stdout.splitlines()


def test_never_checked_studies_have_no_soundness_section(client: TestClient) -> None:
    study_id = hostile_id(client)  # the collection no check ran on
    page = client.get(f"/studies/{study_id}").text
    assert "<dt>Soundness</dt><dd>not checked</dd>" in page
    assert 'id="soundness"' not in page and 'class="annotation' not in page
    assert client.get(f"/api/studies/{study_id}").json()["check"] is None
    assert 'class="verdict' not in client.get("/search").text


def test_out_of_reach_studies_are_unchecked_and_stay_escaped(
    checked: tuple[TestClient, str],
) -> None:
    client, url = checked
    study_id = hostile_id(client)  # five men: beyond the tables
    page = client.get(f"/studies/{study_id}").text
    assert '<span class="verdict verdict-unchecked">unchecked</span>' in page
    assert "<dt>Plies checked</dt><dd>0 by tables, 0 by engine</dd>" in page
    assert "<dt>Claim</dt><dd>not within the tables</dd>" in page
    # The page leaves out the "(not checked)" that show prints after each move.
    shown = show_annotations(url, study_id)
    assert shown and all(text_ == "not checked" for _, _, text_, _ in shown)
    assert page_annotations(page) == []
    assert "(not checked)" not in page
    assert "<script>window" not in page and "<b>" not in page
    assert "&lt;script&gt;window.hackedComment = 1&lt;/script&gt;" in page
    assert re.findall(r"<script[^>]*>", page) == ['<script src="/static/study.js">']


#: Verdict searches: URL query, the same on the command line.
VERDICT_CASES = [
    ("verdict=sound", ["--verdict", "sound"]),
    ("verdict=unsound", ["--verdict", "unsound"]),
    ("verdict=unsound&verdict=duals", ["--verdict", "unsound", "--verdict", "duals"]),
    ("verdict=unchecked", ["--verdict", "unchecked"]),
    ("verdict=Duals&stipulation=win", ["--verdict", "Duals", "--stipulation", "win"]),
    ("verdict=sound&material=0300.10", ["--verdict", "sound", "0300.10"]),
]


@pytest.mark.slow
@pytest.mark.parametrize(("query", "args"), VERDICT_CASES)
def test_verdict_filter_finds_what_the_command_line_finds(
    checked: tuple[TestClient, str], query: str, args: list[str]
) -> None:
    client, url = checked
    found = api_ids(client, f"{query}&sort=id")
    expected = [
        r["id"] for r in cli_json("search", *args, "--sort", "id", "--db", url, "-f", "json")
    ]
    assert found == expected
    wanted = {v.lower() for n, v in parse_qsl(query) if n == "verdict"}
    every = api_ids(client, "sort=id")
    stored = {i: client.get(f"/api/studies/{i}").json()["check"]["verdict"] for i in every}
    assert found and all(stored[i] in wanted for i in found)
    if all(n == "verdict" for n, _ in parse_qsl(query)):
        assert found == [i for i in every if stored[i] in wanted]
    page = client.get(f"/search?{query}&per_page={MAX_PAGE_SIZE}").text
    badges = re.findall(r'<span class="verdict verdict-(\w+)">', page)
    shown = [int(i) for i in re.findall(r'<li class="result" data-study="(\d+)">', page)]
    assert set(shown) <= set(found)  # versions fold into one row
    assert len(badges) == len(shown) and set(badges) <= wanted


def test_verdict_counts_are_the_checks_counts(checked: tuple[TestClient, str]) -> None:
    client, _ = checked
    totals = {v: client.get(f"/api/search?verdict={v}").json()["total"] for v in VERDICTS}
    classics = [verdict for verdict, _, _ in CLASSICS_CHECKED.values()]
    sound = [v for v, _, _ in EXPECTED].count("sound") + classics.count("sound")
    assert (totals["unsound"], totals["duals"], totals["doubts"]) == (2, 1, 0)
    assert totals["sound"] == sound
    assert totals["no-errors"] == classics.count("no-errors") > 0
    assert sum(totals.values()) == client.get("/api/search").json()["total"]


def test_verdict_checkboxes_in_the_form_keep_the_choice(client: TestClient) -> None:
    page = client.get("/?verdict=unsound&verdict=duals").text
    boxes = re.findall(
        r'<input type="checkbox" name="verdict" value="([\w-]+)" id="f-verdict-\1"\s*(checked)?>',
        page,
    )
    assert [v for v, _ in boxes] == list(VERDICTS)  # checkboxes, no Ctrl-click
    assert [v for v, chosen in boxes if chosen] == ["unsound", "duals"]
    assert "<legend>Verdict</legend>" in page
    assert 'id="f-verdict-sound"' in client.get("/search?verdict=sound").text  # refine too


def test_verdict_styles_come_from_the_one_list(client: TestClient) -> None:
    from studydb.vocabulary import badge_css

    response = client.get("/verdicts.css")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/css")
    assert response.text == badge_css()
    assert all(f".verdict-{verdict} {{" in response.text for verdict in VERDICTS)
    assert '<link rel="stylesheet" href="/verdicts.css">' in client.get("/").text
    static = client.get("/static/studydb.css").text
    assert not any(f".verdict-{verdict} {{" in static for verdict in VERDICTS)


def test_bad_verdict_is_a_400_naming_it(client: TestClient) -> None:
    for path in ("/search?verdict=cooked", "/api/search?verdict=cooked", "/stats?verdict=x"):
        response = client.get(path)
        assert response.status_code == 400, path
        assert "verdict" in response.text and "Traceback" not in response.text
    assert client.get("/api/search?verdict=cooked").json()["param"] == "verdict"


def test_stats_chart_of_the_verdicts(checked: tuple[TestClient, str]) -> None:
    client, url = checked
    page = client.get("/stats").text
    start = page.index("<h2>By soundness verdict</h2>")
    section = page[start : page.find("<h2>", start + 1)]
    bars = re.findall(
        r'<th scope="row"><a href="/search\?([^"]*)">([^<]*)</a></th>\s*<td class="count">(\d+)<',
        section,
    )
    stats = cli_json("stats", "--db", url, "-f", "json")
    assert [(label, int(n)) for _, label, n in bars] == [
        (v["verdict"], v["count"]) for v in stats["verdicts"]
    ]
    for query, label, count in bars:
        assert query == f"verdict={label}"
        assert client.get(f"/api/search?{query}").json()["total"] == int(count)
    narrowed = client.get("/stats?stipulation=draw").text
    assert 'href="/search?stipulation=draw&amp;verdict=unsound"' in narrowed


@pytest.mark.slow
def test_installed_scripts_check_then_serve_the_verdicts(syzygy: str, tmp_path: Path) -> None:
    db = str(tmp_path / "checked.sqlite")
    subprocess.run(
        [str(STUDYDB), "import", str(crafted_pgn(tmp_path / "crafted.pgn")), "--db", db],
        capture_output=True,
        check=True,
    )
    done = subprocess.run(
        [str(STUDYDB), "check", "--syzygy", syzygy, "--db", db],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    with serving(db) as url:
        status, body = fetch(url + "api/search?verdict=unsound&sort=id")
        assert status == 200, body
        fens = [row["fen"] for row in json.loads(body)["results"]]
        assert fens == [CRAFTED["claimed draw, won KQvK"][0], CRAFTED["KRvK error at ply 3"][0]]
        study_id = json.loads(body)["results"][1]["id"]
        status, page = fetch(url + f"studies/{study_id}")
        assert status == 200
        assert '<span class="verdict verdict-unsound">unsound</span>' in page
        assert 'class="annotation note-error first-error" data-ply="3"' in page
        status, page = fetch(url + "stats")
        assert status == 200 and 'href="/search?verdict=duals">duals</a>' in page


# -- the position index on the pages (issue 10) --------------------------------------

SHARED_START = "8/8/1KP5/3r4/8/7p/7P/k7 w - - 0 1"
#: The position after 1. c7 Rd6+ 2. Kb5 of SHARED_START (where LATER starts).
AFTER_KB5 = "8/2P5/3r4/1K6/8/7p/7P/k7 b - - 2 2"
#: AFTER_KB5 mirrored left to right: the same position only for ``similar``.
MIRRORED_KB5 = "8/5P2/4r3/6K1/8/p7/P7/7k b - - 2 2"
HOSTILE_NAME = '<script>window.hackedShared = 1</script> & "Co"'
#: (composer, year, start, movetext): five 6-man studies sharing positions.
SHARING = [
    (
        "Alpha, Anna",
        1910,
        SHARED_START,
        "1. c7 Rd6+ 2. Kb5 (2. Kc5 Rd1 3. c8=Q) 2... Rd5+ 3. Kb4 Rd4+ 4. Kb3 *",
    ),
    (
        "Beta, Bruno",
        1950,
        SHARED_START,
        "1. c7 Rd6+ 2. Kb5 Rd5+ 3. Kb4 Rd4+ 4. Kb3 Rd3+ 5. Kc2 Rd4 6. c8=R Ra4 7. Kb3 *",
    ),
    (HOSTILE_NAME, 1960, AFTER_KB5, "2... Rd5+ 3. Kb4 Rd4+ 4. Kb3 Rd3+ 5. Kc2 *"),
    ("Delta, Dora", None, MIRRORED_KB5, "2... Re5+ 3. Kg4 *"),
    ("Epsilon, Emil", 1930, SHARED_START, "1. c7 Rd6+ 2. Kc5 (2. Kb5 Rd5+) 2... Rd1 *"),
]
SHARED_ROW = re.compile(
    r'<tr data-study="(\d+)">\s*<td><a href="([^"]*)">study \d+</a></td>\s*<td>([^<]*)</td>\s*'
    r"<td>([^<]*)</td>\s*<td[^>]*>(\d+) positions?</td>\s*<td>([^<]*)</td>\s*<td>([^<]*)</td>"
)
VERSION_ITEM = re.compile(r'<li data-study="(\d+)"><a href="([^"]*)">study \d+</a>')
OCCURRENCE = re.compile(r'<a class="occurrence" href="([^"]*)" data-node="(\d+)">([^<]*)</a>')


def folded(rows: list[dict]) -> list[dict]:
    """Result rows as a page shows them: one row per start position (versions fold)."""
    seen: set[str] = set()
    kept = []
    for row in rows:
        if row["fen"] not in seen:
            seen.add(row["fen"])
            kept.append(row)
    return kept


def sharing_pgn(path: Path) -> Path:
    games = []
    for number, (composer, year, fen, moves) in enumerate(SHARING, 1):
        date = f"{year}.??.??" if year else "????.??.??"
        games.append(
            f'[Event "Sharing {number}"]\n[Site "?"]\n[Date "{date}"]\n[Round "?"]\n'
            f'[White "{composer}"]\n[Black "?"]\n[Result "*"]\n[Composer "{composer}"]\n'
            f'[Source "Sharing {number}"]\n[SetUp "1"]\n[FEN "{fen}"]\n\n{moves}\n'
        )
    path.write_text("\n".join(games), encoding="utf-8")
    return path


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def sharing(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[TestClient, str, dict[int, int]]]:
    """The SHARING studies, indexed; the client, the URL and the ids by SHARING's index."""
    folder = tmp_path_factory.mktemp("sharing")
    with database_on(request.param, folder / "sharing.sqlite") as url:
        with studydb.open(url) as writable:
            summary = writable.import_paths([sharing_pgn(folder / "sharing.pgn")], jobs=1)
        assert summary.stored == len(SHARING), summary
        with read_only_client(url) as client:
            rows = client.get("/api/search?sort=id").json()["results"]
            ids = {int(row["source"].split()[-1]) - 1: row["id"] for row in rows}
            yield client, url, ids


def shared_section(page: str) -> str:
    """The sharing section of a study page ('' if the page has none)."""
    if '<section class="related" id="related">' not in page:
        return ""
    start = page.index('<section class="related" id="related">')
    return page[start : page.index("</section>", start)]


def test_study_page_says_what_its_shared_positions_and_themes_rest_on(tmp_path: Path) -> None:
    """Beside studies sharing positions, studies imported with --positions none (never
    compared): the page says how many of 5+ men were not compared, as show does; an
    unindexed study's page says its main line was not searched for themes."""
    url = str(tmp_path / "rest.sqlite")
    with studydb.open(url) as writable:
        writable.import_paths([sharing_pgn(tmp_path / "sharing.pgn")], jobs=1)
        writable.import_paths([CLASSICS], jobs=1, positions="none")
    with read_only_client(url) as client:
        rows = client.get("/api/search?sort=id&per_page=100").json()["results"]
        first = next(row["id"] for row in rows if row["source"] == "Sharing 1")
        saavedra = next(row["id"] for row in rows if row["source"] == "Glasgow Weekly Citizen")
        record = client.get(f"/api/studies/{first}").json()
        assert record["shares_positions_with"] > 0 and record["not_compared"] == 21
        section = shared_section(client.get(f"/studies/{first}").text)
        assert (
            '<p class="note unindexed">21 other studies of 5+ men are not in the position index'
            " and were not compared: <code>studydb index</code> indexes them.</p>"
        ) in section
        page = client.get(f"/studies/{saavedra}").text
        themes = page[page.index('<section class="themes"') :]
        themes = themes[: themes.index("</section>")]
        assert "none found" not in themes
        assert "main line not searched for themes" in themes
        assert client.get(f"/api/studies/{saavedra}").json()["main_line_searched"] is False
        # the statistics page's theme chart rests on the index's replay: it says so
        stats = client.get("/stats").text
        assert '<p class="unindexed" id="unindexed">25 of the studies' in stats


@pytest.mark.parametrize("index", range(len(SHARING)))
def test_study_page_lists_what_show_anticipations_lists(
    sharing: tuple[TestClient, str, dict[int, int]], index: int
) -> None:
    client, url, ids = sharing
    study_id = ids[index]
    shown: dict = cli_json("show", str(study_id), "--anticipations", "--db", url, "-f", "json")
    response = client.get(f"/studies/{study_id}")
    assert response.status_code == 200, response.text
    section = shared_section(response.text)
    count = len(shown["anticipations"])
    assert shown["shares_positions_with"] == count
    if count:
        assert f"with {count} other stud{'y' if count == 1 else 'ies'}</h2>" in section
    else:
        assert "Shares positions" not in section
    rows = SHARED_ROW.findall(section)
    assert [int(r[0]) for r in rows] == [a["id"] for a in shown["anticipations"]]
    for (_, link, names, year, positions, _, _), hit in zip(
        rows, shown["anticipations"], strict=True
    ):
        node = hit["shared"][0]["other_node"]
        assert link == f"/studies/{hit['id']}" + (f"?node={node}" if node else "")
        assert html.unescape(names) == ("; ".join(hit["composers"]) or "composer unknown")
        assert year == str(hit["year"] if hit["year"] is not None else "undated")
        assert int(positions) == hit["positions"]
    versions = VERSION_ITEM.findall(section)
    assert [int(v) for v, _ in versions] == [v["id"] for v in shown["versions"]]
    assert [link for _, link in versions] == [f"/studies/{v['id']}" for v in shown["versions"]]


def test_sharing_rows_say_where_the_first_shared_position_is(
    sharing: tuple[TestClient, str, dict[int, int]],
) -> None:
    client, _, ids = sharing
    rows = {int(r[0]): r for r in SHARED_ROW.findall(client.get(f"/studies/{ids[0]}").text)}
    # The 1960 study starts (ply 0) at the position after 2. Kb5, ply 3 here.
    later = rows[ids[2]]
    assert later[1] == f"/studies/{ids[2]}"  # its start: node 0, no parameter
    assert (later[5], later[6]) == ("ply 3 (after 2.) main", "ply 0 (start) main")
    # The other versions share the start position; the 1950 one every move to 4. Kb3.
    assert rows[ids[1]][4:] == ("8", "ply 0 (start) main", "ply 0 (start) main")
    assert ids[3] not in rows  # the mirror image is only similar
    # From the 1960 study: the position after 2. Kb5 is a variation of 1930's, node 2.
    rows = {int(r[0]): r for r in SHARED_ROW.findall(client.get(f"/studies/{ids[2]}").text)}
    assert rows[ids[4]][1] == f"/studies/{ids[4]}?node=4"
    assert (rows[ids[4]][5], rows[ids[4]][6]) == (
        "ply 0 (start) main",
        "ply 3 (after 2.) variation",
    )


def test_sharing_section_escapes_the_names(sharing: tuple[TestClient, str, dict[int, int]]) -> None:
    client, _, ids = sharing
    section = shared_section(client.get(f"/studies/{ids[0]}").text)
    assert "<script>window.hackedShared" not in section
    # ' & ' splits the credit into two names, each escaped
    assert "&lt;script&gt;window.hackedShared = 1&lt;/script&gt;; &#34;Co&#34;" in section


def test_a_study_with_nothing_shared_has_no_sharing_section(client: TestClient) -> None:
    (saavedra,) = api_ids(client, "material=0300.10")
    page = client.get(f"/studies/{saavedra}").text
    assert shared_section(page) == ""
    assert "with 0 other studies" not in page and "Other versions" not in page


@pytest.mark.parametrize(
    ("query", "args"),
    [
        (f"position={AFTER_KB5}", ["--position", AFTER_KB5]),
        (f"position={AFTER_KB5}&similar=1", ["--position", AFTER_KB5, "--similar"]),
        (f"position={AFTER_KB5}&main_line=1", ["--position", AFTER_KB5, "--main-line"]),
        (f"position={SHARED_START}", ["--position", SHARED_START]),
    ],
)
def test_position_search_shows_where_it_occurs(
    sharing: tuple[TestClient, str, dict[int, int]], query: str, args: list[str]
) -> None:
    client, url, _ = sharing
    expected = cli_json("search", *args, "--sort", "id", "--db", url, "-f", "json")
    assert expected  # the search finds something
    params = parse_qsl(query)
    api = client.get("/api/search", params=[*params, ("sort", "id")]).json()["results"]
    assert [(r["id"], r["occurrences"]) for r in api] == [
        (r["id"], r["occurrences"]) for r in expected
    ]
    page = client.get("/search", params=[*params, ("sort", "id")]).text
    results = page.split('<li class="result" data-study=')[1:]
    assert len(results) == len(folded(expected))
    for item, row in zip(results, folded(expected), strict=True):
        found = OCCURRENCE.findall(item)
        wanted = []
        for o in row["occurrences"]:
            text_ = "the start" if o["ply"] == 0 else f"after {o['move']}"
            if not o["main"]:
                text_ += f", in the variation {o['variation']}"
            link = f"/studies/{row['id']}" + (f"?node={o['node']}" if o["node"] else "")
            wanted.append((link, str(o["node"]), text_))
        assert found == wanted
        assert f'class="title" href="{html.escape(wanted[0][0])}"' in item  # opens at the first


def test_similar_finds_the_mirror_image(sharing: tuple[TestClient, str, dict[int, int]]) -> None:
    client, _, ids = sharing
    exact = api_ids(client, f"position={AFTER_KB5.replace(' ', '+')}&sort=id")
    similar = api_ids(client, f"position={AFTER_KB5.replace(' ', '+')}&similar=1&sort=id")
    assert ids[3] not in exact and ids[3] in similar
    assert sorted(similar) == sorted([*exact, ids[3]])


@pytest.mark.parametrize(
    ("query", "args"),
    [
        ("reaches=KRPvKRP", ["--reaches", "KRPvKRP"]),
        ("ends_in=KRPvKRP", ["--ends-in", "KRPvKRP"]),
        ("reaches=KQPvKRP", ["--reaches", "KQPvKRP"]),
        ("reaches=KPPvKRP", ["--reaches", "KPPvKRP"]),
        ("reaches=KRPvKPP&either_colour=1", ["--reaches", "KRPvKPP", "--either-colour"]),
    ],
)
def test_reaches_and_ends_in_find_what_the_command_line_finds(
    sharing: tuple[TestClient, str, dict[int, int]], query: str, args: list[str]
) -> None:
    client, url, _ = sharing
    rows = cli_json("search", *args, "--sort", "id", "--db", url, "-f", "json")
    expected = [r["id"] for r in rows]
    assert api_ids(client, f"{query}&sort=id") == expected
    page = client.get(f"/search?{query}&sort=id").text
    shown = re.findall(r'<a class="title" href="/studies/(\d+)"', page)
    assert shown == [str(r["id"]) for r in folded(rows)]  # versions in one row


def test_reaches_selects(sharing: tuple[TestClient, str, dict[int, int]]) -> None:
    client, _, ids = sharing
    assert api_ids(client, "reaches=KRPvKRP&sort=id") == [ids[1]]  # only 6. c8=R
    assert api_ids(client, "reaches=KQPvKRP&sort=id") == []  # 3. c8=Q is a variation
    assert len(api_ids(client, "reaches=KPPvKRP")) == len(SHARING)
    assert api_ids(client, "reaches=KRPvKPP") == []  # the colours reversed
    assert len(api_ids(client, "reaches=KRPvKPP&either_colour=1")) == len(SHARING)


def test_study_page_opens_at_a_node(sharing: tuple[TestClient, str, dict[int, int]]) -> None:
    client, _, ids = sharing
    page = client.get(f"/studies/{ids[4]}?node=4").text  # 2. Kb5, the variation
    current = re.findall(r'<button type="button" class="move[^"]*current"[^>]*>([^<]*)<', page)
    assert current == ["Kb5"]
    assert 'id="m4" data-node="4"' in page and 'aria-current="step"' in page
    board = re.search(r'<img id="board" src="([^"]*)"', page)
    assert board is not None
    params = dict(parse_qsl(urlsplit(html.unescape(board[1])).query))
    assert params["fen"] == AFTER_KB5 and params["lastmove"] == "b6b5"
    start = client.get(f"/studies/{ids[4]}").text
    assert 'class="move start current"' in start
    assert 'class="move start current"' in client.get(f"/studies/{ids[4]}?node=0").text


@pytest.mark.parametrize(
    ("path", "param"),
    [
        ("/search?position=nonsense", "position"),
        ("/api/search?position=8%2F8%2F8+w", "position"),
        ("/search?position=8/8/8/8/8/8/8/8+w+-+-+0+1", "position"),  # no kings
        ("/api/search?reaches=KXvK", "reaches"),
        ("/api/search?ends_in=0000.1x", "ends_in"),
        ("/studies/1?node=999", "node"),
        ("/studies/1?node=abc", "node"),
        ("/studies/1?node=HUGE", "node"),  # 5,000 digits: beyond what int() reads
        ("/api/studies/1?node=HUGE", "node"),
        ("/studies/1?move=3", "move"),
    ],
)
def test_bad_position_parameters_are_400_naming_them(
    sharing: tuple[TestClient, str, dict[int, int]], path: str, param: str
) -> None:
    client, _, ids = sharing
    path = path.replace("/studies/1?", f"/studies/{ids[0]}?").replace("HUGE", "9" * 5000)
    response = client.get(path)
    assert response.status_code == 400, response.text
    if path.startswith("/api/"):
        assert response.json()["param"] == param
    else:
        assert param in response.text and "Traceback" not in response.text


def test_form_offers_the_position_filters(client: TestClient) -> None:
    page = client.get(f"/search?position={AFTER_KB5.replace(' ', '+')}&similar=1").text
    form = page[page.index("<form") : page.index("</form>")]
    assert f'value="{AFTER_KB5}"' in form  # the FEN kept
    assert re.search(r'name="similar" value="1"[^>]*\s+checked>', form)
    for label in (
        "Position",
        "Similar positions",
        "On the main line",
        "Main line reaches",
    ):
        assert f"{label}</label>" in form or f"> {label}</label>" in form, label
    assert "--" not in re.sub(r"<!--.*?-->", "", form)  # no command-line option names
    assert 'class="field field-text field-position"' in form


# -- pages a composer would choose (issue 19) -----------------------------------------


@pytest.mark.parametrize(
    ("path", "clean"),
    [
        ("/search?material=&year=&sort=gbr&composer=kubbel&page=1", "/search?composer=kubbel"),
        ("/search?composer=kubbel&view=cards&per_page=50", "/search?composer=kubbel"),
        ("/search?composer=&source=", "/search"),
        ("/search?sort=newest&view=table&award=", "/search?sort=newest&view=table"),
    ],
)
def test_a_form_s_empty_fields_and_defaults_leave_the_address(
    client: TestClient, path: str, clean: str
) -> None:
    response = client.get(path, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == clean
    assert client.get(clean, follow_redirects=False).status_code == 200
    # The API answers as asked: no redirects for programs.
    assert client.get(path.replace("/search", "/api/search")).status_code == 200


def test_table_view(client: TestClient) -> None:
    page = client.get("/search?composer=kubbel&view=table").text
    table = page[page.index('<table class="results"') : page.index("</table>")]
    headings = re.findall(r'<th scope="col">([^<]*)</th>', table)
    assert headings == ["", "Composers", "Year", "Source", "Award", "GBR", "Men", "Verdict"][1:]
    rows = client.get("/api/search?composer=kubbel").json()["results"]
    for row in rows:
        tr = re.search(rf'<tr data-study="{row["id"]}">(.*?)</tr>', table, re.S)
        assert tr is not None
        white, black = row["signature"].split("v")
        assert f"({len(white)}+{len(black)})" in tr[1]  # men as (4+3)
        assert row["gbr"] in tr[1] and str(row["year"]) in tr[1]
        assert "size=64" in tr[1]  # a thumbnail
    # The view stays in the links: pages, sorts, page sizes.
    assert 'href="/search?composer=kubbel&amp;per_page=20&amp;view=table"' in page
    assert 'href="/search?composer=kubbel&amp;sort=newest&amp;view=table"' in page
    assert 'aria-current="true" href="/search?composer=kubbel&amp;view=table">table' in page
    assert '<input type="hidden" name="view" value="table">' in page  # the form keeps it
    response = client.get("/search?view=list")
    assert response.status_code == 400 and "<code>view</code>" in response.text


def test_page_sizes_and_sorts_are_links(client: TestClient) -> None:
    page = client.get("/search?sort=year&per_page=10&page=2").text
    for size in (20, 50, 100, 200):
        link = "/search?sort=year" + ("" if size == 50 else f"&amp;per_page={size}")
        assert f'href="{link}"' in page, size  # a new size starts at page 1
    assert 'href="/search?sort=newest&amp;per_page=10"' in page
    newest = api_ids(client, "sort=newest")
    oldest = api_ids(client, "sort=year")
    years = {r["id"]: r["year"] for r in client.get("/api/search?per_page=200").json()["results"]}
    dated = [years[i] for i in newest if years[i] is not None]
    assert dated == sorted(dated, reverse=True) and years[newest[-1]] is None
    assert [i for i in newest if years[i] is not None] != [i for i in oldest if years[i]]


def test_versions_fold_into_one_row_with_a_count(
    sharing: tuple[TestClient, str, dict[int, int]],
) -> None:
    client, _, ids = sharing
    same_start = [ids[0], ids[1], ids[4]]  # three studies from SHARED_START
    for view in ("cards", "table"):
        page = client.get(f"/search?sort=id&view={view}").text
        shown = [int(i) for i in re.findall(r'data-study="(\d+)"', page)]
        assert shown.count(ids[0]) == 1
        assert ids[1] not in shown and ids[4] not in shown  # folded into the first
        count = re.search(
            rf'href="/studies/{ids[0]}#related" title="[^"]*">(\d) versions</a>', page
        )
        assert count is not None and count[1] == "3"
        assert "(2 versions folded)" in page
    assert sorted(same_start) == sorted(
        r["id"]
        for r in client.get("/api/search?sort=id").json()["results"]
        if r["fen"] == SHARED_START
    )


def test_a_bad_search_keeps_the_form(client: TestClient) -> None:
    response = client.get("/search?year=19x&composer=Reti&verdict=sound")
    assert response.status_code == 400
    page = response.text
    assert "Parameter <code>year</code>: bad year &#39;19x&#39;" in page
    assert 'id="search-form"' in page
    assert 'value="19x"' in page and 'value="Reti"' in page
    assert re.search(r'value="sound" id="f-verdict-sound"\s+checked', page)


def test_each_value_shows_once_in_the_form(client: TestClient) -> None:
    page = client.get("/search?composer=kubbel&composer=grigoriev").text
    form = page[page.index('<form class="search"') : page.index("</form>")]
    inputs = re.findall(r'<input type="text" name="composer" value="([^"]*)"[^>]*>', form)
    assert inputs == ["kubbel", "grigoriev"]  # no empty box beside them
    assert '<label class="name" for="f-composer">Composer</label>' in form
    assert 'aria-label="Composer 2"' in form
    empty = client.get("/").text
    assert len(re.findall(r' name="composer"', empty)) == 1
    for placeholder in ('placeholder="NAME"', 'placeholder="TEXT"', 'placeholder="NUMBER"'):
        assert placeholder not in empty
    assert ">Eg<" not in empty and "EG reference</label>" in empty
    assert 'href="/gbr"' in empty and 'id="picker"' in empty  # GBR help and the picker


def test_every_page_has_one_h1(client: TestClient) -> None:
    saavedra = api_ids(client, "material=0300.10")[0]
    for path in ("/", "/search", "/search?view=table", "/stats", f"/studies/{saavedra}",
                 "/editor", "/gbr", "/search?year=19x", "/studies/424242"):  # fmt: skip
        assert client.get(path).text.count("<h1") == 1, path


def test_two_applications_in_one_process_keep_their_own_titles(served) -> None:
    """The templates are compiled once for the process; each application's site title
    (what each page's title ends with) is its own."""
    _, url = served
    with studydb.open(url, read_only=True) as db:
        first = TestClient(create_app(db.engine, title="Troitzky's studies"))
        second = TestClient(create_app(db.engine, title="Kasparyan <collection>"))
        assert "<title>Search · Troitzky&#39;s studies</title>" in first.get("/").text
        assert "<title>Search · Kasparyan &lt;collection&gt;</title>" in second.get("/").text
        assert "<title>Statistics · Troitzky&#39;s studies</title>" in first.get("/stats").text


def test_study_page_title_facts_and_headers(client: TestClient) -> None:
    (saavedra,) = api_ids(client, "material=0300.10")
    page = client.get(f"/studies/{saavedra}").text
    assert "<title>Saavedra, Fernando, 1895 · studydb</title>" in page
    h1 = re.search(r"<h1>(.*?)</h1>", page, re.S)
    assert h1 is not None
    # the composer's name links to the person's page (issue 16)
    assert re.search(r'href="/composers/\d+">Saavedra, Fernando</a>', h1[1])
    assert "Glasgow Weekly Citizen" in page and "White to play and win" in page
    assert '<span class="men" title="White\'s men + Black\'s men">(2+2)</span>' in page
    headers = page[page.index("<h2>Other headers</h2>") :] if "Other headers" in page else ""
    for repeated in ('<th scope="row">Site', '<th scope="row">Round', "<td>?</td>", "FEN"):
        assert repeated not in headers.split("</table>")[0]
    assert "Study " + str(saavedra) + "<" not in page  # the title is no database id
    alt = re.search(r'<img id="board"[^>]*alt="([^"]*)"', page)
    assert alt is not None and alt[1] == (
        "White Kb6, Pc6; Black Ka1, Rd5 (2+2); White to move; FEN 8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"
    )
    assert 'id="search-position" href="/search?position=8%2F8%2F1KP5%2F3r4%2F8%2F8%2F8%2Fk7' in page
    assert f'href="/studies/{saavedra}.pgn"' in page and 'id="copy-fen"' in page


def test_study_page_says_credited_as_only_for_other_names(client: TestClient) -> None:
    """The facts' composers are the persons; "credited as" only when the names differ."""
    (saavedra,) = api_ids(client, "material=0300.10")
    page = client.get(f"/studies/{saavedra}").text
    facts = page[page.index('<dl class="facts">') :].split("</dl>")[0]
    assert re.search(
        r'<dt>Composers</dt><dd><a class="composer" href="/composers/\d+">Saavedra', facts
    )
    assert "(credited as" not in facts


def test_nags_show_as_symbols_with_their_meanings(client: TestClient) -> None:
    (saavedra,) = api_ids(client, "material=0300.10")
    page = client.get(f"/studies/{saavedra}").text
    assert "$1" not in page and "$2" not in page
    assert re.search(r'id="m\d+"[^>]*>c8=R<span class="glyph">!</span></button>', page)
    assert re.search(r'id="m\d+"[^>]*>c8=Q<span class="glyph">\?</span></button>', page)
    legend = page[page.index('id="legend"') :]
    assert '<dt class="nag">!</dt><dd>good move</dd>' in legend
    assert '<dt class="nag">?</dt><dd>poor move</dd>' in legend
    # The variation is a row of its own, indented; the main line resumes numbered.
    assert re.search(
        r'<div class="row depth-1 opens">\s*<span class="ply"><span class="number">6.</span>', page
    )
    assert re.search(
        r'<div class="row depth-0">\s*<span class="ply"><span class="number">6...</span>', page
    )


def test_study_pgn_download(served: tuple[TestClient, str]) -> None:
    client, url = served
    (saavedra,) = api_ids(client, "material=0300.10")
    response = client.get(f"/studies/{saavedra}.pgn")
    assert response.status_code == 200
    assert response.headers["content-disposition"] == f'attachment; filename="study-{saavedra}.pgn"'
    shown = cli_json("show", str(saavedra), "--db", url, "-f", "json")
    assert response.text == shown["pgn"].rstrip("\n") + "\n"
    assert client.get("/studies/424242.pgn").status_code == 404
    assert client.get("/studies/x.pgn").status_code == 404


def test_editor_page(client: TestClient) -> None:
    page = client.get("/editor?fen=8/8/1KP5/3r4/8/8/8/k7+b+-+-+0+1").text
    assert len(re.findall(r'<button type="button" class="sq', page)) == 64
    assert 'value="8/8/1KP5/3r4/8/8/8/k7 b - - 0 1"' in page
    assert re.search(r'id="turn-b"\s+checked', page)
    assert 'id="reset"' in page  # back to the given position
    assert 'action="/search"' in page and 'name="position"' in page
    assert "/static/editor.js" in page
    start = client.get("/editor").text
    assert f'value="{chess.STARTING_FEN}"' in start and 'id="reset"' not in start
    for bad in ("/editor?fen=nonsense", "/editor?position=x"):
        response = client.get(bad)
        assert response.status_code == 400, bad


def test_pieces_for_the_editor(client: TestClient) -> None:
    for name in ("wK", "bQ", "wP", "bN"):
        response = client.get(f"/pieces/{name}.svg")
        assert response.status_code == 200 and response.text.startswith("<svg")
        assert response.headers["content-type"].startswith("image/svg+xml")
    assert client.get("/pieces/xK.svg").status_code == 404


def test_gbr_page_explains_codes_with_examples(client: TestClient) -> None:
    page = client.get("/gbr").text
    examples = re.findall(
        r'<td class="gbr"><a href="/search\?material=([\d.]+)">([\d.]+)</a></td>\s*'
        r'<td class="gbr">(\w+)</td>',
        page,
    )
    assert len(examples) == len(studydb.web.app.GBR_EXAMPLES)
    for (name, fen), (link, code, signature) in zip(
        studydb.web.app.GBR_EXAMPLES, examples, strict=True
    ):
        assert link == code == gbr.encode(fen), name
        assert signature == gbr.material(fen).signature
    for form in ("KRP v KR", "R+P v R", "rook and pawn versus rook"):
        assert form in page


def test_a_position_search_shows_the_position_found(
    sharing: tuple[TestClient, str, dict[int, int]],
) -> None:
    client, _, _ = sharing
    wanted = AFTER_KB5.replace("/", "%2F").replace(" ", "+")
    page = client.get(f"/search?position={AFTER_KB5}").text
    thumbs = re.findall(r'<img src="/diagram.svg\?fen=([^&]*)&amp;size=160"', page)
    assert thumbs and set(thumbs) == {wanted}  # not the studies' start positions
    # With similar positions a study may hold an image of it: its start shows.
    similar = client.get(f"/search?position={AFTER_KB5}&similar=1").text
    shown = re.findall(
        r'<li class="result" data-study="(\d+)">\s*.*?<img src="/diagram.svg\?fen=([^&]*)&amp;',
        similar,
        re.S,
    )
    rows = client.get(f"/api/search?position={AFTER_KB5}&similar=1").json()["results"]
    starts = {str(r["id"]): r["fen"].replace("/", "%2F").replace(" ", "+") for r in rows}
    assert shown and all(fen == starts[study] for study, fen in shown)


# -- issue 16: persons on the web -------------------------------------------------------


def test_a_composer_name_links_to_the_person_page_listing_names_and_studies(
    client: TestClient,
) -> None:
    page = client.get("/search", params={"composer": "Richard Reti"})
    assert page.status_code == 200
    links = set(re.findall(r'href="(/composers/\d+)">Réti, Richard<', page.text))
    assert len(links) == 1  # 'Reti, R.' is credited, the person's name is shown
    (link,) = links
    person = client.get(link)
    assert person.status_code == 200
    assert "<h1>Réti, Richard</h1>" in person.text
    assert "Reti, R." in person.text and "3 studies" in person.text
    record = client.get("/api" + link).json()
    assert {v["name"] for v in record["variants"]} == {"Réti, Richard", "Reti, R."}
    assert len(record["study_ids"]) == 3
    listed = client.get("/api/composers", params={"name": "kasparian"}).json()
    assert [p["name"] for p in listed["results"]] == ["Kasparyan, Genrikh"]
    assert "Kasparyan, Genrikh" in client.get("/composers").text


def test_search_json_carries_the_persons_and_stats_their_other_names(client: TestClient) -> None:
    found = client.get("/api/search", params={"composer": "reti"}).json()
    assert {p["name"] for r in found["results"] for p in r["persons"]} == {"Réti, Richard"}
    assert "Réti, Richard (also Reti, R.)" in client.get("/stats").text


@pytest.mark.parametrize("path", ["/composers/0", "/composers/x", "/api/composers/99999999999"])
def test_an_unknown_composer_is_a_404(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 404


def test_a_composers_studies_are_listed_a_page_at_a_time(tmp_path: Path) -> None:
    """1,001 studies of one composer: 500 a page on the page and in the record, with the
    count, next and previous links; past the last page, the last; a bad page is a 400."""
    size = studydb.web.app.PERSON_STUDIES
    pgn = tmp_path / "prolific.pgn"
    pgn.write_text(
        "".join(
            f'[Event "no. {i}"]\n[Composer "Prolific, Paul"]\n[Date "{1900 + i % 50}"]\n\n'
            "1. e4 *\n\n"
            for i in range(2 * size + 1)
        ),
        encoding="utf-8",
    )
    db = tmp_path / "prolific.sqlite"
    with studydb.open(db) as writable:
        writable.import_paths([pgn], positions="none")
    with read_only_client(db) as client:
        (person,) = client.get("/api/composers").json()["results"]
        path = f"/composers/{person['id']}"
        first = client.get(path).text
        assert first.count('<td class="gbr">') == size
        assert "Studies 1–500 of 1,001." in first and '?page=2" rel="next"' in first
        last = client.get(f"{path}?page=9").text  # past the end: the last page
        assert last.count('<td class="gbr">') == 1 and "Studies 1,001–1,001 of 1,001." in last
        api = [client.get(f"/api{path}?page={n}").json() for n in (1, 2, 3)]
        assert [len(r["study_ids"]) for r in api] == [size, size, 1]
        assert len({i for r in api for i in r["study_ids"]}) == 2 * size + 1  # none twice
        assert [(r["studies_page"], r["studies_pages"]) for r in api] == [(1, 3), (2, 3), (3, 3)]
        assert (api[0]["previous"], api[0]["next"]) == (None, f"/api{path}?page=2")
        assert (api[2]["previous"], api[2]["next"]) == (f"/api{path}?page=2", None)
        for bad in ("page=0", "page=x", "sort=year"):
            assert client.get(f"{path}?{bad}").status_code == 400, bad
            assert client.get(f"/api{path}?{bad}").json()["status"] == 400, bad


def test_the_composers_are_listed_a_page_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More than two pages of composers: PERSONS_PER_PAGE a page on /composers and
    /api/composers (a name search too), with the count, next and previous links that keep
    the name.  The page is made small (5), so that 12 composers make three pages."""
    monkeypatch.setattr(studydb.web.app, "PERSONS_PER_PAGE", 5)
    size = studydb.web.app.PERSONS_PER_PAGE
    chosen = random.Random(25)
    surnames = {"".join(chosen.choices("bcdfghklmnprstvz", k=5)).title() for _ in range(12)}
    pgn = tmp_path / "many.pgn"
    pgn.write_text(
        "".join(
            f'[Event "{name}"]\n[Composer "{name}, Anton"]\n\n1. e4 *\n\n' for name in surnames
        ),
        encoding="utf-8",
    )
    db = tmp_path / "many.sqlite"
    with studydb.open(db) as writable:
        writable.import_paths([pgn], positions="none")
    with read_only_client(db) as client:
        first = client.get("/api/composers").json()
        total, pages = first["total"], first["pages"]
        assert total > 2 * size and pages == -(-total // size) == 3
        api = [first, *(client.get(f"/api/composers?page={n}").json() for n in (2, 3, 4))]
        rest = total - 2 * size
        assert [len(r["results"]) for r in api] == [size, size, rest, rest]  # 4: the last
        assert [r["page"] for r in api] == [1, 2, 3, 3]
        names = [p["name"] for r in api[:3] for p in r["results"]]
        assert len(set(names)) == total  # each once across the pages
        assert (first["previous"], first["next"]) == (None, "/api/composers?page=2")
        assert (api[2]["previous"], api[2]["next"]) == ("/api/composers?page=2", None)
        named = client.get("/api/composers?name=anton&page=2").json()
        assert named["total"] == total
        assert named["previous"] == "/api/composers?name=anton&page=1"
        page = client.get("/composers?name=anton").text
        assert page.count('<a href="/composers/') == size and f"{total:,} persons" in page
        assert f"Composers 1–{size} of {total:,}." in page
        assert '?name=anton&amp;page=2" rel="next"' in page
        for bad in ("page=0", "page=x", "sort=year"):
            assert client.get(f"/composers?{bad}").status_code == 400, bad
            assert client.get(f"/api/composers?{bad}").json()["status"] == 400, bad


# -- capped lists on the study page (issue 21) -----------------------------------------

#: A five-man start that every study below shares (kings, rook, two pawns).
SHARED_FEN = "4k3/8/8/8/8/8/PP6/R3K3 w - - 0 1"


def _numbered(moves: int) -> str:
    """A main line of ``moves`` plies: the knights' dance, numbered."""
    dance = ["Nf3", "Nf6", "Ng1", "Ng8"]
    parts = []
    for ply in range(moves):
        if ply % 2 == 0:
            parts.append(f"{ply // 2 + 1}.")
        parts.append(dance[ply % 4])
    return " ".join(parts)


@pytest.fixture(scope="module")
def crowded(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[TestClient, dict[str, int]]]:
    """45 studies sharing their start, and one with a 4,500-ply solution."""
    folder = tmp_path_factory.mktemp("crowded")
    games = [
        f'[Event "shared {i}"]\n[Date "{1900 + i}"]\n[FEN "{SHARED_FEN}"]\n[SetUp "1"]\n\n'
        "1. Kd2 Ke7 *\n\n"
        for i in range(45)
    ]
    games.append(f'[Event "long"]\n[Date "1950"]\n\n{_numbered(4500)} *\n\n')
    path = folder / "crowded.pgn"
    path.write_text("".join(games), encoding="utf-8")
    url = str(folder / "crowded.sqlite")
    with studydb.open(url) as writable:
        writable.import_paths([path])
    engine = open_read_only(url)
    ids = {
        row["event"]: row["id"]
        for row in ({"event": f"shared {i}" if i < 45 else "long", "id": i + 1} for i in range(46))
    }
    try:
        with TestClient(create_app(engine)) as client:
            yield client, ids
    finally:
        engine.dispose()


def test_sharing_studies_are_listed_a_page_at_a_time(crowded) -> None:
    client, ids = crowded
    page = client.get(f"/studies/{ids['shared 0']}")
    assert page.status_code == 200
    assert "with 44 other studies" in page.text
    assert page.text.count('<tr data-study="') == studydb.web.app.SHARED_PER_PAGE
    assert "Studies 1–20 of 44" in page.text and "?shared_page=2#related" in page.text
    last = client.get(f"/studies/{ids['shared 0']}?shared_page=3")
    assert last.text.count('<tr data-study="') == 4
    pager = re.search(r'<nav class="pager shared-pages".*?</nav>', last.text, re.S)
    assert pager is not None and "Studies 41–44 of 44" in pager[0] and "next ›" not in pager[0]
    beyond = client.get(f"/studies/{ids['shared 0']}?shared_page=99")
    assert "Studies 41–44 of 44" in beyond.text  # past the end: the last page
    for bad in ("0", "x", "9" * 50):
        answer = client.get(f"/studies/{ids['shared 0']}?shared_page={bad}")
        assert answer.status_code == 400 and "shared_page" in answer.text


def test_versions_are_listed_a_page_at_a_time(crowded) -> None:
    """A start position shared by many studies: 20 versions a page, a count, a next link."""
    client, ids = crowded
    study = ids["shared 0"]
    page = client.get(f"/studies/{study}").text
    listed = re.search(r'<ul class="versions">(.*?)</ul>', page, re.S)
    assert listed is not None and listed[1].count("<li ") == 20
    total = int(re.search(r"Other versions \(same start position\): ([\d,]+)", page)[1])
    assert total > 20
    assert "?versions_page=2#versions" in page
    pages = -(-total // 20)
    last = client.get(f"/studies/{study}?versions_page={pages}").text
    listed = re.search(r'<ul class="versions">(.*?)</ul>', last, re.S)
    assert listed is not None and listed[1].count("<li ") == total - 20 * (pages - 1)
    api = client.get(f"/api/studies/{study}?versions_page=2").json()
    assert (api["versions_total"], api["versions_page"], len(api["versions"])) == (
        total,
        2,
        min(20, total - 20),
    )
    assert client.get(f"/api/studies/{study}?versions_page=x").status_code == 400


@pytest.mark.slow  # 1.7 s: four records of a 4,500-move study, as its page's test (slow too)
def test_the_api_gives_a_long_solution_in_parts(crowded) -> None:
    """/api/studies/ID has the moves of one part, counts and links, as the page parts them."""
    client, ids = crowded
    study, size = ids["long"], studydb.web.app.SOLUTION_PART_MOVES
    first = client.get(f"/api/studies/{study}").json()["solution"]
    assert (first["part"], first["parts"], first["moves"], first["more"]) == (1, 3, 4500, False)
    assert (first["part_moves"], first["previous"], first["node"]) == (size, None, None)
    assert first["next"] == f"/api/studies/{study}?part=2"
    moves = [t for t in first["tokens"] if t["kind"] == "move"]
    assert [t["node"] for t in moves] == list(range(1, size + 1))
    assert (first["first_node"], first["last_node"]) == (1, size)
    second = client.get(first["next"] + "&versions_page=2").json()["solution"]
    assert second["next"] == f"/api/studies/{study}?versions_page=2&part=3"
    whole = render.solution_tokens(chess.Board(), _numbered(4500) + " *")
    expected = [
        (t.node, t.number + t.text, t.fen, t.uci) for t in whole if size < t.node <= 2 * size
    ]
    got = [(t["node"], t["number"] + t["san"], t["fen"], t["uci"]) for t in second["tokens"]]
    assert got == expected
    at = client.get(f"/api/studies/{study}?node=4321").json()["solution"]
    assert (at["part"], at["node"], at["next"], at["last_node"]) == (3, 4321, None, 4500)
    assert at["previous"] == f"/api/studies/{study}?part=2"
    for bad, param in (("node=4501", "node"), ("part=x", "part"), ("shared_page=2", "shared_page")):
        answer = client.get(f"/api/studies/{study}?{bad}")
        assert answer.status_code == 400 and answer.json()["param"] == param, bad


@pytest.mark.slow
def test_a_long_solution_is_shown_in_parts(crowded) -> None:
    client, ids = crowded
    first = client.get(f"/studies/{ids['long']}")
    assert first.status_code == 200
    buttons = re.findall(r'id="m(\d+)" data-node', first.text)
    assert len(buttons) == studydb.web.app.SOLUTION_PART_MOVES + 1  # with the start
    assert "4,500 moves; this page shows part 1 of 3" in first.text
    second = client.get(f"/studies/{ids['long']}?part=2")
    nodes = [int(n) for n in re.findall(r'id="m(\d+)" data-node', second.text)]
    assert nodes[1:] == list(range(2001, 4001))
    at_node = client.get(f"/studies/{ids['long']}?node=4321")  # the part holding the move
    assert "part 3 of 3" in at_node.text and 'id="m4321"' in at_node.text
    assert len(at_node.text) < len(first.text)


@pytest.fixture(scope="module")
def walks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, str]]:
    """helpers.WALKS, indexed (ids in their order), served read-only; SQLite only: the
    numbering is the walker's, the same on either engine."""
    folder = tmp_path_factory.mktemp("walks")
    path = folder / "walks.pgn"
    path.write_text(walks_pgn(), encoding="utf-8")
    url = str(folder / "walks.sqlite")
    with studydb.open(url) as writable:
        assert writable.import_paths([path], jobs=1).stored == len(WALKS)
    with read_only_client(url) as client:
        yield client, url


CURRENT_FEN = re.compile(r'class="move[^"]*current"[^>]*?data-fen="([^"]*)"')


@pytest.mark.parametrize("study", [1, 2, 3, 4])
def test_node_numbers_agree_with_show_and_the_index(
    walks: tuple[TestClient, str], study: int
) -> None:
    """issue 15: ``?node=N``, ``show --node N`` and the index's node N are one position."""
    client, url = walks
    with open_read_only(url).connect() as conn:
        indexed = conn.execute(
            text("SELECT node, ply, main, similar, image FROM positions WHERE study_id = :id"),
            {"id": study},
        ).all()
    assert len(indexed) == {1: 5, 2: 6, 3: 7, 4: 5}[study]  # every move of every line
    for node, ply, main, similar, image in indexed:
        page = client.get(f"/studies/{study}?node={node}")
        assert page.status_code == 200, page.text
        (fen,) = CURRENT_FEN.findall(page.text)
        reached = cli_json("show", str(study), "--node", str(node), "--db", url, "-f", "json")
        shown = reached["reached"]
        assert (html.unescape(fen), ply, bool(main)) == (shown["fen"], shown["ply"], shown["main"])
        assert keys(chess.Board(shown["fen"])) == Keys(similar, image)


def test_deeply_nested_variations_make_a_page(walks: tuple[TestClient, str]) -> None:
    """1,500 nested variations: once a RecursionError (500)."""
    client, _ = walks
    page = client.get("/studies/5?node=4500")
    assert page.status_code == 200
    (fen,) = CURRENT_FEN.findall(page.text)
    (deepest,) = nodes(chess.Board(NESTED_FEN), WALKS["nested"][2], node=4500)
    assert html.unescape(fen) == deepest.fen


def test_an_illegal_move_in_a_variation_is_shown_by_show_and_the_page(tmp_path: Path) -> None:
    pgn = tmp_path / "var.pgn"
    pgn.write_text(
        '[Event "Var"]\n[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n'
        "1. c7 (1. Kb7 Rd7+ 2. Qh1 Rxc7+) Rd6+ 2. Kb5 1-0\n"
    )
    db = tmp_path / "var.sqlite"
    with studydb.open(db) as writable:
        writable.import_paths([pgn])
    shown = CliRunner().invoke(cli_app, ["show", "1", "--db", str(db)])
    assert shown.exit_code == 0, shown.output
    assert "1. Kb7 Rd7+ { illegal move, not played: 2. Qh1 Rxc7+ } )" in shown.stdout
    with read_only_client(db) as client:
        page = client.get("/studies/1").text
    assert "illegal move, not played: 2. Qh1 Rxc7+" in html.unescape(page)


@pytest.fixture(scope="module")
def bushy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, int]]:
    """One study whose tree has 12,003 moves: 6,000 two-move variations of its first move."""
    folder = tmp_path_factory.mktemp("bushy")
    sides = " ".join(
        f"(1. {first} {second})"
        for _ in range(3000)
        for first, second in (("Nc3", "Nc6"), ("Nh3", "Nh6"))
    )
    path = folder / "bushy.pgn"
    path.write_text(f'[Event "bushy"]\n\n1. Nf3 {sides} Nf6 2. Ng1 *\n', encoding="utf-8")
    url = str(folder / "bushy.sqlite")
    with studydb.open(url) as writable:
        assert writable.import_paths([path], positions="none").stored == 1
    with read_only_client(url) as client:
        yield client, 1


@pytest.mark.slow
def test_a_huge_tree_is_shown_up_to_a_bound_in_parts(bushy) -> None:
    """The page reaches the first SOLUTION_PAGE_MOVES moves, a part at a time, and says so."""
    client, study = bushy
    most, size = studydb.web.app.SOLUTION_PAGE_MOVES, studydb.web.app.SOLUTION_PART_MOVES
    first = client.get(f"/studies/{study}")
    assert first.status_code == 200
    assert f"more than {most:,} moves: these pages show its first {most:,}" in first.text
    assert f"part 1 of {most // size}" in first.text
    assert len(re.findall(r'id="m(\d+)" data-node', first.text)) == size + 1  # with the start
    last = client.get(f"/studies/{study}?part=99")  # past the parts: the last one
    nodes = [int(n) for n in re.findall(r'id="m(\d+)" data-node', last.text)]
    assert nodes[1:] == list(range(most - size + 1, most + 1))
    assert f"part {most // size} of {most // size}" in last.text
    assert last.text.count('<div class="line') == first.text.count('<div class="line')
    at = client.get(f"/studies/{study}?node={most - 1}")
    assert 'aria-current="step"' in at.text and f'id="m{most - 1}"' in at.text
    past = client.get(f"/studies/{study}?node={most + 1}")
    assert past.status_code == 400
    assert f"first {most:,} moves only" in past.text and "node" in past.text
    assert client.get(f"/studies/{study}.pgn").text.count("Nh6") == 3000  # the whole, there
    api = client.get(f"/api/studies/{study}?part=99").json()["solution"]  # as the page parts
    assert (api["part"], api["parts"], api["moves"], api["more"]) == (5, 5, most, True)
    assert (api["first_node"], api["last_node"], api["next"]) == (most - size + 1, most, None)
    too_far = client.get(f"/api/studies/{study}?node={most + 1}")
    assert too_far.status_code == 400 and "first 10,000 moves only" in too_far.json()["error"]


def test_an_index_search_says_which_studies_it_did_not_search(tmp_path: Path) -> None:
    # /search?line=… on studies imported with positions="none": "0 studies found" and
    # {"total": 0}, a count that rested on no study searched.
    url = str(tmp_path / "bare.sqlite")
    with studydb.open(url) as writable:
        assert writable.import_paths([CLASSICS], positions="none", jobs=1).stored == 25
    with read_only_client(url) as client:
        page = client.get("/search?line=P-%5Ba-h%5D8+then+mate&composer=saavedra")
        assert page.status_code == 200
        assert (
            '<p class="unindexed" id="unindexed">1 of the studies the other filters select is'
            " not in the position index"
        ) in page.text
        assert client.get("/api/search?pieces=R%5Ba-h%5D7").json()["unindexed"] == 25
        stats = client.get("/stats?reaches=KQvK")
        assert '<p class="unindexed" id="unindexed">25 of the studies' in stats.text
        plain = client.get("/search?composer=saavedra")
        assert 'id="unindexed"' not in plain.text
        # the statistics' theme chart rests on the index whatever the filters
        assert '<p class="unindexed" id="unindexed">25 of the studies' in client.get("/stats").text
        assert client.get("/api/search?composer=saavedra").json()["unindexed"] == 0


def test_pgn_downloads_are_each_game_as_stored_to_its_line_ends(tmp_path: Path) -> None:
    # A game read with CR LF line ends ended /export.pgn with an LF.
    db = tmp_path / "ends.sqlite"
    stored = line_ends_studies(db, tmp_path)
    with read_only_client(db) as client:
        for number, text in enumerate(stored, 1):
            one = client.get(f"/studies/{number}.pgn").content.decode()
            assert one == text + ("" if number < 3 else "\n")
        every = client.get("/export.pgn?sort=id").content.decode()
        assert every == f"{stored[0]}\r\n{stored[1]}\n{stored[2]}\n"


def test_a_study_page_says_how_far_a_broken_main_line_was_searched(
    sqlite_url: str, tmp_path: Path
) -> None:
    """A Saavedra whose 6.Qc8 is illegal: its page said "none found" of its themes, as if
    the whole main line had been searched; the search stopped at ply 10."""
    pgn = tmp_path / "broken.pgn"
    pgn.write_text(
        '[Event "main"]\n[Result "1-0"]\n[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n'
        "1. c7 Rd6+ 2. Kb5 Rd5+ 3. Kb4 Rd4+ 4. Kb3 Rd3+ 5. Kc2 Rd4 6. Qc8 Ra4 7. Kb3 1-0\n"
    )
    with studydb.open(sqlite_url) as writable:
        writable.import_paths([pgn], jobs=1)
    with read_only_client(sqlite_url) as client:
        page = client.get("/studies/1").text
        record = client.get("/api/studies/1").json()
    assert "none found" not in page
    assert "main line searched for themes up to ply 10 only: ply 11 is illegal" in page
    assert (record["main_line_searched"], record["main_line_searched_to"]) == (False, 10)


def test_a_mutual_zugzwang_search_says_which_studies_were_never_checked(tmp_path: Path) -> None:
    """Only 'studydb check' with tables looks for mutual zugzwangs: the results page, the
    statistics and /api/search said 0 of 25 classics never checked, with no word of it."""
    url = str(tmp_path / "unchecked.sqlite")
    with studydb.open(url) as writable:
        writable.import_paths([CLASSICS], jobs=1)
    note = (
        '<p class="unindexed" id="unchecked">25 of the studies the other filters select were'
        " never checked with tables and were not searched for mutual zugzwangs:"
        " <code>studydb check</code> looks for them.</p>"
    )
    with read_only_client(url) as client:
        assert note in client.get("/search?theme=mutual-zugzwang").text
        assert note in client.get("/stats?theme=mutual-zugzwang").text
        record = client.get("/api/search?theme=mutual-zugzwang").json()
        assert (record["total"], record["unchecked"]) == (0, 25)
        assert 'id="unchecked"' not in client.get("/search?theme=underpromotion").text
