"""Share of real studies whose source holds something that is not the publication.

Reads every game of ``../shared/corpus/studies`` (or the folders given) and
prints, for the header rules of ``studydb.headers`` (or of an older copy of
that module given with ``--headers FILE``), how many studies get as their
source an EG reference, a version/correction/"after" note, a source that
still starts with (or holds) an award, and (issue 16) a version flag
(``{v}``, ``(c)``, ``{m``), a note inside it, a number after ``#``, a reprint
(``also …``), and how many lose a note after an EG reference or an award
after one (``EG#01969. .c Israel Ring``).

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
    r"|^\s*\d+(?:/\d+)?\.p(?=\d)"
    r"|\b(?:prize|honou?rable mention|commendation|comm\.)",
    re.IGNORECASE,
)


FLAG = re.compile(r"(?:^|\s)[({]\s*[cmvs]\s*(?:[)}]|(?=\s|$))(?!\s*:)", re.IGNORECASE)
NOTE_INSIDE = re.compile(r"\([a-z]\)\s*:", re.IGNORECASE)
NUMBER = re.compile(r"(?<!EG)#\s*\d", re.IGNORECASE)
ALSO = re.compile(r"^\s*also\b", re.IGNORECASE)
SHORT_C = re.compile(r"(?:^|\s)\.c\b")


def load(path: str | None) -> ModuleType:
    if path is None:
        return headers
    spec = importlib.util.spec_from_file_location("old_headers", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_headers"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


LABELS = (
    "source is an EG reference",
    "source is a version/correction/after note",
    "source with an award glued on",
    "source keeps a version flag ({v}, (c), {m)",
    "source swallows a note ((c): ...)",
    "source keeps a number (#434)",
    "source is a reprint (also ...)",
    "note lost after an EG reference",
    "award lost after an EG reference (.c)",
)


def measure(module: ModuleType, headers: dict[str, str]) -> dict[str, bool]:
    """Which of :data:`LABELS` hold for one game's headers under ``module``'s rules."""
    info = module.read_info(headers)
    source = info.source or ""
    raw = headers.get("Source", "")
    values = (
        bool(EG.search(source)),
        bool(NOTE.match(source)),
        bool(AWARD.search(source)),
        bool(FLAG.search(source)),
        bool(NOTE_INSIDE.search(source)),
        bool(NUMBER.search(source)),
        bool(ALSO.match(source)),
        bool(EG.search(raw) and NOTE_INSIDE.search(raw) and not info.note),
        bool(EG.search(raw) and SHORT_C.search(raw) and not info.award),
    )
    return dict(zip(LABELS, values, strict=True))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[str(STUDIES)])
    parser.add_argument("--headers", help="a copy of studydb/headers.py to measure instead")
    options = parser.parse_args()
    module = load(options.headers)
    counts = dict.fromkeys(LABELS, 0)
    total = 0
    for path in find_pgn_files(options.paths):
        with open_pgn(path) as stream:
            for game in read_games(stream, name=str(path)):
                total += 1
                for label, found in measure(module, game.headers).items():
                    counts[label] += found
    if not total:
        sys.exit("no games found")
    for label, k in counts.items():
        print(f"{label:52} {k:5} of {total}  {100 * k / total:5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
