"""A UCI engine for the checker: started with one thread, searching to a depth or for a time.

>>> limit_text(chess.engine.Limit(depth=12)), limit_text(chess.engine.Limit(time=0.05))
('depth=12', 'movetime=50')
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine

from studydb.errors import SoundnessError

__all__ = ["ENGINE_ENV", "Engine", "Line", "limit_text", "open_engine"]

ENGINE_ENV = "STUDYDB_ENGINE"


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


@dataclass
class Engine:
    """A running UCI engine with its search limit, described for storage."""

    process: chess.engine.SimpleEngine
    limit: chess.engine.Limit
    name: str

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
        """The engine's best ``multipv`` lines (among ``root_moves`` if given), best first."""
        infos = self.process.analyse(
            board, self.limit, multipv=multipv, root_moves=root_moves, game=object()
        )
        return [
            Line(info["pv"][0], info["score"].pov(board.turn).score(mate_score=mate_score),
                 info.get("depth"))
            for info in infos
        ]  # fmt: skip

    def close(self) -> None:
        """Ask the engine to quit."""
        self.process.quit()


def open_engine(path: str, *, depth: int | None = None, movetime: int | None = None) -> Engine:
    """Start a UCI engine with one thread; search to ``depth`` or for ``movetime`` ms.

    :raises SoundnessError: when it cannot be started or neither limit is given.
    """
    if (depth is None) == (movetime is None):
        raise SoundnessError("give the engine exactly one of --depth N or --movetime MS")
    limit = (
        chess.engine.Limit(depth=depth)
        if depth is not None
        else chess.engine.Limit(time=(movetime or 0) / 1000)
    )
    try:
        # Its own process group: a Ctrl-C meant for us does not kill it mid-batch.
        process = chess.engine.SimpleEngine.popen_uci(path, setpgrp=True)
    except (OSError, chess.engine.EngineError) as exc:
        raise SoundnessError(f"cannot start the engine {path!r}: {exc}") from None
    try:
        process.configure({k: v for k, v in (("Threads", 1), ("Hash", 16)) if k in process.options})
    except chess.engine.EngineError as exc:
        process.quit()
        raise SoundnessError(f"cannot configure the engine {path!r}: {exc}") from None
    return Engine(process, limit, process.id.get("name", Path(path).name))
