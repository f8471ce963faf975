"""A study's solution laid out for its page: an indented tree of lines, and words for a position.

The walk of the movetext (:func:`studydb.render.solution_tokens`) gives moves,
comments and the brackets of variations in reading order.  Here they become
*rows*: the main line is a row at depth 0; each variation starts a row one
level deeper, and the line it interrupted resumes in a row of its own.  The
rows are flat (no nesting in the page), so a solution nested a thousand
deep is no deeper a document; the page indents the first
:data:`MAX_INDENT` levels.

Every move after an interruption (a variation, a comment, an annotation or a
position glyph) gets its number, as in print: ``2.Kf6 (draw) 2...Kb6``.

>>> from studydb import render
>>> board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
>>> rows = lay_out(render.solution_tokens(board, "1. c7 $1 (1. Kb7 $143) Rd6+ $18 2. Kb5 *"))
>>> [(row.depth, [m.number + m.san + m.glyphs for m in row.moves]) for row in rows]
[(0, ['1.c7!']), (1, ['1.Kb7']), (0, ['1...Rd6+', '2.Kb5'])]
>>> describe_position("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
'White Kb6, Pc6; Black Ka1, Rd5 (2+2); White to move; FEN 8/8/1KP5/3r4/8/8/8/k7 w - - 0 1'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import chess

from studydb import nags
from studydb.render import ILLEGAL_NOTE

if TYPE_CHECKING:
    from studydb.render import SolutionToken

__all__ = [
    "MAX_INDENT",
    "Glyph",
    "Note",
    "PageMove",
    "Row",
    "describe_position",
    "full_number",
    "lay_out",
    "note_of",
    "other_headers",
]

#: Indentation levels the page shows; deeper variations stay at this level.
MAX_INDENT = 8
#: Annotation texts that say nothing a reader needs next to every move.
_SILENT_NOTES = frozenset({"not checked"})
#: Order in which a stored check's flags colour an annotation.
_NOTE_KINDS = ("error", "dual", "try", "weak", "doubt", "cook", "claim")
_PIECE_ORDER = "KQRBNP"


@dataclass(frozen=True)
class Glyph:
    """A NAG as the page shows it: its symbol (or words), its meaning, and which it is."""

    nag: int
    shown: str
    meaning: str
    symbol: bool


@dataclass(frozen=True)
class Note:
    """A stored check's annotation of a move: its words and the kind that colours it."""

    text: str
    kind: str
    ply: int = 0
    first_error: bool = False


@dataclass
class PageMove:
    """One move of the solution on the page."""

    node: int
    parent: int
    next: int | None
    san: str
    number: str
    fen: str
    uci: str
    #: Move assessments (``!``, ``?!`` …) written onto the move.
    assessments: list[Glyph] = field(default_factory=list)
    #: The move's other NAGs (position assessments and the like), after it.
    marks: list[Glyph] = field(default_factory=list)
    note: Note | None = None
    comments: list[str] = field(default_factory=list)

    @property
    def glyphs(self) -> str:
        """The move assessments as written onto the move: ``'!'``, ``'?!'``."""
        return "".join(g.shown for g in self.assessments)

    @property
    def label(self) -> str:
        """The move with its full number, for announcements: ``2...Kb6``."""
        return full_number(self.fen) + self.san


@dataclass
class Row:
    """A line of the tree: its depth (0 = main line), whether it opens a variation, its moves."""

    depth: int
    opens: bool = False
    moves: list[PageMove] = field(default_factory=list)
    #: Comments before the first move (a variation or the solution may start with one).
    comments: list[str] = field(default_factory=list)

    @property
    def indent(self) -> int:
        """The shown indentation level (at most :data:`MAX_INDENT`)."""
        return min(self.depth, MAX_INDENT)


def full_number(fen_after: str) -> str:
    """The move number of the move that led to ``fen_after``: ``'3.'`` or ``'3...'``.

    >>> full_number("8/2P5/1K6/3r4/8/8/8/k7 b - - 0 1")
    '1.'
    >>> full_number("8/2P5/1K1r4/8/8/8/8/k7 w - - 1 2")
    '1...'
    """
    fields = fen_after.split()
    turn = fields[1] if len(fields) > 1 else "w"
    number = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
    if turn == "b":
        return f"{number}."
    return f"{max(number - 1, 1)}..."


def _glyphs(codes: Sequence[int]) -> tuple[list[Glyph], list[Glyph]]:
    """A move's NAGs: its assessments written onto it (``!``), and the rest, after it."""
    glyphs = [Glyph(n, nags.describe(n), nags.meaning(n), n in nags.SYMBOLS) for n in codes if n]
    onto = [g for g in glyphs if nags.is_move_assessment(g.nag) and g.symbol]
    return onto, [g for g in glyphs if g not in onto]


def note_of(annotation: Any) -> Note | None:
    """A stored check's annotation (``soundness.Annotation``) as the page colours it.

    None when it says nothing worth a note (no text, or "not checked").
    """
    if annotation is None:
        return None
    text = annotation.text if annotation.text not in _SILENT_NOTES else ""
    if not text and not annotation.first_error:
        return None
    kind = next((k for k in _NOTE_KINDS if k in annotation.flags), "plain")
    if text.startswith("engine"):
        kind = "engine" if kind == "plain" else kind
    return Note(text=text, kind=kind, ply=annotation.ply, first_error=annotation.first_error)


def lay_out(
    tokens: Sequence[SolutionToken], annotations: Mapping[int, Any] | None = None
) -> list[Row]:
    """The solution's tokens as rows of moves (see the module's description).

    ``annotations`` maps a move's node to its stored check's annotation.
    """
    annotations = annotations or {}
    rows: list[Row] = []
    row = Row(depth=0)
    depth = 0
    interrupted = True
    pending: list[str] = []  # comments waiting for the next move of the row

    def flush(current: Row) -> None:
        if pending:
            if current.moves:
                current.moves[-1].comments.extend(pending)
            else:
                current.comments.extend(pending)
            pending.clear()
        if current.moves or current.comments:
            rows.append(current)

    for token in tokens:
        if token.kind == "open":
            flush(row)
            depth += 1
            row = Row(depth=depth, opens=True)
            interrupted = True
        elif token.kind == "close":
            flush(row)
            depth = max(depth - 1, 0)
            row = Row(depth=depth)
            interrupted = True
        elif token.kind == "comment":
            pending.append(token.text)
            interrupted = True
        elif token.kind == "illegal":
            pending.append(ILLEGAL_NOTE + token.text)
            interrupted = True
        else:
            assessments, marks = _glyphs(token.nags)
            move = PageMove(
                node=token.node,
                parent=token.parent,
                next=token.next,
                san=token.text,
                number=token.number or (full_number(token.fen) if interrupted else ""),
                fen=token.fen,
                uci=token.uci,
                assessments=assessments,
                marks=marks,
                note=note_of(annotations.get(token.node)),
            )
            if pending:
                if row.moves:
                    row.moves[-1].comments.extend(pending)
                else:
                    row.comments.extend(pending)
                pending.clear()
            row.moves.append(move)
            interrupted = bool(marks or move.note)
    flush(row)
    return rows


def describe_position(fen: str) -> str:
    """The men of a position in words, with its FEN: the board's alternative text.

    White's men then Black's, kings first, then by value; pawns as ``Pc6``.
    """
    board = chess.Board(fen)
    sides = []
    counts = []
    for colour, name in ((chess.WHITE, "White"), (chess.BLACK, "Black")):
        men = sorted(
            (_PIECE_ORDER.index(piece.symbol().upper()), square)
            for square, piece in board.piece_map().items()
            if piece.color == colour
        )
        words = [_PIECE_ORDER[kind] + chess.square_name(square) for kind, square in men]
        sides.append(f"{name} {', '.join(words) if words else 'nothing'}")
        counts.append(len(words))
    turn = "White" if board.turn == chess.WHITE else "Black"
    return f"{'; '.join(sides)} ({counts[0]}+{counts[1]}); {turn} to move; FEN {fen}"


#: Tags the page shows as facts of its own (or that only a program needs).
_FACT_TAGS = re.compile(
    r"(?:FEN|SetUp|Composer\d*|Stipulation|Source|PlyCount|Variant|Result|UTC(?:Date|Time))\Z",
    re.IGNORECASE,
)
_HAS_WORD = re.compile(r"\w")
_UNKNOWN_DATE = re.compile(r"\d{4}\.\?\?\.\?\?\Z")


def other_headers(
    headers: Mapping[str, str], *, shown: Sequence[str] = ()
) -> list[tuple[str, str]]:
    """The PGN tags worth a reader's eye: not the facts the page shows, not ``?``.

    A tag is left out if the page shows it elsewhere (composers, source,
    stipulation, the FEN), if it says nothing (``?``, ``-``, ``+``), if its
    value is one of ``shown`` or, for the event, contains the source shown.

    >>> tags = {"Event": "2.p wp01 tp23", "Site": "?", "Round": "?", "Date": "1985.??.??",
    ...     "Annotator": "Bazlov", "FEN": "8/8/8/8/8/8/8/K1k5 w - - 0 1"}
    >>> other_headers(tags, shown=["wp01 tp23", "1985"])
    [('Annotator', 'Bazlov')]
    """
    kept = []
    texts = [s for s in shown if s]
    for name, value in headers.items():
        text = str(value).strip()
        if _FACT_TAGS.match(name) or not _HAS_WORD.search(text) or text in texts:
            continue
        if name == "Date" and _UNKNOWN_DATE.match(text) and text[:4] in texts:
            continue
        if name == "Event" and any(s in text for s in texts):
            continue
        if text.strip("?") == "":
            continue
        kept.append((name, text))
    return kept
