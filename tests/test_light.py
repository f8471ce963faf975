"""Tests for studydb.cli.light: every parameter of every command coerces as stock Typer does."""

from __future__ import annotations

import enum
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer._click import Context
from typer._coercion import build_runtime_param
from typer.main import get_command
from typer.testing import CliRunner

from studydb.cli import app
from studydb.cli.light import LightCommand, LightParam, light_kind

#: Inputs tried on every parameter of a kind, good and bad alike.
SAMPLES: dict[type, list[object]] = {
    int: [
        "0",
        "1",
        "7",
        " 7 ",
        "-1",
        "+3",
        "1_000",
        "1__0",
        "99999999999999999999",
        "9223372036854775807",
        "9223372036854775808",
        "1e20",
        "1.0",
        "1.",
        "2.00",
        "1.5",
        "1_0.0",
        "²",
        "٣",
        "abc",
        "",
        5,
    ],
    str: ["", "0300.10", "KRPvKR", "Réti", " spaced ", "--x"],
    Path: ["", "x.pgn", "/no/such/dir/x.pgn", "~/x"],
    bool: [True, False],
}


def commands() -> list[tuple[str, Any]]:
    """Every command of the studydb tree, with its full name."""
    found = []

    def walk(prefix: str, command: Any) -> None:
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk(f"{prefix} {name}".strip(), sub)
        else:
            found.append((prefix, command))

    walk("", get_command(app))
    return found


def light_params() -> list[tuple[str, Any, Any]]:
    """Every parameter the light coercion takes over, named ``command --option``."""
    params = []
    for name, command in commands():
        context = Context(command)
        for param in [*command.params, command.get_help_option(context)]:
            if param is None or getattr(param, "type_descriptor", None) is None:
                continue
            params.append((f"{name} {param.name}", param, command))
    return params


def samples_for(param: Any) -> list[object]:
    kind = light_kind(param.type_descriptor.annotation)
    if kind is not None and issubclass(kind, enum.Enum):
        return [member.value for member in kind] + ["", "nonsense", "TABLE"]
    return SAMPLES[kind]


def outcome(coerce, value, param, ctx):
    try:
        return ("ok", coerce(value, param=param, ctx=ctx))
    except typer.BadParameter:
        return ("bad", None)


@pytest.mark.parametrize("name", [name for name, _ in commands()])
def test_every_command_is_light(name: str) -> None:
    command = dict(commands())[name]
    assert isinstance(command, LightCommand), f"{name} does not use LightCommand"


@pytest.mark.parametrize(
    ("name", "param", "command"), light_params(), ids=[n for n, _, _ in light_params()]
)
def test_coercion_matches_stock_typer(name: str, param: Any, command: Any) -> None:
    light = param._runtime_param
    assert isinstance(light, LightParam), f"{name} is coerced by {light!r}"
    stock = build_runtime_param(param.type_descriptor)
    ctx = Context(command)
    values = samples_for(param)
    if param.multiple or param.nargs == -1:
        values = [[v] for v in values] + [[values[0], values[-1]]]
    for value in values:
        assert outcome(light.coerce, value, param, ctx) == outcome(
            stock.coerce, value, param, ctx
        ), f"{name} given {value!r}"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["stats", "--top", "0"], "below the minimum 1"),
        (["search", "--limit", "99999999999999999999"], "above the maximum"),
        (["search", "--offset", "-1"], "below the minimum 0"),
        (["show", "99999999999999999999"], "above the maximum"),
        (["show", "²"], "not a whole number"),
        (["import", "--batch-size", "1e20", "x.pgn"], "not a whole number"),
        (["import", "--jobs", "0", "x.pgn"], "below the minimum 1"),
        (["search", "--valid", "--invalid"], "both given: --valid and --invalid contradict"),
        (["stats", "--invalid", "0300", "--valid"], "both given: --valid and --invalid contradict"),
    ],
)
def test_bounds_are_usage_errors(args: list[str], message: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [*args, "--db", str(tmp_path / "s.sqlite")])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not (tmp_path / "s.sqlite").exists()


def test_typer_is_the_version_tested() -> None:
    # The hook is Typer 0.29's private _runtime_param slot: pyproject pins it (and says why).
    assert typer.__version__.startswith("0.29.")


@pytest.mark.slow
def test_a_command_runs_without_pydantic(tmp_path: Path) -> None:
    """What the private hook buys: options coerced, and the command run, with no pydantic
    imported (its TypeAdapters cost about 0.1 s of every start).  Without LightParam,
    Typer 0.29 imports pydantic to coerce the first parameter."""
    code = (
        "import sys\n"
        "from studydb.cli import main\n"
        "sys.argv = ['studydb', 'search', '0300.10', '--limit', '5', '--db', sys.argv[1]]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exc:\n"
        "    print(exc.code, 'pydantic' in sys.modules)\n"
    )
    missing = str(tmp_path / "none.sqlite")
    done = subprocess.run(
        [sys.executable, "-c", code, missing], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[-1] == "1 False", done.stdout + done.stderr
    assert "studydb: error:" in done.stderr
