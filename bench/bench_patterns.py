"""Pattern search at scale (issue 29): studydb's --pattern/--pieces against pgn-extract -t.

The studies are ``bench_positions``'s: a real game's position at some ply as
the start and up to 60 of its next plies as the solution, every study distinct.
The PGN and the database are made once in ``bench/out`` and reused.  In one
run, for each pattern of a table:

* studydb: ``Database.count`` (SQL prefilter, then the candidates' boards
  scanned), median wall time of a few runs;
* the reference: ``pgn-extract -s -t TAGS`` on the same PGN, the games it
  finds counted; wall time;
* the ratio (target: at most 0.25), and whether both found the same number
  of studies (pgn-extract searches variations too, as studydb does without
  ``--main-line``).

Also the bytes per position of what pattern search stores (the boards, the
``seen_*`` bitboards and the occupancy blocks, over the positions), and the
replay with and without them (the cost of building them).  A database made
before the occupancy blocks (revision 0013) gets them by ``Database.index``,
timed.

    python bench/bench_patterns.py --studies 100000
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_positions import PGN_EXTRACT, best_cpu, built, read_sample, timed_result

import studydb
from studydb.movetext import walk
from studydb.positions import IndexRows

#: (label, FENPattern for pgn-extract, studydb filters): every pattern names the same set.
PATTERNS = [
    ("white rook on the 7th", "*/*R*/*/*/*/*/*/*", {"pieces": "R[a-h]7"}),
    ("two knights, b and g files", "*/*/*/*/*/*/*/?N????N?", {"pattern": "*/*/*/*/*/*/*/?N????N?"}),
    ("black queen on a1", "*/*/*/*/*/*/*/q7", {"pattern": "*/*/*/*/*/*/*/q7"}),
    ("pawns on d4 and e4", "*/*/*/*/???PP???/*/*/*", {"pattern": "*/*/*/*/???PP???/*/*/*"}),
    ("empty 8th rank", "8/*/*/*/*/*/*/*", {"pattern": "8/*/*/*/*/*/*/*"}),
    ("king on g1", "*/*/*/*/*/*/*/??????K?", {"pieces": "Kg1"}),
]
RUNS = 3


def pgn_extract_count(pgn: Path, pattern: str) -> tuple[float, int]:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as tags:
        tags.write(f'FENPattern "{pattern}"\n')
    started = time.perf_counter()
    done = subprocess.run(
        [PGN_EXTRACT, "-s", f"-t{tags.name}", "--matchplylimit", "100000", str(pgn)],
        capture_output=True,
        check=True,
    )
    elapsed = time.perf_counter() - started
    Path(tags.name).unlink()
    return elapsed, done.stdout.count(b"\n[Event ") + done.stdout.startswith(b"[Event ")


def replay(board: chess.Board, text: str, with_boards: bool) -> None:
    rows = walk(board, text, IndexRows(board, []))
    if with_boards:
        rows.boards()
        rows.seen()


def replay_all(board: chess.Board, text: str, with_all: bool) -> None:
    rows = walk(board, text, IndexRows(board, []))
    if with_all:
        rows.boards()
        rows.seen()
        rows.occupancy()


def bench_build(pgn: Path) -> None:
    sample = read_sample(pgn, 2000)
    boards = best_cpu(sample, replay)
    every = best_cpu(sample, replay_all)
    bare = min(boards[False], every[False])
    print(
        f"replay of {len(sample):,} studies: {bare:.2f} s, with boards and bitboards "
        f"{boards[True]:.2f} s (x{boards[True] / bare:.2f} CPU), and occupancy "
        f"{every[True]:.2f} s (x{every[True] / bare:.2f})"
    )


def mended(db: Path) -> None:
    """Index what a database made before the occupancy blocks lacks (timed)."""
    with sqlite3.connect(db) as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(study_index)")}
        lacking = (
            "occupancy" not in columns
            or conn.execute("SELECT count(*) FROM study_index WHERE occupancy IS NULL").fetchone()[
                0
            ]
        )
    if lacking:
        with studydb.open(db) as database:
            summary = database.index(jobs=2)
        print(f"indexed {summary.studies:,} studies again (occupancy) in {summary.elapsed:.1f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--studies", type=int, default=20000)
    args = parser.parse_args()
    pgn, db = built(args.studies, "patterns", "boards")
    mended(db)
    with sqlite3.connect(db) as conn:
        positions, studies, boards, occupancy = conn.execute(
            "SELECT sum(positions), count(*), sum(length(boards)), sum(length(occupancy))"
            " FROM study_index"
        ).fetchone()
    seen = 12 * 8 * studies  # twelve 64-bit bitboards a study
    print(
        f"{args.studies:,} studies, {positions:,} positions, bytes a position: boards "
        f"{boards / positions:.1f}, bitboards {seen / positions:.1f}, occupancy "
        f"{occupancy / positions:.1f}; {(boards + seen + occupancy) / positions:.1f} in all"
    )
    bench_build(pgn)
    print(f"{'pattern':28} {'studydb':>9} {'pgn-extract':>12} {'ratio':>6}  found")
    with studydb.open(db, read_only=True) as database:
        for label, fen_pattern, filters in PATTERNS:
            ours, found = timed_result(lambda f=filters: database.count(**f), RUNS)
            theirs, expected = pgn_extract_count(pgn, fen_pattern)
            same = "same" if found == expected else f"{found} vs {expected}"
            print(
                f"{label:28} {ours:8.2f}s {theirs:11.2f}s {ours / theirs:6.2f}  {found:,} ({same})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
