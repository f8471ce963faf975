"""Statistics of the studies matching some filters: totals and distributions.

>>> _decades([(1927, 2), (None, 1), (1921, 1), (1899, 4)])
[(1890, 4), (1920, 3), (None, 1)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, func, select

from studydb.db.conditions import build_condition
from studydb.db.engine import database_errors
from studydb.db.models import Composer, Study, StudyCheck, StudyComposer
from studydb.db.search import chunks
from studydb.db.themes import count_themes
from studydb.errors import QueryError
from studydb.filters import Filters

__all__ = ["Stats", "stats"]


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
    verdicts: list[tuple[str, int]] = field(default_factory=list)
    themes: list[tuple[str, int]] = field(default_factory=list)

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
            "verdicts": pairs("verdict", self.verdicts),
            "themes": pairs("theme", self.themes),
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
        top_composers = _top_composers(conn, counts, top)
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
        by_theme = count_themes(conn, condition if filtered else None)
    by_decade = _decades(by_year)
    return Stats(
        studies=int(totals[0]),
        composers=len(counts),
        first_year=totals[1],
        last_year=totals[2],
        undated=int(totals[3]),
        gbr=[(code, int(k)) for code, k in by_gbr],
        men=[(int(m), int(k)) for m, k in by_men],
        decades=by_decade,
        stipulations=[(s, int(k)) for s, k in by_stipulation],
        top_composers=top_composers,
        verdicts=[(v, int(k)) for v, k in by_verdict],
        themes=by_theme,
    )


def _top_composers(conn: Connection, counts: Sequence[Any], top: int) -> list[tuple[str, int]]:
    """The ``top`` most credited of (composer id, studies) rows, ties by name key and name."""
    if top == 0 or not counts:
        return []
    ranked = sorted((int(k) for _, k in counts), reverse=True)
    least = ranked[min(top, len(ranked)) - 1]
    wanted = {composer_id: int(k) for composer_id, k in counts if k >= least}
    names: list[Any] = []
    for chunk in chunks(sorted(wanted)):
        names.extend(
            conn.execute(
                select(Composer.id, Composer.key, Composer.name).where(Composer.id.in_(chunk))
            ).all()
        )
    names.sort(key=lambda row: (-wanted[row[0]], row[1], row[2]))
    return [(name, wanted[composer_id]) for composer_id, _, name in names[:top]]


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
