"""The ``--where`` language: comparisons on the material counts of a study.

``'wR>=1 bN=1 men<=5'`` is parsed into :class:`WhereCondition` objects, and
turned into SQL through the narrowest index that serves them: the GBR codes
the comparisons allow where that list is short, else the piece codes, else
the count columns.  Every name the language knows stands once, in
:data:`_NAMES`.

>>> [(c.name, c.op, c.value) for c in parse_where("wR>=1 men<=5")]
[('wr', '>=', 1), ('men', '<=', 5)]
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, false, or_, true

from studydb.db.models import Study
from studydb.errors import QueryError

__all__ = [
    "PREFILTER_LIMIT",
    "WHERE_NAMES",
    "WhereCondition",
    "parse_where",
    "where_condition",
    "where_gbr_codes",
    "where_piece_codes",
]

_PIECE_COLUMNS = ("q", "r", "b", "n")
_WHITE = tuple("w" + c for c in "qrbnp")
_BLACK = tuple("b" + c for c in "qrbnp")
_PIECES = tuple(side + c for side in "wb" for c in _PIECE_COLUMNS)


@dataclass(frozen=True)
class _Name:
    """A ``--where`` name: what it counts, the count columns it adds up and a constant."""

    description: str
    columns: tuple[str, ...]
    constant: int = 0
    #: A stored column holding exactly this sum (indexed), if any.
    column: str | None = None

    @property
    def terms(self) -> tuple[tuple[str, ...], int]:
        return self.columns, self.constant

    def expression(self) -> ColumnElement[int]:
        """The SQL expression of the count."""
        if self.column is not None:
            return getattr(Study, self.column)
        expression: ColumnElement[int] = getattr(Study, self.columns[0])
        for name in self.columns[1:]:
            expression = expression + getattr(Study, name)
        return expression + self.constant if self.constant else expression


_SIDES = {"w": "white", "b": "black"}
_TYPES = {"q": "queens", "r": "rooks", "b": "bishops", "n": "knights", "p": "pawns"}

#: Every name a ``--where`` expression may use, keyed in lower case, in help order.
_NAMES: dict[str, _Name] = {
    **{
        side + kind: _Name(f"{_SIDES[side]} {_TYPES[kind]}", (side + kind,), column=side + kind)
        for side in "wb"
        for kind in "qrbnp"
    },
    "white": _Name("white men including the king", _WHITE, 1),
    "black": _Name("black men including the king", _BLACK, 1),
    "men": _Name("all men including both kings", _WHITE + _BLACK, 2, column="men"),
    "pawns": _Name("pawns of both sides", ("wp", "bp")),
    "pieces": _Name("queens, rooks, bishops and knights of both sides", _PIECES),
}

#: Names a ``--where`` expression may use (any case), as written in help, with what each counts.
WHERE_NAMES: dict[str, str] = {
    (name[0] + name[1].upper() if len(name) == 2 else name): entry.description
    for name, entry in _NAMES.items()
}

_OPERATORS = {
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


#: Beyond any count (or sum of counts) a position can have.
_CLAMP = 1000


@dataclass(frozen=True)
class WhereCondition:
    """One parsed ``name op number`` comparison of a ``--where`` expression."""

    name: str
    op: str
    value: int

    def clause(self, *, indexed: bool = True) -> ColumnElement[bool]:
        """The SQL comparison; ``indexed=False`` keeps the planner off the count indexes."""
        expression = _NAMES[self.name].expression()
        if not indexed:
            expression = expression + 0
        # Counts are small: a number beyond them compares the same once clamped,
        # and stays within PostgreSQL's smallint.
        value = min(max(self.value, -_CLAMP), _CLAMP)
        return getattr(expression, _OPERATORS[self.op])(value)

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


#: Most men of one type a side can have: the originals and eight promotions.
_MOST = 10
#: Longest list of codes sent as an indexed prefilter; wider conditions use the
#: count columns' indexes instead.
PREFILTER_LIMIT = 400
_POSITIONS = (*_PIECE_COLUMNS, "wp", "bp")  # digits of 'dddd.dd', in order


def _position_ranges(
    condition: WhereCondition, *, pawns: bool
) -> tuple[int, list[list[tuple[int, int]]]]:
    """Condition's constant and, per code position and digit, the range its sum gains.

    Without ``pawns`` only the four piece positions are listed and the pawns'
    possible range (0-8 each) goes into the constant's high end.
    """
    variables, constant = _NAMES[condition.name].terms
    per_position = []
    for piece in _PIECE_COLUMNS:
        white, black = "w" + piece in variables, "b" + piece in variables
        per_digit = []
        for digit in range(10):
            if digit < 9:
                b, w = divmod(digit, 3)
                value = w * white + b * black
                per_digit.append((value, value))
            else:  # three or more on at least one side, split unknown
                per_digit.append((3 if white and black else 0, _MOST * (white + black)))
        per_position.append(per_digit)
    if pawns:
        for column in ("wp", "bp"):
            weight = column in variables
            per_position.append([(v * weight, v * weight) for v in range(9)])
    return constant, per_position


def _feasible_codes(conditions: Sequence[WhereCondition], *, pawns: bool) -> list[str] | None:
    """Codes (``'dddddd'`` with ``pawns``, else ``'dddd'``) some matching study can have.

    A sound superset: a code is kept when every condition's range of values
    over the code meets the condition.  None when it would exceed
    :data:`PREFILTER_LIMIT` codes.
    """
    tables = [_position_ranges(c, pawns=pawns) for c in conditions]
    size = 6 if pawns else 4
    start = []
    for condition, (constant, _) in zip(conditions, tables, strict=True):
        spare = 0 if pawns else 8 * sum(v[1] == "p" for v in _NAMES[condition.name].terms[0])
        start.append((constant, constant + spare))
    relevant = [
        t for t in range(size) if any(len({r for r in table[1][t]}) > 1 for table in tables)
    ]
    free = 1
    for t in range(size):
        if t not in relevant:
            free *= 10 if t < 4 else 9
    if not relevant or free > PREFILTER_LIMIT:
        return None
    # Most each condition's sum can still gain from the positions not yet placed.
    rest = [[0] * (len(relevant) + 1) for _ in conditions]
    for k, (_, ranges) in enumerate(tables):
        for i in range(len(relevant) - 1, -1, -1):
            rest[k][i] = rest[k][i + 1] + max(h for _, h in ranges[relevant[i]])
    # Digits of the relevant positions so far, grouped by the sums they give.
    states: dict[tuple[tuple[int, int], ...], list[str]] = {tuple(start): [""]}
    for i, t in enumerate(relevant):
        grown: dict[tuple[tuple[int, int], ...], list[str]] = {}
        for sums, prefixes in states.items():
            for digit, _ in enumerate(tables[0][1][t]):
                new = tuple(
                    (low + tables[k][1][t][digit][0], high + tables[k][1][t][digit][1])
                    for k, (low, high) in enumerate(sums)
                )
                if all(
                    c.allows(new[k][0], new[k][1] + rest[k][i + 1])
                    for k, c in enumerate(conditions)
                ):
                    grown.setdefault(new, []).extend(p + str(digit) for p in prefixes)
        states = grown
        if sum(map(len, states.values())) * free > PREFILTER_LIMIT:
            return None
    codes = []
    for prefixes in states.values():
        for prefix in prefixes:
            digits = dict(zip(relevant, prefix, strict=True))
            choices = [digits.get(t, "0123456789" if t < 4 else "012345678") for t in range(size)]
            codes.extend(map("".join, itertools.product(*choices)))
    codes.sort()
    return codes


def where_piece_codes(conditions: Sequence[WhereCondition]) -> list[str] | None:
    """The piece codes (``studies.pieces``) a study matching ``conditions`` can have.

    A sound superset, or None when it would be too long to be worth sending.

    >>> where_piece_codes(parse_where("wR>=1 bN=1 men<=4"))
    ['0103']
    """
    return _feasible_codes(conditions, pawns=False) if conditions else None


def where_gbr_codes(conditions: Sequence[WhereCondition]) -> list[str] | None:
    """The GBR codes a study matching ``conditions`` can have (a sound superset).

    A code without a 9 fixes every count, so its studies match exactly;
    studies with a 9 digit still need the comparisons on their counts.

    >>> where_gbr_codes(parse_where("wR=1 bN=1 men<=4"))
    ['0103.00']
    """
    codes = _feasible_codes(conditions, pawns=True) if conditions else None
    return None if codes is None else [f"{c[:4]}.{c[4:]}" for c in codes]


def where_condition(conditions: Sequence[WhereCondition]) -> ColumnElement[bool]:
    """SQL for ``--where`` comparisons, through the narrowest index that serves them.

    One comparison of one column uses that column's index.  Otherwise the
    GBR codes the comparisons allow go to the ``gbr`` index, where a code
    without a 9 decides by itself; failing that, the piece codes go to the
    ``pieces`` index; failing that, the comparisons go to the count indexes.
    """
    single = len(conditions) == 1 and (
        conditions[0].name == "men" or len(_NAMES[conditions[0].name].columns) == 1
    )
    if not single:
        codes = where_gbr_codes(conditions)
        if codes is not None:
            exact = [c for c in codes if "9" not in c[:4]]
            nine = [c for c in codes if "9" in c[:4]]
            checked = and_(Study.gbr.in_(nine), *(c.clause(indexed=False) for c in conditions))
            if exact and nine:
                return or_(Study.gbr.in_(exact), checked)
            return Study.gbr.in_(exact) if exact else checked if nine else false()
        codes = where_piece_codes(conditions)
        if codes is not None:
            if not codes:
                return false()
            return and_(Study.pieces.in_(codes), *(c.clause(indexed=False) for c in conditions))
    return and_(true(), *(c.clause() for c in conditions))


def _where_error(expression: str, position: int, token: str, problem: str) -> QueryError:
    caret = " " * position + "^" * max(1, len(token))
    return QueryError(
        f"bad --where expression at {token!r}: {problem}\n  {expression}\n  {caret}",
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
        if kind != "word" or token.lower() not in _NAMES:
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
        if op not in _OPERATORS:
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
        conditions.append(WhereCondition(name, op, int(value)))
        index += 3
    return conditions
