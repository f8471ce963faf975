"""The position keys and the index rows (studydb.positions)."""

from __future__ import annotations

import hashlib
from array import array

import chess
import pytest
from helpers import boards, examples, expected_images
from hypothesis import given, settings
from hypothesis import strategies as st

from studydb import movetext, patterns, positions


@pytest.mark.slow
@given(boards())
@settings(max_examples=examples(200), deadline=None)
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
@settings(max_examples=examples(200), deadline=None)
def test_similar_images_are_the_expected_ones(board: chess.Board) -> None:
    found = {b.board_fen() for b in positions.similar_images(board)}
    assert found == {b.board_fen() for b in expected_images(board)}


@given(boards())
@settings(max_examples=examples(100), deadline=None)
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
    ("fen", "text", "expected"),
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
def test_index_rows_walk_every_line_in_text_order(fen: str, text: str, expected: list) -> None:
    rows = positions.index_rows(chess.Board(fen), text, [])
    assert [(node, ply, main) for _, _, node, ply, main, _ in rows] == expected


@pytest.mark.parametrize(
    "text",
    [
        "1. e4 e5 2. Ke3 Nc6 *",
        "1. e4 (1. e5 d4) (1. d4 Ke7) e5 2. Nf3 *",
        "1. e4 e5 (1... Ke7 2. Ke3 (2. Qg4)) 2. Bb6 *",
    ],
)
def test_index_rows_record_errors_as_validate_does(text: str) -> None:
    errors: list[str] = []
    positions.index_rows(chess.Board(), text, errors)
    assert errors == movetext.errors_of(chess.Board(), text)
    assert errors


@settings(max_examples=examples(25), deadline=None)
@given(boards(), st.data())
def test_index_rows_keys_are_the_keys_of_each_position(board: chess.Board, data) -> None:
    moves = []
    replayed = board.copy()
    for _ in range(data.draw(st.integers(0, 8))):
        legal = list(replayed.legal_moves)
        if not legal:
            break
        move = data.draw(st.sampled_from(legal))
        moves.append(replayed.san(move))
        replayed.push(move)
    walked = movetext.walk(board, " ".join(moves), positions.IndexRows(board, []))
    rows = walked.rows
    expected = [board.copy()]
    for move in replayed.move_stack:
        expected.append(expected[-1].copy())
        expected[-1].push(move)
    assert [(similar, image) for similar, image, *_ in rows] == [
        (k.similar, k.image) for k in map(positions.keys, expected)
    ]
    assert [counts for *_, counts in rows] == [positions.counts_of(b) for b in expected]
    # The boards made move by move are those read from each position.
    lines = [
        patterns.board_line(patterns.board_text(b), main=True, white=b.turn, ply=ply)
        for ply, b in enumerate(expected)
    ]
    assert patterns.decode_boards(walked.boards()) == "".join(lines)
    seen = [0] * 12
    for b in expected:
        for square, piece in b.piece_map().items():
            seen[piece.piece_type - 1 + 6 * (piece.color == chess.BLACK)] |= 1 << square
    assert walked.seen() == tuple(map(patterns.signed, seen))


@pytest.mark.parametrize(
    "fen",
    [
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "8/8/8/8/8/8/8/K7 b - - 0 1",
        "8/8/8/8/8/8/8/K6k w - - 0 1",
        "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ],
)
def test_the_similar_key_hashes_the_least_image_as_it_always_has(fen: str) -> None:
    """The key is BLAKE2b (8 bytes, little-endian, signed) of the least image's codes as
    16-bit numbers and ``w`` or ``b``: stored keys must stay as they are."""
    board = chess.Board(fen)
    men = positions.men_of(board)
    numbers, tables = positions._image_tables(men)
    images = [sorted(table[code] for code in men) for table in tables]
    least = min(images)
    data = array("H", least).tobytes() + (b"w" if board.turn else b"b")
    digest = int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little", signed=True)
    assert positions.keys(board) == positions.Keys(digest, numbers[images.index(least)])


def test_index_rows_transposition_reaches_the_same_keys() -> None:
    def last(text: str) -> tuple[int, int]:
        similar, image, *_ = positions.index_rows(chess.Board(), text, [])[-1]
        return similar, image

    assert last("1. Nf3 Nf6 2. d4 *") == last("1. d4 Nf6 2. Nf3 *")


def test_doctests() -> None:
    import doctest

    result = doctest.testmod(positions)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize(
    ("fen", "text", "chess960"),
    [  # castling, en passant, promotions with and without capture, null moves, variations
        ("r3k2r/1p6/8/2P5/8/8/p7/RN2K2R b KQkq - 0 1",
         "1... b5 2. cxb6 (2. O-O axb1=N (2... O-O-O 3. c6) 3. Raxb1) 2... O-O-O 3. b7+ Kb8 "
         "4. O-O axb1=Q 5. Rfxb1 -- 6. Z0 Rd1+ 7. Rxd1 *", False),
        ("4k3/8/8/8/8/8/8/1RK4R w BH - 0 1", "1. O-O (1. O-O-O Ke7 2. Rd2) 1... Ke7 2. Rf2 *",
         True),
        # nested variations, a group with no move before it, an illegal move ending a
        # variation, a variation left open at the end of the text
        (chess.STARTING_FEN,
         "( 1. c4 ) 1. e4 (1. d4 d5 (1... Nf6 2. c4 (2. Nf3 g6) e6) 2. c4 (2. Ke3 Nc6) e6) "
         "1... e5 (1... c5 2. Nf3 (2. Qh5 Qa5 3. Qxf7+ Kxf7) d6) 2. Nf3 (2. f4 exf4 (2... d5",
         False),
    ],
)  # fmt: skip
def test_index_rows_follow_every_kind_of_move(fen: str, text: str, chess960: bool) -> None:
    board = chess.Board(fen, chess960=chess960)
    errors: list[str] = []
    rows = positions.index_rows(board, text, errors)
    assert errors == movetext.errors_of(board, text)
    expected = []
    for node in movetext.nodes(board, text):
        reached = chess.Board(node.fen, chess960=chess960)
        key = positions.keys(reached)
        expected.append((key.similar, key.image, node.node, node.ply, node.main))
        assert rows[node.node][5] == positions.counts_of(reached), node
    assert [row[:5] for row in rows] == expected


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


@pytest.mark.parametrize(
    ("fen", "moves"),
    [
        ("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1", "1. c7 (1. Kb7 Rb5+ 2. Ka6) Rd6+ 2. Kb5 Rd5+ *"),
        ("8/8/1KP5/3r4/8/8/8/k7 b - - 0 1", "1... Rd6 (1... Rb5+ 2. Ka6) 2. c7 Rxb6+ 3. Kxb6 *"),
        ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "1. O-O (1. Rxa8+) Kd7 *"),
    ],
)
def test_occupancy_boards_and_seen_are_every_nodes(fen: str, moves: str) -> None:
    """The occupancy block holds each node's occupied squares, whether it is on the main
    line and whether White is to move (Black to move at the start too), the board lines
    each node's board line; ``seen`` each man's squares over every node."""
    board = chess.Board(fen)
    rows = movetext.walk(board, moves, positions.IndexRows(board, []))
    nodes = [chess.Board(node.fen) for node in movetext.nodes(board, moves)]
    mains = [node.main for node in movetext.nodes(board, moves)]
    planes = patterns.decode_occupancy(rows.occupancy())
    count = len(nodes)
    assert len(planes) == patterns.PLANES * count
    for number, (position, main) in enumerate(zip(nodes, mains, strict=True)):
        occupied = bytes(planes[rank * count + number] for rank in range(8))
        assert int.from_bytes(occupied, "little") == position.occupied
        flags = planes[patterns.FLAGS_PLANE * count + number]
        assert flags == patterns.MAIN_FLAG * main | patterns.WHITE_FLAG * position.turn
    expected = [0] * 12
    for position in nodes:
        for square, piece in position.piece_map().items():
            expected[piece.piece_type - 1 + 6 * (not piece.color)] |= chess.BB_SQUARES[square]
    assert rows.seen() == tuple(map(patterns.signed, expected))
    assert patterns.decode_boards(rows.boards()) == "".join(
        patterns.board_line(patterns.board_text(node), main=main, white=node.turn, ply=ply)
        for ply, node, main in zip(
            (node.ply for node in movetext.nodes(board, moves)), nodes, mains, strict=True
        )
    )


@pytest.mark.parametrize(
    "fen",
    [
        "1k6/8/8/8/8/8/P1P5/1K6 w - - 0 1",  # the mirror of the men is the men: a tie
        "3k4/8/8/8/8/8/P6P/3K4 b - - 0 1",  # the kings off the axis: no tie, every file
        "8/8/8/2pkp3/8/8/8/3K4 w - - 0 1",  # a tie on files c to e
    ],
)
def test_keys_of_pawn_positions_are_the_first_least_image(fen: str) -> None:
    """With pawns, the image is the first least of all shifts and mirrors, as the loop
    over every image gives it (the shift, not its mirror, when both are the least)."""
    board = chess.Board(fen)
    men = positions.men_of(board)
    numbers, tables = positions._SHIFT_SETS[
        min((m >> 4) & 7 for m in men), max((m >> 4) & 7 for m in men)
    ]
    images = [
        (sorted(table[m] for m in men), number)
        for number, table in zip(numbers, tables, strict=True)
    ]
    least = min(image for image, _ in images)
    first = next(number for image, number in images if image == least)
    assert positions.keys(board).image == first
    assert positions.keys(board) == positions.keys_of_men(men, board.turn)
