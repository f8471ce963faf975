"""Typer commands that start fast: parameters are coerced without pydantic.

Typer 0.29 builds a pydantic ``TypeAdapter`` for every parameter it coerces,
and importing pydantic alone costs more than importing python-chess (about a
third of a second here).  Our commands take only strings, flags, enums,
whole numbers (with ``min``/``max``/``clamp``) and paths, single or repeated,
so :class:`LightCommand` coerces those itself, to the same values and the
same accept/reject decisions as stock Typer (``tests/test_light.py`` checks
every parameter of every command against Typer's own coercion).

The hook is Typer's private per-parameter ``_runtime_param`` slot: Typer 0.29
offers no public way to coerce without pydantic (a ``parser=`` is still
wrapped in a ``TypeAdapter``, and ``click_type=`` is gone), and without the hook every start
imports pydantic (about 0.1 s; ``tests/test_light.py`` checks that a command
runs without it).  That is why ``pyproject.toml`` pins Typer to the minor
version this was tested with, and says so beside the pin.  A parameter of any
other type is left to Typer.

>>> LightParam(int, low=1, high=None).convert("12")
12
"""

from __future__ import annotations

import enum
import re
import types
import typing
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

__all__ = ["LightCommand", "LightGroup", "LightParam", "light_kind", "refuse_both_ways"]

#: A whole number as Typer (pydantic, lax mode) reads it: optional sign, ASCII
#: digits with single underscores between them, a zero fraction, white space around.
#: The top-level commands in ``studydb --help``: the order of a user's work.
COMMAND_ORDER = (
    "import",
    "search",
    "show",
    "stats",
    "composers",
    "gbr",
    "check",
    "themes",
    "report",
    "anticipate",
    "versions",
    "index",
    "rejects",
    "serve",
    "db",
)
#: Long enough for any command's first sentence: ``--help`` wraps it, never cuts it off.
_SHORT_HELP_LIMIT = 300
_INTEGER = re.compile(r"\s*([-+]?[0-9](?:_?[0-9])*)(?:\.0+)?\s*", re.ASCII)


class LightParam:
    """Coerces a str, bool, Enum, whole number or Path parameter (or a list of them)."""

    def __init__(
        self,
        kind: type,
        *,
        low: float | None = None,
        high: float | None = None,
        clamp: bool = False,
    ) -> None:
        self.kind = kind
        self.low = low
        self.high = high
        self.clamp = clamp

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        """Typer's entry point: ``None`` and repeated options as Typer treats them."""
        multi = param.multiple or param.nargs == -1
        if value is None:
            return () if multi else None
        try:
            if multi:
                if isinstance(value, str):
                    raise ValueError("Value must be an iterable.")
                return [self.convert(v) for v in value]
            return self.convert(value)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), ctx=ctx, param=param) from None

    def convert(self, value: Any) -> Any:
        """One value, or ValueError with the message a user sees."""
        kind = self.kind
        if kind is int and isinstance(value, int) and not isinstance(value, bool):
            return self._bounded(value)
        if kind is not int and isinstance(value, kind):
            return value
        if issubclass(kind, enum.Enum):
            try:
                return kind(value)
            except ValueError:
                choices = ", ".join(repr(m.value) for m in kind)
                raise ValueError(f"{value!r} is not one of {choices}.") from None
        if kind is int:
            text = str(value)
            match = _INTEGER.fullmatch(text)
            if match is None:
                raise ValueError(f"{value!r} is not a whole number.")
            return self._bounded(int(match.group(1).replace("_", "")))
        if kind is Path:
            return Path(value)
        if kind is bool:
            return value
        return str(value)

    def _bounded(self, number: int) -> int:
        low, high = self.low, self.high
        if self.clamp:
            if low is not None and number < low:
                return int(low)
            if high is not None and number > high:
                return int(high)
            return number
        if low is not None and number < low:
            raise ValueError(f"{number} is below the minimum {low}.")
        if high is not None and number > high:
            raise ValueError(f"{number} is above the maximum {high}.")
        return number


def light_kind(annotation: Any) -> type | None:
    """What :class:`LightParam` coerces an annotation to, or None (leave it to Typer).

    >>> light_kind(list[str] | None), light_kind(int), light_kind(float)
    (<class 'str'>, <class 'int'>, None)
    """
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        annotation = args[0]
    if typing.get_origin(annotation) is list:
        annotation = typing.get_args(annotation)[0]
    if annotation in (str, bool, int, Path) or (
        isinstance(annotation, type) and issubclass(annotation, enum.Enum)
    ):
        kind: type = annotation
        return kind
    return None


def lighten(param: Any) -> None:
    """Give one parameter the light coercion (Typer 0.29's ``type_descriptor`` parameters)."""
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or getattr(param, "_runtime_param", False) is not None:
        return  # not a Typer 0.29 parameter, or already set
    kind = light_kind(descriptor.annotation)
    if kind is None or descriptor.file_annotation is not None:
        return
    info = descriptor.parameter_info
    param._runtime_param = LightParam(
        kind,
        low=getattr(info, "min", None),
        high=getattr(info, "max", None),
        clamp=bool(getattr(info, "clamp", False)),
    )


class LightCommand(TyperCommand):
    """A Typer command whose parameters skip pydantic, and whose yes/no flags are refused
    when given both ways (:func:`refuse_both_ways`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            lighten(param)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        refuse_both_ways(self.params, args)
        parsed: list[str] = super().parse_args(ctx, args)
        return parsed

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        lighten(option)
        return option


def refuse_both_ways(params: list[Any], args: list[str]) -> None:
    """A usage error for a yes/no flag given both ways (``--valid --invalid``), which
    would otherwise search for the last alone.

    >>> flag = types.SimpleNamespace(opts=["--valid"], secondary_opts=["--invalid"])
    >>> try:
    ...     refuse_both_ways([flag], ["--invalid", "0300", "--valid"])
    ... except typer.BadParameter as exc:
    ...     print(exc.format_message())
    Invalid value for '--valid' / '--invalid': both given: --valid and --invalid contradict
    """
    words = set(args[: args.index("--")] if "--" in args else args)
    for param in params:
        yes = [name for name in getattr(param, "opts", ()) if name in words]
        no = [name for name in getattr(param, "secondary_opts", ()) if name in words]
        if yes and no:
            raise typer.BadParameter(
                f"both given: {yes[0]} and {no[0]} contradict",
                param_hint=f"'{yes[0]}' / '{no[0]}'",
            )


class LightGroup(TyperGroup):
    """A Typer group whose --help option skips pydantic, listing its commands in full.

    ``--help`` gives each command's whole first sentence (wrapped, not cut off), and the
    top-level group lists its commands in :data:`COMMAND_ORDER`, the order of a user's
    work, rather than the order in which the modules registered them.
    """

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        lighten(option)
        return option

    def list_commands(self, ctx: Any) -> list[str]:
        names = super().list_commands(ctx)
        if ctx.parent is not None:
            return names
        rank = {name: i for i, name in enumerate(COMMAND_ORDER)}
        return sorted(names, key=lambda name: rank.get(name, len(rank)))

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=_SHORT_HELP_LIMIT)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
