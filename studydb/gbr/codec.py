"""GBR codes of positions, and what a code means.

For each piece type in Q, R, B, N order the digit is white count + 3 x black
count when both counts are at most 2, and 9 when either side has three or
more; after the point come the white and the black pawn counts.  Kings are not
coded.

This module reads FENs with its own validating parser (much faster than
``chess.Board``) and imports :mod:`chess` only when it must: for a FEN its
fast parser does not accept (to let python-chess decide and word the error),
or when given a :class:`chess.Board`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from studydb.errors import QUOTE_LIMIT, GbrError, quote

if TYPE_CHECKING:
    import chess

__all__ = [
    "Counts",
    "GbrError",
    "Material",
    "encode",
    "expand_placement",
    "material",
    "material_from_counts",
    "material_from_expanded",
    "parse",
    "parse_signature",
]

PIECE_TYPES = "QRBN"
"""The coded piece types, in code-digit order."""

UNKNOWN_MARK = "*"
"""Signature marker for an unknown count: ``N*`` is "some knights, count unknown"."""

# A subset of what python-chess accepts as a FEN: board part, then optional
# turn, castling, en passant, half-move and full-move fields, single spaces.
# Anything else goes to chess.Board, which decides.
_FAST_FEN_RE = re.compile(
    r"([1-8PNBRQKpnbrqk/]{15,71})"
    r"(?: [wb](?: (?:-|(?=[KQkq])K?Q?k?q?)(?: (?:-|[a-h][1-8])"
    r"(?: [0-9]{1,6}(?: [0-9]{1,6})?)?)?)?)?",
    re.ASCII,
)
_TWO_DIGITS_RE = re.compile(r"[1-8]{2}")
_EXPAND = str.maketrans({str(n): "." * n for n in range(1, 9)})
_CODE_RE = re.compile(r"([0-9]{4})(?:\.([0-9]{2}))?", re.ASCII)
_LOOSE_CODE_RE = re.compile(r"[0-9]+(?:\.[0-9]*)?", re.ASCII)


class Counts(NamedTuple):
    """How many men of each type one side has; ``None`` where unknown.

    A piece count is ``None`` for a 9 digit ("three or more on at least one
    side, split unknown"); the pawn count is ``None`` when the code gives no
    pawns.  Kings are not counted: every side has exactly one.
    """

    q: int | None
    r: int | None
    b: int | None
    n: int | None
    p: int | None


@dataclass(frozen=True)
class Material:
    """The material a GBR code stands for (or a position has).

    ``signature`` is python-chess/Syzygy style (``KRBvKNN``); a type whose count
    is unknown is written with :data:`UNKNOWN_MARK` after its letter on the
    side where it is unknown: ``0009.00`` is ``KN*vKN*`` (three or more knights
    on one side, split unknown) and ``4100`` is ``KQRP*vKQP*`` (pawns
    unspecified).  ``men`` counts all men including kings, ``None`` when any
    count is unknown.

    >>> m = parse("0300.10")
    >>> m.white, m.black
    (Counts(q=0, r=0, b=0, n=0, p=1), Counts(q=0, r=1, b=0, n=0, p=0))
    >>> m.signature, m.men
    ('KPvKR', 4)
    """

    white: Counts
    black: Counts
    digits: tuple[int, int, int, int]
    pawns: tuple[int, int] | None
    code: str
    signature: str
    men: int | None

    def flipped(self) -> Material:
        """The same material with the colours swapped.

        >>> parse("0300.10").flipped().code
        '0100.01'
        """
        return _make_material(self.black, self.white)

    @property
    def has_unknown(self) -> bool:
        """Whether some count is unknown (a 9 digit, or pawns unspecified)."""
        return self.men is None


def _digit(white: int | None, black: int | None) -> int:
    if white is None or black is None or white > 2 or black > 2:
        return 9
    return white + 3 * black


def _side_signature(counts: Counts) -> str:
    parts = ["K"]
    for letter, count in zip("QRBNP", counts, strict=True):
        parts.append(letter + UNKNOWN_MARK if count is None else letter * count)
    return "".join(parts)


@lru_cache(maxsize=4096)
def _make_material(white: Counts, black: Counts) -> Material:
    """Build a :class:`Material` from both sides' counts (made once for each: it is
    frozen, and an import meets the same classes again and again)."""
    digits = (
        _digit(white.q, black.q),
        _digit(white.r, black.r),
        _digit(white.b, black.b),
        _digit(white.n, black.n),
    )
    pawns = None if white.p is None or black.p is None else (white.p, black.p)
    code = "".join(map(str, digits))
    if pawns is not None:
        code += f".{pawns[0]}{pawns[1]}"
    known = [c for c in (*white, *black) if c is not None]
    men = 2 + sum(known) if len(known) == 10 else None
    signature = _side_signature(white) + "v" + _side_signature(black)
    return Material(white, black, digits, pawns, code, signature, men)


def material_from_counts(counts: Sequence[int]) -> Material:
    """The :class:`Material` of exact counts wq wr wb wn wp bq br bb bn bp (a position's men
    besides the kings), made from them directly.

    >>> material_from_counts((0, 0, 0, 0, 1, 0, 1, 0, 0, 0)).signature
    'KPvKR'

    :raises GbrError: for counts no position has: not ten, or below 0, or a side with
        more than 8 pawns or 16 men.
    """
    if len(counts) != 10 or min(counts) < 0:
        raise GbrError(f"expected ten counts of at least 0, got {counts!r}")
    for side, name in ((counts[:5], "White"), (counts[5:], "Black")):
        if side[4] > 8 or sum(side) > 15:
            limit = "8 pawns" if side[4] > 8 else "16 men"
            raise GbrError(f"impossible counts {tuple(counts)!r}: {name} has more than {limit}")
    return _make_material(Counts(*counts[:5]), Counts(*counts[5:]))


# -- positions -------------------------------------------------------------


def expand_placement(placement: str) -> str | None:
    """A FEN's piece placement expanded: 71 characters, ``.`` an empty square and ``/``
    between the ranks (a8 first); None when it is not eight ranks of eight squares.

    The one fast FEN reader: what it refuses goes to ``chess.Board``, which says why.

    >>> expand_placement("8/8/1KP5/3r4/8/8/8/k7")[18:27]
    '.KP...../'
    >>> expand_placement("8/8/8/8/8/8/8/44") is None  # two digits in a row
    True
    """
    if _TWO_DIGITS_RE.search(placement):
        return None
    expanded = placement.translate(_EXPAND)
    if len(expanded) != 71 or expanded[8::9] != "///////" or expanded.count("/") != 7:
        return None
    return expanded


def _expand_fast(fen: str) -> str | None:
    """Expanded board part (71 chars, ``.`` for empty) of a plain FEN, or None."""
    match = _FAST_FEN_RE.fullmatch(fen)
    return None if match is None else expand_placement(match.group(1))


def _expand_board(position: chess.Board | str) -> tuple[str, str]:
    """The expanded board part of a position, and the FEN to quote in errors."""
    if isinstance(position, str):
        fen = position.strip()
        expanded = _expand_fast(fen)
        if expanded is None:
            import chess

            try:
                board = chess.Board(fen)
            except ValueError as exc:
                reason = str(exc).removesuffix(f": {fen!r}")  # python-chess quotes it whole
                if len(reason) > 2 * QUOTE_LIMIT:  # or quotes a part of it, as long
                    reason = reason[: 2 * QUOTE_LIMIT] + "…"
                raise GbrError(f"invalid FEN {quote(position)}: {reason}") from None
            expanded = board.board_fen().translate(_EXPAND)
        return expanded, position
    try:
        board_fen = position.board_fen()
    except AttributeError:
        raise GbrError(f"expected a FEN or a chess.Board, got {position!r}") from None
    return board_fen.translate(_EXPAND), position.fen()


def _check_men(expanded: str, fen: str) -> None:
    for king, side in (("K", "White"), ("k", "Black")):
        kings = expanded.count(king)
        if kings != 1:
            raise GbrError(f"invalid position {fen!r}: {side} has {kings} kings, needs exactly 1")
    for pawn, side in (("P", "White"), ("p", "Black")):
        pawns = expanded.count(pawn)
        if pawns > 8:
            raise GbrError(f"invalid position {fen!r}: {side} has {pawns} pawns, at most 8")


def _expand_checked(position: chess.Board | str) -> str:
    expanded, fen = _expand_board(position)
    _check_men(expanded, fen)
    return expanded


def _code_of(expanded: str) -> str:
    count = expanded.count
    digits = []
    for letter in PIECE_TYPES:
        white = count(letter)
        black = count(letter.lower())
        digits.append("9" if white > 2 or black > 2 else str(white + 3 * black))
    return f"{''.join(digits)}.{count('P')}{count('p')}"


def _material_of(expanded: str) -> Material:
    count = expanded.count
    white = Counts(*(count(letter) for letter in "QRBNP"))
    black = Counts(*(count(letter) for letter in "qrbnp"))
    return _make_material(white, black)


def material_from_expanded(expanded: str, fen: str) -> Material:
    """The exact material of a placement :func:`expand_placement` expanded, checked as
    :func:`material` checks a position's (``fen``: the position, as errors quote it).

    >>> placement = "8/8/1KP5/3r4/8/8/8/k7"
    >>> material_from_expanded(expand_placement(placement), f"{placement} w").code
    '0300.10'

    :raises GbrError: for a side without exactly one king, or more than 8 pawns of a colour.
    """
    _check_men(expanded, fen)
    return _material_of(expanded)


def encode(position: chess.Board | str) -> str:
    """The GBR code of a position (a FEN or a :class:`chess.Board`).

    >>> encode("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")  # Saavedra
    '0300.10'
    >>> encode("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    '4888.88'

    :raises GbrError: for a FEN python-chess cannot read, a side without
        exactly one king, or more than 8 pawns of a colour.
    """
    return _code_of(_expand_checked(position))


def material(position: chess.Board | str) -> Material:
    """The exact material of a position (a FEN or a :class:`chess.Board`).

    Unlike :func:`parse`, counts are exact even for a 9 digit.

    >>> m = material("8/8/8/8/8/8/NNN5/K6k w - - 0 1")
    >>> m.code, m.signature, m.white.n
    ('0009.00', 'KNNNvK', 3)
    """
    return _material_of(_expand_checked(position))


# -- codes and signatures --------------------------------------------------


def parse(code: str) -> Material:
    """What a GBR code means: ``'0300.10'``, or ``'4100'`` (pawns unspecified).

    A 9 digit means "three or more of that type on at least one side": both
    sides' counts of the type are then ``None`` (unknown), never guessed.

    >>> parse("0023").signature
    'KBBP*vKNP*'
    >>> m = parse("0009.00")
    >>> m.white.n, m.black.n, m.signature, m.men
    (None, None, 'KN*vKN*', None)

    :raises GbrError: if the code is malformed (``'03a0.10'``, ``'12345'``,
        ``'0300.1'``) or claims more than 8 pawns.
    """
    if not isinstance(code, str):
        raise GbrError(f"expected a GBR code string, got {code!r}")
    text = code.strip()
    match = _CODE_RE.fullmatch(text)
    if match is None:
        raise GbrError(f"malformed GBR code {code!r}: {_code_problem(text)}")
    pieces, pawns = match.groups()
    white: list[int | None] = []
    black: list[int | None] = []
    for char in pieces:
        digit = int(char)
        if digit == 9:
            white.append(None)
            black.append(None)
        else:
            b, w = divmod(digit, 3)
            white.append(w)
            black.append(b)
    if pawns is None:
        white.append(None)
        black.append(None)
    else:
        if "9" in pawns:
            raise GbrError(f"malformed GBR code {code!r}: a side has at most 8 pawns")
        white.append(int(pawns[0]))
        black.append(int(pawns[1]))
    return _make_material(Counts(*white), Counts(*black))


def _code_problem(text: str) -> str:
    if not text:
        return "it is empty"
    bad = next((c for c in text if c not in "0123456789."), None)
    if bad is not None:
        return f"{bad!r} is not a digit; expected 'dddd.dd' or 'dddd' (like '0300.10')"
    if not _LOOSE_CODE_RE.fullmatch(text):
        return "expected at most one point; expected 'dddd.dd' or 'dddd' (like '0300.10')"
    pieces, _, pawns = text.partition(".")
    if len(pieces) != 4:
        return f"expected 4 piece digits before the point, got {len(pieces)}"
    return f"expected 2 pawn digits after the point, got {len(pawns)}"


_SIDE_RE = re.compile(r"(?:[KQRBNP]\*?)+", re.ASCII)


def parse_signature(signature: str) -> Material:
    """Material from a signature such as ``'KRPvKR'`` (letters and 'v' in any case).

    ``X*`` stands for an unknown number of X, as :attr:`Material.signature` writes it.

    >>> parse_signature("KRPvKR").code
    '0400.10'
    >>> parse_signature("kbbvkn").code
    '0023.00'

    :raises GbrError: if the signature is malformed or impossible.
    """
    if not isinstance(signature, str):
        raise GbrError(f"expected a signature string, got {signature!r}")
    text = signature.strip().upper()
    sides = text.split("V")
    if len(sides) != 2:
        raise GbrError(f"malformed signature {signature!r}: expected one 'v' between the sides")
    counts = []
    for side, name in zip(sides, ("White", "Black"), strict=True):
        if not _SIDE_RE.fullmatch(side):
            raise GbrError(
                f"malformed signature {signature!r}: {name} side {side!r} must be "
                "made of K, Q, R, B, N, P (each optionally followed by '*')"
            )
        if side.count("K") != 1 or "K*" in side:
            raise GbrError(f"malformed signature {signature!r}: {name} needs exactly one K")
        side_counts: list[int | None] = []
        for letter in "QRBNP":
            side_counts.append(None if letter + "*" in side else side.count(letter))
        known = [c for c in side_counts if c is not None]
        if (side_counts[4] or 0) > 8:
            raise GbrError(f"impossible signature {signature!r}: {name} has more than 8 pawns")
        if sum(known) > 15:
            raise GbrError(f"impossible signature {signature!r}: {name} has more than 16 men")
        counts.append(Counts(*side_counts))
    return _make_material(counts[0], counts[1])
