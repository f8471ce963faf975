"""Batches of work in input order, in worker processes or in this one; Ctrl-C between them.

The import, the index and the check each read their input in batches, have
every batch worked on (games classified, studies replayed, studies checked)
and commit each batch's results in one transaction, in input order.  They
all do it through :class:`BatchRunner`:

- ``jobs`` > 1: a pool of worker processes, started with ``spawn`` (the
  same on every system; a worker inherits no threads, locks or open
  database connections of the parent).  Each batch is cut into one slice
  per worker, and while a batch is committed the next ones are already
  being worked on (:data:`PREFETCH`).  With ``start_when``, the pool starts
  at the first batch that predicate accepts, and the batches before it are
  worked on in this process: a small or light job does not pay for starting
  workers.
- ``ahead`` (in this process, before any workers start): the next batch is worked
  on in a thread while the caller commits one.  The thread holds the GIL while it
  works, and the caller gives it up while it waits on the database server: the
  server's time and the work then overlap (PostgreSQL's import).
- The cyclic garbage collector runs less often meanwhile, in the workers
  (:data:`GC_THRESHOLD`) and in this process (:data:`CALLER_GC_THRESHOLD`).
- Ctrl-C (SIGINT, when run in the main thread) is the same for all three:
  the first one lets the batch in hand commit, then stops (a
  :class:`KeyboardInterrupt` at the next batch boundary); a second one stops
  at once, and the batch in hand is rolled back.  Workers ignore SIGINT (a
  terminal sends it to the whole process group); the parent stops them.
- A worker stopped from outside (killed: the kernel does so when memory runs
  out) stops the job with :class:`~studydb.errors.WorkerError` when the next
  results are collected: the work it had would never come back.  The batches
  committed before are kept.
- Where ``jobs`` is not given, ``index`` and ``check`` start one worker a core for
  :data:`POOL_REPLAYS` studies or more (:func:`worker_count`), the import at its
  first batch holding as many to replay.

>>> with BatchRunner() as runner:
...     [(tag, results) for tag, results in runner.map(sorted, [("a", [3, 1]), ("b", [2])])]
[('a', [1, 3]), ('b', [2])]
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import multiprocessing
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from multiprocessing import resource_tracker
from types import FrameType, ModuleType, TracebackType
from typing import Any, TypeVar

from studydb.errors import WorkerError

__all__ = [
    "POOL_REPLAYS",
    "PREFETCH",
    "BatchRunner",
    "Interrupt",
    "all_cores",
    "sigint_ignored_by_children",
    "worker_count",
]

Item = TypeVar("Item")
Result = TypeVar("Result")
Tag = TypeVar("Tag")

#: Batches worked on ahead of the one being committed (with worker processes).
PREFETCH = 2
#: How worker processes are started, on every system.
START_METHOD = "spawn"
#: The cyclic garbage collector's first threshold while batches are worked on: a batch
#: makes and unpickles objects by the hundred thousand, few of them in cycles, and at
#: Python's default (700) the collector passes over them again and again (about 5% of
#: an indexed import's CPU).
GC_THRESHOLD = 50_000
#: The same threshold in the process that commits the batches, higher: a batch's results
#: and the rows made of them (the import's index rows: some 100,000 tuples a batch) live
#: until its commit, and at :data:`GC_THRESHOLD` the collector passed over them once or
#: twice a batch (10 ms each), freeing a few dozen objects: a twentieth of the importing
#: process's CPU.  What it leaves for later is as little.
CALLER_GC_THRESHOLD = 200_000
#: Seconds a thread holds the GIL while another waits for it, while a batch is worked on
#: ahead (Python's default: 0.005).  The caller takes the GIL back each time the
#: database server answers; at 5 ms a turn, the PostgreSQL import of 100,000 games took
#: longer with the thread than without it (10.4 s against 8.9 s), at 1 ms 6.8 s.
AHEAD_SWITCH_INTERVAL = 0.001
#: Studies to replay at which starting worker processes pays, where ``jobs`` is not given
#: (the import's first batch holding as many, ``studydb index``'s selection).  Two workers
#: cost about 0.35 s of CPU to start: on 63 studies they made the import slower (0.58 s
#: -> 0.77 s wall), on 4,000 faster (9.0 s -> 5.3 s).
POOL_REPLAYS = 200
#: Seconds the workers' pool is given to stop (:func:`_stop_pool`).
STOP_SECONDS = 10.0
#: Seconds between two looks at whether the workers still run, while a batch is awaited.
WATCH_SECONDS = 0.5


class Interrupt:
    """Ctrl-C between batches: the first one is noted and acted on after the commit.

    A KeyboardInterrupt raised inside the database driver can leave its
    connection mid-statement (psycopg turns it into "connection in transaction
    status ACTIVE" errors); so the first Ctrl-C only sets a flag that
    :meth:`check` turns into KeyboardInterrupt at the next batch boundary.  A
    second Ctrl-C interrupts at once.

    >>> interrupt = Interrupt()
    >>> interrupt.check()  # nothing pressed: goes on
    """

    def __init__(self) -> None:
        self.requested = False
        self.previous: Any = None

    def install(self) -> None:
        """Handle SIGINT from now on (in the main thread only: elsewhere Python cannot)."""
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._handle)

    def restore(self) -> None:
        """Give SIGINT back to the handler it had before :meth:`install`."""
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
            self.previous = None

    def _handle(self, _signum: int, _frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def check(self) -> None:
        """Raise KeyboardInterrupt if Ctrl-C was pressed since :meth:`install`."""
        if self.requested:
            raise KeyboardInterrupt


class BatchRunner:
    """Work on batches in order, in ``jobs`` worker processes (or in this one when 1).

    ``initializer(*initargs)`` runs once in each worker process (to open what
    the work needs there, as the check opens its tables).  With ``start_when``,
    the workers start at the first batch whose items it accepts (until then,
    batches are worked on here).  With ``ahead``, a batch worked on here is worked
    on in a thread, while the caller commits the one before.  Use it as a context
    manager: inside, Ctrl-C is handled as the module says, and on leaving, the
    workers are stopped.
    """

    def __init__(
        self,
        jobs: int = 1,
        *,
        initializer: Callable[..., None] | None = None,
        initargs: tuple[Any, ...] = (),
        prefetch: int = PREFETCH,
        start_when: Callable[[Sequence[Any]], bool] | None = None,
        ahead: bool = False,
    ) -> None:
        self.jobs = max(1, jobs)
        self.ahead = ahead
        self.start_when = start_when
        self.initializer = initializer
        self.initargs = initargs
        self.prefetch = max(0, prefetch)
        self.interrupt = Interrupt()
        self._pool: Any = None
        self._workers: tuple[Any, ...] = ()
        self._gc: tuple[int, ...] = gc.get_threshold()

    def __enter__(self) -> BatchRunner:
        self.interrupt.install()
        self._gc = _loosen_gc(CALLER_GC_THRESHOLD)
        if self.jobs > 1 and self.start_when is None:
            try:
                self._start_pool()
            except BaseException:  # no with-statement __exit__ then: give back what it would
                self.__exit__(None, None, None)
                raise
        return self

    def _start_pool(self) -> None:
        context = multiprocessing.get_context(START_METHOD)
        if os.name == "posix":
            # Started on first use, it unblocks SIGINT: before the block below, not inside.
            resource_tracker.ensure_running()
        with sigint_ignored_by_children(), _main_left_out():
            self._pool = context.Pool(
                self.jobs,
                initializer=_start_worker,
                initargs=(self.initializer, self.initargs),
            )
        # The pool's own processes (a private list, the same since Python 3.2): the pool
        # starts another in place of one that stops, but the work that one had is lost.
        self._workers = tuple(self._pool._pool)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.interrupt.restore()
        gc.set_threshold(*self._gc)
        if self._pool is not None:
            if any(worker.exitcode is not None for worker in self._workers):
                _stop_pool_without(self._pool)
            else:
                _stop_pool(self._pool)
            self._pool = None

    @property
    def parallel(self) -> bool:
        """Whether the batches are worked on in worker processes now (their pool started).

        >>> with BatchRunner() as runner:
        ...     runner.parallel
        False
        """
        return self._pool is not None

    def check(self) -> None:
        """A batch boundary: raise KeyboardInterrupt if Ctrl-C was pressed."""
        self.interrupt.check()

    def map(
        self,
        work: Callable[[Sequence[Item]], list[Result]],
        batches: Iterable[tuple[Tag, Sequence[Item]]],
    ) -> Iterator[tuple[Tag, list[Result]]]:
        """Each batch's tag and the results of its items, in input order.

        ``work`` takes a list of items and returns a list of results: one per item,
        or one for them all (the import's packed slices), the batch's results being
        the lists of its slices joined in order; with
        worker processes it gets slices of a batch, so it must be picklable
        (a module-level function, or a ``functools.partial`` of one).  The
        batches are read as they are needed.  Ctrl-C is acted on when the
        caller asks for the next batch, that is, once it has committed this one.
        """
        self.check()
        source = iter(batches)
        if self._pool is None:
            here = self._ahead if self.ahead else self._here
            first = yield from here(work, source)
            if first is None:
                return
            self._start_pool()
            source = itertools.chain([first], source)
        pending: deque[tuple[Tag, list[Any]]] = deque()
        more = True
        while more and len(pending) <= self.prefetch:
            more = self._submit(work, source, pending)
        while pending:
            tag, parts = pending.popleft()
            if more:  # the workers go on with the next batches while this one is committed
                more = self._submit(work, source, pending)
            yield tag, [result for part in parts for result in self._results(part)]
            self.check()

    def _results(self, part: Any) -> list[Any]:
        """The results of a slice handed to the workers, once they are done.

        :raises WorkerError: when one of the workers has stopped (the pool starts
            another in its place, but the work it had never comes back): the job
            stops there, and the caller's batches committed before are kept.
        """
        while True:
            stopped = [worker for worker in self._workers if worker.exitcode is not None]
            if stopped:
                raise WorkerError(
                    f"worker process {stopped[0].pid} stopped ({_exit_reason(stopped[0])});"
                    " the batches committed before are kept"
                )
            if part.ready():
                results: list[Any] = part.get()
                return results
            part.wait(WATCH_SECONDS)

    def _here(
        self,
        work: Callable[[Sequence[Item]], list[Result]],
        source: Iterator[tuple[Tag, Sequence[Item]]],
    ) -> Generator[tuple[Tag, list[Result]], None, tuple[Tag, Sequence[Item]] | None]:
        """Work on the batches in this process; return the first one the workers take
        (:meth:`_wants_pool`), None when there are no more."""
        for tag, items in source:
            if self._wants_pool(items):
                return tag, items
            yield tag, work(items)
            self.check()
        return None

    def _ahead(
        self,
        work: Callable[[Sequence[Item]], list[Result]],
        source: Iterator[tuple[Tag, Sequence[Item]]],
    ) -> Generator[tuple[Tag, list[Result]], None, tuple[Tag, Sequence[Item]] | None]:
        """:meth:`_here`, each batch read and worked on in a thread while the caller
        has the one before: its errors are raised here, when the caller asks for it."""

        def next_batch() -> tuple[Tag, Sequence[Item], list[Result] | None] | None:
            for tag, items in source:
                return tag, items, None if self._wants_pool(items) else work(items)
            return None

        interval = sys.getswitchinterval()
        sys.setswitchinterval(AHEAD_SWITCH_INTERVAL)
        try:
            with ThreadPoolExecutor(1, thread_name_prefix="studydb-batch") as thread:
                coming = thread.submit(next_batch)
                while (done := coming.result()) is not None:
                    tag, items, results = done
                    if results is None:
                        return tag, items
                    coming = thread.submit(next_batch)
                    yield tag, results
                    self.check()
            return None
        finally:
            sys.setswitchinterval(interval)

    def _wants_pool(self, items: Sequence[Any]) -> bool:
        """Whether the workers start at this batch (:attr:`start_when`)."""
        return self.jobs > 1 and self.start_when is not None and self.start_when(items)

    def _submit(
        self,
        work: Callable[[Sequence[Item]], list[Result]],
        source: Iterator[tuple[Tag, Sequence[Item]]],
        pending: deque[tuple[Tag, list[Any]]],
    ) -> bool:
        """Hand the next batch's slices to the workers; False once the batches are done."""
        for tag, items in source:
            parts = [self._pool.apply_async(work, (part,)) for part in _slices(items, self.jobs)]
            pending.append((tag, parts))
            return True
        return False


def all_cores() -> int:
    """The cores this process may run on: the workers a job starts when not told how many.

    >>> all_cores() >= 1
    True
    """
    try:
        return len(os.sched_getaffinity(0))  # those it is bound to (a container's, taskset)
    except AttributeError:  # not on every system
        return os.cpu_count() or 1


def worker_count(jobs: int | None, items: int) -> int:
    """The processes for a job of ``items`` studies known beforehand (``index``, ``check``):
    ``jobs``, or when not given all cores for :data:`POOL_REPLAYS` studies or more (fewer
    are done in this process: starting workers would cost more than they bring); never
    more than the studies, and this process alone when there are none.

    >>> worker_count(None, 10), worker_count(3, 10), worker_count(8, 2), worker_count(4, 0)
    (1, 3, 2, 1)
    >>> worker_count(None, 5_000) == all_cores()
    True
    """
    if jobs is None:
        jobs = all_cores() if items >= POOL_REPLAYS else 1
    return max(1, min(jobs, items))


@contextlib.contextmanager
def sigint_ignored_by_children() -> Iterator[None]:
    """Processes started inside ignore SIGINT from their first instruction on.

    A worker still importing when Ctrl-C comes would print a traceback, and an
    engine would quit: Ctrl-C is the parent's business.  The ignored signal
    is inherited through ``exec`` (and Python keeps it ignored).  Meanwhile
    SIGINT is blocked in this process, so that a Ctrl-C in that moment is not
    lost but handled once the block ends.  Elsewhere than the main thread, or
    where signals cannot be blocked, this changes nothing or only ignores.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    blocking = hasattr(signal, "pthread_sigmask")
    if blocking:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if blocking:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextlib.contextmanager
def _main_left_out() -> Iterator[None]:
    """Workers started inside do not run this program's main module again.

    ``spawn`` starts a worker by running the parent's ``__main__`` again (by its path, or
    its name), in case the work's functions are defined there.  A runner's work and set-up
    are always functions of studydb's own modules, which the worker imports as it
    unpickles them; running the main module again only costs, or hangs: the ``studydb``
    console script imported the whole command line in each worker (0.05 s of CPU), and a
    program using the library without an ``if __name__ == "__main__":`` guard started its
    import again in each worker, which failed there (a traceback) and was started again,
    for ever.  So while the workers start, ``__main__`` is a module without a path or a name.

    >>> with _main_left_out():
    ...     sys.modules["__main__"].__spec__ is None, hasattr(sys.modules["__main__"], "__file__")
    (True, False)
    """
    main = sys.modules["__main__"]
    sys.modules["__main__"] = ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


def _stop_pool(pool: Any, *, wait: float | None = None) -> None:
    """Stop ``pool``'s workers wherever they are, waiting :data:`STOP_SECONDS` at most.

    CPython's ``Pool.terminate`` can wait for ever: a worker stopped while it sends a
    result keeps the results' queue locked, and the pool's task thread then waits for
    that lock (seen on Ctrl-C during an import on a loaded machine).  By then the
    workers are stopped; the pool's threads, daemons, are left to the process's end.

    >>> class Stuck:
    ...     def terminate(self): threading.Event().wait()
    >>> _stop_pool(Stuck(), wait=0.01)  # returns
    """
    stopper = threading.Thread(
        target=_terminate, args=(pool,), name="studydb-pool-stop", daemon=True
    )
    stopper.start()
    stopper.join(STOP_SECONDS if wait is None else wait)


def _stop_pool_without(pool: Any) -> None:
    """Stop ``pool``, one of whose workers was stopped from outside (killed).

    That worker may have been waiting for a task, holding the lock of the tasks' queue:
    ``Pool.terminate`` takes that lock before it stops the other workers, and so waits
    for ever.  So the pool is told to stop in a thread (it then starts no new worker:
    its worker thread ends), and its workers are stopped here (SIGTERM).
    """
    _stop_pool(pool, wait=0)
    pool._worker_handler.join(STOP_SECONDS)  # private, as ``_pool``: the same since 3.8
    workers = list(pool._pool)
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join(STOP_SECONDS)


def _exit_reason(process: Any) -> str:
    """How a worker process ended, in words.

    >>> class Killed:
    ...     exitcode = -9
    >>> _exit_reason(Killed())
    'killed by SIGKILL: out of memory?'
    """
    code = process.exitcode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}: out of memory?" if name == "SIGKILL" else f"killed by {name}"
    return f"exit status {code}"


def _terminate(pool: Any) -> None:
    pool.terminate()
    pool.join()


def _slices(items: Sequence[Item], count: int) -> list[Sequence[Item]]:
    """Cut ``items`` into at most ``count`` slices of nearly equal length, in order.

    >>> _slices([1, 2, 3, 4, 5], 2), _slices([1], 3), _slices([], 2)
    ([[1, 2, 3], [4, 5]], [[1]], [])
    """
    size = -(-len(items) // count)
    return [items[start : start + size] for start in range(0, len(items), size or 1)]


def _loosen_gc(threshold: int) -> tuple[int, ...]:
    """Raise the collector's first threshold to ``threshold``; the thresholds before."""
    previous = gc.get_threshold()
    gc.set_threshold(threshold, *previous[1:])
    return previous


def _start_worker(initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> None:
    """In a worker: leave Ctrl-C to the parent (systems without ``exec`` too), then set up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _loosen_gc(GC_THRESHOLD)
    if initializer is not None:
        initializer(*initargs)
