"""Pattern search in the database (studydb.db.patterns): stored boards, search, count, stats.

The reference is a replay of each game of the collection with python-chess's
board (``board_text`` at every node), matched by the pure pattern: the
database's boards, prefilter and scan must find the same studies, on both
engines.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import chess
import pytest
from helpers import CLASSICS, database_on
from sqlalchemy import update
from typer.testing import CliRunner

import studydb
from studydb.cli import app
from studydb.db.models import StudyIndex
from studydb.db.patterns import candidates, decided_in_sql, find
from studydb.errors import DatabaseError
from studydb.filters import Filters
from studydb.movetext import Visitor, movetext_of, start_board, walk
from studydb.patterns import board_text, parse_fen_pattern, parse_pieces

runner = CliRunner()

#: Patterns and designators with the filters they are searched with.
CASES = [
    ({"pattern": "*/*/1KP5/*/*/*/*/*"}, "fen", "*/*/1KP5/*/*/*/*/*"),
    ({"pattern": "*/*/*/*/*/*/*/*Q*"}, "fen", "*/*/*/*/*/*/*/*Q*"),
    ({"pieces": "R[a-h]7 r[a-h]2"}, "pieces", "R[a-h]7 r[a-h]2"),
    ({"pieces": "[Nn][a1-8,h1-8,a-h1,a-h8] not [QRBqrb]."}, "pieces", None),
    ({"pieces": "P[a-h]7", "main_line": True}, "pieces", "P[a-h]7"),
    ({"pieces": "P[a-h]7", "side_to_move": "black"}, "pieces", "P[a-h]7"),
    ({"pieces": "p[a-h]2", "either_colour": True}, "pieces", "p[a-h]2"),
    ({"pieces": "P[a-h]7", "side_to_move": "white", "either_colour": True}, "pieces", "P[a-h]7"),
    ({"pattern": "*/*/*/*/*/*/*/8", "side_to_move": "black", "either_colour": True}, "fen", None),
    ({"pieces": "_[a-h]8{8} _[a-h]1{8}"}, "pieces", None),
    ({"pattern": "8/8/8/8/8/8/8/*"}, "fen", "8/8/8/8/8/8/8/*"),
    # One designator that needs a man: decided in SQL by where men stood (no scan).
    ({"pieces": "R[a-h]7"}, "pieces", "R[a-h]7"),
    ({"pieces": "[Kk][a-h]1"}, "pieces", "[Kk][a-h]1"),
    ({"pieces": "Q.{2,}"}, "pieces", "Q.{2,}"),
    ({"pieces": "N[a-h]8", "either_colour": True}, "pieces", "N[a-h]8"),
    # Ranks whose first squares fix men (a prefilter on where they stood, then the scan).
    ({"pattern": "*/*/*/*/*/*/*/?K*"}, "fen", "*/*/*/*/*/*/*/?K*"),
    ({"pattern": "*/*/1K[Pp]*/*/*/*/*/*"}, "fen", "*/*/1K[Pp]*/*/*/*/*/*"),
    # Empty and occupied squares: decided by the occupancy blocks (no board read).
    ({"pattern": "8/*/*/*/*/*/*/*", "main_line": True}, "fen", "8/*/*/*/*/*/*/*"),
    ({"pattern": "*/*/*/*/*/*/8/*", "side_to_move": "black"}, "fen", "*/*/*/*/*/*/8/*"),
    ({"pieces": "_[a-h]1{8}", "either_colour": True}, "pieces", None),
    ({"pieces": "not ![a-h]7 ![a-h]2{3,}"}, "pieces", None),
    # A rank's shape narrows the boards read: q on a1 and b1-h1 empty.
    ({"pattern": "*/*/*/*/*/*/*/k7"}, "fen", "*/*/*/*/*/*/*/k7"),
]


class _Positions(Visitor):
    def __init__(self, board: chess.Board) -> None:
        self.found = [(board_text(board), True, board.turn)]

    def visit_position(self, board: chess.Board, node: int, parent: int, main: bool) -> None:
        self.found.append((board_text(board), main, board.turn))


@cache
def replayed(fen: str, pgn: str) -> tuple[tuple[str, bool, bool], ...]:
    """Every node's board of one game, whether it is on the main line, and who moves."""
    board = start_board(fen)
    return tuple(walk(board, movetext_of(pgn), _Positions(board)).found)


def reference(db: studydb.Database, filters: dict) -> set[int]:
    """The studies a replay of every stored game with python-chess finds."""
    text = filters.get("pattern") or filters["pieces"]
    pattern = parse_fen_pattern(text) if "pattern" in filters else parse_pieces(text)
    side = {"white": chess.WHITE, "black": chess.BLACK}.get(filters.get("side_to_move", ""))
    found = set()
    for row in db.search(with_pgn=True):
        for position, main, turn in replayed(row.fen, row.pgn):
            if filters.get("main_line") and not main:
                continue
            # Colours reversed, the side to move is the other (Board.mirror(), flipcolor).
            fits = ((side is None or turn == side) and pattern.matches(position)) or (
                filters.get("either_colour")
                and (side is None or turn != side)
                and pattern.inverted().matches(position)
            )
            if fits:
                found.add(row.id)
                break
    return found


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def classics(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[studydb.Database]:
    """The classics imported once per engine (the tests only read them)."""
    with database_on(request.param, tmp_path_factory.mktemp("patterns") / "p.sqlite") as url:
        db = studydb.open(url)
        try:
            db.import_paths([CLASSICS], jobs=1)
            yield db
        finally:
            db.close()


@pytest.fixture
def own_classics(db_url: str) -> studydb.Database:
    db = studydb.open(db_url)
    db.import_paths([CLASSICS], jobs=1)
    return db


@pytest.mark.parametrize(("filters", "kind", "text"), CASES, ids=lambda v: str(v))
def test_search_finds_what_a_replay_finds(
    classics: studydb.Database, filters: dict, kind: str, text: str | None
) -> None:
    expected = reference(classics, filters)
    found = [row.id for row in classics.search(sort="id", **filters)]
    assert set(found) == expected
    assert classics.count(**filters) == len(expected)
    assert classics.stats(**filters).studies == len(expected)
    for row in classics.search(**filters):
        assert row.occurrences, row.id  # where it fits
        assert all(o.main for o in row.occurrences) or not filters.get("main_line")


def test_pieces_and_fen_pattern_say_the_same(classics: studydb.Database) -> None:
    pairs = [
        ("*/*/*/*/*/*/*/K*", "Ka1"),
        ("*/*/1KP5/*/*/*/*/*", "Kb6 Pc6 _a6 _[d-h]6"),
        ("8/*/*/*/*/*/*/*", "_[a-h]8{8}"),
    ]
    for fen, pieces in pairs:
        assert {r.id for r in classics.search(pattern=fen)} == {
            r.id for r in classics.search(pieces=pieces)
        }, (fen, pieces)
    both = classics.count(pattern="*/*/*/*/*/*/*/*", pieces="Q.")
    assert both == classics.count(pieces="Q.")


def test_where_men_stood_narrows_the_boards_scanned(classics: studydb.Database) -> None:
    """Only studies where such a man stood are candidates; one designator needs no scan."""
    with classics.engine.connect() as conn:
        every = len(candidates(conn, Filters(pieces="_.")))  # no man needed: all indexed
        rare = Filters(pieces="Q[a-h]8")
        few = candidates(conn, rare)
        assert 0 < len(few) < every
        assert decided_in_sql(rare)
        assert {study_id for study_id, _ in find(conn, rare, few)} == set(few)
        implied = Filters(pattern="*/*/*/*/*/*/*/?Q*")  # a fixed square: narrower still
        assert not decided_in_sql(implied)
        assert set(candidates(conn, implied)) == set(candidates(conn, Filters(pieces="Qb1")))


def test_occupied_squares_decide_a_pattern_of_empty_squares_without_the_boards(
    own_classics: studydb.Database,
) -> None:
    """Boards that cannot be read: a pattern the occupancy decides does not need them;
    one it only narrows reads the boards of the studies it leaves."""
    db = own_classics
    decided = [
        {"pattern": "8/*/*/*/*/*/*/*", "main_line": True},
        {"pieces": "_[a-h]1{8}", "side_to_move": "white"},
        {"pattern": "*/*/*/*/*/*/*/8", "either_colour": True},
    ]
    expected = [db.count(**filters) for filters in decided]
    assert all(expected)
    narrowed = {"pattern": "*/*/*/*/*/*/*/k7"}
    assert db.count(**narrowed) > 0
    with db.engine.begin() as conn:
        conn.execute(update(StudyIndex).values(boards=b"\xff unreadable"))
    assert [db.count(**filters) for filters in decided] == expected
    with pytest.raises(ValueError, match="unknown board block format"):
        db.count(**narrowed)


@pytest.mark.slow
@pytest.mark.parametrize("column", ["boards", "seen_wp", "occupancy"])
def test_an_index_from_before_patterns_is_named_and_index_mends_it(
    own_classics: studydb.Database, column: str
) -> None:
    """Boards, where men stood (revision 0012) or the occupied squares (0013) missing:
    named; ``index`` adds them."""
    classics = own_classics
    expected = classics.count(pieces="R.")
    with classics.engine.begin() as conn:
        conn.execute(update(StudyIndex).values({column: None}))
    with pytest.raises(DatabaseError, match=r"indexed before pattern search.*studydb index"):
        classics.count(pieces="R.")
    summary = classics.index()
    assert summary.studies > 0
    assert classics.count(pieces="R.") == expected


def test_the_command_line_searches_and_counts_patterns(tmp_path: Path) -> None:
    db = str(tmp_path / "p.sqlite")
    assert runner.invoke(app, ["import", str(CLASSICS), "--db", db]).exit_code == 0
    result = runner.invoke(app, ["search", "--pattern", "*/*/1KP5/*/*/*/*/*", "--db", db])
    assert result.exit_code == 0, result.output
    assert "Saavedra" in result.output and "start" in result.output
    count = runner.invoke(app, ["search", "--pieces", "Q.", "--count", "--db", db])
    assert count.exit_code == 0 and int(count.stdout) > 0
    rows = json.loads(
        runner.invoke(app, ["search", "--pieces", "Q.", "-f", "json", "--db", db]).stdout
    )
    assert len(rows) == int(count.stdout)
    assert all(row["occurrences"] for row in rows)  # every matching position, each study
    assert sum(len(row["occurrences"]) for row in rows) > len(rows)
    stats = runner.invoke(app, ["stats", "--pieces", "Q.", "-f", "json", "--db", db])
    assert json.loads(stats.stdout)["studies"] == int(count.stdout)


def test_a_king_that_never_leaves_h1_is_never_found_away_from_it(
    db_url: str, tmp_path: Path
) -> None:
    """The last position's board line ends in a newline, which ``[^Kk]`` once took for h1."""
    pgn = tmp_path / "h1.pgn"
    pgn.write_text('[FEN "K7/8/8/8/8/8/8/n6k w - - 0 1"]\n\n1. Kb8 Nb3 2. Ka8 Na1 *\n')
    with studydb.open(db_url) as db:
        assert db.import_paths([pgn]).stored == 1
        assert db.count(pattern="*/*/*/*/*/*/*/*[^Kk]") == 0
        assert db.count(pattern="*/*/*/*/*/*/*/*[^k]") == 0
        assert db.count(pattern="*/*/*/*/*/*/*/[^n]*k") == 1  # after 1...Nb3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--pattern", "8/8/8/8/8/8/8/x7"], "at character 15: 'x' is not a piece letter"),
        (["--pieces", "R[a-h]9"], "'R[a-h]9' is not a designator"),
        (["--pieces", "K.", "--side-to-move", "red"], "white or black"),
    ],
)
def test_a_malformed_pattern_is_a_usage_error(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["search", *args])
    assert result.exit_code == 2
    assert message in result.output
