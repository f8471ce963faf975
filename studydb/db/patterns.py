"""Pattern search in the database: the boards of the candidate studies, scanned.

The SQL condition of ``--pattern``/``--pieces`` (:func:`studydb.db.conditions.pattern_condition`)
selects the candidates: studies with boards in the index and the men the
pattern needs.  :func:`resolve` reads their occupancy blocks (which squares
hold a man, position by position: :class:`studydb.patterns.Occupancy`), then
scans the boards of those left (:mod:`studydb.patterns`) unless the occupancy
decided it, and returns the filters with the ids found, which every query
then uses as an ordinary condition: search, count, stats, themes, index and
check alike.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, func, or_, select

from studydb.db.conditions import build_condition
from studydb.db.connect import database_errors
from studydb.db.models import Study, StudyIndex
from studydb.errors import DatabaseError
from studydb.filters import Filters
from studydb.patterns import Found, Occupancy, Pattern, decode_boards, decode_occupancy

__all__ = [
    "decided_in_sql",
    "find",
    "fitting",
    "occupancies",
    "pattern_of",
    "refuse_unindexed",
    "resolve",
]

#: Boards read per round trip while scanning.
SCAN_BATCH = 500


def pattern_of(filters: Filters) -> Pattern | None:
    """The one pattern ``filters`` ask for: ``pattern`` and ``pieces`` together (both hold).

    >>> pattern_of(Filters(pattern="*/*/*/*/*/*/*/K*", pieces="r.")).designators[0].contents
    frozenset({'r'})
    """
    ranks: Pattern | None = filters.parsed("pattern")
    pieces: Pattern | None = filters.parsed("pieces")
    if ranks is None:
        return pieces
    if pieces is None:
        return ranks
    text = f"{ranks.text} {pieces.text}"
    return Pattern(text, ranks.ranks, pieces.designators, ranks.implied, ranks.shapes)


def resolve(engine: Engine, filters: Filters | None) -> Filters | None:
    """``filters`` with the ids of the studies their pattern finds (as they are without one).

    :raises DatabaseError: when selected studies were indexed before pattern search
        (their boards are missing: ``studydb index`` adds them).
    """
    if filters is None or filters.pattern_ids is not None or pattern_of(filters) is None:
        return filters
    with database_errors(engine), engine.connect() as conn:
        refuse_unindexed(
            conn,
            dataclasses.replace(filters, pattern=None, pieces=None),
            or_(
                StudyIndex.boards.is_(None),
                StudyIndex.seen_wp.is_(None),
                StudyIndex.occupancy.is_(None),
            ),
            before="pattern search (or before its prefilters, revisions 0012 and 0013)",
            lacking="boards, bitboards or occupancy",
        )
        if decided_in_sql(filters):
            found = candidates(conn, filters)
        else:
            found = list(fitting(conn, filters))
    return dataclasses.replace(filters, pattern_ids=tuple(found))


def decided_in_sql(filters: Filters) -> bool:
    """Whether the candidates are exactly the studies found, with no board to scan: one
    designator that needs a man on some squares (``seen_*`` say whether one stood
    there), in any line, with either side to move, as written or colour-inverted.

    >>> decided_in_sql(Filters(pieces="R[a-h]7")), decided_in_sql(Filters(pieces="R[a-h]7 K."))
    (True, False)
    >>> decided_in_sql(Filters(pieces="R[a-h]7", main_line=True))
    False
    """
    pattern = pattern_of(filters)
    return (
        pattern is not None
        and pattern.decided_by_seen()
        and not (filters.main_line or filters.similar or filters.parsed("side_to_move"))
    )


def candidates(conn: Connection, filters: Filters) -> list[int]:
    """The ids of the studies whose boards could fit (the SQL prefilter), in id order."""
    statement = select(Study.id).where(build_condition(filters)).order_by(Study.id)
    return list(conn.execute(statement).scalars())


def find(
    conn: Connection, filters: Filters, ids: Iterable[int]
) -> Iterator[tuple[int, list[Found]]]:
    """The studies of ``ids`` whose boards fit ``filters``' pattern, with the positions found."""
    pattern = pattern_of(filters)
    if pattern is None:
        return
    for study_id, lines in _boards(conn, ids):
        found = pattern.find(lines, **_options(filters))
        if found:
            yield study_id, found


def fitting(conn: Connection, filters: Filters) -> Iterator[int]:
    """The candidates (:func:`candidates`) that have a position that fits ``filters``'
    pattern, in id order (the ids, not the positions, as :func:`resolve` needs).

    One statement reads them: a study whose occupied squares never fit
    (:func:`occupancies`) is passed over; when they decide the pattern, no board
    is read; else its boards are scanned up to the first position that fits.
    """
    pattern = pattern_of(filters)
    if pattern is None:
        return
    options = _options(filters)
    tests = occupancies(filters)
    exact = bool(tests) and all(test.exact for test in tests)
    columns: list[Any] = [StudyIndex.study_id]
    columns += [StudyIndex.occupancy] if tests else []
    columns += [] if exact else [StudyIndex.boards]
    statement = (
        select(*columns)
        .where(StudyIndex.study_id.in_(select(Study.id).where(build_condition(filters))))
        .order_by(StudyIndex.study_id)
    )
    for row in conn.execution_options(yield_per=SCAN_BATCH).execute(statement):
        if tests:
            planes = decode_occupancy(row.occupancy)
            if not any(test.fits(planes) for test in tests):
                continue
        if exact or pattern.fits(decode_boards(row.boards), **options):
            yield row.study_id


def occupancies(filters: Filters) -> list[Occupancy]:
    """What the occupied squares of a position that fits are, as written and (with
    ``either_colour``) colour-inverted, on the lines and with the side to move asked
    for; none with ``similar`` (its images move the squares) or a pattern that says
    nothing of them.

    >>> [test.exact for test in occupancies(Filters(pieces="_[a-h]8{8}", either_colour=True))]
    [True, True]
    >>> occupancies(Filters(pieces="Q."))
    []
    """
    pattern = pattern_of(filters)
    if pattern is None or filters.similar:
        return []
    colourings = pattern.colourings(
        filters.parsed("side_to_move"), either_colour=filters.either_colour
    )
    tests = [
        p.occupancy().narrowed(main_line=filters.main_line, side=side) for p, side in colourings
    ]
    return tests if any(test.tables or test.exact for test in tests) else []


def _options(filters: Filters) -> dict[str, Any]:
    return {
        "main_line": filters.main_line,
        "side": filters.parsed("side_to_move"),
        "either_colour": filters.either_colour,
        "similar": filters.similar,
    }


def _boards(conn: Connection, ids: Iterable[int]) -> Iterator[tuple[int, str]]:
    """The board lines of the studies of ``ids`` that have them, in id order."""
    for study_id, boards in _rows(conn, ids, [StudyIndex.study_id, StudyIndex.boards]):
        yield study_id, decode_boards(boards)


def _rows(conn: Connection, ids: Iterable[int], columns: list[Any]) -> Iterator[Any]:
    """``columns`` of the ``study_index`` rows of ``ids`` that have all of them, in id order."""
    wanted = list(ids)
    for start in range(0, len(wanted), SCAN_BATCH):
        chunk = wanted[start : start + SCAN_BATCH]
        rows = conn.execute(
            select(*columns)
            .where(StudyIndex.study_id.in_(chunk), *(c.is_not(None) for c in columns[1:]))
            .order_by(StudyIndex.study_id)
        )
        yield from rows


def refuse_unindexed(
    conn: Connection,
    others: Filters,
    missing: ColumnElement[bool],
    *,
    before: str,
    lacking: str,
) -> None:
    """Fail when studies that ``others`` select have an index without what a search reads.

    ``missing``: the ``study_index`` condition of such a study; ``before`` and
    ``lacking`` name, in the message, what it was indexed before and what it lacks.

    :raises DatabaseError: saying how many, and that ``studydb index`` adds it.

    First whether any study lacks it at all: a scan of ``study_index`` (20 ms on
    100,000 studies), where the count of the selected ones looks each selected study
    up (0.14 s), and is made only then.
    """
    if conn.execute(select(StudyIndex.study_id).where(missing).limit(1)).first() is None:
        return
    count = conn.execute(
        select(func.count())
        .select_from(StudyIndex)
        .where(missing, StudyIndex.study_id.in_(select(Study.id).where(build_condition(others))))
    ).scalar_one()
    if count:
        raise DatabaseError(
            f"{count:,} of the selected studies were indexed before {before} and have no "
            f"{lacking} to search: run `studydb index` to add them"
        )
