"""The ``studydb`` command line.

Thin layer: parse arguments, call the library, print with Rich.  Modules
here import :mod:`studydb.db` (and so SQLAlchemy) only inside the commands
that need it, so that ``studydb gbr ...`` starts fast.
"""

from __future__ import annotations

import os
import sys

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
    from studydb.cli import check, db, gbr, importing, positions, search, serve  # noqa: F401


_register()


from studydb.cli.common import describe_error, quiet_broken_pipe  # noqa: E402


def main() -> None:
    """Console-script entry point: run the command, then make sure its output was written.

    Standard output is flushed here, inside the program, so that a full disk
    or a closed pipe is reported (``studydb: error: …``, exit 1) or, for a
    reader that went away (``| head``), ends quietly with exit 0, instead of
    Python's "Exception ignored" at shutdown.
    """
    try:
        app()
    except SystemExit:
        if type(sys.stdout).__name__ == "PacifyFlushWrapper":
            # Typer met EPIPE (the reader went away) and exits 1; Unix tools exit 0.
            quiet_broken_pipe(exit=True)
        flush_output()
        raise
    except OSError as exc:  # an output error outside any command's own handling
        flush_output(exc)
    flush_output()


def flush_output(error: OSError | None = None) -> None:
    """Flush standard output; turn a failure (or ``error``) into a message and exit code."""
    try:
        if error is not None:
            raise error
        sys.stdout.flush()
    except BrokenPipeError:
        quiet_broken_pipe(exit=True)
    except OSError as exc:
        _silence_stdout()
        sys.stderr.write(f"studydb: error: {describe_error(exc)}\n")
        raise SystemExit(1) from None


def _silence_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
