"""The position index at scale (issue 10): build, size, searches, anticipation, PostgreSQL.

Studies are made from the real games in ``../shared/corpus/games``: each is a
game's position at some ply as the start (FEN) and up to 60 of its next
plies as the solution, so every study is distinct.  The PGN is written to
``bench/out/positions-<studies>.pgn`` and imported (with the index) into
``bench/out/positions-<studies>.sqlite`` once; both are reused when present.

Then, in this one process, against references measured in the same run:

* replay throughput: ``positions.index_rows`` vs a bare python-chess loop
  (``push_san`` and ``zobrist_hash`` of every position), one core;
* ``studydb index`` on a copy of a sample, ``--jobs 1`` vs ``--jobs 2``;
* import of a study file with the index vs ``--positions none`` vs ``pgn-extract -s``;
* SQLite bytes per position (``dbstat``), and after ``VACUUM``;
* exact ``--position``, ``--similar --either-colour``, ``--reaches --count``,
  and ``anticipate`` of a 60-ply study; with ``--pg`` the same on PostgreSQL.

    python bench/bench_positions.py --studies 100000
    python bench/bench_positions.py --studies 20000 --pg postgresql+psycopg://postgres@127.0.0.1/test
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot

import studydb
from studydb import positions
from studydb.filters import Filters
from studydb.movetext import nodes as walk_nodes

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
CORPUS = HERE.parent.parent / "shared" / "corpus" / "games"
PGN_EXTRACT = "/usr/games/pgn-extract"
SEED = 20261130
SOLUTION_PLIES = 60
REPEATS = 15


def source_games() -> Iterator[tuple[list[str], list[str]]]:
    """(FEN before each ply, SAN of each ply) of every corpus game's main line."""
    for path in sorted(CORPUS.glob("*.pgn")):
        with open(path, encoding="utf-8", errors="replace") as stream:
            while (game := chess.pgn.read_game(stream)) is not None:
                board = game.board()
                fens, sans = [], []
                for move in game.mainline_moves():
                    fens.append(board.fen())
                    sans.append(board.san(move))
                    board.push(move)
                if len(sans) >= 20:
                    yield fens, sans


def movetext(fen: str, sans: list[str]) -> str:
    board_turn, number = fen.split()[1], int(fen.split()[5])
    parts = []
    white = board_turn == "w"
    for i, san in enumerate(sans):
        if white:
            parts.append(f"{number}. {san}")
        elif i == 0:
            parts.append(f"{number}... {san}")
        else:
            parts.append(san)
        if not white:
            number += 1
        white = not white
    return " ".join(parts)


def write_studies(path: Path, count: int) -> None:
    """``count`` distinct studies cut out of the corpus games."""
    rng = random.Random(SEED)
    games = list(source_games())
    cuts = [(g, k) for g, (fens, _) in enumerate(games) for k in range(0, len(fens) - 10)]
    rng.shuffle(cuts)
    if len(cuts) < count:
        raise SystemExit(f"the corpus gives only {len(cuts):,} distinct studies")
    with open(path, "w", encoding="utf-8") as out:
        for number, (g, k) in enumerate(cuts[:count]):
            fens, sans = games[g]
            year = 1850 + rng.randrange(176)
            out.write(
                f'[Event "bench {number}"]\n[Date "{year}.??.??"]\n[Composer "C{g % 3000}"]\n'
                f'[SetUp "1"]\n[FEN "{fens[k]}"]\n\n'
                f"{movetext(fens[k], sans[k : k + SOLUTION_PLIES])} *\n\n"
            )


def timed(function: Callable[[], object], repeats: int = REPEATS) -> float:
    """Median seconds of ``repeats`` calls (after one warm-up)."""
    function()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def timed_result(function: Callable[[], object], runs: int = 3) -> tuple[float, object]:
    """Median seconds of ``runs`` calls, and what the last call returned."""
    times, result = [], None
    for _ in range(runs):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def built(studies: int, name: str, what: str) -> tuple[Path, Path]:
    """The bench PGN of ``studies`` studies and its database ``OUT/NAME-N.sqlite``, each
    made once (imported with two jobs; ``what`` says what the import builds)."""
    OUT.mkdir(exist_ok=True)
    pgn = OUT / f"positions-{studies}.pgn"
    if not pgn.exists():
        write_studies(pgn, studies)
    db = OUT / f"{name}-{studies}.sqlite"
    if not db.exists():
        with studydb.open(db) as database:
            started = time.perf_counter()
            database.import_paths([pgn], jobs=2)
            took = time.perf_counter() - started
            print(f"imported {studies:,} studies with {what} in {took:.1f} s")
    return pgn, db


def best_cpu(
    sample: list[tuple[str, str]], replay: Callable[[chess.Board, str, bool], object]
) -> dict[bool, float]:
    """The least CPU seconds of three rounds of ``replay(board, text, extra)`` over the
    sample, without and with the extra work (``False``, ``True``)."""
    best = {False: float("inf"), True: float("inf")}
    for _ in range(3):
        for extra in (False, True):
            started = time.process_time()
            for fen, text in sample:
                replay(chess.Board(fen), text, extra)
            best[extra] = min(best[extra], time.process_time() - started)
    return best


def read_sample(path: Path, count: int) -> list[tuple[str, str]]:
    """(FEN, movetext) of the first ``count`` studies of the file."""
    from studydb.pgn import read_games

    sample = []
    with open(path, "rb") as stream:
        for game in read_games(stream, name=str(path)):
            sample.append((game.headers["FEN"], game.movetext))
            if len(sample) == count:
                break
    return sample


def bench_replay(sample: list[tuple[str, str]]) -> None:
    def bare() -> int:
        n = 0
        for fen, text in sample:
            board = chess.Board(fen)
            chess.polyglot.zobrist_hash(board)
            for token in text.split():
                if token[0].isdigit() or token == "*":
                    continue
                board.push_san(token)
                chess.polyglot.zobrist_hash(board)
                n += 1
        return n

    def ours() -> int:
        return sum(len(positions.index_rows(chess.Board(f), t, [])) for f, t in sample)

    # Alternate the two, so that the load of a shared machine falls on both alike.
    bare_times, our_times = [], []
    for _ in range(5):
        for function, times in ((bare, bare_times), (ours, our_times)):
            started = time.perf_counter()
            function()
            times.append(time.perf_counter() - started)
    reference, mine = statistics.median(bare_times), statistics.median(our_times)
    count = ours()
    print(f"replay: bare push_san+zobrist loop {count / reference:10,.0f} positions/s (reference)")
    print(
        f"replay: positions.index_rows       {count / mine:10,.0f} positions/s "
        f"= {reference / mine:.2f}x the reference"
    )


def bench_index_jobs(path: Path, studies: int) -> None:
    sample = OUT / f"positions-sample-{studies}.pgn"
    with open(path, encoding="utf-8") as source, open(sample, "w", encoding="utf-8") as out:
        games = 0
        for line in source:
            if line.startswith("[Event ") and games == studies:
                break
            games += line.startswith("[Event ")
            out.write(line)
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "header-only.sqlite")
        with studydb.open(db) as writable:
            writable.import_paths([sample], positions="none", jobs=1)
        results = {}
        for jobs in (1, 2):
            copy = str(Path(tmp) / f"jobs{jobs}.sqlite")
            shutil.copy(db, copy)
            with studydb.open(copy) as writable:
                summary = writable.index(jobs=jobs, batch_size=500)
            results[jobs] = summary
            rate = summary.positions / summary.elapsed
            print(
                f"studydb index --jobs {jobs}: {summary.studies:,} studies, "
                f"{summary.positions:,} positions in {summary.elapsed:.1f} s ({rate:,.0f}/s)"
            )
        print(f"index --jobs 2 / --jobs 1 speed-up: {results[1].elapsed / results[2].elapsed:.2f}x")

        timings = {}
        for mode in ("none", "studies"):
            target = str(Path(tmp) / f"import-{mode}.sqlite")
            with studydb.open(target) as writable:
                started = time.perf_counter()
                writable.import_paths([sample], positions=mode, jobs=1)
                timings[mode] = time.perf_counter() - started
        started = time.perf_counter()
        subprocess.run(
            [PGN_EXTRACT, "-s", str(sample), "-o", os.devnull],
            check=True,
            stderr=subprocess.DEVNULL,
        )
        timings["pgn-extract"] = time.perf_counter() - started
        print(f"pgn-extract -s on the same file      {timings['pgn-extract']:7.2f} s (reference)")
        print(f"import --positions none (header-only) {timings['none']:7.2f} s")
        print(
            f"import --positions studies (default)   {timings['studies']:7.2f} s = "
            f"{timings['studies'] / timings['none']:.2f}x header-only, "
            f"{timings['studies'] / timings['pgn-extract']:.1f}x pgn-extract"
        )


def sqlite_bytes(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        count = conn.execute("SELECT count(*) FROM positions").fetchone()[0]
        size = conn.execute("SELECT sum(pgsize) FROM dbstat WHERE name = 'positions'").fetchone()[0]
    print(
        f"positions: {count:,}; SQLite bytes per position (table = its only index): "
        f"{size / count:.1f}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "vacuumed.sqlite"
        with sqlite3.connect(path) as conn:
            conn.execute(f"VACUUM INTO '{copy}'")
        with sqlite3.connect(copy) as conn:
            size = conn.execute(
                "SELECT sum(pgsize) FROM dbstat WHERE name = 'positions'"
            ).fetchone()[0]
        print(f"after VACUUM: {size / count:.1f} bytes per position")


def bench_searches(url: str, label: str, sample: list[tuple[str, str]]) -> dict[str, float]:
    database = studydb.open(url)
    rng = random.Random(SEED)
    probes = []
    for fen, text in rng.sample(sample, 20):
        nodes = walk_nodes(chess.Board(fen), text)
        probes.append(nodes[rng.randrange(len(nodes))].fen)
    long_games = [(f, t) for f, t in sample if len(t.split()) >= SOLUTION_PLIES * 1.4]
    study = long_games[0]
    cycle = iter(range(10**9))

    def exact() -> None:
        fen = probes[next(cycle) % len(probes)]
        list(database.search(Filters(position=fen), limit=50))

    def similar_either() -> None:
        fen = probes[next(cycle) % len(probes)]
        filters = Filters(position=fen, similar=True, either_colour=True)
        list(database.search(filters, limit=50))

    def reaches() -> None:
        database.count(Filters(reaches=("0000.33",)))

    def anticipate() -> None:
        database.anticipations(study[0], study[1], min_men=5)

    results = {
        "exact --position (50 rows)": timed(exact),
        "--position --similar --either-colour": timed(similar_either),
        "--reaches 0000.33 --count": timed(reaches),
        f"anticipate a {SOLUTION_PLIES}-ply study": timed(anticipate, 5),
    }
    for name, seconds in results.items():
        print(f"{label:10} {name:40} {seconds * 1000:8.1f} ms")
    database.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=100_000)
    parser.add_argument("--sample", type=int, default=3000, help="studies for the rate tests")
    parser.add_argument("--jobs", type=int, default=2, help="processes for the big import")
    parser.add_argument("--pg", help="PostgreSQL URL: also load it there and compare")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    pgn = OUT / f"positions-{args.studies}.pgn"
    db = OUT / f"positions-{args.studies}.sqlite"
    if not pgn.exists():
        started = time.perf_counter()
        write_studies(pgn, args.studies)
        print(f"wrote {pgn} in {time.perf_counter() - started:.0f} s")
    if not db.exists():
        with studydb.open(db) as writable:
            summary = writable.import_paths([pgn], jobs=args.jobs, batch_size=2000)
        print(f"imported {summary.stored:,} studies with the index in {summary.elapsed:.0f} s")
    sample = read_sample(pgn, args.sample)
    bench_replay(sample)
    bench_index_jobs(pgn, args.sample)
    sqlite_bytes(db)
    lite = bench_searches(str(db), "SQLite", sample)
    if args.pg:
        with studydb.open(args.pg) as writable:
            with writable.engine.connect() as conn:
                from sqlalchemy import text

                stored = conn.execute(text("SELECT count(*) FROM studies")).scalar_one()
            if stored < args.studies:
                summary = writable.import_paths([pgn], jobs=args.jobs, batch_size=2000)
                print(f"PostgreSQL: imported {summary.stored:,} studies in {summary.elapsed:.0f} s")
        pg = bench_searches(args.pg, "PostgreSQL", sample)
        for name in lite:
            print(f"PostgreSQL / SQLite  {name:40} {pg[name] / lite[name]:6.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
