"""Import speed into PostgreSQL against SQLite, measured in the same run (issue 5).

Builds ``bench/out/bench-postgres-<games>.pgn`` once (reused when present):
the real games of ``../shared/corpus/games/*.pgn`` concatenated, repeated
until there are at least ``--games`` games.  Each repetition after the first
prefixes the ``Event`` values with its number, so that the copies are new
studies rather than duplicates (games without an ``Event`` tag stay
duplicates, as in real collections).

Then it imports the file into a fresh SQLite file and into a fresh PostgreSQL
database (created on the server and dropped afterwards) with
:meth:`studydb.Database.import_paths`, prints games/s for each and the
ratio PostgreSQL / SQLite.  Target: the ratio is at least 0.7 (issue 28; issue 5 asked 0.5).

    python bench/bench_postgres.py
    python bench/bench_postgres.py --games 20000 --pg postgresql://postgres@127.0.0.1:5432/test

``--pg`` (or ``$STUDYDB_TEST_PG``) is a URL of a database on the server used
only to create and drop the benchmark database.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import uuid
from pathlib import Path

import studydb
from studydb.db.importer import BATCH_SIZE, ImportSummary
from studydb.pgn import read_games

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
CORPUS = HERE.parent.parent / "shared" / "corpus" / "games"
TARGET_RATIO = 0.7
DEFAULT_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"


def build_input(games: int) -> tuple[Path, int]:
    """Write (or reuse) the benchmark PGN file; return it and its number of games."""
    path = OUT / f"bench-postgres-{games}.pgn"
    files = sorted(CORPUS.glob("*.pgn"))
    if not files:
        sys.exit(f"bench_postgres: no PGN files in {CORPUS}")
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        per_copy = 0
        for source in files:
            with open(source, "rb") as stream:
                per_copy += sum(1 for _ in read_games(stream, name=str(source)))
        copies = -(-games // per_copy)
        partial = path.with_suffix(".part")
        with open(partial, "wb") as out:
            for copy in range(copies):
                for source in files:
                    data = source.read_bytes()
                    if copy:
                        data = data.replace(b'[Event "', b'[Event "#%d ' % copy)
                    out.write(data.rstrip(b"\r\n") + b"\n\n")
        partial.replace(path)
    with open(path, "rb") as stream:
        count = sum(1 for _ in read_games(stream, name=str(path)))
    return path, count


def run_import(url: str, source: Path, batch_size: int) -> ImportSummary:
    with studydb.open(url) as database:
        summary = database.import_paths([source], batch_size=batch_size)
    if summary.failures:
        sys.exit(f"bench_postgres: import into {url} failed: {summary.failures}")
    return summary


def report(name: str, summary: ImportSummary) -> float:
    rate = summary.read / summary.elapsed
    print(
        f"{name:<10} {summary.read:>8,} games in {summary.elapsed:6.1f} s  {rate:>8,.0f} games/s"
        f"  (stored {summary.stored:,}, duplicates {summary.duplicates:,}, "
        f"rejected {summary.rejected:,})"
    )
    return rate


def rate_ratio(source: Path, admin_url: str, *, batch_size: int = BATCH_SIZE) -> float:
    """Import ``source`` into a new SQLite file, then into a new PostgreSQL database made
    (and dropped) through ``admin_url``; print both rates; return PostgreSQL's / SQLite's."""
    import psycopg

    with tempfile.TemporaryDirectory() as folder:
        lite = report("SQLite", run_import(str(Path(folder) / "bench.sqlite"), source, batch_size))
    name = f"studydb_bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            info = admin.info
            url = f"postgresql+psycopg://{info.user}@{info.host}:{info.port}/{name}"
            pg = report("PostgreSQL", run_import(url, source, batch_size))
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return pg / lite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="at least this many games")
    parser.add_argument("--batch-size", type=int, default=BATCH_SIZE)
    parser.add_argument(
        "--pg",
        default=os.environ.get("STUDYDB_TEST_PG", DEFAULT_ADMIN),
        help="admin URL of the PostgreSQL server (a database to connect to)",
    )
    args = parser.parse_args()
    source, games = build_input(args.games)
    print(f"input: {source} ({games:,} games, {source.stat().st_size / 1e6:,.0f} MB)")
    ratio = rate_ratio(source, args.pg, batch_size=args.batch_size)
    verdict = "ok" if ratio >= TARGET_RATIO else "BELOW TARGET"
    print(f"ratio PostgreSQL/SQLite: {ratio:.2f} (target >= {TARGET_RATIO}) {verdict}")


if __name__ == "__main__":
    main()
