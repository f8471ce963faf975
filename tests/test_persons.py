"""The register of persons on both engines: grouping at import, decisions, the file, search."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import BROTHERS, TROITSKY, credits_pgn, downgrade
from sqlalchemy import Engine, select

from studydb.db import persons, search, stats
from studydb.db.connect import open_database
from studydb.db.importer import import_paths
from studydb.db.models import Composer
from studydb.errors import ComposerError
from studydb.filters import Filters


@pytest.fixture
def engine(db_url: str) -> Engine:
    return open_database(db_url)


def load(engine: Engine, tmp_path: Path, text: str, name: str = "s.pgn") -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    summary = import_paths(engine, [path], jobs=1)
    assert not summary.failures, summary


def groups(engine: Engine) -> set[frozenset[str]]:
    return {frozenset(n for n, _ in p.variants) for p in persons.list_persons(engine)}


def studies_found(engine: Engine, name: str) -> int:
    return search.count(engine, Filters(composers=(name,)))


def test_brothers_are_kept_apart_and_a_surname_alone_waits_for_review(
    engine: Engine, tmp_path: Path
) -> None:
    load(engine, tmp_path, BROTHERS)
    assert groups(engine) == {
        frozenset({"Platov, Mikhail", "M. Platov"}),
        frozenset({"Platov, Vasily", "V. Platov"}),
        frozenset({"Platov"}),
        frozenset({"A. Sarychev", "Sarychev, Alexander"}),
        frozenset({"K. Sarychev", "Sarychev, Kirill"}),
        frozenset({"Sarychev"}),
    }
    assert studies_found(engine, "Mikhail Platov") == 2
    assert studies_found(engine, "Kirill Sarychev") == 2  # his and the joint study
    assert studies_found(engine, "platov") == 5


def test_spellings_of_one_person_are_merged_and_found_by_any_of_them(
    engine: Engine, tmp_path: Path
) -> None:
    load(engine, tmp_path, TROITSKY)
    assert frozenset(
        {"Troitsky", "Troitzky, Alexey Alexeyevich", "Troitski", "Troitsky, Alexey Alexeyevich"}
    ) in groups(engine)
    for query in ("troitzky", "Troitsky", "troitskij", "Alexey Troitsky", "A. Troitzky"):
        assert studies_found(engine, query) == 4, query
    assert studies_found(engine, "kasparian") == 1
    assert studies_found(engine, "Richard Reti") == 3
    assert studies_found(engine, "Reti, Richard") == 3
    assert studies_found(engine, "Rudolf Reti") == 0
    (troitsky,) = persons.list_persons(engine, "troitzky")
    assert (troitsky.name, troitsky.studies, troitsky.years) == (
        "Troitsky, Alexey Alexeyevich",
        4,
        "1895-1909",
    )


def test_names_that_differ_only_in_digits_are_distinct_persons_and_found_apart(
    engine: Engine, tmp_path: Path
) -> None:
    credits = [(f"Surname{i:03}, Given{i:03}", 1900 + i) for i in range(40)]
    load(engine, tmp_path, credits_pgn(*credits))
    assert groups(engine) == {frozenset({name}) for name, _ in credits}
    assert studies_found(engine, "Surname007, Given007") == 1
    assert studies_found(engine, "Given007 Surname007") == 1
    assert studies_found(engine, "Surname") == 40  # a part of every name
    (found,) = persons.list_persons(engine, "Surname012, Given012")
    assert (found.name, found.studies) == ("Surname012, Given012", 1)


def test_a_merge_is_kept_across_a_reimport_and_new_names(engine: Engine, tmp_path: Path) -> None:
    load(engine, tmp_path, credits_pgn(("Pogosyants, Ernst", 1960), ("Pogosyants, Ernest", 1970)))
    assert len(groups(engine)) == 2
    [(suggestion, _, _)] = persons.suggestions(engine)
    assert suggestion.evidence[0].startswith("first names alike")
    pid = persons.merge(engine, ["Pogosyants, Ernst", "Pogosyants, Ernest"])
    assert groups(engine) == {frozenset({"Pogosyants, Ernst", "Pogosyants, Ernest"})}
    assert persons.suggestions(engine) == []
    load(engine, tmp_path, credits_pgn(("Pogosyants, Ernst", 1960), ("Pogosyants, Ernest", 1970)))
    load(
        engine,
        tmp_path,
        credits_pgn(("E. Pogosyants", 1975), ("Pogosjants, Ernest", 1980)),
        "b.pgn",
    )
    assert groups(engine) == {
        frozenset(
            {"Pogosyants, Ernst", "Pogosyants, Ernest", "E. Pogosyants", "Pogosjants, Ernest"}
        )
    }
    assert persons.person(engine, pid).studies == 4  # the person kept its id
    assert studies_found(engine, "Ernst Pogosyants") == 4


def test_a_person_s_id_is_never_given_to_another(engine: Engine, tmp_path: Path) -> None:
    """On SQLite a new person took the id of the last one a merge had removed (PostgreSQL
    gives a new one): /composers/ID and the ids 'composers' lists named another person."""
    load(engine, tmp_path, credits_pgn(("Kubbel, Leonid", 1920), ("Troitzky, Alexey", 1910)))
    ids = {p.name: p.id for p in persons.list_persons(engine)}
    last = max(ids.values())
    kept = persons.merge(engine, list(ids))  # the highest id goes
    assert kept != last and persons.person(engine, last) is None
    load(engine, tmp_path, credits_pgn(("Rinck, Henri", 1920)), "more.pgn")
    (new,) = [p.id for p in persons.list_persons(engine) if p.name == "Rinck, Henri"]
    assert new > last


@pytest.mark.slow  # the database's history: a downgrade and an upgrade
def test_db_upgrade_keeps_person_ids_and_gives_none_twice(sqlite_url: str, tmp_path: Path) -> None:
    """Revision 0018 rebuilds SQLite's persons table as AUTOINCREMENT, every id kept."""
    from studydb.db.connect import upgrade

    engine = open_database(sqlite_url)
    load(engine, tmp_path, credits_pgn(("Kubbel, Leonid", 1920), ("Troitzky, Alexey", 1910)))
    downgrade(engine, "0017")
    before = {p.name: p.id for p in persons.list_persons(engine)}
    last = max(before.values())
    upgrade(engine)
    assert {p.name: p.id for p in persons.list_persons(engine)} == before
    with engine.connect() as conn:
        (sql,) = conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE name = 'persons'").one()
    assert "AUTOINCREMENT" in sql
    persons.merge(engine, list(before))
    load(engine, tmp_path, credits_pgn(("Rinck, Henri", 1920)), "more.pgn")
    assert max(p.id for p in persons.list_persons(engine)) > last


def test_split_and_alias(engine: Engine, tmp_path: Path) -> None:
    load(engine, tmp_path, TROITSKY)
    persons.split(engine, "Troitski")
    assert frozenset({"Troitski"}) in groups(engine)
    assert studies_found(engine, "Troitzky, Alexey") == 3
    load(engine, tmp_path, credits_pgn(("Troitski", 1899)), "more.pgn")
    assert frozenset({"Troitski"}) in groups(engine)  # the split outlives an import
    persons.merge(engine, ["Troitski", "Troitsky"])  # changed one's mind: a merge undoes it
    assert frozenset({"Troitski"}) not in groups(engine)
    persons.alias(engine, "Gasparyan, Genrikh", "Kasparyan, Genrikh")
    assert studies_found(engine, "gasparyan") == 1
    load(engine, tmp_path, credits_pgn(("Gasparyan, Genrikh", 1950)), "g.pgn")
    assert studies_found(engine, "kasparyan") == 2


def test_an_alias_that_is_another_persons_surname_joins_its_person_only(
    engine: Engine, tmp_path: Path
) -> None:
    # `composers alias Kubbel "Lasker, Emanuel"` merged Kubbel's person into Lasker's: the
    # surname alone "Kubbel" also joined the one Kubbel with given names, so `--composer
    # "Lasker, Emanuel"` found Kubbel's studies too.
    load(engine, tmp_path, credits_pgn(("Kubbel, Leonid", 1920), ("Lasker, Emanuel", 1890)))
    persons.alias(engine, "Kubbel", "Lasker, Emanuel")
    persons.alias(engine, "L. Kubbel", "Lasker, Emanuel")
    assert groups(engine) == {
        frozenset({"Kubbel, Leonid"}),
        frozenset({"Lasker, Emanuel", "Kubbel", "L. Kubbel"}),
    }
    assert studies_found(engine, "Lasker, Emanuel") == 1
    load(engine, tmp_path, credits_pgn(("Kubel", 1921)), "more.pgn")  # a surname alone
    assert frozenset({"Kubbel, Leonid", "Kubel"}) in groups(engine)


def test_the_register_file_carries_decisions_to_another_database(
    engine: Engine, tmp_path: Path
) -> None:
    load(engine, tmp_path, BROTHERS)
    persons.merge(engine, ["Sarychev", "Sarychev, Kirill"])
    persons.split(engine, "M. Platov")
    exported = json.loads(json.dumps(persons.export_register(engine)))
    assert exported["format"] == "studydb-composers"
    other = open_database(tmp_path / "other.sqlite")
    load(other, tmp_path, BROTHERS)
    assert persons.import_register(other, exported) == 2
    assert groups(other) == groups(engine)
    assert persons.import_register(other, exported) == 0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "not a studydb composers file"),
        ({"format": "studydb-composers", "version": 9}, "register version 9"),
        (
            {"format": "studydb-composers", "version": 1, "decisions": [{"kind": "marry"}]},
            "decision 1 is not a kind",
        ),
    ],
)
def test_a_bad_register_file_is_refused(data: object, message: str, sqlite_url: str) -> None:
    with pytest.raises(ComposerError, match=message):
        persons.import_register(open_database(sqlite_url), data)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda e: persons.merge(e, ["Platov", "nobody at all"]), "no composer named"),
        (lambda e: persons.merge(e, ["sarych", "Platov"]), "names several persons"),
        (lambda e: persons.merge(e, ["V. Platov", "Platov, Vasily"]), "already one person"),
        (lambda e: persons.split(e, "Platov"), "only name of its person"),
        (lambda e: persons.merge(e, ["#99999", "Platov"]), "no person with id"),
    ],
)
def test_decisions_about_unknown_or_ambiguous_names_are_refused(
    call, message: str, sqlite_url: str, tmp_path: Path
) -> None:
    engine = open_database(sqlite_url)
    load(engine, tmp_path, BROTHERS)
    with pytest.raises(ComposerError, match=message):
        call(engine)


def test_every_name_gets_its_keys_and_a_person(engine: Engine, tmp_path: Path) -> None:
    load(engine, tmp_path, TROITSKY)
    with engine.connect() as conn:
        rows = conn.execute(
            select(Composer.name, Composer.surname_key, Composer.given_key, Composer.person_id)
        ).all()
    keyed = {name: (surname, given) for name, surname, given, _ in rows}
    assert keyed["R. Reti"] == ("reti", None)
    assert keyed["Troitzky, Alexey Alexeyevich"] == ("troitski", "aleksei")
    assert all(pid is not None for *_, pid in rows)


def test_stats_count_persons_and_show_their_other_names(engine: Engine, tmp_path: Path) -> None:
    load(engine, tmp_path, TROITSKY)
    result = stats.stats(engine, top=2)
    assert result.composers == 3
    top = result.top_composers[0]
    assert (top.name, top.studies) == ("Troitsky, Alexey Alexeyevich", 4)
    assert set(top.variants) == {"Troitsky", "Troitzky, Alexey Alexeyevich", "Troitski"}
    assert result.as_dict()["top_composers"][1]["composer"] == "Réti, Richard"


@pytest.mark.slow
def test_db_upgrade_gives_stored_names_persons_and_finds_text_entries(empty_db_url: str) -> None:
    from sqlalchemy import text

    from studydb.db.connect import create_engine, resolve_url, upgrade

    engine = create_engine(resolve_url(empty_db_url))
    upgrade(engine, "0005")
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    row = {
        "gbr": "4888.88",
        "pieces": "4888",
        "wq": 1,
        "wr": 2,
        "wb": 2,
        "wn": 2,
        "wp": 8,
        "bq": 1,
        "br": 2,
        "bb": 2,
        "bn": 2,
        "bp": 8,
        "men": 32,
        "signature": "KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP",
        "fen": start,
        "turn": "w",
        "zobrist": 1,
        "headers": "{}",
        "encoding": "utf-8",
    }
    with engine.begin() as conn:
        for name in ("Troitsky", "Troitzky, Alexey", "Réti, Richard"):
            conn.execute(
                text("INSERT INTO composers (name, key) VALUES (:n, :k)"), {"n": name, "k": name}
            )
        for digest, pgn_text in (
            ("a", '[Event "Pawn Endgames"]\n\n{ Chapter 3 } *\n'),
            ("b", "1. e4 *\n"),
        ):
            conn.execute(
                text(
                    f"INSERT INTO studies ({', '.join(row)}, pgn, content_hash)"
                    f" VALUES ({', '.join(':' + k for k in row)}, :pgn, :digest)"
                ),
                {**row, "pgn": pgn_text, "digest": digest},
            )
    upgrade(engine)
    assert groups(engine) == {
        frozenset({"Troitsky", "Troitzky, Alexey"}),
        frozenset({"Réti, Richard"}),
    }
    with engine.connect() as conn:
        keys = dict(conn.execute(text("SELECT name, key FROM composers")).all())
        kinds = dict(conn.execute(text("SELECT content_hash, kind FROM studies")).all())
    assert keys["Réti, Richard"] == "reti, richard"
    assert kinds == {"a": "text", "b": "study"}
    assert search.count(engine) == 1
    assert search.count(engine, Filters(include_non_studies=True)) == 2
    persons.merge(engine, ["Troitsky", "Réti, Richard"])
    upgrade(engine)  # db upgrade keeps the decisions
    assert len(groups(engine)) == 1


@pytest.mark.slow
def test_db_upgrade_rekeys_names_with_digits_and_regroups_them(
    engine: Engine, tmp_path: Path
) -> None:
    from sqlalchemy import text

    from studydb.db.connect import upgrade

    credits = [("Surname, Given", 1900)] + [(f"Surname{i:02}, Given{i:02}", 1901) for i in range(5)]
    load(engine, tmp_path, credits_pgn(*credits))
    downgrade(engine, "0010")  # the revisions after 0010 undone, so that 0010 runs again
    with engine.begin() as conn:  # the register as the rules before 0010 left it: one person
        conn.execute(text("UPDATE composers SET surname_key = 'surname', given_key = 'given'"))
        conn.execute(text("UPDATE composers SET person_id = (SELECT MIN(id) FROM persons)"))
        conn.execute(text("DELETE FROM persons WHERE id > (SELECT MIN(id) FROM persons)"))
        conn.execute(text("UPDATE alembic_version SET version_num = '0009'"))
    assert len(groups(engine)) == 1
    upgrade(engine)
    assert groups(engine) == {frozenset({name}) for name, _ in credits}
    assert studies_found(engine, "Given03 Surname03") == 1
    with engine.connect() as conn:
        keys = dict(conn.execute(text("SELECT name, surname_key FROM composers")).all())
    assert keys["Surname03, Given03"] == "surname03"
    assert keys["Surname, Given"] == "surname"


@pytest.mark.slow
def test_db_upgrade_reads_initials_after_a_surname_as_today(engine: Engine, tmp_path: Path) -> None:
    """A database of 0017 had 'Reti R.' keyed as a person named 'R.', apart from Réti."""
    from sqlalchemy import text

    from studydb.db.connect import upgrade

    load(engine, tmp_path, credits_pgn(("Reti, Richard", 1921), ("Reti R.", 1922)))
    downgrade(engine, "0017")
    with engine.begin() as conn:  # as the rules of 0017 keyed and grouped it
        conn.execute(text("UPDATE composers SET surname_key = 'r', given_key = 'reti'"
                          " WHERE name = 'Reti R.'"))  # fmt: skip
        conn.execute(text("INSERT INTO persons (name) VALUES ('Reti R.')"))
        conn.execute(text("UPDATE composers SET person_id = (SELECT MAX(id) FROM persons)"
                          " WHERE name = 'Reti R.'"))  # fmt: skip
    assert len(groups(engine)) == 2
    upgrade(engine)
    assert groups(engine) == {frozenset({"Reti, Richard", "Reti R."})}
    assert studies_found(engine, "Richard Reti") == 2


def _surnames(count: int, offset: int) -> list[tuple[str, int]]:
    """``count`` credits of distinct names (some alike enough to be grouped as one person)."""
    letters = "bcdfghjklmnpqrstvwxz"
    return [
        (f"Ka{letters[i // 20]}{letters[i % 20]}ov, Ivan", 1900)
        for i in range(offset, offset + count)
    ]


def test_grouping_stores_many_persons_in_as_many_statements_as_few(
    engine: Engine, tmp_path: Path
) -> None:
    """New persons, their names and their composers are stored a statement a batch each,
    not a statement a person: an import's register work does not grow with its persons."""
    from sqlalchemy import event

    counted: list[str] = []

    def count(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        counted.append(statement)

    # A study stored first: an import into an empty database also sets up and builds the
    # studies' indexes around its load, statements neither counted import would share.
    load(engine, tmp_path, credits_pgn(("Zzyzx, Ann", 1900)), "first.pgn")
    event.listen(engine, "before_cursor_execute", count)
    try:
        load(engine, tmp_path, credits_pgn(*_surnames(3, 0)), "few.pgn")
        few = len(counted)
        counted.clear()
        load(engine, tmp_path, credits_pgn(*_surnames(120, 3)), "many.pgn")
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len(counted) == few, counted
    named = {name for group in groups(engine) for name in group}
    assert named == {name for name, _ in _surnames(123, 0)} | {"Zzyzx, Ann"}
