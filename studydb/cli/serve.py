"""``studydb serve``: browse and search the collection in a web browser.

Starlette, Jinja2 and uvicorn are imported inside the command only, so that
the other commands start without them.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer

from studydb.cli.common import db_option, fail, library_errors
from studydb.cli.light import LightCommand

if TYPE_CHECKING:
    import socket

    from studydb.db.database import Database

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
#: Seconds one SQL statement of a request may run before the database stops it.
DEFAULT_TIME_LIMIT = 10
#: Seconds an export may take, however slowly its client reads (``studydb.web.app.EXPORT_SECONDS``:
#: the web package is imported by the command only).
DEFAULT_EXPORT_TIME_LIMIT = 600
#: KiB of SQLite page cache each of the server's database connections keeps.  The server
#: reads through it instead of mmap: each connection maps the file for itself (up to
#: studydb.db.connect.MMAP_BYTES), so that with two exports and a page running the file's
#: pages were in the server's memory up to three times (271 of its 325 MB, on 200,000
#: studies; 13 of 82 MB so, bench/bench_export.py).
PAGE_CACHE_KIB = 8192
#: Seconds to wait before opening the browser (the server is listening by then).
_OPEN_DELAY = 0.5


#: This module's commands, which :mod:`studydb.cli` adds to its ``app``.
commands = typer.Typer()


@commands.command("serve", cls=LightCommand)
def serve_command(
    host: str = typer.Option(
        DEFAULT_HOST, "--host", help="Address to listen on; 0.0.0.0 exposes the server to others."
    ),
    port: int = typer.Option(
        DEFAULT_PORT, "--port", min=0, max=65535, help="Port to listen on (0: any free one)."
    ),
    allow_host: list[str] = typer.Option(
        [],
        "--allow-host",
        metavar="NAME",
        help="Also answer requests for this host name (repeatable; '*' answers any).",
    ),
    time_limit: int = typer.Option(
        DEFAULT_TIME_LIMIT,
        "--time-limit",
        metavar="SECONDS",
        min=1,
        max=3600,
        help="Stop any query running longer and answer 503 (a guard against costly requests).",
    ),
    export_time_limit: int = typer.Option(
        DEFAULT_EXPORT_TIME_LIMIT,
        "--export-time-limit",
        metavar="SECONDS",
        min=1,
        max=86400,
        help="Cut an export still running after this long (a client reading slowly, or not at "
        "all), giving its database connection back.",
    ),
    open_browser: bool = typer.Option(
        False, "--open", help="Open the search page in the default web browser."
    ),
    db: str | None = db_option(),
) -> None:
    """Serve the database read-only as web pages: search, studies, statistics, JSON.

    The database is opened read-only (SQLite mode=ro, PostgreSQL read-only
    transactions).  The first line printed gives the address; stop with Ctrl-C.
    Requests must name the address served (or this machine's names when
    listening on 0.0.0.0) in their Host header, so that no other web site can
    read the database through a browser (DNS rebinding); --allow-host adds a
    name, for a proxy or a DNS name.  A query running longer than --time-limit
    seconds is stopped by the database and answered with a 503 that names the
    filter to narrow.  An export (/export.pgn, .json, .csv) still running
    after --export-time-limit seconds is cut off.

    Examples:

      studydb serve --open

      studydb serve --db studies.sqlite --port 8080

      studydb serve --db postgresql+psycopg://me@dbhost/studies --host 0.0.0.0

      studydb serve --host 0.0.0.0 --allow-host studies.example.org
    """
    from studydb.db.budget import limit_statements
    from studydb.db.connect import open_read_only
    from studydb.db.database import Database
    from studydb.web.hosts import allowed_hosts

    with library_errors():
        engine = open_read_only(db, page_cache_kib=PAGE_CACHE_KIB)
        database = Database(limit_statements(engine, seconds=time_limit), read_only=True)
    sock = _listen(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    url = f"http://{shown}:{bound_port}/"
    sys.stdout.write(f"studydb: serving {database.location} at {url}\n")
    sys.stdout.flush()
    if open_browser:
        import threading
        import webbrowser

        threading.Timer(_OPEN_DELAY, webbrowser.open, args=(url,)).start()
    _run(database, sock, allowed_hosts(host, allow_host), export_seconds=export_time_limit)


def _listen(host: str, port: int) -> socket.socket:
    """Bind the listening socket ourselves, so that a busy port is a clear error."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    sock.set_inheritable(True)
    return sock


def _run(
    database: Database, sock: socket.socket, hosts: frozenset[str], *, export_seconds: float
) -> None:
    import uvicorn

    from studydb.web import create_app

    config = uvicorn.Config(
        create_app(database, allowed_hosts=hosts, export_seconds=export_seconds),
        log_level="info",
        access_log=True,
        server_header=False,
    )
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        database.close()
