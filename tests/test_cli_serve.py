"""``studydb serve``: the installed command serving a database (a real browser on it:
``test_web_browser.py``)."""

from __future__ import annotations

import http.client
import json
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import FIXTURE, GAMES, SERVERS, START_TIMEOUT, STUDYDB, fetch, serving
from typer.testing import CliRunner

import studydb
from studydb.cli import app

HOSTILE = Path(__file__).parent / "fixtures" / "hostile.pgn"
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


@pytest.fixture(scope="module")
def server(collection: str) -> Iterator[str]:
    """The installed ``studydb serve`` on the collection, for the tests that only read: with
    a time limit and a host name allowed (``SERVERS[url]`` is its process)."""
    with serving(collection, "--time-limit", "5", "--allow-host", "studies.example.org") as url:
        yield url


@pytest.mark.slow
def test_installed_script_serves_the_pages(server: str) -> None:
    url = server
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
def test_answers_only_the_host_names_it_serves(server: str) -> None:
    url = server  # --allow-host studies.example.org
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
def test_time_limit_is_bounded_and_served_with(collection: str, server: str) -> None:
    for bad in ("0", "3601", "1e9", "²"):
        result = runner.invoke(app, ["serve", "--db", collection, "--time-limit", bad])
        assert result.exit_code == 2, result.output
    status, body = fetch(server + "api/search?composer=reti")  # served with --time-limit 5
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
def test_the_server_reads_sqlite_through_a_page_cache_not_mmap(
    collection: str, server: str
) -> None:
    """Each connection's mmap of the file counted in the server's memory again (exports of
    200,000 studies: 271 of its 325 MB): the server maps no page of the database."""
    for path in ("search?material=0300.10", "export.pgn", "api/studies/1"):
        status, _ = fetch(server + path)
        assert status == 200, path
    maps = Path(f"/proc/{SERVERS[server].pid}/maps").read_text().splitlines()
    mapped = {fields[5] for fields in (line.split(maxsplit=5) for line in maps) if fields[5:]}
    assert str(Path(collection).resolve()) not in mapped  # its -shm (WAL's index) may be


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
