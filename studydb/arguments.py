"""The library's arguments checked for their type: a value of the wrong type is named.

A text where a list of paths goes would be read letter by letter (``'/'`` is a
folder), and a text where a flag goes would be true; so :class:`~studydb.db.database.Database`
checks what it is given here first, and raises
:class:`~studydb.errors.ArgumentError` (also a ``TypeError``) naming the argument
and quoting the value.

>>> whole("limit", "5", optional=True)
Traceback (most recent call last):
...
studydb.errors.ArgumentError: limit must be a whole number or None, not the str '5'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from studydb.errors import argument_error

__all__ = ["flags", "ids", "number", "text", "texts", "whole"]


def whole(name: str, value: Any, *, optional: bool = False) -> None:
    """Refuse ``value`` unless it is a whole number (or None, when ``optional``).

    >>> whole("top", True)
    Traceback (most recent call last):
    ...
    studydb.errors.ArgumentError: top must be a whole number, not the bool True
    """
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        expected = "a whole number or None" if optional else "a whole number"
        raise argument_error(name, value, expected)


def number(name: str, value: Any) -> None:
    """Refuse ``value`` unless it is a number (a whole one or not)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise argument_error(name, value, "a number")


def flags(**values: Any) -> None:
    """Refuse a value that is not True or False: ``reindex="no"`` would be taken as True.

    >>> flags(similar=True, reindex="no")
    Traceback (most recent call last):
    ...
    studydb.errors.ArgumentError: reindex must be True or False, not the str 'no'
    """
    for name, value in values.items():
        if not isinstance(value, bool):
            raise argument_error(name, value, "True or False")


def text(name: str, value: Any, *, optional: bool = False) -> None:
    """Refuse ``value`` unless it is a text (or None, when ``optional``)."""
    if not (isinstance(value, str) or (optional and value is None)):
        raise argument_error(name, value, "a text or None" if optional else "a text")


def texts(name: str, values: Any) -> None:
    """Refuse ``values`` unless a sequence of texts: a text alone would be read letter by
    letter.

    >>> texts("names", "ab")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    studydb.errors.ArgumentError: names must be a list of texts ..., not the str 'ab'
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise argument_error(name, values, "a list of texts (write [text] for one)")
    for value in values:
        text(f"each of {name}", value)


def ids(name: str, values: Any, *, of: str = "study") -> None:
    """Refuse ``values`` unless a sequence of whole numbers, the ids of ``of``.

    >>> ids("ids", [1, "2"])
    Traceback (most recent call last):
    ...
    studydb.errors.ArgumentError: each of ids must be a whole number, not the str '2'
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise argument_error(name, values, f"a sequence of {of} ids")
    for value in values:
        whole(f"each of {name}", value)
