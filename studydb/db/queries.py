"""Finding studies: material filters, the ``--where`` language, search and statistics.

Every filter becomes an SQL condition on the ``studies`` table that the
database answers through its indexes (the GBR code, the piece digits, the
count columns, year, stipulation, composers' normalised keys); nothing loads
all studies into Python, and the same statements run on SQLite and
PostgreSQL.  User text reaches SQL only as bound parameters, and ``LIKE``
patterns escape ``%`` and ``_``.

>>> filters = Filters(material=("0300.10",), years=("1890..1899",), include_non_studies=True)
>>> print(build_condition(filters))
studies.gbr = :gbr_1 AND studies.year >= :year_1 AND studies.year <= :year_2
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

import chess
from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    Select,
    and_,
    collate,
    false,
    func,
    literal,
    or_,
    select,
    true,
)

from studydb import gbr
from studydb.db.engine import database_errors
from studydb.db.models import (
    Composer,
    Material,
    Person,
    Position,
    Reject,
    Study,
    StudyCheck,
    StudyComposer,
    StudyMaterial,
)
from studydb.db.persons import composer_condition, persons_of
from studydb.db.where import parse_where, where_condition
from studydb.errors import QueryError
from studydb.names import fold
from studydb.positions import Keys, colour_reversed, keys

__all__ = [
    "SORT_KEYS",
    "Filters",
    "Occurrence",
    "Stats",
    "StudyRow",
    "TopComposer",
    "build_condition",
    "chunks",
    "composers_of",
    "count",
    "count_statement",
    "fetch_study",
    "material_condition",
    "parse_years",
    "reject_texts",
    "rejects",
    "search",
    "search_statement",
    "stats",
]

#: ``--sort`` keys; each sorts further by the next natural keys and the id.
SORT_KEYS = ("gbr", "year", "composer", "id")
#: Rows fetched (and composers looked up) per round trip while streaming results.
BATCH_SIZE = 1000
_LIKE_ESCAPE = "\\"
_MATE_FILTER = re.compile(r"(?:#|mate(?:in)?)(\d{0,4})")
_EG_FILTER = re.compile(r"(?:EG\s*#?\s*)?#?(\d{1,9})", re.IGNORECASE)

_PIECE_COLUMNS = ("q", "r", "b", "n")


@dataclass(frozen=True)
class Filters:
    """What to look for; all given filters must hold, repeats of one are alternatives.

    ``material``: GBR codes (``'0300.10'``), codes without pawns (``'0300'``,
    any pawns), patterns (``'03??'``, ``'0?0?.1?'``) or signatures
    (``'KRPvKR'``).  ``either_colour`` also matches the colour-reversed
    material.  ``where``: ``--where`` expressions (all must hold).
    ``composers``: substrings of a composer's name, case- and
    accent-insensitive.  ``years``: ``'1920..1939'``, ``'1920'``,
    ``'..1900'``, ``'1990..'``.  ``sources``: case-insensitive substrings of the
    source.  ``stipulations``: ``'win'``, ``'draw'``, ``'mate'`` or ``'#8'``
    (mate in 8).  ``eg``: EG references (``'1335'``, ``'EG#01335'``).
    ``award``: only studies with a distinction.  ``valid``: True or
    False to select validated studies by outcome.  ``verdicts``: soundness
    verdicts of ``studydb check`` (``unchecked`` includes never checked).
    ``position``: a FEN that
    occurs in the study (``similar``: or a symmetric image; ``either_colour``:
    or the colour-reversed position; ``main_line``: on the main line only).
    ``reaches``/``ends_in``: material terms the main line reaches / ends in.
    ``include_non_studies``: also entries with no set-up position and no
    moves (``studies.kind`` ``text``), left out otherwise.
    """

    material: tuple[str, ...] = ()
    either_colour: bool = False
    where: tuple[str, ...] = ()
    composers: tuple[str, ...] = ()
    stipulations: tuple[str, ...] = ()
    years: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    eg: tuple[str, ...] = ()
    award: bool = False
    valid: bool | None = None
    verdicts: tuple[str, ...] = ()
    position: str | None = None
    similar: bool = False
    main_line: bool = False
    reaches: tuple[str, ...] = ()
    ends_in: tuple[str, ...] = ()
    include_non_studies: bool = False


# -- material ----------------------------------------------------------------


def _pattern_condition(text: str, table: Any = Study) -> ColumnElement[bool]:
    """Condition for a code or pattern: exact codes use ``gbr``, patterns ``pieces IN``."""
    if "?" not in text:
        gbr.parse(text)  # a clear message for '03a0.10', '0300.1' …
        return table.gbr == text if "." in text else table.pieces == text
    pattern = gbr.compile_pattern(text)
    conditions: list[ColumnElement[bool]] = []
    if any(allowed is not None for allowed in pattern.pieces):
        conditions.append(table.pieces.in_(pattern.piece_codes()))
    for column, allowed in zip((table.wp, table.bp), pattern.pawns, strict=True):
        if allowed is not None:
            conditions.append(column.in_(sorted(allowed)))
    return and_(true(), *conditions)


def _material_counts_condition(material: gbr.Material, table: Any = Study) -> ColumnElement[bool]:
    """Condition for exactly the counts a signature gives (``None`` = any number).

    The indexed code column does the work; a count of three or more (digit 9)
    is checked on its count columns, since the digit alone does not say it.
    """
    sides = (("w", material.white), ("b", material.black))
    conditions: list[ColumnElement[bool]] = []
    if not material.has_unknown:
        conditions.append(table.gbr == material.code)
        exact = [p for p, digit in zip(_PIECE_COLUMNS, material.digits, strict=True) if digit == 9]
    else:
        if all(c is not None for _, side in sides for c in side[:4]):
            conditions.append(table.pieces == material.code[:4])
        exact = [*_PIECE_COLUMNS, "p"]
    for prefix, side in sides:
        for letter, value in zip("qrbnp", side, strict=True):
            if value is not None and letter in exact:
                conditions.append(getattr(table, prefix + letter) == value)
    return and_(true(), *conditions)


def _is_signature(text: str) -> bool:
    return "v" in text.lower() or text[:1].upper() == "K"


def material_condition(
    term: str, *, either_colour: bool = False, table: Any = Study, param: str = "MATERIAL"
) -> ColumnElement[bool]:
    """Condition for one material term: a GBR code, a pattern or a signature.

    ``table`` has the material columns (``studies``, or ``materials`` for
    the classes positions reach).

    >>> print(material_condition("0300.10"))
    studies.gbr = :gbr_1

    :raises QueryError: (param ``'MATERIAL'``) if the term is neither.
    """
    text = term.strip()
    try:
        if _is_signature(text):
            material = gbr.parse_signature(text)
            variants = {material.signature: material}
            if either_colour:
                flipped = material.flipped()
                variants.setdefault(flipped.signature, flipped)
            conditions = [_material_counts_condition(m, table) for m in variants.values()]
        else:
            texts = dict.fromkeys([text, gbr.flip_pattern(text)] if either_colour else [text])
            conditions = [_pattern_condition(t, table) for t in texts]
    except gbr.GbrError as exc:
        raise QueryError(
            f"{exc}; expected a GBR code ('0300.10'), a pattern ('03??', '0?0?.1?') "
            "or a signature ('KRPvKR')",
            param=param,
        ) from None
    return conditions[0] if len(conditions) == 1 else or_(*conditions)


# -- other filters ------------------------------------------------------------------

_YEAR_RE = re.compile(r"\s*([0-9]{1,4})?\s*(\.\.)?\s*([0-9]{1,4})?\s*", re.ASCII)


def parse_years(text: str) -> tuple[int | None, int | None]:
    """Parse a year or a range: ``'1920..1939'``, ``'1920'``, ``'..1900'``, ``'1990..'``.

    >>> parse_years("1920..1939"), parse_years("1927"), parse_years("..1900")
    ((1920, 1939), (1927, 1927), (None, 1900))

    :raises QueryError: if it is none of these, or the range is empty.
    """
    match = _YEAR_RE.fullmatch(text)
    if match is None or not (match.group(1) or match.group(3)):
        raise QueryError(
            f"bad year {text!r}: expected a year or a range like '1920..1939', "
            "'..1900' or '1990..'",
            param="--year",
        )
    first, dots, last = match.groups()
    low = int(first) if first else None
    high = int(last) if last else None
    if not dots:
        if low is None or high is not None:
            raise QueryError(f"bad year {text!r}: write a range as '1920..1939'", param="--year")
        return low, low
    if low is not None and high is not None and low > high:
        raise QueryError(f"bad year range {text!r}: {low} is after {high}", param="--year")
    return low, high


def escape_like(text: str) -> str:
    """Escape ``LIKE`` wildcards so that ``text`` matches literally (escape char ``\\``).

    >>> escape_like("100%_a")
    '100\\\\%\\\\_a'
    """
    return (
        text.replace(_LIKE_ESCAPE, _LIKE_ESCAPE * 2)
        .replace("%", _LIKE_ESCAPE + "%")
        .replace("_", _LIKE_ESCAPE + "_")
    )


def _stipulation_condition(text: str) -> ColumnElement[bool]:
    """``win``/``draw``/``+``/``=``, ``mate`` (any n) or ``#8`` / ``mate in 8``."""
    m = _MATE_FILTER.fullmatch("".join(text.split()).casefold())
    if m:
        mate = Study.stipulation == "mate"
        return and_(mate, Study.mate_in == int(m[1])) if m[1] else mate
    try:
        return Study.stipulation == gbr.normalize_stipulation(text)
    except gbr.GbrError:
        raise QueryError(
            f"unknown stipulation {text!r}: expected 'win', 'draw', 'mate' or '#N'",
            param="--stipulation",
        ) from None


def _eg_number(text: str) -> int:
    """The number of an EG reference: ``'1335'``, ``'01335'``, ``'EG#01335'`` → 1335."""
    m = _EG_FILTER.fullmatch(text.strip())
    if m is None:
        raise QueryError(
            f"bad EG reference {text!r}: expected a number such as 1335 or EG#01335",
            param="--eg",
        )
    return int(m[1])


def _any(conditions: Sequence[ColumnElement[bool]]) -> ColumnElement[bool]:
    return conditions[0] if len(conditions) == 1 else or_(*conditions)


def build_condition(filters: Filters | None = None) -> ColumnElement[bool]:
    """The SQL condition on ``studies`` for all of ``filters`` (AND of the filters).

    :raises QueryError: for a malformed term, naming the option it came from.
    """
    filters = filters or Filters()
    parts: list[ColumnElement[bool]] = []
    if not filters.include_non_studies:
        parts.append(studies_only())
    if filters.material:
        parts.append(
            _any(
                [
                    material_condition(t, either_colour=filters.either_colour)
                    for t in filters.material
                ]
            )
        )
    conditions = [c for expression in filters.where for c in parse_where(expression)]
    if conditions:
        parts.append(where_condition(conditions))
    if filters.composers:
        parts.append(_any([composer_condition(n) for n in filters.composers]))
    if filters.stipulations:
        parts.append(_any([_stipulation_condition(s) for s in filters.stipulations]))
    if filters.years:
        ranges = []
        for text in filters.years:
            low, high = parse_years(text)
            bounds = []
            if low is not None:
                bounds.append(Study.year >= low)
            if high is not None:
                bounds.append(Study.year <= high)
            ranges.append(and_(*bounds))
        parts.append(_any(ranges))
    if filters.sources:
        parts.append(
            _any(
                [
                    Study.source.ilike(f"%{escape_like(s)}%", escape=_LIKE_ESCAPE)
                    for s in filters.sources
                ]
            )
        )
    if filters.eg:
        padded = literal(" ") + Study.eg + literal(" ")
        parts.append(_any([padded.like(f"% {_eg_number(text)} %") for text in filters.eg]))
    if filters.award:
        parts.append(and_(Study.award.is_not(None), Study.award != ""))
    if filters.valid is not None:
        parts.append(Study.valid.is_(true() if filters.valid else false()))
    if filters.verdicts:
        parts.append(verdict_condition(filters.verdicts))
    if filters.position is not None:
        parts.append(Study.id.in_(select(Position.study_id).where(position_condition(filters))))
    for terms, ends, param in (
        (filters.reaches, False, "--reaches"),
        (filters.ends_in, True, "--ends-in"),
    ):
        if terms:
            parts.append(_reaches_condition(terms, filters.either_colour, ends=ends, param=param))
    return and_(true(), *parts)


#: ``studies.kind`` of the entries that are not studies (see ``classify.entry_kind``).
NON_STUDY_KINDS = ("text",)
_NON_STUDIES = Study.__table__.alias("non_studies")


def studies_only() -> ColumnElement[bool]:
    """Leave out the entries that are not studies: by id, from the small ``kind`` index.

    >>> " ".join(str(studies_only()).split())[:60]
    '(studies.id NOT IN (SELECT non_studies.id FROM studies AS no'
    """
    text = select(_NON_STUDIES.c.id).where(_NON_STUDIES.c.kind.in_(NON_STUDY_KINDS))
    return Study.id.not_in(text)


#: The verdicts of ``studydb check`` (as in :data:`studydb.soundness.VERDICTS`).
VERDICTS = ("sound", "unsound", "duals", "doubts", "unchecked")


def verdict_condition(verdicts: Sequence[str]) -> ColumnElement[bool]:
    """Studies whose stored verdict is one of ``verdicts``; ``unchecked`` also means never checked.

    >>> "checks.verdict IN" in str(verdict_condition(["sound", "duals"]))
    True

    :raises QueryError: (param ``'--verdict'``) for an unknown verdict.
    """
    wanted = sorted({v.strip().lower() for v in verdicts})
    for verdict in wanted:
        if verdict not in VERDICTS:
            raise QueryError(
                f"unknown verdict {verdict!r}: expected one of {', '.join(VERDICTS)}",
                param="--verdict",
            )
    condition = Study.id.in_(select(StudyCheck.study_id).where(StudyCheck.verdict.in_(wanted)))
    if "unchecked" in wanted:
        condition = or_(condition, Study.id.not_in(select(StudyCheck.study_id)))
    return condition


def _position_board(fen: str) -> chess.Board:
    try:
        board = chess.Board(fen)
    except ValueError as exc:
        raise QueryError(f"bad FEN {fen!r}: {exc}", param="--position") from None
    if board.king(chess.WHITE) is None or board.king(chess.BLACK) is None:
        raise QueryError(f"bad FEN {fen!r}: each side needs a king", param="--position")
    return board


def position_keys(filters: Filters) -> list[Keys]:
    """The keys ``--position`` looks for: the position, and its colour reversal if asked."""
    if filters.position is None:
        return []
    board = _position_board(filters.position)
    boards = [board, colour_reversed(board)] if filters.either_colour else [board]
    return list(dict.fromkeys(keys(b) for b in boards))


def position_condition(filters: Filters) -> ColumnElement[bool]:
    """Condition on ``positions`` rows for ``--position`` (with its flags).

    :raises QueryError: (param ``--position``) for a bad FEN.
    """
    wanted = position_keys(filters)
    if filters.similar:
        condition = Position.similar.in_(sorted({k.similar for k in wanted}))
    else:
        condition = or_(
            *[and_(Position.similar == k.similar, Position.image == k.image) for k in wanted]
        )
    if filters.main_line:
        condition = and_(condition, Position.main.is_(true()))
    return condition


def _reaches_condition(
    terms: Sequence[str], either_colour: bool, *, ends: bool, param: str
) -> ColumnElement[bool]:
    classes = select(Material.id).where(
        _any(
            [
                material_condition(t, either_colour=either_colour, table=Material, param=param)
                for t in terms
            ]
        )
    )
    reached = select(StudyMaterial.study_id).where(StudyMaterial.material_id.in_(classes))
    if ends:
        reached = reached.where(StudyMaterial.ends.is_(true()))
    return Study.id.in_(reached)


# -- search ------------------------------------------------------------------


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
    #: The persons credited: (person id, the name shown for the person), in credit order.
    persons: tuple[tuple[int, str], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``composers`` as a list; ``pgn``, ``occurrences`` when loaded)."""
        data = asdict(self)
        data["composers"] = list(self.composers)
        data["persons"] = [{"id": pid, "name": name} for pid, name in self.persons]
        if self.pgn is None:
            del data["pgn"]
        if self.occurrences is None:
            del data["occurrences"]
        return data


@dataclass(frozen=True)
class Occurrence:
    """Where a position occurs in a study: ply, the move it follows, line, node."""

    ply: int
    move: str
    main: bool
    node: int

    def describe(self) -> str:
        """``ply 5 (after 3.) main`` / ``… variation``.

        >>> Occurrence(5, "3.", True, 5).describe()
        'ply 5 (after 3.) main'
        """
        after = "start" if self.ply == 0 else f"after {self.move}"
        return f"ply {self.ply} ({after}) {'main' if self.main else 'variation'}"


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


def _occurrences(
    conn: Any, filters: Filters, fens: dict[int, str]
) -> dict[int, tuple[Occurrence, ...]]:
    rows = conn.execute(
        select(Position.study_id, Position.ply, Position.main, Position.node)
        .where(position_condition(filters), Position.study_id.in_(list(fens)))
        .order_by(Position.study_id, Position.node)
    )
    found: dict[int, list[Occurrence]] = {}
    for study_id, ply, main, node in rows:
        found.setdefault(study_id, []).append(
            Occurrence(ply, move_label(fens[study_id], ply), bool(main), node)
        )
    return {study_id: tuple(items) for study_id, items in found.items()}


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
            key = collate(key, "C")
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
                if filters is not None and filters.position is not None
                else None
            )
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
                )


def count_statement(filters: Filters | None = None) -> Select[Any]:
    """The ``SELECT count(*)`` behind :func:`count`."""
    return select(func.count()).select_from(Study).where(build_condition(filters))


def count(engine: Engine, filters: Filters | None = None) -> int:
    """Number of studies matching ``filters``."""
    with database_errors(engine), engine.connect() as conn:
        return int(conn.execute(count_statement(filters)).scalar_one())


#: Study ids are 32-bit integers on PostgreSQL.
_MAX_ID = 1 << 31


def fetch_study(engine: Engine, study_id: int) -> dict[str, Any] | None:
    """Everything stored about one study (composers as a list), or None if absent."""
    if not -_MAX_ID <= study_id < _MAX_ID:  # beyond the id column: absent on both engines
        return None
    with database_errors(engine), engine.connect() as conn:
        row = conn.execute(select(Study.__table__).where(Study.id == study_id)).mappings().first()
        if row is None:
            return None
        data = dict(row)
        data["composers"] = composers_of(conn, [study_id]).get(study_id, [])
        data["persons"] = [
            {"id": pid, "name": name}
            for pid, name in persons_of(conn, [study_id]).get(study_id, [])
        ]
    return data


# -- statistics -------------------------------------------------------------------


class TopComposer(NamedTuple):
    """A person among the most represented: name shown, studies, person id, other names."""

    name: str
    count: int
    id: int
    variants: tuple[str, ...] = ()


@dataclass
class Stats:
    """Statistics of a set of studies; lists hold ``(value, count)`` pairs."""

    studies: int = 0
    composers: int = 0
    first_year: int | None = None
    last_year: int | None = None
    undated: int = 0
    gbr: list[tuple[str, int]] = field(default_factory=list)
    men: list[tuple[int, int]] = field(default_factory=list)
    decades: list[tuple[int | None, int]] = field(default_factory=list)
    stipulations: list[tuple[str | None, int]] = field(default_factory=list)
    #: The most represented persons, each with the other names it is credited by.
    top_composers: list[TopComposer] = field(default_factory=list)
    verdicts: list[tuple[str, int]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; the distributions as lists of objects."""

        def pairs(key: str, items: list[tuple[Any, int]]) -> list[dict[str, Any]]:
            return [{key: value, "count": n} for value, n in items]

        return {
            "studies": self.studies,
            "composers": self.composers,
            "first_year": self.first_year,
            "last_year": self.last_year,
            "undated": self.undated,
            "gbr": pairs("gbr", self.gbr),
            "men": pairs("men", self.men),
            "decades": pairs("decade", self.decades),
            "stipulations": pairs("stipulation", self.stipulations),
            "top_composers": [
                {"composer": c.name, "count": c.count, "id": c.id, "variants": list(c.variants)}
                for c in self.top_composers
            ],
            "verdicts": pairs("verdict", self.verdicts),
        }


def stats(engine: Engine, filters: Filters | None = None, *, top: int = 10) -> Stats:
    """Statistics of the studies matching ``filters``: totals and distributions.

    ``top`` bounds the lists of GBR classes and composers.
    """
    if top < 0:
        raise QueryError(f"--top must not be negative, got {top}", param="--top")
    filtered = filters is not None and filters != Filters()
    condition = build_condition(filters)
    credits = select(StudyComposer.composer_id, func.count())
    if filtered:
        credits = credits.where(StudyComposer.study_id.in_(select(Study.id).where(condition)))
    n = func.count().label("n")
    with database_errors(engine), engine.connect() as conn:
        totals = conn.execute(
            select(
                func.count(),
                func.min(Study.year),
                func.max(Study.year),
                func.count() - func.count(Study.year),
            ).where(condition)
        ).one()
        counts = conn.execute(credits.group_by(StudyComposer.composer_id)).all()
        by_person = _person_counts(conn, counts)
        top_composers = _top_composers(conn, by_person, top)
        by_gbr = conn.execute(
            select(Study.gbr, n)
            .where(condition)
            .group_by(Study.gbr)
            .order_by(n.desc(), Study.gbr)
            .limit(top)
        ).all()
        by_men = conn.execute(
            select(Study.men, n).where(condition).group_by(Study.men).order_by(Study.men)
        ).all()
        by_year = conn.execute(
            select(Study.year, n).where(condition).group_by(Study.year)
        ).all()  # decades are summed here: grouping by year - year % 10 reads every row
        by_stipulation = conn.execute(
            select(Study.stipulation, n)
            .where(condition)
            .group_by(Study.stipulation)
            .order_by(n.desc(), Study.stipulation.asc().nulls_last())
        ).all()
        verdict = func.coalesce(StudyCheck.verdict, "unchecked")
        by_verdict = conn.execute(
            select(verdict.label("verdict"), n)
            .select_from(Study)
            .outerjoin(StudyCheck, StudyCheck.study_id == Study.id)
            .where(condition)
            .group_by(verdict)
            .order_by(n.desc(), verdict)
        ).all()
    by_decade = _decades(by_year)
    return Stats(
        studies=int(totals[0]),
        composers=len(by_person),
        first_year=totals[1],
        last_year=totals[2],
        undated=int(totals[3]),
        gbr=[(code, int(k)) for code, k in by_gbr],
        men=[(int(m), int(k)) for m, k in by_men],
        decades=by_decade,
        stipulations=[(s, int(k)) for s, k in by_stipulation],
        top_composers=top_composers,
        verdicts=[(v, int(k)) for v, k in by_verdict],
    )


def _person_counts(conn: Connection, counts: Sequence[Any]) -> dict[int, int]:
    """Credits per person from credits per name ((composer id, studies) rows).

    A study credited to two names of one person counts twice (it never is in
    practice); a name without a person (none after an import) counts as its own.
    """
    per_name = {int(composer_id): int(k) for composer_id, k in counts}
    person_of: dict[int, int] = {}
    for chunk in chunks(sorted(per_name)):
        rows = conn.execute(select(Composer.id, Composer.person_id).where(Composer.id.in_(chunk)))
        person_of.update({cid: pid for cid, pid in rows if pid is not None})
    totals: dict[int, int] = {}
    for composer_id, k in per_name.items():
        key = person_of.get(composer_id, -composer_id)
        totals[key] = totals.get(key, 0) + k
    return totals


def _top_composers(conn: Connection, counts: dict[int, int], top: int) -> list[TopComposer]:
    """The ``top`` most credited persons (id → studies), ties by name; with their variants."""
    if top == 0 or not counts:
        return []
    ranked = sorted(counts.values(), reverse=True)
    least = ranked[min(top, len(ranked)) - 1]
    wanted = {pid: k for pid, k in counts.items() if k >= least}
    found: list[TopComposer] = []
    persons = sorted(pid for pid in wanted if pid > 0)
    variants: dict[int, list[str]] = {}
    for chunk in chunks(persons):
        rows = conn.execute(
            select(Composer.person_id, Composer.name).where(Composer.person_id.in_(chunk))
        )
        for pid, name in rows:
            variants.setdefault(pid, []).append(name)
        for pid, name in conn.execute(select(Person.id, Person.name).where(Person.id.in_(chunk))):
            others = sorted(n for n in variants.get(pid, []) if n != name)
            found.append(TopComposer(name, wanted[pid], pid, tuple(others)))
    for chunk in chunks(sorted(-pid for pid in wanted if pid < 0)):
        rows = conn.execute(select(Composer.id, Composer.name).where(Composer.id.in_(chunk)))
        found.extend(TopComposer(name, wanted[-cid], -cid) for cid, name in rows)
    found.sort(key=lambda row: (-row.count, fold(row.name), row.name))
    return found[:top]


def chunks(ids: Sequence[int], size: int = BATCH_SIZE) -> Iterator[list[int]]:
    """``ids`` in lists of at most ``size``: bound parameters per statement stay few.

    >>> list(chunks([1, 2, 3], 2))
    [[1, 2], [3]]
    """
    for start in range(0, len(ids), size):
        yield list(ids[start : start + size])


def _decades(by_year: Sequence[Any]) -> list[tuple[int | None, int]]:
    """Sum (year, count) rows into (decade, count), in order, undated last.

    >>> _decades([(1927, 2), (None, 1), (1921, 1), (1899, 4)])
    [(1890, 4), (1920, 3), (None, 1)]
    """
    decades: dict[int | None, int] = {}
    for year, k in by_year:
        decade = None if year is None else int(year) // 10 * 10
        decades[decade] = decades.get(decade, 0) + int(k)
    return sorted(decades.items(), key=lambda item: (item[0] is None, item[0] or 0))


def rejects(engine: Engine) -> Iterator[tuple[int, str, int, str]]:
    """The rejected games, oldest first: ``(id, file, line, reason)``."""
    statement = select(Reject.id, Reject.file, Reject.line, Reject.reason).order_by(Reject.id)
    with database_errors(engine), engine.connect() as conn:
        yield from ((row[0], row[1], row[2], row[3]) for row in conn.execute(statement))


def reject_texts(engine: Engine) -> Iterator[bytes]:
    """The rejected games' bytes exactly as read, oldest first."""
    statement = select(Reject.raw).order_by(Reject.id)
    with database_errors(engine), engine.connect() as conn:
        for (raw,) in conn.execution_options(yield_per=BATCH_SIZE).execute(statement):
            yield raw
