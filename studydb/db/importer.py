"""Bulk PGN import: every game read is stored, a duplicate, or a reject.

The pipeline streams: files → :func:`studydb.pgn.read_games` → batches of
:data:`BATCH_SIZE` games (``itertools.islice``) → :func:`prepare` (pure, and
run in worker processes: all cores unless ``jobs`` says otherwise) → one
transaction per batch.  A killed import leaves whole batches only, and running it again
completes it: studies are keyed by a content hash and rejects by the hash of
their bytes, both inserted with ``ON CONFLICT DO NOTHING``.

Without ``validate`` no move is parsed: the movetext is stored as read.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import logging
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any

from sqlalchemy import Connection, Engine, insert, select, update
from sqlalchemy.exc import DBAPIError

from studydb.db.batches import POOL_REPLAYS, BatchRunner, all_cores
from studydb.db.bulk import MAX_PARAMETERS, copy_studies, insert_studies_sqlite, write_rows
from studydb.db.classify import (
    INDEX_ALL,
    INDEX_NONE,
    INDEX_STUDIES,
    IndexPack,
    Prepared,
    PreparedSlice,
    content_hash,
    indexes,
    prepare_batch,
    shorten,
)
from studydb.db.connect import (
    HEAD_SCHEMA,
    create_engine,
    database_errors,
    split_statements,
    transaction,
    upsert,
)
from studydb.db.index import MaterialIds, refresh_statistics, write_packs
from studydb.db.migrations import HEAD_REVISION
from studydb.db.models import Composer, ImportRun, Reject
from studydb.db.persons import lock_register, name_columns, regroup
from studydb.db.themes import replace_themes
from studydb.errors import DatabaseError, PgnError, WorkerError
from studydb.headers import start_fen
from studydb.pgn import (
    MAX_GAME_BYTES,
    RawGame,
    ends_complete,
    find_pgn_files,
    inflate_text,
    open_verified,
    read_games,
    stream_grew,
)
from studydb.vocabulary import REJECT

log = logging.getLogger(__name__)

#: Games per transaction.
BATCH_SIZE = 1000
#: Times a batch is written again after PostgreSQL broke a deadlock by aborting it.
DEADLOCK_RETRIES = 5
#: SQLite page cache of the import's connections, in KiB (SQLite's default: 2,000):
#: the indexes' pages touched by a batch stay in it instead of being read again.
IMPORT_CACHE_KIB = 16_000
#: The columns of a ``study_composers`` row, as :meth:`_Importer._insert_studies` gives them.
_LINK_COLUMNS = ("study_id", "position", "composer_id")
# A secondary index of ``studies`` in the head schema (not a UNIQUE one: those keep
# duplicates out while the rows go in).
_STUDY_INDEX = re.compile(r"CREATE INDEX (\w+) ON studies \(")

#: A game not known to be stored, with its content hash, or None for a game that is not
#: replayed: what the workers classify (and hash, when the hash is None).
FreshGame = tuple[RawGame, str | None]
#: Shown in progress callbacks: (bytes done, bytes total or None, summary so far).
ProgressCallback = Callable[[int, int | None, "ImportSummary"], None]


@dataclass
class ImportSummary:
    """What an import did; ``read == stored + duplicates + rejected``."""

    read: int = 0
    stored: int = 0
    duplicates: int = 0
    rejected: int = 0
    #: The files opened (one that could not be opened is among the failures only).
    files: int = 0
    elapsed: float = 0.0
    failures: list[str] = field(default_factory=list)
    interrupted: bool = False
    #: What a folder walk did not open (a FIFO, a socket, a device), each named.
    skipped: list[str] = field(default_factory=list)
    #: What the import left undone that loses nothing (the studies' indexes not built:
    #: the next import builds them), each said in a sentence.
    warnings: list[str] = field(default_factory=list)

    def add(self, stored: int = 0, duplicates: int = 0, rejected: int = 0) -> None:
        self.stored += stored
        self.duplicates += duplicates
        self.rejected += rejected
        self.read += stored + duplicates + rejected

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- the import --------------------------------------------------------------


def import_paths(
    engine: Engine,
    paths: Iterable[str | os.PathLike[str]],
    *,
    validate: bool = False,
    positions: str = INDEX_STUDIES,
    jobs: int | None = None,
    batch_size: int = BATCH_SIZE,
    progress: ProgressCallback | None = None,
    salvage: bool = False,
    max_game_bytes: int = MAX_GAME_BYTES,
) -> ImportSummary:
    """Import PGN files, directories (recursively) or ``'-'`` into the database.

    A compressed file is verified to its end before any of its games is read
    (:func:`studydb.pgn.open_verified`): a damaged or truncated one stores
    nothing and is named in ``summary.failures`` with where the damage is;
    with ``salvage`` the games in its verified part are stored (their import
    run's status is ``salvaged``), the game cut there is a reject.

    A game larger than ``max_game_bytes`` is a reject, found while it is read:
    only its first 64 KB are held and kept.

    ``positions`` (``studies``, ``all``, ``none``): which games are replayed
    once to be validated and indexed (``studies``: those with a FEN tag).

    Files that cannot be read are listed in ``summary.failures`` and the rest
    go on.  Ctrl-C (SIGINT, when called in the main thread) stops once the
    batch in hand is committed, and a second Ctrl-C at once, rolling it back;
    the summary then says ``interrupted``.
    """
    summary = ImportSummary()
    started = time.perf_counter()
    unreadable: list[str] = []
    files = list(find_pgn_files(paths, errors=unreadable, skipped=summary.skipped))
    summary.failures.extend(unreadable)
    total = _total_size(files)
    original, engine = engine, _unmapped(engine)
    importer = _Importer(
        engine,
        summary,
        batch_size=batch_size,
        positions=positions,
        salvage=salvage,
        max_game_bytes=max_game_bytes,
    )
    runner = _runner(
        validate=validate, positions=positions, jobs=jobs, ahead=engine.dialect.name != "sqlite"
    )
    done_bytes = 0
    deferred = False
    try:
        # A read failing (a damaged file: "database disk image is malformed") names the
        # database like a write does.
        with runner, database_errors(engine, doing="import into"):
            deferred = _defer_indexes(engine)
            importer.started_empty = deferred
            for path in files:
                runner.check()

                def report(position: int, base: int = done_bytes) -> None:
                    summary.elapsed = time.perf_counter() - started
                    if progress:
                        progress(base + position, total, summary)

                importer.import_file(path, validate=validate, runner=runner, report=report)
                done_bytes += _size(path) or 0
            if positions != INDEX_NONE and summary.stored:
                refresh_statistics(engine)
    except KeyboardInterrupt:
        summary.interrupted = True
        with database_errors(engine, doing="read"):
            importer.finish_run("interrupted", "interrupted by the user")
            importer.recount()
    except WorkerError as exc:  # killed (out of memory?): the batches committed are kept
        message = (
            f"{exc}: {summary.stored:,} games stored by this import;"
            " run the same import again to go on"
        )
        with database_errors(engine, doing="write"):
            importer.finish_run("failed", message)
        raise WorkerError(message) from None
    except DatabaseError as exc:  # disk full, read-only: say so in the run if we still can
        try:
            importer.finish_run("failed", str(exc))
        except DatabaseError:  # the error says so: a log line would reach no one
            raise DatabaseError(
                f"{exc}; could not mark import run {importer.run_id} as failed either,"
                " so it still says running"
            ) from exc
        raise
    finally:
        if deferred:
            try:
                with database_errors(engine, doing="index"):
                    _build_indexes(engine)
            except DatabaseError as exc:  # said in the summary: a log line would reach no one
                summary.warnings.append(
                    f"the studies' indexes are not built yet (the next import builds them): {exc}"
                )
        if engine is not original:
            engine.dispose()
        summary.elapsed = time.perf_counter() - started
    return summary


def _runner(*, validate: bool, positions: str, jobs: int | None, ahead: bool) -> BatchRunner:
    """The batch runner of an import: ``jobs`` workers, all cores when not given.

    Without ``jobs``, an import that replays only its studies (``positions``
    ``studies``, no ``validate``) starts its workers at the first batch holding
    :data:`POOL_REPLAYS` studies: a file of tournament games, or a handful of
    studies, is done in this process without paying for the workers' start; a
    header-only import (``positions`` ``none``) is done here unless ``jobs`` asks for
    workers: where the work is no more than hashing, classifying and compressing games,
    workers take a quarter of this process's CPU off it for two fifths more CPU in all
    (the games pickled to them and back, their start), a trade for the user to choose.

    ``ahead`` (PostgreSQL): a batch done in this process is read and prepared in a
    thread while the one before is written, so that the server's time overlaps this
    process's work instead of adding to it (the importing process waited on the
    server for a quarter of its time).  On SQLite the writes are this process's work.
    """
    if positions == INDEX_NONE and not validate and not jobs:
        return BatchRunner(1, ahead=ahead)
    count = jobs or all_cores()
    if jobs or validate or positions == INDEX_ALL:
        return BatchRunner(count, ahead=ahead)
    return BatchRunner(count, start_when=_replays_enough, ahead=ahead)


def _replays_enough(batch: Sequence[FreshGame]) -> bool:
    """Whether ``batch`` holds :data:`POOL_REPLAYS` games with a start position to replay."""
    studies = sum(start_fen(game.headers) is not None for game, _ in batch)
    return studies >= POOL_REPLAYS


def _study_indexes() -> dict[str, str]:
    """The head schema's secondary indexes of ``studies``: their CREATE statements by name."""
    statements = split_statements(HEAD_SCHEMA.read_text(encoding="utf-8"))
    return {m[1]: sql for sql in statements if (m := _STUDY_INDEX.match(sql))}


def _defer_indexes(engine: Engine) -> bool:
    """Drop the secondary indexes of ``studies`` while it is empty: the import builds
    them after its last batch, in half the time that keeping them up to date row by
    row takes (SQLite; on PostgreSQL the merge of a batch took a third less time
    without them).  Else build those missing (an import stopped before it built them).
    Tell whether they were dropped.
    """
    with transaction(engine) as conn:
        if (
            conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
            != HEAD_REVISION
        ):
            return False  # not the schema whose indexes HEAD_SCHEMA has
        _lock_studies(conn)
        empty = conn.exec_driver_sql("SELECT NOT EXISTS (SELECT 1 FROM studies)").scalar()
        if not empty:
            _create_missing_indexes(conn)
            return False
        present = set(_index_names(conn))
        for name in _study_indexes():
            if name in present:
                conn.exec_driver_sql(f'DROP INDEX "{name}"')
    return True


def _build_indexes(engine: Engine) -> None:
    """Build the secondary indexes of ``studies`` that are missing (:func:`_defer_indexes`)."""
    with transaction(engine) as conn:
        _lock_studies(conn)
        _create_missing_indexes(conn)


def _lock_studies(conn: Connection) -> None:
    """Keep other importers' writes out of ``studies`` until the transaction ends
    (PostgreSQL; a SQLite writer has the file to itself): so that its emptiness and
    its indexes are seen, dropped and built by one importer at a time."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("LOCK TABLE studies IN SHARE ROW EXCLUSIVE MODE")


def _create_missing_indexes(conn: Connection) -> None:
    present = set(_index_names(conn))
    for name, statement in _study_indexes().items():
        if name not in present:
            conn.exec_driver_sql(statement)


def _index_names(conn: Connection) -> list[str]:
    if conn.dialect.name == "postgresql":
        found = conn.exec_driver_sql(
            "SELECT indexname FROM pg_indexes"
            " WHERE schemaname = current_schema() AND tablename = 'studies'"
        )
    else:
        found = conn.exec_driver_sql(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'studies'"
        )
    return list(found.scalars())


def _unmapped(engine: Engine) -> Engine:
    """An engine on the same SQLite file whose connections map no pages (others: ``engine``).

    Pages read through ``mmap`` count in the process's memory and grow with
    the database (up to ``MMAP_BYTES``).  The import reads through a page
    cache of fixed size (:data:`IMPORT_CACHE_KIB`) instead, so its memory
    stays flat however large the database grows.
    """
    database = engine.url.database if engine.dialect.name == "sqlite" else None
    if not database or database == ":memory:" or engine.url.query.get("mode") == "memory":
        return engine
    url = engine.url.render_as_string(hide_password=False)
    return create_engine(url, page_cache_kib=IMPORT_CACHE_KIB)


class _Importer:
    """Writes batches; keeps the composer ids it has seen."""

    def __init__(
        self,
        engine: Engine,
        summary: ImportSummary,
        *,
        batch_size: int,
        positions: str,
        salvage: bool = False,
        max_game_bytes: int = MAX_GAME_BYTES,
    ) -> None:
        self.positions = positions
        self.salvage = salvage
        self.max_game_bytes = max_game_bytes
        self.materials = MaterialIds()
        self.reader = engine
        self.engine = engine
        self.summary = summary
        self.batch_size = batch_size
        self.composer_ids: dict[str, int] = {}
        self.run_id: int | None = None
        #: The summary's read, stored, duplicates, rejected before the current run.
        self.before_run = (0, 0, 0, 0)
        self.dialect = engine.dialect.name
        #: Whether ``studies`` was empty when the import began (known at the head
        #: revision: :func:`_defer_indexes`), and so which games :meth:`_fresh` looks up.
        self.started_empty = False

    def import_file(
        self,
        path: str | os.PathLike[str],
        *,
        validate: bool,
        runner: BatchRunner,
        report: Callable[[int], None],
    ) -> None:
        name = display_name(path)
        self.run_id = None
        self.before_run = (
            self.summary.read,
            self.summary.stored,
            self.summary.duplicates,
            self.summary.rejected,
        )
        self.run_id = self._start_run(name)
        try:
            stream, damage = open_verified(path, salvage=self.salvage)
        except PgnError as exc:
            self._fail(str(exc))
            return
        self.summary.files += 1
        try:
            with stream:
                found = read_games(stream, name=name, max_bytes=self.max_game_bytes)
                if damage is not None:  # the last game may go on past the verified data
                    found = _last_cut_off(found, lambda _: True)
                else:  # a writer still adding to the file: its last game may be half written
                    found = _last_cut_off(
                        found, lambda game: stream_grew(stream) and not ends_complete(game)
                    )
                games = _StopOnError(found)
                work = partial(prepare_batch, validate=validate, positions=self.positions)
                for read, prepared in runner.map(
                    work, self._fresh_batches(iter(games), validate=validate, runner=runner)
                ):
                    self._store(prepared, read=read)
                    report(_stream_position(stream))
            if games.error is not None:
                raise games.error
        except PgnError as exc:
            self._fail(str(exc))
            return
        except OSError as exc:
            self._fail(f"{name}: {exc.strerror or exc}")
            return
        if damage is not None:
            salvaged = self.salvage and damage.verified > 0
            self._fail(
                damage.describe(salvage=salvaged), status="salvaged" if salvaged else "failed"
            )
            return
        self.finish_run("done")
        report(_size(path) or _stream_position(stream))

    def _fail(self, message: str, *, status: str = "failed") -> None:
        log.error("%s", message)
        self.summary.failures.append(message)
        self.finish_run(status, message)

    def _start_run(self, name: str) -> int:
        with self._transaction() as conn:
            return conn.execute(
                insert(ImportRun).returning(ImportRun.id),
                {
                    "file": name,
                    "started": datetime.now(UTC),
                    "status": "running",
                    "read": 0,
                    "stored": 0,
                    "duplicates": 0,
                    "rejected": 0,
                },
            ).scalar_one()

    def recount(self) -> None:
        """Make the summary say what the database committed (after Ctrl-C).

        An interrupt can land between a batch's commit and the summary's
        update; the run's counters, written in the batch's transaction, are right.
        """
        if self.run_id is None:
            return
        columns = (ImportRun.read, ImportRun.stored, ImportRun.duplicates, ImportRun.rejected)
        with self.reader.connect() as conn:
            row = conn.execute(select(*columns).where(ImportRun.id == self.run_id)).one()
        counts = [before + now for before, now in zip(self.before_run, row, strict=True)]
        summary = self.summary
        summary.read, summary.stored, summary.duplicates, summary.rejected = counts

    def finish_run(self, status: str, error: str | None = None) -> None:
        if self.run_id is None:
            return
        values = {"status": status, "finished": datetime.now(UTC), "error": error}
        with self._transaction() as conn:
            conn.execute(update(ImportRun).where(ImportRun.id == self.run_id).values(**values))

    def _transaction(self) -> contextlib.AbstractContextManager[Connection]:
        return transaction(self.engine)

    def _store(self, batch: list[PreparedSlice], *, read: int) -> None:
        """Write one batch in one transaction; ``read`` games of which ``batch`` are new."""
        studies: dict[str, Prepared] = {}
        rejects: dict[str, dict[str, Any]] = {}
        items = [item for part in batch for item in part.items]
        duplicates = read - len(items)  # recognised before preparing them
        for item in items:
            if item.kind == REJECT:
                if item.row["raw_hash"] in rejects:
                    duplicates += 1
                else:
                    item.row["run_id"] = self.run_id
                    rejects[item.row["raw_hash"]] = item.row
            elif item.row["content_hash"] in studies:
                duplicates += 1
            else:
                item.row["run_id"] = self.run_id
                studies[item.row["content_hash"]] = item
        new_composers: dict[str, int] = {}
        stored, rejected = self._write_retrying(
            batch, studies, list(rejects.values()), new_composers, read, duplicates
        )
        self.materials.commit()
        duplicates += len(studies) - stored + len(rejects) - rejected
        # Only after the commit: ids of a rolled-back batch must not be cached.
        self.composer_ids.update(new_composers)
        self.summary.add(stored=stored, duplicates=duplicates, rejected=rejected)

    def _write_retrying(
        self,
        batch: Sequence[PreparedSlice],
        studies: dict[str, Prepared],
        rejects: list[dict[str, Any]],
        new_composers: dict[str, int],
        read: int,
        duplicates: int,
    ) -> tuple[int, int]:
        """:meth:`_write_batch`, again when PostgreSQL aborted it to break a deadlock."""
        retries = DEADLOCK_RETRIES
        while True:
            try:
                return self._write_batch(batch, studies, rejects, new_composers, read, duplicates)
            except DatabaseError as exc:
                if studies and _is_refused_row(exc):
                    self.materials.rollback()
                    new_composers.clear()
                    return self._write_row_by_row(
                        batch, studies, rejects, new_composers, read, duplicates
                    )
                if not retries or not _is_deadlock(exc):
                    raise
                retries -= 1
                log.info("deadlock with another writer; retrying the batch: %s", exc)
                new_composers.clear()
                self.materials.rollback()

    def _write_row_by_row(
        self,
        batch: Sequence[PreparedSlice],
        studies: dict[str, Prepared],
        rejects: list[dict[str, Any]],
        new_composers: dict[str, int],
        read: int,
        duplicates: int,
    ) -> tuple[int, int]:
        """Write a batch the server refused one study at a time: the rows it
        still refuses become rejects with its message; the rest are stored."""
        stored = 0
        refused: list[dict[str, Any]] = []
        for digest, item in studies.items():
            before = dict(new_composers)
            try:
                stored += self._write_batch(batch, {digest: item}, [], new_composers, 0, 0)[0]
            except DatabaseError as exc:
                if not _is_refused_row(exc):
                    raise
                self.materials.rollback()
                new_composers.clear()
                new_composers.update(before)
                refused.append(_refused(item, exc))
            else:
                self.materials.commit()
        rejected = self._write_batch(batch, {}, rejects + refused, new_composers, read, duplicates)[
            1
        ]
        return stored, rejected

    def _write_batch(
        self,
        batch: Sequence[PreparedSlice],
        studies: dict[str, Prepared],
        rejects: list[dict[str, Any]],
        new_composers: dict[str, int],
        read: int,
        duplicates: int,
    ) -> tuple[int, int]:
        """One transaction: the batch's rows and the run's counters.

        Returns the studies and the rejects stored (a reject already kept, or
        a study already stored, counts as a duplicate).
        """
        with self._transaction() as conn:
            stored = self._insert_studies(conn, batch, studies, new_composers)
            rejected = self._insert_rejects(conn, rejects)
            repeated = len(studies) - stored + len(rejects) - rejected
            conn.execute(
                update(ImportRun)
                .where(ImportRun.id == self.run_id)
                .values(
                    read=ImportRun.read + read,
                    stored=ImportRun.stored + stored,
                    duplicates=ImportRun.duplicates + duplicates + repeated,
                    rejected=ImportRun.rejected + rejected,
                )
            )
        return stored, rejected

    def _insert_studies(
        self,
        conn: Connection,
        batch: Sequence[PreparedSlice],
        studies: dict[str, Prepared],
        new_composers: dict[str, int],
    ) -> int:
        """Insert ``studies`` (of ``batch``'s items), their composers, index and themes."""
        if not studies:
            return 0
        rows = [item.row for item in studies.values()]
        if self.dialect == "postgresql":  # COPY: a multi-row INSERT is slow in psycopg
            inserted = copy_studies(conn, rows)
        else:  # the driver's cursor: SQLAlchemy's parameter handling costs more than SQLite
            inserted = insert_studies_sqlite(conn, rows)
        # All the batch's new composers in one sorted INSERT: concurrent
        # importers then lock composer rows in the same order (no deadlock).
        names = [name for _, digest in inserted for name in studies[digest].composers]
        ids = self._composer_ids(conn, names, new_composers) if names else {}
        links = [
            (study_id, i, ids[name])
            for study_id, digest in inserted
            for i, name in enumerate(studies[digest].composers)
        ]
        write_rows(conn, "study_composers", _LINK_COLUMNS, links)
        packs = _stored_packs(batch, studies, dict((d, i) for i, d in inserted))
        if packs:
            write_packs(conn, packs, self.materials)
        themed = [(i, studies[d].themes) for i, d in inserted if studies[d].themes]
        if themed:
            replace_themes(conn, themed, fresh=True)
        return len(inserted)

    def _fresh_batches(
        self, games: Iterator[RawGame], *, validate: bool, runner: BatchRunner
    ) -> Iterator[tuple[int, list[FreshGame]]]:
        """Batches of games: how many were read, and those not known to be stored."""
        for batch in iter(lambda: list(itertools.islice(games, self.batch_size)), []):
            yield len(batch), self._fresh(batch, validate=validate, here=not runner.parallel)

    def _fresh(self, batch: list[RawGame], *, validate: bool, here: bool) -> list[FreshGame]:
        """The games of a batch not known to be stored, with their hashes.

        A game to replay, or any game when it is classified in this process
        (``here``), is hashed here and looked up: one whose content is stored already
        is counted as a duplicate before any work is spent on it.  The others go to
        the workers unhashed: they hash them as they classify them, and the insert
        passes over those already stored (a duplicate all the same).  Into a database
        that held no study when the import began (:attr:`started_empty`) a game not
        replayed is not looked up either: only this import's own games can be stored
        already, and its classifying costs a few times the lookup.
        """
        hashed: list[FreshGame] = []
        digests: list[str] = []
        for game in batch:
            replays = self._replays(game, validate)
            digest = content_hash(game) if here or replays else None
            hashed.append((game, digest))
            if digest is not None and (replays or not self.started_empty):
                digests.append(digest)
        known: set[str] = set()
        # The driver's own placeholders: SQLAlchemy's handling of a thousand bound values
        # costs more than the lookups.
        mark = "?" if self.dialect == "sqlite" else "%s"
        if digests:
            with self.reader.connect() as conn:
                for start in range(0, len(digests), MAX_PARAMETERS):
                    chunk = tuple(digests[start : start + MAX_PARAMETERS])
                    found = conn.exec_driver_sql(
                        f"SELECT content_hash FROM studies WHERE content_hash IN"
                        f" ({', '.join([mark] * len(chunk))})",
                        chunk,
                    )
                    known.update(found.scalars())
        return [pair for pair in hashed if pair[1] not in known]

    def _replays(self, game: RawGame, validate: bool) -> bool:
        """Whether classifying ``game`` replays its moves (see :func:`prepare`)."""
        return validate or indexes(game.headers, positions=self.positions)

    def _composer_ids(
        self, conn: Connection, names: Sequence[str], new_composers: dict[str, int]
    ) -> dict[str, int]:
        known = {**self.composer_ids, **new_composers}
        missing = sorted({name for name in names if name not in known})
        if missing:
            lock_register(conn)
            stored: set[str] = set()
            for start in range(0, len(missing), MAX_PARAMETERS):
                chunk = missing[start : start + MAX_PARAMETERS]
                stored.update(
                    conn.execute(select(Composer.name).where(Composer.name.in_(chunk))).scalars()
                )
            fresh = [name for name in missing if name not in stored]
            if fresh:
                conn.execute(
                    upsert(conn, Composer).on_conflict_do_nothing(index_elements=["name"]),
                    [name_columns(name) for name in fresh],
                )
                regroup(conn, fresh)  # the persons of these names' surnames
            for start in range(0, len(missing), MAX_PARAMETERS):
                chunk = missing[start : start + MAX_PARAMETERS]
                found = conn.execute(
                    select(Composer.name, Composer.id).where(Composer.name.in_(chunk))
                ).all()
                new_composers.update(dict(found))
                known.update(dict(found))
        return known

    def _insert_rejects(self, conn: Connection, rejects: list[dict[str, Any]]) -> int:
        """Insert the rejects not kept yet; return how many were new."""
        if not rejects:
            return 0
        statement = (
            upsert(conn, Reject)
            .on_conflict_do_nothing(index_elements=["raw_hash"])
            .returning(Reject.id)
        )
        return len(conn.execute(statement, rejects).all())


def _stored_packs(
    batch: Sequence[PreparedSlice], studies: dict[str, Prepared], ids: dict[str, int]
) -> list[tuple[IndexPack, list[int | None]]]:
    """Each slice's index pack with the study id of each of its items: None for an item
    not stored (a duplicate of an item before it, or of a study stored already)."""
    packs = []
    for part in batch:
        pack = part.index
        if not pack.items:
            continue
        study_ids: list[int | None] = [None] * len(part.items)
        for number in pack.items:
            item = part.items[number]
            digest = item.row["content_hash"]
            if studies.get(digest) is item:
                study_ids[number] = ids.get(digest)
        if any(study_ids[number] is not None for number in pack.items):
            packs.append((pack, study_ids))
    return packs


def _last_cut_off(games: Iterator[RawGame], cut: Callable[[RawGame], bool]) -> Iterator[RawGame]:
    """The games, the last one marked ``truncated`` (a reject) when ``cut`` says so:
    the data after it is not verified, or a writer is still adding to the file."""
    last = None
    for game in games:
        if last is not None:
            yield last
        last = game
    if last is not None:
        if cut(last):
            last.truncated = True
        yield last


class _StopOnError:
    """Games of a stream; a read error ends them and waits in ``error``.

    So the games read before a damaged part are batched and stored first.
    """

    def __init__(self, games: Iterator[RawGame]) -> None:
        self.games = games
        self.error: PgnError | None = None

    def __iter__(self) -> Iterator[RawGame]:
        try:
            yield from self.games
        except PgnError as exc:
            self.error = exc


def _is_refused_row(exc: DatabaseError) -> bool:
    """Tell whether the server refused a row's values (PostgreSQL: SQLSTATE class 22
    data exception, or 54000 "index row size exceeds btree maximum")."""
    cause = exc.__cause__
    state = getattr(getattr(cause, "orig", None), "sqlstate", None) or ""
    return isinstance(cause, DBAPIError) and (state.startswith("22") or state == "54000")


def _refused(item: Prepared, exc: DatabaseError) -> dict[str, Any]:
    """The reject row of a study whose row the database refused, with its message."""
    row = item.row
    raw = _encode(inflate_text(row["pgn"]), row["encoding"])
    cause = exc.__cause__
    message = str(getattr(cause, "orig", None) or exc).strip().splitlines()[0]
    return {
        "raw": raw,
        "raw_hash": hashlib.blake2b(raw, digest_size=16).hexdigest(),
        "reason": f"refused by the database: {shorten(message)}",
        "file": row["file"],
        "line": row["line"],
        "offset": row["offset"],
        "run_id": row["run_id"],
    }


def _encode(text: str, encoding: str) -> bytes:
    """The bytes a game's text was decoded from (cp1252 with its Latin-1 fallback).

    >>> _encode("caf\\xe9 \\x81", "cp1252")
    b'caf\\xe9 \\x81'
    """
    try:
        return text.encode(encoding)
    except UnicodeEncodeError:
        return b"".join(_encode_char(char, encoding) for char in text)


def _encode_char(char: str, encoding: str) -> bytes:
    try:
        return char.encode(encoding)
    except UnicodeEncodeError:
        return char.encode("latin-1")


def _is_deadlock(exc: DatabaseError) -> bool:
    """Tell whether the server aborted our transaction to break a deadlock (PostgreSQL)."""
    cause = exc.__cause__
    return isinstance(cause, DBAPIError) and getattr(cause.orig, "sqlstate", None) == "40P01"


def display_name(path: str | os.PathLike[str]) -> str:
    """A path as text that can be stored and printed: undecodable bytes as ``\\xNN``.

    >>> display_name(b"caf\\xe9.pgn".decode("utf-8", "surrogateescape"))
    'caf\\\\xe9.pgn'
    """
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _size(path: str | os.PathLike[str]) -> int | None:
    if os.fspath(path) == "-":
        return None
    try:
        return os.path.getsize(path)
    except OSError:
        return None


def _total_size(paths: Sequence[str | os.PathLike[str]]) -> int | None:
    total = 0
    for path in paths:
        size = _size(path)
        if size is None:
            return None
        total += size
    return total


def _stream_position(stream: Any) -> int:
    """Bytes of the underlying file consumed so far (compressed bytes for .gz)."""
    stream = getattr(stream, "raw", stream)  # the buffered reader open_pgn returns
    for attribute in ("fileobj", "_fp"):  # the file under a decompressor
        inner = getattr(stream, attribute, None)
        if inner is not None and hasattr(inner, "tell"):
            stream = inner
            break
    try:
        position: int = stream.tell()
    except (OSError, ValueError):
        return 0
    return position
