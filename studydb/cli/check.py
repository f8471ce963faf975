"""``studydb check``: tablebase (and engine) soundness checks, of one position or a collection."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from studydb.cli.common import (
    EXIT_INTERRUPTED,
    MAX_BATCH,
    MAX_STUDY_ID,
    db_option,
    fail,
    jobs_option,
    library_errors,
    open_db,
    stderr_console,
    stdout_console,
    usage_error,
)
from studydb.cli.filters import filter_options_with_ids
from studydb.cli.light import LightCommand
from studydb.cli.options import engine_options, output_options
from studydb.cli.output import RecordWriter, write_json

if TYPE_CHECKING:
    from studydb.db.checks import CheckConfig, CheckSummary
    from studydb.db.database import Database
    from studydb.filters import Filters
    from studydb.soundness.checker import Checker
    from studydb.soundness.verdict import Flag, Report

#: Exit code when no tablebases are available (as for a usage error).
EXIT_NO_TABLES = 2


def _with_verdicts(command: Callable[..., Any]) -> Callable[..., Any]:
    """The help text names the verdicts as :mod:`studydb.vocabulary` defines them."""
    from studydb.vocabulary import help_text

    command.__doc__ = (command.__doc__ or "").replace("{verdicts}", help_text())
    return command


#: This module's commands, which :mod:`studydb.cli` adds to its ``app``.
commands = typer.Typer()


@commands.command("check", cls=LightCommand)
@filter_options_with_ids
@output_options("text", "json", "jsonl", help="text, json (one array) or jsonl.")
@engine_options
@_with_verdicts
def check_command(
    filters: Filters,
    ids: tuple[int, ...] = (),
    fen: str | None = typer.Option(
        None, "--fen", metavar="FEN", help="Check this position, without a database."
    ),
    moves: str | None = typer.Option(
        None,
        "--moves",
        metavar="SAN",
        help="With --fen: the solution as in a PGN file, e.g. '1. c7! {the point} Rd6+ 2. Kb5'.",
    ),
    syzygy: list[str] | None = typer.Option(
        None,
        "--syzygy",
        metavar="DIR",
        help="A folder of Syzygy tables (repeatable). Default: $STUDYDB_SYZYGY, ':'-separated.",
        show_default=False,
    ),
    engine: str | None = None,
    depth: int | None = None,
    movetime: int | None = None,
    variations: bool = typer.Option(False, "--variations", help="Check the variations too."),
    recheck: bool = typer.Option(
        False, "--recheck", help="Check again studies already checked with the same settings."
    ),
    jobs: int | None = jobs_option(
        "checking studies, each with its own tables and engine",
        "the number of cores, for 200 studies or more; fewer are checked in one process",
    ),
    batch_size: int = typer.Option(
        50, "--batch-size", min=1, max=MAX_BATCH, help="Studies per transaction."
    ),
    output: str = "text",
    db: str | None = db_option(),
) -> None:
    """Check studies with Syzygy tablebases (and an engine) and store the verdicts.

    Verdicts: {verdicts}

    Studies already checked with the same tables and settings are skipped.
    Takes the same filters as search, and study ids (digits, not four: those
    are a GBR code; write id 1234 as 01234), as show does.  With --fen no
    database is used and --stipulation is the claim to check.

    Examples:

      studydb check --syzygy ~/syzygy

      studydb check 0300 --jobs 2 --engine /usr/games/stockfish --depth 16

      studydb check 41 57 --recheck

      studydb check --fen '8/8/1KP5/3r4/8/8/8/k7 w - - 0 1' --stipulation win --moves '1. c7'
    """
    from studydb.db.checks import CheckConfig
    from studydb.soundness.tables import SYZYGY_HINT, syzygy_dirs

    dirs = syzygy_dirs(syzygy or ())
    if not dirs:
        fail(f"no tablebases. {SYZYGY_HINT}.", code=EXIT_NO_TABLES)
    config = CheckConfig(
        tuple(dirs), engine=engine, depth=depth, movetime=movetime, variations=variations
    )
    if fen is not None:
        _check_position(fen, moves, filters, config, output)
        return
    if moves is not None:
        usage_error("--moves needs --fen", param="--moves")
    _check_collection(
        filters, config, ids=ids, recheck=recheck, jobs=jobs, batch_size=batch_size,
        output=output, db=db,
    )  # fmt: skip


def _open_checker(config: CheckConfig) -> Checker:
    from studydb.errors import NoTablesError, SoundnessError

    try:
        checker = config.open_checker()
    except NoTablesError as exc:
        fail(str(exc), code=EXIT_NO_TABLES)
    except SoundnessError as exc:
        fail(str(exc))
    for bad in checker.tables.bad:
        stderr_console().print(f"warning: table file {bad}; counted as missing", markup=False)
    return checker


def _check_position(
    fen: str, moves: str | None, filters: Filters, config: CheckConfig, output: str
) -> None:
    """``check --fen``: one position (and its solution), the stipulation from --stipulation."""
    import chess

    from studydb.errors import quote
    from studydb.movetext import errors_of, unread
    from studydb.soundness.checker import describe_status

    if len(filters.stipulations) != 1:
        usage_error("--fen needs one --stipulation win|draw|mate|#N", param="--stipulation")
    [wanted] = filters.parsed("stipulations")
    try:
        board = chess.Board(fen)
    except ValueError as exc:
        usage_error(f"bad FEN {fen!r}: {exc}", param="--fen")
    if not board.is_valid():
        usage_error(f"illegal position {fen!r}: {describe_status(board)}", param="--fen")
    text = moves or ""
    for at, word in unread(text):  # a typo would silently shorten the solution checked
        usage_error(
            f"{quote(word)} at character {at + 1} is not a move, a move number,"
            " a comment, a NAG or a result",
            param="--moves",
        )
    errors = errors_of(board, text)  # the one movetext walker, as for a stored study
    if errors:
        usage_error(f"--moves: {errors[0]}", param="--moves")
    try:
        with _open_checker(config) as checker, library_errors():
            report = checker.check_game(
                board, text, wanted.stipulation, variations=config.variations,
                mate_in=wanted.mate_in,
            )  # fmt: skip
    except KeyboardInterrupt:
        _interrupted("interrupted: the position was not checked")
    if output == "text":
        print_report(report, board)
    else:
        write_json(report.as_dict())


def _check_collection(
    filters: Filters,
    config: CheckConfig,
    *,
    ids: tuple[int, ...],
    recheck: bool,
    jobs: int | None,
    batch_size: int,
    output: str,
    db: str | None,
) -> None:
    try:
        _open_checker(config).close()  # no tables or engine: exit before touching the database
    except KeyboardInterrupt:
        _interrupted("interrupted before any study was checked")
    database = open_db(db)
    with library_errors():
        absent = [i for i in ids if i > MAX_STUDY_ID or database.study(i) is None]
    if absent:
        fail(f"no study with id {absent[0]} in {database.location}")
    err = stderr_console()
    emit = _Emitter(output)
    with library_errors():
        if err.is_terminal:
            summary = _with_progress(
                database, filters, config, ids, recheck, jobs, batch_size, emit, err
            )
        else:
            summary = database.check(
                filters, config, ids=ids, recheck=recheck, jobs=jobs, batch_size=batch_size,
                on_result=emit,
            )  # fmt: skip
    emit.close()
    _print_summary(summary, err if output != "text" else stdout_console())
    if summary.interrupted:
        err.print(
            f"interrupted: {summary.checked} studies checked and stored; "
            "run the same check again to finish",
            markup=False,
        )
        raise typer.Exit(EXIT_INTERRUPTED)


def _interrupted(message: str) -> NoReturn:
    stderr_console().print(message, markup=False)
    raise typer.Exit(EXIT_INTERRUPTED)


class _Emitter:
    """Write each study's result as it comes: a text line, a JSON array item or a JSON line."""

    def __init__(self, output: str) -> None:
        self.writer: RecordWriter[tuple[int, Report]] = RecordWriter(
            output,
            to_dict=lambda item: {"id": item[0], **item[1].as_dict()},
            text=lambda item: f"{item[0]}\t{_one_line(item[1])}",
            layout="lines",
        )

    def __call__(self, study_id: int, report: Report) -> None:
        self.writer.write((study_id, report))

    def close(self) -> None:
        self.writer.close()


#: Findings listed by ply in a study's one-line summary, and how they are named.
_LISTED: tuple[tuple[Flag, str], ...] = (
    ("weak", "weak defence"),
    ("missing", "no table"),
    ("doubt", "engine doubt"),
    ("cook", "possible cook"),
    ("try", "failed try"),
)


def _one_line(report: Report) -> str:
    """A study's verdict and findings on one line.

    >>> from studydb.soundness.verdict import Report
    >>> _one_line(Report("win", verdict="sound", claim_ply=0, table_plies=4))
    'sound: claim checked at ply 0; tables 4 plies, engine 0'
    >>> _one_line(Report("win", reason="no stipulation (win, draw or mate) given"))
    'unchecked: no stipulation (win, draw or mate) given; tables 0 plies, engine 0'
    """
    details = []
    if report.verdict == "no-errors":
        details.append(report.summary)
    if report.reason:
        details.append(report.reason)
    if report.note:
        details.append(report.note)
    error = report.first_error
    if error is not None:
        details.append(f"solution error at ply {error.ply} ({error.san})")
    if report.claim_ply is not None:
        details.append(f"claim checked at ply {report.claim_ply}")
    if report.verdict == "duals":
        details.append("dual at the first move")
    for flag, name in _LISTED:
        plies = [str(ply) for ply in report.flagged(flag)]
        if plies:
            details.append(f"{name} at ply {', '.join(plies)}")
    counts = f"tables {report.table_plies} plies, engine {report.engine_plies}"
    return f"{report.verdict}: " + "; ".join([*details, counts])


def _with_progress(
    database: Database,
    filters: Filters,
    config: CheckConfig,
    ids: tuple[int, ...],
    recheck: bool,
    jobs: int | None,
    batch_size: int,
    emit: _Emitter,
    err: Any,
) -> CheckSummary:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err, transient=True
    ) as bar:
        task = bar.add_task("check", total=None)

        def progress(done: int, total: int, _summary: CheckSummary) -> None:
            bar.update(task, completed=done, total=total)

        return database.check(
            filters,
            config,
            ids=ids,
            recheck=recheck,
            jobs=jobs,
            batch_size=batch_size,
            progress=progress,
            on_result=emit,
        )


def _print_summary(summary: CheckSummary, console: Any) -> None:
    verdicts = ", ".join(f"{v} {n}" for v, n in sorted(summary.verdicts.items())) or "none"
    console.print(
        f"checked {summary.checked:,} of {summary.selected:,} studies "
        f"({summary.skipped:,} already checked with these settings) in {summary.elapsed:.1f} s: "
        f"{verdicts}",
        markup=False,
    )


def print_report(report: Report, board: Any) -> None:
    """A report as text: the verdict, then each ply with what was found."""
    from studydb.soundness.annotate import annotated_lines
    from studydb.soundness.verdict import result_name

    console = stdout_console()
    console.print(f"verdict: {report.verdict}", markup=False)
    if report.verdict == "no-errors":
        console.print(f"  {report.summary}", markup=False)
    if report.reason:
        console.print(f"  {report.reason}", markup=False)
    if report.note:
        console.print(f"  {report.note}", markup=False)
    console.print(
        f"  plies checked: {report.table_plies} by tables "
        f"({report.tables_men}-men), {report.engine_plies} by engine"
        + (f" ({report.engine})" if report.engine else ""),
        markup=False,
    )
    if report.claim_ply is not None:
        console.print(
            f"  claim ({report.stipulation}) checked by the tables at ply "
            f"{report.claim_ply}: the solver has a {result_name(report.claim_wdl)}",
            markup=False,
        )
    if report.solutions:
        names = ", ".join(a.san + (f" DTZ {a.dtz}" if a.wdl else "") for a in report.solutions)
        console.print(f"  first moves keeping the {report.stipulation}: {names}", markup=False)
    for line in annotated_lines(report, white_first=board.turn):
        console.print(line, markup=False)
