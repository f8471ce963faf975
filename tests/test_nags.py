"""NAGs: the PGN standard's meanings and the printed symbols (studydb.nags)."""

from __future__ import annotations

import doctest

import pytest

from studydb import nags


@pytest.mark.parametrize(
    ("nag", "symbol", "meaning"),
    [
        (1, "!", "good move"),
        (2, "?", "poor move"),
        (3, "!!", "very good move"),
        (4, "??", "very poor move"),
        (5, "!?", "speculative move"),
        (6, "?!", "questionable move"),
        (7, "□", "forced move (all others lose quickly)"),
        (10, "=", "drawish position"),
        (13, "∞", "unclear position"),
        (14, "⩲", "White has a slight advantage"),
        (15, "⩱", "Black has a slight advantage"),
        (16, "±", "White has a moderate advantage"),
        (17, "∓", "Black has a moderate advantage"),
        (18, "+−", "White has a decisive advantage"),
        (19, "−+", "Black has a decisive advantage"),
        (21, "−+", "Black has a crushing advantage (White should resign)"),
        (22, "⨀", "White is in zugzwang"),
        (36, "↑", "White has the initiative"),
        (40, "→", "White has the attack"),
        (132, "⇆", "White has moderate counterplay"),
        (138, "⨁", "White has severe time control pressure"),
        (139, "⨁", "Black has severe time control pressure"),
        (143, "≤", "worse is"),
        (144, "=", "equivalent is"),
    ],
)
def test_symbols_and_meanings(nag: int, symbol: str, meaning: str) -> None:
    assert nags.symbol(nag) == symbol
    assert nags.meaning(nag) == meaning
    assert nags.describe(nag) == symbol


def test_every_standard_nag_has_a_meaning_and_pairs_alternate_colours() -> None:
    assert set(range(140)) <= set(nags.MEANINGS)
    for nag in range(14, 140):
        side = "White" if nag % 2 == 0 else "Black"
        assert nags.meaning(nag).startswith(side), nag
        other = nag + 1 if nag % 2 == 0 else nag - 1
        # A White/Black pair says the same of each side.
        assert nags.meaning(nag).split(" ", 1)[1].replace("Black", "White") == nags.meaning(
            other
        ).split(" ", 1)[1].replace("Black", "White")


def test_nags_without_a_symbol_read_as_words() -> None:
    assert nags.symbol(86) is None
    assert nags.describe(86) == "White has poor knight placement"
    assert nags.describe(250) == nags.meaning(250) == "NAG 250"


def test_move_assessments() -> None:
    assert [n for n in range(200) if nags.is_move_assessment(n)] == list(range(1, 10))


def test_doctests() -> None:
    result = doctest.testmod(nags)
    assert result.attempted > 0 and result.failed == 0
