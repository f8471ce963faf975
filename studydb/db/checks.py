"""``studydb check`` over a collection: check the selected studies, store the verdicts.

Studies are read in batches by id (keyset pagination, so memory does not grow
with the collection), checked by :class:`studydb.soundness.Checker` (in this
process, or in ``jobs`` worker processes that each open their own tables and
engine), and each batch's results are written in one transaction.  A study
already checked with the same tables, engine and options (``settings``) is
skipped unless ``recheck``.  Ctrl-C stops after the batch in hand is
committed; a second Ctrl-C stops at once.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, and_, delete, func, insert, select

from studydb import soundness
from studydb.db.engine import database_errors, writer
from studydb.db.interrupt import Interrupt
from studydb.db.models import Study, StudyCheck
from studydb.db.queries import Filters, build_condition
from studydb.movetext import errors_of, movetext_of, start_board

__all__ = [
    "BATCH_SIZE",
    "CheckConfig",
    "CheckSummary",
    "check_studies",
    "fetch_check",
    "selection",
]

#: Studies per batch (one transaction each).
BATCH_SIZE = 50

#: Called after each committed batch with (studies done, studies to do, summary so far).
ProgressCallback = Callable[[int, int, "CheckSummary"], None]
#: Called with each study's result: its id and the report as a dict.
ResultCallback = Callable[[int, dict[str, Any]], None]


@dataclass(frozen=True)
class CheckConfig:
    """What to check with: table folders, an optional engine and its limit, variations."""

    syzygy: tuple[str, ...]
    engine: str | None = None
    depth: int | None = None
    movetime: int | None = None
    variations: bool = False

    def settings(self, tables_digest: str) -> str:
        """A key naming the tables, engine and options: equal keys, same check.

        >>> CheckConfig(("/t",)).settings("abc") == CheckConfig(("/u",)).settings("abc")
        True
        """
        engine = os.path.realpath(self.engine) if self.engine else ""
        text = f"{tables_digest}|{engine}|{self.depth}|{self.movetime}|{self.variations}"
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def open_checker(self) -> soundness.Checker:
        """Open the tables and start the engine (the caller closes them)."""
        tables = soundness.open_tables(self.syzygy)
        engine = None
        if self.engine:
            try:
                engine = soundness.open_engine(
                    self.engine, depth=self.depth, movetime=self.movetime
                )
            except BaseException:
                tables.close()
                raise
        return soundness.Checker(tables, engine)


@dataclass
class CheckSummary:
    """What a run did: studies selected, checked, skipped; the verdicts given."""

    selected: int = 0
    checked: int = 0
    skipped: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    elapsed: float = 0.0
    interrupted: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "selected": self.selected,
            "checked": self.checked,
            "skipped": self.skipped,
            "verdicts": dict(sorted(self.verdicts.items())),
            "elapsed": round(self.elapsed, 3),
            "interrupted": self.interrupted,
        }


def selection(filters: Filters | None, settings: str | None) -> Any:
    """The condition for studies to check: matching ``filters``, not checked with ``settings``.

    ``settings=None`` (``--recheck``) selects every matching study.
    """
    condition = build_condition(filters)
    if settings is None:
        return condition
    done = select(StudyCheck.study_id).where(StudyCheck.settings == settings)
    return and_(condition, Study.id.not_in(done))


def check_studies(
    engine: Engine,
    filters: Filters | None,
    config: CheckConfig,
    *,
    recheck: bool = False,
    jobs: int = 1,
    batch_size: int = BATCH_SIZE,
    progress: ProgressCallback | None = None,
    on_result: ResultCallback | None = None,
) -> CheckSummary:
    """Check the studies ``filters`` select and store a verdict for each.

    :raises SoundnessError: when the tables or the engine cannot be opened.
    """
    started = time.perf_counter()
    summary = CheckSummary()
    checker = config.open_checker()  # fails early: no tables, no engine
    settings = config.settings(checker.tables.digest)
    condition = selection(filters, None if recheck else settings)
    with database_errors(engine), engine.connect() as conn:
        summary.selected = conn.execute(
            select(func.count()).select_from(Study).where(build_condition(filters))
        ).scalar_one()
        todo = conn.execute(select(func.count()).select_from(Study).where(condition)).scalar_one()
    summary.skipped = summary.selected - todo
    pool = None
    if jobs > 1:
        _close(checker)
        pool = multiprocessing.get_context("spawn").Pool(
            jobs, initializer=_start_worker, initargs=(config,)
        )
    interrupt = Interrupt()
    try:
        interrupt.install()
        for batch in _batches(engine, condition, batch_size):
            items = [(row.id, row.pgn, row.fen, row.headers, row.stipulation) for row in batch]
            if pool is not None:
                reports = pool.map(_check_in_worker, items, chunksize=max(1, len(items) // jobs))
            else:
                reports = [_check_one(checker, config.variations, *item) for item in items]
            _store(engine, reports, settings)
            for study_id, report in reports:
                summary.checked += 1
                summary.verdicts[report["verdict"]] += 1
                if on_result is not None:
                    on_result(study_id, report)
            summary.elapsed = time.perf_counter() - started
            if progress is not None:
                progress(summary.checked, todo, summary)
            interrupt.check()
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        interrupt.restore()
        if pool is not None:
            pool.terminate()
            pool.join()
        else:
            _close(checker)
        summary.elapsed = time.perf_counter() - started
    return summary


def fetch_check(engine: Engine, study_id: int) -> dict[str, Any] | None:
    """The stored check of a study (every column), or None if it was never checked."""
    with database_errors(engine), engine.connect() as conn:
        row = (
            conn.execute(select(StudyCheck.__table__).where(StudyCheck.study_id == study_id))
            .mappings()
            .first()
        )
    return None if row is None else dict(row)


def _batches(engine: Engine, condition: Any, size: int) -> Iterator[Sequence[Any]]:
    """The selected studies in batches, by increasing id (keyset pagination)."""
    last = 0
    while True:
        with database_errors(engine), engine.connect() as conn:
            rows = conn.execute(
                select(Study.id, Study.fen, Study.pgn, Study.headers, Study.stipulation)
                .where(condition, Study.id > last)
                .order_by(Study.id)
                .limit(size)
            ).all()
        if not rows:
            return
        yield rows
        last = rows[-1].id


def _check_one(
    checker: soundness.Checker,
    variations: bool,
    study_id: int,
    pgn: str,
    fen: str,
    headers: dict[str, Any] | None,
    stipulation: str | None,
) -> tuple[int, dict[str, Any]]:
    """Check one stored study; a study without a stipulation is ``unchecked``."""
    if stipulation not in soundness.STIPULATIONS:
        report = soundness.Report(stipulation or "", note="no stipulation (win or draw) given")
        return study_id, report.as_dict()
    board = start_board(fen, headers)
    text = movetext_of(pgn)
    report = checker.check_game(board, text, stipulation, variations=variations)
    errors = errors_of(board, text)
    if errors:
        note = f"a line stops at its first illegal move: {errors[0]}"
        report.note = soundness.join_notes(report.note, note)
    return study_id, report.as_dict()


def _store(engine: Engine, reports: list[tuple[int, dict[str, Any]]], settings: str) -> None:
    """Replace the stored checks of a batch's studies, in one transaction."""
    if not reports:
        return
    now = datetime.now(UTC)
    rows = [
        {
            "study_id": study_id,
            "verdict": r["verdict"],
            "table_plies": r["table_plies"],
            "engine_plies": r["engine_plies"],
            "claim_ply": r["claim_ply"],
            "error_ply": next((p["ply"] for p in r["plies"] if "error" in p["flags"]), None),
            "tables_men": r["tables_men"],
            "engine": r["engine"],
            "settings": settings,
            "checked": now,
            "note": r["note"] or None,
            "plies": r["plies"],
        }
        for study_id, r in reports
    ]
    ids = [study_id for study_id, _ in reports]
    with database_errors(engine, doing="write"), writer(engine).begin() as conn:
        conn.execute(delete(StudyCheck).where(StudyCheck.study_id.in_(ids)))
        conn.execute(insert(StudyCheck), rows)


# -- workers ------------------------------------------------------------------------

_worker: tuple[soundness.Checker, bool] | None = None


def _start_worker(config: CheckConfig) -> None:
    """Open this worker's own tables and engine; Ctrl-C is the parent's business."""
    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker = (config.open_checker(), config.variations)


def _check_in_worker(
    item: tuple[int, str, str, dict[str, Any] | None, str | None],
) -> tuple[int, dict[str, Any]]:
    assert _worker is not None
    checker, variations = _worker
    return _check_one(checker, variations, *item)


def _close(checker: soundness.Checker) -> None:
    if checker.engine is not None:
        checker.engine.close()
    checker.tables.close()
