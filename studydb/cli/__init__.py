"""The ``studydb`` command line.

Thin layer: parse arguments, call the library, print with Rich.  Modules
here import :mod:`studydb.db` (and so SQLAlchemy) only inside the commands
that need it, so that ``studydb gbr ...`` starts fast.
"""

from __future__ import annotations

import io
import os
import sys
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
    # Each module adds its commands to ``app``; none of them imports
    # SQLAlchemy at module level.
    from studydb.cli import (  # noqa: F401
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
        app()
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
