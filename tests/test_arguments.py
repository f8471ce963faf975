"""The library's arguments checked for their type (studydb.arguments)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from studydb import arguments
from studydb.errors import ArgumentError

#: A check, a value it refuses, and what the message says of it.
REFUSED: list[tuple[Callable[[], None], str]] = [
    (lambda: arguments.whole("limit", "5"), "limit must be a whole number, not the str '5'"),
    (lambda: arguments.whole("top", 1.0), "not the float 1.0"),
    (lambda: arguments.whole("top", False), "not the bool False"),
    (lambda: arguments.number("minimum", "x"), "minimum must be a number"),
    (lambda: arguments.flags(reindex="no"), "reindex must be True or False"),
    (lambda: arguments.flags(similar=None), "similar must be True or False, not None"),
    (lambda: arguments.text("fen", b"x"), "fen must be a text, not the bytes b'x'"),
    (lambda: arguments.texts("names", "ab"), "not the str 'ab'"),
    (lambda: arguments.texts("names", ["a", 1]), "each of names must be a text"),
    (lambda: arguments.ids("ids", "12"), "ids must be a sequence of study ids"),
    (lambda: arguments.ids("ids", {1}, of="person"), "a sequence of person ids"),
    (lambda: arguments.whole("x", "y" * 200), "… (202 characters)"),
]


@pytest.mark.parametrize(("check", "message"), REFUSED, ids=[m for _, m in REFUSED])
def test_a_value_of_the_wrong_type_is_named(check: Callable[[], None], message: str) -> None:
    with pytest.raises(ArgumentError) as caught:
        check()
    assert message in str(caught.value) and isinstance(caught.value, TypeError)


def test_values_of_the_right_type_pass() -> None:
    arguments.whole("limit", None, optional=True)
    arguments.whole("limit", 10**30)
    arguments.number("minimum", 0.5)
    arguments.flags(a=True, b=False)
    arguments.text("query", None, optional=True)
    arguments.texts("names", ("a", "b"))
    arguments.ids("ids", [1, 2])
