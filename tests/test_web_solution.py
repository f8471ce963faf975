"""A solution laid out for its page: an indented tree of rows (studydb.web.solution)."""

from __future__ import annotations

import doctest
import random

import chess
import chess.pgn
import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import studydb.web.solution
from studydb.render import SolutionToken, solution_tokens
from studydb.soundness import Annotation
from studydb.web.solution import (
    MAX_INDENT,
    describe_position,
    full_number,
    lay_out,
    note_of,
    other_headers,
)

SAAVEDRA = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")


def rows_of(movetext: str, annotations: dict | None = None) -> list[tuple[int, list[str]]]:
    """Each row as (depth, its moves as shown: number, SAN, glyphs, marks, notes, comments)."""
    shown = []
    for row in lay_out(solution_tokens(SAAVEDRA, movetext), annotations):
        items = [f"{{{c}}}" for c in row.comments]
        for m in row.moves:
            text = m.number + m.san + m.glyphs + "".join(f" {g.shown}" for g in m.marks)
            if m.note:
                text += f" ({m.note.text})"
            items.append(text + "".join(f" {{{c}}}" for c in m.comments))
        shown.append((row.depth, items))
    return shown


@pytest.mark.parametrize(
    ("movetext", "expected"),
    [
        ("1. c7 Rd6+ 2. Kb5 *", [(0, ["1.c7", "Rd6+", "2.Kb5"])]),
        (
            "1. c7 (1. Kb7 Rb5+) 1... Rd6+ 2. Kb5 *",
            [(0, ["1.c7"]), (1, ["1.Kb7", "Rb5+"]), (0, ["1...Rd6+", "2.Kb5"])],
        ),
        (  # a variation inside a variation: three levels, each resumes numbered
            "1. c7 (1. Kb7 Rb5+ (1... Rd7+ 2. Kb8) 2. Ka7) Rd6+ *",
            [
                (0, ["1.c7"]),
                (1, ["1.Kb7", "Rb5+"]),
                (2, ["1...Rd7+", "2.Kb8"]),
                (1, ["2.Ka7"]),
                (0, ["1...Rd6+"]),
            ],
        ),
        (  # a comment interrupts: Black's move gets its number
            "1. c7 {the pawn runs} Rd6+ 2. Kb5 *",
            [(0, ["1.c7 {the pawn runs}", "1...Rd6+", "2.Kb5"])],
        ),
        (  # NAGs: move assessments on the move, the others after it as symbols
            "1. c7 $1 Rd6+ $143 2. Kb5 $18 $86 *",
            [(0, ["1.c7!", "Rd6+ ≤", "2.Kb5 +− White has poor knight placement"])],
        ),
        ("{intro} 1. c7 *", [(0, ["{intro}", "1.c7"])]),
        ("1. c7 $3 $5 *", [(0, ["1.c7!!!?"])]),
    ],
)
def test_rows(movetext: str, expected: list[tuple[int, list[str]]]) -> None:
    assert rows_of(movetext) == expected


def test_a_position_glyph_numbers_the_next_move() -> None:
    # Rd6+ ≤ interrupts the line: White's reply is numbered anyway, Black's too.
    (row,) = rows_of("1. c7 Rd6+ $143 2. Kb5 $10 Rd5+ *")
    assert row[1] == ["1.c7", "Rd6+ ≤", "2.Kb5 =", "2...Rd5+"]


def test_annotations_interrupt_and_not_checked_is_silent() -> None:
    annotations = {
        1: Annotation(ply=1, number="1.", san="c7", text="draw", flags=()),
        2: Annotation(ply=2, number="1...", san="Rd6+", text="not checked", flags=()),
        3: Annotation(
            ply=3, number="2.", san="Kb5", text="loss", flags=("error",), first_error=True
        ),
    }
    (row,) = rows_of("1. c7 Rd6+ 2. Kb5 Rd5+ *", annotations)
    assert row[1] == ["1.c7 (draw)", "1...Rd6+", "2.Kb5 (loss)", "2...Rd5+"]
    rows = lay_out(solution_tokens(SAAVEDRA, "1. c7 Rd6+ 2. Kb5 *"), annotations)
    notes = [m.note for m in rows[0].moves]
    assert notes[1] is None  # "not checked" says nothing next to a move
    assert notes[2] is not None and (notes[2].kind, notes[2].first_error) == ("error", True)


@pytest.mark.parametrize(
    ("text", "flags", "first_error", "kind"),
    [
        ("win, DTZ 5", (), False, "plain"),
        ("win, DTZ 3; also Kc5 DTZ 3", ("dual",), False, "dual"),
        ("loss; ERROR: throws the win away", ("error",), True, "error"),
        ("engine +3.20, depth 12", (), False, "engine"),
        ("engine -1.00, depth 12; ENGINE DOUBT: x", ("doubt",), False, "doubt"),
    ],
)
def test_note_kinds(text: str, flags: tuple[str, ...], first_error: bool, kind: str) -> None:
    note = note_of(Annotation(1, "1.", "c7", text, flags, first_error))
    assert note is not None and (note.kind, note.text, note.first_error) == (
        kind,
        text,
        first_error,
    )


def test_deep_nesting_stays_flat_and_indents_at_most_max_indent() -> None:
    depth = 1500
    tokens = [SolutionToken("move", "c7", 1, 0, None, "8/2P5/1K6/3r4/8/8/8/k7 b - - 0 1")]
    for level in range(depth):
        tokens.append(SolutionToken("open"))
        tokens.append(
            SolutionToken("move", "Kb7", level + 2, 0, None, "8/1KP5/8/3r4/8/8/8/k7 b - - 0 1")
        )
    tokens += [SolutionToken("close")] * depth
    rows = lay_out(tokens)
    assert len(rows) == depth + 1
    assert [r.depth for r in rows] == list(range(depth + 1))
    assert max(r.indent for r in rows) == MAX_INDENT


def random_game(seed: int) -> chess.pgn.Game:
    """A game with random moves, variations, comments and NAGs."""
    rng = random.Random(seed)
    game = chess.pgn.Game()
    stack: list[chess.pgn.GameNode] = [game]
    for _ in range(rng.randrange(1, 40)):
        node = rng.choice(stack)
        board = node.board()
        moves = list(board.legal_moves)
        if not moves:
            continue
        child = (
            node.add_variation(rng.choice(moves))
            if not any(v.move in moves for v in node.variations) or rng.random() < 0.3
            else None
        )
        if child is None:
            continue
        if rng.random() < 0.3:
            child.nags.add(rng.choice([1, 2, 10, 18, 143, 86]))
        if rng.random() < 0.2:
            child.comment = "note"
        stack.append(child)
    return game


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 2**32))
def test_every_move_once_in_reading_order_and_every_row_starts_numbered(seed: int) -> None:
    game = random_game(seed)
    tokens = solution_tokens(game.board(), game.accept(chess.pgn.StringExporter(headers=False)))
    rows = lay_out(tokens)
    laid = [m.node for row in rows for m in row.moves]
    assert laid == [t.node for t in tokens if t.kind == "move"]
    for row in rows:
        if row.moves:
            assert row.moves[0].number, row
        for move in row.moves:
            assert move.label.startswith(full_number(move.fen))


@pytest.mark.parametrize(
    ("fen", "words"),
    [
        (
            "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1",
            "White Kb6, Pc6; Black Ka1, Rd5 (2+2); White to move",
        ),
        (
            chess.STARTING_FEN,
            "White Ke1, Qd1, Ra1, Rh1, Bc1, Bf1, Nb1, Ng1, Pa2, Pb2, Pc2, Pd2, Pe2, Pf2, Pg2, "
            "Ph2; Black Ke8, Qd8, Ra8, Rh8, Bc8, Bf8, Nb8, Ng8, Pa7, Pb7, Pc7, Pd7, Pe7, Pf7, "
            "Pg7, Ph7 (16+16); White to move",
        ),
        ("8/8/8/8/8/8/8/K1k5 b - - 0 1", "White Ka1; Black Kc1 (1+1); Black to move"),
    ],
)
def test_describe_position(fen: str, words: str) -> None:
    assert describe_position(fen) == f"{words}; FEN {fen}"


@pytest.mark.parametrize(
    ("headers", "shown", "kept"),
    [
        ({"Site": "?", "Round": "?", "White": "?", "Black": "+"}, [], []),
        ({"Event": "Glasgow Weekly Citizen", "Source": "x"}, ["Glasgow Weekly Citizen"], []),
        ({"Event": "2.p wp01 tp23"}, ["wp01 tp23"], []),
        ({"Event": "Tourney"}, ["Other"], [("Event", "Tourney")]),
        ({"Date": "1985.??.??"}, ["1985"], []),
        ({"Date": "1985.03.02"}, ["1985"], [("Date", "1985.03.02")]),
        ({"FEN": "8/8/8/8/8/8/8/K1k5 w - - 0 1", "SetUp": "1", "Composer2": "A"}, [], []),
        ({"Annotator": "Roycroft", "PlyCount": "19"}, [], [("Annotator", "Roycroft")]),
        ({"White": "Réti, Richard"}, ["Réti, Richard"], []),
    ],
)
def test_other_headers(headers: dict, shown: list[str], kept: list[tuple[str, str]]) -> None:
    assert other_headers(headers, shown=shown) == kept


def test_doctests() -> None:
    result = doctest.testmod(studydb.web.solution)
    assert result.attempted > 0 and result.failed == 0


def test_an_illegal_move_in_a_variation_is_a_note_where_it_was() -> None:
    board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    rows = lay_out(solution_tokens(board, "1. c7 (1. Kb7 Rd7+ 2. Qh1 Rxc7+) Rd6+ *"))
    assert [(row.depth, [m.san for m in row.moves]) for row in rows] == [
        (0, ["c7"]),
        (1, ["Kb7", "Rd7+"]),
        (0, ["Rd6+"]),
    ]
    assert rows[1].moves[-1].comments == ["illegal move, not played: 2. Qh1 Rxc7+"]
