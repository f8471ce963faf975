"""GBR code patterns: ``'03??'``, ``'0?0?.1?'``.

A pattern has four piece positions and optionally a point and two pawn
positions; each position is a digit or ``?`` (any one digit).  Without a pawn
part a pattern matches any pawns: ``'0300'`` matches ``'0300.10'``.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass

from studydb.gbr.codec import GbrError

__all__ = ["Pattern", "compile_pattern", "flip_pattern", "matches"]

_PATTERN_RE = re.compile(r"([0-9?]{4})(?:\.([0-8?]{2}))?", re.ASCII)
_CODE_RE = re.compile(r"([0-9]{4})(?:\.([0-8]{2}))?", re.ASCII)
_ALL_DIGITS = frozenset(range(10))


@dataclass(frozen=True)
class Pattern:
    """A compiled GBR pattern.

    ``pieces`` holds, for each of the four piece digits, the set of digits it
    accepts (``None`` = any).  ``pawns`` holds the same for the white and the
    black pawn digit (``(None, None)`` when the pattern has no pawn part).  A
    database filter can use :meth:`piece_codes` for the piece part (or
    :attr:`like` as an SQL ``LIKE`` pattern on the full code) and ``pawns`` for
    the pawn counts.

    >>> p = compile_pattern("03??.1?")
    >>> p.matches("0300.10"), p.matches("0310.01"), p.matches("0400.10")
    (True, False, False)
    >>> p.pawns
    (frozenset({1}), None)
    """

    text: str
    pieces: tuple[frozenset[int] | None, ...]
    pawns: tuple[frozenset[int] | None, frozenset[int] | None]

    def matches(self, code: str) -> bool:
        """Whether a GBR code (``'dddd.dd'`` or ``'dddd'``) matches.

        A code without pawns matches only a pattern that does not constrain pawns.

        >>> compile_pattern("0300").matches("0300.10")
        True
        """
        match = _CODE_RE.fullmatch(code.strip()) if isinstance(code, str) else None
        if match is None:
            raise GbrError(f"malformed GBR code {code!r}: expected 'dddd.dd' or 'dddd'")
        pieces, pawns = match.groups()
        for allowed, char in zip(self.pieces, pieces, strict=True):
            if allowed is not None and int(char) not in allowed:
                return False
        if self.pawns == (None, None):
            return True
        if pawns is None:
            return False
        return all(
            allowed is None or int(char) in allowed
            for allowed, char in zip(self.pawns, pawns, strict=True)
        )

    def piece_codes(self) -> list[str]:
        """Every concrete 4-digit piece code the pattern can match, sorted.

        >>> compile_pattern("030?").piece_codes()[:3]
        ['0300', '0301', '0302']
        """
        choices = [sorted(_ALL_DIGITS if allowed is None else allowed) for allowed in self.pieces]
        return ["".join(map(str, digits)) for digits in itertools.product(*choices)]

    @property
    def like(self) -> str:
        """An SQL ``LIKE`` pattern for full codes (``'03__.1_'``, ``'0300%'``)."""
        pieces, _, pawns = self.text.partition(".")
        if not pawns:
            return pieces.replace("?", "_") + "%"
        return f"{pieces}.{pawns}".replace("?", "_")


@functools.lru_cache(maxsize=256)
def compile_pattern(pattern: str) -> Pattern:
    """Compile a GBR pattern; ``?`` matches any one digit.

    >>> compile_pattern("0?0?").piece_codes()[:2]
    ['0000', '0001']

    :raises GbrError: if the pattern is malformed.
    """
    text = pattern.strip() if isinstance(pattern, str) else None
    match = _PATTERN_RE.fullmatch(text) if text is not None else None
    if match is None:
        raise GbrError(
            f"malformed GBR pattern {pattern!r}: expected 4 digits or '?', optionally "
            "'.' and 2 pawn digits (0-8) or '?', like '03??' or '0300.1?'"
        )
    pieces, pawns = match.groups()

    def allowed(char: str) -> frozenset[int] | None:
        return None if char == "?" else frozenset({int(char)})

    pawn_sets = (None, None) if pawns is None else (allowed(pawns[0]), allowed(pawns[1]))
    return Pattern(text, tuple(allowed(c) for c in pieces), pawn_sets)


def matches(code: str, pattern: str) -> bool:
    """Whether a GBR code matches a pattern.

    >>> matches("0300.10", "03??")
    True
    >>> matches("0300.10", "0300.01")
    False
    """
    return compile_pattern(pattern).matches(code)


def _flip_digit(char: str) -> str:
    """A piece digit with the colours swapped: white + 3 x black -> black + 3 x white."""
    if char in "?9":
        return char
    black, white = divmod(int(char), 3)
    return str(black + 3 * white)


def flip_pattern(pattern: str) -> str:
    """A code or pattern with the colours swapped (``?`` and ``9`` stay as they are).

    >>> flip_pattern("0300.10"), flip_pattern("03??.1?"), flip_pattern("0009")
    ('0100.01', '01??.?1', '0009')
    """
    pieces, point, pawns = compile_pattern(pattern).text.partition(".")
    return "".join(map(_flip_digit, pieces)) + point + pawns[::-1]
