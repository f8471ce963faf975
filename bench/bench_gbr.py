"""Benchmark ``studydb gbr``: bulk encoding from stdin, and single-call start-up.

Run:  /work/venv/bin/python bench/bench_gbr.py [--count 100000]

Targets (issue 2):
* ``studydb gbr encode`` over stdin of 100,000 FENs: >= 20,000 FENs/s end to end.
* ``studydb gbr encode FEN``: <= 2x the time of ``python -c "import chess"``.

References are measured in the same run.  The FEN list (start positions and
positions along the games and studies of ../shared/corpus) is cached in
bench/out/ (git-ignored).
"""

from __future__ import annotations

import argparse
import logging
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent.parent / "shared" / "corpus"
OUT = HERE / "out"
STUDYDB = Path(sys.executable).with_name("studydb")
SAAVEDRA = "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"


def collect_fens(count: int) -> Path:
    """Write ``count`` varied FENs to bench/out (cached) and return the path."""
    path = OUT / f"fens-{count}.txt"
    if path.exists():
        return path
    import chess.pgn

    logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)

    fens: list[str] = []
    files = sorted((CORPUS / "studies").glob("*.pgn")) + sorted((CORPUS / "games").glob("*.pgn"))
    for pgn in files:
        with pgn.open(encoding="utf-8-sig", errors="replace") as handle:
            while len(fens) < count:
                game = chess.pgn.read_game(handle)
                if game is None:
                    break
                board = game.board()
                fens.append(board.fen())
                for move in game.mainline_moves():
                    board.push(move)
                    fens.append(board.fen())
        if len(fens) >= count:
            break
    if len(fens) < count:
        sys.exit(f"only {len(fens)} FENs in {CORPUS}")
    OUT.mkdir(exist_ok=True)
    path.write_text("\n".join(fens[:count]) + "\n")
    return path


def best_of(runs: int, argv: list[str], stdin_path: Path | None = None) -> float:
    """Fastest wall time of ``runs`` runs of a command."""
    times = []
    for _ in range(runs):
        stdin = stdin_path.open("rb") if stdin_path else subprocess.DEVNULL
        start = time.perf_counter()
        done = subprocess.run(argv, stdin=stdin, stdout=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
        if stdin_path:
            stdin.close()
        if done.returncode != 0:
            sys.exit(f"{argv} exited {done.returncode}")
    return min(times)


def reference_chess_rate(fens: list[str]) -> float:
    """FENs/s of counting material with chess.Board, in process (reference)."""
    import chess

    start = time.perf_counter()
    for fen in fens:
        board = chess.Board(fen)
        for color in chess.COLORS:
            for piece_type in chess.PIECE_TYPES:
                len(board.pieces(piece_type, color))
    return len(fens) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    fens_path = collect_fens(args.count)
    fens = fens_path.read_text().splitlines()

    import_chess = best_of(args.runs * 2, [sys.executable, "-c", "import chess"])
    single = best_of(args.runs * 2, [str(STUDYDB), "gbr", "encode", SAAVEDRA])
    bulk = best_of(args.runs, [str(STUDYDB), "gbr", "encode"], fens_path)
    bulk_ext = best_of(
        max(1, args.runs // 2), [str(STUDYDB), "gbr", "encode", "--extended"], fens_path
    )
    rate = len(fens) / bulk
    rate_ext = len(fens) / bulk_ext
    reference = reference_chess_rate(fens[:20_000])

    print(f"FENs: {len(fens)} from {fens_path}")
    print(f"python -c 'import chess'        {import_chess * 1000:8.1f} ms   (reference)")
    print(
        f"studydb gbr encode FEN           {single * 1000:8.1f} ms   "
        f"ratio {single / import_chess:.2f}x import chess (target <= 2.00)"
    )
    print(f"chess.Board + count, in process  {reference:8.0f} FENs/s (reference)")
    print(
        f"studydb gbr encode < stdin       {rate:8.0f} FENs/s "
        f"= {rate / 20_000:.2f}x target 20,000/s, {rate / reference:.1f}x chess.Board reference"
    )
    print(
        f"studydb gbr encode --extended    {rate_ext:8.0f} FENs/s "
        f"= {rate_ext / 20_000:.2f}x target 20,000/s"
    )
    ok = rate >= 20_000 and single <= 2 * import_chess
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
