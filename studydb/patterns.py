"""Position patterns: pgn-extract's FENPattern and CQL-style piece designators (pure).

Both syntaxes compile to one form, a :class:`Pattern`: ranks (a FENPattern,
each rank a regular expression over its eight squares) and designators
(:class:`Designator`: how many of some squares hold some contents), all of
which must hold.  A board is matched as its *board text*, 64 characters in FEN
order (a8 … h8, a7 … h1), ``.`` for an empty square (:func:`board_text`).

**FENPattern**, as pgn-extract's manual defines it: eight ranks separated by
``/``; digits and piece letters keep their FEN meaning; ``?`` any square,
``!`` any occupied square, ``A`` any white piece, ``a`` any black piece, ``*``
zero or more squares (within its rank), ``[xyz]`` any of these pieces (``A``
and ``a`` allowed), ``[^xyz]`` anything but these (an empty square too).

**Designators** (``--pieces``), all of which must hold, ``not`` before one
negating it: a piece set (``K``, ``[QR]``, ``A`` any white, ``a`` any black,
``!`` any, ``_`` empty) and a square set (``a1``, ``.`` anywhere, ``[a-h]7``,
``[a-d][1-4]``, ``[a1,c3,e5]``, ``[a1-8,a-h1]``), then an optional count
(``{2}`` exactly, ``{1,}`` at least, ``{,3}`` at most, ``{1,2}``; at least
one without it).

>>> board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
>>> parse_fen_pattern("*/*/?KP*/*/*/*/*/k7").matches(board_text(board))
True
>>> parse_pieces("K[a-h]6 r. not Q.").matches(board_text(board))
True
"""

from __future__ import annotations

import array
import re
import sys
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import chess

from studydb import compression
from studydb.errors import QueryError, quote

__all__ = [
    "CONTENTS",
    "EMPTY_LINE_TEXT",
    "LINE_PLACES",
    "LINE_WIDTH",
    "MAN_OF_BYTE",
    "MEN",
    "BoardLines",
    "Designator",
    "Found",
    "Occupancy",
    "Pattern",
    "PatternError",
    "board_line",
    "board_text",
    "decode_boards",
    "decode_occupancy",
    "encode_board_text",
    "encode_boards",
    "encode_occupancy",
    "parse_fen_pattern",
    "parse_piece_set",
    "parse_pieces",
    "parse_square_set",
    "signed",
    "text_of_men",
    "unsigned",
]

#: What a square can hold: the white and black pieces and ``.`` (empty).
CONTENTS = "KQRBNPkqrbnp."
WHITE = frozenset("KQRBNP")
BLACK = frozenset("kqrbnp")
PIECES = WHITE | BLACK
#: The letters of a piece set that stand for more than one content.
_SET_LETTERS = {"A": WHITE, "a": BLACK, "!": PIECES, "_": frozenset("."), "?": frozenset(CONTENTS)}
#: The longest pattern text read (a FENPattern is at most 8 ranks of a few tokens each).
MAX_PATTERN = 1000
_FILES = "abcdefgh"
#: A board text's characters in the order of python-chess's squares (a1 = 0).
_TEXT_INDEX = tuple((7 - chess.square_rank(s)) * 8 + chess.square_file(s) for s in chess.SQUARES)
#: The python-chess square of each board-text index (:data:`_TEXT_INDEX`'s inverse).
_SQUARE_OF_INDEX = tuple(sorted(chess.SQUARES, key=lambda square: _TEXT_INDEX[square]))


#: Each man's letter, its piece type and its colour (read a bitboard at a time).
_SYMBOLS = tuple(
    (chess.Piece(piece_type, colour).symbol(), piece_type, colour)
    for colour in chess.COLORS
    for piece_type in chess.PIECE_TYPES
)


def board_text(board: chess.Board) -> str:
    """The 64 squares of ``board`` in FEN order, ``.`` for an empty one.

    >>> board_text(chess.Board("8/8/8/8/8/8/8/K6k w - - 0 1"))[-8:]
    'K......k'
    """
    squares = ["."] * 64
    index = _TEXT_INDEX
    for symbol, piece_type, colour in _SYMBOLS:
        for square in chess.scan_forward(board.pieces_mask(piece_type, colour)):
            squares[index[square]] = symbol
    return "".join(squares)


#: The men by number, the low four bits of a man's code (``studydb.positions.men_of``:
#: 0-5 white pawn … king, 6-11 black), as a board text writes them; the manoeuvre
#: search's keys number them so too.
MEN = "PNBRQKpnbrqk"
#: The man number of each byte of a board text (-1: an empty square, or no man).
MAN_OF_BYTE = tuple(MEN.find(chr(byte)) for byte in range(256))


def text_of_men(men: Iterable[int]) -> str:
    """The board text of men given as ``square * 16 + piece`` codes (``positions.men_of``).

    >>> text_of_men([5, 7 * 16 + 11])[-8:]
    'K......k'
    """
    squares = ["."] * 64
    for code in men:
        squares[_TEXT_INDEX[code >> 4]] = MEN[code & 15]
    return "".join(squares)


def signed(bits: int) -> int:
    """A 64-bit bitboard as a signed 64-bit integer, as SQL stores it (bit 63 the sign).

    >>> signed(1 << 63), signed(5)
    (-9223372036854775808, 5)
    """
    return bits - (1 << 64) if bits >> 63 else bits


def unsigned(value: int) -> int:
    """A bitboard read back from SQL (:func:`signed`'s inverse).

    >>> unsigned(signed(1 << 63)) == 1 << 63
    True
    """
    return value & ((1 << 64) - 1)


def _mirror_text(text: str) -> str:
    """The board text with the ranks in reverse order (White's side becomes Black's)."""
    return "".join(text[rank * 8 : rank * 8 + 8] for rank in range(7, -1, -1))


def invert_colours(text: str) -> str:
    """The board text with colours inverted: ranks reversed and every piece's colour swapped.

    This is ``chess.Board.mirror()``, the colour-reversed position.

    >>> text = board_text(chess.Board("k7/8/8/8/8/8/8/7K w - - 0 1"))
    >>> invert_colours(text) == board_text(chess.Board("k7/8/8/8/8/8/8/7K w - - 0 1").mirror())
    True
    """
    return _mirror_text(text).swapcase()


# -- board lines: how the index stores every position's board -----------------------

#: One node's line: ``m``/``v`` (main line or variation), ``w``/``b`` (side to move),
#: the ply in six digits, the board text with ``/`` between ranks, a newline.
LINE_WIDTH = 80
_PREFIX = 8
MAX_PLY = 999_999
#: The first byte of a stored block: the format (1: zlib of the lines, written before
#: revision 0017; 2: :mod:`studydb.compression`'s zstd, written since).
_ZLIB_FORMAT, _FORMAT = b"\x01", b"\x02"


def board_line(text: str, *, main: bool, white: bool, ply: int) -> str:
    """The stored line of one position (node order is line order).

    >>> board_line("K" + "." * 62 + "k", main=True, white=True, ply=3)[:12]
    'mw000003K...'
    """
    flags = f"{'m' if main else 'v'}{'w' if white else 'b'}"
    return f"{flags}{min(ply, MAX_PLY):06d}{_with_slashes(text)}\n"


#: An empty board's text as a board line holds it (ranks 8 to 1, ``/`` between them), and
#: the place of each python-chess square (a1 = 0) in it: a board built as bytes
#: (:meth:`studydb.positions.IndexRows.boards`).
EMPTY_LINE_TEXT = b"/".join([b"." * 8] * 8)
LINE_PLACES = tuple(index + index // 8 for index in _TEXT_INDEX)
LINE_FLAGS = {
    (main, white): (b"m" if main else b"v") + (b"w" if white else b"b")
    for main in (True, False)
    for white in (True, False)
}
#: :func:`board_line` as bytes, ``%``-formatted: its :data:`LINE_FLAGS`, ply (at most
#: :data:`MAX_PLY`) and board text laid out as :data:`LINE_PLACES` says (every node's
#: at once: :meth:`studydb.positions.IndexRows.boards`).
LINE_FORMAT = b"%s%06d%s\n"


def encode_boards(lines: Iterable[str]) -> bytes:
    """A study's board lines as stored: compressed (similar lines compress well).

    >>> line = board_line("K" + "." * 62 + "k", main=True, white=True, ply=0)
    >>> decode_boards(encode_boards([line, line])) == line * 2
    True
    """
    return encode_board_text("".join(lines).encode("ascii"))


def encode_board_text(text: bytes) -> bytes:
    """A study's board lines, joined and as ASCII bytes, as stored (:func:`encode_boards`)."""
    return _FORMAT + compression.compress(text)


def decode_boards(blob: bytes) -> str:
    """The board lines of a stored block (:func:`encode_boards`), in either format.

    >>> line = board_line("K" + "." * 62 + "k", main=True, white=True, ply=0)
    >>> decode_boards(_ZLIB_FORMAT + zlib.compress(line.encode())) == line
    True
    """
    kind = blob[:1]
    if kind == _FORMAT:
        return compression.decompress(blob[1:]).decode("ascii")
    if kind != _ZLIB_FORMAT:
        raise ValueError(f"unknown board block format {kind!r}")
    try:
        return zlib.decompress(blob[1:]).decode("ascii")
    except zlib.error as exc:
        raise ValueError(f"damaged board block: {exc}") from None


class BoardLines:
    """A stored block's board lines (:func:`encode_boards`), inflated only as far as they
    are read: a line search often needs the first nodes' boards only (a zstd block is
    inflated whole at the first read: a study's lines are a few kilobytes).

    >>> line = board_line("K" + "." * 62 + "k", main=True, white=True, ply=0)
    >>> lines = BoardLines(_ZLIB_FORMAT + zlib.compress(line.encode() * 100))
    >>> len(lines.upto(2)) // LINE_WIDTH, lines.complete, len(lines.upto()) // LINE_WIDTH
    (2, False, 100)
    >>> lines = BoardLines(encode_boards([line] * 100))
    >>> len(lines.upto(2)) // LINE_WIDTH, lines.complete
    (100, True)
    """

    def __init__(self, blob: bytes) -> None:
        if blob[:1] not in (_FORMAT, _ZLIB_FORMAT):
            raise ValueError(f"unknown board block format {blob[:1]!r}")
        self._inflater = zlib.decompressobj() if blob[:1] == _ZLIB_FORMAT else None
        self._blob = blob
        self._unread = blob[1:]
        self.text = ""
        self.complete = False

    @classmethod
    def of_text(cls, text: str) -> BoardLines:
        """The lines of :func:`decode_boards`' text, read already."""
        lines = cls(_FORMAT)
        lines.text, lines.complete = text, True
        return lines

    def upto(self, nodes: int | None = None) -> str:
        """The lines of at least the first ``nodes`` nodes (all of them when the block has
        fewer, or ``nodes`` is None): whole lines, in node order."""
        inflater = self._inflater
        if inflater is None:
            if not self.complete:
                self.text, self.complete = decode_boards(self._blob), True
            return self.text
        while not self.complete and (nodes is None or len(self.text) < nodes * LINE_WIDTH):
            wanted = 0 if nodes is None else nodes * LINE_WIDTH - len(self.text)  # 0: all
            chunk = inflater.decompress(self._unread, wanted)
            self._unread = inflater.unconsumed_tail
            self.text += chunk.decode("ascii")
            self.complete = inflater.eof or not (chunk or self._unread)
        return self.text


# -- occupancy blocks: which squares hold a man, position by position -----------------

#: A study's occupancy block, decoded: nine planes of a byte a position, in node order;
#: plane ``r`` (0 … 7) is rank ``r + 1`` (bit ``f`` file ``f``, a man there), plane 8
#: the flags (:data:`MAIN_FLAG`, :data:`WHITE_FLAG`).
PLANES = 9
FLAGS_PLANE = 8
#: A flags byte's bits: the position is on the main line; White is to move.
MAIN_FLAG = 1
WHITE_FLAG = 2
#: The first byte of a stored occupancy block: the format (1: raw deflate of the planes).
_OCCUPANCY_FORMAT = b"\x01"
#: Each byte's squares, file a first, ``x`` for a man and ``.`` for an empty square.
_SHAPES = tuple(
    "".join("x" if byte >> file & 1 else "." for file in range(8)) for byte in range(256)
)
_POPCOUNT = tuple(byte.bit_count() for byte in range(256))


def encode_occupancy(occupied: Iterable[int], flags: bytes) -> bytes:
    """A study's occupancy block: each node's occupied squares (a python-chess bitboard,
    a1 = bit 0) and flags, as planes (one a rank, then the flags), compressed.

    Planes compress well (a rank's byte seldom changes from one ply to the next) and
    a rank's plane is one slice.

    >>> block = encode_occupancy([chess.BB_A1 | chess.BB_H8, chess.BB_B1], bytes([3, 1]))
    >>> decode_occupancy(block).hex(" ")
    '01 02 00 00 00 00 00 00 00 00 00 00 00 00 80 00 03 01'
    """
    bitboards = array.array("Q", occupied)  # 8 bytes each, little-endian: a1's rank first
    if sys.byteorder == "big":
        bitboards.byteswap()
    squares = bitboards.tobytes()
    planes = b"".join(squares[rank::8] for rank in range(8)) + flags
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return _OCCUPANCY_FORMAT + packer.compress(planes) + packer.flush()


def decode_occupancy(blob: bytes) -> bytes:
    """The planes of a stored occupancy block (:func:`encode_occupancy`)."""
    if blob[:1] != _OCCUPANCY_FORMAT:
        raise ValueError(f"unknown occupancy block format {blob[:1]!r}")
    return zlib.decompress(blob[1:], -15)


@dataclass(frozen=True)
class Occupancy:
    """What the occupied squares of a board that fits a pattern are: for some planes of
    an occupancy block, a table of the bytes allowed (``bytes.translate``'s: 1 allowed,
    0 not).  ``exact``: the tables decide the pattern (no board need be read).

    >>> empty_8th = parse_fen_pattern("8/*/*/*/*/*/*/*").occupancy()
    >>> start, later = chess.BB_RANK_8 | chess.BB_E1, chess.BB_E1 | chess.BB_E7
    >>> empty_8th.fits(decode_occupancy(encode_occupancy([start], bytes([3]))))
    False
    >>> empty_8th.fits(decode_occupancy(encode_occupancy([start, later], bytes([3, 1]))))
    True
    """

    tables: tuple[tuple[int, bytes], ...] = ()
    exact: bool = False

    def narrowed(self, *, main_line: bool = False, side: str | None = None) -> Occupancy:
        """The same, for positions on the main line (``main_line``) with ``side`` (``'w'``,
        ``'b'``) to move only: the flags plane's table.

        >>> list(Occupancy().narrowed(main_line=True, side="b").tables[0][1][:4])
        [0, 1, 0, 0]
        """
        if not main_line and side not in ("w", "b"):
            return self
        allowed = [
            (not main_line or bool(flags & MAIN_FLAG))
            and (side not in ("w", "b") or bool(flags & WHITE_FLAG) == (side == "w"))
            for flags in range(256)
        ]
        tables = dict(self.tables)
        _narrow(tables, FLAGS_PLANE, allowed)
        return Occupancy(tuple(sorted(tables.items())), self.exact)

    def fits(self, planes: bytes) -> bool:
        """Whether some position of the decoded block ``planes`` has the squares allowed."""
        count = len(planes) // PLANES
        hits = -1  # every position, as bits of bytes: 1 where it is allowed
        for plane, table in self.tables:
            allowed = planes[plane * count : plane * count + count].translate(table)
            hits &= int.from_bytes(allowed, "little")
            if not hits:
                return False
        return count > 0


def _narrow(tables: dict[int, bytes], plane: int, allowed: list[bool]) -> None:
    """Allow only the bytes of ``allowed`` (by value) on ``plane``, besides its table."""
    if all(allowed):
        return
    table = bytes(allowed)
    if plane in tables:
        table = bytes(a & b for a, b in zip(tables[plane], table, strict=True))
    tables[plane] = table


def _designator_planes(designator: Designator, tables: dict[int, bytes]) -> bool:
    """Narrow ``tables`` by what ``designator`` says of occupied squares; return whether
    that decides it (it counts empty squares or men of any kind, by rank or all or none)."""
    masks: dict[int, int] = {}
    for index in designator.squares:
        masks[7 - index // 8] = masks.get(7 - index // 8, 0) | 1 << (index % 8)
    contents, low, high = designator.contents, designator.low, designator.high

    def holds(count: int) -> bool:
        return (low <= count and (high is None or count <= high)) != designator.negated

    if contents >= frozenset(CONTENTS):  # any content: the count is the squares'
        if not holds(len(designator.squares)):
            _narrow(tables, 0, [False] * 256)
        return True
    if contents == frozenset("."):
        empty = True
    elif contents >= PIECES and "." not in contents:
        empty = False
    else:  # some kinds of men only: as many men as the count needs, on one rank
        if designator.needs_a_man() and len(masks) == 1:
            ((plane, mask),) = masks.items()
            _narrow(tables, plane, [_POPCOUNT[byte & mask] >= low for byte in range(256)])
        return False

    def counted(byte: int, mask: int) -> int:
        return _POPCOUNT[(~byte if empty else byte) & mask]

    if len(masks) == 1:
        ((plane, mask),) = masks.items()
        _narrow(tables, plane, [holds(counted(byte, mask)) for byte in range(256)])
        return True
    counts = [count for count in range(len(designator.squares) + 1) if holds(count)]
    if len(counts) == len(designator.squares) + 1:
        return True
    if counts in ([0], [len(designator.squares)]):  # none, or all: rank by rank the same
        for plane, mask in masks.items():
            whole = counts[0] and mask.bit_count()
            _narrow(tables, plane, [counted(byte, mask) == whole for byte in range(256)])
        return True
    return False


@dataclass(frozen=True)
class Found:
    """A position a pattern matched: its node, whether on the main line, its ply."""

    node: int
    main: bool
    ply: int


@dataclass(frozen=True)
class Designator:
    """How many of ``squares`` hold one of ``contents``: between ``low`` and ``high``.

    ``squares`` are board-text indices; ``high`` None is no upper bound;
    ``negated`` holds when the count is outside the range.
    """

    contents: frozenset[str]
    squares: tuple[int, ...]
    low: int = 1
    high: int | None = None
    negated: bool = False

    def holds(self, text: str) -> bool:
        contents = self.contents
        count = sum(1 for index in self.squares if text[index] in contents)
        inside = count >= self.low and (self.high is None or count <= self.high)
        return inside != self.negated

    def needs_a_man(self) -> bool:
        """Whether a board it holds on has one of its men (no empty square among its
        contents) on one of its squares: "at least one", not negated.

        >>> [d.needs_a_man() for d in parse_pieces("R. not q. _a1 N.{2} n.{,1}").designators]
        [True, False, False, True, False]
        """
        return not self.negated and self.low >= 1 and "." not in self.contents

    def exact_regex(self) -> bool:
        """Whether :meth:`lookahead` decides the designator alone ("at least one", "none")."""
        return (self.low, self.high) in ((1, None), (0, 0))

    def lookahead(self) -> str:
        """A regex lookahead on a board line's squares (``/`` between ranks) for this
        designator: exact when :meth:`exact_regex`, else a prefilter (or nothing).

        >>> line = "8/8/1KP5/3r4/8/8/8/k7".replace("8", "." * 8).replace("1KP5", ".KP.....")
        >>> import re; bool(re.match(parse_pieces("r[a-h]5").designators[0].lookahead(), line))
        True
        """
        some = (self.low, self.high) == (1, None)
        none = (self.low, self.high) == (0, 0)
        if not (some or none) and (self.negated or self.low < 1):
            return ""  # a count a lookahead cannot bound: checked square by square
        contents = "".join(sorted(self.contents)).replace(".", "\\.")
        if len(self.squares) == 64:  # the first of them, scanned for without backtracking
            body = f"[^{contents}\\n]*+[{contents}]"
        else:  # squares side by side: the first of them in the run, as above
            runs: list[list[int]] = []
            for offset in sorted(i + i // 8 for i in self.squares):
                if runs and runs[-1][-1] == offset - 1:
                    runs[-1].append(offset)
                else:
                    runs.append([offset])
            body = "|".join(_run_regex(run[0], len(run), contents) for run in runs)
        if some:
            positive = not self.negated
        elif none:
            positive = self.negated
        else:  # at least low, not negated: some must be there
            positive = True
        return f"(?={body})" if positive else f"(?!{body})"

    def inverted(self) -> Designator:
        """The same designator with colours inverted (ranks reversed, colours swapped)."""
        squares = tuple(sorted((7 - index // 8) * 8 + index % 8 for index in self.squares))
        contents = frozenset(c.swapcase() for c in self.contents)
        return Designator(contents, squares, self.low, self.high, self.negated)


def _run_regex(offset: int, length: int, contents: str) -> str:
    """A regex for "one of ``contents`` in the ``length`` characters from ``offset``"."""
    skip = f"[^\\n]{{{offset}}}" if offset else ""
    if length == 1:
        return f"{skip}[{contents}]"
    return f"{skip}[^{contents}\\n]{{0,{length - 1}}}+[{contents}]"


@dataclass(frozen=True)
class Pattern:
    """A compiled pattern: ranks (a FENPattern) and designators, all of which must hold."""

    text: str
    ranks: re.Pattern[str] | None = None
    designators: tuple[Designator, ...] = ()
    #: What every board the ranks fit holds for certain: the men of a rank's squares
    #: before its first ``*`` (a prefilter only: :meth:`seen_needs`).
    implied: tuple[Designator, ...] = ()
    #: The ranks' shapes, rank 8 first: a rank as a regex over its squares' occupancy
    #: (``x`` a man, ``.`` empty) and whether that decides the rank (:meth:`occupancy`).
    shapes: tuple[tuple[str, bool], ...] = ()
    #: The same pattern with colours inverted (built on demand by :meth:`inverted`).
    _inverse: list[Pattern] = field(default_factory=list, compare=False, repr=False)
    #: What its boards' occupied squares must be (built on demand by :meth:`occupancy`).
    _occupancy: list[Occupancy] = field(default_factory=list, compare=False, repr=False)
    #: The designators its line regexes leave to count (built on demand by :meth:`_counted`).
    _inexact: list[tuple[Designator, ...]] = field(default_factory=list, compare=False, repr=False)
    #: :meth:`_next_line_regex`, built on demand.
    _next_line: list[re.Pattern[str]] = field(default_factory=list, compare=False, repr=False)
    #: The line regexes of :meth:`find`, by options.
    _lines: dict[tuple[bool, str | None, bool], re.Pattern[str]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def matches(self, text: str) -> bool:
        """Whether the board text ``text`` fits the pattern."""
        if self.ranks is not None and self.ranks.fullmatch(_with_slashes(text)) is None:
            return False
        return all(designator.holds(text) for designator in self.designators)

    def find(
        self,
        lines: str,
        *,
        main_line: bool = False,
        side: str | None = None,
        either_colour: bool = False,
        similar: bool = False,
    ) -> list[Found]:
        """The positions of ``lines`` (:func:`decode_boards`) that fit, in node order.

        ``main_line``: on the main line only; ``side``: ``'w'`` or ``'b'`` to move;
        ``either_colour``: the pattern as written or colour-inverted; ``similar``:
        any symmetric image of the position fits (as ``--position --similar``).

        >>> lines = board_line(board_text(chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")),
        ...                    main=True, white=True, ply=0)
        >>> parse_pieces("P[a-h]6").find(lines), parse_pieces("P[a-h]3").find(lines)
        ([Found(node=0, main=True, ply=0)], [])
        >>> parse_pieces("p[a-h]3").find(lines, either_colour=True)  # colour-inverted: P on 6
        [Found(node=0, main=True, ply=0)]
        """
        nodes: set[int] = set()
        for pattern, to_move in self.colourings(side, either_colour=either_colour):
            nodes.update(pattern._fitting(lines, main_line, to_move, similar))
        found = []
        for node in sorted(nodes):
            start = node * LINE_WIDTH
            found.append(Found(node, lines[start] == "m", int(lines[start + 2 : start + _PREFIX])))
        return found

    def fits(
        self,
        lines: str,
        *,
        main_line: bool = False,
        side: str | None = None,
        either_colour: bool = False,
        similar: bool = False,
    ) -> bool:
        """Whether some position of ``lines`` fits (as :meth:`find`, stopping at the first).

        >>> lines = board_line(board_text(chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")),
        ...                    main=True, white=True, ply=0)
        >>> parse_pieces("P[a-h]6").fits(lines), parse_pieces("P[a-h]3").fits(lines)
        (True, False)
        """
        return any(
            next(pattern._fitting(lines, main_line, to_move, similar), None) is not None
            for pattern, to_move in self.colourings(side, either_colour=either_colour)
        )

    def colourings(
        self, side: str | None, *, either_colour: bool
    ) -> list[tuple[Pattern, str | None]]:
        """The pattern and the side to move it asks for, and with ``either_colour`` the
        colour-reversed pair too: its colours inverted and the other side to move (as
        ``Board.mirror()`` reverses a position, and CQL's ``flipcolor``).

        >>> [side for _, side in parse_pieces("P[a-h]7").colourings("w", either_colour=True)]
        ['w', 'b']
        """
        if not either_colour:
            return [(self, side)]
        other = {"w": "b", "b": "w"}.get(side or "")
        return [(self, side), (self.inverted(), other)]

    def nodes(self, lines: str, *, start: int = 0, stop: int | None = None) -> Iterator[int]:
        """The nodes of ``lines`` from node ``start`` on (to before ``stop``) that fit, in
        order, lazily (in any line, either side to move: a line step takes what it needs
        and stops).  Each node's line is matched where it starts: the text between the
        lines is not scanned.

        >>> fens = ["8/8/8/8/8/8/8/K6k w - - 0 1", "8/8/8/8/8/8/8/7k w - - 0 1"] * 2
        >>> lines = "".join(board_line(board_text(chess.Board(fen)), main=True, white=True, ply=0)
        ...                 for fen in fens)
        >>> list(parse_pieces("_a1").nodes(lines)), list(parse_pieces("_a1").nodes(lines, start=2))
        ([1, 3], [3])
        >>> list(parse_pieces("_a1").nodes(lines, stop=3)), parse_pieces("_a1").fits_at(lines, 2)
        ([1], False)
        """
        end = len(lines) if stop is None else min(len(lines), stop * LINE_WIDTH)
        counted = self._counted()
        at = start * LINE_WIDTH
        if at == 0 < end:  # the first line: no newline before it
            found = self._line_regex(False, None, False).match(lines)
            if found is not None and _counts_hold(counted, found):
                yield 0
            at = LINE_WIDTH
        search = self._next_line_regex().search
        while at < end:
            found = search(lines, at - 1, end)  # from the newline that ends the line before
            if found is None:
                return
            at = found.start() + 1
            if _counts_hold(counted, found):
                yield at // LINE_WIDTH
            at += LINE_WIDTH

    def fits_at(self, lines: str, node: int) -> bool:
        """Whether the position of node ``node`` of ``lines`` fits (in any line, either side
        to move), as :meth:`nodes` tells."""
        return node * LINE_WIDTH < len(lines) and self._fits_line(lines, node * LINE_WIDTH)

    def _fits_line(self, lines: str, at: int) -> bool:
        """Whether the line starting at offset ``at`` of ``lines`` fits."""
        found = self._line_regex(False, None, False).match(lines, at)
        if found is None:
            return False
        counted = self._counted()
        return not counted or all(d.holds(found.group(1).replace("/", "")) for d in counted)

    def _next_line_regex(self) -> re.Pattern[str]:
        """:meth:`_line_regex` (any line, either side) after the newline that ends the line
        before: a search for it skips from newline to newline."""
        if not self._next_line:
            line = self._line_regex(False, None, False)
            self._next_line.append(re.compile("\n" + line.pattern.removeprefix("^"), re.M))
        return self._next_line[0]

    def _counted(self) -> tuple[Designator, ...]:
        """The designators a line's regex does not decide (counted square by square)."""
        if not self._inexact:
            self._inexact.append(tuple(d for d in self.designators if not d.exact_regex()))
        return self._inexact[0]

    def _fitting(
        self, lines: str, main_line: bool, side: str | None, similar: bool
    ) -> Iterator[int]:
        """The nodes of ``lines`` that fit, in order (lazily: :meth:`fits` takes one)."""
        line = self._line_regex(main_line, side, similar)
        counted = [d for d in self.designators if not d.exact_regex()]
        for match in line.finditer(lines):
            if similar:
                text = match.group(1).replace("/", "")
                if any(self.matches(image) for image in images(text)):
                    yield match.start() // LINE_WIDTH
            elif not counted or all(d.holds(match.group(1).replace("/", "")) for d in counted):
                yield match.start() // LINE_WIDTH

    def _line_regex(self, main_line: bool, side: str | None, similar: bool) -> re.Pattern[str]:
        """One line's regex: its flags, then the designators as lookaheads (exact for
        "at least one" and "none"; a prefilter for other counts), then the ranks."""
        key = (main_line, side, similar)
        if key not in self._lines:
            ranks = "[^\n]{71}" if similar or self.ranks is None else self.ranks.pattern
            flag = "m" if main_line else "[mv]"
            turn = side if side in ("w", "b") else "[wb]"
            looks = "" if similar else "".join(d.lookahead() for d in self.designators)
            self._lines[key] = re.compile(f"^{flag}{turn}\\d{{6}}{looks}({ranks})$", re.MULTILINE)
        return self._lines[key]

    def matches_either_colour(self, text: str) -> bool:
        """Whether ``text`` fits the pattern as written or with its colours inverted."""
        return self.matches(text) or self.inverted().matches(text)

    def inverted(self) -> Pattern:
        """The pattern with colours inverted: what it matches, colour-reversed.

        >>> pattern = parse_fen_pattern("*/*/*/*/*/*/*/K*")
        >>> pattern.inverted().matches(invert_colours(board_text(chess.Board())))
        False
        """
        if not self._inverse:
            ranks = None
            if self.ranks is not None:
                ranks = re.compile(_invert_regex(self.ranks.pattern))
            designators = tuple(d.inverted() for d in self.designators)
            implied = tuple(d.inverted() for d in self.implied)
            shapes = self.shapes[::-1]  # a square's occupancy has no colour
            inverse = Pattern(f"inverted {self.text}", ranks, designators, implied, shapes)
            self._inverse.append(inverse)
        return self._inverse[0]

    def seen_needs(self) -> list[dict[int, int]]:
        """Where men must have stood in a study that has a fitting board: for each
        designator that needs one of some men on some squares, the bitboard of those
        squares (a1 = bit 0) by man number (``PNBRQKpnbrqk``): some man of the
        designator stood on one of them.  All must hold (the prefilter of
        :func:`studydb.db.conditions.pattern_condition`).

        >>> parse_pieces("R[a-h]7 not q.").seen_needs() == [{3: 0xFF << 48}]
        True
        >>> parse_fen_pattern("*/*/*/*/*/*/*/q?[Nn]*").seen_needs() == [{10: 1}, {1: 4, 7: 4}]
        True
        """
        needs = []
        for designator in (*self.designators, *self.implied):
            if not designator.needs_a_man():
                continue
            bits = 0
            for index in designator.squares:
                bits |= 1 << _SQUARE_OF_INDEX[index]
            needs.append({MEN.index(c): bits for c in sorted(designator.contents)})
        return needs

    def decided_by_seen(self) -> bool:
        """Whether :meth:`seen_needs` decides the pattern alone: one designator that needs
        one of some men on some squares ("at least one"), and nothing else (a study
        then has a fitting board if and only if such a man stood there).

        >>> [parse_pieces(text).decided_by_seen() for text in ("Kg1", "Kg1 Pg2", "Q.{2}")]
        [True, False, False]
        """
        if self.ranks is not None or len(self.designators) != 1:
            return False
        (designator,) = self.designators
        return designator.needs_a_man() and (designator.low, designator.high) == (1, None)

    def occupancy(self) -> Occupancy:
        """What the occupied squares of a fitting board are (:class:`Occupancy`): each
        rank's shape, and the designators that count empty or occupied squares.

        >>> parse_fen_pattern("8/*/*/*/*/*/*/*").occupancy().exact
        True
        >>> parse_pieces("R[a-h]7 _a[1-8]{8}").occupancy().exact  # a rook is more than a man
        False
        """
        if not self._occupancy:
            tables: dict[int, bytes] = {}
            exact = all(decides for _, decides in self.shapes)
            for number, (shape, _) in enumerate(self.shapes):
                regex = re.compile(shape)
                _narrow(tables, 7 - number, [bool(regex.fullmatch(s)) for s in _SHAPES])
            for designator in self.designators:
                exact = _designator_planes(designator, tables) and exact
            self._occupancy.append(Occupancy(tuple(sorted(tables.items())), exact))
        return self._occupancy[0]

    def required(self) -> dict[str, int]:
        """The fewest of each piece that a matching board holds (a prefilter on material).

        >>> parse_pieces("R[a-h]7{2} not q.").required()
        {'R': 2}
        """
        need: dict[str, int] = {}
        for designator in self.designators:
            if designator.negated or designator.low < 1 or len(designator.contents) != 1:
                continue
            (content,) = designator.contents
            if content in PIECES:
                need[content] = max(need.get(content, 0), designator.low)
        if self.ranks is not None:  # the piece letters written outside brackets
            for content in _LITERAL.findall(_CLASS.sub("", self.ranks.pattern)):
                need[content] = need.get(content, 0) + 1
        return dict(sorted(need.items()))


def _counts_hold(counted: tuple[Designator, ...], line: re.Match[str]) -> bool:
    """Whether the designators a line regex left to count hold on the line it matched."""
    return not counted or all(d.holds(line.group(1).replace("/", "")) for d in counted)


def _with_slashes(text: str) -> str:
    """A board text's ranks with ``/`` between them (written out: a pattern tests every
    board it reads this way, and a join over a generator took 2.6 times as long).

    >>> _with_slashes("r" * 8 + "_" * 48 + "R" * 8)
    'rrrrrrrr/________/________/________/________/________/________/RRRRRRRR'
    """
    return (
        f"{text[0:8]}/{text[8:16]}/{text[16:24]}/{text[24:32]}"
        f"/{text[32:40]}/{text[40:48]}/{text[48:56]}/{text[56:64]}"
    )


# -- symmetric images (--similar) -------------------------------------------------


def _square_maps() -> tuple[tuple[int, ...], ...]:
    """The 8 symmetries of the board as maps of board-text indices, identity first."""
    maps = []
    for transpose in (False, True):
        for flip_rank in (False, True):
            for flip_file in (False, True):
                order = []
                for index in range(64):
                    rank, file = divmod(index, 8)
                    if transpose:
                        rank, file = file, rank
                    order.append(
                        (7 - rank if flip_rank else rank) * 8 + (7 - file if flip_file else file)
                    )
                maps.append(tuple(order))
    return tuple(maps)


_SYMMETRIES = _square_maps()
_MIRROR = _SYMMETRIES[1]  # files flipped


def images(text: str) -> set[str]:
    """The symmetric images of a board text, as ``--position --similar`` takes them.

    Without pawns, the 8 symmetries of the board; with pawns, the left-right
    mirror and the sideways shifts by whole files that keep every man on the board.

    >>> len(images(board_text(chess.Board("8/8/8/8/8/8/8/K6k w - - 0 1"))))
    8
    >>> pawn = board_text(chess.Board("8/8/8/8/8/8/P7/K6k w - - 0 1"))
    >>> sorted(image[-8:] for image in images(pawn))
    ['K......k', 'k......K']
    """
    if "P" not in text and "p" not in text:
        return {"".join(text[i] for i in order) for order in _SYMMETRIES}
    found = set()
    for base in (text, "".join(text[i] for i in _MIRROR)):
        files = [index % 8 for index, content in enumerate(base) if content != "."]
        for shift in range(-min(files), 8 - max(files)):
            found.add(_shifted(base, shift))
    return found


def _shifted(text: str, shift: int) -> str:
    if shift == 0:
        return text
    rows = []
    for rank in range(8):
        row = text[rank * 8 : rank * 8 + 8]
        rows.append(("." * shift + row[:-shift]) if shift > 0 else (row[-shift:] + "." * -shift))
    return "".join(rows)


# -- FENPattern ------------------------------------------------------------------

#: Any square of a rank: never its end ('/') nor a board line's (the newline ending it).
_ANY = "[^/\n]"
#: The men a FENPattern token stands for when it is a man of a set (``!`` is left out).
_MEN_OF_TOKEN = {"A": WHITE, "a": BLACK, **{piece: frozenset(piece) for piece in PIECES}}
_RANK_TOKEN = re.compile(r"\[\^?[^\]]*\]|.")
_LITERAL = re.compile(r"[KQRBNPkqrbnp]")
_CLASS = re.compile(r"\[[^\]]*\]")


class PatternError(QueryError):
    """A malformed pattern: ``at`` is the offset of the bad character, ``reason`` what is wrong
    (so that a text that embeds a pattern, as ``--line`` does, can point into itself)."""

    def __init__(self, message: str, *, param: str | None, at: int, reason: str) -> None:
        super().__init__(message, param=param)
        self.at = at
        self.reason = reason


def _pattern_error(text: str, offset: int, what: str, param: str) -> PatternError:
    return PatternError(
        f"bad pattern {quote(text)} at character {offset + 1}: {what}",
        param=param,
        at=offset,
        reason=what,
    )


def parse_fen_pattern(text: str, *, param: str = "--pattern") -> Pattern:
    """Compile a FENPattern; a malformed one is a :class:`QueryError` naming the bad character.

    >>> parse_fen_pattern("8/8/8/8/8/8/8/x7")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    studydb.patterns.PatternError: bad pattern '8/8/8/8/8/8/8/x7' at character 15: 'x' is not a ...
    """
    if len(text) > MAX_PATTERN:
        raise _pattern_error(text, MAX_PATTERN, "too long", param)
    ranks = text.split("/")
    if len(ranks) != 8:
        raise QueryError(
            f"bad pattern {quote(text)}: {len(ranks)} ranks, a pattern has 8 (separated by '/')",
            param=param,
        )
    regexes: list[str] = []
    implied: list[Designator] = []
    shapes: list[tuple[str, bool]] = []
    offset = 0
    for number, rank in enumerate(ranks):
        regexes.append(_rank_regex(text, rank, offset, 8 - number, param, implied, shapes))
        offset += len(rank) + 1
    return Pattern(
        text, re.compile("/".join(regexes)), implied=tuple(implied), shapes=tuple(shapes)
    )


def _rank_regex(
    text: str,
    rank: str,
    offset: int,
    rank_number: int,
    param: str,
    implied: list[Designator],
    shapes: list[tuple[str, bool]],
) -> str:
    """A rank's regex; the men its squares before the first ``*`` must hold go to
    ``implied``, as designators of one square each, and its shape to ``shapes``: the
    regex over its squares' occupancy (``x`` a man, ``.`` empty) and whether that
    decides it (no token names a kind of man)."""
    parts: list[str] = []
    shape: list[str] = []
    decides = True
    squares = 0
    star = False
    first = (8 - rank_number) * 8  # the rank's a-file square in board text
    for match in _RANK_TOKEN.finditer(rank):
        token, at = match.group(), offset + match.start()
        square, men = squares, _MEN_OF_TOKEN.get(token)
        if token.startswith("["):
            negated, contents = _class_contents(text, token, at, param)
            letters = "".join(sorted(contents))
            parts.append(f"[^{letters}/\n]" if negated else f"[{letters}]")
            men = None if negated else contents
            squares += 1
            every = contents == PIECES  # [Aa] is '!', [^Aa] an empty square
            shape.append(("\\." if every else "[.x]") if negated else "x")
            decides = decides and every
        elif token == "*":
            parts.append(f"{_ANY}*")
            shape.append("[.x]*")
            star = True
        elif token == "?":
            parts.append(_ANY)
            shape.append("[.x]")
            squares += 1
        elif token == "!":
            parts.append("[^./\n]")
            shape.append("x")
            squares += 1
        elif token in ("A", "a"):
            parts.append("[KQRBNP]" if token == "A" else "[kqrbnp]")
            shape.append("x")
            decides = False
            squares += 1
        elif token in "12345678":
            parts.append(r"\." + (f"{{{token}}}" if token != "1" else ""))
            shape.append(f"\\.{{{token}}}")
            squares += int(token)
        elif token in PIECES:
            parts.append(token)
            shape.append("x")
            decides = False
            squares += 1
        elif token == "]" or token == "[":
            raise _pattern_error(text, at, f"unmatched {token!r}", param)
        elif token in "09":
            what = f"{token!r} is not a run of empty squares: digits go from 1 to 8"
            raise _pattern_error(text, at, what, param)
        else:
            raise _pattern_error(
                text, at, f"{token!r} is not a piece letter, a digit or one of ? ! * A a [ ]", param
            )
        if men and not star and square < 8:
            implied.append(Designator(men, (first + square,)))
    if squares > 8 or (squares < 8 and not star):
        raise _pattern_error(
            text, offset, f"rank {rank_number} ({rank!r}) has {squares} squares, not 8", param
        )
    shapes.append(("".join(shape), decides))
    return "".join(parts)


def _class_contents(text: str, token: str, at: int, param: str) -> tuple[bool, frozenset[str]]:
    """A FENPattern's ``[xyz]`` or ``[^xyz]``: whether negated, and the pieces it names."""
    negated = token.startswith("[^")
    body = token[2:-1] if negated else token[1:-1]
    if not token.endswith("]"):
        raise _pattern_error(text, at, "unclosed '['", param)
    if not body:
        raise _pattern_error(text, at, f"empty set {token!r}", param)
    contents: set[str] = set()
    for index, letter in enumerate(body):
        if letter in ("A", "a"):
            contents |= WHITE if letter == "A" else BLACK
        elif letter in PIECES:
            contents.add(letter)
        else:
            where = at + index + (2 if negated else 1)
            raise _pattern_error(text, where, f"{letter!r} is not a piece letter, A or a", param)
    return negated, frozenset(contents)


def _invert_regex(regex: str) -> str:
    """A FENPattern's regex with its ranks in reverse order and its colours swapped."""
    parts = _split_ranks(regex)  # '/' also stands inside classes, as '[^…/]'

    return "/".join(_swap_colours(part) for part in reversed(parts))


def _split_ranks(regex: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for index, char in enumerate(regex):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == "/" and depth == 0:
            parts.append(regex[start:index])
            start = index + 1
    parts.append(regex[start:])
    return parts


def _swap_colours(part: str) -> str:
    # Every letter in the regex is a piece letter: swap their case (\. and {n} have none).
    return part.swapcase()


# -- designators -----------------------------------------------------------------

#: A piece set's text: a letter, or letters in brackets (``R``, ``[QR]``, ``A``).
PIECE_SET = r"\[[^\]]*\]|[KQRBNPkqrbnpAa!_?]"
#: A square set's text: ``.``, ``a1``, ``[a-h]7``, ``a[1-4]``, ``[a-d][1-4]``, ``[a1,c3]``.
SQUARE_SET = r"\.|\[[^\]]*\](?:\[[^\]]*\]|[1-8])?|[a-h](?:\[[^\]]*\]|[1-8])"
_DESIGNATOR = re.compile(
    rf"(?P<pieces>{PIECE_SET})(?P<squares>{SQUARE_SET})(?:\{{(?P<count>[^}}]*)\}})?"
)
_WORD = re.compile(r"\S+")
_RANGE_COUNT = re.compile(r"(\d{0,2})(,?)(\d{0,2})")
_SQUARE_ITEM = re.compile(r"([a-h])(?:-([a-h]))?([1-8])(?:-([1-8]))?")


def parse_pieces(text: str, *, param: str = "--pieces") -> Pattern:
    """Compile a list of designators; a malformed one is a :class:`QueryError` naming it.

    >>> [len(d.squares) for d in parse_pieces("R[a-h]7 [Nn][a1-8,h1-8] _.").designators]
    [8, 16, 64]
    >>> parse_pieces("K. R[a-h]9")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    studydb.patterns.PatternError: bad pattern 'K. R[a-h]9' at character 4: 'R[a-h]9' is not a ...
    """
    if len(text) > MAX_PATTERN:
        raise _pattern_error(text, MAX_PATTERN, "too long", param)
    designators: list[Designator] = []
    negate = False
    words = list(_WORD.finditer(text))
    for match in words:
        word, at = match.group(), match.start()
        if word == "not":
            if negate:
                raise _pattern_error(text, at, "'not not'", param)
            negate = True
            continue
        designators.append(_designator(text, word, at, negate, param))
        negate = False
    if negate:
        raise _pattern_error(text, len(text), "'not' with no designator after it", param)
    if not designators:
        raise QueryError(f"bad pattern {quote(text)}: no designator", param=param)
    return Pattern(text, None, tuple(designators))


def _designator(text: str, word: str, at: int, negated: bool, param: str) -> Designator:
    match = _DESIGNATOR.fullmatch(word)
    if match is None:
        raise _pattern_error(
            text,
            at,
            f"{word!r} is not a designator (pieces, then squares: 'R[a-h]7', 'K.', "
            "'[Nn][a1,h8]{2}')",
            param,
        )
    contents = _piece_set(text, match.group("pieces"), at, param)
    squares = _square_set(text, match.group("squares"), at + match.start("squares"), param)
    low, high = 1, None
    if match.group("count") is not None:
        low, high = _count(text, match.group("count"), at + match.start("count"), param)
    return Designator(contents, squares, low, high, negated)


def parse_piece_set(token: str, *, param: str = "--pieces") -> frozenset[str]:
    """The contents a piece set stands for (``K``, ``[QR]``, ``A`` any white, ``a`` any black).

    >>> sorted(parse_piece_set("[RQ]")), len(parse_piece_set("A"))
    (['Q', 'R'], 6)

    :raises PatternError: for a malformed set (``at``: the offset in ``token``).
    """
    return _piece_set(token, token, 0, param)


def parse_square_set(token: str, *, param: str = "--pieces") -> tuple[int, ...]:
    """The board-text indices (a8 = 0 … h1 = 63) of a square set (``a1``, ``.``, ``[a-h]8``).

    >>> parse_square_set("[a-h]8"), parse_square_set("[a1,h1]")
    ((0, 1, 2, 3, 4, 5, 6, 7), (56, 63))

    :raises PatternError: for a malformed set, or one that names no square (``[a-h]``).
    """
    return _square_set(token, token, 0, param)


def _piece_set(text: str, token: str, at: int, param: str) -> frozenset[str]:
    letters = token[1:-1] if token.startswith("[") else token
    if not letters:
        raise _pattern_error(text, at, "an empty piece set '[]'", param)
    contents: set[str] = set()
    for index, letter in enumerate(letters):
        if letter in _SET_LETTERS:
            contents |= _SET_LETTERS[letter]
        elif letter in PIECES:
            contents.add(letter)
        else:
            raise _pattern_error(
                text, at + index + 1, f"{letter!r} is not a piece letter, A, a, ! or _", param
            )
    return frozenset(contents)


def _square_set(text: str, token: str, at: int, param: str) -> tuple[int, ...]:
    if token == ".":
        return tuple(range(64))
    if token.startswith("[") and any(c.isdigit() for c in token.split("]")[0]):
        if token.count("[") != 1:  # a square list takes no rank part after it
            raise _pattern_error(text, at, f"{token!r}: a list of squares takes no rank", param)
        squares: set[int] = set()
        for item in token[1:-1].split(","):
            found = _SQUARE_ITEM.fullmatch(item.strip())
            if found is None:
                raise _pattern_error(text, at, f"{item!r} is not a square or range", param)
            first, last, low, high = found.groups()
            files = _FILES[_FILES.index(first) : _FILES.index(last or first) + 1]
            numbers = range(int(low), int(high or low) + 1)
            if not files or not numbers:
                raise _pattern_error(text, at, f"{item!r} is an empty range", param)
            squares |= {_index(f, r) for f in files for r in numbers}
        return tuple(sorted(squares))
    file_part, rank_part = _split_squares(token)
    if not rank_part:
        raise _pattern_error(
            text, at, f"{token!r} names no square: files need ranks ([a-h]8)", param
        )
    files = _letters(text, file_part, _FILES, at, param)
    ranks = _letters(text, rank_part, "12345678", at, param)
    return tuple(sorted(_index(f, int(r)) for f in files for r in ranks))


def _split_squares(token: str) -> tuple[str, str]:
    if token.startswith("["):
        end = token.index("]") + 1
        return token[:end], token[end:]
    return token[0], token[1:]


def _letters(text: str, part: str, alphabet: str, at: int, param: str) -> str:
    """The files or ranks of ``a``, ``[a-d]`` or ``[a,c,e]``."""
    if not part.startswith("["):
        return part
    chosen = ""
    for item in part[1:-1].split(","):
        item = item.strip()
        if len(item) == 1 and item in alphabet:
            chosen += item
        elif len(item) == 3 and item[1] == "-" and item[0] in alphabet and item[2] in alphabet:
            chosen += alphabet[alphabet.index(item[0]) : alphabet.index(item[2]) + 1]
        else:
            raise _pattern_error(
                text, at, f"{part!r}: {item!r} is not in {alphabet[0]}-{alphabet[-1]}", param
            )
    if not chosen:
        raise _pattern_error(text, at, f"{part!r} is empty", param)
    return "".join(sorted(set(chosen), key=alphabet.index))


def _index(file: str, rank: int) -> int:
    return (8 - rank) * 8 + _FILES.index(file)


def _count(text: str, body: str, at: int, param: str) -> tuple[int, int | None]:
    found = _RANGE_COUNT.fullmatch(body)
    if found is None or not (found.group(1) or found.group(3)):
        raise _pattern_error(text, at, f"{{{body}}} is not a count ({{2}}, {{1,}}, {{,3}})", param)
    low_text, comma, high_text = found.groups()
    low = int(low_text) if low_text else 0
    high = int(high_text) if high_text else (None if comma else low)
    if high is not None and high < low:
        raise _pattern_error(text, at, f"{{{body}}} is an empty range", param)
    return low, high
