"""The annotation text of a soundness report: what ``check``, ``show`` and the study page say.

>>> from studydb.soundness.verdict import Ply, Report
>>> report = Report("win", plies=[Ply(1, "c7", True, source="tables", move_wdl=2, dtz=1)])
>>> annotated_lines(report, white_first=True)
['  1. c7 (win, DTZ 1)']
"""

from __future__ import annotations

from dataclasses import dataclass

from studydb.soundness.verdict import Flag, Ply, Report, move_number, result_name

__all__ = [
    "MATE_CP",
    "MAX_SHOWN",
    "Annotation",
    "annotate_main_line",
    "annotated_lines",
    "describe_ply",
    "format_cp",
]

#: Mates are scored as this many centipawns (minus the distance).
MATE_CP = 100_000
#: Alternatives named in a move's annotation.
MAX_SHOWN = 4
#: How an annotation names a finding (the others are upper-cased).
_FLAG_NAMES = {"cook": "POSSIBLE COOK", "doubt": "ENGINE DOUBT", "weak": "WEAK DEFENCE"}
#: The findings whose note an annotation quotes, the first present only.
_NOTED: tuple[Flag, ...] = ("claim", "error", "try", "weak", "doubt", "cook")


def describe_ply(ply: Ply) -> str:
    """What was found at a ply, for its move's annotation.

    >>> from studydb.soundness.verdict import Alternative
    >>> describe_ply(Ply(5, "Kb4", True, source="tables", wdl=2, move_wdl=2, dtz=9,
    ...     alternatives=[Alternative("Kb5", 2, 9, as_fast=True)], flags=["dual"]))
    'win, DTZ 9; also Kb5 DTZ 9 (as fast)'
    """
    parts: list[str] = []
    if ply.source == "tables":
        dtz = f", DTZ {ply.dtz}" if ply.move_wdl else ""
        parts.append(f"{result_name(ply.move_wdl)}{dtz}")
    elif ply.source == "engine" and ply.score is not None:
        parts.append(f"engine {format_cp(ply.score)}, depth {ply.depth}")
    elif ply.source in ("missing", "beyond"):
        parts.append(ply.note or ("no table" if ply.source == "missing" else "not checked"))
    if "dual" in ply.flags and ply.alternatives:
        shown = [
            a.san + (f" DTZ {a.dtz}" if a.wdl else "") + (" (as fast)" if a.as_fast else "")
            for a in ply.alternatives[:MAX_SHOWN]
        ]
        more = len(ply.alternatives) - MAX_SHOWN
        parts.append("also " + ", ".join(shown) + (f" and {more} more" if more > 0 else ""))
    flag = next((f for f in _NOTED if f in ply.flags), None)
    if flag is not None and ply.note:
        parts.append(f"{_FLAG_NAMES.get(flag, flag.upper())}: {ply.note}")
    return "; ".join(parts)


@dataclass(frozen=True)
class Annotation:
    """A main-line move as ``show`` and the study page annotate it.

    ``number`` is ``3.`` or ``3...``; ``text`` is :func:`describe_ply`'s;
    ``first_error`` marks the first solution error of the line.
    """

    ply: int
    number: str
    san: str
    text: str
    flags: tuple[Flag, ...] = ()
    first_error: bool = False


def annotate_main_line(report: Report, *, white_first: bool) -> list[Annotation]:
    """The plies of the main line as annotations, the report's first error marked.

    >>> report = Report("win", plies=[Ply(1, "Rh3+", False, source="tables", move_wdl=2, dtz=5),
    ...                               Ply(2, "Kd4", True, source="tables", move_wdl=-2, dtz=6)])
    >>> [(a.number, a.san, a.text) for a in annotate_main_line(report, white_first=False)]
    [('1...', 'Rh3+', 'win, DTZ 5'), ('2.', 'Kd4', 'loss, DTZ 6')]
    """
    first_error = report.first_error
    return [
        Annotation(
            ply=ply.ply,
            number=move_number(ply.ply, white_first),
            san=ply.san,
            text=describe_ply(ply),
            flags=tuple(ply.flags),
            first_error=ply is first_error,
        )
        for ply in report.main_line()
    ]


def annotated_lines(report: Report, *, white_first: bool) -> list[str]:
    """``3. Kb4 (win, DTZ 9; also Kb5 DTZ 9)`` per main-line ply; the first error marked."""
    lines = []
    for note in annotate_main_line(report, white_first=white_first):
        text = f"  {note.number} {note.san}" + (f" ({note.text})" if note.text else "")
        lines.append(text + ("  <-- first solution error" if note.first_error else ""))
    return lines


def format_cp(score: int) -> str:
    """An engine score for the solver: pawns with a sign, or a mate distance.

    >>> format_cp(135), format_cp(-20), format_cp(MATE_CP - 3)
    ('+1.35', '-0.20', 'mate in 2')
    """
    if abs(score) > MATE_CP // 2:
        plies = MATE_CP - abs(score)
        return f"{'' if score > 0 else '-'}mate in {(plies + 1) // 2}"
    return f"{score / 100:+.2f}"
