"""Searching studies: the rows matching some filters, sorted and streamed, and one study.

:func:`search` streams :class:`StudyRow` objects in batches; :func:`count`
counts them; :func:`fetch_study` reads everything stored about one study
(a :class:`StoredStudy`).
The filters become SQL in :mod:`studydb.db.conditions`.

>>> every = Filters(material=("0300.10",), include_non_studies=True)
>>> " ".join(str(count_statement(every)).split())
'SELECT count(*) AS count_1 FROM studies WHERE studies.gbr = :gbr_1'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, Select, collate, func, select

from studydb.db.conditions import build_condition, position_condition
from studydb.db.connect import database_errors
from studydb.db.models import (
    Composer,
    ImportRun,
    Position,
    Study,
    StudyCheck,
    StudyComposer,
    StudyIndex,
)
from studydb.db.persons import Credit, persons_of
from studydb.errors import QueryError
from studydb.facts import Fact, study_facts
from studydb.filters import SORT_KEYS, Filters
from studydb.pgn import tags_of

if TYPE_CHECKING:
    from studydb.db.lines import LineMatch
    from studydb.lines import LineQuery

__all__ = [
    "BATCH_SIZE",
    "Credit",
    "Occurrence",
    "StoredStudy",
    "StudyRow",
    "chunks",
    "composers_of",
    "count",
    "count_statement",
    "fetch_study",
    "matches_of",
    "move_label",
    "moves_to_nodes",
    "same_start_among",
    "search",
    "search_statement",
    "start_fens",
    "stored_id",
]

#: Rows fetched (and composers looked up) per round trip while streaming results.
BATCH_SIZE = 1000


@dataclass(frozen=True)
class StudyRow:
    """One study in a result list (``pgn`` only when asked for)."""

    id: int
    gbr: str
    signature: str
    stipulation: str | None
    composers: tuple[str, ...]
    year: int | None
    source: str | None
    award: str | None
    fen: str
    men: int
    valid: bool | None
    pgn: str | None = None
    #: With ``--position``: where it occurs (see :class:`Occurrence`).
    occurrences: tuple[Occurrence, ...] | None = None
    #: The persons credited, in credit order.
    persons: tuple[Credit, ...] = ()
    #: With ``--line``: every match (:class:`studydb.db.lines.LineMatch`).
    line_matches: tuple[Any, ...] | None = None

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``composers`` as a list; ``pgn``, ``occurrences`` and
        ``line_matches`` when loaded)."""
        data = asdict(self)
        data["composers"] = list(self.composers)
        data["persons"] = [{"id": pid, "name": name} for pid, name in self.persons]
        for loaded in ("pgn", "occurrences", "line_matches"):
            if getattr(self, loaded) is None:
                del data[loaded]
        if self.line_matches is not None:
            data["line_matches"] = [
                {**match, "moves": found.describe()}
                for match, found in zip(data["line_matches"], self.line_matches, strict=True)
            ]
        return data


@dataclass(frozen=True)
class StoredStudy:
    """Everything stored about one study (:func:`fetch_study`): the columns of its row, in
    the table's order, its tags (``headers``, read from its PGN by
    :func:`studydb.pgn.tags_of`) among them where a column held them before revision
    0015, then whether it was salvaged, its composers and the persons credited.

    :meth:`as_dict` is the JSON-ready dict (``show --format json`` and the web API).
    """

    id: int
    gbr: str
    pieces: str
    wq: int
    wr: int
    wb: int
    wn: int
    wp: int
    bq: int
    br: int
    bb: int
    bn: int
    bp: int
    men: int
    signature: str
    fen: str
    turn: str
    zobrist: int
    stipulation: str | None
    result: str | None
    composer_names: str | None
    source: str | None
    year: int | None
    award: str | None
    award_kind: str | None
    award_rank: int | None
    headers: dict[str, str]
    mate_in: int | None
    eg: str | None
    note: str | None
    version: str | None
    number: str | None
    reprint: str | None
    kind: str
    pgn: str
    encoding: str
    content_hash: str
    valid: bool | None
    errors: list[str] | None
    run_id: int | None
    file: str | None
    line: int | None
    offset: int | None
    #: Read from the verified part of a damaged compressed file.
    salvaged: bool
    composers: tuple[str, ...]
    persons: tuple[Credit, ...]

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field, in order (``composers`` as a list, each
        person as ``{"id", "name"}``).

        >>> study = StoredStudy(*range(43), False, ("Réti, Richard",), (Credit(4, "Réti"),))
        >>> data = study.as_dict()
        >>> list(data)[:3], data["composers"], data["persons"]
        (['id', 'gbr', 'pieces'], ['Réti, Richard'], [{'id': 4, 'name': 'Réti'}])
        """
        data = {field.name: getattr(self, field.name) for field in fields(self)}
        data["composers"] = list(self.composers)
        data["persons"] = [{"id": pid, "name": name} for pid, name in self.persons]
        return data

    def facts(self, *, extended: str, form: str | None) -> list[Fact]:
        """Its labelled facts (:func:`studydb.facts.study_facts`), with the extended GBR
        code and the stipulation form (:func:`studydb.render.gbr_notations`)."""
        return study_facts(
            composers=self.composers,
            composer_names=self.composer_names,
            source=self.source,
            number=self.number,
            year=self.year,
            award=self.award,
            version=self.version,
            reprint=self.reprint,
            eg=self.eg,
            note=self.note,
            stipulation=self.stipulation,
            mate_in=self.mate_in,
            white=self.turn != "b",
            gbr=self.gbr,
            extended=extended,
            form=form,
            signature=self.signature,
            fen=self.fen,
        )


@dataclass(frozen=True)
class Occurrence:
    """Where a position occurs in a study: ply, the move it follows, line, node.

    ``move`` is numbered (``2.Kb5``, ``3...Rd4+``; empty at the start);
    ``variation`` is the first move of the variation it is in (empty on the
    main line).
    """

    ply: int
    move: str
    main: bool
    node: int
    variation: str = ""

    def describe(self) -> str:
        """Where, in moves: ``after 2.Kb5``, ``after 3...Rd4+, in the variation 2...Kb7``.

        >>> Occurrence(3, "2.Kb5", True, 3).describe(), Occurrence(0, "", True, 0).describe()
        ('after 2.Kb5', 'the start')
        >>> Occurrence(6, "3...Rd4+", False, 9, "2...Kb7").describe()
        'after 3...Rd4+, in the variation 2...Kb7'
        """
        if self.ply == 0 or not self.move:
            return "the start"
        where = f"after {self.move}"
        if not self.main:
            where += (
                f", in the variation {self.variation}" if self.variation else ", in a variation"
            )
        return where


def move_label(fen: str, ply: int) -> str:
    """The move (``'3.'`` White's, ``'3...'`` Black's) that ends ``ply`` half-moves from ``fen``.

    >>> move_label("8/8/8/8/8/8/8/K1k5 w - - 0 1", 3), move_label("8/8/8/8/8/8/8/K1k5 b - - 0 7", 1)
    ('2.', '7...')
    """
    if ply <= 0:
        return ""
    fields = fen.split()
    black_first = len(fields) > 1 and fields[1] == "b"
    fullmove = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
    index = ply - 1 + black_first
    return f"{fullmove + index // 2}{'.' if index % 2 == 0 else '...'}"


def _patterned(filters: Filters) -> bool:
    return filters.pattern is not None or filters.pieces is not None


def _occurrences(
    conn: Any, filters: Filters, fens: dict[int, str]
) -> dict[int, tuple[Occurrence, ...]]:
    places: dict[int, list[tuple[int, bool, int]]] = {}  # study -> (ply, main, node)
    if _patterned(filters):  # where the pattern fits: from the boards
        from studydb.db.patterns import find

        for study_id, fits in find(conn, filters, list(fens)):
            places[study_id] = [(f.ply, f.main, f.node) for f in fits]
    else:
        rows = conn.execute(
            select(Position.study_id, Position.ply, Position.main, Position.node)
            .where(position_condition(filters), Position.study_id.in_(list(fens)))
            .order_by(Position.study_id, Position.node)
        )
        for study_id, ply, main, node in rows:
            places.setdefault(study_id, []).append((ply, bool(main), node))
    labels = moves_to_nodes(conn, {i: [node for _, _, node in p] for i, p in places.items()})
    found: dict[int, tuple[Occurrence, ...]] = {}
    for study_id, items in places.items():
        occurrences = []
        for ply, main, node in items:
            move, variation = labels[study_id].get(node, ("", ""))
            occurrences.append(Occurrence(ply, move, main, node, variation))
        found[study_id] = tuple(occurrences)
    return found


def moves_to_nodes(
    conn: Any, wanted: Mapping[int, Iterable[int]]
) -> dict[int, dict[int, tuple[str, str]]]:
    """For each study of ``wanted``, the numbered move reaching each of its nodes and the
    first move of that node's variation (:func:`studydb.movetext.move_labels`): one walk a
    study, a query a chunk of ids."""
    from studydb.movetext import move_labels, movetext_of, start_board  # python-chess: here only

    labels: dict[int, dict[int, tuple[str, str]]] = {study_id: {} for study_id in wanted}
    for chunk in chunks(sorted(wanted)):
        rows = conn.execute(select(Study.id, Study.fen, Study.pgn).where(Study.id.in_(chunk)))
        for study_id, fen, pgn in rows:
            try:
                board = start_board(fen, tags_of(pgn))
            except ValueError:
                continue
            labels[study_id] = move_labels(board, movetext_of(pgn), wanted[study_id])
    return labels


def matches_of(
    conn: Connection, filters: Filters, ids: Sequence[int]
) -> dict[int, tuple[LineMatch, ...]]:
    """Each study of ``ids`` that the line finds, with its matches in moves
    (:func:`studydb.db.lines.find`, each node named by its move)."""
    from studydb.db.lines import LineMatch, Placed, find  # manoeuvre search: here only
    from studydb.lines import facts_main, facts_plies

    query: LineQuery = filters.parsed("line")
    found = dict(find(conn, filters, ids))
    nodes = {
        i: sorted({n for match, _ in items for n in match.nodes}) for i, items in found.items()
    }
    labels = moves_to_nodes(conn, nodes)
    described: dict[int, tuple[LineMatch, ...]] = {}
    for study_id, items in found.items():
        facts = items[0][1]
        plies = facts_plies(facts)
        named = labels.get(study_id, {})
        matches = []
        for match, _ in items:
            steps = tuple(Placed(named.get(n, ("", ""))[0], n, plies[n]) for n in match.nodes)
            end = match.nodes[-1]
            main = facts_main(facts, end)
            variation = named.get(end, ("", ""))[1]
            matches.append(LineMatch(steps, query.links, main, variation))
        described[study_id] = tuple(matches)
    return described


_ROW_COLUMNS = (
    Study.id,
    Study.gbr,
    Study.signature,
    Study.stipulation,
    Study.year,
    Study.source,
    Study.award,
    Study.fen,
    Study.men,
    Study.valid,
)


def _order_by(sort: str, dialect: str) -> list[Any]:
    if sort not in SORT_KEYS:
        raise QueryError(
            f"unknown sort key {sort!r}: expected one of {', '.join(SORT_KEYS)}", param="--sort"
        )
    year = Study.year.asc().nulls_last()
    if sort == "gbr":
        return [Study.gbr, year, Study.id]
    if sort == "year":
        return [year, Study.gbr, Study.id]
    if sort == "newest":
        return [Study.year.desc().nulls_last(), Study.gbr, Study.id]
    if sort == "composer":
        key = (
            select(Composer.key)
            .join(StudyComposer, StudyComposer.composer_id == Composer.id)
            .where(StudyComposer.study_id == Study.id)
            .order_by(StudyComposer.position)
            .limit(1)
            .scalar_subquery()
        )
        if dialect == "postgresql":  # byte order, as on SQLite
            return [collate(key, "C").asc().nulls_last(), year, Study.gbr, Study.id]
        return [key.asc().nulls_last(), year, Study.gbr, Study.id]
    return [Study.id]


def composers_of(conn: Any, ids: Sequence[int]) -> dict[int, list[str]]:
    """The composers of each study in ``ids``, in credit order (one query per chunk of ids)."""
    names: dict[int, list[str]] = {}
    for chunk in chunks(ids):
        rows = conn.execute(
            select(StudyComposer.study_id, Composer.name)
            .join(Composer, Composer.id == StudyComposer.composer_id)
            .where(StudyComposer.study_id.in_(chunk))
            .order_by(StudyComposer.study_id, StudyComposer.position)
        )
        for study_id, name in rows:
            names.setdefault(study_id, []).append(name)
    return names


def search_statement(
    filters: Filters | None = None,
    *,
    sort: str = "gbr",
    limit: int | None = None,
    offset: int = 0,
    with_pgn: bool = False,
    dialect: str = "sqlite",
) -> Select[Any]:
    """The ``SELECT`` behind :func:`search` (for ``EXPLAIN`` and benchmarks)."""
    if (limit is not None and limit < 0) or offset < 0:
        raise QueryError("--limit and --offset must not be negative", param="--limit")
    columns = (*_ROW_COLUMNS, Study.pgn) if with_pgn else _ROW_COLUMNS
    return (
        select(*columns)
        .where(build_condition(filters))
        .order_by(*_order_by(sort, dialect))
        .limit(limit)
        .offset(offset or None)
    )


def search(
    engine: Engine,
    filters: Filters | None = None,
    *,
    sort: str = "gbr",
    limit: int | None = None,
    offset: int = 0,
    with_pgn: bool = False,
) -> Iterator[StudyRow]:
    """Stream the studies matching ``filters``, sorted, in batches from the database.

    ``limit=None`` means all of them.

    :raises QueryError: for a malformed filter or sort key.
    """
    statement = search_statement(
        filters,
        sort=sort,
        limit=limit,
        offset=offset,
        with_pgn=with_pgn,
        dialect=engine.dialect.name,
    )
    with database_errors(engine), engine.connect() as conn:
        result = conn.execution_options(yield_per=BATCH_SIZE).execute(statement)
        for rows in result.partitions():
            names = composers_of(conn, [row.id for row in rows])
            credited = persons_of(conn, [row.id for row in rows])
            where = (
                _occurrences(conn, filters, {row.id: row.fen for row in rows})
                if filters is not None and (filters.position is not None or _patterned(filters))
                else None
            )
            matched = None
            if filters is not None and filters.line is not None:
                matched = matches_of(conn, filters, [row.id for row in rows])
            for row in rows:
                yield StudyRow(
                    id=row.id,
                    gbr=row.gbr,
                    signature=row.signature,
                    stipulation=row.stipulation,
                    composers=tuple(names.get(row.id, ())),
                    year=row.year,
                    source=row.source,
                    award=row.award,
                    fen=row.fen,
                    men=row.men,
                    valid=row.valid,
                    pgn=row.pgn if with_pgn else None,
                    occurrences=None if where is None else where.get(row.id, ()),
                    persons=tuple(credited.get(row.id, ())),
                    line_matches=None if matched is None else matched.get(row.id, ()),
                )


def count_statement(filters: Filters | None = None) -> Select[Any]:
    """The ``SELECT count(*)`` behind :func:`count`."""
    return select(func.count()).select_from(Study).where(build_condition(filters))


def count(engine: Engine, filters: Filters | None = None) -> int:
    """Number of studies matching ``filters``."""
    with database_errors(engine), engine.connect() as conn:
        return int(conn.execute(count_statement(filters)).scalar_one())


def unindexed(engine: Engine, filters: Filters | None, *, theme_counts: bool = False) -> int:
    """How many studies a search of the position index could not find: those the other
    filters select that have no index (0 when no filter reads the index).  With
    ``theme_counts`` (the main line's themes are the index's replay's), those
    selected by every other filter, whether or not one reads the index.  A theme of
    the tables (mutual zugzwang) reads no index: ``studydb check`` finds it.

    First whether any study lacks an index at all (two counts), and only then the
    count of the selected ones.
    """
    others = None
    if filters is not None:  # the themes of the tables are check's: no index is read for them
        reading, table = _without_table_themes(filters)
        others = reading.index_free()
        if others is not None and table:
            others = replace(others, themes=table)
    if others is None:
        if not theme_counts:
            return 0
        others = filters
    return not_indexed(engine, others)


def not_indexed(
    engine: Engine, filters: Filters | None = None, *, exclude: int | None = None
) -> int:
    """How many of the studies ``filters`` select (but ``exclude``) have no position index
    (two counts first: a fully indexed database pays no more)."""
    with database_errors(engine), engine.connect() as conn:
        indexed = conn.execute(select(func.count()).select_from(StudyIndex)).scalar_one()
        if indexed >= conn.execute(select(func.count()).select_from(Study)).scalar_one():
            return 0
        statement = count_statement(filters).where(Study.id.not_in(select(StudyIndex.study_id)))
        if exclude is not None:
            statement = statement.where(Study.id != exclude)
        return int(conn.execute(statement).scalar_one())


def unchecked(engine: Engine, filters: Filters | None) -> int:
    """How many studies a search for a theme of the tables (mutual zugzwang) could not
    find: those the other filters select that were never checked with tables (only
    ``studydb check`` looks for them).  0 when no such theme is asked for."""
    if filters is None:
        return 0
    others, table = _without_table_themes(filters)
    if not table:
        return 0
    statement = count_statement(others).where(Study.id.not_in(select(StudyCheck.study_id)))
    with database_errors(engine), engine.connect() as conn:
        return int(conn.execute(statement).scalar_one())


def _without_table_themes(filters: Filters) -> tuple[Filters, tuple[str, ...]]:
    """``filters`` without the themes of the tables (mutual zugzwang: found by ``studydb
    check``, not by the index's replay), and those themes."""
    from studydb.vocabulary import TABLE_THEMES

    table = tuple(name for name in filters.themes if name in TABLE_THEMES)
    rest = tuple(name for name in filters.themes if name not in TABLE_THEMES)
    return replace(filters, themes=rest), table


def not_compared(engine: Engine, *, min_men: int, exclude: int | None = None) -> int:
    """How many stored studies (but ``exclude``) a search for shared positions of
    ``min_men`` men or more passes over: those not in the position index.  A study whose
    start has fewer men has no such position (men are never added): it is not counted."""
    return not_indexed(engine, Filters(where=(f"men>={min_men}",)), exclude=exclude)


def start_fens(engine: Engine, ids: Sequence[int]) -> dict[int, str]:
    """The start position (FEN) of each study in ``ids`` that exists."""
    found: dict[int, str] = {}
    with database_errors(engine), engine.connect() as conn:
        for chunk in chunks(ids):
            rows = conn.execute(select(Study.id, Study.fen).where(Study.id.in_(chunk)))
            found.update((study_id, fen) for study_id, fen in rows)
    return found


def stored_id(engine: Engine, game: Any) -> int | None:
    """The id of the stored copy of this very game (a :class:`studydb.pgn.RawGame`), if any."""
    from studydb.db.classify import content_hash

    with database_errors(engine), engine.connect() as conn:
        return conn.execute(
            select(Study.id).where(Study.content_hash == content_hash(game))
        ).scalar()


def same_start_among(
    engine: Engine, filters: Filters | None, ids: Sequence[int]
) -> dict[int, list[int]]:
    """For each study of ``ids``, the studies ``filters`` select with its start position.

    The study itself is included; ids in ascending order.  Versions of a
    study (the same start, by its Zobrist hash) fold into one row of a result
    page this way.
    """
    if not ids:
        return {}
    groups: dict[int, list[int]] = {}
    with database_errors(engine), engine.connect() as conn:
        starts: dict[int, int] = {}
        for chunk in chunks(ids):
            wanted = select(Study.id, Study.zobrist).where(Study.id.in_(chunk))
            starts.update({study_id: key for study_id, key in conn.execute(wanted)})
        condition = build_condition(filters)
        for chunk in chunks(sorted(set(starts.values()))):
            wanted = select(Study.id, Study.zobrist).where(Study.zobrist.in_(chunk), condition)
            for study_id, key in conn.execute(wanted):
                groups.setdefault(key, []).append(study_id)
    return {i: sorted(groups.get(key, [i])) for i, key in starts.items()}


#: Study ids are 32-bit integers on PostgreSQL.
_MAX_ID = 1 << 31


def is_id_in_range(study_id: int) -> bool:
    """Whether ``study_id`` fits the id column (a larger one is absent on both engines).

    >>> is_id_in_range(1), is_id_in_range(2**31)
    (True, False)
    """
    return -_MAX_ID <= study_id < _MAX_ID


def fetch_study(engine: Engine, study_id: int) -> StoredStudy | None:
    """Everything stored about one study, or None if absent."""
    if not is_id_in_range(study_id):
        return None
    with database_errors(engine), engine.connect() as conn:
        row = conn.execute(select(Study.__table__).where(Study.id == study_id)).mappings().first()
        if row is None:
            return None
        status = conn.execute(select(ImportRun.status).where(ImportRun.id == row["run_id"]))
        credited = persons_of(conn, [study_id]).get(study_id, [])
        return StoredStudy(
            **row,
            headers=tags_of(row["pgn"]),
            salvaged=status.scalar() == "salvaged",
            composers=tuple(composers_of(conn, [study_id]).get(study_id, ())),
            persons=tuple(credited),
        )


def chunks(ids: Sequence[int], size: int = BATCH_SIZE) -> Iterator[list[int]]:
    """``ids`` in lists of at most ``size``: bound parameters per statement stay few.

    >>> list(chunks([1, 2, 3], 2))
    [[1, 2], [3]]
    """
    for start in range(0, len(ids), size):
        yield list(ids[start : start + size])
