"""The checker: tables and an optional engine judge a study's claim and solution, ply by ply.

:class:`Checker` is a context manager that closes its tables and engine;
:meth:`Checker.check` and :meth:`Checker.check_game` return a
:class:`~studydb.soundness.verdict.Report`.  The rules it applies are in the
package docstring (:mod:`studydb.soundness`).

>>> start_problem(chess.Board("8/8/8/8/8/8/8/Kk6 w - - 0 1"))
'illegal position: the kings are adjacent'
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType

import chess
import chess.syzygy

from studydb import movetext
from studydb.errors import SoundnessError
from studydb.soundness.annotate import MATE_CP, format_cp
from studydb.soundness.tables import Tables, open_tables
from studydb.soundness.uci import (
    Engine,
    EngineFailure,
    EngineTimeout,
    Line,
    open_engine,
    restart_engine,
)
from studydb.soundness.verdict import (
    STIPULATIONS,
    Alternative,
    Ply,
    Report,
    join_notes,
    move_number,
    result_name,
)

__all__ = [
    "COOK_MARGIN_CP",
    "DRAW_MARGIN_CP",
    "WIN_MARGIN_CP",
    "Checker",
    "open_checker",
]

log = logging.getLogger(__name__)

#: A claimed win is doubted when the engine gives the solver less than this (centipawns).
WIN_MARGIN_CP = 100
#: A claimed draw is doubted when the engine's score is further from 0 than this.
DRAW_MARGIN_CP = 300
#: A second first move within this of the solution's score is "as good" (a possible cook).
COOK_MARGIN_CP = 30
#: The reason of a check with positions left unchecked after the first checked one.
GAPS_REASON = "not every position was checked"
#: Studies in a row on which an engine gave no answer in time before it is given up for
#: the run (:meth:`Checker._count_hangs`).
HUNG_STUDIES = 3
#: A position the tables cannot judge for its castling rights.
CASTLING_NOTE = "not judged by the tables: castling rights"
#: What a report says of an engine without the MultiPV option.
NO_MULTIPV_NOTE = (
    "the engine has no MultiPV option: the first move's alternatives were scored "
    "in a search of their own"
)
#: A mate stipulation checked as a win, without an engine to count the moves.
MATE_NOTE = "win confirmed; the mate's length was not checked"
#: How :func:`describe_status` names each problem of an illegal position.
_STATUS_TEXTS = (
    (chess.STATUS_EMPTY, "the board is empty"),
    (chess.STATUS_NO_WHITE_KING, "White has no king"),
    (chess.STATUS_NO_BLACK_KING, "Black has no king"),
    (chess.STATUS_TOO_MANY_KINGS, "too many kings"),
    (chess.STATUS_TOO_MANY_WHITE_PAWNS, "White has more than 8 pawns"),
    (chess.STATUS_TOO_MANY_BLACK_PAWNS, "Black has more than 8 pawns"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "a pawn on the first or last rank"),
    (chess.STATUS_TOO_MANY_WHITE_PIECES, "White has more than 16 men"),
    (chess.STATUS_TOO_MANY_BLACK_PIECES, "Black has more than 16 men"),
    (chess.STATUS_BAD_CASTLING_RIGHTS, "castling rights without the king and rook at home"),
    (chess.STATUS_INVALID_EP_SQUARE, "an impossible en passant square"),
    (chess.STATUS_OPPOSITE_CHECK, "the side not to move is in check"),
    (chess.STATUS_TOO_MANY_CHECKERS, "in check by more than two men"),
    (chess.STATUS_IMPOSSIBLE_CHECK, "an impossible check"),
)


def open_checker(
    dirs: Sequence[str],
    *,
    engine: str | None = None,
    depth: int | None = None,
    movetime: int | None = None,
) -> Checker:
    """Open the tables in ``dirs`` and start ``engine`` if given; close the checker after use.

    :raises SoundnessError: (``NoTablesError`` for the tables) when either cannot be opened.
    """
    tables = open_tables(dirs)
    try:
        process = open_engine(engine, depth=depth, movetime=movetime) if engine else None
    except BaseException:
        tables.close()
        raise
    return Checker(tables, process)


@dataclass
class _Probe:
    """Every legal move of a position with its WDL and DTZ for the mover."""

    moves: list[tuple[chess.Move, int, int | None]]
    value: int


class Checker:
    """Checks studies against open tables and, optionally, an engine; closes both on exit."""

    def __init__(self, tables: Tables | chess.syzygy.Tablebase, engine: Engine | None = None):
        if isinstance(tables, chess.syzygy.Tablebase):
            tables = Tables(tables, 0, "")
        self.tables = tables
        self.engine = engine
        #: Why the engine was dropped for the study in hand ("" while it answers).
        self.engine_failure = ""
        #: Why the main line of the game being checked stops early (an illegal move), or "".
        self.broken = ""
        #: The engine that could not be started again: tried once more per study.
        self._lost: Engine | None = None
        #: Studies in a row on which the engine gave no answer in time, and whether the
        #: study in hand is one; why it was given up for the run ("" while it is not).
        self._hung = 0
        self._study_hung = False
        self.given_up = ""

    def __enter__(self) -> Checker:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop the engine and close the tables."""
        try:
            if self.engine is not None:
                self.engine.close()
        finally:
            self.tables.close()

    def check(
        self,
        board: chess.Board,
        moves: Sequence[chess.Move],
        stipulation: str,
        *,
        mate_in: int | None = None,
    ) -> Report:
        """Check a main line of ``moves`` from ``board`` against ``stipulation``.

        A start position that is illegal or already over is not judged: the
        report is ``unchecked`` and its ``reason`` says why.
        """
        report = self._new_report(stipulation, mate_in, board)
        if not report.reason:
            self._check_line(board, moves, report, line="main", start=0, main=True)
        return self._conclude(report, board)

    def check_game(
        self,
        board: chess.Board,
        text: str,
        stipulation: str,
        *,
        variations: bool,
        mate_in: int | None = None,
    ) -> Report:
        """Check a study's main line and, with ``variations``, every variation (as
        :func:`studydb.movetext.lines` gives them) of its movetext ``text``."""
        report = self._new_report(stipulation, mate_in, board)
        self.broken = ""
        if not report.reason:
            for line in movetext.lines(board, text, variations=variations):
                if line.main and line.error:  # the positions after it are not checked
                    self.broken = f"the main line stops at its first illegal move: {line.error}"
                self._check_line(
                    line.board, line.moves, report, line=line.label, start=line.start,
                    main=line.main,
                )  # fmt: skip
        return self._conclude(report, board)

    # -- per line -------------------------------------------------------------------

    def _new_report(self, stipulation: str, mate_in: int | None, board: chess.Board) -> Report:
        if stipulation not in STIPULATIONS:
            raise SoundnessError(
                f"unknown stipulation {stipulation!r}: expected 'win', 'draw' or 'mate'"
            )
        report = Report(
            stipulation,
            tables_men=self.tables.men or None,
            mate_in=mate_in if stipulation == "mate" else None,
            white_first=board.turn == chess.WHITE,
        )
        self.engine_failure = self.given_up
        self._study_hung = False
        if self.engine is None and self._lost is not None and not self.given_up:
            self._start_lost_engine()
        if self._lost is not None:
            report.engine = f"{self._lost.name} {self._lost.settings}"
        if self.engine is not None:
            report.engine = f"{self.engine.name} {self.engine.settings}"
            if not self.engine.multipv:
                report.note = NO_MULTIPV_NOTE
        report.reason = start_problem(board)
        return report

    def _check_line(
        self,
        board: chess.Board,
        moves: Sequence[chess.Move],
        report: Report,
        *,
        line: str,
        start: int,
        main: bool,
    ) -> None:
        board = board.copy(stack=False)
        solver = board.turn if start % 2 == 0 else not board.turn
        played = 0
        for index, move in enumerate(moves):
            if not board.is_legal(move):
                report.note = join_notes(
                    report.note,
                    f"{line} line: move {move.uci()} at ply {start + index + 1} is not legal; "
                    "the rest of that line is not checked",
                )
                if main:  # nor is the rest of the main line: never "sound"
                    self.broken = f"the main line stops at move {move.uci()}, not legal there"
                break
            ply = Ply(start + index + 1, board.san(move), board.turn == solver, line=line)
            self._check_ply(board, move, ply, report, first=main and index == 0)
            if main or ply.flags or ply.source in ("tables", "engine"):
                report.plies.append(ply)
            if main and report.claim_ply is None and ply.source == "tables":
                self._judge_claim(report, ply, ply.ply - 1, ply.wdl, solver=ply.solver)
            board.push(move)
            played += 1
        if main and played and report.plies[-1].source == "engine":
            self._judge_last_move(board, report.plies[-1], report)
        if main and not moves:
            self._first_moves(board, report)
        if main and report.claim_ply is None:
            self._claim_at_end(board, report, played, solver)
        if not main:
            for ply in report.plies:
                if ply.line == line and "error" in ply.flags:
                    ply.flags[ply.flags.index("error")] = "try"

    def _first_moves(self, board: chess.Board, report: Report) -> None:
        """Without a solution: the first moves that keep the stipulated result."""
        probe = self._probe(board, Ply(1, "", solver=True))
        if probe is None:
            return
        report.table_plies += 1
        wanted = _claim_sign(report.stipulation)
        good = sorted(
            ((m, w, d) for m, w, d in probe.moves if _sign(w) == wanted),
            key=lambda t: t[2] or 0,
        )
        fastest = good[0][2] if good else 0
        report.solutions = [
            Alternative(board.san(m), w, d, as_fast=wanted > 0 and d == fastest) for m, w, d in good
        ]

    def _claim_at_end(
        self, board: chess.Board, report: Report, ply: int, solver: chess.Color
    ) -> None:
        """The claim at the last position when no earlier one was within the tables."""
        if chess.popcount(board.occupied) > self.tables.men and self.tables.men:
            return
        try:
            wdl = self.tables.probe_wdl(board)
        except KeyError:
            return
        value = wdl if board.turn == solver else -wdl
        report.claim_ply, report.claim_wdl = ply, value
        if _sign(value) != _claim_sign(report.stipulation):
            report.note = (
                f"claimed {report.stipulation}, but the tables give the solver a "
                f"{result_name(value)} at ply {ply}"
            )

    def _judge_claim(
        self, report: Report, ply: Ply, position: int, wdl: int | None, *, solver: bool
    ) -> None:
        assert wdl is not None
        value = wdl if solver else -wdl
        report.claim_ply, report.claim_wdl = position, value
        if _sign(value) != _claim_sign(report.stipulation):
            ply.flags.insert(0, "claim")
            report.note = (
                f"claimed {report.stipulation}, but the tables give the solver a "
                f"{result_name(value)} at ply {position}"
            )

    # -- per ply --------------------------------------------------------------------

    def _check_ply(
        self, board: chess.Board, move: chess.Move, ply: Ply, report: Report, *, first: bool
    ) -> None:
        probe = self._probe(board, ply, move)
        if probe is not None:
            report.table_plies += 1
            self._judge_move(board, move, probe, ply)
        elif (
            ply.source in ("beyond", "missing")
            and self._engine_usable()
            and ply.solver
            and self._engine_ply(board, move, ply, report.stipulation, first=first)
        ):
            report.engine_plies += 1

    def _probe(
        self, board: chess.Board, ply: Ply, played: chess.Move | None = None
    ) -> _Probe | None:
        """Probe every legal move (WDL, then DTZ where it is used), or say why not."""
        tables = self.tables
        if tables.men and chess.popcount(board.occupied) > tables.men:
            return None
        if board.castling_rights:
            ply.note = CASTLING_NOTE
            return None
        try:
            values = [
                (move, -self._probe_after(board, move, dtz=False)) for move in board.legal_moves
            ]
            best = _sign(max(w for _, w in values))
            probed = [
                (
                    m,
                    w,
                    self._move_dtz(board, m, w) if _sign(w) in (best, 0) or m == played else None,
                )
                for m, w in values
            ]
        except chess.syzygy.MissingTableError as exc:  # none, or one that cannot be read
            ply.source = "missing"
            ply.flags.append("missing")
            ply.note = str(exc).strip("'\"")
            return None
        except KeyError:  # more men than any table has
            return None
        ply.source = "tables"
        return _Probe(probed, max(w for _, w, _ in probed))

    def _probe_after(self, board: chess.Board, move: chess.Move, *, dtz: bool) -> int:
        """WDL (or DTZ) of the position after ``move``, for the side to move there."""
        board.push(move)
        try:
            return self.tables.probe_dtz(board) if dtz else self.tables.probe_wdl(board)
        finally:
            board.pop()

    def _move_dtz(self, board: chess.Board, move: chess.Move, wdl: int) -> int:
        """The move's DTZ as the package docstring defines it (0 for a draw)."""
        if wdl == 0:
            return 0
        if wdl > 0 and board.is_zeroing(move):
            return 1
        return abs(self._probe_after(board, move, dtz=True)) + 1

    def _judge_move(self, board: chess.Board, move: chess.Move, probe: _Probe, ply: Ply) -> None:
        played = next((w, d) for m, w, d in probe.moves if m == move)
        ply.wdl, (ply.move_wdl, ply.dtz) = probe.value, played
        same = [(m, w, d) for m, w, d in probe.moves if m != move and _sign(w) == _sign(played[0])]
        if ply.solver:
            if _sign(played[0]) < _sign(probe.value):
                ply.flags.append("error")
                self._explain_error(board, move, probe, ply, played[0])
                return
            if same:
                ply.flags.append("dual")
                ply.alternatives = [
                    Alternative(
                        board.san(m), w, d, as_fast=_sign(w) > 0 and (d or 0) <= (played[1] or 0)
                    )
                    for m, w, d in sorted(same, key=lambda t: (t[2] or 0, board.san(t[0])))
                ]
            return
        if _sign(played[0]) < _sign(probe.value):
            ply.flags.append("weak")
            ply.note = f"gives up the {result_name(probe.value)}: {result_name(played[0])}"
        elif _sign(played[0]) < 0:
            longest = max(d or 0 for _, w, d in probe.moves if _sign(w) < 0)
            if (played[1] or 0) < longest:
                ply.flags.append("weak")
                ply.note = f"loses faster than the best defence (DTZ {played[1]} < {longest})"

    def _explain_error(
        self, board: chess.Board, move: chess.Move, probe: _Probe, ply: Ply, value: int
    ) -> None:
        """Name the error's refutation and the moves that keep the result:
        ``throws the win away: 8.Kb6? draws: 8…Nb4!; 8.Kb5 wins``."""
        white_first = (board.turn == chess.WHITE) == (ply.ply % 2 == 1)
        kept = sorted(
            ((m, w, d) for m, w, d in probe.moves if _sign(w) == _sign(probe.value)),
            key=lambda t: (t[2] or 0, board.san(t[0])),
        )
        ply.alternatives = [Alternative(board.san(m), w, d) for m, w, d in kept]
        text = f"{_numbered(ply.ply, white_first)}{ply.san}? {_VERBS[_sign(value)]}"
        replies = self._refutations(board, move)
        if replies:
            ply.refutation = replies[0]
            others = f" (or {len(replies) - 1} more)" if len(replies) > 1 else ""
            text += f": {_numbered(ply.ply + 1, white_first)}{replies[0]}!{others}"
        if kept:
            more = f" (or {len(kept) - 1} more)" if len(kept) > 1 else ""
            keeps = f"{_numbered(ply.ply, white_first)}{ply.alternatives[0].san}"
            text += f"; {keeps} {_VERBS[_sign(probe.value)]}{more}"
        ply.note = f"throws the {result_name(probe.value)} away: {text}"

    def _refutations(self, board: chess.Board, move: chess.Move) -> list[str]:
        """The defender's best replies to ``move`` by the tables (fastest first), in SAN."""
        after = board.copy(stack=False)
        after.push(move)
        try:
            values = [(m, -self._probe_after(after, m, dtz=False)) for m in after.legal_moves]
            if not values:
                return []
            best = max(w for _, w in values)
            good = [(m, self._move_dtz(after, m, w)) for m, w in values if _sign(w) == _sign(best)]
        except KeyError:  # MissingTableError: no table, or one that cannot be read
            return []
        return [after.san(m) for m, _ in sorted(good, key=lambda t: (t[1], after.san(t[0])))]

    # -- engine ---------------------------------------------------------------------

    def _engine_usable(self) -> bool:
        return self.engine is not None and not self.engine_failure

    def _analyse(
        self,
        board: chess.Board,
        *,
        multipv: int = 1,
        root_moves: list[chess.Move] | None = None,
    ) -> list[Line] | None:
        """The engine's answer; on a failure it is restarted and asked once more, then
        dropped for the study in hand (:attr:`engine_failure` says why): None."""
        for attempt in range(2):
            if not self._engine_usable():
                return None
            assert self.engine is not None
            try:
                lines = self.engine.analyse(
                    board, multipv=multipv, root_moves=root_moves, mate_score=MATE_CP
                )
            except EngineFailure as exc:
                log.warning("engine %s: %s", self.engine.path or self.engine.name, exc)
                self._study_hung = self._study_hung or isinstance(exc, EngineTimeout)
                self._restart_engine(str(exc) if attempt else "")
                continue
            if lines:
                return lines
            self._restart_engine("an empty answer" if attempt else "")
        return None

    def _restart_engine(self, failure: str) -> None:
        """Start the engine again; with ``failure``, it is then dropped for this study."""
        assert self.engine is not None
        if failure:
            self.engine_failure = failure
        try:
            self.engine = restart_engine(self.engine)
        except SoundnessError as exc:
            self.engine_failure = self.engine_failure or str(exc)
            self._lost, self.engine = self.engine, None

    def _count_hangs(self) -> None:
        """Give the engine up for the run after :data:`HUNG_STUDIES` studies in a row on
        which it gave no answer in time: each cost two timeouts, and so would every study
        after them.  The later studies' checks say so, as of any engine failure."""
        hung = self._study_hung and bool(self.engine_failure)  # dropped for the study
        self._hung = self._hung + 1 if hung else 0
        if self._hung < HUNG_STUDIES or self.given_up or self.engine is None:
            return
        self.given_up = (
            f"given up for this run after no answer on {HUNG_STUDIES} studies in a row"
            f" ({self.engine_failure})"
        )
        self._lost, self.engine = self.engine, None  # named in the later reports
        self._lost.close(ask=False)

    def _start_lost_engine(self) -> None:
        """The next study tries once more to start an engine that would not start again."""
        assert self._lost is not None
        try:
            self.engine = restart_engine(self._lost)
            self._lost = None
        except SoundnessError as exc:
            self.engine_failure = str(exc)

    def _engine_ply(
        self, board: chess.Board, move: chess.Move, ply: Ply, stipulation: str, *, first: bool
    ) -> bool:
        """Evaluate a solver's position beyond the tables; at the first move look for cooks.

        False when the engine failed (the ply stays unchecked).
        """
        assert self.engine is not None
        multipv = self.engine.multipv
        scored = self._analyse(board, multipv=2 if first and multipv else 1)
        if scored is None:
            return False
        if first and not multipv:  # the best other first move, in a search of its own
            others = [m for m in board.legal_moves if m != move]
            solution_only = self._analyse(board, root_moves=[move])
            rest = self._analyse(board, root_moves=others) if others else []
            if solution_only is None or rest is None:
                return False
            scored = sorted(solution_only + rest[:1], key=lambda line: -line.score)
        solution = other = None
        if first and len(scored) > 1:
            solution = next((s for s in scored if s.move == move), None)
            if solution is None:
                # The solution is not among the engine's first choices: score it alone.
                alone = self._analyse(board, root_moves=[move])
                if alone is None:  # its rivals were not compared with it: not checked
                    return False
                solution = alone[0]
            other = next(s for s in scored if s.move != move)
        best = scored[0]
        ply.source = "engine"
        ply.score, ply.depth = best.score, best.depth
        if not _agrees(best.score, stipulation):
            ply.flags.append("doubt")
            ply.note = (
                f"engine gives {format_cp(best.score)} at depth {best.depth} "
                f"for a claimed {stipulation}"
            )
        if solution is not None and other is not None:
            self._judge_cook(board, ply, solution, other, stipulation)
        return True

    def _judge_last_move(self, board: chess.Board, ply: Ply, report: Report) -> None:
        """The position after the main line's last move, that move scored by the engine.

        The engine scores the position before each solver's move, and the next one
        shows whether the move kept the result; after the last, nothing did.  The
        final position is scored (or is over: a mate or a draw), and a result
        that is not the claim is a doubt; when the engine fails, the last move
        is not checked.
        """
        if board.is_checkmate():
            score, depth = MATE_CP, None
        elif board.is_game_over():
            score, depth = 0, None
        else:
            lines = self._analyse(board)
            if lines is None:
                ply.source, ply.score, ply.depth = "beyond", None, None
                report.engine_plies -= 1
                return
            score, depth = -lines[0].score, lines[0].depth
        if not _agrees(score, report.stipulation):
            if "doubt" not in ply.flags:
                ply.flags.append("doubt")
            at = f" at depth {depth}" if depth is not None else ""
            ply.note = join_notes(
                ply.note,
                f"after it the engine gives {format_cp(score)}{at} for a claimed "
                f"{report.stipulation}",
            )

    def _judge_cook(
        self, board: chess.Board, ply: Ply, solution: Line, other: Line, stipulation: str
    ) -> None:
        """Flag a possible cook: another first move scores as well as the solution's."""
        if other.score >= solution.score - COOK_MARGIN_CP and _agrees(other.score, stipulation):
            san = board.san(other.move)
            ply.flags.append("cook")
            ply.alternatives = [Alternative(san, as_fast=True, score=other.score)]
            ply.note = (
                f"{san} scores {format_cp(other.score)}, "
                f"{ply.san} {format_cp(solution.score)} (depth {other.depth})"
            )

    # -- the verdict ----------------------------------------------------------------

    def _conclude(self, report: Report, board: chess.Board) -> Report:
        """The verdict: errors first, then ``sound`` only when checked from the start."""
        if report.reason:  # not judged at all
            report.verdict = "unchecked"
            return report
        if report.stipulation == "mate" and self._engine_usable():
            self._judge_mate_length(board, report)
        report.checked_from, gaps = _checked_from(report, engine=report.engine is not None)
        main = report.main_line()
        flags = {f for p in report.plies for f in p.flags}
        if (
            "claim" in flags
            or report.first_error is not None
            or (
                report.claim_ply is not None
                and _sign(report.claim_wdl or 0) != _claim_sign(report.stipulation)
            )
        ):
            report.verdict = "unsound"
        elif (main and "dual" in main[0].flags) or len(report.solutions) > 1:
            report.verdict = "duals"
        elif flags & {"doubt", "cook"}:
            report.verdict = "doubts"
        elif report.checked_from == 0 and not gaps and not self.broken:
            report.verdict = "sound"
        elif report.checked_from is not None:
            report.verdict = "no-errors"
        else:
            report.verdict = "unchecked"
        if report.checked_from != 0:
            report.reason = self._start_reason(board, report)
        elif gaps:
            numbers = ", ".join(str(ply.ply) for ply in gaps)
            report.reason = f"{GAPS_REASON} (ply {numbers}: {gaps[0].note or 'not checked'})"
        elif self.broken:  # never "sound" on a main line checked only up to a broken move
            report.reason = f"{GAPS_REASON} ({self.broken})"
        if self.engine_failure and self.engine_failure not in report.reason:
            report.note = join_notes(report.note, f"engine failed: {self.engine_failure}")
        self._count_hangs()
        if (
            report.stipulation == "mate"
            and report.verdict in ("sound", "no-errors")
            and (not self._engine_usable() or report.mate_in is None)
        ):
            report.note = join_notes(report.note, MATE_NOTE)
        return report

    def _start_reason(self, board: chess.Board, report: Report) -> str:
        """Why the start position was not judged (tables beyond reach, no engine, …)."""
        main = report.main_line()
        first = main[0] if main else None
        if first is not None and first.source == "missing":
            return f"no table at the start: {first.note}"
        failed = f"; engine failed: {self.engine_failure}" if self.engine_failure else ""
        if first is not None and first.note == CASTLING_NOTE:
            return CASTLING_NOTE + failed
        if not main and board.castling_rights:
            return CASTLING_NOTE + failed
        men = chess.popcount(board.occupied)
        if self.tables.men and men > self.tables.men:
            if failed:
                return f"{men} men at the start, beyond the {self.tables.men}-man tables{failed}"
            engine = "and no engine" if report.engine is None else "and no engine search"
            return f"{men} men at the start, beyond the {self.tables.men}-man tables, {engine}"
        return "the start position was not judged" + failed

    def _judge_mate_length(self, board: chess.Board, report: Report) -> None:
        """A mate in N: the engine's score at the start must be a mate in N for the solver."""
        wanted = report.mate_in
        lines = self._analyse(board)
        if not lines:
            return
        best = lines[0]
        found = (MATE_CP - best.score + 1) // 2 if best.score > MATE_CP // 2 else None
        main = report.main_line()
        if wanted is None:
            note = (
                f"the engine finds a mate in {found} (depth {best.depth})"
                if found is not None
                else ""
            )
        elif found == wanted:
            note = f"mate in {wanted} confirmed by the engine (depth {best.depth})"
        else:
            got = f"mate in {found}" if found is not None else format_cp(best.score)
            note = f"claimed mate in {wanted}, the engine gives {got} at depth {best.depth}"
            if main:
                main[0].flags.append("doubt")
                main[0].note = join_notes(main[0].note, note)
                return
        if note:
            report.note = join_notes(report.note, note)


def _sign(wdl: int) -> int:
    return (wdl > 0) - (wdl < 0)


def _claim_sign(stipulation: str) -> int:
    return 0 if stipulation == "draw" else 1


def _agrees(score: int, stipulation: str) -> bool:
    if stipulation != "draw":
        return score >= WIN_MARGIN_CP
    return abs(score) <= DRAW_MARGIN_CP


def start_problem(board: chess.Board) -> str:
    """Why a start position cannot be judged at all, or ``""``.

    >>> start_problem(chess.Board("k7/8/1Q6/8/8/8/8/7K b - - 0 1"))
    'game over at the start: stalemate'
    >>> start_problem(chess.Board("8/8/8/8/8/8/8/Kk6 w - - 0 1"))
    'illegal position: the kings are adjacent'
    >>> start_problem(chess.Board())
    ''
    """
    if not board.is_valid():
        return f"illegal position: {describe_status(board)}"
    if board.is_checkmate():
        return "game over at the start: checkmate"
    if board.is_stalemate():
        return "game over at the start: stalemate"
    return ""


def describe_status(board: chess.Board) -> str:
    """What is wrong with an illegal position, in words.

    >>> describe_status(chess.Board("8/8/8/8/8/8/8/KP6 w - - 0 1"))
    'Black has no king; a pawn on the first or last rank'
    """
    status = board.status()
    white, black = board.king(chess.WHITE), board.king(chess.BLACK)
    if white is not None and black is not None and chess.square_distance(white, black) == 1:
        return "the kings are adjacent"
    found = [text for flag, text in _STATUS_TEXTS if status & flag]
    return "; ".join(found) or "not a legal position"


def _checked_from(report: Report, *, engine: bool) -> tuple[int | None, list[Ply]]:
    """The first main-line position from which every later one was checked, or None;
    and, when no later position is, the plies left unchecked after the first checked one.

    A position is checked when the tables judged it, or the engine scored it;
    with an engine, the defender's positions between two scored solver's
    positions count as checked with them.  Without moves, the start counts
    when its first moves were probed; a line of which no position was
    checked counts from its final position when the tables judged that.
    """
    main = report.main_line()
    if not main:
        return (0 if report.table_plies else None), []
    checked = [ply.source in ("tables", "engine") for ply in main]
    if engine:  # the solver's positions on both sides scored (a failed engine scored none)
        for index in range(1, len(main) - 1):
            if not main[index].solver and not checked[index]:
                checked[index] = (
                    checked[index - 1]
                    and checked[index + 1]
                    and main[index].source in ("beyond", "missing")
                )
    first = len(main)
    while first > 0 and checked[first - 1]:
        first -= 1
    if first < len(main):
        start = next(index for index, done in enumerate(checked) if done)
        return start, [
            ply
            for ply, done in zip(main[start:first], checked[start:first], strict=True)
            if not done
        ]
    if report.claim_ply == first:
        return first, []
    begun = next((index for index, done in enumerate(checked) if done), None)
    if begun is None:
        return None, []
    return begun, [ply for ply, done in zip(main[begun:], checked[begun:], strict=True) if not done]


#: How an error's note says what a move leads to, by the sign of its value for the mover.
_VERBS = {1: "wins", 0: "draws", -1: "loses"}


def _numbered(ply: int, white_first: bool) -> str:
    """``8.`` or ``8…`` before a move, as a judge writes it.

    >>> _numbered(15, True), _numbered(16, True)
    ('8.', '8…')
    """
    number = move_number(ply, white_first)
    return number.replace("...", "…")
