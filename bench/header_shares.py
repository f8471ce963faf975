"""Share of real studies whose source is an EG reference, a note, or has an award glued on.

Reads every game of ``../shared/corpus/studies`` (or the folders given) and
prints, for the header rules of ``studydb.headers`` (or of an older copy of
that module given with ``--headers FILE``), how many studies get as their
source an EG reference, a version/correction/"after" note, or a source that
still starts with (or holds) an award.

Run: ``python bench/header_shares.py`` and, for the rules of another
revision, ``git show REV:studydb/headers.py > /tmp/old.py`` then
``python bench/header_shares.py --headers /tmp/old.py``.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

from studydb import headers
from studydb.pgn import find_pgn_files, open_pgn, read_games

HERE = Path(__file__).resolve().parent
STUDIES = HERE.parent.parent / "shared" / "corpus" / "studies"
EG = re.compile(r"\bEG\s*#?\s*\d", re.IGNORECASE)
NOTE = re.compile(r"\s*(?:\([a-z]+\)\s*:|after\b)", re.IGNORECASE)
AWARD = re.compile(
    r"^\s*(?:\d+(?:/\d+)?\.?(?:sp\.?p|sp|hm|p|c)\.?|\.(?:hm|c|p)|hm\.)(?=[\s,]|$)"
    r"|\b(?:prize|honou?rable mention|commendation|comm\.)",
    re.IGNORECASE,
)


def load(path: str | None) -> ModuleType:
    if path is None:
        return headers
    spec = importlib.util.spec_from_file_location("old_headers", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_headers"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[str(STUDIES)])
    parser.add_argument("--headers", help="a copy of studydb/headers.py to measure instead")
    options = parser.parse_args()
    module = load(options.headers)
    total = eg = note = glued = 0
    for path in find_pgn_files(options.paths):
        with open_pgn(path) as stream:
            for game in read_games(stream, name=str(path)):
                source = module.read_info(game.headers).source or ""
                total += 1
                eg += bool(EG.search(source))
                note += bool(NOTE.match(source))
                glued += bool(AWARD.search(source))
    if not total:
        sys.exit("no games found")
    for label, k in (
        ("source is an EG reference", eg),
        ("source is a version/correction/after note", note),
        ("source with an award glued on", glued),
    ):
        print(f"{label:44} {k:5} of {total}  {100 * k / total:5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
