"""Statistics (studydb.db.stats) of the whole collection and of a selection, on both engines."""

from __future__ import annotations

import re
from collections import Counter

from helpers import GAMES
from sqlalchemy import Engine

from studydb.db.stats import stats
from studydb.filters import Filters

DRAWS = {e for e, t in GAMES.items() if t.get("Stipulation") == "draw"}
WINS = {e for e, t in GAMES.items() if t.get("Stipulation") == "win"}


def _decades() -> list[tuple[int | None, int]]:
    years = [t["Date"][:4] for t in GAMES.values()]
    counts = Counter(int(y) // 10 * 10 if y.isdigit() else None for y in years)
    return sorted(counts.items(), key=lambda item: (item[0] is None, item[0] or 0))


def test_stats_of_everything(collection: Engine) -> None:
    result = stats(collection, top=3)
    composers = {v for t in GAMES.values() for k, v in t.items() if k.startswith("Composer")}
    assert result.studies == len(GAMES)
    # persons: 'Reti, R.' is Réti, Richard; the ';' credit splits into 3 names
    assert result.composers == len(composers) - 1 + 2
    assert (result.first_year, result.last_year, result.undated) == (1497, 2012, 1)
    assert result.gbr[:2] == [("0009.00", 3), ("0130.00", 2)]
    assert len(result.gbr) == 3 and result.gbr[2][1] == 1
    assert result.decades == _decades()
    assert sum(n for _, n in result.men) == len(GAMES)
    men = Counter(sum(c.isalpha() for c in t["FEN"].split()[0]) for t in GAMES.values())
    assert result.men == sorted(men.items())
    assert dict(result.stipulations) == {"win": len(WINS), "draw": len(DRAWS), None: 3}
    assert [(c.name, c.studies) for c in result.top_composers] == [
        ("Réti, Richard", 3),
        ("Averbakh, Yuri", 2),
        ("Grigoriev, Nikolai", 2),
    ]
    assert result.top_composers[0].variants == ("Reti, R.",)
    data = result.as_dict()
    assert data["studies"] == len(GAMES)
    assert data["gbr"][0] == {"gbr": "0009.00", "count": 3}


def test_stats_of_a_selection(collection: Engine) -> None:
    result = stats(collection, Filters(composers=("kubbel",)))
    assert result.studies == 2
    assert result.composers == 2  # Kubbel and his co-author Troitzky
    assert [(c.name, c.studies, c.variants) for c in result.top_composers] == [
        ("Kubbel, Leonid", 2, ()),
        ("Troitzky, Alexei", 1, ()),
    ]
    assert result.decades == [(1920, 1), (1930, 1)]
    empty = stats(collection, Filters(composers=("nobody",)))
    assert (empty.studies, empty.composers, empty.first_year, empty.gbr) == (0, 0, None, [])


def test_unfiltered_stats_read_no_filter_and_no_decade_expression(collection: Engine) -> None:
    from sqlalchemy import event

    statements: list[str] = []

    def record(conn, cursor, statement, *args) -> None:
        statements.append(statement)

    event.listen(collection, "before_cursor_execute", record)
    try:
        stats(collection)
    finally:
        event.remove(collection, "before_cursor_execute", record)
    assert statements
    for statement in statements:  # but the few entries that are not studies, by id
        statement = re.sub(
            r"studies\.id NOT IN \(SELECT non_studies\.id.*?\)\)", "", statement, flags=re.S
        )
        assert "IN (SELECT" not in statement, statement
        assert not re.search(r"year\s*%", statement), statement  # no year - year % 10
