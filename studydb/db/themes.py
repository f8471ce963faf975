"""Storing and reading the themes of studies (the ``study_themes`` table).

Who writes what: a replay (the import's, ``studydb index``) replaces a
study's ``pgn`` themes and its ``auto`` themes other than mutual zugzwang;
``studydb check`` replaces its mutual zugzwangs, since they need the tables.
A study has been looked at for mutual zugzwangs when it was checked with
tables (its ``checks`` row names them).

>>> [row["theme"] for row in theme_rows(7, [Theme("mate", 9)])]
['mate']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, and_, delete, func, or_, select

from studydb.db.bulk import write_rows
from studydb.db.connect import database_errors
from studydb.db.models import Study, StudyCheck, StudyIndex, StudyTheme
from studydb.themes import AUTO, PGN, SYZYGY_MEN, Theme
from studydb.vocabulary import TABLE_THEMES

__all__ = [
    "TABLE_THEMES",
    "StudyThemes",
    "count_themes",
    "replace_themes",
    "study_themes",
    "theme_condition",
    "theme_counts",
    "theme_rows",
    "themes_of",
]

#: Themes that need the tables: written by ``studydb check``, not by a replay.
#: Study ids per ``IN (…)`` list.
_CHUNK = 500
#: The columns of a ``study_themes`` row :func:`replace_themes` writes (the id is the
#: database's).
THEME_COLUMNS = ("study_id", "theme", "ply", "detail", "source")


def theme_rows(study_id: int, themes: Iterable[Theme]) -> list[dict[str, Any]]:
    """The ``study_themes`` rows of one study's themes."""
    return [
        {
            "study_id": study_id,
            "theme": theme.name,
            "ply": theme.ply,
            "detail": theme.detail,
            "source": theme.source,
        }
        for theme in themes
    ]


def _replaced(*, tables: bool) -> ColumnElement[bool]:
    """The rows a replay replaces (``tables=False``) or a check replaces (``tables=True``)."""
    if tables:
        return and_(StudyTheme.source == AUTO, StudyTheme.theme.in_(TABLE_THEMES))
    return or_(
        StudyTheme.source == PGN,
        and_(StudyTheme.source == AUTO, StudyTheme.theme.not_in(TABLE_THEMES)),
    )


def replace_themes(
    conn: Connection,
    studies: Sequence[tuple[int, Sequence[Theme]]],
    *,
    tables: bool = False,
    fresh: bool = False,
) -> int:
    """Store the themes of ``(study id, themes)`` pairs in the caller's transaction.

    Without ``tables`` the themes are those of a replay (the tags' and the
    main line's); with it, those found with the tables (mutual zugzwangs).
    The study's earlier themes of the same kind are deleted first, unless
    ``fresh`` (studies just inserted).  Returns the number of rows written.
    """
    if not fresh:
        ids = [study_id for study_id, _ in studies]
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            conn.execute(
                delete(StudyTheme).where(StudyTheme.study_id.in_(chunk), _replaced(tables=tables))
            )
    rows = [
        (study_id, theme.name, theme.ply, theme.detail, theme.source)
        for study_id, themes in studies
        for theme in themes
    ]
    write_rows(conn, "study_themes", THEME_COLUMNS, rows)
    return len(rows)


def themes_of(conn: Connection, study_ids: Sequence[int]) -> dict[int, list[Theme]]:
    """The stored themes of each study, by ply (the tags' first), then name."""
    found: dict[int, list[Theme]] = {}
    for start in range(0, len(study_ids), _CHUNK):
        chunk = list(study_ids[start : start + _CHUNK])
        rows = conn.execute(
            select(
                StudyTheme.study_id,
                StudyTheme.theme,
                StudyTheme.ply,
                StudyTheme.detail,
                StudyTheme.source,
            ).where(StudyTheme.study_id.in_(chunk))
        )
        for study_id, name, ply, detail, source in rows:
            found.setdefault(study_id, []).append(Theme(name, ply, detail, source))
    for themes in found.values():
        themes.sort(key=lambda t: (t.ply is not None, t.ply or 0, t.name, t.detail or ""))
    return found


def theme_condition(names: Sequence[str]) -> ColumnElement[bool]:
    """Studies having every one of the themes ``names`` (any source).

    >>> print(theme_condition(["mate"]))  # doctest: +NORMALIZE_WHITESPACE
    studies.id IN (SELECT study_themes.study_id FROM study_themes
    WHERE study_themes.theme = :theme_1)
    """
    return and_(
        *(
            Study.id.in_(select(StudyTheme.study_id).where(StudyTheme.theme == name))
            for name in names
        )
    )


def count_themes(
    conn: Connection, condition: ColumnElement[bool] | None = None
) -> list[tuple[str, int]]:
    """How many studies (of those ``condition`` selects) have each theme, most first."""
    studies = func.count(func.distinct(StudyTheme.study_id))
    statement = select(StudyTheme.theme, studies).group_by(StudyTheme.theme)
    if condition is not None:
        statement = statement.where(StudyTheme.study_id.in_(select(Study.id).where(condition)))
    rows = [(name, int(n)) for name, n in conn.execute(statement)]
    return sorted(rows, key=lambda row: (-row[1], row[0]))


def theme_counts(
    engine: Engine, condition: ColumnElement[bool] | None = None
) -> list[tuple[str, int]]:
    """:func:`count_themes` in a connection of its own: what ``studydb themes`` lists."""
    with database_errors(engine), engine.connect() as conn:
        return count_themes(conn, condition)


@dataclass(frozen=True)
class StudyThemes:
    """A study's themes, the men of the tables it was searched for mutual zugzwangs with,
    and whether its main line was searched for the others.

    ``zugzwang_tables`` is None when it was never checked with tables: its
    mutual zugzwangs were not looked for.  ``main_line_searched`` is False for a study
    not in the position index (imported with ``--positions none``): only the themes its
    tags name are known.
    """

    themes: list[Theme]
    zugzwang_tables: int | None
    main_line_searched: bool = True
    #: The last ply searched of a main line that breaks off at an illegal move (None: the
    #: line is whole, or was not searched).
    searched_to: int | None = None

    @property
    def fully_searched(self) -> bool:
        """Whether the whole main line was searched: "none found" means none there."""
        return self.main_line_searched and self.searched_to is None

    def search_note(self) -> str | None:
        """What to say when the main line was not searched for themes, or only in part.

        >>> StudyThemes([], None, main_line_searched=False).search_note()[:34]
        'main line not searched for themes:'
        >>> StudyThemes([], None, searched_to=10).search_note()
        'main line searched for themes up to ply 10 only: ply 11 is illegal'
        >>> StudyThemes([], None).search_note() is None
        True
        """
        if not self.main_line_searched:
            return (
                "main line not searched for themes: the study is not in the position index"
                " (studydb index indexes it)"
            )
        if self.searched_to is not None:
            return (
                f"main line searched for themes up to ply {self.searched_to} only:"
                f" ply {self.searched_to + 1} is illegal"
            )
        return None

    def zugzwang_note(self) -> str | None:
        """What to say about mutual zugzwangs when none is listed.

        >>> StudyThemes([], None).zugzwang_note()
        'mutual zugzwang not looked for (studydb check with tables looks for it)'
        >>> StudyThemes([], 4).zugzwang_note()
        'no mutual zugzwang within the 4-man tables'
        """
        if self.zugzwang_tables is None:
            return "mutual zugzwang not looked for (studydb check with tables looks for it)"
        if any(t.name == "mutual-zugzwang" for t in self.themes):
            return None
        return f"no mutual zugzwang within the {self.zugzwang_tables}-man tables"

    def as_dict(self) -> dict[str, Any]:
        return {
            "themes": [
                {"name": t.name, "ply": t.ply, "detail": t.detail, "source": t.source}
                for t in self.themes
            ],
            "mutual_zugzwang_tables": self.zugzwang_tables,
            "main_line_searched": self.fully_searched,
            "main_line_searched_to": self.searched_to,
        }


def study_themes(engine: Engine, study_id: int) -> StudyThemes:
    """A stored study's themes and whether its mutual zugzwangs were looked for."""
    with database_errors(engine), engine.connect() as conn:
        themes = themes_of(conn, [study_id]).get(study_id, [])
        checked = conn.execute(
            select(StudyCheck.tables_men).where(StudyCheck.study_id == study_id)
        ).first()
        indexed = conn.execute(
            select(StudyIndex.study_id).where(StudyIndex.study_id == study_id)
        ).first()
        invalid = conn.execute(
            select(Study.fen, Study.pgn).where(Study.id == study_id, Study.valid.is_(False))
        ).first()
    men = None if checked is None else (checked[0] or SYZYGY_MEN)
    searched_to = None
    if indexed is not None and invalid is not None:  # its replay stopped at an illegal move
        searched_to = _main_line_end(invalid.fen, invalid.pgn)
    return StudyThemes(themes, men, main_line_searched=indexed is not None, searched_to=searched_to)


def _main_line_end(fen: str, pgn: str) -> int | None:
    """The last legal ply of a stored main line that breaks off at an illegal move (None:
    its illegal moves are in variations only)."""
    from studydb.movetext import lines, movetext_of, start_board  # python-chess: here only
    from studydb.pgn import tags_of

    main = lines(start_board(fen, tags_of(pgn)), movetext_of(pgn), variations=False)
    return len(main[0].moves) if main and main[0].error else None
