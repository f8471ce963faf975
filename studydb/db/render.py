"""Reading a stored study back: its game, readable movetext and a board diagram.

Pure helpers for ``studydb show`` and friends; no printing, no database.

>>> rows = diagram_rows(chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"))
>>> [(name, piece.symbol()) for name, piece, _ in rows[2] if piece]
[('b6', 'K'), ('c6', 'P')]
"""

from __future__ import annotations

import io

import chess
import chess.pgn
import chess.svg

__all__ = ["SIDE_NAMES", "diagram_rows", "movetext", "read_game", "svg_diagram"]

SIDE_NAMES = {"w": "White", "b": "Black"}

#: Columns the movetext is wrapped at.
MOVETEXT_COLUMNS = 80


def read_game(pgn: str) -> chess.pgn.Game:
    """Parse a stored study's PGN (one game); a game python-chess cannot read is empty.

    Problems python-chess recovered from are in ``game.errors``.
    """
    game = chess.pgn.read_game(io.StringIO(pgn))
    return game if game is not None else chess.pgn.Game()


def movetext(game: chess.pgn.Game) -> str:
    """The solution as readable movetext: moves, variations, comments and NAGs.

    >>> movetext(read_game('[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\\n\\n1. c7 {only move} Rd6+ *'))
    '1. c7 { only move } 1... Rd6+ *'
    """
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


def svg_diagram(board: chess.Board, *, flipped: bool = False, size: int = 400) -> str:
    """The position as an SVG image with coordinates (``chess.svg``)."""
    return chess.svg.board(board, orientation=not flipped, size=size, coordinates=True)
