"""Syzygy tables for the checker: where they are, opening them, and what identifies a set.

>>> syzygy_dirs(["/a", "/b"])
['/a', '/b']
>>> table_men(["KQvKR.rtbw", "notes.txt"])
4
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import chess.syzygy

from studydb.errors import NoTablesError

__all__ = ["SYZYGY_ENV", "SYZYGY_HINT", "Tables", "open_tables", "syzygy_dirs", "table_men"]

SYZYGY_ENV = "STUDYDB_SYZYGY"
SYZYGY_HINT = (
    "Syzygy tables are needed: put the 3-4-5-man .rtbw and .rtbz files (free downloads "
    "from the Syzygy tablebase mirrors) in a folder and give it with --syzygy DIR or "
    f"${SYZYGY_ENV} (folders joined with ':')"
)
_TABLE_SUFFIXES = (".rtbw", ".rtbz")


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
    """Opened Syzygy tables with what identifies them: the largest men and a digest."""

    tablebase: chess.syzygy.Tablebase
    men: int
    digest: str

    def close(self) -> None:
        """Close every table file."""
        self.tablebase.close()


def open_tables(dirs: Sequence[str]) -> Tables:
    """Open the Syzygy tables in ``dirs``; the digest names the set of tables.

    :raises NoTablesError: when no folder is given, one is absent, or none holds a table.
    """
    if not dirs:
        raise NoTablesError(f"no tablebases given; {SYZYGY_HINT}")
    names = _table_names(dirs)
    if not names:
        raise NoTablesError(f"no Syzygy tables in {', '.join(dirs)}; {SYZYGY_HINT}")
    tablebase = chess.syzygy.Tablebase()
    for folder in dirs:
        tablebase.add_directory(folder)
    digest = hashlib.sha256("\n".join(names).encode()).hexdigest()[:16]
    return Tables(tablebase, table_men(names), digest)


def _table_names(dirs: Sequence[str]) -> list[str]:
    names: set[str] = set()
    for folder in dirs:
        path = Path(folder)
        if not path.is_dir():
            raise NoTablesError(f"syzygy folder {folder!r} does not exist; {SYZYGY_HINT}")
        names.update(p.name for p in path.iterdir() if p.suffix in _TABLE_SUFFIXES)
    return sorted(names)
