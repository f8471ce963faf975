"""The ``--where`` language: comparisons on the material counts of a study.

``'wR>=1 bN=1 men<=5'`` is parsed into :class:`WhereCondition` objects;
:mod:`studydb.db.where` turns them into SQL.  Every name the language knows
stands once, in :data:`NAMES`.  Database-free.

>>> [(c.name, c.op, c.value) for c in parse_where("wR>=1 men<=5")]
[('wr', '>=', 1), ('men', '<=', 5)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from studydb.errors import QueryError, quote

__all__ = [
    "NAMES",
    "OPERATORS",
    "WHERE_NAMES",
    "WhereCondition",
    "WhereName",
    "parse_where",
]

_PIECE_COLUMNS = ("q", "r", "b", "n")
_WHITE = tuple("w" + c for c in "qrbnp")
_BLACK = tuple("b" + c for c in "qrbnp")
_PIECES = tuple(side + c for side in "wb" for c in _PIECE_COLUMNS)


@dataclass(frozen=True)
class WhereName:
    """A ``--where`` name: what it counts, the count columns it adds up and a constant."""

    description: str
    columns: tuple[str, ...]
    constant: int = 0
    #: A stored column holding exactly this sum (indexed), if any.
    column: str | None = None

    @property
    def terms(self) -> tuple[tuple[str, ...], int]:
        return self.columns, self.constant


_SIDES = {"w": "white", "b": "black"}
_TYPES = {"q": "queens", "r": "rooks", "b": "bishops", "n": "knights", "p": "pawns"}

#: Every name a ``--where`` expression may use, keyed in lower case, in help order.
NAMES: dict[str, WhereName] = {
    **{
        side + kind: WhereName(f"{_SIDES[side]} {_TYPES[kind]}", (side + kind,), column=side + kind)
        for side in "wb"
        for kind in "qrbnp"
    },
    "white": WhereName("white men including the king", _WHITE, 1),
    "black": WhereName("black men including the king", _BLACK, 1),
    "men": WhereName("all men including both kings", _WHITE + _BLACK, 2, column="men"),
    "pawns": WhereName("pawns of both sides", ("wp", "bp")),
    "pieces": WhereName("queens, rooks, bishops and knights of both sides", _PIECES),
}

#: Names a ``--where`` expression may use (any case), as written in help, with what each counts.
WHERE_NAMES: dict[str, str] = {
    (name[0] + name[1].upper() if len(name) == 2 else name): entry.description
    for name, entry in NAMES.items()
}

#: Digits a ``--where`` number may have (men and counts are far smaller; more is a typo).
MAX_DIGITS = 9

#: The comparison operators, each as the method that applies it.
OPERATORS = {
    "=": "__eq__",
    "==": "__eq__",
    "!=": "__ne__",
    "<": "__lt__",
    "<=": "__le__",
    ">": "__gt__",
    ">=": "__ge__",
}
_WHERE_TOKEN_RE = re.compile(
    r"(?P<space>[\s,]+)|(?P<number>[0-9]+)|(?P<word>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<op>==|!=|<=|>=|<>|=<|=>|[=<>!])|(?P<other>.)",
    re.ASCII,
)


@dataclass(frozen=True)
class WhereCondition:
    """One parsed ``name op number`` comparison of a ``--where`` expression."""

    name: str
    op: str
    value: int

    def allows(self, low: int, high: int) -> bool:
        """Whether some value in ``low..high`` satisfies the comparison."""
        value = self.value
        if self.op in ("=", "=="):
            return low <= value <= high
        if self.op == "!=":
            return not low == high == value
        if self.op == "<":
            return low < value
        if self.op == "<=":
            return low <= value
        if self.op == ">":
            return high > value
        return high >= value


#: Characters of a long expression shown on each side of the bad token.
_CONTEXT = 30


def _where_error(expression: str, position: int, token: str, problem: str) -> QueryError:
    """The error naming the bad token, with the expression (cut round it) and a caret under it.

    >>> print(_where_error("wR>=1 and men <= 5 zz=1", 19, "zz", "no such name"))
    bad --where expression at 'zz': no such name
      wR>=1 and men <= 5 zz=1
                         ^^
    """
    start = max(0, position - _CONTEXT)
    end = min(len(expression), position + min(max(1, len(token)), _CONTEXT) + _CONTEXT)
    shown = ("…" if start else "") + expression[start:end] + ("…" if end < len(expression) else "")
    offset = position - start + (1 if start else 0)
    caret = " " * offset + "^" * max(1, min(len(token), _CONTEXT))
    return QueryError(
        f"bad --where expression at {quote(token)}: {problem}\n  {shown}\n  {caret}",
        param="--where",
    )


def _tokens(expression: str) -> list[tuple[str, str, int]]:
    tokens = []
    for match in _WHERE_TOKEN_RE.finditer(expression):
        kind = match.lastgroup or "other"
        if kind != "space":
            tokens.append((kind, match.group(), match.start()))
    return tokens


def parse_where(expression: str) -> list[WhereCondition]:
    """Parse ``'wR>=1 bN=1 men<=5'``: comparisons joined by spaces, commas or ``and``.

    >>> [(c.name, c.op, c.value) for c in parse_where("wR>=1 and men <= 5")]
    [('wr', '>=', 1), ('men', '<=', 5)]

    :raises QueryError: naming the bad token and its position.
    """
    names = " ".join(WHERE_NAMES)
    tokens = _tokens(expression)
    if not tokens:
        raise _where_error(expression, 0, "", "it is empty; expected comparisons like 'wR>=1'")
    conditions: list[WhereCondition] = []
    index = 0
    while index < len(tokens):
        kind, token, position = tokens[index]
        if kind == "word" and token.lower() == "and" and conditions:
            index += 1
            if index == len(tokens):
                raise _where_error(expression, position, token, "nothing follows 'and'")
            kind, token, position = tokens[index]
        if kind != "word" or token.lower() not in NAMES:
            problem = (
                "'or' is not supported; filters combine with AND (give the material as "
                "several codes or patterns for alternatives)"
                if token.lower() == "or"
                else f"expected one of {names}"
            )
            raise _where_error(expression, position, token, problem)
        name = token.lower()
        if index + 1 >= len(tokens):
            raise _where_error(
                expression, position, token, f"{token!r} needs an operator and a number"
            )
        _, op, op_position = tokens[index + 1]
        if op not in OPERATORS:
            raise _where_error(
                expression,
                op_position,
                op,
                "expected an operator: = == != < <= > >=",
            )
        if index + 2 >= len(tokens):
            raise _where_error(expression, op_position, op, f"{op!r} needs a number after it")
        value_kind, value, value_position = tokens[index + 2]
        if value_kind != "number":
            raise _where_error(expression, value_position, value, "expected a whole number")
        if len(value.lstrip("0")) > MAX_DIGITS:
            raise _where_error(
                expression,
                value_position,
                value,
                f"the number is out of range (at most {MAX_DIGITS} digits)",
            )
        conditions.append(WhereCondition(name, op, int(value)))
        index += 3
    return conditions
