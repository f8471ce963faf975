r"""One walk over PGN movetext: its tokens, its lines, and one numbering of its positions.

Everything that reads a study's moves goes through :func:`walk`: validation
and the position index on import, ``studydb index``, ``show`` (``--node``
too), the study page (``?node=N``), ``check`` and ``anticipate``.

Node numbers
    The start position is node 0; each legal move, in the order the text
    gives it (main line and variations alike), reaches the next number.  The
    position index stores these numbers; ``show --node N`` and the web's
    ``?node=N`` take them.
Lines
    A variation ``( … )`` is an alternative to the last move played in the
    line around it.  An illegal move ends its line: the rest of that line,
    variations inside it included, is passed over, and the error is reported
    once; the lines around it go on.  A ``(`` with no move before it in its
    line has nothing to replace: it is passed over whole.
Tokens
    Comments (``{…}``, ``;`` to the end of the line), escape lines (``%`` in
    the first column), NAGs (``$n``, ``!``, ``?``, ``!!``, ``??``, ``!?``,
    ``?!``), move numbers (``1.``, ``10000.``, ``1...``), results and
    parentheses; everything else that looks like a move is one.  ``+``,
    ``#`` and stray characters mean nothing.
Cost
    One board, moves pushed and popped: a variation costs a pop at ``(`` and,
    at ``)``, the pops of its own moves and one push.  Time and memory are
    linear in the text, at any depth of nesting; nothing is recursive.

>>> board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
>>> [(n.node, n.ply, n.main, n.san) for n in nodes(board, "1. c7 (1. Kb7 Rb5+) Rd6+ *")]
... # doctest: +NORMALIZE_WHITESPACE
[(0, 0, True, ''), (1, 1, True, 'c7'), (2, 1, False, 'Kb7'), (3, 2, False, 'Rb5+'),
 (4, 2, True, 'Rd6+')]
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import chess

__all__ = [
    "CHESS960_VARIANTS",
    "Line",
    "Node",
    "StopWalk",
    "Tee",
    "Visitor",
    "attackers",
    "errors_of",
    "is_chess960",
    "lines",
    "main_line",
    "move_labels",
    "moves_to",
    "movetext_of",
    "node_count",
    "nodes",
    "numbered_san",
    "parse_san",
    "start_board",
    "unread",
    "walk",
]

#: ``Variant`` tag values (lower case) of Chess960 games.
CHESS960_VARIANTS = frozenset({"chess960", "chess 960", "fischerandom", "fischer random", "960"})

# One token of movetext; the group that matched says which (the constants below).
# Whitespace and the characters that mean nothing are passed over inside a match (the
# quickest way through a text).  At each place a move comes first, castling with zeros
# and the null move "0000" among them; then a result before a move number ("1-0"), and
# a move number takes all its digits ("10000."), so no move is read inside one.
_TOKEN = re.compile(
    r"""
    [ \t\r\n.+\#]*(?:
    ([NBKRQ]?[a-h]?[1-8]?[-x]?[a-h][1-8](?:=?[nbrqkNBRQK])?
      |O-O(?:-O)?|0-0(?:-0)?|0000(?![0-9.])
      |[PNBRQK]?@[a-h][1-8]|--|Z0|@@@@)     # 1 move
    |(1-0|0-1|1/2-1/2|\*)                   # 2 result
    |[0-9]+\.*                              #   move number
    |\{([^}]*)\}?                           # 3 comment (unterminated: to the end)
    |(\()                                   # 4
    |(\))                                   # 5
    |\$([0-9]+)                             # 6 NAG
    |([?!]{1,2})                            # 7 annotation: a NAG
    |;([^\n]*)                              # 8 comment to the end of the line
    |^%[^\n]*                               #   escape line
    )""",
    re.MULTILINE | re.VERBOSE,
)
_MOVE, _RESULT, _COMMENT, _OPEN, _CLOSE, _NAG, _SUFFIX, _LINE_COMMENT = range(1, 9)
#: The NAG of each move suffix.
SUFFIX_NAGS = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}


V = TypeVar("V", bound="Visitor")


class StopWalk(Exception):
    """Raised by a visitor to end :func:`walk` there: it has seen what it needs.

    >>> class FirstMove(Visitor):
    ...     def visit_move(self, board, move, node, parent):
    ...         self.san = board.san(move)
    ...         raise StopWalk
    >>> walk(chess.Board(), "1. e4 e5 2. Nf3 *", FirstMove()).san
    'e4'
    """


class Visitor:
    """What :func:`walk` reports, in the order of the text; override what you need.

    Moves come only from lines that are still legal: after an illegal move,
    nothing of the rest of its line is reported.  ``board`` is the walk's
    own board, live: copy it to keep it.
    """

    def visit_move(self, board: chess.Board, move: chess.Move, node: int, parent: int) -> None:
        """A legal move, before it is played on ``board``: it leads from ``parent`` to ``node``."""

    def visit_position(self, board: chess.Board, node: int, parent: int, main: bool) -> None:
        """The position ``node`` just reached from ``parent`` (``main``: on the main line)."""

    def visit_comment(self, text: str) -> None:
        """A comment (its text stripped)."""

    def visit_nag(self, nag: int) -> None:
        """A NAG (``$n`` or a suffix such as ``!?``) of the move before it."""

    def begin_variation(self, board: chess.Board) -> None:
        """A variation opens; ``board`` is the position its first move is played in."""

    def end_variation(self, board: chess.Board, node: int) -> None:
        """The variation last opened closes; ``board`` is still at its last position, node
        ``node`` (the node it opened at when none of its moves was legal)."""

    def visit_error(self, message: str) -> None:
        """An illegal move; the rest of its line is passed over."""

    def visit_illegal(self, board: chess.Board, san: str) -> None:
        """The illegal move ``san`` as written, in the position ``board`` (before
        :meth:`visit_error`); :meth:`visit_unplayed` then gives the rest of its line."""

    def visit_unplayed(self, text: str) -> None:
        """The rest of the line an illegal move ended, as written (after :meth:`visit_illegal`)."""

    def visit_result(self, result: str) -> None:
        """A result token of the main line."""

    def end_game(self, board: chess.Board, node: int) -> None:
        """The text is over; ``board`` is at the main line's last position, ``node``."""


#: The events of :class:`Visitor`, in the order of :func:`_overridden`'s answers.
_EVENTS = (
    "visit_move", "visit_position", "visit_comment", "visit_nag", "begin_variation",
    "end_variation", "visit_error", "visit_illegal", "visit_unplayed", "visit_result",
    "end_game",
)  # fmt: skip
#: By visitor class: which events it overrides (:func:`_overridden`, made once a class).
_OVERRIDDEN: dict[type, frozenset[str]] = {}


def _overridden(kind: type) -> frozenset[str]:
    """The events (method names) a visitor class overrides, remembered by class (a walk
    and a :class:`Tee` ask for every visitor).

    >>> sorted(_overridden(_Count)), sorted(_overridden(Visitor))
    (['visit_move'], [])
    """
    try:
        return _OVERRIDDEN[kind]
    except KeyError:
        names = frozenset(
            name for name in _EVENTS if getattr(kind, name) is not getattr(Visitor, name)
        )
        _OVERRIDDEN[kind] = names
        return names


def walk(board: chess.Board, text: str, visitor: V) -> V:
    """Walk the movetext ``text`` from ``board`` (left as it is); return ``visitor``.

    A visitor ends the walk where it is by raising :class:`StopWalk` (then no
    variation is closed and :meth:`Visitor.end_game` is not called).

    >>> errors_of(chess.Board(), "1. e4 (1. e5) e5 2. Nf3 *")
    ["illegal san: 'e5' in rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]
    """
    try:
        return _walk(board, text, visitor)
    except StopWalk:
        return visitor


def _walk(board: chess.Board, text: str, visitor: V) -> V:
    board = board.copy(stack=False)
    fast = _BoardState is not None and type(board) is chess.Board and not board.chess960
    push = _push if fast else type(board).push
    if type(visitor) is Tee:  # its listeners themselves (a tee hands on no illegal move)
        tee = cast(Tee, visitor)
        on_move = _listener(tee._moves, tee.visit_move)
        on_positions = tee._positions  # called here in turn (no call through the tee)
        on_illegal = None
        on_comment = tee.visit_comment if tee._comments else None
        on_nag = tee.visit_nag if tee._nags else None
    else:
        listens = _overridden(type(visitor))
        on_move = visitor.visit_move if "visit_move" in listens else None
        on_positions = (visitor.visit_position,) if "visit_position" in listens else ()
        on_illegal = visitor.visit_illegal if "visit_illegal" in listens else None
        on_comment = visitor.visit_comment if "visit_comment" in listens else None
        on_nag = visitor.visit_nag if "visit_nag" in listens else None
    parse, pop = parse_san, board.pop
    # The lines around the current one: (moves played, node reached, node before the
    # last move, the move taken back to open the variation or None for a dead group).
    outer: list[tuple[int, int, int, chess.Move | None]] = []
    played = node = before = last = 0  # the current line; last: the last node number
    skip = 0  # > 0: inside a line that is passed over, counting its parentheses
    unplayed = -1  # where the text after an illegal move starts (for visit_unplayed)
    for match in _TOKEN.finditer(text):
        kind = match.lastindex
        if kind is None:
            continue
        if kind == _MOVE:
            if skip:
                continue
            try:
                move = parse(board, match.group(kind))
            except ValueError as exc:  # illegal, ambiguous or not a move at all
                if on_illegal is not None:
                    on_illegal(board, match.group(kind))
                    unplayed = match.end(kind)
                visitor.visit_error(str(exc))
                skip = 1
                continue
            last += 1
            if on_move is not None:
                on_move(board, move, last, node)
            push(board, move)
            played += 1
            before, node = node, last
            for on_position in on_positions:
                on_position(board, last, before, not outer)
        elif kind == _OPEN:
            if skip:
                skip += 1
            elif played:
                outer.append((played, node, before, pop()))
                played, node = 0, before
                visitor.begin_variation(board)
            else:  # nothing to be an alternative to: pass the group over
                outer.append((played, node, before, None))
                skip = 1
        elif kind == _CLOSE:
            if skip > 1:
                skip -= 1
            elif outer:  # a stray ")" on the main line means nothing
                if unplayed >= 0:
                    visitor.visit_unplayed(text[unplayed : match.start(kind)])
                    unplayed = -1
                skip = 0
                inner, at = played, node
                played, node, before, undone = outer.pop()
                _close(board, inner, at, undone, visitor, push)
        elif kind == _RESULT:
            if not outer:
                if unplayed >= 0:
                    visitor.visit_unplayed(text[unplayed : match.start(kind)])
                    unplayed = -1
                visitor.visit_result(match.group(kind))
        elif skip:
            continue
        elif kind in (_COMMENT, _LINE_COMMENT):
            if on_comment is not None:  # no one listening: not even read
                on_comment(match.group(kind).strip())
        elif on_nag is None:
            continue
        elif kind == _NAG:
            on_nag(int(match.group(kind)))
        else:
            on_nag(SUFFIX_NAGS[match.group(kind)])
    if unplayed >= 0:
        visitor.visit_unplayed(text[unplayed:])
    while outer:  # variations left open at the end of the text
        inner, at = played, node
        played, node, before, undone = outer.pop()
        _close(board, inner, at, undone, visitor, push)
    visitor.end_game(board, node)
    return visitor


# -- SAN to a move, the common cases without python-chess's move generator (#28) ---

# A SAN token as python-chess's ``Board.parse_san`` reads it, castling and null moves
# aside: piece letter, file and rank hints, target square, promotion, check mark.
_SAN = re.compile(r"([NBKRQ])?([a-h])?([1-8])?[-x]?([a-h][1-8])(=?[nbrqkNBRQK])?[+#]?")
#: How many distinct tokens :func:`parse_san` keeps read (the cache is emptied when full).
SAN_CACHE_SIZE = 8192
# Token -> (piece type, mask of the squares the mover may start from, target square,
# promotion piece type or 0), or None: the token is left to python-chess whole.
_san_cache: dict[str, tuple[int, int, int, int] | None] = {}
_PIECE_LETTERS = {letter: chess.PIECE_SYMBOLS.index(letter.lower()) for letter in "NBRQK"}
_PROMOTIONS = {letter: chess.PIECE_SYMBOLS.index(letter) for letter in "nbrq"}
# For each colour: the rank its pawns promote on, the rank a double push reaches, and
# the step of a push.
_LAST_RANK = {chess.WHITE: chess.BB_RANK_8, chess.BLACK: chess.BB_RANK_1}
_DOUBLE_PUSH_TARGETS = {chess.WHITE: chess.BB_RANK_4, chess.BLACK: chess.BB_RANK_5}
_PUSH = {chess.WHITE: 8, chess.BLACK: -8}
_BB_SQUARES = chess.BB_SQUARES
_KNIGHT_ATTACKS, _KING_ATTACKS = chess.BB_KNIGHT_ATTACKS, chess.BB_KING_ATTACKS
_DIAG_ATTACKS, _DIAG_MASKS = chess.BB_DIAG_ATTACKS, chess.BB_DIAG_MASKS
_RANK_ATTACKS, _RANK_MASKS = chess.BB_RANK_ATTACKS, chess.BB_RANK_MASKS
_FILE_ATTACKS, _FILE_MASKS = chess.BB_FILE_ATTACKS, chess.BB_FILE_MASKS
_PAWN_ATTACKS, _BB_BACKRANKS = chess.BB_PAWN_ATTACKS, chess.BB_BACKRANKS
_PAWN, _KNIGHT, _BISHOP, _ROOK, _QUEEN, _KING = chess.PIECE_TYPES
#: By square: the squares a rook, and a bishop, there reaches on an empty board.
_STRAIGHT_REACH = tuple(_RANK_ATTACKS[sq][0] | _FILE_ATTACKS[sq][0] for sq in chess.SQUARES)
_DIAG_REACH = tuple(_DIAG_ATTACKS[sq][0] for sq in chess.SQUARES)


def _read_san(san: str) -> tuple[int, int, int, int] | None:
    """What :func:`parse_san` needs of a token, or None for python-chess to read it."""
    match = _SAN.fullmatch(san)
    if match is None:  # castling, null moves, drops, not a move
        return None
    letter, file, rank, target, promotion = match.groups()
    to = chess.parse_square(target)
    start = chess.BB_ALL
    if file:
        start &= chess.BB_FILES[chess.FILE_NAMES.index(file)]
    if rank:
        start &= chess.BB_RANKS[chess.RANK_NAMES.index(rank)]
    if letter:
        if promotion:  # a piece never promotes: python-chess says so
            return None
        return _PIECE_LETTERS[letter], start, to, 0
    if file and rank:  # "e2e4", "g1f3": python-chess takes any piece (and castling)
        return None
    if not file:  # a pawn that names no file moves on the target's (a push)
        start &= chess.BB_FILES[chess.square_file(to)]
    if promotion and promotion[-1].lower() not in _PROMOTIONS:  # "=K"
        return None
    return chess.PAWN, start, to, _PROMOTIONS[promotion[-1].lower()] if promotion else 0


def parse_san(board: chess.Board, san: str) -> chess.Move:
    """``board.parse_san(san)``, quicker for plain piece and pawn moves.

    The same move, or the same exception with the same message: the common
    cases (a piece or pawn move with one candidate, promotions too) are
    decided on the board's bitboards; castling, en passant, null moves,
    Chess960, board subclasses and every token that is not one legal move
    (illegal, ambiguous, not a move) go to python-chess.

    >>> board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    >>> parse_san(board, "c7"), parse_san(board, "Kxa6") == board.parse_san("Kxa6")
    (Move.from_uci('c6c7'), True)
    >>> parse_san(board, "Kc5")
    Traceback (most recent call last):
    chess.IllegalMoveError: illegal san: 'Kc5' in 8/8/1KP5/3r4/8/8/8/k7 w - - 0 1
    """
    try:
        read = _san_cache[san]
    except KeyError:
        if len(_san_cache) >= SAN_CACHE_SIZE:
            _san_cache.clear()
        read = _san_cache[san] = _read_san(san)
    if read is None or type(board) is not chess.Board or board.chess960:
        return board.parse_san(san)
    piece, start, to, promotion = read
    us = board.turn
    ours = board.occupied_co[us]
    target = _BB_SQUARES[to]
    kings = board.kings & ours
    if ours & target or not kings or kings & (kings - 1):  # no move there; no one king
        return board.parse_san(san)
    occupied = board.occupied
    if piece == _PAWN:
        if board.pawns & _BB_BACKRANKS:  # pawns no game has: python-chess's rules
            return board.parse_san(san)
        if promotion:
            if not target & _LAST_RANK[us]:
                return board.parse_san(san)
        elif target & _BB_BACKRANKS:  # a promotion with no piece, a move backwards
            return board.parse_san(san)
        pawns = board.pawns & ours & start
        if occupied & target:  # a capture: from a square the target is a pawn's step from
            movers = _PAWN_ATTACKS[not us][to] & pawns
        else:  # a push (en passant, onto an empty square too, finds no pawn behind it)
            behind = _BB_SQUARES[to - _PUSH[us]]
            movers = pawns & behind
            if not movers and not occupied & behind and target & _DOUBLE_PUSH_TARGETS[us]:
                movers = pawns & _BB_SQUARES[to - 2 * _PUSH[us]]
    elif piece == _KNIGHT:
        movers = _KNIGHT_ATTACKS[to] & board.knights & ours & start
    elif piece != _KING:  # a bishop, rook or queen: the squares it could come from
        movers = 0
        if piece != _ROOK:
            movers = _DIAG_ATTACKS[to][_DIAG_MASKS[to] & occupied]
        if piece != _BISHOP:
            movers |= _RANK_ATTACKS[to][_RANK_MASKS[to] & occupied]
            movers |= _FILE_ATTACKS[to][_FILE_MASKS[to] & occupied]
        movers &= (board.rooks if piece == _ROOK else board.bishops if piece == _BISHOP
                   else board.queens) & ours & start  # fmt: skip
    else:
        movers = _KING_ATTACKS[to] & kings & start
    if not movers or movers & (movers - 1):  # none, or several: python-chess decides
        return board.parse_san(san)
    origin = movers.bit_length() - 1
    if piece == _KING:  # the target, the king off the board, must be safe
        attacked = attackers(board, not us, to, occupied ^ kings)
    else:  # the king must be safe after the move (the man taken, if any, is gone)
        after = occupied ^ _BB_SQUARES[origin] | target
        attacked = attackers(board, not us, kings.bit_length() - 1, after) & ~target
    if attacked:
        return board.parse_san(san)
    return chess.Move(origin, to, promotion or None)


# -- a move played without python-chess's push, the common cases (#28) -------------

#: The python-chess releases :func:`_push` was checked against (its tests compare it with
#: their Board.push); under any other, every move goes through Board.push.
CHECKED_RELEASES = ("1.11.",)
#: What Board.pop restores, the position before a move: python-chess's own class, not
#: public; None where the release was not checked or has none.
_BoardState: Any = (
    getattr(chess, "_BoardState", None) if chess.__version__.startswith(CHECKED_RELEASES) else None
)
_BB_RANK_2, _BB_RANK_7 = chess.BB_RANK_2, chess.BB_RANK_7


def _push(board: chess.Board, move: chess.Move) -> None:
    """``board.push(move)`` for a legal move on a standard :class:`chess.Board`, quicker
    for a plain move or capture (a promotion too).

    The board ends as python-chess's push leaves it, its move and state stacks
    included (``pop`` takes the move back).  Castling, en passant, null moves, drops and
    a king taken go to python-chess.

    >>> board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    >>> _push(board, chess.Move.from_uci("c6c7"))
    >>> board.fen(), board.pop(), board.fen()
    ('8/2P5/1K6/3r4/8/8/8/k7 b - - 0 1', Move.from_uci('c6c7'), '8/8/1KP5/3r4/8/8/8/k7 w - - 0 1')
    """
    source, target = move.from_square, move.to_square
    origin, bit = _BB_SQUARES[source], _BB_SQUARES[target]
    turn = board.turn
    occupied, kings = board.occupied, board.kings
    ours, theirs = board.occupied_co[turn], board.occupied_co[not turn]
    if (
        source == target
        or move.drop
        or kings & bit
        or not ours & origin
        or ours & bit
        or (kings & origin and not 0 <= (target & 7) - (source & 7) + 1 <= 2)
        or (board.pawns & origin and not occupied & bit and (target ^ source) & 7)
    ):  # a null move, a drop, a king taken, not a move of ours, a castling, en passant
        board.push(move)
        return
    state = _BoardState(board)
    if not board._stack:  # python-chess cleans the rights at the first move
        board.castling_rights = board.clean_castling_rights()
    board.move_stack.append(move)
    board._stack.append(state)
    board.ep_square = None
    if not turn:
        board.fullmove_number += 1
    keep = ~(origin | bit)
    board.castling_rights &= keep
    promoted = board.promoted
    if theirs & bit:  # a capture: the man taken is gone
        board.halfmove_clock = 0
        board.occupied_co[not turn] = theirs ^ bit
        occupied ^= bit
        board.pawns &= ~bit
        board.knights &= ~bit
        board.bishops &= ~bit
        board.rooks &= ~bit
        board.queens &= ~bit
    else:
        board.halfmove_clock += 1
    board.occupied = occupied ^ origin | bit
    board.occupied_co[turn] = ours ^ origin | bit
    promotion = move.promotion
    if board.pawns & origin:
        board.halfmove_clock = 0
        board.pawns ^= origin
        if promotion:
            promoted |= origin
            _add_piece(board, promotion, bit)
        else:
            board.pawns |= bit
            if target - source == 16 and origin & _BB_RANK_2:
                board.ep_square = source + 8
            elif source - target == 16 and origin & _BB_RANK_7:
                board.ep_square = source - 8
    elif board.knights & origin:
        board.knights ^= origin | bit
    elif board.bishops & origin:
        board.bishops ^= origin | bit
    elif board.rooks & origin:
        board.rooks ^= origin | bit
    elif board.queens & origin:
        board.queens ^= origin | bit
    else:
        board.kings = kings ^ origin | bit
        if not promoted & origin:  # the king has moved: no castling for its side
            board.castling_rights &= ~(chess.BB_RANK_1 if turn else chess.BB_RANK_8)
    board.promoted = promoted & keep | bit if promoted & origin else promoted & keep
    board.turn = not turn


def _add_piece(board: chess.Board, piece: int, bit: int) -> None:
    """Put a ``piece`` (a type) on the square ``bit``'s pieces' bitboard only."""
    if piece == _QUEEN:
        board.queens |= bit
    elif piece == _KNIGHT:
        board.knights |= bit
    elif piece == _ROOK:
        board.rooks |= bit
    elif piece == _BISHOP:
        board.bishops |= bit
    else:
        board.kings |= bit


def attackers(
    board: chess.Board, colour: chess.Color, square: chess.Square, occupied: chess.Bitboard
) -> chess.Bitboard:
    """``board.attackers_mask(colour, square, occupied)``, written out: the replay asks it
    of every move (is the mover's king safe, is the other king in check).  A slider's
    look-ups (by the men on its lines) are made only when a queen, rook or bishop of
    ``colour`` stands on such a line through ``square``: most often none does.

    >>> board = chess.Board("4k3/8/8/8/8/8/8/4R1K1 b - - 0 1")
    >>> attackers(board, chess.WHITE, chess.E8, board.occupied) == chess.BB_E1
    True
    """
    men = board.occupied_co[colour]
    found = (
        _KING_ATTACKS[square] & board.kings
        | _KNIGHT_ATTACKS[square] & board.knights
        | _PAWN_ATTACKS[not colour][square] & board.pawns
    ) & men
    straight = (board.queens | board.rooks) & men & _STRAIGHT_REACH[square]
    if straight:
        found |= (
            _RANK_ATTACKS[square][_RANK_MASKS[square] & occupied]
            | _FILE_ATTACKS[square][_FILE_MASKS[square] & occupied]
        ) & straight
    diagonal = (board.queens | board.bishops) & men & _DIAG_REACH[square]
    if diagonal:
        found |= _DIAG_ATTACKS[square][_DIAG_MASKS[square] & occupied] & diagonal
    return found


def _close(
    board: chess.Board,
    played: int,
    node: int,
    undone: chess.Move | None,
    visitor: Visitor,
    push: Callable[[chess.Board, chess.Move], None],
) -> None:
    """Close a line of ``played`` moves, at ``node``, opened by taking back ``undone``
    (None: passed over), played again with ``push`` (the walk's)."""
    if undone is not None:
        visitor.end_variation(board, node)
    for _ in range(played):
        board.pop()
    if undone is not None:
        push(board, undone)


#: The events a :class:`Tee` hands on, in the order of its attributes: all but an illegal
#: move's two (its visitors see the error).
_TEE_EVENTS = tuple(name for name in _EVENTS if name not in ("visit_illegal", "visit_unplayed"))
#: By the classes of a tee's visitors: each event and the visitors (numbers) it goes to.
_TEE_PLANS: dict[tuple[type, ...], tuple[tuple[str, tuple[int, ...]], ...]] = {}


def _plan(kinds: tuple[type, ...]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Each event a :class:`Tee` hands on, and which of visitors of ``kinds`` override it."""
    return tuple(
        (name, tuple(i for i, kind in enumerate(kinds) if name in _overridden(kind)))
        for name in _TEE_EVENTS
    )


def _listener(
    listeners: tuple[Callable[..., None], ...], every: Callable[..., None]
) -> Callable[..., None] | None:
    """What a walk calls for an event of a :class:`Tee`: None for no listeners, the one
    listener itself (no call through the tee), or ``every`` (the tee's loop).  Not kept
    by the tee: its own bound method would make a cycle, and the tee and its visitors'
    rows garbage for the cyclic collector."""
    if len(listeners) == 1:
        return listeners[0]
    return every if listeners else None


class Tee(Visitor):
    """Several visitors on one walk, each told everything in turn.

    Each event goes only to the visitors that override its method (a walk reports a
    move and a position to a few visitors many times).

    >>> moves, errors = walk(chess.Board(), "1. e4 Ke3 *", Tee(_Count(), _Errors())).visitors
    >>> moves.count, errors.errors
    (1, ["illegal san: 'Ke3' in rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"])
    """

    def __init__(self, *visitors: Visitor) -> None:
        self.visitors = visitors
        kinds = tuple(map(type, visitors))
        try:
            plan = _TEE_PLANS[kinds]
        except KeyError:
            plan = _TEE_PLANS[kinds] = _plan(kinds)
        (
            self._moves, self._positions, self._comments, self._nags, self._begins,
            self._ends, self._errors, self._results, self._games,
        ) = [
            tuple([getattr(visitors[i], name) for i in chosen]) for name, chosen in plan
        ]  # fmt: skip

    def visit_move(self, board: chess.Board, move: chess.Move, node: int, parent: int) -> None:
        for visit in self._moves:
            visit(board, move, node, parent)

    def visit_position(self, board: chess.Board, node: int, parent: int, main: bool) -> None:
        for visit in self._positions:
            visit(board, node, parent, main)

    def visit_comment(self, text: str) -> None:
        for visit in self._comments:
            visit(text)

    def visit_nag(self, nag: int) -> None:
        for visit in self._nags:
            visit(nag)

    def begin_variation(self, board: chess.Board) -> None:
        for visit in self._begins:
            visit(board)

    def end_variation(self, board: chess.Board, node: int) -> None:
        for visit in self._ends:
            visit(board, node)

    def visit_error(self, message: str) -> None:
        for visit in self._errors:
            visit(message)

    def visit_result(self, result: str) -> None:
        for visit in self._results:
            visit(result)

    def end_game(self, board: chess.Board, node: int) -> None:
        for visit in self._games:
            visit(board, node)


# -- visitors for the common questions -------------------------------------------


class _Errors(Visitor):
    def __init__(self) -> None:
        self.errors: list[str] = []

    def visit_error(self, message: str) -> None:
        self.errors.append(message)


#: What separates tokens, or means nothing between them (check marks, dots).
_SEPARATORS = " \t\r\n.+#"


def unread(text: str) -> list[tuple[int, str]]:
    """The text :func:`walk` passes over as meaning nothing, with where it starts.

    Neither a move, a move number, a comment, a NAG, a result nor a parenthesis:
    a typo (``Kb9``), a word, a stray character.  A PGN file's movetext may hold
    such text (as python-chess, :func:`walk` reads past it); a solution typed on
    the command line should not.

    >>> unread("1. Rh3+ Zz9 Kd4 (hello) 1-0")
    [(8, 'Zz9'), (16, '(hello)')]
    >>> unread("1. c7! {the point} Rd6+ 2. Kb5! $1 (2. Kc5?) *")
    []
    """
    found: list[tuple[int, str]] = []
    start = 0
    for match in _TOKEN.finditer(text):
        _add_unread(found, text, start, match.start())
        start = match.end()
    _add_unread(found, text, start, len(text))
    return found


def _add_unread(found: list[tuple[int, str]], text: str, start: int, end: int) -> None:
    """Add the whole words (as white space parts them) of the gap's unread text."""
    at = start
    while at < end:
        if text[at] in _SEPARATORS:
            at += 1
            continue
        left = at
        while left > 0 and not text[left - 1].isspace():
            left -= 1
        right = at
        while right < len(text) and not text[right].isspace():
            right += 1
        if not found or found[-1][0] != left:
            found.append((left, text[left:right]))
        at = right


def errors_of(board: chess.Board, text: str) -> list[str]:
    """The illegal moves of ``text`` played from ``board``: one error per broken line.

    >>> errors_of(chess.Board(), "1. e4 e5 2. Ke3 Nc6 *")
    ["illegal san: 'Ke3' in rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"]
    """
    return walk(board, text, _Errors()).errors


@dataclass(frozen=True, slots=True)
class Node:
    """A position: its number, the node before it, ply, line, the move to it and the FEN.

    The start is node 0, with no move (``san`` is empty).
    """

    node: int
    parent: int
    ply: int
    main: bool
    san: str
    fen: str


class _Nodes(Visitor):
    def __init__(self, board: chess.Board, wanted: int | None) -> None:
        self.wanted = wanted
        self.found: list[Node] = []
        if wanted is None or wanted == 0:
            self.found.append(Node(0, 0, 0, True, "", board.fen()))
        self.san = ""
        self.moves: list[chess.Move] = []  # to the wanted node

    def visit_move(self, board: chess.Board, move: chess.Move, node: int, parent: int) -> None:
        if self.wanted is None or node == self.wanted:
            self.san = board.san(move)

    def visit_position(self, board: chess.Board, node: int, parent: int, main: bool) -> None:
        if self.wanted is None or node == self.wanted:
            ply = len(board.move_stack)
            self.found.append(Node(node, parent, ply, main, self.san, board.fen()))
            if node == self.wanted:
                self.moves = board.move_stack[:]


class _Count(Visitor):
    def __init__(self) -> None:
        self.count = 0

    def visit_move(self, board: chess.Board, move: chess.Move, node: int, parent: int) -> None:
        self.count = node


def nodes(board: chess.Board, text: str, *, node: int | None = None) -> list[Node]:
    """Every position, the start (node 0) first, in node order; or only node ``node``.

    >>> [(n.node, n.ply, n.san) for n in nodes(chess.Board(), "1. e4 (1. d4 d5) e5", node=3)]
    [(3, 2, 'd5')]
    """
    return walk(board, text, _Nodes(board, node)).found


def moves_to(board: chess.Board, text: str, node: int) -> list[chess.Move] | None:
    """The moves from ``board`` that reach node ``node``; None if the text has no such node.

    >>> board = chess.Board()
    >>> board.variation_san(moves_to(board, "1. e4 (1. d4 d5) e5", 3) or [])
    '1. d4 d5'
    """
    walked = walk(board, text, _Nodes(board, node))
    return walked.moves if walked.found else None


def node_count(board: chess.Board, text: str) -> int:
    """How many positions the text reaches, the start included: nodes are 0 to this − 1.

    >>> node_count(chess.Board(), "1. e4 (1. d4 d5) e5 *")
    5
    """
    return walk(board, text, _Count()).count + 1


def numbered_san(board: chess.Board, move: chess.Move) -> str:
    """A move as people cite it, with its number: ``2.Kb5``, ``3...Rd4+``.

    >>> board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 b - - 0 3")
    >>> numbered_san(board, board.parse_san("Rb5+"))
    '3...Rb5+'
    """
    return f"{board.fullmove_number}{'.' if board.turn else '...'}{board.san(move)}"


class _Labels(Visitor):
    def __init__(self, wanted: set[int]) -> None:
        self.wanted = wanted
        self.found: dict[int, tuple[str, str]] = {}
        #: The first move of each open line ("" the main line, None not played yet).
        self.variations: list[str | None] = [""]

    def visit_move(self, board: chess.Board, move: chess.Move, node: int, parent: int) -> None:
        if self.variations[-1] is None or node in self.wanted:
            label = numbered_san(board, move)
            if self.variations[-1] is None:
                self.variations[-1] = label
            if node in self.wanted:
                self.found[node] = (label, self.variations[-1] or "")

    def begin_variation(self, board: chess.Board) -> None:
        self.variations.append(None)  # filled by its first move

    def end_variation(self, board: chess.Board, node: int) -> None:
        self.variations.pop()


def move_labels(board: chess.Board, text: str, nodes: Iterable[int]) -> dict[int, tuple[str, str]]:
    """For each of ``nodes``: the move that reaches it and the first move of its variation.

    Both numbered (:func:`numbered_san`); the variation's is ``''`` on the main line,
    and the start (node 0) has no move.

    >>> board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    >>> move_labels(board, "1. c7 Rd6+ 2. Kb5 (2. Kc5 Rd1) Rd5+ *", [3, 5, 6])
    {3: ('2.Kb5', ''), 5: ('2...Rd1', '2.Kc5'), 6: ('2...Rd5+', '')}
    """
    return walk(board, text, _Labels(set(nodes))).found


@dataclass(frozen=True, slots=True)
class MainMove:
    """The main line's move to one ply: the node it reaches and its numbered SAN."""

    node: int
    label: str


class _MainMoves(Visitor):
    def __init__(self, plies: set[int]) -> None:
        self.plies = plies
        self.last = max(plies, default=0)
        self.label = ""
        self.found: dict[int, MainMove] = {}

    def visit_move(self, board: chess.Board, move: chess.Move, node: int, parent: int) -> None:
        if len(board.move_stack) + 1 in self.plies:
            self.label = numbered_san(board, move)

    def visit_position(self, board: chess.Board, node: int, parent: int, main: bool) -> None:
        ply = len(board.move_stack)
        if main and ply in self.plies:
            self.found[ply] = MainMove(node, self.label)
            if ply >= self.last:
                raise StopWalk


def main_moves(board: chess.Board, text: str, plies: Iterable[int]) -> dict[int, MainMove]:
    """The main line's move to each of ``plies`` (those it reaches), for links to them.

    The walk stops at the last ply asked for; none asked for, there is no walk.

    >>> board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    >>> main_moves(board, "1. c7 Rd6+ 2. Kb5 (2. Kc5 Rd1) Rd5+ 3. Kb4 *", [3, 4, 9])
    {3: MainMove(node=3, label='2.Kb5'), 4: MainMove(node=6, label='2...Rd5+')}
    """
    wanted = set(plies)
    return walk(board.copy(), text, _MainMoves(wanted)).found if wanted else {}


@dataclass(slots=True)
class Line:
    """One line of a study: ``main``, or a variation ``v1``, ``v2`` … in the order of the text.

    ``board`` is the position before its first move, ``start`` that position's
    ply; ``moves`` the line's own moves (the variations inside it are lines
    of their own).
    """

    label: str
    start: int
    board: chess.Board
    moves: list[chess.Move] = field(default_factory=list)
    #: Why the line stops early: its first illegal move (``illegal san: 'Qh8' in …``), or "".
    error: str = ""

    @property
    def main(self) -> bool:
        return self.label == "main"


class _Lines(Visitor):
    def __init__(self, board: chess.Board, *, variations: bool) -> None:
        self.variations = variations
        self.lines = [Line("main", 0, board.copy(stack=False))]
        self.open: list[Line] = [self.lines[0]]
        self.count = 0

    def visit_move(self, board: chess.Board, move: chess.Move, node: int, parent: int) -> None:
        self.open[-1].moves.append(move)

    def begin_variation(self, board: chess.Board) -> None:
        self.count += 1
        if self.variations:
            line = Line(f"v{self.count}", len(board.move_stack), board.copy(stack=False))
            self.lines.append(line)
        else:  # its moves are collected and dropped
            line = Line("", 0, board)
        self.open.append(line)

    def end_variation(self, board: chess.Board, node: int) -> None:
        self.open.pop()

    def visit_error(self, message: str) -> None:
        self.open[-1].error = message


def lines(board: chess.Board, text: str, *, variations: bool = True) -> list[Line]:
    """The main line, then (with ``variations``) every variation in the order of the text.

    >>> [(x.label, x.start, len(x.moves)) for x in lines(chess.Board(), "1. e4 (1. d4 d5) e5 *")]
    [('main', 0, 2), ('v1', 0, 2)]
    >>> lines(chess.Board(), "1. e4 e5 2. Ke3 Nc6 *")[0].error
    "illegal san: 'Ke3' in rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    """
    return walk(board, text, _Lines(board, variations=variations)).lines


def main_line(board: chess.Board, text: str) -> list[chess.Move]:
    """The moves of the main line (up to its first illegal move).

    >>> [m.uci() for m in main_line(chess.Board(), "1. e4 (1. d4 d5) e5 2. Nf3 *")]
    ['e2e4', 'e7e5', 'g1f3']
    """
    return lines(board, text, variations=False)[0].moves


# -- a stored study's movetext and start -----------------------------------------


def movetext_of(pgn: str) -> str:
    """The movetext of a stored game's PGN text: what follows its tag section.

    The same cut as :func:`studydb.pgn.read_games` makes (any number of blank
    lines between the tags and the moves).

    >>> movetext_of('[Event "x"]\\n[FEN "8/8/8/8/8/8/8/K1k5 w - - 0 1"]\\n\\n\\n1. Kb1 *\\n')
    '\\n\\n1. Kb1 *\\n'
    """
    from studydb.pgn import read_games, tag_section_end

    end = tag_section_end(pgn)
    if end is not None:
        return pgn[end:]
    # text before the tags: the reader's own rules
    games = read_games(io.BytesIO(pgn.encode("utf-8")), name="study")
    game = next(games, None)
    return game.movetext if game is not None else ""


def is_chess960(headers: Mapping[str, object] | None) -> bool:
    """Whether a game's ``Variant`` tag names Chess960 (the one place that decides).

    >>> is_chess960({"Variant": " Fischer Random "}), is_chess960({}), is_chess960(None)
    (True, False, False)
    """
    return str((headers or {}).get("Variant", "")).strip().lower() in CHESS960_VARIANTS


def start_board(fen: str, headers: Mapping[str, str] | None = None) -> chess.Board:
    """The board a stored study starts from: its FEN, as a Chess960 board when its
    ``Variant`` tag says so.

    >>> start_board("8/8/8/8/8/8/8/K1k5 w - - 0 1", {"Variant": "Chess960"}).chess960
    True
    """
    return chess.Board(fen, chess960=is_chess960(headers))
