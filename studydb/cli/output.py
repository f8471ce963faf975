"""The one writer of the commands' results: text, JSON (one document) or JSONL (one object a line).

Every command writes its results through this module: :func:`write_json`
for one document (a summary, a study), :func:`write_records` for results
collected first, and :class:`RecordWriter` for results written as they come
(``check``, the ``gbr`` commands).  Text goes through ``visible`` (control
characters shown as escapes); JSON keeps non-ASCII characters as they are.

>>> json_text({"name": "Réti", "men": 4})
'{"name": "Réti", "men": 4}\\n'
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import Any, Generic, Literal, TypeVar

from studydb.terminal import visible

__all__ = [
    "LAYOUTS",
    "RecordWriter",
    "counted",
    "json_text",
    "write_json",
    "write_parts",
    "write_records",
]

T = TypeVar("T")

#: How ``--format json`` lays out an array of records:
#: ``document`` is one ``json.dumps`` of the whole list, written at the end;
#: ``lines`` streams ``[`` or ``,`` before each record, one a line, then ``]``;
#: ``indented`` streams ``[``, each record on its own line indented by two, then ``]``.
Layout = Literal["document", "lines", "indented"]
LAYOUTS: tuple[Layout, ...] = ("document", "lines", "indented")
#: Parts written to stdout per write call when streaming many lines.
CHUNK = 4096


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and its noun, singular or plural (an ``s`` added unless ``plural`` says).

    >>> counted(1, "game"), counted(1_200, "game"), counted(0, "study", "studies")
    ('1 game', '1,200 games', '0 studies')
    """
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def json_text(
    data: Any, *, indent: int | None = None, ascii: bool = False, default: Any = None
) -> str:
    """One JSON document, ended by a newline.

    >>> json_text([1, 2], indent=2)
    '[\\n  1,\\n  2\\n]\\n'
    """
    return json.dumps(data, ensure_ascii=ascii, indent=indent, default=default) + "\n"


def write_json(
    data: Any, *, indent: int | None = None, ascii: bool = False, default: Any = None
) -> None:
    """Write one JSON document (see :func:`json_text`) on stdout."""
    sys.stdout.write(json_text(data, indent=indent, ascii=ascii, default=default))


def write_parts(parts: Iterable[str], *, chunk: int = CHUNK) -> None:
    """Write text parts on stdout as they are, ``chunk`` parts a write (fast for millions of lines).

    Data formats (PGN, CSV, JSON) escape by their own rules, and ``click.echo``
    would strip what looks like a terminal escape from a PGN game when stdout
    is not a terminal: nothing is changed here.
    """
    buffer: list[str] = []
    for part in parts:
        buffer.append(part)
        if len(buffer) >= chunk:
            sys.stdout.write("".join(buffer))
            buffer.clear()
    if buffer:
        sys.stdout.write("".join(buffer))


def _same(item: Any) -> Any:
    return item


class RecordWriter(Generic[T]):
    """Write results in the chosen format as they come.

    ``output`` is ``text``, ``json`` or ``jsonl`` (any other name is text: a
    command's ``table``).  Each :meth:`write` gives ``to_dict(item)`` as JSON,
    or the lines of text that ``text`` makes of it (a printer that writes
    itself returns None).  Output is written every ``chunk`` parts, and flushed: with the
    default 1, a reader sees each result when it is ready.  :meth:`close`
    ends the array and writes what is left.

    >>> import io, contextlib
    >>> with contextlib.redirect_stdout(io.StringIO()) as out:
    ...     writer = RecordWriter("json", layout="lines")
    ...     writer.write({"id": 1})
    ...     writer.write({"id": 2})
    ...     writer.close()
    >>> out.getvalue()
    '[{"id": 1}\\n,{"id": 2}\\n]\\n'
    """

    def __init__(
        self,
        output: str,
        *,
        to_dict: Callable[[T], Any] = _same,
        text: Callable[[T], str | None] | None = None,
        layout: Layout = "document",
        indent: int | None = None,
        chunk: int = 1,
    ) -> None:
        if layout not in LAYOUTS:
            raise ValueError(f"unknown layout {layout!r}; known: {', '.join(LAYOUTS)}")
        self.output = output
        self.count = 0
        self._to_dict = to_dict
        self._text = text
        self._layout = layout
        self._indent = indent
        self._chunk = chunk
        self._out: list[str] = []
        self._records: list[Any] = []

    def write(self, item: T) -> None:
        """Write one result."""
        if self.output == "jsonl":
            self._put(json_text(self._to_dict(item)))
        elif self.output == "json":
            self._write_item(self._to_dict(item))
        elif self._text is not None:
            lines = self._text(item)
            if lines is not None:
                self.line(lines)
        self.count += 1

    def line(self, text: str) -> None:
        """Write a line of text for people, its control characters shown as escapes."""
        self._put(visible(text) + "\n")

    def _write_item(self, data: Any) -> None:
        if self._layout == "document":
            self._records.append(data)
            return
        item = json.dumps(data, ensure_ascii=False, indent=self._indent)
        if self._layout == "lines":
            self._put(("," if self.count else "[") + item + "\n")
        else:
            self._put((",\n  " if self.count else "[\n  ") + item)

    def _put(self, part: str) -> None:
        self._out.append(part)
        if len(self._out) >= self._chunk:
            self.flush()

    def flush(self) -> None:
        """Write what is buffered, and flush stdout."""
        if self._out:
            sys.stdout.write("".join(self._out))
            self._out.clear()
        sys.stdout.flush()

    def close(self) -> None:
        """End the JSON array (``[]`` when empty) and write everything left."""
        if self.output == "json":
            if self._layout == "document":
                self._out.append(json_text(self._records, indent=self._indent))
            elif self._layout == "lines":
                self._out.append("]\n" if self.count else "[]\n")
            else:
                self._out.append("\n]\n" if self.count else "[]\n")
        self.flush()


def write_records(
    output: str,
    records: Iterable[T],
    *,
    to_dict: Callable[[T], Any] = _same,
    text: Callable[[T], str | None] | None = None,
    print_text: Callable[[list[T]], None] | None = None,
    indent: int | None = None,
) -> None:
    """Write results in the chosen format: one JSON array, one JSON line each, or text.

    Text is the lines ``text`` makes of each record, or ``print_text(records)`` for a
    printer of the whole list (a table).

    >>> write_records("jsonl", [{"id": 1}, {"id": 2}])
    {"id": 1}
    {"id": 2}
    """
    if output not in ("json", "jsonl") and print_text is not None:
        print_text(list(records))
        return
    writer = RecordWriter(output, to_dict=to_dict, text=text, indent=indent, chunk=CHUNK)
    for record in records:
        writer.write(record)
    writer.close()
