"""Every rendering of a study: board diagrams (text, Rich, SVG) and readable movetext.

One home for what the terminal, the ``--svg`` files and the web pages show.
Pure: no printing, no database.  ``chess.pgn``, ``chess.svg`` and Rich are
imported inside the functions that need them, so that ``studydb gbr`` stays
fast.

>>> rows = diagram_rows(chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"))
>>> [(name, piece.symbol()) for name, piece, _ in rows[2] if piece]
[('b6', 'K'), ('c6', 'P')]
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import chess

if TYPE_CHECKING:
    import chess.pgn
    from rich.text import Text

__all__ = [
    "DARK_SQUARE",
    "LIGHT_SQUARE",
    "SIDE_NAMES",
    "SolutionToken",
    "diagram_rows",
    "gbr_notations",
    "movetext",
    "read_game",
    "rich_diagram",
    "solution_tokens",
    "svg_diagram",
    "text_diagram",
]

SIDE_NAMES = {"w": "White", "b": "Black"}
#: Light and dark square colours of the diagrams.
LIGHT_SQUARE = "#f0d9b5"
DARK_SQUARE = "#b58863"

# A FEN tag in a stored game's text (one tag on its line, as studies have).
_FEN_TAG = re.compile(
    r'^[ \t]*\[[ \t]*FEN[ \t]*"([^"\n]*)"[ \t]*\][ \t]*\r?(?:\n|\Z)', re.MULTILINE
)

#: Columns the movetext is wrapped at.
MOVETEXT_COLUMNS = 80


def read_game(pgn: str) -> chess.pgn.Game:
    """Parse a stored study's PGN (one game); a game python-chess cannot read is empty.

    Problems python-chess recovered from are in ``game.errors``.
    """
    import chess.pgn

    game = chess.pgn.read_game(io.StringIO(_first_fen_only(pgn)), Visitor=_quiet_builder())
    return game if game is not None else chess.pgn.Game()


def _first_fen_only(pgn: str) -> str:
    """Apply the importer's FEN rule for python-chess (which takes the last FEN tag).

    The first FEN tag counts; an empty one means the initial position; later
    ones are dropped, and so is a first one that is not a valid FEN.

    >>> _first_fen_only('[Event "x"]\\n[FEN ""]\\n[FEN "bad"]\\n\\n1. e4 *')
    '[Event "x"]\\n\\n1. e4 *'
    """
    tags = list(_FEN_TAG.finditer(pgn))
    if not tags:
        return pgn
    first = tags[0].group(1).strip()
    keep = bool(first)
    if keep:
        try:
            chess.Board(first)
        except ValueError:
            keep = False
    drop = tags[1:] if keep else tags
    for match in reversed(drop):
        pgn = pgn[: match.start()] + pgn[match.end() :]
    return pgn


def _quiet_builder() -> type[chess.pgn.GameBuilder]:
    """python-chess's game builder, keeping its errors in ``game.errors`` without logging."""
    import chess.pgn

    class QuietBuilder(chess.pgn.GameBuilder):
        def handle_error(self, error: Exception) -> None:
            self.game.errors.append(error)

    return QuietBuilder


def movetext(game: chess.pgn.Game) -> str:
    """The solution as readable movetext: moves, variations, comments and NAGs.

    >>> movetext(read_game('[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\\n\\n1. c7 {only move} Rd6+ *'))
    '1. c7 { only move } 1... Rd6+ *'
    """
    import chess.pgn

    exporter = chess.pgn.StringExporter(
        headers=False, variations=True, comments=True, columns=MOVETEXT_COLUMNS
    )
    return game.accept(exporter).strip()


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
    variation).  A move has its ``node`` number (1, 2, … in reading order),
    the ``parent`` it follows (0 = the start position), the ``next`` move of
    its main line (None at the end), the position after it (``fen``), the move
    in UCI, the move number to show before it (``'1.'``, ``'1...'`` or ''),
    and its NAGs in order (:mod:`studydb.nags` says how to show them).
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


def solution_tokens(game: chess.pgn.Game) -> list[SolutionToken]:
    """The solution as tokens in reading order: moves, comments and variations.

    >>> fen = '[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\\n\\n'
    >>> game = read_game(fen + '1. c7 {only} (1. Kb7) Rd6+ *')
    >>> [(t.kind, t.number + t.text, t.node, t.parent, t.next) for t in solution_tokens(game)]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('move', '1.c7', 1, 0, 3), ('comment', 'only', 0, 0, None), ('open', '', 0, 0, None),
     ('move', '1.Kb7', 2, 0, None), ('close', '', 0, 0, None), ('move', '1...Rd6+', 3, 1, None)]
    """
    raw: list[dict[str, object]] = []
    ids: dict[int, int] = {}
    if game.comment:
        raw.append({"kind": "comment", "text": game.comment})
    _walk(game, game.board(), raw, ids, numbered=True)
    tokens = []
    for item in raw:
        node = item.pop("_node", None)
        if node is not None:
            item["next"] = ids[id(node.variations[0])] if node.variations else None
        tokens.append(SolutionToken(**item))
    return tokens


def _walk(
    node: chess.pgn.GameNode,
    board: chess.Board,
    out: list[dict[str, object]],
    ids: dict[int, int],
    *,
    numbered: bool,
) -> None:
    """Append the moves after ``node`` (main line, each move's side lines first)."""
    while node.variations:
        main, *sides = node.variations
        after = _emit_move(main, board, node, out, ids, numbered=numbered)
        for side in sides:
            out.append({"kind": "open"})
            side_board = _emit_move(side, board, node, out, ids, numbered=True)
            _walk(side, side_board, out, ids, numbered=bool(side.comment))
            out.append({"kind": "close"})
        numbered = bool(sides) or bool(main.comment)
        node, board = main, after


def _emit_move(
    child: chess.pgn.ChildNode,
    board: chess.Board,
    parent: chess.pgn.GameNode,
    out: list[dict[str, object]],
    ids: dict[int, int],
    *,
    numbered: bool,
) -> chess.Board:
    """Append one move (and the comments around it); return the board after it."""
    if child.starting_comment:
        out.append({"kind": "comment", "text": child.starting_comment})
    number = ""
    if board.turn == chess.WHITE:
        number = f"{board.fullmove_number}."
    elif numbered or child.starting_comment:
        number = f"{board.fullmove_number}..."
    san = board.san(child.move)
    after = board.copy(stack=False)
    after.push(child.move)
    ids[id(child)] = len(ids) + 1
    out.append(
        {
            "kind": "move",
            "text": san,
            "node": ids[id(child)],
            "parent": ids.get(id(parent), 0),
            "fen": after.fen(),
            "uci": child.move.uci(),
            "number": number,
            "nags": tuple(sorted(child.nags)),
            "_node": child,
        }
    )
    if child.comment:
        out.append({"kind": "comment", "text": child.comment})
    return after


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
    '1  ♔  ·  ·  ·  ·  ·  ·  ♚ '
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
        text.append("\n")
    files = "".join(f" {name[0]} " for name, _, _ in rows[-1])
    text.append(f"  {files}", style="dim")
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
