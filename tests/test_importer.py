"""The bulk import pipeline (studydb.db.importer) and ``studydb import``/``rejects``."""

from __future__ import annotations

import bz2
import functools
import gzip
import io
import itertools
import json
import lzma
import multiprocessing
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import chess
import pytest
from helpers import CLASSICS, run_on_terminal, snapshot
from sqlalchemy import Engine, event, func, select
from typer.testing import CliRunner

from studydb import gbr
from studydb.cli import app
from studydb.db import classify
from studydb.db.batches import POOL_REPLAYS
from studydb.db.classify import INDEX_NONE, content_hash, prepare
from studydb.db.connect import open_database
from studydb.db.importer import import_paths
from studydb.db.models import Composer, ImportRun, Reject, Study, StudyComposer
from studydb.pgn import RawGame, inflate_text, read_games, tags_of

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent

SAAVEDRA = """[Event "Glasgow Weekly Citizen"]
[Site "?"]
[Date "1895.??.??"]
[White "Saavedra, Fernando"]
[Black "+"]
[Result "1-0"]
[Composer "Saavedra, Fernando"]
[Composer2 "Barbier, Georges"]
[Stipulation "win"]
[SetUp "1"]
[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]

1. c7 Rd6+ 2. Kb5 Rd5+ 3. Kb4 Rd4+ 4. Kb3 Rd3+ 5. Kc2 Rd4 6. c8=R Ra4 7. Kb3 1-0
"""

RETI = """[Event "Ostrauer Morgenzeitung"]
[Date "1921.??.??"]
[Result "1/2-1/2"]
[Composer "Réti, Richard"]
[Stipulation "draw"]
[FEN "7K/8/k1P5/7p/8/8/8/8 w - - 0 1"]

1. Kg7 h4 2. Kf6 Kb6 3. Ke5 h3 4. Kd6 h2 5. c7 h1=Q 6. c8=Q 1/2-1/2
"""

BAD_FEN = """[Event "Bad FEN"]
[SetUp "1"]
[FEN "8/8/8/8/8/8/8/9 w - - 0 1"]

1. Kb1 *
"""

NO_KING = """[Event "No black king"]
[SetUp "1"]
[FEN "8/8/8/8/8/8/8/K7 w - - 0 1"]

*
"""

ILLEGAL_MOVE = """[Event "Illegal move"]
[Stipulation "win"]
[FEN "8/8/8/8/8/8/R7/K6k w - - 0 1"]

1. Rh2+ Kg1 2. Rb3 (2. Rh8 Kf1) 1-0
"""

NINE_PAWNS = """[Event "Nine pawns"]
[FEN "4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1"]

*
"""


def write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def studies(engine) -> list:
    """The stored studies' rows (``row.gbr``, ``row.pgn``, …), in id order."""
    with engine.connect() as conn:
        return list(conn.execute(select(Study).order_by(Study.id)))


def credits(engine, study_id: int) -> list[tuple[str, str]]:
    """The names (and their keys) credited with a study, in the order of its credit."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(Composer.name, Composer.key)
            .join(StudyComposer, StudyComposer.composer_id == Composer.id)
            .where(StudyComposer.study_id == study_id)
            .order_by(StudyComposer.position)
        )
        return [tuple(row) for row in rows]


def rejects(engine) -> list[tuple[str, str, int, bytes]]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(Reject.reason, Reject.file, Reject.line, Reject.raw).order_by(Reject.id)
        )
        return [tuple(row) for row in rows]


def count(engine, table) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


# -- classification ------------------------------------------------------------


def raw_game(text: str, name: str = "t.pgn") -> RawGame:
    import io

    (game,) = read_games(io.BytesIO(text.encode()), name=name)
    return game


def test_prepare_study_row() -> None:
    prepared = prepare(raw_game(SAAVEDRA))
    assert prepared.kind == "study"
    row = prepared.row
    assert row["gbr"] == "0300.10" and row["pieces"] == "0300"
    assert (row["wp"], row["br"], row["men"]) == (1, 1, 4)
    assert row["signature"] == "KPvKR"
    assert row["stipulation"] == "win" and row["year"] == 1895
    assert prepared.composers == ("Saavedra, Fernando", "Barbier, Georges")
    assert row["turn"] == "w"
    board = chess.Board(row["fen"])
    unsigned = row["zobrist"] % (1 << 64)
    assert unsigned == chess.polyglot.zobrist_hash(board)
    assert inflate_text(row["pgn"]) == SAAVEDRA  # kept deflated
    assert row["valid"] is None  # not validated


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (BAD_FEN, "invalid FEN"),
        (NO_KING, "Black has 0 kings"),
        (NINE_PAWNS, "9 pawns"),
        ('[Event "x"]\n[Variant "Crazyhouse"]\n\n1. e4 *\n', "unsupported variant"),
        ("\x00garbage here\n", "NUL byte"),
    ],
)
def test_prepare_rejects(text: str, reason: str) -> None:
    prepared = prepare(raw_game(text))
    assert prepared.kind == "reject"
    assert reason in prepared.row["reason"]
    assert prepared.row["raw"] == text.encode()


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_a_utf16_file_without_its_mark_is_named_as_such(codec: str, tmp_path: Path) -> None:
    # It was 'NUL byte in the game text at line 1' and no more: the user could not tell why.
    path = tmp_path / "u16.pgn"
    path.write_bytes(SAAVEDRA.encode(codec))
    engine = open_database(tmp_path / "u.sqlite")
    assert import_paths(engine, [path]).rejected == 1
    ((reason, _, _, _),) = rejects(engine)
    engine.dispose()
    assert reason == (
        "NUL byte in the game text at line 1 (it reads like UTF-16 without a byte-order mark:"
        " save the file as UTF-8)"
    )
    assert "UTF-16" not in prepare(raw_game("\x00garbage here\n")).row["reason"]


def test_content_hash_ignores_layout() -> None:
    crlf = SAAVEDRA.replace("\n", "\r\n").replace("1. c7 Rd6+ ", "1. c7\r\nRd6+ ")
    assert content_hash(raw_game(SAAVEDRA)) == content_hash(raw_game(crlf))
    assert content_hash(raw_game(SAAVEDRA)) != content_hash(raw_game(RETI))


def test_validate_records_illegal_moves() -> None:
    prepared = prepare(raw_game(ILLEGAL_MOVE), validate=True)
    assert prepared.kind == "study"
    assert prepared.row["valid"] is False
    assert any("Rb3" in error for error in prepared.row["errors"])
    good = prepare(raw_game(SAAVEDRA), validate=True)
    assert good.row["valid"] is True and good.row["errors"] is None


def test_validate_checks_variations() -> None:
    text = ILLEGAL_MOVE.replace("2. Rb3 (2. Rh8 Kf1)", "2. Rh8 (2. Rh7 Kf5)")
    prepared = prepare(raw_game(text), validate=True)
    assert prepared.row["valid"] is False
    assert any("Kf5" in error for error in prepared.row["errors"])


# -- importing files -------------------------------------------------------------


def test_import_mixed_file(db_url: str, tmp_path: Path) -> None:
    path = write(
        tmp_path / "mixed.pgn", SAAVEDRA + "\n" + BAD_FEN + "\n" + NO_KING + "\n" + ILLEGAL_MOVE
    )
    engine = open_database(db_url)
    try:
        summary = import_paths(engine, [path])
        assert (summary.read, summary.stored, summary.duplicates, summary.rejected) == (4, 2, 0, 2)
        stored = studies(engine)
        assert [s.gbr for s in stored] == ["0300.10", "0100.00"]
        assert [name for name, _ in credits(engine, stored[0].id)] == [
            "Saavedra, Fernando",
            "Barbier, Georges",
        ]
        assert stored[0].composer_names == "Saavedra, Fernando; Barbier, Georges"
        assert stored[1].valid is False  # a study (FEN tag): replayed and indexed by default
        reasons = rejects(engine)
        assert [(file, line) for _, file, line, _ in reasons] == [
            (str(path), SAAVEDRA.count("\n") + 2),
            (str(path), SAAVEDRA.count("\n") + BAD_FEN.count("\n") + 3),
        ]
        assert "invalid FEN" in reasons[0][0] and reasons[0][3] == BAD_FEN.encode()
        with engine.connect() as conn:
            run = conn.execute(select(ImportRun)).one()
        assert (run.read, run.stored, run.duplicates, run.rejected) == (4, 2, 0, 2)
        assert run.status == "done" and run.finished is not None

        again = import_paths(engine, [path])
        # Rejects already kept are duplicates too: the counts match the tables.
        assert (again.read, again.stored, again.duplicates, again.rejected) == (4, 0, 4, 0)
        assert count(engine, Study) == 2 and count(engine, Reject) == 2
    finally:
        engine.dispose()


#: The index tables, each row's material by its signature.
INDEX_READS = (
    "SELECT p.similar, p.study_id, p.node, p.image, p.ply, p.main, m.signature"
    " FROM positions p JOIN materials m ON m.id = p.material_id",
    'SELECT "key", study_id, main FROM study_moves',
    "SELECT m.signature, s.study_id, s.ends FROM study_materials s"
    " JOIN materials m ON m.id = s.material_id",
    "SELECT * FROM study_index",
)


def index_rows(engine: Engine) -> list[list[tuple[object, ...]]]:
    with engine.connect() as conn:
        return [sorted(map(tuple, conn.exec_driver_sql(sql))) for sql in INDEX_READS]


def test_the_imported_index_is_what_studydb_index_writes(db_url: str, tmp_path: Path) -> None:
    """The index the import writes from its workers' packed rows, a duplicate in the batch
    and a study stored already left out, is the one ``studydb index`` writes."""
    from studydb.db.index import index_studies

    crlf = SAAVEDRA.replace("\n", "\r\n")  # the same content: a duplicate in the batch
    engine = open_database(db_url)
    try:
        import_paths(engine, [write(tmp_path / "first.pgn", RETI)])
        path = write(tmp_path / "mixed.pgn", SAAVEDRA + "\n" + crlf + "\n" + RETI + "\n" + NO_KING)
        summary = import_paths(engine, [path], batch_size=10)
        assert (summary.stored, summary.duplicates, summary.rejected) == (1, 2, 1)
        imported = index_rows(engine)
        assert len({row[1] for row in imported[0]}) == 2  # positions of the two studies
        assert index_studies(engine, reindex=True).studies == 2
        assert index_rows(engine) == imported
    finally:
        engine.dispose()


def test_games_without_blank_line_keep_headers(sqlite_url: str, tmp_path: Path) -> None:
    path = write(tmp_path / "tight.pgn", SAAVEDRA.rstrip("\n") + "\n" + RETI)
    engine = open_database(sqlite_url)
    summary = import_paths(engine, [path])
    assert summary.stored == 2
    second = studies(engine)[1]
    assert tags_of(second.pgn)["Composer"] == "Réti, Richard"
    assert second.gbr == "0000.11" and second.stipulation == "draw"


def test_movetext_two_blank_lines_after_tags(sqlite_url: str, tmp_path: Path) -> None:
    text = RETI.replace('0 1"]\n\n1. Kg7', '0 1"]\n\n\n1. Kg7')
    path = write(tmp_path / "gap.pgn", text)
    engine = open_database(sqlite_url)
    summary = import_paths(engine, [path])
    assert (summary.read, summary.stored) == (1, 1)
    assert "1. Kg7" in studies(engine)[0].pgn


def test_fen_without_setup(sqlite_url: str, tmp_path: Path) -> None:
    path = write(tmp_path / "nosetup.pgn", RETI)  # RETI has FEN but no SetUp tag
    engine = open_database(sqlite_url)
    import_paths(engine, [path])
    assert studies(engine)[0].fen == "7K/8/k1P5/7p/8/8/8/8 w - - 0 1"


def test_no_fen_means_initial_position(sqlite_url: str, tmp_path: Path) -> None:
    path = write(tmp_path / "game.pgn", '[Event "g"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 1-0\n')
    engine = open_database(sqlite_url)
    import_paths(engine, [path])
    (study,) = studies(engine)
    assert study.gbr == "4888.88" and study.fen == chess.STARTING_FEN


def test_windows_1252_bytes(sqlite_url: str, tmp_path: Path) -> None:
    path = write(tmp_path / "cp1252.pgn", RETI.encode("cp1252"))
    engine = open_database(sqlite_url)
    summary = import_paths(engine, [path])
    assert summary.stored == 1
    (study,) = studies(engine)
    assert study.encoding == "cp1252"
    assert credits(engine, study.id) == [("Réti, Richard", "reti, richard")]


def test_utf8_bom(sqlite_url: str, tmp_path: Path) -> None:
    path = write(tmp_path / "bom.pgn", b"\xef\xbb\xbf" + SAAVEDRA.encode())
    engine = open_database(sqlite_url)
    import_paths(engine, [path])
    (study,) = studies(engine)
    assert tags_of(study.pgn)["Event"] == "Glasgow Weekly Citizen"
    assert study.encoding == "utf-8"


def test_empty_file(sqlite_url: str, tmp_path: Path) -> None:
    path = write(tmp_path / "empty.pgn", b"")
    summary = import_paths(open_database(sqlite_url), [path])
    assert (summary.read, summary.failures) == (0, [])


def test_random_bytes_are_rejected_not_lost(sqlite_url: str, tmp_path: Path) -> None:
    data = random.Random(7).randbytes(20_000)
    path = write(tmp_path / "noise.pgn", data)
    engine = open_database(sqlite_url)
    summary = import_paths(engine, [path])
    assert summary.read == summary.stored + summary.duplicates + summary.rejected
    assert summary.read >= 1 and summary.stored == 0
    # Every non-blank byte is kept in some reject.
    kept = b"".join(raw for *_, raw in rejects(engine))
    assert sorted(kept.split()) == sorted(data.split())


def test_compressed_files(sqlite_url: str, tmp_path: Path) -> None:
    write(tmp_path / "a.pgn.gz", gzip.compress(SAAVEDRA.encode()))
    write(tmp_path / "b.pgn.bz2", bz2.compress(RETI.encode()))
    write(tmp_path / "c.pgn.xz", lzma.compress(ILLEGAL_MOVE.encode()))
    write(tmp_path / "notes.txt", "not a pgn file")
    engine = open_database(sqlite_url)
    summary = import_paths(engine, [tmp_path])
    assert (summary.files, summary.stored) == (3, 3)


def test_truncated_gzip_stores_nothing_unverified(sqlite_url: str, tmp_path: Path) -> None:
    games = "\n".join([SAAVEDRA, RETI] * 1) + "\n" + ILLEGAL_MOVE
    data = gzip.compress(games.encode())
    path = write(tmp_path / "cut.pgn.gz", data[: len(data) - 30])
    engine = open_database(sqlite_url)
    summary = import_paths(engine, [path])
    assert summary.failures and "cut.pgn.gz: truncated or damaged gzip file" in summary.failures[0]
    assert f"compressed byte {len(data) - 30}" in summary.failures[0]
    assert (summary.read, summary.stored) == (0, 0)  # its CRC was never checked
    with engine.connect() as conn:
        run = conn.execute(select(ImportRun)).one()
    assert run.status == "failed" and "cut.pgn.gz" in run.error


def test_unreadable_path_does_not_stop_the_rest(sqlite_url: str, tmp_path: Path) -> None:
    good = write(tmp_path / "good.pgn", SAAVEDRA)
    summary = import_paths(open_database(sqlite_url), [tmp_path / "missing.pgn", good])
    assert summary.stored == 1
    assert len(summary.failures) == 1 and "missing.pgn" in summary.failures[0]


@pytest.mark.slow
def test_validate_in_worker_processes(sqlite_url: str, tmp_path: Path) -> None:
    path = write(tmp_path / "v.pgn", "\n".join([SAAVEDRA, RETI, ILLEGAL_MOVE, BAD_FEN]))
    engine = open_database(sqlite_url)
    summary = import_paths(engine, [path], validate=True, jobs=2, batch_size=1)
    assert (summary.stored, summary.rejected) == (3, 1)
    assert [s.valid for s in studies(engine)] == [True, True, False]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("count", "workers"),
    [(POOL_REPLAYS - 1, 0), (POOL_REPLAYS, 2)],
    ids=["too-few-to-start-workers", "enough"],
)
def test_an_import_of_studies_starts_workers_at_a_batch_with_enough_of_them(
    sqlite_url: str, tmp_path: Path, count: int, workers: int
) -> None:
    """No ``jobs``: the workers (all cores, here 2) start for a batch of many studies."""
    games = [SAAVEDRA.replace("Glasgow Weekly Citizen", f"Tourney {n}") for n in range(count)]
    path = write(tmp_path / "s.pgn", "\n".join(games))
    seen: list[int] = []
    engine = open_database(sqlite_url)
    summary = import_paths(
        engine, [path], progress=lambda *_: seen.append(len(multiprocessing.active_children()))
    )
    assert summary.stored == count
    assert max(seen) == min(workers, os.cpu_count() or 1)
    assert {s.gbr for s in studies(engine)} == {"0300.10"}


GAME = """[Event "Club {n}"]
[White "Amateur, A."]
[Black "Amateur, B."]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0
"""


@pytest.mark.slow
@pytest.mark.parametrize(("jobs", "workers"), [(None, 0), (2, 2)], ids=["no-jobs", "jobs-2"])
def test_a_header_only_import_uses_workers_when_jobs_asks(
    sqlite_url: str, tmp_path: Path, jobs: int | None, workers: int
) -> None:
    """``--positions none``: in this process, unless ``jobs`` asks for workers (it was
    left unheard: one process)."""
    path = write(tmp_path / "g.pgn", "\n".join(GAME.format(n=n) for n in range(60)))
    seen: list[int] = []
    engine = open_database(sqlite_url)
    summary = import_paths(
        engine,
        [path],
        positions="none",
        jobs=jobs,
        batch_size=20,
        progress=lambda *_: seen.append(len(multiprocessing.active_children())),
    )
    assert (summary.stored, summary.duplicates) == (60, 0)
    assert max(seen) == workers


@pytest.mark.slow
@pytest.mark.parametrize("positions", ["none", "studies"])
def test_games_hashed_in_the_workers_are_duplicates_as_when_hashed_here(
    db_url: str, tmp_path: Path, positions: str
) -> None:
    """Games not replayed are hashed by the workers, not looked up before: the insert
    finds those stored already.  The counts and rows are those of an import in one
    process, the second import of the file adds nothing."""
    games = [GAME.format(n=n % 7) for n in range(30)] + [SAAVEDRA, NINE_PAWNS, NINE_PAWNS]
    path = write(tmp_path / "g.pgn", "\n".join(games))
    engine = open_database(db_url)
    first = import_paths(engine, [path], positions=positions, jobs=2, batch_size=10)
    assert (first.stored, first.duplicates, first.rejected) == (8, 24, 1)
    rows = [(s.content_hash, s.offset) for s in studies(engine)]
    again = import_paths(engine, [path], positions=positions, jobs=2, batch_size=10)
    assert (again.stored, again.duplicates, again.rejected) == (0, 33, 0)
    assert [(s.content_hash, s.offset) for s in studies(engine)] == rows
    assert count(engine, Reject) == 1


@pytest.mark.parametrize("positions", ["none", "studies"])
def test_a_reimport_in_one_process_classifies_nothing_stored_already(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, positions: str
) -> None:
    """In this process every game is hashed and looked up before it is classified: the
    games stored already are duplicates at no more cost than their hash."""
    path = write(tmp_path / "g.pgn", "\n".join([GAME.format(n=n) for n in range(5)] + [RETI]))
    engine = open_database(sqlite_url)
    assert import_paths(engine, [path], positions=positions).stored == 6
    classified: list[str] = []
    real = classify.prepare

    def counting(game: RawGame, **options: object) -> classify.Prepared:
        classified.append(game.headers.get("Event", ""))
        return real(game, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(classify, "prepare", counting)
    again = import_paths(engine, [path], positions=positions)
    assert (again.stored, again.duplicates) == (0, 6)
    assert classified == []


def test_an_import_into_an_empty_database_looks_up_only_the_games_it_replays(
    sqlite_url: str, tmp_path: Path
) -> None:
    """Into a database that held no study, a game not replayed is classified without a
    lookup first (only this import's games can be stored, and the insert finds those);
    one replayed is looked up, and so is every game once the database holds studies.
    The counts are the same either way."""
    path = write(tmp_path / "g.pgn", "\n".join([GAME.format(n=n % 3) for n in range(6)] + [RETI]))
    engine = open_database(sqlite_url)
    looked_up: list[int] = []

    def record(*args: object) -> None:
        statement, parameters = args[2], args[3]
        if str(statement).startswith("SELECT content_hash FROM studies WHERE content_hash IN"):
            looked_up.append(len(parameters))  # type: ignore[arg-type]  # a tuple of digests

    event.listen(Engine, "before_cursor_execute", record)
    try:
        first = import_paths(engine, [path], batch_size=2)
        first_looked_up = sum(looked_up)
        looked_up.clear()
        again = import_paths(engine, [path], batch_size=2)
    finally:
        event.remove(Engine, "before_cursor_execute", record)
    assert (first.stored, first.duplicates, first_looked_up) == (4, 3, 1)  # RETI has a FEN
    assert (again.stored, again.duplicates, sum(looked_up)) == (0, 7, 7)


# -- the real corpus ---------------------------------------------------------------


def corpus_files(corpus_dir: Path) -> list[Path]:
    return sorted(p for p in corpus_dir.rglob("*.pgn"))


@pytest.mark.slow
def test_corpus_every_game_accounted_for(corpus_dir: Path, tmp_path: Path) -> None:
    engine = open_database(tmp_path / "corpus.sqlite")
    files = corpus_files(corpus_dir)
    summary = import_paths(engine, files)
    assert summary.failures == []
    expected = 0
    for path in files:
        with open(path, "rb") as stream:
            expected += sum(1 for _ in read_games(stream, name=str(path)))
    assert summary.read == expected
    assert summary.read == summary.stored + summary.duplicates + summary.rejected
    with engine.connect() as conn:
        runs = conn.execute(select(ImportRun)).all()
        assert all(r.read == r.stored + r.duplicates + r.rejected for r in runs)
        rows = conn.execute(select(Study.gbr, Study.pgn)).all()
    assert len(rows) == summary.stored
    with engine.connect() as conn:
        reasons = conn.execute(select(Reject.reason)).scalars().all()
    assert not [r for r in reasons if r.startswith(classify.INTERNAL_ERROR)]
    for code, pgn in rows:
        headers = tags_of(pgn)
        fen = headers.get("FEN", "").strip() or chess.STARTING_FEN
        variant = headers.get("Variant", "").lower()
        board = chess.Board(fen, chess960="960" in variant or "fischer" in variant)
        assert code == gbr.encode(board), headers

    again = import_paths(engine, files)
    assert again.stored == 0 and count(engine, Study) == summary.stored


# -- the command line ------------------------------------------------------------


def test_cli_import_json_summary(tmp_path: Path) -> None:
    db = tmp_path / "cli.sqlite"
    path = write(tmp_path / "x.pgn", SAAVEDRA + "\n" + BAD_FEN)
    result = runner.invoke(app, ["import", str(path), "--db", str(db), "--format", "json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert {k: summary[k] for k in ("read", "stored", "duplicates", "rejected")} == {
        "read": 2,
        "stored": 1,
        "duplicates": 0,
        "rejected": 1,
    }


def test_cli_import_text_summary_and_exit_codes(tmp_path: Path) -> None:
    db = tmp_path / "cli.sqlite"
    path = write(tmp_path / "x.pgn", SAAVEDRA)
    result = runner.invoke(app, ["import", str(path), "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("read 1 game from 1 file: stored 1,")
    assert "\x1b[" not in result.output  # no progress bar when not on a terminal
    other = write(tmp_path / "y.pgn", SAAVEDRA + "\n" + BAD_FEN)
    result = runner.invoke(app, ["import", str(path), str(other), "--db", str(db)])
    assert result.stdout.startswith("read 3 games from 2 files: stored 0, duplicates 2,")

    fresh = tmp_path / "fresh.sqlite"  # no input to read: no database made for nothing
    result = runner.invoke(app, ["import", str(tmp_path / "nope.pgn"), "--db", str(fresh)])
    assert result.exit_code == 1 and not fresh.exists()
    assert result.stderr == (
        f"studydb: error: no such file or folder: '{tmp_path / 'nope.pgn'}';"
        " no database was opened or created\n"
    )
    result = runner.invoke(app, ["import", str(tmp_path / "nope.pgn"), str(path), "--db", str(db)])
    assert result.exit_code == 1
    assert "nope.pgn" in result.stderr
    assert result.stdout.startswith("read 1 game from 1 file: stored 0, duplicates 1,")  # opened

    result = runner.invoke(app, ["import", "--db", str(db)])
    assert result.exit_code == 2


def test_cli_import_stdin(tmp_path: Path) -> None:
    db = tmp_path / "stdin.sqlite"
    result = runner.invoke(app, ["import", "-", "--db", str(db)], input=SAAVEDRA)
    assert result.exit_code == 0, result.output
    assert "stored 1" in result.stdout


def test_cli_rejects_list_and_export(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    path = write(tmp_path / "x.pgn", SAAVEDRA + "\n" + BAD_FEN + "\n" + NO_KING)
    assert runner.invoke(app, ["import", str(path), "--db", str(db)]).exit_code == 0

    result = runner.invoke(app, ["rejects", "--db", str(db), "--format", "json"])
    assert result.exit_code == 0, result.output
    items = json.loads(result.stdout)
    assert [item["line"] for item in items] == [
        SAAVEDRA.count("\n") + 2,
        SAAVEDRA.count("\n") + BAD_FEN.count("\n") + 3,
    ]
    assert all(item["file"] == str(path) for item in items)

    result = runner.invoke(app, ["rejects", "--db", str(db)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "invalid FEN" in result.stdout and "x.pgn:" in result.stdout

    out = tmp_path / "rejected.pgn"
    result = runner.invoke(app, ["rejects", "--db", str(db), "--export", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == (BAD_FEN + "\n" + NO_KING).encode()  # NO_KING: the file's end


def test_rejects_without_any_says_so_without_an_empty_table(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    path = write(tmp_path / "x.pgn", SAAVEDRA)
    assert runner.invoke(app, ["import", str(path), "--db", str(db)]).exit_code == 0
    result = runner.invoke(app, ["rejects", "--db", str(db)])
    assert (result.exit_code, result.stdout) == (0, "0 rejected games\n")


def test_rejects_export_is_each_game_byte_for_byte(tmp_path: Path) -> None:
    """The export read again gives the rejected games' bytes as read, one alone exactly;
    a game whose last line has no line end (cut before tags on its line) gets one."""
    db = tmp_path / "r.sqlite"
    text = BAD_FEN + "\n" + NO_KING.rstrip("\n") + " " + NINE_PAWNS.rstrip("\n")  # no last \\n
    path = write(tmp_path / "x.pgn", text)
    assert runner.invoke(app, ["import", str(path), "--db", str(db)]).exit_code == 0
    kept = [raw for _, _, _, raw in rejects(open_database(db))]
    assert kept == [
        BAD_FEN.encode(),
        NO_KING.rstrip("\n").encode() + b" ",
        NINE_PAWNS.rstrip("\n").encode(),
    ]
    out = tmp_path / "rejected.pgn"
    assert runner.invoke(app, ["rejects", "--db", str(db), "--export", str(out)]).exit_code == 0
    again = [game.raw for game in read_games(io.BytesIO(out.read_bytes()), name="o")]
    assert again == [kept[0], kept[1] + b"\n", kept[2]]
    one = tmp_path / "one.sqlite"
    write(tmp_path / "one.pgn", NO_KING)
    assert (
        runner.invoke(app, ["import", str(tmp_path / "one.pgn"), "--db", str(one)]).exit_code == 0
    )
    assert runner.invoke(app, ["rejects", "--db", str(one), "--export", str(out)]).exit_code == 0
    assert out.read_bytes() == NO_KING.encode()


def installed_studydb() -> str:
    script = Path(sys.executable).with_name("studydb")
    assert script.exists(), f"console script not installed next to {sys.executable}"
    return str(script)


@pytest.mark.slow
def test_installed_script_imports_the_classics(tmp_path: Path) -> None:
    db = tmp_path / "classics.sqlite"
    args = [installed_studydb(), "import", str(CLASSICS), "--db", str(db), "--format", "json"]
    out = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["read"] == summary["stored"] > 20
    with sqlite3.connect(db) as conn:
        codes = {row[0] for row in conn.execute("SELECT gbr FROM studies")}
    assert {"0300.10", "0000.11", "0323.12"} <= codes


@pytest.mark.slow
def test_killed_import_resumes_to_the_same_database(corpus_dir: Path, tmp_path: Path) -> None:
    """SIGKILL part-way, re-run: same studies and rejects as an uninterrupted import."""
    source = tmp_path / "games.pgn"
    with open(source, "wb") as out:
        for path in sorted((corpus_dir / "games").glob("*.pgn"))[:6]:
            out.write(path.read_bytes())
        out.write(BAD_FEN.encode())
    reference = open_database(tmp_path / "reference.sqlite")
    import_paths(reference, [source], batch_size=50)

    db = tmp_path / "killed.sqlite"
    args = [installed_studydb(), "import", str(source), "--db", str(db), "--batch-size", "50"]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    committed = 0
    while time.monotonic() < deadline and committed < 200:
        time.sleep(0.05)
        if db.exists():
            try:
                with sqlite3.connect(db, timeout=1) as conn:
                    committed = conn.execute("SELECT count(*) FROM studies").fetchone()[0]
            except sqlite3.OperationalError:
                pass
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert committed >= 200, "the import did not get going"
    engine = open_database(db)
    with engine.connect() as conn:
        run = conn.execute(select(ImportRun)).one()
    # Whole batches only, and the run's counters agree with what was committed.
    assert run.status == "running" and run.read % 50 == 0
    assert run.stored == count(engine, Study)

    result = runner.invoke(app, ["import", str(source), "--db", str(db), "--batch-size", "50"])
    assert result.exit_code == 0, result.output
    assert snapshot(engine) == snapshot(reference)


def first_errors(game: RawGame, fen: str, chess960: bool) -> tuple[list[str], list[str]]:
    """The first move error found by our replay and by python-chess's reader."""
    import io
    import logging

    import chess.pgn

    from studydb.db.classify import validate_game

    logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)
    ours = [
        e
        for e in validate_game(game, fen, chess960=chess960)
        if not e.startswith("illegal start position")
    ]
    lines = [line for line in game.movetext.replace("\r", "").split("\n") if line.strip()]
    setup = f'[FEN "{fen}"]\n[SetUp "1"]\n'
    if chess960:
        setup += '[Variant "Chess960"]\n'
    theirs = chess.pgn.read_game(io.StringIO(setup + "\n" + "\n".join(lines) + "\n"))
    return ours[:1], [str(e) for e in theirs.errors[:1]]


#: Tournament games checked, the first of the sorted files (the studies and quirks all are).
GAMES_TO_CHECK = 800


@pytest.mark.slow
def test_validation_agrees_with_python_chess(corpus_dir: Path) -> None:
    """The fast replay finds the same first error as python-chess's reader, game by game.

    On the corpus as it is (studies, quirks, part of the games), and on games
    whose moves were swapped around to make them illegal.
    """
    from studydb.headers import start_fen

    rng = random.Random(1)
    token = re.compile(r"(?<![{\w])[NBRQK]?[a-h]?x?[a-h][1-8](?:=[NBRQ])?[+#]?")
    checked = broken = 0
    for path in corpus_files(corpus_dir):
        with open(path, "rb") as stream:
            games = list(read_games(stream, name=str(path)))
        if "games" in path.parts:  # keep the test quick: the first GAMES_TO_CHECK of them
            games = games[: max(0, GAMES_TO_CHECK - checked)]
        for game in games:
            variant = game.headers.get("Variant", "").lower()
            if variant not in ("", "standard", "chess960"):
                continue
            fen = start_fen(game.headers) or chess.STARTING_FEN
            try:
                chess.Board(fen, chess960=variant == "chess960")
            except ValueError:
                continue
            ours, theirs = first_errors(game, fen, variant == "chess960")
            assert ours == theirs, (path, game.line)
            checked += 1
            moves = token.findall(game.movetext)
            if len(moves) > 4 and checked % 3 == 0:
                wrong = rng.choice(moves)
                at = rng.randrange(len(moves) // 2, len(moves))
                spans = [m.span() for m in token.finditer(game.movetext)]
                start, end = spans[at]
                mutated = RawGame(
                    **{**{f: getattr(game, f) for f in RawGame.__slots__},
                       "movetext": game.movetext[:start] + wrong + game.movetext[end:]}
                )  # fmt: skip
                ours, theirs = first_errors(mutated, fen, variant == "chess960")
                assert ours == theirs, (path, game.line, wrong, at)
                broken += bool(ours)
    assert checked > GAMES_TO_CHECK and broken > checked // 20


@pytest.mark.slow
def test_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    """With stderr on a terminal the import shows games, games/s and bytes read."""
    args = [installed_studydb(), "import", str(CLASSICS), "--db", str(tmp_path / "t.sqlite")]
    code, screen, out = run_on_terminal(args)
    assert code == 0
    assert "games/s" in screen and "25 games" in screen
    size_kb = f"{CLASSICS.stat().st_size / 1000:.1f}"
    assert f"{size_kb}/{size_kb} kB" in screen
    assert b"stored 25" in out  # the summary still goes to stdout


def test_the_import_reads_sqlite_without_mmap(tmp_path: Path) -> None:
    from studydb.db.importer import IMPORT_CACHE_KIB, _unmapped

    engine = open_database(tmp_path / "mmap.sqlite")
    unmapped = _unmapped(engine)
    with unmapped.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA mmap_size").scalar() == 0
        assert conn.exec_driver_sql("PRAGMA cache_size").scalar() == -IMPORT_CACHE_KIB
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA mmap_size").scalar() > 0
    unmapped.dispose()
    memory = open_database("sqlite://")
    assert _unmapped(memory) is memory  # an in-memory database cannot be opened twice


# -- issue 9: nothing lost, no column limit, counts that match the tables -------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ('[Composer "Smith]\n', '[Composer "Jones]\n'),  # unterminated tag values
        ('[Event "A"]\n[Event "B"]\n', '[Event "A"]\n[Event "C"]\n'),  # repeated tags
        ('[Event "A"] ; first note\n', '[Event "A"] ; second note\n'),  # comments after tags
        ('{before} [Event "A"]\n', '{other} [Event "A"]\n'),
    ],
)
def test_duplicates_only_when_no_text_would_be_lost(first: str, second: str) -> None:
    moves = "\n1. e4 e5 1-0\n"
    assert content_hash(raw_game(first + moves)) != content_hash(raw_game(second + moves))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('[kj90trkm"sdfsdf"yl]\ng(erg)\nr23 *\n', "not a PGN game"),
        ("\x01\x02 e4 \x03 1-0\n", "not a PGN game"),
        ('[FEN "QQQQQQQQ/QQQQQQQQ/QQQQQQQQ/8/8/8/8/K6k w - - 0 1"]\n\n*\n', "impossible"),
        ('[FEN "k7/8/8/8/8/PPPPPPPP/P7/K7 w - - 0 1"]\n\n*\n', "9 pawns"),
    ],
)
def test_garbage_and_impossible_positions_are_rejected(text: str, reason: str) -> None:
    prepared = prepare(raw_game(text))
    assert prepared.kind == "reject" and reason in prepared.row["reason"]


def test_badpgn_quirk_is_rejected(db_url: str, corpus_dir: Path) -> None:
    engine = open_database(db_url)
    summary = import_paths(engine, [corpus_dir / "quirks" / "badpgn.pgn"])
    assert (summary.stored, summary.rejected) == (0, 1)


def test_a_game_studydb_fails_on_is_kept_as_a_reject_and_the_import_goes_on(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error of studydb's own on one game (here made by a broken read_info, in this
    process: jobs 1) stopped the whole import with a traceback; the game is now a reject
    saying so, its bytes kept, and the games after it are imported."""
    real = classify.read_info

    def broken(headers: dict[str, str]) -> object:
        if headers.get("Event") == "Odd":
            raise RuntimeError("no such case")
        return real(headers)

    monkeypatch.setattr(classify, "read_info", broken)
    odd = '[Event "Odd"]\n[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n1. c7 *\n'
    path = write(tmp_path / "x.pgn", odd + "\n" + SAAVEDRA + "\n" + BAD_FEN)
    engine = open_database(sqlite_url)
    try:
        summary = import_paths(engine, [path], jobs=1)
        with engine.connect() as conn:
            rejects = conn.execute(select(Reject.reason, Reject.raw).order_by(Reject.id)).all()
    finally:
        engine.dispose()
    assert (summary.stored, summary.rejected, summary.failures) == (1, 2, [])
    reason, raw = rejects[0]
    assert reason == f"{classify.INTERNAL_ERROR}: RuntimeError: no such case"
    assert raw == odd.encode()


@pytest.mark.slow
def test_oversized_game_is_rejected_with_its_size() -> None:
    from studydb.pgn import MAX_GAME_BYTES

    game = raw_game('[Event "big"]\n\n1. e4 {' + "x" * MAX_GAME_BYTES + "} 1-0\n")
    prepared = prepare(game)
    assert prepared.kind == "reject"
    assert "larger than" in prepared.row["reason"] and "MB" in prepared.row["reason"]


def test_no_column_limit_rejects_a_legitimate_game(db_url: str, tmp_path: Path) -> None:
    long_result = '[Result "1-0 (White wins on time)"]\n[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]'
    games = [
        f"{long_result}\n\n1. c7 *\n",
        '[Event "99999999999999999999.p X"]\n[Date "9999999999.01.01"]\n\n1. e4 *\n',
        '[Event "3.p 99999999999 1999"]\n\n1. d4 *\n',
        SAAVEDRA,
    ]
    path = write(tmp_path / "limits.pgn", "\n".join(games))
    engine = open_database(db_url)
    summary = import_paths(engine, [path])
    assert (summary.stored, summary.rejected, summary.failures) == (4, 0, [])
    assert studies(engine)[0].result == "1-0 (White wins on time)"
    with engine.connect() as conn:
        assert conn.execute(select(ImportRun.status)).scalar_one() == "done"


def test_identical_rejects_are_counted_as_the_tables_keep_them(db_url: str, tmp_path: Path) -> None:
    bad = '[Event "x"]\n[Variant "Atomic"]\n\n1. e4 *\n'
    path = write(tmp_path / "bad.pgn", bad + "\n" + bad)
    engine = open_database(db_url)
    first = import_paths(engine, [path])
    assert (first.rejected, first.duplicates) == (1, 1)
    assert count(engine, Reject) == 1
    again = import_paths(engine, [path])
    assert (again.rejected, again.duplicates) == (0, 2)


def test_non_utf8_file_name_is_imported(sqlite_url: str, tmp_path: Path) -> None:
    name = os.fsencode(tmp_path) + b"/caf\xe9.pgn"
    with open(name, "wb") as out:
        out.write(SAAVEDRA.encode())
    engine = open_database(sqlite_url)
    summary = import_paths(engine, [tmp_path])
    assert (summary.stored, summary.failures) == (1, [])
    assert studies(engine)[0].file.endswith("caf\\xe9.pgn")


def as_unprivileged_user() -> list[str]:
    """A command prefix that drops root's rights (root reads any folder), else nothing."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: no way to meet a real permission error")
    return [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


@pytest.mark.slow
def test_unreadable_folder_is_named_and_the_rest_imported() -> None:
    prefix = as_unprivileged_user()
    with tempfile.TemporaryDirectory() as name:  # under /tmp: reachable by nobody
        folder = Path(name)
        folder.chmod(0o777)
        write(folder / "a.pgn", SAAVEDRA).chmod(0o644)
        locked = folder / "locked"
        locked.mkdir()
        write(locked / "b.pgn", RETI)
        locked.chmod(0)
        db = folder / "d.sqlite"
        args = [*prefix, installed_studydb(), "import", str(folder), "--db", str(db)]
        result = subprocess.run(
            [*args, "--format", "json"], capture_output=True, text=True, timeout=120
        )
        locked.chmod(0o755)
        summary = json.loads(result.stdout)
        assert summary["stored"] == 1, result.stderr
        assert len(summary["failures"]) == 1 and "locked" in summary["failures"][0]
        assert "Permission denied" in summary["failures"][0]


@pytest.mark.parametrize(
    "header",
    [
        '[Event "{digits}.p Tourney"]',
        '[Source "{digits}. prize, Tourney"]',
        '[Award "{digits}.p"]',
        '[Composer{digits} "Kling, Josef"]',
    ],
)
def test_header_number_beyond_python_digit_limit_rejects_that_game(
    db_url: str, tmp_path: Path, header: str
) -> None:
    bad = (
        header.format(digits="9" * 4_301) + '\n[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n1. c7 *\n'
    )
    path = write(tmp_path / "digits.pgn", "\n".join([SAAVEDRA, bad, RETI]))
    engine = open_database(db_url)
    summary = import_paths(engine, [path])
    assert (summary.stored, summary.rejected, summary.failures) == (2, 1, [])
    [(reason, _, line, _)] = rejects(engine)
    if header.startswith("[Composer"):  # a tag name too long to read
        assert reason.startswith("unreadable header:") and "4301 digits" in reason
    else:  # a tag value over the bound of 1,000 characters
        assert reason.startswith("tag ") and "4,3" in reason and "over the bound of 1,000" in reason
    assert len(reason) <= 300 and line == SAAVEDRA.count("\n") + 2
    with engine.connect() as conn:
        assert conn.execute(select(ImportRun.status)).scalar_one() == "done"


def test_cli_import_stdin_twice_is_a_usage_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["import", "-", "-", "--db", str(tmp_path / "d.sqlite")])
    assert result.exit_code == 2, result.output
    assert "standard input" in result.output


def test_cli_import_of_an_empty_path_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``studydb import "$DIR"`` with DIR unset imported the current folder, recursively."""
    (tmp_path / "here.pgn").write_text(SAAVEDRA)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["import", "", "--db", str(tmp_path / "d.sqlite")])
    assert result.exit_code == 2, result.output
    assert "an empty path names no file" in result.output
    assert not (tmp_path / "d.sqlite").exists()


@pytest.mark.slow
def test_pipe_given_as_path_imports_every_game(tmp_path: Path) -> None:
    db = tmp_path / "d.sqlite"
    data = (SAAVEDRA + "\n" + RETI + "\n") * 1
    many = "".join(
        SAAVEDRA.replace("Glasgow Weekly Citizen", f"Source {i}") + "\n" for i in range(300)
    )
    result = subprocess.run(
        f"cat | {installed_studydb()} import /dev/stdin --db {db} --format json",
        shell=True,
        input=(data + many).encode(),
        capture_output=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["read"], summary["stored"]) == (302, 302)


def varied_games(count: int, *, seed: int = 1) -> str:
    """Distinct studies of very different sizes (rows that fill pages unevenly)."""
    rng = random.Random(seed)
    return "\n".join(
        f'[Event "E{i}"]\n[Composer "{"N" * rng.randint(1, 990)}{i}"]\n'
        f'[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n1. c7 {{{"x" * rng.randint(0, 4000)}}} *\n'
        for i in range(count)
    )


def ids_out_of_file_order(engine) -> int:
    with engine.connect() as conn:
        offsets = conn.execute(select(Study.offset).order_by(Study.id)).scalars().all()
    return sum(after < before for before, after in itertools.pairwise(offsets))


@pytest.mark.slow
def test_ids_follow_file_order(db_url: str, tmp_path: Path) -> None:
    path = write(tmp_path / "varied.pgn", varied_games(1500))
    engine = open_database(db_url)
    summary = import_paths(engine, [path], batch_size=500)
    assert summary.stored == 1500
    assert ids_out_of_file_order(engine) == 0


@pytest.mark.slow
def test_batch_size_beyond_the_file_on_postgres(pg_url: str, tmp_path: Path) -> None:
    path = write(tmp_path / "varied.pgn", varied_games(1200, seed=2))
    args = ["import", str(path), "--db", pg_url, "--batch-size", "100000", "--format", "json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert (summary["read"], summary["stored"], summary["failures"]) == (1200, 1200, [])
    engine = open_database(pg_url)
    assert count(engine, Study) == 1200 and ids_out_of_file_order(engine) == 0


def test_row_the_server_refuses_goes_to_rejects_and_the_rest_is_stored(
    db_url: str, tmp_path: Path
) -> None:
    # Within the 1,000-character bound of a tag value, but 3,000 bytes of UTF-8: over
    # PostgreSQL's btree limit (2,704 bytes).
    cjk = [chr(code) for code in range(0x4E00, 0x9FFF)]
    long_name = "Z" + "".join(random.Random(5).choices(cjk, k=999))
    games = [SAAVEDRA.replace("Glasgow Weekly Citizen", f"Source {i}") for i in range(10)]
    games.insert(4, RETI.replace("Réti, Richard", long_name))
    path = write(tmp_path / "long.pgn", "\n".join(games))
    engine = open_database(db_url)
    summary = import_paths(engine, [path])
    refused = engine.dialect.name == "postgresql"  # SQLite stores any length
    assert (summary.stored, summary.rejected) == ((10, 1) if refused else (11, 0))
    assert summary.read == 11 and summary.failures == []
    assert ids_out_of_file_order(engine) == 0
    with engine.connect() as conn:
        assert conn.execute(select(ImportRun.status)).scalar_one() == "done"
    if refused:
        [(reason, _, line, raw)] = rejects(engine)
        assert line == 1 + sum(game.count("\n") + 1 for game in games[:4])
        assert reason.startswith("refused by the database:") and "index row size" in reason
        assert len(reason) <= 330 and raw == games[4].encode()


def test_a_comment_line_like_a_tag_is_no_game_and_tags_after_a_result_are_one(
    sqlite_url: str, tmp_path: Path
) -> None:
    commented = SAAVEDRA.replace("1. c7", '1. c7 {compare\n[Event "Another study"]\nthere}', 1)
    assert commented != SAAVEDRA
    path = write(tmp_path / "quirks.pgn", commented + "\n" + RETI.rstrip("\n") + " " + SAAVEDRA)
    engine = open_database(sqlite_url)
    summary = import_paths(engine, [path])
    assert (summary.read, summary.stored, summary.duplicates, summary.rejected) == (3, 3, 0, 0)
    stored = studies(engine)
    assert [s.gbr for s in stored] == ["0300.10", "0000.11", "0300.10"]  # no 4888.88
    assert stored[0].pgn == commented
    assert [tags_of(s.pgn)["Event"] for s in stored[1:]] == [
        "Ostrauer Morgenzeitung",
        "Glasgow Weekly Citizen",
    ]


def test_tags_after_a_result_on_a_line_closing_a_comment_start_a_game(
    sqlite_url: str, tmp_path: Path
) -> None:
    """``} 1/2-1/2 [Event …]``: every game is stored, a duplicate or a reject, as many
    as pgn-extract reads, and each stored text is its slice of the input."""
    from helpers import pgn_extract

    commented = RETI.replace("6. c8=Q", "6. c8=Q {the kings\nare too far}", 1)
    assert commented != RETI
    data = (commented.rstrip("\n") + " " + SAAVEDRA + "\n" + NO_KING.rstrip("\n")).encode()
    data += b" " + RETI.replace("\n\n1.", "\n\n{a\nlong note} 1.").encode()
    data += b"\n" + SAAVEDRA.encode()  # the same game again: a duplicate
    path = write(tmp_path / "closing.pgn", data)
    engine = open_database(sqlite_url)
    summary = import_paths(engine, [path])
    theirs = subprocess.run(
        [pgn_extract(), "-s", "--nomovenumbers", "-C", "-N", "-V", str(path)],
        capture_output=True,
        check=False,
    ).stdout.count(b"[Event ")
    assert summary.read == theirs == 5
    assert (summary.stored, summary.duplicates, summary.rejected) == (3, 1, 1)
    stored = studies(engine)
    assert [tags_of(s.pgn)["Event"] for s in stored] == [
        "Ostrauer Morgenzeitung",
        "Glasgow Weekly Citizen",
        "Ostrauer Morgenzeitung",
    ]
    for study in stored:
        text = study.pgn.encode(study.encoding)
        assert data[study.offset : study.offset + len(text)] == text
    ((_, _, line, raw),) = rejects(engine)
    assert raw == data[data.index(b'[Event "No black king"]') :].split(b" [Event")[0] + b" "
    assert line == data[: data.index(b'[Event "No black king"]')].count(b"\n") + 1


# -- damaged compressed files (issue 27) -----------------------------------------------------

#: Each format at its fastest level: the files read are the same formats, made in a
#: tenth of the time (xz's default preset took 11 of the corpus test's 16 s).
COMPRESSORS = {
    "gz": functools.partial(gzip.compress, compresslevel=1),
    "bz2": functools.partial(bz2.compress, compresslevel=1),
    "xz": functools.partial(lzma.compress, preset=0),
}


def real_games(copies: int) -> bytes:
    """The classics, ``copies`` times, each copy's Events numbered: real PGN, no duplicates."""
    text = CLASSICS.read_bytes()
    return b"".join(text.replace(b'[Event "', b'[Event "%d ' % i) + b"\n" for i in range(copies))


def original_games(data: bytes) -> set[bytes]:
    return {game.raw for game in read_games(io.BytesIO(data), name="original")}


def damage(packed: bytes, at: int, size: int = 64) -> bytes:
    """``packed`` with ``size`` bytes at ``at`` overwritten (no byte kept as it was)."""
    noise = bytes((packed[i] ^ 0x5A) or 1 for i in range(at, min(at + size, len(packed))))
    return packed[:at] + noise + packed[at + len(noise) :]


def stored_texts(engine) -> list[bytes]:
    with engine.connect() as conn:
        rows = conn.execute(select(Study.pgn, Study.encoding)).all()
    return [pgn.encode(encoding) for pgn, encoding in rows]


def check_no_false_game(engine, path: Path, original: bytes, at: int, summary) -> None:
    """Every stored game is a game of the original; the damage is named, past ``at``."""
    games = original_games(original)
    assert all(text in games for text in stored_texts(engine))
    (failure,) = summary.failures
    assert failure.startswith(f"{path}: ")
    found = re.search(r"compressed bytes? ([\d,]+)(?:-([\d,]+))?", failure)
    assert found, failure
    start = int(found.group(1).replace(",", ""))
    end = int((found.group(2) or found.group(1)).replace(",", ""))
    assert end > at, failure  # found where it is or after, never before
    if found.group(2):  # a range named holds the damage
        assert start <= at, failure


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
@pytest.mark.parametrize("where", [0.02, 0.3, 0.5, 0.8, 0.97])
def test_damaged_compressed_file_stores_no_false_game(
    sqlite_url: str, tmp_path: Path, kind: str, where: float
) -> None:
    original = real_games(8)
    packed = COMPRESSORS[kind](original)
    at = int(len(packed) * where)
    path = write(tmp_path / f"damaged.pgn.{kind}", damage(packed, at))
    engine = open_database(sqlite_url)
    summary = import_paths(engine, [path])
    check_no_false_game(engine, path, original, at, summary)
    assert summary.stored == 0  # one member or stream: nothing before the damage is verified
    assert "no game of this file was stored" in summary.failures[0]


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_salvage_stores_the_games_of_whole_verified_members(
    sqlite_url: str, tmp_path: Path, kind: str
) -> None:
    original = real_games(6)
    cut = len(original) // 2 + 17  # the second member starts inside a game
    first = COMPRESSORS[kind](original[:cut])
    second = COMPRESSORS[kind](original[cut:])
    at = len(first) + len(second) // 2
    path = write(tmp_path / f"members.pgn.{kind}", damage(first + second, at))
    engine = open_database(sqlite_url)
    plain = import_paths(engine, [path])
    assert plain.stored == 0 and "--salvage stores the games in its first" in plain.failures[0]

    summary = import_paths(
        engine, [path], salvage=True, positions=INDEX_NONE
    )  # no replay: salvage is the reader's
    check_no_false_game(engine, path, original, at, summary)
    before = [g for g in read_games(io.BytesIO(original), name="o") if g.end_offset < cut]
    assert summary.stored == len(before) and summary.rejected == 1  # the game cut there
    assert f"salvaged the games in the first {cut:,} uncompressed bytes" in summary.failures[0]
    with engine.connect() as conn:
        statuses = conn.execute(select(ImportRun.status).order_by(ImportRun.id)).scalars().all()
    assert statuses == ["failed", "salvaged"]
    url = str(engine.url)
    shown = runner.invoke(app, ["show", "1", "--db", url])
    assert "(salvaged from a damaged compressed file: its verified part)" in shown.stdout
    as_json = runner.invoke(app, ["show", "1", "--db", url, "--format", "json"])
    assert json.loads(as_json.stdout)["salvaged"] is True


@pytest.mark.parametrize("members", [1, 2])
def test_a_check_failing_at_a_members_end_names_the_whole_member(
    sqlite_url: str, tmp_path: Path, members: int
) -> None:
    """gzip's CRC covers a whole member: a byte changed in its stored (level 0) data
    is found only at the member's end, and the damage is named as anywhere in it."""
    original = real_games(40)
    cut = len(original) // 2 + 17 if members == 2 else 0
    first = gzip.compress(original[:cut], compresslevel=0) if cut else b""
    second = gzip.compress(original[cut:], compresslevel=0)
    at = len(first) + len(second) // 2
    packed = first + second
    assert len(second) > 100_000  # checked in several pieces: the end is far from the damage
    changed = packed[:at] + bytes([packed[at] ^ 1]) + packed[at + 1 :]
    path = write(tmp_path / "stored.pgn.gz", changed)
    engine = open_database(sqlite_url)
    summary = import_paths(
        engine, [path], salvage=True, positions=INDEX_NONE
    )  # no replay: salvage is the reader's
    check_no_false_game(engine, path, original, at, summary)
    (failure,) = summary.failures
    assert failure.startswith(
        f"{path}: damaged gzip data in compressed bytes {len(first):,}-{len(packed):,}"
        " (somewhere in its gzip member: its decoding failed in compressed bytes "
    ), failure
    before = [g for g in read_games(io.BytesIO(original), name="o") if g.end_offset < cut]
    assert summary.stored == len(before)
    if members == 1:
        assert failure.endswith(
            "; no game of this file was stored"
            " (none is in a verified gzip member before the damage)"
        )
    else:
        assert f"salvaged the games in the first {cut:,} uncompressed bytes" in failure


def test_cli_names_the_damage_and_exits_1(tmp_path: Path) -> None:
    packed = gzip.compress(real_games(4))
    at = len(packed) // 2
    path = write(tmp_path / "bad.pgn.gz", damage(packed, at))
    result = runner.invoke(app, ["import", str(path), "--db", str(tmp_path / "d.sqlite")])
    assert result.exit_code == 1, result.output
    assert f"studydb: error: {path}: damaged gzip data in compressed bytes" in result.stderr
    assert "stored 0" in result.stdout


def test_a_damaged_pipe_is_spooled_and_checked(tmp_path: Path) -> None:
    original = real_games(4)
    packed = bz2.compress(original)
    at = len(packed) // 3
    result = runner.invoke(
        app,
        ["import", "-", "--db", str(tmp_path / "d.sqlite"), "--format", "json"],
        input=damage(packed, at),
    )
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["stored"] == 0
    assert "-: damaged bzip2 data in compressed bytes" in result.stderr
    good = runner.invoke(app, ["import", "-", "--db", str(tmp_path / "d.sqlite")], input=packed)
    assert good.exit_code == 0, good.output
    assert "stored 100" in good.stdout


# -- files still being written, FIFOs in folders (issue 27) ------------------------------------


def test_a_game_half_written_at_open_is_a_reject_and_later_stored_once(
    sqlite_url: str, tmp_path: Path
) -> None:
    whole = RETI
    half, rest = whole[: whole.index("h4")], whole[whole.index("h4") :]
    path = write(tmp_path / "growing.pgn", SAAVEDRA + "\n" + ILLEGAL_MOVE + "\n" + half)
    engine = open_database(sqlite_url)

    def writer_finishes(*_: object) -> None:  # after the first batch: the writer goes on
        if not path.read_text().endswith(rest):
            with open(path, "a") as out:
                out.write(rest)

    summary = import_paths(engine, [path], batch_size=1, progress=writer_finishes)
    assert (summary.stored, summary.rejected) == (2, 1)
    ((reason, _, _, raw),) = rejects(engine)
    assert reason.startswith("incomplete at end of file") and raw == half.encode()
    assert [tags_of(s.pgn)["Event"] for s in studies(engine)] == [
        "Glasgow Weekly Citizen",
        "Illegal move",
    ]

    again = import_paths(engine, [path])
    assert (again.stored, again.duplicates, again.rejected) == (1, 2, 0)
    assert [s.pgn for s in studies(engine)][-1] == whole


@pytest.mark.slow
def test_a_fifo_or_socket_in_a_folder_is_skipped_with_a_message(tmp_path: Path) -> None:
    import socket

    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    write(tree / "a.pgn", SAAVEDRA)
    os.mkfifo(tree / "fifo.pgn")
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(tree / "sub" / "sock.pgn"))
        result = subprocess.run(
            [installed_studydb(), "import", str(tree), "--db", str(tmp_path / "d.sqlite")],
            capture_output=True,
            text=True,
            timeout=60,  # today's import blocks on the FIFO forever
            check=False,
        )
    finally:
        server.close()
    assert result.returncode == 0, result.stderr
    assert f"studydb: skipped {tree / 'fifo.pgn'}: a FIFO, not a regular file" in result.stderr
    assert f"studydb: skipped {tree / 'sub' / 'sock.pgn'}: a socket" in result.stderr
    assert "read 1 game from 1 file: stored 1" in result.stdout


# -- giant games and fields (issue 27) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (SAAVEDRA.replace("Barbier, Georges", "B" * 1_001), "tag Composer2 is 1,001 characters"),
        (SAAVEDRA.replace('[Site "?"]', f'[Site "{"s" * 5_000}"]'), "tag Site is 5,000 characters"),
        (
            SAAVEDRA.replace("Barbier, Georges", "; ".join(f"N{i}, A." for i in range(50))),
            "credits 51 composers, over the bound of 50",
        ),
    ],
)
def test_fields_over_their_bound_make_a_reject(text: str, reason: str) -> None:
    prepared = prepare(raw_game(text))
    assert prepared.kind == "reject" and reason in prepared.row["reason"], prepared.row["reason"]
    assert prepared.row["raw"] == text.encode()  # kept whole, byte for byte


def test_fields_at_their_bound_are_stored() -> None:
    names = "; ".join(f"N{i}, A." for i in range(49))  # and Saavedra: 50
    for text in (
        SAAVEDRA.replace("Barbier, Georges", "B" * 1_000),
        SAAVEDRA.replace("Barbier, Georges", names),
    ):
        assert prepare(raw_game(text)).kind == "study"


#: Peak memory of this process alone: VmHWM (ru_maxrss would count the parent's
#: memory at the fork too, which Linux carries over the exec).
GIANT_IMPORT = """
import re, sys
from studydb.db.connect import open_database
from studydb.db.importer import import_paths
summary = import_paths(open_database(sys.argv[1]), sys.argv[2:])
status = open("/proc/self/status").read()
peak = int(re.search(r"VmHWM:\\s+(\\d+) kB", status).group(1)) // 1024
print(summary.stored, summary.rejected, peak)
"""


@pytest.mark.slow
def test_giant_games_and_fields_are_rejected_in_flat_memory(tmp_path: Path) -> None:
    """A 40 MB comment, a 20 MB name, 3,000,000 joint composers, a 3 MB name: each
    game a reject, the games around it stored, the import's peak memory under 150 MB."""
    classics = CLASSICS.read_text(encoding="utf-8")
    giants = {
        "comment": SAAVEDRA.replace("1. c7", "1. c7 {" + "x" * (40 << 20) + "}"),
        "name": SAAVEDRA.replace("Barbier, Georges", "A" * (20 << 20)),
        "credits": SAAVEDRA.replace("Barbier, Georges", " & ".join(["Ab"] * 3_000_000)),
        "short-name": SAAVEDRA.replace("Barbier, Georges", "Z" * (3 << 20)),
    }
    paths = []
    for i, (label, giant) in enumerate(giants.items()):
        before = classics.replace('[Event "', f'[Event "{label} before ')
        after = classics.replace('[Event "', f'[Event "{label} after ')
        paths.append(
            str(write(tmp_path / f"{i}-{label}.pgn", before + "\n" + giant + "\n" + after))
        )
        del giant
    db = tmp_path / "giants.sqlite"
    out = subprocess.run(
        [sys.executable, "-c", GIANT_IMPORT, str(db), *paths],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    ).stdout
    stored, rejected, peak = map(int, out.split())
    assert (stored, rejected) == (8 * 25, 4)
    assert peak < 150, f"peak memory {peak} MB"
    engine = open_database(db)
    reasons = sorted(reason.split(" (")[0] for reason, *_ in rejects(engine))
    engine.dispose()
    assert reasons == [
        "a tag line longer than 1 MB",
        "a tag line longer than 1 MB",
        "a tag line longer than 1 MB",
        "game larger than 32 MB",
    ]


# -- what a duplicate ignores (issue 27: the README says exactly that) -----------------------


@pytest.mark.parametrize(
    ("other", "duplicate"),
    [
        (SAAVEDRA.replace("1. c7 Rd6+ 2.", "1. c7\n\nRd6+\t  2."), True),  # line breaks, runs
        (SAAVEDRA.replace('[Site "?"]', '[Site   "?"]'), True),  # spacing inside a tag pair
        (SAAVEDRA.replace('[Site "?"]\n[Date', '[Site "?"] [Date'), True),  # tags on one line
        (SAAVEDRA.replace("1. c7 Rd6+", "1.c7 Rd6+"), False),  # a space there or not
        (SAAVEDRA.replace("Rd4 6.", "Rd4 {x} 6."), False),
    ],
)
def test_a_duplicate_differs_only_in_runs_of_whitespace(other: str, duplicate: bool) -> None:
    assert other != SAAVEDRA
    assert (content_hash(raw_game(other)) == content_hash(raw_game(SAAVEDRA))) is duplicate


# -- the whole corpus, byte for byte, plain and compressed (issue 27) -------------------------


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["plain", "gz", "bz2", "xz"])
def test_every_stored_game_is_its_slice_of_the_input(
    corpus_dir: Path, tmp_path: Path, kind: str
) -> None:
    """Each corpus file imported as is, or compressed here: every study's text and every
    reject's bytes are exactly the input's bytes at their offset.

    Compressed, every study and odd file, and a third of the tournament files, another
    third for each compressor (each compressed import of the whole corpus took 4-6 s)."""
    from studydb.db.importer import _encode

    originals: dict[str, bytes] = {}
    third = list(COMPRESSORS).index(kind) if kind != "plain" else None
    games = [path for path in corpus_files(corpus_dir) if path.parent.name == "games"]
    for number, source in enumerate(corpus_files(corpus_dir)):
        if third is not None and source in games and games.index(source) % 3 != third:
            continue
        data = source.read_bytes()
        if kind == "plain":
            path = tmp_path / f"{number}.pgn"
            path.write_bytes(data)
        else:
            path = tmp_path / f"{number}.pgn.{kind}"
            path.write_bytes(COMPRESSORS[kind](data))
        originals[str(path)] = data
    engine = open_database(f"sqlite:///{tmp_path / 'corpus.sqlite'}")
    try:
        summary = import_paths(engine, [tmp_path], positions="none")
        assert summary.failures == [] and summary.files == len(originals)
        assert summary.stored > (7_000 if kind == "plain" else 1_000), summary.stored
        with engine.connect() as conn:
            found = conn.execute(select(Study.file, Study.offset, Study.pgn, Study.encoding)).all()
            kept = conn.execute(select(Reject.file, Reject.offset, Reject.raw)).all()
        assert len(found) == summary.stored and len(kept) == summary.rejected
        for file, offset, pgn, encoding in found:
            text = _encode(pgn, encoding)
            data = originals[file]
            start = offset + 3 if data[offset : offset + 3] == b"\xef\xbb\xbf" else offset
            assert data[start : start + len(text)] == text, (file, offset)
        for file, offset, raw in kept:
            assert originals[file][offset : offset + len(raw)] == raw, (file, offset)
    finally:
        engine.dispose()


def test_two_giant_games_alike_in_their_start_are_two_rejects(
    sqlite_url: str, tmp_path: Path
) -> None:
    start = '[Event "big"]\n\n1. e4 {' + "x" * 100_000
    first, second = start + "a} 1-0\n", start + "b} 1-0\n"
    path = write(tmp_path / "giants.pgn", first + "\n" + second + "\n" + first)
    engine = open_database(sqlite_url)
    summary = import_paths(engine, [path], max_game_bytes=50_000)
    assert (summary.rejected, summary.duplicates) == (2, 1)  # the third is the first again


@pytest.mark.slow
def test_salvage_stores_the_games_of_whole_verified_bzip2_blocks(
    sqlite_url: str, tmp_path: Path
) -> None:
    from studydb.pgn import open_verified

    original = real_games(40)  # 380 KB: four blocks of 100 KB (bzip2 -1)
    packed = bz2.compress(original, 1)
    at = len(packed) - len(packed) // 8  # in the last block
    path = write(tmp_path / "blocks.pgn.bz2", damage(packed, at))
    _, found = open_verified(path)
    assert found is not None and found.verified >= 200_000  # whole blocks before it
    engine = open_database(sqlite_url)
    summary = import_paths(
        engine, [path], salvage=True, positions=INDEX_NONE
    )  # no replay: salvage is the reader's
    check_no_false_game(engine, path, original, at, summary)
    before = [
        g for g in read_games(io.BytesIO(original), name="o") if g.end_offset < found.verified
    ]
    assert summary.stored == len(before) > 0
    assert "(whole verified bzip2 blocks)" in summary.failures[0]


@pytest.mark.parametrize("through", ["file", "pipe"])
def test_salvage_stores_the_games_of_whole_verified_xz_blocks(tmp_path: Path, through: str) -> None:
    xz = shutil.which("xz")
    if xz is None:
        pytest.skip("the xz command (xz-utils) makes xz files of several blocks")
    original = real_games(24)  # 230 KB in blocks of 32 KB, as `xz -T2` makes them
    packed = subprocess.run(
        [xz, "-T1", "--block-size=32KiB", "-c"], input=original, capture_output=True, check=True
    ).stdout
    at = len(packed) * 3 // 4
    path = write(tmp_path / "blocks.pgn.xz", damage(packed, at))
    db = tmp_path / "d.sqlite"
    args = ["import", "-" if through == "pipe" else str(path), "--db", str(db), "--salvage"]
    args += ["--positions", "none"]  # no replay: salvage is the reader's
    result = runner.invoke(app, args, input=path.read_bytes() if through == "pipe" else None)
    assert result.exit_code == 1, result.output
    assert "(whole verified xz blocks)" in result.stderr, result.stderr
    verified = int(
        re.search(r"in the first ([\d,]+) uncompressed", result.stderr)[1].replace(",", "")
    )
    assert verified % (32 << 10) == 0 and verified >= 96 << 10
    engine = open_database(db)
    try:
        games = original_games(original)
        assert all(text in games for text in stored_texts(engine))
        before = [g for g in read_games(io.BytesIO(original), name="o") if g.end_offset < verified]
        assert len(stored_texts(engine)) == len(before)
    finally:
        engine.dispose()


@pytest.mark.parametrize("command", [["anticipate"], ["report"], ["gbr", "encode", "--pgn"]])
def test_readers_of_pgn_read_nothing_of_a_damaged_file(tmp_path: Path, command: list[str]) -> None:
    packed = gzip.compress(real_games(4))
    path = write(tmp_path / "bad.pgn.gz", damage(packed, len(packed) // 2))
    db = ["--db", str(tmp_path / "d.sqlite")] if command[0] != "gbr" else []
    if db:
        assert runner.invoke(app, ["import", str(CLASSICS), *db]).exit_code == 0
    result = runner.invoke(app, [*command, str(path), *db])
    assert result.exit_code == 1, result.output
    assert f"{path}: damaged gzip data in compressed bytes" in result.stderr
    assert "none of it was read" in result.stderr
    assert "Traceback" not in result.output


def test_games_are_stored_deflated_in_fewer_bytes_than_their_pgn(
    corpus_dir: Path, sqlite_url: str
) -> None:
    """A database of games is smaller than their PGN (#28): each game's text is kept
    deflated, and reads back byte for byte."""
    path = corpus_dir / "games" / "London1851.pgn"
    engine = open_database(sqlite_url)
    import_paths(engine, [path], positions="none")
    with engine.connect() as conn:
        stored = conn.exec_driver_sql("SELECT sum(length(pgn)) FROM studies").scalar()
        texts = conn.execute(select(Study.pgn).order_by(Study.id)).scalars().all()
    engine.dispose()
    data = path.read_bytes()
    # 1.0 when stored as text; zstd keeps these short games (640 bytes) in 0.70 (zlib: 0.65)
    assert stored < 0.75 * len(data)
    assert texts and all(text.encode() in data for text in texts)


def _study_indexes(url: str) -> dict[str, str]:
    """The indexes of ``studies`` (but SQLite's own, of its UNIQUE constraints) by name."""
    engine = open_database(url)
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "postgresql":
                found = conn.exec_driver_sql(
                    "SELECT indexname, indexdef FROM pg_indexes"
                    " WHERE schemaname = current_schema() AND tablename = 'studies'"
                )
            else:
                found = conn.exec_driver_sql(
                    "SELECT name, sql FROM sqlite_master"
                    " WHERE type = 'index' AND tbl_name = 'studies' AND sql IS NOT NULL"
                )
            return {name: sql for name, sql in found}
    finally:
        engine.dispose()


def _run_sql(url: str, *statements: str) -> None:
    engine = open_database(url)
    try:
        with engine.begin() as conn:
            for statement in statements:
                conn.exec_driver_sql(statement)
    finally:
        engine.dispose()


def test_an_import_into_an_empty_database_builds_the_studies_indexes_after_it(
    db_url: str, tmp_path: Path
) -> None:
    """Into an empty database the secondary indexes of ``studies`` are dropped for the
    import and built after its last batch, as the head schema has them (#28; on
    PostgreSQL too, where the batches' merge took a third less time without them);
    the UNIQUE ones stay all along (duplicates are still found)."""
    head = _study_indexes(db_url)
    assert "ix_studies_year" in head
    path = tmp_path / "games.pgn"
    path.write_text(SAAVEDRA + "\n" + SAAVEDRA, encoding="utf-8")
    during: list[set[str]] = []
    engine = open_database(db_url)
    summary = import_paths(
        engine,
        [path],
        batch_size=1,
        progress=lambda *_: during.append(set(_study_indexes(db_url))),
    )
    engine.dispose()
    assert (summary.stored, summary.duplicates) == (1, 1)
    unique = {name for name, sql in head.items() if sql.startswith("CREATE UNIQUE")}
    assert during and all(names == unique for names in during)
    assert _study_indexes(db_url) == head


def test_an_import_builds_the_studies_indexes_an_earlier_one_left_unbuilt(
    db_url: str, tmp_path: Path
) -> None:
    """A database whose import stopped before it built them (killed) gets them back from
    the next import, which keeps them up to date as it goes (the table is not empty)."""
    head = _study_indexes(db_url)
    first, second = tmp_path / "a.pgn", tmp_path / "b.pgn"
    first.write_text(SAAVEDRA, encoding="utf-8")
    second.write_text(RETI, encoding="utf-8")
    engine = open_database(db_url)
    import_paths(engine, [first])
    # where a killed import leaves them
    _run_sql(db_url, "DROP INDEX ix_studies_year", "DROP INDEX ix_studies_gbr")
    during: list[dict[str, str]] = []
    import_paths(engine, [second], progress=lambda *_: during.append(_study_indexes(db_url)))
    engine.dispose()
    assert during and all(found == head for found in during)
    assert _study_indexes(db_url) == head


def test_a_run_that_cannot_be_marked_failed_is_named_in_the_error(
    sqlite_url: str, tmp_path: Path
) -> None:
    """A write failing, then the run's own mark failing too (a full disk can refuse both):
    the error says the run still says running, as the library logs to no one."""
    engine = open_database(sqlite_url)
    with engine.begin() as conn:  # the database itself refuses both writes
        conn.exec_driver_sql(
            "CREATE TRIGGER no_room BEFORE INSERT ON studies"
            " BEGIN SELECT RAISE(ABORT, 'no room for studies'); END"
        )
        conn.exec_driver_sql(
            "CREATE TRIGGER no_mark BEFORE UPDATE OF status ON import_runs"
            " BEGIN SELECT RAISE(ABORT, 'no room for the run'); END"
        )
    engine.dispose()
    path = write(tmp_path / "one.pgn", SAAVEDRA)
    result = runner.invoke(app, ["import", str(path), "--db", sqlite_url])
    assert result.exit_code == 1, result.output
    assert result.stderr.strip() == (
        f"studydb: error: cannot write to {sqlite_url}: no room for studies;"
        " could not mark import run 1 as failed either, so it still says running"
    ), result.stderr
    engine = open_database(sqlite_url)
    try:
        with engine.connect() as conn:
            assert conn.execute(select(ImportRun.status)).scalars().all() == ["running"]
    finally:
        engine.dispose()


def test_indexes_left_unbuilt_are_a_warning_in_the_summary(db_url: str, tmp_path: Path) -> None:
    """The studies are stored; building their indexes after the load fails (here a table
    holds one index's name): the summary and the command say so, exit 0, and the
    next import builds them once the name is free."""
    head = _study_indexes(db_url)
    _run_sql(db_url, "DROP INDEX ix_studies_year", "CREATE TABLE ix_studies_year (x INTEGER)")
    path = write(tmp_path / "one.pgn", SAAVEDRA)
    result = runner.invoke(app, ["import", str(path), "--db", db_url, "--format", "json"])
    assert result.exit_code == 0, result.output
    (warning,) = json.loads(result.stdout)["warnings"]
    assert warning.startswith(
        "the studies' indexes are not built yet (the next import builds them): cannot write to "
    ), warning
    assert "ix_studies_year" in warning, warning
    assert f"studydb: warning: {warning}" in result.stderr, result.stderr
    _run_sql(db_url, "DROP TABLE ix_studies_year")
    engine = open_database(db_url)
    again = import_paths(engine, [write(tmp_path / "two.pgn", RETI)])
    engine.dispose()
    assert again.warnings == [] and again.stored == 1
    assert _study_indexes(db_url) == head


def test_a_postgresql_import_prepares_a_batch_while_it_writes_the_one_before(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL the games are read and prepared in a thread (the batch runner's
    ``ahead``) while the batch before is written: the server's time overlaps ours.
    On SQLite, whose writes are this process's work, they are prepared here."""
    import threading

    prepare = classify.prepare
    where: list[bool] = []

    def noting(game: RawGame, **options: object) -> classify.Prepared:
        where.append(threading.current_thread() is threading.main_thread())
        return prepare(game, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(classify, "prepare", noting)
    path = tmp_path / "three.pgn"
    games = [SAAVEDRA, RETI, SAAVEDRA.replace("Glasgow", "Paris")]
    path.write_text("\n".join(games), encoding="utf-8")
    engine = open_database(db_url)
    summary = import_paths(engine, [path], batch_size=1, positions="none")
    here = engine.dialect.name == "sqlite"
    engine.dispose()
    assert (summary.stored, summary.failures) == (3, [])
    assert where == [here] * 3
