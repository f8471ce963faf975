"""``studydb serve``: the installed command serving a database, and a real browser on it."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import FIXTURE, GAMES, START_TIMEOUT, STUDYDB, fetch, require, serving
from typer.testing import CliRunner

import studydb
from studydb.cli import app

HOSTILE = Path(__file__).parent / "fixtures" / "hostile.pgn"
CHROMIUM = Path("/usr/bin/chromium")
runner = CliRunner()


def import_collection(url: str) -> None:
    with studydb.open(url) as db:
        summary = db.import_paths([FIXTURE, HOSTILE], validate=True, jobs=1)
    assert summary.stored == len(GAMES) + 1, summary


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The fixture collection and the hostile study in a SQLite file."""
    path = str(tmp_path_factory.mktemp("serve") / "studies.sqlite")
    import_collection(path)
    return path


@pytest.mark.slow
def test_installed_script_serves_the_pages(collection: str) -> None:
    with serving(collection) as url:
        assert url.startswith("http://127.0.0.1:")  # localhost unless --host says otherwise
        status, page = fetch(url)
        assert status == 200 and 'name="material"' in page
        status, body = fetch(url + "api/search?composer=reti")
        assert status == 200 and json.loads(body)["total"] == 3
        status, page = fetch(url + "search?year=19x")
        assert status == 400 and "<code>year</code>" in page
        status, _ = fetch(url + "studies/424242")
        assert status == 404


@pytest.mark.slow
def test_serves_postgresql_too(pg_url: str) -> None:
    import_collection(pg_url)
    with serving(pg_url) as url:
        status, body = fetch(url + "api/search?material=0300.10")
        assert status == 200
        (row,) = json.loads(body)["results"]
        status, page = fetch(url + f"studies/{row['id']}")
        assert status == 200 and "Saavedra, Fernando" in page


def test_missing_database_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "none.sqlite"
    result = runner.invoke(app, ["serve", "--db", str(missing)])
    assert result.exit_code == 1
    assert f"studydb: error: cannot open {missing}: no such database file" in result.output
    assert not missing.exists()  # serving never creates a database


def test_database_without_schema_is_a_clear_error(empty_pg_url: str) -> None:
    result = runner.invoke(app, ["serve", "--db", empty_pg_url])
    assert result.exit_code == 1
    assert "it has no studydb schema" in result.output
    assert "Traceback" not in result.output


@pytest.mark.slow
def test_busy_port_is_a_clear_error(collection: str) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        done = subprocess.run(
            [str(STUDYDB), "serve", "--db", collection, "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert f"studydb: error: cannot listen on 127.0.0.1:{port}: " in done.stderr
    assert "Traceback" not in done.stderr


def test_help_has_examples() -> None:
    result = runner.invoke(app, ["serve", "--help"])
    assert result.exit_code == 0, result.output
    for option in ("--db", "--host", "--port", "--open"):
        assert option in result.output
    assert "studydb serve --open" in result.output


# -- a real browser ---------------------------------------------------------------


@pytest.mark.slow
def test_in_a_real_browser(collection: str, tmp_path: Path) -> None:
    require(CHROMIUM.exists(), f"{CHROMIUM} is absent (Debian package chromium)")
    playwright = pytest.importorskip("playwright.sync_api")
    errors: list[str] = []
    with serving(collection) as url, playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM))
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda exc: errors.append(str(exc)))

        # Search for a class with the form.
        page.goto(url)
        page.fill("#f-material", "0300")
        page.click("#search-button")
        page.wait_for_selector("#total")
        assert "/search?" in page.url and "material=0300" in page.url
        assert page.inner_text("h1") == "1 study found"
        wait_for_images(page)
        page.screenshot(path=str(tmp_path / "search.png"), full_page=True)

        # Open the result and step through the solution.
        page.click("ol.results a.title")
        page.wait_for_selector("#board")
        assert page.inner_text("h1") == "Saavedra, Fernando, 1895"
        wait_for_images(page)
        seen = [board_state(page)]

        def step(action: str) -> None:
            if action.startswith("#") or action.startswith("button"):
                page.click(action)
            else:
                page.keyboard.press(action)
            page.wait_for_function(
                "(previous) => document.getElementById('board').dataset.fen !== previous",
                arg=seen[-1][0],
            )
            wait_for_images(page)
            seen.append(board_state(page))
            assert seen[-1][1] != seen[-2][1], f"the diagram did not change after {action}"

        step("#next")  # 1. c7
        assert seen[-1][0] == "8/2P5/1K6/3r4/8/8/8/k7 b - - 0 1"
        step("ArrowRight")  # 1... Rd6+
        step("ArrowRight")  # 2. Kb5
        step("ArrowLeft")  # back to 1... Rd6+
        assert seen[-1][0] == seen[2][0]
        step("#prev")  # back to 1. c7
        assert seen[-1][0] == seen[1][0]
        step("button.move:has-text('c8=Q?')")  # a move of the variation, clicked
        assert seen[-1][0].startswith("2Q5/")
        flipped_before = page.get_attribute("#board", "src")
        page.click("#flip")
        page.wait_for_function("() => document.getElementById('board').src.includes('flip=1')")
        wait_for_images(page)
        assert page.get_attribute("#board", "src") != flipped_before
        assert "current" in (page.get_attribute("button.move:has-text('c8=Q?')", "class") or "")
        page.screenshot(path=str(tmp_path / "study.png"), full_page=True)

        # The hostile study: its scripts are text on the page, and never run.
        page.goto(url + "search?source=Evil")
        page.click("ol.results a.title")
        page.wait_for_selector("#solution")
        solution = page.inner_text("#solution")
        assert "<script>window.hackedComment = 1</script>" in solution
        assert "<script>window.hackedTag = 1</script>Mallory" in page.inner_text("h1")
        ran = page.evaluate(
            "[window.hackedComment, window.hackedIntro, window.hackedTag, window.hackedImg]"
        )
        assert ran == [None, None, None, None]
        step_hostile = page.get_attribute("#board", "src")
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "(previous) => document.getElementById('board').src !== previous", arg=step_hostile
        )
        browser.close()
    assert errors == []
    assert (tmp_path / "search.png").stat().st_size > 0
    assert (tmp_path / "study.png").stat().st_size > 0
    if os.environ.get("STUDYDB_KEEP_SCREENSHOTS"):  # to look at them
        keep = Path(os.environ["STUDYDB_KEEP_SCREENSHOTS"])
        keep.mkdir(parents=True, exist_ok=True)
        for name in ("search.png", "study.png"):
            (keep / name).write_bytes((tmp_path / name).read_bytes())


def wait_for_images(page) -> None:
    page.wait_for_function(
        "() => Array.from(document.images).every(i => i.loading === 'lazy' || "
        "(i.complete && i.naturalWidth > 0))"
    )


def board_state(page) -> tuple[str, bytes]:
    """The position the page says it shows, and the pixels of its diagram."""
    return page.get_attribute("#board", "data-fen"), page.locator("#board").screenshot()


@pytest.mark.slow
def test_open_starts_the_browser_on_the_search_page(
    collection: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened = tmp_path / "opened.txt"
    script = f"import sys; open({str(opened)!r}, 'w').write(sys.argv[1])"
    monkeypatch.setenv("BROWSER", f'{sys.executable} -c "{script}" %s')  # webbrowser obeys it
    with serving(collection, "--open") as url:
        deadline = time.monotonic() + START_TIMEOUT
        while not (opened.exists() and opened.read_text()) and time.monotonic() < deadline:
            time.sleep(0.1)
    assert opened.read_text() == url


def fetch_as_host(url: str, host: str) -> tuple[int, str]:
    """GET ``url`` with the Host header a DNS-rebinding page would send."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        connection.request("GET", target, headers={"Host": host})
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8")
    finally:
        connection.close()


@pytest.mark.slow
def test_answers_only_the_host_names_it_serves(collection: str) -> None:
    with serving(collection, "--allow-host", "studies.example.org") as url:
        port = url.rstrip("/").rsplit(":", 1)[1]
        api = url + "api/search?composer=reti"
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"studies.example.org:{port}"):
            status, body = fetch_as_host(api, host)
            assert status == 200 and json.loads(body)["total"] == 3, host
        for host in (f"attacker.example:{port}", "attacker.example", "127.0.0.1.nip.io", ""):
            status, body = fetch_as_host(api, host)
            assert status == 400, host
            assert "--allow-host" in body and "Traceback" not in body


@pytest.mark.slow
def test_allow_host_star_answers_any_host(collection: str) -> None:
    with serving(collection, "--allow-host", "*") as url:
        status, _ = fetch_as_host(url + "api/search", "anything.example")
        assert status == 200


@pytest.mark.slow
def test_time_limit_is_bounded_and_served_with(collection: str) -> None:
    for bad in ("0", "3601", "1e9", "²"):
        result = runner.invoke(app, ["serve", "--db", collection, "--time-limit", bad])
        assert result.exit_code == 2, result.output
    with serving(collection, "--time-limit", "5") as url:
        status, body = fetch(url + "api/search?composer=reti")
        assert status == 200 and json.loads(body)["total"] == 3


@pytest.mark.slow
def test_an_export_whose_client_stops_reading_is_cut_at_its_budget(tmp_path: Path) -> None:
    """A client that takes the headers and then reads nothing holds an export only until
    --export-time-limit: then the server cuts it (no last chunk) and gives its place back."""
    comment = "a long comment " * 640
    pgn = tmp_path / "long.pgn"
    short = "".join(f'[Composer "Short, Sam"]\n\n1. {move} *\n\n' for move in ("c4", "d4", "e4"))
    pgn.write_text(  # 6 MB of PGN: more than the socket buffers hold; and three short studies
        "".join(f'[Event "long {i}"]\n\n1. e4 {{{comment}}} e5 *\n\n' for i in range(600)) + short,
        encoding="utf-8",
    )
    db = str(tmp_path / "long.sqlite")
    with studydb.open(db) as writable:
        writable.import_paths([pgn], positions="none")
    for bad in ("0", "86401", "x"):
        result = runner.invoke(app, ["serve", "--db", db, "--export-time-limit", bad])
        assert result.exit_code == 2, result.output
    # The exports this test reads whole are of the three short studies: each finishes in
    # well under the budget of 1 s on a busy machine too (an export of 6,000 studies read
    # whole was once cut at 1 s under a load of 5).
    whole = "export.csv?composer=short"
    with serving(db, "--export-time-limit", "1") as url:
        host, port = url.removeprefix("http://").strip("/").rsplit(":", 1)
        with socket.socket() as first, socket.socket() as second:
            for client in (first, second):  # both places, one after the other
                client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                client.connect((host, int(port)))
                client.sendall(
                    f"GET /export.pgn HTTP/1.1\r\nHost: {host}:{port}\r\n"
                    "Connection: close\r\n\r\n".encode()
                )
                # its headers: the export has its place and its deadline (reading nothing)
                assert client.recv(12, socket.MSG_PEEK | socket.MSG_WAITALL) == b"HTTP/1.1 200"
            # Until the first is cut, no export has a place; then one has.
            deadline = time.monotonic() + 30
            while (answer := fetch(url + whole))[0] == 503:
                assert time.monotonic() < deadline, "no export was cut"
                time.sleep(0.05)
            assert answer[0] == 200 and answer[1].count("\n") == 4
            received = bytearray()
            while piece := first.recv(1 << 16):
                received += piece
        assert received.startswith(b"HTTP/1.1 200 ")
        assert not received.endswith(b"0\r\n\r\n")  # cut: no last chunk
        assert len(received) < pgn.stat().st_size
        for _ in range(2):  # its place was given back: two more exports, each whole
            status, body = fetch(url + whole)
            assert status == 200 and body.count("\n") == 4


def test_the_export_time_limit_defaults_to_the_apps() -> None:
    """serve declares its default without importing the web package: the two must agree."""
    import studydb.cli.serve
    import studydb.web.app

    assert studydb.cli.serve.DEFAULT_EXPORT_TIME_LIMIT == studydb.web.app.EXPORT_SECONDS


@pytest.mark.slow
def test_the_server_reads_sqlite_through_a_page_cache_not_mmap(collection: str) -> None:
    """Each connection's mmap of the file counted in the server's memory again (exports of
    200,000 studies: 271 of its 325 MB): the server maps no page of the database."""
    process = subprocess.Popen(
        [str(STUDYDB), "serve", "--db", collection, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("studydb: serving "), line
        url = line.split(" at ")[-1].strip()
        for path in ("search?material=0300.10", "export.pgn", "api/studies/1"):
            status, _ = fetch(url + path)
            assert status == 200, path
        maps = Path(f"/proc/{process.pid}/maps").read_text().splitlines()
        mapped = {fields[5] for fields in (line.split(maxsplit=5) for line in maps) if fields[5:]}
        assert str(Path(collection).resolve()) not in mapped  # its -shm (WAL's index) may be
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=15)


@pytest.mark.slow
def test_an_internal_error_tells_its_keep_alive_client_the_connection_closes(
    collection: str, tmp_path: Path
) -> None:
    """The server closes the connection after an internal error (a 500): its answer says so,
    so that the client's next request on that connection is not reset (bench_web's was)."""
    damaged = tmp_path / "damaged.sqlite"
    shutil.copy(collection, damaged)
    with sqlite3.connect(damaged) as conn:  # a PGN not stored deflated: reading it fails
        conn.execute("UPDATE studies SET pgn = '1. e4 *' WHERE id = 1")
    conn.close()
    process = subprocess.Popen(
        [str(STUDYDB), "serve", "--db", str(damaged), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("studydb: serving "), line
        port = int(line.rsplit(":", 1)[1].strip(" /\n"))
        client = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        for path, status in (("/studies/1", 500), ("/static/studydb.css", 200)):
            client.request("GET", path)
            response = client.getresponse()
            response.read()
            assert response.status == status, path
        assert response.getheader("connection") is None  # the style sheet kept the connection
        client.close()
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=15)
