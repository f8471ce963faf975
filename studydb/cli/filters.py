"""The search filters as command-line options, made from :data:`studydb.filters.SPECS`.

``search``, ``stats``, ``index``, ``check``, ``versions`` and the other
commands that select studies take the same filters.  :func:`filter_options`
adds them to a command's parameters and hands the command one
:class:`~studydb.filters.Filters` as the keyword ``filters``, checked
already: a malformed filter is a usage error (exit 2).  A filter is declared
in :mod:`studydb.filters`; nothing here names one.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from studydb.cli.common import usage_error
from studydb.errors import QueryError
from studydb.filters import SPECS, Filters, FilterSpec

__all__ = ["FILTERS", "FilterOption", "filter_options"]

#: A spec's Python type on the command line, by its kind.
_TYPES: dict[str, Any] = {
    "many": list[str] | None,
    "flag": bool,
    "either": bool | None,
    "text": str | None,
    "int": int | None,
}


@dataclass(frozen=True)
class FilterOption:
    """One filter as a Typer parameter: its annotation (with Typer's metadata) and default."""

    annotation: Any
    default: Any
    spec: FilterSpec


def _option(spec: FilterSpec) -> FilterOption:
    """The Typer parameter of one spec: an argument if it has no option names."""
    shown = spec.kind == "flag"  # a flag's help shows its default, as Typer's do
    info: Any
    if spec.options:
        info = typer.Option(*spec.options, help=spec.help, metavar=spec.metavar, show_default=shown)
    else:
        info = typer.Argument(help=spec.help, metavar=spec.metavar, show_default=shown)
    default = False if spec.kind == "flag" else None
    return FilterOption(Annotated[_TYPES[spec.kind], info], default, spec)


#: Every filter's parameter, by name, in the specs' order.
FILTERS: dict[str, FilterOption] = {spec.name: _option(spec) for spec in SPECS}


def build_filters(values: dict[str, Any]) -> Filters:
    """Make the ``Filters`` from the filter parameters' values; a bad one is a usage error."""
    try:
        return Filters.from_values(values)
    except QueryError as exc:
        usage_error(str(exc), param=exc.param)


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

    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]  # read by Typer
        parameters=[*added, *own], return_annotation=None
    )
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
