"""Anticipation checks and versions (studydb.db.anticipate), on both engines."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest
from helpers import CLASSICS, LATER, MIRRORED, SAAVEDRA, VERSION, id_of, write

from studydb.db.anticipate import (
    anticipations,
    count_same_start,
    from_the_initial_position,
    same_start,
    study_game,
    versions,
)
from studydb.db.connect import open_database
from studydb.db.importer import import_paths
from studydb.filters import Filters

REVERSED = """[Event "Reversed"]
[Date "1980.??.??"]
[FEN "{fen}"]

*
""".format(fen=chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1").mirror().fen())


@pytest.fixture
def engine(db_url: str, tmp_path: Path):
    engine = open_database(db_url)
    path = write(tmp_path / "s.pgn", SAAVEDRA, MIRRORED, LATER, VERSION, REVERSED)
    import_paths(engine, [path], jobs=1)
    yield engine
    engine.dispose()


def check(engine, event: str, **options):
    game = study_game(engine, id_of(engine, event))
    return anticipations(engine, game.fen, game.movetext, exclude=game.id, **options)


def test_later_study_is_anticipated_by_both_versions(engine) -> None:
    hits = check(engine, "Later", min_men=4, before=1960)
    saavedra, version = id_of(engine, "Glasgow Weekly Citizen"), id_of(engine, "Another source")
    assert [h.id for h in hits] == [saavedra, version]
    first = hits[0]
    assert first.first_ply == 1
    assert first.positions == 7  # all of Later's line after 1. Kb5
    assert [(s.ply, s.other_ply, s.main, s.other_main) for s in first.shared][:2] == [
        (1, 3, True, True),
        (2, 4, True, True),
    ]


def test_min_men_before_and_never_itself(engine) -> None:
    assert check(engine, "Later", min_men=5, before=1960) == []
    same_year = check(engine, "Later", min_men=4, before=1895)  # Saavedra 1895 and its version
    assert {h.id for h in same_year} == {
        id_of(engine, "Glasgow Weekly Citizen"),
        id_of(engine, "Another source"),
    }
    assert all(h.same_year for h in same_year)  # listed: which came first is not known
    hits = check(engine, "Glasgow Weekly Citizen", min_men=4)
    assert id_of(engine, "Glasgow Weekly Citizen") not in [h.id for h in hits]
    # The version shares every position; Later shares fewer, later in the solution.
    assert [h.id for h in hits] == [id_of(engine, "Another source"), id_of(engine, "Later")]


def test_an_undated_study_is_not_of_the_same_year(db_url: str, tmp_path: Path) -> None:
    """Checked with no year to go by, an undated study was marked 'same year, order
    unknown' (None == None): nothing says it is of any year."""
    engine = open_database(db_url)
    try:
        undated = SAAVEDRA.replace('[Date "1895.??.??"]\n', "")
        assert undated != SAAVEDRA
        path = write(tmp_path / "s.pgn", undated, VERSION.replace('[Date "1895.??.??"]\n', ""))
        import_paths(engine, [path], jobs=1)
        (hit,) = check(engine, "Glasgow Weekly Citizen", min_men=4)
        assert hit.year is None and not hit.same_year
    finally:
        engine.dispose()


def test_similar_and_either_colour(engine) -> None:
    mirrored = id_of(engine, "Mirror")
    assert mirrored not in [h.id for h in check(engine, "Glasgow Weekly Citizen", min_men=4)]
    similar = check(engine, "Glasgow Weekly Citizen", min_men=4, similar=True)
    assert mirrored in [h.id for h in similar]
    reversed_id = id_of(engine, "Reversed")
    assert reversed_id not in [h.id for h in similar]
    either = check(engine, "Glasgow Weekly Citizen", min_men=4, either_colour=True)
    hit = next(h for h in either if h.id == reversed_id)
    assert hit.shared[0].colour_reversed and hit.shared[0].ply == 0


def test_versions_groups_oldest_first(engine) -> None:
    saavedra, version = id_of(engine, "Glasgow Weekly Citizen"), id_of(engine, "Another source")
    groups = versions(engine)
    assert [[m.id for m in g] for g in groups] == [[saavedra, version]]
    assert groups[0][0].composers == ("Saavedra, Fernando",)
    wider = versions(engine, Filters(), similar=True, either_colour=True)
    assert [sorted(m.id for m in g) for g in wider] == [
        sorted([saavedra, version, id_of(engine, "Mirror"), id_of(engine, "Reversed")])
    ]
    assert [m.id for m in same_start(engine, SAAVEDRA_FEN, exclude=saavedra)] == [version]


SAAVEDRA_FEN = "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"


def test_versions_of_a_start_are_found_in_studies_not_indexed(db_url: str, tmp_path: Path) -> None:
    """Imported with --positions none, Saavedra's study and its version were a group for
    ``versions`` but not each other's version for ``same_start`` (the report's, ``show``'s
    and the study page's): it looked in the position index only."""
    engine = open_database(db_url)
    try:
        path = write(tmp_path / "s.pgn", SAAVEDRA, MIRRORED, LATER, VERSION)
        import_paths(engine, [path], jobs=1, positions="none")
        saavedra, version = id_of(engine, "Glasgow Weekly Citizen"), id_of(engine, "Another source")
        assert [m.id for m in same_start(engine, SAAVEDRA_FEN, exclude=saavedra)] == [version]
        assert [m.id for m in same_start(engine, SAAVEDRA_FEN)] == [saavedra, version]
        assert count_same_start(engine, SAAVEDRA_FEN, exclude=version) == 1
        # Castling and en-passant rights are not part of a start position, as in the index.
        rook_fen = "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1"
        games = [
            f'[Event "Rights {n}"]\n[Date "19{n}0"]\n[FEN "{fen}"]\n\n*\n'
            for n, fen in enumerate(
                (rook_fen, "r3k3/8/8/8/8/8/8/4K2R w - - 0 1", "r3k3/8/8/8/8/8/8/4K2R w K - 3 9")
            )
        ]
        import_paths(engine, [write(tmp_path / "rights.pgn", *games)], jobs=1, positions="none")
        found = [m.id for m in same_start(engine, rook_fen)]
        assert found == [id_of(engine, f"Rights {n}") for n in range(3)]
        # Games from the initial position are no versions of each other (every game of a
        # games collection starts there), nor is a text entry (no FEN, no moves) one of them,
        # indexed (as --positions all indexes them) or not.
        text = '[Event "Chapter 1"]\n\n*\n'
        games = [f'[Event "Game {n}"]\n\n1. e4 e5 *\n' for n in (2, 3)]
        initial = chess.STARTING_FEN.replace("KQkq", "-")
        setup = f'[Event "Setup"]\n[FEN "{initial}"]\n\n*\n'
        path = write(tmp_path / "games.pgn", text, *games, setup)
        import_paths(engine, [path], jobs=1, positions="all")
        assert same_start(engine, chess.STARTING_FEN) == []
        assert count_same_start(engine, initial) == 0
        grouped = [m.fen for group in versions(engine) for m in group]
        assert grouped and not any(from_the_initial_position(fen) for fen in grouped)
    finally:
        engine.dispose()


# -- the real corpus --------------------------------------------------------------------


#: Found by ``studydb anticipate`` and ``versions`` over ../shared/corpus/studies and
#: data/classics.pgn, and checked by hand:
#: Troitzky's 1895 study (Novoe Vremya) sits in two collections, and Gunst's 1922 study
#: reaches its left-right mirror image from ply 5 on (the bishop-and-pawn theme).
#: Réti's 1921 and 1923 studies are in two collections each (same start, two spellings).


@pytest.fixture(scope="module")
def corpus_engine(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    engine = open_database(str(tmp_path_factory.mktemp("corpus") / "corpus.sqlite"))
    import_paths(engine, [corpus_dir / "studies", CLASSICS], jobs=1)
    yield engine
    engine.dispose()


def _who(member) -> tuple[str, int | None]:
    return "; ".join(member.composers), member.year


@pytest.mark.slow  # 1.5 s or more on a busy machine
def test_real_versions_in_the_corpus(corpus_engine) -> None:
    groups = versions(corpus_engine, Filters(where=("men<=8",)))
    assert [[_who(m) for m in g] for g in groups] == [
        [("Troitsky", 1895), ("Troitzky, Alexey Alexeyevich", 1895)],
        [("R. Reti", 1921), ("Réti, Richard", 1921)],
        [("Reti", 1923), ("Réti, Richard", 1923)],
    ]


@pytest.mark.slow
def test_real_anticipation_in_the_corpus(corpus_engine) -> None:
    """Every study of the corpus checked with --similar before its year: exactly one is hit."""
    from sqlalchemy import select

    from studydb.db.models import Study
    from studydb.db.search import fetch_study

    with corpus_engine.connect() as conn:
        ids = list(conn.execute(select(Study.id).order_by(Study.id)).scalars())
    found = []
    for study_id in ids:
        game = study_game(corpus_engine, study_id)
        hits = anticipations(
            corpus_engine,
            game.fen,
            game.movetext,
            exclude=study_id,
            similar=True,
            before=game.year,
        )
        checked = _who(fetch_study(corpus_engine, study_id))
        found += [
            (checked, ("; ".join(h.composers), h.year), h.first_ply, h.positions)
            for h in hits
            if not h.same_year
        ]
    assert sorted(found) == [
        (("Gunst", 1922), ("Troitsky", 1895), 5, 5),
        (("Gunst", 1922), ("Troitzky, Alexey Alexeyevich", 1895), 5, 5),
    ]
    # Without --similar nothing earlier shares a position of five men or more.
    game = study_game(
        corpus_engine,
        next(i for i in ids if _who(fetch_study(corpus_engine, i)) == ("Gunst", 1922)),
    )
    hits = anticipations(corpus_engine, game.fen, game.movetext, before=1922)
    assert all(h.same_year for h in hits)  # only the same study in another file


def test_doctests() -> None:
    import doctest

    import studydb.db.anticipate

    result = doctest.testmod(studydb.db.anticipate)
    assert result.attempted > 0
    assert result.failed == 0


def test_a_position_reached_twice_counts_once_and_moves_and_transformations_are_named(
    engine,
) -> None:
    repeated = "1. Kb5 Rd5+ 2. Kb4 Rd4+ 3. Kb5 Rd5+ 4. Kb4 Rd4+ *"
    hits = anticipations(engine, "8/2P5/K2r4/8/8/8/8/k7 w - - 0 1", repeated, min_men=4)
    saavedra = next(h for h in hits if h.id == id_of(engine, "Glasgow Weekly Citizen"))
    assert len(saavedra.shared) == 7  # plies 1-4 and 6-8 (3.Kb5 with the rook on d4: not his)
    assert saavedra.positions == 4  # but the game has 4 distinct positions
    assert saavedra.first_move == "1.Kb5"
    assert (saavedra.shared[0].move, saavedra.shared[0].other_move) == ("1.Kb5", "2.Kb5")
    mirrored = check(engine, "Glasgow Weekly Citizen", min_men=4, similar=True)
    hit = next(h for h in mirrored if h.id == id_of(engine, "Mirror"))
    assert {s.transformation for s in hit.shared} == {"mirrored"}


def test_anticipations_name_the_persons(engine) -> None:
    hits = check(engine, "Later", min_men=4, before=1960)
    assert [p.name for p in hits[0].persons] == ["Saavedra, Fernando"]
    assert hits[1].composers == ["Saavedra, F."]  # as credited; the person is the same
    assert hits[1].persons == hits[0].persons


def test_most_looks_at_the_first_moves_only(engine) -> None:
    """``most``: the positions of the game's first ``most`` moves (a study page's bound)."""
    repeated = "1. Kb5 Rd5+ 2. Kb4 Rd4+ *"
    saavedra = id_of(engine, "Glasgow Weekly Citizen")

    def shared(**options) -> list[int]:
        hits = anticipations(
            engine, "8/2P5/K2r4/8/8/8/8/k7 w - - 0 1", repeated, min_men=4, **options
        )
        return sorted(s.ply for h in hits if h.id == saavedra for s in h.shared)

    assert shared() == [1, 2, 3, 4]
    assert shared(most=2) == [1, 2] and shared(most=0) == []


def test_games_named_reads_ids_and_files_as_typed_records(engine, tmp_path: Path) -> None:
    from studydb.db.anticipate import GameToCheck, games_named
    from studydb.errors import PgnError, QueryError

    saavedra = id_of(engine, "Glasgow Weekly Citizen")
    entries = write(tmp_path / "entries.pgn", LATER)
    found = list(games_named(engine, [str(saavedra), str(entries)]))
    assert [type(game) for game in found] == [GameToCheck, GameToCheck]
    assert found[0].name == f"study {saavedra}" and found[0].id == saavedra
    assert found[1].name == f"{entries}:1" and found[1].movetext.split()[:2] == ["1.", "Kb5"]
    assert (found[1].id, found[1].year) == (id_of(engine, "Later"), 1960)  # stored already
    with pytest.raises(QueryError, match="no study with id 2147483648"):
        list(games_named(engine, ["2147483648"]))  # beyond the id column: no study, no error
    bad = write(tmp_path / "bad.pgn", '[Event "E"]\n[FEN "nonsense"]\n\n*\n')
    with pytest.raises(PgnError, match=r"bad\.pgn:1: bad FEN 'nonsense'"):
        list(games_named(engine, [str(bad)]))
