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
import itertools
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

import chess
from sqlalchemy import Engine, and_, delete, func, insert, select

from studydb.db.batches import BatchRunner, worker_count
from studydb.db.conditions import build_condition
from studydb.db.connect import database_errors, transaction
from studydb.db.models import Study, StudyCheck
from studydb.db.search import chunks
from studydb.db.themes import replace_themes
from studydb.filters import Filters
from studydb.movetext import errors_of, main_line, movetext_of, start_board
from studydb.pgn import tags_of
from studydb.soundness.verdict import STIPULATIONS, Ply, Report, StoredCheck, join_notes
from studydb.themes import SYZYGY_MEN, Theme, mutual_zugzwangs

if TYPE_CHECKING:
    from studydb.soundness.checker import Checker

__all__ = [
    "BATCH_SIZE",
    "CheckConfig",
    "CheckSummary",
    "check_studies",
    "fetch_check",
    "selection",
    "verdicts_of",
]

#: Studies per batch (one transaction each).
BATCH_SIZE = 50
#: The reason a study without a stipulation is not checked.
NO_STIPULATION = "no stipulation (win, draw or mate) given"

#: Called after each committed batch with (studies done, studies to do, summary so far).
ProgressCallback = Callable[[int, int, "CheckSummary"], None]
#: Called with each study's result: its id and its report.
ResultCallback = Callable[[int, Report], None]


#: The checker's rules' revision, part of the settings: a change of the rules that can give
#: another verdict raises it, so that the next ``check`` checks again what older rules
#: judged (2: a failed engine no longer counts the defender's reply, nor a first move
#: whose rivals it did not score; the engine judges the main line's last move).
RULES = 2


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
        text = f"rules {RULES}|{text}"  # checked again when the rules change
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def open_checker(self) -> Checker:
        """Open the tables and start the engine: a checker to use in a ``with`` block."""
        from studydb.soundness.checker import open_checker

        return open_checker(
            self.syzygy, engine=self.engine, depth=self.depth, movetime=self.movetime
        )


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
    ids: Sequence[int] = (),
    recheck: bool = False,
    jobs: int | None = None,
    batch_size: int = BATCH_SIZE,
    progress: ProgressCallback | None = None,
    on_result: ResultCallback | None = None,
) -> CheckSummary:
    """Check the studies ``filters`` select and store a verdict for each.

    ``jobs`` worker processes check them (:func:`~studydb.db.batches.worker_count`: all
    cores when not given, for :data:`~studydb.db.batches.POOL_REPLAYS` studies or more).

    :raises SoundnessError: when the tables or the engine cannot be opened.
    """
    started = time.perf_counter()
    summary = CheckSummary()
    checker = config.open_checker()  # fails early: no tables, no engine
    settings = config.settings(checker.tables.digest)
    chosen = build_condition(filters)
    condition = selection(filters, None if recheck else settings)
    if ids:
        chosen = and_(chosen, Study.id.in_(sorted(set(ids))))
        condition = and_(condition, Study.id.in_(sorted(set(ids))))
    with database_errors(engine), engine.connect() as conn:
        summary.selected = conn.execute(
            select(func.count()).select_from(Study).where(chosen)
        ).scalar_one()
        todo = conn.execute(select(func.count()).select_from(Study).where(condition)).scalar_one()
    summary.skipped = summary.selected - todo
    jobs = worker_count(jobs, todo)
    if jobs > 1:  # each worker opens its own
        checker.close()
        work: Callable[[Sequence[Item]], list[Checked]] = _check_in_worker
    else:
        work = partial(_check_items, checker, config.variations)
    batches = (
        (
            None,
            [(row.id, row.pgn, row.fen, row.stipulation, row.mate_in) for row in rows],
        )
        for rows in _batches(engine, condition, batch_size)
    )
    try:
        with BatchRunner(jobs, initializer=_start_worker, initargs=(config,)) as runner:
            for _, checked in runner.map(work, batches):
                _store(engine, checked, settings)
                for study_id, report, _ in checked:
                    summary.checked += 1
                    summary.verdicts[report.verdict] += 1
                    if on_result is not None:
                        on_result(study_id, report)
                summary.elapsed = time.perf_counter() - started
                if progress is not None:
                    progress(summary.checked, todo, summary)
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        if jobs <= 1:
            checker.close()
        summary.elapsed = time.perf_counter() - started
    return summary


def fetch_check(engine: Engine, study_id: int) -> StoredCheck | None:
    """The stored check of a study, or None if it was never checked."""
    with database_errors(engine), engine.connect() as conn:
        row = conn.execute(
            select(StudyCheck.__table__, Study.stipulation, Study.mate_in, Study.fen)
            .join(Study, Study.id == StudyCheck.study_id)
            .where(StudyCheck.study_id == study_id)
        ).first()
    if row is None:
        return None
    return StoredCheck(
        stipulation=row.stipulation or "",
        verdict=row.verdict,
        plies=[Ply.from_dict(p) for p in row.plies],
        claim_ply=row.claim_ply,
        table_plies=row.table_plies,
        engine_plies=row.engine_plies,
        tables_men=row.tables_men,
        engine=row.engine,
        note=row.note or "",
        mate_in=row.mate_in if row.stipulation == "mate" else None,
        white_first=row.fen.split(" ")[1:2] != ["b"],
        checked_from=row.checked_from,
        reason=row.reason or "",
        study_id=row.study_id,
        settings=row.settings,
        checked=row.checked,
    )


def verdicts_of(engine: Engine, ids: Sequence[int]) -> dict[int, str]:
    """The stored verdicts of the studies ``ids`` (those never checked are absent)."""
    found: dict[int, str] = {}
    with database_errors(engine), engine.connect() as conn:
        for chunk in chunks(ids):
            wanted = select(StudyCheck.study_id, StudyCheck.verdict).where(
                StudyCheck.study_id.in_(chunk)
            )
            found.update((study_id, verdict) for study_id, verdict in conn.execute(wanted))
    return found


def _batches(engine: Engine, condition: Any, size: int) -> Iterator[Sequence[Any]]:
    """The selected studies in batches, by increasing id (keyset pagination)."""
    last = 0
    while True:
        with database_errors(engine), engine.connect() as conn:
            rows = conn.execute(
                select(Study.id, Study.fen, Study.pgn, Study.stipulation, Study.mate_in)
                .where(condition, Study.id > last)
                .order_by(Study.id)
                .limit(size)
            ).all()
        if not rows:
            return
        yield rows
        last = rows[-1].id


#: A checked study: its id, its report and its main line's mutual zugzwangs.
Checked = tuple[int, Report, list[Theme]]
#: A study to check: id, PGN, start FEN, stipulation, n of a mate in n.
Item = tuple[int, str, str, str | None, int | None]


def _check_one(
    checker: Checker,
    variations: bool,
    study_id: int,
    pgn: str,
    fen: str,
    stipulation: str | None,
    mate_in: int | None = None,
) -> Checked:
    """Check one stored study; a study without a stipulation is ``unchecked``.

    The main line's mutual zugzwangs are looked for with the same tables,
    whatever the stipulation.
    """
    board = start_board(fen, tags_of(pgn))
    text = movetext_of(pgn)
    zugzwangs = _zugzwangs(checker, board, text) if board.is_valid() else []
    if stipulation not in STIPULATIONS:
        report = Report(stipulation or "", reason=NO_STIPULATION, white_first=board.turn)
        return study_id, report, zugzwangs
    report = checker.check_game(board, text, stipulation, variations=variations, mate_in=mate_in)
    errors = errors_of(board, text)
    if errors:
        note = f"a line stops at its first illegal move: {errors[0]}"
        report.note = join_notes(report.note, note)
    return study_id, report, zugzwangs


def _zugzwangs(checker: Checker, board: chess.Board, text: str) -> list[Theme]:
    """The mutual zugzwangs of a study's main line (up to its first illegal or null move)."""
    moves = list(itertools.takewhile(bool, main_line(board, text)))
    tables = checker.tables
    men = tables.men or SYZYGY_MEN
    return mutual_zugzwangs(board, moves, tables.probe_wdl, men=men)


def _store(engine: Engine, checked: list[Checked], settings: str) -> None:
    """Replace the stored checks (and mutual zugzwangs) of a batch's studies, in one transaction."""
    if not checked:
        return
    reports = [(study_id, report) for study_id, report, _ in checked]
    now = datetime.now(UTC)
    rows = [
        {
            "study_id": study_id,
            "verdict": r.verdict,
            "table_plies": r.table_plies,
            "engine_plies": r.engine_plies,
            "claim_ply": r.claim_ply,
            "error_ply": r.error_ply,
            "tables_men": r.tables_men,
            "engine": r.engine,
            "settings": settings,
            "checked": now,
            "note": r.note or None,
            "plies": [p.as_dict() for p in r.plies],
            "checked_from": r.checked_from,
            "reason": r.reason or None,
        }
        for study_id, r in reports
    ]
    ids = [study_id for study_id, _ in reports]
    with transaction(engine) as conn:
        conn.execute(delete(StudyCheck).where(StudyCheck.study_id.in_(ids)))
        conn.execute(insert(StudyCheck), rows)
        replace_themes(conn, [(i, found) for i, _, found in checked], tables=True)


# -- workers ------------------------------------------------------------------------

_worker: tuple[Checker, bool] | None = None


def _start_worker(config: CheckConfig) -> None:
    """Open this worker's own tables and engine."""
    global _worker
    _worker = (config.open_checker(), config.variations)


def _check_in_worker(items: Sequence[Item]) -> list[Checked]:
    assert _worker is not None
    return _check_items(*_worker, items)


def _check_items(checker: Checker, variations: bool, items: Sequence[Item]) -> list[Checked]:
    """Check a batch (or a worker's slice of one) of stored studies."""
    return [_check_one(checker, variations, *item) for item in items]
