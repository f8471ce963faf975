"""What checking a compressed file before its import costs, as a share of the import.

A gzip, bzip2 or xz file is decoded once to its end, its checks verified,
before any of its games is read (``studydb.pgn.open_verified``), and decoded
again as its games are read.  This times, in the same run and on the same
data (the games of ``../shared/corpus/games/*.pgn``, concatenated, then
compressed by the standard library), the CPU time of that first decoding
against the CPU time of the whole import (``--positions none``, a new SQLite
file each time).

Run: ``python bench/bench_verify.py`` (``--copies N`` repeats the games N
times, default 1).  Prints one line per format: the check's CPU seconds, the
import's, and their ratio.  Exit status 1 when a ratio is over its target
(gzip 0.10, xz 0.20, bzip2 0.40).
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import lzma
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "games"
TARGETS = {"gz": 0.10, "xz": 0.20, "bz2": 0.40}
PACKERS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=1)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import studydb
    from studydb.pgn import open_verified

    data = b"".join(path.read_bytes() for path in sorted(CORPUS.glob("*.pgn"))) * args.copies
    missed = False
    with tempfile.TemporaryDirectory() as folder:
        for kind, pack in PACKERS.items():
            path = Path(folder, f"games.pgn.{kind}")
            path.write_bytes(pack(data))
            started = time.process_time()
            stream, damage = open_verified(path)
            stream.close()
            check = time.process_time() - started
            assert damage is None, damage
            with studydb.open(Path(folder, f"{kind}.sqlite")) as database:
                started = time.process_time()
                summary = database.import_paths([path], positions="none")
                whole = time.process_time() - started
            ratio = check / whole
            missed |= ratio > TARGETS[kind]
            print(
                f"{kind:4} {len(data) / 1e6:.0f} MB, {summary.stored:,} games: check {check:.2f} s"
                f" CPU, import {whole:.2f} s CPU, ratio {ratio:.2f} (target <= {TARGETS[kind]})"
            )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
