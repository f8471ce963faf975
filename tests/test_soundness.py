"""Tablebase and engine checks (studydb.soundness) on crafted studies with known verdicts."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import chess
import pytest
from helpers import alive, require, wait_for

from studydb import soundness
from studydb.errors import NoTablesError, QueryError, SoundnessError
from studydb.movetext import errors_of
from studydb.movetext import main_line as parse_moves
from studydb.soundness import Checker, open_engine, open_tables
from studydb.soundness.checker import HUNG_STUDIES

STOCKFISH = "/usr/games/stockfish"
ENGINE_DEPTH = 12


@pytest.fixture(scope="module")
def checker(syzygy: str) -> Iterator[Checker]:
    tables = open_tables([syzygy])
    yield Checker(tables)
    tables.close()


@pytest.fixture(scope="module")
def engine_checker(syzygy: str) -> Iterator[Checker]:
    require(shutil.which(STOCKFISH) is not None, f"{STOCKFISH} is not installed")
    tables = open_tables([syzygy])
    engine = open_engine(STOCKFISH, depth=ENGINE_DEPTH)
    yield Checker(tables, engine)
    engine.close()
    tables.close()


def check(checker: Checker, fen: str, moves: str, stipulation: str) -> soundness.Report:
    board = chess.Board(fen)
    return checker.check(board, parse_moves(board, moves), stipulation)


# (name, FEN, solution, stipulation, verdict, {flag: plies}, claim ply)
CRAFTED = [
    (
        "claimed draw in a won KQvK",
        "8/8/8/8/8/2k5/8/KQ6 w - - 0 1",
        "1. Qb2+ Kc4",
        "draw",
        "unsound",
        {"claim": [1], "error": []},
        0,
    ),
    (
        "KRvK solution throws the win away at ply 3",
        "8/8/8/8/8/2k5/7R/K7 w - - 0 1",
        "1. Rh3+ Kd4 2. Rd3+ Kxd3",
        "win",
        "unsound",
        {"error": [3], "claim": [], "weak": [2]},
        0,
    ),
    (
        "two winning first moves (Kd5, Kc5)",
        "8/1k6/8/4P3/2K5/8/8/8 w - - 0 1",
        "1. Kd5",
        "win",
        "duals",
        {"dual": [1], "error": []},
        0,
    ),
    (
        "Black's 1...Kd4 loses faster than the best defence",
        "8/8/8/8/8/2k5/7R/K7 w - - 0 1",
        "1. Rh3+ Kd4",
        "win",
        "duals",
        {"weak": [2], "error": []},
        0,
    ),
    (
        "Black's best defence 1...Kc4 is not weak",
        "8/8/8/8/8/2k5/7R/K7 w - - 0 1",
        "1. Rh3+ Kc4",
        "win",
        "duals",
        {"weak": []},
        0,
    ),
    (
        "the Saavedra study is sound",
        "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1",
        "1. c7 Rd6+ 2. Kb5 Rd5+ 3. Kb4 Rd4+ 4. Kb3 Rd3+ 5. Kc2 Rd4 6. c8=R Ra4 7. Kb3",
        "win",
        "sound",
        {"error": [], "weak": [], "claim": [], "dual": [5, 7, 11]},
        0,
    ),
    (
        "more men than the tables: unchecked",
        "4k3/8/8/8/8/8/3PPP2/4K3 w - - 0 1",
        "1. e4 Kd7",
        "win",
        "unchecked",
        {"error": [], "missing": []},
        None,
    ),
]


@pytest.mark.parametrize(
    ("fen", "moves", "stipulation", "verdict", "flags", "claim_ply"),
    [case[1:] for case in CRAFTED],
    ids=[case[0] for case in CRAFTED],
)
def test_crafted_verdicts(
    checker: Checker,
    fen: str,
    moves: str,
    stipulation: str,
    verdict: str,
    flags: dict[str, list[int]],
    claim_ply: int | None,
) -> None:
    report = check(checker, fen, moves, stipulation)
    assert report.verdict == verdict, report
    for flag, plies in flags.items():
        assert report.flagged(flag) == plies, (flag, report)
    assert report.claim_ply == claim_ply


def test_error_names_the_result_lost(checker: Checker) -> None:
    report = check(checker, "8/8/8/8/8/2k5/7R/K7 w - - 0 1", "1. Rh3+ Kd4 2. Rd3+ Kxd3", "win")
    error = report.first_error
    assert error is not None and error.ply == 3 and error.san == "Rd3+"
    assert (error.wdl, error.move_wdl) == (2, 0)
    # The refutation and the moves that keep the win, fastest first (#26).
    assert error.note == "throws the win away: 2.Rd3+? draws: 2…Kxd3!; 2.Kb2 wins (or 13 more)"
    assert error.refutation == "Kxd3"
    assert error.alternatives[0].san == "Kb2" and len(error.alternatives) == 14
    assert all(a.wdl == 2 for a in error.alternatives)
    assert report.as_dict()["plies"][2]["refutation"] == "Kxd3"


def test_an_error_by_black_is_numbered_as_black_moves(checker: Checker) -> None:
    report = check(checker, "8/8/8/8/8/2K5/7r/k7 b - - 0 1", "1... Rh3+ 2. Kd4 Rd3+", "win")
    error = report.first_error
    assert error is not None and error.note.startswith("throws the win away: 2…Rd3+? draws: ")
    assert ": 3.Kxd3!;" in error.note


def test_dual_lists_alternatives_with_dtz(checker: Checker) -> None:
    report = check(checker, "8/1k6/8/4P3/2K5/8/8/8 w - - 0 1", "1. Kd5", "win")
    [first] = report.plies
    assert [a.san for a in first.alternatives] == ["Kc5"]
    [alt] = first.alternatives
    assert alt.wdl == 2 and alt.dtz is not None and alt.dtz > 0
    assert alt.as_fast == (alt.dtz <= first.dtz)


def test_weak_defence_compares_dtz(checker: Checker) -> None:
    report = check(checker, "8/8/8/8/8/2k5/7R/K7 w - - 0 1", "1. Rh3+ Kd4", "win")
    weak = report.plies[1]
    assert weak.flags == ["weak"]
    assert "loses faster than the best defence" in weak.note


def test_claim_becomes_available_later(checker: Checker) -> None:
    """Five men at the start; after 1. Rxb7 the tables decide: the claim is judged at ply 1."""
    report = check(checker, "1k6/1p6/8/8/8/8/1R6/3K2n1 w - - 0 1", "1. Rxb7+ Kxb7", "draw")
    assert report.claim_ply == 1
    assert report.plies[0].source == "beyond"
    assert report.plies[1].source == "tables"
    # The start was beyond the tables: no errors found from 1...Kxb7, not "sound".
    assert (report.verdict, report.checked_from) == ("no-errors", 1)
    assert report.summary == "no errors found from move 1..."
    assert report.reason == "5 men at the start, beyond the 4-man tables, and no engine"


def test_claim_at_the_final_position(checker: Checker) -> None:
    """Nothing before the last position is within the tables: the claim is judged there."""
    report = check(checker, "1k6/1p6/8/8/8/8/1R6/3K2n1 w - - 0 1", "1. Rxb7+", "draw")
    assert report.claim_ply == 1 and report.claim_wdl == 0
    assert (report.verdict, report.checked_from) == ("no-errors", 1)
    assert report.summary == "no errors found in the final position only (after move 1)"


def test_sound_needs_the_start_verified_and_every_position(checker: Checker) -> None:
    """Saavedra from move 1 is sound; the same study from a 5-man start is not."""
    saavedra = "1. c7 Rd6+ 2. Kb5 Rd5+ 3. Kb4 Rd4+ 4. Kb3 Rd3+ 5. Kc2 Rd4 6. c8=R Ra4 7. Kb3"
    report = check(checker, "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1", saavedra, "win")
    assert (report.verdict, report.checked_from, report.reason) == ("sound", 0, "")
    assert report.as_dict()["summary"] == "sound"
    # Only the first three moves: still checked from the start.
    short = check(checker, "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1", "1. c7 Rd6+ 2. Kb5", "win")
    assert (short.verdict, short.checked_from) == ("sound", 0)


def test_castling_rights_then_tables(checker: Checker) -> None:
    """1. Kd2 gives up castling: the tables judge the final position, not the start."""
    report = check(checker, "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "1. Kd2", "win")
    assert report.plies[0].note == "not judged by the tables: castling rights"
    assert (report.verdict, report.checked_from) == ("no-errors", 1)
    assert report.reason == "not judged by the tables: castling rights"


@pytest.mark.parametrize(
    ("fen", "stipulation", "reason"),
    [
        ("4k3/8/8/8/8/8/3PPP2/4K3 w - - 0 1", "win",
         "5 men at the start, beyond the 4-man tables, and no engine"),
        ("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "win", "not judged by the tables: castling rights"),
        ("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1", "draw", "game over at the start: checkmate"),
        ("k7/8/1Q6/8/8/8/8/7K b - - 0 1", "draw", "game over at the start: stalemate"),
        ("k7/8/1Q6/8/8/8/8/7K b - - 0 1", "win", "game over at the start: stalemate"),
        ("8/8/8/8/8/8/8/Kk6 w - - 0 1", "win", "illegal position: the kings are adjacent"),
        ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "win",
         "illegal position: a pawn on the first or last rank"),
        ("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", "win",
         "illegal position: the side not to move is in check"),
    ],
)  # fmt: skip
def test_unchecked_says_why(checker: Checker, fen: str, stipulation: str, reason: str) -> None:
    for moves in ("", "1. e4 Kd7" if "PPP" in fen else ""):
        report = check(checker, fen, moves, stipulation)
        assert (report.verdict, report.reason) == ("unchecked", reason), report
        assert report.summary == f"unchecked: {reason}"


@pytest.mark.parametrize("mate_in", [None, 1, 30])
def test_mate_is_checked_as_a_win_by_the_tables(checker: Checker, mate_in: int | None) -> None:
    board = chess.Board("8/8/8/8/8/2k5/8/KQ6 w - - 0 1")
    report = checker.check(board, parse_moves(board, "1. Qb2+"), "mate", mate_in=mate_in)
    assert report.verdict == "duals" and report.claim_wdl == 2
    sound = checker.check(
        chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"), [chess.Move.from_uci("c6c7")], "mate"
    )
    assert sound.verdict == "sound"
    assert "win confirmed; the mate's length was not checked" in sound.note
    lost = checker.check(board, [], "mate", mate_in=mate_in)
    assert lost.verdict == "duals"  # several first moves keep the win


@pytest.fixture
def krvk_only(tmp_path: Path, syzygy: str) -> Iterator[soundness.Tables]:
    """A folder with the KRvK tables only."""
    for name in ("KRvK.rtbw", "KRvK.rtbz"):
        (tmp_path / name).symlink_to(Path(syzygy) / name)
    tables = open_tables([str(tmp_path)])
    yield tables
    tables.close()


def test_missing_table(krvk_only: soundness.Tables) -> None:
    """A K+Q v K line with only the K+R v K tables: every ply is missing a table."""
    assert krvk_only.men == 3
    board = chess.Board("8/8/8/8/8/2k5/7Q/K7 w - - 0 1")
    report = Checker(krvk_only).check(board, parse_moves(board, "1. Qh3+ Kd4"), "win")
    assert report.flagged("missing") == [1, 2]
    assert "KQvK" in report.plies[0].note
    assert report.verdict == "unchecked"
    assert report.table_plies == 0


def test_position_without_solution_lists_first_moves(checker: Checker) -> None:
    report = check(checker, "8/1k6/8/4P3/2K5/8/8/8 w - - 0 1", "", "win")
    assert sorted(a.san for a in report.solutions) == ["Kc5", "Kd5"]
    assert report.verdict == "duals"


def test_variations_tries_do_not_make_unsound(checker: Checker) -> None:
    board = chess.Board("8/8/8/8/8/2k5/7R/K7 w - - 0 1")
    text = "1. Rh3+ (1. Rc2+ Kxc2) Kd4 *"
    report = checker.check_game(board, text, "win", variations=True)
    assert report.flagged("try") == [1]
    assert [p.line for p in report.plies if "try" in p.flags] == ["v1"]
    assert report.verdict == "duals"
    plain = checker.check_game(board, text, "win", variations=False)
    assert plain.flagged("try") == []


def test_unknown_stipulation(checker: Checker) -> None:
    with pytest.raises(SoundnessError, match="unknown stipulation 'helpmate'"):
        check(checker, "8/8/8/8/8/2k5/7R/K7 w - - 0 1", "", "helpmate")


def test_no_tables(tmp_path: Path) -> None:
    with pytest.raises(SoundnessError, match="no Syzygy tables"):
        open_tables([str(tmp_path)])
    with pytest.raises(SoundnessError, match="no tablebases given"):
        open_tables([])


def test_moves_are_read_by_the_one_walker(checker: Checker) -> None:
    """Annotations, NAGs, comments and move numbers, as in a PGN file (#26)."""
    board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    assert errors_of(board, "1. c7! {the point} Rd6+ 2. Kb5! $1 (2. Kc5?? Rd1) Rd5+ *") == []
    [error] = errors_of(board, "1. c7 Rd6+ 2. Kc6")
    assert error.startswith("illegal san: 'Kc6' in ")
    report = checker.check_game(board, "1. c7! {x} Rd6+ 2. Kb5! $1 *", "win", variations=False)
    assert [p.san for p in report.plies] == ["c7", "Rd6+", "Kb5"]
    assert not hasattr(soundness, "parse_moves")


def test_syzygy_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(soundness.SYZYGY_ENV, "/a:/b")
    assert soundness.syzygy_dirs() == ["/a", "/b"]
    assert soundness.syzygy_dirs(["/c"]) == ["/c"]


# -- the engine --------------------------------------------------------------------------


def test_engine_finds_an_obvious_cook(engine_checker: Checker) -> None:
    """Two rooks, two mates in one: the solution's 1. Rd8# has a twin, 1. Re8#."""
    report = check(engine_checker, "6k1/5ppp/8/8/8/8/5PPP/3RR1K1 w - - 0 1", "1. Rd8#", "win")
    assert report.verdict == "doubts"
    [first] = report.plies
    assert first.flags == ["cook"] and first.source == "engine"
    assert [a.san for a in first.alternatives] == ["Re8#"]
    assert first.depth == ENGINE_DEPTH
    assert report.engine == f"Stockfish {report.engine.split()[1]} depth={ENGINE_DEPTH}"
    assert report.engine_plies == 1


def test_engine_scores_a_solution_outside_its_first_choices(engine_checker: Checker) -> None:
    """1. Rd2 is neither of the engine's two mates: it is scored alone (issue 15, bug 2)."""
    report = check(engine_checker, "6k1/5ppp/8/8/8/8/5PPP/3RR1K1 w - - 0 1", "1. Rd2", "win")
    [first] = report.plies
    assert first.source == "engine" and "cook" in first.flags
    assert first.alternatives[0].san in ("Rd8#", "Re8#")
    assert "Rd2 +" in first.note and "scores mate in 1" in first.note
    assert report.verdict == "doubts"


def test_engine_sound_position(engine_checker: Checker) -> None:
    report = check(engine_checker, "3q2k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "1. Rxd8#", "win")
    assert report.verdict == "sound"
    assert report.plies[0].flags == [] and report.plies[0].score is not None


def test_engine_verifies_a_mate_in_n_by_its_score(engine_checker: Checker) -> None:
    board = chess.Board("3q2k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    moves = parse_moves(board, "1. Rxd8#")
    one = engine_checker.check(board, moves, "mate", mate_in=1)
    assert one.verdict == "sound", one
    assert "mate in 1 confirmed by the engine" in one.note
    assert "length was not checked" not in one.note
    three = engine_checker.check(board, moves, "mate", mate_in=3)
    assert three.verdict == "doubts"
    assert "claimed mate in 3, the engine gives mate in 1" in three.plies[0].note


def test_engine_doubts_a_false_claim(engine_checker: Checker) -> None:
    report = check(engine_checker, "6k1/5ppp/8/8/8/8/5PPP/3RR1K1 w - - 0 1", "1. Rd8#", "draw")
    assert report.verdict == "doubts"
    assert "doubt" in report.plies[0].flags


def test_engine_needs_one_limit() -> None:
    with pytest.raises(QueryError, match="exactly one"):
        open_engine(STOCKFISH)


def test_engine_that_does_not_start(tmp_path: Path) -> None:
    with pytest.raises(SoundnessError, match="cannot start the engine"):
        open_engine(str(tmp_path / "nothing"), depth=1)


@pytest.mark.parametrize("module", ["", ".verdict", ".annotate", ".checker", ".uci", ".tables"])
def test_doctests(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(f"studydb.soundness{module}"))
    assert result.failed == 0 and result.attempted >= 1


def test_engine_movetime(syzygy: str) -> None:
    require(shutil.which(STOCKFISH) is not None, f"{STOCKFISH} is not installed")
    engine = open_engine(STOCKFISH, movetime=50)
    tables = open_tables([syzygy])
    try:
        assert engine.settings == "movetime=50"
        board = chess.Board("3q2k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
        report = Checker(tables, engine).check(board, parse_moves(board, "1. Rxd8#"), "win")
        assert report.engine is not None and report.engine.endswith("movetime=50")
        assert report.engine_plies == 1 and report.verdict == "sound"
    finally:
        engine.close()
        tables.close()


# -- engines that misbehave (tests/engines/, Stockfish behind a filter) ------------------

ENGINES = Path(__file__).parent / "engines"
COOK = "6k1/5ppp/8/8/8/8/5PPP/3RR1K1 w - - 0 1"
#: A fake engine and what the check says of it.
FAKES = [
    ("dies", "the engine stopped"),
    ("hangs", "no answer in 1.2 s"),
    ("garbage", "the engine answered nonsense: expected uci string to be of length 4 or 5"),
    ("no_pv", "an answer without a move (no pv)"),
    ("no_score", "an answer without a score"),
    ("illegal_move", "the engine answered nonsense: illegal uci: 'a1a2'"),
    ("several_lines", "3 lines in the answer where 2 was asked for"),
    # It was taken for a score ("mate in -499999949999"), and the study was doubted.
    ("huge_score", "an impossible score: cp 999999999999"),
    ("mated_now", "an impossible score: mate 0 in a position with moves"),
]


def fake_engine(name: str) -> soundness.Engine:
    require(shutil.which(STOCKFISH) is not None, f"{STOCKFISH} is not installed")
    return open_engine(str(ENGINES / f"{name}.py"), movetime=20)


#: The fake the fast loop runs: one that stops.  Each fake
#: starts Stockfish two or three times (1.5-3 s); the others run in the full suite.
FAST_FAKES = ("dies",)


@pytest.mark.parametrize(
    ("name", "failure"),
    [
        pytest.param(*fake, marks=[] if fake[0] in FAST_FAKES else [pytest.mark.slow])
        for fake in FAKES
    ],
    ids=[name for name, _ in FAKES],
)
def test_an_engine_that_fails_is_restarted_then_dropped(
    syzygy: str, name: str, failure: str
) -> None:
    """The check goes on without the engine and says why; the next study tries it again."""
    tables = open_tables([syzygy])
    with Checker(tables, fake_engine(name)) as checker:
        report = check(checker, COOK, "1. Rd8#", "win")
        assert report.verdict == "unchecked", report
        assert report.reason.startswith("10 men at the start, beyond the 4-man tables; ")
        assert f"engine failed: {failure}" in report.reason
        assert report.engine_plies == 0 and report.plies[0].source == "beyond"
        # Within the tables, nothing is asked of the engine.
        assert check(checker, "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1", "1. c7", "win").verdict == "sound"


@pytest.mark.slow
def test_the_next_study_tries_the_engine_again(syzygy: str) -> None:
    tables = open_tables([syzygy])
    with Checker(tables, fake_engine("dies")) as checker:
        for _ in range(3):
            report = check(checker, COOK, "1. Rd8#", "win")
            assert "engine failed: the engine stopped" in report.reason
            assert checker.engine is not None  # started again for the next study


@pytest.mark.slow
def test_an_engine_that_hangs_study_after_study_is_given_up_for_the_run(syzygy: str) -> None:
    # Each study cost two timeouts (asked, started again, asked), however many studies:
    # days for a collection.  After HUNG_STUDIES in a row, the run goes on without it.
    tables = open_tables([syzygy])
    with Checker(tables, fake_engine("hangs")) as checker:
        for _ in range(HUNG_STUDIES):
            report = check(checker, COOK, "1. Rd8#", "win")
            assert "engine failed: no answer in 1.2 s" in report.reason
        assert checker.engine is None
        report = check(checker, COOK, "1. Rd8#", "win")  # not asked: no timeout waited for
        assert checker.engine is None and report.engine_plies == 0
        assert report.verdict == "unchecked" and report.engine is not None
        assert report.reason.endswith(
            "engine failed: given up for this run after no answer on 3 studies in a row"
            " (no answer in 1.2 s)"
        ), report.reason
        assert check(checker, "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1", "1. c7", "win").verdict == "sound"


def test_an_engine_without_multipv_is_used_without_it(syzygy: str) -> None:
    tables = open_tables([syzygy])
    with Checker(tables, fake_engine("no_multipv")) as checker:
        assert checker.engine is not None and not checker.engine.multipv
        report = check(checker, COOK, "1. Rd8#", "win")
        assert report.verdict == "doubts", report
        assert [a.san for a in report.plies[0].alternatives] == ["Re8#"]
        assert "the engine has no MultiPV option" in report.note
        sound = check(checker, "3q2k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "1. Rxd8#", "win")
        assert sound.verdict == "sound", sound


def test_engine_timeouts_follow_the_limit() -> None:
    import chess.engine

    from studydb.soundness.uci import call_timeout

    assert call_timeout(chess.engine.Limit(time=0.1)) == 2.0
    assert call_timeout(chess.engine.Limit(time=1.0)) == 11.0
    assert call_timeout(chess.engine.Limit(depth=20)) == 100.0


# -- damaged table files -------------------------------------------------------------------


@pytest.fixture
def damaged(tmp_path: Path, syzygy: str) -> Path:
    """The shared tables with an empty KRvK.rtbw and a truncated KQvK.rtbz."""
    for table in Path(syzygy).iterdir():
        (tmp_path / table.name).symlink_to(table)
    (tmp_path / "KRvK.rtbw").unlink()
    (tmp_path / "KRvK.rtbw").write_bytes(b"")
    (tmp_path / "KQvK.rtbz").unlink()
    (tmp_path / "KQvK.rtbz").write_bytes((Path(syzygy) / "KQvK.rtbz").read_bytes()[:3000])
    return tmp_path


def test_damaged_tables_are_named_and_count_as_missing(damaged: Path) -> None:
    tables = open_tables([str(damaged)])
    assert tables.bad == [
        f"KQvK.rtbz in {damaged}: a truncated or damaged file (3,000 bytes)",
        f"KRvK.rtbw in {damaged}: an empty file",
    ]
    with Checker(tables) as checker:
        rook = check(checker, "8/8/8/8/8/2k5/7R/K7 w - - 0 1", "1. Rh3+ Kd4", "win")
        assert rook.flagged("missing") == [1, 2] and rook.verdict == "unchecked"
        assert rook.reason == "no table at the start: did not find wdl table KRvK"
        queen = check(checker, "8/8/8/8/8/2k5/7Q/K7 w - - 0 1", "1. Qh3+", "win")
        assert queen.flagged("missing") == [1]  # the WDL table is fine, the DTZ one is not
        saavedra = check(checker, "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1", "1. c7 Rd6+", "win")
        assert saavedra.verdict == "sound"  # other tables still answer


def test_the_tables_reach_is_that_of_the_files_that_can_be_read(
    tmp_path: Path, syzygy: str
) -> None:
    # A damaged 5-man file once made "tables (5-men)", and a folder of damaged files
    # only "3-men tables" that answered nothing ("beyond the 3-man tables").
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for table in Path(syzygy).iterdir():
        (mixed / table.name).symlink_to(table)
    (mixed / "KRPvKR.rtbw").write_bytes(b"\0" * 1000)
    tables = open_tables([str(mixed)])
    try:
        assert tables.men == 4
        assert tables.bad == [f"KRPvKR.rtbw in {mixed}: a truncated or damaged file (1,000 bytes)"]
    finally:
        tables.close()
    # A second download of a table ("KRvK (1).rtbw") made "7-men tables", which then
    # called every 5- to 7-man position a missing table rather than beyond the tables.
    copies = tmp_path / "copies"
    copies.mkdir()
    for name in ("KRvK.rtbw", "KRvK.rtbz"):
        shutil.copy(Path(syzygy) / name, copies / name)
    shutil.copy(Path(syzygy) / "KRvK.rtbw", copies / "KRvK (1).rtbw")
    os.mkfifo(copies / "KQvK.rtbw")  # opening it to read waited for a writer for ever
    with at_most(20):
        tables = open_tables([str(copies)])
    try:
        assert tables.men == 3
        assert tables.bad == [
            f"KQvK.rtbw in {copies}: not a regular file",
            f"KRvK (1).rtbw in {copies}: not a Syzygy table's name (such as KRvK.rtbw)",
        ]
    finally:
        tables.close()
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "KRvK.rtbw").write_bytes(b"\0" * 1000)
    (junk / "KRvK.rtbz").write_bytes(b"")
    with pytest.raises(NoTablesError, match=r"no readable Syzygy tables in .*junk \(KRvK\.rtbw"):
        open_tables([str(junk)])
    with pytest.raises(NoTablesError, match=r"syzygy folder .* is not a folder"):
        open_tables([str(junk / "KRvK.rtbw")])


def test_ctrl_c_waits_until_an_engine_is_started_or_stopped() -> None:
    """A half-started engine would keep python-chess's thread, and the program, waiting."""
    import signal

    from studydb.soundness.uci import ctrl_c_deferred

    done = []
    with pytest.raises(KeyboardInterrupt), ctrl_c_deferred():
        signal.raise_signal(signal.SIGINT)
        done.append("the block ran to its end")
    assert done == ["the block ran to its end"]


def test_closing_the_engine_stops_the_processes_it_started(tmp_path: Path) -> None:
    # A wrapper's helper (here a sleep) outlived the engine and the check.
    require(shutil.which(STOCKFISH) is not None, f"{STOCKFISH} is not installed")
    shutil.copy(ENGINES / "fake.py", tmp_path / "fake.py")
    marker = tmp_path / "helper.pid"
    script = tmp_path / "wrapper.py"
    script.write_text(
        "#!/usr/bin/env python3\n"
        "import subprocess\n"
        "from fake import serve\n"
        f"helper = subprocess.Popen(['sleep', '1000'])\n"
        f"open({str(marker)!r}, 'w').write(str(helper.pid))\n"
        "serve()\n"
    )
    script.chmod(0o755)
    engine = open_engine(str(script), movetime=20)
    assert wait_for(marker.exists)
    helper = int(marker.read_text())
    assert alive(helper)
    engine.close()
    assert wait_for(lambda: not alive(helper), timeout=10)


def test_an_engine_that_cannot_start_again_is_tried_once_per_study(
    syzygy: str, tmp_path: Path
) -> None:
    for name in ("dies.py", "fake.py"):
        shutil.copy(ENGINES / name, tmp_path / name)
    require(shutil.which(STOCKFISH) is not None, f"{STOCKFISH} is not installed")
    engine = open_engine(str(tmp_path / "dies.py"), movetime=20)
    (tmp_path / "dies.py").unlink()  # it dies when asked, and cannot be started again
    with Checker(open_tables([syzygy]), engine) as checker:
        for _ in range(2):
            report = check(checker, COOK, "1. Rd8#", "win")
            assert report.verdict == "unchecked" and report.engine is not None
            assert "; engine failed: cannot start the engine " in report.reason, report.reason
        assert checker.engine is None


def test_a_main_line_broken_by_an_illegal_move_is_never_sound(checker: Checker) -> None:
    # "1. c7 Rd6+ 2. Kb5 Rd5+ 3. Qh8 Rd4+" was "sound" ("every main-line position was
    # checked"), though nothing after the illegal 3. Qh8 was.
    board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    broken = checker.check_game(board, "1. c7 Rd6+ 2. Kb5 Rd5+ 3. Qh8 Rd4+ 1-0", "win",
                                variations=False)  # fmt: skip
    assert broken.verdict == "no-errors"
    assert broken.summary == "no errors found in the positions checked from move 1"
    assert broken.reason == (
        "not every position was checked (the main line stops at its first illegal move:"
        " illegal san: 'Qh8' in 8/2P5/8/1K1r4/8/8/8/k7 w - - 3 3)"
    )
    null = checker.check_game(board, "1. c7 Rd6+ 2. Kb5 -- 3. Kb4 *", "win", variations=False)
    assert null.verdict == "no-errors"  # was "sound", the moves after the null move unchecked
    assert "the main line stops at move 0000, not legal there" in null.reason
    whole = checker.check_game(board, "1. c7 Rd6+ 2. Kb5 (2. Qh8) Rd5+ 1-0", "win",
                               variations=False)  # fmt: skip
    assert whole.verdict == "sound"  # an illegal move in a variation leaves the main line whole


#: A 5-man start: 1.Rc2+ (beyond the 4-man tables) Kxc2 leaves 4 men, judged by the tables.
BEYOND_THEN_TABLES = ("8/8/8/8/8/2k5/P6R/K2n4 w - - 0 1", "1. Rc2+ Kxc2 2. a4 Nb2")


def test_a_defenders_position_counts_with_an_engine_only_after_a_scored_one() -> None:
    """The defender's position between an unscored solver's one and the tables was not
    checked: "no errors found from move 2", with an engine that failed as without one."""
    from studydb.soundness.checker import _checked_from
    from studydb.soundness.verdict import Ply, Report

    def report(first: str) -> Report:
        return Report("draw", plies=[
            Ply(1, "Rc2+", True, source=first),  # type: ignore[arg-type]  # a Source
            Ply(2, "Kxc2", False, source="beyond"),
            Ply(3, "a4", True, source="tables", wdl=0, move_wdl=0, dtz=0),
            Ply(4, "Nb2", False, source="tables", wdl=0, move_wdl=0, dtz=0),
        ], claim_ply=2, claim_wdl=0)  # fmt: skip

    for engine in (False, True):  # no engine; an engine that scored nothing (it failed)
        assert _checked_from(report("beyond"), engine=engine) == (2, [])
    assert _checked_from(report("engine"), engine=True) == (0, [])


@pytest.mark.slow
def test_an_engine_that_fails_claims_no_defenders_position(syzygy: str) -> None:
    # It said "no errors found from move 1...", though 1...Kxc2 was checked by nobody.
    tables = open_tables([syzygy])
    with Checker(tables, fake_engine("dies")) as checker:
        report = check(checker, *BEYOND_THEN_TABLES, "draw")
    assert (report.verdict, report.checked_from) == ("no-errors", 2), report
    assert report.summary == "no errors found from move 2"
    assert "engine failed: the engine stopped" in report.reason


def _tables_with(folder: Path, syzygy: str, name: str, offset: int, value: int) -> Path:
    """The shared tables, with one byte of ``name`` changed (its size and magic kept)."""
    folder.mkdir()
    for table in Path(syzygy).iterdir():
        (folder / table.name).symlink_to(table)
    data = bytearray((Path(syzygy) / name).read_bytes())
    data[offset] = value
    (folder / name).unlink()
    (folder / name).write_bytes(bytes(data))
    return folder


@contextlib.contextmanager
def at_most(seconds: float) -> Iterator[None]:
    """Fail (rather than wait for ever) when the block runs longer than ``seconds``."""
    import signal

    class TooLong(BaseException):  # no ``except Exception`` on the way catches it
        pass

    def late(_number: int, _frame: object) -> None:
        raise TooLong(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, late)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


#: One byte of a table changed, and what python-chess then did: (file, offset, value, what).
DAMAGED_INSIDE = [
    ("KRvK.rtbw", 6, 0x55, "its header names a queen: every probe looped for ever"),
    ("KRvK.rtbw", 34, 0, "RecursionError while reading its header"),
    ("KRvK.rtbw", 10, 0, "IndexError while reading its header"),
    ("KRvK.rtbw", 14, 0xFF, "struct.error at a probe"),
    ("KRvK.rtbw", 4, 0, "KeyError at a probe"),
    ("KRvK.rtbz", 11, 0xFF, "OverflowError at a probe"),
]


@pytest.mark.parametrize(
    ("name", "offset", "value"),
    [case[:3] for case in DAMAGED_INSIDE],
    ids=[case[3] for case in DAMAGED_INSIDE],
)
def test_a_table_damaged_inside_counts_as_missing(
    tmp_path: Path, syzygy: str, name: str, offset: int, value: int
) -> None:
    """Size and magic right, bytes wrong: a traceback or a hang; now missing, and named."""
    folder = _tables_with(tmp_path / "tables", syzygy, name, offset, value)
    with at_most(20), Checker(open_tables([str(folder)])) as checker:
        rook = check(checker, "8/8/8/8/8/2k5/7R/K7 w - - 0 1", "1. Rh3+ Kd4", "win")
        named = [bad for bad in checker.tables.bad if bad.startswith(f"{name} in ")]
        assert named or "a table cannot be read" in rook.plies[0].note, (rook, checker.tables)
        assert rook.verdict != "sound" and rook.flagged("missing"), rook
        saavedra = check(checker, "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1", "1. c7 Rd6+", "win")
        assert saavedra.verdict == "sound"  # the other tables still answer


#: Mate in one on the board; the solution given is a slower move, which the engine's two
#: best lines (the two mates) leave out: its score needs a search of its own.
SLOW_SOLUTION = ("6k1/5ppp/8/8/8/8/5PPP/3RR1K1 w - - 0 1", "1. Rd7")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "failure"),
    [
        ("no_searchmoves", "the engine stopped"),
        ("one_line", "1 line in the answer where 2 were asked for"),
    ],
)
def test_a_first_move_whose_rivals_were_not_compared_is_not_sound(
    syzygy: str, name: str, failure: str
) -> None:
    # "sound", though the first move's rivals were never compared with it: the
    # search of the solution alone failed (or the engine gave one line where two
    # were asked for), and 1.Rd8# cooks 1.Rd7.
    tables = open_tables([syzygy])
    with Checker(tables, fake_engine(name)) as checker:
        report = check(checker, *SLOW_SOLUTION, "win")
    assert report.verdict == "unchecked", report
    assert f"engine failed: {failure}" in report.reason, report.reason


def test_the_engine_judges_the_main_lines_last_move(engine_checker: Checker) -> None:
    # The engine scores the position before each solver's move; nothing scored the one
    # after the last, and a last move that throws the win away was "sound".
    board = "n3Q3/8/8/2k5/Kr6/R7/8/8 w - - 0 1"
    report = check(engine_checker, board, "1. Ka5 Nc7 2. Qb8", "win")  # 2...Rxb8: a draw
    assert report.verdict == "doubts", report
    assert report.flagged("doubt") == [3]
    assert "after it the engine gives" in report.plies[2].note
    kept = check(engine_checker, board, "1. Ka5 Nc7 2. Qe7+", "win")
    assert kept.verdict == "sound", kept
