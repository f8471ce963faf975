"""The one movetext walker (studydb.movetext): tokens, lines, node numbers, cost."""

from __future__ import annotations

import doctest
import io
import random
import re
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn
import chess.variant
import pytest
from helpers import NESTED_FEN, boards, examples, nested_study
from hypothesis import given, settings
from hypothesis import strategies as st

from studydb import movetext
from studydb.db.classify import index_game
from studydb.movetext import (
    Visitor,
    errors_of,
    lines,
    main_line,
    moves_to,
    movetext_of,
    nodes,
    unread,
    walk,
)
from studydb.pgn import open_pgn, read_games

KR_V_K = "8/8/8/8/8/2k5/8/K6R w - - 0 1"


def sans(fen: str, text: str) -> list[tuple[int, int, int, bool, str]]:
    """(node, parent, ply, main, SAN) of every node after the start."""
    return [(n.node, n.parent, n.ply, n.main, n.san) for n in nodes(chess.Board(fen), text)[1:]]


@pytest.mark.parametrize(
    ("fen", "text", "expected"),
    [
        (
            chess.STARTING_FEN,
            "1. e4 {a comment} (1. d4 d5 (1... Nf6)) 1... e5 $1 *",
            [(1, 0, 1, True, "e4"), (2, 0, 1, False, "d4"), (3, 2, 2, False, "d5"),
             (4, 2, 2, False, "Nf6"), (5, 1, 2, True, "e5")],
        ),
        (  # sibling variations: a variation of the variation's first move (issue 15)
            KR_V_K,
            "1. Rh3+ (1. Rh4 (1. Rh5) 1... Kd3) 1... Kd4 *",
            [(1, 0, 1, True, "Rh3+"), (2, 0, 1, False, "Rh4"), (3, 0, 1, False, "Rh5"),
             (4, 2, 2, False, "Kd3"), (5, 1, 2, True, "Kd4")],
        ),
        (  # two variations of one move, then the main line goes on
            KR_V_K,
            "1. Rh3+ (1. Rh4) (1. Rc1+) Kd4 2. Rh4+ *",
            [(1, 0, 1, True, "Rh3+"), (2, 0, 1, False, "Rh4"), (3, 0, 1, False, "Rc1+"),
             (4, 1, 2, True, "Kd4"), (5, 4, 3, True, "Rh4+")],
        ),
        (  # an illegal move ends its variation only (issue 15)
            KR_V_K,
            "1. Rh3+ (1. Rh4 Kd3 2. Qh1 Kd2 (2... Ke2)) 1... Kd4 2. Rh4+ *",
            [(1, 0, 1, True, "Rh3+"), (2, 0, 1, False, "Rh4"), (3, 2, 2, False, "Kd3"),
             (4, 1, 2, True, "Kd4"), (5, 4, 3, True, "Rh4+")],
        ),
        (  # an illegal move ends the main line, variations inside it included
            KR_V_K,
            "1. Rh3+ Ka1 (1... Kd4) 2. Rh4 *",
            [(1, 0, 1, True, "Rh3+")],
        ),
        (  # a "(" with no move before it in its line is passed over, whole
            KR_V_K,
            "( 1. Rh4 ) 1. Rh3+ ( ( 1. Rc1+ ) 1. Rh2 ) Kd4 *",
            [(1, 0, 1, True, "Rh3+"), (2, 0, 1, False, "Rh2"), (3, 1, 2, True, "Kd4")],
        ),
        (  # a stray ")" on the main line means nothing; an open variation ends with the text
            KR_V_K,
            "1. Rh3+ ) Kd4 (1... Kd2 2. Rh2+",
            [(1, 0, 1, True, "Rh3+"), (2, 1, 2, True, "Kd4"), (3, 1, 2, False, "Kd2"),
             (4, 3, 3, False, "Rh2+")],
        ),
        (  # move numbers of five digits are numbers, not the null move 0000 (issue 15)
            "k7/8/8/8/8/8/8/K7 w - - 0 9999",
            "9999. Kb1 Kb8 10000. Ka1 Ka8 10001.Kb1 *",
            [(1, 0, 1, True, "Kb1"), (2, 1, 2, True, "Kb8"), (3, 2, 3, True, "Ka1"),
             (4, 3, 4, True, "Ka8"), (5, 4, 5, True, "Kb1")],
        ),
        (  # null moves, castling with zeros, comments hiding moves, escape lines
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "1. 0-0 {1. Kd1} Z0 ; 2. Kh2\n%2. Kh2\n2. -- 0-0-0 1-0",
            [(1, 0, 1, True, "O-O"), (2, 1, 2, True, "--"), (3, 2, 3, True, "--"),
             (4, 3, 4, True, "O-O-O")],
        ),
    ],
)  # fmt: skip
def test_nodes_in_the_order_of_the_text(fen: str, text: str, expected: list) -> None:
    assert sans(fen, text) == expected


@pytest.mark.parametrize(
    ("text", "errors"),
    [
        ("1. Rh3+ Kd4 *", []),
        ("1. Rh3+ (1. Rh4 Kd3 2. Qh1) Kd4 *", ["illegal san: 'Qh1' in 8/8/8/8/7R/3k4/8/K7 w"]),
        ("1. Rh3+ Ka1 (1... Kd4 2. Qh1) 2. Rh4 *", ["illegal san: 'Ka1' in 8/8/8/8/8/2k4R/8/K7 b"]),
        ("1. Rh3+ (1. Rh4 Kd3 2. Qh1) (1. Rc1+ Kb3 2. Qc2) Kd4 2. Ke4 *", [
            "illegal san: 'Qh1' in 8/8/8/8/7R/3k4/8/K7 w",
            "illegal san: 'Qc2' in 8/8/8/8/8/1k6/8/K1R5 w",
            "illegal san: 'Ke4' in 8/8/8/8/3k4/7R/8/K7 w"]),
        ("1. Rh3+ Zugzwang! Kd4 *", []),  # words that hold no move are passed over
    ],
)  # fmt: skip
def test_errors_one_per_broken_line(text: str, errors: list[str]) -> None:
    found = errors_of(chess.Board(KR_V_K), text)
    assert [e.rsplit(" - -", 1)[0] for e in found] == errors


def test_a_broken_variation_keeps_the_main_line() -> None:
    """After an illegal move in a variation, the main line goes on from its own position."""
    text = "1. Rh3+ (1. Rc1+ Kb3 2. Qc2 Kb4) 1... Kd4 2. Rd3+ Kxd3 *"
    board = chess.Board(KR_V_K)
    assert [board.san(m) for m in main_line(board, text)[:1]] == ["Rh3+"]
    assert board.variation_san(main_line(board, text)) == "1. Rh3+ Kd4 2. Rd3+ Kxd3"


def test_lines_as_check_reads_them() -> None:
    text = "1. Rh3+ (1. Rh4 (1. Rh5) 1... Kd3) 1... Kd4 2. Rh4+ (2. Ka2 Kc5) *"
    board = chess.Board(KR_V_K)
    found = [(x.label, x.start, x.board.fen(), x.board.variation_san(x.moves), x.main)
             for x in lines(board, text)]  # fmt: skip
    assert found == [
        ("main", 0, KR_V_K, "1. Rh3+ Kd4 2. Rh4+", True),
        ("v1", 0, KR_V_K, "1. Rh4 Kd3", False),
        ("v2", 0, KR_V_K, "1. Rh5", False),
        ("v3", 2, "8/8/8/8/3k4/7R/8/K7 w - - 2 2", "2. Ka2 Kc5", False),
    ]
    assert [x.label for x in lines(board, text, variations=False)] == ["main"]


class Recorder(Visitor):
    """Every callback, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def visit_move(self, board: chess.Board, move: chess.Move, node: int, parent: int) -> None:
        self.calls.append(("move", board.san(move), node, parent))

    def visit_position(self, board: chess.Board, node: int, parent: int, main: bool) -> None:
        self.calls.append(("position", node, parent, main, len(board.move_stack)))

    def visit_comment(self, text: str) -> None:
        self.calls.append(("comment", text))

    def visit_nag(self, nag: int) -> None:
        self.calls.append(("nag", nag))

    def begin_variation(self, board: chess.Board) -> None:
        self.calls.append(("begin", len(board.move_stack)))

    def end_variation(self, board: chess.Board, node: int) -> None:
        self.calls.append(("end", len(board.move_stack), node))

    def visit_error(self, message: str) -> None:
        self.calls.append(("error", message.split(" in ")[0]))

    def visit_result(self, result: str) -> None:
        self.calls.append(("result", result))

    def end_game(self, board: chess.Board, node: int) -> None:
        self.calls.append(("end game", board.fen(), node))


def test_visitor_callbacks_in_order() -> None:
    text = "{start} 1. Rh3+! $14 (1. Rh4 {x} Qa1 {not seen} (1... Kd2)) Kd4 ?! ; to the end\n1-0"
    recorder = walk(chess.Board(KR_V_K), text, Recorder())
    assert recorder.calls == [
        ("comment", "start"),
        ("move", "Rh3+", 1, 0),
        ("position", 1, 0, True, 1),
        ("nag", 1),
        ("nag", 14),
        ("begin", 0),
        ("move", "Rh4", 2, 0),
        ("position", 2, 0, False, 1),
        ("comment", "x"),
        ("error", "illegal san: 'Qa1'"),
        ("end", 1, 2),
        ("move", "Kd4", 3, 1),
        ("position", 3, 1, True, 2),
        ("nag", 6),
        ("comment", "to the end"),
        ("result", "1-0"),
        ("end game", "8/8/8/8/3k4/7R/8/K7 w - - 2 2", 3),
    ]


@pytest.mark.parametrize(
    ("text", "ends"),
    [
        # Nested lines: each closes at its own last node, the game at the main line's.
        (
            "1. e4 (1. d4 d5 (1... Nf6 2. c4) 2. c4) e5 2. Nf3 (2. Bc4) *",
            [("end", 3, 5), ("end", 3, 6), ("end", 3, 9), ("end game", 8)],
        ),
        # A line whose first move is illegal closes at the node it opened at.
        ("1. e4 (1. e5) e5 *", [("end", 0, 0), ("end game", 2)]),
        # Lines left open at the end of the text close there, innermost first.
        ("1. e4 (1. d4 d5 (1... Nf6", [("end", 2, 4), ("end", 2, 3), ("end game", 1)]),
    ],
)
def test_end_events_name_the_last_node_of_their_line(text: str, ends: list[tuple]) -> None:
    calls = walk(chess.Board(), text, Recorder()).calls
    assert [
        (c[0], c[2]) if c[0] == "end game" else c for c in calls if c[0] in ("end", "end game")
    ] == ends


def test_positions_name_their_parent() -> None:
    text = "1. e4 (1. d4 d5 (1... Nf6 2. c4) 2. c4) e5 *"
    calls = walk(chess.Board(), text, Recorder()).calls
    assert [(c[1], c[2]) for c in calls if c[0] == "position"] == [
        (1, 0),
        (2, 0),
        (3, 2),
        (4, 2),
        (5, 4),
        (6, 3),
        (7, 1),
    ]


def test_walk_leaves_the_board_alone() -> None:
    board = chess.Board(KR_V_K)
    board.push_san("Rh3+")
    before = (board.fen(), list(board.move_stack))
    assert [n.ply for n in nodes(board, "1... Kd4 2. Rh4+")] == [0, 1, 2]
    assert (board.fen(), list(board.move_stack)) == before


@st.composite
def games(draw: st.DrawFn) -> chess.pgn.Game:
    """A game from the start position with random moves, side lines, comments and NAGs."""
    game = chess.pgn.Game()
    frontier: list[tuple[chess.pgn.GameNode, chess.Board]] = [(game, game.board())]
    for _ in range(draw(st.integers(min_value=0, max_value=30))):
        node, board = draw(st.sampled_from(frontier))
        moves = list(board.legal_moves)
        if not moves:
            continue
        move = draw(st.sampled_from(moves))
        if node.has_variation(move):
            continue
        child = node.add_variation(move, comment=draw(st.sampled_from(["", "(1. e4)", "x"])))
        child.nags.update(draw(st.sets(st.integers(1, 20), max_size=2)))
        after = board.copy()
        after.push(move)
        frontier.append((child, after))
    return game


@settings(max_examples=examples(30), deadline=None)
@given(games())
def test_agrees_with_python_chess_on_legal_games(game: chess.pgn.Game) -> None:
    """On a legal game python-chess writes, the walk meets every node of its tree once."""
    text = game.accept(chess.pgn.StringExporter(headers=False))
    board = game.board()
    found = nodes(board, text)
    tree = []
    stack: list[chess.pgn.GameNode] = [game]
    while stack:
        node = stack.pop()
        tree.append((node.board().fen(), node.ply(), node.is_mainline()))
        stack.extend(node.variations)
    assert sorted((n.fen, n.ply, n.main) for n in found) == sorted(tree)
    assert main_line(board, text) == list(game.mainline_moves())
    assert errors_of(board, text) == []
    for n in found[1:]:  # each node's parent is the position its move was played in
        after = chess.Board(found[n.parent].fen)
        after.push_san(n.san)
        assert after.fen() == n.fen and n.parent < n.node
    last = found[-1]
    reached = board.copy()
    for move in moves_to(board, text, last.node) or []:
        reached.push(move)
    assert reached.fen() == last.fen


# -- movetext_of -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pgn", "expected"),
    [
        ('[Event "x"]\n[FEN "8/8/8/8/8/8/8/K1k5 w - - 0 1"]\n\n1. Kb1 *\n', "\n1. Kb1 *\n"),
        ('[Event "x"]\n\n\n1. e4 *\n', "\n\n1. e4 *\n"),  # two blank lines (issue 15)
        ('[Event "x"]\r\n\r\n[Site "y"]\r\n\r\n1. e4 *\r\n', "\r\n1. e4 *\r\n"),
        ('[Event "x"]\n%escape\n[Site "y"]\n1. e4 *', "1. e4 *"),
        ('  [Event "x"] [Site "y"]\n1. e4 *', "1. e4 *"),
        ('[Event "x"]', ""),
        ("1. e4 e5 *\n", "1. e4 e5 *\n"),  # no tags: all of it
        ('{before the tags}\n[Event "x"]\n\n1. e4 *\n', "\n1. e4 *\n"),
        ("", ""),
    ],
)
def test_movetext_of(pgn: str, expected: str) -> None:
    assert movetext_of(pgn) == expected


def corpus_games(corpus_dir: Path):
    for path in sorted(corpus_dir.rglob("*.pgn")):
        with open_pgn(path) as stream:
            yield from read_games(stream, name=str(path))


@pytest.mark.slow
def test_movetext_of_cuts_as_the_reader_does(corpus_dir: Path) -> None:
    """Every corpus game's stored text gives back the movetext the reader cut."""
    count = 0
    for game in corpus_games(corpus_dir):
        assert movetext_of(game.text) == game.movetext, (game.file, game.line)
        count += 1
    assert count > 7000


def test_start_board() -> None:
    fen = "4k3/8/8/8/8/8/8/1RK4R w BH - 0 1"
    board = movetext.start_board(fen, {"Variant": " Chess960 "})
    assert board.chess960 and [board.uci(m) for m in main_line(board, "1. O-O *")] == ["c1h1"]
    assert main_line(movetext.start_board(fen, {"Variant": "Standard"}), "1. O-O *") == []
    assert not movetext.start_board(fen).chess960


# -- cost: linear in the text, at any depth (issue 15) ------------------------------


class CountingBoard(chess.Board):
    """A board that counts the moves pushed and popped (``copy`` keeps the class)."""

    operations = 0

    def push(self, move: chess.Move) -> None:
        CountingBoard.operations += 1
        super().push(move)

    def pop(self) -> chess.Move:
        CountingBoard.operations += 1
        return super().pop()


@pytest.mark.parametrize("depth", [10, 100, 1000])
def test_nesting_costs_a_constant_per_move(depth: int) -> None:
    class Moves(Visitor):
        count = 0

        def visit_move(self, board: chess.Board, move: chess.Move, node: int, parent: int) -> None:
            self.count += 1

    text = nested_study(depth)
    CountingBoard.operations = 0
    moves = walk(CountingBoard(NESTED_FEN), text, Moves()).count
    assert moves == 3 * depth
    # Each move pushed once and popped at most once; each variation one pop, one push.
    assert CountingBoard.operations <= 2 * moves + 2 * depth


@pytest.mark.slow
def test_deep_nesting_replays_in_linear_memory() -> None:
    """3,000 nested variations (issue 15: 1.78 GB to import): no recursion, little memory."""
    text = nested_study(3000)
    tracemalloc.start()
    try:
        replay = index_game(text, NESTED_FEN)
        errors, rows = replay.errors, replay.rows
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert errors == [] and len(rows) == 9001
    assert peak < 16 << 20, f"{peak / 1e6:.1f} MB"  # the rows take 6 MB
    (deepest,) = nodes(chess.Board(NESTED_FEN), text, node=9000)
    assert deepest.ply == 6000 and not deepest.main


def test_doctests() -> None:
    result = doctest.testmod(movetext)
    assert result.attempted > 0
    assert result.failed == 0


def test_python_chess_reads_the_nested_study_as_we_do() -> None:
    text = nested_study(5)
    game = chess.pgn.read_game(io.StringIO(f'[FEN "{NESTED_FEN}"]\n\n{text}'))
    assert game is not None and not game.errors
    assert sum(1 for _ in nodes(chess.Board(NESTED_FEN), text)) == 16


def test_each_variation_ends_on_its_last_position() -> None:
    """end_variation sees the line's last position, open lines closed at the end included."""
    text = "1. Rh3+ (1. Rh4 Kd3 (1... Kd2 2. Rh2+ ( ( 2. Ka2 ) * ) 2... Kd4 3. Ka2"
    calls = walk(chess.Board(KR_V_K), text, Recorder()).calls
    assert [c for c in calls if c[0] in ("begin", "end", "error", "end game")] == [
        ("begin", 0),  # 1. Rh4 …
        ("begin", 1),  # 1... Kd2 …
        ("begin", 2),  # ( ( 2. Ka2 ) * ): the inner group has no move to replace
        ("end", 2, 4),  # no move: it closes at the node it opened at
        ("error", "illegal san: 'Kd4'"),
        ("end", 3, 5),  # 1... Kd2 2. Rh2+, left open
        ("end", 2, 3),  # 1. Rh4 Kd3, left open
        ("end game", "8/8/8/8/8/2k4R/8/K7 b - - 1 1", 1),
    ]


# -- parse_san: board.parse_san's answers, quicker (issue 28) ------------------------

#: Positions for parse_san: pins, checks, en passant, promotions, castling, Chess960,
#: and boards python-chess takes though no game reaches them.
SAN_FENS = [
    chess.STARTING_FEN,
    "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1",  # the knight pinned by a bishop
    "4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1",  # the rook pinned, free along the file
    "4k3/8/8/2b5/8/4Q3/8/K7 w - - 0 1",  # the queen not pinned: no king on the line
    "4k3/8/8/8/8/8/r2BK3/8 w - - 0 1",  # the bishop pinned on the rank
    "4k3/8/8/8/1b6/8/8/R3K2R w KQ - 0 1",  # in check: castling gone, blocks, king moves
    "4k3/8/8/8/8/3n4/8/R3K1N1 w - - 0 1",  # in check by a knight: take it or step aside
    "4k3/8/8/8/8/8/3p4/R3K1N1 w - - 0 1",  # in check by a pawn
    "r3k3/5P2/8/8/8/8/8/4K3 b - - 0 1",  # black in check by a pawn
    "8/8/8/8/8/8/3k4/R3K3 w - - 0 1",  # the kings side by side (no game has them)
    "4k3/8/8/8/4r3/8/3P1P2/R3K2R w KQ - 0 1",  # in check by a rook: Rxe4 is no move
    "4k3/8/8/1n6/8/2b5/8/4K3 w - - 0 1",  # no white man but the king
    "3rk3/8/8/8/8/8/3PK3/8 w - - 0 1",  # the king steps along the rook's file
    "6k1/8/8/8/8/8/5q2/4K2R w K - 0 1",  # the king takes the checking queen
    "k7/8/8/3pP3/8/8/8/4K3 w - d6 0 2",  # en passant
    "k7/8/8/r2pP2K/8/8/8/8 w - d6 0 2",  # en passant that uncovers the king
    "k7/8/8/8/3pP3/8/8/4K2R b K e3 0 1",  # black's en passant
    "k7/8/8/8/2Pp4/8/8/1K1B4 b - c3 0 1",  # black's en passant, with a bishop behind
    "1n2k3/P1P5/8/8/8/8/p6p/4K1N1 w - - 0 1",  # promotions, captures among them
    "1n2k3/P1P5/8/8/8/8/p6p/4K1N1 b - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",  # castling both ways, rooks on the corners
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "4k3/8/8/8/8/8/8/RN2K1NR w KQ - 0 1",  # knights in the way
    "1N2k3/8/8/8/8/1N6/8/1N2K3 w - - 0 1",  # three knights on a file: rank hints
    "4k3/8/8/Q3Q3/8/8/8/Q3K3 w - - 0 1",  # three queens: file and rank hints, both
    "4k3/8/8/8/8/2R1R3/8/4K3 w - - 0 1",  # two rooks, none pinned: file e is empty
    "4k3/8/8/8/4r3/8/4K3/8 w - - 0 1",  # in check: the king may not step back on the file
    "4k3/8/8/8/7b/8/5K2/8 w - - 0 1",  # nor on the diagonal
    "4k3/3p4/3N4/8/8/4n3/4P3/4K3 w - - 0 1",  # double pushes blocked halfway
    "4k3/3p4/3N4/8/8/4n3/4P3/4K3 b - - 0 1",
    "4k3/8/4r3/8/8/2R1R3/8/4K3 w - - 0 1",  # two rooks on d3's rank, one pinned
    "4k3/8/8/8/8/8/PPPPPPPP/4K3 w - - 0 1",  # pushes and double pushes
    "4k3/pppppppp/8/8/8/8/8/4K3 b - - 0 1",
    "4k3/8/8/8/8/p1p5/1P6/4K3 w - - 0 1",  # a pawn that can take either way
    "4k3/8/8/8/8/8/8/P3K2p w - - 0 1",  # pawns on the back ranks (no game has them)
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
    "8/8/8/8/8/8/8/R7 w - - 0 1",  # no kings
    "4k3/8/8/8/8/8/8/K3K3 w - - 0 1",  # two white kings
    "4k3/8/8/8/8/8/r7/4K2k w - - 0 1",  # two black kings, one next to the white king
    "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1",
    "2k5/8/8/8/8/8/8/1RK4R w BH - 0 1",  # Chess960 castling (a Chess960 board below)
    "rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - 4 11",
]


def outcome(board: chess.Board, san: str, parse: Callable[[chess.Board, str], chess.Move]):
    """The move ``parse`` gives, or the type and message of what it raises."""
    try:
        return parse(board, san)
    except ValueError as exc:
        return type(exc), str(exc)


def python_chess(board: chess.Board, san: str) -> chess.Move:
    return board.parse_san(san)


def tokens_of(board: chess.Board, move: chess.Move, rnd: random.Random) -> set[str]:
    """The move's SAN and its neighbours: pieces, hints, capture marks, targets, promotions."""
    san = board.san(move)
    found = {san, san.rstrip("+#"), san.replace("x", ""), move.uci(), move.uci()[:4]}
    piece = board.piece_at(move.from_square)
    letter = "" if piece is None or piece.piece_type == chess.PAWN else piece.symbol().upper()
    origin, target = chess.square_name(move.from_square), chess.square_name(move.to_square)
    promotion = "" if move.promotion is None else "=" + chess.piece_symbol(move.promotion).upper()
    for _ in range(4):
        found.add(
            rnd.choice([letter, letter, "", "N", "B", "R", "Q", "K", "P", "n"])
            + rnd.choice(["", "", origin[0], origin[1], origin, rnd.choice("abcdefgh"),
                          rnd.choice("12345678"), rnd.choice(chess.SQUARE_NAMES)])
            + rnd.choice(["", "", "x", "-"])
            + rnd.choice([target, target, target, rnd.choice(chess.SQUARE_NAMES)])
            + rnd.choice([promotion, promotion, "", "=Q", "n", "=K", "=P", "r"])
            + rnd.choice(["", "", "+", "#"])
        )  # fmt: skip
    return found


def assert_parse_san_agrees(board: chess.Board, rnd: random.Random) -> None:
    tokens = {"O-O", "O-O-O", "0-0", "--", "0000", "Z0", "@@@@", "N@f3", "e4,e5", "xyz"}
    for move in board.legal_moves:
        tokens |= tokens_of(board, move, rnd)
    for name in rnd.sample(chess.SQUARE_NAMES, 16):  # pushes, pieces, captures: anywhere
        tokens |= {name, rnd.choice(["K", "N", "B", "R", "Q", "ex", "dx"]) + name}
    before = board.fen()
    for san in sorted(tokens):
        assert outcome(board, san, movetext.parse_san) == outcome(board, san, python_chess), san
    assert board.fen() == before


#: Boards whose rules are not standard chess's: parse_san leaves them to python-chess.
VARIANT_BOARDS = [chess.variant.AtomicBoard, chess.variant.AntichessBoard,
                  chess.variant.KingOfTheHillBoard]  # fmt: skip


@settings(max_examples=examples(300), deadline=None)
@given(
    st.sampled_from(SAN_FENS),
    st.sampled_from([chess.Board, chess.Board, chess.Board, *VARIANT_BOARDS]),
    st.booleans(),
    st.lists(st.integers(min_value=0, max_value=1 << 16), max_size=40),
    st.integers(min_value=0, max_value=1 << 32),
)
def test_parse_san_agrees_with_python_chess(
    fen: str, kind: type[chess.Board], chess960: bool, choices: list[int], seed: int
) -> None:
    """After random moves (none too) from a position, every legal move's SAN and its
    mutations (drawn with ``seed``) give parse_san and board.parse_san the same move
    or error."""
    rnd = random.Random(seed)
    board = kind(fen, chess960=chess960 or "w G" in fen or "w BH" in fen)
    for choice in choices:
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(moves[choice % len(moves)])
    assert_parse_san_agrees(board, rnd)


@pytest.mark.parametrize(
    ("fen", "san", "expected"),
    [
        (chess.STARTING_FEN, "e4", "e2e4"),
        (chess.STARTING_FEN, "Nf3", "g1f3"),
        ("4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1", "Nf3", "illegal san: 'Nf3'"),  # pinned
        ("4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1", "Rxe7", "e2e7"),  # along its pin
        ("4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1", "Ra2", "illegal san: 'Ra2'"),
        ("4k3/8/8/8/1b6/8/8/R3K2R w KQ - 0 1", "Rd1", "illegal san: 'Rd1'"),  # in check
        ("4k3/8/8/8/1b6/8/8/R3K2R w KQ - 0 1", "Kf2", "e1f2"),
        ("4k3/8/8/8/8/3n4/8/R3K1N1 w - - 0 1", "Ra2", "illegal san: 'Ra2'"),  # the knight
        ("4k3/8/8/8/8/3n4/8/R3K1N1 w - - 0 1", "Nf2", "illegal san: 'Nf2'"),
        ("4k3/8/8/8/8/3n4/8/R3K1N1 w - - 0 1", "Kd2", "e1d2"),
        ("4k3/8/8/8/8/8/3p4/R3K1N1 w - - 0 1", "Ra2", "illegal san: 'Ra2'"),  # the pawn
        ("4k3/8/8/8/8/8/3p4/R3K1N1 w - - 0 1", "Kxd2", "e1d2"),
        ("r3k3/5P2/8/8/8/8/8/4K3 b - - 0 1", "Ra1", "illegal san: 'Ra1'"),
        ("8/8/8/8/8/8/3k4/R3K3 w - - 0 1", "Ra2", "illegal san: 'Ra2'"),  # the other king
        ("3rk3/8/8/8/8/8/3PK3/8 w - - 0 1", "Kd3", "illegal san: 'Kd3'"),
        ("4k3/8/8/8/4r3/8/4K3/8 w - - 0 1", "Ke1", "illegal san: 'Ke1'"),  # in the shadow
        ("4k3/8/8/8/8/4n3/4P3/4K3 w - - 0 1", "e4", "illegal san: 'e4'"),  # blocked
        ("4k3/8/8/8/8/8/1N6/K3N3 w - - 0 1", "Nd3", "ambiguous san: 'Nd3'"),
        ("4k3/8/8/8/8/8/1N6/K3N3 w - - 0 1", "N1d3", "e1d3"),
        ("4k3/8/8/8/8/8/1N6/K3N3 w - - 0 1", "Nbd3", "b2d3"),
        ("4k3/8/8/8/8/8/1N6/K3N3 w - - 0 1", "Nb2d3", "b2d3"),
        ("4k3/8/8/8/8/8/1N6/K3N3 w - - 0 1", "b2d3", "b2d3"),  # any piece, fully specified
        ("4k3/8/8/8/8/8/1N6/K3N3 w - - 0 1", "Bd3", "illegal san: 'Bd3'"),
        ("4k3/8/8/8/8/8/1N6/K3N3 w - - 0 1", "Nd3=Q", "illegal san: 'Nd3=Q'"),
        ("4k3/8/8/Q3Q3/8/8/8/Q3K3 w - - 0 1", "Qa5c3", "a5c3"),
        ("4k3/8/8/Q3Q3/8/8/8/Q3K3 w - - 0 1", "Qc3", "ambiguous san: 'Qc3'"),
        ("4k3/8/8/Q3Q3/8/8/8/Q3K3 w - - 0 1", "Qac3", "ambiguous san: 'Qac3'"),
        ("4k3/8/8/8/8/p1p5/1P6/4K3 w - - 0 1", "bxa3", "b2a3"),
        ("4k3/8/8/8/8/p1p5/1P6/4K3 w - - 0 1", "xa3", "illegal san: 'xa3'"),  # no file
        ("k7/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "exd6", "e5d6"),  # en passant
        ("k7/8/8/r2pP2K/8/8/8/8 w - d6 0 2", "exd6", "illegal san: 'exd6'"),
        ("1n2k3/P1P5/8/8/8/8/p6p/4K1N1 w - - 0 1", "axb8=N", "a7b8n"),
        ("1n2k3/P1P5/8/8/8/8/p6p/4K1N1 w - - 0 1", "c8", "illegal san: 'c8'"),
        ("1n2k3/P1P5/8/8/8/8/p6p/4K1N1 w - - 0 1", "c7c8", "missing promotion piece type: 'c7c8'"),
        ("1n2k3/P1P5/8/8/8/8/p6p/4K1N1 w - - 0 1", "c8=K", "illegal san: 'c8=K'"),
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "Kg1", "illegal san: 'Kg1'"),
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", "e1g1"),  # castling, as written
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "O-O-O", "e1c1"),
        (chess.STARTING_FEN, "Pe4", "invalid san: 'Pe4'"),
        (chess.STARTING_FEN, "--", "0000"),
    ],
)  # fmt: skip
def test_parse_san(fen: str, san: str, expected: str) -> None:
    board = chess.Board(fen)
    if " " in expected:
        with pytest.raises(ValueError, match=re.escape(expected)):
            board.parse_san(san)
        with pytest.raises(ValueError, match=re.escape(expected)):
            movetext.parse_san(board, san)
    else:
        assert movetext.parse_san(board, san).uci() == expected == board.parse_san(san).uci()


def test_the_quick_push_serves_only_the_python_chess_releases_it_was_checked_against() -> None:
    """_push leans on python-chess's private state class: the walk uses it under a release
    test_push_agrees_with_python_chess passed on (named in CHECKED_RELEASES), and plays
    every move with Board.push under any other."""
    checked = chess.__version__.startswith(movetext.CHECKED_RELEASES)
    assert (movetext._BoardState is not None) == checked, chess.__version__


def test_walk_without_python_chess_state_class_pushes_with_python_chess(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A python-chess without its (private) state class: every move goes through
    Board.push, and the positions are the same."""
    text = "1. e4 Nf6 2. e5 d5 3. exd6 (3. Bb5+ c6 4. exf6) exd6 4. Nf3 Be7 5. Bc4 O-O 6. O-O *"

    def states() -> list[tuple[object, ...]]:
        seen: list[tuple[object, ...]] = []

        class States(Visitor):
            def visit_position(
                self, board: chess.Board, node: int, parent: int, main: bool
            ) -> None:
                seen.append(board_state(board))

        movetext.walk(chess.Board(), text, States())
        return seen

    fast = states()
    monkeypatch.setattr(movetext, "_BoardState", None)
    monkeypatch.setattr(movetext, "_push", None)  # not called
    assert states() == fast


# -- Tee: several visitors on one walk ----------------------------------------------------


class _Moves(Visitor):
    """Records the moves and the line ends."""

    def __init__(self) -> None:
        self.seen: list[object] = []

    def visit_move(self, board: chess.Board, move: chess.Move, node: int, parent: int) -> None:
        self.seen.append(("move", move.uci(), node, parent))

    def end_variation(self, board: chess.Board, node: int) -> None:
        self.seen.append(("end", node))


class _Positions(Visitor):
    """Records the positions and the errors."""

    def __init__(self) -> None:
        self.seen: list[object] = []

    def visit_position(self, board: chess.Board, node: int, parent: int, main: bool) -> None:
        self.seen.append(("position", board.fen(), node, parent, main))

    def visit_error(self, message: str) -> None:
        self.seen.append(("error", message))


class _Notes(Visitor):
    """Records the comments and NAGs."""

    def __init__(self) -> None:
        self.seen: list[object] = []

    def visit_comment(self, text: str) -> None:
        self.seen.append(("comment", text))

    def visit_nag(self, nag: int) -> None:
        self.seen.append(("nag", nag))


@pytest.mark.parametrize(
    "kinds",
    [
        (_Notes,),
        (_Moves, _Notes, _Positions),
        (_Notes, _Notes),
        (_Moves,),
        (_Positions,),
        (_Moves, _Positions),
        (_Positions, _Moves),
        (_Moves, _Moves, _Positions),
        (_Positions, _Positions),
        (Visitor, _Moves),
    ],
    ids=lambda kinds: "-".join(kind.__name__ for kind in kinds),
)
def test_tee_tells_each_visitor_what_it_hears_alone(kinds: tuple[type[Visitor], ...]) -> None:
    """Whichever visitors listen to moves and positions (one: called directly, several:
    in turn, none), comments and NAGs too, and in whichever order, each hears what it
    hears walking alone."""
    text = (
        "{Start} 1. c7! $14 (1. Kb7? Rb5+ {check} 2. Ka6 Kb8) Rd6+ 2. Kb5 (2. Kc5 Rd1 3. Kxd1"
        " {passed over} $2) Rd5+ !? 3. Kb4 ; to the end\n *"
    )
    board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    visitors = [kind() for kind in kinds]
    walk(board, text, movetext.Tee(*visitors))
    for kind, visitor in zip(kinds, visitors, strict=True):
        alone = walk(board, text, kind())
        assert getattr(visitor, "seen", None) == getattr(alone, "seen", None)
        assert kind is Visitor or visitor.seen


# -- _push: board.push's board, quicker (issue 28) --------------------------------------

#: Positions for _push beside :data:`SAN_FENS`' standard ones: castling rights with no
#: rook or king to castle (python-chess cleans them at the first move), a promoted queen.
PUSH_FENS = [
    *(fen for fen in SAN_FENS if " w G" not in fen and " w BH" not in fen),
    "4k3/8/8/8/8/8/8/4K2R w KQkq - 0 1",
    "r3k3/8/8/8/8/8/8/4K3 b KQkq - 7 30",
    "4k3/8/8/8/8/8/8/Q~3K3 w - - 0 1",
    "r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w KQkq - 0 1",
]


def board_state(board: chess.Board) -> tuple[object, ...]:
    """Everything a push changes: bitboards, rights, clocks, the move and state stacks."""
    return (
        board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
        tuple(board.occupied_co), board.occupied, board.promoted, board.turn,
        board.castling_rights, board.ep_square, board.halfmove_clock, board.fullmove_number,
        list(board.move_stack), [vars(state) for state in board._stack],
    )  # fmt: skip


@settings(max_examples=examples(300), deadline=None)
@given(
    st.sampled_from(PUSH_FENS),
    st.lists(st.integers(min_value=0, max_value=1 << 16), max_size=60),
)
def test_push_agrees_with_python_chess(fen: str, choices: list[int]) -> None:
    """After random moves (each played by _push, none too), every legal move played by
    _push leaves the board as board.push does, and pop takes it back."""
    board = chess.Board(fen)
    for choice in choices:
        moves = list(board.legal_moves)
        if not moves:
            break
        theirs = board.copy()
        theirs.push(moves[choice % len(moves)])
        movetext._push(board, moves[choice % len(moves)])
        assert board_state(board) == board_state(theirs)
    before = board_state(board)
    for move in board.legal_moves:
        theirs = board.copy()
        theirs.push(move)
        movetext._push(board, move)
        assert board_state(board) == board_state(theirs), move.uci()
        assert board.pop() == move
        assert board_state(board) == before


def test_walk_positions_are_python_chess_pushes() -> None:
    """A walk's positions (plain moves by _push; castling, en passant by python-chess)
    are those python-chess's push gives, state stacks too, across a variation."""
    text = "1. e4 Nf6 2. e5 d5 3. exd6 (3. Bb5+ c6 4. exf6) exd6 4. Nf3 Be7 5. Bc4 O-O 6. O-O *"
    seen: list[tuple[object, ...]] = []

    class States(Visitor):
        def visit_position(self, board: chess.Board, node: int, parent: int, main: bool) -> None:
            seen.append(board_state(board))

    movetext.walk(chess.Board(), text, States())
    expected = []
    for moves in (["e4", "Nf6", "e5", "d5", "exd6"], ["e4", "Nf6", "e5", "d5", "Bb5+", "c6",
                  "exf6"], ["e4", "Nf6", "e5", "d5", "exd6", "exd6", "Nf3", "Be7", "Bc4", "O-O",
                  "O-O"]):  # fmt: skip
        board = chess.Board()
        for san in moves:
            board.push_san(san)
            expected.append(board_state(board))
    assert seen == expected[:5] + expected[9:12] + expected[17:]


def test_parse_san_leaves_variants_to_python_chess() -> None:
    """A variant's rules are its board's: in antichess, a capture is compulsory."""
    board = chess.variant.AntichessBoard("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w - -")
    with pytest.raises(chess.IllegalMoveError, match="illegal san: 'Nf3'"):
        movetext.parse_san(board, "Nf3")
    assert movetext.parse_san(board, "exd5") == chess.Move.from_uci("e4d5")


@pytest.mark.parametrize(
    ("fen", "sans"),
    [
        (chess.STARTING_FEN, ["e4", "e3", "Nf3", "Nc3", "a4", "Nh3", "Nf3+", "Ngf3", "b4"]),
        ("4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1", ["Rxe7", "Re5", "Kd2", "Kf1", "Kd1"]),
        ("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1", ["c7", "Kb7", "Ka7", "Kc7", "Kxa6"]),
        ("4k3/8/8/8/1b6/8/8/R3K2R w KQ - 0 1", ["Kf2", "Ke2", "Kd1", "Kf1"]),  # in check
        ("1n2k3/P1P5/8/8/8/8/p6p/4K1N1 w - - 0 1", ["axb8=Q", "a8=N", "cxb8=R+", "c8Q"]),
        ("4k3/8/8/Q3Q3/8/8/8/Q3K3 w - - 0 1", ["Qa5c3", "Q1c3", "Qec3", "Qa5b5", "Qh8"]),
    ],
)
def test_parse_san_plain_moves_need_no_python_chess(
    fen: str, sans: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Plain moves, hints and promotions, are read without Board.parse_san."""
    board = chess.Board(fen)
    expected = [board.parse_san(san) for san in sans]

    def refuse(self: chess.Board, san: str) -> chess.Move:
        raise AssertionError(f"python-chess asked for {san!r}")

    monkeypatch.setattr(chess.Board, "parse_san", refuse)
    assert [movetext.parse_san(board, san) for san in sans] == expected


@pytest.mark.parametrize(
    ("fen", "colour", "square", "expected"),
    [
        ("4k3/8/8/3p4/8/8/8/4K3 w - - 0 1", chess.BLACK, chess.E4, [chess.D5]),  # a pawn
        ("4k3/8/8/3p4/8/8/8/4K3 w - - 0 1", chess.BLACK, chess.D4, []),  # not ahead of it
        ("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1", chess.WHITE, chess.D5, [chess.E4]),
        ("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1", chess.WHITE, chess.D3, []),  # not behind it
        ("4k3/8/8/8/8/8/5N2/4K3 w - - 0 1", chess.WHITE, chess.E4, [chess.F2]),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", chess.WHITE, chess.D2, [chess.E1]),
        ("4k3/8/8/8/8/8/8/R2BK3 w - - 0 1", chess.WHITE, chess.A8, [chess.A1]),
        ("4k3/8/8/8/8/8/8/R2BK3 w - - 0 1", chess.WHITE, chess.H5, [chess.D1]),
        ("4k3/8/8/8/8/8/8/R2BK3 w - - 0 1", chess.WHITE, chess.H1, []),  # the rook blocked
        ("4k3/8/8/8/8/8/8/R2BK3 w - - 0 1", chess.WHITE, chess.H7, []),  # no line to it
        ("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1", chess.WHITE, chess.H8, [chess.A1]),  # both lines
        ("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1", chess.BLACK, chess.H8, []),  # not the colour's
    ],
)
def test_attackers_of_a_square(fen: str, colour: bool, square: int, expected: list[int]) -> None:
    board = chess.Board(fen)
    found = movetext.attackers(board, colour, square, board.occupied)
    assert sorted(chess.SquareSet(found)) == expected


@given(boards(), st.integers(0, 63), st.integers(0, (1 << 64) - 1), st.booleans())
@settings(max_examples=examples(300))
def test_attackers_are_python_chess_attackers_mask(
    board: chess.Board, square: int, removed: int, colour: bool
) -> None:
    """Every kind of man, either colour, and an occupancy with men taken away."""
    occupied = board.occupied & ~removed
    expected = board.attackers_mask(colour, square, occupied)
    assert movetext.attackers(board, colour, square, occupied) == expected


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1. c7! {the point} Rd6+ 2. Kb5! $1 (2. Kc5?) 1-0", []),
        ("1... Rd6+ 2. O-O-O 0-0 -- e8=Q+ ; a comment\n%escape\n*", []),
        ("1. Rh3+ Zz9 2. Kb2", [(8, "Zz9")]),  # '9' alone would read as a move number
        ("1.c7 Kb9 2.Kb5x", [(5, "Kb9"), (9, "2.Kb5x")]),
        ("hello world", [(0, "hello"), (6, "world")]),
        ("1. e4 }", [(6, "}")]),
    ],
)
def test_unread_names_the_words_walk_passes_over(text: str, words: list[tuple[int, str]]) -> None:
    assert unread(text) == words
