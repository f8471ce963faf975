"""Benchmark grouping composer names into persons (``studydb.names.group_names``).

Builds its own distinct names (no corpus needed) and times, in one run:

* ``digits``: N names that differ only in digits (``Surname12, Given12``),
* ``one surname``: N names of one surname with distinct given names (``Samplin, Bodafe``),
  the case a blocking index has to make linear,
* ``one credit``: one joint credit listing M names (``Surname1, Given1; Surname2, …``),
  split with ``split_credits`` and grouped, as the import does,
* and the reference: N (or M) letter-only names with distinct surnames (``Bodafe, Gilamu``).

Every name is distinct, so every case must give as many persons as names;
the bench checks that.  Prints the seconds for each and the ratio to the reference.

    python bench/bench_persons.py [--names 20000] [--credit 10000]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from studydb.names import group_names, split_credits

#: Consonants and vowels that no spelling rule rewrites when they alternate (CV CV …).
CONSONANTS = "bdfglmnprtv"
VOWELS = "aeiou"
SYLLABLES = [c + v for c in CONSONANTS for v in VOWELS]


def letters(number: int, *, width: int = 3) -> str:
    """A capitalised letter-only word for ``number``: distinct numbers give distinct keys."""
    word = ""
    for _ in range(width):
        number, digit = divmod(number, len(SYLLABLES))
        word += SYLLABLES[digit]
    return word.capitalize()


def digit_names(count: int) -> list[str]:
    return [f"Surname{i}, Given{i}" for i in range(count)]


def letter_names(count: int) -> list[str]:
    return [f"{letters(i)}, {letters(i * 7 + 3)}" for i in range(count)]


def one_surname_names(count: int) -> list[str]:
    return [f"Samplin, {letters(i)}" for i in range(count)]


def timed(label: str, make: Callable[[], list[str]]) -> float:
    """Group the names ``make`` gives; print and return the seconds (building not counted)."""
    names = make()
    start = time.perf_counter()
    persons = group_names(names)
    seconds = time.perf_counter() - start
    distinct = len(set(names))
    status = "ok" if len(persons) == distinct else f"WRONG: {len(persons)} persons"
    print(f"{label:<44} {distinct:>7} names {seconds:8.2f} s  {status}", flush=True)
    if len(persons) != distinct:
        sys.exit(1)
    return seconds


def credit(names: list[str]) -> Callable[[], list[str]]:
    return lambda: list(split_credits("; ".join(names)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, default=20000, help="names per case")
    parser.add_argument("--credit", type=int, default=10000, help="names in the one credit")
    args = parser.parse_args()
    n, m = args.names, args.credit
    reference = timed("reference: letter-only, distinct surnames", lambda: letter_names(n))
    digits = timed("digits: Surname12, Given12", lambda: digit_names(n))
    surname = timed("one surname: Samplin, <given>", lambda: one_surname_names(n))
    credit_reference = timed("reference: one credit, letter-only", credit(letter_names(m)))
    credit_digits = timed("one credit: Surname12, Given12; …", credit(digit_names(m)))
    print(f"digits / reference        {digits / reference:6.2f}x")
    print(f"one surname / reference   {surname / reference:6.2f}x")
    print(f"one credit / reference    {credit_digits / credit_reference:6.2f}x")


if __name__ == "__main__":
    main()
