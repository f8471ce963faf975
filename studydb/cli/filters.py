"""The search filters, declared once for every command that selects studies.

``search``, ``stats`` and the commands to come (``index``, ``check``,
``anticipate``) take the same filters.  :func:`filter_options` adds them to a
command's parameters and hands the command one :class:`~studydb.db.queries.Filters`
as the keyword ``filters``, checked already: a malformed filter is a usage
error (exit 2).  A new filter is one entry in :data:`FILTERS` and one field of
``Filters``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer

from studydb.cli.common import usage_error

if TYPE_CHECKING:
    from studydb.db.queries import Filters

__all__ = ["FILTERS", "filter_options"]


@dataclass(frozen=True)
class FilterOption:
    """One filter: its parameter (type with Typer's metadata), default and ``Filters`` field."""

    annotation: Any
    default: Any
    field: str

    @property
    def many(self) -> bool:
        """Whether the option may be given several times (a tuple in ``Filters``)."""
        return "list[" in repr(self.annotation)


FILTERS: dict[str, FilterOption] = {
    "material": FilterOption(
        Annotated[
            list[str] | None,
            typer.Argument(
                metavar="MATERIAL",
                help="GBR codes or patterns (0300.10, 0300 = any pawns, 03??, 0?0?.1?) or "
                "material signatures (KRPvKR); a study matching any of them is found.",
                show_default=False,
            ),
        ],
        None,
        "material",
    ),
    "either_colour": FilterOption(
        Annotated[
            bool,
            typer.Option(
                "--either-colour",
                "--either-color",
                "-z",
                help="Also match the material (and --position, --reaches, --ends-in) with the "
                "colours reversed.",
            ),
        ],
        False,
        "either_colour",
    ),
    "where": FilterOption(
        Annotated[
            list[str] | None,
            typer.Option(
                "--where",
                "-w",
                metavar="EXPR",
                help="Conditions on the counts, e.g. 'wR>=1 bN=1 men<=5'. Names: wQ wR wB wN wP "
                "bQ bR bB bN bP, white, black (men incl. king), men, pawns, pieces; "
                "operators = == != < <= > >=; joined by spaces or 'and'.",
                show_default=False,
            ),
        ],
        None,
        "where",
    ),
    "composer": FilterOption(
        Annotated[
            list[str] | None,
            typer.Option(
                "--composer",
                "-c",
                metavar="NAME",
                help="A composer: part of a name (reti finds Réti) or the name spelled another "
                "way (troitzky, kasparian, 'Richard Reti'); finds every study of the person.",
                show_default=False,
            ),
        ],
        None,
        "composers",
    ),
    "stipulation": FilterOption(
        Annotated[
            list[str] | None,
            typer.Option(
                "--stipulation",
                "-s",
                metavar="win|draw|mate|#N",
                help="Stipulation: win, draw, mate (any mate-in-n) or #N (mate in N).",
                show_default=False,
            ),
        ],
        None,
        "stipulations",
    ),
    "year": FilterOption(
        Annotated[
            list[str] | None,
            typer.Option(
                "--year",
                "-y",
                metavar="RANGE",
                help="A year or a range: 1927, 1920..1939, ..1900, 1990..",
                show_default=False,
            ),
        ],
        None,
        "years",
    ),
    "source": FilterOption(
        Annotated[
            list[str] | None,
            typer.Option(
                "--source",
                metavar="TEXT",
                help="Part of the source, case-insensitive, taken literally.",
                show_default=False,
            ),
        ],
        None,
        "sources",
    ),
    "eg": FilterOption(
        Annotated[
            list[str] | None,
            typer.Option(
                "--eg",
                metavar="NUMBER",
                help="An EG reference: 1335, 01335 or EG#01335.",
                show_default=False,
            ),
        ],
        None,
        "eg",
    ),
    "award": FilterOption(
        Annotated[bool, typer.Option("--award", help="Only studies with a distinction.")],
        False,
        "award",
    ),
    "valid": FilterOption(
        Annotated[
            bool | None,
            typer.Option(
                "--valid/--invalid",
                help="Only studies whose moves passed (or failed) validation.",
                show_default=False,
            ),
        ],
        None,
        "valid",
    ),
    "verdict": FilterOption(
        Annotated[
            list[str] | None,
            typer.Option(
                "--verdict",
                metavar="VERDICT",
                help="Soundness verdict of studydb check: sound, unsound, duals, doubts or "
                "unchecked (also never checked).",
                show_default=False,
            ),
        ],
        None,
        "verdicts",
    ),
    "position": FilterOption(
        Annotated[
            str | None,
            typer.Option(
                "--position",
                "-p",
                metavar="FEN",
                help="Studies in which this position occurs (main line or variation); castling "
                "and en-passant rights are ignored.",
                show_default=False,
            ),
        ],
        None,
        "position",
    ),
    "similar": FilterOption(
        Annotated[
            bool,
            typer.Option(
                "--similar",
                help="With --position: also its symmetric images (CQL similarposition: all 8 "
                "board symmetries without pawns; with pawns the mirror and sideways shifts).",
            ),
        ],
        False,
        "similar",
    ),
    "main_line": FilterOption(
        Annotated[
            bool,
            typer.Option("--main-line", help="With --position: on the main line only."),
        ],
        False,
        "main_line",
    ),
    "reaches": FilterOption(
        Annotated[
            list[str] | None,
            typer.Option(
                "--reaches",
                metavar="MATERIAL",
                help="Studies whose main line reaches this material class (GBR code, pattern "
                "or signature: 0000.10, KBNvK); needs the position index.",
                show_default=False,
            ),
        ],
        None,
        "reaches",
    ),
    "include_non_studies": FilterOption(
        Annotated[
            bool,
            typer.Option(
                "--include-non-studies",
                help="Also entries with no set-up position and no moves (chapter headings, "
                "introductions), which are left out by default.",
            ),
        ],
        False,
        "include_non_studies",
    ),
    "ends_in": FilterOption(
        Annotated[
            list[str] | None,
            typer.Option(
                "--ends-in",
                metavar="MATERIAL",
                help="Studies whose main line ends in this material class.",
                show_default=False,
            ),
        ],
        None,
        "ends_in",
    ),
}


def build_filters(values: dict[str, Any]) -> Filters:
    """Make the ``Filters`` from the filter parameters' values; a bad one is a usage error."""
    from studydb.db.queries import Filters, build_condition
    from studydb.errors import QueryError

    fields: dict[str, Any] = {}
    for name, option in FILTERS.items():
        value = values[name]
        fields[option.field] = tuple(value or ()) if option.many else value
    filters = Filters(**fields)
    try:
        build_condition(filters)
    except QueryError as exc:
        usage_error(str(exc), param=exc.param)
    return filters


def filter_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Give a command every filter option; it receives them as ``filters: Filters``.

    The filters come first (the ``MATERIAL`` argument among them), then the
    command's own parameters but ``filters``.
    """
    signature = inspect.signature(command)
    own = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=_resolve(p.annotation, command))
        for name, p in signature.parameters.items()
        if name != "filters"
    ]
    added = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=option.default,
            annotation=option.annotation,
        )
        for name, option in FILTERS.items()
    ]

    @functools.wraps(command)
    def wrapper(**kwargs: Any) -> Any:
        values = {name: kwargs.pop(name) for name in FILTERS}
        return command(filters=build_filters(values), **kwargs)

    wrapper.__signature__ = signature.replace(parameters=[*added, *own], return_annotation=None)
    wrapper.__annotations__ = {
        **{name: option.annotation for name, option in FILTERS.items()},
        **{p.name: p.annotation for p in own},
    }
    return wrapper


def _resolve(annotation: Any, command: Callable[..., Any]) -> Any:
    """An annotation written as a string (``from __future__ import annotations``), evaluated."""
    if isinstance(annotation, str):
        return eval(annotation, command.__globals__)  # the command's own annotation text
    return annotation
