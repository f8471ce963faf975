"""studydb.db.bulk: the position index packed by the workers is written row for row as
each replay found it, on both engines, whichever items of the packs are left out."""

from __future__ import annotations

import itertools

import pytest
from helpers import CLASSICS
from sqlalchemy import Connection, Engine

from studydb.db.bulk import write_packed_index
from studydb.db.classify import (
    INDEX_NONE,
    INDEX_STUDIES,
    Prepared,
    material_values,
    pack_index,
    prepare,
)
from studydb.db.connect import open_database, transaction
from studydb.db.importer import import_paths
from studydb.db.index import MaterialIds, write_packs
from studydb.pgn import open_pgn, read_games

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
