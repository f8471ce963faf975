"""A UCI engine for the checker: one thread, a depth or a time, and a timeout on every call.

Whatever the engine does wrong (it dies, hangs, or answers without a move,
without a score, with an impossible score, with an illegal move, with more
lines than asked for or with fewer than the moves it could give)
becomes an :class:`EngineFailure` naming what happened; the checker restarts
the engine once and then does without it for that study.  An engine without
the ``MultiPV`` option is used without it (``multipv`` is False).

>>> limit_text(chess.engine.Limit(depth=12)), limit_text(chess.engine.Limit(time=0.05))
('depth=12', 'movetime=50')
>>> call_timeout(chess.engine.Limit(time=0.1)), call_timeout(chess.engine.Limit(depth=12))
(2.0, 60.0)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess
import chess.engine

from studydb.errors import QueryError, SoundnessError

__all__ = [
    "ENGINE_ENV",
    "Engine",
    "EngineFailure",
    "EngineTimeout",
    "Line",
    "call_timeout",
    "limit_text",
    "open_engine",
    "restart_engine",
]

ENGINE_ENV = "STUDYDB_ENGINE"
# python-chess logs every line it cannot parse and every failed command, with
# tracebacks; the checker says what went wrong itself (EngineFailure).
logging.getLogger("chess.engine").setLevel(logging.CRITICAL)
#: Seconds an engine may take beyond its search: a base, and per second (or depth) asked.
TIMEOUT_BASE = 1.0
TIMEOUT_PER_SECOND = 10.0
TIMEOUT_PER_DEPTH = 5.0
#: Seconds given to starting, configuring and quitting an engine.
COMMAND_TIMEOUT = 10.0
QUIT_TIMEOUT = 1.0
#: How often a wait for an answer looks at the errors python-chess saw.
POLL_SECONDS = 0.05
#: Seconds to wait for a stopped engine's process to be gone.
RELEASE_SECONDS = 2.0


class EngineFailure(SoundnessError):
    """The engine died, hung or answered nonsense; the message says which."""


class EngineTimeout(EngineFailure):
    """The engine gave no answer within its timeout (it hangs, or searches for ever)."""


@dataclass(frozen=True)
class Line:
    """One line of an engine's answer: its first move, the score for the side to move, depth."""

    move: chess.Move
    score: int
    depth: int | None


def limit_text(limit: chess.engine.Limit) -> str:
    """``depth=N`` or ``movetime=MS``, as reports name the engine's limit."""
    if limit.depth is not None:
        return f"depth={limit.depth}"
    return f"movetime={round((limit.time or 0) * 1000)}"


def call_timeout(limit: chess.engine.Limit) -> float:
    """Seconds to wait for one answer: 1 + 10 x the movetime, or 5 s per ply of depth."""
    if limit.depth is not None:
        return max(TIMEOUT_BASE, TIMEOUT_PER_DEPTH * limit.depth)
    return TIMEOUT_BASE + TIMEOUT_PER_SECOND * (limit.time or 0)


@dataclass
class Engine:
    """A running UCI engine with its search limit, described for storage."""

    process: chess.engine.SimpleEngine
    limit: chess.engine.Limit
    name: str
    path: str = ""
    #: False when the engine has no ``MultiPV`` option (one line per search).
    multipv: bool = True
    timeout: float = field(default=0.0)
    #: What went wrong inside python-chess's event loop (an unreadable best move, …).
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.timeout:
            self.timeout = call_timeout(self.limit)

    @property
    def settings(self) -> str:
        """``depth=N`` or ``movetime=MS``."""
        return limit_text(self.limit)

    def analyse(
        self,
        board: chess.Board,
        *,
        multipv: int = 1,
        root_moves: list[chess.Move] | None = None,
        mate_score: int,
    ) -> list[Line]:
        """The engine's best ``multipv`` lines (among ``root_moves`` if given), best first.

        :raises EngineFailure: when the engine dies, hangs or answers nonsense.
        """
        infos = self._ask(board, multipv if self.multipv else None, root_moves)
        if isinstance(infos, dict):
            infos = [infos]
        asked = max(1, multipv if self.multipv else 1)
        if len(infos) > asked:
            raise EngineFailure(f"{len(infos)} lines in the answer where {multipv} was asked for")
        lines = [_line_of(board, info, root_moves, mate_score) for info in infos]
        moves = len(root_moves) if root_moves is not None else board.legal_moves.count()
        if len(lines) < min(asked, moves):  # the second best first move was not looked for
            count = "1 line" if len(lines) == 1 else f"{len(lines)} lines"
            were = "was" if asked == 1 else "were"
            raise EngineFailure(f"{count} in the answer where {asked} {were} asked for")
        return lines

    def _ask(
        self, board: chess.Board, multipv: int | None, root_moves: list[chess.Move] | None
    ) -> Any:
        """One search, waited for at most :attr:`timeout` seconds."""
        protocol = self.process.protocol
        if protocol.loop.is_closed() or self.process.returncode.done():
            raise EngineFailure("the engine stopped")
        self.errors.clear()
        try:
            search = protocol.analyse(
                board, self.limit, multipv=multipv, root_moves=root_moves, game=object()
            )
            future = asyncio.run_coroutine_threadsafe(
                asyncio.wait_for(search, self.timeout), protocol.loop
            )
            return self._wait(future)
        except TimeoutError:
            if self.errors:
                raise EngineFailure(f"the engine answered nonsense: {self.errors[-1]}") from None
            raise EngineTimeout(f"no answer in {self.timeout:.1f} s") from None
        except chess.engine.EngineTerminatedError as exc:
            raise EngineFailure(f"the engine stopped: {exc}") from None
        except chess.engine.EngineError as exc:
            raise EngineFailure(f"the engine answered nonsense: {exc}") from None
        except (RuntimeError, ValueError, KeyError, IndexError) as exc:  # a dead loop, a bad line
            raise EngineFailure(f"the engine answered nonsense: {exc!r}") from None

    def _wait(self, future: concurrent.futures.Future[Any]) -> Any:
        """The answer, or TimeoutError once it is late or the event loop saw an error."""
        while True:
            try:
                return future.result(timeout=POLL_SECONDS)
            except TimeoutError:
                if future.done():  # the search's own timeout
                    raise
                if self.errors:
                    future.cancel()
                    raise

    def close(self, *, ask: bool = True) -> None:
        """Ask the engine to quit (briefly, unless not ``ask``), then stop it whatever it does.

        A Ctrl-C meanwhile waits until the engine is stopped.
        """
        with ctrl_c_deferred():
            self._close(ask=ask)

    def _close(self, *, ask: bool) -> None:
        group = self.process.transport.get_pid()  # its own process group (setpgrp)
        try:
            protocol = self.process.protocol
            if not ask or protocol.loop.is_closed() or self.process.returncode.done():
                return
            future = asyncio.run_coroutine_threadsafe(
                asyncio.wait_for(protocol.quit(), QUIT_TIMEOUT), protocol.loop
            )
            future.result()
        except Exception:  # a dead or hung engine is stopped below all the same
            pass
        finally:
            self.process.close()
            self._release()
            _stop_group(group)

    def _release(self) -> None:
        """Let python-chess's thread end once the engine process is gone.

        After a search cancelled by its timeout, python-chess fails to note the
        process's exit ("invalid state") and its thread would wait forever,
        keeping the program from ending: the exit is noted here instead.
        """
        protocol = self.process.protocol
        for _ in range(round(RELEASE_SECONDS / POLL_SECONDS)):
            try:
                self.process.returncode.result(timeout=POLL_SECONDS)
                return
            except TimeoutError:
                code = self.process.transport.get_returncode()
                if code is not None and not protocol.loop.is_closed():
                    protocol.loop.call_soon_threadsafe(_note_exit, protocol, code)


def _stop_group(group: int | None) -> None:
    """Kill what is left of the engine's process group: the processes it started (a
    wrapper's helpers) outlived it."""
    if group is None or not hasattr(os, "killpg"):
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)


def _note_exit(protocol: Any, code: int) -> None:
    if not protocol.returncode.done():
        protocol.returncode.set_result(code)


def _line_of(
    board: chess.Board,
    info: dict[str, Any],
    root_moves: list[chess.Move] | None,
    mate_score: int,
) -> Line:
    """A line of the answer, checked: a legal first move (among ``root_moves``) and a score."""
    pv = info.get("pv")
    if not pv:
        raise EngineFailure("an answer without a move (no pv)")
    if not board.is_legal(pv[0]) or (root_moves is not None and pv[0] not in root_moves):
        raise EngineFailure(f"an illegal move in the answer: {pv[0].uci()}")
    score = info.get("score")
    if score is None:
        raise EngineFailure("an answer without a score")
    centipawns = score.relative.score()
    if centipawns is not None and abs(centipawns) >= mate_score // 2:  # read as a mate
        raise EngineFailure(f"an impossible score: cp {centipawns}")
    if score.relative.mate() == 0:  # "mated now": but the position has moves
        raise EngineFailure("an impossible score: mate 0 in a position with moves")
    value = score.pov(board.turn).score(mate_score=mate_score)
    assert value is not None  # mate_score given
    return Line(pv[0], value, info.get("depth"))


@contextlib.contextmanager
def ctrl_c_deferred() -> Iterator[None]:
    """Ctrl-C waits for the end of the block, then is raised again for whoever handles it.

    An engine half started or half stopped would keep python-chess's thread,
    and so the program, waiting for ever.  Elsewhere than the main thread
    this changes nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, _frame: caught.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            signal.raise_signal(signal.SIGINT)


def check_limits(path: str | None, *, depth: int | None, movetime: int | None) -> None:
    """Refuse engine settings that do not go together: an engine searches to a depth or
    for a time, exactly one of them; without an engine, neither is given.

    >>> check_limits("/usr/games/stockfish", depth=12, movetime=None)
    >>> check_limits(None, depth=12, movetime=None)
    Traceback (most recent call last):
    ...
    studydb.errors.QueryError: --depth and --movetime need --engine PATH (or $STUDYDB_ENGINE)

    :raises QueryError: naming the option to mend (``--engine`` or ``--depth``).
    """
    if path and (depth is None) == (movetime is None):
        raise QueryError(
            "give the engine exactly one of --depth N or --movetime MS", param="--engine"
        )
    if not path and (depth is not None or movetime is not None):
        raise QueryError(
            f"--depth and --movetime need --engine PATH (or ${ENGINE_ENV})", param="--depth"
        )


def open_engine(path: str, *, depth: int | None = None, movetime: int | None = None) -> Engine:
    """Start a UCI engine with one thread; search to ``depth`` or for ``movetime`` ms.

    A Ctrl-C while it starts waits until it has started, and then stops it.

    :raises SoundnessError: when it cannot be started.
    :raises QueryError: unless exactly one limit is given (:func:`check_limits`).
    """
    check_limits(path, depth=depth, movetime=movetime)
    limit = (
        chess.engine.Limit(depth=depth)
        if depth is not None
        else chess.engine.Limit(time=(movetime or 0) / 1000)
    )
    started: list[Engine] = []
    try:
        with ctrl_c_deferred():
            started.append(_start_engine(path, limit))
    except KeyboardInterrupt:
        for engine in started:
            engine.close(ask=False)
        raise
    return started[0]


def _start_engine(path: str, limit: chess.engine.Limit) -> Engine:
    try:
        # Its own process group: a Ctrl-C meant for us does not kill it mid-batch.
        process = chess.engine.SimpleEngine.popen_uci(path, setpgrp=True, timeout=COMMAND_TIMEOUT)
    except (OSError, chess.engine.EngineError, TimeoutError) as exc:
        raise SoundnessError(
            f"cannot start the engine {path!r}: {str(exc) or 'no answer'}"
        ) from None
    try:
        options = process.options
        process.configure({k: v for k, v in (("Threads", 1), ("Hash", 16)) if k in options})
    except (chess.engine.EngineError, TimeoutError) as exc:
        process.close()
        raise SoundnessError(f"cannot configure the engine {path!r}: {exc}") from None
    name = process.id.get("name", Path(path).name)
    engine = Engine(process, limit, name, path=path, multipv="MultiPV" in options)

    def keep_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        engine.errors.append(str(context.get("exception") or context.get("message", "")))

    process.protocol.loop.call_soon_threadsafe(
        process.protocol.loop.set_exception_handler, keep_error
    )
    return engine


def restart_engine(engine: Engine) -> Engine:
    """Stop ``engine`` whatever its state and start it again with the same limit.

    :raises SoundnessError: when it cannot be started again.
    """
    engine.close(ask=False)
    limit = engine.limit
    if limit.depth is not None:
        return open_engine(engine.path, depth=limit.depth)
    return open_engine(engine.path, movetime=round((limit.time or 0) * 1000))
