"""Result sets as text: the JSON, JSON Lines, CSV, PGN and FEN exports.

One home for what ``studydb search --format`` writes and what the web pages
offer as downloads.  No database here: each serializer takes an iterable of
rows (anything with the fields of :class:`studydb.db.search.StudyRow`) and
yields text parts, so that millions of rows stream in constant memory.

>>> from types import SimpleNamespace as Row
>>> row = Row(id=1, gbr="0300.10", fen="8/8/8/8/8/8/8/K6k w - - 0 1", pgn="*")
>>> "".join(fen_lines([row]))
'8/8/8/8/8/8/8/K6k w - - 0 1\\n'
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from studydb.vocabulary import EXPORT_FORMATS

if TYPE_CHECKING:
    from studydb.soundness.verdict import StoredCheck

__all__ = [
    "CSV_COLUMNS",
    "FORMATS",
    "MEDIA_TYPES",
    "csv_lines",
    "fen_lines",
    "json_array",
    "json_lines",
    "pgn_games",
    "pgn_text",
    "study_record",
]

#: Columns of the CSV export, in order.
CSV_COLUMNS = (
    "id",
    "gbr",
    "signature",
    "stipulation",
    "composers",
    "year",
    "source",
    "award",
    "fen",
)
#: Fields of a stored study left out of its JSON record.
_PRIVATE_FIELDS = frozenset({"content_hash"})


def json_array(rows: Iterable[Any]) -> Iterator[str]:
    """One JSON array of the rows' dicts, one row per line.

    >>> from types import SimpleNamespace as Row
    >>> "".join(json_array([]))
    '[]\\n'
    """
    yield "["
    first = True
    for row in rows:
        yield ("\n" if first else ",\n") + json.dumps(row.as_dict(), ensure_ascii=False)
        first = False
    yield "]\n" if first else "\n]\n"


def json_lines(rows: Iterable[Any]) -> Iterator[str]:
    """One JSON object per line (JSON Lines)."""
    for row in rows:
        yield json.dumps(row.as_dict(), ensure_ascii=False) + "\n"


#: First characters that make a spreadsheet read a cell as a formula (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: Any) -> Any:
    """A CSV cell that no spreadsheet runs as a formula: text starting ``=+-@`` gets a ``'``.

    Numbers are left as they are; only text is prefixed, as OWASP recommends
    against CSV injection.

    >>> spreadsheet_safe("=cmd|'/C calc'!A0")
    "'=cmd|'/C calc'!A0"
    >>> spreadsheet_safe("@SUM(A1)"), spreadsheet_safe("Lenin MT"), spreadsheet_safe(-3)
    ("'@SUM(A1)", 'Lenin MT', -3)
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_lines(rows: Iterable[Any]) -> Iterator[str]:
    """CSV with a header row; composers '; '-joined, missing values empty, no live formulas.

    A text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
    return is prefixed with ``'`` (:func:`spreadsheet_safe`).

    >>> "".join(csv_lines([])).strip() == ",".join(CSV_COLUMNS)
    True
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        data = row.as_dict()
        data["composers"] = "; ".join(row.composers)
        writer.writerow(["" if data[c] is None else spreadsheet_safe(data[c]) for c in CSV_COLUMNS])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    yield buffer.getvalue()


def pgn_text(pgn: str) -> str:
    """A stored game's text as exported: as imported, its last line ended as its first is.

    >>> pgn_text('[Event "a"]\\r\\n\\r\\n*\\r\\n'), pgn_text('[Event "a"]\\n\\n*')
    ('[Event "a"]\\r\\n\\r\\n*\\r\\n', '[Event "a"]\\n\\n*\\n')
    """
    return pgn if pgn.endswith(("\n", "\r")) else pgn + _line_end(pgn)


def _line_end(text: str) -> str:
    r"""The line end ``text`` uses (that of its first line): ``\r\n``, ``\r`` or ``\n``."""
    found = _LINE_END.search(text)
    return found.group() if found else "\n"


_LINE_END = re.compile(r"\r\n|\r|\n")


def pgn_games(rows: Iterable[Any]) -> Iterator[str]:
    """Each study's PGN as imported (:func:`pgn_text`), a blank line between games.

    >>> from types import SimpleNamespace as Row
    >>> "".join(pgn_games([Row(pgn="[Event \\"a\\"]\\n\\n*\\n"), Row(pgn="*")]))
    '[Event "a"]\\n\\n*\\n\\n*\\n'
    """
    blank = ""
    for row in rows:
        text = pgn_text(row.pgn or "")
        yield blank + text
        blank = _line_end(text)


def fen_lines(rows: Iterable[Any]) -> Iterator[str]:
    """The start position of each study, one FEN per line."""
    for row in rows:
        yield row.fen + "\n"


#: The serializers by format name (``search --format``), and what each needs.
_WRITERS: dict[str, Callable[[Iterable[Any]], Iterator[str]]] = {
    "json": json_array,
    "jsonl": json_lines,
    "csv": csv_lines,
    "pgn": pgn_games,
    "fen": fen_lines,
}
FORMATS = {name: _WRITERS[name] for name in EXPORT_FORMATS}
#: The media type of each format, for downloads.
MEDIA_TYPES = {
    "json": "application/json",
    "jsonl": "application/x-ndjson",
    "csv": "text/csv",
    "pgn": "application/x-chess-pgn",
    "fen": "text/plain",
}


def study_record(
    study: dict[str, Any],
    *,
    extended: str,
    form: str | None,
    check: StoredCheck | None = None,
) -> dict[str, Any]:
    """The JSON record of one stored study (``show --format json``): every stored field
    but its hash, with the extended GBR code, the stipulation form and the stored
    soundness check (``studydb check``; None when it was never checked) added.

    >>> study_record({"id": 1, "content_hash": "ab"}, extended="0300.10", form=None)
    {'id': 1, 'gbr_extended': '0300.10', 'stipulation_form': None, 'check': None}
    """
    data = {k: v for k, v in study.items() if k not in _PRIVATE_FIELDS}
    data["gbr_extended"] = extended
    data["stipulation_form"] = form
    data["check"] = None if check is None else check.as_dict()
    return data
