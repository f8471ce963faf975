"""The ``studydb`` command line.

Thin layer: parse arguments, call the library, print with Rich.  Modules
here import :mod:`studydb.db` (and so SQLAlchemy) only inside the commands
that need it, so that ``studydb gbr ...`` starts fast.
"""

from __future__ import annotations

import typer

from studydb import __version__
from studydb.cli.light import LightGroup

app = typer.Typer(
    name="studydb",
    cls=LightGroup,
    help="Endgame-study database with GBR classification.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"studydb {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """Endgame-study database with GBR classification."""


def _register() -> None:
    # Each module adds its commands to ``app``; none of them imports
    # SQLAlchemy at module level.
    from studydb.cli import db, gbr, importing, positions, search  # noqa: F401


_register()


def main() -> None:
    """Console-script entry point."""
    app()
