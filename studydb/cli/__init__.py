"""The ``studydb`` command line.

Thin layer: parse arguments, call the library, print with Rich.  Modules
here import :mod:`studydb.db` (and so SQLAlchemy) only inside the commands
that need it, so that ``studydb gbr ...`` starts fast.
"""

from __future__ import annotations

import copy
import io
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

import typer

from studydb import __version__
from studydb.cli.common import EXIT_FAILURE, quiet_broken_pipe
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
    """Add each command module's commands and groups to ``app``, in this order.

    ``--help`` lists the top level in :data:`studydb.cli.light.COMMAND_ORDER`.

    The modules import nothing from this package's ``__init__`` (each has its
    own ``commands``), and none of them imports SQLAlchemy at module level.
    """
    from studydb.cli import (
        check,
        composers,
        db,
        gbr,
        importing,
        positions,
        report,
        search,
        serve,
        themes,
    )

    for module in (check, composers, db, gbr, importing, positions, report, search, serve, themes):
        app.registered_commands.extend(module.commands.registered_commands)
        app.registered_groups.extend(module.commands.registered_groups)


_register()


def main() -> None:
    """Console-script entry point: the commands, with output errors made messages.

    A closed standard output, a full disk (``> /dev/full``) and an output
    encoding that lacks some characters end with a message, never a
    traceback; a reader that went away (``| head -1``) ends quietly with 0.
    """
    if sys.stdout is None:
        sys.stderr.write("studydb: error: standard output is closed\n")
        raise SystemExit(EXIT_FAILURE)
    utf = (sys.stdout.encoding or "").lower().replace("-", "").startswith("utf")
    if not utf and isinstance(sys.stdout, io.TextIOWrapper):  # what a console gives
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        asked_for(sys.argv[1:])()
    except SystemExit:
        if type(sys.stdout).__name__ == "PacifyFlushWrapper":  # Click saw EPIPE, exit 1
            quiet_broken_pipe()
        _flush_stdout()
        raise
    except BrokenPipeError:
        quiet_broken_pipe()
    except OSError as exc:
        _output_failed(exc)
    _flush_stdout()


def asked_for(args: Sequence[str]) -> typer.Typer:
    """``app`` with only the command or group that ``args`` name, for Typer to build alone.

    Typer turns every command into a Click command (each function's signature
    read, each parameter made) when the program starts: building all 23 cost
    more than opening the database and counting.  Without a command name first
    (``--help``, ``--version``), or with a name that is not a command (Click's
    error then lists the others), ``app`` is returned whole.  ``app`` itself is
    left as it is: this is a copy.

    >>> [c.name for c in asked_for(["search", "0300.10", "--count"]).registered_commands]
    ['search']
    >>> asked_for(["--help"]) is app, asked_for(["serach"]) is app
    (True, True)
    """
    if not args or args[0].startswith("-"):
        return app
    name = args[0]
    commands = [c for c in app.registered_commands if _command_name(c) == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if not commands and not groups:
        return app
    alone = copy.copy(app)
    alone.registered_commands = commands
    alone.registered_groups = groups
    return alone


def _command_name(info: typer.models.CommandInfo) -> str:
    if info.name:
        return info.name
    from typer.main import get_command_name

    return get_command_name(info.callback.__name__ if info.callback else "")


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        quiet_broken_pipe()
    except OSError as exc:
        _output_failed(exc)


def _output_failed(exc: OSError) -> NoReturn:
    sys.stderr.write(f"studydb: error: cannot write the output: {exc.strerror or exc}\n")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush must not fail again
    raise SystemExit(EXIT_FAILURE)
