"""Composer names: keys, reading, joint credits, grouping into persons, suggestions."""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studydb.names import (
    _Blocks,
    given_compatible,
    group_names,
    parse_name,
    query_names,
    split_credits,
    suggest_pairs,
    word_key,
)


@pytest.mark.parametrize(
    "spellings",
    [
        ("Troitsky", "Troitzky", "Troitski", "Troitskij", "Troitskii", "Troitskiy", "Троицкий"),
        ("Troickij", "Troitsky"),  # ISO 9 and library transliteration: c is ts
        ("Vysockij", "Vysotsky", "Высоцкий"),
        ("Nowicki", "Novitsky"),  # Polish -cki
        ("Kasparyan", "Kasparian", "Kasparjan", "Каспарян"),
        ("Pogosyants", "Pogosjants", "Погосянц"),
        ("Zakharov", "Zacharov", "Sacharow"),
        ("Maksimovskikh", "Maksimovskih", "Maximovskikh"),
        ("Ryabinin", "Rjabinin", "Riabinin"),
        ("Zakhodyakin", "Zachodjakin"),
        ("Smyslov", "Smysloff", "Smyslow"),
        ("Seleznev", "Selesniev", "Seleznëv"),
        ("Chigorin", "Tschigorin", "Tchigorin"),
        ("Réti", "Reti", "RETI"),
        ("Kalandadze", "Kalandadse", "კალანდაძე"),
        ("Kubbel", "Kubel"),
        ("Kovačić", "Kovacich"),
    ],
)
def test_spellings_of_one_surname_share_a_key(spellings: tuple[str, ...]) -> None:
    assert len({word_key(s) for s in spellings}) == 1, [word_key(s) for s in spellings]


@pytest.mark.parametrize(
    ("first", "second"),
    [("Platov", "Plotov"), ("Sarychev", "Sorychev"), ("Reti", "Roti"), ("Beck", "Betsk")],
)
def test_other_surnames_keep_their_keys(first: str, second: str) -> None:
    assert word_key(first) != word_key(second)


@pytest.mark.parametrize(
    ("text", "surname", "given"),
    [
        ("Réti, Richard", "Réti", ("Richard",)),
        ("Reti", "Reti", ()),
        ("R. Reti", "Reti", ("R.",)),
        ("Richard Reti", "Reti", ("Richard",)),
        ("Troitzky, Alexey Alexeyevich", "Troitzky", ("Alexey", "Alexeyevich")),
        ("Troitsky Alexey Alexeyevich", "Troitsky", ("Alexey", "Alexeyevich")),
        ("Korolkov=V", "Korolkov", ("V.",)),
        ("Korolkov=VA", "Korolkov", ("V.", "A.")),
        ("Averbakh, Y", "Averbakh", ("Y.",)),
        ("Chekhover, V.", "Chekhover", ("V.",)),
        ("Harold van der Heijden", "van der Heijden", ("Harold",)),
        ("van der Heijden, Harold", "van der Heijden", ("Harold",)),
        ("  Moravec,   Josef ", "Moravec", ("Josef",)),
        # surname first, initials after it, no comma: the initials are no surname
        ("Kasparyan G.M.", "Kasparyan", ("G.", "M.")),
        ("Reti R.", "Reti", ("R.",)),
        ("Каспарян Г.М.", "Каспарян", ("Г.", "М.")),
        ("Mitrofanov L", "Mitrofanov", ("L.",)),
        ("van der Heijden H.", "van der Heijden", ("H.",)),
        # a surname alone with its particles: the particles are no given name
        ("van der Heijden", "van der Heijden", ()),
        ("de Feijter", "de Feijter", ()),
    ],
)
def test_names_are_read_into_surname_and_given_names(
    text: str, surname: str, given: tuple[str, ...]
) -> None:
    name = parse_name(text)
    assert (name.surname, name.given) == (surname, given)


@pytest.mark.parametrize(
    ("credit", "names"),
    [
        ("A & K Sarychev", ("A. Sarychev", "K. Sarychev")),
        ("A. and K. Sarychev", ("A. Sarychev", "K. Sarychev")),
        ("V & M Platov", ("V. Platov", "M. Platov")),
        # initials after a 'Surname, Given' name are that surname's, never a name alone
        ("Sarychev, A. & K.", ("Sarychev, A.", "Sarychev, K.")),
        ("Platov, V. and M.", ("Platov, V.", "Platov, M.")),
        (
            "van der Heijden, H. & J.; Kubbel",
            ("van der Heijden, H.", "van der Heijden, J.", "Kubbel"),
        ),
        ("Korolkov=V & L", ("Korolkov, V.", "Korolkov, L.")),
        ("Reti R. & K.", ("Reti R.", "Reti, K.")),
        ("Kubbel & K.", ("Kubbel", "K.")),  # no given name before: whose initial is unknown
        ("Korolkov=V Mitrofanov=L", ("Korolkov, V.", "Mitrofanov, L.")),
        ("Korolkov=V", ("Korolkov, V.",)),
        ("Kubbel; Troitzky", ("Kubbel", "Troitzky")),
        ("Kubbel/Troitzky", ("Kubbel", "Troitzky")),
        ("Ræti, Ríchard \u2028 line", ("Ræti, Ríchard \u2028 line",)),
        (
            "Lasker, Emanuel & Reichhelm, Gustavus Charles",
            ("Lasker, Emanuel", "Reichhelm, Gustavus Charles"),
        ),
        ("Réti, Richard", ("Réti, Richard",)),
        # commas join names that each carry initials and a surname; never 'Surname, Given'
        ("L. Mitrofanov, V. Korolkov", ("L. Mitrofanov", "V. Korolkov")),
        ("Kasparyan G.M., Mitrofanov L.", ("Kasparyan G.M.", "Mitrofanov L.")),
        (
            "V. Korolkov, L. Mitrofanov and A. Kopnin",
            ("V. Korolkov", "L. Mitrofanov", "A. Kopnin"),
        ),
        ("de Feijter, C. J.", ("de Feijter, C. J.",)),
        ("Troitzky, A. A.", ("Troitzky, A. A.",)),
        ("Richard Reti, Henri Rinck", ("Richard Reti, Henri Rinck",)),  # no initial: unsure
        ("Rinck and Troitzky", ("Rinck", "Troitzky")),
        ("?", ()),
    ],
)
def test_joint_credits_split_into_names(credit: str, names: tuple[str, ...]) -> None:
    assert split_credits(credit) == names


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ("R. Reti", "Reti, Richard", True),
        ("Richard Reti", "Réti, Richard", True),
        ("Kalandadze, Velimir", "Kalandadze, Velimir Esifovich", True),
        ("Kovalenko, Vitali Semenovich", "Kovalenko, Vitaly Semenovich", True),
        ("Pogosjants, Ernst Levonovic", "Pogosyants, Ernest Levonovich", True),
        ("Platov, Mikhail", "Platov, Vasily", False),
        ("Sarychev, Alexander", "Sarychev, Kirill", False),
        ("A. Sarychev", "Sarychev, Kirill", False),
        ("Kovalenko, Vitali Semenovich", "Kovalenko, Vitali Ivanovich", False),
        ("Pogosyants, Ernst", "Pogosyants, Ernest", False),  # alike, but not corroborated
        ("Alexander Sarychev", "Sarychev, Aleksandr", True),
    ],
)
def test_given_names_decide_whether_two_names_may_be_one(
    first: str, second: str, same: bool
) -> None:
    assert given_compatible(parse_name(first), parse_name(second)) is same
    assert given_compatible(parse_name(second), parse_name(first)) is same


def test_a_surname_first_with_initials_after_it_is_one_person_with_the_full_name() -> None:
    """'Reti R.' read as a person named 'R.' (given name 'Reti'), apart from Réti."""
    assert group_names(["Reti R.", "Reti, Richard", "Kasparyan G.M.", "Kasparyan, Genrikh"]) == [
        ("Kasparyan G.M.", "Kasparyan, Genrikh"),
        ("Reti R.", "Reti, Richard"),
    ]
    assert group_names(["van der Heijden", "Harold van der Heijden"]) == [
        ("Harold van der Heijden", "van der Heijden")
    ]


def _person_of(groups: list[tuple[str, ...]], name: str) -> tuple[str, ...]:
    return next(group for group in groups if name in group)


def test_troitsky_troitzky_and_troitski_are_one_person() -> None:
    names = ["Troitsky", "Troitzky, Alexey Alexeyevich", "Troitsky, Alexey Alexeyevich", "Troitski"]
    assert group_names(names) == [tuple(sorted(names))]


def test_platov_and_sarychev_brothers_stay_apart_and_a_surname_alone_waits() -> None:
    names = [
        "Platov, Mikhail",
        "Platov, Vasily",
        "M. Platov",
        "V. Platov",
        "Platov",
        "A. Sarychev",
        "K. Sarychev",
        "Sarychev, Alexander",
        "Sarychev, Kirill",
        "Sarychev",
    ]
    groups = group_names(names)
    assert _person_of(groups, "M. Platov") == ("M. Platov", "Platov, Mikhail")
    assert _person_of(groups, "V. Platov") == ("Platov, Vasily", "V. Platov")
    assert _person_of(groups, "Platov") == ("Platov",)
    assert _person_of(groups, "A. Sarychev") == ("A. Sarychev", "Sarychev, Alexander")
    assert _person_of(groups, "K. Sarychev") == ("K. Sarychev", "Sarychev, Kirill")
    assert _person_of(groups, "Sarychev") == ("Sarychev",)


def test_a_surname_alone_joins_the_only_person_with_that_surname() -> None:
    groups = group_names(["Reti", "R. Reti", "Reti, Richard", "Réti, Richard"])
    assert groups == [("R. Reti", "Reti", "Reti, Richard", "Réti, Richard")]


def test_surnames_alone_of_one_key_are_one_person() -> None:
    assert group_names(["Troitsky", "Troitzky"]) == [("Troitsky", "Troitzky")]


def test_a_name_that_fits_two_persons_is_left_alone() -> None:
    groups = group_names(
        ["Kovalenko, Vitali Semenovich", "Kovalenko, Vitali Ivanovich", "Kovalenko, Vitaly"]
    )
    assert ("Kovalenko, Vitaly",) in groups
    assert len(groups) == 3


@pytest.mark.parametrize(
    "names",
    [
        [f"Surname{i}, Given{i}" for i in range(30)],
        [f"Surname{i}" for i in (1, 11, 111, 2, 12)],
        ["Smith, Given1 Ivanovich", "Smith, Given2 Ivanovich", "Smith, Given3"],
        ["Composer 1", "Composer 2", "Composer 11"],
    ],
)
def test_names_that_differ_only_in_digits_are_distinct_persons(names: list[str]) -> None:
    assert group_names(names) == sorted((name,) for name in names)


def test_digits_are_kept_in_keys_and_rules_apply_to_letters_only() -> None:
    assert word_key("Surname12") != word_key("Surname112") != word_key("Surname")
    assert word_key("Troitzky12") == word_key("Troitsky12") == "troitski12"


def test_decisions_come_first() -> None:
    names = ["Gasparyan", "Kasparyan, Genrikh", "Troitsky", "Troitzky, Alexey"]
    groups = group_names(
        names, same=[("Gasparyan", "Kasparyan, Genrikh")], apart=[("Troitsky", "Troitzky, Alexey")]
    )
    assert groups == [("Gasparyan", "Kasparyan, Genrikh"), ("Troitsky",), ("Troitzky, Alexey",)]


names_strategy = st.lists(
    st.sampled_from(
        [
            "Platov, Mikhail",
            "Platov, Vasily",
            "M. Platov",
            "Platov",
            "Troitsky",
            "Troitzky, Alexey",
            "A. Troitski",
            "Reti",
            "Réti, Richard",
            "R. Reti",
            "Kovalenko, Vitali Semenovich",
            "Kovalenko, Vitaly",
        ]
    ),
    unique=True,
)


@given(names_strategy, st.randoms())
def test_grouping_does_not_depend_on_the_order_of_the_names(names: list[str], rng) -> None:
    shuffled = list(names)
    rng.shuffle(shuffled)
    assert group_names(names) == group_names(shuffled)


blocking_strategy = st.lists(
    st.sampled_from(
        [
            "Pogosyants, Ernst Levonovich",
            "Pogosjants, Ernest Levonovic",
            "Pogosyants, E. L.",
            "Pogosyants, Ernest",
            "E. Pogosyants",
            "Pogosyants, Ch.",
            "Pogosyants, Charles",
            "Pogosyants, Kharles",
            "Pogosyants, -",
            "Pogosyants, Given1",
            "Pogosyants, Given2 Levonovich",
            "Pogosyants",
            "Kalandadze, Velimir Esifovich",
            "Kalandadze, V.",
            "Kalandadse, Velimir",
            "Kalandadze, Vladimir",
        ]
    ),
    unique=True,
)


# No deadline: an example compares every pair of up to a few hundred names, which took
# 292 ms once on a loaded machine (the default deadline is 200 ms).
@settings(deadline=None)
@given(blocking_strategy, st.lists(st.tuples(st.integers(0, 15), st.integers(0, 15)), max_size=3))
def test_the_blocking_index_gives_what_comparing_all_names_gives(
    names: list[str], pairs: list[tuple[int, int]]
) -> None:
    decided = [(names[a], names[b]) for a, b in pairs if a < len(names) and b < len(names)]
    everyone = lambda blocks, name: blocks.names  # noqa: E731 - every name a candidate
    for same, apart in ((decided, []), ([], decided)):
        blocked = group_names(names, same=same, apart=apart)
        with mock.patch.object(_Blocks, "candidates", everyone):
            assert group_names(names, same=same, apart=apart) == blocked


def test_suggestions_name_their_evidence_and_leave_out_pairs_kept_apart() -> None:
    persons = {
        1: ["Sarychev"],
        2: ["Sarychev, Alexander"],
        3: ["Sarychev, Kirill"],
        4: ["Pogosyants, Ernst"],
        5: ["Pogosyants, Ernest"],
        6: ["Selesniev, Alexey"],
        7: ["Selezniov, Alexey"],
    }
    years = {4: (1960, 1980), 5: (1970, 1990)}
    found = {(s.first, s.second): s for s in suggest_pairs(persons, years=years, apart=[(1, 3)])}
    assert set(found) == {(1, 2), (4, 5), (6, 7)}
    assert found[(4, 5)].evidence == (
        "first names alike: Pogosyants, Ernst / Pogosyants, Ernest",
        "years overlap: 1960-1980 and 1970-1990",
    )
    assert "surname alone" in found[(1, 2)].evidence[0]
    assert all(0 < s.score <= 1 for s in found.values())


@pytest.mark.parametrize(
    ("query", "readings"),
    [
        ("Richard Reti", [("Reti", ("Richard",)), ("Richard", ("Reti",))]),
        ("R. Reti", [("Reti", ("R.",))]),
        ("troitzky", [("troitzky", ())]),
        ("Reti, Richard", [("Reti", ("Richard",))]),
    ],
)
def test_a_query_is_read_as_a_name_in_both_orders(query: str, readings: list) -> None:
    assert [(n.surname, n.given) for n in query_names(query)] == readings


def test_a_name_with_odd_spaces_groups_under_its_own_text() -> None:
    name = "Ræti, Ríchard 🐴 \u2028 line separator"
    assert group_names([name, "Réti, Richard"]) == [(name,), ("Réti, Richard",)]


def test_surnames_that_differ_only_in_digits_are_never_suggested_as_alike() -> None:
    persons = {i: [f"Surname{i}"] for i in range(30)}
    assert suggest_pairs(persons) == []
    persons.update({100: ["Sarychev7"], 101: ["Sorychev7"]})  # the same digits: may be alike
    assert [(s.first, s.second) for s in suggest_pairs(persons)] == [(100, 101)]
