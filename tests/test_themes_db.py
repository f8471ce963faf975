"""Stored themes (studydb.db.themes): written by import, index and check, searched, counted."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from helpers import THEMED_STUDIES
from sqlalchemy import delete, func, select

from studydb.db.checks import CheckConfig, check_studies
from studydb.db.conditions import build_condition
from studydb.db.connect import open_database, transaction
from studydb.db.importer import import_paths
from studydb.db.index import index_studies
from studydb.db.models import Study, StudyTheme
from studydb.db.search import count, search
from studydb.db.stats import stats
from studydb.db.themes import study_themes, theme_counts
from studydb.errors import QueryError
from studydb.filters import Filters
from studydb.pgn import tags_of
from studydb.themes import PGN, Theme

#: Mutual zugzwangs the tables find (FEN, stipulation, movetext, expected).
ZUGZWANGS = [
    (
        "opposition",
        "8/8/3k4/8/3K4/8/3P4/8 w - - 0 1",
        "win",
        "1. d3 Kc6 2. Ke5",
        ["mutual-zugzwang ply 1 (half)"],
    ),
    (
        "trebuchet",
        "8/8/8/3Kp3/4Pk2/8/8/8 b - - 0 1",
        "win",
        "1... Kf3 2. Kxe5",
        ["mutual-zugzwang ply 0 (full)"],
    ),
    ("passing changes nothing", "8/8/8/3k4/8/8/8/KQ6 w - - 0 1", "win", "1. Qb5+ Kd4", []),
]
TAGGED = """[Event "Tagged"]
[Keywords "Excelsior; Minor promotion"]
[FEN "8/2P5/8/8/8/8/8/k1K5 w - - 0 1"]

1. c8=N Ka2 *
"""


def study_pgn(name: str, fen: str, movetext: str, stipulation: str | None) -> str:
    stip = f'[Stipulation "{stipulation}"]\n' if stipulation else ""
    return f'[Event "{name}"]\n{stip}[FEN "{fen}"]\n[SetUp "1"]\n\n{movetext} *\n'


@pytest.fixture
def crafted_file(tmp_path: Path) -> Path:
    path = tmp_path / "crafted.pgn"
    games = [study_pgn(name, fen, moves, stip) for name, fen, moves, stip, _ in THEMED_STUDIES]
    games += [study_pgn(name, fen, moves, stip) for name, fen, stip, moves, _ in ZUGZWANGS]
    path.write_text("\n".join([*games, TAGGED]), encoding="utf-8")
    return path


@pytest.fixture
def engine(db_url: str, crafted_file: Path):
    engine = open_database(db_url)
    import_paths(engine, [crafted_file], jobs=1)
    yield engine
    engine.dispose()


def ids_by_event(engine) -> dict[str, int]:
    with engine.connect() as conn:
        rows = conn.execute(select(Study.id, Study.pgn)).all()
    return {tags_of(pgn)["Event"]: study_id for study_id, pgn in rows}


def described(engine, study_id: int) -> list[str]:
    found = study_themes(engine, study_id).themes
    return [t.describe() for t in found if t.source != PGN]


def test_the_import_stores_every_crafted_theme(engine) -> None:
    ids = ids_by_event(engine)
    for name, _, _, _, expected in THEMED_STUDIES:
        assert sorted(described(engine, ids[name])) == sorted(expected), name


def test_tags_are_stored_with_source_pgn(engine) -> None:
    found = study_themes(engine, ids_by_event(engine)["Tagged"]).themes
    assert Theme("excelsior", source=PGN) in found
    assert Theme("underpromotion", source=PGN) in found
    assert Theme("underpromotion", 1, "N") in found  # found in the moves too


def test_index_finds_the_same_themes_again(engine) -> None:
    with transaction(engine) as conn:
        before = conn.execute(select(func.count()).select_from(StudyTheme)).scalar_one()
        conn.execute(delete(StudyTheme))
    summary = index_studies(engine, reindex=True)
    assert summary.studies == len(THEMED_STUDIES) + len(ZUGZWANGS) + 1
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(StudyTheme)).scalar_one() == before
    index_studies(engine, reindex=True)  # replaces, never doubles
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(StudyTheme)).scalar_one() == before


def test_search_by_theme_needs_all_of_them(engine) -> None:
    ids = ids_by_event(engine)
    mates = {row.id for row in search(engine, Filters(themes=("mate",)))}
    assert mates == {
        ids[name]
        for name, *_, expected in THEMED_STUDIES
        if any(e.startswith("mate ") for e in expected)
    }
    both = Filters(themes=("mate", "stalemate-line"))
    assert [row.id for row in search(engine, both)] == [
        ids["stalemate only in a variation"],
        ids["stalemate in a nested variation, after its sub-variation"],
    ]
    assert count(engine, Filters(themes=("Minor Promotion",))) == 4  # our name for it
    assert count(engine, Filters(themes=("mate", "excelsior"))) == 0


def test_a_bad_theme_names_the_option() -> None:
    with pytest.raises(QueryError) as raised:
        Filters(themes=("  ",))
    assert raised.value.param == "--theme"


def expected_counts(*, stipulation: str | None = None) -> dict[str, int]:
    """Studies per theme, from the expectations of THEMED_STUDIES and ZUGZWANGS (before check)."""
    studies = [(stip, expected) for _, _, _, stip, expected in THEMED_STUDIES]
    studies += [(stip, []) for _, _, stip, _, _ in ZUGZWANGS]
    studies.append((None, ["underpromotion ply 1 (N)", "excelsior", "underpromotion"]))
    counts: Counter[str] = Counter()
    for stip, expected in studies:
        if stipulation is None or stip == stipulation:
            counts.update({text.split(" ")[0] for text in expected})
    return dict(counts)


def test_counts_and_stats(engine) -> None:
    counts = dict(theme_counts(engine))
    assert counts == expected_counts()
    assert "mutual-zugzwang" not in counts  # not checked yet
    draws = dict(theme_counts(engine, build_condition(Filters(stipulations=("draw",)))))
    assert draws == expected_counts(stipulation="draw")
    assert set(draws) == {"positional-draw", "perpetual-check", "switchback"}
    assert dict(stats(engine, Filters(stipulations=("draw",))).themes) == draws
    assert dict(stats(engine).themes) == counts


@pytest.mark.slow
def test_check_finds_the_mutual_zugzwangs_with_the_tables(engine, syzygy: str) -> None:
    ids = ids_by_event(engine)
    opposition = ids["opposition"]
    assert study_themes(engine, opposition).zugzwang_tables is None  # not looked for
    assert "not looked for" in (study_themes(engine, opposition).zugzwang_note() or "")
    check_studies(engine, None, CheckConfig((syzygy,)))
    for name, _, _, _, expected in ZUGZWANGS:
        found = study_themes(engine, ids[name])
        zugzwangs = [t.describe() for t in found.themes if t.name == "mutual-zugzwang"]
        assert zugzwangs == expected, name
        assert found.zugzwang_tables == 4
    assert study_themes(engine, ids["passing changes nothing"]).zugzwang_note() == (
        "no mutual zugzwang within the 4-man tables"
    )
    # index leaves the mutual zugzwangs alone; a recheck replaces them
    index_studies(engine, reindex=True)
    check_studies(engine, None, CheckConfig((syzygy,)), recheck=True)
    assert count(engine, Filters(themes=("mutual-zugzwang",))) == 2
    assert [t.name for t in study_themes(engine, opposition).themes].count("mutual-zugzwang") == 1


def test_deleting_a_study_deletes_its_themes(engine) -> None:
    with transaction(engine) as conn:
        conn.execute(delete(Study))
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(StudyTheme)).scalar_one() == 0
