"""The filters in SQL: one condition on ``studies`` per filter, looked up in a table.

Every filter becomes an SQL condition on the ``studies`` table that the
database answers through its indexes (the GBR code, the piece digits, the
count columns, year, stipulation, composers' normalised keys); nothing loads
all studies into Python, and the same statements run on SQLite and
PostgreSQL.  User text reaches SQL only as bound parameters, and ``LIKE``
patterns escape ``%`` and ``_``.  The values come parsed already
(:class:`studydb.filters.Filters` parses them once, when it is made).

>>> filters = Filters(material=("0300.10",), years=("1890..1899",), include_non_studies=True)
>>> print(build_condition(filters))
studies.gbr = :gbr_1 AND studies.year >= :year_1 AND studies.year <= :year_2
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, and_, false, literal, or_, select, true

from studydb import gbr
from studydb.db.models import (
    SEEN,
    Material,
    Position,
    Study,
    StudyCheck,
    StudyIndex,
    StudyMaterial,
    StudyMove,
)
from studydb.db.persons import composer_condition
from studydb.db.where import where_condition
from studydb.filters import Filters, MaterialForm, MaterialTerm, Stipulation, parse_material
from studydb.vocabulary import NON_STUDY_KINDS

if TYPE_CHECKING:
    # python-chess and the tables of these take a tenth of a second to import: a search
    # without a position, pattern or theme (search --count) does without them.
    from studydb.lines import LineQuery
    from studydb.patterns import Pattern
    from studydb.positions import Keys

__all__ = [
    "CONDITIONS",
    "LIKE_ESCAPE",
    "build_condition",
    "escape_like",
    "line_candidates",
    "line_condition",
    "line_queries",
    "line_seen",
    "material_condition",
    "position_condition",
    "position_keys",
    "studies_only",
    "verdict_condition",
]

LIKE_ESCAPE = "\\"
_PIECE_COLUMNS = ("q", "r", "b", "n")

#: A filter's condition: from the ``Filters`` and that filter's parsed value.
Condition = Callable[[Filters, Any], ColumnElement[bool]]


def _any(conditions: Sequence[ColumnElement[bool]]) -> ColumnElement[bool]:
    return conditions[0] if len(conditions) == 1 else or_(*conditions)


# -- material ----------------------------------------------------------------


def _pattern_condition(pattern: gbr.Pattern, table: Any) -> ColumnElement[bool]:
    """Condition for a pattern: ``pieces IN`` the codes it allows, and its pawn digits."""
    conditions: list[ColumnElement[bool]] = []
    if any(allowed is not None for allowed in pattern.pieces):
        conditions.append(table.pieces.in_(pattern.piece_codes()))
    for column, allowed in zip((table.wp, table.bp), pattern.pawns, strict=True):
        if allowed is not None:
            conditions.append(column.in_(sorted(allowed)))
    return and_(true(), *conditions)


def _material_counts_condition(material: gbr.Material, table: Any) -> ColumnElement[bool]:
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


def _form_condition(form: MaterialForm, table: Any) -> ColumnElement[bool]:
    if isinstance(form, gbr.Material):
        return _material_counts_condition(form, table)
    if isinstance(form, gbr.Pattern):
        return _pattern_condition(form, table)
    equal: ColumnElement[bool] = table.gbr == form if "." in form else table.pieces == form
    return equal


def material_condition(
    term: MaterialTerm | str, *, either_colour: bool = False, table: Any = Study
) -> ColumnElement[bool]:
    """Condition for one material term: a GBR code, a pattern or a signature.

    ``table`` has the material columns (``studies``, or ``materials`` for
    the classes positions reach).

    >>> print(material_condition("0300.10"))
    studies.gbr = :gbr_1

    :raises QueryError: if the term (given as text) is neither.
    """
    parsed = parse_material(term) if isinstance(term, str) else term
    return _any([_form_condition(f, table) for f in parsed.forms(either_colour=either_colour)])


def _material(filters: Filters, terms: tuple[MaterialTerm, ...]) -> ColumnElement[bool]:
    return _any([material_condition(t, either_colour=filters.either_colour) for t in terms])


def _reached(
    filters: Filters, terms: tuple[MaterialTerm, ...], *, ends: bool
) -> ColumnElement[bool]:
    classes = select(Material.id).where(
        _any(
            [
                material_condition(t, either_colour=filters.either_colour, table=Material)
                for t in terms
            ]
        )
    )
    reached = select(StudyMaterial.study_id).where(StudyMaterial.material_id.in_(classes))
    if ends:
        reached = reached.where(StudyMaterial.ends.is_(true()))
    return Study.id.in_(reached)


# -- patterns ----------------------------------------------------------------------


def pattern_condition(filters: Filters) -> ColumnElement[bool]:
    """``--pattern`` / ``--pieces``: the studies found, once the boards were scanned
    (``filters.pattern_ids``); before that, the candidates to scan.

    The candidates have boards in the index; for every man the pattern needs,
    enough of it at the start or pawns of its colour to promote (men are never
    added but by promotion); and, for every designator that needs a man on some
    squares, such a man stood on one of them in some position (the ``seen_*``
    bitboards; not with ``similar``, whose images move the squares).
    """
    if filters.pattern_ids is not None:
        return Study.id.in_(sorted(filters.pattern_ids)) if filters.pattern_ids else false()
    inversions = (False, True) if filters.either_colour else (False,)
    indexed = select(StudyIndex.study_id).where(StudyIndex.boards.is_not(None))
    if not filters.similar:
        indexed = indexed.where(or_(*(seen_needs(filters, inverted=i) for i in inversions)))
    options = [pattern_needs(filters, inverted=i) for i in inversions]
    return and_(Study.id.in_(indexed), or_(*options))


def seen_needs(filters: Filters, *, inverted: bool) -> ColumnElement[bool]:
    """The ``seen_*`` bitboards' condition for where the pattern (or its inverse) needs men.

    >>> print(seen_needs(Filters(pieces="[RQ]h8"), inverted=False))
    (study_index.seen_wq & :seen_wq_1) != :param_1 OR (study_index.seen_wr & :seen_wr_1) != :param_2
    """
    return and_(true(), *(seen_condition(p) for p in _patterns(filters, inverted=inverted)))


def seen_condition(pattern: Pattern) -> ColumnElement[bool]:
    """The ``seen_*`` bitboards' condition for where ``pattern`` needs men to have stood.

    >>> from studydb.patterns import parse_pieces
    >>> print(seen_condition(parse_pieces("Kg1")))
    (study_index.seen_wk & :seen_wk_1) != :param_1
    """
    from studydb.patterns import signed

    parts = [
        or_(*(SEEN[man].op("&")(signed(bits)) != 0 for man, bits in need.items()))
        for need in pattern.seen_needs()
    ]
    return and_(true(), *parts)


def _patterns(filters: Filters, *, inverted: bool) -> Iterator[Pattern]:
    """The patterns ``--pattern`` and ``--pieces`` give, as written or colour-inverted."""
    for field in ("pattern", "pieces"):
        pattern = filters.parsed(field)
        if pattern is not None:
            yield pattern.inverted() if inverted else pattern


def pattern_needs(filters: Filters, *, inverted: bool) -> ColumnElement[bool]:
    """The count columns' condition for the men the pattern (or its inverse) needs."""
    needs: dict[str, int] = {}
    for pattern in _patterns(filters, inverted=inverted):
        for man, n in pattern.required().items():
            needs[man] = max(needs.get(man, 0), n)
    return men_needed(needs)


def men_needed(needs: dict[str, int]) -> ColumnElement[bool]:
    """The count columns' condition for at least ``needs[man]`` of each man at some point:
    that many at the start, or pawns of its colour to promote (men are only added so).

    >>> print(men_needed({"R": 2}))
    studies.wr + studies.wp >= :param_1
    """
    parts = []
    for man, n in needs.items():
        side = "w" if man.isupper() else "b"
        piece = man.lower()
        if piece == "k":
            continue
        pawns = getattr(Study, f"{side}p")
        have = pawns if piece == "p" else getattr(Study, f"{side}{piece}") + pawns
        parts.append(have >= n)
    return and_(true(), *parts)


# -- lines ---------------------------------------------------------------------------


def line_condition(filters: Filters) -> ColumnElement[bool]:
    """``--line``: the studies found, once their ply facts were scanned
    (``filters.line_ids``); before that, the candidates (:func:`line_candidates`, every
    step's keys)."""
    if filters.line_ids is not None:
        return Study.id.in_(sorted(filters.line_ids)) if filters.line_ids else false()
    return _any(
        [
            line_candidates(filters, query, [g for groups in query.key_groups() for g in groups])
            for query in line_queries(filters)
        ]
    )


def line_queries(filters: Filters) -> list[LineQuery]:
    """``--line`` parsed, and with ``--either-colour`` its colour-reversed line too."""
    query: LineQuery = filters.parsed("line")
    return query.colourings(either_colour=filters.either_colour)


def line_candidates(
    filters: Filters, query: LineQuery, groups: Sequence[Sequence[int]], *, seen: bool = True
) -> ColumnElement[bool]:
    """The studies whose ply facts are indexed, that hold a key of each of ``groups``
    (on the main line with ``--main-line``) and the men ``query``'s positions need, and
    (``seen``) that stood where they need them (:func:`line_seen`)."""
    parts = [men_needed(query.required())]
    stood = line_seen(query) if seen else []
    if stood:
        parts.append(Study.id.in_(select(StudyIndex.study_id).where(*stood)))
    if not groups:  # a study with keys has its facts indexed (they are written together)
        indexed = select(StudyIndex.study_id).where(StudyIndex.moves.is_not(None))
        parts.append(Study.id.in_(indexed))
    for group in groups:
        having = select(StudyMove.study_id).where(StudyMove.key.in_(sorted(set(group))))
        if filters.main_line:
            having = having.where(StudyMove.main.is_(true()))
        parts.append(Study.id.in_(having))
    return and_(*parts)


def line_seen(query: LineQuery) -> list[ColumnElement[bool]]:
    """The ``study_index`` conditions of where the men of each of ``query``'s position
    steps stood (pattern search's bitboards); none without position steps.  A query
    that reads ``study_index`` rows anyway tests them on those rows (a subquery of them
    scans the table)."""
    from studydb.lines import PositionStep

    return [seen_condition(step.pattern) for step in query.steps if isinstance(step, PositionStep)]


# -- other filters ------------------------------------------------------------------


def escape_like(text: str) -> str:
    """Escape ``LIKE`` wildcards so that ``text`` matches literally (escape char ``\\``).

    >>> escape_like("100%_a")
    '100\\\\%\\\\_a'
    """
    return (
        text.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2)
        .replace("%", LIKE_ESCAPE + "%")
        .replace("_", LIKE_ESCAPE + "_")
    )


def _where(filters: Filters, expressions: tuple[tuple[Any, ...], ...]) -> ColumnElement[bool]:
    return where_condition([c for conditions in expressions for c in conditions])


def _stipulation(stipulation: Stipulation) -> ColumnElement[bool]:
    condition = Study.stipulation == stipulation.stipulation
    if stipulation.mate_in is not None:
        return and_(condition, Study.mate_in == stipulation.mate_in)
    return condition


def _years(low: int | None, high: int | None) -> ColumnElement[bool]:
    bounds = []
    if low is not None:
        bounds.append(Study.year >= low)
    if high is not None:
        bounds.append(Study.year <= high)
    return and_(*bounds)


def _eg(numbers: tuple[int, ...]) -> ColumnElement[bool]:
    padded = literal(" ") + Study.eg + literal(" ")
    return _any([padded.like(f"% {number} %") for number in numbers])


def verdict_condition(verdicts: Sequence[str]) -> ColumnElement[bool]:
    """Studies whose stored verdict is one of ``verdicts``; ``unchecked`` also means never checked.

    The verdicts come checked (:func:`studydb.filters.parse_verdict`).

    >>> "checks.verdict IN" in str(verdict_condition(["sound", "duals"]))
    True
    """
    wanted = sorted(set(verdicts))
    condition: ColumnElement[bool] = Study.id.in_(
        select(StudyCheck.study_id).where(StudyCheck.verdict.in_(wanted))
    )
    if "unchecked" in wanted:
        condition = or_(condition, Study.id.not_in(select(StudyCheck.study_id)))
    return condition


def _theme_condition(names: Sequence[str]) -> ColumnElement[bool]:
    """:func:`studydb.db.themes.theme_condition`, imported when a search asks for a theme."""
    from studydb.db.themes import theme_condition

    return theme_condition(names)


def position_keys(filters: Filters) -> list[Keys]:
    """The keys ``--position`` looks for: the position, and its colour reversal if asked."""
    board = filters.parsed("position")
    if board is None:
        return []
    from studydb.positions import colour_reversed, keys

    boards = [board, colour_reversed(board)] if filters.either_colour else [board]
    return list(dict.fromkeys(keys(b) for b in boards))


def position_condition(filters: Filters) -> ColumnElement[bool]:
    """Condition on ``positions`` rows for ``--position`` (with its flags)."""
    wanted = position_keys(filters)
    condition: ColumnElement[bool]
    if filters.similar:
        condition = Position.similar.in_(sorted({k.similar for k in wanted}))
    else:
        condition = or_(
            *[and_(Position.similar == k.similar, Position.image == k.image) for k in wanted]
        )
    if filters.main_line:
        condition = and_(condition, Position.main.is_(true()))
    return condition


# -- the table -------------------------------------------------------------------------

#: Each filter's condition, under its spec's ``condition`` key (see :data:`studydb.filters.SPECS`).
CONDITIONS: dict[str, Condition] = {
    "material": _material,
    "where": _where,
    "composer": lambda _, names: _any([composer_condition(name) for name in names]),
    "stipulation": lambda _, parsed: _any([_stipulation(s) for s in parsed]),
    "year": lambda _, ranges: _any([_years(low, high) for low, high in ranges]),
    "source": lambda _, texts: _any(
        [Study.source.ilike(f"%{escape_like(s)}%", escape=LIKE_ESCAPE) for s in texts]
    ),
    "eg": lambda _, numbers: _eg(numbers),
    "award": lambda _, __: and_(Study.award.is_not(None), Study.award != ""),
    "valid": lambda _, valid: Study.valid.is_(true() if valid else false()),
    "verdict": lambda _, verdicts: verdict_condition(verdicts),
    "theme": lambda _, names: _theme_condition(names),
    "position": lambda filters, _: Study.id.in_(
        select(Position.study_id).where(position_condition(filters))
    ),
    "pattern": lambda filters, _: pattern_condition(filters),
    "pieces": lambda filters, _: pattern_condition(filters),  # one pattern with --pattern
    "line": lambda filters, _: line_condition(filters),
    "reaches": lambda filters, terms: _reached(filters, terms, ends=False),
    "ends_in": lambda filters, terms: _reached(filters, terms, ends=True),
}


def build_condition(filters: Filters | None = None) -> ColumnElement[bool]:
    """The SQL condition on ``studies`` for all of ``filters`` (AND of the filters given).

    Each given filter's condition is looked up in :data:`CONDITIONS`.
    """
    filters = filters or Filters()
    parts = [
        CONDITIONS[spec.condition](filters, filters.parsed(spec.field))
        for spec in filters.given()
        if spec.condition is not None
    ]
    if not filters.include_non_studies:
        parts.insert(0, studies_only())
    return and_(true(), *parts)


_NON_STUDIES = Study.__table__.alias("non_studies")


def studies_only() -> ColumnElement[bool]:
    """Leave out the entries that are not studies: by id, from the small ``kind`` index.

    >>> " ".join(str(studies_only()).split())[:60]
    '(studies.id NOT IN (SELECT non_studies.id FROM studies AS no'
    """
    text = select(_NON_STUDIES.c.id).where(_NON_STUDIES.c.kind.in_(NON_STUDY_KINDS))
    return Study.id.not_in(text)
