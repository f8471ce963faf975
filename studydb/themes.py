"""A study's themes, found in its main line, and the themes its PGN tags name.

Pure: python-chess only (``chess.syzygy`` for the mutual zugzwangs).  The
*solver* is the side to move in the start position; the other side is the
*defender*.  Plies count from the start position (ply 1 is the first move).
Every rule is stated with its function and in the README:

``mate`` / ``stalemate`` (:func:`find_themes`)
    the main line has a move and its last position is checkmate / stalemate;
    the ply of that position.
``stalemate-line``
    the main line does not end in stalemate, but a variation does: the first
    such variation end, by ply.
``underpromotion``
    a solver's main-line move promotes to a rook, bishop or knight; one theme
    per promotion, ``detail`` the piece (``R``, ``B``, ``N``).
``excelsior``
    a solver pawn standing on its own second rank in the start position
    promotes within the main line; ``detail`` the pawn's path (``b2-b8``).
``positional-draw``
    a draw study (or one of unknown stipulation) whose main line ends in a
    position (men on their squares and side to move; castling and en-passant
    rights ignored) it reached before: a repetition the line goes on from is
    none; the ply of the line's end, ``detail`` the ply it repeats (the latest).
``perpetual-check``
    as ``positional-draw``, where one side gives check with every one of its
    moves between the two occurrences; ``detail`` that side (``White`` /
    ``Black``).
``switchback``
    a solver piece (not a pawn; the king counts) moves to a square it left
    earlier in the main line; once per piece and square, at the first return,
    ``detail`` the piece and square (``Rd1``).  A promoted piece is a new piece.
``domination`` (:func:`dominated_piece`)
    after a solver's main-line move the defender is not in check and has at
    most three queens, rooks, bishops and knights in all (an endgame idea:
    among more, pieces hemmed in by their own men would count), one of them
    has a legal move, and every legal
    move of that piece lets the solver win it at once: the solver has a legal
    capture of it on its new square that gains material.  A capture gains
    material when the piece's value is larger than the value of the man it
    took plus, if the defender has a legal capture on that square afterwards,
    the value of the capturing man (pawn 1, knight 3, bishop 3, rook 5, queen
    9).  Once per piece and square, at the first such ply; ``detail`` the
    dominated piece and its square (``nb1``, lower case for Black, as in FEN).
``mutual-zugzwang`` (:func:`mutual_zugzwangs`, needs the tables)
    a main-line position within the tables, with no castling rights, that is
    legal with either side to move and in which either side to move has a
    legal move, where the result with White to move is worse for White than
    with Black to move (Syzygy WDL results, a cursed win counting as a win).
    ``detail`` ``full`` (whoever moves loses) or ``half`` (a draw against a
    win or a loss).

>>> board = chess.Board("8/2P5/8/8/8/8/8/k1K5 w - - 0 1")
>>> [(t.name, t.ply, t.detail) for t in find_themes(board, [chess.Move.from_uci("c7c8r")])]
[('underpromotion', 1, 'R')]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import chess

from studydb.movetext import attackers
from studydb.vocabulary import THEMES

__all__ = [
    "AUTO",
    "PGN",
    "SYZYGY_MEN",
    "TAG_NAMES",
    "THEMES",
    "MainLine",
    "Theme",
    "dominated_piece",
    "find_themes",
    "mutual_zugzwangs",
    "normalise_theme",
    "tag_themes",
    "zugzwang_kind",
]

#: Sources of a theme: found by studydb, or read from the file's tags.
AUTO, PGN = "auto", "pgn"
#: Tags (any case) whose values are theme lists.
TAG_NAMES = frozenset({"keywords", "keyword", "theme", "themes"})
#: Longest theme name stored; longer keywords are cut.
MAX_NAME = 64
#: The most men Syzygy tables have.
SYZYGY_MEN = 7
#: Values of the men for domination (the king is never won).
PIECE_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
#: The most queens, rooks, bishops and knights the defender may have for a domination:
#: an endgame idea (among more, the rule finds pieces hemmed in by their own men).
DOMINATION_PIECES = 3
#: python-chess's attack tables, bound here: domination reads them for every piece.
_KNIGHT, _KING = chess.BB_KNIGHT_ATTACKS, chess.BB_KING_ATTACKS
_DIAG, _DIAG_MASKS = chess.BB_DIAG_ATTACKS, chess.BB_DIAG_MASKS
_RANK, _RANK_MASKS = chess.BB_RANK_ATTACKS, chess.BB_RANK_MASKS
_FILE, _FILE_MASKS = chess.BB_FILE_ATTACKS, chess.BB_FILE_MASKS
_NOT_FILE_A, _NOT_FILE_H = ~chess.BB_FILE_A, ~chess.BB_FILE_H
_SQUARES = chess.BB_SQUARES
#: Each square's rank and file, and its diagonals, on an empty board (a pin's lines).
_STRAIGHT_LINES = tuple(_RANK[square][0] | _FILE[square][0] for square in chess.SQUARES)
_DIAGONAL_LINES = tuple(_DIAG[square][0] for square in chess.SQUARES)
#: Each square's neighbours along a rank or file, and along a diagonal: a slider there
#: attacks them whatever else is on the board.
_NEAR_STRAIGHT = tuple(_KING[square] & _STRAIGHT_LINES[square] for square in chess.SQUARES)
_NEAR_DIAGONAL = tuple(_KING[square] & _DIAGONAL_LINES[square] for square in chess.SQUARES)
#: The squares between two squares on a line (``chess.between``), looked up.
_BETWEEN = tuple(tuple(chess.between(a, b) for b in chess.SQUARES) for a in chess.SQUARES)
#: Keywords that name one of our themes another way (after normalising).
SYNONYMS = {
    "checkmate": "mate",
    "model-mate": "mate",
    "perpetual": "perpetual-check",
    "perpetual-checks": "perpetual-check",
    "positional-draws": "positional-draw",
    "mutual-zugzwang": "mutual-zugzwang",
    "reciprocal-zugzwang": "mutual-zugzwang",
    "mz": "mutual-zugzwang",
    "rz": "mutual-zugzwang",
    "minor-promotion": "underpromotion",
    "under-promotion": "underpromotion",
    "switch-back": "switchback",
    "dominance": "domination",
}
_SPLIT = re.compile(r"[,;|\n]+")
_SPACES = re.compile(r"[\s_]+")
_STRIP = " \t\"'[](){}-*•."

#: A WDL probe: the value of a position for the side to move (raises KeyError,
#: ``chess.syzygy.MissingTableError`` included, when it has none).
Probe = Callable[[chess.Board], int]


@dataclass(frozen=True, slots=True, order=True)
class Theme:
    """A theme of a study: its name, the ply where it happens, a detail and its source.

    ``ply`` is None for a theme read from the tags.

    >>> Theme("underpromotion", 5, "N").describe()
    'underpromotion ply 5 (N)'
    """

    name: str
    ply: int | None = None
    detail: str | None = None
    source: str = AUTO

    def describe(self) -> str:
        """``name ply N (detail)``, the parts it has."""
        text = self.name if self.ply is None else f"{self.name} ply {self.ply}"
        return f"{text} ({self.detail})" if self.detail else text

    def place(self, move: str | None = None) -> str:
        """Where it happens, as ``show``, the study page and the report say it: the main
        line's ``move`` to its ply (when known), the ply, and the detail.

        >>> Theme("underpromotion", 11, "R").place("6.c8=R")
        '6.c8=R, ply 11: R'
        >>> Theme("switchback", 13).place(), Theme("opposition").place()
        ('ply 13', 'from the tags')
        """
        if self.ply is None:
            where = "from the tags"
        else:
            where = f"{move}, ply {self.ply}" if move else f"ply {self.ply}"
        return f"{where}: {self.detail}" if self.detail else where

    def __reduce__(self) -> tuple[type[Theme], tuple[str, int | None, str | None, str]]:
        """Pickled as its fields, made again by its constructor: the import's workers send
        thousands a batch, and a frozen dataclass's own ``__setstate__`` calls
        ``dataclasses.fields`` for each (a third of the time the main process spent unpickling
        a batch's results)."""
        return Theme, (self.name, self.ply, self.detail, self.source)


# -- the main line ------------------------------------------------------------------


def find_themes(
    board: chess.Board,
    moves: Sequence[chess.Move],
    *,
    stipulation: str | None = None,
    stalemate_plies: Iterable[int] = (),
) -> list[Theme]:
    """The themes of a main line of ``moves`` from ``board`` (all but mutual zugzwang).

    ``stipulation`` (``win``, ``draw``, …) decides ``positional-draw``;
    ``stalemate_plies`` are the plies where variations end in stalemate.
    The moves must be legal (a replay stops at the first illegal one).

    >>> board = chess.Board("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1")
    >>> [t.describe() for t in find_themes(board, [chess.Move.from_uci("f1f8")])]
    ['mate ply 1']
    """
    board = board.copy(stack=False)
    line = MainLine(board, stipulation=stipulation)
    for move in moves:
        board.push(move)
        line.moved(board)
    for ply in stalemate_plies:
        line.variation_stalemate(ply)
    return line.finish(board)


def _order(theme: Theme) -> tuple[int, int, str]:
    ply = theme.ply if theme.ply is not None else -1
    rank = THEMES.index(theme.name) if theme.name in THEMES else len(THEMES)
    return (ply, rank, theme.detail or "")


def _placement(board: chess.Board) -> tuple[int, ...]:
    """The men on their squares and the side to move (castling and en passant ignored)."""
    return (
        board.occupied_co[chess.WHITE],
        board.occupied_co[chess.BLACK],
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.kings,
        board.turn,
    )


class MainLine:
    """Collects the themes of a main line while a replay plays it (no board of its own).

    Call :meth:`moved` with the board after each of the solver's main-line moves (the
    defender's may be passed too), :meth:`variation_stalemate` for each variation ending
    in stalemate, and :meth:`finish` with the last board.  The board's move stack is the
    line: its length counts the plies, and the moves are read off it at the end
    (:class:`_Men`).  Only domination needs positions as they come.

    >>> board = chess.Board("8/8/8/8/8/8/1P5k/K7 w - - 0 1")
    >>> line = MainLine(board)
    >>> for uci in ("b2b4", "h2g2", "b4b5", "g2f2", "b5b6", "f2e2", "b6b7", "e2d2", "b7b8n"):
    ...     _ = board.push_uci(uci)
    ...     line.moved(board)
    >>> [t.describe() for t in line.finish(board)]
    ['underpromotion ply 9 (N)', 'excelsior ply 9 (b2-b8)']
    """

    def __init__(self, board: chess.Board, *, stipulation: str | None = None) -> None:
        self.solver = board.turn
        self.draw = stipulation == "draw"
        # Whether the line's repetitions are read: a draw study's, and a study's of unknown
        # stipulation (themes when the line ends in a repetition).
        self.repetitions = self.draw or stipulation is None
        self.base = len(board.move_stack)  # the plies before the line's start
        self.found: list[Theme] = []
        self.start = _placement(board)
        self.dominated: set[str] = set()
        self.stalemate_ply: int | None = None

    def moved(self, board: chess.Board, *, check: bool | None = None) -> None:
        """Take ``board``, the position after the line's next move, ``check`` whether it is
        check (when the caller knows)."""
        if board.turn != self.solver and not check:  # in check, nothing is dominated
            dominated = dominated_piece(board, check=check)
            if dominated is not None and dominated not in self.dominated:
                self.dominated.add(dominated)
                ply = len(board.move_stack) - self.base
                self.found.append(Theme("domination", ply, dominated))

    def variation_stalemate(self, ply: int) -> None:
        """A variation ends in stalemate at ``ply``."""
        if self.stalemate_ply is None or ply < self.stalemate_ply:
            self.stalemate_ply = ply

    def finish(
        self,
        board: chess.Board,
        *,
        mate: bool | None = None,
        stalemate: bool | None = None,
        positions: Sequence[Hashable] | None = None,
        checks: Sequence[bool] | None = None,
    ) -> list[Theme]:
        """The themes, by ply; ``board`` is the last position of the main line, ``mate``
        and ``stalemate`` whether it is checkmate and stalemate (when the caller knows).

        A draw study's repetitions (or a study's of unknown stipulation) are read off
        ``positions``, the line's positions from
        its start (keys equal exactly when the men and the side to move are, as
        :func:`_placement`'s), and ``checks``, whether each is check; without them the
        line is taken back to its start and played again for them.
        """
        moves = board.move_stack[self.base :]
        found = [*self.found, *_Men(self.start).follow(moves)]
        if self.repetitions:
            if positions is None or checks is None:
                start = board.copy()
                for _ in moves:
                    start.pop()
                positions, checks = _line_positions(start, moves)
            found += _repetitions(positions, checks, self.solver)
        ply = len(moves)
        if stalemate is None:
            stalemate = board.is_stalemate()
        stalemate = ply > 0 and stalemate
        if ply and (board.is_checkmate() if mate is None else mate):
            found.append(Theme("mate", ply))
        elif stalemate:
            found.append(Theme("stalemate", ply))
        if not stalemate and self.stalemate_ply is not None:
            found.append(Theme("stalemate-line", self.stalemate_ply))
        return sorted(found, key=_order)


def _line_positions(
    board: chess.Board, moves: Sequence[chess.Move]
) -> tuple[list[tuple[int, ...]], list[bool]]:
    """The placements of ``moves``' line from ``board`` (its start first), and whether
    each is check."""
    board = board.copy(stack=False)
    positions, checks = [_placement(board)], [board.is_check()]
    for move in moves:
        board.push(move)
        positions.append(_placement(board))
        checks.append(board.is_check())
    return positions, checks


def _repetitions(
    positions: Sequence[Hashable], checks: Sequence[bool], solver: chess.Color
) -> list[Theme]:
    """``positional-draw`` where the line ends in a position seen before, and
    ``perpetual-check`` there too when one side checked with each of its moves since that
    position's latest earlier time.  A repetition the line goes on from is no theme.

    ``positions`` are the line's, by ply from its start, where ``solver`` is to move.

    >>> moves = ["h1h2", "a8b8", "h2h1", "b8a8"]
    >>> board = chess.Board("k7/8/8/8/8/8/8/7K w - - 0 1")
    >>> positions, checks = _line_positions(board, [chess.Move.from_uci(m) for m in moves])
    >>> [t.describe() for t in _repetitions(positions, checks, chess.WHITE)]
    ['positional-draw ply 4 (ply 0)']
    >>> _repetitions(positions[:-1], checks[:-1], chess.WHITE)
    []
    """
    last = len(positions) - 1
    final = positions[last]
    earlier = next((ply for ply in range(last - 2, -1, -2) if positions[ply] == final), None)
    if earlier is None:
        return []
    found = [Theme("positional-draw", last, f"ply {earlier}")]
    turn = solver if last % 2 == 0 else not solver
    checker = _checking_side(checks, earlier, last, turn)
    if checker is not None:
        found.append(Theme("perpetual-check", last, checker))
    return found


class _Men:
    """The solver's men followed through a main line's moves, from the start position's
    :func:`_placement`: underpromotion, excelsior and switchback.

    The defender's pawns are followed too, for what only they do: take en passant.

    >>> start = _placement(chess.Board("8/8/8/8/8/8/1P5k/K7 w - - 0 1"))
    >>> moves = [chess.Move.from_uci(uci) for uci in ("a1a2", "h2h1", "a2a1")]
    >>> [t.describe() for t in _Men(start).follow(moves)]
    ['switchback ply 3 (Ka1)']
    """

    def __init__(self, start: tuple[int, ...]) -> None:
        white, black, *kinds, turn = start
        mine, theirs = (white, black) if turn == chess.WHITE else (black, white)
        # The solver's men by square: (an id, the piece type); the squares each id left.
        self.men: dict[chess.Square, tuple[int, chess.PieceType]] = {
            square: (square, kind)
            for kind, mask in zip(chess.PIECE_TYPES, kinds, strict=True)
            for square in chess.scan_forward(mask & mine)
        }
        self.left: dict[int, chess.Bitboard] = {}
        self.returned: set[tuple[int, chess.Square]] = set()
        second = chess.BB_RANK_2 if turn == chess.WHITE else chess.BB_RANK_7
        self.excelsior = {square: square for square in chess.scan_forward(kinds[0] & mine & second)}
        self.their_pawns = kinds[0] & theirs
        self.found: list[Theme] = []

    def follow(self, moves: Sequence[chess.Move]) -> list[Theme]:
        """The themes the solver's men make in ``moves`` (the solver's first)."""
        passed: chess.Square | None = None  # the square a defender's pawn just went over
        men, squares = self.men, _SQUARES
        for ply, move in enumerate(moves, 1):
            if not move:  # a null move: no man moves (its squares are a1's, 0 to 0)
                passed = None
            elif ply & 1:
                self._solver_move(move, ply, passed)
            elif move.to_square in men or self.their_pawns & squares[move.from_square]:
                passed = self._defender_move(move)
            else:  # neither a pawn's move nor a capture: nothing to follow
                passed = None
        return self.found

    def _solver_move(self, move: chess.Move, ply: int, passed: chess.Square | None) -> None:
        men = self.men
        origin, square = move.from_square, move.to_square
        self.their_pawns &= ~_SQUARES[square]
        piece, kind = men.pop(origin)
        if kind == chess.PAWN:  # only pawns are followed for excelsior
            if square == passed and (square ^ origin) & 7:  # en passant: the pawn beside
                taken = chess.square(chess.square_file(square), chess.square_rank(origin))
                self.their_pawns &= ~_SQUARES[taken]
            start = self.excelsior.pop(origin, None)
            promotion = move.promotion
            if promotion:
                if promotion != chess.QUEEN:
                    letter = chess.piece_symbol(promotion).upper()
                    self.found.append(Theme("underpromotion", ply, letter))
                if start is not None:
                    path = f"{chess.square_name(start)}-{chess.square_name(square)}"
                    self.found.append(Theme("excelsior", ply, path))
                piece, kind = -ply, promotion  # a new piece
            elif start is not None:
                self.excelsior[square] = start
        elif kind == chess.KING and _is_castling(move, men):
            self._castle(move, piece, ply)
            return
        else:
            self._arrive(piece, kind, origin, square, ply)
        men[square] = (piece, kind)

    def _castle(self, move: chess.Move, king: int, ply: int) -> None:
        rank = chess.square_rank(move.from_square)
        kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
        if move.to_square in self.men:  # Chess960 style: the king takes its rook
            rook_from = move.to_square
        else:
            rook_from = chess.square(7 if kingside else 0, rank)
        rook, _ = self.men.pop(rook_from)
        king_to = chess.square(6 if kingside else 2, rank)
        rook_to = chess.square(5 if kingside else 3, rank)
        self._arrive(king, chess.KING, move.from_square, king_to, ply)
        self._arrive(rook, chess.ROOK, rook_from, rook_to, ply)
        self.men[king_to], self.men[rook_to] = (king, chess.KING), (rook, chess.ROOK)

    def _arrive(
        self,
        piece: int,
        kind: chess.PieceType,
        origin: chess.Square,
        square: chess.Square,
        ply: int,
    ) -> None:
        left = self.left.get(piece, 0)
        if origin != square:
            left = self.left[piece] = left | _SQUARES[origin]
        if left & _SQUARES[square] and (piece, square) not in self.returned:
            # the solver's piece came back to a square it left earlier
            self.returned.add((piece, square))
            letter = chess.piece_symbol(kind).upper()
            self.found.append(Theme("switchback", ply, letter + chess.square_name(square)))

    def _defender_move(self, move: chess.Move) -> chess.Square | None:
        """Take the defender's ``move``: the square its pawn went over, if it went two."""
        origin, square = move.from_square, move.to_square
        taken, men = square, self.men
        pawn = self.their_pawns & _SQUARES[origin]
        if pawn:
            self.their_pawns ^= pawn if move.promotion else pawn | _SQUARES[square]
            if square not in men and (square ^ origin) & 7:  # en passant: the pawn beside
                taken = chess.square(chess.square_file(square), chess.square_rank(origin))
        if taken in men:
            del men[taken]
            self.excelsior.pop(taken, None)
        return (square + origin) // 2 if pawn and abs(square - origin) == 16 else None


def _is_castling(move: chess.Move, men: dict[chess.Square, tuple[int, chess.PieceType]]) -> bool:
    """A king move that castles: two files sideways, or onto its own rook (Chess960)."""
    if move.to_square in men:
        return True
    return abs(chess.square_file(move.to_square) - chess.square_file(move.from_square)) > 1


def _checking_side(checks: Sequence[bool], start: int, end: int, turn: chess.Color) -> str | None:
    """The side that gave check with each of its moves in plies start+1..end, if one did.

    ``checks[p]`` says whether the position at ply ``p`` is check; ``turn``
    is the side to move at ``end``, so the move of ply ``end`` was the other's.
    """
    for offset in (0, 1):  # the side that made the last move, then the other
        plies = range(end - offset, start, -2)
        if plies and all(checks[p] for p in plies):
            side = (not turn) if offset == 0 else turn
            return "White" if side == chess.WHITE else "Black"
    return None


# -- domination -----------------------------------------------------------------------


def dominated_piece(board: chess.Board, *, check: bool | None = None) -> str | None:
    """The defender's dominated piece (``nb1``) in ``board``, after a solver's move; or None.

    The rule is in the module docstring.  The side to move is the defender;
    ``check`` says whether it is in check, when the caller knows.  Bitboards only: no
    move is generated or played.

    >>> dominated_piece(chess.Board("7k/8/8/8/8/2K5/8/n7 b - - 0 1"))
    'na1'
    >>> dominated_piece(chess.Board("7k/8/8/8/3K4/8/8/n7 b - - 0 1")) is None
    True
    """
    if check:
        return None  # a legal move must answer the check: the pieces' flights are not those
    turn = board.turn
    mine = board.occupied_co[turn]
    pieces = mine & ~(board.pawns | board.kings)
    if not pieces or pieces.bit_count() > DOMINATION_PIECES:
        return None  # nothing to dominate, or a middlegame
    queens = board.queens
    knights = board.knights & mine
    diagonal = (board.bishops | queens) & mine
    straight = (board.rooks | queens) & mine
    occupied = board.occupied
    # A legal flight to a free square is safe whichever piece moves.
    free, pinned = _free_and_pinned(board, pieces)
    # Set aside first, a lookup or two each: the pieces next to a free square along their
    # lines (whatever else blocks them, they go there), the knights with a free jump, and
    # the pieces without a move (their own men all round).  Pinned ones are left.  One
    # loop a kind, each with its table (a loop over the kinds measured slower).
    squares, loose, not_mine = _SQUARES, ~pinned, ~mine
    table: Sequence[chess.Bitboard] = _KNIGHT
    rest = knights & loose
    while rest:
        square = rest.bit_length() - 1
        rest ^= squares[square]
        near = table[square]
        if near & free or not near & not_mine:
            pieces ^= squares[square]
    rest, table = diagonal & ~straight & loose, _NEAR_DIAGONAL
    while rest:
        square = rest.bit_length() - 1
        rest ^= squares[square]
        near = table[square]
        if near & free or not near & not_mine:
            pieces ^= squares[square]
    rest, table = straight & ~diagonal & loose, _NEAR_STRAIGHT
    while rest:
        square = rest.bit_length() - 1
        rest ^= squares[square]
        near = table[square]
        if near & free or not near & not_mine:
            pieces ^= squares[square]
    rest, table = diagonal & straight & loose, _KING
    while rest:
        square = rest.bit_length() - 1
        rest ^= squares[square]
        near = table[square]
        if near & free or not near & not_mine:
            pieces ^= squares[square]
    if not pieces:
        return None
    candidates: list[tuple[chess.Square, chess.Bitboard]] | None = None
    while pieces:  # the rest: pinned, or without a free square next to them
        square = pieces.bit_length() - 1
        bit = squares[square]
        pieces ^= bit
        if bit & knights:
            if bit & pinned:
                continue  # a pinned knight has no move
            flights = _KNIGHT[square] & ~mine
        else:
            flights = _flights(square, bit, diagonal, straight, occupied) & ~mine
            if bit & pinned:
                flights &= chess.BB_RAYS[_king_of(board, turn)][square]  # along the pin
        if flights and not flights & free:
            if candidates is None:
                candidates = []
            candidates.append((square, flights))  # moves, none of them safe
    if candidates is None or (check is None and board.is_check()):
        return None
    trapped: list[tuple[int, chess.Square]] = []
    for square, flights in candidates:
        value = PIECE_VALUES[board.piece_type_at(square) or chess.PAWN]
        if _trapped(board, square, flights, value):
            trapped.append((-value, square))
    if not trapped:
        return None
    _, square = min(trapped)
    piece = board.piece_at(square)
    assert piece is not None
    return piece.symbol() + chess.square_name(square)


def _flights(
    square: chess.Square,
    bit: chess.Bitboard,
    diagonal: chess.Bitboard,
    straight: chess.Bitboard,
    occupied: chess.Bitboard,
) -> chess.Bitboard:
    """The squares the bishop, rook or queen on ``square`` (``bit``) attacks, its side's
    diagonal and straight sliders being ``diagonal`` and ``straight``.

    >>> board = chess.Board("8/8/8/8/8/8/8/R6k w - - 0 1")
    >>> len(chess.SquareSet(_flights(chess.A1, chess.BB_A1, 0, chess.BB_A1, board.occupied)))
    14
    """
    flights = 0
    if bit & diagonal:
        flights = _DIAG[square][_DIAG_MASKS[square] & occupied]
    if bit & straight:
        flights |= _RANK[square][_RANK_MASKS[square] & occupied]
        flights |= _FILE[square][_FILE_MASKS[square] & occupied]
    return flights


def _free_and_pinned(
    board: chess.Board, pieces: chess.Bitboard
) -> tuple[chess.Bitboard, chess.Bitboard]:
    """The squares free for the side to move's ``pieces``, and which of them are pinned.

    A free square holds none of its men and none of the other side's men attack it with
    ``pieces`` gone from the board (fewer blockers only add to what is attacked).  Both
    in one function, which reads the board's bitboards once: it runs after every
    solver's move.

    >>> board = chess.Board("4r2k/8/8/8/8/8/4N3/4K3 w - - 0 1")
    >>> free, pinned = _free_and_pinned(board, board.knights)
    >>> chess.E2 in chess.SquareSet(pinned), chess.E3 in chess.SquareSet(free)
    (True, False)
    """
    turn = board.turn
    mine, theirs = board.occupied_co[turn], board.occupied_co[not turn]
    occupied, queens, kings = board.occupied, board.queens, board.kings
    diagonal, straight = board.bishops | queens, board.rooks | queens
    pawns = theirs & board.pawns
    if turn == chess.WHITE:  # the solver's pawns are Black's
        reach = (pawns >> 9) & _NOT_FILE_H | (pawns >> 7) & _NOT_FILE_A
    else:
        reach = ((pawns << 7) & _NOT_FILE_H | (pawns << 9) & _NOT_FILE_A) & chess.BB_ALL
    # Each loop takes the highest square off (faster in Python than the lowest bit).
    squares, table = _SQUARES, _KING
    rest = theirs & kings
    while rest:
        square = rest.bit_length() - 1
        rest ^= squares[square]
        reach |= table[square]
    table = _KNIGHT
    rest = theirs & board.knights
    while rest:
        square = rest.bit_length() - 1
        rest ^= squares[square]
        reach |= table[square]
    blockers = occupied & ~pieces
    rest = theirs & diagonal
    if rest:
        diag, diag_masks = _DIAG, _DIAG_MASKS
        while rest:
            square = rest.bit_length() - 1
            rest ^= squares[square]
            reach |= diag[square][diag_masks[square] & blockers]
    rest = theirs & straight
    if rest:
        ranks, rank_masks, files, file_masks = _RANK, _RANK_MASKS, _FILE, _FILE_MASKS
        while rest:
            square = rest.bit_length() - 1
            rest ^= squares[square]
            reach |= ranks[square][rank_masks[square] & blockers]
            reach |= files[square][file_masks[square] & blockers]
    pinned = 0
    king = _king_of(board, turn)
    if king >= 0:
        snipers = theirs & (_STRAIGHT_LINES[king] & straight | _DIAGONAL_LINES[king] & diagonal)
        between = _BETWEEN[king]
        while snipers:
            square = snipers.bit_length() - 1
            snipers ^= squares[square]
            line = between[square] & occupied
            if line & pieces and not line & (line - 1):  # one man, and one of ours
                pinned |= line
    return ~(mine | reach), pinned


def _king_of(board: chess.Board, colour: chess.Color) -> chess.Square:
    """The square of ``colour``'s king, as ``Board.king``, or -1 when it has none.

    >>> _king_of(chess.Board(), chess.BLACK) == chess.E8
    True
    """
    return (board.occupied_co[colour] & board.kings & ~board.promoted).bit_length() - 1


def _trapped(board: chess.Board, square: chess.Square, flights: chess.Bitboard, value: int) -> bool:
    """Whether every move of the piece on ``square`` (worth ``value``) lets the solver win it.

    ``flights`` are the squares of its legal moves (the side to move is not in check).
    """
    kings, queens, rooks, pawns = board.kings, board.queens, board.rooks, board.pawns
    knights, bishops = board.knights, board.bishops
    minors = knights | bishops
    # Taking a man worth as much (a king: never) gains nothing when it is taken back.
    even = kings | queens
    if value <= PIECE_VALUES[chess.ROOK]:
        even |= rooks
    if value <= PIECE_VALUES[chess.KNIGHT]:
        even |= minors
    if flights & even:
        return False
    defender = board.turn
    solver_men = board.occupied_co[not defender]
    # The flights a solver pawn attacks last: a pawn wins a piece there, unless pinned, so
    # an answer that saves the piece is likelier among the others.
    solver_pawns = pawns & solver_men
    if defender == chess.WHITE:
        covered = (solver_pawns >> 9) & _NOT_FILE_H | (solver_pawns >> 7) & _NOT_FILE_A
    else:
        covered = (solver_pawns << 7) & _NOT_FILE_H | (solver_pawns << 9) & _NOT_FILE_A
    left = board.occupied & ~_SQUARES[square]
    for rest in (flights & ~covered, flights & covered):
        while rest:
            bit = rest & -rest
            rest ^= bit
            target = bit.bit_length() - 1
            occupied = left | bit
            # The solver's men attacking the piece there (``Board.attackers_mask``).
            capturers = attackers(board, not defender, target, occupied)
            if not capturers:
                return False  # a safe move
            if bit & pawns:
                worth = value - PIECE_VALUES[chess.PAWN]
            elif bit & minors:
                worth = value - PIECE_VALUES[chess.KNIGHT]
            elif bit & rooks:
                worth = value - PIECE_VALUES[chess.ROOK]
            else:
                worth = value
            if not _won_on(board, square, target, worth, capturers, occupied):
                return False
    return True


def _won_on(
    board: chess.Board,
    origin: chess.Square,
    target: chess.Square,
    worth: int,
    capturers: chess.Bitboard,
    occupied: chess.Bitboard,
) -> bool:
    """Whether, the defender's piece gone from ``origin`` to ``target`` (the board then
    ``occupied``), one of the solver's ``capturers`` takes it there legally and gains
    material: a man worth less than ``worth``, or one the defender cannot take back."""
    solver = not board.turn
    gone = _SQUARES[origin]
    cheap = board.kings  # worth nothing: a king's capture is legal only where none retakes
    if worth > PIECE_VALUES[chess.PAWN]:
        cheap |= board.pawns
    if worth > PIECE_VALUES[chess.KNIGHT]:
        cheap |= board.knights | board.bishops
    if worth > PIECE_VALUES[chess.ROOK]:
        cheap |= board.rooks
    # The cheap capturers first: they gain whatever follows, if their capture is legal.
    rest = capturers & cheap
    while rest:
        bit = rest & -rest
        rest ^= bit
        if not _exposed(board, solver, bit.bit_length() - 1, target, occupied & ~bit, gone):
            return True
    rest = capturers & ~cheap
    while rest:
        bit = rest & -rest
        rest ^= bit
        capturer = bit.bit_length() - 1
        if _retaken(board, origin, capturer, target):
            continue  # no gain, legal or not (the cheaper test first)
        if not _exposed(board, solver, capturer, target, occupied & ~bit, gone):
            return True  # a legal capture
    return False


def _retaken(
    board: chess.Board, origin: chess.Square, capturer: chess.Square, target: chess.Square
) -> bool:
    """Whether the defender has a legal capture on ``target`` once its piece went there
    from ``origin`` and the solver's man on ``capturer`` took it.

    The defender is not in check in ``board`` (:func:`dominated_piece` looks no further
    when it is), so of the solver's men only a slider, through a square emptied since,
    can attack its king when a man other than the king takes back.
    """
    defender = board.turn
    origin_bit, capturer_bit = _SQUARES[origin], _SQUARES[capturer]
    after = (board.occupied & ~origin_bit | _SQUARES[target]) & ~capturer_bit
    men = board.attackers_mask(defender, target, after) & ~origin_bit  # not the piece taken
    if not men:
        return False
    # The solver's men still there: not the capturer, nor the man taken on the target.
    solver_men = board.occupied_co[not defender] & ~(capturer_bit | _SQUARES[target])
    king = _king_of(board, defender)
    while men:
        bit = men & -men
        men ^= bit
        occupied = after & ~bit
        if bit.bit_length() - 1 == king:
            if not board.attackers_mask(not defender, target, occupied) & solver_men:
                return True
        elif king < 0 or not _slider_attackers(board, king, occupied) & solver_men:
            return True
    return False


def _slider_attackers(
    board: chess.Board, square: chess.Square, occupied: chess.Bitboard
) -> chess.Bitboard:
    """The bishops, rooks and queens (either side's) attacking ``square`` over ``occupied``.

    >>> board = chess.Board("4k3/8/8/8/8/8/4N3/4R1K1 w - - 0 1")
    >>> chess.SquareSet(_slider_attackers(board, chess.E8, board.occupied & ~chess.BB_E2))
    SquareSet(0x0000_0000_0000_0010)
    """
    queens = board.queens
    straight = (
        _RANK[square][_RANK_MASKS[square] & occupied]
        | _FILE[square][_FILE_MASKS[square] & occupied]
    )
    return straight & (board.rooks | queens) | _DIAG[square][_DIAG_MASKS[square] & occupied] & (
        board.bishops | queens
    )


def _exposed(
    board: chess.Board,
    colour: chess.Color,
    mover: chess.Square,
    target: chess.Square,
    occupied: chess.Bitboard,
    gone: chess.Bitboard,
) -> bool:
    """Whether ``colour``'s king is attacked after its man on ``mover`` went to ``target``.

    ``occupied`` are the squares occupied then; ``gone`` the squares where ``board`` still
    has men of the other side that are no longer there (the piece bitboards are
    ``board``'s, so only the squares are told).
    """
    king = _king_of(board, colour)
    if king < 0:
        return False
    square = target if king == mover else king
    return bool(board.attackers_mask(not colour, square, occupied) & ~gone)


# -- mutual zugzwang ------------------------------------------------------------------


def mutual_zugzwangs(
    board: chess.Board, moves: Sequence[chess.Move], probe: Probe, *, men: int
) -> list[Theme]:
    """The main-line positions that are mutual zugzwangs (rule in the module docstring).

    ``probe`` gives a position's WDL for the side to move (``Tablebase.probe_wdl``);
    positions with more than ``men`` men are not probed.

    >>> import chess.syzygy
    >>> tables = chess.syzygy.open_tablebase("../shared/syzygy")  # doctest: +SKIP
    >>> [t.describe() for t in mutual_zugzwangs(
    ...     chess.Board("8/8/3k4/8/3K4/3P4/8/8 w - - 0 1"), [], tables.probe_wdl, men=4)]
    ... # doctest: +SKIP
    ['mutual-zugzwang ply 0 (half)']
    """
    found = []
    board = board.copy(stack=False)
    for ply in range(len(moves) + 1):
        kind = zugzwang_kind(board, probe, men=men)
        if kind is not None:
            found.append(Theme("mutual-zugzwang", ply, kind))
        if ply < len(moves):
            board.push(moves[ply])
    return found


def zugzwang_kind(board: chess.Board, probe: Probe, *, men: int) -> str | None:
    """``full`` or ``half`` when ``board`` is a mutual zugzwang, else None."""
    if chess.popcount(board.occupied) > men or board.castling_rights:
        return None
    other = board.copy(stack=False)
    other.turn = not board.turn
    other.ep_square = None
    if not other.is_valid() or not board.is_valid():
        return None
    if not any(board.generate_legal_moves()) or not any(other.generate_legal_moves()):
        return None
    try:
        mine, theirs = _sign(probe(board)), _sign(probe(other))
    except KeyError:  # MissingTableError included
        return None
    # Both from White's point of view.
    white_to_move, black_to_move = (mine, -theirs) if board.turn == chess.WHITE else (theirs, -mine)
    if white_to_move >= black_to_move:
        return None
    return "full" if black_to_move - white_to_move == 2 else "half"


def _sign(wdl: int) -> int:
    return (wdl > 0) - (wdl < 0)


# -- themes the tags name ---------------------------------------------------------------


def normalise_theme(keyword: str) -> str:
    """A keyword as a theme name: lower case, words joined by ``-``, synonyms ours.

    >>> normalise_theme("Reciprocal Zugzwang"), normalise_theme(" Pawn promotion ")
    ('mutual-zugzwang', 'pawn-promotion')
    """
    name = _SPACES.sub("-", keyword.strip(_STRIP).casefold()).strip("-")[:MAX_NAME]
    return SYNONYMS.get(name, name)


def tag_themes(headers: Mapping[str, str]) -> list[Theme]:
    """The themes named by ``Keywords``/``Theme`` tags (source ``pgn``), in order, no repeats.

    A value is a list split at ``,`` ``;`` ``|`` or line ends; brackets,
    quotes and list bullets around the keywords are dropped (a yacpdb-style
    ``["Excelsior", "Switchback"]`` reads as two themes).

    >>> [t.name for t in tag_themes({"Keywords": "Excelsior; minor promotion, Excelsior"})]
    ['excelsior', 'underpromotion']
    """
    names: dict[str, None] = {}
    for tag, value in headers.items():
        if tag.casefold() not in TAG_NAMES:
            continue
        for keyword in _SPLIT.split(value):
            name = normalise_theme(keyword)
            if name:
                names[name] = None
    return [Theme(name, source=PGN) for name in names]
