"""``studydb index``, ``studydb anticipate`` and ``studydb versions``: the position index."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from studydb.cli.common import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    MAX_BATCH,
    db_option,
    jobs_option,
    library_errors,
    note_not_compared,
    open_db,
    stderr_console,
    stdout_console,
)
from studydb.cli.filters import filter_options, filter_options_similar_alone
from studydb.cli.light import LightCommand
from studydb.cli.options import before_option, min_men_option, output_options
from studydb.cli.output import RecordWriter, counted, write_json, write_records

if TYPE_CHECKING:
    from studydb.db.anticipate import CheckedGame, GroupedVersion, Shared
    from studydb.db.database import Database
    from studydb.db.index import IndexSummary
    from studydb.filters import Filters


# -- index -----------------------------------------------------------------------


#: This module's commands, which :mod:`studydb.cli` adds to its ``app``.
commands = typer.Typer()


@commands.command("index", cls=LightCommand)
@filter_options
@output_options("text", "json", "jsonl", help="Summary as text or json.")
def index_command(
    filters: Filters,
    reindex: bool = typer.Option(
        False, "--reindex", help="Index the selected studies again, even those indexed already."
    ),
    jobs: int | None = jobs_option(
        "replaying the moves",
        "the number of cores, for 200 studies or more; fewer are replayed in one process",
    ),
    batch_size: int = typer.Option(
        200, "--batch-size", min=1, max=MAX_BATCH, help="Studies per transaction."
    ),
    output: str = "text",
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
    database = open_db(db)
    err = stderr_console()
    with library_errors():
        if err.is_terminal and output == "text":
            summary = _index_with_progress(database, filters, reindex, jobs, batch_size, err)
        else:
            summary = database.index(filters, reindex=reindex, jobs=jobs, batch_size=batch_size)
    if output != "text":
        data = {
            "studies": summary.studies,
            "positions": summary.positions,
            "invalid": summary.invalid,
            "elapsed": summary.elapsed,
            "interrupted": summary.interrupted,
            "failures": summary.failures,
        }
        write_json(data)
    else:
        rate = summary.studies / summary.elapsed if summary.elapsed else 0.0
        stdout_console().print(
            f"indexed {counted(summary.studies, 'study', 'studies')}:"
            f" {counted(summary.positions, 'position')}, "
            f"{summary.invalid:,} with illegal moves, in {summary.elapsed:.1f} s "
            f"({rate:,.0f} studies/s)",
            markup=False,
        )
    if summary.interrupted:
        err.print("interrupted: run the same command again to finish", markup=False)
        raise typer.Exit(EXIT_INTERRUPTED)
    for failure in summary.failures:  # as import says its own
        err.print(f"studydb: error: {failure}", markup=False)
    if summary.failures:
        raise typer.Exit(EXIT_FAILURE)


def _index_with_progress(
    database: Database,
    filters: Filters,
    reindex: bool,
    jobs: int | None,
    batch_size: int,
    err: Any,
) -> IndexSummary:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

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

        return database.index(
            filters, reindex=reindex, jobs=jobs, batch_size=batch_size, progress=progress
        )


# -- anticipate -------------------------------------------------------------------


@commands.command("anticipate", cls=LightCommand)
@output_options("text", "json", "jsonl", help="text (with a diagram), json or jsonl.")
def anticipate_command(
    games: list[str] = typer.Argument(
        ...,
        metavar="FILE.pgn|ID...",
        help="PGN files (every game in them is checked) or ids of stored studies.",
    ),
    similar: bool = typer.Option(
        False, "--similar", help="Also match symmetric images (CQL similarposition)."
    ),
    either_colour: bool = typer.Option(
        False,
        "--either-colour",
        "--either-color",
        "-z",
        help="Also match the positions with the colours reversed.",
    ),
    min_men: int = min_men_option(),
    before: int | None = before_option(),
    limit: int = typer.Option(
        10, "--limit", "-n", min=0, max=1_000_000, help="Studies listed per game (0 = all)."
    ),
    output: str = "text",
    db: str | None = db_option(),
) -> None:
    """Check games for anticipation: the stored studies that share positions with them.

    Every position of each game (main line and variations, with at least
    --min-men men) is looked up in the position index.  For each game the
    studies are ranked by how early the first shared position comes, then
    by how many positions they share; a stored study never anticipates
    itself.

    Examples:

      studydb anticipate tourney-entries.pgn --similar --either-colour

      studydb anticipate 412 --before 1950 --format json
    """
    from studydb.db.anticipate import CheckedGame  # python-chess: when a game is checked

    database = open_db(db)
    console = stdout_console()
    writer: RecordWriter[CheckedGame] = RecordWriter(
        output,
        to_dict=CheckedGame.as_dict,
        text=lambda checked: _print_check(console, checked),
        indent=2,
    )
    stored: set[int | None] = set()  # the studies checked, which anticipate nothing here
    empty = {name for name in games if not name.isdigit()}  # files, until a game is read
    with library_errors():
        for checked in database.games_named(games):
            stored.add(checked.id)
            empty.discard(checked.name.rpartition(":")[0])
            year = before if before is not None else checked.year
            hits = database.anticipations(
                checked.fen,
                checked.movetext,
                similar=similar,
                either_colour=either_colour,
                min_men=min_men,
                before=year,
                exclude=checked.id,
            )
            shown = hits[:limit] if limit else hits
            writer.write(CheckedGame(checked, year, len(hits), tuple(shown), min_men))
    writer.close()
    for name in sorted(empty):
        stderr_console().print(f"studydb: note: {name} holds no game")
    if stored:
        with library_errors():
            only = next(iter(stored)) if len(stored) == 1 else None
            note_not_compared(database, min_men=min_men, exclude=only)


def _print_check(console: Any, checked: CheckedGame) -> None:
    import chess
    from rich.text import Text

    from studydb import render

    if not checked.compared:
        from studydb.facts import too_few_men_phrase

        phrase = too_few_men_phrase(checked.men, checked.min_men)
        console.print(Text(f"{checked.game.name}: {phrase}", style="bold"))
        return
    before = f", up to {checked.before}" if checked.before is not None else ""
    console.print(
        Text(f"{checked.game.name}: {share_phrase(checked.studies)}{before}", style="bold")
    )
    for rank, hit in enumerate(checked.anticipations, 1):
        who = (
            "; ".join(person.name for person in hit.persons)
            or "; ".join(hit.composers)
            or "composer unknown"
        )
        when = hit.year if hit.year is not None else "undated"
        order = "  (same year, order unknown)" if hit.same_year else ""
        first = f"after {hit.first_move}" if hit.first_move else "at the start"
        count = hit.positions
        console.print(
            Text(
                f"{rank:>3}. study {hit.id}  {who}, {when}  {hit.source or ''}  "
                f"{counted(count, 'shared position')}, first {first}{order}"
            )
        )
        for shared in hit.shared[:5]:
            console.print(Text(f"       {describe_shared(shared)}"))
        if len(hit.shared) > 5:
            console.print(Text(f"       … {len(hit.shared) - 5} more"))
        if rank == 1:
            board = chess.Board(hit.shared[0].fen)
            for line in render.text_diagram(board):
                console.print(Text("       " + line))


def share_phrase(studies: int) -> str:
    """``1 study shares positions``, ``3 studies share positions``.

    >>> share_phrase(1), share_phrase(0)
    ('1 study shares positions', '0 studies share positions')
    """
    if studies == 1:
        return "1 study shares positions"
    return f"{studies} studies share positions"


def describe_shared(shared: Shared) -> str:
    """One shared position: where in each game (by move), and how it is transformed.

    >>> from studydb.db.anticipate import Shared
    >>> describe_shared(Shared(3, True, 6, False, "8/8/8/8/8/8/8/K1k5 w - - 0 1",
    ...     colour_reversed=True, move="2.Kf6", other_move="3...Rb2", transformation="mirrored"))
    'after 2.Kf6 (main line) = its position after 3...Rb2 (variation), colours reversed, mirrored'
    """

    def where(move: str, main: bool) -> str:
        line = "main line" if main else "variation"
        return f"after {move} ({line})" if move else f"the start ({line})"

    how = [
        *(["colours reversed"] if shared.colour_reversed else []),
        *([shared.transformation] if shared.transformation else []),
    ]
    text = (
        f"{where(shared.move, shared.main)} = its position "
        f"{where(shared.other_move, shared.other_main)}"
    )
    text = text.replace("its position the start", "its start")
    return ", ".join([text, *how])


# -- versions -------------------------------------------------------------------


@commands.command("versions", cls=LightCommand)
@filter_options_similar_alone
@output_options("text", "json", "jsonl", help="text, json or jsonl (one group a line).")
def versions_command(
    filters: Filters,
    output: str = "text",
    db: str | None = db_option(),
) -> None:
    """Groups of stored studies whose start positions match: versions and duplicates.

    The same study imported from two collections, or a study with its
    corrections.  Each group lists composers, years and sources, oldest
    first.  --similar groups symmetric images too; --either-colour the
    colour-reversed position.

    Examples:

      studydb versions

      studydb versions --year ..1950 --similar --either-colour --format json
    """
    database = open_db(db)
    with library_errors():
        groups = database.versions(
            filters,
            similar=filters.similar,
            either_colour=filters.either_colour,
        )
    write_records(output, groups, to_dict=_group_dicts, print_text=_print_versions, indent=2)


#: Members of a group a table shows (the oldest): as many as a page of the web's versions.
VERSIONS_SHOWN = 20


def _group_dicts(group: list[GroupedVersion]) -> list[dict[str, Any]]:
    """A group of versions as JSON: each member's dict."""
    return [member.as_dict() for member in group]


def _print_versions(groups: list[list[GroupedVersion]]) -> None:
    from rich.table import Table

    console = stdout_console()
    if not console.is_terminal:
        console.width = max(console.width, 200)
    members = sum(len(group) for group in groups)
    where = "1 group" if len(groups) == 1 else f"{len(groups)} groups"
    console.print(f"{members} studies in {where} share a start position", markup=False)
    for number, group in enumerate(groups, 1):
        table = Table(
            title=f"group {number}: {group[0].fen}",
            title_justify="left",
            show_edge=False,
            pad_edge=False,
        )
        for name in ("ID", "Composers", "Year", "Source", "GBR"):
            table.add_column(name, overflow="fold")
        for member in group[:VERSIONS_SHOWN]:
            table.add_row(
                str(member.id),
                "; ".join(member.composers),
                "" if member.year is None else str(member.year),
                member.source or "",
                member.gbr,
            )
        console.print()
        console.print(table)
        if len(group) > VERSIONS_SHOWN:
            more = len(group) - VERSIONS_SHOWN
            console.print(f"… and {more:,} more in this group (--format json lists them all)")
