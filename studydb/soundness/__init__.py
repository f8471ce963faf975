"""Is a study sound?  Tablebase and engine checks of a study's claim and solution.

Database-free: python-chess only (``chess.syzygy`` probes the tables,
``chess.engine`` talks to a UCI engine).  Four modules, one job each:

- :mod:`~studydb.soundness.verdict`: the report model (verdicts, flags, plies);
- :mod:`~studydb.soundness.checker`: the :class:`Checker`, a context manager
  over the tables (:mod:`~studydb.soundness.tables`) and an optional engine
  (:mod:`~studydb.soundness.uci`);
- :mod:`~studydb.soundness.annotate`: the text that ``check``, ``show`` and
  the study page print.

Given the start position, the main line (and, if asked, the variations) and
the stipulation, :meth:`Checker.check` returns a :class:`Report` with a
verdict and what was found at every ply.

**Sides.**  The *solver* is the side to move in the start position (the
stipulation is its task: win, or draw); the other side *defends*.

**Values.**  A value is a WDL from the point of view of the side it belongs
to: 2 win, 1 cursed win, 0 draw, -1 blessed loss, -2 loss.  The values come
from the tables for a fresh 50-move counter (the halfmove clock of the
replayed positions is not used).  Values are compared by their *result*, the
sign: a cursed win counts as a win and a blessed loss as a loss, since
composition ignores the 50-move rule; findings say ``cursed`` where it
matters.  The value of a position with moves is the best value of its moves;
a mate is -2, a stalemate 0.

**A move's DTZ**, for a winning move, is 1 when the move zeroes the 50-move
counter (a capture or a pawn move), otherwise 1 + |DTZ| of the position
after it (python-chess's ``probe_dtz``, whose values may be one too high
where the tables round); for a losing move it is always 1 + |DTZ| after it
(the loser's capture does not bring the winner's goal nearer); for a drawing
move 0.  Only the moves with the position's best result, the drawing moves
and the move played get a DTZ (the others keep ``None``).  Smaller is
faster.  For the winning side an alternative is *at least as fast* when its
DTZ is not larger than the solution move's.  A losing defence is weak when
another losing move has a larger DTZ (the winner needs longer to zero); a
defence that turns a draw (or better) into a loss is weak too.

**Findings** (``Ply.flags``):

- ``claim``: the first position of the main line within the tables has a
  result other than the stipulation's (the study is unsound); ``Report.claim_ply``
  is its ply (0 = the start position).
- ``error``: a solver's move in the main line whose result is worse than the
  position's (it throws the result away).
- ``dual``: a solver's move for which other moves keep the same result; the
  alternatives are listed with WDL and DTZ, ``as_fast`` marked.
- ``weak``: a defending move as described above.
- ``missing``: a position the tables should cover but a table is absent.
- ``try``: in a variation, a solver's move that throws the result away (the
  annotator's tries); it does not make the study unsound.
- ``doubt`` / ``cook``: engine doubts beyond the tables: the evaluation (of a
  solver's position, or of the position after the main line's last move)
  contradicts the claim by more than the margins of
  :mod:`~studydb.soundness.checker`, or a second first move scores as well as
  the solution's (a possible cook).

**Verdict** (the names in :mod:`studydb.vocabulary`): ``unsound`` (a
``claim`` or an ``error``), else ``duals`` (a ``dual`` at the first move of
the main line), else ``doubts`` (an engine doubt or cook), else ``sound``
when every main-line position was checked from the start on (the claim
verified there by the tables or the engine; with an engine, the defender's
positions between two scored solver's positions count as checked), else
``no-errors`` when every position from a later one on was checked
(``Report.checked_from``; "no errors found from move N"), else
``unchecked``.  Whatever is not ``sound`` says in ``Report.reason`` why the
start was not judged: men beyond the tables and no engine, castling rights,
no stipulation, a start position already over or illegal (those are never
judged at all).  A ``mate`` stipulation is checked as a win; with an engine
and a mate in N, the engine's mate score at the start must be a mate in N.

>>> report = Report("win", verdict="sound", plies=[Ply(1, "c7", True, source="tables",
...     wdl=2, move_wdl=2, dtz=1)])
>>> annotated_lines(report, white_first=True)
['  1. c7 (win, DTZ 1)']

The checker's names (``Checker``, ``open_checker``, ``open_tables``, …) load
on first use, so that ``show`` and the web, which only annotate, do not
import ``chess.engine``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from studydb.soundness.annotate import (
    Annotation,
    annotate_main_line,
    annotated_lines,
    describe_ply,
    format_cp,
)
from studydb.soundness.verdict import (
    FLAGS,
    STIPULATIONS,
    VERDICTS,
    Alternative,
    Flag,
    Ply,
    Report,
    Source,
    StoredCheck,
    Verdict,
    join_notes,
    move_number,
    result_name,
)

if TYPE_CHECKING:
    from studydb.soundness.checker import Checker, open_checker
    from studydb.soundness.tables import (
        SYZYGY_ENV,
        SYZYGY_HINT,
        Tables,
        open_tables,
        syzygy_dirs,
        table_men,
    )
    from studydb.soundness.uci import ENGINE_ENV, Engine, open_engine

__all__ = [
    "ENGINE_ENV",
    "FLAGS",
    "STIPULATIONS",
    "SYZYGY_ENV",
    "SYZYGY_HINT",
    "VERDICTS",
    "Alternative",
    "Annotation",
    "Checker",
    "Engine",
    "Flag",
    "Ply",
    "Report",
    "Source",
    "StoredCheck",
    "Tables",
    "Verdict",
    "annotate_main_line",
    "annotated_lines",
    "describe_ply",
    "format_cp",
    "join_notes",
    "move_number",
    "open_checker",
    "open_engine",
    "open_tables",
    "result_name",
    "syzygy_dirs",
    "table_men",
]

#: Names loaded on first use, and their module.
_LAZY = {
    "Checker": "checker",
    "open_checker": "checker",
    "ENGINE_ENV": "uci",
    "Engine": "uci",
    "open_engine": "uci",
    "SYZYGY_ENV": "tables",
    "SYZYGY_HINT": "tables",
    "Tables": "tables",
    "open_tables": "tables",
    "syzygy_dirs": "tables",
    "table_men": "tables",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
