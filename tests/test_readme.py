"""The README's examples are tests: every ``console`` block of a section listed here runs.

The listed sections' blocks run in the README's order, in one fresh temporary home (its own
``HOME`` and ``XDG_DATA_HOME``, so its own default database) and a fresh
working folder ``studydb`` in it (the clone, with ``data/``), after the
README's first command (the sample collection imported into the default
database).  Each ``$ `` line is run as bash runs it (stdout and stderr together, as a
terminal shows them): its ``studydb`` command in this process when the rest of
the line is only a comment, a pipe in or out or ``echo "exit $?"`` (those
parts through bash), to spare a second of start-up a line; what it prints
must be the lines that follow it, after :func:`normalise`: times and rates,
a check's date, the temporary home's path and the server's port, only.  The
README writes the home as ``/home/you``, so the clone is ``/home/you/studydb``
and the default database ``/home/you/.local/share/studydb/studies.sqlite``;
``~/syzygy`` is ``../shared/syzygy`` (the 3-4-man tables).  Without those
tables the sections in :data:`NEED_TABLES` do not run and the test says so
as a skip; so do the sections whose programs (:data:`NEED_PROGRAMS`: ``curl``,
``jq``) are missing.  Under ``CI=true`` either fails: ``.ci/run`` installs the
programs, and CI has the tables.  A ``$ `` line
ending in `` &`` starts a server in the background, on a free port that stands
for :data:`README_PORT`; it is stopped when the test ends.

Every section with examples is tested; a new one that cannot run yet goes in
:data:`NOT_YET` with the reason.  When an example changes, this test fails
until the README is updated.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import ROOT, SHARED
from typer.testing import CliRunner

from studydb.cli import app

README = ROOT / "README.md"
TABLES = SHARED / "syzygy"
#: The sections whose examples run (their names in ``<!-- section:NAME -->``).
TESTED = (
    "gbr",
    "database",
    "output",
    "import",
    "study-references",
    "composers",
    "positions",
    "patterns",
    "lines",
    "check",
    "themes",
    "serve",
)
#: The tested sections that need the Syzygy tables in ``~/syzygy``.
NEED_TABLES = ("check", "serve")
#: The tested sections that need these programs (``serve``'s examples query the server).
NEED_PROGRAMS = {"serve": ("curl", "jq")}
#: The port the README's server examples use; the test serves on a free one instead.
README_PORT = 8765
#: The sections that do not run yet, and why (each is a task for the README, not a test).
NOT_YET: dict[str, str] = {}
_SECTION = re.compile(
    r"<!-- section:(?P<name>[\w-]+) -->(?P<body>.*?)<!-- /section:(?P=name) -->", re.S
)
_BLOCK = re.compile(r"```console\n(.*?)```", re.S)
#: What varies from run to run: elapsed times and rates (text and JSON), and the home.
_TIMES = re.compile(r"in \d+(?:\.\d+)? s(?: \([\d,]+ (?:games|studies)/s\))?(?=[\s:,;)]|$)")
#: When a check was made (``show``'s soundness line).
_DATES = re.compile(r"\bchecked \d{4}-\d\d-\d\d \d\d:\d\d\b")
_ELAPSED = re.compile(r'"elapsed": \d+(?:\.\d+)?')
#: How the README writes the temporary home.
HOME = "/home/you"


def sections() -> dict[str, list[str]]:
    """Each section's console blocks, in the README's order."""
    text = README.read_text(encoding="utf-8")
    return {m["name"]: _BLOCK.findall(m["body"]) for m in _SECTION.finditer(text)}


def examples(block: str) -> list[tuple[str, list[str]]]:
    """The commands of a block with the lines each must print."""
    found: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        elif found:
            found[-1][1].append(line)
    return found


def normalise(text: str, home: Path, port: int = README_PORT) -> list[str]:
    """The lines as compared: times and rates replaced, the home as the README writes it.

    >>> normalise('stored 2 in 0.3 s (6 games/s) at /tmp/x/a.pgn  ', Path("/tmp/x"))
    ['stored 2 in TIME at /home/you/a.pgn']
    >>> normalise('{"elapsed": 0.02}', Path("/tmp/x"))
    ['{"elapsed": TIME}']
    >>> normalise("checked 2 in 0.4 s: sound 2; checked 2026-11-30 23:45)", Path("/tmp/x"))
    ['checked 2 in TIME: sound 2; checked DATE)']
    """
    text = _ELAPSED.sub('"elapsed": TIME', _TIMES.sub("in TIME", text))
    text = _DATES.sub("checked DATE", text)
    text = text.replace(str(home), HOME).replace(f":{port}", f":{README_PORT}")
    return [line.rstrip() for line in text.rstrip("\n").splitlines()]


def test_every_section_is_tested_or_says_why_not() -> None:
    with_examples = {name for name, blocks in sections().items() if blocks}
    assert with_examples == set(TESTED) | set(NOT_YET), with_examples ^ (set(TESTED) | set(NOT_YET))


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """A fresh home with the sample collection in its default database, as the README starts."""
    home = tmp_path_factory.mktemp("readme")
    folder = home / "studydb"
    folder.mkdir()
    (folder / "data").symlink_to(ROOT / "data")
    if TABLES.is_dir():
        (home / "syzygy").symlink_to(TABLES)
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONUNBUFFERED": "1",
        "COLUMNS": "200",
    }
    env.pop("STUDYDB_DB", None)
    env.pop("STUDYDB_SYZYGY", None)
    done = run("studydb import data/classics.pgn", folder, env)
    assert done.returncode == 0, done.stdout
    return {"home": home, "folder": folder, "env": env}


#: Quoted strings, and what makes a command line need a shell once they are taken out.
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_SHELL = re.compile(r"[|;&<>$`*?~(){}\\]|(?<!\S)#")
#: A ``~/`` that bash expands to the home: outside quotes, at the start of a word.
_TILDE = re.compile(r"'[^']*'|\"[^\"]*\"|(?<!\S)~(?=/)")
#: What a line may add around a plain ``studydb`` command: a comment, a pipe to a filter
#: (``| head -5``), input from a pipe (``printf … |``), its exit code (``; echo "exit $?"``).
_COMMENT = re.compile(r"\s+#\s[^'\"]*$")
_EXIT = '; echo "exit $?"'


def in_process(command: str, home: str = HOME) -> list[str] | None:
    """The arguments of a plain ``studydb …`` command (no pipe, variable, glob or
    redirection), which runs in this process: a second of start-up saved for each.
    A ``~/`` starting a word is the home, as bash expands it.

    >>> in_process('studydb search --pattern "*/*/1KP5/*/*/*/*/*" --count')
    ['search', '--pattern', '*/*/1KP5/*/*/*/*/*', '--count']
    >>> in_process("studydb check --syzygy ~/syzygy --eg EG#01335 --moves '~/x'")
    ['check', '--syzygy', '/home/you/syzygy', '--eg', 'EG#01335', '--moves', '~/x']
    >>> in_process("studydb search --db typo.sqlite; echo $?") is None
    True
    """
    command = _TILDE.sub(lambda m: home if m[0] == "~" else m[0], command.strip())
    if not command.startswith("studydb ") or _SHELL.search(_QUOTED.sub("", command)):
        return None
    return shlex.split(command)[1:]


def _pipeline(command: str) -> list[str]:
    """The commands of a line split at its unquoted ``|``."""
    pieces, current, quote = [], "", ""
    for char in command:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "|":
            pieces.append(current.strip())
            current = ""
            continue
        current += char
    return [*pieces, current.strip()]


def _split(command: str, home: str) -> tuple[str, list[str], str, bool] | None:
    """A line as (what pipes into studydb, studydb's arguments, the filter after it, whether
    the exit code is echoed), or None when it needs bash as a whole."""
    command = _COMMENT.sub("", command).strip()
    echo = command.endswith(_EXIT)
    if echo:
        command = command[: -len(_EXIT)].strip()
    pieces = _pipeline(command)
    ours = [i for i, piece in enumerate(pieces) if piece.startswith("studydb ")]
    if len(ours) != 1:
        return None
    args = in_process(pieces[ours[0]], home)
    if args is None:
        return None
    return " | ".join(pieces[: ours[0]]), args, " | ".join(pieces[ours[0] + 1 :]), echo


def run(command: str, folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run a README line as bash would: its ``studydb`` command in this process when the
    rest of the line is only a comment, a pipe in or out, or ``echo "exit $?"``."""
    split = _split(command, env["HOME"])
    if split is not None:
        before, args, after, echo = split
        given = _bash(before, folder, env).stdout if before else None
        here = os.getcwd()
        os.chdir(folder)
        try:
            result = CliRunner().invoke(app, args, env=env, input=given)
        finally:
            os.chdir(here)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        shown = result.output
        if after:  # stderr reaches the terminal; stdout goes through the filter
            shown = result.stderr + _bash(after, folder, env, given=result.stdout).stdout
        if echo:
            shown += f"exit {result.exit_code}\n"
        return subprocess.CompletedProcess(command, result.exit_code, shown, None)
    return _bash(command, folder, env)


def _bash(
    command: str, folder: Path, env: dict[str, str], *, given: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=folder,
        env=env,
        input=given,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
        check=False,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(port: int, server: subprocess.Popen[bytes]) -> None:
    """Until the server started in the background accepts connections (15 s at most)."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and server.poll() is None:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    pytest.fail(f"the README's server did not start on port {port}")


@pytest.fixture
def background() -> Iterator[list[subprocess.Popen[bytes]]]:
    """The commands a README example starts with ``&``, stopped after the test."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def missing(section: str) -> str | None:
    """What a section needs that this machine lacks, if anything."""
    if section in NEED_TABLES and not TABLES.is_dir():
        return f"no Syzygy tables in {TABLES}"
    lacking = [name for name in NEED_PROGRAMS.get(section, ()) if shutil.which(name) is None]
    return f"no {', '.join(lacking)}" if lacking else None


def test_the_readme_s_examples_print_what_it_says(
    home: dict[str, object], background: list[subprocess.Popen[bytes]]
) -> None:
    """The tested sections run one after another in the README's order, as a reader runs them.

    One test, not one per section: a section builds on the files and databases the
    sections before it made, so neither a random order nor another worker may split them.
    A command ending in `` &`` (a server) runs in the background until the test ends,
    on a free port that stands for :data:`README_PORT` in the commands and the output.
    """
    top, folder, env = home["home"], home["folder"], home["env"]
    assert isinstance(top, Path) and isinstance(folder, Path) and isinstance(env, dict)
    port = free_port()
    left_out = {}
    for section, blocks in sections().items():
        if section not in TESTED:
            continue
        if (reason := missing(section)) is not None:
            left_out[section] = reason
            continue
        assert blocks, section
        for block in blocks:
            for command, expected in examples(block):
                command = command.replace(f":{README_PORT}", f":{port}")
                command = command.replace(f"--port {README_PORT}", f"--port {port}")
                if command.endswith(" &"):
                    assert not expected, f"{section}: {command} prints nothing here"
                    log = open(folder / f"background-{len(background)}.log", "wb")  # noqa: SIM115
                    with log:
                        background.append(
                            subprocess.Popen(
                                ["bash", "-c", f"exec {command[:-2]}"],
                                cwd=folder,
                                env=env,
                                stdout=log,
                                stderr=subprocess.STDOUT,
                                start_new_session=True,
                            )
                        )
                    wait_for(port, background[-1])
                    continue
                done = run(command, folder, env)
                shown = normalise(done.stdout, top, port)
                assert shown == normalise("\n".join(expected), top), f"{section}: {command}"
    if left_out:
        message = f"sections not run: {left_out}"
        if os.environ.get("CI") == "true":  # CI installs the programs and has the tables
            pytest.fail(message)
        pytest.skip(message)


def test_the_tested_sections_exist() -> None:
    assert set(TESTED) <= set(sections()), set(TESTED) - set(sections())
