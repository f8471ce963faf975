"""``studydb report``: a judge's report on tourney entries."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from studydb.cli.common import (
    db_option,
    fail,
    library_errors,
    open_db,
    stderr_console,
    usage_error,
)
from studydb.cli.light import LightCommand
from studydb.cli.options import before_option, engine_options, min_men_option, output_options
from studydb.terminal import visible
from studydb.vocabulary import REPORT_FORMATS

if TYPE_CHECKING:
    from studydb.db.database import Database


#: This module's commands, which :mod:`studydb.cli` adds to its ``app``.
commands = typer.Typer()


@commands.command("report", cls=LightCommand)
@output_options(
    *REPORT_FORMATS, help="md (Markdown) or json, on standard output (when --html is not given)."
)
@engine_options
def report_command(
    entries: str = typer.Argument(
        ..., metavar="ENTRIES.pgn", help="The tourney's entries (a PGN file, or - for stdin)."
    ),
    html: Path | None = typer.Option(
        None, "--html", metavar="FILE", help="Write the report as one self-contained HTML page."
    ),
    syzygy: list[str] | None = typer.Option(
        None,
        "--syzygy",
        metavar="DIR",
        help="A folder of Syzygy tables (repeatable). Default: $STUDYDB_SYZYGY, ':'-separated. "
        "Without tables there is no soundness check and no mutual zugzwang.",
        show_default=False,
    ),
    engine: str | None = None,
    depth: int | None = None,
    movetime: int | None = None,
    before: int | None = before_option(),
    min_men: int = min_men_option(),
    limit: int = typer.Option(
        4, "--limit", "-n", min=0, help="Anticipations listed per entry (with diagrams; 0 = all)."
    ),
    store: bool = typer.Option(
        False, "--store", help="Also import the entries into the database afterwards."
    ),
    output: str = "md",
    db: str | None = db_option(),
) -> None:
    """A judge's report on tourney entries: soundness, anticipations, versions and themes.

    For each entry of the file: composers, source, stipulation, GBR (plain
    and extended), the start diagram, the soundness verdict with the first
    error, the duals and every move annotated (with --syzygy), the stored
    studies sharing its positions (ranked as anticipate ranks them, each with
    the first shared position), the stored studies with its start position,
    and its themes.  A summary table comes first.  The entries are not stored
    unless --store.

    Examples:

      studydb report entries.pgn --syzygy ~/syzygy --html report.html

      studydb report entries.pgn --format json --before 2024 --min-men 6
    """
    if store and entries == "-":
        usage_error("--store needs a file: standard input is read once", param="--store")
    from studydb import report
    from studydb.db.report import ReportOptions

    database = open_db(db)
    options = ReportOptions(
        syzygy=tuple(syzygy or ()),
        engine=engine,
        depth=depth,
        movetime=movetime,
        before=before,
        min_men=min_men,
        limit=limit,
    )
    with library_errors():
        result = database.report(entries, options)
    for bad in result.bad_tables:
        stderr_console().print(f"warning: table file {bad}; counted as missing", markup=False)
    if not result.entries:  # the wrong file, most likely: the report says 0 entries
        stderr_console().print(f"studydb: note: {entries} holds no game: no entry to report")
    if html is not None:
        try:
            html.write_text(report.to_html(result), encoding="utf-8")
        except OSError as exc:
            fail(f"cannot write {html}: {exc.strerror or exc}")
        stderr_console().print(
            f"report on {len(result.entries)} entries written to {html}", markup=False
        )
    elif output == "json":
        sys.stdout.write(report.to_json(result))
    else:  # Markdown is read by people, often on the terminal: no control characters
        sys.stdout.write(visible(report.to_markdown(result)))
    if store:
        _store(database, entries)
    unread = [e for e in result.entries if e.unread]  # headers, start or game unreadable
    for entry in unread:
        stderr_console().print(f"{entry.where}: {entry.errors[0]}", markup=False)
    if unread:
        raise typer.Exit(1)


def _store(database: Database, entries: str) -> None:
    with library_errors():
        summary = database.import_paths([entries], jobs=1)
    rejected = (
        f", {summary.rejected} rejected: studydb rejects lists them" if summary.rejected else ""
    )
    stderr_console().print(
        f"stored {summary.stored} entries ({summary.duplicates} already stored{rejected})",
        markup=False,
    )
