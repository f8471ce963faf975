"""The search filters: the ``Filters`` value, one spec per filter, and their parsing.

Database-free: the command line (:mod:`studydb.cli.filters`), the web
(:mod:`studydb.web.params`) and the library all read the filters from
:data:`SPECS`, and :mod:`studydb.db.conditions` turns each given filter into
SQL through its ``condition`` key.  A new filter is one field of
:class:`Filters`, one :class:`FilterSpec` in :data:`SPECS`, and its condition
in ``studydb.db.conditions.CONDITIONS``.

A ``Filters`` is checked when it is made: every value is parsed once, and a
malformed one raises :class:`~studydb.errors.QueryError` naming the option.

>>> filters = Filters(material=("0300.10",), years=("1890..1899",))
>>> filters.parsed("years")
((1890, 1899),)
>>> Filters(years=("19x",))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
studydb.errors.QueryError: bad year '19x': expected a year or a range like ...
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from studydb import gbr
from studydb.errors import QueryError, argument_error, quote
from studydb.headers import normalise_name
from studydb.vocabulary import (  # verdicts best first; ``unchecked``: never checked too
    THEMES,
    VERDICTS,
)
from studydb.where import WhereCondition, parse_where

if TYPE_CHECKING:
    import chess

    from studydb.lines import LineQuery
    from studydb.patterns import Pattern

__all__ = [
    "DEFAULT_MIN_MEN",
    "INDEX_FIELDS",
    "SORT_KEYS",
    "SPECS",
    "VERDICTS",
    "FilterSpec",
    "Filters",
    "MaterialTerm",
    "Stipulation",
    "lone_modifier",
    "parse_eg",
    "parse_material",
    "parse_position",
    "parse_source",
    "parse_stipulation",
    "parse_theme",
    "parse_years",
    "spec_named",
]

#: ``--sort`` keys; each sorts further by the next natural keys and the id.
SORT_KEYS = ("gbr", "year", "newest", "composer", "id")
#: The :class:`Filters` fields only the position index answers: a study not indexed
#: (``--positions none``, a game from the initial position) is never found by them
#: (``themes``: but by the themes its tags name, or a check found).
INDEX_FIELDS = ("position", "pattern", "pieces", "line", "reaches", "ends_in", "themes")
#: Fewest men (kings included) a position needs to count as shared (anticipation).
DEFAULT_MIN_MEN = 5

#: How a filter's value is given: repeatable text, a flag, yes/no/either, one text or number.
Kind = Literal["many", "flag", "either", "text", "int"]

_MATE_FILTER = re.compile(r"(?:#|mate(?:in)?)(\d{0,4})")
_EG_FILTER = re.compile(r"(?:EG\s*#?\s*)?#?(\d{1,9})", re.IGNORECASE)
#: A year or a range: ``1920..1939``, or with a dash, ``1920-1939`` (as people write it).
_YEAR_RE = re.compile(r"\s*([0-9]{1,4})?\s*(\.\.|[-–—])?\s*([0-9]{1,4})?\s*", re.ASCII)


# -- parsing one value ----------------------------------------------------------------

#: A parsed material form: a GBR code or piece code (text), a pattern or a signature.
MaterialForm = str | gbr.Pattern | gbr.Material


@dataclass(frozen=True)
class MaterialTerm:
    """One parsed material term and its colour reversal.

    >>> term = parse_material("0310.01")
    >>> term.forms(either_colour=True)
    ['0310.01', '0130.10']
    >>> parse_material("KRvKR").forms(either_colour=True)  # doctest: +ELLIPSIS
    [Material(...)]
    """

    text: str
    given: tuple[str, MaterialForm]
    reversed: tuple[str, MaterialForm]

    def forms(self, *, either_colour: bool = False) -> list[MaterialForm]:
        """The forms to match, the colour-reversed one too if asked (once if the same)."""
        pairs = [self.given, self.reversed] if either_colour else [self.given]
        return list(dict(pairs).values())


def _code_form(text: str) -> tuple[str, MaterialForm]:
    if "?" in text:
        return text, gbr.compile_pattern(text)
    gbr.parse(text)  # a clear message for '03a0.10', '0300.1' …
    return text, text


def parse_material(term: str) -> MaterialTerm:
    """Parse a GBR code (``'0300.10'``, ``'0300'``), a pattern (``'03??'``) or a signature.

    A signature may be written as people write material: ``'KRP v KR'``,
    ``'KRPKR'``, ``'R+P v R'``, ``'rook and pawn versus rook'``
    (:func:`studydb.gbr.read_material`).

    >>> parse_material(" 03?? ").given[0]
    '03??'
    >>> parse_material("rook and pawn v rook").given[0]
    'KRPvKR'

    :raises QueryError: if the term is neither.
    """
    text = term.strip()
    try:
        if gbr.looks_like_material(text):
            material = gbr.read_material(text)
            flipped = material.flipped()
            return MaterialTerm(text, (material.signature, material), (flipped.signature, flipped))
        return MaterialTerm(text, _code_form(text), _code_form(gbr.flip_pattern(text)))
    except gbr.GbrError as exc:
        raise QueryError(
            f"{exc}; expected a GBR code ('0300.10'), a pattern ('03??', '0?0?.1?') "
            "or a signature ('KRPvKR')",
            param="MATERIAL",
        ) from None


def parse_years(text: str) -> tuple[int | None, int | None]:
    """Parse a year or a range: ``'1920..1939'``, ``'1920'``, ``'..1900'``, ``'1990..'``.

    A dash works as the two dots: ``'1920-1939'``, ``'-1900'``, ``'1990-'``.

    >>> parse_years("1920..1939"), parse_years("1927"), parse_years("..1900")
    ((1920, 1939), (1927, 1927), (None, 1900))
    >>> parse_years("1920-1925"), parse_years("1990 –")
    ((1920, 1925), (1990, None))

    :raises QueryError: if it is none of these, or the range is empty.
    """
    match = _YEAR_RE.fullmatch(text)
    if match is None or not (match.group(1) or match.group(3)):
        raise QueryError(
            f"bad year {text!r}: expected a year or a range like '1920..1939' "
            "(or '1920-1939'), '..1900' or '1990..'",
            param="--year",
        )
    first, dots, last = match.groups()
    low = int(first) if first else None
    high = int(last) if last else None
    if not dots:
        if low is None or high is not None:
            raise QueryError(f"bad year {text!r}: write a range as '1920..1939'", param="--year")
        return low, low
    if low is not None and high is not None and low > high:
        raise QueryError(f"bad year range {text!r}: {low} is after {high}", param="--year")
    return low, high


@dataclass(frozen=True)
class Stipulation:
    """A parsed stipulation filter: ``win``, ``draw`` or ``mate`` (``mate_in`` None = any n)."""

    stipulation: str
    mate_in: int | None = None


def parse_stipulation(text: str) -> Stipulation:
    """``win``/``draw``/``+``/``=``, ``mate`` (any n) or ``#8`` / ``mate in 8``.

    >>> parse_stipulation("#3"), parse_stipulation("=")
    (Stipulation(stipulation='mate', mate_in=3), Stipulation(stipulation='draw', mate_in=None))

    :raises QueryError: for anything else.
    """
    m = _MATE_FILTER.fullmatch("".join(text.split()).casefold())
    if m:
        if m[1] and not int(m[1]):
            raise QueryError(
                f"bad stipulation {text!r}: mate in 0: a mate takes 1 move or more",
                param="--stipulation",
            )
        return Stipulation("mate", int(m[1]) if m[1] else None)
    try:
        return Stipulation(gbr.normalise_stipulation(text))
    except gbr.GbrError:
        raise QueryError(
            f"unknown stipulation {text!r}: expected 'win', 'draw', 'mate' or '#N'",
            param="--stipulation",
        ) from None


def parse_eg(text: str) -> int:
    """The number of an EG reference: ``'1335'``, ``'01335'``, ``'EG#01335'`` → 1335.

    >>> parse_eg("EG#01335")
    1335

    :raises QueryError: for anything else.
    """
    m = _EG_FILTER.fullmatch(text.strip())
    if m is None:
        raise QueryError(
            f"bad EG reference {text!r}: expected a number such as 1335 or EG#01335",
            param="--eg",
        )
    return int(m[1])


def parse_composer(name: str) -> str:
    """A composer's name as searched: spaces collapsed (the condition folds and reads it).

    >>> parse_composer(" Richard   Reti ")
    'Richard Reti'

    :raises QueryError: for a name that folds to nothing.
    """
    if not normalise_name(name).strip():
        raise QueryError(f"empty composer name {name!r}", param="--composer")
    return " ".join(name.split())


def parse_verdict(text: str) -> str:
    """A verdict of :data:`VERDICTS`, in any case.

    >>> parse_verdict(" Sound ")
    'sound'

    :raises QueryError: for an unknown verdict.
    """
    verdict = text.strip().lower()
    if verdict not in VERDICTS:
        raise QueryError(
            f"unknown verdict {verdict!r}: expected one of {', '.join(VERDICTS)}",
            param="--verdict",
        )
    return verdict


def parse_pattern(text: str) -> Pattern:
    """A ``--pattern``: pgn-extract's FENPattern (:func:`studydb.patterns.parse_fen_pattern`).

    >>> parse_pattern("*/*/*/*/*/*/*/K*").text
    '*/*/*/*/*/*/*/K*'

    :raises QueryError: for a malformed pattern, naming the bad character.
    """
    from studydb.patterns import parse_fen_pattern

    return parse_fen_pattern(text.strip(), param="--pattern")


def parse_pieces(text: str) -> Pattern:
    """A ``--pieces`` list of designators (:func:`studydb.patterns.parse_pieces`).

    >>> len(parse_pieces("K[a-h]1 r[a-h]7").designators)
    2

    :raises QueryError: for a malformed designator, naming it.
    """
    from studydb.patterns import parse_pieces as parse

    return parse(text, param="--pieces")


def parse_line(text: str) -> LineQuery:
    """A ``--line``: steps linked by ``then`` and ``next`` (:func:`studydb.lines.parse_line`).

    >>> parse_line("P-[a-h]8=N then mate").links
    ('then',)

    :raises QueryError: for a malformed line, naming the bad token.
    """
    from studydb.lines import parse_line as parse

    return parse(text.strip())


def parse_side(text: str) -> str:
    """A ``--side-to-move``: ``'w'`` or ``'b'`` (``white``, ``black``, ``w``, ``b``).

    >>> parse_side("Black")
    'b'
    """
    side = text.strip().lower()
    if side in ("white", "w"):
        return "w"
    if side in ("black", "b"):
        return "b"
    raise QueryError(f"bad side to move {text!r}: white or black", param="--side-to-move")


def parse_position(fen: str) -> chess.Board:
    """The board of a ``--position`` FEN; each side needs a king.

    >>> parse_position("8/8/8/8/8/8/8/K1k5 w - - 0 1").fen()
    '8/8/8/8/8/8/8/K1k5 w - - 0 1'

    :raises QueryError: for a bad FEN.
    """
    import chess

    try:
        board = chess.Board(fen)
    except ValueError as exc:
        raise QueryError(f"bad FEN {fen!r}: {exc}", param="--position") from None
    if board.king(chess.WHITE) is None or board.king(chess.BLACK) is None:
        raise QueryError(f"bad FEN {fen!r}: each side needs a king", param="--position")
    return board


def parse_theme(text: str) -> str:
    """A theme's name as stored: lower case, words joined by ``-``, our synonyms.

    >>> parse_theme("Mutual Zugzwang"), parse_theme("minor promotion")
    ('mutual-zugzwang', 'underpromotion')

    :raises QueryError: for a name that is empty once normalised.
    """
    from studydb.themes import normalise_theme

    name = normalise_theme(text)
    if not name:
        raise QueryError(f"empty theme {text!r}", param="--theme")
    return name


def _parse_where(expression: str) -> tuple[WhereCondition, ...]:
    return tuple(parse_where(expression))


def parse_source(text: str) -> str:
    """A part of a source as searched, as given; one of nothing but spaces is refused
    (it would match every study with a source).

    >>> parse_source("Shakhmaty")
    'Shakhmaty'

    :raises QueryError: for an empty text.
    """
    if not text.strip():
        raise QueryError(f"empty source {text!r}", param="--source")
    return text


# -- the specs ---------------------------------------------------------------------


@dataclass(frozen=True)
class FilterSpec:
    """One filter: its names, how it is given and documented, parsed, and made a condition.

    ``name`` is the command line's parameter and the web's query parameter;
    ``field`` the :class:`Filters` field.  ``options`` are the option names
    (empty for the ``MATERIAL`` argument; ``'--valid/--invalid'`` for a yes/no
    pair).  ``parse`` reads one value (``many``, ``text`` and ``int`` kinds).
    ``condition`` is the key of its SQL in ``studydb.db.conditions.CONDITIONS``,
    None for the modifiers that other filters read (``--either-colour`` …).
    ``label``, ``form_help`` and ``placeholder`` are for the web's form.
    """

    name: str
    field: str
    kind: Kind
    help: str
    options: tuple[str, ...] = ()
    metavar: str | None = None
    parse: Callable[[str], Any] | None = None
    condition: str | None = None
    choices: tuple[str, ...] = ()
    label: str | None = None
    form_help: str | None = None
    placeholder: str | None = None

    @property
    def param(self) -> str:
        """The name errors give (``'--year'``, ``'MATERIAL'``), as the command line knows it."""
        if not self.options:
            return self.metavar or self.name.upper()
        return self.options[0].split("/")[0]

    def given(self, value: Any) -> bool:
        """Whether a ``Filters`` value of this filter selects anything (not the default)."""
        if self.kind == "many":
            return bool(value)
        if self.kind == "flag":
            return bool(value)
        return value is not None

    def values(self, value: Any) -> Any:
        """The value parsed: a tuple for ``many``, else one value (checked with ``parse``)."""
        if self.parse is None or not self.given(value):
            return value
        if self.kind == "many":
            return tuple(self.parse(v) for v in value)
        return self.parse(value)


SPECS: tuple[FilterSpec, ...] = (
    FilterSpec(
        "material",
        "material",
        "many",
        "GBR codes or patterns (0300.10, 0300 = any pawns, 03??, 0?0?.1?) or the men of "
        "each side (KRPvKR, 'KRP v KR', 'R+P v R', 'rook and pawn v rook'); a study matching "
        "any of them is found.",
        metavar="MATERIAL",
        parse=parse_material,
        condition="material",
        form_help="A GBR code (0300.10; 0300 = any pawns), a pattern (03??) or the men of "
        "each side: KRP v KR, R+P v R, rook and pawn v rook (kings may be left out).",
        placeholder="0300.10, 03??, KRP v KR",
    ),
    FilterSpec(
        "either_colour",
        "either_colour",
        "flag",
        "Also match the material (and --position, --pattern, --pieces, --line, --reaches, "
        "--ends-in) with the colours reversed.",
        options=("--either-colour", "--either-color", "-z"),
        label="Either colour",
        form_help="Also match the material, position, pieces, line of play, reached and final "
        "classes with the colours reversed.",
    ),
    FilterSpec(
        "where",
        "where",
        "many",
        "Conditions on the counts, e.g. 'wR>=1 bN=1 men<=5'. Names: wQ wR wB wN wP bQ bR bB "
        "bN bP, white, black (men incl. king), men, pawns, pieces; operators = == != < <= > "
        ">=; joined by spaces or 'and'.",
        options=("--where", "-w"),
        metavar="EXPR",
        parse=_parse_where,
        condition="where",
        placeholder="men<=5 wR>=1",
    ),
    FilterSpec(
        "composer",
        "composers",
        "many",
        "A composer: part of a name (reti finds Réti) or the name spelled another way "
        "(troitzky, kasparian, 'Richard Reti'); finds every study of the person.",
        options=("--composer", "-c"),
        metavar="NAME",
        parse=parse_composer,
        condition="composer",
        placeholder="Réti",
    ),
    FilterSpec(
        "stipulation",
        "stipulations",
        "many",
        "Stipulation: win, draw, mate (any mate-in-n) or #N (mate in N).",
        options=("--stipulation", "-s"),
        metavar="win|draw|mate|#N",
        parse=parse_stipulation,
        condition="stipulation",
        placeholder="win or draw",
    ),
    FilterSpec(
        "year",
        "years",
        "many",
        "A year or a range: 1927, 1920..1939 (or 1920-1939), ..1900, 1990..",
        options=("--year", "-y"),
        metavar="RANGE",
        parse=parse_years,
        condition="year",
        placeholder="1920-1939",
    ),
    FilterSpec(
        "source",
        "sources",
        "many",
        "Part of the source, case-insensitive, taken literally.",
        options=("--source",),
        metavar="TEXT",
        parse=parse_source,
        condition="source",
        placeholder="Shakhmaty",
    ),
    FilterSpec(
        "eg",
        "eg",
        "many",
        "An EG reference: 1335, 01335 or EG#01335.",
        options=("--eg",),
        metavar="NUMBER",
        parse=parse_eg,
        condition="eg",
        label="EG reference",
        placeholder="1335",
    ),
    FilterSpec(
        "award",
        "award",
        "flag",
        "Only studies with a distinction.",
        options=("--award",),
        condition="award",
    ),
    FilterSpec(
        "valid",
        "valid",
        "either",
        "Only studies whose moves passed (or failed) validation.",
        options=("--valid/--invalid",),
        condition="valid",
        label="Legal moves",
        form_help="Yes: studies whose moves were replayed and are legal; no: those with an "
        "illegal move.",
    ),
    FilterSpec(
        "verdict",
        "verdicts",
        "many",
        f"Soundness verdict of studydb check: {', '.join(VERDICTS[:-1])} or {VERDICTS[-1]} "
        "(also never checked).",
        options=("--verdict",),
        metavar="VERDICT",
        parse=parse_verdict,
        condition="verdict",
        choices=VERDICTS,
        form_help="The verdict of studydb check; a study with any ticked verdict is found "
        "(unchecked includes never checked).",
    ),
    FilterSpec(
        "theme",
        "themes",
        "many",
        "A theme (studydb themes lists them): mate, stalemate, stalemate-line, "
        "underpromotion, excelsior, positional-draw, perpetual-check, switchback, "
        "domination, mutual-zugzwang, or one a Keywords tag names; given several times, "
        "a study must have all of them.",
        options=("--theme", "-t"),
        metavar="THEME",
        parse=parse_theme,
        condition="theme",
        choices=THEMES,
        label="Themes",
        form_help="Studies with every theme chosen (found in the main line, or named by the "
        "file's Keywords tag).",
    ),
    FilterSpec(
        "position",
        "position",
        "text",
        "Studies in which this position occurs (main line or variation); castling and "
        "en-passant rights are ignored.",
        options=("--position", "-p"),
        metavar="FEN",
        parse=parse_position,
        condition="position",
        form_help="Studies in which this position occurs (main line or variation), given as "
        "FEN; castling and en-passant rights are ignored.",
        placeholder="FEN, e.g. 8/8/1KP5/3r4/8/8/8/k7 w - - 0 1",
    ),
    FilterSpec(
        "similar",
        "similar",
        "flag",
        "With --position, --pattern or --pieces: also the symmetric images of the positions "
        "(CQL similarposition: all 8 board symmetries without pawns; with pawns the mirror "
        "and sideways shifts).",
        options=("--similar",),
        label="Similar positions",
        form_help="With a position: also its symmetric images (all 8 board symmetries "
        "without pawns; with pawns the mirror and sideways shifts).",
    ),
    FilterSpec(
        "pattern",
        "pattern",
        "text",
        "Studies with a position (main line or variation) fitting this FENPattern, as "
        "pgn-extract reads it: 8 ranks; digits and piece letters as in FEN; ? any square, "
        "! any man, A any white man, a any black man, * zero or more squares, [xyz] one of "
        "these, [^xyz] none of these.",
        options=("--pattern",),
        metavar="PATTERN",
        parse=parse_pattern,
        condition="pattern",
        label="Pattern",
        form_help="A FENPattern: ranks from 8 to 1 separated by /; digits and piece letters "
        "as in FEN; ? any square, ! any man, A any white man, a any black man, * zero or "
        "more squares, [xyz] one of these, [^xyz] none of these.",
        placeholder="*/*/*/*/*/*/*/??K*",
    ),
    FilterSpec(
        "pieces",
        "pieces",
        "text",
        "Studies with a position where all these designators hold: pieces then squares, "
        "an optional count, 'not' to negate: 'K[a-h]1 r[a-h]7 P[c6,d6]', "
        "'R[a-h]7{2}', 'not [Qq].'.",
        options=("--pieces",),
        metavar="DESIGNATORS",
        parse=parse_pieces,
        condition="pieces",
        label="Pieces on squares",
        form_help="Pieces then squares, all of which must hold: K[a-h]1 (white king on the "
        "first rank), r[a-h]7 (a black rook on the seventh), P[c6,d6], R[a-h]7{2} (exactly "
        "two), not [Qq]. (no queen anywhere); _ is an empty square.",
        placeholder="K[a-h]1 r[a-h]7",
    ),
    FilterSpec(
        "line",
        "line",
        "text",
        "Studies with a line of play (main line or variation) holding these steps, each "
        "linked to the one before by 'then' (later in the line) or 'next' (the ply after): "
        "moves 'P-[a-h]8=N', 'R-[a-h]7', 'Kx.', 'Pc7-c8=Q+', 'N-.#'; positions "
        "'{R[a-h]7 r[a-h]2}'; check, mate, stalemate.",
        options=("--line",),
        metavar="LINE",
        parse=parse_line,
        condition="line",
        label="Line of play",
        form_help="Steps linked by 'then' (later in the same line) or 'next' (the ply after): "
        "a move P-[a-h]8=N (a white pawn promotes to a knight), R-[a-h]7, Kx. (the white king "
        "captures), [RQ]-.+ (a checking rook or queen move), N-.# (a knight mates); a "
        "position {R[a-h]7 r[a-h]2}; check, mate, stalemate. Black's men in lower case.",
        placeholder="P-[a-h]8=N then mate",
    ),
    FilterSpec(
        "side_to_move",
        "side_to_move",
        "text",
        "With --pattern or --pieces: only positions with this side to move (white, black).",
        options=("--side-to-move",),
        metavar="SIDE",
        parse=parse_side,
        choices=("white", "black"),
        label="Side to move",
        form_help="With a pattern: only positions with this side to move.",
    ),
    FilterSpec(
        "main_line",
        "main_line",
        "flag",
        "With --position, --pattern, --pieces or --line: on the main line only.",
        options=("--main-line",),
        label="On the main line",
        form_help="With a position, a pattern or a line: only where it occurs on the main line.",
    ),
    FilterSpec(
        "reaches",
        "reaches",
        "many",
        "Studies whose main line reaches this material class (GBR code, pattern or "
        "signature: 0000.10, KBNvK); needs the position index.",
        options=("--reaches",),
        metavar="MATERIAL",
        parse=parse_material,
        condition="reaches",
        label="Main line reaches",
        form_help="Material classes the main line reaches (GBR code, pattern or signature).",
        placeholder="0000.10, KBNvK",
    ),
    FilterSpec(
        "ends_in",
        "ends_in",
        "many",
        "Studies whose main line ends in this material class.",
        options=("--ends-in",),
        metavar="MATERIAL",
        parse=parse_material,
        condition="ends_in",
        label="Main line ends in",
        form_help="Material classes the main line ends in.",
        placeholder="0000.10, KRvK",
    ),
    FilterSpec(
        "include_non_studies",
        "include_non_studies",
        "flag",
        "Also entries with no set-up position and no moves (chapter headings, "
        "introductions), which are left out by default.",
        options=("--include-non-studies",),
        label="Include non-studies",
        form_help="Also chapter headings and introductions: entries with no position and no moves.",
    ),
)


def lone_modifier(filters: Filters, *, similar_alone: bool = False) -> FilterSpec | None:
    """The spec of ``similar`` or ``side_to_move`` when given with no position or pattern
    to modify (``similar_alone``: ``similar`` may be, as ``versions`` takes it alone), or
    None.  Such a filter would select nothing, and the studies of the others be shown as
    if they held such positions.

    >>> lone_modifier(Filters(side_to_move="white", line="mate")).param
    '--side-to-move'
    >>> lone_modifier(Filters(similar=True), similar_alone=True) is None
    True
    """
    if filters.position or filters.pattern or filters.pieces:
        return None
    if filters.similar and not similar_alone:
        return spec_named("similar")
    return spec_named("side_to_move") if filters.side_to_move else None


def spec_named(name: str) -> FilterSpec:
    """The spec whose parameter (``'year'``) or error name (``'--year'``) is ``name``.

    >>> spec_named("--year").field, spec_named("MATERIAL").name
    ('years', 'material')

    :raises KeyError: for no such filter.
    """
    for spec in SPECS:
        if name in (spec.name, spec.param):
            return spec
    raise KeyError(name)


# -- the value ---------------------------------------------------------------------

#: The most values one repeatable filter takes: more is no search a person makes, and
#: would cost the database a query too large to plan (SQLite's expression depth).
MAX_VALUES = 100
#: The longest single value, in characters (a FEN, a --where expression, a name).
MAX_VALUE_LENGTH = 1000


def _check_size(spec: FilterSpec, value: Any) -> None:
    """Refuse a filter with too many values, an overlong value or a NUL character.

    >>> _check_size(spec_named("composer"), ("kubbel",) * 101)
    Traceback (most recent call last):
    ...
    studydb.errors.QueryError: too many values for --composer: 101 (at most 100)
    """
    values = value if isinstance(value, tuple) else (value,)
    if len(values) > MAX_VALUES:
        raise QueryError(
            f"too many values for {spec.param}: {len(values)} (at most {MAX_VALUES})",
            param=spec.param,
        )
    for text in values:
        if not isinstance(text, str):
            continue
        if "\x00" in text:
            raise QueryError(f"bad {spec.param} {quote(text)}: it holds a NUL character")
        if len(text) > MAX_VALUE_LENGTH:
            raise QueryError(
                f"bad {spec.param} {quote(text)}: longer than {MAX_VALUE_LENGTH} characters"
            )


#: What a value of each kind of filter is, as an error message says it.
_EXPECTED = {
    "many": "a tuple (or list) of texts",
    "flag": "True or False",
    "either": "True, False or None",
    "text": "a text or None",
}


def _checked_type(spec: FilterSpec, value: Any) -> Any:
    """``value`` if it is of the filter's type (a list of a repeatable filter as a tuple).

    A text where a tuple of texts goes would be read letter by letter, and a number
    or a truthy text where a flag goes would select other studies than asked for.

    >>> _checked_type(spec_named("composer"), ["kubbel"])
    ('kubbel',)
    >>> _checked_type(spec_named("composer"), "kubbel")
    Traceback (most recent call last):
    ...
    studydb.errors.ArgumentError: composers must be a tuple (or list) of texts, not the str 'kubbel'
    """
    if spec.kind == "many":
        fits = isinstance(value, (tuple, list)) and all(isinstance(v, str) for v in value)
        value = tuple(value) if fits else value
    elif spec.kind == "flag":
        fits = isinstance(value, bool)
    elif spec.kind == "either":
        fits = value is None or isinstance(value, bool)
    else:
        fits = value is None or isinstance(value, str)
    if not fits:
        raise argument_error(spec.field, value, _EXPECTED.get(spec.kind, "a text or None"))
    return value


@dataclass(frozen=True)
class Filters:
    """What to look for; all given filters must hold, repeats of one are alternatives.

    ``material``: GBR codes (``'0300.10'``), codes without pawns (``'0300'``,
    any pawns), patterns (``'03??'``, ``'0?0?.1?'``) or signatures
    (``'KRPvKR'``).  ``either_colour`` also matches the colour-reversed
    material.  ``where``: ``--where`` expressions (all must hold).
    ``composers``: substrings of a composer's name, case- and
    accent-insensitive.  ``years``: ``'1920..1939'``, ``'1920'``,
    ``'..1900'``, ``'1990..'``.  ``sources``: case-insensitive substrings of the
    source.  ``stipulations``: ``'win'``, ``'draw'``, ``'mate'`` or ``'#8'``
    (mate in 8).  ``eg``: EG references (``'1335'``, ``'EG#01335'``).
    ``award``: only studies with a distinction.  ``valid``: True or
    False to select validated studies by outcome.  ``verdicts``: soundness
    verdicts of ``studydb check`` (``unchecked`` includes never checked).
    ``themes``: theme names, all of which a study must have.  ``position``: a FEN that
    occurs in the study (``similar``: or a symmetric image; ``either_colour``:
    or the colour-reversed position; ``main_line``: on the main line only).
    ``pattern``: a FENPattern, ``pieces``: designators, that a position of the
    study fits (with ``side_to_move``, ``main_line``, ``either_colour``,
    ``similar``).  ``line``: a line of move, position and word steps (``main_line``:
    on the main line only).  ``reaches``/``ends_in``: material terms the main line
    reaches / ends in.
    ``include_non_studies``: also entries with no set-up position and no
    moves (``studies.kind`` ``text``), left out otherwise.

    Every value is parsed when the ``Filters`` is made (see :meth:`parsed`).

    :raises QueryError: for a malformed value, its ``param`` naming the option.
    :raises ArgumentError: for a value of the wrong type (a text where a tuple goes).
    """

    material: tuple[str, ...] = ()
    either_colour: bool = False
    where: tuple[str, ...] = ()
    composers: tuple[str, ...] = ()
    stipulations: tuple[str, ...] = ()
    years: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    eg: tuple[str, ...] = ()
    award: bool = False
    valid: bool | None = None
    verdicts: tuple[str, ...] = ()
    themes: tuple[str, ...] = ()
    position: str | None = None
    similar: bool = False
    pattern: str | None = None
    pieces: str | None = None
    line: str | None = None
    side_to_move: str | None = None
    main_line: bool = False
    reaches: tuple[str, ...] = ()
    ends_in: tuple[str, ...] = ()
    include_non_studies: bool = False
    #: The ids of the studies ``pattern`` and ``pieces`` find, once the database was
    #: scanned for them (``studydb.db.patterns.resolve``); None before.
    pattern_ids: tuple[int, ...] | None = field(default=None, repr=False, compare=False)
    #: The ids of the studies ``line`` finds, once scanned (``studydb.db.lines.resolve``).
    line_ids: tuple[int, ...] | None = field(default=None, repr=False, compare=False)
    _parsed: dict[str, Any] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        for spec in SPECS:
            value = _checked_type(spec, getattr(self, spec.field))
            if value is not getattr(self, spec.field):  # a list, made a tuple
                object.__setattr__(self, spec.field, value)
            try:
                _check_size(spec, getattr(self, spec.field))
                self._parsed[spec.field] = spec.values(getattr(self, spec.field))
            except QueryError as exc:
                raise QueryError(str(exc), param=spec.param) from None

    def parsed(self, name: str) -> Any:
        """A filter's value parsed (by field name): a tuple of parsed terms for repeatable ones.

        >>> Filters(stipulations=("#3",)).parsed("stipulations")
        (Stipulation(stipulation='mate', mate_in=3),)
        """
        return self._parsed[name]

    def index_free(self) -> Filters | None:
        """These filters without those only the position index answers, or None if none is
        given (``position``, ``pattern``, ``pieces``, ``line``, ``reaches``, ``ends_in``,
        and ``themes``, the main line's found in the index's replay).

        What they select is what a search of the index could have found: a study
        not indexed is among them, but never found.

        >>> Filters(composers=("reti",), line="mate").index_free() == Filters(composers=("reti",))
        True
        >>> Filters(composers=("reti",)).index_free() is None
        True
        """
        cleared = {name: getattr(Filters, name) for name in INDEX_FIELDS}
        if all(getattr(self, name) == value for name, value in cleared.items()):
            return None
        return dataclasses.replace(self, **cleared, pattern_ids=None, line_ids=None)

    def given(self) -> list[FilterSpec]:
        """The specs of the filters given (with a value other than the default).

        >>> [spec.name for spec in Filters(years=("1927",), award=True).given()]
        ['year', 'award']
        """
        return [spec for spec in SPECS if spec.given(getattr(self, spec.field))]

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> Filters:
        """Make ``Filters`` from values keyed by filter name (``'composer'``); lists become tuples.

        >>> Filters.from_values({"composer": ["kubbel"], "award": True}).composers
        ('kubbel',)
        """
        options: dict[str, Any] = {}
        for spec in SPECS:
            if spec.name in values:
                value = values[spec.name]
                options[spec.field] = tuple(value or ()) if spec.kind == "many" else value
        return cls(**options)
