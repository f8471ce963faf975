"""studydb.db.bulk: the import's packed position index is written as ``write_index`` writes
the same replays, on both engines, whichever items of the packs are left out."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from helpers import CLASSICS
from sqlalchemy import Connection, Engine, delete

from studydb.db.bulk import write_packed_index
from studydb.db.classify import INDEX_NONE, INDEX_STUDIES, Prepared, pack_index, prepare
from studydb.db.connect import open_database, transaction
from studydb.db.importer import import_paths
from studydb.db.index import MaterialIds, write_index
from studydb.db.models import Material, Position, StudyIndex, StudyMaterial, StudyMove
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


def forget_index(conn: Connection) -> None:
    for table in (Position, StudyMove, StudyMaterial, StudyIndex, Material):
        conn.execute(delete(table))


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


def fields(item: Prepared) -> tuple[Any, ...]:
    """What ``write_index`` takes of a replay, after the study's id."""
    return (item.positions, item.boards, item.moves, item.move_keys, item.seen, item.occupancy)


@pytest.mark.parametrize("left_out", [0, 3], ids=["all-stored", "every-third-left-out"])
def test_packed_slices_write_what_write_index_writes(db_url: str, left_out: int) -> None:
    engine = open_database(db_url)
    studies = replayed(engine, 40)
    kept = [i for i, _ in enumerate(studies) if not left_out or i % left_out]
    with transaction(engine) as conn:
        indexed = [(study_id, *fields(item)) for study_id, (item, _) in (studies[i] for i in kept)]
        made = {c: v for i in kept for c, v in studies[i][1][0].materials.items()}
        written = write_index(conn, indexed, MaterialIds(), material_rows=made)
        expected = index_tables(conn)
        forget_index(conn)
    assert written and expected["positions"] and expected["study_materials"]
    # Three slices of unequal length: the rows of several packs are merged.
    slices = [studies[:7], studies[7:25], studies[25:]]
    packs, counts, made = [], [], {}
    start = 0
    for part in slices:
        items = [second for _, (_, second) in part]
        pack = pack_index(items)
        ids = [
            study_id if start + number in kept else None
            for number, (study_id, _) in enumerate(part)
        ]
        start += len(part)
        made.update(zip(pack.counts, pack.materials, strict=True))
        counts += [
            pack.counts[c]
            for c, number in zip(pack.material, pack.item, strict=True)
            if ids[number] is not None
        ]
        packs.append((pack, ids))
    with transaction(engine) as conn:
        materials = MaterialIds().ids(conn, counts, made)
        assert write_packed_index(conn, packs, materials) == written
        assert index_tables(conn) == expected
    engine.dispose()


def test_an_empty_pack_writes_nothing(sqlite_url: str) -> None:
    engine = open_database(sqlite_url)
    with transaction(engine) as conn:
        assert write_packed_index(conn, [(pack_index([]), [])], {}) == 0
        assert all(rows == [] for rows in index_tables(conn).values())
    engine.dispose()
