"""``studydb db``: where the database is and its schema revision."""

from __future__ import annotations

import typer

from studydb.cli.common import db_option, library_errors
from studydb.cli.light import LightCommand, LightGroup

#: This module's commands, which :mod:`studydb.cli` adds to its ``app``.
commands = typer.Typer()

db_app = typer.Typer(
    cls=LightGroup, help="Database location and schema migrations.", no_args_is_help=True
)
commands.add_typer(db_app, name="db")


@db_app.command("path", cls=LightCommand)
def path_command(db: str | None = db_option()) -> None:
    """Print where the database is (a SQLite file path, or the URL).

    Example: studydb db path
    """
    from studydb.db.connect import describe, resolve_url

    with library_errors():
        typer.echo(describe(resolve_url(db)))


@db_app.command("current", cls=LightCommand)
def current_command(db: str | None = db_option()) -> None:
    """Print the database's schema revision and whether it is the latest.

    Example: studydb db current --db studies.sqlite
    """
    from studydb.db.connect import (
        check_revision,
        current_revision,
        foreign_message,
        foreign_tables,
        open_database,
    )
    from studydb.db.migrations import HEAD_REVISION
    from studydb.errors import DatabaseError

    with library_errors():
        engine = open_database(db, upgrade_schema=False, write=False)
        revision = current_revision(engine)
        check_revision(engine, revision)
        if revision is None and (tables := foreign_tables(engine)):  # not "empty"
            raise DatabaseError(foreign_message(engine, tables))
    state = "head" if revision == HEAD_REVISION else f"behind head {HEAD_REVISION}"
    typer.echo(f"{revision or 'empty'} ({state})")


@db_app.command("upgrade", cls=LightCommand)
def upgrade_command(
    db: str | None = db_option(),
    revision: str = typer.Option("head", help="Target revision."),
) -> None:
    """Bring the database schema to the latest revision (done automatically on open).

    Example: studydb db upgrade --db studies.sqlite
    """
    from studydb.db.connect import current_revision, open_database, upgrade

    with library_errors():
        engine = open_database(db, upgrade_schema=False)
        upgrade(engine, revision)
        typer.echo(f"database at revision {current_revision(engine)}")
