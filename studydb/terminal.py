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

#: C0 controls but tab and newline, DEL, and the C1 controls (U+0080-U+009F).
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _escape(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def visible(text: str) -> str:
    r"""``text`` with every control character but tab and newline written as ``\xNN``.

    >>> visible("Troitzky\x1b]0;owned\x07 1910")
    'Troitzky\\x1b]0;owned\\x07 1910'
    >>> visible("two\tcolumns\nand lines") == "two\tcolumns\nand lines"
    True
    """
    return CONTROL.sub(_escape, text)


def has_control(text: str) -> bool:
    """Whether :func:`visible` would change ``text``.

    >>> has_control("plain"), has_control("\x9b2J")
    (False, True)
    """
    return CONTROL.search(text) is not None
