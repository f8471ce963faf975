"""The register of persons: which composer names are one person, and the user's decisions.

A study's credit points to a name (``composers``); a name points to a
person (``persons``).  Names are grouped by :func:`studydb.names.group_names`
from the names themselves and the decisions users made
(``composer_decisions``: ``same``, ``apart``, ``alias``), which are kept by
name, so that they outlive re-imports and move to another database as a
JSON file (:func:`export_register`, :func:`import_register`).

The import regroups only the surname keys it touched (:func:`regroup`);
a decision regroups the keys of the names it names.  Person ids stay the
same across regroupings as far as the groups allow: a group keeps the id
most of its names had.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    and_,
    bindparam,
    delete,
    func,
    insert,
    or_,
    select,
    true,
    update,
)

from studydb.db.connect import database_errors, writer
from studydb.db.models import Composer, ComposerDecision, Person, Study, StudyComposer
from studydb.errors import ComposerError, QueryError
from studydb.names import (
    Name,
    Suggestion,
    fold,
    group_names,
    parse_name,
    query_names,
    suggest_pairs,
)

__all__ = [
    "DECISION_KINDS",
    "REGISTER_FORMAT",
    "Credit",
    "PersonRow",
    "alias",
    "composer_condition",
    "export_register",
    "import_register",
    "list_persons",
    "merge",
    "name_columns",
    "person",
    "person_studies",
    "persons_of",
    "rebuild",
    "regroup",
    "split",
    "suggestions",
]

#: The kinds of decision a user can make.
DECISION_KINDS = ("same", "apart", "alias")
#: ``format`` of an exported register file.
REGISTER_FORMAT = "studydb-composers"
REGISTER_VERSION = 1
#: Key of the PostgreSQL advisory lock held while the register is regrouped.
_PG_REGISTER_LOCK = 0x5354_5544_5950_52  # "STUDYPR"
#: Names bound in one IN (…) list.
_CHUNK = 5000
_LIKE_ESCAPE = "\\"


def name_columns(name: str) -> dict[str, Any]:
    """The key columns of a ``composers`` row for ``name``.

    >>> name_columns("Réti, Richard")
    {'name': 'Réti, Richard', 'key': 'reti, richard', 'surname_key': 'reti', \
'given_key': 'rihard', 'given_initial': 'r'}
    """
    parsed = parse_name(name)
    keys = parsed.given_keys
    return {
        "name": name,
        "key": fold(name),
        "surname_key": parsed.surname_key,
        "given_key": parsed.full_given[0] if parsed.full_given else None,
        "given_initial": keys[0][:1] if keys else None,
    }


# -- grouping ---------------------------------------------------------------------------


def lock_register(conn: Connection) -> None:
    """On PostgreSQL, serialise writers of the register until the transaction ends."""
    if conn.dialect.name == "postgresql":
        conn.execute(select(func.pg_advisory_xact_lock(_PG_REGISTER_LOCK)))


def _decisions(conn: Connection) -> list[tuple[str, str, str]]:
    rows = conn.execute(
        select(ComposerDecision.kind, ComposerDecision.name, ComposerDecision.other).order_by(
            ComposerDecision.id
        )
    )
    return [(kind, name, other) for kind, name, other in rows]


def regroup(conn: Connection, names: Iterable[str]) -> None:
    """Regroup the persons of every name sharing a surname key with ``names`` (in ``conn``'s
    transaction), following the decisions that link them to other names."""
    decisions = _decisions(conn)
    linked: dict[str, set[str]] = {}
    for kind, a, b in decisions:
        if kind in ("same", "alias"):
            linked.setdefault(a, set()).add(b)
            linked.setdefault(b, set()).add(a)
    wanted = {parse_name(name).surname_key for name in names}
    rows: dict[str, tuple[int, int | None]] = {}
    seen: set[str] = set()
    while wanted - seen:
        fresh = sorted(wanted - seen)
        seen.update(fresh)
        for start in range(0, len(fresh), _CHUNK):
            found = conn.execute(
                select(Composer.name, Composer.id, Composer.person_id).where(
                    Composer.surname_key.in_(fresh[start : start + _CHUNK])
                )
            )
            rows.update({name: (cid, pid) for name, cid, pid in found})
        for name in list(rows):
            for other in linked.get(name, ()):
                wanted.add(parse_name(other).surname_key)
    _apply(conn, rows, decisions)


def rebuild(conn: Connection) -> None:
    """Regroup every name of the register (in ``conn``'s transaction)."""
    rows = {
        name: (cid, pid)
        for name, cid, pid in conn.execute(select(Composer.name, Composer.id, Composer.person_id))
    }
    _apply(conn, rows, _decisions(conn))


def _apply(
    conn: Connection,
    rows: dict[str, tuple[int, int | None]],
    decisions: Sequence[tuple[str, str, str]],
) -> None:
    """Group the names of ``rows`` (name → (id, person id)) and store the persons."""
    if not rows:
        return
    same = [(a, b) for kind, a, b in decisions if kind in ("same", "alias")]
    apart = [(a, b) for kind, a, b in decisions if kind == "apart"]
    aliases = [a for kind, a, _ in decisions if kind == "alias"]
    groups = group_names(rows, same=same, apart=apart, aliases=aliases)
    taken: set[int] = set()
    assigned: list[tuple[tuple[str, ...], int | None]] = []
    # Largest groups choose their id first: a group keeps the id most of its names had.
    for group in sorted(groups, key=lambda g: (-len(g), g)):
        old = Counter(rows[name][1] for name in group if rows[name][1] is not None)
        choice = next((pid for pid, _ in old.most_common() if pid not in taken), None)
        if choice is not None:
            taken.add(choice)
        assigned.append((group, choice))
    _store_persons(conn, rows, assigned)
    stale = sorted({pid for _, pid in rows.values() if pid is not None} - taken)
    for start in range(0, len(stale), _CHUNK):
        chunk = stale[start : start + _CHUNK]
        still = select(Composer.person_id).where(Composer.person_id.in_(chunk))
        conn.execute(delete(Person).where(Person.id.in_(chunk), Person.id.not_in(still)))


def _store_persons(
    conn: Connection,
    rows: dict[str, tuple[int, int | None]],
    assigned: Sequence[tuple[tuple[str, ...], int | None]],
) -> None:
    """Store each group as its person: new persons in one statement, names only where they
    change, and each name moved to its person, in one statement each (not one per person)."""
    shown = [fullest(group) for group, _ in assigned]
    new = [i for i, (_, pid) in enumerate(assigned) if pid is None]
    pids = [pid for _, pid in assigned]
    if new:
        made = conn.execute(
            insert(Person).returning(Person.id, sort_by_parameter_order=True),
            [{"name": shown[i]} for i in new],
        ).scalars()
        for i, pid in zip(new, made, strict=True):
            pids[i] = pid
    kept = [pid for _, pid in assigned if pid is not None]
    names: dict[int, str] = {}
    for start in range(0, len(kept), _CHUNK):
        found = conn.execute(
            select(Person.id, Person.name).where(Person.id.in_(kept[start : start + _CHUNK]))
        )
        names.update({pid: name for pid, name in found})
    renamed = [
        {"pid": pid, "shown": name}
        for (_, old), pid, name in zip(assigned, pids, shown, strict=True)
        if old is not None and names.get(old) != name
    ]
    if renamed:
        conn.execute(
            update(Person).where(Person.id == bindparam("pid")).values(name=bindparam("shown")),
            renamed,
        )
    moved = [
        {"cid": rows[name][0], "pid": pid}
        for (group, _), pid in zip(assigned, pids, strict=True)
        for name in group
        if rows[name][1] != pid
    ]
    if moved:
        conn.execute(
            update(Composer)
            .where(Composer.id == bindparam("cid"))
            .values(person_id=bindparam("pid")),
            moved,
        )


def fullest(names: Sequence[str]) -> str:
    """The name shown for a person: most given names written in full, then most words.

    >>> fullest(["Troitsky", "Troitzky, Alexey Alexeyevich", "A. Troitsky"])
    'Troitzky, Alexey Alexeyevich'
    """

    def rank(name: str) -> tuple[int, int, str]:
        parsed = parse_name(name)
        return (-len(parsed.full_given), -len(parsed.given), name)

    return min(names, key=rank)


# -- reading the register ---------------------------------------------------------------


@dataclass
class PersonRow:
    """A person: id, the name shown, its variants with their study counts, studies, years."""

    id: int
    name: str
    variants: list[tuple[str, int]] = field(default_factory=list)
    studies: int = 0
    first_year: int | None = None
    last_year: int | None = None

    @property
    def years(self) -> str:
        """``1895-1935``, ``1923``, or ``''`` when no study is dated."""
        if self.first_year is None:
            return ""
        if self.first_year == self.last_year:
            return str(self.first_year)
        return f"{self.first_year}-{self.last_year}"

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "id": self.id,
            "name": self.name,
            "variants": [{"name": n, "studies": k} for n, k in self.variants],
            "studies": self.studies,
            "first_year": self.first_year,
            "last_year": self.last_year,
        }


def list_persons(
    engine: Engine, query: str | None = None, *, ids: Sequence[int] | None = None
) -> list[PersonRow]:
    """The persons (those matching ``query`` as ``--composer`` does, or ``ids``), by name."""
    with database_errors(engine), engine.connect() as conn:
        return _persons(conn, query, ids)


def _persons(conn: Connection, query: str | None, ids: Sequence[int] | None) -> list[PersonRow]:
    condition: ColumnElement[bool] = true()
    if query is not None:
        condition = Person.id.in_(_matching_persons(query))
    if ids is not None:
        condition = and_(condition, Person.id.in_(list(ids)))
    persons = {
        pid: PersonRow(pid, name)
        for pid, name in conn.execute(select(Person.id, Person.name).where(condition))
    }
    if not persons:
        return []
    wanted = Composer.person_id.in_(select(Person.id).where(condition))
    variants = conn.execute(
        select(Composer.person_id, Composer.name, func.count(StudyComposer.study_id))
        .outerjoin(StudyComposer, StudyComposer.composer_id == Composer.id)
        .where(wanted)
        .group_by(Composer.id, Composer.person_id, Composer.name)
    )
    for pid, name, k in variants:
        if pid is not None:
            persons[pid].variants.append((name, int(k)))
    totals = conn.execute(
        select(
            Composer.person_id,
            func.count(func.distinct(StudyComposer.study_id)),
            func.min(Study.year),
            func.max(Study.year),
        )
        .join(StudyComposer, StudyComposer.composer_id == Composer.id)
        .join(Study, Study.id == StudyComposer.study_id)
        .where(wanted, Study.kind == "study")
        .group_by(Composer.person_id)
    )
    for pid, k, first, last in totals:
        if pid is None:
            continue
        row = persons[pid]
        row.studies, row.first_year, row.last_year = int(k), first, last
    for row in persons.values():
        row.variants.sort(key=lambda item: (-item[1], fold(item[0]), item[0]))
    return sorted(persons.values(), key=lambda p: (fold(p.name), p.id))


def person(engine: Engine, person_id: int) -> PersonRow | None:
    """One person, or None."""
    if not -(1 << 31) <= person_id < 1 << 31:
        return None
    found = list_persons(engine, ids=[person_id])
    return found[0] if found else None


@dataclass(frozen=True)
class PersonStudy:
    """A study in a person's list: id, GBR code, year, source, stipulation."""

    id: int
    gbr: str
    year: int | None
    source: str | None
    stipulation: str | None


def person_studies(
    engine: Engine, person_id: int, *, limit: int = 500, offset: int = 0
) -> list[PersonStudy]:
    """The studies of a person (oldest first, undated last), at most ``limit`` after the
    first ``offset``."""
    credited = (
        select(StudyComposer.study_id)
        .join(Composer, Composer.id == StudyComposer.composer_id)
        .where(Composer.person_id == person_id)
    )
    statement = (
        select(Study.id, Study.gbr, Study.year, Study.source, Study.stipulation)
        .where(Study.id.in_(credited), Study.kind == "study")
        .order_by(Study.year.asc().nulls_last(), Study.id)
        .limit(limit)
        .offset(offset or None)
    )
    with database_errors(engine), engine.connect() as conn:
        return [PersonStudy(*row) for row in conn.execute(statement)]


class Credit(NamedTuple):
    """A person credited with a study: the person's id and the name shown for the person."""

    id: int
    name: str


def persons_of(conn: Connection, ids: Sequence[int]) -> dict[int, list[Credit]]:
    """The persons credited by each study of ``ids``, in credit order."""
    found: dict[int, list[Credit]] = {}
    ordered = list(ids)
    for start in range(0, len(ordered), _CHUNK):
        rows = conn.execute(
            select(StudyComposer.study_id, Person.id, Person.name)
            .join(Composer, Composer.id == StudyComposer.composer_id)
            .join(Person, Person.id == Composer.person_id)
            .where(StudyComposer.study_id.in_(ordered[start : start + _CHUNK]))
            .order_by(StudyComposer.study_id, StudyComposer.position)
        )
        for study_id, pid, name in rows:
            credits = found.setdefault(study_id, [])
            if (pid, name) not in credits:
                credits.append(Credit(pid, name))
    return found


def suggestions(
    engine: Engine, *, minimum: float = 0.5
) -> list[tuple[Suggestion, PersonRow, PersonRow]]:
    """Pairs of persons that are probably one but were not joined, best first."""
    with database_errors(engine), engine.connect() as conn:
        rows = {p.id: p for p in _persons(conn, None, None)}
        decisions = _decisions(conn)
        person_of = dict(conn.execute(select(Composer.name, Composer.person_id)).all())
    apart = [
        (first, second)
        for kind, a, b in decisions
        if kind == "apart"
        and (first := person_of.get(a)) is not None
        and (second := person_of.get(b)) is not None
    ]
    found = suggest_pairs(
        {pid: [n for n, _ in row.variants] for pid, row in rows.items()},
        years={pid: (row.first_year, row.last_year) for pid, row in rows.items()},
        apart=apart,
        minimum=minimum,
    )
    return [(s, rows[s.first], rows[s.second]) for s in found]


# -- the search condition -------------------------------------------------------------


def _escape_like(text: str) -> str:
    return (
        text.replace(_LIKE_ESCAPE, _LIKE_ESCAPE * 2)
        .replace("%", _LIKE_ESCAPE + "%")
        .replace("_", _LIKE_ESCAPE + "_")
    )


def _name_condition(name: Name) -> ColumnElement[bool]:
    """Names that may be ``name``: its surname key, and its first given name if it has one."""
    keys = name.given_keys
    condition = Composer.surname_key == name.surname_key
    if not keys:
        return condition
    first = keys[0]
    if name.full_given and name.full_given[0] == first:
        # an initial only where the person has no given name in full (R. Reti is not
        # found by Rudolf Reti when he is Richard)
        written_in_full = select(Composer.person_id).where(
            Composer.surname_key == name.surname_key, Composer.given_key.is_not(None)
        )
        given = or_(
            Composer.given_key == first,
            and_(
                Composer.given_key.is_(None),
                Composer.given_initial == first[:1],
                Composer.person_id.not_in(written_in_full),
            ),
        )
    else:  # an initial
        given = Composer.given_initial == first[:1]
    return and_(condition, given)


def _matching_persons(text: str) -> Any:
    """``SELECT person_id`` of the names ``text`` finds (see :func:`composer_condition`)."""
    key = fold(text).strip()
    if not key:
        raise QueryError(f"empty composer name {text!r}", param="--composer")
    conditions: list[ColumnElement[bool]] = [
        Composer.key.like(f"%{_escape_like(key)}%", escape=_LIKE_ESCAPE)
    ]
    conditions.extend(_name_condition(name) for name in query_names(text))
    return select(Composer.person_id).where(or_(*conditions), Composer.person_id.is_not(None))


def composer_condition(text: str) -> ColumnElement[bool]:
    """Studies by the persons ``text`` names: every study of every variant of their names.

    ``text`` finds a name when it is part of it (case, accents and scripts
    folded: ``kubb``), or when it is the same name spelled another way
    (``troitzky``, ``kasparian``, ``Richard Reti``, ``R. Reti``).

    >>> "composers.person_id IN" in str(composer_condition("troitzky"))
    True
    """
    names = select(Composer.id).where(Composer.person_id.in_(_matching_persons(text)))
    return Study.id.in_(select(StudyComposer.study_id).where(StudyComposer.composer_id.in_(names)))


# -- decisions --------------------------------------------------------------------------


def _resolve(conn: Connection, text: str) -> tuple[int, list[str]]:
    """The person ``text`` names (an id, ``#id``, or a name) and its variants.

    :raises ComposerError: when nothing or several persons match.
    """
    stripped = text.strip().lstrip("#")
    if stripped.isdigit():
        pid = int(stripped)
        if pid < 1 << 31:
            variants = _variants(conn, pid)
            if variants:
                return pid, variants
        raise ComposerError(f"no person with id {text.strip()!r}")
    exact = conn.execute(select(Composer.person_id).where(Composer.name == text.strip())).first()
    if exact is not None and exact[0] is not None:
        return exact[0], _variants(conn, exact[0])
    folded = conn.execute(
        select(Composer.person_id).where(Composer.key == fold(text)).distinct()
    ).all()
    pids = [pid for (pid,) in folded if pid is not None]
    if not pids:
        pids = [
            pid
            for (pid,) in conn.execute(
                select(Person.id).where(Person.id.in_(_matching_persons(text)))
            )
        ]
    if not pids:
        raise ComposerError(f"no composer named {text!r}: see `studydb composers`")
    if len(set(pids)) > 1:
        found = conn.execute(
            select(Person.id, Person.name)
            .where(Person.id.in_(sorted(set(pids))))
            .order_by(Person.id)
        )
        listed = ", ".join(f"{pid} ({name})" for pid, name in found)
        raise ComposerError(f"{text!r} names several persons: {listed}; give the id instead")
    return pids[0], _variants(conn, pids[0])


def _variants(conn: Connection, pid: int) -> list[str]:
    return sorted(conn.execute(select(Composer.name).where(Composer.person_id == pid)).scalars())


def _name_of(conn: Connection, text: str) -> str:
    """The stored name ``text`` gives: as written, or folded; else the person's shown name."""
    exact = conn.execute(select(Composer.name).where(Composer.name == text.strip())).first()
    if exact is not None:
        return exact[0]
    folded = conn.execute(select(Composer.name).where(Composer.key == fold(text))).first()
    if folded is not None:
        return folded[0]
    pid, _ = _resolve(conn, text)
    return conn.execute(select(Person.name).where(Person.id == pid)).scalar_one()


def _decide(conn: Connection, kind: str, name: str, other: str) -> None:
    """Store a decision, dropping any contrary one about the same two names."""
    contrary = ("apart",) if kind in ("same", "alias") else ("same", "alias")
    pair = or_(
        and_(ComposerDecision.name == name, ComposerDecision.other == other),
        and_(ComposerDecision.name == other, ComposerDecision.other == name),
    )
    conn.execute(delete(ComposerDecision).where(ComposerDecision.kind.in_(contrary), pair))
    exists = conn.execute(
        select(ComposerDecision.id).where(ComposerDecision.kind == kind, pair)
    ).first()
    if exists is None:
        conn.execute(
            insert(ComposerDecision).values(
                kind=kind, name=name, other=other, made=datetime.now(UTC)
            )
        )


@contextlib.contextmanager
def _write(engine: Engine) -> Iterator[Connection]:
    with database_errors(engine, doing="write to"), writer(engine).begin() as conn:
        lock_register(conn)
        yield conn


def merge(engine: Engine, names: Sequence[str]) -> int:
    """Make the persons ``names`` name (ids or names) one person; returns its id.

    :raises ComposerError: for an unknown or ambiguous name, or fewer than two persons.
    """
    with _write(engine) as conn:
        chosen = [_name_of(conn, text) for text in names]
        pids = {_resolve(conn, name)[0] for name in chosen}
        if len(pids) < 2:
            raise ComposerError(f"{' and '.join(map(repr, names))} are already one person")
        for other in chosen[1:]:
            _decide(conn, "same", chosen[0], other)
        regroup(conn, chosen)
        return _resolve(conn, chosen[0])[0]


def split(engine: Engine, name: str, *, others: Sequence[str] = ()) -> int:
    """Take the name ``name`` out of its person: apart from ``others``, or from all its
    other names when none are given.  Returns the id of ``name``'s person afterwards.

    :raises ComposerError: for an unknown name, or a name alone in its person.
    """
    with _write(engine) as conn:
        chosen = _name_of(conn, name)
        variants = _resolve(conn, chosen)[1]
        away = [_name_of(conn, other) for other in others] or [v for v in variants if v != chosen]
        if not away:
            raise ComposerError(f"{chosen!r} is the only name of its person: nothing to split")
        for other in away:
            conn.execute(
                delete(ComposerDecision).where(
                    ComposerDecision.kind.in_(("same", "alias")),
                    or_(ComposerDecision.name == chosen, ComposerDecision.other == chosen),
                    or_(ComposerDecision.name.in_(variants), ComposerDecision.other.in_(variants)),
                )
            )
            _decide(conn, "apart", chosen, other)
        regroup(conn, [chosen, *away])
        return _resolve(conn, chosen)[0]


def alias(engine: Engine, name: str, of: str) -> int:
    """Add ``name`` as another name of ``of``'s person (a pseudonym, another spelling).

    Searches find the person by it, and studies credited to it join the person.
    """
    cleaned = " ".join(name.split())
    if not cleaned:
        raise ComposerError("an alias needs a name")
    with _write(engine) as conn:
        target = _name_of(conn, of)
        _ensure_names(conn, [cleaned])
        _decide(conn, "alias", cleaned, target)
        regroup(conn, [cleaned, target])
        return _resolve(conn, target)[0]


def _ensure_names(conn: Connection, names: Sequence[str]) -> None:
    known = set(conn.execute(select(Composer.name).where(Composer.name.in_(list(names)))).scalars())
    missing = [name_columns(name) for name in names if name not in known]
    if missing:
        conn.execute(insert(Composer), missing)


# -- the register as a file -------------------------------------------------------------


def export_register(engine: Engine) -> dict[str, Any]:
    """The decisions (and, to read, the persons) as a JSON-ready dict."""
    with database_errors(engine), engine.connect() as conn:
        decisions = _decisions(conn)
        persons = _persons(conn, None, None)
    return {
        "format": REGISTER_FORMAT,
        "version": REGISTER_VERSION,
        "decisions": [{"kind": k, "name": a, "other": b} for k, a, b in decisions],
        "persons": [{"name": p.name, "variants": [n for n, _ in p.variants]} for p in persons],
    }


def import_register(engine: Engine, data: Any, *, source: str = "register") -> int:
    """Apply the decisions of an exported register; returns how many were new.

    :raises ComposerError: when ``data`` is not a register file.
    """
    decisions = _read_register(data, source)
    with _write(engine) as conn:
        before = conn.execute(select(func.count()).select_from(ComposerDecision)).scalar_one()
        aliases = [n for kind, a, b in decisions if kind == "alias" for n in (a, b)]
        if aliases:
            _ensure_names(conn, sorted(set(aliases)))
        for kind, name, other in decisions:
            _decide(conn, kind, name, other)
        after = conn.execute(select(func.count()).select_from(ComposerDecision)).scalar_one()
        regroup(conn, [n for _, a, b in decisions for n in (a, b)])
        return int(after) - int(before)


def _read_register(data: Any, source: str) -> list[tuple[str, str, str]]:
    if not isinstance(data, dict) or data.get("format") != REGISTER_FORMAT:
        raise ComposerError(
            f"{source}: not a studydb composers file (no format {REGISTER_FORMAT!r})"
        )
    if data.get("version") != REGISTER_VERSION:
        raise ComposerError(
            f"{source}: register version {data.get('version')!r},"
            f" this studydb reads {REGISTER_VERSION}"
        )
    found = []
    for number, item in enumerate(data.get("decisions") or [], start=1):
        if (
            not isinstance(item, dict)
            or item.get("kind") not in DECISION_KINDS
            or not isinstance(item.get("name"), str)
            or not isinstance(item.get("other"), str)
            or not item["name"].strip()
            or not item["other"].strip()
        ):
            raise ComposerError(
                f"{source}: decision {number} is not a kind ({', '.join(DECISION_KINDS)}) "
                f"with a name and another name: {str(item)[:80]!r}"
            )
        found.append((item["kind"], item["name"], item["other"]))
    return found
