"""Checking a stored collection (studydb.db.checks): verdicts stored, skipped, rechecked."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import (
    CLASSICS,
    CLASSICS_CHECKED,
    CRAFTED,
    EXPECTED,
    crafted_pgn,
    downgrade,
    require,
    walks_pgn,
)
from sqlalchemy import select, update

from studydb.db.batches import POOL_REPLAYS, all_cores
from studydb.db.checks import CheckConfig, check_studies, fetch_check
from studydb.db.conditions import build_condition
from studydb.db.connect import open_database, writer
from studydb.db.importer import import_paths
from studydb.db.models import StudyCheck
from studydb.db.search import search
from studydb.db.stats import stats
from studydb.filters import Filters

STOCKFISH = "/usr/games/stockfish"


def test_crafted_verdicts_stored(db_url: str, syzygy: str, tmp_path: Path) -> None:
    engine = open_database(db_url)
    import_paths(engine, [crafted_pgn(tmp_path / "crafted.pgn")])
    summary = check_studies(engine, None, CheckConfig((syzygy,)))
    assert summary.checked == len(CRAFTED) and not summary.interrupted
    for study_id, (verdict, error, weak) in enumerate(EXPECTED, start=1):
        check = fetch_check(engine, study_id)
        assert check is not None
        assert (check.verdict, check.error_ply) == (verdict, error), check
        assert check.flagged("weak") == weak
        assert check.tables_men == 4
    assert summary.verdicts == {"unsound": 2, "duals": 1, "sound": 1, "unchecked": 1}


def test_classics_sound_only_when_checked_from_the_start(db_url: str, syzygy: str) -> None:
    engine = open_database(db_url)
    import_paths(engine, [CLASSICS])
    check_studies(engine, None, CheckConfig((syzygy,)))
    found = {}
    with engine.connect() as conn:
        for row in conn.execute(select(StudyCheck.__table__).order_by(StudyCheck.study_id)):
            if row.verdict != "unchecked":
                plies = [p["ply"] for p in row.plies if p["source"] == "tables"]
                found[row.study_id] = (row.verdict, row.claim_ply, plies)
                assert row.table_plies == len(plies)
                assert row.checked_from == row.claim_ply  # every position from there on
                assert (row.reason is None) == (row.checked_from == 0), row
    assert found == CLASSICS_CHECKED


@pytest.mark.slow  # 1.5 s or more on a busy machine
def test_skips_what_was_checked_with_the_same_settings(
    db_url: str, syzygy: str, tmp_path: Path
) -> None:
    engine = open_database(db_url)
    import_paths(engine, [crafted_pgn(tmp_path / "crafted.pgn")])
    config = CheckConfig((syzygy,))
    assert check_studies(engine, None, config).checked == 5
    again = check_studies(engine, None, config)
    assert (again.checked, again.skipped, again.selected) == (0, 5, 5)
    # Other settings (variations) check again; --recheck too.
    assert check_studies(engine, None, CheckConfig((syzygy,), variations=True)).checked == 5
    assert check_studies(engine, None, config, recheck=True).checked == 5
    # A study checked with other settings is checked again, the rest skipped.
    with writer(engine).begin() as conn:
        conn.execute(update(StudyCheck).where(StudyCheck.study_id == 2).values(settings="old"))
    partial = check_studies(engine, None, config)
    assert (partial.checked, partial.skipped) == (1, 4)


def test_filters_select_what_is_checked(db_url: str, syzygy: str, tmp_path: Path) -> None:
    engine = open_database(db_url)
    import_paths(engine, [crafted_pgn(tmp_path / "crafted.pgn")])
    summary = check_studies(engine, Filters(stipulations=("draw",)), CheckConfig((syzygy,)))
    assert summary.checked == 1 and summary.selected == 1
    assert fetch_check(engine, 1) is not None and fetch_check(engine, 2) is None


def test_verdict_filter_and_stats(db_url: str, syzygy: str, tmp_path: Path) -> None:
    engine = open_database(db_url)
    import_paths(engine, [crafted_pgn(tmp_path / "crafted.pgn")])
    check_studies(engine, Filters(material=("KRvK",)), CheckConfig((syzygy,)))
    check_studies(engine, Filters(material=("KPvK",)), CheckConfig((syzygy,)))

    def ids(*verdicts: str) -> list[int]:
        return [r.id for r in search(engine, Filters(verdicts=verdicts), sort="id")]

    assert ids("unsound") == [2]
    assert ids("duals") == [3]
    # Never checked counts as unchecked: 1, 4 and 5 were not selected.
    assert ids("unchecked") == [1, 4, 5]
    assert ids("sound", "duals", "unsound") == [2, 3]
    combined = Filters(verdicts=("unchecked",), stipulations=("draw",))
    assert [r.id for r in search(engine, combined)] == [1]
    assert dict(stats(engine).verdicts) == {"unchecked": 3, "unsound": 1, "duals": 1}


def test_check_workers_are_bounded_by_the_work(
    db_url: str, syzygy: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from studydb.db import batches, checks

    started: list[int] = []

    class Counting(batches.BatchRunner):
        def __enter__(self) -> batches.BatchRunner:
            started.append(self.jobs)
            return super().__enter__()

    monkeypatch.setattr(checks, "BatchRunner", Counting)
    engine = open_database(db_url)
    import_paths(engine, [crafted_pgn(tmp_path / "crafted.pgn")])
    assert check_studies(engine, Filters(material=("KRvK",)), CheckConfig((syzygy,)), jobs=256,
                         ids=[2]).checked == 1  # fmt: skip
    assert check_studies(engine, None, CheckConfig((syzygy,)), jobs=256, ids=[2]).checked == 0
    assert started == [1, 1]


@pytest.mark.parametrize(("count", "workers"), [(POOL_REPLAYS - 1, 1), (POOL_REPLAYS, 0)])
def test_check_without_jobs_takes_all_cores_for_enough_studies(
    sqlite_url: str, syzygy: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int,
    workers: int,
) -> None:  # fmt: skip
    """No ``jobs``: one worker a core (0 above: all_cores()) for POOL_REPLAYS studies to
    check or more, as index and import; it was one process, however many."""
    from studydb.db import batches, checks

    started: list[int] = []

    class Counting(batches.BatchRunner):
        def __enter__(self) -> batches.BatchRunner:
            started.append(self.jobs)
            raise KeyboardInterrupt  # the count is all this test wants: nothing checked

    monkeypatch.setattr(checks, "BatchRunner", Counting)
    text = CLASSICS.read_text(encoding="utf-8").split("\n\n[Event")[0]
    games = [text.replace('[Event "', f'[Event "{n} ', 1) for n in range(count)]
    (tmp_path / "many.pgn").write_text("\n\n".join(games), encoding="utf-8")
    engine = open_database(sqlite_url)
    import_paths(engine, [tmp_path / "many.pgn"], positions="none")
    assert check_studies(engine, None, CheckConfig((syzygy,))).interrupted
    assert started == [workers or all_cores()]


def test_afek_2008_names_the_refutation_and_the_win(
    db_url: str, syzygy: str, shared_dir: Path
) -> None:
    """The issue's example: 8.Kb6? draws: 8…Nb4!; 8.Kb5 wins."""
    path = shared_dir / "corpus" / "studies" / "Afek, Yochanan.partial.pgn"
    require(path.is_file(), f"{path} is absent")
    engine = open_database(db_url)
    import_paths(engine, [path])
    check_studies(engine, None, CheckConfig((syzygy,)))
    [study] = search(engine, Filters(verdicts=("unsound",)))
    check = fetch_check(engine, study.id)
    assert check is not None and check.first_error is not None
    assert check.first_error.note == "throws the win away: 8.Kb6? draws: 8…Nb4!; 8.Kb5 wins"
    assert check.first_error.refutation == "Nb4"


def test_unknown_verdict_is_a_query_error() -> None:
    from studydb.errors import QueryError

    with pytest.raises(QueryError, match="unknown verdict 'cooked'") as info:
        build_condition(Filters(verdicts=("cooked",)))
    assert info.value.param == "--verdict"


@pytest.mark.slow
def test_jobs_give_the_same_results(sqlite_url: str, syzygy: str, tmp_path: Path) -> None:
    engine = open_database(sqlite_url)
    import_paths(engine, [CLASSICS, crafted_pgn(tmp_path / "crafted.pgn")])
    one = check_studies(engine, None, CheckConfig((syzygy,)))
    with engine.connect() as conn:
        first = conn.execute(select(StudyCheck.study_id, StudyCheck.plies)).all()
    two = check_studies(engine, None, CheckConfig((syzygy,)), recheck=True, jobs=2, batch_size=7)
    with engine.connect() as conn:
        second = conn.execute(select(StudyCheck.study_id, StudyCheck.plies)).all()
    assert one.verdicts == two.verdicts and one.checked == two.checked == 30
    assert sorted(first) == sorted(second)


def test_study_without_stipulation_is_unchecked(db_url: str, syzygy: str, tmp_path: Path):
    path = tmp_path / "nostip.pgn"
    path.write_text('[FEN "8/8/8/8/8/2k5/8/KQ6 w - - 0 1"]\n\n1. Qb2+ *\n', encoding="utf-8")
    engine = open_database(db_url)
    import_paths(engine, [path])
    check_studies(engine, None, CheckConfig((syzygy,)))
    check = fetch_check(engine, 1)
    assert check is not None and check.verdict == "unchecked"
    assert check.reason == "no stipulation (win, draw or mate) given"
    assert check.summary == "unchecked: no stipulation (win, draw or mate) given"


#: (PGN tags and moves, verdict, reason, summary) of studies the checker judged too much of.
REASONED = [
    ('[Stipulation "#1"]\n[FEN "8/8/8/8/8/2k5/8/KQ6 w - - 0 1"]\n\n1. Qb2+ *',
     "duals", "", "duals"),
    ('[Stipulation "mate in 8"]\n[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n1. c7 *',
     "sound", "", "sound"),
    ('[Stipulation "+"]\n[FEN "1k6/1p6/8/8/8/8/1R6/3K2n1 w - - 0 1"]\n\n1. Rxb7+ Kxb7 *',
     "unsound", "5 men at the start, beyond the 4-man tables, and no engine", "unsound"),
    ('[Stipulation "="]\n[FEN "1k6/1p6/8/8/8/8/1R6/3K2n1 w - - 0 1"]\n\n1. Rxb7+ Kxb7 *',
     "no-errors", "5 men at the start, beyond the 4-man tables, and no engine",
     "no errors found from move 1..."),
    ('[Stipulation "+"]\n[FEN "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"]\n\n*',
     "unchecked", "not judged by the tables: castling rights",
     "unchecked: not judged by the tables: castling rights"),
    ('[Stipulation "="]\n[FEN "k7/8/1Q6/8/8/8/8/7K b - - 0 1"]\n\n*',
     "unchecked", "game over at the start: stalemate",
     "unchecked: game over at the start: stalemate"),
    ('[Stipulation "+"]\n[FEN "8/8/8/8/8/8/8/Kk6 w - - 0 1"]\n\n1. Ka2 *',
     "unchecked", "illegal position: the kings are adjacent",
     "unchecked: illegal position: the kings are adjacent"),
]  # fmt: skip


def test_verdicts_say_what_they_rest_on(db_url: str, syzygy: str, tmp_path: Path) -> None:
    """Mate stipulations are checked; no-errors and unchecked carry their reasons, stored."""
    path = tmp_path / "reasoned.pgn"
    path.write_text("\n\n".join(game for game, *_ in REASONED) + "\n", encoding="utf-8")
    engine = open_database(db_url)
    import_paths(engine, [path])
    summary = check_studies(engine, None, CheckConfig((syzygy,)))
    assert summary.checked == len(REASONED)
    for study_id, (_, verdict, reason, text) in enumerate(REASONED, start=1):
        check = fetch_check(engine, study_id)
        assert check is not None
        assert (check.verdict, check.reason, check.summary) == (verdict, reason, text), check
    mate = fetch_check(engine, 2)
    assert mate is not None and mate.mate_in == 8
    assert "win confirmed; the mate's length was not checked" in mate.note
    assert [r.id for r in search(engine, Filters(verdicts=("no-errors",)))] == [4]
    assert [r.id for r in search(engine, Filters(verdicts=("sound",)))] == [2]
    assert dict(stats(engine).verdicts) == {
        "unchecked": 3, "duals": 1, "sound": 1, "unsound": 1, "no-errors": 1,
    }  # fmt: skip


@pytest.mark.slow
def test_upgrade_keeps_no_old_sound(empty_db_url: str, syzygy: str) -> None:
    """Checks stored before revision 0008: no "sound" stays, and check does them again."""
    from sqlalchemy import text

    from studydb.db import connect as dbengine

    engine = open_database(empty_db_url)
    import_paths(engine, [CLASSICS])
    check_studies(engine, None, CheckConfig((syzygy,)))
    downgrade(engine, "0007")
    with writer(engine).begin() as conn:
        conn.execute(text("UPDATE checks SET verdict = 'sound' WHERE claim_ply IS NOT NULL"))
    dbengine.upgrade(engine)
    with engine.connect() as conn:
        rows = conn.execute(select(StudyCheck.verdict, StudyCheck.settings, StudyCheck.reason))
        old = rows.all()
    assert len(old) == 25 and "sound" not in {verdict for verdict, _, _ in old}
    assert {settings for _, settings, _ in old} == {"stale-0008"}
    assert all(reason and "older studydb" in reason for verdict, _, reason in old)
    again = check_studies(engine, None, CheckConfig((syzygy,)))
    assert (again.checked, again.skipped) == (25, 0)
    assert again.verdicts == {"sound": 4, "no-errors": 7, "unchecked": 14}


def test_ctrl_c_keeps_whole_batches(sqlite_url: str, syzygy: str, tmp_path: Path) -> None:
    """An interrupt during a batch stops after that batch is committed."""
    import os
    import signal

    engine = open_database(sqlite_url)
    import_paths(engine, [CLASSICS])

    def interrupt_once(done: int, _total: int, _summary: object) -> None:
        if done == 10:
            os.kill(os.getpid(), signal.SIGINT)

    summary = check_studies(
        engine, None, CheckConfig((syzygy,)), batch_size=5, progress=interrupt_once
    )
    assert summary.interrupted and summary.checked == 10
    with engine.connect() as conn:
        assert len(conn.execute(select(StudyCheck.study_id)).all()) == 10
    rest = check_studies(engine, None, CheckConfig((syzygy,)))
    assert (rest.checked, rest.skipped) == (15, 10)


def test_illegal_moves_stop_the_line(sqlite_url: str, syzygy: str, tmp_path: Path) -> None:
    """A null move or an unreadable move ends what is checked, with a note; no crash."""
    path = tmp_path / "bad.pgn"
    path.write_text(
        '[Stipulation "win"]\n[FEN "8/8/8/8/8/2k5/7R/K7 w - - 0 1"]\n\n1. Rh3+ -- 2. Rh4 *\n\n'
        '[Stipulation "win"]\n[FEN "8/8/8/8/8/2k5/7R/K7 w - - 0 1"]\n\n1. Rh3+ Kd4 2. Qh8 *\n',
        encoding="utf-8",
    )
    engine = open_database(sqlite_url)
    import_paths(engine, [path])
    check_studies(engine, None, CheckConfig((syzygy,)))
    null = fetch_check(engine, 1)
    assert null is not None and [p.ply for p in null.plies] == [1]
    assert "move 0000 at ply 2 is not legal" in null.note
    unreadable = fetch_check(engine, 2)
    assert unreadable is not None and [p.ply for p in unreadable.plies] == [1, 2]
    assert "a line stops at its first illegal move: illegal san: 'Qh8'" in unreadable.note


@pytest.mark.slow
def test_engine_beyond_the_tables_is_stored(sqlite_url: str, syzygy: str, tmp_path: Path) -> None:
    require(Path(STOCKFISH).exists(), f"{STOCKFISH} is not installed")
    path = tmp_path / "cook.pgn"
    path.write_text(
        '[Stipulation "win"]\n[FEN "6k1/5ppp/8/8/8/8/5PPP/3RR1K1 w - - 0 1"]\n\n1. Rd8# *\n\n'
        '[Stipulation "win"]\n[FEN "3q2k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"]\n\n1. Rxd8# *\n',
        encoding="utf-8",
    )
    engine = open_database(sqlite_url)
    import_paths(engine, [path])
    config = CheckConfig((syzygy,), engine=STOCKFISH, depth=10)
    summary = check_studies(engine, None, config)
    assert summary.verdicts == {"doubts": 1, "sound": 1}
    cook = fetch_check(engine, 1)
    assert cook is not None and cook.engine is not None and cook.engine.startswith("Stockfish")
    assert cook.engine.endswith("depth=10") and cook.engine_plies == 1
    assert cook.plies[0].flags == ["cook"] and cook.plies[0].depth == 10
    # Other engine settings are other settings: checked again.
    assert check_studies(engine, None, config).checked == 0
    assert check_studies(engine, None, CheckConfig((syzygy,), STOCKFISH, depth=9)).checked == 2
    # Worker processes each start their own engine, with the same results.
    with engine.connect() as conn:
        before = conn.execute(select(StudyCheck.study_id, StudyCheck.plies)).all()
    two = check_studies(engine, None, CheckConfig((syzygy,), STOCKFISH, depth=9), recheck=True,
                        jobs=2, batch_size=1)  # fmt: skip
    assert two.verdicts == {"doubts": 1, "sound": 1}
    with engine.connect() as conn:
        assert sorted(conn.execute(select(StudyCheck.study_id, StudyCheck.plies)).all()) == sorted(
            before
        )


def test_doctests() -> None:
    """The examples in db/checks.py, and verdict_condition's in db/conditions.py."""
    import doctest

    from studydb.db import checks, conditions

    assert doctest.testmod(checks).failed == 0
    finder = doctest.DocTestFinder()
    [test] = [t for t in finder.find(conditions) if t.name.endswith(".verdict_condition")]
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_check_reads_the_moves_as_the_index_does(db_url: str, syzygy: str, tmp_path: Path) -> None:
    """Two blank lines before the moves, a broken variation (issue 15): the whole main line."""
    path = tmp_path / "walks.pgn"
    walked = ("two blank lines", "broken variation")
    path.write_text(walks_pgn(*walked), encoding="utf-8")
    engine = open_database(db_url)
    import_paths(engine, [path])
    check_studies(engine, Filters(material=("KRvK",)), CheckConfig((syzygy,)))
    ids = {event: number for number, event in enumerate(walked, start=1)}  # in file order
    blank = fetch_check(engine, ids["two blank lines"])
    assert blank is not None and [p.ply for p in blank.plies] == [1, 2, 3, 4]
    broken = fetch_check(engine, ids["broken variation"])
    assert broken is not None and (broken.verdict, broken.error_ply) == ("unsound", 3)
    assert "a line stops at its first illegal move: illegal san: 'Qc2'" in broken.note


def test_checks_stored_under_older_rules_are_checked_again(
    sqlite_url: str, syzygy: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A "sound" stored by rules that said more than they checked stayed: the settings
    # named the tables, engine and options only.
    import studydb.db.checks

    engine = open_database(sqlite_url)
    import_paths(engine, [crafted_pgn(tmp_path / "crafted.pgn")])
    monkeypatch.setattr(studydb.db.checks, "RULES", studydb.db.checks.RULES - 1)
    assert check_studies(engine, None, CheckConfig((syzygy,))).checked == 5
    monkeypatch.undo()
    again = check_studies(engine, None, CheckConfig((syzygy,)))
    assert (again.checked, again.skipped) == (5, 0)
