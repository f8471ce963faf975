"""``studydb import`` and ``studydb rejects``."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from studydb.cli.common import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    MAX_BATCH,
    db_option,
    fail,
    jobs_option,
    library_errors,
    open_db,
    stderr_console,
    stdout_console,
    usage_error,
)
from studydb.cli.light import LightCommand
from studydb.cli.options import output_options
from studydb.cli.output import counted, write_json
from studydb.errors import quote

if TYPE_CHECKING:
    from studydb.db.database import Database
    from studydb.db.importer import ImportSummary


#: Most worker processes and games per transaction a command line may ask for.


class PositionsMode(StrEnum):
    studies = "studies"
    all = "all"
    none = "none"


#: This module's commands, which :mod:`studydb.cli` adds to its ``app``.
commands = typer.Typer()


@commands.command("import", cls=LightCommand)
@output_options("text", "json", help="Summary as text or JSON.")
def import_command(
    paths: list[str] = typer.Argument(
        ...,
        metavar="PATH...",
        help="PGN files (.pgn .gz .bz2 .xz), directories, or - for stdin.",
    ),
    output: str = "text",
    db: str | None = db_option(),
    validate: bool = typer.Option(
        False, "--validate", help="Replay every move (main line and variations); record errors."
    ),
    positions: PositionsMode = typer.Option(
        PositionsMode.studies,
        "--positions",
        help="Replay, validate and index the positions of: studies (games with a FEN tag), "
        "all games, or none (header-only).",
    ),
    jobs: int | None = jobs_option(
        "classifying and replaying games",
        "the number of cores, started at the first batch holding 200 studies to replay;"
        " with --positions none, one process unless given",
    ),
    batch_size: int = typer.Option(
        1000, "--batch-size", min=1, max=MAX_BATCH, help="Games per transaction."
    ),
    max_game_mb: int = typer.Option(
        32,
        "--max-game-size",
        min=1,
        max=1024,
        metavar="MB",
        help="A larger game is rejected as it is read (only its first 64 KB are kept).",
    ),
    salvage: bool = typer.Option(
        False,
        "--salvage",
        help="Of a damaged compressed file, store the games in its verified part "
        "(whole gzip members, bzip2 blocks and xz streams before the damage).",
    ),
) -> None:
    """Import PGN studies (or games) into the database.

    Every game read ends stored, recognised as a duplicate, or kept in the
    rejects table with its reason and file:line (see `studydb rejects`).
    Importing the same files again adds nothing.

    By default every game with a FEN tag (a study) is replayed once:
    its moves are validated and every position of its main line and
    variations is indexed (see search --position, anticipate).

    Example: studydb import data/classics.pgn ~/pgn/ --validate

    Example: studydb import twic/ --positions none
    """
    if paths.count("-") > 1:
        usage_error("standard input (-) can be read only once", param="PATH")
    if "" in paths:  # "$DIR" with DIR unset: read as '.', the whole folder
        usage_error("an empty path names no file (write . for this folder)", param="PATH")
    if not any(path == "-" or Path(path).exists() for path in paths):  # a mistyped name
        names = ", ".join(quote(path, limit=1000) for path in paths)
        fail(f"no such file or folder: {names}; no database was opened or created")
    database = open_db(db, create=True)
    err = stderr_console()
    with library_errors():
        if err.is_terminal and output == "text":
            summary = _import_with_progress(
                database,
                paths,
                validate,
                positions.value,
                jobs,
                batch_size,
                salvage,
                max_game_mb << 20,
                err,
            )
        else:
            summary = database.import_paths(
                paths,
                validate=validate,
                positions=positions.value,
                jobs=jobs,
                batch_size=batch_size,
                salvage=salvage,
                max_game_bytes=max_game_mb << 20,
            )
    for skipped in summary.skipped:
        err.print(f"studydb: {skipped}", markup=False)
    for failure in summary.failures:
        err.print(f"studydb: error: {failure}", markup=False)
    for warning in summary.warnings:
        err.print(f"studydb: warning: {warning}", markup=False)
    if output == "json":
        write_json(summary.as_dict(), ascii=True)
    else:
        _print_summary(summary)
    if summary.interrupted:
        err.print(
            f"interrupted: {summary.read} games committed; run the same import again to finish",
            markup=False,
        )
        raise typer.Exit(EXIT_INTERRUPTED)
    if summary.failures:
        raise typer.Exit(EXIT_FAILURE)


def _import_with_progress(
    database: Database,
    paths: list[str],
    validate: bool,
    positions: str,
    jobs: int | None,
    batch_size: int,
    salvage: bool,
    max_game_bytes: int,
    err: Any,
) -> ImportSummary:
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = (
        TextColumn("{task.fields[games]:>9,} games"),
        TextColumn("{task.fields[rate]:>7,.0f} games/s"),
        BarColumn(),
        DownloadColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("import", total=None, games=0, rate=0.0)

        def progress(done: int, total: int | None, summary: ImportSummary) -> None:
            rate = summary.read / summary.elapsed if summary.elapsed else 0.0
            bar.update(task, completed=done, total=total, games=summary.read, rate=rate)

        return database.import_paths(
            paths,
            validate=validate,
            positions=positions,
            jobs=jobs,
            batch_size=batch_size,
            progress=progress,
            salvage=salvage,
            max_game_bytes=max_game_bytes,
        )


def _print_summary(summary: ImportSummary) -> None:
    rate = summary.read / summary.elapsed if summary.elapsed else 0.0
    stdout_console().print(
        f"read {counted(summary.read, 'game')} from {counted(summary.files, 'file')}: "
        f"stored {summary.stored:,}, duplicates {summary.duplicates:,}, "
        f"rejected {summary.rejected:,} in {summary.elapsed:.1f} s ({rate:,.0f} games/s)",
        markup=False,
    )


@commands.command("rejects", cls=LightCommand)
@output_options("table", "json")
def rejects_command(
    output: str = "table",
    db: str | None = db_option(),
    export: Path | None = typer.Option(
        None,
        "--export",
        help="Write the rejected games to this PGN file: each game's bytes as read,"
        " a blank line between two.",
    ),
) -> None:
    """List the games an import rejected, or export them as PGN: each game's bytes as read.

    The games are parted by a blank line, which belongs to no game: read again, each
    is its bytes as read (with a line end added to a last line that had none, unless
    it ends the file), and one rejected game is exported byte for byte.

    Example: studydb rejects --export rejected.pgn
    """
    database = open_db(db)
    with library_errors():
        if export is not None:
            count = 0
            try:
                with open(export, "wb") as out:
                    separator = b""
                    for raw in database.reject_texts():
                        out.write(separator + raw)
                        separator = b"\n" if raw.endswith(b"\n") else b"\n\n"
                        count += 1
            except OSError as exc:
                fail(f"cannot write {export}: {exc.strerror or exc}")
            stderr_console().print(
                f"wrote {counted(count, 'rejected game')} to {export}", markup=False
            )
            return
        rows = list(database.rejects())
    if output == "json":
        items = [{"id": i, "file": f, "line": n, "reason": r} for i, f, n, r in rows]
        write_json(items)
        return
    if not rows:
        stdout_console().print(counted(0, "rejected game"))
        return
    from rich.table import Table

    table = Table("id", "where", "reason", title=counted(len(rows), "rejected game"))
    for reject_id, file, line, reason in rows:
        table.add_row(str(reject_id), f"{file}:{line}", reason)
    stdout_console().print(table)
