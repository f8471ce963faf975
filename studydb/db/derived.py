"""What the stored rows imply by today's rules, brought up to date after a schema upgrade.

The migrations change the schema only, and never import studydb's code: an
old database must upgrade the same way however the rules change later.  What
is derived from the stored data by those rules (a composer name's keys and
person, an entry's kind) is refreshed here, by the code of the studydb doing
the upgrade, in the upgrade's transaction (:func:`studydb.db.connect.upgrade`).

Each rule names the revision that brought it: an upgrade from before that
revision to it or past it applies the rule.

>>> [rule.revision for rule in RULES]
['0007', '0018']
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Connection, bindparam, select, update

from studydb.db.classify import entry_kind
from studydb.db.models import Composer, Study
from studydb.db.persons import name_columns, regroup
from studydb.pgn import read_games, tags_of
from studydb.vocabulary import STUDY, TEXT

__all__ = ["RULES", "Rule", "refresh"]

#: Rows read or written a statement.
BATCH = 1000
#: The start position of an entry without a FEN tag.
STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#: The key columns of a name (``composers``), as :func:`name_columns` gives them.
KEY_COLUMNS = ("key", "surname_key", "given_key", "given_initial")


@dataclass(frozen=True)
class Rule:
    """Derived data a revision brought, and how to bring a database's up to date."""

    revision: str
    what: str
    apply: Callable[[Connection], None]


def mark_text_entries(conn: Connection) -> None:
    """``kind = 'text'`` for the stored entries with no FEN tag and no moves."""
    rows = conn.execute(
        select(Study.id, Study.pgn)
        .where(Study.fen == STARTING_FEN, Study.kind == STUDY)
        .execution_options(yield_per=BATCH)
    )
    text = [sid for sid, pgn in rows if entry_kind(tags_of(pgn), _movetext(pgn)) == TEXT]
    for start in range(0, len(text), BATCH):
        conn.execute(
            update(Study).where(Study.id.in_(text[start : start + BATCH])).values(kind=TEXT)
        )


def _movetext(pgn: str) -> str:
    """The movetext of a stored game (its text as read)."""
    games = list(read_games(io.BytesIO(pgn.encode("utf-8")), name="stored"))
    return games[0].movetext if games else ""


def rekey_names(conn: Connection) -> None:
    """Give every name the keys today's rules give it; regroup the names whose keys changed,
    with every name of their old and new surname keys (the users' decisions kept)."""
    columns = [Composer.__table__.c[c] for c in KEY_COLUMNS]
    changed: list[tuple[int, str, str | None, dict[str, str | None]]] = []
    for cid, name, *stored in conn.execute(select(Composer.id, Composer.name, *columns)):
        fresh = name_columns(name)
        if [fresh[c] for c in KEY_COLUMNS] != stored:
            changed.append((cid, name, stored[1], fresh))
    if not changed:
        return
    old_keys = sorted({old for _, _, old, _ in changed if old is not None})
    old_bucket = [
        name
        for start in range(0, len(old_keys), BATCH)
        for (name,) in conn.execute(
            select(Composer.name).where(Composer.surname_key.in_(old_keys[start : start + BATCH]))
        )
    ]
    table = Composer.__table__
    statement = (
        update(table)
        .where(table.c.id == bindparam("b_id"))
        .values({c: bindparam(f"b_{c}") for c in KEY_COLUMNS})
    )
    for start in range(0, len(changed), BATCH):
        conn.execute(
            statement,
            [
                {"b_id": cid, **{f"b_{c}": fresh[c] for c in KEY_COLUMNS}}
                for cid, _, _, fresh in changed[start : start + BATCH]
            ],
        )
    regroup(conn, [name for _, name, _, _ in changed] + old_bucket)


#: The rules, in the order they apply.
RULES = (
    Rule(
        "0007", "entries with no set-up position and no moves are text entries", mark_text_entries
    ),
    # 0007 brought the keys and persons, 0010 keys with digits, 0018 (a studydb of its
    # time) initials after a surname ('Reti R.') and particles alone ('de Feijter') read
    # as such: one rule brings them all.
    Rule("0018", "every name has today's keys and its person", rekey_names),
)


def refresh(conn: Connection, *, before: str | None, after: str) -> list[str]:
    """Apply the rules an upgrade from revision ``before`` to ``after`` crosses (in ``conn``'s
    transaction), and return what each did.  A new database (``before`` None) has nothing to
    refresh.

    Revisions compare as their four-digit names do.
    """
    if before is None:
        return []
    done = []
    for rule in RULES:
        if before < rule.revision <= after:
            rule.apply(conn)
            done.append(rule.what)
    return done
