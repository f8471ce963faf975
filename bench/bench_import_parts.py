"""Where an import's time goes, part by part: what issue 28's missed targets would need.

``bench_import.py`` gives the ratios; this splits them, on its own files
(``bench/out``, made by it when missing), in this process unless said:

* header-only games: CPU microseconds a game for the reader, the content hash
  (of which the collapsed moves), the zstd text, the tags read, the rest of
  ``prepare``, against the whole ``studydb import`` (a process, its start
  included) and ``pgn-extract -s``'s CPU a game;
* solved studies: CPU microseconds a study for the bare python-chess loop
  (``read_game``, a push a move), ``index_game``, the rest of ``prepare``, and
  the importing process's writes (its ``_store``, in an import with ``--jobs 2``);
* that import with two workers, as a timeline: when the first and the last
  batches were written, the time the importing process waited between writes,
  and the CPU of the importing process and of its workers.

Run: ``python bench/bench_import_parts.py`` (``--games 20000 --studies 5000``, the
defaults: a minute).  It prints and asserts nothing: a measurement to read.
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from itertools import islice, pairwise
from pathlib import Path
from typing import Any

import chess
import chess.pgn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_import import (
    CPU,
    OUT,
    PGN_EXTRACT,
    build,
    compile_package,
    distinct_games,
    run,
    solved_studies,
)

import studydb
from studydb.db import importer
from studydb.db.classify import _collapsed, content_hash, index_game, prepare
from studydb.headers import read_info, start_fen
from studydb.pgn import RawGame, deflate_text, read_games

#: Rounds of each in-process measure; the least counts (the one other load inflated least).
ROUNDS = 3


def per_item(work: Callable[[], Any], count: int) -> float:
    """The least CPU microseconds an item of ``ROUNDS`` runs of ``work`` over ``count``."""
    spent = []
    for _ in range(ROUNDS):
        started = time.process_time()
        work()
        spent.append(time.process_time() - started)
    return min(spent) / count * 1e6


def read_all(path: Path, count: int) -> list[RawGame]:
    with path.open("rb") as stream:
        return list(islice(read_games(stream, name=str(path)), count))


def header_only(path: Path, count: int) -> None:
    """The header-only import of ``count`` games, part by part."""
    with tempfile.NamedTemporaryFile(dir=OUT, suffix=".pgn") as part:
        part.write(_head(path, count))
        part.flush()
        games = read_all(Path(part.name), count)
        count = len(games)
        parts: list[tuple[str, Callable[[], Any]]] = [
            ("reader", lambda: read_all(Path(part.name), count)),
            ("content hash", lambda: [content_hash(g) for g in games]),
            ("  of which the collapsed moves", lambda: [_collapsed(g.movetext) for g in games]),
            ("zstd text", lambda: [deflate_text(g.text) for g in games]),
            ("tags read (read_info)", lambda: [read_info(g.headers) for g in games]),
            ("prepare, its hash given", lambda: [prepare(g, digest="x") for g in games]),
        ]
        print(f"header-only: {count:,} games of {path.name}, CPU us a game (least of {ROUNDS})")
        for name, work in parts:
            print(f"  {name:<34} {per_item(work, count):7.1f}")
        whole = []
        for _ in range(ROUNDS):
            with tempfile.TemporaryDirectory(dir=OUT) as folder:
                run([_studydb(), "import", part.name, "--db", str(Path(folder) / "x.sqlite")])
                whole.append(CPU[_studydb()])
        run([PGN_EXTRACT, "-s", part.name, "-o", os.devnull])
        reference = CPU[PGN_EXTRACT] / count * 1e6
        print(f"  {'studydb import (its start too)':<34} {min(whole) / count * 1e6:7.1f}")
        print(f"  {'pgn-extract -s':<34} {reference:7.1f}")


def studies(path: Path, count: int) -> None:
    """The indexed import of ``count`` solved studies, part by part."""
    logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)
    games = read_all(path, count)
    count = len(games)
    starts = [start_fen(g.headers) or chess.STARTING_FEN for g in games]

    def bare() -> None:
        for game in games:
            played = chess.pgn.read_game(io.StringIO(game.text))
            assert played is not None
            board = played.board()
            for move in played.mainline_moves():
                board.push(move)

    def replay() -> None:
        for game, fen in zip(games, starts, strict=True):
            index_game(game.movetext, fen)

    def prepared() -> None:
        for game in games:
            prepare(game, digest="x", positions="studies")

    print(f"solved studies: {count:,} of {path.name}, CPU us a study (least of {ROUNDS})")
    loop = per_item(bare, count)
    print(f"  {'read_game + push loop':<34} {loop:7.1f}")
    ours = per_item(replay, count)
    print(f"  {'index_game':<34} {ours:7.1f}  ({ours / loop:.2f} of the loop)")
    rest = per_item(prepared, count) - ours
    print(f"  {'the rest of prepare':<34} {rest:7.1f}")
    timeline(path, count, loop)


def timeline(path: Path, count: int, loop: float) -> None:
    """An import of ``count`` studies with two workers, in a child process, as a timeline."""
    script = f"""
import sys
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
import bench_import_parts as parts
parts.traced_import({str(path)!r}, {count})
"""
    subprocess.run([sys.executable, "-c", script], check=True)
    print(f"  (the loop: {loop * count / 1e6:.2f} s of CPU for these studies)")


def traced_import(path: str, count: int) -> None:
    """Import the first ``count`` games of ``path`` with two workers; print the timeline."""
    with tempfile.TemporaryDirectory(dir=OUT) as folder:
        pgn = Path(folder) / "part.pgn"
        pgn.write_bytes(_head(Path(path), count))
        stores: list[tuple[float, float, float]] = []
        real = importer._Importer._store

        def store(self: Any, batch: Any, *, read: int) -> None:
            started, cpu = time.perf_counter(), time.process_time()
            real(self, batch, read=read)
            stores.append((started, time.perf_counter(), time.process_time() - cpu))

        importer._Importer._store = store  # type: ignore[method-assign]
        began = time.perf_counter()
        with studydb.open(Path(folder) / "x.sqlite") as database:
            summary = database.import_paths([pgn], jobs=2)
        ended = time.perf_counter() - began
    own = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    waits = [after[0] - before[1] for before, after in pairwise(stores)]
    written = sum(cpu for _, _, cpu in stores)
    print(
        f"  import --jobs 2 of {summary.stored:,} studies, {len(stores)} batches:"
        f" wall {ended:.2f} s"
    )
    print(
        f"    first batch written at {stores[0][0] - began:.2f} s, the last done at"
        f" {stores[-1][1] - began:.2f} s; waits between writes {sum(waits):.2f} s"
        f" (median {statistics.median(waits or [0]):.3f})"
    )
    print(
        f"    CPU: importing process {own.ru_utime + own.ru_stime:.2f} s, of which its writes"
        f" {written:.2f} s ({written / summary.stored * 1e6:.0f} us a study);"
        f" workers {workers.ru_utime + workers.ru_stime:.2f} s"
    )


def _head(path: Path, count: int) -> bytes:
    """The first ``count`` games of ``path``, each as read, a blank line between them."""
    with path.open("rb") as stream:
        return b"\n".join(game.raw for game in islice(read_games(stream, name=str(path)), count))


def _studydb() -> str:
    return str(Path(sys.executable).with_name("studydb"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="header-only games")
    parser.add_argument("--studies", type=int, default=5_000, help="solved studies")
    options = parser.parse_args()
    compile_package()
    OUT.mkdir(exist_ok=True)
    header_only(build("distinct-games", 100_000, distinct_games(100_000)), options.games)
    studies(build("solved-studies", 20_000, solved_studies(20_000)), options.studies)
    return 0


if __name__ == "__main__":
    sys.exit(main())
