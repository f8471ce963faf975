"""Pattern search in the database: the boards of the candidate studies, scanned.

The SQL condition of ``--pattern``/``--pieces`` (:func:`studydb.db.conditions.pattern_condition`)
selects the candidates: studies with boards in the index and the men the
pattern needs.  :func:`resolve` scans their boards (:mod:`studydb.patterns`)
and returns the filters with the ids found, which every query then uses as
an ordinary condition: search, count, stats, themes, index and check alike.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, func, or_, select

from studydb.db.conditions import build_condition
from studydb.db.engine import database_errors
from studydb.db.models import Study, StudyIndex
from studydb.errors import DatabaseError
from studydb.filters import Filters
from studydb.patterns import Found, Pattern, decode_boards

__all__ = ["decided_in_sql", "find", "fitting", "pattern_of", "refuse_unindexed", "resolve"]

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
    return Pattern(f"{ranks.text} {pieces.text}", ranks.ranks, pieces.designators, ranks.implied)


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
            or_(StudyIndex.boards.is_(None), StudyIndex.seen_wp.is_(None)),
            before="pattern search (or before its bitboards, revision 0012)",
            lacking="boards or bitboards",
        )
        found = candidates(conn, filters)
        if not decided_in_sql(filters):
            found = list(fitting(conn, filters, found))
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


def fitting(conn: Connection, filters: Filters, ids: Iterable[int]) -> Iterator[int]:
    """The studies of ``ids`` whose boards fit ``filters``' pattern (each scan stops at the
    first position that fits: the ids, not the positions, as :func:`resolve` needs)."""
    pattern = pattern_of(filters)
    if pattern is None:
        return
    options = _options(filters)
    for study_id, lines in _boards(conn, ids):
        if pattern.fits(lines, **options):
            yield study_id


def _options(filters: Filters) -> dict[str, Any]:
    return {
        "main_line": filters.main_line,
        "side": filters.parsed("side_to_move"),
        "either_colour": filters.either_colour,
        "similar": filters.similar,
    }


def _boards(conn: Connection, ids: Iterable[int]) -> Iterator[tuple[int, str]]:
    """The board lines of the studies of ``ids`` that have them, in id order."""
    wanted = list(ids)
    for start in range(0, len(wanted), SCAN_BATCH):
        chunk = wanted[start : start + SCAN_BATCH]
        rows = conn.execute(
            select(StudyIndex.study_id, StudyIndex.boards)
            .where(StudyIndex.study_id.in_(chunk), StudyIndex.boards.is_not(None))
            .order_by(StudyIndex.study_id)
        )
        for study_id, boards in rows:
            if boards is not None:
                yield study_id, decode_boards(boards)


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
    """
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
