"""What a study's PGN headers say: composers, stipulation, year, source, award.

Pure: standard library only.  Every rule below is tried in the order given;
the first that yields a value wins.

Composers
    1. ``Composer``, ``Composer2``, ``Composer3``, … (then ``Composer1``), in
       that order.
    2. A lichess study chapter (``Site`` is a ``lichess.org/study/`` URL, or
       ``Event`` reads ``Study name (n): Chapter``): the chapter title's
       ``Names, YYYY`` part (``Beautiful Chess Studies (1): Afanasyev, 1964`` →
       ``Afanasyev``), several names split at ``/``, `` & ``, `` and ``, ``;``.
    3. HHdb style: ``White``, split at ``;``, `` & ``, `` and ``, ``/`` — only
       when the game looks like a study: ``Black`` starts with ``+`` or ``=``
       (HHdb's stipulation-and-GBR field), or there is a ``FEN`` (or a
       ``Stipulation``) and ``Black`` is empty or ``?``.  A game from a set-up
       position between two named players is not taken for a study.
    4. ChessForge exercises: ``Event`` written as initials and a surname
       (``R. Reti``, ``J. Moravec``, ``A & K Sarychev``; each initial followed
       by a dot or a space, so that ``USSR Championship`` is none) in a game
       with a FEN and no ``White``/``Black`` names.
    Every credit is split into names by :func:`studydb.names.split_credits`:
    ``;``, ``/``, `` & ``, `` and ``, HHdb's ``Korolkov=V Mitrofanov=L`` (→
    ``Korolkov, V.``, ``Mitrofanov, L.``), and initials sharing a surname
    (``A & K Sarychev`` → ``A. Sarychev``, ``K. Sarychev``).  ``?`` and empty
    values are ignored.
Stipulation (``'win'`` / ``'draw'`` / ``'mate'`` / None) and mate-in-n
    1. ``Stipulation`` (after the side to play in words, if any: ``White to play
       and win``, ``White wins``): ``+``, ``win`` → win; ``=``, ``draw`` → draw;
       ``#8``, ``#8 w``, ``mate in 8``, ``mate8`` → mate, with ``mate_in`` 8
       (``#`` alone: mate, n unknown); any case, spaces ignored; anything else
       (``h#2``, ``s#3``) → None, and no fall-through.
    2. ``Black`` starting with ``+`` or ``=`` (HHdb).
    3. ``Result``: ``1-0`` → win, ``1/2-1/2`` → draw.
Year
    1. ``Date``: its first four characters when they are digits and a fifth is not (``????`` is
       none).
    2. A lichess chapter's ``Names, YYYY``.
    3. The first four-digit number from 1500 to 2099 standing alone in
       ``Event``, then in ``Source`` (not ``#1727``, an issue number, nor
       part of ``EG#14437``).
EG references (``eg``: the numbers, in order, no repeats)
    Every ``EG#01335`` (also ``EG 1335``, ``EG#1335.``) in ``Source``, then
    in ``Event`` → ``(1335,)``.  They are never the source.
Note (a version, correction or "after" note)
    ``Source`` beginning with ``(v):``, ``(c):``, ``(m):`` (any letters in
    parentheses and a colon) or ``after`` → the note, as written (its EG
    references read as above).  A note is never the source.
Source (the original publication, award split off)
    1. ``Source``, stripped, when it is a publication: not a note, no EG
       reference; any award in it is cut out (``Magazine, 2nd Prize`` →
       ``Magazine``).
    2. ``Event`` with its award cut out (``3.p Lenin MT 64`` → ``Lenin MT
       64``), unless it is ``?``/empty, a lichess study chapter, or was read
       as the composer (rule 4 above).
    3. What is left of a ``Source`` that is not a note once its EG
       references and award are cut out (``EG#04716.3.p Israel Ring ty 1978``
       → ``Israel Ring ty 1978``).
    A text that is an award and nothing else (``Event "2.p"``) is no source.
Award (text as written, kind, rank)
    1. An ``Award`` tag (kind and rank read from it when it has them).
    2. The first award found in ``Event``, then in ``Source`` without its EG
       references:
       keymove/EG shorthand at the start (``1.p``, ``1/2.p``, ``2/3p.``,
       ``3.hm``, ``.hm``, ``Hm.``, ``.c``, ``2.sp.p``, ``2sp``, ``sp.p``) or
       words anywhere (``1st Prize``, ``1.-2. Prize``, ``2nd Honourable
       Mention``, ``Comm.``, ``commendation``, ``special prize``).
    Kinds: ``prize``, ``hm``, ``commendation``, ``special`` (special prize).
    The rank is the first number given (``1/2.p`` and ``1.-2. Prize`` → 1;
    ``lst`` is read as ``1st``); None when the award has no number.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import NamedTuple

from studydb.names import fold, split_credits

__all__ = [
    "StudyInfo",
    "goal_words",
    "normalise_name",
    "read_info",
    "start_fen",
    "task_sentence",
]


@dataclass(frozen=True, slots=True)
class StudyInfo:
    """What the headers of one study say about it."""

    composers: tuple[str, ...]
    stipulation: str | None
    year: int | None
    source: str | None
    award: str | None
    award_kind: str | None
    award_rank: int | None
    #: ``Stipulation "#8"`` → ``stipulation == 'mate'`` and ``mate_in == 8``.
    mate_in: int | None = None
    #: EG references (``EG#01335`` → 1335), in the order written.
    eg: tuple[int, ...] = ()
    #: A version, correction or "after" note from ``Source`` (``(v): …``).
    note: str | None = None
    #: ``correction``, ``modification``, ``version`` or ``solution`` (``(c)``,
    #: ``(m)``, ``(v)``, ``(s)``): the study is not the original as published.
    version: str | None = None
    #: The study's number in its source (``64#434`` → ``'434'``).
    number: str | None = None
    #: A second publication (``also …``), not the original source.
    reprint: str | None = None


_EMPTY = {"", "?", "-"}
_COMPOSER_TAG = re.compile(r"Composer(\d*)\Z")
_LICHESS_SITE = re.compile(r"https?://(?:www\.)?lichess\.org/study/", re.IGNORECASE)
_LICHESS_EVENT = re.compile(r".+?\(\d+\):\s+(?P<chapter>.+)\Z")
_CHAPTER = re.compile(r"(?P<names>[^,]+?),\s*(?P<year>\d{4})\b")
# Initials, each closed by a dot or a space ('USSR', 'FIDE', 'BCM' are no initials), then
# a surname: 'R. Reti', 'A & K Sarychev'.
_PERSON_EVENT = re.compile(
    r"(?:[A-Z](?:\.|(?=[\s&]))\s*(?:(?:&|and)\s*)?)+[A-Z][a-zà-ÿ'’-]+(?:[ -][A-Z][a-zà-ÿ'’-]+)?\Z"
)
_YEAR = re.compile(r"(?<![\d#\w])(1[5-9]\d\d|20\d\d)(?![\d\w])")
_DATE_YEAR = re.compile(r"\s*(\d{4})(?!\d)")
_EG = re.compile(r"\bEG\s*#?\s*(\d{1,9})\b\.?", re.IGNORECASE)
_NOTE = re.compile(r"\s*(?:\([a-z]+\)\s*:|after\b)", re.IGNORECASE)
# A note after the publication: 'Haproblemai/3 1983 (c): Garcia=M …', 'EG#09206. (c): …'.
_NOTE_INSIDE = re.compile(r"(?:^|\s)(?P<note>\([a-z]\)\s*:.*)\Z", re.IGNORECASE | re.DOTALL)
_NOTE_FLAG = re.compile(r"\s*\(([a-z])\)")
# A reprint: 'also Kagan's Neueste Schachnachrichten/4-6 1922.'
_ALSO = re.compile(r"(?:^|(?<=[\s;,.]))also\s+(?P<reprint>.+)\Z", re.IGNORECASE | re.DOTALL)
# A version flag: '{v}', '(c)', '(m)', '{m' (unclosed), not a note's '(c):'.
_FLAG = re.compile(r"(?:^|(?<=\s))[({]\s*(?P<flag>[cmvs])\s*(?:[)}]|(?=\s|\Z))(?!\s*:)", re.I)
_SPACES = re.compile(r"  +")  # left where a flag or a number was cut out
_FINAL_DOT = re.compile(r"(?<=[\d\s])\.\Z")
_VERSIONS = {"c": "correction", "m": "modification", "v": "version", "s": "solution"}
# The study's number in its source: '64#434', 'Probleemblad#162' (EG references go first).
_NUMBER = re.compile(r"(?<=\S)#\s*(?P<number>\d+[a-z]?)\b", re.IGNORECASE)
# Separators and dots before a publication ('. .c Israel Ring'), not the dot of '.c'.
_LEADING = re.compile(r"^(?:[\s,;:–-]|\.(?![a-z]))+", re.IGNORECASE)
# The side to play before a stipulation in words, spaces taken out and lower-cased:
# 'White to play and win', 'Black to move and draw', 'White wins', 'WTM, win'.
_SIDE_TO_PLAY = re.compile(
    r"\A(?:(?:white|black)(?:to(?:play|move)and)?|[wb]tm[,:;.-]?)(?=win|draw|mate|#)"
)
_MATE = re.compile(r"(?:#|mate(?:in)?)(\d{0,4})(?:[wb]|white|black)?\Z")
# What is left around an award once it is cut out of a source.
_SEPARATORS = " \t,;:-–"

_NOT_DIGIT = re.compile(r"\D")
_ORD = r"(?:\d+(?:st|nd|rd|th)?\.?|lst)"
# Shorthand at the start of Event/Source: rank, optional dot, kind, optional dot.
_SHORT_AWARD = re.compile(
    r"\s*(?P<award>(?P<rank>\d+(?:\s*[/-]\s*\d+)?)?(?P<dot1>\.)?"
    r"(?P<kind>sp\.?p|sp\.?hm|sp\.?c|sp|hm|p|c|comm)(?P<dot2>\.)?)(?=[\s,;:]|\Z|(?P<glued>\d))",
    re.IGNORECASE,
)
_WORD_AWARD = re.compile(
    r"(?<![\w.])(?P<award>(?:(?P<rank>" + _ORD + r")(?:\s*[-/]\s*" + _ORD + r")?\s*)?"
    r"(?P<kind>special\s+prize|spec\.?\s*prize|prize|honou?rable\s+mention|hon\.?\s*mention"
    r"|h\.\s*m\.|hm|commendation|commended|commend\.|comm\.|special\s+honou?rable\s+mention))"
    r"(?![\w])",
    re.IGNORECASE,
)
_KINDS = {
    "p": "prize",
    "prize": "prize",
    "hm": "hm",
    "honourable mention": "hm",
    "honorable mention": "hm",
    "hon mention": "hm",
    "h m": "hm",
    "c": "commendation",
    "comm": "commendation",
    "commendation": "commendation",
    "commended": "commendation",
    "sp": "special",
    "spp": "special",
    "sphm": "hm",
    "spc": "commendation",
    "commend": "commendation",
    "special prize": "special",
    "spec prize": "special",
    "special honourable mention": "hm",
    "special honorable mention": "hm",
}


def goal_words(stipulation: str | None, mate_in: int | None = None) -> str | None:
    """What the side to play must do, in words: ``win``, ``draw``, ``mate in 3``, ``mate``.

    >>> goal_words("mate", 3), goal_words("draw"), goal_words(None)
    ('mate in 3', 'draw', None)
    """
    if stipulation == "mate" and mate_in:
        return f"mate in {mate_in}"
    return stipulation or None


def task_sentence(
    stipulation: str | None, mate_in: int | None = None, *, white: bool = True
) -> str:
    """The study's task as one sentence, as the command line, the web and reports write it.

    >>> task_sentence("mate", 3, white=False)
    'Black to play and mate in 3'
    >>> task_sentence("win"), task_sentence(None)
    ('White to play and win', 'White to play (no stipulation)')
    """
    side = "White" if white else "Black"
    goal = goal_words(stipulation, mate_in)
    return f"{side} to play and {goal}" if goal else f"{side} to play (no stipulation)"


def read_info(headers: Mapping[str, str]) -> StudyInfo:
    """Read composers, stipulation, year, source and award from PGN headers.

    >>> info = read_info({"Event": "1.p Tidskrift 1990", "Composer": "Kasparyan, G",
    ...                   "Date": "1990.??.??", "Result": "1/2-1/2"})
    >>> info.composers, info.stipulation, info.year, info.award_kind, info.award_rank
    (('Kasparyan, G',), 'draw', 1990, 'prize', 1)
    """
    tags = {name: value.strip() for name, value in headers.items()}
    event = tags.get("Event", "")
    chapter = _lichess_chapter(tags)
    composers, event_is_composer = _composers(tags, chapter)

    year = _date_year(tags.get("Date", ""))
    if year is None and chapter is not None:
        m = _CHAPTER.match(chapter)
        year = int(m["year"]) if m else None
    told = _publication_info(
        event, tags.get("Source", ""), tags.get("Award", ""), chapter, event_is_composer
    )
    stipulation, mate_in = _stipulation(tags)
    return StudyInfo(
        composers=composers,
        stipulation=stipulation,
        year=told.year if year is None else year,
        source=told.source,
        award=told.award,
        award_kind=told.award_kind,
        award_rank=told.award_rank,
        mate_in=mate_in,
        eg=told.eg,
        note=told.note,
        version=told.version,
        number=told.number,
        reprint=told.reprint,
    )


class _Publication(NamedTuple):
    """What ``Event``, ``Source`` and ``Award`` say (:func:`_publication_info`)."""

    year: int | None
    source: str | None
    award: str | None
    award_kind: str | None
    award_rank: int | None
    eg: tuple[int, ...]
    note: str | None
    version: str | None
    number: str | None
    reprint: str | None


@lru_cache(maxsize=4096)
def _publication_info(
    event: str, raw_source: str, award_tag: str, chapter: str | None, event_is_composer: bool
) -> _Publication:
    """The source, award, year, EG references and notes that the tags' texts say.

    Cached: the games of a tournament share their ``Event`` and ``Source``.
    """
    source_text, note, reprint = _split_note_and_reprint(raw_source)
    year = (
        _find_year(event if chapter is None else chapter)
        or _find_year(source_text)
        or _find_year(reprint or "")
    )
    eg = _eg_numbers(raw_source, event)
    has_eg = _has_eg(source_text) and _EG.search(source_text) is not None
    source_rest, source_version, source_number = _clean_publication(source_text)
    award_event = event if chapter is None else ""
    event_rest, event_version, event_number = _clean_publication(award_event)
    award, kind, rank = _award(award_tag, event_rest, source_rest)
    source, from_source = _source(source_rest, has_eg, event_rest, chapter, event_is_composer)
    numbers = (source_number, event_number) if from_source else (event_number, source_number)
    version = _note_version(note) or source_version or event_version
    return _Publication(
        year, source, award, kind, rank, eg, note, version, numbers[0] or numbers[1], reprint
    )


def _split_note_and_reprint(text: str) -> tuple[str, str | None, str | None]:
    """``Source`` → (the publication part, the note, the reprint).

    >>> _split_note_and_reprint("Haproblemai/3 1983 (c): Garcia=M Estudios 2012.")
    ('Haproblemai/3 1983', '(c): Garcia=M Estudios 2012.', None)
    >>> _split_note_and_reprint("also Kagan's Neueste Schachnachrichten/4-6 1922.")
    ('', None, "Kagan's Neueste Schachnachrichten/4-6 1922")
    """
    note = None
    if _NOTE.match(text):
        text, note = "", text
    elif "(" in text:
        inside = _NOTE_INSIDE.search(text)
        if inside:
            text, note = text[: inside.start()], inside["note"].strip()
    reprint = None
    also = _ALSO.search(text) if "also" in text.casefold() else None
    if also:
        text, reprint = text[: also.start()], also["reprint"].strip().rstrip(" .") or None
    return text.strip(), note, reprint


def _clean_publication(text: str) -> tuple[str, str | None, str | None]:
    """A publication without its EG references, version flag and number in the source.

    Returns (what is left, the version, the number).

    >>> _clean_publication("Glasgow Weekly Citizen#414 (m)")
    ('Glasgow Weekly Citizen', 'modification', '414')
    >>> _clean_publication("EG#01969. .c Israel Ring ty 1967.")
    ('.c Israel Ring ty 1967.', None, None)
    """
    version = None
    flag = _FLAG.search(text) if "(" in text or "{" in text else None
    if flag:
        version = _VERSIONS[flag["flag"].lower()]
        text = text[: flag.start()] + " " + text[flag.end() :]
    if _has_eg(text):
        text = _EG.sub(" ", text)
    number = None
    found = _NUMBER.search(text) if "#" in text else None
    if found:
        number = found["number"]
        text = text[: found.start()] + " " + text[found.end() :]
    text = text.strip(" ")
    if "  " in text:
        text = _SPACES.sub(" ", text)
    text = _LEADING.sub("", text)
    return text.rstrip(_SEPARATORS + "({"), version, number


def _note_version(note: str | None) -> str | None:
    """The version a note's flag says: ``(c): …`` → ``'correction'``."""
    if note is None:
        return None
    flag = _NOTE_FLAG.match(note)
    return _VERSIONS.get(flag[1].lower()) if flag else None


def start_fen(headers: Mapping[str, str]) -> str | None:
    """The FEN tag, stripped (with or without a SetUp tag); None when absent.

    >>> start_fen({"FEN": " 8/8/8/8/8/8/8/K1k5 w - - 0 1 "})
    '8/8/8/8/8/8/8/K1k5 w - - 0 1'
    """
    fen = headers.get("FEN")
    if fen is None:
        return None
    return fen.strip() or None


def normalise_name(name: str) -> str:
    """Fold a name for searching: case, accents, other scripts, special letters, whitespace.

    >>> normalise_name("  Réti,   Richard ")
    'reti, richard'
    >>> normalise_name("Kasparyan / Øbro / Łukasz Weiß / Каспарян")
    'kasparyan / obro / lukasz weiss / kasparyan'
    """
    return fold(name)


def _lichess_chapter(tags: Mapping[str, str]) -> str | None:
    """The chapter title of a lichess study export, else None."""
    event = tags.get("Event", "")
    if _LICHESS_SITE.match(tags.get("Site", "")) and ": " in event:
        return event.split(": ", 1)[1].strip()
    m = _LICHESS_EVENT.match(event) if "(" in event else None
    if m and _CHAPTER.match(m["chapter"]):
        return m["chapter"].strip()
    return None


def _composers(tags: Mapping[str, str], chapter: str | None) -> tuple[tuple[str, ...], bool]:
    """The composers and whether Event was read as the composer."""
    # Most games have no Composer tag: one search of the names joined says so.
    numbered = (
        [
            (_composer_order(m[1]), value)
            for name, value in tags.items()
            if name.startswith("Composer")
            and value not in _EMPTY
            and (m := _COMPOSER_TAG.match(name))
        ]
        if "Composer" in "\n".join(tags)
        else None
    )
    if numbered:
        if len(numbered) == 1:
            return split_credits(numbered[0][1], slash=False), False
        numbered.sort(key=itemgetter(0))
        names = (name for _, value in numbered for name in split_credits(value, slash=False))
        return tuple(names), False
    if chapter is not None:
        m = _CHAPTER.match(chapter)
        return (split_credits(m["names"]) if m else ()), False
    white = tags.get("White", "")
    black = tags.get("Black", "")
    looks_like_study = black.startswith(("+", "=")) or (
        ("FEN" in tags or "Stipulation" in tags) and black in _EMPTY
    )
    if looks_like_study and white not in _EMPTY:
        return split_credits(white), False
    event = tags.get("Event", "")
    if "FEN" in tags and white in _EMPTY and black in _EMPTY and _PERSON_EVENT.match(event):
        return split_credits(event), True
    return (), False


def _composer_order(number: str) -> float:
    """Where a ``ComposerN`` tag's names go: ``Composer`` first, then ``Composer1``, then
    ``Composer2``, ``Composer3``, … (``number``: the tag's digits).

    >>> [_composer_order(n) for n in ("", "1", "2")]
    [0, 0.5, 2]
    """
    order = int(number) if number else 0
    return order if order != 1 else 0.5


def _stipulation(tags: Mapping[str, str]) -> tuple[str | None, int | None]:
    stipulation = tags.get("Stipulation")
    if stipulation is not None and stipulation.strip():
        return _read_stipulation(stipulation)
    black = tags.get("Black", "")
    if black.startswith("+"):
        return "win", None
    if black.startswith("="):
        return "draw", None
    result = tags.get("Result", "").replace(" ", "")
    if result == "1-0":
        return "win", None
    if result in ("1/2-1/2", "½-½"):
        return "draw", None
    return None, None


def _read_stipulation(text: str) -> tuple[str | None, int | None]:
    """A ``Stipulation`` tag's goal: ``+``, ``win``, ``=``, ``draw``, ``#8``, ``mate in 8``,
    also after the side to play, in words (``White to play and win``, ``White wins``).

    >>> _read_stipulation("White to play and mate in 3"), _read_stipulation("h#2")
    (('mate', 3), (None, None))
    """
    word = _SIDE_TO_PLAY.sub("", "".join(text.split()).casefold(), count=1)
    if word.startswith(("+", "win")):
        return "win", None
    if word.startswith(("=", "draw")):
        return "draw", None
    m = _MATE.match(word)
    if m:
        return "mate", int(m[1]) if m[1] else None
    return None, None


def _eg_numbers(*texts: str) -> tuple[int, ...]:
    numbers = [int(m[1]) for text in texts if _has_eg(text) for m in _EG.finditer(text)]
    return tuple(dict.fromkeys(numbers))


def _has_eg(text: str) -> bool:
    """Whether ``text`` may hold an EG reference: it has the letters, in any case (most
    texts have not, and are not searched).

    >>> _has_eg("eg#01335"), _has_eg("Tidskrift 1990")
    (True, False)
    """
    return "eg" in text.casefold()


def _source(
    source_rest: str,
    has_eg: bool,
    event_rest: str,
    chapter: str | None,
    event_is_composer: bool,
) -> tuple[str | None, bool]:
    """The source, and whether it came from ``Source`` (else from ``Event``).

    A text that is an award and nothing else (``Event "2.p"``) names no
    publication: the next rule gives the source, or none does.
    """
    source = _publication(source_rest)
    if source is not None and not has_eg:
        return source, True
    if chapter is None and not event_is_composer:
        event = _publication(event_rest)
        if event is not None:
            return event, False
    return source, source is not None


def _publication(text: str) -> str | None:
    """``text`` without its award, nor a final dot after a number (``… ty 1967.``); None
    when nothing else is left.

    >>> _publication("Israel Ring ty 1967."), _publication("2.p"), _publication("?")
    ('Israel Ring ty 1967', None, None)
    """
    if text in _EMPTY:
        return None
    rest = _cut_award(text)
    if rest is None or rest in _EMPTY:
        return None
    return _FINAL_DOT.sub("", rest).rstrip() or None


def _cut_award(text: str) -> str | None:
    """``text`` without its award and the separators around it; None if nothing is left."""
    found = _find_award(text)
    if found is None:
        return text
    start, end = found[3]
    before = text[:start].rstrip(_SEPARATORS)
    after = text[end:].lstrip(_SEPARATORS)
    rest = f"{before}, {after}" if before and after else before or after
    return rest.strip() or None


def _date_year(date: str) -> int | None:
    m = _DATE_YEAR.match(date)
    if m is None:
        return None
    year = int(m[1])
    return year or None


def _find_year(text: str) -> int | None:
    m = _YEAR.search(text)
    return int(m[1]) if m else None


def _award(award: str, event: str, source: str) -> tuple[str | None, str | None, int | None]:
    if award not in _EMPTY:
        found = _find_award(award)
        if found is not None:
            return award, found[1], found[2]
        return award, None, None
    for text in (event, source):
        found = _find_award(text)
        if found is not None:
            return found[:3]
    return None, None, None


def _rank_number(text: str) -> int:
    """The rank a prize's text starts with; "lst" is a misread "1st".

    >>> _rank_number("2nd"), _rank_number("3-4"), _rank_number("lst")
    (2, 3, 1)
    """
    if text.casefold() == "lst":
        return 1
    return int(_NOT_DIGIT.split(text, maxsplit=1)[0])


@lru_cache(maxsize=16)
def _find_award(text: str) -> tuple[str, str, int | None, tuple[int, int]] | None:
    """The first award in ``text``: (as written, kind, rank, its span).

    Remembered for a few texts: a study's ``Event`` is searched for its award, then cut
    of it (:func:`_cut_award`) when it is the source.
    """
    if not text:
        return None
    m = _SHORT_AWARD.match(text)
    if m and m["glued"] and not (m["rank"] and m["dot1"]):
        m = None  # only '1/2.p64' runs the award into the source
    if m and (m["rank"] or m["dot1"] or m["dot2"] or len(m["kind"]) > 1):
        kind = _KINDS[m["kind"].casefold().replace(".", "")]
        rank = _rank_number(m["rank"]) if m["rank"] else None
        return m["award"], kind, rank, m.span("award")
    m = _WORD_AWARD.search(text)
    if m:
        words = " ".join(re.sub(r"[.]", " ", m["kind"].casefold()).split())
        kind = _KINDS.get(words) or _KINDS.get(words.replace(" ", ""), "prize")
        rank = _rank_number(m["rank"]) if m["rank"] else None
        start, _ = m.span("award")
        award = m["award"].strip()
        return award, kind, rank, (start, start + len(award))
    return None
