"""Pieces shared by the commands: the ``--db`` option, consoles, error exits."""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from studydb.errors import StudydbError
from studydb.terminal import CONTROL, has_control, visible

if TYPE_CHECKING:
    from rich.console import Console

    from studydb.db.database import Database
    from studydb.filters import Filters

#: Exit codes: 1 for a failure of the job, 130 for an interrupt (usage errors
#: exit 2 through Click's BadParameter, see :func:`usage_error`).
EXIT_FAILURE = 1
EXIT_INTERRUPTED = 130
#: The most worker processes and the largest batch any command accepts (usage error beyond).
MAX_JOBS = 256
#: The largest study id a database can hold (a 32-bit integer on PostgreSQL).
MAX_STUDY_ID = 2**31 - 1
MAX_BATCH = 100_000


DB_HELP = "Database: a SQLite path or a URL (sqlite:///…, postgresql+psycopg://…)."


def _given_db(value: str | None) -> str | None:
    """Refuse an empty ``--db`` (``--db "$UNSET"``): it must not mean the default database."""
    if value is not None and not value.strip():
        raise typer.BadParameter(
            f"{value!r} is empty: give a SQLite path or a URL, or leave --db out"
            " for $STUDYDB_DB or the default database"
        )
    return value


def db_option() -> str | None:
    """The ``--db`` option every database command takes (default: $STUDYDB_DB).

    An empty value is a usage error, never the default database: ``--db "$DB"``
    with ``DB`` unset must not import into (or serve) another collection.
    """
    option: str | None = typer.Option(
        None, "--db", envvar="STUDYDB_DB", help=DB_HELP, show_envvar=True, callback=_given_db
    )
    return option


def jobs_option(doing: str, default: str) -> int | None:
    """The ``--jobs N`` option of the commands that work in worker processes (import,
    index, check): ``doing`` says what the workers do, ``default`` how many start when
    it is not given (None then).

    >>> jobs_option("checking studies", "one a core").default is None
    True
    """
    option: int | None = typer.Option(
        None,
        "--jobs",
        "-j",
        min=1,
        max=MAX_JOBS,
        help=f"Worker processes {doing} (default: {default}).",
    )
    return option


def stdout_console() -> Console:
    """A Rich console on stdout whose closed pipe (``| head``) ends quietly with 0.

    Like :func:`stderr_console`, it shows the data's control characters as
    escapes (:func:`studydb.terminal.visible`), and reads no Rich markup (styles
    are ``Text`` styles): no text from a PGN file moves the cursor, retitles the
    window, makes a hyperlink or changes a colour.
    """
    return _safe_console_class()(highlight=False, markup=False, soft_wrap=True)


def stderr_console() -> Console:
    """A Rich console on stderr that shows control characters as escapes."""
    return _safe_console_class()(stderr=True, highlight=False, markup=False, soft_wrap=True)


@functools.cache
def _safe_console_class() -> type[Console]:
    from rich.console import Console
    from rich.segment import Segment
    from rich.text import Text

    class SafeConsole(Console):
        def render(self, renderable: Any, options: Any = None) -> Iterator[Segment]:
            # Before the layout, so that escapes are measured; after it, for whatever
            # a renderable wrote into its segments directly.
            if isinstance(renderable, str) and has_control(renderable):
                renderable = visible(renderable)
            elif isinstance(renderable, Text) and has_control(renderable.plain):
                renderable = _visible_text(renderable)
            for segment in super().render(renderable, options):
                if segment.control is None and has_control(segment.text):
                    segment = Segment(visible(segment.text), segment.style)
                yield segment

        def on_broken_pipe(self) -> None:  # Rich's hook; its default exits 1
            self.quiet = True
            quiet_broken_pipe()

    return SafeConsole


def _visible_text(text: Any) -> Any:
    """A copy of a Rich ``Text`` with its control characters written as escapes, styles kept."""
    result = text.blank_copy()
    start = 0
    for match in CONTROL.finditer(text.plain):
        result.append_text(text[start : match.start()])
        control = text[match.start() : match.end()]
        shown = control.blank_copy(visible(match.group()))
        for span in control.spans:  # the control character's styles, on its escape
            shown.stylize(span.style)
        result.append_text(shown)
        start = match.end()
    result.append_text(text[start:])
    return result


def echo(text: str) -> None:
    """Write a line of text for people on stdout, its control characters shown as escapes."""
    typer.echo(visible(text))


def fail(message: str, *, code: int = EXIT_FAILURE) -> NoReturn:
    """Print ``studydb: error: message`` on stderr and exit with ``code``.

    The message may quote the input: its control characters are shown as escapes.
    """
    sys.stderr.write(f"studydb: error: {visible(message)}\n")
    raise typer.Exit(code)


def usage_error(message: str, *, param: str | None = None) -> NoReturn:
    """Exit 2 with a usage message, as for any bad option."""
    raise typer.BadParameter(message, param_hint=param)


def describe_error(exc: BaseException) -> str:
    """The message for a library error or an operating-system error.

    >>> describe_error(FileNotFoundError(2, "No such file or directory", "/no/x.pgn"))
    '/no/x.pgn: No such file or directory'
    """
    if isinstance(exc, OSError) and not isinstance(exc, StudydbError):
        reason = exc.strerror or str(exc)
        if exc.filename is None:  # writing our output (a file of ours would be named)
            return f"cannot write the output: {reason}"
        return f"{exc.filename}: {reason}"
    return str(exc)


@contextlib.contextmanager
def library_errors() -> Iterator[None]:
    """Turn the library's errors and OS errors into ``studydb: error: …`` and exit code 1.

    Only :class:`~studydb.errors.StudydbError` and :class:`OSError` are caught:
    anything else is a bug and keeps its traceback.
    """
    try:
        yield
    except BrokenPipeError:
        quiet_broken_pipe()
    except (StudydbError, OSError) as exc:
        fail(describe_error(exc))


def quiet_broken_pipe() -> NoReturn:
    """End quietly with exit 0 when the reader of our output went away (``| head``)."""
    import os

    # Point stdout at /dev/null so that the interpreter's final flush does not fail again.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    raise SystemExit(0)


def note_unindexed(database: Database, filters: Filters, *, theme_counts: bool = False) -> None:
    """Say on stderr how many selected studies a search of the position index passed over.

    A ``--position``, ``--pattern``, ``--pieces``, ``--line``, ``--reaches``,
    ``--ends-in`` or ``--theme`` search finds indexed studies only: its "No studies
    match" or its count rests on them, and this says what it does not cover;
    ``theme_counts`` (``themes``, ``stats``' themes) whatever the filters.  A
    ``--theme mutual-zugzwang`` search finds checked studies only: it says how many were
    never checked.
    """
    missing = database.unindexed(filters, theme_counts=theme_counts)
    if missing:
        stderr_console().print(
            f"studydb: note: {missing:,} of the studies the other filters select are not in"
            " the position index (imported with --positions none, or games from the initial"
            " position) and were not searched: studydb index indexes them"
        )
    unchecked = database.unchecked(filters)
    if unchecked:
        stderr_console().print(
            f"studydb: note: {unchecked:,} of the studies the other filters select were never"
            " checked with tables and were not searched for mutual zugzwangs: studydb check"
            " looks for them"
        )


def note_not_compared(database: Database, *, min_men: int, exclude: int | None = None) -> None:
    """Say on stderr how many stored studies shared positions were not looked for in.

    Shared positions (``anticipate``) are looked up in the position index: a study not
    in it (``--positions none``) is never found.  A study whose start has fewer than
    ``min_men`` men has no position with more (men are never added), so only the
    others count.
    """
    missing = database.not_compared(min_men=min_men, exclude=exclude)
    if missing:
        stderr_console().print(f"studydb: note: {not_compared_text(missing, min_men)}")


def not_compared_text(missing: int, min_men: int) -> str:
    """What is said of the ``missing`` studies a search for shared positions passed over.

    >>> not_compared_text(2, 5)[:58]
    '2 stored studies of 5+ men are not in the position index a'
    """
    from studydb.facts import not_compared_phrase  # headers and names: when a note is due

    them = "it" if missing == 1 else "them"
    return f"{not_compared_phrase(missing, min_men)}: studydb index indexes {them}"


def open_db(db: str | None, *, create: bool = False) -> Database:
    """Open an existing database at the latest revision for a command, failing with a
    message that names it.

    Only ``import`` and ``db upgrade`` (``create=True``) create or migrate a database:
    every other command, writing ones too, refuses a missing file, a foreign file or
    an older schema, so that a mistyped ``--db`` never leaves an empty database behind.
    """
    from studydb.db.database import open_database_at

    with library_errors():
        return open_database_at(db, write=create)
