"""``studydb.db.budget``: a statement running over its time budget is stopped, on both engines."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from starlette.testclient import TestClient

from studydb.db.budget import limit_statements
from studydb.db.connect import create_engine, database_errors, open_read_only, resolve_url
from studydb.errors import DatabaseError, QueryTimeoutError
from studydb.web import create_app

ENDLESS = {
    "sqlite": "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)"
    " SELECT max(i) FROM n",
    "postgresql": "SELECT pg_sleep(600)",
}


@pytest.mark.slow
@pytest.mark.parametrize("engine_name", ["sqlite", "postgresql"])
def test_an_endless_query_is_stopped(engine_name: str, request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue("sqlite_url" if engine_name == "sqlite" else "pg_url")
    engine = limit_statements(create_engine(resolve_url(url)), seconds=0.2)
    with (
        pytest.raises(QueryTimeoutError, match="ran over its time budget") as caught,
        database_errors(engine),
        engine.connect() as conn,
    ):
        conn.execute(text(ENDLESS[engine_name]))
    assert isinstance(caught.value, DatabaseError) and isinstance(caught.value, TimeoutError)
    with engine.connect() as conn:  # the connection is usable again, and quick queries pass
        assert conn.execute(text("SELECT 1")).scalar() == 1
    engine.dispose()


def test_queries_within_the_budget_answer(sqlite_url: str) -> None:
    engine = limit_statements(create_engine(resolve_url(sqlite_url)), seconds=60)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM (SELECT 1 UNION SELECT 2)")).scalar() == 2


def test_other_errors_stay_database_errors(sqlite_url: str) -> None:
    engine = limit_statements(create_engine(resolve_url(sqlite_url)), seconds=60)
    with pytest.raises(DatabaseError) as caught, database_errors(engine), engine.connect() as conn:
        conn.execute(text("SELECT * FROM nowhere"))
    assert not isinstance(caught.value, QueryTimeoutError)


@pytest.fixture
def starved_client(tmp_path, sqlite_url: str):
    """The web app over a collection whose every statement is over budget at once."""
    from studydb.db.connect import open_database

    open_database(sqlite_url).dispose()
    engine = limit_statements(open_read_only(sqlite_url), seconds=0, steps=1)
    with TestClient(create_app(engine)) as client:
        yield client
    engine.dispose()


@pytest.mark.parametrize(
    ("path", "param"),
    [
        ("/stats?" + "&".join(f"composer=name{i}" for i in range(50)), "composer"),
        ("/search?material=0300.10&composer=reti&composer=kubbel", "composer"),
        ("/search?material=0300.10", "material"),
    ],
)
def test_the_web_answers_503_naming_the_filter(starved_client, path: str, param: str) -> None:
    page = starved_client.get(path)
    assert page.status_code == 503
    assert f"<code>{param}</code>" in page.text and "narrow the search" in page.text
    api = starved_client.get("/api/search?" + path.split("?", 1)[1])
    assert api.status_code == 503
    assert api.json()["param"] == param
    assert "took longer than this server allows" in api.json()["error"]


def test_an_export_over_budget_is_a_503_page_not_a_cut_stream(tmp_path) -> None:
    """The count passes, the export's own query runs over budget before its first piece:
    a 503 with its page (it was a 200 whose body broke off, and a traceback)."""
    from helpers import CLASSICS

    from studydb.db.connect import open_database
    from studydb.db.importer import import_paths

    path = tmp_path / "c.sqlite"
    writable = open_database(path)
    import_paths(writable, [CLASSICS])
    writable.dispose()
    engine = limit_statements(open_read_only(path), seconds=0, steps=1000)  # count: fewer
    with TestClient(create_app(engine)) as client:
        assert client.get("/api/search?material=0300.10").status_code == 200  # count, 1 row
        answer = client.get("/export.pgn")
        assert answer.status_code == 503, answer.text[:200]
        assert "took longer than this server allows" in answer.text
        again = client.get("/export.csv")  # the export's place was given back
        assert again.status_code == 503
    engine.dispose()
