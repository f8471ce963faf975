"""The package's layers: which modules may import which, and the way into the database.

Read from the source (the import statements), not by importing: top-level
modules work without a database, ``db`` points up to neither ``cli`` nor
``web``, ``web`` never imports ``cli``, and outside ``studydb/db`` the
functions that take an engine are reached through :class:`Database` only.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "studydb"
#: What each layer may not import (``top``: the modules at the package's top level).
FORBIDDEN = {
    "top": ("studydb.db", "studydb.cli", "studydb.web"),
    "gbr": ("studydb.db", "studydb.cli", "studydb.web", "studydb.soundness"),
    "soundness": ("studydb.db", "studydb.cli", "studydb.web"),
    "db": ("studydb.cli", "studydb.web"),
    "web": ("studydb.cli",),
}
#: ``from studydb… import names`` (names in parentheses may span lines) or ``import studydb…``.
IMPORT_RE = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<module>studydb[\w.]*)[ \t]+import[ \t]+(?P<names>\([^)]*\)|[^\n#]*)"
    r"|import[ \t]+(?P<plain>studydb[\w.]*(?:[ \t]+as[ \t]+\w+)?))",
    re.MULTILINE,
)
COMMENT_RE = re.compile(r"#[^\n]*")
#: Top-level modules that are entry points above every layer.
ENTRY_POINTS = {"__init__.py", "__main__.py"}


def _layer(path: Path) -> str:
    """The layer of a module: its subpackage, or ``top``."""
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else "top"


@functools.cache
def _sources() -> dict[Path, str]:
    """Every module of the package but the frozen migrations, as text."""
    return {
        path: path.read_text(encoding="utf-8")
        for path in sorted(PACKAGE.rglob("*.py"))
        if "versions" not in path.parts
    }


def _imports(source: str) -> list[tuple[str, str, int]]:
    """(module, name or "", line) of each absolute import of studydb in ``source``.

    Read with a regular expression (parsing every module with ast takes most of a second): a
    parenthesised list of names may span lines.
    """
    found = []
    for match in IMPORT_RE.finditer(source):
        line = source.count("\n", 0, match.start()) + 1
        if match["module"]:
            names = COMMENT_RE.sub("", match["names"]).strip("()").split(",")
            found += [(match["module"], n.split()[0], line) for n in names if n.split()]
        else:
            found += [(m.split()[0], "", line) for m in match["plain"].split(",")]
    return found


def _points_into(module: str, name: str, packages: tuple[str, ...]) -> bool:
    """Whether ``from module import name`` (or ``import module``) reaches one of ``packages``."""
    target = f"{module}.{name}" if name else module
    return any(t == p or t.startswith(p + ".") for t in (module, target) for p in packages)


def _engine_functions() -> set[tuple[str, str]]:
    """(module, function) of what :class:`Database` calls with its engine."""
    tree = ast.parse(_sources()[PACKAGE / "db" / "database.py"])
    aliases = {
        alias.asname or alias.name: f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "studydb.db"
        for alias in node.names
    }
    imported = {
        alias.asname or alias.name: node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module
        and node.module.startswith("studydb.db.")
        for alias in node.names
    }
    found = set()
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call) and node.args and ast.unparse(node.args[0]) == "self.engine"
        ):
            continue
        call = node.func
        if isinstance(call, ast.Attribute) and isinstance(call.value, ast.Name):
            found.add((aliases.get(call.value.id, call.value.id), call.attr))
        elif isinstance(call, ast.Name) and call.id in imported:
            found.add((imported[call.id], call.id))
    return found


def test_no_import_points_back_up_a_layer() -> None:
    """Top-level modules, gbr and soundness import no database, CLI or web; db no CLI or
    web; web no CLI (``studydb/__init__.py`` and ``__main__.py`` are the entry points)."""
    upward = [
        f"{path.relative_to(PACKAGE)}:{line} imports {module}{'.' + name if name else ''}"
        for path, source in _sources().items()
        if path.name not in ENTRY_POINTS or _layer(path) != "top"
        for module, name, line in _imports(source)
        if _points_into(module, name, FORBIDDEN.get(_layer(path), ()))
    ]
    assert upward == []


def _engine_calls(source: str, engine_functions: set[tuple[str, str]]) -> list[str]:
    """Where ``source`` imports one of ``engine_functions``, or names one on a module it imports."""
    modules = {module for module, _ in engine_functions}
    found = []
    for module, name, line in _imports(source):
        if (module, name) in engine_functions:
            found.append(f"{line}: {module}.{name}")
        elif f"{module}.{name}" in modules:
            for use in re.finditer(rf"\b{name}\.(\w+)\b", source):
                if (f"{module}.{name}", use[1]) in engine_functions:
                    found.append(f"{source.count(chr(10), 0, use.start()) + 1}: {name}.{use[1]}")
    return found


def test_the_engine_taking_functions_are_reached_through_database() -> None:
    """No module outside studydb/db imports or calls a function that Database calls with its
    engine (the web's and the CLI's modules name db's records, not its queries)."""
    engine_functions = _engine_functions()
    assert ("studydb.db.search", "search") in engine_functions  # the scan sees Database's calls
    assert ("studydb.db.persons", "list_persons") in engine_functions
    outside = {
        str(path.relative_to(PACKAGE)): calls
        for path, source in _sources().items()
        if _layer(path) != "db"
        if (calls := _engine_calls(source, engine_functions))
    }
    assert outside == {}
