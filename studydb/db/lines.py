"""Manoeuvre search in the database: the candidates' ply facts scanned for a ``--line``.

The SQL prefilter takes the line's rarest key groups: each step's prefilter keys
(:meth:`studydb.lines.MoveStep.key_groups`: a man to one of some squares, a
capture, a promotion, a check, mate or stalemate) are counted in ``study_moves``
up to :data:`ENOUGH` rows, and the candidates are the studies holding a key of
each of the rarest groups (:func:`rarest_step`), with the men the line's
position steps need.  One scan of their ply facts (and boards, for position
steps) then tells which hold the line (:meth:`studydb.lines.LineQuery.holds`);
:func:`resolve` returns the filters with the ids found, which every query then
uses as an ordinary condition, as pattern search does; the matches of the
studies shown are found again with their nodes (:func:`find`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, func, null, or_, select, true

from studydb.db.conditions import build_condition, line_candidates, line_queries, line_seen
from studydb.db.connect import database_errors
from studydb.db.models import Study, StudyIndex, StudyMove
from studydb.db.patterns import refuse_unindexed
from studydb.filters import Filters
from studydb.lines import LineQuery, Match, decode_facts, decode_facts_bytes
from studydb.patterns import BoardLines, decode_boards

__all__ = [
    "ENOUGH",
    "LineMatch",
    "Placed",
    "find",
    "holding",
    "rarest_step",
    "resolve",
]

#: Ply facts read per round trip while scanning.
SCAN_BATCH = 500
#: Rows of ``study_moves`` counted at most for one step's keys: more means "not rare".
ENOUGH = 5000
#: The key groups the candidates must each hold a key of, at most (the rarest first).
MOST_GROUPS = 4
#: A group of more keys than this (a man to any square) is taken only when it is the rarest:
#: its rows are many and say little.
FEW_KEYS = 16


@dataclass(frozen=True)
class Placed:
    """Where one step of a match stands: the move reaching it (numbered), its node, its ply."""

    move: str
    node: int
    ply: int

    def describe(self) -> str:
        return self.move or "the start"


@dataclass(frozen=True)
class LineMatch:
    """One match of a line: each step's place, the links, and the line it ends in.

    ``variation`` is the first move of the variation the last step is in (empty on the
    main line).
    """

    steps: tuple[Placed, ...]
    links: tuple[str, ...]
    main: bool
    variation: str = ""

    def describe(self) -> str:
        """The steps in moves: ``4.b8=N … 7.Nc6#`` (``then``), ``6.c8=R 6...Ra4`` (``next``).

        >>> steps = (Placed("4.b8=N", 7, 7), Placed("7.Nc6#", 13, 13))
        >>> LineMatch(steps, ("then",), True).describe()
        '4.b8=N … 7.Nc6#'
        >>> LineMatch((Placed("2.Kc5", 4, 3),), (), False, "2.Kc5").describe()
        '2.Kc5, in the variation 2.Kc5'
        """
        text = self.steps[0].describe()
        for link, step in zip(self.links, self.steps[1:], strict=True):
            text += (" … " if link == "then" else " ") + step.describe()
        if not self.main:
            text += f", in the variation {self.variation}" if self.variation else ", in a variation"
        return text


def resolve(engine: Engine, filters: Filters | None) -> Filters | None:
    """``filters`` with the ids of the studies their line finds (as they are without one).

    :raises DatabaseError: when selected studies were indexed before manoeuvre search
        (their ply facts are missing: ``studydb index`` adds them).
    """
    if filters is None or filters.line_ids is not None or filters.line is None:
        return filters
    with database_errors(engine), engine.connect() as conn:
        missing: ColumnElement[bool] = StudyIndex.moves.is_(None)
        before, lacking = "manoeuvre search", "ply facts"
        queries = line_queries(filters)
        if queries[0].needs_boards():  # and pattern search's boards, bitboards
            missing = or_(missing, StudyIndex.boards.is_(None), StudyIndex.seen_wp.is_(None))
            before += " or pattern search"
            lacking += " or boards"
        others = dataclasses.replace(filters, line=None)
        refuse_unindexed(conn, others, missing, before=before, lacking=lacking)
        found: set[int] = set()
        for query in queries:  # with --either-colour, the line reversed too
            found.update(holding(conn, filters, query))
        ids = tuple(sorted(found))
    return dataclasses.replace(filters, line_ids=ids)


def holding(conn: Connection, filters: Filters, query: LineQuery) -> Iterator[int]:
    """The candidates (:func:`candidates`) whose lines hold ``query`` (``filters``' line or
    its colour-reversed one), in id order (the ids, not the matches:
    :meth:`studydb.lines.LineQuery.holds`), read in one statement."""
    columns: list[Any] = [StudyIndex.study_id, StudyIndex.moves]
    if query.needs_boards():
        columns.append(StudyIndex.boards)
    others = dataclasses.replace(filters, line=None)
    groups = rarest_step(conn, filters, query)
    # The bitboards are tested on the rows read, not in a subquery (a scan of study_index).
    condition = build_condition(others) & line_candidates(filters, query, groups, seen=False)
    statement = (
        select(*columns)
        .where(StudyIndex.study_id.in_(select(Study.id).where(condition)), *line_seen(query))
        .where(*(column.is_not(None) for column in columns[1:]))
        .order_by(StudyIndex.study_id)
    )
    main_line = filters.main_line
    for row in conn.execution_options(yield_per=SCAN_BATCH).execute(statement):
        boards = BoardLines(row.boards) if len(row) > 2 else None
        if query.holds(decode_facts_bytes(row.moves), boards, main_line=main_line):
            yield row.study_id


def rarest_step(
    conn: Connection, filters: Filters, query: LineQuery | None = None
) -> list[list[int]]:
    """The key groups the candidates must hold a key of each of: the one with the fewest
    ``study_moves`` rows (counted up to :data:`ENOUGH`), then up to
    :data:`MOST_GROUPS` in all, rarest first, of any step, that have at most
    :data:`FEW_KEYS` keys; none when no step has keys (positions only).  ``query``:
    ``filters``' line when not given.
    """
    if query is None:
        query = filters.parsed("line")
    counted: dict[tuple[int, ...], int] = {}
    for groups in query.key_groups():
        for keys in groups:
            group = tuple(sorted(set(keys)))
            if group not in counted:
                counted[group] = _rows(conn, group, main_line=filters.main_line)
    ranked = sorted(counted, key=lambda group: (counted[group], len(group), group))
    chosen = ranked[:1] + [group for group in ranked[1:] if len(group) <= FEW_KEYS]
    return [list(group) for group in chosen[:MOST_GROUPS]]


def _rows(conn: Connection, keys: Sequence[int], *, main_line: bool) -> int:
    rows = select(StudyMove.study_id).where(StudyMove.key.in_(sorted(set(keys))))
    if main_line:
        rows = rows.where(StudyMove.main.is_(true()))
    counted = select(func.count()).select_from(rows.limit(ENOUGH).subquery())
    return int(conn.execute(counted).scalar_one())


def candidates(conn: Connection, filters: Filters) -> list[int]:
    """The ids of the studies whose facts could hold the line (the SQL prefilter), in order."""
    condition = _candidate_condition(conn, filters)
    return list(conn.execute(select(Study.id).where(condition).order_by(Study.id)).scalars())


def _candidate_condition(conn: Connection, filters: Filters) -> ColumnElement[bool]:
    others = dataclasses.replace(filters, line=None)
    held = [
        line_candidates(filters, query, rarest_step(conn, filters, query))
        for query in line_queries(filters)
    ]
    return build_condition(others) & or_(*held)


def find(
    conn: Connection, filters: Filters, ids: Iterable[int]
) -> Iterator[tuple[int, list[tuple[Match, str]]]]:
    """The studies of ``ids`` whose lines hold ``filters``' line: each match with the
    study's facts (for :func:`matches_of`)."""
    if filters.parsed("line") is None:
        return
    queries = line_queries(filters)
    boards = queries[0].needs_boards()
    stored_boards = StudyIndex.boards if boards else null().label("boards")  # not read: big
    wanted = list(ids)
    for start in range(0, len(wanted), SCAN_BATCH):
        chunk = wanted[start : start + SCAN_BATCH]
        rows = conn.execute(
            select(StudyIndex.study_id, StudyIndex.moves, stored_boards)
            .where(StudyIndex.study_id.in_(chunk), StudyIndex.moves.is_not(None))
            .order_by(StudyIndex.study_id)
        )
        for row in rows:
            study_id: int = row.study_id
            facts = decode_facts(row.moves)
            stored = row.boards if boards else None
            if boards and stored is None:
                continue  # indexed before pattern search: refused by resolve
            lines = None if stored is None else decode_boards(stored)
            found = [
                match
                for query in queries  # with --either-colour, the line reversed too
                for match in query.find(facts, lines, main_line=filters.main_line)
            ]
            if len(queries) > 1:
                found = sorted(set(found), key=lambda match: match.nodes)
            if found:
                yield study_id, [(match, facts) for match in found]
