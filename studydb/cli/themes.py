"""``studydb themes``: the themes of the selected studies, counted."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from studydb.cli.common import (
    db_option,
    library_errors,
    note_unindexed,
    open_db,
    stderr_console,
    stdout_console,
)
from studydb.cli.filters import filter_options
from studydb.cli.light import LightCommand
from studydb.cli.options import output_options
from studydb.cli.output import write_json

if TYPE_CHECKING:
    from studydb.filters import Filters


#: This module's commands, which :mod:`studydb.cli` adds to its ``app``.
commands = typer.Typer()


@commands.command("themes", cls=LightCommand)
@filter_options
@output_options("table", "json", help="table or json.")
def themes_command(
    filters: Filters,
    output: str = "table",
    db: str | None = db_option(),
) -> None:
    """List every theme of the selected studies with how many studies have it.

    Themes are found when the moves are replayed (import, studydb index;
    mutual zugzwangs by studydb check, with the tables) or read from
    Keywords/Theme tags.  Takes the same filters as search.

    Examples:

      studydb themes

      studydb themes --composer kubbel --format json
    """
    database = open_db(db)
    with library_errors():
        counts = database.theme_counts(filters)
        # none among the studies selected, or none at all (the advice is for that only)
        narrowed = not counts and bool(filters.given()) and bool(database.theme_counts())
        note_unindexed(database, filters, theme_counts=True)
    if output == "json":
        data = [{"theme": name, "studies": n} for name, n in counts]
        write_json(data, indent=2)
        return
    _print_counts(counts, narrowed=narrowed)


def _print_counts(counts: list[tuple[str, int]], *, narrowed: bool) -> None:
    from rich.table import Table

    if narrowed:
        stderr_console().print("No themes in the studies selected.")
        return
    if not counts:
        stderr_console().print("No themes: import with the moves replayed, or run studydb index.")
        return
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("Theme")
    table.add_column("Studies", justify="right")
    for name, n in counts:
        table.add_row(name, f"{n:,}")
    stdout_console().print(table)
