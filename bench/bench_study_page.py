"""Benchmark the study page of a huge variation tree against a page of one part.

Run:  .venv/bin/python bench/bench_study_page.py [--variations 100000] [--runs 5]

Target (issue 32): a study page, and a study's JSON record
(``/api/studies/ID``), cost time in proportion to the part they show, not to
the whole tree.  The reference is the page of a study of one
part (``SOLUTION_PART_MOVES`` moves, a main line with as many two-move
variations); the huge study has ``--variations`` two-move variations of its
first move.  Both are served from one read-only SQLite database through the
app in this process (no network), the median of ``--runs`` requests each.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from starlette.testclient import TestClient

import studydb
from studydb.web import create_app
from studydb.web.app import SOLUTION_PAGE_MOVES, SOLUTION_PART_MOVES


def bushy(variations: int, event: str) -> str:
    """A study whose first move has ``variations`` two-move variations (distinct text)."""
    sides = " ".join("(1. Nc3 Nc6)" if i % 2 else "(1. Nh3 Nh6)" for i in range(variations))
    return f'[Event "{event}"]\n\n1. Nf3 {sides} Nf6 2. Ng1 *\n\n'


def median_ms(client: TestClient, path: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        response = client.get(path)
        times.append(time.perf_counter() - start)
        if response.status_code != 200:
            sys.exit(f"{path}: {response.status_code}")
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variations", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        pgn = Path(folder) / "trees.pgn"
        one_part = (SOLUTION_PART_MOVES - 3) // 2
        pgn.write_text(bushy(one_part, "one part") + bushy(args.variations, "huge"))
        db = Path(folder) / "trees.sqlite"
        with studydb.open(db) as writable:
            writable.import_paths([pgn], positions="none")
        database = studydb.open(db, read_only=True)
        try:
            with TestClient(create_app(database)) as client:
                reference = median_ms(client, "/studies/1", args.runs)
                parts = SOLUTION_PAGE_MOVES // SOLUTION_PART_MOVES
                print(f"{'page':<44} {'median ms':>10} {'ratio':>6}")
                print(f"{'one part (' + str(2 * one_part + 3) + ' moves)':<44} {reference:>10.0f}")
                for part in (1, parts):
                    ms = median_ms(client, f"/studies/2?part={part}", args.runs)
                    label = f"{2 * args.variations + 3:,} moves, part {part}"
                    print(f"{label:<44} {ms:>10.0f} {ms / reference:>6.2f}")
                reference = median_ms(client, "/api/studies/1", args.runs)
                print(f"{'/api/studies: one part':<44} {reference:>10.0f}")
                for part in (1, parts):
                    ms = median_ms(client, f"/api/studies/2?part={part}", args.runs)
                    label = f"/api/studies: {2 * args.variations + 3:,} moves, part {part}"
                    print(f"{label:<44} {ms:>10.0f} {ms / reference:>6.2f}")
        finally:
            database.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
