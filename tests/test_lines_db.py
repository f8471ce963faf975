"""Manoeuvre search in the database (studydb.db.lines): facts stored, prefilter, search.

The reference is ``bench/line_reference.py`` (a python-chess replay written apart):
the stored ply facts, the rarest-step prefilter and the scan must find the
same studies on both engines, through the Python API, the command line and stats.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import chess
import pytest
from helpers import CLASSICS, database_on, examples, line_reference
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select, update
from typer.testing import CliRunner

import studydb
from studydb.cli import app
from studydb.db.lines import candidates, rarest_step
from studydb.db.models import Study, StudyIndex, StudyMove
from studydb.errors import DatabaseError
from studydb.filters import Filters
from studydb.lines import MoveStep, PositionStep, WordStep, parse_line
from studydb.movetext import lines, movetext_of, start_board

runner = CliRunner()

#: Saavedra's study with its variations written out (the classics have none).
VARIATIONS = """[Event "Saavedra with variations"]
[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]

1. c7 Rd6+ 2. Kb5 (2. Kc5 Rd1) Rd5+ 3. Kb4 Rd4+ 4. Kb3 Rd3+ 5. Kc2 Rd4
6. c8=R (6. c8=Q Rc4+ 7. Qxc4) Ra4 7. Kb3 *
"""

#: Lines that find some of the classics and not all (checked by the first test).
LINES = [
    "P-[a-h]8 then mate",
    "{R[a-h]7} then R-[a-h]8",
    "check then stalemate",
    "P-[a-h]8=Q next r-.+ next Qx.",
]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def classics(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[studydb.Database]:
    """The classics imported once per engine (the tests only read them)."""
    folder = tmp_path_factory.mktemp("lines")
    (folder / "variations.pgn").write_text(VARIATIONS, encoding="utf-8")
    with database_on(request.param, folder / "l.sqlite") as url:
        db = studydb.open(url)
        try:
            db.import_paths([CLASSICS, folder / "variations.pgn"], jobs=1)
            yield db
        finally:
            db.close()


def reference(db: studydb.Database, text: str, *, main_line: bool) -> set[int]:
    ref = line_reference()
    query = ref.compile_line(text)
    return {
        row.id
        for row in db.search(with_pgn=True)
        if ref.finds(query, row.fen, movetext_of(row.pgn or ""), main_line=main_line)
    }


#: LINES with the colours reversed, as --either-colour reverses them.
REVERSED = [
    "p-[a-h]1 then mate",
    "{r[a-h]2} then r-[a-h]1",
    "check then stalemate",
    "p-[a-h]1=Q next R-.+ next qx.",
]


@pytest.mark.parametrize(("text", "reversed_text"), list(zip(LINES, REVERSED, strict=True)))
def test_either_colour_finds_the_line_and_the_line_colours_reversed(
    classics: studydb.Database, text: str, reversed_text: str
) -> None:
    """-z was passed over by --line: 'P-[a-h]8 then mate -z' found 1 classic, the white
    promotions, and missed the 2 where Black promotes, then mates."""
    for main_line in (False, True):
        expected = reference(classics, text, main_line=main_line) | reference(
            classics, reversed_text, main_line=main_line
        )
        given = {"line": text, "main_line": main_line, "either_colour": True}
        rows = list(classics.search(sort="id", **given))
        assert {row.id for row in rows} == expected, (text, main_line)
        assert classics.count(**given) == classics.stats(**given).studies == len(expected)
        for row in rows:
            assert row.line_matches, row.id
    assert classics.count(line=LINES[0], either_colour=True) > classics.count(line=LINES[0])


@pytest.mark.parametrize("text", LINES)
def test_search_count_and_stats_find_what_the_reference_finds(
    classics: studydb.Database, text: str
) -> None:
    total = classics.count()
    for main_line in (False, True):
        expected = reference(classics, text, main_line=main_line)
        assert main_line or 0 < len(expected) < total, text
        rows = list(classics.search(sort="id", line=text, main_line=main_line))
        assert {row.id for row in rows} == expected, (text, main_line)
        assert classics.count(line=text, main_line=main_line) == len(expected)
        assert classics.stats(line=text, main_line=main_line).studies == len(expected)
        for row in rows:
            assert row.line_matches, row.id
            assert all(m.main for m in row.line_matches) or not main_line


def test_the_prefilter_takes_the_rarest_step(classics: studydb.Database) -> None:
    filters = Filters(line="K-. then P-[a-h]8=R")
    with classics.engine.connect() as conn:
        groups = rarest_step(conn, filters)
        to_the_8th, promotion = filters.parsed("line").key_groups()[1]
        assert groups == [promotion, to_the_8th]  # the rook promotion first; not K-.'s 64
        few = candidates(conn, filters)
        every = candidates(conn, Filters(line="K-."))
        stored = conn.execute(select(func.count()).select_from(StudyMove)).scalar_one()
    assert 0 < len(few) < len(every) and stored > 0
    assert set(few) >= {row.id for row in classics.search(line="K-. then P-[a-h]8=R")}


def test_the_prefilter_takes_rare_keys_of_every_step_and_where_men_stood(
    classics: studydb.Database,
) -> None:
    """The candidates hold a key of the rare groups of each step, not of one step alone,
    and a position step's men stood where it needs them (pattern search's bitboards)."""
    both = Filters(line="P-[a-h]8=R then mate")
    with classics.engine.connect() as conn:
        groups = rarest_step(conn, both)
        assert [788 + 1] in groups and [780 + 2] in groups  # mate, and the rook promotion
        for alone in ("P-[a-h]8=R", "mate"):
            assert set(candidates(conn, both)) < set(candidates(conn, Filters(line=alone)))
        placed = set(candidates(conn, Filters(line="{Q[a-h]8} then K-.")))
        assert placed < set(candidates(conn, Filters(line="K-.")))
    assert placed >= {row.id for row in classics.search(line="{Q[a-h]8} then K-.")}


def test_results_say_where_each_step_matched_in_moves(classics: studydb.Database) -> None:
    saavedra = classics.search(line="P-c7 next r-d6+ then P-c8=R next r-a4", main_line=True)
    row = min(saavedra, key=lambda row: row.id)  # the classics' own, without variations
    (match,) = row.line_matches or ()
    assert match.describe() == "1.c7 1...Rd6+ … 6.c8=R 6...Ra4"
    assert [(s.node, s.ply) for s in match.steps] == [(1, 1), (2, 2), (11, 11), (12, 12)]
    (row,) = classics.search(line="P-c8=Q next r-c4+")
    (match,) = row.line_matches or ()
    assert match.describe() == "6.c8=Q 6...Rc4+, in the variation 6.c8=Q"
    assert not match.main


@pytest.mark.slow
def test_an_index_from_before_lines_is_named_and_index_mends_it(sqlite_url: str) -> None:
    """On SQLite only (the same statements on both engines; the loop stays fast)."""
    db = studydb.open(sqlite_url)
    try:
        db.import_paths([CLASSICS], jobs=1)
        expected = db.count(line="P-[a-h]8 then mate")
        with db.engine.begin() as conn:
            conn.execute(update(StudyIndex).values(moves=None))
            conn.execute(StudyMove.__table__.delete())
        with pytest.raises(DatabaseError, match=r"before manoeuvre search.*studydb index"):
            db.count(line="P-[a-h]8 then mate")
        assert db.index().studies == classics_count(db) == 25
        assert db.count(line="P-[a-h]8 then mate") == expected > 0
        # One study without its facts: only a search that selects it is refused.
        with db.engine.begin() as conn:
            latest, year = conn.execute(
                select(Study.id, Study.year)
                .where(Study.year.is_not(None))
                .order_by(Study.year.desc())
                .limit(1)
            ).one()
        earlier = db.count(line="check", years=(f"..{year - 1}",))
        with db.engine.begin() as conn:
            conn.execute(update(StudyIndex).where(StudyIndex.study_id == latest).values(moves=None))
        assert db.count(line="check", years=(f"..{year - 1}",)) == earlier > 0
        with pytest.raises(DatabaseError, match=r"1 of the selected studies .*before manoeuvre"):
            db.count(line="check")
    finally:
        db.close()


def test_the_command_line_searches_counts_and_lists_matches(classics: studydb.Database) -> None:
    db = classics.engine.url.render_as_string(hide_password=False)
    result = runner.invoke(app, ["search", "--line", "P-[a-h]8 then mate", "--db", db])
    assert result.exit_code == 0, result.output
    assert "3.g8=Q+ … 6.Bg7#" in result.output
    count = runner.invoke(app, ["search", "--line", "check", "--count", "--db", db])
    assert count.exit_code == 0 and int(count.stdout) > 1
    found = runner.invoke(app, ["search", "--line", "check", "-f", "json", "--db", db])
    rows = json.loads(found.stdout)
    assert len(rows) == int(count.stdout)
    assert sum(len(row["line_matches"]) for row in rows) > len(rows)  # every match
    step = rows[0]["line_matches"][0]["steps"][0]
    assert set(step) == {"move", "node", "ply"}
    assert {"links", "main", "variation", "moves"} <= set(rows[0]["line_matches"][0])
    main = runner.invoke(app, ["search", "--line", "check", "--main-line", "--count", "--db", db])
    assert 0 < int(main.stdout) <= int(count.stdout)
    stats = runner.invoke(app, ["stats", "--line", "check", "-f", "json", "--db", db])
    assert json.loads(stats.stdout)["studies"] == int(count.stdout)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("P-[a-h]9", "bad line 'P-[a-h]9' at character 3"),
        ("then mate", "'then' with no step before it"),
        ("P-. thn mate", "'thn' follows a step"),
        ("{R[a-h]7", "unclosed '{'"),
    ],
)
def test_a_malformed_line_is_a_usage_error(line: str, message: str) -> None:
    result = runner.invoke(app, ["search", "--line", line])
    assert result.exit_code == 2
    assert message in result.output


def classics_count(db: studydb.Database) -> int:
    return db.count()


def _move_word(board: chess.Board, move: chess.Move) -> str:
    piece = board.piece_at(move.from_square)
    assert piece is not None
    word = f"{piece.symbol()}{chess.square_name(move.from_square)}"
    return word + f"{'x' if board.is_capture(move) else '-'}{chess.square_name(move.to_square)}"


@settings(max_examples=examples(10), deadline=None)
@given(data=st.data())
def test_a_line_of_an_indexed_studys_own_moves_finds_it(
    classics: studydb.Database, data: st.DataObject
) -> None:
    studies = list(classics.search(sort="id", with_pgn=True))
    row = data.draw(st.sampled_from(studies))
    board = start_board(row.fen)
    line = data.draw(st.sampled_from(lines(board, movetext_of(row.pgn or ""))))
    moves = [m for m in line.moves if m]
    if not moves:
        return
    first = data.draw(st.integers(0, len(moves) - 1))
    played = line.board.copy()
    for move in moves[:first]:
        played.push(move)
    words = [_move_word(played, moves[first])]
    played.push(moves[first])
    if first + 1 < len(moves):
        link = data.draw(st.sampled_from(["then", "next"]))
        words += [link, _move_word(played, moves[first + 1])]
    found = {r.id for r in classics.search(line=" ".join(words), main_line=line.main)}
    assert row.id in found, (words, line.label)


# -- the corpus: studydb against the reference on every study file ------------------------

#: Lines for the corpus comparison: every kind of step (moves with each part, positions
#: with counts and 'not', the three words) and both links.
CORPUS_LINES = [
    "P-[a-h]8=N",
    "P-[a-h]8=[RBN]",
    "p-[a-h]1=[QRBN]",
    "P-[a-h]8=Q then stalemate",
    "P-[a-h]8 then mate",
    "R-[a-h]7 then R-[a-h]8",
    "[RQ]-[a-h]7+",
    "Kx.",
    "kx. next Ax.",
    "Ax. next ax. next Ax.",
    "Pc7-c8",
    "Pxb8=N",
    "Nx.+",
    "N-.#",
    "B-.# ",
    "[Aa]x[a-d][1-4]",
    "A-[a1,h1,a8,h8]",
    "K-[a-h]1 next k-.",
    "Q[a-h]8-.+",
    "a-.+ next K-.",
    "check next check next check",
    "check then check then check then mate",
    "mate",
    "stalemate",
    "check then stalemate",
    "{R[a-h]7} then R-[a-h]8",
    "{R[a-h]7 r[a-h]2}",
    "{K[a-h]1 not [Qq].}",
    "{P[a-h]7{2,}} then P-[a-h]8",
    "{_[a-h]8{8}} next check",
    "P-. next {N[a-h]8}",
    "{[Nn][a-h]1{1,}} then mate",
    "R-. next r-. next R-. next r-.",
    "B-. then Bx.",
    "{Q. q.} then {not [Qq].}",
]


@pytest.fixture(scope="module")
def corpus(
    corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, list]]:
    """The corpus' study files imported once (SQLite), every game indexed, with each
    study's main line replayed by the reference."""
    ref = line_reference()
    db = str(tmp_path_factory.mktemp("corpus") / "c.sqlite")
    files = sorted((corpus_dir / "studies").glob("*.pgn"))
    assert files
    with studydb.open(db) as opened:  # every game indexed, those without a FEN tag too
        opened.import_paths(files, jobs=1, positions="all")
        studies = [
            (
                row.id,
                list(ref.game_lines(row.fen, movetext_of(row.pgn or ""), main_line=True)),
                list(ref.game_lines(row.fen, movetext_of(row.pgn or ""), main_line=False)),
            )
            for row in opened.search(sort="id", with_pgn=True)
        ]
    assert len(studies) > 150
    yield db, studies


def test_the_corpus_lines_use_every_kind_of_step_and_link() -> None:
    assert len(set(CORPUS_LINES)) == len(CORPUS_LINES) >= 30
    steps = [step for text in CORPUS_LINES for step in parse_line(text).steps]
    moves = [step for step in steps if isinstance(step, MoveStep)]
    assert any(step.capture for step in moves) and any(not step.capture for step in moves)
    assert {step.mark for step in moves} == {"", "+", "#"}
    assert any(step.promotions for step in moves)
    assert any(len(step.origins) < 64 for step in moves)
    assert any(len(step.men) > 6 for step in moves)  # [Aa]
    assert {w.word for w in steps if isinstance(w, WordStep)} == {"check", "mate", "stalemate"}
    positions = [step for step in steps if isinstance(step, PositionStep)]
    designators = [d for step in positions for d in step.pattern.designators]
    assert any(d.negated for d in designators) and any(d.low > 1 for d in designators)
    assert {link for text in CORPUS_LINES for link in parse_line(text).links} == {"then", "next"}


@pytest.mark.slow  # 8 s of CPU: the corpus imported and every line replayed by the reference
@pytest.mark.parametrize("text", CORPUS_LINES)
def test_the_command_line_finds_what_the_reference_finds_in_the_corpus(
    corpus: tuple[str, list], text: str
) -> None:
    db, studies = corpus
    ref = line_reference()
    query = ref.compile_line(text)
    for main_line in (True, False):
        expected = {
            i
            for i, main, every in studies
            if any(ref.fits(query, line) for line in (main if main_line else every))
        }
        args = ["search", "--line", text, "-f", "json", "--db", db]
        result = runner.invoke(app, [*args, "--main-line"] if main_line else args)
        assert result.exit_code == 0, result.output
        assert {row["id"] for row in json.loads(result.stdout)} == expected, (text, main_line)
