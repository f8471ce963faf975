"""Reliability (issue 5): concurrency, crashes, hostile input, full disks, injection, Ctrl-C.

Every test here uses the real installed ``studydb`` script or the library on a
real database, and runs on SQLite and PostgreSQL where the behaviour concerns
both (``db_url``).  Mechanisms that need privileges (a tmpfs for a full disk,
an unprivileged user for a read-only database) skip when unavailable, except
under CI=true.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import (
    CLASSICS,
    STUDYDB,
    alive,
    children,
    examples,
    fetch,
    finish,
    paused_when,
    require,
    serving,
    snapshot,
    studydb,
    wait_for,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, func, select
from typer.testing import CliRunner

from studydb.cli import app
from studydb.db.connect import open_database
from studydb.db.importer import import_paths
from studydb.db.models import ImportRun, Study
from studydb.db.search import count, search
from studydb.filters import Filters
from studydb.pgn import read_games

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()

BAD_FEN = b'[Event "Bad FEN %d"]\n[FEN "8/8/8/8/8/8/8/9 w - - 0 1"]\n\n1. Kb1 *\n'
COMPOSERS = [f"Composer {chr(65 + i)}{i}, Études" for i in range(24)]

#: What the crash tests tried, for the report: (engine, plan, studies committed at the kill).
#: Examples run by the hypothesis tests.
#: The reliability suite takes most of the run time: `pytest -m "not slow"` leaves it out.
pytestmark = pytest.mark.slow

EXAMPLES = {"count": 0}


# -- helpers ----------------------------------------------------------------------------


def count_rows(engine: Engine, table) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def _runs(url: str) -> int:
    """How many import runs a database has begun (fails while it does not exist)."""
    engine = open_database(url, write=False)
    try:
        return count_rows(engine, ImportRun)
    finally:
        engine.dispose()


def assert_runs_agree(engine: Engine, batch_size: int | None = None) -> list[ImportRun]:
    """Each run's counters add up, stored counters equal the rows, whole batches only."""
    with engine.connect() as conn:
        runs = conn.execute(select(ImportRun).order_by(ImportRun.id)).all()
    for run in runs:
        assert run.read == run.stored + run.duplicates + run.rejected, run
        if batch_size and run.status != "done":
            assert run.read % batch_size == 0, f"half a batch committed: {run}"
    assert sum(run.stored for run in runs) == count_rows(engine, Study)
    return runs


def corpus_games(corpus_dir: Path, limit: int) -> list[bytes]:
    """Raw games from the real game files, in order."""
    games: list[bytes] = []
    for path in sorted((corpus_dir / "games").glob("*.pgn")):
        with open(path, "rb") as stream:
            for game in read_games(stream, name=str(path)):
                games.append(game.raw.rstrip(b"\r\n") + b"\n")
                if len(games) >= limit:
                    return games
    return games


def as_studies(games: list[bytes], seed: int = 5) -> list[bytes]:
    """Real games given one or two composers each (shared between games), and some rejects."""
    rng = random.Random(seed)
    out = []
    for index, raw in enumerate(games):
        names = rng.sample(COMPOSERS, rng.choice((1, 1, 2)))
        tags = b"".join(f'[Composer{i or ""} "{n}"]\n'.encode() for i, n in enumerate(names))
        out.append(tags + raw)
        if index % 97 == 13:
            out.append(BAD_FEN % index)
    return out


def write_pgn(path: Path, games: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(games))
    return path


@pytest.fixture(scope="module")
def study_games(corpus_dir: Path) -> list[bytes]:
    return as_studies(corpus_games(corpus_dir, 1600))


# -- concurrency ---------------------------------------------------------------------------


def test_two_imports_at_once_equal_one_after_the_other(
    empty_db_url: str, study_games: list[bytes], tmp_path: Path
) -> None:
    """Two ``studydb import`` processes, overlapping inputs, same database: both finish."""
    half = len(study_games) // 2
    first = write_pgn(tmp_path / "first.pgn", study_games[: half + half // 2])
    second = write_pgn(tmp_path / "second.pgn", study_games[half // 2 :])

    reference = open_database(tmp_path / "reference.sqlite")
    import_paths(reference, [first])
    import_paths(reference, [second])

    if "://" not in empty_db_url:  # both processes also race to create the SQLite file
        assert not Path(empty_db_url).exists()
    else:
        open_database(empty_db_url).dispose()
    args = ("--db", empty_db_url, "--batch-size", "40", "--format", "json")
    # The first import reads a pipe that is held open, half written, until the second
    # import has begun: on a busy machine two files alone may be imported one after
    # the other, and the test is about both at once.
    fifo = tmp_path / "first.fifo"
    os.mkfifo(fifo)
    data = first.read_bytes()
    processes = [studydb("import", str(fifo), *args)]

    def feed() -> None:
        with open(fifo, "wb") as pipe:
            pipe.write(data[: len(data) // 2])
            pipe.flush()
            assert wait_for(lambda: _runs(empty_db_url) >= 2, timeout=120)
            pipe.write(data[len(data) // 2 :])

    feeder = threading.Thread(target=feed)
    feeder.start()
    assert wait_for(lambda: _runs(empty_db_url) >= 1, timeout=120)
    processes.append(studydb("import", str(second), *args))
    results = [finish(p) for p in processes]
    feeder.join()
    for code, _, err in results:
        assert code == 0, err
        assert "locked" not in err and "Traceback" not in err, err
    summaries = [json.loads(out) for _, out, _ in results]

    engine = open_database(empty_db_url)
    try:
        assert snapshot(engine, where=False) == snapshot(reference, where=False)
        assert sum(s["stored"] for s in summaries) == count_rows(engine, Study)
        read = (half + half // 2) + (len(study_games) - half // 2)
        assert sum(s["read"] for s in summaries) == read
        one, two = assert_runs_agree(engine)
        assert one.started < two.finished and two.started < one.finished, "not concurrent"
    finally:
        engine.dispose()
        reference.dispose()


def test_same_games_in_opposite_orders_at_once(
    pg_url: str, study_games: list[bytes], tmp_path: Path
) -> None:
    """PostgreSQL: writers that lock rows in opposite orders deadlock; the batch is retried."""
    games = study_games[:600]
    forward = write_pgn(tmp_path / "forward.pgn", games)
    backward = write_pgn(tmp_path / "backward.pgn", games[::-1])
    reference = open_database(tmp_path / "reference.sqlite")
    import_paths(reference, [forward])
    engine = open_database(pg_url)
    try:
        for _ in range(2):
            args = ("--db", pg_url, "--batch-size", "600")
            processes = [studydb("import", str(path), *args) for path in (forward, backward)]
            for process in processes:
                code, _, err = finish(process)
                assert code == 0, err
            assert snapshot(engine, where=False) == snapshot(reference, where=False)
            with engine.begin() as conn:
                conn.execute(Study.__table__.delete())
        with engine.connect() as conn:
            deadlocks = conn.exec_driver_sql(
                "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()"
            ).scalar_one()
        print(f"\ndeadlocks broken by the server and retried: {deadlocks}")
    finally:
        engine.dispose()
        reference.dispose()


def test_migration_race_on_a_new_sqlite_file(tmp_path: Path) -> None:
    """Processes migrating the same brand-new (or empty) SQLite file at once all succeed.

    (Only commands that write create a database: ``db upgrade`` here.)
    """
    for round_ in range(2):
        path = tmp_path / f"new-{round_}.sqlite"
        if round_ % 2:
            path.touch()  # an empty file, as ``touch`` leaves it
        processes = [studydb("db", "upgrade", "--db", str(path)) for _ in range(3)]
        for process in processes:
            code, out, err = finish(process, timeout=60)
            assert code == 0 and out.strip().startswith("database at revision"), err
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert conn.execute("SELECT count(*) FROM alembic_version").fetchone()[0] == 1


def test_search_while_importing_sees_consistent_counts(
    db_url: str, study_games: list[bytes], tmp_path: Path
) -> None:
    """Counts read during an import never go down, and no reader fails.

    The import reads a pipe fed in parts, and each part after the first is
    written only once a ``studydb search --count`` has run on what the part
    before stored: however quick the import, the searches overlap it.
    """
    parts = [study_games[i : i + 400] for i in range(0, len(study_games), 400)]
    fifo = tmp_path / "big.fifo"
    os.mkfifo(fifo)
    engine = open_database(db_url)
    process = studydb("import", str(fifo), "--db", db_url, "--batch-size", "10")
    released = threading.Semaphore(0)

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError), open(fifo, "wb") as pipe:
            for number, part in enumerate(parts):
                if number:
                    released.acquire(timeout=120)
                pipe.write(b"".join(part))
                pipe.flush()

    feeder = threading.Thread(target=feed)
    feeder.start()
    seen: list[int] = []
    seen_matching: list[int] = []
    cli_counts: list[int] = []
    searching: subprocess.Popen | None = None
    searched_at = 0  # the count when the last search began
    try:
        while process.poll() is None:
            filters = Filters(composers=("composer",))
            total = count(engine)
            matching = count(engine, filters)
            rows = sum(1 for _ in search(engine, filters, limit=5000))
            assert rows >= matching  # rows are read after the count
            seen.append(total)
            seen_matching.append(matching)
            if searching is not None and searching.poll() is not None:
                code, out, err = finish(searching)
                assert code == 0, err
                cli_counts.append(int(out))
                searching = None
                released.release()
            if searching is None and total > searched_at:
                searching = studydb("search", "--count", "--db", db_url)
                searched_at = total
            time.sleep(0.005)
        code, _, err = finish(process)
        assert code == 0, err
        seen.append(count(engine))
        assert seen == sorted(seen), seen
        assert seen_matching == sorted(seen_matching), seen_matching
        if searching is not None:
            code, out, err = finish(searching)
            assert code == 0, err
            cli_counts.append(int(out))
        assert cli_counts == sorted(cli_counts), cli_counts
        assert len(cli_counts) >= len(parts) - 1 and cli_counts[0] < seen[-1], cli_counts
        assert len(set(seen)) > 2, f"the reads did not overlap the import: {seen}"
        texts = count_rows(engine, Study) - seen[-1]  # headings without moves: kind 'text'
        assert seen[-1] == count(engine, Filters()) and 0 <= texts < len(study_games) // 50
    finally:
        for _ in parts:
            released.release()
        if process.poll() is None:
            process.kill()
            process.wait()
        feeder.join()
        engine.dispose()


# -- crashes -------------------------------------------------------------------------------


def test_sigkill_at_many_points_then_rerun(
    db_url: str, study_games: list[bytes], tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Killed with SIGKILL again and again, then re-run: the uninterrupted database."""
    batch = 20
    source = write_pgn(tmp_path / "crash.pgn", study_games[:900])
    reference = open_database(tmp_path / "reference.sqlite")
    import_paths(reference, [source], batch_size=batch)
    expected = snapshot(reference)
    reference.dispose()

    engine = open_database(db_url)
    rng = random.Random(20261129)
    plans: list[tuple[str, float]] = [
        ("before the first batch", 0),
        ("committed >= 1", 1),
        ("committed >= 150", 150),
        ("committed >= 400", 400),
    ]
    # Random points: a third at most of what is left (but ten batches) committed, then up
    # to 10 ms more (the kill lands inside a batch's work); a delay of its own could
    # outlast the import, and so did a point too near the end on a loaded machine.
    delays = [rng.uniform(0, 0.01) for _ in range(3)]
    plans += [(f"a random point, then {d * 1000:.0f} ms", d) for d in delays]
    args = ("import", str(source), "--db", db_url, "--batch-size", str(batch))
    kill_points: list[tuple[str, int]] = []
    try:
        for plan, value in plans:
            before = count_rows(engine, Study)
            runs_before = count_rows(engine, ImportRun)
            process = studydb(*args)
            # Stopped while each count is asked, so that a loaded machine's import cannot
            # run on past the point between two polls.
            if plan.startswith("before"):
                assert paused_when(process, lambda: count_rows(engine, ImportRun) > runs_before)  # noqa: B023
            elif plan.startswith("committed"):
                assert paused_when(process, lambda: count_rows(engine, Study) >= value)  # noqa: B023
            else:  # ten batches or more left to come, then up to 10 ms more
                room = len(expected["studies"]) - before - 10 * batch  # the import in the act
                target = before + rng.randint(1, max(1, room // 3))
                assert paused_when(process, lambda: count_rows(engine, Study) >= target)  # noqa: B023
                process.send_signal(signal.SIGCONT)
                time.sleep(value)
            process.send_signal(signal.SIGKILL)
            process.communicate()
            committed = count_rows(engine, Study)
            kill_points.append((plan, committed))
            assert committed < len(expected["studies"]), f"{plan}: the import ended before the kill"
            assert_runs_agree(engine, batch)
        code, _, err = finish(studydb(*args))
        assert code == 0, err
        assert snapshot(engine) == expected
        runs = assert_runs_agree(engine, batch)
        assert runs[-1].status == "done"
        assert [r.status for r in runs[:-1]] == ["running"] * (len(runs) - 1)
    finally:
        engine.dispose()
    request.node.user_properties.append(("kill_points", kill_points))
    counts = [committed for _, committed in kill_points]
    assert counts == sorted(counts), kill_points
    assert counts[0] == 0 and counts[1] >= 1 and counts[2] >= 150 and counts[3] >= 400, kill_points


# -- hostile input -------------------------------------------------------------------------

_REAL = [
    game.raw
    for game in read_games(open(CLASSICS, "rb"), name=str(CLASSICS))  # noqa: SIM115
][:8]
_ODD_TEXT = st.lists(
    st.sampled_from([*'"\\[]{}()%;\x00\t\r\né🐴\u2028 ab', "1-0", "1/2-1/2", "*"]), max_size=12
).map("".join)


def _insert(data: bytes, at: float, piece: bytes) -> bytes:
    index = int(at * len(data))
    return data[:index] + piece + data[index:]


_CHUNKS = st.one_of(
    st.binary(max_size=1500),
    st.tuples(st.sampled_from(_REAL), st.floats(0, 1)).map(lambda t: t[0][: int(t[1] * len(t[0]))]),
    st.tuples(
        st.sampled_from(_REAL), _ODD_TEXT, st.sampled_from([b"Event", b"FEN", b"Composer"])
    ).map(lambda t: t[0].replace(t[2] + b' "', t[2] + b' "' + t[1].encode("utf-8", "replace"), 1)),
    st.tuples(
        st.sampled_from(_REAL),
        st.lists(
            st.tuples(
                st.floats(0, 1), st.sampled_from([b"{", b"}", b"(", b")", b"[", b'"', b"\x00"])
            ),
            max_size=6,
        ),
    ).map(lambda t: _apply_all(t[0], t[1])),
    st.integers(1, 3000).map(
        lambda n: b'[Event "deep"]\n\n1. e4 ' + b"(1. d4 " * n + b")" * (n // 2) + b" *\n"
    ),
    st.integers(1, 200_000).map(lambda n: b"x" * n),
    st.integers(1, 50_000).map(lambda n: b'[Event "long"]\n\n1. e4 {' + b"c" * n + b"} e5 *\n"),
)


def _apply_all(data: bytes, edits: list[tuple[float, bytes]]) -> bytes:
    for at, piece in edits:
        data = _insert(data, at, piece)
    return data


_FILES = st.lists(
    st.tuples(_CHUNKS, st.sampled_from([b"\n", b"\n\n", b"", b"\r\n\r\n", b"\n\n\n"])),
    max_size=6,
).map(lambda parts: b"".join(chunk + sep for chunk, sep in parts))


@contextlib.contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Fail (instead of hanging) when the block runs longer than ``seconds``."""

    def expire(*_args: object) -> None:
        raise TimeoutError(f"the import took longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def check_hostile_file(engine: Engine, folder: Path, data: bytes, *, validate: bool) -> None:
    EXAMPLES["count"] += 1
    path = folder / f"hostile-{EXAMPLES['count']}.pgn"
    path.write_bytes(data)
    with open(path, "rb") as stream:
        expected = sum(1 for _ in read_games(stream, name=str(path)))
    with time_limit(30):
        summary = import_paths(engine, [path], validate=validate, jobs=1, batch_size=3)
    assert summary.failures == [] and not summary.interrupted
    assert summary.read == expected
    assert summary.read == summary.stored + summary.duplicates + summary.rejected
    with engine.connect() as conn:
        run = conn.execute(select(ImportRun).where(ImportRun.file == str(path))).one()
    assert (run.read, run.stored, run.duplicates, run.rejected, run.status) == (
        summary.read,
        summary.stored,
        summary.duplicates,
        summary.rejected,
        "done",
    )


@pytest.fixture
def hostile_db(db_url: str) -> Iterator[Engine]:
    engine = open_database(db_url)
    yield engine
    assert_runs_agree(engine)
    engine.dispose()


@pytest.mark.parametrize("validate", [False, True], ids=["plain", "validate"])
def test_hostile_pgn_is_accounted_for(hostile_db: Engine, tmp_path: Path, validate: bool) -> None:
    """Random bytes, cut games, odd headers, NUL, deep nesting: read = stored + dups + rejected."""
    before = EXAMPLES["count"]

    @settings(
        max_examples=examples(150),
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(data=_FILES)
    def check(data: bytes) -> None:
        check_hostile_file(hostile_db, tmp_path, data, validate=validate)

    check()
    assert EXAMPLES["count"] - before >= examples(60), "hypothesis ran too few hostile files"


def test_huge_lines_and_deep_nesting(db_url: str, tmp_path: Path) -> None:
    """10 MB single lines and 20,000 nested variations, with --validate: no crash, no hang."""
    engine = open_database(db_url)
    try:
        games = [
            b"z" * (10 << 20) + b"\n",
            b'[Event "comment"]\n\n1. e4 {' + b"c" * (10 << 20) + b"} e5 1-0\n",
            b'[Event "deep"]\n\n1. e4 ' + b"(1. d4 " * 20_000 + b")" * 20_000 + b" *\n",
            b'[Event "unbalanced"]\n\n1. e4 ' + b"(1. d4 " * 20_000 + b" *\n",
            CLASSICS.read_bytes(),
        ]
        data = b"\n".join(games)
        check_hostile_file(engine, tmp_path, data, validate=True)
        with engine.connect() as conn:
            rows = conn.execute(select(Study.valid, Study.pgn)).all()  # pgn is kept deflated
            assert [valid for valid, pgn in rows if '"deep"' in pgn] == [True]
    finally:
        engine.dispose()


# -- full disk, read-only database -------------------------------------------------------------


@pytest.fixture
def small_disk() -> Iterator[Path]:
    """A 3 MB tmpfs (needs root); skipped (failed under CI=true) when it cannot be mounted."""
    folder = Path(tempfile.mkdtemp(prefix="studydb-full-"))
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        folder.rmdir()
        require(False, f"cannot mount a small tmpfs: {result.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
        shutil.rmtree(folder, ignore_errors=True)


def test_disk_full_stops_cleanly(small_disk: Path, corpus_dir: Path, tmp_path: Path) -> None:
    """No space left: a message naming the database, exit 1, a consistent database."""
    db = small_disk / "full.sqlite"
    open_database(db).dispose()
    source = tmp_path / "games.pgn"
    source.write_bytes(b"\n".join(corpus_games(corpus_dir, 5000)))
    code, out, err = finish(studydb("import", str(source), "--db", str(db), "--batch-size", "200"))
    assert code == 1, (out, err)
    assert str(db) in err and "full" in err.lower(), err
    assert "Traceback" not in err and "[SQL:" not in err, err

    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    engine = open_database(db)
    try:
        runs = assert_runs_agree(engine, 200)
        assert count_rows(engine, Study) > 0, "nothing was stored before the disk filled"
        if runs[-1].status == "running":  # the disk had no room left even for that
            assert f"could not mark import run {runs[-1].id} as failed" in err, err
        else:
            assert runs[-1].status == "failed" and "full" in (runs[-1].error or "")
    finally:
        engine.dispose()

    # With room again, the same import completes it.
    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
    code, _, err = finish(studydb("import", str(source), "--db", str(db)))
    assert code == 0, err
    reference = open_database(tmp_path / "reference.sqlite")
    import_paths(reference, [source])
    engine = open_database(db)
    try:
        assert snapshot(engine) == snapshot(reference)
    finally:
        engine.dispose()
        reference.dispose()


def _unprivileged() -> list[str]:
    setpriv = shutil.which("setpriv")
    require(os.geteuid() == 0 and setpriv is not None, "needs root and setpriv to drop to nobody")
    return [str(setpriv), "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


@pytest.mark.parametrize("how", ["unprivileged-user", "sqlite-uri-mode-ro"])
def test_read_only_database(how: str) -> None:
    """A database that cannot be written: a message naming it, exit 1, nothing changed.

    Tests run as root, whom file modes do not stop: the import runs as
    ``nobody`` on root's files, or opens the file with SQLite's ``mode=ro``.
    """
    prefix = _unprivileged() if how == "unprivileged-user" else []
    folder = Path(tempfile.mkdtemp(prefix="studydb-ro-"))
    try:
        db = folder / "ro.sqlite"
        engine = open_database(db)
        import_paths(engine, [CLASSICS])
        before = snapshot(engine)
        engine.dispose()
        source = folder / "more.pgn"
        source.write_bytes(BAD_FEN % 1 + b"\n" + CLASSICS.read_bytes().replace(b"Event", b"Evt"))
        os.chmod(folder, 0o555)
        for path in folder.iterdir():
            os.chmod(path, 0o444)
        url = str(db) if prefix else f"sqlite:///file:{db}?mode=ro&uri=true"
        result = subprocess.run(
            [*prefix, str(STUDYDB), "import", str(source), "--db", url],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "HOME": str(folder)},
        )
        assert result.returncode == 1, result
        assert str(db) in result.stderr and "read-only" in result.stderr, result.stderr
        assert "Traceback" not in result.stderr and "[SQL:" not in result.stderr
        os.chmod(folder, 0o755)
        with sqlite3.connect(db) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        engine = open_database(db)
        assert snapshot(engine) == before
        assert_runs_agree(engine)
        engine.dispose()
    finally:
        os.chmod(folder, 0o755)
        shutil.rmtree(folder, ignore_errors=True)


# -- injection ---------------------------------------------------------------------------------

TRICKY = [
    "100%",
    "a_b",
    "O'Brien",
    'say "x"',
    "x; DROP TABLE studies; --",
    "' OR '1'='1",
    "\\%",
    "SELECT * FROM composers",
]


@pytest.fixture
def tricky_db(db_url: str, tmp_path: Path) -> Iterator[str]:
    """One study per tricky string (as composer and source) and decoys for wildcards."""
    games = []
    fens = ["7K/8/k1P5/7p/8/8/8/8 w - - 0 1", "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]
    texts = [*TRICKY, "100 percent", "aXb", "OBrien", "say x", "x DROP TABLE studies", "SELECT"]
    for index, value in enumerate(texts):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        games.append(
            f'[Event "tricky {index}"]\n[Composer "{escaped}"]\n[Source "{escaped}"]\n'
            f'[FEN "{fens[index % 2]}"]\n\n1. Kb1 *\n'
        )
    path = tmp_path / "tricky.pgn"
    path.write_text("\n".join(games), encoding="utf-8")
    engine = open_database(db_url)
    summary = import_paths(engine, [path])
    assert summary.stored == len(texts), summary
    engine.dispose()
    return db_url


def _expected(term: str) -> set[str]:
    texts = [*TRICKY, "100 percent", "aXb", "OBrien", "say x", "x DROP TABLE studies", "SELECT"]
    return {t for t in texts if term.casefold() in t.casefold()}


def _found(found: set[str], term: str, field: str, stored: set[str]) -> bool:
    """--source matches literally; --composer finds the person, so its other spellings too.

    ``O'Brien`` also finds ``OBrien`` (one person, see studydb.names), but a
    quote, ``%`` or ``_`` never widens the match into SQL: every literal match
    is found, and nothing whose person's name shares no letters with the term.
    """
    if field in ("sources", "--source"):  # against the sources as stored (headers.py tidies)
        return found == {name for name in stored if term.casefold() in name.casefold()}
    letters = {c for c in term.casefold() if c.isalpha()}
    whole = not any(sep in term for sep in ";&=")  # a credit list names several persons
    return (not whole or _expected(term) <= found) and all(
        letters & set(name.casefold()) or name in _expected(term) for name in found
    )


@pytest.mark.parametrize("term", TRICKY)
def test_filters_match_literally(tricky_db: str, term: str) -> None:
    """Quotes, % and _, ; and SQL keywords in --composer and --source are not SQL."""
    engine = open_database(tricky_db)
    stored = {row.source for row in search(engine, Filters())}
    try:
        for field in ("composers", "sources"):
            filters = Filters(**{field: (term,)})
            found = {row.source for row in search(engine, filters)}
            assert _found(found, term, field, stored), (field, term, found)
            assert count(engine, filters) == len(found)
        assert count_rows(engine, Study) == len(TRICKY) + 6
    finally:
        engine.dispose()
    for option in ("--composer", "--source"):
        result = runner.invoke(app, ["search", option, term, "--format", "json", "--db", tricky_db])
        assert result.exit_code == 0, result.output
        found = {row["source"] for row in json.loads(result.stdout)}
        assert _found(found, term, option, stored), (option, term, found)


def test_material_and_where_text_is_not_sql(tricky_db: str) -> None:
    for args in (["' OR 1=1 --"], ["--where", "men>0; DROP TABLE studies"], ["--year", "1; --"]):
        result = runner.invoke(app, ["search", *args, "--db", tricky_db])
        assert result.exit_code == 2, result.output
    result = runner.invoke(app, ["search", "--count", "--db", tricky_db])
    assert result.stdout.strip() == str(len(TRICKY) + 6)


# -- Ctrl-C --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra", [[], ["--validate", "--jobs", "2"]], ids=["plain", "validate-jobs-2"]
)
def test_ctrl_c_commits_whole_batches_and_exits_130(
    db_url: str, study_games: list[bytes], tmp_path: Path, extra: list[str]
) -> None:
    """Ctrl-C: whole batches only, the run's counters = the rows, the output says so, 130.

    Interrupted twice: once well into the import, once a few ms after a commit
    (where the interrupt can fall between the commit and the summary).
    """
    batch = 30
    source = write_pgn(tmp_path / "int.pgn", study_games)
    engine = open_database(db_url)
    rng = random.Random(130)
    try:
        for round_ in range(2):
            before = count_rows(engine, Study)
            process = studydb(
                "import",
                str(source),
                "--db",
                db_url,
                "--batch-size",
                str(batch),
                *extra,
                start_new_session=True,
            )
            if round_ == 0:
                assert wait_for(lambda: count_rows(engine, Study) >= 100), "no import"
            else:
                assert wait_for(lambda: count_rows(engine, Study) > before)  # noqa: B023
                time.sleep(rng.uniform(0, 0.02))
            workers = children(process.pid)
            os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
            code, out, err = finish(process, timeout=60)
            assert code == 130, (out, err)
            assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
            run = assert_runs_agree(engine, batch)[-1]
            assert run.status == "interrupted"
            assert f"interrupted: {run.read} games committed" in err, err
            assert f"read {run.read:,} games" in out
            assert run.read < len(study_games)
            if extra:
                assert workers, "no worker processes were started"
                assert wait_for(lambda: not any(alive(p) for p in workers), timeout=10)  # noqa: B023
    finally:
        engine.dispose()


def test_second_ctrl_c_stops_at_once(
    sqlite_url: str, study_games: list[bytes], tmp_path: Path
) -> None:
    """The first Ctrl-C waits for the batch in hand; a second one rolls it back and stops.

    The games come through a pipe that stays open, so the batch in hand cannot
    end by itself while the test looks: the process is still running for a
    reason, not because it happened to be slow.
    """
    engine = open_database(sqlite_url)
    try:
        process = subprocess.Popen(
            [str(STUDYDB), "import", "-", "--db", sqlite_url, "--batch-size", "100000"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert process.stdin is not None
        process.stdin.write(b"\n".join(study_games[:200]) + b"\n")
        process.stdin.flush()
        assert wait_for(lambda: count_rows(engine, ImportRun) == 1), "the import did not start"
        process.send_signal(signal.SIGINT)
        with pytest.raises(subprocess.TimeoutExpired):
            process.wait(timeout=1.0)  # the first Ctrl-C must not stop the batch in hand
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=30)
        err = process.stderr.read().decode() if process.stderr else ""
        process.stdin.close()
        assert code == 130, err
        assert "interrupted: 0 games committed" in err, err
        (run,) = assert_runs_agree(engine)
        assert (run.status, run.read) == ("interrupted", 0)
        assert count_rows(engine, Study) == 0
    finally:
        if process.poll() is None:
            process.kill()
        engine.dispose()


def test_ctrl_c_on_a_fifo_import_commits_whole_batches_and_exits_130(
    sqlite_url: str, study_games: list[bytes], tmp_path: Path
) -> None:
    """A named pipe given on the command line, read as it is written, stopped by a real
    SIGINT to the import's process group: whole batches only, exit 130."""
    import threading

    batch = 25
    fifo = tmp_path / "games.pgn"
    os.mkfifo(fifo)
    stop = threading.Event()

    def writer() -> None:
        with contextlib.suppress(BrokenPipeError), open(fifo, "wb") as out:
            for game in study_games * 20:
                if stop.is_set():
                    return
                out.write(game + b"\n")
                out.flush()

    feeder = threading.Thread(target=writer, daemon=True)
    feeder.start()
    engine = open_database(sqlite_url)
    try:
        process = studydb(
            "import",
            str(fifo),
            "--db",
            sqlite_url,
            "--batch-size",
            str(batch),
            start_new_session=True,
        )
        assert wait_for(lambda: count_rows(engine, Study) >= 2 * batch), "no import"
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        code, out, err = finish(process, timeout=60)
        stop.set()
        assert code == 130, (out, err)
        assert "Traceback" not in err, err
        (run,) = assert_runs_agree(engine, batch)
        assert run.status == "interrupted" and run.read % batch == 0
        assert f"interrupted: {run.read} games committed" in err
    finally:
        stop.set()
        engine.dispose()
        feeder.join(10)


# -- damaged and read-only databases (issue 27) -------------------------------------------------


def numbered_classics(copies: int, prefix: str = "") -> bytes:
    text = CLASSICS.read_bytes()
    return b"".join(
        text.replace(b'[Event "', f'[Event "{prefix}{i} '.encode()) + b"\n" for i in range(copies)
    )


@pytest.fixture(scope="module")
def healthy_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("healthy")
    source = folder / "games.pgn"
    source.write_bytes(numbered_classics(24))
    db = folder / "healthy.sqlite"
    engine = open_database(db)
    import_paths(engine, [source])
    engine.dispose()
    return db


#: Every command that opens the database, with what it needs; ``PGN`` is a file to read.
DB_COMMANDS = [
    ["import", "PGN"],
    ["search"],
    ["search", "--composer", "Réti"],
    ["show", "1"],
    ["stats"],
    ["rejects"],
    ["versions"],
    ["anticipate", "PGN"],
    ["themes"],
    ["composers"],
    ["index"],
    ["db", "current"],
    ["db", "upgrade"],
    ["search", "--format", "pgn"],
]


@pytest.mark.parametrize("where", ["middle-third", "header"])
def test_every_command_names_a_damaged_database(
    healthy_db: Path, tmp_path: Path, where: str
) -> None:
    data = bytearray(healthy_db.read_bytes())
    rng = random.Random(27)
    start, size = (len(data) // 3, len(data) // 3) if where == "middle-third" else (0, 100)
    data[start : start + size] = bytes(rng.randrange(256) for _ in range(size))
    source = tmp_path / "new.pgn"
    source.write_bytes(numbered_classics(2, prefix="new "))
    failures = []
    for command in DB_COMMANDS:
        db = tmp_path / "damaged.sqlite"
        db.write_bytes(bytes(data))
        args = [str(source) if arg == "PGN" else arg for arg in command]
        result = runner.invoke(app, [*args, "--db", str(db)])
        crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
        if crashed or (result.exit_code and str(db) not in result.stderr):
            failures.append((command, result.exit_code, result.output[-300:]))
        for extra in tmp_path.glob("damaged.sqlite*"):
            extra.unlink()
    assert not failures, failures


def without_privileges() -> list[str]:
    """A command prefix under which file modes apply: root with no capabilities (root
    otherwise writes any file); nothing for another user."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    require(setpriv is not None, "running as root without setpriv: file modes cannot apply")
    return [str(setpriv), "--bounding-set=-all", "--inh-caps=-all"]


READ_COMMANDS = [
    ["search"],
    ["show", "1"],
    ["stats"],
    ["search", "--format", "pgn"],
    ["rejects"],
    ["composers"],
    ["versions"],
]


#: Runs each of argv[2:] (JSON command lines) through the console script's entry point on
#: the database argv[1], in this one process; prints the failures as JSON.
READ_COMMANDS_SCRIPT = """
import contextlib, io, json, sys
from studydb.cli import main
db, failures = sys.argv[1], {}
for command in map(json.loads, sys.argv[2:]):
    sys.argv, err = ["studydb", *command, "--db", db], io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            main()
        except SystemExit as stop:
            if stop.code:
                failures[" ".join(command)] = [stop.code, err.getvalue()]
print(json.dumps(failures))
"""


def run_read_commands(prefix: list[str], db: Path) -> dict[str, list[object]]:
    """The READ_COMMANDS that fail on ``db`` under ``prefix``, each with its exit status and
    stderr: one interpreter runs them all through the console script's entry point (seven
    interpreters cost a second and a half a run)."""
    commands = [json.dumps(command) for command in READ_COMMANDS]
    script = [sys.executable, "-c", READ_COMMANDS_SCRIPT, str(db), *commands]
    result = subprocess.run(
        [*prefix, *script], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout.splitlines()[-1]))


@pytest.mark.parametrize("how", ["folder-555-file-444", "file-444", "another-user"])
def test_read_commands_work_on_a_database_nobody_may_write(healthy_db: Path, how: str) -> None:
    """search, show, stats, export (search --format pgn) and serve read it; nothing written."""
    prefix = without_privileges()
    folder = Path(tempfile.mkdtemp(prefix="studydb-ro-"))
    try:
        db = folder / "ro.sqlite"
        shutil.copyfile(healthy_db, db)
        before = db.read_bytes()
        if how == "another-user":
            shutil.chown(folder, "nobody")
            shutil.chown(db, "nobody")
            os.chmod(folder, 0o755)
            os.chmod(db, 0o644)
        else:
            os.chmod(db, 0o444)
            if how.startswith("folder"):
                os.chmod(folder, 0o555)
        assert run_read_commands(prefix, db) == {}
        with serving(str(db), prefix=prefix) as url:
            assert fetch(url)[0] == 200
            assert fetch(url + "studies/1")[0] == 200
            assert fetch(url + "api/search?composer=reti")[0] == 200
        written = subprocess.run(
            [*prefix, str(STUDYDB), "import", str(CLASSICS), "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert written.returncode == 1 and str(db) in written.stderr, written.stderr
        assert db.read_bytes() == before
    finally:
        os.chmod(folder, 0o755)
        shutil.rmtree(folder, ignore_errors=True)
