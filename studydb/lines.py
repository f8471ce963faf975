"""Manoeuvre search: a line of move, position and word steps, found along a study's lines (pure).

A *line query* (``--line``) is steps joined by links.  A line of a study is
a path from its start p0 to a leaf pn, main line and variations alike; a
move step stands at the i of the ply it matches (from p(i-1) to p(i)), a
position or word step at the i where p(i) satisfies it.  ``A then B``: B stands
at some j > i of the same line; ``A next B``: at j = i + 1.  Steps:

**Move step** ``PIECES [FROM] ('-' | 'x') TO ['=' PROMOTION] ['+' | '#']``: the
moving man (``KQRBNP`` white, ``kqrbnp`` black, ``A`` any white, ``a`` any
black, or a set in brackets: ``[RQ]``), the squares as ``--pieces`` writes them
(``a1``, ``.``, ``[a-h]8``, ``[a-d][1-4]``, ``[a1,c3,e5]``), ``-`` any move or
``x`` a capture, ``=N`` or ``=[RBN]`` the piece promoted to (either case), ``+``
the move gives check (a mate too), ``#`` it mates.  **Position step**
``{DESIGNATORS}``: a ``--pieces`` list, all of which hold.  **Word step**
``check``, ``mate`` or ``stalemate``: the side to move in p(i) is so.

The index stores, beside each node's board (:mod:`studydb.patterns`), its *ply
facts*: fixed-width lines, one per node in node order (:func:`facts_line`), which
a query's steps are compiled to regular expressions over (:meth:`LineQuery.find`).

>>> query = parse_line("P-[a-h]8=N then mate")
>>> [type(step).__name__ for step in query.steps], query.links
(['MoveStep', 'WordStep'], ('then',))
>>> board = chess.Board("8/1P6/8/8/8/8/8/K1k5 w - - 0 1")
>>> facts = walk(board, "1. b8=N Kd2 *", PlyFacts(board))
>>> [match.nodes for match in parse_line("P-b8=N next k-.").find(facts.text())]
[(1, 2)]
"""

from __future__ import annotations

import dataclasses
import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field

import chess

from studydb import compression
from studydb.errors import QueryError, quote
from studydb.movetext import Visitor, attackers, walk
from studydb.patterns import (
    LINE_PLACES,
    LINE_WIDTH,
    MAN_OF_BYTE,
    MEN,
    PIECE_SET,
    SQUARE_SET,
    BoardLines,
    Pattern,
    PatternError,
    parse_piece_set,
    parse_pieces,
    parse_square_set,
)
from studydb.positions import line_text

__all__ = [
    "FACTS_WIDTH",
    "KEY_CAPTURE",
    "KEY_CHECK",
    "KEY_MATE",
    "KEY_PROMOTION",
    "KEY_STALEMATE",
    "LineQuery",
    "Match",
    "MoveStep",
    "PlyFacts",
    "PositionStep",
    "WordStep",
    "decode_facts",
    "decode_facts_bytes",
    "encode_facts",
    "facts_keys",
    "facts_line",
    "facts_main",
    "facts_of",
    "facts_plies",
    "parse_line",
]

PARAM = "--line"
LINKS = ("then", "next")
WORDS = ("check", "mate", "stalemate")
#: One character per board-text square (a8 = 0 … h1 = 63) in a facts line.
SQUARE_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"
#: A node's status character: the side to move is mated, stalemated, in check, or none.
MATED, STALEMATED, CHECKED, QUIET = "#", "=", "+", "."
#: One node's facts line: parent (6 digits), ``m``/``v``, the man moved (``.`` none), from,
#: to (:data:`SQUARE_CHARS`, ``.`` none), the man captured, the piece promoted to (lower
#: case), the status, a newline.
FACTS_WIDTH = 14
_MAX_NODE = 999_999
#: The first byte of a stored block: the format (1: zlib of the lines, written before
#: revision 0017; 2: :mod:`studydb.compression`'s zstd, written since).
_ZLIB_FORMAT, _FORMAT = b"\x01", b"\x02"
#: Prefilter keys (``study_moves.key``): a man's move to a square is ``man * 64 + square``;
#: then a man's capture, a promotion (colour * 4 + piece), and the statuses.
KEY_CAPTURE = 768
KEY_PROMOTION = KEY_CAPTURE + 12
KEY_CHECK = KEY_PROMOTION + 8
KEY_MATE = KEY_CHECK + 1
KEY_STALEMATE = KEY_MATE + 1
_PROMOTED = "nbrq"

#: Nodes whose boards a position step of a line without variations reads first
#: (:meth:`LineQuery.holds`); then twice as many each time.
FIRST_READ = 16
#: The columns of a facts line: main line or variation, the man moved, from, to, the man
#: captured, the piece promoted to, the status.
_MAIN, _MAN, _FROM, _TO, _CAPTURED, _PROMOTION_COLUMN, _STATUS = range(6, 13)
_WORD = re.compile(r"[^\s{}]+")
_PIECES = re.compile(PIECE_SET)
_SQUARES = re.compile(SQUARE_SET)
#: A board-text index (a8 = 0, h1 = 63) XOR this is its square's on the other side.
_RANKS_FLIPPED = 0o70
_PROMOTION = re.compile(r"\[[^\]]*\]|[A-Za-z]")


# -- ply facts: what the index stores --------------------------------------------------


def facts_line(
    parent: int,
    *,
    main: bool,
    man: str = ".",
    origin: int | None = None,
    target: int | None = None,
    captured: str = ".",
    promotion: str = ".",
    status: str = QUIET,
) -> str:
    """One node's facts line (the start has no man, squares or parent but itself).

    >>> facts_line(0, main=True, man="P", origin=9, target=1, promotion="n", status="+")
    '000000mPjb.n+\\n'
    """
    sq = SQUARE_CHARS
    return (
        f"{_line_start(parent, main)}{man}"
        f"{'.' if origin is None else sq[origin]}{'.' if target is None else sq[target]}"
        f"{captured}{promotion}{status}\n"
    )


def _line_start(parent: int, main: bool) -> str:
    """A facts line's first columns: the parent and the line's kind (``m``, ``v``).

    >>> _line_start(12, False)
    '000012v'
    """
    return f"{min(parent, _MAX_NODE):06d}{'m' if main else 'v'}"


#: :func:`_line_start` of the parents below it, written once (by ``main``, then parent):
#: every node of a replay starts its line so.
_STARTS_KEPT = 1000
_LINE_STARTS = tuple(
    tuple(_line_start(parent, main) for parent in range(_STARTS_KEPT)) for main in (False, True)
)


def facts_plies(facts: str) -> list[int]:
    """Each node's ply, its depth below the start, read off the parents in ``facts``.

    >>> facts_plies(facts_line(0, main=True) * 2 + facts_line(0, main=False))
    [0, 1, 1]
    """
    plies = [0]
    for start in range(FACTS_WIDTH, len(facts), FACTS_WIDTH):
        plies.append(plies[int(facts[start : start + 6])] + 1)
    return plies


def facts_main(facts: str, node: int) -> bool:
    """Whether ``node`` of ``facts`` stands on the main line.

    >>> facts_main(facts_line(0, main=True) + facts_line(0, main=False), 1)
    False
    """
    return facts[node * FACTS_WIDTH + _MAIN] == "m"


def encode_facts(text: str) -> bytes:
    """A study's facts lines as stored: compressed.

    >>> line = facts_line(0, main=True)
    >>> decode_facts(encode_facts(line * 2)) == line * 2
    True
    """
    return _FORMAT + compression.compress(text.encode("ascii"))


def decode_facts(blob: bytes) -> str:
    """The facts lines of a stored block (:func:`encode_facts`)."""
    return decode_facts_bytes(blob).decode("ascii")


def decode_facts_bytes(blob: bytes) -> bytes:
    """The facts lines of a stored block as bytes (:meth:`LineQuery.holds` reads them so),
    in either format.

    >>> decode_facts_bytes(_ZLIB_FORMAT + zlib.compress(b"000000m.....Q\\n"))
    b'000000m.....Q\\n'
    """
    kind = blob[:1]
    if kind == _FORMAT:
        return compression.decompress(blob[1:])
    if kind != _ZLIB_FORMAT:
        raise ValueError(f"unknown facts block format {kind!r}")
    try:
        return zlib.decompress(blob[1:])
    except zlib.error as exc:
        raise ValueError(f"damaged facts block: {exc}") from None


def _text_square(square: int) -> int:
    return (7 - chess.square_rank(square)) * 8 + chess.square_file(square)


#: The board-text index of each python-chess square (a1 = 0), and its facts-line character.
_TEXT_SQUARE = tuple(_text_square(square) for square in chess.SQUARES)
_SQUARE_CHAR = tuple(SQUARE_CHARS[square] for square in _TEXT_SQUARE)
#: The man's symbol by colour (python-chess's: black 0, white 1) and piece type.
_SYMBOL = (" pnbrqk", " PNBRQK")
#: The status keys a node's status adds (a mate is a check too).
_STATUS_KEYS = {CHECKED: (KEY_CHECK,), MATED: (KEY_CHECK, KEY_MATE), STALEMATED: (KEY_STALEMATE,)}
_NO_MOVE = "....."
_LINE_PLACES = LINE_PLACES
_EMPTY = ord(".")
#: A board text byte's character.
_CHARS = tuple(map(chr, range(256)))
_BLACK_MEN, _KING_NUMBER = 6, MEN.index("K")
#: The pawn an en-passant capture takes, by the capturer's colour (white: True).
_PAWN_TAKEN = (ord("P"), ord("p"))
_BB_SQUARES = chess.BB_SQUARES
_KING_ATTACKS = chess.BB_KING_ATTACKS


def _king_can_move(board: chess.Board) -> bool:
    """Whether the side to move's king has a legal step, which proves a legal move: a
    square next to it holding none of its men and attacked by no man of the other side
    with the king gone from its square.  False when it has none, or not one king.

    >>> _king_can_move(chess.Board("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"))  # stalemate
    False
    >>> _king_can_move(chess.Board("k7/8/1K6/8/8/8/8/2Q5 b - - 0 1"))
    True
    """
    turn = board.turn
    kings = board.occupied_co[turn] & board.kings & ~board.promoted
    if not kings or kings & (kings - 1):
        return False
    king = kings.bit_length() - 1
    other, occupied = not turn, board.occupied ^ kings
    flights = _KING_ATTACKS[king] & ~board.occupied_co[turn]
    while flights:
        square = flights.bit_length() - 1
        flights ^= _BB_SQUARES[square]
        if not attackers(board, other, square, occupied):
            return True
    return False


def _is_check(board: chess.Board) -> bool:
    """Whether the side to move is in check, as ``Board.is_check`` (its king's attackers
    from :func:`studydb.movetext.attackers`: every position of a replay asks).

    >>> _is_check(chess.Board("4k3/8/8/8/8/8/8/4R1K1 b - - 0 1"))
    True
    >>> _is_check(chess.Board("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1"))
    False
    """
    turn = board.turn
    kings = board.occupied_co[turn] & board.kings & ~board.promoted
    if not kings:
        return False
    return bool(attackers(board, not turn, kings.bit_length() - 1, board.occupied))


def _move_facts(before: bytearray, move: chess.Move) -> tuple[str, tuple[int, ...]]:
    """A move's facts (:func:`facts_line`'s man, from, to, man captured and promotion) and
    their prefilter keys, read off the board text of the position before it.

    >>> before = line_text(chess.Board("8/1P6/8/8/8/8/8/K1k5 w - - 0 1"))
    >>> _move_facts(before, chess.Move.from_uci("b7b8n")), _move_facts(before, chess.Move.null())
    (('Pjb.n', (1, 780)), ('.....', ()))
    """
    source, target = move.from_square, move.to_square
    if source == target:  # a null move (or a drop): no man moves
        return _NO_MOVE, ()
    man, taken = before[_LINE_PLACES[source]], before[_LINE_PLACES[target]]
    number = MAN_OF_BYTE[man]
    white = number < _BLACK_MEN
    sideways = (target & 7) - (source & 7)
    if number % _BLACK_MEN == _KING_NUMBER and (
        sideways > 1
        or sideways < -1
        or (taken != _EMPTY and (MAN_OF_BYTE[taken] < _BLACK_MEN) == white)
    ):  # a castling (in Chess960 the king takes its own rook)
        target = (source & 56) | (6 if sideways > 0 else 2)
        taken = _EMPTY
    elif number % _BLACK_MEN == 0 and sideways and taken == _EMPTY:
        taken = _PAWN_TAKEN[white]  # en passant
    promotion = move.promotion
    moved = f"{_CHARS[man]}{_SQUARE_CHAR[source]}{_SQUARE_CHAR[target]}{_CHARS[taken]}"
    key = number * 64 + _TEXT_SQUARE[target]
    if taken == _EMPTY and not promotion:  # the most moves: one key
        return moved + ".", (key,)
    keys = [key]
    if taken != _EMPTY:
        keys.append(KEY_CAPTURE + number)
    letter = "."
    if promotion:
        letter = _SYMBOL[0][promotion]
        keys.append(KEY_PROMOTION + (0 if white else 4) + _PROMOTED.index(letter))
    return moved + letter, tuple(keys)


class PlyFacts(Visitor):
    """The walk that records every node's facts (:func:`facts_line`); :meth:`text` gives them,
    :meth:`keys` their prefilter keys (as :func:`facts_keys` reads them from the text).

    A castling is the king's move to its castled square; an en-passant capture
    captures a pawn; a null move or a drop moves no man.  Only a line's last
    position can be mate or stalemate (no move follows either): the legal moves
    are looked for there, where a line ends, and not at every node.  The move's
    facts are read off the board text of the position before it (its parent's,
    :data:`studydb.patterns.LINE_PLACES`): ``texts``, every node's, where another
    visitor of the walk keeps them (:attr:`studydb.positions.IndexRows.texts`);
    without it, each position's is read from its board.
    """

    def __init__(self, board: chess.Board, texts: list[bytearray] | None = None) -> None:
        self.lines = [facts_line(0, main=True, status=CHECKED if board.is_check() else QUIET)]
        #: Each node's board text; this walk's own (read from each board) when none is given.
        self.own_texts = texts is None
        self.texts = [line_text(board)] if texts is None else texts
        #: The prefilter keys found on the main line, and in the variations.
        self.main_keys: set[int] = set(_STATUS_KEYS.get(self.lines[0][12], ()))
        self.variation_keys: set[int] = set()

    def visit_position(self, board: chess.Board, node: int, parent: int, main: bool) -> None:
        if self.own_texts:
            self.texts.append(line_text(board))
        moved, moved_keys = _move_facts(self.texts[parent], board.move_stack[-1])
        keys = self.main_keys if main else self.variation_keys
        keys.update(moved_keys)
        if _is_check(board):
            status = CHECKED
            keys.add(KEY_CHECK)
        else:
            status = QUIET
        start = _LINE_STARTS[main][parent] if parent < _STARTS_KEPT else _line_start(parent, main)
        self.lines.append(f"{start}{moved}{status}\n")

    def end_variation(self, board: chess.Board, node: int) -> None:
        self._ended(board, node)

    def end_game(self, board: chess.Board, node: int) -> None:
        self._ended(board, node)

    def _ended(self, board: chess.Board, node: int) -> None:
        """A line ends at ``board``, node ``node``: mate or stalemate if no move is legal
        (a king's step found first spares the move generator most of the time)."""
        if not _king_can_move(board) and not any(board.generate_legal_moves()):
            line = self.lines[node]
            status = MATED if line[12] == CHECKED else STALEMATED
            self.lines[node] = line[:12] + status + "\n"
            keys = self.main_keys if line[6] == "m" else self.variation_keys
            keys.update(_STATUS_KEYS[status])

    def text(self) -> str:
        """The facts lines of every node, in node order."""
        return "".join(self.lines)

    def keys(self) -> dict[int, bool]:
        """The prefilter keys of the facts, each with whether it occurs on the main line
        (:func:`facts_keys`)."""
        keys = dict.fromkeys(self.variation_keys, False)
        keys.update(dict.fromkeys(self.main_keys, True))
        return keys


def facts_of(board: chess.Board, text: str) -> str:
    """The facts lines of every node of the movetext ``text`` from ``board``.

    >>> facts_of(chess.Board("8/8/8/8/8/8/8/K1k5 w - - 0 1"), "1. Ka2 *")
    '000000m......\\n000000mK4W...\\n'
    """
    return walk(board, text, PlyFacts(board)).text()


def facts_keys(text: str) -> dict[int, bool]:
    """The prefilter keys of a study's facts, each with whether it occurs on the main line.

    >>> board = chess.Board("8/1P6/8/8/8/8/8/K1k5 w - - 0 1")
    >>> sorted(facts_keys(walk(board, "1. b8=N *", PlyFacts(board)).text()).items())
    [(1, True), (780, True)]
    """
    keys: dict[int, bool] = {}

    def add(key: int, main: bool) -> None:
        keys[key] = keys.get(key, False) or main

    for start in range(0, len(text), FACTS_WIDTH):
        line = text[start : start + FACTS_WIDTH]
        main = line[6] == "m"
        man, status = line[7], line[12]
        if man != ".":
            number = MEN.index(man)
            add(number * 64 + SQUARE_CHARS.index(line[9]), main)
            if line[10] != ".":
                add(KEY_CAPTURE + number, main)
            if line[11] != ".":
                add(KEY_PROMOTION + (4 if man.islower() else 0) + _PROMOTED.index(line[11]), main)
        if status != QUIET:
            add({CHECKED: KEY_CHECK, MATED: KEY_MATE, STALEMATED: KEY_STALEMATE}[status], main)
            if status == MATED:
                add(KEY_CHECK, main)
    return keys


# -- steps ------------------------------------------------------------------------------


@dataclass(frozen=True)
class MoveStep:
    """A move: the men moved, from and to which squares (board-text indices), a capture,
    the pieces promoted to (lower case; empty: any move or none), ``+`` or ``#``."""

    text: str
    men: frozenset[str]
    origins: tuple[int, ...]
    targets: tuple[int, ...]
    capture: bool = False
    promotions: frozenset[str] = frozenset()
    mark: str = ""

    def regex(self) -> str:
        """The facts line of a ply this step matches, as a regex (no flags, no newline)."""
        men = "".join(sorted(self.men))
        origin = _square_class(self.origins)
        target = _square_class(self.targets)
        captured = "[^.]" if self.capture else "."
        promotion = f"[{''.join(sorted(self.promotions))}]" if self.promotions else "."
        status = {"+": "[+#]", "#": "#", "": "."}[self.mark]
        return f"[{men}]{origin}{target}{captured}{promotion}{status}"

    def columns(self) -> dict[int, str]:
        """The characters a facts line's columns may hold at a ply this step matches
        (the columns that say something only), as :meth:`regex` says them."""
        wanted = {_MAN: "".join(sorted(self.men))}
        if len(self.origins) < 64:
            wanted[_FROM] = "".join(SQUARE_CHARS[s] for s in self.origins)
        if len(self.targets) < 64:
            wanted[_TO] = "".join(SQUARE_CHARS[s] for s in self.targets)
        if self.capture:
            wanted[_CAPTURED] = MEN
        if self.promotions:
            wanted[_PROMOTION_COLUMN] = "".join(sorted(self.promotions))
        if self.mark:
            wanted[_STATUS] = MATED if self.mark == "#" else CHECKED + MATED
        return wanted

    def inverted(self) -> MoveStep:
        """The step with the colours reversed: the other side's men, the ranks flipped.

        >>> step = _move_step("P-[a-h]8=N", "P-[a-h]8=N", 0).inverted()  # a8 … h8: 0 … 7
        >>> sorted(step.men), step.targets == tuple(range(56, 64))  # a1 … h1
        (['p'], True)
        """
        return dataclasses.replace(
            self,
            men=frozenset(man.swapcase() for man in self.men),
            origins=tuple(sorted(square ^ _RANKS_FLIPPED for square in self.origins)),
            targets=tuple(sorted(square ^ _RANKS_FLIPPED for square in self.targets)),
        )

    def key_groups(self) -> list[list[int]]:
        """Prefilter key sets, each of which a study holding a match has one key of."""
        men = sorted(MEN.index(man) for man in self.men)
        groups = [[man * 64 + square for man in men for square in self.targets]]
        if self.capture:
            groups.append([KEY_CAPTURE + man for man in men])
        if self.promotions:
            colours = sorted({4 if MEN[man].islower() else 0 for man in men})
            groups.append(
                [KEY_PROMOTION + c + _PROMOTED.index(p) for c in colours for p in self.promotions]
            )
        if self.mark:
            groups.append([KEY_MATE if self.mark == "#" else KEY_CHECK])
        return groups


@dataclass(frozen=True)
class PositionStep:
    """A position where all of a ``--pieces`` list's designators hold."""

    text: str
    pattern: Pattern

    def inverted(self) -> PositionStep:
        """The step with the colours reversed (:meth:`studydb.patterns.Pattern.inverted`)."""
        return PositionStep(self.text, self.pattern.inverted())

    def key_groups(self) -> list[list[int]]:
        return []


@dataclass(frozen=True)
class WordStep:
    """A position whose side to move is in ``check`` (mated too), ``mate`` or ``stalemate``."""

    text: str
    word: str

    def inverted(self) -> WordStep:
        """The same step: check, mate and stalemate are the side to move's, either side."""
        return self

    def regex(self) -> str:
        status = {"check": "[+#]", "mate": "#", "stalemate": "="}[self.word]
        return f"[^\\n]{{5}}{status}"

    def columns(self) -> dict[int, str]:
        """The characters a facts line's columns may hold where this step stands."""
        return {
            _STATUS: {"check": CHECKED + MATED, "mate": MATED, "stalemate": STALEMATED}[self.word]
        }

    def key_groups(self) -> list[list[int]]:
        key = {"check": KEY_CHECK, "mate": KEY_MATE, "stalemate": KEY_STALEMATE}[self.word]
        return [[key]]


Step = MoveStep | PositionStep | WordStep


def _square_class(squares: tuple[int, ...]) -> str:
    if len(squares) == 64:
        return "[^.]"
    return "[" + "".join(re.escape(SQUARE_CHARS[s]) for s in squares) + "]"


@dataclass(frozen=True)
class Match:
    """Where a line query matched: the node of each step (a path from the start)."""

    nodes: tuple[int, ...]


@dataclass(frozen=True)
class LineQuery:
    """A compiled ``--line``: its steps and the links between them (``then``, ``next``)."""

    text: str
    steps: tuple[Step, ...]
    links: tuple[str, ...]
    _regexes: dict[tuple[int, bool], re.Pattern[str]] = field(
        default_factory=dict, compare=False, repr=False
    )
    #: Each step's column tables (:meth:`holds`).
    _tables: dict[int, list[tuple[int, bytes]]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def inverted(self) -> LineQuery:
        """The line with the colours reversed, each step's (``--either-colour``): the
        other side's men, on the ranks flipped.

        >>> query = parse_line("P-[a-h]8=N then mate")
        >>> [sorted(step.men) for step in query.inverted().steps[:1]]
        [['p']]
        """
        return LineQuery(self.text, tuple(step.inverted() for step in self.steps), self.links)

    def colourings(self, *, either_colour: bool) -> list[LineQuery]:
        """This line, and with ``either_colour`` its colour-reversed one too."""
        return [self, self.inverted()] if either_colour else [self]

    def needs_boards(self) -> bool:
        """Whether a position step needs the boards (:mod:`studydb.patterns`' lines)."""
        return any(isinstance(step, PositionStep) for step in self.steps)

    def find(
        self, facts: str, boards: str | None = None, *, main_line: bool = False
    ) -> list[Match]:
        """Every match along the lines of ``facts`` (and ``boards``, for position steps):
        one for each node the last step stands at, the earlier steps at the nearest nodes
        before it that fit; ``main_line``: on the main line only.

        >>> board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
        >>> facts = walk(board, "1. c7 Rd6+ (1... Rc5 2. Kxc5) 2. Kb5 *", PlyFacts(board)).text()
        >>> [m.nodes for m in parse_line("P-c7 then K-.").find(facts)]
        [(1, 4), (1, 5)]
        >>> [m.nodes for m in parse_line("P-c7 then K-.").find(facts, main_line=True)]
        [(1, 5)]
        """
        found: list[set[int]] = []
        for index, step in enumerate(self.steps):
            nodes = self._nodes(index, step, facts, boards, main_line)
            if not nodes:
                return []
            found.append(nodes)
        parents = _Parents(facts)
        before: list[dict[int, int]] = []  # per link: node -> the previous step's node
        reached = found[0]
        for link, nodes in zip(self.links, found[1:], strict=True):
            back = _linked(parents, reached, nodes, then=link == "then")
            if not back:
                return []
            before.append(back)
            reached = set(back)
        matches = []
        for end in sorted(reached):
            path = [end]
            for back in reversed(before):
                path.append(back[path[-1]])
            matches.append(Match(tuple(reversed(path))))
        return matches

    def holds(
        self,
        facts: bytes,
        boards: str | BoardLines | None = None,
        *,
        main_line: bool = False,
    ) -> bool:
        """Whether the facts (:func:`decode_facts_bytes`) hold a match (:meth:`find` finds
        one): as :meth:`find` says, faster.  ``boards``, for position steps, may be a
        stored block's :class:`~studydb.patterns.BoardLines`: only the nodes that the
        moves and words leave to test are inflated and read.

        A study with no variation is one line, node ``i`` the parent of ``i + 1``:
        each step is a byte string of a byte a node, 1 where it stands (the facts'
        columns sliced and translated, a few C calls), read as an integer, and a
        link is a shift (``next``) or the bits past the lowest (``then``).  A study
        with variations is searched by :meth:`find`.

        >>> board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
        >>> facts = walk(board, "1. c7 Rd6+ 2. Kb5 Rd5+ *", PlyFacts(board)).text().encode()
        >>> [parse_line(t).holds(facts) for t in ("P-c7 next r-.+", "P-c7 next K-.", "check")]
        [True, False, True]
        """
        lines = BoardLines.of_text(boards) if isinstance(boards, str) else boards
        if b"v" in facts[_MAIN::FACTS_WIDTH]:
            text = None if lines is None else lines.upto()
            return bool(self.find(facts.decode("ascii"), text, main_line=main_line))
        masks: list[int | None] = []
        for index, step in enumerate(self.steps):  # the moves and words first: no boards
            mask = None if isinstance(step, PositionStep) else self._mask(index, step, facts)
            if mask == 0:
                return False
            masks.append(mask)
        reached = 0
        for index, nodes in enumerate(masks):
            if nodes is None:  # a position step: the boards, where the line so far allows
                if lines is None:
                    raise ValueError("a position step needs the boards")
                later = masks[index + 1] if index + 1 < len(masks) else None
                nodes = self._placed(index, lines, reached, later)
            if index == 0:
                reached = nodes
            elif self.links[index - 1] == "next":
                reached = reached << 8 & nodes
            else:  # every node after the first that the steps so far reach
                reached = nodes & ~(((reached & -reached) << 8) - 1)
            if not reached:
                return False
        return True

    def _placed(self, index: int, boards: BoardLines, reached: int, later: int | None) -> int:
        """The nodes where position step ``index`` stands that the line can use, given the
        nodes the steps before it reached: after their first (``then``) or right after
        one (``next``), and before the last of the next step's nodes (``later``, when it
        is a move or a word); only the first such when the next link is ``then`` (or
        none follows), which is all that link reads.  Next to a ``next`` only the nodes
        that link allows are tested.  The boards are inflated as the scan goes:
        :data:`FIRST_READ` nodes, then twice as many each time."""
        step = self.steps[index]
        assert isinstance(step, PositionStep)
        allowed = -1
        start = 0
        if index and self.links[index - 1] == "next":
            allowed = reached << 8
            start = ((allowed & -allowed).bit_length() - 1) // 8
        elif index:
            start = ((reached & -reached).bit_length() - 1) // 8 + 1
        first = index == len(self.steps) - 1 or self.links[index] == "then"
        stop: int | None = None  # past every node
        if later is not None:
            stop = (later.bit_length() - 1) // 8  # the next step's last node
            if self.links[index] == "next":
                allowed &= later >> 8
        pattern = step.pattern
        nodes = 0
        read = FIRST_READ
        if allowed >= 0:  # after a 'next' or before one: only where that move or word is
            allowed &= -(1 << 8 * start)
            lines = boards.text
            while allowed:
                low = allowed & -allowed
                allowed ^= low
                node = (low.bit_length() - 1) // 8
                if stop is not None and node >= stop:
                    break
                if (node + 1) * LINE_WIDTH > len(lines):
                    lines = boards.upto(node + read if stop is None else min(node + read, stop))
                    read *= 2
                if pattern.fits_at(lines, node):
                    nodes |= low
                    if first:
                        break
            return nodes
        while stop is None or start < stop:
            lines = boards.upto(start + read if stop is None else min(start + read, stop))
            for node in pattern.nodes(lines, start=start, stop=stop):
                nodes |= 1 << 8 * node
                if first:
                    return nodes
            if boards.complete:
                break
            start, read = len(lines) // LINE_WIDTH, read * 2
        return nodes

    def _mask(self, index: int, step: MoveStep | WordStep, facts: bytes) -> int:
        """The nodes where ``step`` stands, as bits 0, 8, 16 … of an integer (one line)."""
        if index not in self._tables:
            self._tables[index] = [(c, _column_table(chars)) for c, chars in step.columns().items()]
        nodes = -1
        for column, table in self._tables[index]:
            nodes &= int.from_bytes(facts[column::FACTS_WIDTH].translate(table), "little")
        return nodes

    def _nodes(
        self, index: int, step: Step, facts: str, boards: str | None, main_line: bool
    ) -> set[int]:
        if isinstance(step, PositionStep):
            if boards is None:
                raise ValueError("a position step needs the boards")
            return {f.node for f in step.pattern.find(boards, main_line=main_line)}
        key = (index, main_line)
        if key not in self._regexes:
            flag = "m" if main_line else "[mv]"
            self._regexes[key] = re.compile(f"^\\d{{6}}{flag}{step.regex()}$", re.MULTILINE)
        return {m.start() // FACTS_WIDTH for m in self._regexes[key].finditer(facts)}

    def key_groups(self) -> list[list[list[int]]]:
        """Each step's prefilter key sets (:meth:`MoveStep.key_groups`); none for positions."""
        return [step.key_groups() for step in self.steps]

    def required(self) -> dict[str, int]:
        """The fewest of each man a position step needs (``Pattern.required``), most of all."""
        need: dict[str, int] = {}
        for step in self.steps:
            if isinstance(step, PositionStep):
                for man, n in step.pattern.required().items():
                    need[man] = max(need.get(man, 0), n)
        return need


def _column_table(chars: str) -> bytes:
    """A ``bytes.translate`` table: 1 for the characters of ``chars``, 0 for the others."""
    allowed = set(chars.encode("ascii"))
    return bytes(byte in allowed for byte in range(256))


class _Parents:
    """Each node's parent, read from the facts when asked (-1 for the start): a line's
    steps need the parents of few nodes."""

    def __init__(self, facts: str) -> None:
        self.facts = facts

    def __getitem__(self, node: int) -> int:
        start = node * FACTS_WIDTH
        return int(self.facts[start : start + 6]) if node else -1


def _linked(
    parents: _Parents, reached: set[int], nodes: Iterable[int], *, then: bool
) -> dict[int, int]:
    """The nodes of ``nodes`` with the node of ``reached`` before them: their parent
    (``next``) or their nearest proper ancestor (``then``)."""
    back: dict[int, int] = {}
    nearest: dict[int, int] = {}  # node -> its nearest proper ancestor in reached (-1: none)

    def ancestor(node: int) -> int:
        path = []
        parent = parents[node]
        while parent >= 0 and parent not in reached and parent not in nearest:
            path.append(parent)
            parent = parents[parent]
        found = -1 if parent < 0 else (parent if parent in reached else nearest[parent])
        for passed in path:
            nearest[passed] = found
        return found

    for node in nodes:
        if node == 0:
            continue
        if then:
            found = ancestor(node)
        else:
            found = parents[node]
            found = found if found in reached else -1
        if found >= 0:
            back[node] = found
    return back


# -- the grammar --------------------------------------------------------------------------


def _error(text: str, at: int, what: str) -> QueryError:
    return QueryError(f"bad line {quote(text)} at character {at + 1}: {what}", param=PARAM)


def _tokens(text: str) -> list[tuple[str, int]]:
    """The words and ``{…}`` groups of ``text``, each with its offset."""
    tokens = []
    at = 0
    while at < len(text):
        char = text[at]
        if char.isspace():
            at += 1
        elif char == "{":
            depth, end = 0, at
            while end < len(text):
                depth += {"{": 1, "}": -1}.get(text[end], 0)
                if depth == 0:
                    break
                end += 1
            if depth:
                raise _error(text, at, "unclosed '{'")
            tokens.append((text[at : end + 1], at))
            at = end + 1
        elif char == "}":
            raise _error(text, at, "'}' with no '{' before it")
        else:
            word = _WORD.match(text, at)
            assert word is not None
            tokens.append((word.group(), at))
            at = word.end()
    return tokens


def parse_line(text: str) -> LineQuery:
    """Compile a ``--line``; malformed input is a :class:`QueryError` pointing at the bad token.

    >>> parse_line("R-[a-h]7 next {R[a-h]7 r[a-h]2}").links
    ('next',)
    >>> parse_line("then mate")
    Traceback (most recent call last):
    ...
    studydb.errors.QueryError: bad line 'then mate' at character 1: 'then' with no step before it
    """
    tokens = _tokens(text)
    if not tokens:
        raise QueryError(f"bad line {quote(text)}: no step", param=PARAM)
    steps: list[Step] = []
    links: list[str] = []
    for number, (token, at) in enumerate(tokens):
        wants_step = number % 2 == 0
        if token in LINKS:
            if wants_step:
                where = "before it" if number == 0 else f"after '{tokens[number - 1][0]}'"
                raise _error(text, at, f"'{token}' with no step {where}")
            links.append(token)
        elif not wants_step:
            raise _error(
                text, at, f"{token!r} follows a step: 'then' or 'next' goes between two steps"
            )
        else:
            steps.append(_step(text, token, at))
    if len(links) == len(steps):
        raise _error(text, tokens[-1][1], f"'{tokens[-1][0]}' with no step after it")
    return LineQuery(text, tuple(steps), tuple(links))


def _step(text: str, token: str, at: int) -> Step:
    if token in WORDS:
        return WordStep(token, token)
    if token.startswith("{"):
        inner = token[1:-1]
        try:
            pattern = parse_pieces(inner, param=PARAM)
        except PatternError as exc:
            raise _error(text, at + 1 + exc.at, exc.reason) from None
        except QueryError:
            raise _error(text, at, f"{token!r} has no designator ('{{R[a-h]7 k.}}')") from None
        return PositionStep(token, pattern)
    return _move_step(text, token, at)


def _move_step(text: str, token: str, at: int) -> MoveStep:
    def fail(offset: int, what: str) -> QueryError:
        return _error(text, at + offset, what)

    pieces = _PIECES.match(token)
    if pieces is None or not token[pieces.end() :]:
        if token.isalpha():
            raise fail(
                0,
                f"{token!r} is not a step: a move (R-[a-h]7), {{designators}}, check, mate, "
                "stalemate, or a link (then, next)",
            )
        raise fail(0, f"{token!r} is not a move step: pieces, [from], - or x, to ('R-[a-h]7')")
    try:
        men = parse_piece_set(pieces.group(), param=PARAM)
    except PatternError as exc:
        raise fail(exc.at, exc.reason) from None
    if "." in men:
        raise fail(0, f"{pieces.group()!r}: an empty square does not move")
    at_ = pieces.end()
    origins: tuple[int, ...] = tuple(range(64))
    origin = _SQUARES.match(token, at_)
    if origin is not None and token[origin.end() : origin.end() + 1] in ("-", "x"):
        origins = _squares(text, at + at_, origin.group())
        at_ = origin.end()
    if token[at_ : at_ + 1] not in ("-", "x"):
        raise fail(at_, f"expected '-' (a move) or 'x' (a capture) at {token[at_:]!r}")
    capture = token[at_] == "x"
    at_ += 1
    target = _SQUARES.match(token, at_)
    if target is None or token[target.end() : target.end() + 1] not in ("", "=", "+", "#"):
        raise fail(at_, f"{token[at_:]!r} is not a square set ('a1', '.', '[a-h]8', '[a1,c3]')")
    targets = _squares(text, at + at_, target.group())
    at_ = target.end()
    promotions: frozenset[str] = frozenset()
    if token[at_ : at_ + 1] == "=":
        promoted = _PROMOTION.match(token, at_ + 1)
        letters = "" if promoted is None else promoted.group().strip("[]").lower()
        if promoted is None or not letters or set(letters) - set(_PROMOTED):
            raise fail(at_ + 1, f"{token[at_ + 1 :]!r} is not a promotion piece (=N, =[RBN])")
        promotions = frozenset(letters)
        at_ = promoted.end()
    mark = ""
    if token[at_ : at_ + 1] in ("+", "#"):
        mark = token[at_]
        at_ += 1
    if at_ != len(token):
        raise fail(at_, f"unexpected {token[at_:]!r} after the move step {token[:at_]!r}")
    return MoveStep(token, men, origins, targets, capture, promotions, mark)


def _squares(text: str, at: int, token: str) -> tuple[int, ...]:
    try:
        return parse_square_set(token, param=PARAM)
    except PatternError as exc:
        raise _error(text, at + exc.at, exc.reason) from None
