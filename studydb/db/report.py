"""Gathering a judge's report: each entry of a PGN file against the database.

For every game of the file: its headers (:mod:`studydb.headers`), GBR,
soundness (:class:`studydb.soundness.Checker`, when tables are given), the
stored studies sharing its positions (:func:`studydb.db.anticipate.anticipations`,
ranked as ``studydb anticipate`` ranks them), the stored studies with its
start position, and its themes (:mod:`studydb.themes`, mutual zugzwangs with
the tables).  Nothing is stored; :mod:`studydb.report` renders the result.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import chess
from sqlalchemy import Engine, func, select

from studydb import headers as meta
from studydb import render, soundness
from studydb.db.anticipate import (
    VERSIONS_PER_PAGE,
    anticipations,
    count_same_start,
    same_start,
)
from studydb.db.checks import NO_STIPULATION
from studydb.db.classify import index_game, unusable
from studydb.db.connect import database_errors, describe
from studydb.db.models import Study
from studydb.db.search import not_compared, stored_id
from studydb.errors import NoTablesError
from studydb.filters import DEFAULT_MIN_MEN
from studydb.movetext import main_line, main_moves
from studydb.pgn import RawGame, open_pgn, read_games
from studydb.report import Anticipation, Entry, Finding, MoveNote, Report, Soundness, Version
from studydb.themes import SYZYGY_MEN, mutual_zugzwangs, tag_themes

__all__ = ["ReportOptions", "build_report", "entry_of"]


@dataclass(frozen=True)
class ReportOptions:
    """How to judge: tables and engine, the anticipation search and how many to list.

    ``before``: anticipations dated up to this year (None: up to each
    entry's own year when it has one, else any).
    """

    syzygy: tuple[str, ...] = ()
    engine: str | None = None
    depth: int | None = None
    movetime: int | None = None
    before: int | None = None
    min_men: int = DEFAULT_MIN_MEN
    limit: int = 4


def build_report(engine: Engine, path: str, options: ReportOptions) -> Report:
    """The report on every game of the PGN file ``path``.

    :raises PgnError: when the file cannot be read.
    :raises SoundnessError: when the tables or the engine cannot be opened.
    """
    checker = _open_checker(options)
    try:
        entries = [
            entry_of(engine, game, number, options, checker=checker)
            for number, game in enumerate(_games(path), 1)
        ]
    finally:
        if checker is not None:
            checker.close()
    with database_errors(engine), engine.connect() as conn:
        studies = conn.execute(select(func.count()).select_from(Study)).scalar_one()
    report = Report(
        Path(path).name if path != "-" else "standard input",
        entries,
        database=describe(str(engine.url)),
        studies=studies,
        min_men=options.min_men,
        limit=options.limit,
        not_compared=not_compared(engine, min_men=options.min_men),
    )
    if checker is not None:
        report.tables = f"Syzygy, up to {checker.tables.men} men"
        report.bad_tables = list(checker.tables.bad)
        if checker.engine is not None:
            report.engine = f"{checker.engine.name} {checker.engine.settings}"
    return report


def _games(path: str) -> Iterator[RawGame]:
    with open_pgn(path) as stream:
        yield from read_games(stream, name=path)


def _open_checker(options: ReportOptions) -> soundness.Checker | None:
    """The tables (and engine) to judge with; None without tables."""
    dirs = soundness.syzygy_dirs(options.syzygy)
    if not dirs:
        if options.engine:
            raise NoTablesError(f"an engine needs tables too; {soundness.SYZYGY_HINT}")
        return None
    return soundness.open_checker(
        dirs, engine=options.engine, depth=options.depth, movetime=options.movetime
    )


def entry_of(
    engine: Engine,
    game: RawGame,
    number: int,
    options: ReportOptions,
    *,
    checker: soundness.Checker | None = None,
) -> Entry:
    """One entry's section of the report."""
    headers = game.headers
    fen = meta.start_fen(headers) or chess.STARTING_FEN
    where = f"{game.file}:{game.line}" if game.file else f"game {number}"
    try:
        info = meta.read_info(headers)
    except ValueError as exc:  # a number too long for int() (4,300 digits and more)
        return Entry(number, where, errors=[f"unreadable header: {_shorten(str(exc))}"])
    problem = unusable(game)  # what import rejects: binary data, no game, a variant …
    if problem:
        return Entry(number, where, composers=list(info.composers), errors=[problem])
    try:
        board = chess.Board(fen)
        extended, form = render.gbr_notations(board, info.stipulation)
    except ValueError as exc:  # GbrError included
        return Entry(
            number, where, composers=list(info.composers), errors=[f"bad FEN {fen!r}: {exc}"]
        )
    entry = Entry(
        number,
        where,
        composers=list(info.composers),
        source=info.source,
        year=info.year,
        award=info.award,
        stipulation=info.stipulation,
        mate_in=info.mate_in,
        gbr=extended.split(" ")[1],
        extended=extended,
        form=form,
        fen=board.fen(),
        men=chess.popcount(board.occupied),
    )
    replay = index_game(game.movetext, fen, stipulation=info.stipulation)
    entry.errors, found = replay.errors, replay.themes
    moves = list(itertools.takewhile(bool, main_line(board, game.movetext)))  # to a null move
    entry.solution = board.variation_san(moves) if moves else ""
    entry.themes = tag_themes(headers) + found
    entry.stored_id = stored_id(engine, game)
    if checker is not None:
        entry.soundness = _soundness(checker, game.movetext, info.stipulation, board, info.mate_in)
        men = checker.tables.men or SYZYGY_MEN
        entry.zugzwang_tables = men
        entry.themes += mutual_zugzwangs(board, moves, checker.tables.probe_wdl, men=men)
        entry.themes.sort(key=lambda t: (t.ply is not None, t.ply or 0))
    plies = [theme.ply for theme in entry.themes if theme.ply]
    found_moves = main_moves(board, game.movetext, plies)
    entry.theme_moves = {ply: move.label for ply, move in found_moves.items()}
    _related(engine, entry, game.movetext, options)
    return entry


def _shorten(text: str, width: int = 200) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _soundness(
    checker: soundness.Checker,
    text: str,
    stipulation: str | None,
    board: chess.Board,
    mate_in: int | None,
) -> Soundness:
    if stipulation not in soundness.STIPULATIONS:
        return Soundness("unchecked", reason=NO_STIPULATION)
    result = checker.check_game(board, text, stipulation, variations=False, mate_in=mate_in)
    with_what = f"tables {result.tables_men}-men" if result.tables_men else "tables"
    if result.engine:
        with_what += f", {result.engine}"
    notes = soundness.annotate_main_line(result, white_first=board.turn == chess.WHITE)
    moves = [
        MoveNote(n.ply, n.number, n.san, _note_text(n.text), n.flags, n.first_error) for n in notes
    ]
    first = next((m for m in moves if m.first_error), None)
    return Soundness(
        result.verdict,
        summary=result.summary,
        reason=result.reason,
        checked_with=f"{with_what}; {result.table_plies} plies by tables, "
        f"{result.engine_plies} by engine",
        note=result.note,
        first_error=Finding(first.ply, first.number, first.san, first.text) if first else None,
        duals=[Finding(m.ply, m.number, m.san, m.text) for m in moves if "dual" in m.flags],
        moves=moves,
    )


def _note_text(text: str) -> str:
    """A move's annotation, without the bare ``not checked`` of a move beyond reach."""
    return "" if text == "not checked" else text


def _related(engine: Engine, entry: Entry, movetext: str, options: ReportOptions) -> None:
    """Fill the entry's anticipations (ranked, the first ``limit``) and versions."""
    before = options.before if options.before is not None else entry.year
    hits = anticipations(
        engine,
        entry.fen,
        movetext,
        min_men=options.min_men,
        before=before,
        exclude=entry.stored_id,
    )
    entry.before = before
    entry.anticipation_count = len(hits)
    years = [hit.year for hit in hits if hit.year is not None]
    entry.earliest_year = min(years) if years else None
    for hit in hits[: options.limit or None]:  # 0: all, as -n/--limit everywhere
        first = hit.shared[0]
        entry.anticipations.append(
            Anticipation(
                hit.id,
                hit.composers,
                hit.year,
                hit.source,
                hit.gbr,
                first.ply,
                first.main,
                first.other_ply,
                first.other_main,
                first.fen,
                hit.positions,
                hit.same_year,
            )
        )
    entry.versions = [
        Version(v.id, list(v.composers), v.year, v.source)
        for v in same_start(engine, entry.fen, exclude=entry.stored_id, limit=VERSIONS_PER_PAGE)
    ]
    entry.versions_total = len(entry.versions)
    if entry.versions_total == VERSIONS_PER_PAGE:  # maybe more: a games' start, thousands
        entry.versions_total = count_same_start(engine, entry.fen, exclude=entry.stored_id)
