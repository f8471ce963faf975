"""Work for the worker processes of tests/test_batches.py, in a module of its own.

A spawned worker imports the module its work comes from: this one imports
next to nothing, so that starting workers stays cheap in the tests.
"""

from __future__ import annotations

import gc
import os
import signal


def squares(items: list[int]) -> list[int]:
    """Each item squared."""
    return [item * item for item in items]


def worker_state(items: list[int]) -> list[tuple[str | None, bool]]:
    """What the worker was set up with, and whether it ignores Ctrl-C, for each item."""
    ignoring = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    return [(os.environ.get("STUDYDB_TEST_WORKER"), ignoring) for _ in items]


def set_up_worker(value: str) -> None:
    """A worker's initializer: leaves a mark that the work can see."""
    os.environ["STUDYDB_TEST_WORKER"] = value


def collector_thresholds(items: list[int]) -> list[int]:
    """The cyclic garbage collector's first threshold in the worker, for each item."""
    return [gc.get_threshold()[0] for _ in items]


def process_ids(items: list[int]) -> list[int]:
    """The id of the process that worked on each item."""
    return [os.getpid() for _ in items]


def stop_on_thirteen(items: list[int]) -> list[int]:
    """Each item, unless 13 is among them: then the worker is killed, as by the kernel."""
    if 13 in items:
        os.kill(os.getpid(), signal.SIGKILL)
    return items
