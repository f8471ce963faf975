"""The position keys and the replay (studydb.positions)."""

from __future__ import annotations

import chess
import pytest
from helpers import boards, expected_images
from hypothesis import given, settings

from studydb import positions
from studydb.db.classify import check_moves


@pytest.mark.slow
@given(boards())
@settings(max_examples=200, deadline=None)
def test_every_symmetric_image_has_the_similar_key(board: chess.Board) -> None:
    key = positions.keys(board)
    for image in expected_images(board):
        image_keys = positions.keys(image)
        assert image_keys.similar == key.similar
        same = image.board_fen() == board.board_fen()
        assert (image_keys == key) is same
        assert (positions.exact_key(image) == positions.exact_key(board)) is same


@pytest.mark.slow
@given(boards())
@settings(max_examples=200, deadline=None)
def test_similar_images_are_the_expected_ones(board: chess.Board) -> None:
    found = {b.board_fen() for b in positions.similar_images(board)}
    assert found == {b.board_fen() for b in expected_images(board)}


@given(boards())
@settings(max_examples=100, deadline=None)
def test_side_to_move_and_colour_reversal_change_the_keys(board: chess.Board) -> None:
    other = board.copy()
    other.turn = not board.turn
    assert positions.keys(other).similar != positions.keys(board).similar
    reversed_board = positions.colour_reversed(board)
    assert reversed_board.board_fen() == board.mirror().board_fen()
    assert positions.keys(positions.colour_reversed(reversed_board)) == positions.keys(board)
    # The symmetries found from the bitboards are those found from the men.
    men = positions.men_of(board)
    assert positions.keys(board) == positions.keys_of_men(men, board.turn)


def test_castling_and_en_passant_rights_are_ignored() -> None:
    with_rights = chess.Board("r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1")
    without = chess.Board("r3k2r/8/8/3pP3/8/8/8/R3K2R w - - 0 1")
    assert positions.keys(with_rights) == positions.keys(without)
    assert positions.exact_key(with_rights) == positions.exact_key(without)


def test_pawn_positions_are_not_rotated() -> None:
    board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    flipped = board.transform(chess.flip_vertical)
    assert positions.keys(flipped).similar != positions.keys(board).similar


@pytest.mark.parametrize(
    ("fen", "movetext", "expected"),
    [
        (
            chess.STARTING_FEN,
            "1. e4 e5 2. Nf3 *",
            [(0, 0, True), (1, 1, True), (2, 2, True), (3, 3, True)],
        ),
        (
            chess.STARTING_FEN,
            "1. e4 {a comment} (1. d4 d5 (1... Nf6)) 1... e5 $1 *",
            [(0, 0, True), (1, 1, True), (2, 1, False), (3, 2, False), (4, 2, False), (5, 2, True)],
        ),
        (
            chess.STARTING_FEN,
            "1. e4 e5 2. Ke3 Nc6 (2... Nf6) *",
            [(0, 0, True), (1, 1, True), (2, 2, True)],
        ),
    ],
)
def test_replay_walks_every_line_in_text_order(fen: str, movetext: str, expected: list) -> None:
    nodes = [(n.node, n.ply, n.main) for n in positions.replay(chess.Board(fen), movetext)]
    assert nodes == expected


@pytest.mark.parametrize(
    "movetext",
    [
        "1. e4 e5 2. Ke3 Nc6 *",
        "1. e4 (1. e5 d4) (1. d4 Ke7) e5 2. Nf3 *",
        "1. e4 e5 (1... Ke7 2. Ke3 (2. Qg4)) 2. Bb6 *",
    ],
)
def test_replay_records_errors_as_validate_does(movetext: str) -> None:
    errors: list[str] = []
    for _ in positions.replay(chess.Board(), movetext, errors):
        pass
    assert errors == check_moves(movetext, chess.Board())
    assert errors


def test_replay_transposition_reaches_the_same_keys() -> None:
    def last(movetext: str) -> positions.Keys:
        *_, node = positions.replay(chess.Board(), movetext)
        return positions.keys(node.board)

    assert last("1. Nf3 Nf6 2. d4 *") == last("1. d4 Nf6 2. Nf3 *")


def test_doctests() -> None:
    import doctest

    result = doctest.testmod(positions)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize(
    ("mine", "theirs", "name"),
    [
        ("8/8/8/8/8/2k5/1R6/K7 w - - 0 1", "8/8/8/8/8/2k5/1R6/K7 w - - 0 1", ""),
        ("8/8/8/8/8/2k5/1R6/K7 w - - 0 1", "8/8/8/8/8/5k2/6R1/7K w - - 0 1", "mirrored"),
        (
            "8/8/8/8/8/2k5/1R6/K7 w - - 0 1",
            "K7/1R6/2k5/8/8/8/8/8 w - - 0 1",
            "mirrored top to bottom",
        ),
        ("8/8/8/8/8/2k5/1R6/K7 w - - 0 1", "7K/6R1/5k2/8/8/8/8/8 w - - 0 1", "rotated 180°"),
        ("8/8/8/8/8/1k6/8/KR6 w - - 0 1", "K7/R1k5/8/8/8/8/8/8 w - - 0 1", "rotated 90° clockwise"),
        (
            "8/8/8/8/8/1k6/8/KR6 w - - 0 1",
            "8/8/8/8/8/8/5k1R/7K w - - 0 1",
            "rotated 90° anticlockwise",
        ),
        (
            "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1",
            "8/8/3KP3/5r2/8/8/8/2k5 w - - 0 1",
            "shifted 2 files to the right",
        ),
        ("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1", "8/8/5PK1/4r3/8/8/8/7k w - - 0 1", "mirrored"),
    ],
)
def test_transformation_names_how_one_position_becomes_the_other(
    mine: str, theirs: str, name: str
) -> None:
    a, b = positions.keys(chess.Board(mine)), positions.keys(chess.Board(theirs))
    assert a.similar == b.similar
    assert positions.transformation(a.image, b.image) == name
