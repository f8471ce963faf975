"""Manoeuvre search at scale (issue 30): studydb's --line against a python-chess replay.

The studies are ``bench_positions``'s: a real game's position at some ply as the
start and up to 60 of its next plies as the solution, every study distinct.  The
PGN and the database are made once in ``bench/out`` and reused.  In one run, for
each line of a table:

* studydb: ``Database.count(line=…, main_line=True)`` (the rarest step's candidates
  in SQL, then their ply facts scanned), median wall time of a few runs;
* the reference: ``bench/line_reference.py``, every game of the same PGN read by
  ``chess.pgn``, its main line replayed on a board and the line tested; wall time;
* the ratio (target: at most 0.25), and whether both found the same studies.

Also the ply facts' bytes a position and the prefilter rows a study, and the
replay that builds the index with and without the facts (their cost).

    python bench/bench_lines.py --studies 2000
    python bench/bench_lines.py --studies 100000 --no-reference
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent))
import line_reference
from bench_positions import best_cpu, built, read_sample, timed_result

import studydb
from studydb.lines import PlyFacts
from studydb.movetext import Tee, walk
from studydb.positions import IndexRows

#: (label, line): rare steps first, then lines whose every step is common.
LINES = [
    ("knight promotion", "P-[a-h]8=N"),
    ("rook to the 7th, then the 8th", "R-[a-h]7 then R-[a-h]8"),
    ("bishop check, king moves, bishop takes", "B-.+ next k-. next Bx."),
    ("queen mates", "Q-.#"),
    ("rook on the 7th, then a capture", "{R[a-h]7 r.} then Rx."),
    ("three captures in a row", "Ax. next ax. next Ax."),
    ("a check, later mate", "check then mate"),
    ("king steps, king steps", "K-. next k-."),
]
RUNS = 3


def replay(board: chess.Board, text: str, with_facts: bool) -> None:
    rows = IndexRows(board, [])
    walk(board, text, Tee(rows, PlyFacts(board)) if with_facts else rows)
    rows.boards()


def bench_build(pgn: Path) -> None:
    sample = read_sample(pgn, 1000)
    best = best_cpu(sample, replay)
    print(
        f"replay of {len(sample):,} studies with boards: {best[False]:.2f} s, with ply facts "
        f"too {best[True]:.2f} s (x{best[True] / best[False]:.2f} CPU)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--studies", type=int, default=2000)
    parser.add_argument(
        "--no-reference",
        action="store_true",
        help="time studydb only (the replay takes minutes a line on 100,000 studies)",
    )
    args = parser.parse_args()
    pgn, db = built(args.studies, "lines", "ply facts")
    with sqlite3.connect(db) as conn:
        positions, size = conn.execute(
            "SELECT sum(positions), sum(length(moves)) FROM study_index"
        ).fetchone()
        keys = conn.execute("SELECT count(*) FROM study_moves").fetchone()[0]
    print(
        f"{args.studies:,} studies, {positions:,} positions: ply facts {size / positions:.1f} B "
        f"a position, {keys / args.studies:.1f} prefilter rows a study"
    )
    bench_build(pgn)
    print(f"{'line':40} {'studydb':>9} {'replay':>9} {'ratio':>6}  found")
    with studydb.open(db, read_only=True) as database:
        for label, text in LINES:
            ours, found = timed_result(lambda t=text: database.count(line=t, main_line=True), RUNS)
            if args.no_reference:
                print(f"{label:40} {ours:8.3f}s {'-':>9} {'-':>6}  {found:,}")
                continue
            query = line_reference.compile_line(text)
            started = time.perf_counter()
            expected = line_reference.count_in_pgn(query, pgn, main_line=True)
            theirs = time.perf_counter() - started
            same = "same" if found == expected else f"{found} vs {expected}"
            print(
                f"{label:40} {ours:8.3f}s {theirs:8.2f}s {ours / theirs:6.3f}  {found:,} ({same})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
