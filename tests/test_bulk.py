"""studydb.db.bulk: the position index packed by the workers is written row for row as
each replay found it, on both engines, whichever items of the packs are left out."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any

import pytest
from helpers import CLASSICS, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Connection, Engine, insert
from sqlalchemy.exc import DBAPIError, IntegrityError

from studydb.db import bulk
from studydb.db.bulk import (
    copy_studies,
    ids_by,
    insert_new_rows,
    insert_studies_sqlite,
    write_packed_index,
)
from studydb.db.classify import (
    INDEX_NONE,
    INDEX_STUDIES,
    MATERIAL_COLUMNS,
    Prepared,
    material_values,
    pack_index,
    prepare,
)
from studydb.db.connect import open_database, transaction, upsert
from studydb.db.importer import import_paths
from studydb.db.index import MaterialIds, write_packs
from studydb.db.models import ImportRun, Study
from studydb.pgn import deflate_text, open_pgn, read_games

#: The index tables with each row's material given by its signature (ids may differ).
READS = {
    "positions": "SELECT p.similar, p.study_id, p.node, p.image, p.ply, p.main, m.signature"
    " FROM positions p JOIN materials m ON m.id = p.material_id",
    "study_moves": 'SELECT "key", study_id, main FROM study_moves',
    "study_materials": "SELECT m.signature, s.study_id, s.ends FROM study_materials s"
    " JOIN materials m ON m.id = s.material_id",
    "study_index": "SELECT * FROM study_index",
    "materials": "SELECT signature, gbr, pieces, wq, wr, wb, wn, wp, bq, br, bb, bn, bp, men"
    " FROM materials",
}


def index_tables(conn: Connection) -> dict[str, list[tuple[object, ...]]]:
    return {
        name: sorted(tuple(row) for row in conn.exec_driver_sql(sql)) for name, sql in READS.items()
    }


def replayed(engine: Engine, count: int) -> list[tuple[int, list[Prepared]]]:
    """The first ``count`` classics, stored without an index: (id, two replays) each."""
    with open_pgn(CLASSICS) as stream:
        games = list(itertools.islice(read_games(stream, name=str(CLASSICS)), count))
    import_paths(engine, [CLASSICS], positions=INDEX_NONE)
    with engine.connect() as conn:
        ids: dict[str, int] = dict(
            conn.exec_driver_sql("SELECT content_hash, id FROM studies").all()
        )
    found = []
    for game in games:
        first, second = (prepare(game, positions=INDEX_STUDIES) for _ in range(2))
        found.append((ids[first.row["content_hash"]], [first, second]))
    return found


def expected_tables(studies: list[tuple[int, Prepared]]) -> dict[str, list[tuple[object, ...]]]:
    """The index tables' rows of replays, as :data:`READS` reads them, made here row by row:
    every position, move key and main-line class, the last one the line ends in."""
    found: dict[str, list[tuple[object, ...]]] = {name: [] for name in READS}
    classes: set[tuple[int, ...]] = set()
    for study_id, item in studies:
        rows = item.positions or []
        signature = {c: material_values(c)[0] for c in {row[5] for row in rows}}
        classes.update(signature)
        found["positions"] += [
            (similar, study_id, node, image, ply, main, signature[counts])
            for similar, image, node, ply, main, counts in rows
        ]
        found["study_moves"] += [(key, study_id, main) for key, main in item.move_keys.items()]
        line = [row for row in rows if row[4]]
        last = max(line, key=lambda row: row[3])[5]
        found["study_materials"] += [
            (signature[c], study_id, c == last) for c in {row[5] for row in line}
        ]
        found["study_index"].append(
            (study_id, len(rows), item.boards, item.moves, *(item.seen or ()), item.occupancy)
        )
    found["materials"] = [material_values(c) for c in classes]
    return {name: sorted(rows) for name, rows in found.items()}


@pytest.mark.parametrize("left_out", [0, 3], ids=["all-stored", "every-third-left-out"])
def test_packed_slices_write_each_replays_rows(db_url: str, left_out: int) -> None:
    engine = open_database(db_url)
    studies = replayed(engine, 40)
    kept = [i for i, _ in enumerate(studies) if not left_out or i % left_out]
    expected = expected_tables([(studies[i][0], studies[i][1][0]) for i in kept])
    assert expected["positions"] and expected["study_materials"]
    # Three slices of unequal length: the rows of several packs are merged.
    slices = [studies[:7], studies[7:25], studies[25:]]
    packs = []
    start = 0
    for part in slices:
        pack = pack_index([second for _, (_, second) in part])
        ids = [
            study_id if start + number in kept else None
            for number, (study_id, _) in enumerate(part)
        ]
        start += len(part)
        packs.append((pack, ids))
    with transaction(engine) as conn:
        assert write_packs(conn, packs, MaterialIds()) == len(expected["positions"])
        assert index_tables(conn) == expected
    engine.dispose()


def test_an_empty_pack_writes_nothing(sqlite_url: str) -> None:
    engine = open_database(sqlite_url)
    with transaction(engine) as conn:
        assert write_packed_index(conn, [(pack_index([]), [])], {}) == 0
        assert all(rows == [] for rows in index_tables(conn).values())
    engine.dispose()


def test_new_rows_go_in_and_stored_ones_are_passed_over(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """insert_new_rows keeps out what is stored already; ids_by reads the ids in lists of
    MAX_PARAMETERS (two here: the three signatures take two lists)."""
    engine = open_database(db_url)
    classes = [(0, 0, 0, 0, 1, 0, 1, 0, 0, 0), (0, 1, 0, 0, 0, 0, 0, 0, 0, 0), (1,) + (0,) * 9]
    rows = [material_values(counts) for counts in classes]
    monkeypatch.setattr(bulk, "MAX_PARAMETERS", 2)
    with transaction(engine) as conn:
        insert_new_rows(conn, "materials", MATERIAL_COLUMNS, rows[:2], key="signature")
        insert_new_rows(conn, "materials", MATERIAL_COLUMNS, rows, key="signature")
        insert_new_rows(conn, "materials", MATERIAL_COLUMNS, [], key="signature")
        stored = conn.exec_driver_sql(f"SELECT {', '.join(MATERIAL_COLUMNS)} FROM materials")
        assert sorted(map(tuple, stored)) == sorted(rows)
        found = ids_by(conn, "materials", "signature", [row[0] for row in rows] + ["KQQvK"])
        ids = dict(conn.exec_driver_sql("SELECT signature, id FROM materials").all())
        assert sorted(found) == sorted(ids.items())
    engine.dispose()


def test_a_driver_error_comes_out_as_sqlalchemys_naming_the_statement(db_url: str) -> None:
    """Each bulk writer, on each engine, raises what the driver refused as SQLAlchemy's
    DBAPIError (IntegrityError for a broken constraint) quoting the statement it ran."""
    engine = open_database(db_url)
    row = material_values((0, 0, 0, 0, 1, 0, 1, 0, 0, 0))
    study = {**FULL_ROW, "kind": None, "content_hash": "x", "run_id": None}  # kind: NOT NULL
    writers = [
        (lambda conn: bulk.write_rows(conn, "no_such_table", ["a"], [(1,)]), "no_such_table"),
        (
            lambda conn: insert_new_rows(conn, "materials", ["nope"], [(1,)], key="signature"),
            '"nope"',
        ),
        (
            lambda conn: (
                copy_studies if conn.dialect.name == "postgresql" else insert_studies_sqlite
            )(conn, [study]),
            "studies",
        ),
    ]
    for write, quoted in writers:
        with pytest.raises(DBAPIError) as caught, engine.begin() as conn:
            insert_new_rows(conn, "materials", MATERIAL_COLUMNS, [row], key="signature")
            write(conn)
        assert quoted in caught.value.statement, caught.value.statement
    with pytest.raises(IntegrityError), engine.begin() as conn:
        writers[2][0](conn)
    with transaction(engine) as conn:  # each refused batch was rolled back
        assert conn.exec_driver_sql("SELECT count(*) FROM materials").scalar() == 0
    engine.dispose()


PGN = "1. c7 Rd6+ 2. Kb5 *"
#: A study row with a value in every column but ``id`` (the pgn chosen by the test).
FULL_ROW: dict[str, Any] = {
    "gbr": "0300.10", "pieces": "0300", "wq": 0, "wr": 0, "wb": 0, "wn": 0, "wp": 1,
    "bq": 0, "br": 1, "bb": 0, "bn": 0, "bp": 0, "men": 4, "signature": "KPvKR",
    "fen": "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1", "turn": "w", "zobrist": -(1 << 62),
    "stipulation": "win", "result": "1-0", "composer_names": "Saavedra, Fernando",
    "source": "Glasgow Weekly Citizen", "year": 1895, "award": "1st Prize",
    "award_kind": "prize", "award_rank": 1, "mate_in": 3, "eg": "1335 1336",
    "note": "(c): after", "version": "correction", "number": "434", "reprint": "EG",
    "kind": "study", "pgn": b"", "encoding": "utf-8",
    "content_hash": "", "valid": False, "errors": ["illegal san"], "run_id": 1,
    "file": "x.pgn", "line": 7, "offset": 1 << 40,
}  # fmt: skip
RUN = {
    "id": 1, "file": "x.pgn", "started": datetime.now(UTC), "status": "running",
    "read": 0, "stored": 0, "duplicates": 0, "rejected": 0,
}  # fmt: skip
#: The columns that may hold NULL.
NULLABLE = [column.name for column in Study.__table__.columns if column.nullable]
#: Rows to write: each its NULL columns, its content hash's number (repeats are
#: duplicates) and whether its pgn is given as text (else deflated).
DRAWN_ROWS = st.lists(
    st.tuples(st.sets(st.sampled_from(NULLABLE)), st.integers(0, 5), st.booleans()),
    min_size=1,
    max_size=8,
)


def stored_rows(conn: Connection) -> list[tuple[Any, ...]]:
    """The ``studies`` rows as SQLite holds them (JSON's 'null' is not NULL here)."""
    return [tuple(row) for row in conn.exec_driver_sql("SELECT * FROM studies ORDER BY id")]


@settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(DRAWN_ROWS)
def test_sqlite_rows_are_stored_as_an_insert_of_every_column_stores_them(
    sqlite_url: str, drawn: list[tuple[set[str], int, bool]]
) -> None:
    """insert_studies_sqlite leaves each row's NULL values out of its INSERT (a statement
    for each kind of row) and binds the pgn as a bytearray (deflated bytes as they are,
    a text deflated first): the rows stored, ids and results are those of SQLAlchemy's
    INSERT of every column, row after row, whatever columns are None, in any order,
    with repeated content hashes passed over."""
    engine = open_database(sqlite_url)
    rows = [
        {
            **FULL_ROW,
            **dict.fromkeys(nulls),
            "content_hash": f"hash {number}",
            "pgn": PGN if text else deflate_text(PGN),
        }
        for nulls, number, text in drawn
    ]
    stored = []
    for insert_rows in (insert_studies_sqlite, insert_every_column):
        with transaction(engine) as conn:
            conn.execute(insert(ImportRun).values(RUN))
            inserted = insert_rows(conn, rows)
            stored.append((inserted, stored_rows(conn)))
            conn.exec_driver_sql("DELETE FROM studies")
            conn.exec_driver_sql("DELETE FROM import_runs")
    assert stored[0] == stored[1]
    assert [digest for _, digest in stored[0][0]] == list(
        dict.fromkeys(r["content_hash"] for r in rows)
    )


@settings(
    max_examples=examples(50),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(DRAWN_ROWS)
def test_postgresql_rows_are_stored_as_an_insert_of_every_column_stores_them(
    pg_url: str, drawn: list[tuple[set[str], int, bool]]
) -> None:
    """copy_studies copies the rows in binary, each value in its column's binary format
    (a JSON list and JSON's null, int2 to int8 at their ends, a pgn deflated or
    not): the rows stored and the results are those of SQLAlchemy's INSERT … ON
    CONFLICT DO NOTHING of every column, row after row, in the file's order."""
    engine = open_database(pg_url)
    edges = {"wq": 32767, "wp": -32768, "zobrist": -(1 << 63), "year": (1 << 31) - 1}
    rows = [
        {
            **FULL_ROW,
            **(edges if index % 2 else {}),
            **dict.fromkeys(nulls),
            "content_hash": f"hash {number}",
            "pgn": PGN if text else deflate_text(PGN),
            "offset": index,  # the order the merge keeps
            "note": "Ræti 🐴 \\ tab\there\nline",
        }
        for index, (nulls, number, text) in enumerate(drawn)
    ]
    stored = []
    for insert_rows in (copy_studies, insert_every_column):
        with transaction(engine) as conn:
            conn.execute(insert(ImportRun).values(RUN))
            conn.exec_driver_sql("ALTER SEQUENCE studies_id_seq RESTART")
            inserted = insert_rows(conn, rows)
            found = conn.exec_driver_sql(
                "SELECT *, errors::text, pgn FROM studies ORDER BY id"
            ).all()
            stored.append((inserted, [tuple(row) for row in found]))
            conn.exec_driver_sql("DELETE FROM studies")
            conn.exec_driver_sql("DELETE FROM import_runs")
    engine.dispose()
    assert stored[0] == stored[1]
    assert [digest for _, digest in stored[0][0]] == list(
        dict.fromkeys(r["content_hash"] for r in rows)
    )


def insert_every_column(conn: Connection, rows: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """The general path: SQLAlchemy's INSERT of all the columns, one row at a time."""
    inserted = []
    for row in rows:
        if conn.dialect.name == "postgresql":
            merge = upsert(conn, Study).values(row).on_conflict_do_nothing()
            study_id = conn.execute(merge.returning(Study.id)).scalar()
            if study_id is not None:
                inserted.append((study_id, row["content_hash"]))
            continue
        statement = insert(Study).values(row).prefix_with("OR IGNORE")
        result = conn.execute(statement)
        if result.rowcount == 1:
            inserted.append((result.inserted_primary_key[0], row["content_hash"]))
    return inserted
