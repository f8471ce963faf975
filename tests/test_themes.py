"""studydb.themes: every theme on crafted studies, positive and negative, and its symmetries."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.syzygy
import pytest
from conftest import require
from hypothesis import given, settings
from hypothesis import strategies as st

from studydb import themes
from studydb.db.classify import index_game
from studydb.themes import PGN, Theme

#: (name, FEN, movetext, stipulation, the themes found as ``Theme.describe`` gives them).
CRAFTED = [
    # mate / stalemate / stalemate-line
    ("mate", "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", "1. Qf8#", None, ["mate ply 1"]),
    ("no mate: check only", "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", "1. Qa1+ Kg8", None, []),
    ("stalemate", "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1", "1. Qc7", None, ["stalemate ply 1"]),
    (
        "stalemate only in a variation",
        "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1",
        "1. Qc8# (1. Qc7 {stalemate})",
        None,
        ["mate ply 1", "stalemate-line ply 1"],
    ),
    (
        "stalemate in a nested variation, after its sub-variation",
        "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1",
        "1. Qc8# (1. Qg1 Kb8 2. Qg8#) (1. Qc2 (1. Qc3 Kb8) 1... Kb8 2. Qc4 (2. Kc6 Ka7)"
        " 2... Ka8 3. Qc7) (1. Qh1 Kb8 2. Qh8#)",
        None,
        ["mate ply 1", "stalemate-line ply 5"],
    ),
    (
        "a variation that does not end in stalemate",
        "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1",
        "1. Qc8# (1. Qc2 Kb8)",
        None,
        ["mate ply 1"],
    ),
    (
        "the main line's stalemate is no stalemate-line",
        "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1",
        "1. Qc7 (1. Qc2 Kb8 2. Qc7+ Ka8 3. Kb5 {stalemate? no: Kc6 would be})",
        None,
        ["stalemate ply 1"],
    ),
    # underpromotion
    (
        "underpromotion to a rook",
        "8/2P5/8/8/8/8/8/k1K5 w - - 0 1",
        "1. c8=R Ka2",
        None,
        ["underpromotion ply 1 (R)"],
    ),
    (
        "underpromotion to a knight",
        "8/2P5/8/8/8/8/8/k1K5 w - - 0 1",
        "1. c8=N Ka2",
        None,
        ["underpromotion ply 1 (N)"],
    ),
    (
        "underpromotion to a bishop",
        "8/2P5/8/8/8/8/8/k1K5 w - - 0 1",
        "1. c8=B Ka2",
        None,
        ["underpromotion ply 1 (B)"],
    ),
    ("promotion to a queen", "8/2P5/8/8/8/8/8/k1K5 w - - 0 1", "1. c8=Q Ka2", None, []),
    ("the defender underpromotes", "K7/8/8/8/8/8/2p5/k7 w - - 0 1", "1. Kb7 c1=N", None, []),
    (
        "underpromotion in a variation only",
        "8/2P5/8/8/8/8/8/k1K5 w - - 0 1",
        "1. c8=Q (1. c8=N Ka2) 1... Ka2",
        None,
        [],
    ),
    # excelsior
    (
        "excelsior",
        "8/8/8/8/8/8/1P5k/K7 w - - 0 1",
        "1. b4 Kg2 2. b5 Kf2 3. b6 Ke2 4. b7 Kd2 5. b8=Q",
        None,
        ["excelsior ply 9 (b2-b8)"],
    ),
    (
        "excelsior with captures, Black solving",
        "k7/6p1/5P2/4P3/8/8/8/K7 b - - 0 1",
        "1... gxf6 2. Ka2 fxe5 3. Ka3 e4 4. Ka4 e3 5. Ka5 e2 6. Kb6 e1=Q",
        None,
        ["excelsior ply 11 (g7-e1)"],
    ),
    (
        "the pawn is captured",
        "k7/6p1/5P2/4P3/8/8/8/7K b - - 0 1",
        "1... gxf6 2. Kg2 fxe5 3. Kf3 e4+ 4. Kxe4",
        None,
        [],
    ),
    (
        "the pawn did not start on its second rank",
        "8/8/8/8/8/1P6/7k/K7 w - - 0 1",
        "1. b4 Kg2 2. b5 Kf2 3. b6 Ke2 4. b7 Kd2 5. b8=Q",
        None,
        [],
    ),
    (
        "another pawn promotes",
        "8/8/8/8/2P5/8/1P5k/K7 w - - 0 1",
        "1. c5 Kg2 2. c6 Kf2 3. c7 Ke2 4. c8=Q",
        None,
        [],
    ),
    # positional draw and perpetual check
    (
        "positional draw",
        "7k/8/8/8/8/8/8/5B1K w - - 0 1",
        "1. Kg1 Kg8 2. Kh1 Kh8",
        "draw",
        ["switchback ply 3 (Kh1)", "positional-draw ply 4 (ply 0)"],
    ),
    (
        "a repetition in a win study",
        "7k/8/8/8/8/8/8/5B1K w - - 0 1",
        "1. Kg1 Kg8 2. Kh1 Kh8",
        "win",
        ["switchback ply 3 (Kh1)"],
    ),
    (
        "a draw study without repetition",
        "7k/8/8/8/8/8/8/5B1K w - - 0 1",
        "1. Kg1 Kg8 2. Kf2 Kh8",
        "draw",
        [],
    ),
    (
        "perpetual check",
        "7k/6p1/7p/8/8/7K/8/q3Q3 w - - 0 1",
        "1. Qe8+ Kh7 2. Qe4+ Kh8 3. Qe8+ Kh7",
        "draw",
        [
            "positional-draw ply 5 (ply 1)",
            "perpetual-check ply 5 (White)",
            "switchback ply 5 (Qe8)",
        ],
    ),
    (
        "a repetition where one move is not check",
        "7k/6p1/7p/8/8/7K/8/q3Q3 w - - 0 1",
        "1. Qe8+ Kh7 2. Qe2 Kh8 3. Qe8+ Kh7",
        "draw",
        ["positional-draw ply 5 (ply 1)", "switchback ply 5 (Qe8)"],
    ),
    # switchback
    (
        "switchback",
        "7k/8/8/8/8/8/8/3R3K w - - 0 1",
        "1. Rd5 Kg8 2. Rd1 Kh8",
        None,
        ["switchback ply 3 (Rd1)"],
    ),
    ("no return", "7k/8/8/8/8/8/8/3R3K w - - 0 1", "1. Rd5 Kg8 2. Rd8+ Kh7", None, []),
    ("the defender returns", "7k/8/8/8/8/8/8/3R3K w - - 0 1", "1. Rd5 Kg8 2. Rd6 Kh8", None, []),
    (
        "a castled rook returns",
        "k7/8/8/8/8/8/8/4K2R w K - 0 1",
        "1. O-O Kb8 2. Rf2 Ka8 3. Rf1 Kb8",
        None,
        ["switchback ply 5 (Rf1)"],
    ),
    # domination
    ("domination", "7k/8/8/8/8/3K4/8/n7 w - - 0 1", "1. Kc3", None, ["domination ply 1 (na1)"]),
    ("a flight square stays free", "7k/8/8/8/8/3K4/8/n7 w - - 0 1", "1. Kd4", None, []),
    (
        "a knight dominates a bishop",
        "8/8/8/6k1/7b/8/4KN2/8 w - - 0 1",
        "1. Nh1",
        None,
        ["domination ply 1 (bh4)"],
    ),
    ("g3 stays free", "8/8/8/6k1/7b/8/4KN2/8 w - - 0 1", "1. Nd3", None, []),
]


def _movetext(text: str) -> str:
    return text + " *"


@pytest.mark.parametrize(
    ("fen", "movetext", "stipulation", "expected"),
    [case[1:] for case in CRAFTED],
    ids=[case[0] for case in CRAFTED],
)
def test_crafted_studies(fen: str, movetext: str, stipulation: str | None, expected: list[str]):
    errors, _, found = index_game(_movetext(movetext), fen, stipulation=stipulation)
    assert errors == []
    assert [t.describe() for t in found] == expected


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        ("7k/8/8/8/8/2K5/8/n7 b - - 0 1", "na1"),
        ("7k/8/8/8/3K4/8/8/n7 b - - 0 1", None),  # b3 and c2 are free
        ("7k/8/8/8/8/2K5/8/n6R b - - 0 1", None),  # the defender is in check
        ("n7/1k6/2R5/8/8/8/8/7K b - - 0 1", None),  # Rxb6 Kxb6: no material won
        ("n6k/2p5/1p6/8/8/8/8/K7 b - - 0 1", None),  # the knight has no move
        ("7k/8/8/8/8/8/1P6/n1K5 b - - 0 1", None),  # Nxb2 wins a pawn: Kxb2 gives a knight
        ("7k/8/8/8/8/8/8/nRK5 b - - 0 1", "na1"),  # Nb3+: Rxb3
        ("6k1/8/8/8/8/8/8/qNK2R2 b - - 0 1", None),  # Qxb1+ Kxb1: a queen for a knight
        ("k7/8/8/8/8/1N6/8/1q1K4 b - - 0 1", None),  # queen flights: c2+ is free
    ],
)
def test_domination_rule(fen: str, expected: str | None):
    assert themes.dominated_piece(chess.Board(fen)) == expected


# -- mutual zugzwang -------------------------------------------------------------------


@pytest.fixture(scope="module")
def tables(shared_dir: Path):
    path = shared_dir / "syzygy"
    require((path / "KPvK.rtbw").exists(), f"no KPvK table in {path}")
    with chess.syzygy.open_tablebase(str(path)) as tablebase:
        yield tablebase


def _moves(board: chess.Board, sans: str) -> list[chess.Move]:
    board = board.copy()
    moves = []
    for san in sans.split():
        if san[0].isdigit():
            continue
        moves.append(board.push_san(san))
    return moves


@pytest.mark.parametrize(
    ("fen", "sans", "expected"),
    [
        # K+P v K, the kings in opposition: White to move draws, Black to move loses.
        ("8/8/3k4/8/3K4/3P4/8/8 w - - 0 1", "", ["mutual-zugzwang ply 0 (half)"]),
        # A tempo move reaches it: 1.d3! with Black to move.
        (
            "8/8/3k4/8/3K4/8/3P4/8 w - - 0 1",
            "1. d3 Kc6 2. Ke5",
            ["mutual-zugzwang ply 1 (half)"],
        ),
        # The trebuchet (K+P v K+P): whoever moves loses.
        ("8/8/8/3Kp3/4Pk2/8/8/8 b - - 0 1", "", ["mutual-zugzwang ply 0 (full)"]),
        # Passing would not change the result: K+Q v K wins with either side to move.
        ("8/8/8/3k4/8/8/8/KQ6 w - - 0 1", "1. Qb5+ Kd4 2. Kb2", []),
        # K+P v K with a spare tempo (the pawn on d2): no zugzwang.
        ("8/8/3k4/8/3K4/8/3P4/8 b - - 0 1", "", []),
        # Black in check: with White to move the position would not be legal.
        ("8/8/8/8/8/2k5/8/K1Q5 b - - 0 1", "", []),
    ],
)
def test_mutual_zugzwang_from_the_tables(tables, fen: str, sans: str, expected: list[str]):
    board = chess.Board(fen)
    found = themes.mutual_zugzwangs(board, _moves(board, sans), tables.probe_wdl, men=5)
    assert [t.describe() for t in found] == expected


def test_mutual_zugzwang_beyond_the_tables_is_not_probed(tables):
    board = chess.Board("8/8/3k4/8/3K4/3P4/8/8 w - - 0 1")
    assert themes.mutual_zugzwangs(board, [], tables.probe_wdl, men=2) == []


def test_mutual_zugzwang_needs_a_move_for_either_side(tables):
    # Black to move is stalemated: not a zugzwang, whatever the values say.
    board = chess.Board("k7/P7/K7/8/8/8/8/8 b - - 0 1")
    assert board.is_stalemate()
    assert themes.zugzwang_kind(board, tables.probe_wdl, men=5) is None


def test_missing_table_is_no_zugzwang(tables):
    board = chess.Board("8/8/3k4/8/3K4/3P4/3p4/8 w - - 0 1")  # KPvKP with a 5th man? no: 4
    board.set_piece_at(chess.H5, chess.Piece(chess.ROOK, chess.WHITE))  # KRPvKP: no table
    assert themes.zugzwang_kind(board, tables.probe_wdl, men=5) is None


_KPK_SQUARES = st.integers(0, 63)


@settings(max_examples=200, deadline=None)
@given(
    white_king=_KPK_SQUARES, black_king=_KPK_SQUARES, pawn=st.integers(8, 55), white=st.booleans()
)
def test_mutual_zugzwang_symmetries(tables, white_king, black_king, pawn, white):
    """Same kind with the other side to move, colours reversed, or mirrored left to right."""
    if len({white_king, black_king, pawn}) < 3:
        return
    board = chess.Board(None)
    board.set_piece_at(white_king, chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(black_king, chess.Piece(chess.KING, chess.BLACK))
    board.set_piece_at(pawn, chess.Piece(chess.PAWN, chess.WHITE))
    board.turn = white
    if not board.is_valid():
        return
    kind = themes.zugzwang_kind(board, tables.probe_wdl, men=5)
    other = board.copy()
    other.turn = not board.turn
    mirrored = board.transform(chess.flip_horizontal)
    for image in (other, board.mirror(), mirrored):
        if image.is_valid():
            assert themes.zugzwang_kind(image, tables.probe_wdl, men=5) == kind


# -- symmetries of the main-line themes ---------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_themes_keep_their_names_with_the_colours_reversed(data):
    """A random game's themes have the same names and plies after Board.mirror()."""
    board = chess.Board("r3k2r/1P4p1/8/8/8/8/1p4P1/R3K2R w KQkq - 0 1")
    moves = []
    for _ in range(data.draw(st.integers(0, 30))):
        legal = sorted(board.legal_moves, key=chess.Move.uci)
        if not legal:
            break
        move = data.draw(st.sampled_from(legal))
        moves.append(move)
        board.push(move)
    start = chess.Board("r3k2r/1P4p1/8/8/8/8/1p4P1/R3K2R w KQkq - 0 1")
    stipulation = data.draw(st.sampled_from(["draw", "win"]))
    found = themes.find_themes(start, moves, stipulation=stipulation)
    flipped = themes.find_themes(
        start.mirror(), [_mirror(m) for m in moves], stipulation=stipulation
    )
    assert [(t.name, t.ply) for t in found] == [(t.name, t.ply) for t in flipped]


def _mirror(move: chess.Move) -> chess.Move:
    return chess.Move(
        chess.square_mirror(move.from_square), chess.square_mirror(move.to_square), move.promotion
    )


# -- themes the tags name -------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Keywords": "Excelsior, Switchback"}, ["excelsior", "switchback"]),
        ({"keywords": '["Excelsior", "Minor promotion"]'}, ["excelsior", "underpromotion"]),
        ({"Theme": "Pawn promotion"}, ["pawn-promotion"]),
        (
            {"Themes": "Reciprocal zugzwang; Positional draw | Perpetual"},
            ["mutual-zugzwang", "positional-draw", "perpetual-check"],
        ),
        ({"Keywords": "- Domination\n- Model mate"}, ["domination", "mate"]),
        ({"Keywords": " , ;"}, []),
        ({"Event": "Excelsior"}, []),
    ],
)
def test_tag_themes(headers: dict[str, str], expected: list[str]):
    found = themes.tag_themes(headers)
    assert [t.name for t in found] == expected
    assert all(t.source == PGN and t.ply is None for t in found)


def test_a_long_keyword_is_cut():
    (theme,) = themes.tag_themes({"Keywords": "x" * 100})
    assert theme == Theme("x" * themes.MAX_NAME, source=PGN)


@pytest.mark.parametrize(
    "fen",
    [
        "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1",
        "k7/8/1K6/8/8/8/8/2Q5 b - - 0 1",
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
        "7k/5Q2/8/8/8/8/p7/6K1 b - - 0 1",
        "8/8/8/8/8/8/8/k1K5 b - - 0 1",
        "4k3/4P3/4K3/8/8/8/8/8 b - - 0 1",
    ],
)
def test_is_stalemate_agrees_with_python_chess(fen: str):
    board = chess.Board(fen)
    assert themes.is_stalemate(board) == board.is_stalemate()


def test_the_filters_know_every_theme():
    from studydb.filters import THEME_NAMES

    assert THEME_NAMES == themes.THEMES
