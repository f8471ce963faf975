"""studydb: an endgame-study database with GBR classification.

>>> import studydb, tempfile, pathlib
>>> folder = tempfile.TemporaryDirectory()
>>> with studydb.open(pathlib.Path(folder.name) / "studies.sqlite") as db:
...     db.count(studydb.Filters(material=("0300.10",)))
0
>>> folder.cleanup()
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from studydb.db.database import Database
    from studydb.filters import Filters

__all__ = ["Filters", "__version__", "open"]

__version__ = "0.1.0"

# The library logs; what is shown is the application's choice (python-chess does the same).
logging.getLogger(__name__).addHandler(logging.NullHandler())


def open(db: str | os.PathLike[str] | None = None, *, read_only: bool = False) -> Database:
    """Open a study database: a SQLite path or a URL (None: ``$STUDYDB_DB`` or the default).

    Opened for writing (the default) it is created and brought to the latest
    schema as needed; ``read_only`` opens an existing one for reading only,
    enforced by the connection.  SQLAlchemy is imported here, not with
    ``studydb``.

    :raises studydb.errors.DatabaseError: if it cannot be opened.
    """
    from studydb.db.database import open_database_at

    return open_database_at(db, read_only=read_only)


def __getattr__(name: str) -> Any:
    """``studydb.Filters`` without importing the filters with ``studydb``."""
    if name == "Filters":
        from studydb.filters import Filters

        return Filters
    raise AttributeError(f"module 'studydb' has no attribute {name!r}")
