"""Every rendering of a study: board diagrams (text, Rich, SVG) and readable movetext.

One home for what the terminal, the ``--svg`` files and the web pages show.
Pure: no printing, no database.  The moves are read by :mod:`studydb.movetext`;
``chess.svg`` and Rich are imported inside the functions that need them, so
that ``studydb gbr`` stays fast.

>>> rows = diagram_rows(chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"))
>>> [(name, piece.symbol()) for name, piece, _ in rows[2] if piece]
[('b6', 'K'), ('c6', 'P')]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import chess

from studydb.movetext import SUFFIX_NAGS, StopWalk, Visitor, walk

if TYPE_CHECKING:
    from rich.text import Text

__all__ = [
    "DARK_SQUARE",
    "LIGHT_SQUARE",
    "SIDE_NAMES",
    "SolutionToken",
    "diagram_rows",
    "gbr_notations",
    "movetext",
    "rich_diagram",
    "solution_tokens",
    "svg_diagram",
    "text_diagram",
]

SIDE_NAMES = {"w": "White", "b": "Black"}
#: Light and dark square colours of the diagrams.
LIGHT_SQUARE = "#f0d9b5"
DARK_SQUARE = "#b58863"

#: How an illegal move, and the rest of the line it ended, are shown where they stood.
ILLEGAL_NOTE = "illegal move, not played: "
#: Columns the movetext is wrapped at.
MOVETEXT_COLUMNS = 80
#: NAGs written as a suffix of the move in readable movetext (``c7!``); others as ``$n``.
PGN_SUFFIXES = {nag: suffix for suffix, nag in SUFFIX_NAGS.items()}


def movetext(board: chess.Board, text: str) -> str:
    """The solution as readable movetext: moves, variations, comments and NAGs, wrapped.

    PGN that python-chess and the GUIs read back.  Empty when the text has
    neither moves nor comments.

    >>> movetext(chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"), "1. c7 {only move} Rd6+ $1 *")
    '1. c7 { only move } 1... Rd6+! *'
    """
    walked = walk(board, text, _Tokens(positions=False))
    tokens = walked.tokens()
    if not tokens:
        return ""
    words: list[str] = []
    for token in tokens:
        if token.kind == "move":
            move = token.text + "".join(PGN_SUFFIXES.get(nag, f" ${nag}") for nag in token.nags)
            words.append(f"{token.number} {move}" if token.number else move)
        elif token.kind == "comment":
            words.append("{ " + " ".join(token.text.replace("}", "").split()) + " }")
        elif token.kind == "illegal":  # words of its own: a long line wraps
            words.extend(["{", *(ILLEGAL_NOTE + token.text.replace("}", "")).split(), "}"])
        else:
            words.append("(" if token.kind == "open" else ")")
    words.append(walked.result)
    return _wrap(words, MOVETEXT_COLUMNS)


def _wrap(words: list[str], columns: int) -> str:
    """Words joined by spaces, in lines of at most ``columns`` (a longer word alone)."""
    lines: list[str] = []
    line = ""
    for word in words:
        if line and len(line) + 1 + len(word) > columns:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n".join(lines)


def diagram_rows(
    board: chess.Board, *, flipped: bool = False
) -> list[list[tuple[str, chess.Piece | None, bool]]]:
    """The board rank by rank from the top: ``(square name, piece or None, light square)``.

    White is at the bottom unless ``flipped``.
    """
    ranks = range(8) if flipped else range(7, -1, -1)
    files = range(7, -1, -1) if flipped else range(8)
    rows = []
    for rank in ranks:
        row = []
        for file in files:
            square = chess.square(file, rank)
            row.append((chess.square_name(square), board.piece_at(square), (file + rank) % 2 == 1))
        rows.append(row)
    return rows


def svg_diagram(
    board: chess.Board,
    *,
    flipped: bool = False,
    size: int = 400,
    lastmove: chess.Move | None = None,
    coordinates: bool = True,
) -> str:
    """The position as an SVG image (``chess.svg``), the last move's squares marked.

    >>> svg_diagram(chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")).startswith("<svg")
    True
    """
    import chess.svg

    return chess.svg.board(
        board,
        orientation=not flipped,
        size=size,
        coordinates=coordinates,
        lastmove=lastmove,
        colors={"square light": LIGHT_SQUARE, "square dark": DARK_SQUARE},
    )


@dataclass(frozen=True)
class SolutionToken:
    """One piece of a solution laid out for a page: a move, a comment or a bracket.

    ``kind`` is ``"move"``, ``"comment"``, ``"open"`` or ``"close"`` (of a
    variation), or ``"illegal"``: an illegal move with the rest of the line it
    ended, as written (``text``, its move number first).  A move has its
    ``node`` number (1, 2, … in reading order),
    the ``parent`` it follows (0 = the start position), the ``next`` move of
    its main line (None at the end), the position after it (``fen``), the move
    in UCI, the move number to show before it (``'1.'``, ``'1...'`` or ''),
    and its NAGs in order (:mod:`studydb.nags` says how to show them), and
    ``ply``: its ply in the main line (0 for a move of a variation).
    """

    kind: str
    text: str = ""
    node: int = 0
    parent: int = 0
    next: int | None = None
    fen: str = ""
    uci: str = ""
    number: str = ""
    nags: tuple[int, ...] = ()
    ply: int = 0


@dataclass(frozen=True)
class SolutionPart:
    """Moves ``first`` to ``last`` of a solution as tokens (:func:`solution_part`), and
    how many moves it has: ``moves``, counted up to ``most`` (``more``: it has more)."""

    tokens: list[SolutionToken]
    moves: int
    more: bool


def solution_tokens(board: chess.Board, text: str) -> list[SolutionToken]:
    """The solution as tokens in reading order: moves, comments and variations.

    Nodes are :mod:`studydb.movetext`'s, as the position index and ``show
    --node`` number them.

    >>> board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    >>> tokens = solution_tokens(board, "1. c7 {only} (1. Kb7) Rd6+ *")
    >>> [(t.kind, t.number + t.text, t.node, t.parent, t.next) for t in tokens]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('move', '1.c7', 1, 0, 3), ('comment', 'only', 0, 0, None), ('open', '', 0, 0, None),
     ('move', '1.Kb7', 2, 0, None), ('close', '', 0, 0, None), ('move', '1...Rd6+', 3, 1, None)]
    """
    return walk(board, text, _Tokens()).tokens()


def solution_part(
    board: chess.Board, text: str, *, first: int, last: int, most: int
) -> SolutionPart:
    """The tokens of moves (nodes) ``first`` to ``last`` of a solution, and its size.

    What stands between those moves comes too, and what follows the last up to
    the next move; first an ``open`` token for each variation open at ``first``.
    The other moves are played but not written out (no SAN, no FEN), and the
    walk stops after move ``most``: a part of a huge solution costs its own
    moves and the replay of at most ``most`` others, not the whole tree (a move
    whose ``next`` is past ``most`` has none).

    >>> board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    >>> part = solution_part(board, "1. c7 (1. Kb7 Rd6) Rd6+ 2. Kb5 *", first=2, last=3, most=3)
    >>> [(t.kind, t.number + t.text, t.node, t.next) for t in part.tokens], part.moves, part.more
    ... # doctest: +NORMALIZE_WHITESPACE
    ([('open', '', 0, None), ('move', '1.Kb7', 2, 3), ('move', 'Rd6', 3, None),
      ('close', '', 0, None)], 3, True)
    """
    visitor = walk(board, text, _Tokens(window=(first, last), most=most))
    return SolutionPart(visitor.tokens(), visitor.moves, visitor.more)


class _Tokens(Visitor):
    """The walk behind :func:`solution_tokens`, :func:`solution_part` and :func:`movetext`.

    With ``window`` (the first and last node to write out), the moves before
    it and after it are followed (lines, main-line plies, move numbers) but not
    written, and the walk ends after move ``most``.
    """

    def __init__(
        self,
        *,
        positions: bool = True,
        window: tuple[int, int] | None = None,
        most: int | None = None,
    ) -> None:
        self.positions = positions  # each move's FEN and UCI (the page needs them, text not)
        self.items: list[dict[str, Any]] = []
        self.nags: dict[int, set[int]] = {}  # by item index
        self.last: int | None = None  # item index of the last move of the current line
        self.outer: list[int | None] = []  # the same for each line around it
        self.numbered = True  # a Black move shows its number (after a break)
        self.result = "*"  # the main line's result token, if it has one
        self.window, self.most = window, most
        self.writing = window is None or window[0] <= 1  # what is visited now is written
        self.moves = 0  # moves visited (the last node)
        self.more = False  # moves beyond ``most``
        self.depth = 0  # variations open
        self.plies = 0  # main-line moves visited

    def visit_move(self, board: chess.Board, move: chess.Move, node: int, parent: int) -> None:
        if self.most is not None and node > self.most:
            self.more = True
            raise StopWalk
        self.moves = node
        if self.depth == 0:
            self.plies += 1
        if self.last is not None:
            self.items[self.last]["next"] = node
        if self.window is not None:
            first, last = self.window
            if not first <= node <= last:
                self.writing, self.last, self.numbered = False, None, False
                return
            if not self.writing:  # the window's first move
                self.items.extend({"kind": "open"} for _ in range(self.depth))
                self.writing = True
        number = ""
        if board.turn == chess.WHITE:
            number = f"{board.fullmove_number}."
        elif self.numbered:
            number = f"{board.fullmove_number}..."
        self.last = len(self.items)
        self.items.append(
            {
                "kind": "move",
                "text": board.san(move),
                "node": node,
                "parent": parent,
                "uci": move.uci() if self.positions else "",
                "number": number,
                "ply": self.plies if self.depth == 0 else 0,
            }
        )
        self.numbered = False

    def visit_position(self, board: chess.Board, node: int, parent: int, main: bool) -> None:
        if self.positions and self.writing:
            self.items[-1]["fen"] = board.fen()

    def visit_comment(self, text: str) -> None:
        if self.writing:
            self.items.append({"kind": "comment", "text": text})
        self.numbered = True

    def visit_illegal(self, board: chess.Board, san: str) -> None:
        if self.writing:
            dots = "." if board.turn == chess.WHITE else "..."
            self.items.append({"kind": "illegal", "text": f"{board.fullmove_number}{dots} {san}"})
        self.numbered = True

    def visit_unplayed(self, text: str) -> None:
        if not self.writing:
            return
        illegal = next(item for item in reversed(self.items) if item["kind"] == "illegal")
        rest = " ".join(text.replace("{", " ").replace("}", " ").split())
        if rest:
            illegal["text"] += " " + rest

    def visit_nag(self, nag: int) -> None:
        if self.last is not None and self.writing:
            self.nags.setdefault(self.last, set()).add(nag)

    def begin_variation(self, board: chess.Board) -> None:
        if self.writing:
            self.items.append({"kind": "open"})
        self.outer.append(self.last)
        self.last = None
        self.numbered = True
        self.depth += 1

    def end_variation(self, board: chess.Board, node: int) -> None:
        if self.writing:
            self.items.append({"kind": "close"})
        self.last = self.outer.pop() if self.outer else None
        self.numbered = True
        self.depth = max(self.depth - 1, 0)

    def visit_result(self, result: str) -> None:
        self.result = result

    def tokens(self) -> list[SolutionToken]:
        for index, nags in self.nags.items():
            self.items[index]["nags"] = tuple(sorted(nags))
        return [SolutionToken(**item) for item in self.items]


def text_diagram(
    board: chess.Board, *, flipped: bool = False, ascii_only: bool = False
) -> list[str]:
    """The board as lines of text: figurines (or letters) and ``·`` (or ``.``) for empty squares.

    >>> print("\\n".join(text_diagram(chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"))[2:4]))
    6 · ♔ ♙ · · · · ·
    5 · · · ♜ · · · ·
    """
    rows = diagram_rows(board, flipped=flipped)
    lines = []
    for row in rows:
        cells = [
            (piece.symbol() if ascii_only else piece.unicode_symbol())
            if piece
            else ("." if ascii_only else "·")
            for _, piece, _ in row
        ]
        lines.append(f"{row[0][0][1]} " + " ".join(cells))
    lines.append("  " + " ".join(name[0] for name, _, _ in rows[-1]))
    return lines


def rich_diagram(board: chess.Board, *, flipped: bool = False, colour: bool = True) -> Text:
    """A board diagram as Rich text: Unicode pieces, coordinates, coloured squares.

    Without colour, empty squares show as ``·`` and the pieces' glyphs tell
    White (outline) from Black (solid).

    >>> rich_diagram(chess.Board("8/8/8/8/8/8/8/K6k w - - 0 1"), colour=False).plain.splitlines()[7]
    '1  ♔  ·  ·  ·  ·  ·  ·  ♚'
    """
    from rich.text import Text

    text = Text()
    rows = diagram_rows(board, flipped=flipped)
    for row in rows:
        text.append(f"{row[0][0][1]} ", style="dim")
        for _name, piece, light in row:
            symbol = piece.unicode_symbol() if piece else ("" if colour else "·")
            cell = f" {symbol or ' '} "
            if colour:
                background = LIGHT_SQUARE if light else DARK_SQUARE
                ink = "bold #ffffff" if piece and piece.color else "bold #000000"
                text.append(cell, style=f"{ink} on {background}")
            else:
                text.append(cell)
        if not colour:
            text.rstrip()  # no padding at the end of a line without coloured squares
        text.append("\n")
    files = "".join(f" {name[0]} " for name, _, _ in rows[-1])
    text.append(f"  {files}".rstrip(), style="dim")
    return text


#: Stipulations that have a sign in the GBR notations (``+`` win, ``=`` draw).
SIGNED_STIPULATIONS = ("win", "draw")


def gbr_notations(board: chess.Board, stipulation: str | None) -> tuple[str, str | None]:
    """A study's extended GBR notation and its stipulation form (None without a sign).

    A mate-in-n study has no GBR sign: its notations carry none.

    >>> board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    >>> gbr_notations(board, "win")
    ('b6a1 0300.10 d5.c6 2/2+', '+0300.10b6a1')
    >>> gbr_notations(board, "mate")
    ('b6a1 0300.10 d5.c6 2/2', None)
    """
    from studydb import gbr

    signed = stipulation if stipulation in SIGNED_STIPULATIONS else None
    extended = gbr.encode_extended(board, stipulation=signed)
    return extended, gbr.encode_stipulation_form(board, signed) if signed else None
