"""Manoeuvre search, the pure part (studydb.lines): the grammar, its errors, the matcher.

The reference is ``bench/line_reference.py``: python-chess's ``chess.pgn`` and
board, every line replayed and every choice of plies tried, with a reading of
the grammar of its own.
"""

from __future__ import annotations

import zlib

import chess
import helpers
import pytest
from helpers import CLASSICS, examples, line_games, line_reference
from hypothesis import given, settings
from hypothesis import strategies as st

from studydb import lines as lines_module
from studydb.errors import QueryError
from studydb.lines import (
    CHECKED,
    FACTS_WIDTH,
    MATED,
    QUIET,
    STALEMATED,
    MoveStep,
    PlyFacts,
    PositionStep,
    WordStep,
    decode_facts,
    encode_facts,
    facts_keys,
    parse_line,
)
from studydb.movetext import Tee, walk
from studydb.patterns import BoardLines, decode_boards, encode_board_text
from studydb.positions import IndexRows

SAAVEDRA = "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"
SAAVEDRA_MOVES = (
    "1. c7 Rd6+ 2. Kb5 (2. Kc5 Rd1) Rd5+ 3. Kb4 Rd4+ 4. Kb3 Rd3+ 5. Kc2 Rd4 "
    "6. c8=R (6. c8=Q Rc4+ 7. Qxc4 *) Ra4 7. Kb3 *"
)


@pytest.fixture(scope="module")
def classics() -> list[tuple[str, str, str, str]]:
    return line_games([CLASSICS])


def facts_of(fen: str, moves: str) -> str:
    return lines_module.facts_of(chess.Board(fen), moves)


@pytest.mark.parametrize(
    ("text", "kinds", "links"),
    [
        ("P-[a-h]8=N", ["MoveStep"], []),
        ("R-[a-h]7 then R-[a-h]8", ["MoveStep", "MoveStep"], ["then"]),
        ("Kx. next check", ["MoveStep", "WordStep"], ["next"]),
        ("{R[a-h]7 r[a-h]2} then mate", ["PositionStep", "WordStep"], ["then"]),
        (
            "Pc7-c8=N next {N[a-h]8{1,}} next stalemate",
            ["MoveStep", "PositionStep", "WordStep"],
            ["next", "next"],
        ),
        ("  [Aa]x.  then   [RQ]-[a-h]7+ ", ["MoveStep", "MoveStep"], ["then"]),
        ("p-[a-h]1=[rbn]#", ["MoveStep"], []),
    ],
)
def test_lines_parse_into_steps_and_links(text: str, kinds: list[str], links: list[str]) -> None:
    query = parse_line(text)
    assert [type(step).__name__ for step in query.steps] == kinds
    assert list(query.links) == links


def test_a_move_step_reads_every_part() -> None:
    (step,) = parse_line("[RQ]c7x[a-h]8=[rbn]#").steps
    assert isinstance(step, MoveStep)
    assert step.men == frozenset("RQ") and step.origins == (10,) and len(step.targets) == 8
    assert step.capture and step.promotions == frozenset("rbn") and step.mark == "#"
    (plain,) = parse_line("A-.").steps
    assert isinstance(plain, MoveStep) and not plain.capture and len(plain.origins) == 64
    (position,) = parse_line("{not [Qq]. K[a-h]1}").steps
    assert isinstance(position, PositionStep) and len(position.pattern.designators) == 2
    assert isinstance(parse_line("stalemate").steps[0], WordStep)


@pytest.mark.parametrize(
    ("text", "where", "says"),
    [
        ("P-[a-h]9", 3, "is not a square set"),
        ("then mate", 1, "'then' with no step before it"),
        ("mate then", 6, "'then' with no step after it"),
        ("mate then next check", 11, "'next' with no step after 'then'"),
        ("P-[a-h]8 thn mate", 10, "'thn' follows a step"),
        ("thn", 1, "'thn' is not a step"),
        ("{R[a-h]7 then mate", 1, "unclosed '{'"),
        ("mate }", 6, "'}' with no '{'"),
        ("{R[a-h]9} then mate", 2, "is not a designator"),
        ("{} then mate", 1, "has no designator"),
        ("R[a-h]7", 2, "expected '-' (a move) or 'x'"),
        ("X-a1", 1, "'X-a1' is not a move step"),
        ("_-a1", 1, "an empty square does not move"),
        ("P-a8=K", 6, "is not a promotion piece"),
        ("P-a8=", 6, "is not a promotion piece"),
        ("R-a7++", 6, "unexpected '+'"),
        ("R-[a-h]", 3, "names no square"),
        ("R-[a-z]1", 3, "is not in a-h"),
        ("mate mate", 6, "'mate' follows a step"),
    ],
)
def test_malformed_lines_point_at_the_bad_token(text: str, where: int, says: str) -> None:
    with pytest.raises(QueryError) as caught:
        parse_line(text)
    message = str(caught.value)
    assert f"at character {where}:" in message and says in message, message
    assert caught.value.param == "--line"
    assert message.startswith(f"bad line {text!r}")


def test_an_empty_line_is_refused() -> None:
    with pytest.raises(QueryError, match="no step"):
        parse_line("   ")


def test_facts_record_captures_promotions_castling_and_statuses() -> None:
    facts = facts_of("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1", "1. O-O-O O-O 2. bxa8=N Rxa8 *")
    # parent, line, man, from, to (a8 = 'a' … h1 = '/'), captured, promoted to, status
    assert facts == ("000000m......\n000000mK86...\n000001mkeg...\n000002mPjarn.\n000003mrfaN..\n")
    board960 = chess.Board("1k6/8/8/8/8/8/8/1RK2R2 w FB - 0 1", chess960=True)
    castled = walk(board960, "1. O-O *", PlyFacts(board960)).text()  # the king takes its rook
    assert [m.nodes for m in parse_line("K-g1").find(castled)] == [(1,)]
    en_passant = facts_of("k7/8/8/3pP3/8/8/8/K7 w - d6 0 1", "1. exd6 *")
    assert [m.nodes for m in parse_line("Pe5xd6").find(en_passant)] == [(1,)]
    query = parse_line("K-c1 next k-g8 next Pxa8=N next rxa8")
    assert [m.nodes for m in query.find(facts)] == [(1, 2, 3, 4)]
    assert parse_line("K-e1").find(facts) == []
    mated = facts_of("7k/8/6K1/8/8/8/8/R7 w - - 0 1", "1. Ra8# *")
    assert [m.nodes for m in parse_line("R-a8#").find(mated)] == [(1,)]
    assert [m.nodes for m in parse_line("R-a8+").find(mated)] == [(1,)]  # a mate is a check
    assert [m.nodes for m in parse_line("R-a8 then mate").find(mated)] == []  # at the same ply
    assert [m.nodes for m in parse_line("mate").find(mated)] == [(1,)]
    assert [m.nodes for m in parse_line("check").find(mated)] == [(1,)]
    at_start = facts_of("R6k/8/6K1/8/8/8/8/8 b - - 0 1", "*")  # mated before any move
    assert [m.nodes for m in parse_line("mate").find(at_start)] == [(0,)]
    # a mate at the end of a variation, and a line going on after a check
    mates = facts_of("7k/8/6K1/8/8/8/8/R7 w - - 0 1", "1. Ra7 (1. Ra8#) Kg8 2. Rg7+ *")
    assert [m.nodes for m in parse_line("mate").find(mates)] == [(2,)]
    assert [m.nodes for m in parse_line("check").find(mates)] == [(2,), (4,)]
    stale = facts_of("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", "1. Qf7 *")
    assert [m.nodes for m in parse_line("stalemate").find(stale)] == [(1,)]
    assert parse_line("Q-f7+").find(stale) == [] and parse_line("check").find(stale) == []


@given(helpers.boards())
@settings(max_examples=examples(200), deadline=None)
def test_the_facts_find_check_as_python_chess_does(board: chess.Board) -> None:
    for turn in (chess.WHITE, chess.BLACK):
        board.turn = turn
        assert lines_module._is_check(board) == board.is_check()


@pytest.mark.parametrize(
    ("fen", "check"),
    [  # each kind of checker, and the pawns of both sides both ways
        ("4k3/3P4/8/8/8/8/8/4K3 b - - 0 1", True),
        ("4k3/4P3/8/8/8/8/8/4K3 b - - 0 1", False),
        ("4k3/8/8/8/8/8/3p4/4K3 w - - 0 1", True),
        ("4k3/8/8/8/8/8/5P2/4K3 b - - 0 1", False),
        ("4k3/8/3N4/8/8/8/8/4K3 b - - 0 1", True),
        ("4k3/8/8/1B6/8/8/8/4K3 b - - 0 1", True),
        ("4k3/8/8/1B6/8/8/8/4K3 w - - 0 1", False),
        ("4k2R/8/8/8/8/8/8/4K3 b - - 0 1", True),
        ("4k3/8/8/8/8/8/8/Q3K3 b - - 0 1", False),
        ("8/8/8/8/8/8/8/Q3K3 b - - 0 1", False),  # no king
    ],
)
def test_the_facts_find_every_kind_of_check(fen: str, check: bool) -> None:
    board = chess.Board(fen)
    assert board.is_check() is check
    assert lines_module._is_check(board) is check


def test_a_step_never_crosses_into_a_sibling_line() -> None:
    facts = facts_of(SAAVEDRA, SAAVEDRA_MOVES)
    # 2.Kc5 (a variation) and 2...Rd5+ (the main line after 2.Kb5) are on sibling lines.
    assert parse_line("K-c5 then r-d5").find(facts) == []
    assert parse_line("K-c5 next r-d1").find(facts) != []
    # 6.c8=Q is a variation; 6...Ra4 follows 6.c8=R.
    assert parse_line("P-c8=Q then r-a4").find(facts) == []
    assert [m.nodes for m in parse_line("P-c8=R next r-a4").find(facts)] == [(13, 17)]
    found = parse_line("P-c7 then Qxc4").find(facts)
    assert len(found) == 1 and parse_line("P-c7 then Qxc4").find(facts, main_line=True) == []


def test_then_is_later_and_next_is_the_ply_after() -> None:
    facts = facts_of(SAAVEDRA, SAAVEDRA_MOVES)
    assert parse_line("check next check").find(facts) == []  # never two checks in a row
    assert parse_line("check then check").find(facts) != []
    assert parse_line("P-c7 next r-d6").find(facts) != []
    assert parse_line("P-c7 next K-b5").find(facts) == []  # one ply between
    assert parse_line("P-c7 then P-c7").find(facts) == []  # later, not the same ply
    board = chess.Board(SAAVEDRA)
    boards = decode_boards(walk(board, SAAVEDRA_MOVES, IndexRows(board, [])).boards())
    assert parse_line("{Pc7} then P-c7").find(facts, boards) == []  # p1 has it: not later
    assert [m.nodes for m in parse_line("{Pc6} next P-c7").find(facts, boards)] == [(0, 1)]
    assert [m.nodes for m in parse_line("P-c7 next {Pc7}").find(facts, boards)] == [(1, 2)]


def test_every_match_is_listed_with_its_steps_nodes() -> None:
    facts = facts_of(SAAVEDRA, SAAVEDRA_MOVES)
    matches = parse_line("P-c7 then r-.+").find(facts)
    assert [m.nodes for m in matches] == [(1, 2), (1, 6), (1, 8), (1, 10), (1, 15)]
    assert [m.nodes for m in parse_line("r-.+ then r-.+").find(facts, main_line=True)] == [
        (2, 6), (6, 8), (8, 10)
    ]  # fmt: skip


def test_keys_name_moves_captures_promotions_and_statuses() -> None:
    keys = facts_keys(facts_of(SAAVEDRA, SAAVEDRA_MOVES))
    assert keys[768 + 4] is False  # a white queen's capture (7.Qxc4): in a variation only
    assert keys[780 + 3] is False and keys[780 + 2] is True  # =Q in a variation, =R main
    assert keys[788] is True and 789 not in keys  # checks on the main line, no mate
    assert keys[790] is False  # 7.Qxc4 stalemate, in a variation
    assert keys[0 * 64 + 10] is True  # a white pawn to c7


#: Studies whose moves the facts read specially: castling (Chess960's too), a promotion
#: with a capture, en passant, a null move, variations.
UNUSUAL_MOVES = [
    ("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1", "1. O-O-O (1. O-O O-O-O) O-O 2. bxa8=N Rxa8 *"),
    ("1k6/8/8/8/8/8/8/1RK2R2 w FB - 0 1", "1. O-O (1. O-O-O) Kc7 *"),
    ("k7/8/8/3pP3/8/8/8/K7 w - d6 0 1", "1. exd6 (1. e6 -- 2. e7) Ka7 *"),
    ("7k/8/6K1/8/8/8/8/R7 w - - 0 1", "1. Ra7 (1. Ra8#) Kg8 2. Rg7+ Kf8 3. Kf6 *"),
]


@pytest.mark.parametrize(("fen", "moves"), UNUSUAL_MOVES)
def test_the_facts_read_off_the_rows_texts_are_those_read_off_the_boards(
    fen: str, moves: str
) -> None:
    """PlyFacts given IndexRows' board texts (as index_game walks) writes the facts and keys
    it writes reading each board's text itself."""
    board = chess.Board(fen, chess960="FB" in fen)
    rows = IndexRows(board, [])
    fed = walk(board, moves, Tee(rows, PlyFacts(board, rows.texts))).visitors[1]
    alone = walk(board, moves, PlyFacts(board))
    assert fed.text() == alone.text() and fed.keys() == alone.keys()
    assert len(rows.texts) == len(alone.texts) == alone.text().count("\n")


@settings(max_examples=examples(100), deadline=None)
@given(helpers.boards(), st.data())
def test_the_facts_of_random_lines_read_off_the_rows_texts(board: chess.Board, data) -> None:
    """As above, on random legal moves with a variation at a random ply."""
    moves, replayed = [], board.copy()
    for _ in range(data.draw(st.integers(0, 10))):
        legal = list(replayed.legal_moves)
        if not legal:
            break
        moves.append(replayed.san(data.draw(st.sampled_from(legal))))
        replayed.push(replayed.parse_san(moves[-1]))
    if moves:  # the first move again as a variation: the same facts, another parent
        moves.insert(1, f"({moves[0]})")
    text = " ".join(moves)
    rows = IndexRows(board, [])
    fed = walk(board, text, Tee(rows, PlyFacts(board, rows.texts))).visitors[1]
    alone = walk(board, text, PlyFacts(board))
    assert fed.text() == alone.text() and fed.keys() == alone.keys()


def test_the_walk_s_keys_are_those_read_from_its_facts(classics) -> None:
    """PlyFacts.keys (kept as the walk goes) are facts_keys of the text it writes, mates
    and stalemates at the ends of lines included."""
    games = [(fen, moves) for fen, moves, _, _ in classics]
    games += [
        ("7k/8/6K1/8/8/8/8/R7 w - - 0 1", "1. Ra7 (1. Ra8#) Kg8 2. Rg7+ *"),
        ("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", "1. Qf7 (1. Qf8#) *"),
        ("R6k/8/6K1/8/8/8/8/8 b - - 0 1", "*"),
        ("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1", "1. O-O-O O-O 2. bxa8=N Rxa8 *"),
        ("k7/8/8/3pP3/8/8/8/K7 w - d6 0 1", "1. exd6 (1. e6 -- 2. e7) Ka7 *"),
    ]
    for fen, moves in games:
        board = chess.Board(fen)
        facts = walk(board, moves, PlyFacts(board))
        assert facts.keys() == facts_keys(facts.text()), (fen, moves)


def test_each_facts_line_starts_with_its_parent_past_the_written_starts() -> None:
    """A line starts with its parent's number and ``m`` or ``v``, for the parents whose
    starts are written once (below _STARTS_KEPT) and for those past them."""
    board = chess.Board("7k/8/8/8/8/8/R7/K7 w - - 0 1")
    plies = lines_module._STARTS_KEPT + 2
    moves = " ".join(f"R{'ba'[n % 2]}2 K{'gh'[n % 2]}8" for n in range(plies // 2))
    text = walk(board, moves + " (Kg7) *", PlyFacts(board)).text()
    starts = [text[at : at + 7] for at in range(0, len(text), lines_module.FACTS_WIDTH)]
    parents = [0, *range(plies), plies - 1]
    assert starts == [f"{parent:06d}m" for parent in parents[:-1]] + [f"{plies - 1:06d}v"]


@pytest.mark.parametrize("first_read", [1, 3, lines_module.FIRST_READ])
def test_a_long_line_s_boards_are_read_as_far_as_needed(
    monkeypatch: pytest.MonkeyPatch, first_read: int
) -> None:
    """On one line of 81 nodes holds, inflating the boards as its scan goes (a few nodes,
    then twice as many each time), says what find says on the whole text."""
    monkeypatch.setattr(lines_module, "FIRST_READ", first_read)
    board = chess.Board("7k/8/8/8/8/8/R7/K7 w - - 0 1")
    files = "abcdefedcb" * 5  # the rook goes along the 2nd rank and back, the king g8-h8
    moves = " ".join(f"R{files[n + 1]}2 {'Kg8' if n % 2 == 0 else 'Kh8'}" for n in range(40))
    rows = IndexRows(board, [])
    facts = walk(board, moves, Tee(rows, PlyFacts(board))).visitors[1].text()
    text = decode_boards(rows.boards())
    assert len(text) // 80 == 81
    queries = [
        "{Rf2 kg8} then R-a2",
        "R-f2 then {Ra2 kh8}",
        "{Rd2} next k-.",
        "k-g8 next {Rb2}",
        "{Rc2 kg8} then {Re2 kh8}",
        "{Rf2} next {Re2}",
        "R-e2 next {Re2 kh8}",
        "{Ra2 kg8}",
        "{Rf2} then R-f2 then {Rb2 kg8}",
        "R-b2 then {Rb2 kh8} then R-a2",
        "{Ra2 kg8} then {Ra2 kg8} then {Ra2 kg8}",  # first at node 59
        "{Rf2 kg8} then {Rf2 kg8} then {Rf2 kg8} then R-a2",
        "{Rg2}",  # never: every board read
        "R-a2 then {Rg2}",
    ]
    for query in map(parse_line, queries):
        found = bool(query.find(facts, text))
        assert query.holds(facts.encode(), BoardLines(rows.boards())) == found, query.text


#: Lines for the reference comparison on the classics (the corpus test has more).
CHEAP_LINES = [
    "P-[a-h]8=[RBN] then stalemate",
    "check next check next check",
    "{R[a-h]7} then R-[a-h]8",
    "Ax. next ax.",
    "N-.# ",
]


@pytest.mark.parametrize("text", CHEAP_LINES)
def test_the_matcher_finds_what_the_reference_finds(
    classics: list[tuple[str, str, str, str]], text: str
) -> None:
    reference = line_reference()
    query, theirs_query = parse_line(text), reference.compile_line(text)
    for main_line in (True, False):
        ours = [bool(query.find(f, b, main_line=main_line)) for _, _, f, b in classics]
        theirs = [
            reference.finds(theirs_query, fen, moves, main_line=main_line)
            for fen, moves, _, _ in classics
        ]
        assert ours == theirs, (text, main_line)


# -- properties ---------------------------------------------------------------------------


def _move_word(board: chess.Board, move: chess.Move) -> str:
    """An exact move step for ``move`` (as a composer would type it)."""
    piece = board.piece_at(move.from_square)
    assert piece is not None
    to = move.to_square
    if board.is_castling(move):
        to = chess.square(6 if board.is_kingside_castling(move) else 2, chess.square_rank(to))
    word = f"{piece.symbol()}{chess.square_name(move.from_square)}"
    word += f"{'x' if board.is_capture(move) else '-'}{chess.square_name(to)}"
    if move.promotion:
        word += "=" + chess.piece_symbol(move.promotion).upper()
    board.push(move)
    word += "#" if board.is_checkmate() else "+" if board.is_check() else ""
    board.pop()
    return word


@settings(max_examples=examples(25), deadline=None)
@given(data=st.data())
def test_a_line_of_a_studys_own_moves_finds_it(
    classics: list[tuple[str, str, str, str]], data: st.DataObject
) -> None:
    from studydb.movetext import lines as lines_of

    fen, moves, facts, boards = data.draw(
        st.sampled_from([g for g in classics if len(g[2]) > 5 * FACTS_WIDTH])
    )
    line = data.draw(st.sampled_from(lines_of(chess.Board(fen), moves)))
    if not line.moves:
        return
    first = data.draw(st.integers(0, len(line.moves) - 1))
    last = data.draw(st.integers(first, min(len(line.moves) - 1, first + 4)))
    board = line.board.copy()
    for move in line.moves[:first]:
        board.push(move)
    words = []
    for number, move in enumerate(line.moves[first : last + 1]):
        if number:
            words.append(data.draw(st.sampled_from(["then", "next"])))
        words.append(_move_word(board, move))
        board.push(move)
    text = " ".join(words)
    assert parse_line(text).find(facts, boards, main_line=line.main) != [], text


_STEP_TEXTS = ["check", "mate", "stalemate", "A-.", "a-.", "Ax.", "ax.", "P-.", "p-.",
               "R-[a-h]7", "[RQ]-.+", "K-.", "k-.", "{K[a-h]1}", "{r[a-h]2}", "N-.#",
               "{P[a-h]7{1,}}", "[Aa]x.", "P-[a-h]8=[QRBN]", "Bx."]  # fmt: skip


@settings(max_examples=examples(25), deadline=None)
@given(steps=st.lists(st.sampled_from(_STEP_TEXTS), min_size=2, max_size=4), data=st.data())
def test_next_is_never_looser_than_then_and_variations_add_to_the_main_line(
    classics: list[tuple[str, str, str, str]], steps: list[str], data: st.DataObject
) -> None:
    words = [steps[0]]
    for step in steps[1:]:
        words += [data.draw(st.sampled_from(["then", "next"])), step]
    strict = " ".join(words)
    loose = strict.replace(" next ", " then ")
    for _, _, facts, boards in classics:
        found = parse_line(strict).find(facts, boards)
        assert not found or parse_line(loose).find(facts, boards)
        on_main = parse_line(strict).find(facts, boards, main_line=True)
        assert not on_main or found


@settings(max_examples=examples(40), deadline=None)
@given(steps=st.lists(st.sampled_from(_STEP_TEXTS), min_size=1, max_size=4), data=st.data())
def test_holds_says_what_find_says(
    classics: list[tuple[str, str, str, str]], steps: list[str], data: st.DataObject
) -> None:
    """The bit-parallel test of a line (one line of play) and the node-by-node search agree,
    on studies with variations and without, on the main line or every line."""
    words = [steps[0]]
    for step in steps[1:]:
        words += [data.draw(st.sampled_from(["then", "next"])), step]
    query = parse_line(" ".join(words))
    for _, _, facts, boards in classics:
        for main_line in (False, True):
            found = bool(query.find(facts, boards, main_line=main_line))
            assert query.holds(facts.encode(), boards, main_line=main_line) == found
            stored = BoardLines(encode_board_text(boards.encode()))  # inflated as read
            assert query.holds(facts.encode(), stored, main_line=main_line) == found


@pytest.mark.parametrize(
    ("encode", "kind"),
    [
        (encode_facts, b"\x02"),  # written today: zstd
        (lambda text: b"\x01" + zlib.compress(text.encode(), 6), b"\x01"),  # before 0017
    ],
    ids=["zstd", "zlib"],
)
def test_facts_blocks_of_either_format_read_back(encode, kind: bytes) -> None:
    text = facts_of(chess.STARTING_FEN, "1. e4 (1. d4 d5 2. c4) e5 2. Nf3 Nc6 *")
    blob = encode(text)
    assert blob[:1] == kind
    assert decode_facts(blob) == text


@pytest.mark.parametrize("blob", [b"\x03abc", b"\x02not zstd", b"\x01not zlib", b""])
def test_a_damaged_facts_block_is_a_value_error(blob: bytes) -> None:
    with pytest.raises(ValueError):
        decode_facts(blob)


#: Line ends where a king's step decides or cannot decide: (FEN, python-chess's status).
ENDS = [
    ("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1", STALEMATED),  # every flight covered
    ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", STALEMATED),
    ("1k6/1P6/1K6/8/8/8/8/8 b - - 0 1", STALEMATED),
    ("k7/1R6/1K6/8/8/8/8/8 b - - 0 1", STALEMATED),  # the rook defended: no capture
    ("k7/2Q5/1K6/8/7p/8/8/8 b - - 0 1", QUIET),  # no king step, but a pawn's move
    ("kr6/pp6/8/8/8/8/8/K6R b - - 0 1", QUIET),  # hemmed in by its own men; the rook moves
    ("k7/1R6/8/2K5/8/8/8/8 b - - 0 1", QUIET),  # Kxb7: the rook undefended
    ("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1", MATED),
    ("R6k/6pp/8/8/8/8/8/K7 b - - 0 1", MATED),  # back rank
    ("8/k7/8/8/8/8/8/RR5K b - - 0 1", MATED),  # a8 is free only while the king hides it
    ("7k/8/8/8/8/8/r7/K7 w - - 0 1", CHECKED),  # Kxa2
    ("4k3/4P3/4K3/8/8/8/8/8 b - - 0 1", STALEMATED),  # a pawn covers two flights
    ("7k/5Q2/8/8/8/8/p7/6K1 b - - 0 1", QUIET),  # the pawn promotes
    ("8/8/8/8/8/8/8/k1K5 b - - 0 1", QUIET),  # bare kings
]


@pytest.mark.parametrize(("fen", "status"), ENDS, ids=[fen for fen, _ in ENDS])
def test_a_line_end_is_mate_or_stalemate_as_python_chess_says(fen: str, status: str) -> None:
    board = chess.Board(fen)
    expected = (
        MATED if board.is_checkmate() else STALEMATED if board.is_stalemate()
        else CHECKED if board.is_check() else QUIET
    )  # fmt: skip
    assert expected == status  # the table itself is right
    assert facts_of(fen, "*")[12] == status


@given(helpers.boards())
@settings(max_examples=examples(400), deadline=None)
def test_a_king_step_is_found_only_where_there_is_a_legal_move(board: chess.Board) -> None:
    if lines_module._king_can_move(board):
        assert any(move.from_square == board.king(board.turn) for move in board.legal_moves)
    ended = facts_of(board.fen(), "*")[12]
    assert (ended == MATED) == board.is_checkmate()
    assert (ended == STALEMATED) == board.is_stalemate()
