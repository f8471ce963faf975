"""Syzygy tables for the checker: where they are, opening them, and what identifies a set.

>>> syzygy_dirs(["/a", "/b"])
['/a', '/b']
>>> table_men(["KQvKR.rtbw", "notes.txt"])
4
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess.syzygy

from studydb.errors import NoTablesError

__all__ = [
    "SYZYGY_ENV",
    "SYZYGY_HINT",
    "UNREADABLE",
    "Tables",
    "open_tables",
    "syzygy_dirs",
    "table_men",
    "table_problem",
]

SYZYGY_ENV = "STUDYDB_SYZYGY"
SYZYGY_HINT = (
    "Syzygy tables are needed: put the 3-4-5-man .rtbw and .rtbz files (free downloads "
    "from the Syzygy tablebase mirrors) in a folder and give it with --syzygy DIR or "
    f"${SYZYGY_ENV} (folders joined with ':')"
)
_TABLE_SUFFIXES = (".rtbw", ".rtbz")
log = logging.getLogger(__name__)
#: What python-chess raises reading a damaged table (a missing one raises MissingTableError):
#: its size and magic right, a wrong byte in the header or the data gave each of these.
UNREADABLE = (
    OSError, ValueError, IndexError, KeyError, struct.error, OverflowError, RecursionError,
    AssertionError, ZeroDivisionError,
)  # fmt: skip


def syzygy_dirs(given: Sequence[str] = ()) -> list[str]:
    """The table folders: those given, else ``$STUDYDB_SYZYGY`` split on ``:``.

    >>> syzygy_dirs(["/a", "/b"])
    ['/a', '/b']
    """
    if given:
        return list(given)
    return [part for part in os.environ.get(SYZYGY_ENV, "").split(":") if part]


def table_men(names: Sequence[str]) -> int:
    """The largest number of men among table file names (``KQvKR.rtbw`` has 4).

    >>> table_men(["KQvK.rtbw", "KRPvKR.rtbz", "notes.txt"])
    5
    """
    sizes = [
        len(Path(n).stem.replace("v", ""))
        for n in names
        if Path(n).suffix in _TABLE_SUFFIXES and "v" in Path(n).stem
    ]
    return max(sizes, default=0)


@dataclass
class Tables:
    """Opened Syzygy tables with what identifies them: the largest men and a digest.

    ``bad`` names the table files that cannot be read (``KRvK.rtbw in /t: an
    empty file``): they are left out, so that their positions count as missing.
    """

    tablebase: chess.syzygy.Tablebase
    men: int
    digest: str
    bad: list[str] = field(default_factory=list)

    def probe_wdl(self, board: chess.Board) -> int:
        """The WDL of ``board``; a table that cannot be read counts as missing.

        :raises KeyError: (``MissingTableError``) when no table answers.
        """
        return _probe(self.tablebase.probe_wdl, board)

    def probe_dtz(self, board: chess.Board) -> int:
        """The DTZ of ``board``, as :meth:`probe_wdl` its WDL."""
        return _probe(self.tablebase.probe_dtz, board)

    def close(self) -> None:
        """Close every table file."""
        self.tablebase.close()


def _probe(probe: Callable[[chess.Board], int], board: chess.Board) -> int:
    """``probe(board)``; a table that cannot be read raises MissingTableError saying so."""
    try:
        return probe(board)
    except chess.syzygy.MissingTableError:
        raise
    except UNREADABLE as exc:
        if isinstance(exc, KeyError) and chess.popcount(board.occupied) > chess.syzygy.TBPIECES:
            raise  # more men than any Syzygy table has: beyond the tables, not missing
        what = str(exc) if type(exc) is OSError else f"{type(exc).__name__}: {exc}"
        raise chess.syzygy.MissingTableError(
            f"a table cannot be read (probing {chess.syzygy.calc_key(board)}): {what}"
        ) from None


def open_tables(dirs: Sequence[str]) -> Tables:
    """Open the Syzygy tables in ``dirs``; the digest names the set of tables.

    :raises NoTablesError: when no folder is given, one is absent, or none holds a table
        that can be read.
    """
    if not dirs:
        raise NoTablesError(f"no tablebases given; {SYZYGY_HINT}")
    names = _table_names(dirs)
    if not names:
        raise NoTablesError(f"no Syzygy tables in {', '.join(dirs)}; {SYZYGY_HINT}")
    tablebase = chess.syzygy.Tablebase()
    bad = []
    readable = []
    for folder in dirs:
        for path in sorted(Path(folder).iterdir()):
            if path.suffix not in _TABLE_SUFFIXES:
                continue
            problem = table_problem(path)
            if not problem:
                tablebase.add_file(str(path))
                problem = _header_problem(tablebase, path)
            if problem:
                bad.append(f"{path.name} in {folder}: {problem}")
                log.warning("table file %s cannot be read (%s): counted as missing", path, problem)
            else:
                readable.append(path.name)
    if not readable:  # their reach is none: no "3-men tables" that answer nothing
        tablebase.close()
        raise NoTablesError(
            f"no readable Syzygy tables in {', '.join(dirs)} ({'; '.join(bad)}); {SYZYGY_HINT}"
        )
    digest = hashlib.sha256("\n".join([*names, *bad]).encode()).hexdigest()[:16]
    # the reach of the tables that answer: a damaged 5-man file does not make 5-men tables
    return Tables(tablebase, table_men(readable), digest, bad)


def table_problem(path: Path) -> str:
    """What is wrong with a table file, or ``""``: its size and its first bytes.

    A Syzygy file is 16 bytes longer than a multiple of 64 and starts with the
    magic bytes of its kind (WDL or DTZ).
    """
    try:
        status = path.stat()
        if not stat.S_ISREG(status.st_mode):  # a pipe would be waited on for ever
            return "not a regular file"
        size = status.st_size
        with path.open("rb") as stream:
            head = stream.read(4)
    except OSError as exc:
        return f"cannot be opened: {exc.strerror or exc}"
    if size == 0:
        return "an empty file"
    if size % 64 != 16:
        return f"a truncated or damaged file ({size:,} bytes)"
    magic = chess.Board.tbw_magic if path.suffix == ".rtbw" else chess.Board.tbz_magic
    if head != magic:
        return "not a Syzygy table (wrong magic bytes)"
    if not chess.syzygy.is_tablename(path.stem):
        return "not a Syzygy table's name (such as KRvK.rtbw)"
    return ""


def _header_problem(tablebase: chess.syzygy.Tablebase, path: Path) -> str:
    """What is wrong with the header of a table just added to ``tablebase``, or ``""``.

    python-chess reads it (as it would at the first probe) and the men it
    names must be those of the file's name: a header naming other men made
    every probe of the table loop for ever.  A damaged table is taken out
    of ``tablebase``.
    """
    wdl = path.suffix == ".rtbw"
    tables = tablebase.wdl if wdl else tablebase.dtz
    name = chess.syzygy.normalize_tablename(path.stem)
    table = tables[name]
    try:
        if wdl:
            table.init_table_wdl()  # type: ignore[attr-defined]  # a WdlTable
        else:
            table.init_table_dtz()  # type: ignore[attr-defined]  # a DtzTable
        named = {chess.syzygy.recalc_key(men) for men in _header_men(table)}
        problem = ""
        if not named <= {name, chess.syzygy.normalize_tablename(name, mirror=True)}:
            problem = f"a damaged file (its header names {', '.join(sorted(named))})"
    except UNREADABLE as exc:
        problem = f"a damaged file ({type(exc).__name__}: {exc})"
    finally:
        table.close()  # python-chess opens it again at its first probe
    if problem:
        for key in [key for key, value in tables.items() if value is table]:
            del tables[key]
    return problem


def _header_men(table: Any) -> list[list[int]]:
    """The lists of men a table's header gives (one per side to move, per pawn file)."""
    lists: list[Any] = [table.pieces] if not table.has_pawns else [f.pieces for f in table.files]
    found: list[Any] = []
    for men in lists:
        found.extend(men.values() if isinstance(men, dict) else [men])
    return [list(men) for men in found if men]


def _table_names(dirs: Sequence[str]) -> list[str]:
    names: set[str] = set()
    for folder in dirs:
        path = Path(folder)
        if not path.is_dir():
            what = "is not a folder" if path.exists() else "does not exist"
            raise NoTablesError(f"syzygy folder {folder!r} {what}; {SYZYGY_HINT}")
        names.update(p.name for p in path.iterdir() if p.suffix in _TABLE_SUFFIXES)
    return sorted(names)
