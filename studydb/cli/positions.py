"""``studydb index``, ``studydb anticipate`` and ``studydb versions``: the position index."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import typer

from studydb.cli import app
from studydb.cli.common import (
    EXIT_INTERRUPTED,
    db_option,
    fail,
    library_errors,
    open_engine,
    stderr_console,
    stdout_console,
)
from studydb.cli.filters import filter_options
from studydb.cli.light import LightCommand

if TYPE_CHECKING:
    from studydb.db.index import IndexSummary
    from studydb.db.queries import Filters


class OutputFormat(StrEnum):
    text = "text"
    json = "json"
    jsonl = "jsonl"


# -- index -----------------------------------------------------------------------


@app.command("index", cls=LightCommand)
@filter_options
def index_command(
    filters: Filters,
    reindex: bool = typer.Option(
        False, "--reindex", help="Index the selected studies again, even those indexed already."
    ),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Processes replaying the moves."),
    batch_size: int = typer.Option(200, "--batch-size", min=1, help="Studies per transaction."),
    output: OutputFormat = typer.Option(
        OutputFormat.text, "--format", "-f", help="Summary as text or json."
    ),
    db: str | None = db_option(),
) -> None:
    """Index the positions of the studies that lack an index (or --reindex the selected ones).

    Each study's moves (main line and variations) are replayed once: every
    position is indexed and the study's validation is recorded.  Every batch
    is committed: a killed run keeps its work, and running it again finishes it.

    Examples:

      studydb index

      studydb index --composer kubbel --reindex --jobs 2
    """
    from studydb.db.index import index_studies

    engine = open_engine(db)
    err = stderr_console()
    with library_errors():
        if err.is_terminal and output is OutputFormat.text:
            summary = _index_with_progress(engine, filters, reindex, jobs, batch_size, err)
        else:
            summary = index_studies(
                engine, filters, reindex=reindex, jobs=jobs, batch_size=batch_size
            )
    if output is not OutputFormat.text:
        data = {
            "studies": summary.studies,
            "positions": summary.positions,
            "invalid": summary.invalid,
            "elapsed": summary.elapsed,
            "interrupted": summary.interrupted,
        }
        sys.stdout.write(json.dumps(data) + "\n")
    else:
        rate = summary.studies / summary.elapsed if summary.elapsed else 0.0
        stdout_console().print(
            f"indexed {summary.studies:,} studies: {summary.positions:,} positions, "
            f"{summary.invalid:,} with illegal moves, in {summary.elapsed:.1f} s "
            f"({rate:,.0f} studies/s)",
            markup=False,
        )
    if summary.interrupted:
        err.print("interrupted: run the same command again to finish", markup=False)
        raise typer.Exit(EXIT_INTERRUPTED)


def _index_with_progress(
    engine: Any, filters: Filters, reindex: bool, jobs: int, batch_size: int, err: Any
) -> IndexSummary:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from studydb.db.index import index_studies

    columns = (
        TextColumn("{task.fields[positions]:>11,} positions"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("index", total=None, positions=0)

        def progress(done: int, total: int, positions: int) -> None:
            bar.update(task, completed=done, total=total, positions=positions)

        return index_studies(
            engine, filters, reindex=reindex, jobs=jobs, batch_size=batch_size, progress=progress
        )


def _unused() -> None:  # pragma: no cover - placeholder removed below
    fail("")
