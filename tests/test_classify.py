"""studydb.db.classify: the start-position columns, read from the FEN string or a Board."""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Callable

import chess
import chess.polyglot
import pytest
from helpers import examples
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from studydb import gbr
from studydb.db import classify
from studydb.pgn import RawGame, header_leftovers, read_games


def by_board(fen: str) -> dict:
    """The columns as python-chess computes them (the reference)."""
    board = chess.Board(fen)
    return classify._position_columns(
        gbr.material(board), board.fen(), chess.polyglot.zobrist_hash(board)
    )


@st.composite
def plain_fens(draw: st.DrawFn) -> str:
    """FENs of random placements (two kings, any men), no castling, no en passant."""
    squares = draw(st.lists(st.integers(0, 63), min_size=2, max_size=32, unique=True))
    board = chess.BaseBoard.empty()
    board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
    for square in squares[2:]:
        symbol = draw(st.sampled_from("PNBRQpnbrq"))
        board.set_piece_at(square, chess.Piece.from_symbol(symbol))
    turn = draw(st.sampled_from("wb"))
    clocks = draw(st.sampled_from(["", " - -", " - - 0 1", " - - 7 0", " - - 012 34"]))
    return f"{board.board_fen()} {turn}{clocks}"


@pytest.mark.slow
@settings(max_examples=examples(300), deadline=None)
@given(plain_fens())
def test_the_string_path_gives_what_python_chess_gives(fen: str) -> None:
    try:
        expected = by_board(fen)
    except gbr.GbrError as exc:  # more than 8 pawns of a colour
        with pytest.raises(gbr.GbrError, match=str(exc).rsplit(": ", 1)[1]):
            classify._plain_position(fen)
    else:
        assert classify._plain_position(fen) == expected


@st.composite
def played_fens(draw: st.DrawFn) -> str:
    """FENs of positions random legal moves reach from the start: castling rights kept or
    lost, and the en-passant square of each double step, a pawn able to take there or not."""
    board = chess.Board()
    for _ in range(draw(st.integers(0, 40))):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(draw(st.sampled_from(moves)))
    return board.fen(en_passant="fen")


@st.composite
def castling_fens(draw: st.DrawFn) -> str:
    """FENs of random placements with kings and rooks at home or not, any castling letters
    and any en-passant square (legal or not: chess.Board reads them all)."""
    board = chess.BaseBoard(draw(plain_fens()).split()[0])
    for symbol, square in [("K", chess.E1), ("k", chess.E8), ("R", chess.H1), ("R", chess.A1),
                           ("r", chess.H8), ("r", chess.A8)]:  # fmt: skip
        if draw(st.booleans()):
            piece = chess.Piece.from_symbol(symbol)
            king = board.king(piece.color)
            if piece.piece_type == chess.KING and king is not None:
                board.remove_piece_at(king)
            board.set_piece_at(square, piece)
    assume(board.king(chess.WHITE) is not None and board.king(chess.BLACK) is not None)
    rights = "".join(letter for letter in "KQkq" if draw(st.booleans())) or "-"
    passed = draw(st.sampled_from(["-", *chess.SQUARE_NAMES]))
    clocks = draw(st.sampled_from(["", " 0 1", " 3 20"]))
    return f"{board.board_fen()} {draw(st.sampled_from('wb'))} {rights} {passed}{clocks}"


@pytest.mark.slow
@settings(max_examples=examples(500), deadline=None)
@given(st.one_of(played_fens(), castling_fens()))
def test_castling_rights_and_en_passant_are_read_as_python_chess_reads_them(fen: str) -> None:
    board = chess.Board(fen)
    try:
        expected = by_board(fen)
    except gbr.GbrError as exc:  # more than 8 pawns of a colour, two kings
        with pytest.raises(gbr.GbrError, match=str(exc).rsplit(": ", 1)[1]):
            classify._plain_position(fen)
        return
    # only a pawn able to take en passant sends a FEN to chess.Board (legal or not?)
    if board.has_pseudo_legal_en_passant():
        assert classify._plain_position(fen) is None
    else:
        assert classify._plain_position(fen) == expected
    if max(1 + sum(expected[side + man] for man in "qrbnp") for side in "wb") > 16:
        with pytest.raises(gbr.GbrError, match="more than 16 men"):  # a side's, as search's rule
            classify.classify_position(fen)
    else:
        assert classify.classify_position(fen) == expected


@pytest.mark.parametrize(
    "fen",
    [
        "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1",
        "8/8/1KP5/3r4/8/8/8/k7 b - - 12 0",
        "8/8/1KP5/3r4/8/8/8/k7 w",
        " 8/8/1KP5/3r4/8/8/8/k7 b - - 003 07 ",
        chess.STARTING_FEN,
        "r3k2r/8/8/8/8/8/8/R3K1R1 w KQkq e6 0 1",  # rights without their rook, a lone square
        "4k3/8/8/8/3pP3/8/8/4K3 w - e3 0 1",  # a square on the wrong side: hashed, not written
        "4k3/8/3n4/4P3/8/8/8/4K3 w - d6 0 1",  # a man on the square: hashed, not written
    ],
)
def test_plain_fens_take_the_string_path(fen: str) -> None:
    assert classify._plain_position(fen) == by_board(fen.strip())
    assert classify.classify_position(fen) == by_board(fen.strip())


@pytest.mark.parametrize(
    "fen",
    [
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",  # a pawn can take en passant
        "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1",  # Shredder-FEN's castling
        "8/8/1KP5/3r4/8/8/8/k44 w - - 0 1",  # two digits in a row
        "8/8/1KP5/3r4/8/8/8/k7/8 w - - 0 1",  # nine ranks
        "8/8/1KP5/3r4/8/8/8/k7 w - - -1 1",
    ],
)
def test_other_fens_go_through_python_chess(fen: str) -> None:
    assert classify._plain_position(fen) is None
    try:
        expected = by_board(fen)
    except ValueError:
        with pytest.raises(ValueError):
            classify.classify_position(fen)
    else:
        assert classify.classify_position(fen) == expected


@pytest.mark.parametrize(
    "fen",
    [
        "rkrnbbqn/pppppppp/8/8/8/8/PPPPPPPP/RKRNBBQN w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ],
)
def test_chess960_castling_rights_go_through_python_chess(fen: str) -> None:
    board = chess.Board(fen, chess960=True)
    expected = classify._position_columns(
        gbr.material(board), board.fen(), chess.polyglot.zobrist_hash(board)
    )
    assert classify._plain_position(fen, chess960=True) is None
    assert classify.classify_position(fen, chess960=True) == expected


@pytest.mark.parametrize(
    ("fen", "problem"),
    [
        ("8/8/1KP5/3r4/8/8/8/8 w - - 0 1", "Black has 0 kings"),
        ("8/8/1KP5/3r4/8/8/8/kk6 w - - 0 1", "Black has 2 kings"),
        ("k7/PPPPPPPP/P7/8/8/8/8/K7 w - - 0 1", "White has 9 pawns"),
        ("QQQQQQQQ/QQQQQQQQ/8/8/8/8/8/k1K5 w - - 0 1", "White has more than 16 men"),
        ("qqqqqqqq/qqqqqqqq/8/8/8/8/8/K1k5 w KQkq - 0 1", "Black has more than 16 men"),
    ],
)
def test_bad_men_are_errors_on_the_string_path(fen: str, problem: str) -> None:
    with pytest.raises(gbr.GbrError, match=problem):
        classify.classify_position(fen)


@pytest.mark.parametrize("positions", [classify.INDEX_NONE, classify.INDEX_STUDIES])
@pytest.mark.parametrize(
    ("fen", "text", "errors", "nodes"),
    [  # move number 10000 was read as the null move 0000 (issue 15)
        ("k7/8/8/8/8/8/8/K7 w - - 0 9999", "9999. Kb1 Kb8 10000. Ka1 Ka8 10001. Kb1 *", [], 6),
        ("8/8/8/8/8/2k5/7R/K7 w - - 0 1", "1. Rh3+ (1. Rc2+ Kb3 2. Qc2) Kd4 2. Rh4+ Kd3 *",
         ["illegal san: 'Qc2' in 8/8/8/8/8/1k6/2R5/K7 w - - 2 2"], 7),
    ],
)  # fmt: skip
def test_validation_and_the_index_read_the_same_moves(
    fen: str, text: str, errors: list[str], nodes: int, positions: str
) -> None:
    import io

    from studydb.pgn import read_games

    pgn = f'[FEN "{fen}"]\n\n{text}\n'.encode()
    (game,) = read_games(io.BytesIO(pgn), name="x")
    prepared = classify.prepare(game, validate=True, positions=positions)
    assert prepared.row["errors"] == (errors or None)
    assert prepared.row["valid"] is not errors
    if positions == classify.INDEX_STUDIES:
        assert prepared.positions is not None and len(prepared.positions) == nodes


@pytest.mark.parametrize(
    ("fen", "text"),
    [  # Saavedra: a capture and two promotions; a castling start; many men
        ("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1",
         "1. c7 Rd6+ 2. Kb5 Rd5+ 3. Kb4 Rd4+ 4. Kb3 Rd3+ 5. Kc2 Rd4 6. c8=R (6. c8=Q Rc4+) Ra4 *"),
        ("r3k2r/pppq1ppp/2n5/8/8/2N5/PPPQ1PPP/R3K2R w KQkq - 0 1", "1. O-O-O Qxd2+ 2. Rxd2 *"),
        ("QQQQQQQQ/8/8/8/8/8/8/k1K5 b - - 0 1", "1... Kb2 *"),
    ],
)  # fmt: skip
def test_the_workers_make_each_indexed_material_row(fen: str, text: str) -> None:
    import io

    from studydb.pgn import read_games

    (game,) = read_games(io.BytesIO(f'[FEN "{fen}"]\n\n{text}\n'.encode()), name="x")
    prepared = classify.prepare(game, positions=classify.INDEX_STUDIES)
    assert prepared.positions is not None
    counts = {row[5] for row in prepared.positions}
    assert len(counts) > 1 or "Q" * 8 in fen
    assert prepared.materials == {c: classify.material_values(c) for c in counts}


def _kind_by_copy(movetext: str) -> str:
    """entry_kind of a game without a FEN as first written: on a copy of the text up to
    its first comment (the reference)."""
    first = min((i for i in (movetext.find("{"), movetext.find(";")) if i >= 0), default=None)
    if classify._MOVE_TOKEN.search(movetext if first is None else movetext[:first]):
        return "study"
    if first is None:
        return "text"
    return "study" if classify._MOVE_TOKEN.search(classify._COMMENTS.sub(" ", movetext)) else "text"


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(
        st.sampled_from(["1.", " ", "\n", "e4", "Nf3", "O-O", "{", "}", ";", "x", "1-0", "*"]),
        max_size=12,
    ).map("".join)
)
def test_entry_kind_reads_the_text_up_to_its_first_comment_in_place(movetext: str) -> None:
    assert classify.entry_kind({}, movetext) == _kind_by_copy(movetext)


def test_a_slice_packs_each_replayed_games_index_rows() -> None:
    import io

    from studydb.pgn import read_games

    text = b"".join(
        f'[FEN "{fen}"]\n\n{moves}\n\n'.encode()
        for fen, moves in [
            ("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1", "1. c7 Rd6+ 2. Kb5 (2. Kc5 Rd1) Rd5+ 3. Kb4 *"),
            (chess.STARTING_FEN, "1. e4 e5 *"),  # no FEN tag below: not replayed
            ("QQQQQQQQ/8/8/8/8/8/8/k1K5 b - - 0 1", "1... Kb2 *"),
        ]
    ).replace(f'[FEN "{chess.STARTING_FEN}"]\n'.encode(), b'[Event "game"]\n')
    games = list(read_games(io.BytesIO(text), name="x"))
    items = [classify.prepare(game, positions=classify.INDEX_STUDIES) for game in games]
    before = [
        (item.positions, item.boards, item.moves, item.occupancy, item.seen, item.move_keys)
        for item in items
    ]
    [part] = classify.prepare_batch(
        [(game, classify.content_hash(game)) for game in games], False, classify.INDEX_STUDIES
    )
    pack = part.index
    assert pack.items == [0, 2]
    assert [item.positions for item in part.items] == [None] * 3
    assert [item.row for item in part.items] == [item.row for item in items]
    for number in pack.items:
        rows, boards, moves, occupancy, seen, move_keys = before[number]
        assert rows is not None and seen is not None
        studies = dict(zip(pack.items, pack.studies, strict=True))
        assert studies[number] == (len(rows), boards, moves, occupancy, *seen)
        packed = [
            (similar, image, node, ply, bool(main), pack.counts[material])
            for similar, item, node, image, ply, main, material in zip(
                pack.similar, pack.item, pack.node, pack.image, pack.ply, pack.main,
                pack.material, strict=True,
            )
            if item == number
        ]  # fmt: skip
        assert sorted(packed) == sorted(rows)
        keys = {
            key: bool(main)
            for key, item, main in zip(pack.move_key, pack.move_item, pack.move_main, strict=True)
            if item == number
        }
        assert keys == move_keys
        on_main = [row for row in rows if row[4]]
        last = max(on_main, key=lambda row: row[3])[5]
        reached = {
            pack.counts[material]: bool(ends)
            for material, item, ends in zip(
                pack.reached, pack.reached_item, pack.reached_ends, strict=True
            )
            if item == number
        }
        assert reached == {row[5]: row[5] == last for row in on_main}
    rows_in_order = list(zip(pack.similar, pack.item, pack.node, strict=True))
    assert rows_in_order == sorted(rows_in_order)
    assert dict(zip(pack.counts, pack.materials, strict=True)) == {
        c: classify.material_values(c) for c in pack.counts
    }


#: Games and their content_hash as stored databases hold it (studydb 0.x wrote these).
HASHES = [
    (b'[Event "A"]\n[Site "B"]\n\n1. e4 e5 2. Nf3 *\n', "0f982f571a2b04f830ed5852615554d7"),
    (
        b'[Event "A"]\r\n[Site "B"]\r\n\r\n1. e4\te5\r\n  2. Nf3   *\r\n',
        "0f982f571a2b04f830ed5852615554d7",
    ),
    (b'[Event "A"] ; note\n[Event "again"]\n\n1. e4 *', "2b88fe02c74e119b91760da525170ee2"),
    (
        b'[Event "a [b] \\"c\\""]\n[White "\xc3\xa9"]\n\n1. e4 {caf\xc3\xa9\x0b} *\n',
        "938dbbe99a2219380895fa726d06f592",
    ),
    (b'[Event "x\xe9"]\n\n1. d4\x1c\x1fd5 *\n', "cc242fe3206f3807ef402e8b2544ae19"),
    (b"1. e4 e5 *\n", "45a4d5d17432011f99de83b61b942515"),
]


@pytest.mark.parametrize(("data", "digest"), HASHES)
def test_content_hash_is_the_one_stored_databases_hold(data: bytes, digest: str) -> None:
    (game,) = read_games(io.BytesIO(data), name="x")
    assert classify.content_hash(game) == digest


_TAG = re.compile(r'\[[ \t]*(\w+)[ \t]*"([^"\\\r\n]*(?:\\.[^"\\\r\n]*)*)"[ \t]*\]', re.ASCII)


def hash_by_words(game: RawGame) -> str:
    """content_hash as first written: the tags joined, the tag section taken apart by a
    substitution, the movetext split in words (the reference)."""
    head = game.text[: len(game.text) - len(game.movetext)]
    rest, pairs = _TAG.subn("", head)
    clean = pairs == len(game.headers) and not rest.strip()
    leftovers = "" if clean else " ".join(head.split())
    assert header_leftovers(game) == leftovers
    tags = "".join([f"{name}\x1f{value}\x1e" for name, value in game.headers.items()])
    if leftovers:
        tags += "\x1c" + leftovers
    text = f"{tags}\x1d{' '.join(game.movetext.split())}"
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


_PIECES = st.sampled_from(
    [
        '[Event "a"]',
        '[Event "b"]',
        '[Site "[x]"]',
        '[ White  "\\"q\\"" ]',
        '[Black "a"b"]',
        "[Bad]",
        "; c",
        " ",
        "\t",
        "\n",
        "\r\n",
        "\x0b",
        "\x1c",
        "\x85",
        "\u2003",
        "\xa0",
        "é",
        "1. e4",
        "{c  d}",
        "*",
    ]
)


@settings(max_examples=examples(500), deadline=None)
@given(text=st.lists(_PIECES, max_size=16).map("".join))
@example(text='[Event "a"]\n[Site "[x]"]\n\n1. e4 *')
def test_content_hash_is_what_splitting_in_words_gives(text: str) -> None:
    """The same digest as the first way of computing it, on the games of random text:
    white space of every kind (ASCII and not), brackets in values, tags repeated,
    escaped, loose, not tags."""
    for game in read_games(io.BytesIO(text.encode()), name="x"):
        assert classify.content_hash(game) == hash_by_words(game)


@settings(max_examples=examples(500), deadline=None)
@given(
    head=st.lists(_PIECES, max_size=8).map("".join),
    movetext=st.lists(_PIECES, max_size=8).map("".join),
    headers=st.dictionaries(st.sampled_from(["Event", "Site", "X"]), st.sampled_from(["a", "[x]"])),
)
def test_content_hash_of_any_game_made_by_hand(head: str, movetext: str, headers: dict) -> None:
    """Also for a RawGame whose headers are not its text's (made by a caller)."""
    text = head + movetext
    game = RawGame(text.encode(), text, "utf-8", headers, movetext, "x", 1, 0, len(text))
    assert classify.content_hash(game) == hash_by_words(game)


@settings(max_examples=examples(300), deadline=None)
@given(text=st.lists(_PIECES, max_size=16).map("".join), times=st.integers(1, 400))
def test_movetext_white_space_is_collapsed_as_splitting_gives(text: str, times: int) -> None:
    """Short and long texts (the two ways), ASCII or not."""
    text *= times
    assert classify._collapsed(text) == " ".join(text.split()).encode()


# -- _read_board: index_game's start board, quicker (#28) ------------------------------


def full_state(board: chess.Board) -> tuple[object, ...]:
    """All a board is: bitboards, rights, clocks, the variant flag, the stacks."""
    return (
        board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
        tuple(board.occupied_co), board.occupied, board.promoted, board.turn,
        board.castling_rights, board.ep_square, board.halfmove_clock, board.fullmove_number,
        board.chess960, board.move_stack, board._stack, type(board),
    )  # fmt: skip


def read_outcome(fen: str, chess960: bool, read: Callable[..., chess.Board]) -> object:
    """The board's state, or the type and message of what reading it raises."""
    try:
        return full_state(read(fen, chess960=chess960))
    except ValueError as exc:
        return type(exc), str(exc)


@settings(max_examples=examples(500), deadline=None)
@given(
    st.lists(st.sampled_from(".......PNBRQKpnbrqk"), min_size=64, max_size=64),
    st.sampled_from(["w", "b"]),
    st.sampled_from(["", " 0 1", " 12 40", " 0 0", " 007 03", " 1000000 1", " -1 3"]),
    st.sampled_from(["", "castling", "ep", "spaces", "digits", "short", "long", "letter"]),
    st.booleans(),
    st.sampled_from(["KQkq", "K", "Q", "k", "q", "Kk", "Qq", "KQ", "kq", "Kq", "KQk"]),
    st.sampled_from(chess.SQUARE_NAMES),
)
@example(list("K" + "." * 62 + "k"), "w", " 0 1", "", False, "KQkq", "e3")
@example(list("K" + "." * 62 + "k"), "w", " 0 1", "ep", False, "KQkq", "e3")
@example(list("rnbqkbnr" + "p" * 8 + "." * 32 + "P" * 8 + "RNBQKBNR"), "w", "", "castling",
         False, "KQkq", "e3")  # fmt: skip
@example(list("r...k..r" + "." * 48 + "R...K.R."), "b", " 3 9", "castling", True, "KQkq", "e3")
def test_read_board_is_python_chess_board(
    squares: list[str],
    side: str,
    clocks: str,
    change: str,
    chess960: bool,
    castling: str,
    passed: str,
) -> None:
    """_read_board reads a FEN as chess.Board does: the same board, or the same error
    (castling rights and an en-passant square as python-chess sets them, not cleaned;
    FENs it leaves to python-chess among them: odd spacing, bad ranks)."""
    ranks = []
    for rank in range(8):
        text = "".join(squares[rank * 8 : rank * 8 + 8])
        ranks.append(re.sub(r"\.+", lambda run: str(len(run.group())), text))
    placement = "/".join(ranks)
    rights = "- -"
    if change == "castling":
        rights = f"{castling} -"
    elif change == "ep":
        rights = f"{castling} {passed}"
    elif change == "digits":
        placement = placement.replace("8", "44", 1)
    elif change == "short":
        placement = placement.rsplit("/", 1)[0]
    elif change == "long":
        placement += "/8"
    elif change == "letter":
        placement = placement.replace("8", "x7", 1)
    fen = f"{placement} {side} {rights}{clocks}"
    if change == "spaces":
        fen = fen.replace(" ", "  ", 1)
    assert read_outcome(fen, chess960, classify._read_board) == read_outcome(
        fen, chess960, chess.Board
    ), fen
