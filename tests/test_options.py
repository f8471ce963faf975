"""The options shared by commands (studydb.cli.options): one output-options pattern."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from studydb.cli import app
from studydb.cli.options import BEFORE_HELP, MIN_MEN_HELP, output_options
from studydb.filters import DEFAULT_MIN_MEN
from studydb.vocabulary import OUTPUT_FORMATS

runner = CliRunner()

#: Every command that prints results, and the formats it writes (the first is the default).
PRINTING = {
    "search": ("table", "json", "jsonl", "csv", "pgn", "fen"),
    "show": ("text", "json", "pgn"),
    "stats": ("table", "json"),
    "check": ("text", "json", "jsonl"),
    "index": ("text", "json", "jsonl"),
    "anticipate": ("text", "json", "jsonl"),
    "versions": ("text", "json", "jsonl"),
    "import": ("text", "json"),
    "rejects": ("table", "json"),
    "themes": ("table", "json"),
    "report": ("md", "json"),
    "composers": ("text", "json", "jsonl"),
    "gbr encode": ("text", "json", "jsonl"),
    "gbr decode": ("text", "json", "jsonl"),
    "gbr position": ("text", "json", "jsonl"),
}


def commands(group: Any = None, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every command and command group of ``studydb`` (a group's own options too), by name."""
    group = group or typer.main.get_command(app)
    for name, command in getattr(group, "commands", {}).items():
        full = f"{prefix}{name}"
        yield full, command
        if hasattr(command, "commands"):
            yield from commands(command, full + " ")


ALL = dict(commands())


def is_option(param: Any) -> bool:
    return param.param_type_name == "option"


def format_option(command: Any) -> Any:
    found = [p for p in command.params if is_option(p) and "--format" in p.opts]
    return found[0] if found else None


@pytest.mark.parametrize(("name", "formats"), PRINTING.items())
def test_every_printing_command_takes_f_format_with_its_formats(name: str, formats) -> None:
    option = format_option(ALL[name])
    assert option is not None, name
    assert sorted(option.opts) == ["--format", "-f"]
    assert tuple(option.type_descriptor.choices) == formats
    assert option.default == formats[0]
    assert set(formats) <= set(OUTPUT_FORMATS)


def test_only_the_printing_commands_take_format() -> None:
    assert {name for name, command in ALL.items() if format_option(command)} == set(PRINTING)


def test_no_short_option_has_two_meanings() -> None:
    meaning: dict[str, set[str]] = {}
    for command in ALL.values():
        for param in command.params:
            if not is_option(param):
                continue
            shorts = [o for o in param.opts if not o.startswith("--")]
            longs = [o for o in param.opts if o.startswith("--")]
            for short in shorts:
                meaning.setdefault(short, set()).add(longs[0])
    assert {short: longs for short, longs in meaning.items() if len(longs) > 1} == {}
    assert meaning["-p"] == {"--position"}
    assert meaning["-f"] == {"--format"}


def test_serve_port_has_no_short_option() -> None:
    [port] = [p for p in ALL["serve"].params if p.name == "port"]
    assert port.opts == ["--port"]
    result = runner.invoke(app, ["serve", "-p", "8080"])
    assert result.exit_code == 2, result.output
    assert "No such option: -p" in result.output


@pytest.mark.parametrize(
    ("args", "formats"),
    [
        (["gbr", "encode", "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"], ("text", "json", "jsonl")),
        (["gbr", "decode", "0300.10"], ("text", "json", "jsonl")),
    ],
)
def test_short_and_long_format_are_the_same(args: list[str], formats) -> None:
    for fmt in formats:
        short = runner.invoke(app, [*args, "-f", fmt])
        long = runner.invoke(app, [*args, "--format", fmt])
        assert short.exit_code == long.exit_code == 0, short.output
        assert short.stdout == long.stdout
    assert json.loads(runner.invoke(app, [*args, "-f", "json"]).stdout)


@pytest.mark.parametrize("name", ["rejects", "stats", "show", "gbr encode"])
def test_a_format_the_command_does_not_write_is_a_usage_error(name: str) -> None:
    unwritten = next(f for f in OUTPUT_FORMATS if f not in PRINTING[name])
    result = runner.invoke(app, [*name.split(), "-f", unwritten])
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '--format' / '-f': '{unwritten}' is not one of" in result.output


def test_a_format_no_command_knows_is_refused_when_declared() -> None:
    with pytest.raises(ValueError, match="unknown output formats \\['xml'\\]"):
        output_options("json", "xml")


#: The commands that look up shared positions, and so take ``--min-men``.
MIN_MEN_COMMANDS = ("show", "anticipate", "report")


def min_men_help(name: str) -> str:
    """What ``studydb NAME --help`` says of ``--min-men``, its spaces collapsed."""
    result = runner.invoke(app, [*name.split(), "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("--min-men"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("-"))
    return " ".join(" ".join(lines[start:end]).split())  # the column differs by command


def test_min_men_is_declared_once() -> None:
    taking = {
        name for name, command in ALL.items() if any(p.name == "min_men" for p in command.params)
    }
    assert taking == set(MIN_MEN_COMMANDS)
    for name in MIN_MEN_COMMANDS:
        [option] = [p for p in ALL[name].params if p.name == "min_men"]
        assert (option.opts, option.default, option.help) == (
            ["--min-men"],
            DEFAULT_MIN_MEN,
            MIN_MEN_HELP,
        )
        assert (option.min, option.max) == (2, 32), name
    helps = {name: min_men_help(name) for name in MIN_MEN_COMMANDS}
    assert len(set(helps.values())) == 1, helps
    assert "default: 5" in helps["show"] and "2<=x<=32" in helps["show"], helps["show"]


def test_before_is_declared_once() -> None:
    taking = {
        name for name, command in ALL.items() if any(p.name == "before" for p in command.params)
    }
    assert taking == {"anticipate", "report"}
    for name in taking:
        [option] = [p for p in ALL[name].params if p.name == "before"]
        assert (option.opts, option.default, option.help) == (["--before"], None, BEFORE_HELP)
        assert (option.min, option.max) == (0, 9999), name
        result = runner.invoke(app, [name, "x", "--before", "10000"])
        assert result.exit_code == 2 and "above the maximum 9999" in result.output, result.output


@pytest.mark.parametrize("name", MIN_MEN_COMMANDS)
def test_min_men_out_of_range_is_a_usage_error(name: str) -> None:
    result = runner.invoke(app, [name, "x", "--min-men", "33"])
    assert result.exit_code == 2, result.output
    assert "maximum 32" in result.output or "2<=x<=32" in result.output, result.output
