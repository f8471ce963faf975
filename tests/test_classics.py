"""Checks on the sample collection data/classics.pgn.

Every study must parse cleanly, start from a legal position, have a legal main line and
well-formed headers; wherever Syzygy tables cover a position, the stipulation must agree
with them, both at the start and at the end of the main line.
"""

import io
import os
import re
from pathlib import Path

import chess
import chess.pgn
import chess.syzygy
import pytest
from helpers import CLASSICS

SYZYGY_DIR = Path(__file__).resolve().parents[2] / "shared" / "syzygy"

RESULTS = {"win": "1-0", "draw": "1/2-1/2"}
SIGNS = {"win": "+", "draw": "="}
YEAR = re.compile(r"^(\d{4})\.(\d\d|\?\?)\.(\d\d|\?\?)$")
MAX_TABLE_MEN = 4

SAAVEDRA = "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"
RETI = "7K/8/k1P5/7p/8/8/8/8 w - - 0 1"
KUBBEL_1925 = "6n1/8/2p4P/8/8/r1p3K1/B7/4B1k1 w - - 0 1"


def read_classics() -> list[chess.pgn.Game]:
    """Read every game of the sample collection."""
    games = []
    with CLASSICS.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    return games


GAMES = read_classics()


def study_id(game: chess.pgn.Game) -> str:
    """A readable test id: composer and year."""
    return f"{game.headers.get('Composer', '?')} {game.headers.get('Date', '?')[:4]}"


def final_board(game: chess.pgn.Game) -> chess.Board:
    """Replay the main line move by move, failing on the first illegal move."""
    board = game.board()
    for ply, move in enumerate(game.mainline_moves(), start=1):
        assert board.is_legal(move), f"{study_id(game)}: illegal move at ply {ply}: {move}"
        board.push(move)
    return board


def gbr_code(board: chess.Board) -> str:
    """The GBR code of a position (kept local so this test depends only on the data)."""
    digits = []
    for piece_type in (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT):
        white = len(board.pieces(piece_type, chess.WHITE))
        black = len(board.pieces(piece_type, chess.BLACK))
        digits.append("9" if max(white, black) >= 3 else str(white + 3 * black))
    pawns = (len(board.pieces(chess.PAWN, color)) for color in (chess.WHITE, chess.BLACK))
    return "".join(digits) + "." + "".join(str(count) for count in pawns)


def men(board: chess.Board) -> int:
    return chess.popcount(board.occupied)


@pytest.fixture(scope="module")
def tablebase():
    if not SYZYGY_DIR.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"Syzygy tables missing under CI: {SYZYGY_DIR}")
        pytest.skip(f"Syzygy tables not found: {SYZYGY_DIR}")
    with chess.syzygy.open_tablebase(str(SYZYGY_DIR)) as tables:
        yield tables


def white_wdl(tables: chess.syzygy.Tablebase, board: chess.Board) -> int | None:
    """WDL from White's point of view, or None when no table covers the position."""
    try:
        wdl = tables.probe_wdl(board)
    except (KeyError, chess.syzygy.MissingTableError):
        return None
    return wdl if board.turn == chess.WHITE else -wdl


# --- the collection as a whole ----------------------------------------------------------


def test_collection_size():
    assert 20 <= len(GAMES) <= 40, len(GAMES)


def test_no_duplicate_start_positions():
    fens = [game.headers["FEN"] for game in GAMES]
    duplicates = {fen for fen in fens if fens.count(fen) > 1}
    assert not duplicates, duplicates


def test_famous_studies_present():
    by_fen = {game.headers["FEN"]: game for game in GAMES}
    assert by_fen[SAAVEDRA].headers["Stipulation"] == "win"
    assert "Saavedra, Fernando" in by_fen[SAAVEDRA].headers["White"]
    assert by_fen[RETI].headers["Stipulation"] == "draw"
    assert by_fen[RETI].headers["Composer"] == "Réti, Richard"
    kubbel = by_fen[KUBBEL_1925]
    assert kubbel.headers["Composer"].startswith("Kubbel")
    assert kubbel.headers["Date"].startswith("1925")
    assert kubbel.headers["Stipulation"] == "draw"
    assert gbr_code(kubbel.board()) == "0323.12"


def test_gbr_code_helper():
    assert gbr_code(chess.Board(SAAVEDRA)) == "0300.10"
    assert gbr_code(chess.Board()) == "4888.88"


# --- each study -------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=study_id)
def test_parses_cleanly_and_replays(game: chess.pgn.Game):
    assert game.errors == [], game.errors
    board = game.board()
    assert board.is_valid(), f"{study_id(game)}: {board.status()!r}"
    assert board.turn == chess.WHITE
    moves = list(game.mainline_moves())
    assert moves, f"{study_id(game)}: no solution"
    final_board(game)
    # The file round-trips: the exported movetext reads back to the same main line.
    again = chess.pgn.read_game(io.StringIO(str(game)))
    assert list(again.mainline_moves()) == moves


@pytest.mark.parametrize("game", GAMES, ids=study_id)
def test_headers(game: chess.pgn.Game):
    headers = game.headers
    for tag in ("Event", "White", "Composer", "Source", "Date", "Stipulation", "SetUp", "FEN"):
        assert headers.get(tag, "").strip(), f"{study_id(game)}: missing {tag}"
    assert YEAR.match(headers["Date"]), headers["Date"]
    stipulation = headers["Stipulation"]
    assert stipulation in RESULTS, stipulation
    assert headers["Black"] == SIGNS[stipulation]
    assert headers["Result"] == RESULTS[stipulation]
    assert headers["SetUp"] == "1"
    composers = [headers["Composer"]]
    index = 2
    while f"Composer{index}" in headers:
        composers.append(headers[f"Composer{index}"])
        index += 1
    assert headers["White"] == " & ".join(composers)
    assert all(re.match(r"^[^,]+, \S", name) for name in composers), composers


def ends_checkably(game: chess.pgn.Game) -> bool:
    """Whether the main line ends in mate, stalemate or a position the tables cover."""
    try:
        board = final_board(game)
    except Exception:  # reported by test_parses_cleanly_and_replays
        return False
    return board.is_checkmate() or board.is_stalemate() or men(board) <= MAX_TABLE_MEN


#: Studies small enough for the tables at the start, and studies whose solution
#: ends in mate, stalemate or a small position; the rest cannot be checked here.
TABLE_STARTS = [game for game in GAMES if men(game.board()) <= MAX_TABLE_MEN]
CHECKABLE_ENDS = [game for game in GAMES if ends_checkably(game)]


def test_enough_studies_are_checked_against_the_tables():
    assert len(TABLE_STARTS) >= 4
    assert len(CHECKABLE_ENDS) >= 15


@pytest.mark.parametrize("game", TABLE_STARTS, ids=study_id)
def test_start_agrees_with_tablebase(game: chess.pgn.Game, tablebase):
    board = game.board()
    wdl = white_wdl(tablebase, board)
    assert wdl is not None, f"{study_id(game)}: no table for {board.fen()}"
    if game.headers["Stipulation"] == "win":
        assert wdl > 0, f"{study_id(game)}: tablebase says {wdl}"
    else:
        assert wdl == 0, f"{study_id(game)}: tablebase says {wdl}"


@pytest.mark.parametrize("game", CHECKABLE_ENDS, ids=study_id)
def test_solution_ends_in_stipulated_result(game: chess.pgn.Game, tablebase):
    board = final_board(game)
    win = game.headers["Stipulation"] == "win"
    if board.is_checkmate():
        assert win and board.turn == chess.BLACK, f"{study_id(game)}: wrong side mated"
        return
    if board.is_stalemate():
        assert not win, f"{study_id(game)}: a win study ends in stalemate"
        return
    wdl = white_wdl(tablebase, board)
    assert wdl is not None, f"{study_id(game)}: no table for {board.fen()}"
    if win:
        assert wdl > 0, f"{study_id(game)}: final position {board.fen()} scores {wdl}"
    else:
        assert wdl == 0, f"{study_id(game)}: final position {board.fen()} scores {wdl}"
