"""The library's entry point: one object for a study database, opened by :func:`studydb.open`.

Everything the command line and the web do with a database goes through a
:class:`Database`: searching, counting, reading a study, statistics,
importing, indexing, checking, anticipation and versions.  Neither of them
runs SQL of its own.

>>> import studydb, tempfile, pathlib
>>> folder = tempfile.TemporaryDirectory()
>>> with studydb.open(pathlib.Path(folder.name) / "studies.sqlite") as db:
...     db.count()
0
>>> folder.cleanup()
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from studydb import arguments as _arguments
from studydb.db import rejects as _rejects
from studydb.db import search as _search
from studydb.db import stats as _stats
from studydb.db.connect import describe, open_database, open_read_only
from studydb.errors import (
    ArgumentError,
    DatabaseError,
    PgnError,
    QueryError,
    argument_error,
    quote,
)
from studydb.filters import DEFAULT_MIN_MEN, SPECS, Filters

if TYPE_CHECKING:  # imported where used: the index, checks and import load more
    from sqlalchemy import Engine

    from studydb.db.anticipate import Anticipation, GameToCheck, GroupedVersion, Related
    from studydb.db.checks import CheckConfig, CheckSummary, ResultCallback
    from studydb.db.checks import ProgressCallback as CheckProgress
    from studydb.db.importer import ImportSummary, ProgressCallback
    from studydb.db.index import IndexProgress, IndexSummary
    from studydb.db.persons import PersonRow, PersonStudy
    from studydb.db.report import ReportOptions
    from studydb.db.search import StoredStudy, StudyRow
    from studydb.db.stats import Stats
    from studydb.db.themes import StudyThemes
    from studydb.names import Suggestion
    from studydb.pgn import RawGame
    from studydb.report import Report
    from studydb.soundness.verdict import StoredCheck

__all__ = ["Database", "open_database_at"]

#: The largest ``limit`` and ``offset`` of a search: SQL's 64-bit integers.
MAX_ROWS = 2**63 - 1


def open_database_at(
    db: str | os.PathLike[str] | None = None, *, read_only: bool = False, write: bool = True
) -> Database:
    """Open the database at ``db`` (a SQLite path or a URL; None: ``$STUDYDB_DB`` or the default).

    ``read_only`` opens it for reading only, enforced by the connection (as
    ``serve`` does); ``write=False`` opens an existing database at the latest
    schema without creating or migrating it; else it is created and migrated
    as needed.

    :raises DatabaseError: if it cannot be opened.
    """
    _arguments.flags(read_only=read_only, write=write)
    if db is not None and not isinstance(db, (str, os.PathLike)):
        raise argument_error("db", db, "a path, a URL or None (the default database)")
    if db is not None and os.fspath(db) == "":
        raise DatabaseError("no database given: an empty path (None opens the default database)")
    if read_only:
        return Database(open_read_only(db), read_only=True)
    return Database(open_database(db, write=write))


#: What ``import_paths`` replays and indexes: its ``positions`` values.
POSITIONS = ("studies", "all", "none")


def _filters(filters: Filters | None, given: dict[str, Any] | None = None) -> Filters | None:
    """``filters``, or the filters given by name (not both).

    :raises ArgumentError: for ``filters`` that are not a :class:`Filters` (or None).
    """
    if filters is not None and not isinstance(filters, Filters):
        raise argument_error("filters", filters, "a studydb.Filters or None")
    if not given:
        return filters
    unknown = sorted(set(given) - {spec.field for spec in SPECS})
    if unknown:
        raise ArgumentError(
            f"unknown filter {quote(unknown[0])}: the filters are the fields of studydb.Filters"
        )
    if filters is not None:
        raise ArgumentError("give a Filters or filters by name, not both")
    return Filters(**given)


def _stored(name: str, value: Any) -> bool:
    """Whether ``value``, a whole number, could be a stored id (a larger one names none).

    >>> _stored("study_id", 1), _stored("study_id", 10**30)
    (True, False)
    """
    _arguments.whole(name, value)
    return _search.is_id_in_range(value)


def _in_range(name: str, values: Any) -> list[int]:
    """The ids of ``values`` that could be stored (a sequence of whole numbers)."""
    _arguments.ids(name, values)
    return [value for value in values if _search.is_id_in_range(value)]


class Database:
    """A study database: search it, read studies, import into it, index and check it.

    ``engine`` is the SQLAlchemy engine underneath, for what this class does not do.
    Use it as a context manager, or call :meth:`close`, to release its connections;
    closed, it raises :class:`~studydb.errors.DatabaseError` when used.
    Opened ``read_only``, the methods that write (:meth:`import_paths`,
    :meth:`index`, :meth:`check`) raise :class:`~studydb.errors.DatabaseError`.
    """

    def __init__(self, engine: Engine, *, read_only: bool = False) -> None:
        self._engine = engine
        self.read_only = read_only
        self.closed = False

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine underneath.

        :raises DatabaseError: once the database is closed.
        """
        if self.closed:
            raise DatabaseError(
                f"{self.location} is closed: use it before close() or the end of its with "
                "block, or open it again (studydb.open)"
            )
        return self._engine

    def __repr__(self) -> str:
        return f"<studydb.Database {self.location}>"

    def __enter__(self) -> Database:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def location(self) -> str:
        """Where the database is: a SQLite file's path, or the URL without its password."""
        return describe(str(self._engine.url))

    def close(self) -> None:
        """Close the database's connections; using it afterwards raises
        :class:`~studydb.errors.DatabaseError` (closing it again does nothing).  What it
        gave before, a search being read, reads on to its end."""
        self.closed = True
        self._engine.dispose()

    def resolved(self, filters: Filters | None) -> Filters | None:
        """``filters`` with what their pattern (``--pattern``, ``--pieces``) and their line
        (``--line``) find looked up.

        Every method does it; a caller that runs several queries with the same
        filters (a page and its count) does it once, here.
        """
        filters = _filters(filters)
        if filters is None:
            return None
        # Imported for a pattern or a line only: they and python-chess are slow to import.
        if filters.parsed("pattern") is not None or filters.parsed("pieces") is not None:
            from studydb.db import patterns

            filters = patterns.resolve(self.engine, filters)
        if filters is not None and filters.line is not None:
            from studydb.db import lines

            filters = lines.resolve(self.engine, filters)
        return filters

    def _check_writable(self, doing: str) -> None:
        if self.read_only:
            raise DatabaseError(f"cannot {doing}: {self.location} is opened read-only")

    # -- finding studies ---------------------------------------------------------------

    def search(
        self,
        filters: Filters | None = None,
        *,
        sort: str = "gbr",
        limit: int | None = None,
        offset: int = 0,
        with_pgn: bool = False,
        **given: Any,
    ) -> Iterator[StudyRow]:
        """Stream the studies matching ``filters`` (all with None), sorted by ``sort``.

        Filters may also be given by name: ``db.search(pieces="R[a-h]7", main_line=True)``.

        :raises QueryError: for a bad sort key, limit or offset, or a malformed filter.
        :raises ArgumentError: for one of the wrong type.
        """
        _arguments.text("sort", sort)
        _arguments.flags(with_pgn=with_pgn)
        _arguments.whole("limit", limit, optional=True)
        _arguments.whole("offset", offset)
        if max(limit or 0, offset) > MAX_ROWS:
            raise QueryError(f"--limit and --offset must be at most {MAX_ROWS:,}")
        return _search.search(
            self.engine,
            self.resolved(_filters(filters, given)),
            sort=sort,
            limit=limit,
            offset=offset,
            with_pgn=with_pgn,
        )

    def count(self, filters: Filters | None = None, **given: Any) -> int:
        """How many studies match ``filters`` (all of them with None), or the filters named.

        >>> import studydb, tempfile, pathlib
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     with studydb.open(pathlib.Path(folder) / "s.sqlite") as db:
        ...         db.count(pattern="*/*/*/*/*/*/*/K*", main_line=True)
        0
        """
        return _search.count(self.engine, self.resolved(_filters(filters, given)))

    def unindexed(
        self, filters: Filters | None = None, *, theme_counts: bool = False, **given: Any
    ) -> int:
        """How many studies the position index could not answer for: those the filters
        other than ``position``, ``pattern``, ``pieces``, ``line``, ``reaches``,
        ``ends_in`` and ``themes`` select that are not indexed (imported with
        ``positions="none"``, or games from the initial position); 0 when none of those
        filters is given, unless ``theme_counts`` (for theme counts, which the index's
        replay makes, whatever the filters).

        A search by those filters found its studies among the others only.
        """
        _arguments.flags(theme_counts=theme_counts)
        return _search.unindexed(self.engine, _filters(filters, given), theme_counts=theme_counts)

    def unchecked(self, filters: Filters | None = None, **given: Any) -> int:
        """How many studies a search for mutual zugzwangs (``themes``) could not find:
        those the other filters select that were never checked with tables, the only
        search for them (``studydb check``); 0 when that theme is not asked for."""
        return _search.unchecked(self.engine, _filters(filters, given))

    def not_indexed(
        self, filters: Filters | None = None, *, exclude: int | None = None, **given: Any
    ) -> int:
        """How many of the studies ``filters`` select (all with None), study ``exclude``
        left out, have no position index: what position searches, anticipations and
        shared positions pass over."""
        _arguments.whole("exclude", exclude, optional=True)
        return _search.not_indexed(self.engine, _filters(filters, given), exclude=exclude)

    def not_compared(self, *, min_men: int = DEFAULT_MIN_MEN, exclude: int | None = None) -> int:
        """How many stored studies (study ``exclude`` left out) a search for positions of
        ``min_men`` men or more shared with another study passes over: those not in the
        position index (``anticipate``, ``show`` and the study page say so)."""
        _arguments.whole("min_men", min_men)
        _arguments.whole("exclude", exclude, optional=True)
        return _search.not_compared(self.engine, min_men=min_men, exclude=exclude)

    def study(self, study_id: int) -> StoredStudy | None:
        """Everything stored about one study, or None if there is none."""
        _arguments.whole("study_id", study_id)
        return _search.fetch_study(self.engine, study_id)

    def study_game(self, study_id: int) -> GameToCheck | None:
        """A stored study's id, start FEN, movetext and year, or None if there is none."""
        from studydb.db.anticipate import study_game

        if not _stored("study_id", study_id):
            return None
        return study_game(self.engine, study_id)

    def games_named(self, arguments: Sequence[str]) -> Iterator[GameToCheck]:
        """Each game the arguments name: a stored study's id, or every game of a PGN file.

        >>> import studydb, tempfile, pathlib
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     with studydb.open(pathlib.Path(folder) / "s.sqlite") as db:
        ...         next(db.games_named(["7"]))
        Traceback (most recent call last):
        ...
        studydb.errors.QueryError: no study with id 7 in .../s.sqlite
        """
        from studydb.db.anticipate import games_named

        _arguments.texts("arguments", arguments)
        if "" in arguments:
            raise PgnError("an empty path names no file")
        return games_named(self.engine, arguments)

    def stored_id(self, game: RawGame) -> int | None:
        """The id of the stored copy of this very game, if it was imported."""
        from studydb.pgn import RawGame

        if not isinstance(game, RawGame):
            raise argument_error("game", game, "a RawGame (what studydb.pgn.read_games gives)")
        return _search.stored_id(self.engine, game)

    def start_fens(self, ids: Sequence[int]) -> dict[int, str]:
        """The start position of each study of ``ids`` that exists."""
        return _search.start_fens(self.engine, _in_range("ids", ids))

    def same_start_among(self, filters: Filters | None, ids: Sequence[int]) -> dict[int, list[int]]:
        """For each study of ``ids``, the studies ``filters`` select with its start position."""
        return _search.same_start_among(self.engine, self.resolved(filters), _in_range("ids", ids))

    def stats(self, filters: Filters | None = None, *, top: int = 10, **given: Any) -> Stats:
        """Statistics of the studies matching ``filters`` (or the filters named); ``top``
        bounds the ranked lists."""
        _arguments.whole("top", top)
        return _stats.stats(self.engine, self.resolved(_filters(filters, given)), top=top)

    # -- importing -------------------------------------------------------------------

    def import_paths(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        validate: bool = False,
        positions: str = "studies",
        jobs: int | None = None,
        batch_size: int | None = None,
        progress: ProgressCallback | None = None,
        salvage: bool = False,
        max_game_bytes: int | None = None,
    ) -> ImportSummary:
        """Import PGN files, directories (recursively) or ``'-'`` (standard input).

        ``positions`` replays and indexes ``'studies'`` (games with a FEN tag),
        ``'all'`` games or ``'none'``; ``validate`` replays every move.
        ``batch_size``: games per transaction (None: the import's default).
        ``salvage``: of a damaged compressed file, store the games in its
        verified part (else none of its games).  ``max_game_bytes``: a larger
        game is a reject (None: 32 MB).
        """
        from studydb.db.importer import BATCH_SIZE, import_paths
        from studydb.pgn import MAX_GAME_BYTES

        self._check_writable("import")
        if isinstance(paths, (str, bytes, os.PathLike)):  # its letters would be paths: '/'
            raise argument_error("paths", paths, "a list of paths (write [path] for one)")
        paths = list(paths)
        for path in paths:
            if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes):
                raise argument_error("each of paths", path, "a path (a text or a Path)")
            if os.fspath(path) == "":  # read as '.': the whole folder
                raise PgnError("an empty path names no file (write '.' for this folder)")
        if paths.count("-") > 1:
            raise PgnError("standard input ('-') can be read only once")
        if positions not in POSITIONS:
            raise QueryError(
                f"bad positions {quote(str(positions))}: expected one of {', '.join(POSITIONS)}",
                param="--positions",
            )
        _arguments.whole("jobs", jobs, optional=True)
        _arguments.whole("batch_size", batch_size, optional=True)
        _arguments.flags(validate=validate, salvage=salvage)
        return import_paths(
            self.engine,
            paths,
            validate=validate,
            positions=positions,
            jobs=jobs,
            batch_size=batch_size or BATCH_SIZE,
            progress=progress,
            salvage=salvage,
            max_game_bytes=max_game_bytes or MAX_GAME_BYTES,
        )

    def rejects(self) -> Iterator[tuple[int, str | None, int | None, str]]:
        """The games imports rejected, oldest first: ``(id, file, line, reason)``."""
        return _rejects.rejects(self.engine)

    def reject_texts(self) -> Iterator[bytes]:
        """The rejected games' bytes exactly as read, oldest first."""
        return _rejects.reject_texts(self.engine)

    # -- the position index, anticipation, versions ------------------------------------

    def index(
        self,
        filters: Filters | None = None,
        *,
        reindex: bool = False,
        jobs: int | None = None,
        batch_size: int | None = None,
        progress: IndexProgress | None = None,
    ) -> IndexSummary:
        """Index the positions of the selected studies that lack an index (all with ``reindex``).

        ``jobs``: worker processes (None: all cores, for 200 studies or more).
        ``batch_size``: studies per transaction (None: the index's default).
        """
        from studydb.db.index import BATCH_SIZE, index_studies

        self._check_writable("write the position index")
        _filters(filters)
        _arguments.flags(reindex=reindex)
        _arguments.whole("jobs", jobs, optional=True)
        _arguments.whole("batch_size", batch_size, optional=True)
        return index_studies(
            self.engine,
            self.resolved(filters),
            reindex=reindex,
            jobs=jobs,
            batch_size=batch_size or BATCH_SIZE,
            progress=progress,
        )

    def anticipations(
        self,
        fen: str,
        movetext: str,
        *,
        similar: bool = False,
        either_colour: bool = False,
        min_men: int = DEFAULT_MIN_MEN,
        before: int | None = None,
        exclude: int | None = None,
        filters: Filters | None = None,
    ) -> list[Anticipation]:
        """The stored studies sharing positions with a game (start FEN and movetext), best first.

        :raises QueryError: for a FEN that is no position.
        """
        from studydb.db.anticipate import anticipations
        from studydb.filters import parse_position

        _arguments.text("fen", fen)
        _arguments.flags(similar=similar, either_colour=either_colour)
        _arguments.text("movetext", movetext)
        _arguments.whole("min_men", min_men)
        _arguments.whole("before", before, optional=True)
        _arguments.whole("exclude", exclude, optional=True)
        parse_position(fen)

        return anticipations(
            self.engine,
            fen,
            movetext,
            similar=similar,
            either_colour=either_colour,
            min_men=min_men,
            before=before,
            exclude=exclude,
            filters=filters,
        )

    def related(
        self,
        study: StoredStudy,
        *,
        min_men: int = DEFAULT_MIN_MEN,
        versions_page: int = 1,
        most: int | None = None,
    ) -> Related:
        """The studies sharing positions with a stored one (from :meth:`study`), and a page
        of its versions (``versions_total`` counts them all); with ``most``, the positions
        shared are looked for in its first ``most`` moves only (a bounded cost)."""
        from studydb.db.anticipate import related_studies
        from studydb.db.search import StoredStudy

        if not isinstance(study, StoredStudy):
            raise argument_error("study", study, "a StoredStudy (what Database.study gives)")
        _arguments.whole("min_men", min_men)

        return related_studies(
            self.engine, study, min_men=min_men, versions_page=versions_page, most=most
        )

    def versions(
        self,
        filters: Filters | None = None,
        *,
        similar: bool = False,
        either_colour: bool = False,
    ) -> list[list[GroupedVersion]]:
        """Groups of selected studies whose start positions match, each oldest first."""
        from studydb.db.anticipate import versions

        _filters(filters)
        _arguments.flags(similar=similar, either_colour=either_colour)
        return versions(
            self.engine, self.resolved(filters), similar=similar, either_colour=either_colour
        )

    # -- the register of persons (composers) -------------------------------------------

    def persons(
        self, query: str | None = None, *, ids: Sequence[int] | None = None
    ) -> list[PersonRow]:
        """The persons (those ``query`` finds as ``--composer`` does, or ``ids``), by name."""
        from studydb.db.persons import list_persons

        _arguments.text("query", query, optional=True)
        if ids is not None:
            _arguments.ids("ids", ids, of="person")
        return list_persons(self.engine, query, ids=ids)

    def person(self, person_id: int) -> PersonRow | None:
        """One person, or None."""
        from studydb.db.persons import person

        if not _stored("person_id", person_id):
            return None
        return person(self.engine, person_id)

    def person_studies(
        self, person_id: int, *, limit: int = 500, offset: int = 0
    ) -> list[PersonStudy]:
        """The studies of a person (oldest first, undated last), at most ``limit`` after the
        first ``offset``."""
        from studydb.db.persons import person_studies

        _arguments.whole("limit", limit)
        _arguments.whole("offset", offset)
        if not _stored("person_id", person_id):
            return []
        return person_studies(self.engine, person_id, limit=limit, offset=offset)

    def person_suggestions(
        self, *, minimum: float = 0.5
    ) -> list[tuple[Suggestion, PersonRow, PersonRow]]:
        """Pairs of persons that are probably one but were not joined, best first."""
        from studydb.db.persons import suggestions

        _arguments.number("minimum", minimum)
        return suggestions(self.engine, minimum=minimum)

    def merge_persons(self, names: Sequence[str]) -> int:
        """Make the persons ``names`` name (ids or names) one person; returns its id."""
        from studydb.db.persons import merge

        self._check_writable("change the register")
        _arguments.texts("names", names)
        return merge(self.engine, names)

    def split_person(self, name: str, *, others: Sequence[str] = ()) -> int:
        """Take the name ``name`` out of its person (apart from ``others``, or from all)."""
        from studydb.db.persons import split

        self._check_writable("change the register")
        _arguments.text("name", name)
        _arguments.texts("others", others)
        return split(self.engine, name, others=others)

    def add_alias(self, name: str, of: str) -> int:
        """Add ``name`` as another name of ``of``'s person; returns the person's id."""
        from studydb.db.persons import alias

        self._check_writable("change the register")
        _arguments.text("name", name)
        _arguments.text("of", of)
        return alias(self.engine, name, of)

    def export_register(self) -> dict[str, Any]:
        """The register's decisions (and, to read, the persons) as a JSON-ready dict."""
        from studydb.db.persons import export_register

        return export_register(self.engine)

    def import_register(self, data: Any, *, source: str = "register") -> int:
        """Apply the decisions of an exported register; returns how many were new."""
        from studydb.db.persons import import_register

        self._check_writable("change the register")
        return import_register(self.engine, data, source=source)

    # -- themes and the judge's report -----------------------------------------------

    def study_themes(self, study_id: int) -> StudyThemes:
        """The stored themes of one study, and whether mutual zugzwangs were looked for."""
        from studydb.db.themes import StudyThemes, study_themes

        if not _stored("study_id", study_id):
            return StudyThemes(themes=[], zugzwang_tables=None)
        return study_themes(self.engine, study_id)

    def theme_counts(self, filters: Filters | None = None) -> list[tuple[str, int]]:
        """Every theme of the selected studies with how many studies have it."""
        from studydb.db.conditions import build_condition
        from studydb.db.themes import theme_counts

        return theme_counts(self.engine, build_condition(self.resolved(filters)))

    def report(self, path: str, options: ReportOptions) -> Report:
        """A judge's report on the entries of a PGN file (``'-'``: standard input)."""
        from studydb.db.report import ReportOptions, build_report

        _arguments.text("path", path)
        if path == "":
            raise PgnError("an empty path names no file")
        if not isinstance(options, ReportOptions):
            raise argument_error("options", options, "a ReportOptions")
        return build_report(self.engine, path, options)

    # -- soundness checks ------------------------------------------------------------

    def check(
        self,
        filters: Filters | None,
        config: CheckConfig,
        *,
        ids: Sequence[int] = (),
        recheck: bool = False,
        jobs: int | None = None,
        batch_size: int | None = None,
        progress: CheckProgress | None = None,
        on_result: ResultCallback | None = None,
    ) -> CheckSummary:
        """Check the selected studies with tables (and an engine) and store their verdicts.

        ``ids``: only these studies (among those ``filters`` select);
        ``jobs``: worker processes (None: all cores, for 200 studies or more);
        ``batch_size``: studies per transaction (None: the checks' default).
        """
        from studydb.db.checks import BATCH_SIZE, CheckConfig, check_studies

        self._check_writable("store checks")
        _filters(filters)
        if not isinstance(config, CheckConfig):
            raise argument_error("config", config, "a CheckConfig")
        _arguments.ids("ids", ids)
        _arguments.flags(recheck=recheck)
        _arguments.whole("jobs", jobs, optional=True)
        _arguments.whole("batch_size", batch_size, optional=True)
        return check_studies(
            self.engine,
            self.resolved(filters),
            config,
            ids=ids,
            recheck=recheck,
            jobs=jobs,
            batch_size=batch_size or BATCH_SIZE,
            progress=progress,
            on_result=on_result,
        )

    def stored_check(self, study_id: int) -> StoredCheck | None:
        """The stored check of a study, or None if it was never checked."""
        from studydb.db.checks import fetch_check

        if not _stored("study_id", study_id):
            return None
        return fetch_check(self.engine, study_id)

    def verdicts(self, ids: Sequence[int]) -> dict[int, str]:
        """The stored verdicts of the studies ``ids`` (those never checked are absent)."""
        from studydb.db.checks import verdicts_of

        return verdicts_of(self.engine, _in_range("ids", ids))
