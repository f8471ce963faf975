"""Writing the position index: at import time and with ``studydb index``.

A study's positions come from one replay (:func:`studydb.db.classify.index_game`),
which also fills its ``valid``/``errors`` and finds its themes.  Each indexed study gets a
``study_index`` row, so ``studydb index`` knows what is left to do and a
killed run resumes where it stopped: every batch is one transaction.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import Connection, Engine, bindparam, delete, or_, select, update

from studydb.db.batches import BatchRunner, worker_count
from studydb.db.bulk import ids_by, insert_new_rows, write_packed_index
from studydb.db.classify import (
    MATERIAL_COLUMNS,
    IndexPack,
    MaterialValues,
    Prepared,
    PreparedSlice,
    failure,
    index_game,
    material_rows,
    material_values,
    pack_index,
)
from studydb.db.conditions import build_condition
from studydb.db.connect import database_errors, transaction
from studydb.db.models import (
    Position,
    Study,
    StudyIndex,
    StudyMaterial,
    StudyMove,
)
from studydb.db.themes import replace_themes
from studydb.filters import Filters
from studydb.movetext import is_chess960, movetext_of
from studydb.pgn import tags_of
from studydb.themes import tag_themes
from studydb.vocabulary import STUDY

__all__ = [
    "BATCH_SIZE",
    "IndexSummary",
    "MaterialIds",
    "index_studies",
    "refresh_statistics",
    "write_packs",
]

log = logging.getLogger(__name__)

#: Studies per transaction in ``studydb index``.
BATCH_SIZE = 200

#: (studies done, studies to do, positions written so far).
IndexProgress = Callable[[int, int, int], None]


class MaterialIds:
    """Ids of the ``materials`` rows, cached; new ones kept apart until their commit."""

    def __init__(self) -> None:
        self.known: dict[tuple[int, ...], int] = {}
        self.pending: dict[tuple[int, ...], int] = {}

    def commit(self) -> None:
        self.known.update(self.pending)
        self.pending.clear()

    def rollback(self) -> None:
        self.pending.clear()

    def ids(
        self,
        conn: Connection,
        counts: Iterable[tuple[int, ...]],
        values: MaterialValues | None = None,
    ) -> dict[tuple[int, ...], int]:
        """The id of each counts tuple, inserting the classes not stored yet.

        ``values``: the rows of some counts made already (by the import's workers).
        """
        known = {**self.known, **self.pending}
        values = values or {}
        missing = {c: values.get(c) or material_values(c) for c in set(counts) if c not in known}
        if missing:
            # by signature, the first value: one lock order for concurrent writers
            rows = sorted(missing.values())
            insert_new_rows(conn, "materials", MATERIAL_COLUMNS, rows, key="signature")
            by_signature = {row[0]: c for c, row in missing.items()}
            for signature, material_id in ids_by(
                conn, "materials", "signature", list(by_signature)
            ):
                self.pending[by_signature[signature]] = material_id
                known[by_signature[signature]] = material_id
        return known


def write_packs(
    conn: Connection,
    packs: Sequence[tuple[IndexPack, Sequence[int | None]]],
    materials: MaterialIds,
) -> int:
    """Write the index rows of replayed slices in the caller's transaction: the import's
    and ``studydb index``'s one writer.

    ``packs``: each slice's :class:`~studydb.db.classify.IndexPack` with the study id of
    each of its items (None: not stored, its rows are left out).  The ``materials`` rows
    the workers made go in for the classes not stored yet.  Returns the number of
    positions written.
    """
    counts, made = _material_classes(packs)
    return write_packed_index(conn, packs, materials.ids(conn, counts, made))


def _material_classes(
    packs: Sequence[tuple[IndexPack, Sequence[int | None]]],
) -> tuple[list[tuple[int, ...]], MaterialValues]:
    """The material classes of the stored items' positions, and their ``materials`` rows."""
    counts: list[tuple[int, ...]] = []
    made: MaterialValues = {}
    for pack, ids in packs:
        made.update(zip(pack.counts, pack.materials, strict=True))
        if all(ids[number] is not None for number in pack.items):
            counts += pack.counts
        else:  # those of the stored items only, as if the others had not been replayed
            used = {
                c
                for c, number in zip(pack.material, pack.item, strict=True)
                if ids[number] is not None
            }
            counts += [pack.counts[c] for c in sorted(used)]
    return counts, made


def refresh_statistics(engine: Engine) -> None:
    """``ANALYZE`` the index tables on PostgreSQL after a bulk write.

    psycopg prepares a statement run five times, and PostgreSQL then plans it
    once for any key; without statistics that generic plan scans ``studies``
    instead of looking the key up (100 ms instead of 1 ms on 100,000 studies).
    """
    if engine.dialect.name != "postgresql":
        return
    with transaction(engine) as conn:
        conn.exec_driver_sql(
            "ANALYZE positions, study_materials, materials, study_index, study_moves"
        )


def _delete_index(conn: Connection, study_ids: list[int]) -> None:
    """Forget what is indexed for these studies (a scan of the index tables)."""
    conn.execute(delete(Position).where(Position.study_id.in_(study_ids)))
    conn.execute(delete(StudyMaterial).where(StudyMaterial.study_id.in_(study_ids)))
    conn.execute(delete(StudyIndex).where(StudyIndex.study_id.in_(study_ids)))
    conn.execute(delete(StudyMove).where(StudyMove.study_id.in_(study_ids)))


# -- studydb index -------------------------------------------------------------


@dataclass
class IndexSummary:
    """What ``studydb index`` did."""

    studies: int = 0
    positions: int = 0
    invalid: int = 0
    elapsed: float = 0.0
    interrupted: bool = False
    #: The studies studydb failed to replay (an error of its own), each ``study N: why``;
    #: they are left as they were.
    failures: list[str] = field(default_factory=list)


#: A stored study to replay: id, start FEN, PGN and stipulation.
StoredStudy = tuple[int, str, str, str | None]


def replay_study(study: StoredStudy) -> Prepared:
    """Replay one stored study: its index rows, its themes (the tags' and the main line's),
    and in its ``row`` its id and errors."""
    study_id, fen, pgn, stipulation = study
    headers = tags_of(pgn)
    replay = index_game(
        movetext_of(pgn), fen, chess960=is_chess960(headers), stipulation=stipulation
    )
    return Prepared(
        STUDY,
        {"id": study_id, "errors": replay.errors},
        (),
        replay.rows,
        replay.boards,
        replay.moves,
        replay.move_keys,
        tag_themes(headers) + replay.themes,
        replay.seen,
        replay.occupancy,
        material_rows(replay.rows),
    )


def replay_batch(studies: Sequence[StoredStudy]) -> list[PreparedSlice]:
    """Replay a slice of stored studies, their index rows packed: the unit of work of a
    worker (as the import's :func:`studydb.db.classify.prepare_batch`)."""
    items = [_replayed(study) for study in studies]
    return [PreparedSlice(items, pack_index(items))]


def _replayed(study: StoredStudy) -> Prepared:
    """:func:`replay_study`; a study it fails on (an error of studydb's own) comes back
    without an index, its ``row`` saying why (``failed``): one odd study does not stop
    the index of a collection."""
    try:
        return replay_study(study)
    except Exception as exc:  # any error: the study is left as it was, the summary says why
        return Prepared(STUDY, {"id": study[0], "errors": None, "failed": failure(exc)})


def index_studies(
    engine: Engine,
    filters: Filters | None = None,
    *,
    reindex: bool = False,
    jobs: int | None = None,
    batch_size: int = BATCH_SIZE,
    progress: IndexProgress | None = None,
) -> IndexSummary:
    """Index the selected studies that lack an index (all selected ones with ``reindex``).

    ``jobs`` worker processes replay them (:func:`~studydb.db.batches.worker_count`: all
    cores when not given, for :data:`~studydb.db.batches.POOL_REPLAYS` studies or more).

    A study indexed before pattern search (no ``boards``), its prefilters (no
    ``seen_*``, no ``occupancy``) or manoeuvre search (no ``moves``) lacks part of its
    index: it is
    indexed again.  One transaction per
    batch: a killed run keeps every batch it committed, and running it again does
    the rest.  Ctrl-C stops once the batch in hand is committed
    (:mod:`studydb.db.batches`); the summary then says ``interrupted``.
    """
    summary = IndexSummary()
    started = time.perf_counter()
    condition = build_condition(filters)
    partial = select(StudyIndex.study_id).where(
        or_(
            StudyIndex.boards.is_(None),
            StudyIndex.moves.is_(None),
            StudyIndex.seen_wp.is_(None),
            StudyIndex.occupancy.is_(None),
        )
    )
    if not reindex:
        indexed = select(StudyIndex.study_id)
        condition = condition & (Study.id.not_in(indexed) | Study.id.in_(partial))
    with database_errors(engine), engine.connect() as conn:
        ids = list(conn.execute(select(Study.id).where(condition).order_by(Study.id)).scalars())
        again: set[int] = set() if reindex else set(conn.execute(partial).scalars())
    materials = MaterialIds()
    chunks = (ids[start : start + batch_size] for start in range(0, len(ids), batch_size))
    loaded = ((None, _load(engine, chunk)) for chunk in chunks)
    try:
        with BatchRunner(worker_count(jobs, len(ids))) as runner:
            for _, batch in runner.map(replay_batch, loaded):
                items = [item for part in batch for item in part.items]
                replace = reindex or any(item.row["id"] in again for item in items)
                summary.positions += _write_replayed(engine, batch, materials, replace=replace)
                failed = [
                    f"study {i.row['id']}: {i.row['failed']}" for i in items if "failed" in i.row
                ]
                summary.failures += failed
                summary.studies += len(items) - len(failed)
                summary.invalid += sum(1 for item in items if item.row["errors"])
                if progress:
                    progress(summary.studies + len(summary.failures), len(ids), summary.positions)
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        summary.elapsed = time.perf_counter() - started
    if summary.studies:
        refresh_statistics(engine)
    return summary


def _write_replayed(
    engine: Engine, batch: list[PreparedSlice], materials: MaterialIds, *, replace: bool
) -> int:
    """Write a replayed batch (positions, boards, themes, validity) in one transaction.

    ``replace``: some of its studies have an index already, to be replaced.

    Returns how many positions were written.
    """
    items = [item for part in batch for item in part.items if "failed" not in item.row]
    with transaction(engine) as conn:
        if replace:
            _delete_index(conn, [item.row["id"] for item in items])
        written = write_packs(
            conn,
            [(part.index, [item.row["id"] for item in part.items]) for part in batch],
            materials,
        )
        replace_themes(conn, [(item.row["id"], item.themes) for item in items])
        validity = [
            {"study": row["id"], "is_valid": not row["errors"], "found": row["errors"] or None}
            for row in (item.row for item in items)
        ]
        conn.execute(_SET_VALIDITY, validity)  # one statement run for every study
    materials.commit()
    return written


#: A replayed study's validity and errors, by its id (bound as study, is_valid, found).
_SET_VALIDITY = (
    update(Study)
    .where(Study.id == bindparam("study"))
    .values(valid=bindparam("is_valid"), errors=bindparam("found"))
)


def _load(engine: Engine, ids: list[int]) -> list[StoredStudy]:
    statement = select(Study.id, Study.fen, Study.pgn, Study.stipulation).where(Study.id.in_(ids))
    with database_errors(engine), engine.connect() as conn:
        return [(sid, fen, pgn, stip) for sid, fen, pgn, stip in conn.execute(statement)]
