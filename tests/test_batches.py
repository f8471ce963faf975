"""One batch runner for import, index and check (studydb.db.batches).

In this process: results in input order with and without worker processes,
the workers' set-up, and Ctrl-C (a real SIGINT) between batches.  Then the
installed console script: the first Ctrl-C behaves the same in ``import``,
``index`` and ``check`` (whole batches committed, a message, exit 130, no
worker left), and the same command finishes the job afterwards.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from batch_work import (
    collector_thresholds,
    process_ids,
    set_up_worker,
    squares,
    stop_on_thirteen,
    worker_state,
)
from helpers import alive, children, finish, paused_when, require, studydb, wait_for
from sqlalchemy import func, select

from studydb.db import batches
from studydb.db.batches import (
    AHEAD_SWITCH_INTERVAL,
    CALLER_GC_THRESHOLD,
    GC_THRESHOLD,
    BatchRunner,
    Interrupt,
)
from studydb.db.connect import open_database
from studydb.db.importer import import_paths
from studydb.db.models import ImportRun, Study, StudyCheck, StudyIndex
from studydb.errors import WorkerError

# -- in this process ---------------------------------------------------------------------------


BATCHES = [("a", [1, 2, 3]), ("empty", []), ("b", [4]), ("c", list(range(5, 30)))]


@pytest.mark.parametrize("jobs", [1, 2])
def test_results_come_in_input_order(jobs: int) -> None:
    with BatchRunner(jobs, prefetch=1) as runner:
        found = list(runner.map(squares, iter(BATCHES)))
    assert found == [(tag, [i * i for i in items]) for tag, items in BATCHES]


@pytest.mark.parametrize(
    ("start_at", "here"),
    [(None, 4), (2, 2), (0, 0)],
    ids=["never", "third-batch", "first-batch"],
)
@pytest.mark.parametrize("ahead", [False, True])
def test_workers_start_at_the_first_batch_start_when_accepts(
    start_at: int | None, here: int, ahead: bool
) -> None:
    batches = [(number, [number] * 3) for number in range(4)]
    with BatchRunner(2, start_when=lambda items: items[0] == start_at, ahead=ahead) as runner:
        if start_at != 0:
            assert multiprocessing.active_children() == []  # nothing started on entering
        found = list(runner.map(process_ids, iter(batches)))
    assert [tag for tag, _ in found] == [0, 1, 2, 3]
    pids = [set(worked) for _, worked in found]
    assert pids[:here] == [{os.getpid()}] * here
    assert all(os.getpid() not in worked for worked in pids[here:])


def test_workers_are_set_up_ignore_ctrl_c_and_are_stopped() -> None:
    with BatchRunner(2, initializer=set_up_worker, initargs=("ready",)) as runner:
        [(_, states)] = list(runner.map(worker_state, [(None, list(range(10)))]))
        workers = {process.pid for process in multiprocessing.active_children()}
        assert len(workers) == 2
    assert states == [("ready", True)] * 10
    assert wait_for(lambda: not any(alive(pid) for pid in workers), timeout=10)


def test_a_pool_that_does_not_stop_is_left_after_stop_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Leaving the runner waits STOP_SECONDS at most for the pool: CPython's
    Pool.terminate can wait for ever on a lock a stopped worker held."""

    class Stuck:
        def terminate(self) -> None:
            threading.Event().wait()

    monkeypatch.setattr(batches, "STOP_SECONDS", 0.2)
    runner = BatchRunner(2)
    with runner:
        pool, runner._pool = runner._pool, Stuck()
    assert runner._pool is None
    pool.terminate()


def test_workers_that_cannot_start_leave_ctrl_c_and_the_collector_as_they_were(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without __exit__ (the with statement's __enter__ failed), the runner's handler,
    which only notes a first Ctrl-C, stayed: a later Ctrl-C was not raised."""

    class NoProcesses:
        def Pool(self, *_: object, **__: object) -> None:
            raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(batches.multiprocessing, "get_context", lambda _: NoProcesses())
    handler, threshold = signal.getsignal(signal.SIGINT), gc.get_threshold()
    with pytest.raises(OSError, match="temporarily unavailable"), BatchRunner(2):
        pass
    assert (signal.getsignal(signal.SIGINT), gc.get_threshold()) == (handler, threshold)


def test_a_worker_killed_stops_the_batches_with_a_worker_error() -> None:
    """The pool starts another worker in place of one killed, and the work the killed
    one had never comes back: without the watch, the caller waited for ever."""
    batches = [("a", [12, 13, 14, 15]), ("b", [16])]
    done = []
    killed = r"stopped \(killed by SIGKILL: out of memory\?\)"
    with pytest.raises(WorkerError, match=killed), BatchRunner(2) as runner:
        for tag, _ in runner.map(stop_on_thirteen, batches):
            done.append(tag)
    assert done == []
    assert wait_for(lambda: not multiprocessing.active_children(), timeout=10)


#: A program using the library the simplest way: no ``if __name__ == "__main__":`` guard.
UNGUARDED_PROGRAM = """
import sys
import studydb

with studydb.open(sys.argv[1]) as db:
    summary = db.import_paths([sys.argv[2]], jobs=2)
print("stored", summary.stored)
"""


def test_workers_do_not_run_the_main_module_again(tmp_path: Path) -> None:
    """A program without a main guard imports with workers: spawn ran it again in each
    worker, where starting the import failed (a traceback) and the worker was started
    again, for ever."""
    program = tmp_path / "unguarded.py"
    program.write_text(UNGUARDED_PROGRAM, encoding="utf-8")
    classics = Path(__file__).resolve().parent.parent / "data" / "classics.pgn"
    process = subprocess.Popen(
        [sys.executable, str(program), str(tmp_path / "db.sqlite"), str(classics)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert (process.returncode, out, err) == (0, "stored 25\n", "")


def test_ahead_the_next_batch_is_worked_on_while_the_caller_has_one() -> None:
    """With ``ahead``, batch b is read and worked on (in a thread) while the caller still
    holds batch a, as a commit waiting on the server would; results stay in order, and
    Python's switch interval is shortened meanwhile, then given back."""
    import sys
    import threading

    started = threading.Event()
    threads: list[str] = []

    def work(items: list[int]) -> list[int]:
        threads.append(threading.current_thread().name)
        if items == [4]:
            started.set()
        return squares(items)

    before = sys.getswitchinterval()
    found = []
    with BatchRunner(1, ahead=True) as runner:
        for tag, results in runner.map(work, iter(BATCHES)):
            if tag == "empty":
                assert started.wait(10)  # b's work began while this batch is in hand
            assert sys.getswitchinterval() == AHEAD_SWITCH_INTERVAL
            found.append((tag, results))
    assert found == [(tag, [i * i for i in items]) for tag, items in BATCHES]
    assert all(name.startswith("studydb-batch") for name in threads), threads
    assert sys.getswitchinterval() == before


def test_ahead_an_error_reading_a_batch_comes_when_it_is_asked_for() -> None:
    """The batch after the one in hand fails to be read: the caller has the one in hand
    to commit, then gets the error, as without ``ahead``."""
    handed: list[int] = []

    def source() -> Iterator[tuple[int, list[int]]]:
        yield 1, [1]
        raise OSError("disk gone")

    with pytest.raises(OSError, match="disk gone"), BatchRunner(ahead=True) as runner:
        for tag, _ in runner.map(squares, source()):
            handed.append(tag)
    assert handed == [1]


def test_the_collector_runs_less_often_while_batches_are_worked_on() -> None:
    before = gc.get_threshold()
    with BatchRunner(2) as runner:
        assert gc.get_threshold()[0] == CALLER_GC_THRESHOLD
        [(_, found)] = list(runner.map(collector_thresholds, [(None, [1, 2])]))
    assert found == [GC_THRESHOLD] * 2
    assert gc.get_threshold() == before


def test_batches_are_read_as_they_are_needed() -> None:
    read: list[int] = []

    def source() -> Iterator[tuple[int, list[int]]]:
        for number in range(100):
            read.append(number)
            yield number, [number]

    with BatchRunner(2, prefetch=2) as runner:
        results = runner.map(squares, source())
        assert next(results) == (0, [0])
        assert len(read) <= 4  # the one in hand and those prefetched, not all 100


@pytest.mark.parametrize(("jobs", "ahead"), [(1, False), (2, False), (1, True)])
def test_first_ctrl_c_stops_at_the_next_batch_boundary(jobs: int, ahead: bool) -> None:
    committed: list[str] = []
    with pytest.raises(KeyboardInterrupt), BatchRunner(jobs, ahead=ahead) as runner:
        for tag, _results in runner.map(squares, iter(BATCHES)):
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the batch is being committed
            committed.append(tag)  # the batch in hand is finished all the same
    assert committed == ["a"]


def test_second_ctrl_c_stops_at_once() -> None:
    reached = []
    with pytest.raises(KeyboardInterrupt), BatchRunner() as runner:
        for _ in runner.map(squares, iter(BATCHES)):
            os.kill(os.getpid(), signal.SIGINT)
            reached.append("first")
            os.kill(os.getpid(), signal.SIGINT)
            reached.append("second")
    assert reached == ["first"]


def test_the_previous_handler_comes_back() -> None:
    before = signal.getsignal(signal.SIGINT)
    with BatchRunner() as runner:
        assert signal.getsignal(signal.SIGINT) != before
        runner.check()
    assert signal.getsignal(signal.SIGINT) is before


def test_interrupt_outside_the_main_thread_changes_nothing() -> None:
    import threading

    before = signal.getsignal(signal.SIGINT)
    interrupt = Interrupt()
    thread = threading.Thread(target=interrupt.install)
    thread.start()
    thread.join()
    assert signal.getsignal(signal.SIGINT) is before and interrupt.previous is None


# -- the installed script: the first Ctrl-C in import, index and check -----------------------

SAAVEDRA_MOVES = "1. c7 Rd6+ 2. Kb5 Rd5+ 3. Kb4 Rd4+ 4. Kb3 Rd3+ 5. Kc2 Rd4 6. c8=R Ra4 7. Kb3"


def studies_pgn(path: Path, count: int) -> Path:
    """``count`` distinct studies (their Event differs): Saavedra's, sound by the tables."""
    games = [
        f'[Event "copy {n}"]\n[Stipulation "win"]\n[SetUp "1"]\n'
        f'[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n{SAAVEDRA_MOVES} 1-0\n'
        for n in range(count)
    ]
    path.write_text("\n".join(games), encoding="utf-8")
    return path


def workers_of(pid: int) -> set[int]:
    """The worker processes a process has started (their command line says so)."""
    found = set()
    for child in children(pid):
        with contextlib.suppress(OSError):
            if b"multiprocessing.spawn" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.add(child)
    return found


def sigint_of(pid: int) -> str:
    """What a process does with SIGINT: ``ignored``, ``caught`` (by Python) or ``default``."""
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
    bit = 1 << (signal.SIGINT - 1)
    if int(fields["SigIgn"], 16) & bit:
        return "ignored"
    return "caught" if int(fields["SigCgt"], 16) & bit else "default"


def workers_started(pid: int) -> bool:
    """Two workers whose Python has set up its signals (whether or not they ignore SIGINT)."""
    workers = workers_of(pid)
    return len(workers) == 2 and all(sigint_of(worker) != "default" for worker in workers)


def rows(url: str, table: type) -> int:
    engine = open_database(url)
    try:
        with engine.connect() as conn:
            return conn.execute(select(func.count()).select_from(table)).scalar_one()
    finally:
        engine.dispose()


#: command → (studies, batch size, table of what a batch commits, the command's arguments):
#: 24 batches for import, 12 for index, 6 for check (the slower the batch, the fewer), so that the
#: first Ctrl-C, whenever it comes, leaves batches to the second run.
COMMANDS = {
    "import": (600, 25, Study, ["import", "{pgn}", "--validate", "--positions", "none"]),
    "index": (300, 25, StudyIndex, ["index"]),
    "check": (30, 5, StudyCheck, ["check", "--syzygy", "{syzygy}"]),
}
#: What each command says on stderr when interrupted.
MESSAGES = {
    "import": "games committed; run the same import again to finish",
    "index": "interrupted: run the same command again to finish",
    "check": "studies checked and stored; run the same check again to finish",
}


@pytest.mark.slow
@pytest.mark.parametrize("when", ["workers-starting", "after-a-batch"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_first_ctrl_c_commits_whole_batches_then_stops(
    command: str, when: str, sqlite_url: str, shared_dir: Path, tmp_path: Path
) -> None:
    """Ctrl-C while the workers still start (they must not print a traceback), or later."""
    count, batch, table, template = COMMANDS[command]
    syzygy = shared_dir / "syzygy"
    require(syzygy.is_dir() or command != "check", f"{syzygy} is absent")
    pgn = studies_pgn(tmp_path / "studies.pgn", count)
    if command != "import":
        engine = open_database(sqlite_url)
        import_paths(engine, [pgn], positions="none")
        engine.dispose()
    args = [a.format(pgn=pgn, syzygy=syzygy) for a in template]
    args += ["--db", sqlite_url, "--jobs", "2", "--batch-size", str(batch)]

    process = studydb(*args, start_new_session=True)
    if when == "workers-starting":  # Python runs in them, importing modules for a while
        assert wait_for(lambda: workers_started(process.pid), timeout=120), finish(process)
    else:  # stopped while it counts: on a loaded machine it could finish between two polls

        def one_batch() -> bool:
            return rows(sqlite_url, table) >= batch

        assert paused_when(process, one_batch, timeout=120), finish(process)
    workers = workers_of(process.pid)
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole group
    process.send_signal(signal.SIGCONT)  # if paused_when stopped it, it takes the SIGINT now
    code, out, err = finish(process)

    assert code == 130, (out, err)
    assert MESSAGES[command] in err, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    committed = rows(sqlite_url, table)
    assert committed % batch == 0 and committed < count, committed  # whole batches, then stop
    if command == "check":
        assert f"interrupted: {committed} studies checked and stored" in err, err
    assert workers, "no worker processes were started"
    assert wait_for(lambda: not any(alive(pid) for pid in workers), timeout=10)

    code, out, err = finish(studydb(*args))  # the same command finishes the job
    assert code == 0, (out, err)
    assert rows(sqlite_url, table) == count


def test_import_stops_with_a_message_when_a_worker_is_killed(
    sqlite_url: str, tmp_path: Path
) -> None:
    """A worker killed (as the kernel kills one out of memory): the import says so and
    exits 1 (it waited for ever), its run says failed, and the same import again stores
    the rest."""
    # Each game a 6 KB comment longer: the reader takes 1 MB at a time, so the import has
    # 166 games to work on before it waits for the rest.
    games = [
        f'[Event "copy {n}"]\n[SetUp "1"]\n[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n'
        f"{{{'x' * 6000}}} {SAAVEDRA_MOVES} 1-0\n\n"
        for n in range(260)
    ]
    pgn = tmp_path / "studies.pgn"
    pgn.write_text("".join(games), encoding="utf-8")
    fifo = tmp_path / "studies.fifo"
    os.mkfifo(fifo)
    args = ["import", str(fifo), "--db", sqlite_url, "--jobs", "2", "--batch-size", "25"]
    process = studydb(*args, "--validate", "--positions", "none", start_new_session=True)
    try:
        # The import may stop before it reads the rest (the worker killed was busy).
        with contextlib.suppress(BrokenPipeError), fifo.open("w", encoding="utf-8") as feed:
            feed.write("".join(games[:200]))
            feed.flush()
            assert wait_for(lambda: rows(sqlite_url, Study) >= 25, timeout=60), finish(process, 5)
            workers = workers_of(process.pid)
            victim = min(workers)
            os.kill(victim, signal.SIGKILL)
            assert wait_for(lambda: not alive(victim), timeout=30)
            feed.write("".join(games[200:]))
        code, _, err = finish(process)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    stored = rows(sqlite_url, Study)
    assert code == 1, err
    assert wait_for(lambda: not any(alive(pid) for pid in workers), timeout=10)
    killed = f"worker process {victim} stopped (killed by SIGKILL: out of memory?)"
    assert f"studydb: error: {killed}" in err
    assert f"{stored:,} games stored by this import; run the same import again to go on" in err
    assert "Traceback" not in err
    engine = open_database(sqlite_url)
    try:
        with engine.connect() as conn:
            runs = conn.execute(select(ImportRun.status)).scalars().all()
    finally:
        engine.dispose()
    assert runs == ["failed"]
    again = studydb("import", str(pgn), "--db", sqlite_url, "--jobs", "2", "--positions", "none")
    assert finish(again)[0] == 0
    assert rows(sqlite_url, Study) == 260
