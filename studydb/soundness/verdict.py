"""The report model of a soundness check: verdicts, flags, plies and reports as dataclasses.

A :class:`Report` is what :class:`studydb.soundness.checker.Checker` returns
for one study; a :class:`StoredCheck` is a report read back from the
database (``studydb check`` stores them), with when and how it was made.
Both turn into plain dicts for JSON (:meth:`Report.as_dict`) and back
(:meth:`Report.from_dict`); the names of verdicts, flags and sources are
``Literal`` types, so a type checker catches a misspelt one.

>>> report = Report("win", verdict="unsound", plies=[
...     Ply(1, "Rh3+", True, source="tables", wdl=2, move_wdl=2, dtz=5),
...     Ply(2, "Kd4", False, source="tables", wdl=-2, move_wdl=-2, dtz=6),
...     Ply(3, "Rd3+", True, source="tables", wdl=2, move_wdl=0, dtz=0, flags=["error"])])
>>> report.first_error.san
'Rd3+'
>>> Report.from_dict(report.as_dict()) == report
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from typing import Any, Literal, get_args

from studydb.vocabulary import STIPULATIONS, VERDICTS, Stipulation, Verdict

__all__ = [
    "FLAGS",
    "SOURCES",
    "STIPULATIONS",
    "VERDICTS",
    "Alternative",
    "Flag",
    "Ply",
    "Report",
    "Source",
    "Stipulation",
    "StoredCheck",
    "Verdict",
    "join_notes",
    "move_number",
    "result_name",
]


#: A finding at one ply (see :mod:`studydb.soundness`).
Flag = Literal["claim", "error", "dual", "weak", "missing", "try", "doubt", "cook"]
FLAGS: tuple[Flag, ...] = get_args(Flag)

#: What judged a ply: the tables, the engine, neither because a table is
#: ``missing``, neither because the position is ``beyond`` them (too many men,
#: castling rights, no engine), or nothing to judge (``terminal``).
Source = Literal["tables", "engine", "missing", "beyond", "terminal"]
SOURCES: tuple[Source, ...] = get_args(Source)


_RESULT_NAMES = {2: "win", 1: "cursed win", 0: "draw", -1: "blessed loss", -2: "loss"}


@dataclass(frozen=True)
class Alternative:
    """Another move of the same position: WDL and DTZ (tables) or score (engine) for the mover."""

    san: str
    wdl: int | None = None
    dtz: int | None = None
    as_fast: bool = False
    score: int | None = None


@dataclass
class Ply:
    """What was found at one ply: the position before move ``ply`` and the move played."""

    ply: int
    san: str
    solver: bool
    line: str = "main"
    source: Source = "beyond"
    #: The position's value and the move's, for the mover; the move's DTZ.
    wdl: int | None = None
    move_wdl: int | None = None
    dtz: int | None = None
    alternatives: list[Alternative] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    note: str = ""
    #: Engine score for the solver (centipawns), and the depth reached.
    score: int | None = None
    depth: int | None = None
    #: For an error: the defender's best reply (SAN); ``alternatives`` keep the result.
    refutation: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The ply as plain data (JSON-ready)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ply:
        """A ply from :meth:`as_dict`'s data; keys it does not know are ignored.

        >>> Ply.from_dict({"ply": 1, "san": "c7", "solver": True, "later": 1}).san
        'c7'
        """
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["alternatives"] = [Alternative(**a) for a in data.get("alternatives", ())]
        values["flags"] = list(data.get("flags", ()))
        return cls(**values)


@dataclass
class Report:
    """The verdict on one study and the plies behind it."""

    stipulation: str
    verdict: Verdict = "unchecked"
    plies: list[Ply] = field(default_factory=list)
    #: Ply of the first position of the main line within the tables (0 = start), its value.
    claim_ply: int | None = None
    claim_wdl: int | None = None
    table_plies: int = 0
    engine_plies: int = 0
    tables_men: int | None = None
    engine: str | None = None
    note: str = ""
    #: Checked without a solution: the first moves keeping the stipulated result.
    solutions: list[Alternative] = field(default_factory=list)
    #: n of a mate-in-n stipulation; whether White moves first (for move numbers).
    mate_in: int | None = None
    white_first: bool = True
    #: The main-line position (0 = the start) from which every position was checked.
    checked_from: int | None = None
    #: Why the start was not judged: the reason of ``unchecked`` (and of ``no-errors``).
    reason: str = ""

    @property
    def first_error(self) -> Ply | None:
        """The first solution error of the main line, if any (variations hold tries)."""
        return next((p for p in self.plies if p.line == "main" and "error" in p.flags), None)

    @property
    def error_ply(self) -> int | None:
        """The ply of :attr:`first_error`, or None."""
        error = self.first_error
        return None if error is None else error.ply

    @property
    def summary(self) -> str:
        """The verdict as ``show``, the web and the report say it, with what it rests on.

        >>> Report("win", verdict="no-errors", checked_from=14, plies=[
        ...     Ply(n, "Kb1", n % 2 == 1) for n in range(1, 17)]).summary
        'no errors found from move 8'
        >>> Report("win", reason="7 men, beyond the 4-man tables, and no engine").summary
        'unchecked: 7 men, beyond the 4-man tables, and no engine'
        """
        if self.verdict == "no-errors" and self.checked_from is not None:
            plies = len(self.main_line())
            if plies and self.checked_from >= plies:
                number = move_number(plies, self.white_first)
                return f"no errors found in the final position only (after move {_bare(number)})"
            number = move_number(self.checked_from + 1, self.white_first)
            if self.reason.startswith("not every position was checked"):
                return f"no errors found in the positions checked from move {_bare(number)}"
            return f"no errors found from move {_bare(number)}"
        if self.verdict == "unchecked" and self.reason:
            return f"unchecked: {self.reason}"
        return self.verdict

    def main_line(self) -> list[Ply]:
        """The plies of the main line, in order."""
        return [p for p in self.plies if p.line == "main"]

    def flagged(self, flag: Flag) -> list[int]:
        """The plies carrying ``flag`` (main line and variations)."""
        return [p.ply for p in self.plies if flag in p.flags]

    def as_dict(self) -> dict[str, Any]:
        """The report as plain data (JSON-ready), with ``error_ply`` added."""
        data = asdict(self)
        data["error_ply"] = self.error_ply
        data["summary"] = self.summary
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        """A report from :meth:`as_dict`'s data; keys it does not know are ignored."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["plies"] = [Ply.from_dict(p) for p in data.get("plies", ())]
        values["solutions"] = [Alternative(**a) for a in data.get("solutions", ())]
        return cls(**values)


@dataclass
class StoredCheck(Report):
    """A report as ``studydb check`` stored it: for which study, with what, and when.

    ``settings`` names the tables, engine and options used (equal settings, same check).
    """

    study_id: int = 0
    settings: str = ""
    checked: datetime | None = None


def result_name(wdl: int | None) -> str:
    """``win``, ``draw`` or ``loss`` for a value (``cursed win`` and ``blessed loss`` kept).

    >>> result_name(2), result_name(1), result_name(0), result_name(-2)
    ('win', 'cursed win', 'draw', 'loss')
    """
    return _RESULT_NAMES.get(wdl if wdl is not None else 9, "?")


def join_notes(first: str, second: str) -> str:
    """Two notes as one, ``; ``-joined.

    >>> join_notes("", "b"), join_notes("a", "b")
    ('b', 'a; b')
    """
    return f"{first}; {second}" if first else second


def _bare(number: str) -> str:
    """``8`` for ``8.``, ``8...`` kept."""
    return number if number.endswith("...") else number.rstrip(".")


def move_number(ply: int, white_first: bool) -> str:
    """How a solution numbers ply ``ply`` (1 = the first move): ``3.`` or ``3...``.

    >>> move_number(1, True), move_number(2, True), move_number(1, False)
    ('1.', '1...', '1...')
    """
    index = ply - 1 + (0 if white_first else 1)
    return f"{index // 2 + 1}." if index % 2 == 0 else f"{index // 2 + 1}..."
