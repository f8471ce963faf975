"""The ``--where`` language in SQL: parsed comparisons through the narrowest index.

:mod:`studydb.where` parses ``'wR>=1 bN=1 men<=5'`` into
:class:`~studydb.where.WhereCondition` objects; here they become SQL
through the narrowest index that serves them: the GBR codes the comparisons
allow where that list is short, else the piece codes, else the count columns.

>>> from studydb.where import parse_where
>>> where_piece_codes(parse_where("wR>=1 bN=1 men<=4"))
['0103']
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from sqlalchemy import ColumnElement, and_, false, or_, true

from studydb.db.models import Study
from studydb.where import NAMES, OPERATORS, WhereCondition, WhereName

__all__ = [
    "PREFILTER_LIMIT",
    "where_clause",
    "where_condition",
    "where_gbr_codes",
    "where_piece_codes",
]

_PIECE_COLUMNS = ("q", "r", "b", "n")
#: Beyond any count (or sum of counts) a position can have.
_CLAMP = 1000


def _expression(name: WhereName) -> ColumnElement[int]:
    """The SQL expression of a count."""
    if name.column is not None:
        single: ColumnElement[int] = getattr(Study, name.column)
        return single
    expression: ColumnElement[int] = getattr(Study, name.columns[0])
    for column in name.columns[1:]:
        expression = expression + getattr(Study, column)
    return expression + name.constant if name.constant else expression


def where_clause(condition: WhereCondition, *, indexed: bool = True) -> ColumnElement[bool]:
    """The SQL comparison; ``indexed=False`` keeps the planner off the count indexes."""
    expression = _expression(NAMES[condition.name])
    if not indexed:
        expression = expression + 0
    # Counts are small: a number beyond them compares the same once clamped,
    # and stays within PostgreSQL's smallint.
    value = min(max(condition.value, -_CLAMP), _CLAMP)
    compared: ColumnElement[bool] = getattr(expression, OPERATORS[condition.op])(value)
    return compared


#: Most men of one type a side can have: the originals and eight promotions.
_MOST = 10
#: Longest list of codes sent as an indexed prefilter; wider conditions use the
#: count columns' indexes instead.
PREFILTER_LIMIT = 400


def _position_ranges(
    condition: WhereCondition, *, pawns: bool
) -> tuple[int, list[list[tuple[int, int]]]]:
    """Condition's constant and, per code position and digit, the range its sum gains.

    Without ``pawns`` only the four piece positions are listed and the pawns'
    possible range (0-8 each) goes into the constant's high end.
    """
    variables, constant = NAMES[condition.name].terms
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
        spare = 0 if pawns else 8 * sum(v[1] == "p" for v in NAMES[condition.name].terms[0])
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
    codes: list[str] = []
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

    >>> from studydb.where import parse_where
    >>> where_piece_codes(parse_where("wR>=1 bN=1 men<=4"))
    ['0103']
    """
    return _feasible_codes(conditions, pawns=False) if conditions else None


def where_gbr_codes(conditions: Sequence[WhereCondition]) -> list[str] | None:
    """The GBR codes a study matching ``conditions`` can have (a sound superset).

    A code without a 9 fixes every count, so its studies match exactly;
    studies with a 9 digit still need the comparisons on their counts.

    >>> from studydb.where import parse_where
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
        conditions[0].name == "men" or len(NAMES[conditions[0].name].columns) == 1
    )
    if not single:
        codes = where_gbr_codes(conditions)
        if codes is not None:
            exact = [c for c in codes if "9" not in c[:4]]
            nine = [c for c in codes if "9" in c[:4]]
            checked = and_(
                Study.gbr.in_(nine), *(where_clause(c, indexed=False) for c in conditions)
            )
            if exact and nine:
                return or_(Study.gbr.in_(exact), checked)
            return Study.gbr.in_(exact) if exact else checked if nine else false()
        codes = where_piece_codes(conditions)
        if codes is not None:
            if not codes:
                return false()
            return and_(
                Study.pieces.in_(codes), *(where_clause(c, indexed=False) for c in conditions)
            )
    return and_(true(), *(where_clause(c) for c in conditions))
