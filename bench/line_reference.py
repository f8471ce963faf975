"""The reference for ``--line`` (issue 30): a brute-force python-chess replay, written apart.

It shares no code with :mod:`studydb.lines` or :mod:`studydb.patterns`: its own
reading of the grammar (regular expressions and ``chess.SquareSet``), the games
read by ``chess.pgn``, every root-to-leaf line replayed on a ``chess.Board``,
and every choice of plies tried.  ``tests/test_lines*.py`` and
``bench/bench_lines.py`` compare studydb with it.

>>> query = compile_line("P-[a-h]8=N then mate")
>>> finds(query, "8/1P6/8/8/8/8/8/K1k5 w - - 0 1", "1. b8=N *", main_line=True)
False
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.pgn

_SQ = r"\.|\[[^\]]*\](?:\[[^\]]*\]|[1-8])?|[a-h](?:\[[^\]]*\]|[1-8])"
_MOVE = re.compile(
    rf"(\[[A-Za-z]+\]|[KQRBNPkqrbnpAa])({_SQ})?([-x])({_SQ})(?:=(\[[A-Za-z]+\]|[A-Za-z]))?([+#])?"
)
_DESIGNATOR = re.compile(rf"(\[[^\]]*\]|[KQRBNPkqrbnpAa!_])({_SQ})(?:\{{(\d*)(,?)(\d*)\}})?")
_TOKEN = re.compile(r"\{(?:[^{}]|\{[^{}]*\})*\}|[^\s{}]+")
_TYPES = {"k": chess.KING, "q": chess.QUEEN, "r": chess.ROOK, "b": chess.BISHOP,
          "n": chess.KNIGHT, "p": chess.PAWN}  # fmt: skip

#: One line of a game: the boards p0 … pn, and the moves (move i leads from p(i-1) to p(i)).
Line = tuple[list[chess.Board], list[chess.Move]]
#: A step: does it stand at i of this line?
Test = Callable[[Line, int], bool]


@dataclass
class Query:
    steps: list[Test]
    links: list[str]


def _men(letters: str) -> set[tuple[bool, int] | None]:
    """(colour, type) pairs; None for an empty square."""
    found: set[tuple[bool, int] | None] = set()
    for letter in letters.strip("[]"):
        if letter == "A":
            found |= {(chess.WHITE, t) for t in _TYPES.values()}
        elif letter == "a":
            found |= {(chess.BLACK, t) for t in _TYPES.values()}
        elif letter == "!":
            found |= {(c, t) for c in chess.COLORS for t in _TYPES.values()}
        elif letter == "_":
            found.add(None)
        else:
            found.add((letter.isupper(), _TYPES[letter.lower()]))
    return found


def _axis(part: str, names: str) -> list[int]:
    if not part.startswith("["):
        return [names.index(part)]
    chosen: list[int] = []
    for item in part[1:-1].split(","):
        first, _, last = item.strip().partition("-")
        chosen += range(names.index(first), names.index(last or first) + 1)
    return chosen


def squares(text: str) -> chess.SquareSet:
    if text == ".":
        return chess.SquareSet(chess.BB_ALL)
    head = text[: text.index("]") + 1] if text.startswith("[") else text[0]
    if head.startswith("[") and any(c.isdigit() for c in head):
        found = chess.SquareSet()
        for item in head[1:-1].split(","):
            m = re.fullmatch(r"([a-h])(?:-([a-h]))?([1-8])(?:-([1-8]))?", item.strip())
            assert m is not None, item
            for f in range(ord(m[1]) - 97, ord(m[2] or m[1]) - 96):
                for r in range(int(m[3]) - 1, int(m[4] or m[3])):
                    found.add(chess.square(f, r))
        return found
    rest = text[len(head) :]
    files = _axis(head, "abcdefgh")
    ranks = _axis(rest, "12345678") if rest else []
    return chess.SquareSet([chess.square(f, r) for f in files for r in ranks])


def _move_test(token: str) -> Test:
    m = _MOVE.fullmatch(token)
    if m is None:
        raise ValueError(token)
    men = _men(m[1])
    origins = squares(m[2]) if m[2] else chess.SquareSet(chess.BB_ALL)
    targets = squares(m[4])
    capture = m[3] == "x"
    promotions = {_TYPES[c.lower()] for c in m[5].strip("[]")} if m[5] else set()
    mark = m[6] or ""

    def test(line: Line, i: int) -> bool:
        if i == 0:
            return False
        boards, moves = line
        board, move = boards[i - 1], moves[i - 1]
        piece = board.piece_at(move.from_square)
        if piece is None or (piece.color, piece.piece_type) not in men:
            return False
        to = move.to_square
        if board.is_castling(move):
            to = chess.square(6 if board.is_kingside_castling(move) else 2, chess.square_rank(to))
        if move.from_square not in origins or to not in targets:
            return False
        if capture and not board.is_capture(move):
            return False
        if promotions and move.promotion not in promotions:
            return False
        after = boards[i]
        if mark == "+" and not after.is_check():
            return False
        return not (mark == "#" and not after.is_checkmate())

    return test


def _position_test(token: str) -> Test:
    tests = []
    negate = False
    for word in token[1:-1].split():
        if word == "not":
            negate = True
            continue
        m = _DESIGNATOR.fullmatch(word)
        if m is None:
            raise ValueError(word)
        men, where = _men(m[1]), squares(m[2])
        low, high = 1, None
        if m[3] is not None:
            low = int(m[3]) if m[3] else 0
            high = int(m[5]) if m[5] else (None if m[4] else low)
        tests.append((men, where, low, high, negate))
        negate = False

    def test(line: Line, i: int) -> bool:
        board = line[0][i]
        for men, where, low, high, negated in tests:
            count = 0
            for square in where:
                piece = board.piece_at(square)
                if (None if piece is None else (piece.color, piece.piece_type)) in men:
                    count += 1
            inside = count >= low and (high is None or count <= high)
            if inside == negated:
                return False
        return True

    return test


def _word_test(word: str) -> Test:
    def test(line: Line, i: int) -> bool:
        board = line[0][i]
        if word == "check":
            return board.is_check()
        if word == "mate":
            return board.is_checkmate()
        return board.is_stalemate()

    return test


def compile_line(text: str) -> Query:
    tokens = _TOKEN.findall(text)
    steps, links = [], []
    for number, token in enumerate(tokens):
        if number % 2:
            assert token in ("then", "next"), token
            links.append(token)
        elif token in ("check", "mate", "stalemate"):
            steps.append(_word_test(token))
        elif token.startswith("{"):
            steps.append(_position_test(token))
        else:
            steps.append(_move_test(token))
    return Query(steps, links)


_BLANK_LINES = re.compile(r"\n[ \t\r]*(?=\n)")


def game_lines(fen: str, movetext: str, *, main_line: bool) -> Iterator[Line]:
    """Every root-to-leaf line of the game (the main line only with ``main_line``).

    Blank lines are taken out of the movetext (``chess.pgn`` ends a game at one).
    """
    text = _BLANK_LINES.sub("", movetext.strip())
    game = chess.pgn.read_game(io.StringIO(f'[FEN "{fen}"]\n\n{text}\n'))
    if game is not None:
        yield from lines_of(game, main_line=main_line)


def lines_of(game: chess.pgn.Game, *, main_line: bool) -> Iterator[Line]:
    """Every root-to-leaf line of a game read by ``chess.pgn``."""

    def lines(
        node: chess.pgn.GameNode, boards: list[chess.Board], moves: list[chess.Move]
    ) -> Iterator[Line]:
        children = node.variations[:1] if main_line else node.variations
        if not children:
            yield boards, moves
        for child in children:
            board = boards[-1].copy(stack=False)
            board.push(child.move)
            yield from lines(child, [*boards, board], [*moves, child.move])

    yield from lines(game, [game.board()], [])


def count_in_pgn(query: Query, path: Path, *, main_line: bool) -> int:
    """How many games of a PGN file have the line: each read by ``chess.pgn`` and replayed."""
    found = 0
    with open(path, encoding="utf-8") as stream:
        while (game := chess.pgn.read_game(stream)) is not None:
            found += any(fits(query, line) for line in lines_of(game, main_line=main_line))
    return found


def fits(query: Query, line: Line) -> bool:
    """Whether one line of a game has the query's steps, linked as it says."""
    return _fits(query, line, 0, -1)


def _fits(query: Query, line: Line, step: int, at: int) -> bool:
    """Whether steps ``step``… can stand from ``at`` on (step 0: anywhere)."""
    if step == len(query.steps):
        return True
    if step == 0:
        places = range(len(line[0]))
    elif query.links[step - 1] == "next":
        places = range(at + 1, min(at + 2, len(line[0])))
    else:
        places = range(at + 1, len(line[0]))
    return any(query.steps[step](line, i) and _fits(query, line, step + 1, i) for i in places)


def finds(query: Query, fen: str, movetext: str, *, main_line: bool) -> bool:
    """Whether some line of the game has the query's steps, linked as it says."""
    return any(fits(query, line) for line in game_lines(fen, movetext, main_line=main_line))
