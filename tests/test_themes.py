"""studydb.themes: every theme on crafted studies, positive and negative, and its symmetries."""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from pathlib import Path

import chess
import chess.syzygy
import pytest
from helpers import CLASSICS, THEMED_STUDIES, boards, examples
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from studydb import themes
from studydb.db.classify import index_game
from studydb.headers import read_info, start_fen
from studydb.movetext import is_chess960, main_line, movetext_of, start_board
from studydb.pgn import read_games, tags_of
from studydb.themes import PGN, Theme


def _movetext(text: str) -> str:
    return text + " *"


@pytest.mark.parametrize(
    "theme", [Theme("switchback", 13, "Qd5"), Theme("opposition", source=PGN), Theme("mate", 1)]
)
def test_a_theme_is_pickled_as_its_fields(theme: Theme) -> None:
    import pickle

    assert pickle.loads(pickle.dumps(theme)) == theme
    assert theme.__reduce__() == (Theme, (theme.name, theme.ply, theme.detail, theme.source))


@pytest.mark.parametrize(
    ("fen", "movetext", "stipulation", "expected"),
    [case[1:] for case in THEMED_STUDIES],
    ids=[case[0] for case in THEMED_STUDIES],
)
def test_crafted_studies(fen: str, movetext: str, stipulation: str | None, expected: list[str]):
    replay = index_game(_movetext(movetext), fen, stipulation=stipulation)
    errors, found = replay.errors, replay.themes
    assert errors == []
    assert [t.describe() for t in found] == expected


@pytest.mark.parametrize(
    ("fen", "movetext", "stipulation", "expected"),
    [case[1:] for case in THEMED_STUDIES if "(" not in case[2]],
    ids=[case[0] for case in THEMED_STUDIES if "(" not in case[2]],
)
def test_a_line_played_alone_has_its_replays_themes(
    fen: str, movetext: str, stipulation: str | None, expected: list[str]
):
    """find_themes plays a draw's line again for its repetitions, where index_game reads
    them off its index keys: the same themes either way."""
    board = chess.Board(fen)
    found = themes.find_themes(board, main_line(board, movetext), stipulation=stipulation)
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
        ("6rk/7r/8/8/8/2K5/8/n7 b - - 0 1", "na1"),  # three pieces: an endgame
        ("5brk/7r/8/8/8/2K5/8/n7 b - - 0 1", None),  # four pieces: not looked for
    ],
)
def test_domination_rule(fen: str, expected: str | None):
    assert themes.dominated_piece(chess.Board(fen)) == expected


# -- mutual zugzwang -------------------------------------------------------------------


@pytest.fixture(scope="module")
def tables(syzygy: str):
    with chess.syzygy.open_tablebase(syzygy) as tablebase:
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


@settings(max_examples=examples(200), deadline=None)
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


@settings(max_examples=examples(60), deadline=None)
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


@given(boards())
def test_the_bitboard_shortcuts_of_domination_say_what_python_chess_says(
    board: chess.Board,
) -> None:
    """The free squares and the pins that dominated_piece reads off bitboards are
    python-chess's: the other side's attacks, every kind of man and the pieces gone."""
    mine = board.occupied_co[board.turn]
    pieces = mine & ~board.kings & ~board.pawns
    free, pinned = themes._free_and_pinned(board, pieces)
    expected = {
        square for square in chess.scan_forward(pieces) if board.is_pinned(board.turn, square)
    }
    assert set(chess.SquareSet(pinned)) == expected
    emptied = board.copy(stack=False)
    for square in chess.scan_forward(pieces):
        emptied.remove_piece_at(square)
    reach = 0
    for square in chess.scan_forward(emptied.occupied_co[not board.turn]):
        reach |= emptied.attacks_mask(square)  # every kind of man, pawns included
    assert free & chess.BB_ALL == ~(mine | reach) & chess.BB_ALL


def dominated_by_moves(board: chess.Board) -> str | None:
    """The domination rule played out move by move with python-chess (the reference for
    :func:`themes.dominated_piece`, which plays no move)."""
    pieces = board.occupied_co[board.turn] & ~board.pawns & ~board.kings
    if board.is_check() or chess.popcount(pieces) > themes.DOMINATION_PIECES:
        return None
    trapped = []
    for square in chess.scan_forward(pieces):
        value = themes.PIECE_VALUES[board.piece_type_at(square) or chess.PAWN]
        moves = list(board.generate_legal_moves(from_mask=chess.BB_SQUARES[square]))
        if moves and all(lost_after(board, move, value) for move in moves):
            trapped.append((-value, square))
    if not trapped:
        return None
    _, square = min(trapped)
    return str(board.piece_at(square)) + chess.square_name(square)


def lost_after(board: chess.Board, move: chess.Move, value: int) -> bool:
    """Whether the solver, after ``move``, has a capture of the piece that gains material."""
    taken = board.piece_type_at(move.to_square)
    worth = value - (themes.PIECE_VALUES[taken] if taken else 0)
    if worth <= 0:
        return False
    board.push(move)
    try:
        for capture in list(board.generate_legal_moves(to_mask=chess.BB_SQUARES[move.to_square])):
            capturer = board.piece_type_at(capture.from_square) or chess.PAWN
            board.push(capture)
            retaken = any(board.generate_legal_moves(to_mask=chess.BB_SQUARES[move.to_square]))
            board.pop()
            if worth - (themes.PIECE_VALUES.get(capturer, 0) if retaken else 0) > 0:
                return True
        return False
    finally:
        board.pop()


@settings(max_examples=examples(1000))
@given(boards())
def test_domination_on_bitboards_is_the_rule_played_out_move_by_move(board: chess.Board) -> None:
    expected = dominated_by_moves(board)
    assert themes.dominated_piece(board) == expected
    assert themes.dominated_piece(board, check=board.is_check()) == expected  # told, not tested


@st.composite
def crowded_boards(draw: st.DrawFn) -> chess.Board:
    """A legal position with two kings and up to fourteen other men of either side, the
    side to move with three pieces at most: the pins, x-rays, defended squares and
    recaptures of a middlegame meet."""
    kings = draw(
        st.tuples(st.integers(0, 63), st.integers(0, 63)).filter(
            lambda pair: chess.square_distance(*pair) > 1
        )
    )
    board = chess.Board(None)
    for colour, square in zip((chess.WHITE, chess.BLACK), kings, strict=True):
        board.set_piece_at(square, chess.Piece(chess.KING, colour))
    men = draw(
        st.dictionaries(
            st.integers(0, 63).filter(lambda square: square not in kings),
            st.tuples(st.sampled_from("QRBNP"), st.booleans()),
            min_size=4,
            max_size=14,
        )
    )
    for square, (symbol, white) in men.items():
        if symbol == "P" and chess.square_rank(square) in (0, 7):
            symbol = "N"
        board.set_piece_at(square, chess.Piece.from_symbol(symbol if white else symbol.lower()))
    board.turn = draw(st.booleans())
    if not board.is_valid():  # most often the side not to move is in check: the other moves
        board.turn = not board.turn
    # The defender keeps three pieces (with more, domination is not looked for); the
    # others become its pawns, off the first and last ranks, so that the board stays full.
    pieces = board.occupied_co[board.turn] & ~board.pawns & ~board.kings
    for square in list(chess.scan_reversed(pieces))[themes.DOMINATION_PIECES :]:
        if chess.square_rank(square) in (0, 7):
            board.remove_piece_at(square)
        else:
            board.set_piece_at(square, chess.Piece(chess.PAWN, board.turn))
    assume(board.is_valid())
    return board


@settings(max_examples=examples(500), deadline=None)
@given(crowded_boards())
def test_domination_among_many_men_is_the_rule_played_out(board: chess.Board) -> None:
    """The shortcuts (the free squares, the pins, the capturers tried cheapest first, the
    flights a pawn covers tried last, a recapture's legality from the sliders alone) on
    crowded boards, where they meet each other."""
    assert themes.dominated_piece(board, check=board.is_check()) == dominated_by_moves(board)


def test_domination_told_of_a_check_looks_no_further() -> None:
    board = chess.Board("7k/8/8/8/8/2K5/8/n7 b - - 0 1")  # the knight is dominated
    assert themes.dominated_piece(board, check=False) == "na1"
    assert themes.dominated_piece(board, check=True) is None


@pytest.mark.parametrize(
    "fen",
    [
        "7k/8/8/8/8/2K5/8/n7 b - - 0 1",  # dominated
        "4r2k/8/8/8/8/8/4N3/4K3 w - - 0 1",  # a pinned knight
        "4k3/8/8/8/8/1n6/7r/R2K4 b - - 0 1",  # a knight whose capturers are pinned or defended
        "3k4/8/3r4/8/8/3N4/8/2K1R3 b - - 0 1",  # x-ray through the capturer's square
        "k7/8/8/8/8/1N5K/1R6/1q6 b - - 0 1",  # a queen whose flights all lose
        "7k/8/8/8/4b3/8/5N2/2K5 b - - 0 1",  # a bishop and a knight forking its flights
        "r3k3/8/8/8/8/8/8/1N2K2R b - - 0 1",  # a rook with a king's recapture
        "8/8/8/8/8/1k6/8/nK1R4 b - - 0 1",  # a recapture by the king
        "6k1/8/8/K7/2p5/8/Qn2Q3/8 b - - 0 1",  # the only recapture, by a pinned pawn
        "1K6/1Q1qk3/8/8/8/8/8/1Q2n3 b - - 0 1",  # the only recapture, by a pinned queen
        "2k5/8/8/6B1/1n6/2K5/8/n7 b - - 0 1",  # a capture that would leave the king attacked
    ],
)
def test_domination_at_the_edges_is_the_rule_played_out(fen: str) -> None:
    """Pins, x-rays through a moved man, recaptures by a king: each as the moves decide."""
    board = chess.Board(fen)
    assert board.is_valid(), fen
    assert themes.dominated_piece(board) == dominated_by_moves(board)


@pytest.mark.slow  # 14,000 positions played out move by move (26,000 at 300 a file)
def test_domination_on_the_corpus_main_lines_is_the_rule_played_out(corpus_dir: Path) -> None:
    """Every main-line position of the corpus studies (150 a file at most) and of 150
    tournament games."""
    paths = [
        *sorted((corpus_dir / "studies").glob("*.pgn")),
        corpus_dir / "games" / "Capablanca.pgn",
    ]
    found = 0
    for path in paths:
        with open(path, "rb") as stream:
            games = list(itertools.islice(read_games(stream, name=str(path)), 150))
        for game in games:
            try:
                board = start_board(game.headers.get("FEN", chess.STARTING_FEN))
                moves = main_line(board, game.movetext)
            except ValueError:
                continue
            for move in moves:
                board.push(move)
                expected = dominated_by_moves(board)
                assert themes.dominated_piece(board) == expected, board.fen()
                found += expected is not None
    assert found >= 20


def test_the_main_line_takes_the_callers_word_for_its_last_position() -> None:
    """index_game tells finish what its facts found (mate, stalemate), and is_check at
    each ply: the same themes as the main line's own tests."""
    board = chess.Board("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1")
    move = chess.Move.from_uci("f1f8")
    line = themes.MainLine(board)
    board.push(move)
    line.moved(board, check=True)
    assert [t.describe() for t in line.finish(board)] == ["mate ply 1"]
    assert [t.describe() for t in line.finish(board, mate=True, stalemate=False)] == ["mate ply 1"]
    assert line.finish(board, mate=False, stalemate=False) == []
    assert [t.describe() for t in line.finish(board, mate=False, stalemate=True)] == [
        "stalemate ply 1"
    ]


def _corpus_themes(paths: list[Path], *, limit: int | None = None) -> tuple[Counter[str], str]:
    """The main-line themes ``index`` finds in the games of ``paths`` (the first ``limit``):
    how many of each name, and a digest of every game's (name, ply, detail) in order."""
    counts: Counter[str] = Counter()
    digest = hashlib.sha256()
    replayed = 0
    for path in paths:
        with open(path, "rb") as stream:
            for game in read_games(stream, name=str(path)):
                fen = start_fen(game.headers) or chess.STARTING_FEN
                try:
                    chess.Board(fen)
                except ValueError:
                    continue
                found = index_game(
                    movetext_of(game.text),
                    fen,
                    chess960=is_chess960(tags_of(game.text)),
                    stipulation=read_info(game.headers).stipulation,
                ).themes
                digest.update(repr([(t.name, t.ply, t.detail) for t in found]).encode())
                counts.update(t.name for t in found)
                replayed += 1
                if replayed == limit:
                    return counts, digest.hexdigest()[:16]
    return counts, digest.hexdigest()[:16]


@pytest.mark.slow  # 199 studies and 500 tournament games replayed: about 4 s
def test_the_corpus_themes_are_pinned(corpus_dir: Path) -> None:
    """The themes, plies and details found on the corpus studies, the classics and the
    first 500 tournament games stay what they were when domination got faster (#28): a
    speed-up must not change one of them.  (Domination is looked for only where the
    defender has three pieces at most: the games' count went from 259 to 50, the
    studies' stayed.  A study of unknown stipulation whose main line ends in a
    repetition is a draw study since: two lichess studies came in, a positional draw and
    a perpetual check.  Only a repetition that ends the main line is a theme since: a
    repetition the line goes on from went, 3 of the studies' and 22 of the games'.)"""
    studies = [*sorted((corpus_dir / "studies").glob("*.pgn")), CLASSICS]
    counts, digest = _corpus_themes(studies)
    assert dict(counts) == {
        "domination": 17,
        "excelsior": 1,
        "mate": 41,
        "perpetual-check": 2,
        "positional-draw": 10,
        "stalemate": 41,
        "stalemate-line": 14,
        "switchback": 88,
        "underpromotion": 23,
    }
    assert digest == "641d33cb4d41b870"
    counts, digest = _corpus_themes(sorted((corpus_dir / "games").glob("*.pgn")), limit=500)
    assert dict(counts) == {
        "domination": 50,
        "excelsior": 12,
        "mate": 4,
        "perpetual-check": 8,
        "positional-draw": 34,
        "switchback": 1522,
    }
    assert digest == "7d3e67203dd3ea0f"


# -- the solver's men, followed through the moves ----------------------------------------

_MEN_THEMES = ("switchback", "underpromotion", "excelsior")


@st.composite
def played_lines(draw: st.DrawFn) -> tuple[chess.Board, list[chess.Move]]:
    """A start position (the initial one, for castling and en passant, or a few men with
    pawns) and up to 80 random legal moves from it, taking en passant when it may."""
    board = draw(st.one_of(st.just(chess.Board()), boards(pawns=True)))
    played = board.copy()
    moves = []
    for _ in range(draw(st.integers(0, 80))):
        legal = list(played.legal_moves)
        if not legal:
            break
        move = legal[draw(st.integers(0, len(legal) - 1))]
        passant = [move for move in legal if played.is_en_passant(move)]
        if passant and draw(st.booleans()):  # random moves seldom take en passant
            move = passant[0]
        played.push(move)
        moves.append(move)
    return board, moves


def followed_on_a_board(board: chess.Board, moves: list[chess.Move]) -> list[Theme]:
    """Switchback, underpromotion and excelsior played out on a python-chess board: each
    solver man known by where it stood, its new square read off the board (the reference
    for the themes the main line reads off its moves)."""
    board = board.copy()
    solver, found = board.turn, []
    ids = {square: square for square in chess.SquareSet(board.occupied_co[solver])}
    second = chess.BB_RANK_2 if solver == chess.WHITE else chess.BB_RANK_7
    excelsior = set(chess.SquareSet(board.pawns & board.occupied_co[solver] & second))
    left: dict[int, set[int]] = {}
    returned = set()
    for ply, move in enumerate(moves, 1):
        mover = board.turn == solver
        before = board.occupied_co[solver]
        promoting = board.piece_type_at(move.from_square) == chess.PAWN and move.promotion
        board.push(move)
        after = board.occupied_co[solver]
        if not mover:  # the defender took what is gone
            ids = {square: man for square, man in ids.items() if after & chess.BB_SQUARES[square]}
            continue
        gone, come = chess.SquareSet(before & ~after), chess.SquareSet(after & ~before)
        if len(gone) == 2:  # castling: the king and the rook, each to its own square
            kinds = {board.piece_type_at(square): square for square in come}
            rook_from = next(square for square in gone if square != move.from_square)
            moved = {move.from_square: kinds[chess.KING], rook_from: kinds[chess.ROOK]}
        else:
            moved = {move.from_square: move.to_square}
        for origin, target in moved.items():
            man = ids.pop(origin)
            if promoting and origin == move.from_square:
                if move.promotion != chess.QUEEN:
                    letter = chess.piece_symbol(move.promotion).upper()
                    found.append(Theme("underpromotion", ply, letter))
                if man in excelsior:
                    path = f"{chess.square_name(man)}-{chess.square_name(target)}"
                    found.append(Theme("excelsior", ply, path))
                man = -ply
            elif board.piece_type_at(target) != chess.PAWN:
                if target in left.get(man, ()) and (man, target) not in returned:
                    returned.add((man, target))
                    letter = chess.piece_symbol(board.piece_type_at(target)).upper()
                    found.append(Theme("switchback", ply, letter + chess.square_name(target)))
                left.setdefault(man, set()).add(origin)
            ids[target] = man
    return found


@settings(max_examples=examples(300), deadline=None)
@given(played_lines())
def test_the_men_read_off_the_moves_are_those_on_a_board(
    line: tuple[chess.Board, list[chess.Move]],
) -> None:
    """The solver's men followed through the moves alone (the defender's pawns too, for en
    passant) give the themes that following them on a board gives."""
    board, moves = line
    found = [t for t in themes.find_themes(board, moves) if t.name in _MEN_THEMES]
    assert found == sorted(followed_on_a_board(board, moves), key=themes._order)
    men = themes._Men(themes._placement(board))
    men.follow(moves)
    solver = board.turn
    for move in moves:
        board.push(move)
    assert sorted(men.men) == list(chess.SquareSet(board.occupied_co[solver]))
    assert men.their_pawns == board.pawns & board.occupied_co[not solver]
