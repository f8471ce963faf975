"""The query string of the web pages: filters, sort and page, read and written back.

The filter parameters are the filters of :data:`studydb.filters.SPECS` under
their names (``material``, ``composer``, ``year``, ``either_colour`` …): a
filter added there appears in the search form and the URLs with no change
here.  A bad value raises :class:`~studydb.errors.QueryError` naming the
parameter, which the pages answer with a 400.

>>> query = read_query([("material", "0300.10"), ("year", "1900..1950"), ("page", "2")])
>>> query.filters.material, query.filters.years, query.page
(('0300.10',), ('1900..1950',), 2)
>>> query.url(page=3)
'material=0300.10&year=1900..1950&page=3'
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from studydb.errors import QueryError, quote
from studydb.filters import SORT_KEYS, SPECS, Filters, lone_modifier, spec_named

__all__ = [
    "DEFAULT_PAGE_SIZE",
    "MAX_PAGE_SIZE",
    "PAGE_SIZES",
    "SORT_LABELS",
    "VIEWS",
    "FormField",
    "Query",
    "form_fields",
    "is_clean",
    "read_query",
]

#: Studies per page unless ``per_page`` says otherwise, and the most it may say.
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
#: Parameters besides the filters.
PAGE_PARAMS = ("sort", "page", "per_page", "view")
#: How a result list shows: cards with diagrams, or a compact table.
VIEWS = ("cards", "table")
#: The per-page choices the result pages offer.
PAGE_SIZES = (20, 50, 100, 200)
#: The sort keys as the form names them.
SORT_LABELS = {
    "gbr": "GBR class",
    "year": "year, oldest first",
    "newest": "year, newest first",
    "composer": "composer",
    "id": "order of import",
}
#: Values a URL need not say: they are the defaults.
_DEFAULTS = {"sort": "gbr", "page": "1", "per_page": str(DEFAULT_PAGE_SIZE), "view": VIEWS[0]}
#: The highest page number (1,000,000 pages of 200 is past any collection) and the
#: largest number any other parameter takes: beyond is a 400, never an overflow.
MAX_PAGE = 1_000_000
MAX_INTEGER = 1_000_000
_TRUE = frozenset({"1", "true", "on", "yes"})
_FALSE = frozenset({"0", "false", "off", "no"})


@dataclass(frozen=True)
class FormField:
    """One filter as a form input: its parameter name, ``Filters`` field and kind.

    ``kind`` is ``"many"`` (repeatable text), ``"flag"`` (a checkbox),
    ``"either"`` (yes / no / either), ``"text"`` or ``"int"`` (one value).
    A ``"many"`` field with ``choices`` is a multiple select of them.
    """

    name: str
    field: str
    kind: str
    label: str
    help: str
    placeholder: str
    choices: tuple[str, ...] = ()


@functools.cache
def form_fields() -> tuple[FormField, ...]:
    """The search form's filters, in the specs' order (:data:`studydb.filters.SPECS`).

    >>> [f.name for f in form_fields()][:3]
    ['material', 'either_colour', 'where']
    """
    return tuple(
        FormField(
            name=spec.name,
            field=spec.field,
            kind=spec.kind,
            label=spec.label or spec.name.replace("_", " ").capitalize(),
            help=spec.form_help or spec.help,
            placeholder=spec.placeholder or "",  # never the command line's NAME, TEXT …
            choices=spec.choices,
        )
        for spec in SPECS
    )


def _param_name(param: str | None) -> str:
    """The URL parameter of a filter the library names (``'--year'`` → ``'year'``)."""
    if not param:
        return "query"
    try:
        return spec_named(param).name
    except KeyError:
        return param.lstrip("-").lower().replace("-", "_")


def _boolean(name: str, text: str) -> bool:
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise QueryError(f"bad value {text!r} for {name}: expected true or false", param=name)


def _integer(name: str, text: str, *, low: int, high: int) -> int:
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(high)):
        raise QueryError(
            f"bad value {quote(text)} for {name}: expected a number from {low} to {high}",
            param=name,
        )
    value = int(text)
    if not low <= value <= high:
        raise QueryError(f"bad value {text!r} for {name}: must be from {low} to {high}", param=name)
    return value


@dataclass(frozen=True)
class Query:
    """A search as the URL gives it: the checked filters, the raw values, sort and page."""

    filters: Filters = field(default_factory=Filters)
    values: tuple[tuple[str, str], ...] = ()
    sort: str = "gbr"
    page: int = 1
    per_page: int = DEFAULT_PAGE_SIZE
    view: str = VIEWS[0]

    @property
    def offset(self) -> int:
        """Studies before this page."""
        return (self.page - 1) * self.per_page

    def value(self, name: str) -> list[str]:
        """The values given for a filter parameter."""
        return [v for n, v in self.values if n == name]

    def terms(self) -> list[tuple[str, str | None]]:
        """The search's terms as the results page names them: each parameter and its
        value, a flag given as true by its name alone (``either_colour``, not
        ``either_colour 1``).

        >>> read_query([("line", "K-."), ("either_colour", "1")]).terms()
        [('line', 'K-.'), ('either_colour', None)]
        """
        flags = {form.name for form in form_fields() if form.kind == "flag"}
        return [
            (name, None if name in flags and _boolean(name, value) else value)
            for name, value in self.values
        ]

    def url(
        self,
        *,
        page: int | None = None,
        per_page: int | None = None,
        view: str | None = None,
        sort: str | None = None,
        **extra: str,
    ) -> str:
        """This query as a query string: filters, then sort, page size, view and page.

        Defaults are left out.  The keywords change one of them (a new page size
        or sort starts at page 1); ``extra`` adds filter values (a chart bar's
        link adds its class).

        >>> query = read_query([("year", "1920-1925"), ("page", "3")])
        >>> query.url(view="table"), query.url(sort="newest"), query.url(page=1)
        ('year=1920-1925&view=table&page=3', 'year=1920-1925&sort=newest', 'year=1920-1925')
        """
        pairs = [*self.values, *extra.items()]
        if page is None and per_page is None and sort is None:
            page = self.page
        settings = {
            "sort": sort or self.sort,
            "per_page": str(per_page or self.per_page),
            "view": view or self.view,
            "page": str(page or 1),
        }
        pairs += [(name, value) for name, value in settings.items() if value != _DEFAULTS[name]]
        return urlencode(pairs)

    def filter_url(self) -> str:
        """The filters alone as a query string (for exports and statistics)."""
        return urlencode(self.values)

    def narrowed(self, params: dict[str, str]) -> str:
        """The filters with ``params`` in place of the same filters (``where`` adds up).

        A statistics bar links to its studies this way.

        >>> query = read_query([("material", "03??"), ("either_colour", "1")])
        >>> query.narrowed({"material": "0300.10"})
        'material=0300.10'
        """
        dropped = set(params) - {"where"}
        if "material" in params:
            dropped.add("either_colour")
        kept = [(n, v) for n, v in self.values if n not in dropped]
        return urlencode([*kept, *params.items()])


def is_clean(items: Iterable[tuple[str, str]]) -> bool:
    """Whether a query string says nothing twice over: no empty values, no defaults.

    A form sends every field; the search page redirects such an address to
    :meth:`Query.url`, so that what one shares is short.

    >>> is_clean([("year", "1920")]), is_clean([("year", "1920"), ("source", "")])
    (True, False)
    >>> is_clean([("sort", "gbr")])
    False
    """
    return all(text.strip() and _DEFAULTS.get(name) != text for name, text in items)


def read_query(items: Iterable[tuple[str, str]], *, allowed: Sequence[str] = PAGE_PARAMS) -> Query:
    """Read a query string's pairs into a :class:`Query`; empty values are ignored.

    >>> read_query([("year", "19x")])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    studydb.errors.QueryError: bad year '19x': expected a year or a range like ...

    :raises QueryError: naming the parameter, for an unknown one or a bad value.
    """
    fields = {f.name: f for f in form_fields()}
    raw: dict[str, list[str]] = {}
    values: list[tuple[str, str]] = []
    for name, text in items:
        if name not in fields and name not in allowed:
            known = ", ".join([*fields, *allowed])
            raise QueryError(f"unknown parameter {name!r}; known: {known}", param=name)
        if not text.strip():
            continue
        if name in fields:
            if fields[name].kind != "many" and name in raw:
                raise QueryError(f"{name} given more than once", param=name)
            values.append((name, text.strip()))
        raw.setdefault(name, []).append(text.strip())
    options: dict[str, Any] = {}
    for name, form in fields.items():
        given = raw.get(name)
        if given is None:
            continue
        if form.kind == "many":
            options[form.field] = tuple(given)
        elif form.kind in ("flag", "either"):
            options[form.field] = _boolean(name, given[0])
        elif form.kind == "int":
            options[form.field] = _integer(name, given[0], low=0, high=MAX_INTEGER)
        else:
            options[form.field] = given[0]
    try:
        filters = Filters(**options)
    except QueryError as exc:
        raise QueryError(str(exc), param=_param_name(exc.param)) from None
    lone = lone_modifier(filters)
    if lone is not None:
        raise QueryError(f"{lone.name} needs a position, a pattern or pieces", param=lone.name)
    return Query(
        filters=filters,
        values=tuple(values),
        sort=_sort(raw.get("sort")),
        page=_integer("page", raw["page"][-1], low=1, high=MAX_PAGE) if "page" in raw else 1,
        per_page=(
            _integer("per_page", raw["per_page"][-1], low=1, high=MAX_PAGE_SIZE)
            if "per_page" in raw
            else DEFAULT_PAGE_SIZE
        ),
        view=_view(raw.get("view")),
    )


def _view(given: list[str] | None) -> str:
    if not given:
        return VIEWS[0]
    if given[-1] not in VIEWS:
        raise QueryError(
            f"unknown view {given[-1]!r}: expected one of {', '.join(VIEWS)}", param="view"
        )
    return given[-1]


def _sort(given: list[str] | None) -> str:
    if not given:
        return "gbr"
    if given[-1] not in SORT_KEYS:
        raise QueryError(
            f"unknown sort {given[-1]!r}: expected one of {', '.join(SORT_KEYS)}", param="sort"
        )
    return given[-1]
