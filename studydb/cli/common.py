"""Pieces shared by the commands: the ``--db`` option, consoles, error exits."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, NoReturn

import typer

if TYPE_CHECKING:
    from rich.console import Console
    from sqlalchemy import Engine

#: Exit codes: 1 for a failure of the job, 130 for an interrupt (usage errors
#: exit 2 through Click's BadParameter, see :func:`usage_error`).
EXIT_FAILURE = 1
EXIT_INTERRUPTED = 130

DB_HELP = "Database: a SQLite path or a URL (sqlite:///…, postgresql+psycopg://…)."


def db_option() -> str | None:
    """The ``--db`` option every database command takes (default: $STUDYDB_DB)."""
    return typer.Option(None, "--db", envvar="STUDYDB_DB", help=DB_HELP, show_envvar=True)


def stdout_console() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str, *, code: int = EXIT_FAILURE) -> NoReturn:
    """Print ``studydb: error: message`` on stderr and exit with ``code``."""
    sys.stderr.write(f"studydb: error: {message}\n")
    raise typer.Exit(code)


def usage_error(message: str, *, param: str | None = None) -> NoReturn:
    """Exit 2 with a usage message, as for any bad option."""
    raise typer.BadParameter(message, param_hint=param)


#: (module, class) of the library's errors; checked only when the module is loaded,
#: so that a ``gbr`` command never imports the database layer.
LIBRARY_ERRORS = (
    ("studydb.gbr", "GbrError"),
    ("studydb.db.pgn", "PgnError"),
    ("studydb.db.engine", "DatabaseError"),
    ("studydb.db.queries", "QueryError"),
    ("sqlalchemy.exc", "SQLAlchemyError"),
)


def is_library_error(exc: BaseException) -> bool:
    """Tell whether ``exc`` is one of the errors the library raises on purpose."""
    for module_name, class_name in LIBRARY_ERRORS:
        module = sys.modules.get(module_name)
        cls = getattr(module, class_name, None) if module is not None else None
        if isinstance(cls, type) and isinstance(exc, cls):
            return True
    return False


@contextlib.contextmanager
def library_errors() -> Iterator[None]:
    """Turn the library's errors into ``studydb: error: …`` and exit code 1."""
    try:
        yield
    except Exception as exc:
        if is_library_error(exc):
            fail(str(exc))
        raise


def open_engine(db: str | None) -> Engine:
    """Open the database for a command, failing with a message that names it."""
    from studydb.db.engine import open_database

    with library_errors():
        return open_database(db)
