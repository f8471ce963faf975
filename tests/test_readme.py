"""The README's examples are tests: every ``console`` block of a section listed here runs.

The listed sections' blocks run in the README's order, in one fresh temporary home (its own
``HOME`` and ``XDG_DATA_HOME``, so its own default database) and a fresh
working folder ``studydb`` in it (the clone, with ``data/``), after the
README's first command (the sample collection imported into the default
database).  Each ``$ `` line is run by bash (stdout and stderr together, as a
terminal shows them); what it prints must be the lines that follow it, after
:func:`normalise`: times and rates, and the temporary home's path, only.  The
README writes the home as ``/home/you``, so the clone is ``/home/you/studydb``
and the default database ``/home/you/.local/share/studydb/studies.sqlite``;
``~/syzygy`` is ``../shared/syzygy`` (the 3-4-man tables).  Without those
tables the sections in :data:`NEED_TABLES` do not run and the test says so
as a skip (under ``CI=true`` it fails: CI has them).

A section not listed yet needs ``../shared`` or ids of a database the README
does not build; :data:`NOT_YET` says which and why, so that the list only
grows.  When an example changes, this test fails until the README is updated.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, SHARED

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
    "check",
    "themes",
)
#: The tested sections that need the Syzygy tables in ``~/syzygy``.
NEED_TABLES = ("check",)
#: The sections that do not run yet, and why (each is a task for the README, not a test).
NOT_YET = {
    "serve": "starts a server and shows the corpus's ids",
}
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


def normalise(text: str, home: Path) -> list[str]:
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
    text = text.replace(str(home), HOME)
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


def run(command: str, folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_readme_s_examples_print_what_it_says(home: dict[str, object]) -> None:
    """The tested sections run one after another in the README's order, as a reader runs them.

    One test, not one per section: a section builds on the files and databases the
    sections before it made, so neither a random order nor another worker may split them.
    """
    top, folder, env = home["home"], home["folder"], home["env"]
    assert isinstance(top, Path) and isinstance(folder, Path) and isinstance(env, dict)
    left_out = []
    for section, blocks in sections().items():
        if section not in TESTED:
            continue
        if section in NEED_TABLES and not TABLES.is_dir():
            left_out.append(section)
            continue
        assert blocks, section
        for block in blocks:
            for command, expected in examples(block):
                done = run(command, folder, env)
                shown = normalise(done.stdout, top)
                assert shown == normalise("\n".join(expected), top), f"{section}: {command}"
    if left_out:
        message = f"sections {left_out} not run: no Syzygy tables in {TABLES}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


def test_the_tested_sections_exist() -> None:
    assert set(TESTED) <= set(sections()), set(TESTED) - set(sections())
