"""Memory and time of ``studydb serve``'s exports, one and several at once (issue 32).

Run:  .venv/bin/python bench/bench_export.py [--rows 200000] [--clients 6] [--format json]

Uses (building it once if absent) the benchmark database of
``bench/bench_search.py`` with ``--rows`` studies, starts the installed
``studydb serve`` on it and measures, in the same run:

* the reference: the same rows read through the library in this process
  (``Database.search`` turned into the format by ``studydb.export``), time;
* one export alone (``/export.FORMAT`` of every study): time, bytes, and the
  server's resident memory at its peak (``VmHWM``) against its memory before;
* ``--clients`` exports asked at once: how many are served (at most
  ``EXPORTS_AT_ONCE``; the others get 503 with ``Retry-After``), their time,
  and the server's peak memory over all of it.

Target: the server's peak memory stays under 300 MB with six exports asked at
once; the exports are streamed, so one costs no more memory than a page.
"""

from __future__ import annotations

import argparse
import http.client
import sys
import threading
import time
from pathlib import Path

import bench_search
from bench_web import start_server

import studydb
from studydb import export

TARGET_MB = 300


def memory_mb(pid: int, field: str) -> float:
    """``VmRSS``, ``VmHWM`` (its peak), ``RssAnon`` or ``RssFile`` of a process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} for {pid}")


class AnonPeak:
    """The largest ``RssAnon`` of a process (its own heap: not the database file's
    pages that SQLite's mmap puts in ``VmRSS``), sampled every 50 ms while in use."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self.done = pid, 0.0, threading.Event()
        self.thread = threading.Thread(target=self.sample, daemon=True)

    def sample(self) -> None:
        while not self.done.wait(0.05):
            self.peak = max(self.peak, memory_mb(self.pid, "RssAnon"))

    def __enter__(self) -> AnonPeak:
        self.peak = memory_mb(self.pid, "RssAnon")
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join()


def fetch(port: int, path: str, found: list[tuple[int, int, float, str]]) -> None:
    """GET ``path``, reading the body in pieces; append (status, bytes, seconds, Retry-After)."""
    start = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    connection.request("GET", path)
    response = connection.getresponse()
    size = 0
    while piece := response.read(1 << 16):
        size += len(piece)
    found.append(
        (response.status, size, time.perf_counter() - start, response.getheader("Retry-After", ""))
    )
    connection.close()


def reference_seconds(path: Path, output: str) -> tuple[float, int]:
    """The rows through the library in this process, written nowhere: time and bytes."""
    database = studydb.open(path, read_only=True)
    start = time.perf_counter()
    size = sum(
        len(part.encode())
        for part in export.FORMATS[output](database.search(None, with_pgn=output == "pgn"))
    )
    took = time.perf_counter() - start
    database.close()
    return took, size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--format", choices=("json", "csv", "pgn"), default="json")
    args = parser.parse_args()
    path = bench_search.OUT / f"search-{args.rows}-v{bench_search.SCHEMA_VERSION}.sqlite"
    if not path.exists():
        bench_search.build(path, args.rows)
    wall, reference_size = reference_seconds(path, args.format)
    print(f"{path.name}: export.{args.format} of every study")
    print(f"reference, the library in process: {wall:.1f} s, {reference_size / 1e6:.0f} MB")
    process, port = start_server(path)
    try:
        found: list[tuple[int, int, float, str]] = []
        fetch(port, "/search?material=0300.10", found)  # warm: the page's modules loaded
        before = memory_mb(process.pid, "VmRSS")
        anon_before = memory_mb(process.pid, "RssAnon")
        found.clear()
        with AnonPeak(process.pid) as one:
            fetch(port, f"/export.{args.format}", found)
        ((status, size, seconds, _),) = found
        alone = memory_mb(process.pid, "VmHWM")
        print(
            f"one export: status {status}, {size / 1e6:.0f} MB in {seconds:.1f} s"
            f" ({seconds / wall:.2f}x the reference); server memory (VmRSS) {before:.0f} MB"
            f" before, peak {alone:.0f} MB; its heap (RssAnon) {anon_before:.0f} MB before,"
            f" peak {one.peak:.0f} MB"
        )
        found.clear()
        threads = [
            threading.Thread(target=fetch, args=(port, f"/export.{args.format}", found))
            for _ in range(args.clients)
        ]
        start = time.perf_counter()
        with AnonPeak(process.pid) as many:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        took = time.perf_counter() - start
        peak = memory_mb(process.pid, "VmHWM")
        after = memory_mb(process.pid, "VmRSS")
        served = [f for f in found if f[0] == 200]
        refused = [f for f in found if f[0] == 503]
        times = ", ".join(f"{f[2]:.1f}" for f in served)
        print(
            f"{args.clients} at once: {len(served)} served ({times} s),"
            f" {len(refused)} refused 503 (Retry-After {refused[0][3] if refused else '-'} s),"
            f" others {len(found) - len(served) - len(refused)}; all done in {took:.1f} s"
        )
        assert all(f[1] == size for f in served), "a served export differs in size"
        verdict = "met" if peak < TARGET_MB else "missed"
        print(
            f"server memory (VmRSS): peak {peak:.0f} MB (target < {TARGET_MB} MB: {verdict}),"
            f" {after:.0f} MB after, of which the database file's mmap pages (RssFile)"
            f" {memory_mb(process.pid, 'RssFile'):.0f} MB; heap (RssAnon) peak {many.peak:.0f} MB,"
            f" {memory_mb(process.pid, 'RssAnon'):.0f} MB after"
        )
    finally:
        process.terminate()
        process.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
