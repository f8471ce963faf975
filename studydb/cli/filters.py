"""The search filters as command-line options, made from :data:`studydb.filters.SPECS`.

``search``, ``stats``, ``index``, ``check``, ``versions`` and the other
commands that select studies take the same filters.  :func:`filter_options`
adds them to a command's parameters and hands the command one
:class:`~studydb.filters.Filters` as the keyword ``filters``, checked
already: a malformed filter is a usage error (exit 2).  A filter is declared
in :mod:`studydb.filters`; nothing here names one.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from studydb.cli.common import usage_error
from studydb.cli.options import add_parameters
from studydb.errors import QueryError
from studydb.filters import SPECS, Filters, FilterSpec, lone_modifier

__all__ = [
    "FILTERS",
    "FilterOption",
    "filter_options",
    "filter_options_similar_alone",
    "filter_options_with_ids",
    "study_id_of",
]

#: A spec's Python type on the command line, by its kind.  A single text is taken as
#: a list, so that one given twice is refused (:func:`single`), not the first dropped.
_TYPES: dict[str, Any] = {
    "many": list[str] | None,
    "flag": bool,
    "either": bool | None,
    "text": list[str] | None,
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


def single(spec: FilterSpec, given: list[str] | None) -> str | None:
    """The one value of a filter that takes one (a ``text``), given at most once.

    ``--pieces Q. --pieces R[a-h]7`` would search for the last alone, where a
    repeated filter of another kind matches any of its values.
    """
    if given and len(given) > 1:
        shown = " and ".join(repr(value) for value in given)
        usage_error(f"given more than once ({shown}): it takes one value", param=spec.options[0])
    return given[0] if given else None


def build_filters(values: dict[str, Any], *, similar_alone: bool = False) -> Filters:
    """Make the ``Filters`` from the filter parameters' values; a bad one is a usage error,
    and so is ``--similar`` or ``--side-to-move`` with nothing to modify
    (:func:`~studydb.filters.lone_modifier`)."""
    for spec in SPECS:
        if spec.kind == "text" and spec.name in values:
            values[spec.name] = single(spec, values[spec.name])
    try:
        filters = Filters.from_values(values)
    except QueryError as exc:
        usage_error(str(exc), param=exc.param)
    lone = lone_modifier(filters, similar_alone=similar_alone)
    if lone is not None:
        usage_error("needs --position, --pattern or --pieces", param=lone.param)
    return filters


def study_id_of(term: str) -> int | None:
    """A ``MATERIAL`` term that is a study id: digits, but not four (a GBR code).

    >>> study_id_of("41"), study_id_of("0300"), study_id_of("01234"), study_id_of("KRvK")
    (41, None, 1234, None)
    """
    text = term.strip()
    if text.isascii() and text.isdigit() and len(text) != 4:
        return int(text)
    return None


def filter_options_with_ids(command: Callable[..., Any]) -> Callable[..., Any]:
    """As :func:`filter_options`, and the ``MATERIAL`` terms that are study ids
    (:func:`study_id_of`) come as ``ids: tuple[int, ...]`` instead."""
    return filter_options(command, ids=True)


def filter_options_similar_alone(command: Callable[..., Any]) -> Callable[..., Any]:
    """As :func:`filter_options`, and ``--similar`` may stand alone (``versions``)."""
    return filter_options(command, similar_alone=True)


def filter_options(
    command: Callable[..., Any], *, ids: bool = False, similar_alone: bool = False
) -> Callable[..., Any]:
    """Give a command every filter option; it receives them as ``filters: Filters``.

    The filters come first (the ``MATERIAL`` argument among them), then the
    command's own parameters but ``filters``.
    """
    added = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=option.default,
            annotation=option.annotation,
        )
        for name, option in FILTERS.items()
    ]

    def receive(kwargs: dict[str, Any]) -> dict[str, Any]:
        values = {name: kwargs.pop(name) for name in FILTERS}
        if not ids:
            return {"filters": build_filters(values, similar_alone=similar_alone), **kwargs}
        terms = values.get("material") or []
        found = tuple(i for i in map(study_id_of, terms) if i is not None)
        values["material"] = [t for t in terms if study_id_of(t) is None] or None
        filters = build_filters(values, similar_alone=similar_alone)
        return {"filters": filters, "ids": found, **kwargs}

    replace = ("filters", "ids") if ids else "filters"
    return add_parameters(command, added, receive=receive, replace=replace, first=True)
