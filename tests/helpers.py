"""Helpers that several test modules share (fixtures live in ``conftest.py``)."""

from __future__ import annotations

import chess

#: Two kings far apart: every move of the nested study below stays legal.
NESTED_FEN = "7k/8/8/8/8/8/8/K7 w - - 0 1"
# White's king steps between a1 and b1, a main move and a variation each time; Black's
# between h8 and g8.
_NESTED_STEPS = {"a1": ("Ka2", "Kb1"), "b1": ("Kc1", "Ka1")}
_BLACK_STEPS = {"h8": "Kg8", "g8": "Kh8"}


def nested_study(depth: int) -> str:
    """Movetext whose variations nest ``depth`` deep, each two plies further on.

    Played from :data:`NESTED_FEN`: ``1. Ka2 (1. Kb1 Kg8 2. Kc1 (2. Ka1 Kh8 3. Ka2 (…))) *``.

    >>> nested_study(2)
    '1. Ka2 ( 1. Kb1 Kg8 2. Kc1 ( 2. Ka1 Kh8 ) ) *'
    """
    board = chess.Board(NESTED_FEN)
    parts = []
    for _ in range(depth):
        white = chess.square_name(board.king(chess.WHITE) or 0)
        main, variation = _NESTED_STEPS[white]
        number = board.fullmove_number
        reply = _BLACK_STEPS[chess.square_name(board.king(chess.BLACK) or 0)]
        parts.append(f"{number}. {main} ( {number}. {variation} {reply}")
        board.push_san(variation)
        board.push_san(reply)
    return " ".join(parts) + " )" * depth + " *"


#: Studies each movetext reader once got wrong (issue 15), by Event.
WALKS = {
    "two blank lines": (
        "8/8/8/8/8/2k5/7R/K7 w - - 0 1",
        "win",
        "\n\n1. Rh3+ Kd4 2. Kb2 Ke4 *",
    ),
    "siblings": (
        "8/8/8/8/8/2k5/8/K6R w - - 0 1",
        "win",
        "\n1. Rh3+ (1. Rh4 (1. Rh5) 1... Kd3) 1... Kd4 *",
    ),
    "broken variation": (
        "8/8/8/8/8/2k5/7R/K7 w - - 0 1",
        "win",
        "\n1. Rh3+ (1. Rc2+ Kb3 2. Qc2) 1... Kd4 2. Rd3+ Kxd3 *",
    ),
    "move 10000": ("k7/8/8/8/8/8/8/K7 w - - 0 9999", "draw", "\n9999. Kb1 Kb8 10000. Ka1 Ka8 *"),
    "nested": (NESTED_FEN, "draw", "\n" + nested_study(1500)),
}


def walks_pgn() -> str:
    """The :data:`WALKS` studies as one PGN text."""
    return "".join(
        f'[Event "{event}"]\n[Stipulation "{stipulation}"]\n[FEN "{fen}"]\n{text}\n\n'
        for event, (fen, stipulation, text) in WALKS.items()
    )
