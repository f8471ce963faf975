"""Statistics of the studies matching some filters: totals and distributions.

>>> _decades([(1927, 2), (None, 1), (1921, 1), (1899, 4)])
[(1890, 4), (1920, 3), (None, 1)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sqlalchemy import Connection, Engine, func, select

from studydb.db.conditions import build_condition
from studydb.db.connect import database_errors
from studydb.db.models import Composer, Person, Study, StudyCheck, StudyComposer
from studydb.db.search import chunks
from studydb.errors import QueryError
from studydb.filters import Filters
from studydb.names import fold

__all__ = ["Stats", "TopComposer", "stats"]


class TopComposer(NamedTuple):
    """A person among the most represented: name shown, studies, person id, other names."""

    name: str
    studies: int
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
            "top_composers": [
                {"composer": c.name, "count": c.studies, "id": c.id, "variants": list(c.variants)}
                for c in self.top_composers
            ],
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
        from studydb.db.themes import count_themes  # python-chess: here only

        by_theme = count_themes(conn, condition if filtered else None)
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
        themes=by_theme,
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
            if pid is not None:
                variants.setdefault(pid, []).append(name)
        for pid, name in conn.execute(select(Person.id, Person.name).where(Person.id.in_(chunk))):
            others = sorted(n for n in variants.get(pid, []) if n != name)
            found.append(TopComposer(name, wanted[pid], pid, tuple(others)))
    for chunk in chunks(sorted(-pid for pid in wanted if pid < 0)):
        named = conn.execute(select(Composer.id, Composer.name).where(Composer.id.in_(chunk)))
        found.extend(TopComposer(name, wanted[-cid], -cid) for cid, name in named)
    found.sort(key=lambda row: (-row.studies, fold(row.name), row.name))
    return found[:top]


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
