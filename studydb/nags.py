"""Numeric annotation glyphs (NAGs): their meanings and the symbols readers know.

The meanings of ``$0`` to ``$139`` are the PGN standard's (section 10); the
symbols are those of printed chess literature (Informant and its successors),
where one exists.  ``$140`` to ``$146`` are a common extension (ChessBase),
used by study collections for "worse is", "equivalent" and the like.  Pure
data, no database.

>>> symbol(1), symbol(16), symbol(143), symbol(86)
('!', '±', '≤', None)
>>> meaning(18)
'White has a decisive advantage'
>>> is_move_assessment(3), is_move_assessment(18)
(True, False)
"""

from __future__ import annotations

__all__ = [
    "MEANINGS",
    "MOVE_ASSESSMENTS",
    "SYMBOLS",
    "describe",
    "is_move_assessment",
    "meaning",
    "symbol",
]

#: NAGs that judge the move itself; they are written right after it (``Kd2!``).
MOVE_ASSESSMENTS = range(1, 10)

_MOVES = {
    0: "null annotation",
    1: "good move",
    2: "poor move",
    3: "very good move",
    4: "very poor move",
    5: "speculative move",
    6: "questionable move",
    7: "forced move (all others lose quickly)",
    8: "singular move (no reasonable alternatives)",
    9: "worst move",
    10: "drawish position",
    11: "equal chances, quiet position",
    12: "equal chances, active position",
    13: "unclear position",
}

#: What a pair of NAGs says, from ``$14`` on: White's (even) then Black's (odd).
_PAIRS = (
    (14, "has a slight advantage"),
    (16, "has a moderate advantage"),
    (18, "has a decisive advantage"),
    (20, "has a crushing advantage (the other side should resign)"),
    (22, "is in zugzwang"),
    (24, "has a slight space advantage"),
    (26, "has a moderate space advantage"),
    (28, "has a decisive space advantage"),
    (30, "has a slight time (development) advantage"),
    (32, "has a moderate time (development) advantage"),
    (34, "has a decisive time (development) advantage"),
    (36, "has the initiative"),
    (38, "has a lasting initiative"),
    (40, "has the attack"),
    (42, "has insufficient compensation for material deficit"),
    (44, "has sufficient compensation for material deficit"),
    (46, "has more than adequate compensation for material deficit"),
    (48, "has a slight center control advantage"),
    (50, "has a moderate center control advantage"),
    (52, "has a decisive center control advantage"),
    (54, "has a slight kingside control advantage"),
    (56, "has a moderate kingside control advantage"),
    (58, "has a decisive kingside control advantage"),
    (60, "has a slight queenside control advantage"),
    (62, "has a moderate queenside control advantage"),
    (64, "has a decisive queenside control advantage"),
    (66, "has a vulnerable first rank"),
    (68, "has a well protected first rank"),
    (70, "has a poorly protected king"),
    (72, "has a well protected king"),
    (74, "has a poorly placed king"),
    (76, "has a well placed king"),
    (78, "has a very weak pawn structure"),
    (80, "has a moderately weak pawn structure"),
    (82, "has a moderately strong pawn structure"),
    (84, "has a very strong pawn structure"),
    (86, "has poor knight placement"),
    (88, "has good knight placement"),
    (90, "has poor bishop placement"),
    (92, "has good bishop placement"),
    (94, "has poor rook placement"),
    (96, "has good rook placement"),
    (98, "has poor queen placement"),
    (100, "has good queen placement"),
    (102, "has poor piece coordination"),
    (104, "has good piece coordination"),
    (106, "has played the opening very poorly"),
    (108, "has played the opening poorly"),
    (110, "has played the opening well"),
    (112, "has played the opening very well"),
    (114, "has played the middlegame very poorly"),
    (116, "has played the middlegame poorly"),
    (118, "has played the middlegame well"),
    (120, "has played the middlegame very well"),
    (122, "has played the ending very poorly"),
    (124, "has played the ending poorly"),
    (126, "has played the ending well"),
    (128, "has played the ending very well"),
    (130, "has slight counterplay"),
    (132, "has moderate counterplay"),
    (134, "has decisive counterplay"),
    (136, "has moderate time control pressure"),
    (138, "has severe time control pressure"),
)

_EXTENSION = {
    140: "with the idea",
    141: "aimed against",
    142: "better is",
    143: "worse is",
    144: "equivalent is",
    145: "editorial comment",
    146: "novelty",
}


def _meanings() -> dict[int, str]:
    table = dict(_MOVES)
    for first, text in _PAIRS:
        table[first] = f"White {text}"
        table[first + 1] = f"Black {text}"
    table[20] = "White has a crushing advantage (Black should resign)"
    table[21] = "Black has a crushing advantage (White should resign)"
    table.update(_EXTENSION)
    return table


#: What each NAG means: the PGN standard's words, then the common extension.
MEANINGS: dict[int, str] = _meanings()

#: The printed symbol of each NAG that has one.
SYMBOLS: dict[int, str] = {
    1: "!",
    2: "?",
    3: "!!",
    4: "??",
    5: "!?",
    6: "?!",
    7: "□",
    8: "□",
    10: "=",
    11: "=",
    12: "=",
    13: "∞",
    14: "⩲",
    15: "⩱",
    16: "±",
    17: "∓",
    18: "+−",
    19: "−+",
    20: "+−",
    21: "−+",
    22: "⨀",
    23: "⨀",
    32: "⟳",
    33: "⟳",
    36: "↑",
    37: "↑",
    40: "→",
    41: "→",
    44: "=/∞",
    45: "=/∞",
    132: "⇆",
    133: "⇆",
    138: "⨁",
    139: "⨁",
    140: "∆",
    141: "∇",
    142: "⌓",
    143: "≤",
    144: "=",
    145: "RR",
    146: "N",
}


def symbol(nag: int) -> str | None:
    """The printed symbol of ``nag``, or None if it has none."""
    return SYMBOLS.get(nag)


def meaning(nag: int) -> str:
    """What ``nag`` means, in words (``'NAG 250'`` for one no table defines).

    >>> meaning(143), meaning(250)
    ('worse is', 'NAG 250')
    """
    return MEANINGS.get(nag, f"NAG {nag}")


def is_move_assessment(nag: int) -> bool:
    """Whether ``nag`` judges the move (``!``, ``?``, …) rather than the position."""
    return nag in MOVE_ASSESSMENTS


def describe(nag: int) -> str:
    """``nag`` as a reader sees it: its symbol, or its meaning in words without one.

    >>> describe(18), describe(86)
    ('+−', 'White has poor knight placement')
    """
    return SYMBOLS.get(nag) or meaning(nag)
