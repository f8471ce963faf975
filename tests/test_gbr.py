"""Tests for the GBR codec (studydb.gbr)."""

from __future__ import annotations

import doctest
import itertools
import random
import re

import chess
import pytest
from helpers import examples
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import studydb.gbr
import studydb.gbr.codec
import studydb.gbr.extended
import studydb.gbr.pattern
import studydb.gbr.signature
from studydb.gbr import (
    Counts,
    GbrError,
    compile_pattern,
    decode_extended,
    encode,
    encode_extended,
    encode_stipulation_form,
    expand_placement,
    matches,
    material,
    material_from_counts,
    material_from_expanded,
    parse,
    parse_extended,
    parse_signature,
    parse_stipulation_form,
    read_material,
)

SAAVEDRA = "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"
KUBBEL = "6n1/8/2p4P/8/8/r1p3K1/B7/4B1k1 w - - 0 1"

# (FEN, code, signature) -- source of each vector in the comment.
ENCODE_VECTORS = [
    # Saavedra study (1895): K+P v K+R.
    (SAAVEDRA, "0300.10", "KPvKR"),
    # Kubbel study: wBB+P v bR+N+PP (ARVES stipulation-form example =0323.12g3g1).
    (KUBBEL, "0323.12", "KBBPvKRNPP"),
    # ARVES: two white knights v black pawn.
    ("8/8/8/8/4p3/8/8/K1N1N2k w - - 0 1", "0002.01", "KNNvKP"),
    # ARVES: wQ bQ wR (pawnless position; the published code omits pawns: 4100).
    ("q7/8/8/8/8/8/8/KQR4k w - - 0 1", "4100.00", "KQRvKQ"),
    # ARVES: wBB v bN.
    ("8/8/8/8/8/8/n7/KBB4k w - - 0 1", "0023.00", "KBBvKN"),
    # ARVES: initial position.
    (chess.STARTING_FEN, "4888.88", "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP"),
    # Wikipedia "GBR code" example: wQ, 2 bR, 2 wB, 2 bB, 3 bN -> 1689.
    ("rr6/bb6/nnn5/8/8/8/8/KQBB3k w - - 0 1", "1689.00", "KQBBvKRRBBNNN"),
    # Edge cases: three knights of either colour.
    ("8/8/8/8/8/8/NNN5/K6k w - - 0 1", "0009.00", "KNNNvK"),
    ("8/8/8/8/8/8/nnn5/K6k w - - 0 1", "0009.00", "KvKNNN"),
    # wQQ v bQ, and bare kings.
    ("q7/8/8/8/8/8/8/KQQ4k w - - 0 1", "5000.00", "KQQvKQ"),
    ("8/8/8/8/8/8/8/K6k w - - 0 1", "0000.00", "KvK"),
]


@pytest.mark.parametrize(("fen", "code", "signature"), ENCODE_VECTORS)
def test_encode_vectors(fen: str, code: str, signature: str) -> None:
    assert encode(fen) == code
    assert encode(chess.Board(fen)) == code
    m = material(fen)
    assert (m.code, m.signature) == (code, signature)
    assert m.men == len(chess.Board(fen).piece_map())


# (code, white counts, black counts, signature, men) -- ARVES definition.
PARSE_VECTORS = [
    ("0300.10", (0, 0, 0, 0, 1), (0, 1, 0, 0, 0), "KPvKR", 4),
    ("0002.01", (0, 0, 0, 2, 0), (0, 0, 0, 0, 1), "KNNvKP", 5),
    ("4100", (1, 1, 0, 0, None), (1, 0, 0, 0, None), "KQRP*vKQP*", None),
    ("0023", (0, 0, 2, 0, None), (0, 0, 0, 1, None), "KBBP*vKNP*", None),
    ("4888.88", (1, 2, 2, 2, 8), (1, 2, 2, 2, 8), "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP", 32),
    ("1689", (1, 0, 2, None, None), (0, 2, 2, None, None), "KQBBN*P*vKRRBBN*P*", None),
    ("0009.00", (0, 0, 0, None, 0), (0, 0, 0, None, 0), "KN*vKN*", None),
    ("5000.00", (2, 0, 0, 0, 0), (1, 0, 0, 0, 0), "KQQvKQ", 5),
    ("0000.00", (0, 0, 0, 0, 0), (0, 0, 0, 0, 0), "KvK", 2),
]


@pytest.mark.parametrize(("code", "white", "black", "signature", "men"), PARSE_VECTORS)
def test_parse_vectors(code, white, black, signature, men) -> None:
    m = parse(code)
    assert m.white == Counts(*white)
    assert m.black == Counts(*black)
    assert (m.code, m.signature, m.men) == (code, signature, men)
    assert m.digits == tuple(int(c) for c in code[:4])
    assert m.pawns == (None if len(code) == 4 else (int(code[5]), int(code[6])))


@pytest.mark.parametrize(
    ("code", "flipped"),
    [("0300.10", "0100.01"), ("0323.12", "0161.21"), ("4100", "4300"), ("0009.00", "0009.00")],
)
def test_flipped(code: str, flipped: str) -> None:
    assert parse(code).flipped().code == flipped
    assert parse(code).flipped().flipped() == parse(code)


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ("03a0.10", "'a' is not a digit"),
        ("12345", "expected 4 piece digits"),
        ("0300.1", "expected 2 pawn digits"),
        ("0300.", "expected 2 pawn digits"),
        ("030", "expected 4 piece digits"),
        ("", "empty"),
        ("0300.19", "at most 8 pawns"),
        ("0300.10.1", "at most one point"),
    ],
)
def test_parse_errors(bad: str, reason: str) -> None:
    with pytest.raises(GbrError, match=reason) as info:
        parse(bad)
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize(
    ("signature", "code"),
    [
        ("KRPvKR", "0400.10"),
        ("KRPVKR", "0400.10"),
        ("krpvkr", "0400.10"),
        ("KvK", "0000.00"),
        ("KNNNvK", "0009.00"),
        ("KQRP*vKQP*", "4100"),
        ("KPvKR", "0300.10"),
    ],
)
def test_parse_signature(signature: str, code: str) -> None:
    assert parse_signature(signature).code == code


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ("KRPKR", "one 'v'"),
        ("KRvKvK", "one 'v'"),
        ("RPvKR", "exactly one K"),
        ("KKvK", "exactly one K"),
        ("KXvK", "made of K, Q, R, B, N, P"),
        ("KPPPPPPPPPvK", "more than 8 pawns"),
        ("KQQQQQQQQQQQQQQQQvK", "more than 16 men"),
        ("", "one 'v'"),
    ],
)
def test_parse_signature_errors(bad: str, reason: str) -> None:
    with pytest.raises(GbrError, match=reason):
        parse_signature(bad)


def _signature_of(counts: tuple[int, ...]) -> str:
    white, black = (
        "K" + "".join(letter * n for letter, n in zip("QRBNP", side, strict=True))
        for side in (counts[:5], counts[5:])
    )
    return f"{white}v{black}"


@settings(max_examples=examples(500), deadline=None)
@given(st.tuples(*[st.integers(0, 4)] * 4, st.integers(0, 8), *[st.integers(0, 4)] * 4,
                 st.integers(0, 8)))  # fmt: skip
def test_material_from_counts_is_the_signatures_material(counts: tuple[int, ...]) -> None:
    try:
        expected = parse_signature(_signature_of(counts))
    except GbrError as exc:  # more than 16 men on a side
        with pytest.raises(GbrError, match=str(exc).rsplit(": ", 1)[1]):
            material_from_counts(counts)
    else:
        assert material_from_counts(counts) == expected


@pytest.mark.parametrize(
    ("counts", "reason"),
    [
        ((0, 0, 0, 0, 9, 0, 0, 0, 0, 0), "White has more than 8 pawns"),
        ((0, 0, 0, 0, 0, 9, 2, 2, 2, 1), "Black has more than 16 men"),
        ((0, 0, 0, 0, 0, 0, 0, 0, 0), "expected ten counts"),
        ((0, 0, 0, -1, 0, 0, 0, 0, 0, 0), "expected ten counts of at least 0"),
    ],
)
def test_material_from_counts_errors(counts: tuple[int, ...], reason: str) -> None:
    with pytest.raises(GbrError, match=reason):
        material_from_counts(counts)


@pytest.mark.parametrize(
    ("fen", "reason"),
    [
        ("8/8/8/8/8/8/8/8 w - - 0 1", "White has 0 kings"),
        ("8/8/8/8/8/8/8/KK5k w - - 0 1", "White has 2 kings"),
        ("8/8/8/8/8/8/8/K7 w - - 0 1", "Black has 0 kings"),
        ("k7/8/pppppppp/p7/8/8/8/K7 w - - 0 1", "Black has 9 pawns"),
        ("K7/8/PPPPPPPP/P7/8/8/8/k7 w - - 0 1", "White has 9 pawns"),
        ("not a fen", "invalid FEN"),
        ("8/8/8/8/8/8/8/K6k x - - 0 1", "invalid FEN"),
        ("8/8/8/8/8/8/8/K5k w - - 0 1", "invalid FEN"),
        ("8/8/8/8/8/8/8/K6k/8 w - - 0 1", "invalid FEN"),
        ("", "invalid FEN"),
    ],
)
def test_encode_errors(fen: str, reason: str) -> None:
    with pytest.raises(GbrError, match=reason) as info:
        encode(fen)
    assert repr(fen) in str(info.value)


@pytest.mark.parametrize(
    "fen",
    [
        "8/8/8/8/8/8/8/8 w",
        "8/8/8/8/8/8/8/KK5k w",
        "8/8/8/8/8/8/8/K7 b",
        "k7/8/pppppppp/p7/8/8/8/K7 w",
        "8/8/1KP5/3r4/8/8/8/k7 w",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b",
        "QQQQQQQQ/QQQQQQQQ/8/8/8/8/8/k1K5 w",
    ],
)
def test_material_from_expanded_is_the_material_of_the_fen(fen: str) -> None:
    expanded = expand_placement(fen.split()[0])
    assert expanded is not None
    try:
        expected = material(fen)
    except GbrError as exc:
        with pytest.raises(GbrError) as info:
            material_from_expanded(expanded, fen)
        assert str(info.value) == str(exc)
    else:
        assert material_from_expanded(expanded, fen) == expected


def test_encode_accepts_what_python_chess_accepts() -> None:
    # Forms outside the fast parser's subset go to python-chess.
    for fen in [
        "8/8/1KP5/3r4/8/8/8/k7",  # board part only
        "8/8/1KP5/3r4/8/8/8/k7 w",
        "8/8/1KP5/3r4/8/8/8/k7   w  -  -  0  1",  # extra spaces
        "8/8/1KP5/3r4/8/8/8/k7 b - - 0 0",
        "8/8/1KP5/3Q~4/8/8/8/k7 w - - 0 1",  # crazyhouse promoted marker
    ]:
        assert encode(fen) in {"0300.10", "1000.10"}


# Strings close to FENs: chunks of real FEN syntax glued at random.
FEN_ALPHABET = "12345678pnbrqkPNBRQK/ wb-KQkqa3h6~0x"
near_fen = st.one_of(
    st.text(alphabet=FEN_ALPHABET, max_size=80),
    st.builds(
        lambda board, rest: board + rest,
        st.sampled_from([SAAVEDRA.split()[0], KUBBEL.split()[0], chess.STARTING_BOARD_FEN]),
        st.text(alphabet=" wb-KQkqa3h6/0123456789x", max_size=20),
    ),
    st.builds(
        lambda fen, i, c: fen[:i] + c + fen[i + 1 :],
        st.sampled_from([SAAVEDRA, KUBBEL, chess.STARTING_FEN]),
        st.integers(0, 60),
        st.sampled_from([*FEN_ALPHABET, ""]),
    ),
)


@pytest.mark.slow
@settings(max_examples=examples(1500), suppress_health_check=[HealthCheck.too_slow])
@given(near_fen)
def test_fast_parser_agrees_with_python_chess(text: str) -> None:
    try:
        board = chess.Board(text)
    except ValueError:
        with pytest.raises(GbrError):
            encode(text)
        return
    kings_ok = all(len(board.pieces(chess.KING, c)) == 1 for c in chess.COLORS)
    pawns_ok = all(len(board.pieces(chess.PAWN, c)) <= 8 for c in chess.COLORS)
    if kings_ok and pawns_ok:
        assert encode(text) == encode(board)
    else:
        with pytest.raises(GbrError):
            encode(text)


# -- extended notation and stipulation form ---------------------------------

# (FEN, stipulation, extended) -- ARVES examples.
EXTENDED_VECTORS = [
    (SAAVEDRA, None, "b6a1 0300.10 d5.c6 2/2"),
    (KUBBEL, "draw", "g3g1 0323.12 a3a2e1g8.h6c3c6 4/5="),
    # ARVES extended-notation example (no pawns: no point).
    ("8/K7/2nn4/8/8/1B1k4/1R6/8 w - - 0 1", "win", "a7d3 0116.00 b2b3c6d6 3/3+"),
    ("8/8/8/8/8/8/8/K6k w - - 0 1", None, "a1h1 0000.00 1/1"),
    ("8/8/8/8/8/8/4P3/K6k w - - 0 1", "win", "a1h1 0000.10 .e2 2/1+"),
]


@pytest.mark.parametrize(("fen", "stipulation", "extended"), EXTENDED_VECTORS)
def test_extended_vectors(fen: str, stipulation: str | None, extended: str) -> None:
    assert encode_extended(fen, stipulation=stipulation) == extended
    result = parse_extended(extended)
    assert result.fen == fen
    assert result.stipulation == stipulation
    assert decode_extended(extended).fen() == fen


def test_extended_options() -> None:
    assert encode_extended(SAAVEDRA, control=False) == "b6a1 0300.10 d5.c6"
    assert encode_extended(SAAVEDRA, stipulation="+", control=False) == "b6a1 0300.10 d5.c6 +"
    assert decode_extended("b6a1 0300.10 d5.c6", turn=chess.BLACK).turn == chess.BLACK
    board = decode_extended("e1e8 0800.00 a1h1a8h8", castling="KQkq")
    assert board.castling_rights == chess.BB_CORNERS
    assert parse_extended("b6a1 0300.10 d5.c6 +").stipulation == "win"
    assert parse_extended("a1h1 0000 1/1").material.code == "0000.00"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("b6a1 0300.10 d5.c6 3/2", "control count 3/2 disagrees"),
        ("b6a1 0300.10 b6.c6 2/2", "square b6 is used twice"),
        ("b6a1 0300.10 d5.d5 2/2", "square d5 is used twice"),
        ("b6a1 0300.10 d9.c6 2/2", "malformed square 'd9'"),
        ("b6a1 0300.10 d5.c 2/2", "malformed square 'c'"),
        ("b6i1 0300.10 d5.c6", "malformed square 'i1'"),
        ("b6a1 0009.00 d5e5f5", "9 digit"),
        ("b6a1 0300.10 d5e5.c6", "needs 1 piece square"),
        ("b6a1 0300.10 d5", "needs 1 pawn square"),
        ("b6a1 0300 d5.c6", "does not say how many pawns"),
        ("b6a1 03x0.10 d5.c6", "malformed GBR code"),
        ("b6a1", "expected kings' squares and a code"),
        ("b6 0300.10 d5.c6", "expected the two kings' squares"),
        ("b6a1 0300.10 d5.c6 2/2 extra", "must come last"),
        ("b6a1 0300.10 d5.c6 d5.c6", "unexpected"),
        ("b6a1 0300.10 d5.c6.e4", "more than one '.'"),
    ],
)
def test_extended_errors(text: str, reason: str) -> None:
    with pytest.raises(GbrError, match=reason):
        parse_extended(text)


def test_stipulation_form() -> None:
    assert encode_stipulation_form(KUBBEL, "draw") == "=0323.12g3g1"
    assert encode_stipulation_form(SAAVEDRA, "win") == "+0300.10b6a1"
    form = parse_stipulation_form("=0323.12g3g1")
    assert form.stipulation == "draw"
    assert form.material.code == "0323.12"
    assert (form.white_king, form.black_king) == ("g3", "g1")
    assert parse_stipulation_form("+4100a1h8").material.pawns is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("0323.12g3g1", "must start with '\\+' or '='"),
        ("=0323.12g3", "two kings' squares"),
        ("=0323.12g3g9", "malformed square 'g9'"),
        ("=0323.1g3g1", "malformed GBR code"),
        ("=0323.12g3g3", "both kings on g3"),
        ("*0323.12g3g1", "expected a sign"),
    ],
)
def test_stipulation_form_errors(text: str, reason: str) -> None:
    with pytest.raises(GbrError, match=reason):
        parse_stipulation_form(text)


def test_unknown_stipulation() -> None:
    with pytest.raises(GbrError, match="unknown stipulation 'lose'"):
        encode_stipulation_form(SAAVEDRA, "lose")


# -- hypothesis round trips -------------------------------------------------


@st.composite
def legal_positions(draw: st.DrawFn) -> chess.Board:
    """Random legal positions: random moves from a random start setup."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    start = draw(
        st.sampled_from(
            [chess.STARTING_FEN, SAAVEDRA, KUBBEL, "8/K7/2nn4/8/8/1B1k4/1R6/8 w - - 0 1"]
            + [chess.Board.from_chess960_pos(n).fen() for n in (0, 100, 518, 959)]
        )
    )
    board = chess.Board(start)
    for _ in range(draw(st.integers(0, 120))):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


@pytest.mark.slow
@settings(max_examples=examples(200), deadline=None)
@given(legal_positions())
def test_extended_round_trip(board: chess.Board) -> None:
    m = material(board)
    assume(9 not in m.digits)
    decoded = decode_extended(encode_extended(board, stipulation="win"))
    assert decoded.board_fen() == board.board_fen()


@pytest.mark.slow
@settings(max_examples=examples(200), deadline=None)
@given(legal_positions())
def test_decode_encode_round_trip(board: chess.Board) -> None:
    code = encode(board)
    exact = material(board)
    decoded = parse(code)
    assert decoded.code == code
    if 9 not in decoded.digits:
        assert (decoded.white, decoded.black) == (exact.white, exact.black)
    else:
        # A 9 never invents counts.
        assert decoded.men is None
    assert encode(board.fen()) == code
    assert encode(board.mirror()) == exact.flipped().code


codes = st.builds(
    lambda d, p: "".join(map(str, d)) + ("" if p is None else f".{p[0]}{p[1]}"),
    st.tuples(*[st.integers(0, 9)] * 4),
    st.none() | st.tuples(st.integers(0, 8), st.integers(0, 8)),
)


@given(codes)
def test_flip_twice_is_identity(code: str) -> None:
    m = parse(code)
    assert m.flipped().flipped() == m
    assert parse(m.flipped().code).flipped().code == code
    assert studydb.gbr.flip_pattern(code) == m.flipped().code  # patterns flip as codes do


def test_flip_pattern_keeps_wildcards() -> None:
    assert studydb.gbr.flip_pattern("03??.1?") == "01??.?1"
    assert compile_pattern(studydb.gbr.flip_pattern("0?1?")).matches("0031.00")
    with pytest.raises(GbrError, match="malformed GBR pattern"):
        studydb.gbr.flip_pattern("03a0")


patterns = st.builds(
    lambda d, p: "".join(d) + ("" if p is None else "." + "".join(p)),
    st.tuples(*[st.sampled_from("0123456789??")] * 4),
    st.none() | st.tuples(*[st.sampled_from("012345678??")] * 2),
)


def brute_force_match(code: str, pattern: str) -> bool:
    pieces, _, pawns = code.partition(".")
    p_pieces, _, p_pawns = pattern.partition(".")
    if any(p not in ("?", c) for p, c in zip(p_pieces, pieces, strict=True)):
        return False
    if not p_pawns or p_pawns == "??":
        return True
    if not pawns:
        return False
    return all(p in ("?", c) for p, c in zip(p_pawns, pawns, strict=True))


@pytest.mark.slow
@given(codes, patterns)
def test_pattern_agrees_with_brute_force(code: str, pattern: str) -> None:
    assert matches(code, pattern) == brute_force_match(code, pattern)
    assert (code[:4] in compile_pattern(pattern).piece_codes()) == brute_force_match(
        code[:4], pattern.partition(".")[0]
    )


def test_pattern_details() -> None:
    p = compile_pattern("03??.1?")
    assert p.pawns == (frozenset({1}), None)
    assert len(p.piece_codes()) == 100
    assert p.like == "03__.1_"
    assert compile_pattern("0300").like == "0300%"
    assert compile_pattern("0300").pawns == (None, None)
    assert compile_pattern("????").piece_codes() == [f"{n:04d}" for n in range(10000)]
    assert matches("0300.10", "0300")
    assert not matches("0300", "0300.10")
    assert [c for c in itertools.islice(compile_pattern("0?00").piece_codes(), 3)] == [
        "0000",
        "0100",
        "0200",
    ]


@pytest.mark.parametrize("bad", ["03?", "03??.9?", "03a?", "0300.1", ""])
def test_pattern_errors(bad: str) -> None:
    with pytest.raises(GbrError, match="malformed GBR pattern"):
        compile_pattern(bad)


def test_matches_rejects_malformed_code() -> None:
    with pytest.raises(GbrError, match="malformed GBR code '03x0'"):
        matches("03x0", "03??")


# -- material as people write it ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "signature"),
    [
        ("KRPvKR", "KRPvKR"),
        ("KRP v KR", "KRPvKR"),
        ("KRPKR", "KRPvKR"),
        ("R+P v R", "KRPvKR"),
        ("RP-R", "KRPvKR"),
        ("K+R+P vs. K+R", "KRPvKR"),
        ("rook and pawn versus rook", "KRPvKR"),
        ("King, Rook and Pawn against King and Rook", "KRPvKR"),
        ("krpvkr", "KRPvKR"),
        ("PRK v RK", "KRPvKR"),  # any order
        ("two knights v pawn", "KNNvKP"),
        ("2N v P", "KNNvKP"),
        ("K2NvKP", "KNNvKP"),
        ("queen against rook", "KQvKR"),
        ("a bishop and a knight v king", "KBNvK"),
        ("K v K", "KvK"),
        ("KP* v K", "KP*vK"),
        ("bishops v knight", "KBvKN"),  # a plural without a count is one
    ],
)
def test_read_material(text: str, signature: str) -> None:
    material = read_material(text)
    assert material.signature == signature
    assert material == parse_signature(signature)


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ("rook and spoon v rook", "'spoon' is not a man"),
        ("KRPvKRvK", "3 sides"),
        ("RPKR", "where does Black's side start"),
        ("KRP", "where does Black's side start"),
        ("KRP v", "Black's side is empty"),
        ("v KR", "White's side is empty"),
        ("2 v R", "2 of what"),
        ("R v two", "2 of what"),
        ("two three rooks v K", "two counts in a row"),
        ("9 pawns v K", "a count of 9"),
        ("KKR v K", "White has 2 kings"),
        ("K* v K", "'*' follows the man it counts"),
        ("KPPPPPPPPP v K", "more than 8 pawns"),
        ("", "where does Black's side start"),
    ],
)
def test_read_material_errors(bad: str, reason: str) -> None:
    with pytest.raises(GbrError, match=re.escape(reason)) as caught:
        read_material(bad)
    assert repr(bad) in str(caught.value)


_WORDS = {"Q": "queen", "R": "rook", "B": "bishop", "N": "knight", "P": "pawn"}
_NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def _in_words(side: str) -> str:
    """``'KRPP'`` as ``'king, rook and two pawns'``."""
    parts = ["king"]
    for letter in "QRBNP":
        n = side.count(letter)
        if n:
            parts.append(_WORDS[letter] if n == 1 else f"{_NUMBERS[n]} {_WORDS[letter]}s")
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


@given(board=legal_positions())
@settings(max_examples=examples(60), suppress_health_check=[HealthCheck.too_slow], deadline=None)
def test_every_way_of_writing_a_position_s_material_reads_the_same(board: chess.Board) -> None:
    signature = material(board).signature
    white, black = signature.split("v")
    assume(max(white.count(p) for p in "QRBNP") <= 8 and max(black.count(p) for p in "QRBNP") <= 8)
    for text in (
        signature,
        f"{white} v {black}",
        white + black,
        f"{'+'.join(white[1:]) or 'K'} vs {'+'.join(black[1:]) or 'K'}",
        f"{_in_words(white)} versus {_in_words(black)}",
        signature.lower(),
    ):
        assert read_material(text).signature == signature, text


@pytest.mark.parametrize(
    "module",
    [
        studydb.gbr,
        studydb.gbr.codec,
        studydb.gbr.extended,
        studydb.gbr.pattern,
        studydb.gbr.signature,
    ],
)
def test_doctests(module) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0
