"""``studydb.render``: the solution laid out as tokens for the study page, and diagrams."""

from __future__ import annotations

import doctest
import io
from dataclasses import replace

import chess
import chess.pgn
import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import studydb.render
from studydb.render import movetext, solution_tokens, svg_diagram

SAAVEDRA = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("*", []),
        ("{just a comment} *", ["{just a comment}"]),
        ("1. c7 Rd6+ *", ["1.c7", "Rd6+"]),
        ("1. c7 {push} Rd6+ *", ["1.c7", "{push}", "1...Rd6+"]),
        ("1. c7 (1. Kb7 Rb5+) Rd6+ *", ["1.c7", "(", "1.Kb7", "Rb5+", ")", "1...Rd6+"]),
        (
            "1. c7 Rd6+ (1... Rd1 2. c8=Q) 2. Kb5 *",
            ["1.c7", "Rd6+", "(", "1...Rd1", "2.c8=Q", ")", "2.Kb5"],
        ),
        ("1. c7 $1 Rd6+ $2 2. Kb5 $14 $13 *", ["1.c7 $1", "Rd6+ $2", "2.Kb5 $13 $14"]),
        ("1. c7 ({before} 1. Kc7) *", ["1.c7", "(", "{before}", "1.Kc7", ")"]),
        ("1. c7! $1 ?? Rd6+ *", ["1.c7 $1 $4", "Rd6+"]),  # NAGs once each, in order
        ("1. c7 (1. Kb7 (1. Ka7) Rb5+) Rd6+ *", ["1.c7", "(", "1.Kb7", "(", "1.Ka7", ")",
                                                 "1...Rb5+", ")", "1...Rd6+"]),  # as written
        ("1. c7 (1. Kb7 Kxc7) (1. Kc7 Rd1) Rd6+ *", ["1.c7", "(", "1.Kb7", "<1... Kxc7>", ")",
                                                    "(", "1.Kc7", "Rd1", ")", "1...Rd6+"]),
        # Kxc7 is illegal: shown where it was
        ("1. c7 Rd6+ 2. Kb5 (( 2. Kb7 )) *", ["1.c7", "Rd6+", "2.Kb5", "(", ")"]),
        ("1. c7 Rd6+ (1... Rd1 2. c8=Q", ["1.c7", "Rd6+", "(", "1...Rd1", "2.c8=Q", ")"]),
    ],
)  # fmt: skip
def test_tokens_in_reading_order(text: str, expected: list[str]) -> None:
    tokens = solution_tokens(SAAVEDRA, text)
    shown = []
    for t in tokens:
        if t.kind == "move":
            shown.append(t.number + t.text + "".join(f" ${nag}" for nag in t.nags))
        elif t.kind == "comment":
            shown.append("{" + t.text + "}")
        elif t.kind == "illegal":
            shown.append("<" + t.text + ">")
        else:
            shown.append("(" if t.kind == "open" else ")")
    assert shown == expected


@st.composite
def games(draw: st.DrawFn) -> chess.pgn.Game:
    """A game from the start position with random moves and side lines."""
    game = chess.pgn.Game()
    frontier = [game]
    for _ in range(draw(st.integers(min_value=0, max_value=25))):
        node = draw(st.sampled_from(frontier))
        moves = list(node.board().legal_moves)
        if not moves:
            continue
        move = draw(st.sampled_from(moves))
        if node.has_variation(move):
            continue
        child = node.add_variation(move, comment=draw(st.sampled_from(["", "!?", "<b>x</b>"])))
        frontier.append(child)
    return game


@pytest.mark.slow
@settings(max_examples=examples(80), deadline=None)
@given(games())
def test_every_move_follows_its_parent_and_links_to_its_main_line(game: chess.pgn.Game) -> None:
    text = game.accept(chess.pgn.StringExporter(headers=False))
    moves = [t for t in solution_tokens(game.board(), text) if t.kind == "move"]
    fens = {0: game.board().fen()}
    for token in moves:
        assert token.parent in fens  # a move comes after the move it follows
        board = chess.Board(fens[token.parent])
        board.push(chess.Move.from_uci(token.uci))
        assert board.fen() == token.fen
        fens[token.node] = token.fen
    count = sum(1 for _ in _nodes(game)) - 1
    assert [t.node for t in moves] == list(range(1, count + 1))  # each move once
    by_node = {t.node: t for t in moves}
    for token in moves:
        if token.next is not None:
            assert by_node[token.next].parent == token.node
    children = {t.parent for t in moves}
    assert all((t.next is None) == (t.node not in children) for t in moves)


def _nodes(node: chess.pgn.GameNode):
    yield node
    for child in node.variations:
        yield from _nodes(child)


@settings(max_examples=examples(80), deadline=None)
@given(games())
def test_movetext_reads_back_as_the_same_game(game: chess.pgn.Game) -> None:
    """The readable movetext, read by python-chess, is the game it was written from."""
    text = game.accept(chess.pgn.StringExporter(headers=False))
    again = chess.pgn.read_game(io.StringIO(movetext(game.board(), text) or "*"))
    assert again is not None
    assert [(n.move, " ".join(n.comment.split())) for n in _nodes(again) if n.move] == [
        (n.move, n.comment) for n in _nodes(game) if n.move
    ]


def test_movetext_wraps_and_numbers_as_pgn_does() -> None:
    text = "{start} 1. c7 $1 {only move} (1. Kb7 Rb5+) Rd6+ $14 2. Kb5 " + "Rd5+ 3. Kb4 Rd4+ " * 6
    shown = movetext(SAAVEDRA, text + "1/2-1/2")
    assert shown.startswith("{ start } 1. c7! { only move } ( 1. Kb7 Rb5+ ) 1... Rd6+ $14 2. Kb5")
    assert shown.endswith("1/2-1/2")
    assert max(map(len, shown.splitlines())) <= 80 < len(shown)
    assert movetext(SAAVEDRA, "*") == movetext(SAAVEDRA, "") == ""
    assert movetext(SAAVEDRA, "1. c7") == "1. c7 *"


def test_svg_diagram_options() -> None:
    board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    plain = svg_diagram(board)
    assert svg_diagram(board, lastmove=chess.Move.from_uci("c6c7")) != plain
    assert svg_diagram(board, flipped=True) != plain
    assert ">a<" not in svg_diagram(board, coordinates=False) and "a</text>" not in svg_diagram(
        board, coordinates=False
    )
    assert 'width="120"' in svg_diagram(board, size=120)


def test_doctests() -> None:
    result = doctest.testmod(studydb.render)
    assert result.attempted > 0
    assert result.failed == 0


SAAVEDRA_FEN = "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # In a variation: the illegal move and the rest of its line, where they were.
        (
            "1. c7 (1. Kb7 Rd7+ 2. Qh1 Rxc7+) Rd6+ *",
            "1. c7 ( 1. Kb7 Rd7+ { illegal move, not played: 2. Qh1 Rxc7+ } ) 1... Rd6+ *",
        ),
        # At the start of a variation, with a comment and a sub-variation after it.
        (
            "1. c7 (1. Rd8 {why} (1. Qa1)) Rd6+ *",
            "1. c7 ( { illegal move, not played: 1. Rd8 why (1. Qa1) } ) 1... Rd6+ *",
        ),
        # On the main line, a Black move.
        ("1. c7 Qd5 2. c8=Q *", "1. c7 { illegal move, not played: 1... Qd5 2. c8=Q } *"),
    ],
)
def test_an_illegal_move_is_shown_marked_where_it_was(text: str, shown: str) -> None:
    assert movetext(chess.Board(SAAVEDRA_FEN), text) == shown


def _part_reference(
    tokens: list[studydb.render.SolutionToken], first: int, last: int
) -> list[studydb.render.SolutionToken]:
    """Moves ``first`` to ``last`` cut from the whole solution's tokens: from the first
    (the start, for move 1) up to the next move, an ``open`` first for each open variation."""
    starts = [i for i, token in enumerate(tokens) if token.kind == "move"]
    begin = 0 if first == 1 else starts[first - 1]
    end = starts[last] if last < len(starts) else len(tokens)
    depth = sum(1 if t.kind == "open" else -1 if t.kind == "close" else 0 for t in tokens[:begin])
    return [studydb.render.SolutionToken(kind="open")] * depth + tokens[begin:end]


@settings(max_examples=examples(60), deadline=None)
@given(game=games(), data=st.data())
def test_a_part_is_the_whole_solutions_tokens_cut_there(game: chess.pgn.Game, data) -> None:
    """solution_part writes out one window of moves as the whole walk would, and counts
    the moves up to ``most``."""
    text = game.accept(chess.pgn.StringExporter(headers=False))
    text = text.replace(")", ") {between}", 1)  # a comment after a variation, if any
    whole = solution_tokens(game.board(), text)
    moves = sum(1 for t in whole if t.kind == "move")
    first = data.draw(st.integers(1, max(moves, 1)), label="first")
    last = data.draw(st.integers(first, max(moves, first)), label="last")
    most = data.draw(st.integers(last, moves + 2), label="most")
    part = studydb.render.solution_part(game.board(), text, first=first, last=last, most=most)
    expected = _part_reference(whole, first, last) if moves else whole
    # A move's next past ``most`` is not reached.
    expected = [replace(t, next=None) if (t.next or 0) > most else t for t in expected]
    assert part.tokens == expected
    assert (part.moves, part.more) == (min(moves, most), moves > most)


@pytest.mark.parametrize("first", [1, 2, 3, 4])
def test_a_part_keeps_illegal_moves_and_nags_where_they_are(first: int) -> None:
    text = "1. c7 $1 {a} (1. Kb7 Kxc7 2. Ka8) (1. Kc7 $2 Rd1) Rd6+ 2. Kb5 *"
    whole = solution_tokens(SAAVEDRA, text)
    moves = sum(1 for t in whole if t.kind == "move")
    for last in range(first, moves + 1):
        part = studydb.render.solution_part(SAAVEDRA, text, first=first, last=last, most=moves)
        assert part.tokens == _part_reference(whole, first, last), (first, last)
