"""Typer commands that start fast: plain parameters are coerced without pydantic.

Typer builds a pydantic ``TypeAdapter`` for every parameter it coerces, and
importing pydantic alone costs more than importing python-chess (about a third
of a second here).  The commands take only strings, flags, enums, whole
numbers and paths, so :class:`LightCommand` coerces those itself.  With
another Typer version (no ``type_descriptor`` on parameters) nothing is
changed and Typer coerces as usual, only slower.
"""

from __future__ import annotations

import enum
import types
import typing
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

__all__ = ["LightCommand", "LightGroup"]


class LightParam:
    """Coerces a str, bool, Enum, whole number or Path parameter (or a list of them)."""

    def __init__(self, kind: type) -> None:
        self.kind = kind

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        multi = param.multiple or param.nargs == -1
        if value is None:
            return () if multi else None
        if multi:
            if isinstance(value, str):
                raise typer.BadParameter("Value must be an iterable.", ctx=ctx, param=param)
            return [self._one(v, param, ctx) for v in value]
        return self._one(value, param, ctx)

    def _one(self, value: Any, param: Any, ctx: Any) -> Any:
        kind = self.kind
        if isinstance(value, kind):
            return value
        if issubclass(kind, enum.Enum):
            try:
                return kind(value)
            except ValueError:
                choices = ", ".join(repr(m.value) for m in kind)
                raise typer.BadParameter(
                    f"{value!r} is not one of {choices}.", ctx=ctx, param=param
                ) from None
        if kind is int:
            text = str(value).strip()
            if not text.isdigit():
                raise typer.BadParameter(
                    f"{value!r} is not a whole number >= 0.", ctx=ctx, param=param
                )
            return int(text)
        if kind is Path:
            return Path(value)
        return value if kind is bool else str(value)


def light_kind(annotation: Any) -> type | None:
    """What :class:`LightParam` coerces an annotation to, or None (leave it to Typer)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        annotation = args[0]
    if typing.get_origin(annotation) is list:
        annotation = typing.get_args(annotation)[0]
    if annotation in (str, bool, int, Path) or (
        isinstance(annotation, type) and issubclass(annotation, enum.Enum)
    ):
        return annotation
    return None


def lighten(param: Any) -> None:
    """Give one parameter the light coercion, when this Typer version allows it."""
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or getattr(param, "_runtime_param", False) is not None:
        return  # another Typer version, or already set: leave coercion to Typer
    kind = light_kind(descriptor.annotation)
    if kind is not None:
        param._runtime_param = LightParam(kind)


class LightCommand(TyperCommand):
    """A Typer command whose plain parameters skip pydantic."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            lighten(param)

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        lighten(option)
        return option


class LightGroup(TyperGroup):
    """A Typer group whose --help option skips pydantic."""

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        lighten(option)
        return option
