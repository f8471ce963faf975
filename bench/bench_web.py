"""Speed of ``studydb serve`` on the million-study benchmark database (issue 12).

Uses (building it once if absent) the database of ``bench/bench_search.py``,
starts the installed ``studydb serve`` on a free port of 127.0.0.1 and, over
keep-alive HTTP connections, times in the same run:

* a search page of 50 results (distinct GBR classes and pages each time), alone
  and with its 50 diagrams fetched one after the other (the server time a
  browser waits for), as cards and as the compact table (64 px thumbnails);
* a study page (distinct studies each time; the generated studies have no
  moves, so the real studies of ``../shared/corpus/studies``, with their
  solutions, comments and variations, are timed too, from a database of their own);
* references: the static style sheet (the server's floor) and the same 50-row
  search through the library, in this process;
* 20 concurrent clients for 30 s, each looping over search pages, study pages,
  diagrams and the JSON API: requests/s, median and 99th percentile, errors.

    python bench/bench_web.py                      # 1,000,000 studies, 20 clients, 30 s
    python bench/bench_web.py --rows 100000 --duration 10
"""

from __future__ import annotations

import argparse
import http.client
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from html import unescape
from pathlib import Path
from urllib.parse import urlencode

import bench_search

import studydb
from studydb.filters import Filters

STUDYDB = Path(sys.executable).with_name("studydb")
STUDIES = bench_search.CORPUS.parent / "studies"
SEED = 20261130
#: Timed repetitions of each single-client measurement (distinct requests each).
REPEAT = 15
#: Targets from the issue, in milliseconds.
SEARCH_TARGET = 300
#: Seconds a request may take before it counts as an error.
TIMEOUT = 20
STUDY_TARGET = 100
_IMG_RE = re.compile(r'<img src="(/diagram\.svg\?[^"]+)"')


class Client:
    """One keep-alive HTTP connection to the server."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)

    def get(self, path: str) -> tuple[int, bytes]:
        try:
            self.connection.request("GET", path)
            response = self.connection.getresponse()
            return response.status, response.read()
        except TimeoutError:
            raise TimeoutError(f"no answer to GET {path}") from None


def fetch_ok(client: Client, path: str) -> bytes:
    """GET ``path``, which must answer 200 (an error page is not timed as a page)."""
    status, body = client.get(path)
    assert status == 200, (status, path)
    return body


def start_server(path: Path) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen(
        [str(STUDYDB), "serve", "--db", str(path), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    line = process.stdout.readline()
    port = int(line.rsplit(":", 1)[1].strip(" /\n"))
    # The access log goes to stdout: keep reading it, or the server blocks on a full pipe.
    threading.Thread(target=process.stdout.read, daemon=True).start()
    return process, port


def timed_ms(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return (time.perf_counter() - start) * 1000


def search_page(client: Client, path: str, *, diagrams: bool) -> None:
    status, body = client.get(path)
    assert status == 200, (status, path)
    if diagrams:
        images = _IMG_RE.findall(body.decode())
        assert len(images) == 50, (len(images), path)
        for image in images:
            status, _ = client.get(unescape(image))
            assert status == 200


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--duration", type=float, default=30.0, help="Seconds of the load test.")
    args = parser.parse_args()
    path = bench_search.OUT / f"search-{args.rows}-v{bench_search.SCHEMA_VERSION}.sqlite"
    if not path.exists():
        bench_search.build(path, args.rows)
    database = studydb.open(path, read_only=True)
    rng = random.Random(SEED)
    with database.engine.connect() as conn:
        total = conn.exec_driver_sql("SELECT count(*) FROM studies").scalar()
        classes = [
            row[0]
            for row in conn.exec_driver_sql(
                "SELECT gbr FROM studies GROUP BY gbr HAVING count(*) >= 500 ORDER BY gbr"
            )
        ]
        top = conn.exec_driver_sql("SELECT max(id) FROM studies").scalar()
    print(f"{path.name}: {total:,} studies, {len(classes):,} GBR classes with >= 500 studies")
    # Distinct (class, page) pairs (a class may come back on another page); page 1 is
    # the address without a page (the search page redirects an explicit page=1).
    pairs = rng.sample([(code, page) for code in classes for page in range(2, 12)], 4 * REPEAT + 2)
    searches = ["/search?" + urlencode({"material": code, "page": page}) for code, page in pairs]
    studies = [f"/studies/{rng.randint(1, top)}" for _ in range(2 * REPEAT + 2)]

    process, port = start_server(path)
    try:
        client = Client(port)
        fetch_ok(client, "/static/studydb.css")  # warm up
        search_page(client, searches.pop(), diagrams=True)
        fetch_ok(client, studies.pop())
        static = [timed_ms(lambda: fetch_ok(client, "/static/studydb.css")) for _ in range(REPEAT)]
        alone = [
            timed_ms(lambda p=searches.pop(): search_page(client, p, diagrams=False))
            for _ in range(REPEAT)
        ]
        whole = [
            timed_ms(lambda p=searches.pop(): search_page(client, p, diagrams=True))
            for _ in range(REPEAT)
        ]
        table = [
            timed_ms(lambda p=searches.pop(): search_page(client, p + "&view=table", diagrams=True))
            for _ in range(REPEAT)
        ]
        study = [timed_ms(lambda p=studies.pop(): fetch_ok(client, p)) for _ in range(REPEAT)]
        library = [
            timed_ms(
                lambda c=code: list(database.search(Filters(material=(c,)), limit=50, offset=100))
            )
            for code in rng.sample(classes, REPEAT)
        ]
        floor = statistics.median(static)
        query = statistics.median(library)
        print(
            f"\nreferences: static file {floor:.1f} ms; library search of 50 rows {query:.1f} ms\n"
        )
        print(
            f"{'request (median of ' + str(REPEAT) + ')':<44} "
            f"{'ms':>7} {'target':>7} {'÷ query':>8}"
        )
        for label, times, target in (
            ("search page, 50 results (HTML only)", alone, SEARCH_TARGET),
            ("search page + its 50 diagrams", whole, SEARCH_TARGET),
            ("table view + its 50 thumbnails", table, SEARCH_TARGET),
            ("study page", study, STUDY_TARGET),
        ):
            ms = statistics.median(times)
            print(f"{label:<44} {ms:>7.1f} {target:>7} {ms / query:>8.1f}")
        real_studies()
        load(port, classes, top, clients=args.clients, duration=args.duration)
    finally:
        process.terminate()
        process.wait(timeout=30)
        database.close()
    return 0


def real_studies() -> None:
    """Time the page of every real study of the corpus (moves, comments, variations)."""
    if not STUDIES.is_dir():
        print(f"({STUDIES} is absent: real study pages not timed)")
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "studies.sqlite"
        with studydb.open(path) as writable:
            writable.import_paths(sorted(STUDIES.glob("*.pgn")), jobs=1)
            with writable.engine.connect() as conn:
                ids = [
                    row[0]
                    for row in conn.exec_driver_sql(
                        "SELECT id FROM studies ORDER BY length(pgn) DESC"
                    )
                ]
                longest = conn.exec_driver_sql("SELECT max(length(pgn)) FROM studies").scalar()
        process, port = start_server(path)
        try:
            client = Client(port)
            fetch_ok(client, f"/studies/{ids[-1]}")  # warm up
            times = [timed_ms(lambda i=i: fetch_ok(client, f"/studies/{i}")) for i in ids]
        finally:
            process.terminate()
            process.wait(timeout=30)
    print(
        f"{'real study pages (' + str(len(ids)) + ' corpus studies)':<44} "
        f"{statistics.median(times):>7.1f} {STUDY_TARGET:>7}   (longest PGN, {longest:,} chars: "
        f"{times[0]:.1f} ms; slowest {max(times):.1f} ms)"
    )


def load(port: int, classes: list[str], top: int, *, clients: int, duration: float) -> None:
    """``clients`` threads, each on its own connection, for ``duration`` seconds."""
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    stop = time.monotonic() + duration

    def worker(number: int) -> None:
        rng = random.Random(SEED + number)
        client = Client(port)
        mine: list[float] = []
        while time.monotonic() < stop:
            kind = rng.random()
            if kind < 0.3:
                path = "/search?" + urlencode({"material": rng.choice(classes)})
            elif kind < 0.6:
                path = f"/studies/{rng.randint(1, top)}"
            elif kind < 0.8:
                path = f"/api/search?material={rng.choice(classes)}&per_page=20"
            else:
                path = f"/api/studies/{rng.randint(1, top)}"
            start = time.perf_counter()
            try:
                status, _ = client.get(path)
            except (OSError, http.client.HTTPException) as exc:
                with lock:
                    errors.append(f"{path}: {exc}")
                client = Client(port)
                continue
            mine.append((time.perf_counter() - start) * 1000)
            if status != 200:
                with lock:
                    errors.append(f"{path}: HTTP {status}")
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    latencies.sort()
    p99 = latencies[int(0.99 * (len(latencies) - 1))] if latencies else float("nan")
    median = statistics.median(latencies) if latencies else float("nan")
    print(
        f"\n{clients} clients for {elapsed:.0f} s (search pages, study pages, JSON API): "
        f"{len(latencies):,} requests, {len(latencies) / elapsed:.1f} requests/s, "
        f"median {median:.0f} ms, p99 {p99:.0f} ms, {len(errors)} errors"
    )
    for error in errors[:5]:
        print(f"  {error}")


if __name__ == "__main__":
    sys.exit(main())
