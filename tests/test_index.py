"""The position index: import --positions, studydb index, and the searches it serves."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import uuid
from pathlib import Path

import chess
import pytest
from helpers import (
    AFTER_KB5,
    ILLEGAL,
    MIRRORED,
    SAAVEDRA,
    boards,
    examples,
    expected_images,
    id_of,
    write,
)
from hypothesis import HealthCheck, given, settings
from sqlalchemy import func, select

from studydb.db import classify
from studydb.db.batches import POOL_REPLAYS, all_cores
from studydb.db.connect import open_database
from studydb.db.importer import import_paths
from studydb.db.index import index_studies
from studydb.db.models import Material, Position, Study, StudyIndex, StudyMaterial
from studydb.db.search import Occurrence, count, move_label, search
from studydb.errors import QueryError
from studydb.filters import Filters

GAME_ONE = """[Event "Game one"]

1. Nf3 Nf6 2. d4 d5 *
"""

GAME_TWO = """[Event "Game two"]

1. d4 Nf6 2. Nf3 d5 *
"""


def ids_of(engine, filters: Filters) -> list[int]:
    return [row.id for row in search(engine, filters, sort="id")]


@pytest.fixture
def engine(db_url: str, tmp_path: Path):
    engine = open_database(db_url)
    path = write(tmp_path / "s.pgn", SAAVEDRA, MIRRORED, ILLEGAL, GAME_ONE, GAME_TWO)
    import_paths(engine, [path], jobs=1)
    yield engine
    engine.dispose()


def count_rows(engine, model) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(model)).scalar_one())


# -- import and index ----------------------------------------------------------------


def test_import_indexes_studies_only_by_default(engine) -> None:
    # Saavedra: start + 13 main-line moves + 2 in the variation; Mirror 4; Illegal 1 + 2 + 2.
    assert count_rows(engine, Position) == 16 + 4 + 5
    assert count_rows(engine, StudyIndex) == 3
    with engine.connect() as conn:
        valid = dict(conn.execute(select(Study.id, Study.valid)).all())
    assert valid[id_of(engine, "Illegal move")] is False
    assert valid[id_of(engine, "Glasgow Weekly Citizen")] is True
    assert valid[id_of(engine, "Game one")] is None  # from the initial position: header-only


@pytest.mark.parametrize(("mode", "indexed"), [("none", 0), ("studies", 3), ("all", 5)])
def test_import_positions_modes(db_url: str, tmp_path: Path, mode: str, indexed: int) -> None:
    engine = open_database(db_url)
    try:
        path = write(tmp_path / "s.pgn", SAAVEDRA, MIRRORED, ILLEGAL, GAME_ONE, GAME_TWO)
        import_paths(engine, [path], positions=mode, jobs=1)
        assert count_rows(engine, StudyIndex) == indexed
    finally:
        engine.dispose()


@pytest.mark.slow
def test_import_with_worker_processes_indexes_the_same(db_url: str, tmp_path: Path) -> None:
    engine = open_database(db_url)
    try:
        path = write(tmp_path / "s.pgn", SAAVEDRA, MIRRORED, ILLEGAL, GAME_ONE, GAME_TWO)
        import_paths(engine, [path], jobs=2, batch_size=1)
        assert count_rows(engine, StudyIndex) == 3
        assert count_rows(engine, Position) == 16 + 4 + 5
    finally:
        engine.dispose()


def test_illegal_line_is_indexed_up_to_its_error(engine) -> None:
    study = id_of(engine, "Illegal move")
    with engine.connect() as conn:
        rows = conn.execute(
            select(Position.ply, Position.main).where(Position.study_id == study)
        ).all()
        errors = conn.execute(select(Study.errors).where(Study.id == study)).scalar_one()
    # main line: start, Rh2+, Kg1, then Rb3 is illegal; the variation 1. Ra8+ Kg2 counts.
    assert sorted(rows) == [(0, True), (1, False), (1, True), (2, False), (2, True)]
    assert len(errors) == 1 and "Rb3" in errors[0]


def test_index_command_indexes_what_is_missing_and_resumes(db_url: str, tmp_path: Path) -> None:
    engine = open_database(db_url)
    try:
        path = write(tmp_path / "s.pgn", SAAVEDRA, MIRRORED, ILLEGAL, GAME_ONE, GAME_TWO)
        import_paths(engine, [path], positions="none", jobs=1)
        first = index_studies(engine, Filters(composers=("saavedra",)))
        assert (first.studies, first.positions) == (1, 16)
        rest = index_studies(engine, batch_size=2)
        assert rest.studies == 4
        assert index_studies(engine).studies == 0
        again = index_studies(engine, Filters(composers=("saavedra",)), reindex=True)
        assert (again.studies, again.positions) == (1, 16)
        assert count_rows(engine, Position) == 16 + 4 + 5 + 5 + 5
        assert count_rows(engine, StudyIndex) == 5
        with engine.connect() as conn:
            assert conn.execute(select(func.count()).where(Study.valid.is_(None))).scalar() == 0
    finally:
        engine.dispose()


def test_killed_index_keeps_its_committed_batches(db_url: str, tmp_path: Path) -> None:
    engine = open_database(db_url)
    try:
        path = write(tmp_path / "s.pgn", SAAVEDRA, MIRRORED, ILLEGAL, GAME_ONE, GAME_TWO)
        import_paths(engine, [path], positions="none", jobs=1)

        def kill(done: int, total: int, positions: int) -> None:
            if done == 2:  # Ctrl-C after the first commit: the index stops before the second
                os.kill(os.getpid(), signal.SIGINT)

        summary = index_studies(engine, batch_size=2, progress=kill)
        assert summary.interrupted and summary.studies == 2
        assert count_rows(engine, StudyIndex) == 2
        assert index_studies(engine, batch_size=2).studies == 3
        assert count_rows(engine, Position) == 16 + 4 + 5 + 5 + 5
    finally:
        engine.dispose()


@pytest.mark.slow
def test_index_with_two_jobs_matches_one(db_url: str, tmp_path: Path) -> None:
    engine = open_database(db_url)
    try:
        path = write(tmp_path / "s.pgn", SAAVEDRA, MIRRORED, ILLEGAL, GAME_ONE, GAME_TWO)
        import_paths(engine, [path], positions="none", jobs=1)
        summary = index_studies(engine, jobs=2, batch_size=1)
        assert (summary.studies, summary.positions) == (5, 16 + 4 + 5 + 5 + 5)
    finally:
        engine.dispose()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("count", "workers"),
    [(POOL_REPLAYS - 1, 0), (POOL_REPLAYS, 2)],
    ids=["too-few-to-start-workers", "enough"],
)
def test_index_without_jobs_starts_workers_for_enough_studies(
    sqlite_url: str, tmp_path: Path, count: int, workers: int
) -> None:
    """No ``jobs``: all cores (here 2) replay a selection of POOL_REPLAYS studies or
    more, as the import does (it was one process, whatever the selection)."""
    games = [SAAVEDRA.replace("Glasgow Weekly Citizen", f"Tourney {n}") for n in range(count)]
    path = write(tmp_path / "s.pgn", "\n".join(games))
    engine = open_database(sqlite_url)
    try:
        import_paths(engine, [path], positions="none", jobs=1)
        seen: list[int] = []
        summary = index_studies(
            engine,
            batch_size=50,
            progress=lambda *_: seen.append(len(multiprocessing.active_children())),
        )
        assert (summary.studies, summary.positions) == (count, count * 16)
        cores = all_cores() if workers else 1  # no pool for one process
        assert max(seen) == (cores if cores > 1 else 0)
    finally:
        engine.dispose()


def test_each_position_records_its_material(engine) -> None:
    study = id_of(engine, "Glasgow Weekly Citizen")
    with engine.connect() as conn:
        codes = conn.execute(
            select(Position.ply, Material.gbr)
            .join(Material, Material.id == Position.material_id)
            .where(Position.study_id == study, Position.main.is_(True))
            .order_by(Position.ply)
        ).all()
        ends = conn.execute(
            select(Material.gbr)
            .join(StudyMaterial, StudyMaterial.material_id == Material.id)
            .where(StudyMaterial.study_id == study, StudyMaterial.ends.is_(True))
        ).scalar_one()
    assert codes[0] == (0, "0300.10")
    assert codes[11] == (11, "0400.00")  # 6. c8=R
    assert ends == "0400.00"


# -- search ----------------------------------------------------------------------------


def test_position_exact_similar_and_main_line(engine) -> None:
    saavedra, mirrored = id_of(engine, "Glasgow Weekly Citizen"), id_of(engine, "Mirror")
    assert ids_of(engine, Filters(position=AFTER_KB5)) == [saavedra]
    assert ids_of(engine, Filters(position=AFTER_KB5, similar=True)) == [saavedra, mirrored]
    rows = list(search(engine, Filters(position=AFTER_KB5)))
    assert [o.describe() for o in rows[0].occurrences] == ["after 2.Kb5"]
    in_variation = "8/2P5/8/2K5/8/8/8/k2r4 w - - 0 1"  # 2. Kc5 Rd1
    assert ids_of(engine, Filters(position=in_variation)) == [saavedra]
    assert ids_of(engine, Filters(position=in_variation, main_line=True)) == []
    (row,) = search(engine, Filters(position=in_variation))
    assert (row.occurrences[0].ply, row.occurrences[0].main) == (4, False)
    assert row.occurrences[0].describe() == "after 2...Rd1, in the variation 2.Kc5"


def test_colour_reversed_position_needs_either_colour(engine) -> None:
    saavedra = id_of(engine, "Glasgow Weekly Citizen")
    reversed_fen = chess.Board(AFTER_KB5).mirror().fen()
    assert ids_of(engine, Filters(position=reversed_fen)) == []
    assert ids_of(engine, Filters(position=reversed_fen, either_colour=True)) == [saavedra]


def test_transposition_is_found_in_both(db_url: str, tmp_path: Path) -> None:
    engine = open_database(db_url)
    try:
        import_paths(engine, [write(tmp_path / "g.pgn", GAME_ONE, GAME_TWO)], positions="all")
        board = chess.Board()
        for move in ("Nf3", "Nf6", "d4"):
            board.push_san(move)
        found = list(search(engine, Filters(position=board.fen()), sort="id"))
        assert [r.id for r in found] == [id_of(engine, "Game one"), id_of(engine, "Game two")]
        assert [r.occurrences[0].ply for r in found] == [3, 3]
    finally:
        engine.dispose()


def test_reaches_and_ends_in(engine) -> None:
    saavedra, mirrored = id_of(engine, "Glasgow Weekly Citizen"), id_of(engine, "Mirror")
    assert ids_of(engine, Filters(reaches=("0400.00",))) == [saavedra]
    assert ids_of(engine, Filters(reaches=("KRvKR",))) == [saavedra]
    assert ids_of(engine, Filters(reaches=("03??",))) == [saavedra, mirrored]
    assert ids_of(engine, Filters(ends_in=("0400.00",))) == [saavedra]
    assert ids_of(engine, Filters(ends_in=("0300.10",))) == [mirrored]
    assert ids_of(engine, Filters(reaches=("0100.01",))) == []
    assert ids_of(engine, Filters(reaches=("0100.01",), either_colour=True)) == [
        saavedra,
        mirrored,
    ]
    assert count(engine, Filters(reaches=("KRvK",))) == 1  # the illegal study's start


@pytest.mark.parametrize(
    ("options", "param"),
    [
        ({"position": "not a fen"}, "--position"),
        ({"position": "8/8/8/8/8/8/8/K7 w - - 0 1"}, "--position"),
        ({"reaches": ("03x?",)}, "--reaches"),
        ({"ends_in": ("KQvKx",)}, "--ends-in"),
    ],
)
def test_bad_position_filters_name_their_option(options: dict, param: str) -> None:
    with pytest.raises(QueryError) as caught:
        Filters(**options)
    assert caught.value.param == param


@pytest.mark.slow
@given(board=boards())
@settings(
    max_examples=examples(12),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_found_from_every_symmetric_image_only_with_similar(
    engine, tmp_path: Path, board: chess.Board
) -> None:
    """The issue's property: a study holding a position is found from each symmetric image."""
    tag = uuid.uuid4().hex
    game = f'[Event "h"]\n[Source "{tag}"]\n[FEN "{board.fen()}"]\n\n*\n'
    path = tmp_path / f"{tag}.pgn"
    path.write_text(game, encoding="utf-8")
    import_paths(engine, [path], jobs=1)
    source = (tag,)
    (study,) = ids_of(engine, Filters(sources=source))
    for image in expected_images(board):
        fen = image.fen()
        assert ids_of(engine, Filters(sources=source, position=fen, similar=True)) == [study]
        same = image.board_fen() == board.board_fen()
        assert ids_of(engine, Filters(sources=source, position=fen)) == ([study] if same else [])
    reversed_fen = board.mirror().fen()
    assert ids_of(engine, Filters(sources=source, position=reversed_fen)) == []
    assert ids_of(engine, Filters(sources=source, position=reversed_fen, similar=True)) == []
    assert ids_of(engine, Filters(sources=source, position=reversed_fen, either_colour=True)) == [
        study
    ]


@pytest.mark.parametrize("function", [classify.index_game, move_label, Occurrence.describe])
def test_doctests(function) -> None:
    import doctest

    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for test in finder.find(function, globs=vars(sys.modules[function.__module__])):
        runner.run(test)
    assert runner.tries > 0
    assert runner.failures == 0


def test_postgresql_statistics_are_fresh_after_import_and_index(
    pg_url: str, tmp_path: Path
) -> None:
    """Without ANALYZE, PostgreSQL's generic plan for a prepared key search scans studies."""
    from sqlalchemy import text

    def analysed(engine) -> bool:
        with engine.connect() as conn:
            query = text("SELECT reltuples FROM pg_class WHERE relname = 'positions'")
            return conn.execute(query).scalar_one() >= 0  # -1: never analysed

    engine = open_database(pg_url)
    try:
        path = write(tmp_path / "s.pgn", SAAVEDRA)
        assert not analysed(engine)
        import_paths(engine, [path], jobs=1)
        assert analysed(engine)
    finally:
        engine.dispose()


def test_workers_are_bounded_by_the_work(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """index --jobs 256 on one study starts no 256 workers; with nothing to do, none (#26)."""
    from studydb.db import batches, index

    started: list[int] = []

    class Counting(batches.BatchRunner):
        def __enter__(self) -> batches.BatchRunner:
            started.append(self.jobs)
            return super().__enter__()

    monkeypatch.setattr(index, "BatchRunner", Counting)
    path = write(tmp_path / "one.pgn", '[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n1. c7 *\n')
    engine = open_database(db_url)
    import_paths(engine, [path], positions="none")
    assert index_studies(engine, jobs=256).studies == 1
    assert index_studies(engine, jobs=256).studies == 0
    assert started == [1, 1]  # one study: in this process; then nothing to do
