"""``studydb search``, ``studydb show`` and ``studydb stats``.

The filter options are shared: ``stats`` takes every filter ``search`` takes
and describes the result set.  SQLAlchemy (through :mod:`studydb.db`) is
imported inside the commands only.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import typer

from studydb.cli.common import (
    db_option,
    fail,
    library_errors,
    not_compared_text,
    note_unindexed,
    open_db,
    stderr_console,
    stdout_console,
)
from studydb.cli.filters import filter_options
from studydb.cli.light import LightCommand
from studydb.cli.options import min_men_option, output_options
from studydb.cli.output import counted, write_json, write_parts
from studydb.filters import SORT_KEYS
from studydb.vocabulary import EXPORT_FORMATS

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from rich.console import Console

    from studydb.db.anticipate import Related
    from studydb.db.database import Database
    from studydb.db.search import StoredStudy, StudyRow
    from studydb.db.stats import Stats
    from studydb.db.themes import StudyThemes
    from studydb.filters import Filters
    from studydb.movetext import MainMove
    from studydb.soundness.verdict import StoredCheck

#: Largest study id, --limit and --offset (a 64-bit SQL integer); --top's largest value.
MAX_ID = MAX_ROWS = 2**63 - 1
MAX_TOP = 1000
#: Rows shown by default when the output is a terminal (unlimited when piped).
TERMINAL_LIMIT = 50
#: Rows written per write call when streaming an export.
_CHUNK = 500
#: Width of the bars in ``stats`` charts.
BAR_WIDTH = 40


#: ``--sort``'s choices, from the library's sort keys.
SortKey = StrEnum("SortKey", {key: key for key in SORT_KEYS})  # type: ignore[misc]


def composer_label(person: Any) -> str:
    """A person among the most represented, with the other names it is credited by.

    >>> from studydb.db.stats import TopComposer
    >>> composer_label(TopComposer("Réti, Richard", 9, 6, ("R. Reti", "Reti")))
    'Réti, Richard (also R. Reti; Reti)'
    """
    if not person.variants:
        return str(person.name)
    return f"{person.name} (also {'; '.join(person.variants)})"


# -- search ------------------------------------------------------------------------


#: This module's commands, which :mod:`studydb.cli` adds to its ``app``.
commands = typer.Typer()


@commands.command("search", cls=LightCommand)
@filter_options
@output_options(
    "table",
    *EXPORT_FORMATS,
    help="table, json (one array), jsonl, csv, pgn (as imported) or fen.",
)
def search_command(
    filters: Filters,
    sort: SortKey = typer.Option(
        SortKey(SORT_KEYS[0]),
        "--sort",
        help="Order: gbr (then year), year (oldest first), newest, composer or id.",
    ),
    limit: int | None = typer.Option(
        None,
        "--limit",
        "-n",
        min=0,
        max=MAX_ROWS,
        help=f"At most this many studies (0 = all). Default {TERMINAL_LIMIT} on a "
        "terminal, all when piped.",
        show_default=False,
    ),
    offset: int = typer.Option(
        0, "--offset", min=0, max=MAX_ROWS, help="Skip this many studies first."
    ),
    count_only: bool = typer.Option(False, "--count", help="Print only the number of studies."),
    output: str = "table",
    db: str | None = db_option(),
) -> None:
    """Find studies by material, composer, year, stipulation, source, EG number or award.

    Filters combine with AND; a filter given several times matches any of
    its values.

    Examples:

      studydb search 0300.10

      studydb search KRBvKRN --either-colour --stipulation draw

      studydb search '03??' --where "men<=5" --composer reti --year 1920..1939

      studydb search --composer kubbel --format pgn > kubbel.pgn

      studydb search --eg 1335 --source "Lenin MT"

      studydb search --stipulation '#3'
    """
    database = open_db(db)
    with library_errors():
        filters = database.resolved(filters) or filters  # a pattern scanned once: page, count
        if count_only:
            typer.echo(database.count(filters))
            note_unindexed(database, filters)
            return
        on_terminal = sys.stdout.isatty()
        if limit is None:
            limit = TERMINAL_LIMIT if on_terminal else 0
        rows = database.search(
            filters,
            sort=sort.value,
            limit=limit or None,
            offset=offset,
            with_pgn=output == "pgn",
        )
        shown = _write_rows(rows, output)
        if on_terminal and limit and shown == limit:
            total = database.count(filters)
            if total > offset + shown:
                stderr_console().print(
                    f"{shown} of {total:,} studies shown (from {offset + 1}); "
                    "--limit 0 shows all, --offset N skips."
                )
        if shown == 0 and output == "table":
            total = database.count(filters) if offset else 0
            if total:
                stderr_console().print(
                    f"No studies from --offset {offset}: {total:,} match (--offset 0 shows them)."
                )
            else:
                stderr_console().print("No studies match.")
        note_unindexed(database, filters)


def _print_pairs(console: Console, pairs: list[tuple[str, str]], *, style: str) -> None:
    """Labelled values, the labels in a column of their own and no padding after the values."""
    from rich.text import Text

    width = max((len(label) for label, _ in pairs), default=0)
    for label, value in pairs:
        console.print(Text.assemble((label.ljust(width), style), "  ", value))


def _write_rows(rows: Iterable[StudyRow], output: str) -> int:
    """Write the rows in the chosen format; return how many there were."""
    if output == "table":
        return _print_table(rows)
    from studydb import export

    counted = _Counter(rows)
    write_parts(export.FORMATS[output](counted), chunk=_CHUNK)
    return counted.count


class _Counter:
    """Iterate over rows, counting them."""

    def __init__(self, rows: Iterable[StudyRow]) -> None:
        self.rows = rows
        self.count = 0

    def __iter__(self) -> Iterator[StudyRow]:
        for row in self.rows:
            self.count += 1
            yield row


def _print_table(rows: Iterable[StudyRow]) -> int:
    from rich.table import Table

    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    columns: tuple[tuple[str, Literal["left", "right"]], ...] = (
        ("ID", "right"),
        ("GBR", "left"),
        ("Signature", "left"),
        ("Stip.", "left"),
        ("Composers", "left"),
        ("Year", "right"),
        ("Source", "left"),
        ("Award", "left"),
    )
    for name, justify in columns:
        table.add_column(name, justify=justify, overflow="fold")
    shown = 0
    for row in rows:
        places = row.line_matches if row.line_matches is not None else row.occurrences
        if shown == 0 and places is not None:
            table.add_column("Where", overflow="fold")
        where = [] if places is None else [_where(places)]
        table.add_row(
            str(row.id),
            row.gbr,
            row.signature,
            row.stipulation or "",
            "; ".join(row.composers),
            "" if row.year is None else str(row.year),
            row.source or "",
            row.award or "",
            *where,
        )
        shown += 1
    if shown:
        _console().print(table)
    return shown


def _where(occurrences: tuple[Any, ...], *, most: int = 3) -> str:
    """Where a position occurs (or a line matches), the first few places and how many more."""
    text = "; ".join(o.describe() for o in occurrences[:most])
    if len(occurrences) > most:
        text += f"; +{len(occurrences) - most} more"
    return text


def _console() -> Console:
    """Standard output; wide when it is not a terminal so that tables do not wrap."""
    console = stdout_console()
    if not console.is_terminal:
        console.width = max(console.width, 200)
    return console


# -- show --------------------------------------------------------------------------


@commands.command("show", cls=LightCommand)
@output_options(
    "text",
    "json",
    "pgn",
    help="text (diagram and solution), json (every stored field) or pgn (as imported).",
)
def show_command(
    study_id: int = typer.Argument(
        ..., metavar="ID", min=1, max=MAX_ID, help="The study's id (see search)."
    ),
    svg: Path | None = typer.Option(
        None, "--svg", metavar="FILE", help="Also write the diagram as an SVG image to FILE."
    ),
    flip: bool = typer.Option(False, "--flip", help="Show the board from Black's side."),
    anticipations: bool = typer.Option(
        False,
        "--anticipations",
        help="List the other studies sharing positions with this one (any year).",
    ),
    min_men: int = min_men_option(),
    node: int | None = typer.Option(
        None,
        "--node",
        min=0,
        help="Show the position at this node (as search --position and anticipate give it) "
        "and the moves that reach it.",
        show_default=False,
    ),
    output: str = "text",
    db: str | None = db_option(),
) -> None:
    """Show one study: headers, material, a diagram and the solution.

    Also how many other studies share positions with it (see anticipate)
    and the other versions of it (studies with the same start position).

    Examples:

      studydb show 412

      studydb show 412 --svg saavedra.svg

      studydb show 412 --format pgn

      studydb show 412 --anticipations

      studydb show 412 --node 7
    """
    database = open_db(db)
    with library_errors():
        study = database.study(study_id)
        check = database.stored_check(study_id)
        themes = database.study_themes(study_id)
    if study is None:
        fail(f"no study with id {study_id} in {database.location}")
    from studydb import render
    from studydb.movetext import start_board

    board = start_board(study.fen, study.headers)
    reached = None
    if node is not None:
        reached = _reach(study, node)
        board = reached.board
    with library_errors():
        extended, form = render.gbr_notations(board, study.stipulation)
    if svg is not None:
        try:
            svg.write_text(render.svg_diagram(board, flipped=flip), encoding="utf-8")
        except OSError as exc:
            fail(f"cannot write {svg}: {exc.strerror or exc}")
    if output == "pgn":
        from studydb.export import pgn_text

        sys.stdout.write(pgn_text(study.pgn))  # as imported: no echo's stripping
        return
    related = _related(database, study, min_men)
    if output == "json":
        from studydb.export import study_record

        data = study_record(study.as_dict(), extended=extended, form=form, check=check)
        if reached is not None:
            data["reached"] = reached.as_dict()
        data.update(related.as_dict(listed=anticipations))
        data.update(themes.as_dict())
        write_json(data, indent=2, default=str)
        return
    _print_study(study, board, extended, form, flip=flip, reached=reached)
    if check is not None:
        _print_check(check, board)
    _print_themes(themes, _theme_moves(study, themes))
    _print_related(related, listed=anticipations)
    if svg is not None:
        stderr_console().print(f"diagram written to {svg}")


@dataclass(frozen=True)
class _Reached:
    """The position at a node of a study (``show --node``): the moves that reach it."""

    board: Any  # a chess.Board (python-chess is imported when used)
    node: int
    ply: int
    main: bool
    moves: str
    fen: str

    def as_dict(self) -> dict[str, Any]:
        """The JSON record ``show --format json --node`` adds as ``reached`` (no board)."""
        return {
            "node": self.node,
            "ply": self.ply,
            "main": self.main,
            "moves": self.moves,
            "fen": self.fen,
        }


def _reach(study: StoredStudy, node: int) -> _Reached:
    """The position at ``node`` of a study: board, ply, line and the moves from the start."""
    import chess

    from studydb.movetext import moves_to, movetext_of, node_count, nodes, start_board

    start = start_board(study.fen, study.headers)
    text = movetext_of(study.pgn)
    found = nodes(start, text, node=node)
    moves = moves_to(start, text, node)
    if not found or moves is None:
        last = node_count(start, text) - 1
        fail(f"study {study.id} has no node {node}: its nodes are 0 to {last}")
    (reached,) = found
    return _Reached(
        board=chess.Board(reached.fen, chess960=start.chess960),
        node=node,
        ply=reached.ply,
        main=reached.main,
        moves=start.variation_san(moves),
        fen=reached.fen,
    )


def _print_study(
    study: StoredStudy,
    board: Any,
    extended: str,
    form: str | None,
    *,
    flip: bool,
    reached: _Reached | None = None,
) -> None:
    from rich.text import Text

    from studydb import render
    from studydb.movetext import movetext_of, start_board

    console = _console()
    title = Text(f"Study {study.id}", style="bold")
    byline = "; ".join(study.composers) or study.composer_names or "composer unknown"
    title.append(f"  {byline}")
    console.print(title)

    facts = [(fact.label, fact.value) for fact in study.facts(extended=extended, form=form)]
    facts.append(("To move", render.SIDE_NAMES.get(study.turn, study.turn)))
    facts.append(("Validated", _VALIDATED[study.valid]))
    provenance = _provenance(study)
    if provenance:
        facts.append(("Imported from", provenance))
    _print_pairs(console, facts, style="bold")
    for error in study.errors or ():
        console.print(Text(f"  ! {error}", style="red"))
    console.print()
    if reached is not None:
        line = "main line" if reached.main else "variation"
        console.print(Text(f"Node {reached.node}, ply {reached.ply} ({line}): {reached.moves}"))
    console.print(render.rich_diagram(board, flipped=flip, colour=console.color_system is not None))
    console.print()

    tags = [(name, str(value)) for name, value in (study.headers or {}).items()]
    _print_pairs(console, tags, style="dim")
    console.print()
    start = start_board(study.fen, study.headers)
    console.print(Text(render.movetext(start, movetext_of(study.pgn)) or "(no moves)"))


def _print_check(check: StoredCheck, board: Any) -> None:
    """The stored soundness check: verdict, when and how, and the annotated solution."""
    from rich.text import Text

    from studydb.soundness.annotate import annotated_lines

    console = _console()
    console.print()
    how = f"tables {check.tables_men}-men" if check.tables_men else "tables"
    if check.engine:
        how += f", {check.engine}"
    if check.claim_ply is not None:
        how += f"; claim checked at ply {check.claim_ply}"
    when = f"; checked {check.checked:%Y-%m-%d %H:%M}" if check.checked else ""
    verdict = check.summary if check.verdict == "no-errors" else check.verdict
    console.print(
        Text(f"Soundness: {verdict}", style="bold").append(
            f"  ({check.table_plies} plies by tables, {check.engine_plies} by engine; {how}{when})",
            style="",
        )
    )
    if check.reason:
        console.print(Text(f"  {check.reason}"))
    if check.note:
        console.print(Text(f"  {check.note}"))
    for line in annotated_lines(check, white_first=board.turn):
        console.print(Text(line, style="red" if "first solution error" in line else ""))


def _theme_moves(study: StoredStudy, found: StudyThemes) -> dict[int, MainMove]:
    """The main line's move to each theme's ply."""
    from studydb.movetext import main_moves, movetext_of, start_board

    plies = [theme.ply for theme in found.themes if theme.ply]
    return main_moves(start_board(study.fen, study.headers), movetext_of(study.pgn), plies)


def _print_themes(found: StudyThemes, moves: Mapping[int, MainMove]) -> None:
    """The study's themes with their moves and plies, how far its main line was searched
    (:meth:`StudyThemes.search_note`), and whether mutual zugzwangs were looked for."""
    from rich.text import Text

    console = _console()
    console.print()
    console.print(Text("Themes", style="bold"))
    for theme in found.themes:
        move = moves.get(theme.ply) if theme.ply else None
        console.print(Text(f"  {theme.name:<16} {theme.place(move.label if move else None)}"))
    searched = found.search_note()
    if not found.themes and searched is None:
        console.print(Text("  none found"))
    for note in (searched, found.zugzwang_note()):
        if note:
            console.print(Text(f"  ({note})"))


def _related(database: Database, study: StoredStudy, min_men: int) -> Related:
    """The studies sharing positions with this one, and its other versions."""
    with library_errors():
        return database.related(study, min_men=min_men)


def _print_related(related: Related, *, listed: bool) -> None:
    from rich.text import Text

    console = _console()
    console.print()
    shared = related.shared
    if related.compared:
        console.print(
            Text(
                f"Shares positions ({related.min_men}+ men) with"
                f" {counted(len(shared), 'other study', 'other studies')}"
            )
        )
    else:
        from studydb.facts import too_few_men_phrase

        phrase = too_few_men_phrase(related.men, related.min_men)
        console.print(Text(f"Shares positions: {phrase}"))
    if related.not_compared and related.compared:
        console.print(Text(f"  ({not_compared_text(related.not_compared, related.min_men)})"))
    if listed:
        for hit in shared:
            who = "; ".join(hit.composers) or "composer unknown"
            year = hit.year if hit.year is not None else "undated"
            console.print(
                Text(
                    f"  study {hit.id}  {who}, {year}: {hit.positions} shared, "
                    f"first at ply {hit.first_ply} (its ply {hit.shared[0].other_ply})"
                )
            )
    for member in related.versions:
        who = "; ".join(member.composers) or "composer unknown"
        year = member.year if member.year is not None else "undated"
        console.print(
            Text(f"Version: study {member.id}  {who}, {year}  {member.source or ''}".rstrip())
        )
    more = related.versions_total - len(related.versions)
    if more > 0:
        console.print(Text(f"… and {more:,} more versions (studydb versions lists them all)"))


#: ``show``'s word for whether the moves were replayed (``import --validate``) and legal.
_VALIDATED = {None: "no", True: "moves legal", False: "moves illegal"}


def _provenance(study: StoredStudy) -> str | None:
    if not study.file:
        return None
    where = f"{study.file}:{study.line}" if study.line else study.file
    if study.salvaged:
        where += " (salvaged from a damaged compressed file: its verified part)"
    return where


# -- stats -------------------------------------------------------------------------


@commands.command("stats", cls=LightCommand)
@filter_options
@output_options("table", "json", help="table (with bar charts) or json.")
def stats_command(
    filters: Filters,
    top: int = typer.Option(
        10, "--top", min=1, max=MAX_TOP, help="How many GBR classes and composers to list."
    ),
    output: str = "table",
    db: str | None = db_option(),
) -> None:
    """Statistics of the collection, or of the studies the filters select.

    Studies, composers and years covered; the most common GBR classes; the
    distributions by number of men, by decade and by stipulation; the most
    represented composers.  Takes the same filters as search.

    Examples:

      studydb stats

      studydb stats --composer kubbel --top 5

      studydb stats '03??' --year 1900..1999 --format json
    """
    database = open_db(db)
    with library_errors():
        result = database.stats(filters, top=top)
    if output == "json":
        write_json(result.as_dict(), indent=2)
    else:
        _print_stats(result)
    with library_errors():
        note_unindexed(database, filters, theme_counts=True)  # its theme counts


def _print_stats(result: Stats) -> None:
    from rich.table import Table
    from rich.text import Text

    console = _console()
    years = "no dates" if result.first_year is None else f"{result.first_year}–{result.last_year}"
    if result.undated:
        years += f" ({result.undated:,} undated)"
    summary = Table.grid(padding=(0, 2))
    summary.add_column(style="bold")
    summary.add_column(justify="right")
    summary.add_row("Studies", f"{result.studies:,}")
    summary.add_row("Composers", f"{result.composers:,}")
    summary.add_row("Years", years)
    console.print(summary)

    def chart(title: str, heading: str, items: list[tuple[Any, int]], label: Any) -> None:
        if not items:
            return
        table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
        table.add_column(heading)
        table.add_column("Studies", justify="right")
        table.add_column("", no_wrap=True)
        peak = max(n for _, n in items) or 1
        for value, n in items:
            bar = "█" * max(1, round(BAR_WIDTH * n / peak)) if n else ""
            table.add_row(Text(label(value)), f"{n:,}", Text(bar, style="cyan"))
        console.print()
        console.print(table)

    chart("Most common GBR classes", "GBR", result.gbr, str)
    chart("By number of men", "Men", result.men, str)
    chart("By decade", "Decade", result.decades, lambda d: "undated" if d is None else f"{d}s")
    chart(
        "By stipulation",
        "Stipulation",
        result.stipulations,
        lambda s: "not given" if s is None else s,
    )
    chart(
        "Most represented composers",
        "Composer",
        [(c, c.studies) for c in result.top_composers],
        composer_label,
    )
    chart("By soundness verdict (studydb check)", "Verdict", result.verdicts, str)
    chart("By theme (studydb themes)", "Theme", result.themes, str)
