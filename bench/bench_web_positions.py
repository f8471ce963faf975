"""Speed of the position index on the web pages (issue 12 follow-up of issue 10).

Uses (building it once if absent) the database of ``bench/bench_positions.py``:
distinct studies cut out of the corpus games, each with up to 60 plies of
solution, imported with the position index.  Starts the installed
``studydb serve`` on it and, over one keep-alive connection, times in the same run
(distinct studies and positions each time, median of ``REPEAT``):

* a study page, which now lists the studies sharing positions and the versions;
* references: the static style sheet (the server's floor), ``/api/studies/{id}``
  (which already looked the related studies up) and ``Database.related`` called
  in this process through the library;
* a ``/search?position=FEN`` page of up to 50 results with their occurrences,
  against ``search`` with the same filter in this process.

    python bench/bench_web_positions.py --studies 20000
"""

from __future__ import annotations

import argparse
import random
import statistics
from pathlib import Path
from urllib.parse import urlencode

import bench_positions
import chess
from bench_web import Client, start_server, timed_ms

import studydb
from studydb import movetext
from studydb.db.database import Database
from studydb.filters import Filters

SEED = 20261201
REPEAT = 15
#: Target of issue 12 for a study page, in milliseconds.
STUDY_TARGET = 100


def build(studies: int) -> Path:
    """The indexed database of ``bench_positions`` (written and imported once)."""
    bench_positions.OUT.mkdir(exist_ok=True)
    pgn = bench_positions.OUT / f"positions-{studies}.pgn"
    db = bench_positions.OUT / f"positions-{studies}.sqlite"
    if not pgn.exists():
        bench_positions.write_studies(pgn, studies)
    if not db.exists():
        with studydb.open(db) as writable:
            summary = writable.import_paths([pgn], jobs=2, batch_size=2000)
        print(f"imported {summary.stored:,} studies with the index in {summary.elapsed:.0f} s")
    return db


def probes(db: Database, top: int, rng: random.Random) -> tuple[list[int], list[str]]:
    """Distinct study ids, and a position reached in each of other distinct studies."""
    ids = rng.sample(range(1, top + 1), 4 * REPEAT + 4)
    fens = []
    for study_id in ids[2 * REPEAT + 2 :]:
        game = db.study_game(study_id)
        assert game is not None
        nodes = movetext.nodes(chess.Board(game.fen), game.movetext)
        fens.append(nodes[rng.randrange(len(nodes))].fen)
    return ids[: 2 * REPEAT + 2], fens


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=100_000)
    args = parser.parse_args()
    path = build(args.studies)
    db = studydb.open(path, read_only=True)
    rng = random.Random(SEED)
    with db.engine.connect() as conn:
        top = conn.exec_driver_sql("SELECT max(id) FROM studies").scalar()
        indexed = conn.exec_driver_sql("SELECT count(*) FROM positions").scalar()
    print(f"{path.name}: {top:,} studies, {indexed:,} indexed positions")
    ids, fens = probes(db, top, rng)
    process, port = start_server(path)
    try:
        client = Client(port)
        client.get("/static/studydb.css")  # warm up
        client.get(f"/studies/{ids.pop()}")
        client.get("/search?" + urlencode({"position": fens.pop()}))

        def page(path: str) -> None:
            status, _ = client.get(path)
            assert status == 200, (status, path)

        static = [timed_ms(lambda: page("/static/studydb.css")) for _ in range(REPEAT)]
        pages = [timed_ms(lambda i=ids.pop(): page(f"/studies/{i}")) for _ in range(REPEAT)]
        api = [timed_ms(lambda i=ids.pop(): page(f"/api/studies/{i}")) for _ in range(REPEAT)]
        library = [
            timed_ms(lambda i=i: db.related(db.study(i)))  # type: ignore[arg-type]
            for i in rng.sample(range(1, top + 1), REPEAT)
        ]
        searched = fens[:REPEAT]
        search = [
            timed_ms(lambda f=f: page("/search?" + urlencode({"position": f}))) for f in searched
        ]
        direct = [
            timed_ms(lambda f=f: list(db.search(Filters(position=f), limit=50))) for f in searched
        ]
    finally:
        process.terminate()
        process.wait(timeout=30)
        db.close()
    floor, reference, query = (statistics.median(t) for t in (static, library, direct))
    print(
        f"\nreferences: static file {floor:.1f} ms; library study + related "
        f"{reference:.1f} ms; library search --position (50 rows) {query:.1f} ms\n"
    )
    print(f"{'request (median of ' + str(REPEAT) + ')':<44} {'ms':>7} {'target':>7} {'÷ ref':>7}")
    for label, times, target, ref in (
        ("study page (sharing section)", pages, STUDY_TARGET, reference),
        ("/api/studies/{id}", api, STUDY_TARGET, reference),
        ("/search?position=FEN page", search, 300, query),
    ):
        ms = statistics.median(times)
        print(f"{label:<44} {ms:>7.1f} {target:>7} {ms / ref:>7.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
