"""The names studydb uses, each list defined once: verdicts, themes, stipulations,
entry kinds and output formats.

Database-free and free of python-chess, so that the filters, the checker, the
judge's report, the web's styles and the help texts all read the names from here.

>>> VERDICTS
('sound', 'no-errors', 'unsound', 'duals', 'doubts', 'unchecked')
>>> MEANINGS["no-errors"][:60]
'no error found, but not every position was checked: the star'
>>> THEMES[:3], STIPULATIONS, ENTRY_KINDS
(('mate', 'stalemate', 'stalemate-line'), ('win', 'draw', 'mate'), ('study', 'reject', 'text'))
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = [
    "BADGE_COLOURS",
    "ENTRY_KINDS",
    "EXPORT_FORMATS",
    "MEANINGS",
    "NON_STUDY_KINDS",
    "OUTPUT_FORMATS",
    "REJECT",
    "REPORT_FORMATS",
    "STIPULATIONS",
    "STUDY",
    "TABLE_THEMES",
    "TEXT",
    "THEMES",
    "VERDICTS",
    "WEB_EXPORT_FORMATS",
    "EntryKind",
    "Stipulation",
    "Verdict",
    "badge_css",
    "help_text",
]

#: What a check concludes about a study, from best to worst news, then "not checked".
Verdict = Literal["sound", "no-errors", "unsound", "duals", "doubts", "unchecked"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)

#: One line per verdict, for the help texts (the README's table says more, of the same verdicts).
MEANINGS: dict[Verdict, str] = {
    "sound": "the claim was verified at the start position (by the tables or the engine) and "
    "every main-line position was checked; no error, one first move only",
    "no-errors": "no error found, but not every position was checked: the start position "
    "was beyond reach (checked from a later move only), or a position of the main line was "
    "not (the main line stops at an illegal move)",
    "unsound": "the tables contradict the claim, or a solving move throws the result away",
    "duals": "another first move keeps the result, by the tables",
    "doubts": "the engine disagrees with the claim, or finds a second first move as good",
    "unchecked": "nothing within reach, and the check says why: men beyond the tables and no "
    "engine, no stipulation, castling rights, a start already over or illegal",
}

#: A verdict badge's (background, text) colours, on the web and in the judge's report.
BADGE_COLOURS: dict[Verdict, tuple[str, str]] = {
    "sound": ("#d6ecd2", "#1f5a1a"),
    "no-errors": ("#dfe9f3", "#1d4468"),
    "unsound": ("#f6d0cc", "#8a1c10"),
    "duals": ("#fbe6bf", "#6d4a00"),
    "doubts": ("#e6dcf3", "#4b2d7a"),
    "unchecked": ("#e4e4e4", "#1a1a1a"),
}

#: The themes found by the machine, in the order they are listed.
THEMES = (
    "mate",
    "stalemate",
    "stalemate-line",
    "underpromotion",
    "excelsior",
    "positional-draw",
    "perpetual-check",
    "switchback",
    "domination",
    "mutual-zugzwang",
)
#: The themes the Syzygy tables find (``studydb check``), not the replay.
TABLE_THEMES = ("mutual-zugzwang",)

#: The claims a check can judge (a mate is judged as a win, its length by an engine).
Stipulation = Literal["win", "draw", "mate"]
STIPULATIONS: tuple[Stipulation, ...] = get_args(Stipulation)

#: ``studies.kind``: a study (or game), a reject (kept with its reason), or a text entry
#: (no set-up position and no moves: a heading, an introduction), left out of searches.
EntryKind = Literal["study", "reject", "text"]
ENTRY_KINDS: tuple[EntryKind, ...] = get_args(EntryKind)
STUDY, REJECT, TEXT = ENTRY_KINDS
#: The stored entries that are not studies.
NON_STUDY_KINDS: tuple[EntryKind, ...] = (TEXT,)

#: Every output format a command may write, with what it is (``--format``).
OUTPUT_FORMATS: dict[str, str] = {
    "table": "a table",
    "text": "text",
    "json": "JSON (one array, or one object)",
    "jsonl": "JSON lines (one object a line)",
    "csv": "CSV with a header",
    "pgn": "PGN as imported",
    "md": "Markdown",
    "fen": "one FEN a line",
}
#: The formats a search exports its studies in (``search --format``, besides its table).
EXPORT_FORMATS = ("json", "jsonl", "csv", "pgn", "fen")
#: The exports the web offers for download.
WEB_EXPORT_FORMATS = ("pgn", "json", "csv")
#: The judge's report's formats on standard output (HTML goes to a file).
REPORT_FORMATS = ("md", "json")


def help_text() -> str:
    """The verdicts and their meanings in one paragraph, for ``studydb check --help``.

    >>> help_text().split(". ")[2]
    'unsound: the tables contradict the claim, or a solving move throws the result away'
    """
    return " ".join(f"{verdict}: {MEANINGS[verdict]}." for verdict in VERDICTS)


def badge_css() -> str:
    """The verdict badges' colours as CSS rules (``.verdict-sound { … }``), one a line.

    >>> badge_css().splitlines()[0]
    '.verdict-sound { background: #d6ecd2; color: #1f5a1a; }'
    """
    return "".join(
        f".verdict-{verdict} {{ background: {back}; color: {text}; }}\n"
        for verdict, (back, text) in BADGE_COLOURS.items()
    )
