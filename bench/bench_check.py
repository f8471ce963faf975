"""Soundness-check benchmark (issue 11): ratios against a bare python-chess loop.

Builds ``bench/out/check-<n>.pgn`` once: ``n`` distinct studies from random
3- and 4-man positions (K+Q, K+R, K+P, K+R v K+P, K+Q v K+R, K+B+N …, the side
to move not losing), each with a main line of random legal moves, stipulation
win or draw from the tables.  Imports it into a new SQLite file, then times:

* ``check_studies(..., jobs=1)`` (read the studies from the database, check,
  store the verdicts) against a bare loop over the same PGN texts in memory
  that replays the main lines with ``chess.pgn`` and probes WDL and DTZ of
  every root move at every position (target: ratio <= 1.3);
* the same check with ``jobs=2`` (scaling; 2 cores shared with others here);
  each timing is the best of ``--repeat`` interleaved runs (default 2);
* peak memory (max RSS) of a check of ``n`` and of ``4n`` studies, each in a
  fresh process: flat means within 10%.

Run: ``python bench/bench_check.py`` (150 studies, about 4 minutes here; ``--studies 50``
for a quick look, ``--no-memory`` to time only).
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

import chess
import chess.pgn
import chess.syzygy

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
SYZYGY = HERE.parent.parent / "shared" / "syzygy"
SEED = 20261130
PLIES = 16
MATERIAL = ("KQvK", "KRvK", "KPvK", "KRvKP", "KQvKR", "KBNvK", "KPvKP", "KRvKB", "KQvKP")
PIECES = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP,
          "N": chess.KNIGHT, "P": chess.PAWN}  # fmt: skip


def random_board(rng: random.Random, material: str) -> chess.Board | None:
    """A legal position of ``material``, White to move, or None."""
    board = chess.Board(None)
    for colour, side in zip((chess.WHITE, chess.BLACK), material.split("v"), strict=True):
        for letter in side:
            squares = [s for s in chess.SQUARES if board.piece_at(s) is None]
            if letter == "P":
                squares = [s for s in squares if 0 < chess.square_rank(s) < 7]
            board.set_piece_at(rng.choice(squares), chess.Piece(PIECES[letter], colour))
    return board if board.is_valid() and not board.is_game_over() else None


def make_collection(path: Path, count: int, tables: chess.syzygy.Tablebase) -> None:
    """Write ``count`` distinct studies with random main lines to ``path``."""
    rng = random.Random(SEED)
    seen: set[str] = set()
    with path.open("w", encoding="utf-8") as out:
        while len(seen) < count:
            board = random_board(rng, rng.choice(MATERIAL))
            if board is None or board.fen() in seen:
                continue
            wdl = tables.probe_wdl(board)
            if wdl < 0:
                continue
            seen.add(board.fen())
            game = chess.pgn.Game()
            game.setup(board)
            game.headers["Event"] = f"bench {len(seen)}"
            game.headers["Stipulation"] = "win" if wdl > 0 else "draw"
            node = game
            for _ in range(PLIES):
                moves = list(node.board().legal_moves)
                if not moves:
                    break
                node = node.add_variation(rng.choice(moves))
            out.write(str(game) + "\n\n")


def bare_loop(texts: list[str], tables: chess.syzygy.Tablebase) -> int:
    """Replay each main line; probe WDL and DTZ of every root move within the tables."""
    probes = 0
    for text in texts:
        game = chess.pgn.read_game(io.StringIO(text))
        board = game.board()
        for move in game.mainline_moves():
            if chess.popcount(board.occupied) <= 4:
                for root in board.legal_moves:
                    board.push(root)
                    tables.probe_wdl(board)
                    tables.probe_dtz(board)
                    board.pop()
                    probes += 1
            board.push(move)
    return probes


def database(pgn: Path, name: str) -> str:
    import studydb

    path = OUT / name
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with studydb.open(path) as db:
        db.import_paths([pgn])
    return str(path)


def timed_check(db: str, jobs: int) -> float:
    import studydb
    from studydb.db.checks import CheckConfig

    with studydb.open(db) as database:
        started = time.perf_counter()
        summary = database.check(None, CheckConfig((str(SYZYGY),)), recheck=True, jobs=jobs)
        elapsed = time.perf_counter() - started
    assert summary.checked > 0 and not summary.interrupted
    return elapsed


def child_memory(db: str) -> None:
    """In a fresh process: check every study of ``db``, print the max RSS in bytes."""
    timed_check(db, 1)
    print(json.dumps(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024))


def measure_memory(db: str) -> int:
    done = subprocess.run(
        [sys.executable, __file__, "--child-memory", db], capture_output=True, text=True, check=True
    )
    return int(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=2, help="Timings: best of this many.")
    parser.add_argument("--no-memory", action="store_true", help="Skip the peak-memory part.")
    parser.add_argument("--child-memory", metavar="DB", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_memory:
        child_memory(args.child_memory)
        return 0
    OUT.mkdir(exist_ok=True)
    tables = chess.syzygy.open_tablebase(str(SYZYGY))
    small = OUT / f"check-{args.studies}.pgn"
    large = OUT / f"check-{4 * args.studies}.pgn"
    for path, count in ((small, args.studies), (large, 4 * args.studies)):
        if not path.exists():
            make_collection(path, count, tables)
    db = database(small, "check-small.sqlite")
    import studydb

    with studydb.open(db) as stored:
        texts = [row.pgn for row in stored.search(None, sort="id", with_pgn=True)]
    references, ones, twos = [], [], []
    for _ in range(args.repeat):  # interleaved, best of each: the machine is shared
        started = time.perf_counter()
        probes = bare_loop(texts, tables)
        references.append(time.perf_counter() - started)
        ones.append(timed_check(db, 1))
        twos.append(timed_check(db, 2))
    reference, ours, two = min(references), min(ones), min(twos)
    ratio = ours / reference
    print(
        f"{len(texts):,} studies, {probes:,} root moves probed (WDL + DTZ), best of {args.repeat}"
    )
    print(f"  bare python-chess loop      {reference:7.2f} s")
    print(f"  studydb check, 1 process    {ours:7.2f} s  ratio {ratio:.2f} (target <= 1.30)")
    print(f"  studydb check --jobs 2      {two:7.2f} s  speed-up {ours / two:.2f}x over 1 process")
    if args.no_memory:
        return 0 if ratio <= 1.3 else 1
    rss_small = measure_memory(db)
    rss_large = measure_memory(database(large, "check-large.sqlite"))
    growth = rss_large / rss_small
    print(
        f"  max RSS: {rss_small / 1e6:,.0f} MB for {args.studies:,} studies, "
        f"{rss_large / 1e6:,.0f} MB for {4 * args.studies:,} ({growth:.2f}x; target <= 1.10)"
    )
    return 0 if ratio <= 1.3 and growth <= 1.1 else 1


if __name__ == "__main__":
    sys.exit(main())
