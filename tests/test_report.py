"""The judge's report: its forms (studydb.report) and its facts (studydb.db.report)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import chess
import pytest
from helpers import sample_report

import studydb
from studydb import report
from studydb.db.report import ReportOptions
from studydb.report import (
    Entry,
    Report,
)
from studydb.themes import PGN, Theme

ROOT = Path(__file__).resolve().parent.parent
CLASSICS = ROOT / "data" / "classics.pgn"
TOURNEY = ROOT / "tests" / "fixtures" / "tourney.pgn"
SAAVEDRA = "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"


def json_texts(value: object, key: str = "") -> list[str]:
    """Every text and number of a JSON value, but the names of flags and theme sources."""
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in json_texts(v, k)]
    if isinstance(value, list):
        return [t for v in value for t in json_texts(v, key)]
    if key in ("flags", "source") and value in ("dual", "error", "auto", "pgn"):
        return []
    if isinstance(value, bool) or value is None or value == "":
        return []
    return [str(value)]


def test_markdown_and_html_carry_every_fact_of_the_json() -> None:
    sample = sample_report()
    data = json.loads(report.to_json(sample))
    markdown = report.to_markdown(sample)
    page = html.unescape(re.sub(r"<[^>]+>", " ", report.to_html(sample)))
    page = " ".join(page.split())
    for text in json_texts(data):
        assert text in markdown, text
        assert " ".join(text.split()) in page, text


def test_the_forms_say_what_is_missing() -> None:
    sample = sample_report()
    bare = sample.entries[1]
    assert bare.verdict == "unchecked" and not bare.anticipated
    markdown, page = report.to_markdown(sample), report.to_html(sample)
    for text in (markdown, page):
        assert "Not checked: no tables given." in text
        assert "mutual zugzwang not looked for (no tables)" in text
    assert "| yes, 1890 |" in markdown and "| unchecked | no |" in markdown
    assert "<td>yes, 1890</td>" in page and "<td>no</td>" in page


def test_an_entry_that_could_not_be_read_claims_no_check() -> None:
    # A bad FEN's entry said "Not checked: no tables given." with tables given,
    # "Anticipated: no", "Anticipations (0 studies) none", "Versions none".
    unread = Entry(number=1, where="bad.pgn:1", errors=["bad FEN 'x': expected 8 rows"])
    result = Report("bad.pgn", [unread], tables="Syzygy, up to 4 men")
    markdown, page = report.to_markdown(result), report.to_html(result)
    sections = (markdown.split("## 1. ")[1], html.unescape(page).split('id="entry-1"')[1])
    for section in sections:
        assert report.UNREAD in section
        for claim in ("no tables given", "Anticipations", "Versions", "Themes", "none"):
            assert claim not in section, claim
    assert "| unchecked | not looked for |" in markdown
    assert "<td>not looked for</td>" in page
    assert json.loads(report.to_json(result))["entries"][0]["anticipated"] is None


def test_html_is_one_self_contained_page() -> None:
    page = report.to_html(sample_report())
    assert "<script" not in page.lower()
    assert not re.search(r"""(?:src|href)\s*=\s*["'](?!#)""", page), "a link that fetches"
    assert "@import" not in page and "url(" not in page
    assert page.count("<svg") == 2 + 1  # two start positions, one shared position
    assert page.count("<style>") == 1
    css = page[page.index("<style>") : page.index("</style>")]
    assert re.search(r"article\.entry \{[^}]*break-inside: avoid", css)
    sizes = [float(cm) for cm in re.findall(r"svg \{ width: ([\d.]+)cm", css)]
    assert sizes and min(sizes) >= 4.0


def test_html_escapes_the_file_text() -> None:
    page = report.to_html(sample_report())
    assert "Quarterly &lt;Studies&gt; &amp; Co" in page
    assert "<Studies>" not in page


# -- the facts, from a database ---------------------------------------------------------


@pytest.fixture
def collection(db_url: str):
    with studydb.open(db_url) as db:
        db.import_paths([CLASSICS], jobs=1)
        yield db


def test_report_against_the_classics(collection, syzygy: str) -> None:
    result = collection.report(str(TOURNEY), ReportOptions(syzygy=(syzygy,)))
    a, b, c, d = result.entries
    assert result.studies == 25 and result.tables == "Syzygy, up to 4 men"
    # A: Kubbel's 1925 study from its second move on.
    assert a.anticipated and a.earliest_year == 1925 and a.before == 2025
    (kubbel,) = a.anticipations
    assert (kubbel.year, kubbel.ply, kubbel.other_ply, kubbel.main) == (1925, 0, 2, True)
    assert kubbel.composers == ["Kubbel, Leonid Ivanovich"] and kubbel.fen == a.fen
    assert a.verdict == "unchecked" and [t.name for t in a.themes] == ["stalemate"]
    # B: Saavedra's start: a version, not an anticipation (4 men < 5).
    assert not b.anticipated and [v.year for v in b.versions] == [1895]
    assert b.verdict == "sound" and b.gbr == "0300.10" and b.form == "+0300.10b6a1"
    assert [t.describe() for t in b.themes] == [
        "underpromotion ply 11 (R)",
        "switchback ply 13 (Kb3)",
    ]
    # Each theme with the main line's move to its ply, worded as show and the study page.
    assert b.theme_moves == {11: "6.c8=R", 13: "7.Kb3"}
    markdown = report.to_markdown(result)
    assert "- underpromotion 6.c8=R, ply 11: R\n- switchback 7.Kb3, ply 13: Kb3" in markdown
    assert "<span>underpromotion 6.c8=R, ply 11: R</span>" in report.to_html(result)
    (saavedra,) = [e for e in json.loads(report.to_json(result))["entries"] if e["number"] == 2]
    assert saavedra["themes"][0] == {
        "name": "underpromotion",
        "ply": 11,
        "move": "6.c8=R",
        "detail": "R",
        "source": "auto",
    }
    assert "theme_moves" not in saavedra
    # C: the tempo move into a mutual zugzwang; its tags' themes too.
    assert c.verdict == "duals" and c.zugzwang_tables == 4
    assert Theme("mutual-zugzwang", 1, "half") in c.themes
    assert Theme("opposition", source=PGN) in c.themes
    # D: unsound, the first error at 2. Rd3+.
    assert d.verdict == "unsound"
    assert d.soundness and d.soundness.first_error
    assert (d.soundness.first_error.number, d.soundness.first_error.san) == ("2.", "Rd3+")
    assert "2.Rd3+? draws: 2…Kxd3!; 2.Kb2 wins" in d.soundness.first_error.text  # #26
    assert "2.Rd3+? draws: 2…Kxd3!" in report.to_markdown(result)
    assert [m.san for m in d.soundness.moves] == ["Rh3+", "Kd4", "Rd3+", "Kxd3"]


def test_report_without_tables_and_before_a_year(collection) -> None:
    options = ReportOptions(before=1900)
    result = collection.report(str(TOURNEY), options)
    assert result.tables == "none"
    assert all(e.soundness is None and e.zugzwang_tables is None for e in result.entries)
    a = result.entries[0]
    assert not a.anticipated and a.before == 1900  # Kubbel's study is of 1925
    assert not any(t.name == "mutual-zugzwang" for e in result.entries for t in e.themes)


def test_the_report_says_which_studies_it_did_not_compare(db_url: str) -> None:
    """Against the classics imported with --positions none, the report said entry A was
    not anticipated ('no'; 'none in the database'): Kubbel's 1925 study, never indexed,
    was never compared.  It says how many were not, until ``studydb index``."""
    with studydb.open(db_url) as db:
        db.import_paths([CLASSICS], jobs=1, positions="none")
        result = db.report(str(TOURNEY), ReportOptions())
        assert result.not_compared == 21 and not result.entries[0].anticipated
        # Versions are found all the same (by the start's hash): entry B is Saavedra's.
        assert [v.year for v in result.entries[1].versions] == [1895]
        markdown = report.to_markdown(result)
        assert (
            "4 listed per entry; 21 stored studies of 5+ men are not in the position index and"
            " were not compared (studydb index indexes them)"
        ) in markdown
        assert "| unchecked | no (21 not compared) | stalemate |" in markdown
        assert "none among the indexed studies (21 not compared: not in the position index)" in (
            report.to_html(result)
        )
        assert "none in the database" not in report.to_html(result)
        assert json.loads(report.to_json(result))["not_compared"] == 21
        db.index()
        result = db.report(str(TOURNEY), ReportOptions())
        assert result.not_compared == 0 and result.entries[0].anticipated
        assert "not in the position index" not in report.to_markdown(result)
        assert "21 not compared" not in report.to_markdown(result)


def test_an_entry_of_too_few_men_is_not_called_unanticipated(collection) -> None:
    """Entry B is Saavedra's study resubmitted: 4 men, so with positions of 5+ men compared
    none of its positions was; the report said 'Anticipated: no' and 'none', its 1895
    version listed below."""
    result = collection.report(str(TOURNEY), ReportOptions())
    b = result.entries[1]
    assert b.men == 4 and [v.year for v in b.versions] == [1895]
    phrase = "no position compared: it starts with 4 men, fewer than --min-men 5"
    markdown = report.to_markdown(result)
    assert "| unchecked | not compared (4 men) | underpromotion, switchback |" in markdown
    assert f"### Anticipations\n\n{phrase}\n" in markdown
    page = report.to_html(result)
    assert "<td>not compared (4 men)</td>" in page and phrase in page
    entry = json.loads(report.to_json(result))["entries"][1]
    assert (entry["anticipated"], entry["men"]) == (None, 4)
    wider = collection.report(str(TOURNEY), ReportOptions(min_men=4))
    assert wider.entries[1].anticipated  # compared: Saavedra 1895 shares every position
    assert "not compared (4 men)" not in report.to_markdown(wider)


def test_an_entry_beyond_the_tables_claims_no_finding(collection, syzygy: str) -> None:
    """Entry A (9 men, 4-man tables, no engine) is 'unchecked', 0 plies checked; its
    section said 'First error: none' and 'Duals: none' all the same."""
    result = collection.report(str(TOURNEY), ReportOptions(syzygy=(syzygy,)))
    a = result.entries[0]
    assert a.verdict == "unchecked" and a.soundness is not None
    markdown = report.to_markdown(result)
    section = markdown.split("## 1. ")[1].split("## 2. ")[0]
    assert "Not judged at the start: 9 men at the start" in section
    assert "First error" not in section and "Duals" not in section
    page = report.to_html(result)
    html_section = page.split('id="entry-1"')[1].split('id="entry-2"')[0]
    assert "First error" not in html_section and "Duals" not in html_section
    assert "First error: none" in markdown.split("## 2. ")[1]  # entry B was checked


def test_an_entry_s_versions_are_listed_twenty_at_most(db_url: str, tmp_path: Path) -> None:
    """An entry listed every study of its start as a version (an entry from the initial
    position, against a database of a million games: a million lines, all held); ``show``
    lists 20.  Games from the initial position are no versions at all."""
    fen = "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"
    studies = [f'[Event "S{n}"]\n[FEN "{fen}"]\n\n1. c7 *\n' for n in range(25)]
    games = [f'[Event "G{n}"]\n\n1. e4 e{n % 2 + 5} *\n' for n in range(25)]
    (tmp_path / "games.pgn").write_text("\n".join(studies + games))
    (tmp_path / "entry.pgn").write_text(f'[Event "Entry"]\n[FEN "{fen}"]\n\n1. c7 Rd6+ *\n')
    (tmp_path / "game.pgn").write_text('[Event "Entry"]\n\n1. d4 *\n')
    with studydb.open(db_url) as db:
        db.import_paths([tmp_path / "games.pgn"], jobs=1)
        result = db.report(str(tmp_path / "entry.pgn"), ReportOptions())
        (game,) = db.report(str(tmp_path / "game.pgn"), ReportOptions()).entries
    assert (game.versions, game.versions_total) == ([], 0)
    (entry,) = result.entries
    assert len(entry.versions) == 20 and entry.versions_total == 25
    markdown = report.to_markdown(result)
    assert "- … and 5 more (studydb versions lists them all)" in markdown
    assert "and 5 more (studydb versions lists them all)" in report.to_html(result)
    data = json.loads(report.to_json(result))["entries"][0]
    assert (len(data["versions"]), data["versions_total"]) == (20, 25)


def test_limit_0_lists_every_anticipation(collection) -> None:
    """'report --limit 0' listed none and said '(0 of 1 studies …)' then 'none'; 0 is 'all'
    for -n/--limit on every command (search, anticipate)."""
    result = collection.report(str(TOURNEY), ReportOptions(limit=0, min_men=4, before=3000))
    b = result.entries[1]
    assert len(b.anticipations) == b.anticipation_count >= 1
    markdown = report.to_markdown(result)
    assert "all listed per entry" in markdown
    listed = markdown.split("## 2. ")[1].split("### Anticipations")[1].split("###")[0]
    assert "1. study" in listed and "none" not in listed


def test_a_study_of_the_entry_s_year_is_not_called_earlier(collection) -> None:
    """With --before 1925, Kubbel's 1925 study was listed under 'Anticipations (1 study
    dated before 1925)', unmarked; ``anticipate`` marks it 'same year, order unknown'."""
    result = collection.report(str(TOURNEY), ReportOptions(before=1925))
    (hit,) = result.entries[0].anticipations
    assert hit.year == 1925 and hit.same_year
    markdown = report.to_markdown(result)
    assert "### Anticipations (1 study dated up to 1925)" in markdown
    assert "dated before" not in markdown
    assert "Kubbel, Leonid Ivanovich, 1925 (same year, order unknown)" in markdown
    assert "| unchecked | maybe: 1925, the same year, order unknown | stalemate |" in markdown
    assert "1925 (same year, order unknown)" in report.to_html(result)
    entry = json.loads(report.to_json(result))["entries"][0]
    assert entry["anticipations"][0]["same_year"] is True
    earlier = collection.report(str(TOURNEY), ReportOptions(before=1926))
    assert not earlier.entries[0].anticipations[0].same_year
    assert "same year" not in report.to_markdown(earlier)


def test_an_entry_already_stored_is_not_its_own_anticipation(collection) -> None:
    result = collection.report(str(CLASSICS), ReportOptions(min_men=4, before=3000))
    saavedra = result.entries[0]
    assert saavedra.stored_id is not None
    assert saavedra.stored_id not in [v.id for v in saavedra.versions]
    assert saavedra.stored_id not in [h.id for h in saavedra.anticipations]


def test_a_bad_entry_is_reported_not_fatal(collection, tmp_path: Path) -> None:
    path = tmp_path / "bad.pgn"
    path.write_text(
        '[Event "no kings"]\n[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n\n*\n\n'
        '[Event "fine"]\n[FEN "8/8/8/8/8/8/R7/K6k w - - 0 1"]\n\n1. Ra8 *\n',
        encoding="utf-8",
    )
    result = collection.report(str(path), ReportOptions())
    bad, fine = result.entries
    assert bad.errors and "bad FEN" in bad.errors[0] and bad.fen == ""
    assert fine.errors == [] and fine.solution == "1. Ra8"
    for text in (report.to_html(result), report.to_markdown(result), report.to_json(result)):
        assert "bad FEN" in text


def test_what_import_rejects_as_no_game_is_an_unread_entry(collection, tmp_path: Path) -> None:
    # Binary junk, text with no tags or moves and an antichess game were each an entry
    # from the initial position (4888.88), checked and "not anticipated".
    path = tmp_path / "junk.pgn"
    path.write_bytes(
        b"\x00\x01binary\n\n"
        b'[Event "a"]\n[Variant "Antichess"]\n\n1. e3 *\n\n'
        b'[Event "fine"]\n[FEN "8/8/8/8/8/8/R7/K6k w - - 0 1"]\n\n1. Ra8 *\n'
    )
    result = collection.report(str(path), ReportOptions())
    assert [(e.errors, e.gbr) for e in result.entries] == [
        (["NUL byte in the game text at line 1"], ""),
        (["unsupported variant 'Antichess': no GBR code for it"], ""),
        ([], "0100.00"),
    ]


SAAVEDRA_LINE = ["c7", "Rd6+", "Kb5", "Rd5+", "Kb4", "Rd4+", "Kb3", "Rd3+", "Kc2", "Rd4"]
#: Later studies passing through Saavedra's main line: (the ply they start at, year).
FOLLOWERS = [(2, 1930), (4, 1910), (6, 1920)]


def follower(ply: int, year: int) -> str:
    """A study dated ``year`` starting at Saavedra's ply ``ply``, two moves long."""
    board = chess.Board(SAAVEDRA)
    for san in SAAVEDRA_LINE[:ply]:
        board.push_san(san)
    moves = board.variation_san([board.parse_san(s) for s in SAAVEDRA_LINE[ply : ply + 1]])
    return f'[Event "Follower {year}"]\n[Date "{year}.??.??"]\n[FEN "{board.fen()}"]\n\n{moves} *\n'


def test_anticipations_are_ranked_and_limited(collection, tmp_path: Path) -> None:
    path = tmp_path / "followers.pgn"
    path.write_text("\n".join(follower(ply, year) for ply, year in FOLLOWERS), encoding="utf-8")
    collection.import_paths([path], jobs=1)
    everything = collection.report(str(TOURNEY), ReportOptions(min_men=3))
    saavedra = everything.entries[1]
    # ranked as anticipate ranks them: earliest shared ply first, then most shared, then year
    assert [(h.year, h.ply, h.other_ply) for h in saavedra.anticipations] == [
        (1895, 0, 0),
        (1930, 2, 0),
        (1910, 4, 0),
        (1920, 6, 0),
    ]
    assert saavedra.earliest_year == 1895
    limited = collection.report(str(TOURNEY), ReportOptions(min_men=3, limit=1))
    one = limited.entries[1]
    assert one.anticipation_count == saavedra.anticipation_count == 4
    assert one.anticipations == saavedra.anticipations[:1]


def test_the_start_diagram_is_the_entry(collection) -> None:
    result = collection.report(str(TOURNEY), ReportOptions())
    assert [chess.Board(e.fen).board_fen() for e in result.entries][1] == SAAVEDRA.split()[0]


def test_report_says_no_errors_and_unchecked_reasons(collection, syzygy: str, tmp_path: Path):
    """An entry beyond the tables at the start: no errors found from a later move, and why."""
    path = tmp_path / "later.pgn"
    path.write_text(
        '[Event "later"]\n[Stipulation "="]\n[FEN "1k6/1p6/8/8/8/8/1R6/3K2n1 w - - 0 1"]\n\n'
        "1. Rxb7+ Kxb7 *\n\n"
        '[Event "none"]\n[FEN "8/8/8/8/8/2k5/8/KQ6 w - - 0 1"]\n\n1. Qb2+ *\n\n'
        '[Event "mate"]\n[Stipulation "#8"]\n[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n1. c7 *\n',
        encoding="utf-8",
    )
    result = collection.report(str(path), ReportOptions(syzygy=(syzygy,)))
    later, none, mate = result.entries
    assert later.verdict == "no-errors" and later.soundness is not None
    assert later.soundness.summary == "no errors found from move 1..."
    assert later.soundness.reason == "5 men at the start, beyond the 4-man tables, and no engine"
    assert none.verdict == "unchecked" and none.soundness is not None
    assert none.soundness.reason == "no stipulation (win, draw or mate) given"
    assert mate.verdict == "sound" and mate.soundness is not None
    assert "the mate's length was not checked" in mate.soundness.note
    markdown = report.to_markdown(result)
    assert "- No errors found from move 1..." in markdown
    assert "- Not judged at the start: no stipulation (win, draw or mate) given" in markdown
    page = report.to_html(result)
    assert '<li class="checked-from">no errors found from move 1...</li>' in page
    assert '"summary": "no errors found from move 1..."' in report.to_json(result)
