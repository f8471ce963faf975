"""Options shared by many commands: the output options, and the plumbing that adds options.

Every command that prints results takes the same output options, added by
:func:`output_options` (as sqlite-utils's ``output_options`` does): ``-f`` /
``--format`` with the formats that command writes, named alike everywhere
(:data:`studydb.vocabulary.OUTPUT_FORMATS`).  The command receives the chosen
format as the keyword ``output``, a plain string.  ``-p`` is never reused: it is ``--position``
(a filter); ``serve``'s port is ``--port`` only.

>>> format_choices(("table", "json"))
['table', 'json']
"""

from __future__ import annotations

import enum
import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import typer

from studydb.filters import DEFAULT_MIN_MEN
from studydb.vocabulary import OUTPUT_FORMATS

__all__ = [
    "BEFORE_HELP",
    "MIN_MEN_HELP",
    "add_parameters",
    "before_option",
    "describe_formats",
    "engine_options",
    "format_choices",
    "min_men_option",
    "output_options",
]

#: The output options' names.
FORMAT_OPTIONS = ("--format", "-f")


def format_choices(formats: Sequence[str]) -> list[str]:
    """The formats, in the given order, checked against :data:`~studydb.vocabulary.OUTPUT_FORMATS`.

    :raises ValueError: for a format no command writes (a bug in a command's declaration).
    """
    unknown = [f for f in formats if f not in OUTPUT_FORMATS]
    if unknown or not formats:
        raise ValueError(f"unknown output formats {unknown!r}; known: {', '.join(OUTPUT_FORMATS)}")
    return list(formats)


def describe_formats(formats: Sequence[str]) -> str:
    """The generated help of ``--format``.

    >>> describe_formats(["table", "json"])
    'Output: table or json.'
    """
    return f"Output: {' or '.join(filter(None, [', '.join(formats[:-1]), formats[-1]]))}."


@functools.cache
def _format_enum(formats: tuple[str, ...]) -> type[enum.StrEnum]:
    """One enum per set of formats: Typer offers its members as the choices."""
    name = "Format" + "".join(f.capitalize() for f in formats)
    return enum.StrEnum(name, {f: f for f in formats})  # type: ignore[return-value]


def output_options(
    *formats: str, help: str | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command ``-f/--format`` with ``formats`` (the first is the default).

    The command takes ``output: str``; ``help`` replaces the generated help.
    """
    choices = format_choices(formats)
    kind = _format_enum(tuple(choices))
    text = help or describe_formats(choices)
    parameter = inspect.Parameter(
        "output",
        inspect.Parameter.KEYWORD_ONLY,
        default=kind(choices[0]),
        annotation=Annotated[kind, typer.Option(*FORMAT_OPTIONS, help=text)],
    )

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        def receive(kwargs: dict[str, Any]) -> dict[str, Any]:
            kwargs["output"] = str(kwargs["output"])
            return kwargs

        return add_parameters(command, [parameter], receive=receive, replace="output")

    return decorate


#: The help of ``--min-men`` (show, anticipate, report).
MIN_MEN_HELP = (
    "Count only shared positions with at least this many men (kings included); "
    "four-man endings are shared by thousands of studies."
)


def min_men_option() -> int:
    """The ``--min-men`` option of every command that looks up shared positions.

    The default is :data:`studydb.filters.DEFAULT_MIN_MEN`; a position has 2 to 32 men.

    >>> min_men_option().default
    5
    """
    option: int = typer.Option(DEFAULT_MIN_MEN, "--min-men", min=2, max=32, help=MIN_MEN_HELP)
    return option


#: The help of ``--before`` (anticipate, report).
BEFORE_HELP = (
    "Anticipations dated up to YEAR, those of YEAR marked 'same year, order unknown' "
    "(default: each game's own year, when known; undated studies are then left out)."
)


def before_option() -> int | None:
    """The ``--before YEAR`` option of every command that looks for anticipations.

    >>> before_option().default is None
    True
    """
    option: int | None = typer.Option(
        None, "--before", metavar="YEAR", min=0, max=9999, help=BEFORE_HELP, show_default=False
    )
    return option


#: The engine options of the commands that check soundness (check, report).
_ENGINE_PARAMETERS = [
    inspect.Parameter(
        "engine",
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation=Annotated[
            str | None,
            typer.Option(
                "--engine",
                metavar="PATH",
                envvar="STUDYDB_ENGINE",
                show_envvar=True,
                help="A UCI engine (e.g. /usr/games/stockfish) for positions beyond the tables.",
            ),
        ],
    ),
    inspect.Parameter(
        "depth",
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation=Annotated[
            int | None, typer.Option("--depth", min=1, help="Engine search depth.")
        ],
    ),
    inspect.Parameter(
        "movetime",
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation=Annotated[
            int | None,
            typer.Option(
                "--movetime", min=1, metavar="MS", help="Engine time per position, in ms."
            ),
        ],
    ),
]


def engine_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Give a command ``--engine`` (or ``$STUDYDB_ENGINE``), ``--depth`` and ``--movetime``.

    The command receives ``engine``, ``depth`` and ``movetime``, checked by
    :func:`studydb.soundness.uci.check_limits` (a usage error otherwise).
    """

    def receive(kwargs: dict[str, Any]) -> dict[str, Any]:
        from studydb.errors import QueryError
        from studydb.soundness.uci import check_limits

        try:
            check_limits(kwargs["engine"], depth=kwargs["depth"], movetime=kwargs["movetime"])
        except QueryError as exc:
            raise typer.BadParameter(str(exc), param_hint=exc.param) from None
        return kwargs

    replace = ("engine", "depth", "movetime")
    return add_parameters(command, _ENGINE_PARAMETERS, receive=receive, replace=replace)


def add_parameters(
    command: Callable[..., Any],
    added: list[inspect.Parameter],
    *,
    receive: Callable[[dict[str, Any]], dict[str, Any]],
    replace: str | tuple[str, ...],
    first: bool = False,
) -> Callable[..., Any]:
    """Wrap ``command`` so that Typer sees ``added`` in place of its parameter(s) ``replace``.

    ``receive`` turns the keyword arguments Typer passes into the command's.
    The added parameters go first with ``first``, else before ``db`` (or last).
    """
    signature = inspect.signature(command)
    replaced = (replace,) if isinstance(replace, str) else replace
    own = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=_resolve(p.annotation, command))
        for name, p in signature.parameters.items()
        if name not in replaced
    ]
    if first:
        parameters = [*added, *own]
    else:
        at = next((i for i, p in enumerate(own) if p.name == "db"), len(own))
        parameters = [*own[:at], *added, *own[at:]]

    @functools.wraps(command)
    def wrapper(**kwargs: Any) -> Any:
        return command(**receive(kwargs))

    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]  # read by Typer
        parameters=parameters, return_annotation=None
    )
    wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
    return wrapper


def _resolve(annotation: Any, command: Callable[..., Any]) -> Any:
    """An annotation written as a string (``from __future__ import annotations``), evaluated."""
    while hasattr(command, "__wrapped__"):
        command = command.__wrapped__
    if not isinstance(annotation, str):
        return annotation
    try:
        return eval(annotation, command.__globals__)  # the command's own annotation text
    except NameError:  # a name only type checkers see: a parameter an outer decorator replaces
        return annotation
