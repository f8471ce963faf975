"""Finding studies: material filters, the ``--where`` language, search and statistics.

Every filter becomes an SQL condition on the ``studies`` table that the
database answers through its indexes (the GBR code, the piece digits, the
count columns, year, stipulation, composers' normalised keys); nothing loads
all studies into Python, and the same statements run on SQLite and
PostgreSQL.  User text reaches SQL only as bound parameters, and ``LIKE``
patterns escape ``%`` and ``_``.

>>> print(build_condition(Filters(material=("0300.10",), years=("1890..1899",))))
studies.gbr = :gbr_1 AND studies.year >= :year_1 AND studies.year <= :year_2
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Engine,
    Select,
    and_,
    collate,
    false,
    func,
    or_,
    select,
    true,
)

from studydb import gbr
from studydb.db.engine import database_errors
from studydb.db.models import Composer, Reject, Study, StudyComposer
from studydb.db.where import parse_where, where_condition
from studydb.errors import QueryError
from studydb.headers import normalise_name

__all__ = [
    "SORT_KEYS",
    "Filters",
    "Stats",
    "StudyRow",
    "build_condition",
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
    source.  ``award``: only studies with a distinction.  ``valid``: True or
    False to select validated studies by outcome.
    """

    material: tuple[str, ...] = ()
    either_colour: bool = False
    where: tuple[str, ...] = ()
    composers: tuple[str, ...] = ()
    stipulations: tuple[str, ...] = ()
    years: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    award: bool = False
    valid: bool | None = None


# -- material ----------------------------------------------------------------


def _pattern_condition(text: str) -> ColumnElement[bool]:
    """Condition for a code or pattern: exact codes use ``gbr``, patterns ``pieces IN``."""
    if "?" not in text:
        gbr.parse(text)  # a clear message for '03a0.10', '0300.1' …
        return Study.gbr == text if "." in text else Study.pieces == text
    pattern = gbr.compile_pattern(text)
    conditions: list[ColumnElement[bool]] = []
    if any(allowed is not None for allowed in pattern.pieces):
        conditions.append(Study.pieces.in_(pattern.piece_codes()))
    for column, allowed in zip((Study.wp, Study.bp), pattern.pawns, strict=True):
        if allowed is not None:
            conditions.append(column.in_(sorted(allowed)))
    return and_(true(), *conditions)


def _material_counts_condition(material: gbr.Material) -> ColumnElement[bool]:
    """Condition for exactly the counts a signature gives (``None`` = any number).

    The indexed code column does the work; a count of three or more (digit 9)
    is checked on its count columns, since the digit alone does not say it.
    """
    sides = (("w", material.white), ("b", material.black))
    conditions: list[ColumnElement[bool]] = []
    if not material.has_unknown:
        conditions.append(Study.gbr == material.code)
        exact = [p for p, digit in zip(_PIECE_COLUMNS, material.digits, strict=True) if digit == 9]
    else:
        if all(c is not None for _, side in sides for c in side[:4]):
            conditions.append(Study.pieces == material.code[:4])
        exact = [*_PIECE_COLUMNS, "p"]
    for prefix, side in sides:
        for letter, value in zip("qrbnp", side, strict=True):
            if value is not None and letter in exact:
                conditions.append(getattr(Study, prefix + letter) == value)
    return and_(true(), *conditions)


def _is_signature(text: str) -> bool:
    return "v" in text.lower() or text[:1].upper() == "K"


def material_condition(term: str, *, either_colour: bool = False) -> ColumnElement[bool]:
    """Condition for one material term: a GBR code, a pattern or a signature.

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
            conditions = [_material_counts_condition(m) for m in variants.values()]
        else:
            texts = dict.fromkeys([text, gbr.flip_pattern(text)] if either_colour else [text])
            conditions = [_pattern_condition(t) for t in texts]
    except gbr.GbrError as exc:
        raise QueryError(
            f"{exc}; expected a GBR code ('0300.10'), a pattern ('03??', '0?0?.1?') "
            "or a signature ('KRPvKR')",
            param="MATERIAL",
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


def _composer_condition(name: str) -> ColumnElement[bool]:
    key = normalise_name(name).strip()
    if not key:
        raise QueryError(f"empty composer name {name!r}", param="--composer")
    matching = (
        select(StudyComposer.study_id)
        .join(Composer, Composer.id == StudyComposer.composer_id)
        .where(Composer.key.like(f"%{escape_like(key)}%", escape=_LIKE_ESCAPE))
    )
    return Study.id.in_(matching)


def _stipulation(text: str) -> str:
    try:
        return gbr.normalize_stipulation(text)
    except gbr.GbrError:
        raise QueryError(
            f"unknown stipulation {text!r}: expected 'win' or 'draw'", param="--stipulation"
        ) from None


def _any(conditions: Sequence[ColumnElement[bool]]) -> ColumnElement[bool]:
    return conditions[0] if len(conditions) == 1 else or_(*conditions)


def build_condition(filters: Filters | None = None) -> ColumnElement[bool]:
    """The SQL condition on ``studies`` for all of ``filters`` (AND of the filters).

    :raises QueryError: for a malformed term, naming the option it came from.
    """
    filters = filters or Filters()
    parts: list[ColumnElement[bool]] = []
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
        parts.append(_any([_composer_condition(n) for n in filters.composers]))
    if filters.stipulations:
        wanted = sorted({_stipulation(s) for s in filters.stipulations})
        parts.append(Study.stipulation.in_(wanted))
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
    if filters.award:
        parts.append(and_(Study.award.is_not(None), Study.award != ""))
    if filters.valid is not None:
        parts.append(Study.valid.is_(true() if filters.valid else false()))
    return and_(true(), *parts)


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

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``composers`` as a list; ``pgn`` only when loaded)."""
        data = asdict(self)
        data["composers"] = list(self.composers)
        if self.pgn is None:
            del data["pgn"]
        return data


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


def _composers_of(conn: Any, ids: Sequence[int]) -> dict[int, list[str]]:
    names: dict[int, list[str]] = {}
    rows = conn.execute(
        select(StudyComposer.study_id, Composer.name)
        .join(Composer, Composer.id == StudyComposer.composer_id)
        .where(StudyComposer.study_id.in_(ids))
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
            names = _composers_of(conn, [row.id for row in rows])
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
        data["composers"] = _composers_of(conn, [study_id]).get(study_id, [])
    return data


# -- statistics -------------------------------------------------------------------


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
    top_composers: list[tuple[str, int]] = field(default_factory=list)

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
            "top_composers": pairs("composer", self.top_composers),
        }


def stats(engine: Engine, filters: Filters | None = None, *, top: int = 10) -> Stats:
    """Statistics of the studies matching ``filters``: totals and distributions.

    ``top`` bounds the lists of GBR classes and composers.
    """
    if top < 0:
        raise QueryError(f"--top must not be negative, got {top}", param="--top")
    condition = build_condition(filters)
    matching = select(Study.id).where(condition)
    decade = Study.year - Study.year % 10
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
        composers = conn.execute(
            select(func.count(func.distinct(StudyComposer.composer_id))).where(
                StudyComposer.study_id.in_(matching)
            )
        ).scalar_one()
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
        by_decade = conn.execute(
            select(decade.label("decade"), n)
            .where(condition)
            .group_by(decade)
            .order_by(decade.asc().nulls_last())
        ).all()
        by_stipulation = conn.execute(
            select(Study.stipulation, n)
            .where(condition)
            .group_by(Study.stipulation)
            .order_by(n.desc(), Study.stipulation.asc().nulls_last())
        ).all()
        by_composer = conn.execute(
            select(Composer.name, n)
            .join(StudyComposer, StudyComposer.composer_id == Composer.id)
            .where(StudyComposer.study_id.in_(matching))
            .group_by(Composer.id, Composer.name)
            .order_by(n.desc(), Composer.key, Composer.name)
            .limit(top)
        ).all()
    return Stats(
        studies=int(totals[0]),
        composers=int(composers),
        first_year=totals[1],
        last_year=totals[2],
        undated=int(totals[3]),
        gbr=[(code, int(k)) for code, k in by_gbr],
        men=[(int(m), int(k)) for m, k in by_men],
        decades=[(None if d is None else int(d), int(k)) for d, k in by_decade],
        stipulations=[(s, int(k)) for s, k in by_stipulation],
        top_composers=[(name, int(k)) for name, k in by_composer],
    )


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
