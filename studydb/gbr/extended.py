"""ARVES extended GBR notation and the stipulation form.

Extended notation names every man: the kings' squares (White's, then Black's),
the GBR code, the squares of the other pieces in code-digit order (Q, R, B, N;
within a type White's before Black's; squares sorted), a point and the pawns'
squares (White's before Black's), then optionally the control count ``W/B``
(men including kings) and the result sign (``+`` win, ``=`` draw)::

    b6a1 0300.10 d5.c6 2/2          Saavedra
    g3g1 0323.12 a3a2e1g8.h6c3c6 4/5=   Kubbel

The stipulation form is the sign, the code and the kings' squares:
``=0323.12g3g1``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from studydb.gbr.codec import (
    _EXPAND,
    PIECE_TYPES,
    GbrError,
    Material,
    _code_of,
    _expand_checked,
    _material_of,
    parse,
)

if TYPE_CHECKING:
    import chess

__all__ = [
    "Extended",
    "StipulationForm",
    "decode_extended",
    "encode_extended",
    "encode_stipulation_form",
    "normalise_stipulation",
    "parse_extended",
    "parse_stipulation_form",
]

SIGNS = {"win": "+", "draw": "="}
STIPULATIONS = {"+": "win", "=": "draw"}

# Square name of each index of an expanded board part (rank 8 first, '/' between ranks).
_NAMES = ["" if i % 9 == 8 else "abcdefgh"[i % 9] + str(8 - i // 9) for i in range(71)]
_SQUARE_RE = re.compile(r"[a-h][1-8]", re.ASCII)
_CONTROL_RE = re.compile(r"(?:([0-9]+)/([0-9]+))?([+=])?", re.ASCII)
_STIP_FORM_RE = re.compile(r"([+=])?([0-9.]+)(\S*)", re.ASCII)


class Extended(NamedTuple):
    """A decoded extended notation: the position and what came with it."""

    board: chess.Board
    """The position (White to move and no castling unless asked otherwise)."""
    fen: str
    material: Material
    """Exact material of the position."""
    stipulation: str | None
    """``'win'``, ``'draw'`` or ``None`` when no sign was given."""
    control: tuple[int, int] | None
    """The control count as written (men including kings), or ``None``."""


class StipulationForm(NamedTuple):
    """A decoded stipulation form such as ``'=0323.12g3g1'``."""

    stipulation: str
    """``'win'`` or ``'draw'``."""
    material: Material
    white_king: str
    """White king's square name, like ``'g3'``."""
    black_king: str
    """Black king's square name."""


def normalise_stipulation(stipulation: str) -> str:
    """``'win'`` or ``'draw'`` from ``'win'``, ``'draw'``, ``'+'`` or ``'='`` (any case).

    >>> normalise_stipulation("=")
    'draw'
    """
    text = stipulation.strip().lower() if isinstance(stipulation, str) else stipulation
    if text in SIGNS:
        return text
    if text in STIPULATIONS:
        return STIPULATIONS[text]
    raise GbrError(f"unknown stipulation {stipulation!r}: expected 'win', 'draw', '+' or '='")


def _squares_by_symbol(expanded: str) -> dict[str, list[str]]:
    squares: dict[str, list[str]] = {}
    for index, symbol in enumerate(expanded):
        if symbol != "." and symbol != "/":
            squares.setdefault(symbol, []).append(_NAMES[index])
    for names in squares.values():
        names.sort()
    return squares


def encode_extended(
    position: chess.Board | str,
    *,
    stipulation: str | None = None,
    control: bool = True,
) -> str:
    """ARVES extended notation of a position (a FEN or a :class:`chess.Board`).

    >>> encode_extended("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    'b6a1 0300.10 d5.c6 2/2'
    >>> encode_extended("6n1/8/2p4P/8/8/r1p3K1/B7/4B1k1 w - - 0 1", stipulation="draw")
    'g3g1 0323.12 a3a2e1g8.h6c3c6 4/5='
    >>> encode_extended("8/8/8/8/8/8/8/K6k w - - 0 1", stipulation="win", control=False)
    'a1h1 0000.00 +'
    """
    expanded = _expand_checked(position)
    material = _material_of(expanded)
    squares = _squares_by_symbol(expanded)
    pieces = "".join(
        "".join(squares.get(symbol, ()))
        for letter in PIECE_TYPES
        for symbol in (letter, letter.lower())
    )
    pawns = "".join(squares.get("P", ())) + "".join(squares.get("p", ()))
    fields = [squares["K"][0] + squares["k"][0], material.code]
    placed = pieces + ("." + pawns if pawns else "")
    if placed:
        fields.append(placed)
    tail = ""
    if control:
        white_men = sum(len(v) for k, v in squares.items() if k.isupper())
        black_men = sum(len(v) for k, v in squares.items() if k.islower())
        tail = f"{white_men}/{black_men}"
    if stipulation is not None:
        tail += SIGNS[normalise_stipulation(stipulation)]
    if tail:
        fields.append(tail)
    return " ".join(fields)


def _split_squares(text: str, part: str) -> list[str]:
    squares = [part[i : i + 2] for i in range(0, len(part), 2)]
    for square in squares:
        if not _SQUARE_RE.fullmatch(square):
            raise GbrError(f"malformed square {square!r} in {text!r}")
    return squares


def parse_extended(text: str, *, turn: chess.Color = True, castling: str = "-") -> Extended:
    """Decode ARVES extended notation into a position and its extras.

    >>> ext = parse_extended("g3g1 0323.12 a3a2e1g8.h6c3c6 4/5=")
    >>> ext.fen
    '6n1/8/2p4P/8/8/r1p3K1/B7/4B1k1 w - - 0 1'
    >>> ext.stipulation, ext.control
    ('draw', (4, 5))

    :raises GbrError: for a malformed square or code, a square used twice, a
        control count that disagrees with the squares, square counts that
        disagree with the code, or a 9 digit (colours cannot be told apart).
    """
    import chess

    if not isinstance(text, str):
        raise GbrError(f"expected extended GBR notation, got {text!r}")
    tokens = text.split()
    if len(tokens) < 2:
        raise GbrError(
            f"malformed extended GBR {text!r}: expected kings' squares and a code, "
            "like 'b6a1 0300.10 d5.c6 2/2'"
        )
    kings, code, *rest = tokens
    if len(kings) != 4:
        raise GbrError(
            f"malformed extended GBR {text!r}: expected the two kings' squares "
            f"like 'b6a1', got {kings!r}"
        )
    white_king, black_king = _split_squares(text, kings)
    try:
        coded = parse(code)
    except GbrError as exc:
        raise GbrError(f"in extended GBR {text!r}: {exc}") from None
    if 9 in coded.digits:
        raise GbrError(
            f"cannot decode extended GBR {text!r}: the 9 digit in {code!r} does not "
            "say how many men of that type each side has, so the colours cannot be told apart"
        )
    placed = ""
    control: tuple[int, int] | None = None
    stipulation: str | None = None
    for index, token in enumerate(rest):
        match = _CONTROL_RE.fullmatch(token)
        if match and token:
            if index != len(rest) - 1:
                raise GbrError(f"malformed extended GBR {text!r}: {token!r} must come last")
            white, black, sign = match.groups()
            if white is not None:
                control = (int(white), int(black))
            if sign:
                stipulation = STIPULATIONS[sign]
        elif index == 0:
            placed = token
        else:
            raise GbrError(f"malformed extended GBR {text!r}: unexpected {token!r}")
    if placed.count(".") > 1:
        raise GbrError(f"malformed extended GBR {text!r}: more than one '.' in {placed!r}")
    piece_part, _, pawn_part = placed.partition(".")
    piece_squares = _split_squares(text, piece_part)
    pawn_squares = _split_squares(text, pawn_part)

    wanted = sum(w + b for w, b in (divmod(d, 3)[::-1] for d in coded.digits))
    if len(piece_squares) != wanted:
        raise GbrError(
            f"bad extended GBR {text!r}: code {code!r} needs {wanted} piece square(s), "
            f"got {len(piece_squares)}"
        )
    if coded.pawns is None:
        if pawn_squares:
            raise GbrError(
                f"bad extended GBR {text!r}: code {code!r} does not say how many "
                "pawns each side has"
            )
        pawn_counts = (0, 0)
    else:
        pawn_counts = coded.pawns
    if len(pawn_squares) != sum(pawn_counts):
        raise GbrError(
            f"bad extended GBR {text!r}: code {code!r} needs {sum(pawn_counts)} pawn "
            f"square(s), got {len(pawn_squares)}"
        )

    placements: list[tuple[str, int, bool]] = [
        (white_king, chess.KING, chess.WHITE),
        (black_king, chess.KING, chess.BLACK),
    ]
    squares = iter(piece_squares)
    for letter, digit in zip(PIECE_TYPES, coded.digits, strict=True):
        piece_type = chess.PIECE_SYMBOLS.index(letter.lower())
        black, white = divmod(digit, 3)
        placements += [(next(squares), piece_type, chess.WHITE) for _ in range(white)]
        placements += [(next(squares), piece_type, chess.BLACK) for _ in range(black)]
    pawns = iter(pawn_squares)
    placements += [(next(pawns), chess.PAWN, chess.WHITE) for _ in range(pawn_counts[0])]
    placements += [(next(pawns), chess.PAWN, chess.BLACK) for _ in range(pawn_counts[1])]

    board = chess.Board(None)
    seen: set[str] = set()
    for name, piece_type, color in placements:
        if name in seen:
            raise GbrError(f"bad extended GBR {text!r}: square {name} is used twice")
        seen.add(name)
        board.set_piece_at(chess.parse_square(name), chess.Piece(piece_type, color))
    white_men = 1 + sum(1 for _, _, color in placements[2:] if color)
    black_men = len(placements) - white_men
    if control is not None and control != (white_men, black_men):
        raise GbrError(
            f"bad extended GBR {text!r}: control count {control[0]}/{control[1]} "
            f"disagrees with the squares, which give {white_men}/{black_men}"
        )
    board.turn = turn
    try:
        board.set_castling_fen(castling)
    except ValueError as exc:
        raise GbrError(f"bad castling rights {castling!r}: {exc}") from None
    fen = board.fen()
    return Extended(board, fen, _material_of_board(board), stipulation, control)


def _material_of_board(board: chess.Board) -> Material:
    return _material_of(board.board_fen().translate(_EXPAND))


def decode_extended(text: str, *, turn: chess.Color = True, castling: str = "-") -> chess.Board:
    """The position an ARVES extended notation describes.

    White to move and no castling rights unless ``turn``/``castling`` say
    otherwise.  :func:`parse_extended` also gives the stipulation and the
    control count.

    >>> decode_extended("b6a1 0300.10 d5.c6 2/2").fen()
    '8/8/1KP5/3r4/8/8/8/k7 w - - 0 1'
    """
    return parse_extended(text, turn=turn, castling=castling).board


def encode_stipulation_form(position: chess.Board | str, stipulation: str) -> str:
    """Stipulation form: sign, GBR code, kings' squares (White's, then Black's).

    >>> encode_stipulation_form("6n1/8/2p4P/8/8/r1p3K1/B7/4B1k1 w - - 0 1", "draw")
    '=0323.12g3g1'
    """
    sign = SIGNS[normalise_stipulation(stipulation)]
    expanded = _expand_checked(position)
    return f"{sign}{_code_of(expanded)}{_NAMES[expanded.index('K')]}{_NAMES[expanded.index('k')]}"


def parse_stipulation_form(text: str) -> StipulationForm:
    """Decode a stipulation form such as ``'=0323.12g3g1'`` or ``'+0300g1a8'``.

    >>> form = parse_stipulation_form("=0323.12g3g1")
    >>> form.stipulation, form.material.code, form.white_king, form.black_king
    ('draw', '0323.12', 'g3', 'g1')

    :raises GbrError: if the sign, the code or a square is missing or malformed.
    """
    if not isinstance(text, str):
        raise GbrError(f"expected a stipulation form, got {text!r}")
    stripped = text.strip()
    match = _STIP_FORM_RE.fullmatch(stripped)
    if match is None:
        raise GbrError(
            f"malformed stipulation form {text!r}: expected a sign, a code and the "
            "kings' squares, like '=0323.12g3g1'"
        )
    sign, code, kings = match.groups()
    if sign is None:
        raise GbrError(f"malformed stipulation form {text!r}: it must start with '+' or '='")
    try:
        coded = parse(code)
    except GbrError as exc:
        raise GbrError(f"in stipulation form {text!r}: {exc}") from None
    if len(kings) != 4:
        raise GbrError(
            f"malformed stipulation form {text!r}: expected the two kings' squares "
            f"after the code, got {kings!r}"
        )
    white_king, black_king = _split_squares(text, kings)
    if white_king == black_king:
        raise GbrError(f"bad stipulation form {text!r}: both kings on {white_king}")
    return StipulationForm(STIPULATIONS[sign], coded, white_king, black_king)
