"""Is a study sound?  Tablebase and engine checks of a study's claim and solution.

Pure: python-chess only (``chess.syzygy`` probes the tables, ``chess.engine``
talks to a UCI engine); no database.  Given the start position, the main line
(and, if asked, the variations) and the stipulation, :meth:`Checker.check`
returns a :class:`Report` with a verdict and what was found at every ply.

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
- ``doubt`` / ``cook``: engine doubts beyond the tables: the evaluation
  contradicts the claim by more than the margins below, or a second first
  move scores as well as the solution's (a possible cook).

**Verdict**: ``unsound`` (a ``claim`` or an ``error``), else ``duals`` (a
``dual`` at the first move of the main line), else ``doubts`` (an engine doubt
or cook), else ``sound`` if any ply was checked, else ``unchecked``.

>>> import chess.syzygy
>>> with chess.syzygy.open_tablebase("/work/shared/syzygy") as tables:  # doctest: +SKIP
...     report = Checker(tables).check(chess.Board("8/8/8/8/8/2k5/8/KQ6 w - - 0 1"), [], "draw")
>>> report.verdict  # doctest: +SKIP
'unsound'
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.syzygy

from studydb import movetext
from studydb.errors import NoTablesError, SoundnessError

__all__ = [
    "ENGINE_ENV",
    "SYZYGY_ENV",
    "VERDICTS",
    "Alternative",
    "Annotation",
    "Checker",
    "Ply",
    "Report",
    "annotate_main_line",
    "annotated_lines",
    "describe_ply",
    "open_engine",
    "open_tables",
    "parse_moves",
    "result_name",
    "syzygy_dirs",
    "table_men",
]

VERDICTS = ("sound", "unsound", "duals", "doubts", "unchecked")
STIPULATIONS = ("win", "draw")
SYZYGY_ENV = "STUDYDB_SYZYGY"
ENGINE_ENV = "STUDYDB_ENGINE"
#: A claimed win is doubted when the engine gives the solver less than this (centipawns).
WIN_MARGIN_CP = 100
#: A claimed draw is doubted when the engine's score is further from 0 than this.
DRAW_MARGIN_CP = 300
#: A second first move within this of the solution's score is "as good" (a possible cook).
COOK_MARGIN_CP = 30
#: Mates are scored as this many centipawns (minus the distance).
MATE_CP = 100_000
#: How an annotation names a finding.
_FLAG_NAMES = {"cook": "POSSIBLE COOK", "doubt": "ENGINE DOUBT", "weak": "WEAK DEFENCE"}
#: Alternatives named in a move's annotation.
MAX_SHOWN = 4
SYZYGY_HINT = (
    "Syzygy tables are needed: put the 3-4-5-man .rtbw and .rtbz files (free downloads "
    "from the Syzygy tablebase mirrors) in a folder and give it with --syzygy DIR or "
    f"${SYZYGY_ENV} (folders joined with ':')"
)
_TABLE_SUFFIXES = (".rtbw", ".rtbz")


# -- configuration ------------------------------------------------------------------


def syzygy_dirs(given: Sequence[str] = ()) -> list[str]:
    """The table folders: those given, else ``$STUDYDB_SYZYGY`` split on ``:``.

    >>> syzygy_dirs(["/a", "/b"])
    ['/a', '/b']
    """
    if given:
        return list(given)
    return [part for part in os.environ.get(SYZYGY_ENV, "").split(":") if part]


def table_men(names: Sequence[str]) -> int:
    """The largest number of men among table file names (``KQvKR.rtbw`` has 4).

    >>> table_men(["KQvK.rtbw", "KRPvKR.rtbz", "notes.txt"])
    5
    """
    sizes = [
        len(Path(n).stem.replace("v", ""))
        for n in names
        if Path(n).suffix in _TABLE_SUFFIXES and "v" in Path(n).stem
    ]
    return max(sizes, default=0)


def _table_names(dirs: Sequence[str]) -> list[str]:
    names: set[str] = set()
    for folder in dirs:
        path = Path(folder)
        if not path.is_dir():
            raise NoTablesError(f"syzygy folder {folder!r} does not exist; {SYZYGY_HINT}")
        names.update(p.name for p in path.iterdir() if p.suffix in _TABLE_SUFFIXES)
    return sorted(names)


@dataclass
class Tables:
    """Opened Syzygy tables with what identifies them: the largest men and a digest."""

    tablebase: chess.syzygy.Tablebase
    men: int
    digest: str

    def close(self) -> None:
        self.tablebase.close()


def open_tables(dirs: Sequence[str]) -> Tables:
    """Open the Syzygy tables in ``dirs``; the digest names the set of tables.

    :raises NoTablesError: when no folder is given, one is absent, or none holds a table.
    """
    if not dirs:
        raise NoTablesError(f"no tablebases given; {SYZYGY_HINT}")
    names = _table_names(dirs)
    if not names:
        raise NoTablesError(f"no Syzygy tables in {', '.join(dirs)}; {SYZYGY_HINT}")
    tablebase = chess.syzygy.Tablebase()
    for folder in dirs:
        tablebase.add_directory(folder)
    digest = hashlib.sha256("\n".join(names).encode()).hexdigest()[:16]
    return Tables(tablebase, table_men(names), digest)


@dataclass
class Engine:
    """A running UCI engine with its search limit, described for storage."""

    process: chess.engine.SimpleEngine
    limit: chess.engine.Limit
    name: str

    @property
    def settings(self) -> str:
        """``depth=N`` or ``movetime=MS``."""
        if self.limit.depth is not None:
            return f"depth={self.limit.depth}"
        return f"movetime={round((self.limit.time or 0) * 1000)}"

    def close(self) -> None:
        self.process.quit()


def open_engine(path: str, *, depth: int | None = None, movetime: int | None = None) -> Engine:
    """Start a UCI engine with one thread; search to ``depth`` or for ``movetime`` ms.

    :raises SoundnessError: when it cannot be started or neither limit is given.
    """
    if (depth is None) == (movetime is None):
        raise SoundnessError("give the engine exactly one of --depth N or --movetime MS")
    limit = chess.engine.Limit(depth=depth) if depth else chess.engine.Limit(time=movetime / 1000)
    try:
        # Its own process group: a Ctrl-C meant for us does not kill it mid-batch.
        process = chess.engine.SimpleEngine.popen_uci(path, setpgrp=True)
    except (OSError, chess.engine.EngineError) as exc:
        raise SoundnessError(f"cannot start the engine {path!r}: {exc}") from None
    try:
        process.configure({k: v for k, v in (("Threads", 1), ("Hash", 16)) if k in process.options})
    except chess.engine.EngineError as exc:
        process.quit()
        raise SoundnessError(f"cannot configure the engine {path!r}: {exc}") from None
    return Engine(process, limit, process.id.get("name", Path(path).name))


def parse_moves(board: chess.Board, text: str) -> list[chess.Move]:
    """Moves in SAN (move numbers, results and ``...`` ignored) from ``board``.

    >>> [m.uci() for m in parse_moves(chess.Board(), "1. e4 e5 2. Nf3")]
    ['e2e4', 'e7e5', 'g1f3']

    :raises SoundnessError: naming the first move that is not legal.
    """
    board = board.copy(stack=False)
    moves = []
    for token in text.replace("...", " ").split():
        word = token.rstrip(".").split(".")[-1]
        if not word or word.isdigit() or word in ("1-0", "0-1", "1/2-1/2", "*"):
            continue
        try:
            move = board.parse_san(word)
        except ValueError:
            raise SoundnessError(f"move {word!r} is not legal in {board.fen()}") from None
        moves.append(move)
        board.push(move)
    return moves


# -- the report ---------------------------------------------------------------------


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
    #: ``tables``, ``engine``, ``missing`` (a table is absent), ``beyond`` (too many men
    #: or castling rights, no engine) or ``terminal``.
    source: str = "beyond"
    #: The position's value and the move's, for the mover; the move's DTZ.
    wdl: int | None = None
    move_wdl: int | None = None
    dtz: int | None = None
    alternatives: list[Alternative] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    note: str = ""
    #: Engine score for the solver (centipawns), and the depth reached.
    score: int | None = None
    depth: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        """What was found, for a move's annotation.

        >>> Ply(5, "Kb4", True, source="tables", wdl=2, move_wdl=2, dtz=9,
        ...     alternatives=[Alternative("Kb5", 2, 9, as_fast=True)], flags=["dual"]).describe()
        'win, DTZ 9; also Kb5 DTZ 9 (as fast)'
        """
        return describe_ply(self)


def describe_ply(ply: Ply | dict[str, Any]) -> str:
    """:meth:`Ply.describe` for a ply or its stored dict."""
    data = ply.as_dict() if isinstance(ply, Ply) else ply
    parts: list[str] = []
    if data["source"] == "tables":
        dtz = f", DTZ {data['dtz']}" if data["move_wdl"] else ""
        parts.append(f"{result_name(data['move_wdl'])}{dtz}")
    elif data["source"] == "engine" and data["score"] is not None:
        parts.append(f"engine {_format_cp(data['score'])}, depth {data['depth']}")
    elif data["source"] in ("missing", "beyond"):
        parts.append(data["note"] or ("no table" if data["source"] == "missing" else "not checked"))
    flags = data["flags"]
    alternatives = data["alternatives"]
    if "dual" in flags and alternatives:
        shown = [
            a["san"]
            + (f" DTZ {a['dtz']}" if a["wdl"] else "")
            + (" (as fast)" if a["as_fast"] else "")
            for a in alternatives[:MAX_SHOWN]
        ]
        more = len(alternatives) - MAX_SHOWN
        parts.append("also " + ", ".join(shown) + (f" and {more} more" if more > 0 else ""))
    for flag in ("claim", "error", "try", "weak", "doubt", "cook"):
        if flag in flags and data["note"]:
            parts.append(f"{_FLAG_NAMES.get(flag, flag.upper())}: {data['note']}")
            break
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
    flags: tuple[str, ...] = ()
    first_error: bool = False


def annotate_main_line(plies: Sequence[dict[str, Any]], white_first: bool) -> list[Annotation]:
    """The stored plies of the main line as annotations, the first error marked.

    >>> plies = [{"ply": 1, "san": "Rh3+", "line": "main", "source": "tables", "move_wdl": 2,
    ...     "dtz": 5, "flags": [], "alternatives": [], "note": ""},
    ...     {"ply": 2, "san": "Kd4", "line": "main", "source": "tables", "move_wdl": -2,
    ...     "dtz": 6, "flags": [], "alternatives": [], "note": ""}]
    >>> [(a.number, a.san, a.text) for a in annotate_main_line(plies, False)]
    [('1...', 'Rh3+', 'win, DTZ 5'), ('2.', 'Kd4', 'loss, DTZ 6')]
    """
    annotations = []
    marked = False
    for ply in plies:
        if ply["line"] != "main":
            continue
        index = ply["ply"] - 1 + (0 if white_first else 1)
        number = f"{index // 2 + 1}." if index % 2 == 0 else f"{index // 2 + 1}..."
        first_error = "error" in ply["flags"] and not marked
        marked = marked or first_error
        annotations.append(
            Annotation(
                ply=ply["ply"],
                number=number,
                san=ply["san"],
                text=describe_ply(ply),
                flags=tuple(ply["flags"]),
                first_error=first_error,
            )
        )
    return annotations


def annotated_lines(plies: Sequence[dict[str, Any]], white_first: bool) -> list[str]:
    """``3. Kb4 (win, DTZ 9; also Kb5 DTZ 9)`` per main-line ply; the first error marked.

    >>> annotated_lines([{"ply": 1, "san": "c7", "line": "main", "source": "tables",
    ...     "move_wdl": 2, "dtz": 1, "flags": [], "alternatives": [], "note": ""}], True)
    ['  1. c7 (win, DTZ 1)']
    """
    lines = []
    for note in annotate_main_line(plies, white_first):
        text = f"  {note.number} {note.san}" + (f" ({note.text})" if note.text else "")
        lines.append(text + ("  <-- first solution error" if note.first_error else ""))
    return lines


@dataclass
class Report:
    """The verdict on one study and the plies behind it."""

    stipulation: str
    verdict: str = "unchecked"
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

    @property
    def first_error(self) -> Ply | None:
        """The first solution error of the main line, if any."""
        return next((p for p in self.plies if "error" in p.flags), None)

    def flagged(self, flag: str) -> list[int]:
        """The plies carrying ``flag`` (main line and variations)."""
        return [p.ply for p in self.plies if flag in p.flags]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def result_name(wdl: int | None) -> str:
    """``win``, ``draw`` or ``loss`` for a value (``cursed win`` and ``blessed loss`` kept).

    >>> result_name(2), result_name(1), result_name(0), result_name(-2)
    ('win', 'cursed win', 'draw', 'loss')
    """
    return {2: "win", 1: "cursed win", 0: "draw", -1: "blessed loss", -2: "loss"}.get(
        wdl if wdl is not None else 9, "?"
    )


def join_notes(first: str, second: str) -> str:
    """Two notes as one, ``; ``-joined.

    >>> join_notes("", "b"), join_notes("a", "b")
    ('b', 'a; b')
    """
    return f"{first}; {second}" if first else second


def _sign(wdl: int) -> int:
    return (wdl > 0) - (wdl < 0)


def _claim_sign(stipulation: str) -> int:
    return 1 if stipulation == "win" else 0


# -- the checker ----------------------------------------------------------------------


@dataclass
class _Probe:
    """Every legal move of a position with its WDL and DTZ for the mover."""

    moves: list[tuple[chess.Move, int, int]]
    value: int


class Checker:
    """Checks studies against open tables and, optionally, an engine."""

    def __init__(self, tables: Tables | chess.syzygy.Tablebase, engine: Engine | None = None):
        if isinstance(tables, chess.syzygy.Tablebase):
            tables = Tables(tables, 0, "")
        self.tables = tables
        self.engine = engine

    def check(self, board: chess.Board, moves: Sequence[chess.Move], stipulation: str) -> Report:
        """Check a main line of ``moves`` from ``board`` against ``stipulation``."""
        report = self._new_report(stipulation)
        self._check_line(board, moves, report, line="main", start=0, main=True)
        return self._conclude(report)

    def check_game(
        self, board: chess.Board, text: str, stipulation: str, *, variations: bool
    ) -> Report:
        """Check a study's main line and, with ``variations``, every variation (as
        :func:`studydb.movetext.lines` gives them) of its movetext ``text``."""
        report = self._new_report(stipulation)
        for line in movetext.lines(board, text, variations=variations):
            self._check_line(
                line.board, line.moves, report, line=line.label, start=line.start, main=line.main
            )
        return self._conclude(report)

    # -- per line -------------------------------------------------------------------

    def _new_report(self, stipulation: str) -> Report:
        if stipulation not in STIPULATIONS:
            raise SoundnessError(f"unknown stipulation {stipulation!r}: expected 'win' or 'draw'")
        report = Report(stipulation, tables_men=self.tables.men or None)
        if self.engine is not None:
            report.engine = f"{self.engine.name} {self.engine.settings}"
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
                break
            ply = Ply(start + index + 1, board.san(move), board.turn == solver, line=line)
            self._check_ply(board, move, ply, report, first=main and index == 0)
            if main or ply.flags or ply.source in ("tables", "engine"):
                report.plies.append(ply)
            if main and report.claim_ply is None and ply.source == "tables":
                self._judge_claim(report, ply, ply.ply - 1, ply.wdl, solver=ply.solver)
            board.push(move)
            played += 1
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
            ((m, w, d) for m, w, d in probe.moves if _sign(w) == wanted), key=lambda t: t[2]
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
            wdl = self.tables.tablebase.probe_wdl(board)
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
        elif ply.source in ("beyond", "missing") and self.engine is not None and ply.solver:
            report.engine_plies += 1
            self._engine_ply(board, move, ply, report.stipulation, first=first)

    def _probe(
        self, board: chess.Board, ply: Ply, played: chess.Move | None = None
    ) -> _Probe | None:
        """Probe every legal move (WDL, then DTZ where it is used), or say why not."""
        tables = self.tables
        if tables.men and chess.popcount(board.occupied) > tables.men:
            return None
        if board.castling_rights:
            ply.note = "castling rights: not in the tables"
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
        except chess.syzygy.MissingTableError as exc:
            ply.source = "missing"
            ply.flags.append("missing")
            ply.note = str(exc).strip("'\"")
            return None
        except KeyError:
            return None
        ply.source = "tables"
        return _Probe(probed, max(w for _, w, _ in probed))

    def _probe_after(self, board: chess.Board, move: chess.Move, *, dtz: bool) -> int:
        """WDL (or DTZ) of the position after ``move``, for the side to move there."""
        board.push(move)
        try:
            tablebase = self.tables.tablebase
            return tablebase.probe_dtz(board) if dtz else tablebase.probe_wdl(board)
        finally:
            board.pop()

    def _move_dtz(self, board: chess.Board, move: chess.Move, wdl: int) -> int:
        """The move's DTZ as defined in the module docstring (0 for a draw)."""
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
                ply.note = (
                    f"throws the {result_name(probe.value)} away: "
                    f"{result_name(played[0])} after {ply.san}"
                )
                return
            if same:
                ply.flags.append("dual")
                ply.alternatives = [
                    Alternative(board.san(m), w, d, as_fast=_sign(w) > 0 and d <= played[1])
                    for m, w, d in sorted(same, key=lambda t: (t[2], board.san(t[0])))
                ]
            return
        if _sign(played[0]) < _sign(probe.value):
            ply.flags.append("weak")
            ply.note = f"gives up the {result_name(probe.value)}: {result_name(played[0])}"
        elif _sign(played[0]) < 0:
            longest = max(d for _, w, d in probe.moves if _sign(w) < 0)
            if played[1] < longest:
                ply.flags.append("weak")
                ply.note = f"loses faster than the best defence (DTZ {played[1]} < {longest})"

    # -- engine ---------------------------------------------------------------------

    def _engine_ply(
        self, board: chess.Board, move: chess.Move, ply: Ply, stipulation: str, *, first: bool
    ) -> None:
        """Evaluate a solver's position beyond the tables; at the first move look for cooks."""
        assert self.engine is not None
        engine = self.engine
        ply.source = "engine"
        infos = engine.process.analyse(
            board, engine.limit, multipv=2 if first else 1, game=object()
        )
        scored = [
            (info["pv"][0], _centipawns(info, board.turn), info.get("depth")) for info in infos
        ]
        best = scored[0]
        ply.score, ply.depth = best[1], best[2]
        if not _agrees(best[1], stipulation):
            ply.flags.append("doubt")
            ply.note = (
                f"engine gives {_format_cp(best[1])} at depth {best[2]} for a claimed {stipulation}"
            )
        if not first or len(scored) < 2:
            return
        solution = next((s for s in scored if s[0] == move), None)
        if solution is None:
            [info] = engine.process.analyse(board, engine.limit, root_moves=[move], game=object())
            solution = (move, _centipawns(info, board.turn), info.get("depth"))
        other = next(s for s in scored if s[0] != move)
        if other[1] >= solution[1] - COOK_MARGIN_CP and _agrees(other[1], stipulation):
            ply.flags.append("cook")
            ply.alternatives = [Alternative(board.san(other[0]), as_fast=True, score=other[1])]
            ply.note = (
                f"{board.san(other[0])} scores {_format_cp(other[1])}, "
                f"{ply.san} {_format_cp(solution[1])} (depth {other[2]})"
            )

    # -- the verdict ----------------------------------------------------------------

    def _conclude(self, report: Report) -> Report:
        main = [p for p in report.plies if p.line == "main"]
        flags = {f for p in report.plies for f in p.flags}
        if (
            "claim" in flags
            or any("error" in p.flags for p in main)
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
        elif report.table_plies or report.engine_plies or report.claim_ply is not None:
            report.verdict = "sound"
        else:
            report.verdict = "unchecked"
        return report


def _centipawns(info: chess.engine.InfoDict, colour: chess.Color) -> int:
    return info["score"].pov(colour).score(mate_score=MATE_CP)


def _agrees(score: int, stipulation: str) -> bool:
    if stipulation == "win":
        return score >= WIN_MARGIN_CP
    return abs(score) <= DRAW_MARGIN_CP


def _format_cp(score: int) -> str:
    if abs(score) > MATE_CP // 2:
        plies = MATE_CP - abs(score)
        return f"{'' if score > 0 else '-'}mate in {(plies + 1) // 2}"
    return f"{score / 100:+.2f}"
