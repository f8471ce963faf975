"""Benchmark the streaming PGN reader against python-chess and pgn-extract.

Builds bench/out/games.pgn by concatenating ../shared/corpus/games/*.pgn until it
holds at least --games games, then times, in the same run:

* ``studydb.pgn.read_games`` (split + decode + tag parsing),
* a ``chess.pgn.read_headers`` loop (python-chess's fastest way to skim a file),
* ``pgn-extract -s FILE -o /dev/null`` (C; parses and checks every move).

Prints games/s for each and the ratio of ours to each reference, plus max RSS.

    python bench/bench_reader.py [--games 100000] [--gzip]
"""

from __future__ import annotations

import argparse
import gzip
import io
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import chess.pgn

from studydb.pgn import open_pgn, read_games

ROOT = Path(__file__).resolve().parent
CORPUS = ROOT.parent.parent / "shared" / "corpus" / "games"
OUT = ROOT / "out"


def build(target: int, *, compress: bool) -> tuple[Path, int]:
    """Write the benchmark file; return its path and game count."""
    sources = sorted(CORPUS.glob("*.pgn"))
    if not sources:
        sys.exit(f"no corpus games in {CORPUS}")
    per_round = 0
    blobs = []
    for source in sources:
        with open_pgn(source) as stream:
            per_round += sum(1 for _ in read_games(stream, name=str(source)))
        data = source.read_bytes()
        blobs.append(data if data.endswith(b"\n") else data + b"\n")
    rounds = -(-target // per_round)
    OUT.mkdir(exist_ok=True)
    path = OUT / ("games.pgn.gz" if compress else "games.pgn")
    opener = gzip.open if compress else open
    with opener(path, "wb") as out:
        for _ in range(rounds):
            for blob in blobs:
                out.write(blob)
                out.write(b"\n")
    return path, rounds * per_round


def time_ours(path: Path) -> tuple[int, float]:
    start = time.perf_counter()
    with open_pgn(path) as stream:
        count = sum(1 for _ in read_games(stream, name=str(path)))
    return count, time.perf_counter() - start


def time_ours_in_child(path: Path) -> tuple[int, float, float]:
    """Run read_games in a fresh process, so its max RSS is its own."""
    result = subprocess.run(
        [sys.executable, __file__, "--ours-only", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    count, elapsed, rss = result.stdout.split()
    return int(count), float(elapsed), float(rss)


def time_python_chess(path: Path) -> tuple[int, float]:
    start = time.perf_counter()
    count = 0
    with open_pgn(path) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", errors="replace")
        while chess.pgn.read_headers(text) is not None:
            count += 1
    return count, time.perf_counter() - start


def time_pgn_extract(path: Path) -> tuple[int, float] | None:
    exe = shutil.which("pgn-extract") or (
        "/usr/games/pgn-extract" if Path("/usr/games/pgn-extract").exists() else None
    )
    if exe is None:
        return None
    start = time.perf_counter()
    result = subprocess.run(
        [exe, "-s", str(path), "-o", "/dev/null"], capture_output=True, check=False
    )
    elapsed = time.perf_counter() - start
    if result.returncode not in (0, 1):
        return None
    return -1, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--gzip", action="store_true", help="benchmark a .pgn.gz file")
    parser.add_argument("--ours-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.ours_only:
        count, elapsed = time_ours(args.ours_only)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(count, elapsed, rss)
        return

    path, expected = build(args.games, compress=args.gzip)
    print(f"file: {path} ({path.stat().st_size / 1e6:.1f} MB, {expected} games)")

    count, ours, our_rss = time_ours_in_child(path)
    assert count == expected, (count, expected)
    rate = count / ours
    print(f"studydb read_games      : {count:8d} games {ours:7.2f} s {rate:10.0f} games/s")

    pc_count, pc_time = time_python_chess(path)
    pc_rate = pc_count / pc_time
    print(
        f"chess.pgn.read_headers  : {pc_count:8d} games {pc_time:7.2f} s {pc_rate:10.0f} games/s"
        f"   (ours {ours and pc_time / ours:.1f}x faster; its count is wrong on workbooks)"
    )

    pe = time_pgn_extract(path)
    if pe is None:
        print("pgn-extract             : not available")
    else:
        _, pe_time = pe
        pe_rate = expected / pe_time
        print(
            f"pgn-extract -s -o null  : {expected:8d} games {pe_time:7.2f} s {pe_rate:10.0f}"
            f" games/s   (ours {pe_time / ours:.2f}x its speed)"
        )
    print(f"max RSS of read_games   : {our_rss:.0f} MiB (whole process, interpreter included)")


if __name__ == "__main__":
    main()
