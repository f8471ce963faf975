"""Material as people write it: ``KRP v KR``, ``KRPKR``, ``R+P v R``, ``rook and pawn versus rook``.

Every form becomes the canonical signature (``'KRPvKR'``) and then a
:class:`~studydb.gbr.codec.Material`.  Kings may be left out (each side has
exactly one); the sides are split by ``v``, ``vs``, ``versus``, ``against``
or a dash, or, with both kings written and no separator (``KRPKR``), before
the second king.  A count comes before a piece (``two knights``, ``2N``), and
``*`` after a letter means "any number of it" (``KP*vK``).

>>> read_material("rook and pawn versus rook").signature
'KRPvKR'
>>> [read_material(t).code for t in ("KRP v KR", "KRPKR", "R+P v R", "KRPvKR")]
['0400.10', '0400.10', '0400.10', '0400.10']
>>> read_material("two knights v pawn").signature
'KNNvKP'
"""

from __future__ import annotations

import re

from studydb.errors import GbrError, quote
from studydb.gbr.codec import Material, parse_signature

__all__ = ["looks_like_material", "read_material", "to_signature"]

_PIECE_WORDS = {
    "king": "K",
    "queen": "Q",
    "rook": "R",
    "bishop": "B",
    "knight": "N",
    "pawn": "P",
}
_NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
}
_SEPARATORS = frozenset({"v", "vs", "versus", "against", "-", "–", "—", "/"})
_CONNECTORS = frozenset({"and", "with", "plus", "+", ",", "&", "."})
_TOKEN = re.compile(r"[A-Za-z]+|\d+|\S")
_CODE_START = re.compile(r"\s*[0-9?]{2}")
_LETTERS = re.compile(r"[KQRBNPVkqrbnpv]+\Z")
#: The order of the men in a signature after the king.
_ORDER = "QRBNP"
_HINT = "write it like 'KRPvKR', 'KRP v KR', 'R+P v R' or 'rook and pawn v rook'"


def looks_like_material(text: str) -> bool:
    """Whether ``text`` is written with letters or words, not as a GBR code or pattern.

    A code starts with two digits or ``?`` (so ``'03a0.10'`` is a bad code).

    >>> [looks_like_material(t) for t in ("KRPvKR", "rook v pawn", "2N v P", "03??", "03a0.10")]
    [True, True, True, False, False]
    """
    return not _CODE_START.match(text) and any(c.isalpha() for c in text)


def read_material(text: str) -> Material:
    """The material ``text`` describes (any form of this module's description).

    :raises GbrError: quoting ``text``, if it names no men, names something
        else, has more than two sides, or an impossible count.
    """
    signature = to_signature(text)
    try:
        return parse_signature(signature)
    except GbrError as exc:
        if signature == text:
            raise
        raise GbrError(f"{exc} (read from {quote(text)})") from None


def to_signature(text: str) -> str:
    """``text`` as a canonical signature, ``'KRPvKR'`` (not yet checked for possibility).

    >>> to_signature("K+R+P vs. K+R"), to_signature("q v r"), to_signature("KP* - K")
    ('KRPvKR', 'KQvKR', 'KP*vK')
    """
    if not isinstance(text, str):
        raise GbrError(f"expected material as text, got {text!r}")
    sides: list[list[str]] = [[]]
    count: int | None = None
    for token in _TOKEN.findall(text):
        word = token.lower()
        if word in _SEPARATORS:
            sides.append([])
            if count is not None:
                raise _error(text, f"{count} of what? A count comes before a man")
        elif word.isdigit() or word in _NUMBER_WORDS:
            if count is not None:
                raise _error(text, f"two counts in a row ({count}, {token})")
            count = int(word) if word.isdigit() else _NUMBER_WORDS[word]
            if not 1 <= count <= 8:
                raise _error(text, f"a count of {token}: at most 8 of a man")
        elif word in _PIECE_WORDS or (word.endswith("s") and word[:-1] in _PIECE_WORDS):
            sides[-1].extend(_PIECE_WORDS[word.removesuffix("s")] * (count or 1))
            count = None
        elif token == "*":
            if not sides[-1] or sides[-1][-1] == "K":
                raise _error(text, "'*' follows the man it counts, as in 'KP*vK'")
            sides[-1].append("*")
        elif word in _CONNECTORS:
            continue
        elif _LETTERS.match(token):
            for letter in token.upper():
                if letter == "V":
                    sides.append([])
                else:
                    sides[-1].extend(letter * (count or 1))
                    count = None
        else:
            raise _error(text, f"{quote(token)} is not a man")
    if count is not None:
        raise _error(text, f"{count} of what? A count comes before a man")
    if len(sides) == 1:
        sides = _split_at_second_king(text, sides[0])
    if len(sides) != 2:
        raise _error(text, f"{len(sides)} sides; material has two, White's then Black's")
    named = zip(sides, ("White", "Black"), strict=True)
    return "v".join(_side(text, side, name) for side, name in named)


def _split_at_second_king(text: str, men: list[str]) -> list[list[str]]:
    kings = [i for i, man in enumerate(men) if man == "K"]
    if len(kings) != 2 or kings[0] != 0:
        raise _error(text, "where does Black's side start? Put a 'v' between the sides")
    return [men[: kings[1]], men[kings[1] :]]


def _side(text: str, men: list[str], name: str) -> str:
    """One side's men as a signature side: ``K`` then ``QRBNP`` order, ``*`` kept."""
    if not men:
        raise _error(text, f"{name}'s side is empty (write 'K' for a lone king)")
    if men.count("K") > 1:
        raise _error(text, f"{name} has {men.count('K')} kings")
    counts: dict[str, int] = {}
    unknown: set[str] = set()
    previous = ""
    for man in men:
        if man == "*":
            unknown.add(previous)
        elif man != "K":
            counts[man] = counts.get(man, 0) + 1
        previous = man
    return "K" + "".join(
        letter + "*" if letter in unknown else letter * counts.get(letter, 0) for letter in _ORDER
    )


def _error(text: str, problem: str) -> GbrError:
    return GbrError(f"malformed material {quote(text)}: {problem}; {_HINT}")
