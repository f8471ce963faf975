"""Position keys and the index rows of a study's moves (pure: python-chess only).

A position is known by two signed 64-bit keys:

* the **exact** key: the placement of the men and the side to move (castling
  and en-passant rights are ignored, as CQL does);
* the **similar** key (CQL ``similarposition``): the same for every symmetric
  image of the position with the same side to move.  Without pawns the images
  are the 8 symmetries of the board; with pawns, the left-right mirror and the
  sideways shifts by whole files that keep every man on the board.

The database stores a position as its similar key and the number of the
image that maps it to the canonical form (:attr:`Keys.image`): two positions
are equal exactly when both agree, so the pair is the exact key in 7 bytes
fewer.  :func:`colour_reversed` is ``Board.mirror()``.

>>> board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
>>> shifted = chess.Board("8/8/2KP4/4r3/8/8/8/1k6 w - - 0 1")
>>> similar_key(board) == similar_key(shifted), exact_key(board) == exact_key(shifted)
(True, False)
"""

from __future__ import annotations

import hashlib
import struct
from bisect import insort
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter

import chess

from studydb import gbr, movetext, patterns

__all__ = [
    "IndexRow",
    "IndexRows",
    "Keys",
    "colour_reversed",
    "exact_key",
    "index_rows",
    "keys",
    "line_text",
    "material_of",
    "men_of",
    "similar_images",
    "similar_key",
    "transformation",
]

#: Man codes: ``square * 16 + piece`` with pieces 0-5 white P N B R Q K, 6-11 black.
_CODES = 64 * 16
_PAWNS = (0, 6)


def _code_table(square_map: list[int]) -> tuple[int, ...]:
    """Man code -> man code for a map of squares."""
    return tuple(square_map[code >> 4] * 16 + (code & 15) for code in range(_CODES))


def _square_map(transform: Callable[[chess.Bitboard], chess.Bitboard]) -> list[int]:
    return [chess.lsb(transform(chess.BB_SQUARES[square])) for square in range(64)]


def _identity(bb: chess.Bitboard) -> chess.Bitboard:
    return bb


def _rotate_90(bb: chess.Bitboard) -> chess.Bitboard:
    return chess.flip_vertical(chess.flip_diagonal(bb))


def _rotate_180(bb: chess.Bitboard) -> chess.Bitboard:
    return chess.flip_vertical(chess.flip_horizontal(bb))


def _rotate_270(bb: chess.Bitboard) -> chess.Bitboard:
    return chess.flip_horizontal(chess.flip_vertical(_rotate_90(bb)))


#: The 8 symmetries of the board, identity first (image numbers 0-7).
_BOARD_SQUARE_MAPS = tuple(
    _square_map(t)
    for t in (
        _identity,
        chess.flip_horizontal,
        chess.flip_vertical,
        _rotate_180,
        chess.flip_diagonal,
        chess.flip_anti_diagonal,
        _rotate_90,
        _rotate_270,
    )
)
_BOARD_SYMMETRIES = tuple(_code_table(square_map) for square_map in _BOARD_SQUARE_MAPS)
#: How one board symmetry turns a position into another (``transformation``).
_SYMMETRY_NAMES = (
    "",
    "mirrored",
    "mirrored top to bottom",
    "rotated 180°",
    "reflected in the a1-h8 diagonal",
    "reflected in the a8-h1 diagonal",
    "rotated 90° clockwise",
    "rotated 90° anticlockwise",
)


def _shift_table(mirror: bool, files: int) -> tuple[int, ...]:
    squares = []
    for square in range(64):
        file, rank = square & 7, square >> 3
        file = (7 - file if mirror else file) + files
        squares.append(rank * 8 + file if 0 <= file < 8 else 0)
    return _code_table(squares)


#: Image numbers of positions with pawns: 8 + 15 * mirror + (shift + 7).
_SHIFTS = {
    (mirror, shift): (8 + 15 * mirror + shift + 7, _shift_table(mirror, shift))
    for mirror in (False, True)
    for shift in range(-7, 8)
}
_BOARD_NUMBERS = tuple(range(len(_BOARD_SYMMETRIES)))


def _shift_set(low: int, high: int) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Image numbers and tables of the mirror and shifts keeping files low..high on the board."""
    chosen = []
    for mirror in (False, True):
        first, last = (7 - high, 7 - low) if mirror else (low, high)
        chosen += [_SHIFTS[mirror, shift] for shift in range(-first, 8 - last)]
    return tuple(n for n, _ in chosen), tuple(t for _, t in chosen)


#: For men spread over files low..high: the images that apply (pawns on the board).
_SHIFT_SETS = {(low, high): _shift_set(low, high) for low in range(8) for high in range(low, 8)}


def _key_set(low: int, high: int) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """The two images of :func:`_shift_set` that can be the least: the furthest shift to
    the left, unmirrored and mirrored (a shift adds the same to every code, keeping the
    order of the men, so a shift further left gives a lesser image)."""
    shifts = 8 - (high - low)  # in each mirror group
    numbers, tables = _SHIFT_SETS[low, high]
    return (numbers[0], numbers[shifts]), (tables[0], tables[shifts])


#: As :data:`_SHIFT_SETS`, only the images that can be the canonical one (:func:`keys_of_men`):
#: by the files occupied, a bit each (file a the lowest; 0, no file, has none).
_KEY_SETS_BY_FILES = (
    ((), ()),
    *(
        _key_set((files & -files).bit_length() - 1, files.bit_length() - 1)
        for files in range(1, 256)
    ),
)


@dataclass(frozen=True, slots=True)
class Keys:
    """A position's similar key and the number of the image that makes it canonical."""

    similar: int
    image: int


def men_of(board: chess.Board) -> tuple[int, ...]:
    """The men of a board as sorted codes ``square * 16 + piece``.

    >>> men_of(chess.Board("8/8/8/8/8/8/8/K6k w - - 0 1"))
    (5, 123)
    """
    black, white = board.occupied_co  # indexed by colour: BLACK = 0
    men: list[int] = []
    append = men.append
    masks = (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings)
    for number, mask in enumerate(masks):
        for bits, piece in ((mask & white, number), (mask & black, number + 6)):
            while bits:  # lowest set bit first; faster than chess.scan_forward
                low = bits & -bits
                append((low.bit_length() - 1) * 16 + piece)
                bits ^= low
    men.sort()
    return tuple(men)


#: The packers of man codes as 16-bit little-endian numbers and the side to move, by how
#: many men there are.
_PACKERS = tuple(struct.Struct(f"<{count}Hc").pack for count in range(_CODES // 16 + 1))
_SIDES = (b"b", b"w")  # by python-chess's colour: BLACK = 0
_blake2b, _from_bytes = hashlib.blake2b, int.from_bytes


def _hash(men: tuple[int, ...] | list[int], white: bool) -> int:
    """The signed 64-bit BLAKE2b hash of the men's codes (16 bits each) and the side to move.

    >>> _hash((5, 123), True) == _hash([5, 123], True) != _hash((5, 123), False)
    True
    """
    data = _PACKERS[len(men)](*men, _SIDES[white])
    return _from_bytes(_blake2b(data, digest_size=8).digest(), "little", signed=True)


def _image_tables(men: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """The image numbers and code tables of the symmetries that apply to ``men``."""
    if not any((code & 15) in _PAWNS for code in men):
        return _BOARD_NUMBERS, _BOARD_SYMMETRIES
    files = [(code >> 4) & 7 for code in men]
    return _SHIFT_SETS[min(files), max(files)]


def _images(men: tuple[int, ...]) -> list[tuple[int, list[int]]]:
    """Every symmetric image of ``men`` with its image number."""
    numbers, tables = _image_tables(men)
    return [(n, sorted(map(t.__getitem__, men))) for n, t in zip(numbers, tables, strict=True)]


def _board_tables(board: chess.Board) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """As :func:`_image_tables`, from the bitboards (pawns, and the files occupied), keeping
    only the images that can be the canonical one (:data:`_KEY_SETS_BY_FILES`)."""
    if not board.pawns:
        return _BOARD_NUMBERS, _BOARD_SYMMETRIES
    files = board.occupied
    files |= files >> 32
    files |= files >> 16
    files |= files >> 8
    return _KEY_SETS_BY_FILES[files & 0xFF]


def keys_of_men(
    men: tuple[int, ...],
    white: bool,
    tables: tuple[tuple[int, ...], tuple[tuple[int, ...], ...]] | None = None,
) -> Keys:
    """The keys of a position given as man codes and the side to move.

    ``tables``: the symmetries that apply, when the caller knows them already.
    """
    return Keys(*_key_pair(men, white, tables or _image_tables(men)))


def _key_pair(
    men: tuple[int, ...], white: bool, tables: tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]
) -> tuple[int, int]:
    """As :func:`keys_of_men`, as a pair (similar key, image number): the least image,
    the first of the least when two are equal.  The men are looked up in each table at
    once (an ``itemgetter`` of them: a C loop).

    Two images (pawns on the board, :data:`_KEY_SETS_BY_FILES`, or men on every file): a
    shift and its mirror; the shift moves every man by the same number of files, so the
    men keep their order and need no sort.
    """
    numbers, symmetries = tables
    look_up = itemgetter(*men) if len(men) > 1 else _one_man(men)
    if len(numbers) == 2:
        shifted = list(look_up(symmetries[0]))
        mirrored = sorted(look_up(symmetries[1]))
        if mirrored < shifted:
            return _hash(mirrored, white), numbers[1]
        return _hash(shifted, white), numbers[0]
    best: list[int] = []
    number = -1
    for image_number, table in zip(numbers, symmetries, strict=True):
        image = sorted(look_up(table))
        if number < 0 or image < best:
            best, number = image, image_number
    return _hash(best, white), number


def _one_man(men: tuple[int, ...]) -> Callable[[tuple[int, ...]], tuple[int, ...]]:
    """A look-up of ``men`` (none or one) in a table, as ``itemgetter`` of more gives."""
    return lambda table: tuple(table[code] for code in men)


def keys(board: chess.Board) -> Keys:
    """The similar key and image number of a board (together: the exact position).

    >>> k = keys(chess.Board("8/8/8/8/8/8/8/K6k w - - 0 1"))
    >>> k == keys(chess.Board("k6K/8/8/8/8/8/8/8 w - - 0 1"))
    False
    >>> k.similar == keys(chess.Board("k6K/8/8/8/8/8/8/8 w - - 0 1")).similar
    True
    """
    return keys_of_men(men_of(board), board.turn, _board_tables(board))


def exact_key(board: chess.Board) -> int:
    """The exact key: placement of the men and side to move, as a signed 64-bit integer.

    >>> no_rights = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"
    >>> exact_key(chess.Board()) == exact_key(chess.Board(no_rights))
    True
    """
    return _hash(men_of(board), board.turn == chess.WHITE)


def similar_key(board: chess.Board) -> int:
    """The similar key: the same for all symmetric images with the same side to move.

    >>> similar_key(chess.Board("8/8/8/8/8/8/8/K6k w - - 0 1")) == similar_key(
    ...     chess.Board("8/8/8/8/8/8/8/K6k b - - 0 1"))
    False
    """
    return keys(board).similar


def colour_reversed(board: chess.Board) -> chess.Board:
    """The position with the colours reversed: ``Board.mirror()``.

    >>> colour_reversed(chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")).fen()
    'K7/8/8/8/3R4/1kp5/8/8 b - - 0 1'
    """
    return board.mirror()


def similar_images(board: chess.Board) -> list[chess.Board]:
    """Every symmetric image of a board (itself first) that the similar key matches.

    >>> len(similar_images(chess.Board("8/8/8/8/8/8/8/K6k w - - 0 1")))
    8
    """
    images = []
    for _number, men in _images(men_of(board)):
        image = chess.Board(None)
        for code in men:
            piece = code & 15
            image.set_piece_at(code >> 4, chess.Piece(piece % 6 + 1, piece < 6))
        image.turn = board.turn
        images.append(image)
    return images


def counts_of(board: chess.Board) -> tuple[int, ...]:
    """Counts wq wr wb wn wp bq br bb bn bp of a board.

    >>> counts_of(chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"))
    (0, 0, 0, 0, 1, 0, 1, 0, 0, 0)
    """
    black, white = board.occupied_co
    q, r, b, n, p = board.queens, board.rooks, board.bishops, board.knights, board.pawns
    return (
        (q & white).bit_count(),
        (r & white).bit_count(),
        (b & white).bit_count(),
        (n & white).bit_count(),
        (p & white).bit_count(),
        (q & black).bit_count(),
        (r & black).bit_count(),
        (b & black).bit_count(),
        (n & black).bit_count(),
        (p & black).bit_count(),
    )


@lru_cache(maxsize=4096)
def material_of(counts: tuple[int, ...]) -> gbr.Material:
    """The GBR material of counts wq wr wb wn wp bq br bb bn bp (remembered: a collection
    has few materials, and a Material is frozen).

    >>> material_of((0, 0, 0, 0, 1, 0, 1, 0, 0, 0)).code
    '0300.10'
    """
    return gbr.material_from_counts(counts)


def _image_square_map(image: int) -> list[int]:
    """Square → square of the symmetry that image number ``image`` stands for."""
    if image < len(_BOARD_SQUARE_MAPS):
        return _BOARD_SQUARE_MAPS[image]
    mirror, shift = divmod(image - 8, 15)
    files = [(7 - file if mirror else file) + shift - 7 for file in range(8)]
    return [
        rank * 8 + files[file] if 0 <= files[file] < 8 else -1
        for rank in range(8)
        for file in range(8)
    ]


def transformation(mine: int, theirs: int) -> str:
    """How a position with image number ``mine`` becomes the one with ``theirs`` (same key).

    ``''`` when they are the same position.

    >>> transformation(0, 0), transformation(0, 1), transformation(1, 0), transformation(0, 6)
    ('', 'mirrored', 'mirrored', 'rotated 90° anticlockwise')
    >>> transformation(8 + 7, 8 + 7 + 2)
    'shifted 2 files to the left'
    """
    if mine == theirs:
        return ""
    to_canonical = _image_square_map(mine)
    from_canonical = {
        square: source for source, square in enumerate(_image_square_map(theirs)) if square >= 0
    }
    mapping = [from_canonical.get(square) if square >= 0 else None for square in to_canonical]
    for number, square_map in enumerate(_BOARD_SQUARE_MAPS):
        if mapping == square_map:
            return _SYMMETRY_NAMES[number]
    files = sorted({(square & 7, to & 7) for square, to in enumerate(mapping) if to is not None})
    (first, first_to), (second, second_to) = files[0], files[-1]
    mirrored = second != first and (second_to - first_to) * (second - first) < 0
    shift = first_to - (7 - first if mirrored else first)
    parts = ["mirrored"] if mirrored else []
    if shift:
        side = "right" if shift > 0 else "left"
        parts.append(f"shifted {abs(shift)} file{'s' if abs(shift) > 1 else ''} to the {side}")
    return " and ".join(parts)


#: One indexed position: similar key, image, node, ply, on main line, counts.
IndexRow = tuple[int, int, int, int, bool, tuple[int, ...]]


def index_rows(board: chess.Board, text: str, errors: list[str]) -> list[IndexRow]:
    """Replay ``text`` from ``board``: one row per position reached, errors appended.

    The nodes are :mod:`studydb.movetext`'s: 0 is ``board``, then each legal
    move in the order of the text.

    >>> rows = index_rows(chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"), "1. c7 Rd6+ *", [])
    >>> [(node, ply, main, material_of(counts).code) for _, _, node, ply, main, counts in rows]
    [(0, 0, True, '0300.10'), (1, 1, True, '0300.10'), (2, 2, True, '0300.10')]
    """
    return movetext.walk(board, text, IndexRows(board, errors)).rows


class IndexRows(movetext.Visitor):
    """The walk behind :func:`index_rows` (``rows``), to share a walk with other visitors.

    A position's men, counts and board text for pattern search (:meth:`boards`) are its
    parent's with the move made, the men moved and taken read off the parent's board
    text; after a castling, an en-passant capture or a null move they are read from the
    board.  The walk names the parent; the move is the board's last: no call a move.
    """

    def __init__(self, board: chess.Board, errors: list[str]) -> None:
        self.errors = errors
        self.white = board.turn
        self.rows: list[IndexRow] = []
        #: By node: its men, counts and board text (:data:`studydb.patterns.LINE_PLACES`).
        self.nodes: list[Placed] = [_placed(board)]
        #: By node: its board text alone (:class:`studydb.lines.PlyFacts` reads the moves so).
        self.texts: list[bytearray] = [self.nodes[0][2]]
        self.occupied: list[int] = []  # by row: the occupied squares (a bitboard)
        self.add(board, 0, 0, True, self.nodes[0])

    def visit_position(self, board: chess.Board, node: int, parent: int, main: bool) -> None:
        stack = board.move_stack
        placed = _made(self.nodes[parent], stack[-1]) or _placed(board)
        self.nodes.append(placed)
        self.texts.append(placed[2])
        self.add(board, node, len(stack), main, placed)

    def add(self, board: chess.Board, node: int, ply: int, main: bool, placed: Placed) -> None:
        """The row of ``board``, node ``node``, whose men and counts are ``placed``'s."""
        men, counts, _, _ = placed
        similar, image = _key_pair(men, board.turn, _board_tables(board))
        self.rows.append((similar, image, node, ply, main, counts))
        self.occupied.append(board.occupied)

    def visit_error(self, message: str) -> None:
        self.errors.append(message)

    def seen(self) -> tuple[int, ...]:
        """Where each kind of man stood at some node: twelve bitboards, white pawn … black
        king (a1 = bit 0), as signed 64-bit integers (pattern search's prefilter).

        >>> walk = movetext.walk(chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"), "1. c7 Rd6+ *",
        ...                      IndexRows(chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"), []))
        >>> seen = walk.seen()  # the white pawn, the white king, the black rook
        >>> [[chess.square_name(s) for s in chess.SquareSet(patterns.unsigned(seen[man]))]
        ...  for man in (0, 5, 9)]
        [['c6', 'c7'], ['b6'], ['d5', 'd6']]
        """
        masks = [0] * 12
        squares = _BB_SQUARES
        for men, _, _, arrived in self.nodes:  # a node's men are its parent's and the one moved
            for code in men if arrived == _READ else (arrived,):
                masks[code & 15] |= squares[code >> 4]
        return tuple(map(patterns.signed, masks))

    def occupancy(self) -> bytes:
        """Every node's occupied squares and flags, for pattern search
        (:func:`studydb.patterns.encode_occupancy`).

        >>> board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
        >>> walk = movetext.walk(board, "1. c7 Rd6+ *", IndexRows(board.copy(), []))
        >>> list(patterns.decode_occupancy(walk.occupancy())[-3:])  # main line; w, b, w to move
        [3, 1, 3]
        """
        white, on_main, white_to_move = self.white, patterns.MAIN_FLAG, patterns.WHITE_FLAG
        flags = bytes(
            [
                on_main * main | white_to_move * (white ^ ply & 1)
                for _, _, _, ply, main, _ in self.rows
            ]
        )
        return patterns.encode_occupancy(self.occupied, flags)

    def boards(self) -> bytes:
        """Every node's board, for pattern search (:func:`studydb.patterns.encode_boards`)."""
        white, nodes, line, flags, most = (
            self.white, self.nodes, patterns.LINE_FORMAT, _LINE_FLAGS, patterns.MAX_PLY
        )  # fmt: skip
        return patterns.encode_board_text(
            b"".join(
                [
                    line
                    % (
                        flags[main * 2 + (white ^ ply & 1)],
                        ply if ply < most else most,
                        nodes[node][2],
                    )
                    for _, _, node, ply, main, _ in self.rows
                ]
            )
        )


_LINE_PLACES = patterns.LINE_PLACES
#: :data:`studydb.patterns.LINE_FLAGS` by ``main * 2 + white`` (White to move).
_LINE_FLAGS = tuple(
    patterns.LINE_FLAGS[main, white] for main in (False, True) for white in (False, True)
)
_BB_SQUARES = chess.BB_SQUARES
_EMPTY = ord(".")
_MAN_BYTES = patterns.MEN.encode()
_PIECE_OF_BYTE = patterns.MAN_OF_BYTE  # a board text byte's piece number (0-11), or -1
_KING, _OTHER_SIDE = chess.KING - 1, 6

#: A node's men (sorted codes), counts (wq wr wb wn wp bq br bb bn bp), board text, and the
#: code of the man its move brought to its square (-1: the men were read from the board).
Placed = tuple[tuple[int, ...], tuple[int, ...], bytearray, int]
_READ = -1  # a Placed read from the board, not made by a move


def _line_text(men: tuple[int, ...]) -> bytearray:
    """The board text of men (codes ``square * 16 + piece``) as a board line holds it."""
    text = bytearray(patterns.EMPTY_LINE_TEXT)
    for code in men:
        text[_LINE_PLACES[code >> 4]] = _MAN_BYTES[code & 15]
    return text


def line_text(board: chess.Board) -> bytearray:
    """A board's text as a board line holds it (:data:`studydb.patterns.LINE_PLACES`).

    >>> bytes(line_text(chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")))
    b'......../......../.KP...../...r..../......../......../......../k.......'
    """
    return _line_text(men_of(board))


def _placed(board: chess.Board) -> Placed:
    """The men, counts and board text of a board, read from its bitboards."""
    men = men_of(board)
    return men, counts_of(board), _line_text(men), _READ


def _made(before: Placed, move: chess.Move) -> Placed | None:
    """The men, counts and board text after ``move`` from a position whose are ``before``,
    and the code of the man moved there; or None for a move that is not a plain move or
    capture (see :class:`IndexRows`).

    >>> before = _placed(chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"))
    >>> men, counts, text, arrived = _made(before, chess.Move.from_uci("c6c7"))
    >>> men == men_of(chess.Board("8/2P5/1K6/3r4/8/8/8/k7 b - - 0 1")), counts == before[1]
    (True, True)
    >>> chess.square_name(arrived >> 4), arrived & 15  # a white pawn (piece 0) on c7
    ('c7', 0)
    """
    source, target = move.from_square, move.to_square
    if source == target:  # a null move (or a drop)
        return None
    men, counts, text, _ = before
    source_place, target_place = _LINE_PLACES[source], _LINE_PLACES[target]
    piece = _PIECE_OF_BYTE[text[source_place]]
    captured = _PIECE_OF_BYTE[text[target_place]]
    side = 0 if piece < _OTHER_SIDE else _OTHER_SIDE
    kind = piece - side
    if kind == _KING and (target - source in (2, -2) or 0 <= captured - side < _OTHER_SIDE):
        return None  # a castling (in Chess960 the king takes its own rook)
    if kind == 0 and captured < 0 and (target ^ source) & 7:
        return None  # en passant: a pawn's capture on an empty square
    placed = piece if move.promotion is None else side + move.promotion - 1
    arrived = target * 16 + placed
    after = list(men)
    after.remove(source * 16 + piece)
    insort(after, arrived)
    text = text.copy()
    text[source_place] = _EMPTY
    text[target_place] = _MAN_BYTES[placed]
    if captured < 0 and placed == piece:
        return tuple(after), counts, text, arrived
    changed = list(counts)
    if captured >= 0:
        after.remove(target * 16 + captured)
        _count(changed, captured, -1)
    if placed != piece:
        _count(changed, piece, -1)
        _count(changed, placed, 1)
    return tuple(after), tuple(changed), text, arrived


#: Count slot (wq wr wb wn wp bq br bb bn bp) of each piece number; kings have none.
_COUNT_SLOT = (4, 3, 2, 1, 0, None, 9, 8, 7, 6, 5, None)


def _count(counts: list[int], piece: int, change: int) -> None:
    slot = _COUNT_SLOT[piece]
    if slot is not None:
        counts[slot] += change
