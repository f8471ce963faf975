"""``studydb check`` from the command line, and what search/show/stats make of its verdicts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import CLASSICS, CRAFTED, STUDYDB, crafted_pgn, require, run_on_terminal
from typer.testing import CliRunner

from studydb.cli import app

runner = CliRunner()
STOCKFISH = "/usr/games/stockfish"

KQK = "8/8/8/8/8/2k5/8/KQ6 w - - 0 1"
KRK = "8/8/8/8/8/2k5/7R/K7 w - - 0 1"
SAAVEDRA = "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"


@pytest.fixture
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STUDYDB_SYZYGY", raising=False)
    monkeypatch.delenv("STUDYDB_ENGINE", raising=False)


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


# -- one position -----------------------------------------------------------------------


def test_fen_claimed_draw_in_won_kqk(syzygy: str, no_env: None) -> None:
    out = invoke("check", "--fen", KQK, "--stipulation", "draw", "--syzygy", syzygy)
    assert out.splitlines()[0] == "verdict: unsound"
    assert "claimed draw, but the tables give the solver a win at ply 0" in out
    assert "  claim (draw) checked by the tables at ply 0: the solver has a win" in out


def test_fen_with_moves_marks_the_first_error(syzygy: str, no_env: None) -> None:
    out = invoke(
        "check", "--fen", KRK, "-s", "win", "--moves", "1. Rh3+ Kd4 2. Rd3+ Kxd3",
        "--syzygy", syzygy,
    )  # fmt: skip
    lines = out.splitlines()
    assert lines[0] == "verdict: unsound"
    [error] = [line for line in lines if "first solution error" in line]
    assert error.startswith("  2. Rd3+ (draw; ERROR: throws the win away")
    [weak] = [line for line in lines if line.startswith("  1... Kd4")]
    assert "WEAK DEFENCE: loses faster than the best defence" in weak


def test_fen_annotates_duals_as_in_the_issue(syzygy: str, no_env: None) -> None:
    out = invoke(
        "check", "--fen", SAAVEDRA, "-s", "win", "--syzygy", syzygy,
        "--moves", "1. c7 Rd6+ 2. Kb5 Rd5+ 3. Kb4 Rd4+ 4. Kb3",
    )  # fmt: skip
    assert "  3. Kb4 (win, DTZ 6; also Kb6 DTZ 10)" in out.splitlines()
    assert "  4. Kb3 (win, DTZ 4; also Kc3 DTZ 4 (as fast), Kb5 DTZ 8)" in out.splitlines()
    assert out.splitlines()[0] == "verdict: sound"


def test_fen_moves_as_in_a_pgn_file(syzygy: str, no_env: None) -> None:
    """Annotations, NAGs, comments and move numbers (#26: 'c7!' was 'not legal')."""
    out = invoke("check", "--fen", SAAVEDRA, "-s", "win", "--syzygy", syzygy,
                 "--moves", "1. c7! {the point} Rd6+ 2. Kb5! $1 (2. Kc5?? Rd1)")  # fmt: skip
    lines = out.splitlines()
    assert lines[0] == "verdict: sound"
    assert [line.split(" (")[0] for line in lines[-3:]] == ["  1. c7", "  1... Rd6+", "  2. Kb5"]
    line = "1. c7! Rd6+ 2. Kb5! (2. Kc5?? Rd1 3. Kb4) Rd5+"
    tries = invoke("check", "--fen", SAAVEDRA, "-s", "win", "--syzygy", syzygy, "--variations",
                   "--moves", line, "-f", "json")  # fmt: skip
    assert any("try" in p["flags"] for p in json.loads(tries)["plies"])


def test_fen_json(syzygy: str, no_env: None) -> None:
    out = invoke("check", "--fen", "8/1k6/8/4P3/2K5/8/8/8 w - - 0 1", "-s", "win",
                 "--syzygy", syzygy, "--format", "json")  # fmt: skip
    report = json.loads(out)
    assert report["verdict"] == "duals"
    assert sorted(a["san"] for a in report["solutions"]) == ["Kc5", "Kd5"]


@pytest.mark.parametrize(
    ("fen", "stipulation", "first", "said"),
    [
        ("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1", "draw", "verdict: unchecked",
         "game over at the start: checkmate"),
        ("k7/8/1Q6/8/8/8/8/7K b - - 0 1", "draw", "verdict: unchecked",
         "game over at the start: stalemate"),
        ("k7/8/1Q6/8/8/8/8/7K b - - 0 1", "win", "verdict: unchecked",
         "game over at the start: stalemate"),
        ("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "win", "verdict: unchecked",
         "not judged by the tables: castling rights"),
        (SAAVEDRA, "mate", "verdict: sound", "win confirmed; the mate's length was not checked"),
        (KQK, "#1", "verdict: duals", "first moves keeping the mate"),
        ("1k6/1p6/8/8/8/8/1R6/3K2n1 w - - 0 1", "draw", "verdict: unchecked",
         "5 men at the start, beyond the 4-man tables, and no engine"),
    ],
)  # fmt: skip
def test_fen_verdict_says_why(
    syzygy: str, no_env: None, fen: str, stipulation: str, first: str, said: str
) -> None:
    out = invoke("check", "--fen", fen, "-s", stipulation, "--syzygy", syzygy)
    assert out.splitlines()[0] == first
    assert said in out


def test_fen_no_errors_from_a_later_move(syzygy: str, no_env: None) -> None:
    out = invoke("check", "--fen", "1k6/1p6/8/8/8/8/1R6/3K2n1 w - - 0 1", "-s", "draw",
                 "--moves", "1. Rxb7+ Kxb7", "--syzygy", syzygy)  # fmt: skip
    lines = out.splitlines()
    assert lines[:3] == [
        "verdict: no-errors",
        "  no errors found from move 1...",
        "  5 men at the start, beyond the 4-man tables, and no engine",
    ]
    fen = "1k6/1p6/8/8/8/8/1R6/3K2n1 w - - 0 1"
    data = json.loads(
        invoke("check", "--fen", fen, "-s", "draw", "--moves", "1. Rxb7+ Kxb7", "--syzygy", syzygy,
               "-f", "json")
    )  # fmt: skip
    assert (data["verdict"], data["checked_from"], data["summary"]) == (
        "no-errors", 1, "no errors found from move 1...",
    )  # fmt: skip


def test_tables_from_the_environment(syzygy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUDYDB_SYZYGY", f"/nonexistent-first:{syzygy}")
    result = runner.invoke(app, ["check", "--fen", KQK, "-s", "win"])
    assert result.exit_code == 2, result.output  # the first folder does not exist
    assert "syzygy folder '/nonexistent-first' does not exist" in result.output
    monkeypatch.setenv("STUDYDB_SYZYGY", syzygy)
    assert invoke("check", "--fen", KQK, "-s", "win").startswith("verdict: duals")


def test_without_tables_says_how_to_get_them(no_env: None, tmp_path: Path) -> None:
    result = runner.invoke(app, ["check", "--fen", KQK, "-s", "win"])
    assert result.exit_code == 2
    assert "no tablebases" in result.output and "--syzygy DIR" in result.output
    empty = runner.invoke(app, ["check", "--fen", KQK, "-s", "win", "--syzygy", str(tmp_path)])
    assert empty.exit_code == 2
    assert f"no Syzygy tables in {tmp_path}" in empty.output
    collection = runner.invoke(app, ["check", "--db", str(tmp_path / "x.sqlite")])
    assert collection.exit_code == 2 and "no tablebases" in collection.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fen", "8/8/8/8/8/8/8/8 w - - 0 1", "-s", "win"], "illegal position"),
        (["--fen", "8/8/8/8/8/8/8/Kk6 w - - 0 1", "-s", "win"], "the kings are adjacent"),
        (["--fen", "not a fen", "-s", "win"], "bad FEN 'not a fen'"),
        (["--fen", KQK], "--fen needs one --stipulation"),
        (["--fen", KQK, "-s", "win", "--moves", "1. Qh7 Kxh7"], "--moves: illegal san: 'Kxh7'"),
        # Text that is no move once shortened the solution checked, silently (verdict duals).
        (["--fen", KQK, "-s", "win", "--moves", "1. Qh7 Zz9"], "'Zz9' at character 8 is not"),
        (["--fen", KQK, "-s", "win", "--moves", "1. Qh7+ hello"], "'hello' at character 9 is not"),
        (["--moves", "1. e4"], "--moves needs --fen"),
        (["--fen", KQK, "-s", "win", "--depth", "3"], "--depth and --movetime need --engine"),
        (["--fen", KQK, "-s", "win", "--engine", STOCKFISH], "exactly one of --depth"),
        (["--verdict", "cooked"], "unknown verdict 'cooked'"),
    ],
)
def test_usage_errors(syzygy: str, no_env: None, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["check", "--syzygy", syzygy, *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_damaged_tables_are_named_once_and_the_run_goes_on(
    db_url: str, syzygy: str, no_env: None, tmp_path: Path
) -> None:
    tables = tmp_path / "tables"
    tables.mkdir()
    for table in Path(syzygy).iterdir():
        (tables / table.name).symlink_to(table)
    (tables / "KRvK.rtbw").unlink()
    (tables / "KRvK.rtbw").write_bytes(b"")
    invoke("import", str(crafted_pgn(tmp_path / "crafted.pgn")), "--db", db_url)
    result = runner.invoke(app, ["check", "--db", db_url, "--syzygy", str(tables)])
    assert result.exit_code == 0, result.output
    warning = f"warning: table file KRvK.rtbw in {tables}: an empty file; counted as missing"
    assert result.stderr.splitlines().count(warning) == 1
    assert "checked 5 of 5 studies" in result.stdout and "Traceback" not in result.output
    assert "2\tunsound: no table at the start: did not find wdl table KRvK" in result.stdout
    gaps = "4\tno-errors: no errors found in the positions checked from move 1; not every "
    assert gaps in result.stdout
    one = runner.invoke(app, ["check", "--fen", KRK, "-s", "win", "--syzygy", str(tables)])
    assert one.exit_code == 0 and warning in one.stderr


def test_check_ids_as_show_takes_them(db_url: str, syzygy: str, no_env: None, tmp_path: Path):
    invoke("import", str(crafted_pgn(tmp_path / "crafted.pgn")), "--db", db_url)
    lines = invoke("check", "2", "4", "--db", db_url, "--syzygy", syzygy).splitlines()
    assert [line.split("\t")[0] for line in lines[:-1]] == ["2", "4"]
    assert lines[-1].startswith("checked 2 of 2 studies")
    both = invoke("check", "3", "0300", "--recheck", "--db", db_url, "--syzygy", syzygy)
    assert both.splitlines()[-1].startswith("checked 0 of 0 studies")  # 3 is KPvK, not 0300
    gbr = invoke("check", "0300", "--recheck", "--db", db_url, "--syzygy", syzygy)
    assert gbr.splitlines()[-1].startswith("checked 1 of 1 studies")  # a GBR code still
    missing = runner.invoke(app, ["check", "99", "--db", db_url, "--syzygy", syzygy])
    assert missing.exit_code == 1 and "no study with id 99" in missing.output
    huge = runner.invoke(app, ["check", "9" * 23, "--db", db_url, "--syzygy", syzygy])
    assert huge.exit_code == 1 and f"no study with id {'9' * 23}" in huge.output


def test_engine_that_cannot_start(syzygy: str, no_env: None, tmp_path: Path) -> None:
    result = runner.invoke(app, ["check", "--fen", KQK, "-s", "win", "--syzygy", syzygy,
                                 "--engine", str(tmp_path / "nope"), "--depth", "2"])  # fmt: skip
    assert result.exit_code == 1
    assert "cannot start the engine" in result.output


# -- a collection -------------------------------------------------------------------------


@pytest.mark.slow  # 1.5 s or more on a busy machine
def test_collection_check_show_search_stats(
    db_url: str, syzygy: str, no_env: None, tmp_path: Path
) -> None:
    invoke("import", str(crafted_pgn(tmp_path / "crafted.pgn")), "--db", db_url)
    lines = invoke("check", "--db", db_url, "--syzygy", syzygy).splitlines()
    assert (
        lines[1] == "2\tunsound: solution error at ply 3 (Rd3+); claim checked at ply 0; "
        "weak defence at ply 2; tables 4 plies, engine 0"
    )
    assert lines[4] == (
        "5\tunchecked: 5 men at the start, beyond the 4-man tables, and no engine; "
        "tables 0 plies, engine 0"
    )
    assert lines[-1].startswith("checked 5 of 5 studies (0 already checked")
    again = invoke("check", "--db", db_url, "--syzygy", syzygy)
    assert again.startswith("checked 0 of 5 studies (5 already checked")

    shown = invoke("show", "2", "--db", db_url)
    assert "Soundness: unsound" in shown
    assert "claim checked at ply 0" in shown
    assert (
        "  2. Rd3+ (draw; ERROR: throws the win away: 2.Rd3+? draws: 2…Kxd3!; 2.Kb2 wins "
        "(or 13 more))  <-- first solution error" in shown.splitlines()
    )
    data = json.loads(invoke("show", "3", "--db", db_url, "--format", "json"))
    assert data["check"]["verdict"] == "duals"

    found = json.loads(invoke("search", "--verdict", "unsound", "--db", db_url, "-f", "json"))
    assert sorted(r["id"] for r in found) == [1, 2]
    count = invoke("search", "--verdict", "sound", "--verdict", "duals", "--count", "--db", db_url)
    assert count.strip() == "2"
    stats = json.loads(invoke("stats", "--db", db_url, "--format", "json"))
    assert {d["verdict"]: d["count"] for d in stats["verdicts"]} == {
        "unsound": 2, "duals": 1, "sound": 1, "unchecked": 1,
    }  # fmt: skip
    assert "By soundness verdict" in invoke("stats", "--db", db_url)


def test_doctests() -> None:
    import doctest

    from studydb.cli import check

    result = doctest.testmod(check)
    assert result.failed == 0 and result.attempted >= 1  # annotated_lines moved to soundness


def test_collection_jsonl_and_json(sqlite_url: str, syzygy: str, no_env: None, tmp_path: Path):
    invoke("import", str(crafted_pgn(tmp_path / "crafted.pgn")), "--db", sqlite_url)
    result = runner.invoke(app, ["check", "--db", sqlite_url, "--syzygy", syzygy, "-f", "jsonl"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["verdict"] for r in rows] == ["unsound", "unsound", "duals", "sound", "unchecked"]
    assert "checked 5 of 5" in result.stderr
    whole = json.loads(invoke("check", "--db", sqlite_url, "--syzygy", syzygy, "--recheck",
                              "-f", "json", "--variations"))  # fmt: skip
    assert [r["id"] for r in whole] == [1, 2, 3, 4, 5]
    empty = json.loads(
        invoke("check", "--db", sqlite_url, "--syzygy", syzygy, "-f", "json", "--variations")
    )
    assert empty == []


# -- the installed script --------------------------------------------------------------------


@pytest.mark.slow
def test_installed_script_end_to_end(syzygy: str, tmp_path: Path) -> None:
    env = {**os.environ, "STUDYDB_DB": str(tmp_path / "s.sqlite"), "STUDYDB_SYZYGY": syzygy}
    env.pop("STUDYDB_ENGINE", None)

    def run(*args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([str(STUDYDB), *args], capture_output=True, text=True, env=env)
        assert done.returncode == code, done.stderr
        return done

    run("import", str(crafted_pgn(tmp_path / "crafted.pgn")))
    out = run("check", "--jobs", "2").stdout
    assert out.splitlines()[-1].startswith("checked 5 of 5 studies")
    assert sorted(run("search", "--verdict", "unsound", "-f", "fen").stdout.splitlines()) == [
        CRAFTED["KRvK error at ply 3"][0],
        CRAFTED["claimed draw, won KQvK"][0],
    ]
    one = run("check", "--fen", KQK, "--stipulation", "draw").stdout
    assert one.startswith("verdict: unsound")
    del env["STUDYDB_SYZYGY"]
    missing = run("check", "--fen", KQK, "--stipulation", "draw", code=2)
    assert "no tablebases" in missing.stderr and "Traceback" not in missing.stderr


@pytest.mark.slow
def test_installed_script_with_stockfish(syzygy: str, tmp_path: Path) -> None:
    require(shutil.which(STOCKFISH) is not None, f"{STOCKFISH} is not installed")
    env = {**os.environ, "STUDYDB_SYZYGY": syzygy, "STUDYDB_ENGINE": STOCKFISH}
    cook = subprocess.run(
        [str(STUDYDB), "check", "--fen", "6k1/5ppp/8/8/8/8/5PPP/3RR1K1 w - - 0 1", "-s", "win",
         "--moves", "1. Rd8#", "--depth", "10", "-f", "json"],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    report = json.loads(cook.stdout)
    assert report["verdict"] == "doubts"
    assert report["plies"][0]["flags"] == ["cook"] and report["plies"][0]["depth"] == 10
    assert report["engine"].endswith("depth=10")
    sound = subprocess.run(
        [str(STUDYDB), "check", "--fen", "3q2k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "-s", "win",
         "--moves", "1. Rxd8#", "--depth", "10"],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    assert sound.stdout.startswith("verdict: sound")


@pytest.mark.slow
def test_progress_bar_on_a_terminal(syzygy: str, tmp_path: Path) -> None:
    """With stderr on a terminal, check shows studies done of studies to do."""

    db = str(tmp_path / "t.sqlite")
    env = {**os.environ, "STUDYDB_SYZYGY": syzygy}
    env.pop("STUDYDB_ENGINE", None)
    subprocess.run([str(STUDYDB), "import", str(CLASSICS), "--db", db], check=True, env=env,
                   capture_output=True)  # fmt: skip
    code, shown, out = run_on_terminal([str(STUDYDB), "check", "--db", db], env=env)
    assert code == 0
    assert "25/25" in shown
    assert b"checked 25 of 25 studies" in out


# -- engines that fail ---------------------------------------------------------------------

ENGINES = Path(__file__).parent / "engines"
COOKS = (
    '[Stipulation "+"]\n[FEN "6k1/5ppp/8/8/8/8/5PPP/3RR1K1 w - - 0 1"]\n\n1. Rd8# *\n\n'
    '[Stipulation "+"]\n[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n1. c7 *\n\n'
    '[Stipulation "+"]\n[FEN "3q2k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"]\n\n1. Rxd8# *\n'
)


@pytest.mark.slow
def test_a_dying_engine_is_recorded_and_the_run_goes_on(
    db_url: str, syzygy: str, no_env: None, tmp_path: Path
) -> None:
    require(shutil.which(STOCKFISH) is not None, f"{STOCKFISH} is not installed")
    path = tmp_path / "cooks.pgn"
    path.write_text(COOKS, encoding="utf-8")
    invoke("import", str(path), "--db", db_url)
    result = runner.invoke(app, ["check", "--db", db_url, "--syzygy", syzygy, "--engine",
                                 str(ENGINES / "dies.py"), "--movetime", "20"])  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("1\tunchecked: 10 men at the start, beyond the 4-man tables; "
                               "engine failed: the engine stopped")  # fmt: skip
    assert lines[1].startswith("2\tsound: ")  # within the tables
    assert lines[2].startswith("3\tunchecked: ")
    assert "checked 3 of 3 studies" in lines[-1]
    shown = invoke("show", "1", "--db", db_url)
    assert "engine failed: the engine stopped" in shown


@pytest.mark.slow
def test_ctrl_c_stops_a_check_whose_engine_hangs(syzygy: str, tmp_path: Path) -> None:
    """Every engine call is bounded: Ctrl-C ends the run after the batch in hand."""
    import signal

    require(shutil.which(STOCKFISH) is not None, f"{STOCKFISH} is not installed")
    path = tmp_path / "cooks.pgn"
    fens = ["6k1/5ppp/8/8/8/8/5PPP/3RR1K1", "6k1/5ppp/8/8/8/7P/5PP1/3RR1K1",
            "6k1/5pp1/7p/8/8/8/5PPP/3RR1K1", "6k1/6pp/5p2/8/8/8/5PPP/3RR1K1"]  # fmt: skip
    path.write_text(
        "\n".join(f'[Stipulation "+"]\n[FEN "{fen} w - - 0 1"]\n\n1. Rd8# *\n' for fen in fens),
        encoding="utf-8",
    )
    db = str(tmp_path / "h.sqlite")
    env = {**os.environ, "STUDYDB_SYZYGY": syzygy}
    env.pop("STUDYDB_ENGINE", None)
    subprocess.run([str(STUDYDB), "import", str(path), "--db", db], check=True, env=env,
                   capture_output=True)  # fmt: skip
    process = subprocess.Popen(
        [str(STUDYDB), "check", "--db", db, "--engine", str(ENGINES / "hangs.py"),
         "--movetime", "20", "--batch-size", "1"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    first = process.stdout.readline()  # the first study is done: the run is under way
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "interrupted:" in err and "Traceback" not in err
    assert "engine failed: no answer in 1.2 s" in first
    assert "checked 4 of 4" not in out and "of 4 studies" in out
