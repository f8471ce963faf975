"""Text from the data, made safe for a terminal: control characters become visible escapes.

A PGN file can hold any bytes: an ``Event`` tag with ``ESC ] 0 ;`` retitles
the window, ``ESC [ 2 J`` clears the screen, ``ESC ] 8 ;`` makes a hyperlink.
Everything the CLI writes for people (text, tables, ``show``, error messages
quoting the input) goes through :func:`visible`; JSON, CSV and PGN are data,
and escape by their own rules.  Pure and light: the ``gbr`` commands use it too.
"""

from __future__ import annotations

import re

__all__ = ["has_control", "visible"]

#: C0 controls but tab and newline, DEL, the C1 controls (U+0080-U+009F), and Unicode's
#: bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), with
#: which a tag reorders the rest of the line on the screen.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str) -> str:
    r"""``text`` with every control character but tab and newline written as ``\xNN`` (a
    bidirectional control as ``\uNNNN``).

    >>> visible("Troitzky\x1b]0;owned\x07 1910")
    'Troitzky\\x1b]0;owned\\x07 1910'
    >>> visible("two\tcolumns\nand lines") == "two\tcolumns\nand lines"
    True
    >>> visible("Source \u202eevil")
    'Source \\u202eevil'
    """
    return CONTROL.sub(_escape, text)


def has_control(text: str) -> bool:
    """Whether :func:`visible` would change ``text``.

    >>> has_control("plain"), has_control("\x9b2J")
    (False, True)
    """
    return CONTROL.search(text) is not None
