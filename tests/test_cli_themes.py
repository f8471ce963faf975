"""``studydb themes``, ``search --theme``, ``show`` and ``studydb report`` from the command line.

The HTML report is printed to PDF by the real Chromium; its pages are read
back with poppler's ``pdftotext`` to see that no entry straddles a page break.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import CLASSICS, STUDYDB, require
from typer.testing import CliRunner

from studydb.cli import app

runner = CliRunner()

ROOT = Path(__file__).resolve().parent.parent
TOURNEY = ROOT / "tests" / "fixtures" / "tourney.pgn"
CHROMIUM = Path("/usr/bin/chromium")
STOCKFISH = "/usr/games/stockfish"


def studydb(*args: str, code: int = 0) -> str:
    """Run a command in this process; check its exit code; return stdout (stderr if failing)."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, result.output
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    return result.stdout if code == 0 else result.stderr


def console_script(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed ``studydb`` console script."""
    done = subprocess.run(
        [str(STUDYDB), *args], capture_output=True, text=True, timeout=300, env=os.environ
    )
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture
def collection(db_url: str) -> str:
    """The classics imported, on each engine."""
    studydb("import", str(CLASSICS), "--db", db_url)
    return db_url


@pytest.fixture
def classics_sqlite(sqlite_url: str) -> str:
    """The classics imported into SQLite (for what does not depend on the engine)."""
    studydb("import", str(CLASSICS), "--db", sqlite_url)
    return sqlite_url


def test_themes_lists_counts_as_search_finds_them(collection: str) -> None:
    counts = json.loads(studydb("themes", "--db", collection, "-f", "json"))
    assert counts and counts == sorted(counts, key=lambda c: (-c["studies"], c["theme"]))
    for item in counts[:3] + counts[-1:]:
        found = studydb("search", "--theme", item["theme"], "--count", "--db", collection)
        assert int(found) == item["studies"], item
    table = studydb("themes", "--db", collection)
    assert re.search(
        rf"stalemate\s+│\s+{dict((c['theme'], c['studies']) for c in counts)['stalemate']}", table
    )
    draws = json.loads(studydb("themes", "--stipulation", "draw", "--db", collection, "-f", "json"))
    assert {c["theme"] for c in draws} <= {c["theme"] for c in counts}


def test_no_theme_among_the_studies_selected_is_not_a_database_without_themes(
    classics_sqlite: str, tmp_path: Path
) -> None:
    # `themes --composer zzzz` on an indexed collection advised "import with the moves
    # replayed, or run studydb index", as if the database had no themes.
    result = runner.invoke(app, ["themes", "--composer", "zzzz", "--db", classics_sqlite])
    assert result.exit_code == 0, result.output
    assert result.stderr == "No themes in the studies selected.\n"
    bare = str(tmp_path / "bare.sqlite")
    studydb("import", str(CLASSICS), "--positions", "none", "--db", bare)
    for args in ([], ["--composer", "kubbel"]):
        result = runner.invoke(app, ["themes", *args, "--db", bare])
        assert result.exit_code == 0, result.output
        assert "run studydb index" in result.stderr


def test_search_by_two_themes_and_a_bad_one(collection: str) -> None:
    both = studydb(
        "search", "--theme", "underpromotion", "-t", "switchback", "--db", collection, "-f", "json"
    )
    assert [row["composers"] for row in json.loads(both)] == [
        ["Barbier, Georges Emile", "Saavedra, Fernando"]
    ]
    message = studydb("search", "--theme", " ", "--db", collection, code=2)
    assert "--theme" in message


def test_show_says_an_unindexed_study_s_themes_and_shared_positions_were_not_searched(
    db_url: str,
) -> None:
    """A study imported with --positions none was never replayed: show said "none found"
    of the Saavedra's themes and "with 0 other studies" without comparing the 21 others of 5+ men
    not indexed either.  It says what was not searched, until ``studydb index``."""
    studydb("import", str(CLASSICS), "--db", db_url, "--positions", "none")
    shown = studydb("show", "1", "--db", db_url)
    themes = shown[shown.index("\nThemes\n") :]
    assert "none found" not in themes
    assert "(main line not searched for themes: the study is not in the position index" in themes
    # 4 men: none of its positions was compared, whatever the index holds.
    assert "Shares positions: no position compared: it starts with 4 men" in themes
    other = studydb("show", "2", "--db", db_url)  # 5 men and more
    assert "Shares positions (5+ men) with 0 other studies\n  (20 stored studies of 5+ men are" in (
        other
    )
    record = json.loads(studydb("show", "1", "--db", db_url, "-f", "json"))
    assert (record["main_line_searched"], record["themes"], record["not_compared"]) == (
        False,
        [],
        21,
    )
    indexed = studydb("index", "0300.10", "--db", db_url)
    assert re.match(r"indexed 1 study: \d+ positions, ", indexed)
    shown = studydb("show", "1", "--db", db_url)
    assert "underpromotion   6.c8=R, ply 11: R" in shown and "not searched" not in shown
    other = studydb("show", "2", "--db", db_url)
    assert "(20 stored studies of 5+ men are not in the position index" in other
    studydb("index", "--db", db_url)
    assert "not compared" not in studydb("show", "2", "--db", db_url)
    record = json.loads(studydb("show", "1", "--db", db_url, "-f", "json"))
    assert (record["main_line_searched"], record["not_compared"]) == (True, 0)


def test_show_says_how_far_a_broken_main_line_was_searched_for_themes(
    sqlite_url: str, tmp_path: Path
) -> None:
    """A main line that breaks off at an illegal move is searched for themes up to it:
    show said "none found" of a Saavedra whose 6.Qc8 (for c8=R) is illegal, as if the
    whole line had been searched."""
    pgn = tmp_path / "broken.pgn"
    start = '[Event "{}"]\n[Result "1-0"]\n[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n'
    moves = "1. c7 Rd6+ 2. Kb5 Rd5+ 3. Kb4 Rd4+ 4. Kb3 Rd3+ 5. Kc2 Rd4 6. {} Ra4 7. Kb3 1-0"
    pgn.write_text(
        start.format("main")
        + moves.format("Qc8")
        + "\n\n"
        + start.format("variation")
        + moves.format("c8=R (6. Qc8)")
        + "\n"
    )
    studydb("import", str(pgn), "--db", sqlite_url)
    shown = studydb("show", "1", "--db", sqlite_url)
    themes = shown[shown.index("\nThemes\n") :]
    assert "none found" not in themes
    assert "(main line searched for themes up to ply 10 only: ply 11 is illegal)" in themes
    other = studydb("show", "2", "--db", sqlite_url)  # the variation's move is the illegal one
    assert "underpromotion   6.c8=R, ply 11: R" in other and "searched" not in other
    # JSON and the study page said the whole line was searched ("none found" on the page).
    record = json.loads(studydb("show", "1", "--db", sqlite_url, "-f", "json"))
    assert (record["main_line_searched"], record["main_line_searched_to"]) == (False, 10)
    whole = json.loads(studydb("show", "2", "--db", sqlite_url, "-f", "json"))
    assert (whole["main_line_searched"], whole["main_line_searched_to"]) == (True, None)


def test_show_lists_the_themes_and_the_zugzwang_search(collection: str, syzygy: str) -> None:
    shown = studydb("show", "1", "--db", collection)
    themes = shown[shown.index("\nThemes\n") :]
    assert "underpromotion   6.c8=R, ply 11: R" in themes
    assert "switchback       7.Kb3, ply 13: Kb3" in themes
    assert "mutual zugzwang not looked for" in themes
    record = json.loads(studydb("show", "1", "--db", collection, "-f", "json"))
    assert record["mutual_zugzwang_tables"] is None
    assert {"name": "underpromotion", "ply": 11, "detail": "R", "source": "auto"} in record[
        "themes"
    ]
    studydb("check", "0300.10", "--db", collection, "--syzygy", syzygy)
    shown = studydb("show", "1", "--db", collection)
    assert "(no mutual zugzwang within the 4-man tables)" in shown


def test_a_mutual_zugzwang_search_says_which_studies_were_never_checked(
    collection: str, syzygy: str
) -> None:
    """Mutual zugzwangs are looked for by ``check`` alone: 'search --theme mutual-zugzwang
    --count' said 0 of the classics, none of them checked, with no word of it."""
    db = collection
    note = "25 of the studies the other filters select were never checked with tables"
    for command in (["search", "--count"], ["stats"], ["themes"]):
        result = runner.invoke(app, [*command, "--theme", "mutual-zugzwang", "--db", db])
        assert result.exit_code == 0, result.output
        assert note in result.stderr, command
        assert "studydb check looks for them" in result.stderr
        plain = runner.invoke(app, [*command, "--theme", "mate", "--db", db])
        assert "checked" not in plain.stderr, command
    studydb("check", "0300.10", "--db", db, "--syzygy", syzygy)
    result = runner.invoke(app, ["search", "-t", "mutual-zugzwang", "--count", "--db", db])
    assert result.stdout == "0\n"
    assert "24 of the studies the other filters select were never checked" in result.stderr
    result = runner.invoke(app, ["search", "-t", "mutual-zugzwang", "0300.10", "--db", db])
    assert "checked" not in result.stderr


def test_stats_charts_the_themes(collection: str) -> None:
    chart = studydb("stats", "--db", collection)
    assert "By theme (studydb themes)" in chart
    data = json.loads(studydb("stats", "--db", collection, "-f", "json"))
    counts = json.loads(studydb("themes", "--db", collection, "-f", "json"))
    assert data["themes"] == [{"theme": c["theme"], "count": c["studies"]} for c in counts]


# -- report -------------------------------------------------------------------------


@pytest.mark.slow
def test_report_markdown_and_json_agree(collection: str, syzygy: str) -> None:
    markdown = studydb("report", str(TOURNEY), "--db", collection, "--syzygy", syzygy)
    data = json.loads(
        studydb("report", str(TOURNEY), "--db", collection, "--syzygy", syzygy, "-f", "json")
    )
    assert markdown.startswith("# Judge’s report: tourney.pgn")
    rows = re.findall(
        r"^\| (\d+) \| .*? \| (\S+) \| (\w*) \| ([\w-]+) \| ([^|]+) \|", markdown, re.M
    )

    def anticipated(entry: dict[str, object]) -> str:
        if entry["anticipated"] is None:  # none of its positions compared: too few men
            return f"not compared ({entry['men']} men)"
        return f"yes, {entry['earliest_year']}" if entry["anticipated"] else "no"

    assert [(int(n), verdict, antic.strip()) for n, _, _, verdict, antic in rows] == [
        (e["number"], e["verdict"], anticipated(e)) for e in data["entries"]
    ]
    assert [e["verdict"] for e in data["entries"]] == ["unchecked", "sound", "duals", "unsound"]


@pytest.mark.slow
def test_report_stores_only_when_asked(collection: str, tmp_path: Path) -> None:
    before = int(studydb("search", "--count", "--db", collection))
    studydb("report", str(TOURNEY), "--db", collection)
    assert int(studydb("search", "--count", "--db", collection)) == before
    done = console_script("report", str(TOURNEY), "--db", collection, "--store", "-f", "json")
    assert "stored 4 entries" in done.stderr
    assert json.loads(done.stdout)["entries"][0]["stored_id"] is None  # reported, then stored
    assert int(studydb("search", "--count", "--db", collection)) == before + 4
    # stored now: each entry knows its copy, which anticipates nothing
    data = json.loads(studydb("report", str(TOURNEY), "--db", collection, "-f", "json"))
    assert all(e["stored_id"] for e in data["entries"])
    assert data["entries"][0]["anticipations"][0]["year"] == 1925


def test_report_store_counts_the_entries_it_rejected(classics_sqlite: str, tmp_path: Path) -> None:
    # "stored 1 entries (0 already stored)" said nothing of the entry the import rejected.
    entries = tmp_path / "entries.pgn"
    entries.write_text(
        '[Event "A"]\n[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n1. c7 *\n\n'
        '[Event "B"]\n[FEN "8/8/8/8/8/8/8/K7 w - - 0 1"]\n\n*\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["report", str(entries), "--db", classics_sqlite, "--store"])
    assert result.exit_code == 1, result.output  # the entry with no usable start position
    assert "stored 1 entries (0 already stored, 1 rejected: studydb rejects lists them)" in (
        result.stderr
    )
    assert f"{entries}:6: bad FEN" in result.stderr  # named, as an unreadable header is


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--engine", STOCKFISH], 2, "--depth"),
        (["--depth", "3"], 2, "need --engine"),
        (["--store", "-"], 2, "--store"),
        (["--syzygy", "/no/such/folder"], 1, "/no/such/folder"),
    ],
)
def test_report_usage_errors(
    classics_sqlite: str, args: list[str], code: int, message: str
) -> None:
    entries = "-" if "-" in args else str(TOURNEY)
    args = [a for a in args if a != "-"]
    error = studydb("report", entries, *args, "--db", classics_sqlite, code=code)
    assert message in error


@pytest.mark.parametrize("command", ["report", "check"])
def test_the_engine_is_taken_from_the_environment_by_both_commands(
    classics_sqlite: str, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """$STUDYDB_ENGINE is --engine for report as for check: without a limit, a usage error."""
    monkeypatch.setenv("STUDYDB_ENGINE", STOCKFISH)
    monkeypatch.setenv("STUDYDB_SYZYGY", "/no/such/folder")
    first = [str(TOURNEY)] if command == "report" else []
    error = studydb(command, *first, "--db", classics_sqlite, code=2)
    assert "exactly one of --depth N or --movetime MS" in error
    monkeypatch.delenv("STUDYDB_ENGINE")
    error = studydb(command, *first, "--movetime", "5", "--db", classics_sqlite, code=2)
    assert "need --engine PATH (or $STUDYDB_ENGINE)" in error


def test_report_on_a_missing_file(classics_sqlite: str, tmp_path: Path) -> None:
    error = studydb("report", str(tmp_path / "none.pgn"), "--db", classics_sqlite, code=1)
    assert "none.pgn" in error


def test_report_on_a_file_of_no_game_says_so(classics_sqlite: str, tmp_path: Path) -> None:
    # The wrong file gave a report of '0 entries' and nothing else to notice.
    (tmp_path / "empty.pgn").write_text("")
    result = runner.invoke(app, ["report", str(tmp_path / "empty.pgn"), "--db", classics_sqlite])
    assert result.exit_code == 0 and "0 entries" in result.stdout
    assert (
        result.stderr
        == f"studydb: note: {tmp_path / 'empty.pgn'} holds no game: no entry to report\n"
    )


@pytest.mark.slow
def test_report_with_an_engine(classics_sqlite: str, syzygy: str) -> None:
    require(shutil.which(STOCKFISH) is not None, f"{STOCKFISH} is not installed")
    data = json.loads(
        studydb(
            "report",
            str(TOURNEY),
            "--db",
            classics_sqlite,
            "--syzygy",
            syzygy,
            "--engine",
            STOCKFISH,
            "--depth",
            "8",
            "-f",
            "json",
        )
    )
    assert data["engine"].endswith("depth=8")
    kubbel = data["entries"][0]["soundness"]
    assert kubbel["verdict"] != "unchecked" and "by engine" in kubbel["checked_with"]


# -- the HTML in the real browser -------------------------------------------------------


REPORT_ARGS = ("--min-men", "3", "--before", "3000")


@pytest.fixture
def html_report(classics_sqlite: str, syzygy: str, tmp_path: Path) -> Path:
    path = tmp_path / "report.html"
    done = console_script(
        "report",
        str(CLASSICS),
        "--db",
        classics_sqlite,
        "--syzygy",
        syzygy,
        "--html",
        str(path),
        *REPORT_ARGS,
    )
    assert done.stdout == "" and f"report on 25 entries written to {path}" in done.stderr
    return path


def page_texts(pdf: Path) -> list[list[str]]:
    """The non-empty lines of each page of a PDF (poppler's pdftotext)."""
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    count = int(re.search(r"Pages:\s+(\d+)", info.stdout).group(1))
    pages = []
    for page in range(1, count + 1):
        text = subprocess.run(
            ["pdftotext", "-f", str(page), "-l", str(page), str(pdf), "-"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        pages.append([line.strip() for line in text.splitlines() if line.strip()])
    return pages


@pytest.mark.slow
def test_printed_report_keeps_each_entry_on_one_page(
    html_report: Path, classics_sqlite: str, syzygy: str, tmp_path: Path
) -> None:
    """Printed by Chromium: after the summary, every page begins with an entry's heading."""
    require(CHROMIUM.exists(), f"{CHROMIUM} is absent (Debian package chromium)")
    require(shutil.which("pdftotext") is not None, "pdftotext is absent (poppler-utils)")
    pdf = tmp_path / "report.pdf"
    subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-pdf-header-footer",
            f"--print-to-pdf={pdf}",
            html_report.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )
    data = json.loads(
        studydb(
            "report",
            str(CLASSICS),
            "--db",
            classics_sqlite,
            "--syzygy",
            syzygy,
            "-f",
            "json",
            *REPORT_ARGS,
        )
    )
    headings = {
        e["number"]: f"{e['number']}. {(e['composers'] or ['composer unknown'])[0]}"
        for e in data["entries"]
    }
    seen: list[int] = []
    for number, lines in enumerate(page_texts(pdf), 1):
        found = [n for n, h in headings.items() if any(line.startswith(h) for line in lines)]
        if seen or found:  # past the summary: no page may begin inside an entry
            assert found, f"page {number} holds no entry's start: {lines[:3]}"
            assert lines[0].startswith(headings[found[0]]), f"page {number}: {lines[:3]}"
        seen += found
    assert seen == sorted(headings)


@pytest.mark.slow
def test_report_diagrams_are_at_least_4_cm_in_print(html_report: Path) -> None:
    require(CHROMIUM.exists(), f"{CHROMIUM} is absent (Debian package chromium)")
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM))
        try:
            page = browser.new_page()
            requests: list[str] = []
            page.on("request", lambda request: requests.append(request.url))
            page.goto(html_report.as_uri())
            page.emulate_media(media="print")
            widths = page.eval_on_selector_all(
                "figure svg", "svgs => svgs.map(s => s.getBoundingClientRect().width)"
            )
            scripts = page.eval_on_selector_all("script", "s => s.length")
        finally:
            browser.close()
    cm = 96 / 2.54  # CSS pixels per centimetre
    assert widths and min(widths) >= 4 * cm - 0.5
    assert scripts == 0
    assert requests == [html_report.as_uri()]  # nothing else fetched


def test_report_on_a_huge_award_rank_names_the_entry(db_url: str, tmp_path: Path) -> None:
    """A 5,000-digit rank is an unreadable header, as import says: no traceback, exit 1 (#26)."""
    path = tmp_path / "rank.pgn"
    path.write_text(
        f'[Award "{"9" * 5000}th prize"]\n[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n1. c7 *\n\n'
        '[Event "fine"]\n[FEN "8/8/8/8/8/8/R7/K6k w - - 0 1"]\n\n1. Ra8 *\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["report", str(path), "--db", db_url, "-f", "json"])
    assert result.exit_code == 1, result.output
    assert f"{path}:1: unreadable header: Exceeds the limit" in result.stderr
    assert "Traceback" not in result.output
    bad, fine = json.loads(result.stdout)["entries"]
    assert bad["errors"][0].startswith("unreadable header: ")
    assert fine["errors"] == [] and fine["solution"] == "1. Ra8"


def test_report_names_a_damaged_table_once(db_url: str, syzygy: str, tmp_path: Path) -> None:
    tables = tmp_path / "tables"
    tables.mkdir()
    for table in Path(syzygy).iterdir():
        (tables / table.name).symlink_to(table)
    (tables / "KRvK.rtbw").unlink()
    (tables / "KRvK.rtbw").write_bytes(b"")
    path = tmp_path / "one.pgn"
    path.write_text('[Stipulation "+"]\n[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n1. c7 *\n')
    result = runner.invoke(app, ["report", str(path), "--db", db_url, "--syzygy", str(tables)])
    assert result.exit_code == 0, result.output
    warning = f"warning: table file KRvK.rtbw in {tables}: an empty file; counted as missing"
    assert result.stderr.splitlines() == [warning]
