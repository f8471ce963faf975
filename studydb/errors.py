"""The errors studydb raises on purpose, all under one base class.

Each class also derives from the builtin a caller would expect, so that
``except ValueError`` keeps working.  Messages quote the bad input.  Only the
command line turns these into messages and exit codes; this module imports
nothing, so every layer (the pure codec included) can raise them.

>>> from studydb import gbr
>>> try:
...     gbr.parse("03x0")
... except StudydbError as exc:
...     print(type(exc).__name__, isinstance(exc, ValueError))
GbrError True
"""

from __future__ import annotations

__all__ = [
    "ArgumentError",
    "ComposerError",
    "DatabaseError",
    "GbrError",
    "NoTablesError",
    "PgnError",
    "QueryError",
    "QueryTimeoutError",
    "SoundnessError",
    "StudydbError",
    "WorkerError",
    "quote",
]

#: Characters of a bad input quoted in a message; a longer input is cut with "…".
QUOTE_LIMIT = 80


def quote(text: str, *, limit: int = QUOTE_LIMIT) -> str:
    """The bad input as a message quotes it: ``repr``, at most ``limit`` characters of it.

    >>> quote("not a fen")
    "'not a fen'"
    >>> quote("x" * 100, limit=5)
    "'xxxxx'… (100 characters)"
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"


class StudydbError(Exception):
    """Base class of every error studydb raises on purpose."""


class ArgumentError(StudydbError, TypeError):
    """An argument of the wrong type given to the library (a text where a list of paths
    or a number goes); the message names the argument and quotes what was given."""


def argument_error(name: str, value: object, expected: str) -> ArgumentError:
    """The error for ``value`` given as ``name`` where ``expected`` goes.

    >>> print(argument_error("limit", "5", "a whole number or None"))
    limit must be a whole number or None, not the str '5'
    >>> print(argument_error("fen", None, "a FEN"))
    fen must be a FEN, not None
    """
    shown = repr(value)
    if len(shown) > QUOTE_LIMIT:
        shown = f"{shown[:QUOTE_LIMIT]}… ({len(shown):,} characters)"
    given = "None" if value is None else f"the {type(value).__name__} {shown}"
    return ArgumentError(f"{name} must be {expected}, not {given}")


class GbrError(StudydbError, ValueError):
    """Bad input to the GBR codec; the message quotes it and says what is wrong."""


class PgnError(StudydbError, ValueError):
    """A PGN file that cannot be opened or read to its end."""


class QueryError(StudydbError, ValueError):
    """A filter that cannot be understood; the message quotes the bad part.

    ``param`` names the option it came from (``'--where'``, ``'--year'``,
    ``'MATERIAL'``) so that a command line can report it as a usage error.
    """

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


class ComposerError(StudydbError, ValueError):
    """A register request that cannot be done: an unknown or ambiguous name, a bad file."""


class DatabaseError(StudydbError, RuntimeError):
    """The database cannot be opened, migrated, read or written; the message names it."""


class QueryTimeoutError(DatabaseError, TimeoutError):
    """A query ran over its time budget (``studydb serve``) and the database stopped it."""


class WorkerError(StudydbError, RuntimeError):
    """A worker process stopped before its batch was done (killed: out of memory, a signal)."""


class SoundnessError(StudydbError, ValueError):
    """A soundness check cannot run: no tables, no engine, a bad position or move."""


class NoTablesError(SoundnessError):
    """No Syzygy tables where they were looked for; the message says how to get them."""
