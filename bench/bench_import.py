"""Bulk-import benchmark: ratios against references measured in the same run.

Builds one file by concatenating ``../shared/corpus/games/*.pgn`` repeated to
at least ``--games`` games (default 100,000) in ``bench/out/``, then times:

* ``studydb import FILE`` into a new SQLite file against
  ``pgn-extract -s FILE -o /dev/null`` (target: ratio <= 1.0);
* ``studydb import --validate --jobs 2`` against a plain single-process
  ``chess.pgn.read_game`` loop over the same file (target: ratio <= 0.6), and
  the same on one pass of the corpus, where no game is a duplicate;
* peak memory (max RSS) of the import: below 200 MB, and within 10% for a
  file 4x larger (``--no-scale`` skips that part).

Run: ``python bench/bench_import.py`` (add ``--games 20000`` for a quick look).
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
CORPUS = HERE.parent.parent / "shared" / "corpus" / "games"
STUDYDB = str(Path(sys.executable).with_name("studydb"))
PGN_EXTRACT = shutil.which("pgn-extract") or "/usr/games/pgn-extract"

READ_GAME_LOOP = """
import logging, sys, chess.pgn
logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)
with open(sys.argv[1], encoding="utf-8", errors="replace") as handle:
    while chess.pgn.read_game(handle) is not None:
        pass
"""


def count_games(path: Path) -> int:
    from studydb.pgn import read_games

    with open(path, "rb") as stream:
        return sum(1 for _ in read_games(stream, name=str(path)))


def build_file(games: int, name: str) -> tuple[Path, int]:
    """Concatenate the corpus games until the file holds at least ``games``."""
    OUT.mkdir(exist_ok=True)
    path = OUT / name
    sources = sorted(CORPUS.glob("*.pgn"))
    if not sources:
        sys.exit(f"no PGN files in {CORPUS}")
    per_pass = sum(count_games(source) for source in sources)
    passes = -(-games // per_pass)
    total = passes * per_pass
    if path.exists() and path.stat().st_size == passes * sum(s.stat().st_size for s in sources):
        return path, total
    with open(path, "wb") as out:
        for _ in range(passes):
            for source in sources:
                data = source.read_bytes()
                out.write(data if data.endswith(b"\n") else data + b"\n")
    return path, total


def run(args: list[str]) -> tuple[float, int]:
    """Run a command; return its wall time in seconds and its max RSS in bytes."""
    started = time.perf_counter()
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0,):
        sys.exit(f"{' '.join(args)} exited {process.returncode}")
    return elapsed, usage.ru_maxrss * 1024


def import_into_new_db(path: Path, *extra: str) -> tuple[float, int]:
    with tempfile.TemporaryDirectory(dir=OUT) as folder:
        return run([STUDYDB, "import", str(path), "--db", f"{folder}/bench.sqlite", *extra])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--no-scale", action="store_true", help="skip the 4x memory check")
    options = parser.parse_args()

    path, games = build_file(options.games, f"games-{options.games}.pgn")
    size_mb = path.stat().st_size / 1e6
    print(f"file: {path} ({games:,} games, {size_mb:,.0f} MB)")
    failed = False

    reference, _ = run([PGN_EXTRACT, "-s", str(path), "-o", os.devnull])
    seconds, rss = import_into_new_db(path)
    ratio = seconds / reference
    failed |= ratio > 1.0
    print(f"pgn-extract -s                  {reference:8.1f} s  (reference)")
    print(
        f"studydb import                  {seconds:8.1f} s  {games / seconds:8,.0f} games/s"
        f"  ratio {ratio:.2f} (target <= 1.00)  max RSS {rss / 1e6:,.0f} MB"
    )

    loop, _ = run([sys.executable, "-c", READ_GAME_LOOP, str(path)])
    validate, vrss = import_into_new_db(path, "--validate", "--jobs", "2")
    vratio = validate / loop
    failed |= vratio > 0.6
    print(f"chess.pgn.read_game loop        {loop:8.1f} s  (reference)")
    print(
        f"studydb import --validate -j 2  {validate:8.1f} s  {games / validate:8,.0f} games/s"
        f"  ratio {vratio:.2f} (target <= 0.60)  max RSS {vrss / 1e6:,.0f} MB"
    )

    # The big file repeats the corpus, so most of its games are duplicates that
    # are recognised before any move is replayed.  Measure the replay itself on
    # one pass of the corpus, where every game is new.
    unique, unique_games = build_file(1, "games-unique.pgn")
    loop, _ = run([sys.executable, "-c", READ_GAME_LOOP, str(unique)])
    validate, _ = import_into_new_db(unique, "--validate", "--jobs", "2")
    uratio = validate / loop
    failed |= uratio > 0.6
    print(f"read_game loop, unique games    {loop:8.1f} s  (reference, {unique_games:,} games)")
    print(
        f"--validate -j 2, unique games   {validate:8.1f} s"
        f"  {unique_games / validate:8,.0f} games/s"
        f"  ratio {uratio:.2f} (target <= 0.60)"
    )

    failed |= rss > 200e6
    print(f"peak memory                     {rss / 1e6:8.0f} MB (target < 200 MB)")
    if not options.no_scale:
        big, big_games = build_file(4 * options.games, f"games-{4 * options.games}.pgn")
        _, big_rss = import_into_new_db(big)
        growth = big_rss / rss
        failed |= growth > 1.10 or big_rss > 200e6
        print(
            f"peak memory, 4x file            {big_rss / 1e6:8.0f} MB ({big_games:,} games)"
            f"  ratio {growth:.2f} (target <= 1.10)"
        )
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
