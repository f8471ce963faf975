"""The verdicts of ``studydb check``, named once: what each means and how a badge shows it.

Database-free and free of python-chess, so that the filters, the judge's
report, the web's styles and the help text all read the names from here.

>>> VERDICTS
('sound', 'no-errors', 'unsound', 'duals', 'doubts', 'unchecked')
>>> MEANINGS["no-errors"]
'no error found, but the start position was beyond reach: checked from a later move only'
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["BADGE_COLOURS", "MEANINGS", "VERDICTS", "Verdict", "badge_css", "help_text"]

#: What a check concludes about a study, from best to worst news, then "not checked".
Verdict = Literal["sound", "no-errors", "unsound", "duals", "doubts", "unchecked"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)

#: One line per verdict, for help texts and the README's table.
MEANINGS: dict[Verdict, str] = {
    "sound": "the claim was verified at the start position (by the tables or the engine) and "
    "every main-line position was checked; no error, one first move only",
    "no-errors": "no error found, but the start position was beyond reach: "
    "checked from a later move only",
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
