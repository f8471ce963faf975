"""Ctrl-C during a batched write: stop at the next batch boundary, or at once when pressed twice.

Used by the import (:mod:`studydb.db.importer`) and the soundness check
(:mod:`studydb.db.checks`): each commits whole batches, so a first Ctrl-C lets
the batch in hand commit and a second one rolls it back.

>>> interrupt = Interrupt()
>>> interrupt.check()  # nothing pressed: goes on
"""

from __future__ import annotations

import signal
import threading
from typing import Any

__all__ = ["Interrupt"]


class Interrupt:
    """Ctrl-C between batches: the first one is noted and acted on after the commit.

    A KeyboardInterrupt raised inside the database driver can leave its
    connection mid-statement (psycopg turns it into "connection in transaction
    status ACTIVE" errors); so the first Ctrl-C only sets a flag that
    :meth:`check` turns into KeyboardInterrupt at the next batch boundary.  A
    second Ctrl-C interrupts at once.
    """

    def __init__(self) -> None:
        self.requested = False
        self.previous: Any = None

    def install(self) -> None:
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._handle)

    def restore(self) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
            self.previous = None

    def _handle(self, _signum: int, _frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def check(self) -> None:
        if self.requested:
            raise KeyboardInterrupt
