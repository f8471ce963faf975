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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

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
#: What reading a damaged table raises (a missing one raises MissingTableError).
UNREADABLE = (OSError, ValueError, IndexError)


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
        try:
            return self.tablebase.probe_wdl(board)
        except UNREADABLE as exc:
            raise chess.syzygy.MissingTableError(f"a table cannot be read: {exc}") from None

    def close(self) -> None:
        """Close every table file."""
        self.tablebase.close()


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
            if problem:
                bad.append(f"{path.name} in {folder}: {problem}")
                log.warning("table file %s cannot be read (%s): counted as missing", path, problem)
            else:
                tablebase.add_file(str(path))
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
        size = path.stat().st_size
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
    return ""


def _table_names(dirs: Sequence[str]) -> list[str]:
    names: set[str] = set()
    for folder in dirs:
        path = Path(folder)
        if not path.is_dir():
            what = "is not a folder" if path.exists() else "does not exist"
            raise NoTablesError(f"syzygy folder {folder!r} {what}; {SYZYGY_HINT}")
        names.update(p.name for p in path.iterdir() if p.suffix in _TABLE_SUFFIXES)
    return sorted(names)
