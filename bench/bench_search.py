"""Search speed on a SQLite database of a million studies (issue 4).

Builds ``bench/out/search-<rows>.sqlite`` once (reused when present): start
positions taken from the real games in ``../shared/corpus/games`` (replayed
with python-chess), with random men removed (kings kept) so that the GBR
classes spread out, composers drawn from a few thousand names, years
1850-2025.  Rows go in with ``executemany`` in large transactions, with the
secondary indexes dropped during the load and rebuilt after it.

Then, in this one process, it times the library queries against their
targets; ``studydb stats`` (unfiltered: under 1 s; filtered: against
``search --count`` plus the same groupings run one by one); and, end to end,
``studydb search 0300.10 --limit 20`` against ``python -c "import
sqlalchemy"`` measured in the same run; and prints the
``EXPLAIN QUERY PLAN`` of the slowest query.

    python bench/bench_search.py                 # 1,000,000 studies
    python bench/bench_search.py --rows 100000   # a quicker run
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import chess.pgn

from studydb import gbr
from studydb.db.conditions import build_condition
from studydb.db.connect import open_database
from studydb.db.persons import name_columns, rebuild
from studydb.db.search import count, count_statement, search, search_statement
from studydb.db.stats import stats
from studydb.filters import Filters
from studydb.pgn import deflate_text

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
CORPUS = HERE.parent.parent / "shared" / "corpus" / "games"
SEED = 20261129
BATCH = 50_000
COMPOSER_COUNT = 3000
SCHEMA_VERSION = "7"  # bump when the generated data or the schema changes (7: no headers column)

FIRST = [
    "Richard",
    "Leonid",
    "Genrikh",
    "Alexei",
    "Henri",
    "Vitaly",
    "Yochanan",
    "Gia",
    "David",
    "John",
    "Harold",
    "Oleg",
    "Jan",
    "Emil",
    "Ernest",
    "Marcel",
    "Pal",
    "Sergei",
    "Yuri",
    "Andrei",
    "Nikolai",
    "Vladimir",
    "Jindrich",
    "Attila",
    "Gijs",
    "Martin",
    "Iuri",
    "Amatzia",
    "Noam",
    "Jürgen",
    "Šarūnas",
    "Zoltán",
    "Ľubomír",
    "Dawid",
    "Ólafur",
    "Øyvind",
]
LAST = [
    "Réti",
    "Kubbel",
    "Kasparyan",
    "Troitzky",
    "Rinck",
    "Halberstadt",
    "Afek",
    "Nadareishvili",
    "Gurgenidze",
    "Roycroft",
    "Lommer",
    "Pervakov",
    "Timman",
    "Beasley",
    "Mitrofanov",
    "Hlinka",
    "Bron",
    "Liburkin",
    "Kralin",
    "Prokeš",
    "Herbstman",
    "Korolkov",
    "Platov",
    "Sarychev",
    "Gorgiev",
    "Kakovin",
    "Grzeban",
    "Selivanov",
    "Vandiest",
    "Nunn",
    "Avni",
    "Elkies",
    "Siegers",
    "Becker",
    "Akobia",
    "Kopnin",
    "Vlasenko",
    "Šťastný",
    "Pogosyants",
    "Bondarenko",
    "Weenink",
    "Fritz",
    "Mattison",
    "Ståhlberg",
    "Müller",
    "Ødegaard",
    "Ruiz",
    "López",
    "Pérez",
    "Çelik",
    "Dvořák",
]
SOURCES = (
    "EG",
    "Shakhmaty v SSSR",
    "Tidskrift för Schack",
    "Deutsche Schachzeitung",
    "Magyar Sakkélet",
    "Themes-64",
    "The Problemist",
    "Schweizerische Schachzeitung",
    "diagrammes",
    "Ceskoslovensky Sach",
)
AWARDS = ((None, None), ("1st Prize", "prize"), ("hon. mention", "hm"), ("commend", "comm"))

COLUMNS = [
    "gbr",
    "pieces",
    "wq",
    "wr",
    "wb",
    "wn",
    "wp",
    "bq",
    "br",
    "bb",
    "bn",
    "bp",
    "men",
    "signature",
    "fen",
    "turn",
    "zobrist",
    "stipulation",
    "result",
    "composer_names",
    "source",
    "year",
    "award",
    "award_kind",
    "award_rank",
    "pgn",
    "encoding",
    "content_hash",
    "valid",
    "errors",
    "run_id",
    "file",
    "line",
    '"offset"',
]


def corpus_positions(limit: int = 60_000) -> list[str]:
    """Distinct board placements (with side to move) from replaying the corpus games."""
    positions: dict[str, None] = {}
    for path in sorted(CORPUS.glob("*.pgn")):
        with open(path, encoding="latin-1") as handle:
            while len(positions) < limit:
                try:
                    game = chess.pgn.read_game(handle)
                except (ValueError, KeyError):
                    continue
                if game is None:
                    break
                board = game.board()
                for ply, move in enumerate(game.mainline_moves()):
                    board.push(move)
                    if ply % 3 == 0 and chess.popcount(board.occupied) > 2:
                        positions[
                            board.fen(en_passant="fen").split(" ", 2)[0]
                            + " "
                            + "wb"[not board.turn]
                        ] = None
        if len(positions) >= limit:
            break
    return list(positions)


def _thin(placement: str, rng: random.Random) -> str:
    """Remove random men other than the kings, down to a random number of men."""
    squares: list[str] = []
    for row in placement.split("/"):
        for char in row:
            squares.extend("." * int(char) if char.isdigit() else char)
    others = [i for i, c in enumerate(squares) if c not in "Kk."]
    keep_total = min(len(others), int(rng.triangular(0, 14, 3)))
    for index in rng.sample(others, len(others) - keep_total):
        squares[index] = "."
    rows = []
    for r in range(8):
        text, empty = "", 0
        for c in squares[r * 8 : r * 8 + 8]:
            if c == ".":
                empty += 1
                continue
            if empty:
                text += str(empty)
                empty = 0
            text += c
        rows.append(text + (str(empty) if empty else ""))
    return "/".join(rows)


def composer_names(rng: random.Random) -> list[str]:
    names = {"Réti, Richard", "Kubbel, Leonid", "Troitzky, Alexei"}
    while len(names) < COMPOSER_COUNT:
        suffix = rng.choice(["", "", "", " Jr.", "-" + rng.choice(LAST)])
        names.add(f"{rng.choice(LAST)}{suffix}, {rng.choice(FIRST)}")
    return sorted(names)


def generate(rows: int, names: list[str], positions: list[str]) -> Iterator[tuple]:
    rng = random.Random(SEED)
    for number in range(rows):
        placement, turn = rng.choice(positions).split()
        board = _thin(placement, rng)
        fen = f"{board} {turn} - - 0 1"
        m = gbr.material(fen)
        stipulation = rng.choice(("win", "win", "draw", None))
        authors = rng.sample(range(len(names)), 2 if rng.random() < 0.1 else 1)
        year = rng.randint(1850, 2025) if rng.random() < 0.95 else None
        award, kind = rng.choice(AWARDS)
        source = rng.choice(SOURCES)
        shown = "; ".join(names[a] for a in authors)
        result = {"win": "1-0", "draw": "1/2-1/2"}.get(stipulation or "", "*")
        pgn = (
            f'[Event "{source}"]\n[Composer "{shown}"]\n[Result "{result}"]\n'
            f'[SetUp "1"]\n[FEN "{fen}"]\n\n{result}\n'
        )
        digest = hashlib.sha256(f"{number}:{pgn}".encode()).hexdigest()
        yield (
            (
                m.code,
                m.code[:4],
                *m.white,
                *m.black,
                m.men,
                m.signature,
                fen,
                turn,
                int(digest[:15], 16),
                stipulation,
                result,
                shown,
                source,
                year,
                award,
                kind,
                1 if kind == "prize" else None,
                deflate_text(pgn),  # stored as the import stores it (models.DeflatedText)
                "utf-8",
                digest,
                None,
                None,
                None,
                "bench.pgn",
                number * 6 + 1,
                number * 200,
            ),
            authors,
        )


def build(path: Path, rows: int) -> None:
    """Create the schema with the real migrations, then bulk-load the rows."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".building")
    for stale in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        stale.unlink(missing_ok=True)
    open_database(tmp).dispose()
    started = time.perf_counter()
    print("replaying corpus games for start positions …", flush=True)
    rng = random.Random(SEED)
    positions = corpus_positions()
    names = composer_names(rng)
    print(f"{len(positions):,} positions, {len(names):,} composers", flush=True)
    conn = sqlite3.connect(tmp, isolation_level=None)
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    indexes = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
        "AND tbl_name IN ('studies', 'study_composers')"
    ).fetchall()
    for name, _ in indexes:
        conn.execute(f'DROP INDEX "{name}"')
    conn.execute("BEGIN")
    keyed = [name_columns(n) for n in names]
    conn.executemany(
        "INSERT INTO composers (id, name, key, surname_key, given_key, given_initial)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [
            (i + 1, k["name"], k["key"], k["surname_key"], k["given_key"], k["given_initial"])
            for i, k in enumerate(keyed)
        ],
    )
    insert_study = (
        f"INSERT INTO studies (id, {', '.join(COLUMNS)}) "
        f"VALUES (?, {', '.join('?' * len(COLUMNS))})"
    )
    links: list[tuple[int, int, int]] = []
    studies: list[tuple] = []
    for number, (values, authors) in enumerate(generate(rows, names, positions), start=1):
        studies.append((number, *values))
        links.extend((number, position, a + 1) for position, a in enumerate(authors))
        if len(studies) >= BATCH:
            conn.executemany(insert_study, studies)
            conn.executemany("INSERT INTO study_composers VALUES (?, ?, ?)", links)
            conn.execute("COMMIT")
            conn.execute("BEGIN")
            studies.clear()
            links.clear()
            print(f"  {number:,} studies ({time.perf_counter() - started:.0f} s)", flush=True)
    conn.executemany(insert_study, studies)
    conn.executemany("INSERT INTO study_composers VALUES (?, ?, ?)", links)
    conn.execute("COMMIT")
    print("rebuilding indexes …", flush=True)
    for _, sql in indexes:
        conn.execute(sql)
    conn.execute("ANALYZE")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()
    print("grouping the names into persons …", flush=True)
    engine = open_database(tmp)
    with engine.begin() as connection:
        rebuild(connection)
    engine.dispose()
    tmp.rename(path)
    print(f"built {path} in {time.perf_counter() - started:.0f} s", flush=True)


def timed(function: Callable[[], object], repeat: int = 7) -> tuple[float, object]:
    """Median wall time in ms of ``repeat`` calls (after one warm-up call)."""
    result = function()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), result


def wall(command: list[str], repeat: int = 5) -> float:
    """Median wall time in seconds of running ``command``."""
    subprocess.run(command, check=True, capture_output=True)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def explain(engine, statement) -> list[str]:
    compiled = statement.compile(engine, compile_kwargs={"literal_binds": True})
    with engine.connect() as conn:
        rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}").all()
    return [f"{'  ' * (row[1] > 0)}{row[3]}" for row in rows], str(compiled)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rebuild", action="store_true", help="Build the database anew.")
    parser.add_argument(
        "--index",
        action="append",
        default=[],
        metavar="SQL",
        help="CREATE INDEX statement to add to the bench database before timing.",
    )
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"bench_search: {CORPUS} is absent", file=sys.stderr)
        return 1
    path = OUT / f"search-{args.rows}-v{SCHEMA_VERSION}.sqlite"
    if args.rebuild or not path.exists():
        build(path, args.rows)
    engine = open_database(path)
    added = [re.search(r"INDEX\s+(?:IF NOT EXISTS\s+)?(\w+)", sql, re.I)[1] for sql in args.index]
    with engine.begin() as conn:
        for sql in args.index:
            conn.exec_driver_sql(sql)
        if args.index:
            conn.exec_driver_sql("ANALYZE")
    try:
        return _measure(engine, path, args.index)
    finally:
        with engine.begin() as conn:  # leave the bench database as built
            for name in added:
                conn.exec_driver_sql(f"DROP INDEX IF EXISTS {name}")
        engine.dispose()


def _measure(engine, path: Path, indexes: list[str]) -> int:
    """Time the queries and the command; print the plan of the slowest query."""

    F = Filters
    cases = [
        ("exact GBR code count: 0300.10", 20, F(material=("0300.10",)), None),
        ("pattern count: 03?? (pawns unspecified)", 100, F(material=("03??",)), None),
        ("--where count: wR>=1 bN=1 men<=5", 200, F(where=("wR>=1 bN=1 men<=5",)), None),
        ("composer substring search 'reti', limit 50", 200, F(composers=("reti",)), 50),
        ("composer spelled otherwise 'troitsky', limit 50", 200, F(composers=("troitsky",)), 50),
        ("composer 'Richard Reti', limit 50", 200, F(composers=("Richard Reti",)), 50),
        ("composer count 'kubbel'", 200, F(composers=("kubbel",)), None),
    ]

    def run(filters: Filters, limit: int | None) -> int:
        if limit is None:
            return count(engine, filters)
        return len(list(search(engine, filters, limit=limit)))

    def statement(filters: Filters, limit: int | None):
        if limit is None:
            return count_statement(filters)
        return search_statement(filters, limit=limit, dialect="sqlite")

    with engine.connect() as conn:
        total = conn.exec_driver_sql("SELECT count(*) FROM studies").scalar()
    print(f"\n{path.name}: {total:,} studies")
    for sql in indexes:
        print(f"with the extra index: {sql}")
    print()
    print(f"{'query':<46} {'result':>9} {'median ms':>10} {'target':>7} {'ratio':>6}")
    slowest = (0.0, 0)
    for number, (label, target, filters, limit) in enumerate(cases):
        ms, result = timed(lambda f=filters, n=limit: run(f, n))
        print(f"{label:<46} {result:>9,} {ms:>10.1f} {target:>7} {ms / target:>6.2f}")
        slowest = max(slowest, (ms / target, number))

    _measure_stats(engine)

    reference = wall([sys.executable, "-c", "import sqlalchemy"])
    studydb = Path(sys.executable).with_name("studydb")
    command = [str(studydb), "search", "0300.10", "--limit", "20", "--db", str(path)]
    end_to_end = wall(command)
    print(
        f"\nend to end: {' '.join(command[:4])} …  {end_to_end * 1000:.0f} ms; "
        f"python -c 'import sqlalchemy' {reference * 1000:.0f} ms; "
        f"ratio {end_to_end / reference:.2f} (target <= 3)"
    )

    plan, sql = explain(engine, statement(*cases[slowest[1]][2:]))
    print(f"\nslowest relative to its target: {cases[slowest[1]][0]}\n{sql}\nQUERY PLAN")
    print("\n".join(plan))
    return 0


def _groupings(engine, filters: Filters) -> None:
    """The reference for filtered stats: ``search --count`` and each grouping, plainly."""
    from sqlalchemy import func, select

    from studydb.db.models import Study, StudyComposer

    count(engine, filters)
    condition = build_condition(filters)
    with engine.connect() as conn:
        conn.execute(
            select(func.min(Study.year), func.max(Study.year), func.count(Study.year)).where(
                condition
            )
        ).all()
        for column in (Study.gbr, Study.men, Study.year, Study.stipulation):
            conn.execute(select(column, func.count()).where(condition).group_by(column)).all()
        matching = select(Study.id).where(condition)
        conn.execute(
            select(StudyComposer.composer_id, func.count())
            .where(StudyComposer.study_id.in_(matching))
            .group_by(StudyComposer.composer_id)
        ).all()


def _measure_stats(engine) -> None:
    """``studydb stats``: unfiltered under 1 s; filtered no slower than its groupings."""
    F = Filters
    ms, result = timed(lambda: stats(engine), repeat=3)
    print(
        f"\nstats, no filter: {result.studies:,} studies, {ms:.0f} ms"
        f" (target < 1000 ms) ratio {ms / 1000:.2f}"
    )
    print(
        f"{'stats with a filter':<40} {'studies':>9} {'stats ms':>9} {'reference':>10} {'ratio':>6}"
    )
    for label, filters in (
        ("03?? (pattern)", F(material=("03??",))),
        ("--composer reti", F(composers=("reti",))),
        ("--where 'wR>=1 bN=1 men<=5'", F(where=("wR>=1 bN=1 men<=5",))),
        ("--year 1900..1950", F(years=("1900..1950",))),
    ):
        ms, result = timed(lambda f=filters: stats(engine, f), repeat=3)
        reference, _ = timed(lambda f=filters: _groupings(engine, f), repeat=3)
        print(
            f"{label:<40} {result.studies:>9,} {ms:>9.0f} {reference:>10.0f}"
            f" {ms / reference:>6.2f} (target <= 1.00; reference: count + the same groupings)"
        )


if __name__ == "__main__":
    sys.exit(main())
