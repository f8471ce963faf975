"""The --where language (studydb.where): parsing, and the errors that point at the bad token."""

from __future__ import annotations

import pytest

from studydb.errors import QueryError
from studydb.where import parse_where


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("wR>=1 bN=1 men<=5", [("wr", ">=", 1), ("bn", "=", 1), ("men", "<=", 5)]),
        ("wq == 0 and BQ != 2", [("wq", "==", 0), ("bq", "!=", 2)]),
        ("white>2,black<3", [("white", ">", 2), ("black", "<", 3)]),
        ("  pawns = 0  AND pieces >= 4 ", [("pawns", "=", 0), ("pieces", ">=", 4)]),
    ],
)
def test_parse_where(expression: str, expected: list) -> None:
    assert [(c.name, c.op, c.value) for c in parse_where(expression)] == expected


@pytest.mark.parametrize(
    ("expression", "token", "column"),
    [
        ("wR>=1 bX=1", "bX", 6),
        ("wR>=1 men<=", "<=", 9),
        ("wR>=one", "one", 4),
        ("wR 1", "1", 3),
        ("wR=1 or bR=1", "or", 5),
        ("wR=1 and", "and", 5),
        ("wR=-1", "-", 3),
        ("wR=1; drop table studies", ";", 4),
        ("", "", 0),
    ],
)
def test_bad_where_names_the_token(expression: str, token: str, column: int) -> None:
    with pytest.raises(QueryError) as info:
        parse_where(expression)
    message = str(info.value)
    assert info.value.param == "--where"
    assert f"at {token!r}" in message
    caret_line = message.splitlines()[-1]
    assert caret_line.index("^") - 2 == column
