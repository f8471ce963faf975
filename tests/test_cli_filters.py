"""The filters as command-line options (studydb.cli.filters)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from studydb.cli import app

runner = CliRunner()

#: Filters that take one value, each given twice: the first was dropped without a word,
#: so that ``--pieces Q. --pieces R[a-h]7`` counted the studies of the second alone.
GIVEN_TWICE = [
    (["search", "--pieces", "Q.", "--pieces", "R[a-h]7", "--count"], "--pieces", "'Q.' and"),
    (["search", "--pattern", "8/*/*/*/*/*/*/*", "--pattern", "*/*/*/*/*/*/*/8"], "--pattern", ""),
    (["stats", "--line", "mate", "--line", "stalemate"], "--line", "'mate' and 'stalemate'"),
    (["themes", "--pieces", "K.", "--side-to-move", "w", "--side-to-move", "b"], "--side-", ""),
    (["index", "--position", "8/8/8/8/8/8/8/K1k5 w - - 0 1", "--position", "x"], "--pos", ""),
]


@pytest.mark.parametrize(("args", "option", "quoted"), GIVEN_TWICE, ids=lambda v: str(v))
def test_a_filter_of_one_value_given_twice_is_a_usage_error(
    args: list[str], option: str, quoted: str, tmp_path: Path
) -> None:
    result = runner.invoke(app, [*args, "--db", str(tmp_path / "absent.sqlite")])
    assert result.exit_code == 2, result.output
    assert "given more than once" in result.output and quoted in result.output
    assert f"Invalid value for {option}" in result.output


def test_a_filter_of_one_value_given_once_is_taken(tmp_path: Path) -> None:
    result = runner.invoke(app, ["search", "--pieces", "Q.", "--db", str(tmp_path / "absent")])
    assert result.exit_code == 1 and "no database at" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["stats", "--similar"],
        ["themes", "--side-to-move", "white"],
        ["versions", "--side-to-move", "b"],
    ],
    ids=str,
)
def test_a_modifier_with_nothing_to_modify_is_a_usage_error(
    args: list[str], tmp_path: Path
) -> None:
    """``search`` alone refused it: ``stats --similar`` counted every study."""
    result = runner.invoke(app, [*args, "--db", str(tmp_path / "absent.sqlite")])
    assert result.exit_code == 2, result.output
    assert "needs --position, --pattern or --pieces" in result.output


def test_versions_takes_similar_alone(tmp_path: Path) -> None:
    result = runner.invoke(app, ["versions", "--similar", "--db", str(tmp_path / "absent")])
    assert result.exit_code == 1 and "no database at" in result.output
