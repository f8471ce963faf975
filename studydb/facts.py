"""A study's labelled facts, as ``show``, the web's study page and the judge's report list them.

:func:`study_facts` gives them in one order and one wording: who, where and
when, the task as one sentence (:func:`studydb.headers.task_sentence`), the
material.  Each form adds its own (``show`` the side to move and the
provenance, the page the soundness verdict, the report the entry's place) and
draws them its own way (the page links the composers and the class, by the
facts' ``key``).  No database and no python-chess here.

>>> for fact in study_facts(composers=["Kubbel, Leonid"], year=1922, stipulation="mate", mate_in=3):
...     print(f"{fact.label}: {fact.value}")
Composers: Kubbel, Leonid
Year: 1922
Stipulation: White to play and mate in 3
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from studydb.headers import task_sentence

__all__ = [
    "Fact",
    "count_men",
    "eg_reference",
    "not_compared_phrase",
    "start_men",
    "study_facts",
    "too_few_men_phrase",
]


@dataclass(frozen=True)
class Fact:
    """One labelled fact: ``Source: Lenin MT 64``; ``key`` names it for a form that draws
    some facts its own way (``composers``, ``gbr``, ``extended``, ``form`` …)."""

    key: str
    label: str
    value: str


def count_men(fen: str) -> tuple[int, int]:
    """White's men and Black's men in a FEN's placement.

    >>> count_men("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    (2, 2)
    """
    placement = fen.split(" ", 1)[0]
    return sum(c.isupper() for c in placement), sum(c.islower() for c in placement)


def eg_reference(number: str | int) -> str:
    """An EG number as EG and HHdb cite it: five digits after ``EG#``.

    >>> eg_reference(1335), eg_reference("13350")
    ('EG#01335', 'EG#13350')
    """
    return f"EG#{int(number):05d}"


def start_men(fen: str) -> int:
    """The men of a game's start: no later position has more (men are never added), so a
    search for shared positions of more men compares none of its positions.

    >>> start_men("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    4
    """
    return sum(count_men(fen))


def too_few_men_phrase(men: int, min_men: int) -> str:
    """What is said of a game of ``men`` men (:func:`start_men`) none of whose positions a
    search for shared positions of ``min_men`` men compared, in place of "0 studies":
    ``show``, ``anticipate`` and the judge's report.

    >>> too_few_men_phrase(4, 5)
    'no position compared: it starts with 4 men, fewer than --min-men 5'
    """
    return f"no position compared: it starts with {men} men, fewer than --min-men {min_men}"


def study_facts(
    *,
    composers: Sequence[str] = (),
    composer_names: str | None = None,
    source: str | None = None,
    number: str | None = None,
    year: int | None = None,
    award: str | None = None,
    version: str | None = None,
    reprint: str | None = None,
    eg: str | None = None,
    note: str | None = None,
    stipulation: str | None = None,
    mate_in: int | None = None,
    white: bool = True,
    gbr: str = "",
    extended: str = "",
    form: str | None = None,
    signature: str | None = None,
    fen: str | None = None,
) -> list[Fact]:
    """The labelled facts of a study, those given only (the composers and the task always).

    ``composers`` as credited (else ``composer_names`` as written, else ``unknown``);
    ``eg``: the EG numbers, space-separated (``EG#01335, EG#09212``); ``white``: White
    plays first; ``signature`` with ``fen``: the material and its men (``KRPvKR (2+2)``).

    >>> [f.label for f in study_facts(source="64", number="434", eg="1335 9212", gbr="0400.10")]
    ['Composers', 'Source', 'Number', 'EG', 'Stipulation', 'GBR']
    >>> study_facts(eg="1335 9212")[1].value, study_facts()[0].value
    ('EG#01335, EG#09212', 'unknown')
    >>> study_facts(signature="KRPvKR", fen="8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")[-1].value
    'KRPvKR (2+2)'
    """
    material = None
    if signature and fen:
        white_men, black_men = count_men(fen)
        material = f"{signature} ({white_men}+{black_men})"
    facts = [
        ("composers", "Composers", "; ".join(composers) or composer_names or "unknown"),
        ("source", "Source", source),
        ("number", "Number", number),
        ("year", "Year", year),
        ("award", "Award", award),
        ("version", "Version", version),
        ("reprint", "Reprint", reprint),
        ("eg", "EG", ", ".join(map(eg_reference, (eg or "").split()))),
        ("note", "Note", note),
        ("stipulation", "Stipulation", task_sentence(stipulation, mate_in, white=white)),
        ("gbr", "GBR", gbr),
        ("extended", "Extended", extended),
        ("form", "Stipulation form", form),
        ("material", "Material", material),
    ]
    return [Fact(key, label, str(value)) for key, label, value in facts if value not in (None, "")]


def not_compared_phrase(missing: int, min_men: int) -> str:
    """What ``show``, ``anticipate`` and the judge's report say of the ``missing`` stored
    studies of ``min_men`` men or more that a search for shared positions passed over.

    >>> not_compared_phrase(1, 5)
    '1 stored study of 5+ men is not in the position index and was not compared'
    """
    one = missing == 1
    return (
        f"{missing:,} stored {'study' if one else 'studies'} of {min_men}+ men"
        f" {'is' if one else 'are'} not in the position index and"
        f" {'was' if one else 'were'} not compared"
    )
