"""The CLI's edge (studydb.cli and cli/common.py): unwritable outputs, closed pipes, errors.

Every command is run through the installed console script with its output
going somewhere it cannot be written: a full device, a closed pipe, a
missing folder.  Each must end with one ``studydb: error: …`` line (or, for
a reader that went away, quietly) and never a traceback.
"""

from __future__ import annotations

import ast
import re
import sqlite3
import subprocess
from pathlib import Path

import pytest
from helpers import CLASSICS, STUDYDB
from typer.testing import CliRunner

from studydb.cli import app
from studydb.cli.common import describe_error, library_errors
from studydb.errors import DatabaseError, GbrError, PgnError, QueryError, StudydbError

ROOT = Path(__file__).resolve().parent.parent
SYZYGY = ROOT.parent / "shared" / "syzygy"
SAAVEDRA = "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"
#: A row of ``--help``'s command list (continuation lines are indented further).
_COMMAND_ROW = re.compile(r"  \S")
runner = CliRunner()


@pytest.fixture(scope="module")
def classics(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Path:
    """The classics imported once for the module; tests write to copies of it only."""
    path = tmp_path_factory.mktemp("edge") / "classics.sqlite"
    result = runner.invoke(app, ["import", str(CLASSICS), "--db", str(path)])
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture
def db(classics: Path, tmp_path: Path) -> str:
    """A database of the test's own (import, index, check and upgrade write to it)."""
    path = tmp_path / "studies.sqlite"
    source, copy = sqlite3.connect(classics), sqlite3.connect(path)
    try:
        source.backup(copy)  # what the -wal file holds too
    finally:
        source.close()
        copy.close()
    return str(path)


def commands(db: str) -> dict[str, list[str]]:
    """One invocation of every command that writes to standard output."""
    return {
        "gbr encode": ["gbr", "encode", SAAVEDRA],
        "gbr decode": ["gbr", "decode", "0300.10"],
        "gbr position": ["gbr", "position", "b6a1 0300.10 d5.c6 2/2"],
        "import": ["import", str(CLASSICS), "--db", db],
        "rejects": ["rejects", "--db", db],
        "search": ["search", "--db", db],
        "show": ["show", "1", "--db", db],
        "stats": ["stats", "--db", db],
        "db path": ["db", "path", "--db", db],
        "db current": ["db", "current", "--db", db],
        "db upgrade": ["db", "upgrade", "--db", db],
        "index": ["index", "--reindex", "--db", db],
        "anticipate": ["anticipate", str(CLASSICS), "--db", db],
        "versions": ["versions", "--db", db],
        "check": ["check", "--syzygy", str(SYZYGY), "--recheck", "--db", db],
        "check --fen": [
            *("check", "--fen", "8/8/8/8/8/8/6k1/4K2R w - - 0 1", "--stipulation", "win"),
            *("--syzygy", str(SYZYGY)),
        ],
    }


COMMANDS = list(commands("x"))


@pytest.mark.slow
@pytest.mark.parametrize("name", COMMANDS)
def test_full_device_is_an_error_not_a_traceback(db: str, name: str) -> None:
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [str(STUDYDB), *commands(db)[name]],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        "studydb: error: cannot write the output: No space left on device"
    ), result.stderr
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("name", COMMANDS)
def test_closed_pipe_ends_quietly(db: str, name: str) -> None:
    # The reader is gone before the command writes a byte (our end is closed at once,
    # long before Python has started): exit 0, nothing on stderr, as Unix tools do.
    process = subprocess.Popen(
        [str(STUDYDB), *commands(db)[name]], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    assert process.wait(timeout=120) == 0
    assert process.stderr.read() == b""


@pytest.mark.slow
def test_search_into_head_exits_zero(db: str) -> None:
    # A reader that stops after the first line (| head -1): exit 0, nothing on stderr.
    process = subprocess.Popen(
        [str(STUDYDB), "search", "--format", "pgn", "--db", db],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()
    assert process.wait(timeout=60) == 0
    assert first.startswith(b"[") and process.stderr.read() == b""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["rejects", "--export", "{missing}/x.pgn"], "No such file or directory"),
        (["rejects", "--export", "{folder}"], "Is a directory"),
        (["rejects", "--export", "/dev/full"], "No space left on device"),
        (["show", "1", "--svg", "{missing}/x.svg"], "No such file or directory"),
        (["show", "1", "--svg", "{folder}"], "Is a directory"),
        (["show", "1", "--svg", "/dev/full"], "No space left on device"),
    ],
)
def test_unwritable_output_file(db: str, tmp_path: Path, args: list[str], reason: str) -> None:
    # rejects --export needs a reject to write; show --svg a diagram.
    bad = tmp_path / "bad.pgn"
    bad.write_text('[FEN "8/8/8/8/8/8/8/K7 w - - 0 1"]\n\n*\n')
    assert runner.invoke(app, ["import", str(bad), "--db", db]).exit_code == 0
    target = [a.format(missing=tmp_path / "no" / "such", folder=tmp_path) for a in args]
    result = subprocess.run(
        [str(STUDYDB), *target, "--db", db], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("studydb: error: cannot write "), result.stderr
    assert reason in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "error",
    [
        GbrError("bad code '03x0'"),
        PgnError("x.pgn: unreadable"),
        QueryError("bad year '19x'", param="--year"),
        DatabaseError("cannot open x.sqlite"),
        FileNotFoundError(2, "No such file or directory", "x.pgn"),
    ],
)
def test_library_errors_become_one_line_and_exit_1(error: Exception) -> None:
    import typer

    with pytest.raises(typer.Exit) as caught, library_errors():
        raise error
    assert caught.value.exit_code == 1


def test_other_exceptions_keep_their_traceback() -> None:
    # Only our errors and OS errors are caught: a bug must stay visible.
    with pytest.raises(KeyError), library_errors():
        raise KeyError("bug")


@pytest.mark.parametrize(
    ("cls", "builtin"),
    [
        (GbrError, ValueError),
        (PgnError, ValueError),
        (QueryError, ValueError),
        (DatabaseError, RuntimeError),
    ],
)
def test_every_error_derives_from_the_base_and_a_builtin(cls: type, builtin: type) -> None:
    assert issubclass(cls, StudydbError) and issubclass(cls, builtin)


def test_describe_error_names_the_file() -> None:
    assert describe_error(PermissionError(13, "Permission denied", "/x.pgn")) == (
        "/x.pgn: Permission denied"
    )
    assert describe_error(OSError(28, "No space left on device")) == (
        "cannot write the output: No space left on device"
    )


def test_top_level_help_lists_the_commands_in_the_order_of_work_and_in_full() -> None:
    result = runner.invoke(app, ["--help"], terminal_width=80)
    assert result.exit_code == 0, result.output
    listed = result.output.split("Commands:\n", 1)[1]
    names = [line.split()[0] for line in listed.splitlines() if _COMMAND_ROW.match(line)]
    assert names[:4] == ["import", "search", "show", "stats"], names
    assert names[-1] == "db", names
    assert "..." not in listed, listed
    # a first sentence longer than a line is wrapped, not cut off
    whole = "Find studies by material, composer, year, stipulation, source, EG number or award."
    assert whole in " ".join(listed.split()), listed


def test_group_help_keeps_the_examples_one_a_line() -> None:
    result = runner.invoke(app, ["composers", "--help"], terminal_width=80)
    assert result.exit_code == 0, result.output
    assert "\n    studydb composers --suggest\n" in result.output, result.output
    assert "studydb composers   studydb" not in result.output, result.output


def test_the_command_asked_for_is_built_alone() -> None:
    """main() gives Typer the command (or group) named first only: each of them is found by
    its name, alone, and runs so; app keeps them all (help lists them, typos are told)."""
    from typer.main import get_command

    from studydb.cli import asked_for

    names = set(get_command(app).commands)  # type: ignore[attr-defined]
    assert {"search", "show", "composers", "db", "gbr"} <= names
    for name in sorted(names):
        alone = asked_for([name, "--help"])
        assert alone is not app
        assert list(get_command(alone).commands) == [name]  # type: ignore[attr-defined]
    assert set(get_command(app).commands) == names  # type: ignore[attr-defined]
    for args in ([], ["--help"], ["--version"], ["serach"]):
        assert asked_for(args) is app
    done = subprocess.run([str(STUDYDB), "serach"], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "Did you mean 'search'?" in done.stderr


def test_no_command_module_imports_the_package_back() -> None:
    """The command modules give studydb.cli their own ``commands``: none imports studydb.cli."""
    back = {
        f"{path.name}:{node.lineno}"
        for path in sorted((ROOT / "studydb" / "cli").glob("*.py"))
        if path.name != "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if (isinstance(node, ast.ImportFrom) and node.module == "studydb.cli")
        or (isinstance(node, ast.Import) and any(a.name == "studydb.cli" for a in node.names))
    }
    assert back == set()


def test_the_modules_register_their_commands_in_order() -> None:
    """app holds each module's commands, in _register's order (``--help`` then sorts the
    top level by light.COMMAND_ORDER)."""
    from typer.main import get_command

    assert list(get_command(app).commands) == [  # type: ignore[attr-defined]
        "check", "import", "rejects", "index", "anticipate", "versions", "report",
        "search", "show", "stats", "serve", "themes", "composers", "db", "gbr",
    ]  # fmt: skip


#: Every command that opens a database, with the arguments it needs besides ``--db``.
DATABASE_COMMANDS = {
    "import": ["import", str(CLASSICS)],
    "search": ["search"],
    "show": ["show", "1"],
    "stats": ["stats"],
    "rejects": ["rejects"],
    "composers": ["composers"],
    "composers merge": ["composers", "merge", "a", "b"],
    "themes": ["themes"],
    "versions": ["versions"],
    "anticipate": ["anticipate", "1"],
    "index": ["index"],
    "check": ["check", "--syzygy", str(SYZYGY)],
    "report": ["report", str(CLASSICS), "--store"],
    "serve": ["serve", "--port", "0"],
    "db path": ["db", "path"],
    "db current": ["db", "current"],
    "db upgrade": ["db", "upgrade"],
}


@pytest.mark.parametrize("name", DATABASE_COMMANDS)
def test_empty_db_is_a_usage_error_not_another_database(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `--db "$DB"` with DB unset once imported into $STUDYDB_DB (or the default database).
    elsewhere = tmp_path / "elsewhere.sqlite"
    monkeypatch.setenv("STUDYDB_DB", str(elsewhere))
    result = runner.invoke(app, [*DATABASE_COMMANDS[name], "--db", ""])
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--db'" in result.output and "'' is empty" in result.output
    assert not elsewhere.exists()
