"""``studydb composers``: the register of persons, and the user's decisions about it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from studydb.cli.common import db_option, echo, library_errors, open_db, stderr_console
from studydb.cli.light import LightCommand, LightGroup
from studydb.cli.options import output_options
from studydb.cli.output import counted, json_text, write_records
from studydb.errors import quote

if TYPE_CHECKING:
    from typer._click.core import Context as ClickContext  # typer.Context's base

    from studydb.db.persons import PersonRow

#: This module's commands, which :mod:`studydb.cli` adds to its ``app``.
commands = typer.Typer()

composers_app = typer.Typer(cls=LightGroup, invoke_without_command=True)
commands.add_typer(composers_app, name="composers")


@composers_app.callback()
@output_options("text", "json", "jsonl")
def composers_command(
    ctx: typer.Context,
    name: str | None = typer.Option(
        None,
        "--name",
        metavar="NAME",
        help="Only the persons this name finds, as search --composer finds them.",
    ),
    suggest: bool = typer.Option(
        False,
        "--suggest",
        help="List pairs of persons that are probably one but were not merged, with the "
        "evidence and a score (0-1).",
    ),
    output: str = "text",
    db: str | None = db_option(),
) -> None:
    """The composers: each person with the names it is credited by, studies and years.

    Names are grouped into persons at import (spellings, name order, initials,
    patronymics); merge, split and alias decide where the grouping is wrong,
    and the decisions are kept across imports (export and import share them).

    \b
    Examples:
      studydb composers
      studydb composers --name troitzky
      studydb composers --suggest
      studydb composers merge "Pogosyants, Ernst" "Pogosyants, Ernest"
    """
    if ctx.invoked_subcommand is not None:
        return  # the subcommand reads the group's --db (_database_of)
    database = open_db(db)
    with library_errors():
        if suggest:
            found = database.person_suggestions()
            records = [
                {
                    "score": s.score,
                    "first": a.as_dict(),
                    "second": b.as_dict(),
                    "evidence": list(s.evidence),
                }
                for s, a, b in found
            ]
            lines = [_suggestion_lines(record) for record in records]
        else:
            persons = database.persons(name)
            records = [p.as_dict() for p in persons]
            lines = [_person_lines(p) for p in persons]
    if not records and output == "text":
        stderr_console().print(_none_text(name, suggest=suggest))
    _emit(output, records, lines)


def _none_text(name: str | None, *, suggest: bool) -> str:
    """What ``composers`` says when it lists nothing.

    >>> _none_text("troitzky", suggest=False)
    "No composer is found by 'troitzky'."
    """
    if suggest:
        return "No suggestions: no two persons look like one."
    if name is not None:
        return f"No composer is found by {quote(name)}."
    return "No composers: none of the stored studies credits one."


def _database_of(ctx: typer.Context, db: str | None) -> str | None:
    """The subcommand's ``--db``, else the group's (``composers --db X merge …``), else the
    environment's.

    Both options read ``$STUDYDB_DB``; an explicit ``--db`` wins over it wherever it
    stands.
    """
    if _given(ctx, "db") or ctx.parent is None or not _given(ctx.parent, "db"):
        return db
    parent_db: str | None = ctx.parent.params.get("db")
    return parent_db


def _given(ctx: ClickContext, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def _person_lines(person: PersonRow) -> list[str]:
    years = f", {person.years}" if person.years else ""
    head = f"{person.id:>5}  {person.name}  ({_studies(person.studies)}{years})"
    others = [f"{n} ({k})" for n, k in person.variants if n != person.name]
    return [head, *(f"       also {text}" for text in others)]


def _studies(k: int) -> str:
    return counted(k, "study", "studies")


def _suggestion_lines(record: dict[str, Any]) -> list[str]:
    a, b = record["first"], record["second"]
    head = (
        f"{record['score']:.2f}  {a['id']} {a['name']} ({_studies(a['studies'])})"
        f"  ~  {b['id']} {b['name']} ({_studies(b['studies'])})"
    )
    return [head, *(f"      {text}" for text in record["evidence"])]


def _emit(output: str, records: list[dict[str, Any]], lines: list[list[str]]) -> None:
    write_records(
        output,
        zip(records, lines, strict=True),
        to_dict=lambda item: item[0],
        text=lambda item: "\n".join(item[1]),
        indent=2,
    )


def _show(db: str | None, person_id: int) -> None:
    database = open_db(db)
    with library_errors():
        for person in database.persons(ids=[person_id]):
            echo("\n".join(_person_lines(person)))


@composers_app.command("merge", cls=LightCommand)
def merge_command(
    ctx: typer.Context,
    names: list[str] = typer.Argument(
        ..., metavar="NAME_OR_ID...", help="Names (any variant) or person ids."
    ),
    db: str | None = db_option(),
) -> None:
    """Make two or more persons one: the names are one person's from now on.

    Example: studydb composers merge "Pogosyants, Ernst" "Pogosyants, Ernest"
    """
    if len(names) < 2:
        raise typer.BadParameter("give at least two names or ids", param_hint="NAME_OR_ID")
    db = _database_of(ctx, db)
    database = open_db(db)
    with library_errors():
        person_id = database.merge_persons(names)
    _show(db, person_id)


@composers_app.command("split", cls=LightCommand)
def split_command(
    ctx: typer.Context,
    name: str = typer.Argument(..., metavar="NAME", help="The name to take out of its person."),
    others: list[str] | None = typer.Argument(
        None,
        metavar="[OTHER...]",
        help="Keep NAME apart from these names only (default: from all its person's names).",
        show_default=False,
    ),
    db: str | None = db_option(),
) -> None:
    """Take a name out of its person: it is another person from now on.

    Example: studydb composers split "Platov" "Platov, Vasily"
    """
    db = _database_of(ctx, db)
    database = open_db(db)
    with library_errors():
        person_id = database.split_person(name, others=others or ())
    _show(db, person_id)


@composers_app.command("alias", cls=LightCommand)
def alias_command(
    ctx: typer.Context,
    alias: str = typer.Argument(..., metavar="ALIAS", help="Another name of the person."),
    of: str = typer.Argument(..., metavar="NAME_OR_ID", help="A name of the person, or its id."),
    db: str | None = db_option(),
) -> None:
    """Give a person another name (a pseudonym, a spelling no study has yet).

    Searches find the person by it, and studies imported with it join the person.

    Example: studydb composers alias "Gasparyan, Genrikh" "Kasparyan, Genrikh"
    """
    db = _database_of(ctx, db)
    database = open_db(db)
    with library_errors():
        person_id = database.add_alias(alias, of)
    _show(db, person_id)


@composers_app.command("export", cls=LightCommand)
def export_command(
    ctx: typer.Context,
    path: Path | None = typer.Argument(
        None, metavar="[FILE]", help="Write here (default: standard output).", show_default=False
    ),
    db: str | None = db_option(),
) -> None:
    """Write the register's decisions (and its persons, to read) as a JSON file.

    Example: studydb composers export club-composers.json
    """
    database = open_db(_database_of(ctx, db))
    with library_errors():
        text = json_text(database.export_register(), indent=2)
        if path is None:
            sys.stdout.write(text)
        else:
            path.write_text(text, encoding="utf-8")


@composers_app.command("import", cls=LightCommand)
def import_command(
    ctx: typer.Context,
    path: Path = typer.Argument(..., metavar="FILE", help="A file written by composers export."),
    db: str | None = db_option(),
) -> None:
    """Apply the decisions of a register file (from composers export) to this database.

    Example: studydb composers import club-composers.json
    """
    from studydb.errors import ComposerError

    database = open_db(_database_of(ctx, db))
    with library_errors():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ComposerError(f"{path}: not a JSON file: {exc}") from None
        added = database.import_register(data, source=str(path))
    typer.echo(f"{counted(added, 'new decision')} from {path}")
