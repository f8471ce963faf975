"""Composer names: reading a credit, splitting joint credits, and grouping names into persons.

Pure: no database.  A *credit* is a study's composer field as written
(``A & K Sarychev``); it splits into *names* (``A. Sarychev``,
``K. Sarychev``); names that are one person's are that person's *variants*.

Keys
    Every word is compared by a key (:func:`word_key`): transliterated to
    ASCII (``anyascii``: accents, Cyrillic, Georgian, Armenian …), lower
    case, letters and digits only (digits are kept as written, so
    ``Surname12`` and ``Surname13`` are two names), then in each run of
    letters these spellings made one, in order: ``tsch``,
    ``tch`` → ``ch``; ``sch``, ``sz`` → ``sh``; ``cz`` → ``ch``; ``x`` →
    ``ks``; ``w`` → ``v``; ``ph`` → ``f``; ``ck`` → ``k``; ``ou`` → ``u``;
    a final ``ic`` → ``ich`` (``-ič``/``-ić``); ``kh``, ``ch`` → ``h``;
    ``z`` → ``s`` (so ``tz`` = ``ts``, ``dze`` = ``dse``); ``y``, ``j`` →
    ``i`` (so ``ya``/``ja``/``ia``, ``-sky``/``-skij``/``-skii``); ``ie`` →
    ``e`` (``e``/``ë``/``ie``/``ye``); doubled letters made single; a final
    ``of``/``ef`` → ``ov``/``ev`` (``-off``, ``-ow``).  In given names a final
    ``er`` after a consonant loses its ``e`` (``Alexander`` = ``Aleksandr``).
Reading a name (:func:`parse_name`)
    ``Surname, Given Patronymic`` (``Réti, Richard``); HHdb's
    ``Surname=Initials`` (``Korolkov=V``); ``Given Surname`` and
    ``I. Surname`` (``Richard Reti``, ``R. Reti``; lower-case particles such
    as ``van der`` belong to the surname, also with no given name:
    ``de Feijter``); ``Surname I.`` (``Kasparyan G.M.``: initials after a
    surname); ``Surname Given Patronymic`` when
    the last word is a patronymic (``-ovich``, ``-evna`` …); one word: a
    surname alone.
One person (:func:`group_names`), conservatively
    Names whose surname keys differ are never joined automatically.  Among
    names with one surname key, given names are compared word by word:
    equal keys, or an initial that starts the other's name; extra words
    (a patronymic, a second given name) are optional.  First names spelled
    alike but not equal (``Ernst``/``Ernest``) count only when another given
    word (the patronymic) is equal.  A name joins a person only when exactly
    one person is compatible with it (full names first, then initials); a
    surname alone joins a person only when exactly one person has that
    surname, and is otherwise left for review.  So ``Platov, Mikhail`` and
    ``Platov, Vasily`` are two persons, and ``Platov`` stays apart.  User
    decisions come first: ``same`` pairs are joined, ``apart`` pairs never.
    Names are compared through an index of blocking keys (first letters, the
    first given name, later given names), never all pairs: the time grows
    with the names, not their square (``bench/bench_persons.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from anyascii import anyascii

__all__ = [
    "Name",
    "Suggestion",
    "fold",
    "given_compatible",
    "group_names",
    "parse_name",
    "query_names",
    "split_credits",
    "suggest_pairs",
    "word_key",
]

_EMPTY = {"", "?", "-"}
#: Rewrites of the folded word, in order (see the module docstring).
_KEY_RULES = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"tsch|tch", "ch"),
        (r"sch|sz", "sh"),
        (r"cz", "ch"),
        (r"x", "ks"),
        (r"w", "v"),
        (r"ph", "f"),
        (r"ck(?=i[ijy]?\Z)", "tsk"),  # Troickij, Nowicki: the c of ISO 9 and Polish is ts
        (r"ck", "k"),
        (r"ou", "u"),
        (r"(?<=i)c\Z", "ch"),
        (r"kh|ch", "h"),
        (r"z", "s"),
        (r"[yj]", "i"),
        (r"ie", "e"),
        (r"(.)\1+", r"\1"),
        (r"of\Z", "ov"),
        (r"ef\Z", "ev"),
    )
)
_GIVEN_ER = re.compile(r"(?<=[^aeiou])er\Z")
_NOT_LETTER = re.compile(r"[^a-z]+")
_NOT_LETTER_OR_DIGIT = re.compile(r"[^a-z0-9]+")
_DIGITS = re.compile(r"([0-9]+)")
_LETTER = re.compile(r"[a-z]")
_SPLIT = re.compile(r"\s*(?:;|/|\s&\s|&|\s+and\s+|\s+und\s+|\s+et\s+)\s*", re.IGNORECASE)
_SPLIT_NO_SLASH = re.compile(r"\s*(?:;|\s&\s|&|\s+and\s+|\s+und\s+|\s+et\s+)\s*", re.IGNORECASE)
_HHDB = re.compile(r"\s*(?P<surname>[^\W\d_][^=;]*?)=(?P<initials>[A-Z][A-Z.]{0,5})(?=\s|\Z)")
_INITIAL = re.compile(r"(?:[^\W\d_]{1,2}\.|[^\W\d_])\Z")
_INITIALS_ONLY = re.compile(r"(?:[^\W\d_]{1,2}\.\s*|[^\W\d_]\s+|[^\W\d_]\Z)+\Z")
_PATRONYMIC = re.compile(r"(?:ovi?(?:ch|c|č|ć)|evi?(?:ch|c|č|ć)|ovna|evna|ichna)\Z", re.IGNORECASE)
_SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii"}
_WORD = re.compile(r"[^\s.]+\.?|\.")
#: First names at least this alike (``rapidfuzz`` ratio, 0-100) may be one, if corroborated.
ALIKE = 80.0


def fold(text: str) -> str:
    """Fold a name for comparing: ASCII transliteration, lower case, single spaces.

    >>> fold("  Réti,   Richard ")
    'reti, richard'
    >>> fold("Троицкий, Øbro, Weiß")
    'troitskiy, obro, weiss'
    """
    ascii_text = anyascii(text.casefold()).lower()
    return " ".join(ascii_text.split())


def word_key(word: str, *, given: bool = False) -> str:
    """The transliteration key of one word: spellings of one name give one key.

    >>> [word_key(w) for w in ("Troitzky", "Troitsky", "Troitskij", "Troickij", "Троицкий")]
    ['troitski', 'troitski', 'troitski', 'troitski', 'troitski']
    >>> word_key("Kasparian") == word_key("Kasparyan") == word_key("Kasparjan")
    True
    >>> word_key("Alexander", given=True) == word_key("Aleksandr", given=True)
    True
    >>> word_key("Surname12"), word_key("Surname112")
    ('surname12', 'surname112')
    """
    runs = _DIGITS.split(_NOT_LETTER_OR_DIGIT.sub("", fold(word)))
    # runs alternate letters, digits, letters …: the rules apply to the letters only
    return "".join(
        _letters_key(run, given=given) if i % 2 == 0 else run for i, run in enumerate(runs)
    )


def _letters_key(letters: str, *, given: bool) -> str:
    for pattern, replacement in _KEY_RULES:
        letters = pattern.sub(replacement, letters)
    if given:
        letters = _GIVEN_ER.sub("r", letters)
    return letters


@dataclass(frozen=True, slots=True)
class Name:
    """A composer's name read into surname and given names (initials end with a dot)."""

    text: str
    surname: str
    given: tuple[str, ...] = ()

    @property
    def surname_key(self) -> str:
        """The surname's transliteration key (``''`` for a name without letters or digits)."""
        return "".join(word_key(part) for part in self.surname.split())

    @property
    def given_keys(self) -> tuple[str, ...]:
        """Each given name's key (an initial's key is short: ``'r'``)."""
        return tuple(k for k in (word_key(g, given=True) for g in self.given) if k)

    @property
    def initials_only(self) -> bool:
        """Whether every given name is an initial (``R. Reti``)."""
        return bool(self.given) and all(_is_initial(g) for g in self.given)

    @property
    def full_given(self) -> tuple[str, ...]:
        """The keys of the given names written in full."""
        return tuple(
            word_key(g, given=True) for g in self.given if not _is_initial(g) and word_key(g)
        )


def _is_initial(word: str) -> bool:
    return bool(_INITIAL.match(word))


def parse_name(text: str) -> Name:
    """Read a name into surname and given names.

    >>> parse_name("Réti, Richard")
    Name(text='Réti, Richard', surname='Réti', given=('Richard',))
    >>> parse_name("R. Reti").given, parse_name("Richard Reti").surname
    (('R.',), 'Reti')
    >>> parse_name("Korolkov=V")
    Name(text='Korolkov=V', surname='Korolkov', given=('V.',))
    >>> parse_name("Troitsky Alexey Alexeyevich").surname
    'Troitsky'
    >>> parse_name("Harold van der Heijden").surname
    'van der Heijden'
    >>> parse_name("Kasparyan G.M.")
    Name(text='Kasparyan G.M.', surname='Kasparyan', given=('G.', 'M.'))
    """
    original, text = text, " ".join(text.split())
    hhdb = _HHDB.fullmatch(text)
    if hhdb:
        return Name(original, hhdb["surname"], _initials(hhdb["initials"]))
    if "," in text:
        surname, _, given = text.partition(",")
        return Name(original, surname.strip(), _given_words(given))
    words = _WORD.findall(text)
    if len(words) <= 1:
        return Name(original, text)
    suffix: list[str] = []
    while len(words) > 2 and words[-1].casefold() in _SUFFIXES:
        suffix.insert(0, words.pop())
    if len(words) >= 3 and _PATRONYMIC.search(words[-1]) and not _is_initial(words[0]):
        return Name(original, " ".join([words[0], *suffix]), tuple(words[1:]))
    initials = len(words)
    while initials > 1 and _is_initial(words[initials - 1]):
        initials -= 1
    if initials < len(words) and not _is_initial(words[initials - 1]):  # Kasparyan G.M.
        surname = " ".join([*words[:initials], *suffix])
        return Name(original, surname, tuple(_dotted(w) for w in words[initials:]))
    start = len(words) - 1
    while start > 1 and words[start - 1][:1].islower():  # van der Heijden
        start -= 1
    if start == 1 and words[0][:1].islower() and not words[-1][:1].islower():
        start = 0  # particles and a surname, no given name: de Feijter
    surname = " ".join([*words[start:], *suffix])
    return Name(original, surname, tuple(_dotted(w) for w in words[:start]))


def _given_words(text: str) -> tuple[str, ...]:
    return tuple(_dotted(word) for word in _WORD.findall(text) if word != ".")


def _dotted(word: str) -> str:
    """A single letter becomes an initial with its dot (``R`` → ``R.``)."""
    return f"{word}." if len(word) == 1 and word.isalpha() else word


def _initials(text: str) -> tuple[str, ...]:
    """``V``, ``VA``, ``V.A.`` → ``('V.',)``, ``('V.', 'A.')``."""
    letters = text.replace(".", "")
    if letters.isalpha() and letters.isupper():
        return tuple(f"{letter}." for letter in letters)
    return (_dotted(text),)


def split_credits(text: str, *, slash: bool = True) -> tuple[str, ...]:
    """Split a joint credit into names: ``;``, ``/``, ``&``, ``and``; HHdb's ``Surname=I`` lists.

    Initials standing alone share the surname that follows them, or else the
    surname of the ``Surname, Given`` name before them (``Sarychev, A. & K.``):
    an initial is never a name of its own.  ``slash``: also split at ``/``
    (HHdb's and lichess's lists; not a ``Composer`` tag).

    >>> split_credits("A & K Sarychev")
    ('A. Sarychev', 'K. Sarychev')
    >>> split_credits("Korolkov=V Mitrofanov=L")
    ('Korolkov, V.', 'Mitrofanov, L.')
    >>> split_credits("Lasker, Emanuel & Reichhelm, Gustavus Charles")
    ('Lasker, Emanuel', 'Reichhelm, Gustavus Charles')
    >>> split_credits("Réti, Richard")
    ('Réti, Richard',)
    >>> split_credits("Platov, V. & M.")
    ('Platov, V.', 'Platov, M.')
    """
    names: list[str] = []
    pending: list[str] = []  # bare initials waiting for their surname
    for part in (_SPLIT if slash else _SPLIT_NO_SLASH).split(text.strip()):
        part = part.strip()
        if part in _EMPTY:
            continue
        if "=" in part and _HHDB.match(part):
            hhdb = [(m["surname"], m["initials"]) for m in _HHDB.finditer(part)]
            names.extend(f"{surname}, {' '.join(_initials(i))}" for surname, i in hhdb)
            continue
        if _INITIALS_ONLY.match(part) and "," not in part:
            pending.append(" ".join(_dotted(w) for w in _WORD.findall(part) if w != "."))
            continue
        if pending:
            name = parse_name(part)
            if "," not in part and name.given:
                names.extend(f"{initials} {name.surname}" for initials in pending)
                part = " ".join([*name.given, name.surname])
            else:
                names.extend(_orphan_initials(pending, names))
            pending = []
        names.extend(_comma_list(part) or [part])
    names.extend(_orphan_initials(pending, names))
    return tuple(names)


def _comma_list(part: str) -> list[str] | None:
    """The names of a list joined by commas, each with both initials and a full word
    (``L. Mitrofanov, V. Korolkov``); None for a ``Surname, Given`` name, whose surname
    has no initial (``Troitzky, A. A.``, ``de Feijter, C. J.``).

    >>> _comma_list("L. Mitrofanov, V. Korolkov"), _comma_list("de Feijter, C. J.")
    (['L. Mitrofanov', 'V. Korolkov'], None)
    """
    if "," not in part:
        return None
    listed = [name.strip() for name in part.split(",")]
    for name in listed:
        words = [word for word in _WORD.findall(name) if word != "."]
        if not any(map(_is_initial, words)) or all(map(_is_initial, words)):
            return None
    return listed


def _orphan_initials(pending: list[str], names: list[str]) -> list[str]:
    """Initials with no surname after them: the surname of the name before them when it
    has a surname and given names (``Sarychev, A. & K.``, ``Reti R. & K.``), else as
    they are.

    >>> _orphan_initials(["K."], ["Sarychev, A."]), _orphan_initials(["K."], ["Kubbel"])
    (['Sarychev, K.'], ['K.'])
    """
    if not pending or not names:
        return pending
    before = parse_name(names[-1])
    if not before.given:
        return pending
    return [f"{before.surname}, {initials}" for initials in pending]


# -- comparing names ------------------------------------------------------------------------


def _alike(a: str, b: str) -> bool:
    from rapidfuzz.fuzz import ratio

    return (
        a[:1] == b[:1]
        and min(len(a), len(b)) >= 4
        and _DIGITS.findall(a) == _DIGITS.findall(b)  # Given12 and Given13 are not alike
        and ratio(a, b) >= ALIKE
    )


def _word_compatible(a: str, b: str, a_initial: bool, b_initial: bool) -> bool:
    ka, kb = word_key(a, given=True), word_key(b, given=True)
    if a_initial or b_initial:
        short, long = (ka, kb) if len(ka) <= len(kb) else (kb, ka)
        fa, fb = _NOT_LETTER.sub("", fold(a)), _NOT_LETTER.sub("", fold(b))
        fshort, flong = (fa, fb) if len(fa) <= len(fb) else (fb, fa)
        return long.startswith(short) or flong.startswith(fshort)
    return ka == kb


def given_compatible(a: Name, b: Name) -> bool:
    """Whether the given names of ``a`` and ``b`` may be one person's.

    Word by word: equal keys or a matching initial; extra words are optional.
    First names spelled alike count when a later full word is equal.

    >>> given_compatible(parse_name("R. Reti"), parse_name("Reti, Richard"))
    True
    >>> given_compatible(parse_name("Platov, Mikhail"), parse_name("Platov, Vasily"))
    False
    >>> given_compatible(parse_name("Pogosjants, Ernst Levonovic"),
    ...                  parse_name("Pogosyants, Ernest Levonovich"))
    True
    """
    pairs = list(zip(a.given, b.given, strict=False))
    mismatched = 0
    corroborated = False
    for x, y in pairs:
        xi, yi = _is_initial(x), _is_initial(y)
        if _word_compatible(x, y, xi, yi):
            corroborated = corroborated or not (xi or yi)
            continue
        if xi or yi or not _alike(word_key(x, given=True), word_key(y, given=True)):
            return False
        mismatched += 1
    return mismatched == 0 or corroborated


def _compatible(a: Name, b: Name) -> bool:
    return a.surname_key == b.surname_key and given_compatible(a, b)


# -- grouping names into persons -----------------------------------------------------------


class _Groups:
    """Union-find over names, with the ``apart`` pairs that may never be joined."""

    def __init__(self, names: Iterable[str], apart: Iterable[tuple[str, str]]) -> None:
        self.parent = {name: name for name in names}
        self.members = {name: [name] for name in self.parent}
        #: Roots of the persons a user joined names of: their names need not all agree.
        self.decided: set[str] = set()
        #: Names a user gave a person as an alias.
        self.aliases: set[str] = set()
        self.apart: dict[str, set[str]] = {}
        for a, b in apart:
            self.apart.setdefault(a, set()).add(b)
            self.apart.setdefault(b, set()).add(a)

    def find(self, name: str) -> str:
        root = name
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[name] != root:
            self.parent[name], name = root, self.parent[name]
        return root

    def kept_apart(self, a: str, b: str) -> bool:
        ra, rb = self.find(a), self.find(b)
        others = set(self.members[rb])
        return any(self.apart.get(m, set()) & others for m in self.members[ra])

    def join(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        if len(self.members[ra]) < len(self.members[rb]):
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.members[ra].extend(self.members.pop(rb))
        if rb in self.decided:
            self.decided.discard(rb)
            self.decided.add(ra)

    def groups(self) -> list[tuple[str, ...]]:
        found = {self.find(name) for name in self.parent}
        return sorted(tuple(sorted(self.members[root])) for root in found)


def group_names(
    names: Iterable[str],
    *,
    same: Iterable[tuple[str, str]] = (),
    apart: Iterable[tuple[str, str]] = (),
    aliases: Iterable[str] = (),
) -> list[tuple[str, ...]]:
    """Group names into persons (see the module docstring); each group sorted, groups sorted.

    ``same``/``apart``: pairs of names a user said are one person / two.
    ``aliases``: names a user gave a person (``composers alias``): each stays with the
    person it was given to, even where its surname's rules would join it to another.

    >>> group_names(["Troitsky", "Troitzky, Alexey Alexeyevich", "Troitski, A."])
    [('Troitski, A.', 'Troitsky', 'Troitzky, Alexey Alexeyevich')]
    >>> group_names(["Platov, Mikhail", "Platov, Vasily", "Platov"])
    [('Platov',), ('Platov, Mikhail',), ('Platov, Vasily',)]
    >>> group_names(["100%", "' OR '1'='1"])
    [("' OR '1'='1",), ('100%',)]
    """
    unique = sorted(set(names))
    groups = _Groups(unique, apart)
    groups.aliases = set(aliases)
    for a, b in same:
        if a in groups.parent and b in groups.parent:
            groups.join(a, b)
            groups.decided.add(groups.find(a))
    parsed = {name: parse_name(name) for name in unique}
    by_surname: dict[str, list[Name]] = {}
    for name in parsed.values():
        by_surname.setdefault(name.surname_key, []).append(name)
    for key, bucket in by_surname.items():
        if _LETTER.search(key):  # a name without a surname's letters ('100%') is nobody else
            _group_bucket(groups, parsed, bucket)
    return groups.groups()


def _group_bucket(groups: _Groups, parsed: Mapping[str, Name], bucket: list[Name]) -> None:
    """Join the names of one surname key: full names, then initials, then surnames alone.

    Each name is compared with the names before it, the most complete first,
    through a :class:`_Blocks` index: only with the names that may be compatible.
    """
    with_full = [n for n in bucket if n.full_given]
    with_initials = [n for n in bucket if n.given and not n.full_given]
    alone = [n for n in bucket if not n.given]
    with_full.sort(key=lambda n: (-len(n.full_given), -len(n.given), n.text))
    with_initials.sort(key=lambda n: (-len(n.given), n.text))
    blocks = _Blocks([*with_full, *with_initials])
    done: set[str] = set()
    for name in (*with_full, *with_initials):
        _join_unique(groups, parsed, name, blocks.candidates(name), done)
        done.add(name.text)
    key = bucket[0].surname_key
    alone = [n for n in alone if not _placed_elsewhere(groups, parsed, n.text, key)]
    for name in alone[1:]:
        if not groups.kept_apart(alone[0].text, name.text):
            groups.join(alone[0].text, name.text)
    persons = {
        groups.find(n.text)
        for n in bucket
        if n.given and not _placed_elsewhere(groups, parsed, n.text, key)
    }
    if len(persons) != 1:
        return
    (only,) = persons
    for name in alone:
        if groups.find(name.text) != only and not groups.kept_apart(name.text, only):
            groups.join(name.text, only)


def _placed_elsewhere(groups: _Groups, parsed: Mapping[str, Name], name: str, key: str) -> bool:
    """Whether ``name`` is an alias a user gave a person with a name of another surname (a
    pseudonym): the rules of its own surname then leave it where the user put it.

    >>> group_names(["Kubbel", "Kubbel, Leonid", "Lasker, Emanuel"],
    ...             same=[("Kubbel", "Lasker, Emanuel")], aliases=["Kubbel"])
    [('Kubbel', 'Lasker, Emanuel'), ('Kubbel, Leonid',)]
    """
    if name not in groups.aliases:
        return False
    root = groups.find(name)
    return root in groups.decided and any(
        parsed[member].surname_key != key for member in groups.members[root]
    )


class _Blocks:
    """An index of names by blocking keys: two names whose given names may be compatible
    (:func:`given_compatible`) share a key, so each name is compared with few others.

    Keys, from the given words: the first letters of the first word (its key's and its
    folded letters'), for every name (``first``) and for an initial (``initial``); a
    full first word's key (``full``); each later full word's key with its place (``at``,
    the equal word that lets first names spelled alike count).  A first word without
    letters may fit anything: such names are compared with every name.
    """

    def __init__(self, names: Sequence[Name]) -> None:
        self.names = list(names)
        self.index: dict[tuple[str | int, ...], list[Name]] = {}
        self.anything: list[Name] = []
        for name in names:
            letters = _first_letters(name)
            if letters is None:
                self.anything.append(name)
                continue
            first = name.given[0]
            keys: list[tuple[str | int, ...]] = [("first", c) for c in letters]
            if _is_initial(first):
                keys.extend(("initial", c) for c in letters)
            else:
                keys.append(("full", word_key(first, given=True)))
            keys.extend(("at", i, k) for i, k in _later_full(name))
            for key in set(keys):
                self.index.setdefault(key, []).append(name)

    def candidates(self, name: Name) -> Iterable[Name]:
        """The names that may be compatible with ``name`` (``name`` among them)."""
        letters = _first_letters(name)
        if letters is None:
            return self.names
        first = name.given[0]
        if _is_initial(first):
            wanted: list[tuple[str | int, ...]] = [("first", c) for c in letters]
        else:
            wanted = [("full", word_key(first, given=True))]
            wanted.extend(("initial", c) for c in letters)
            wanted.extend(("at", i, k) for i, k in _later_full(name))
        found = {id(n): n for key in wanted for n in self.index.get(key, ())}
        found.update((id(n), n) for n in self.anything)
        return found.values()


def _first_letters(name: Name) -> set[str] | None:
    """The first letters of the first given word's key and folded letters; None if it has none."""
    first = name.given[0]
    key, letters = word_key(first, given=True), _NOT_LETTER.sub("", fold(first))
    if not key or not letters:
        return None
    return {key[0], letters[0]}


def _later_full(name: Name) -> list[tuple[int, str]]:
    return [
        (i, word_key(word, given=True))
        for i, word in enumerate(name.given)
        if i and not _is_initial(word)
    ]


def _join_unique(
    groups: _Groups,
    parsed: Mapping[str, Name],
    name: Name,
    candidates: Iterable[Name],
    done: set[str],
) -> None:
    """Join ``name`` to the one person compatible with it, if exactly one is.

    The persons looked at are those of the ``candidates`` that have a name in ``done``.
    """
    own = groups.find(name.text)
    if _placed_elsewhere(groups, parsed, name.text, name.surname_key):
        return  # a user put it with a name of another surname: it stays there
    roots = {groups.find(other.text) for other in candidates} - {own}
    compatible = [
        root
        for root in sorted(roots)
        if any(member in done for member in groups.members[root])
        and _fits(groups, parsed, name.text, root)
    ]
    if len(compatible) == 1:
        groups.join(name.text, compatible[0])


def _fits(groups: _Groups, parsed: Mapping[str, Name], name: str, root: str) -> bool:
    """Whether every name of ``name``'s person may be one with every name of ``root``'s."""
    if groups.kept_apart(name, root):
        return False
    own = groups.find(name)
    mine = [parsed[n] for n in groups.members[own] if parsed[n].given]
    theirs = [parsed[n] for n in groups.members[root] if parsed[n].given]
    if not any(_compatible(parsed[name], b) for b in theirs):
        return False
    if own in groups.decided or root in groups.decided:  # a user said these names are one
        return True
    return all(
        given_compatible(a, b) for a in mine for b in theirs if a.surname_key == b.surname_key
    )


# -- suggestions ------------------------------------------------------------------------


@dataclass(frozen=True)
class Suggestion:
    """Two persons that are probably one: their ids, a score (0-1) and the evidence."""

    first: int
    second: int
    score: float
    evidence: tuple[str, ...] = field(default=())


def suggest_pairs(
    persons: Mapping[int, Sequence[str]],
    *,
    years: Mapping[int, tuple[int | None, int | None]] | None = None,
    apart: Iterable[tuple[int, int]] = (),
    minimum: float = 0.5,
) -> list[Suggestion]:
    """Pairs of persons (id → variant names) that are probably one person, best first.

    Evidence: the same surname key with a surname alone or first names
    spelled alike; surnames spelled alike with compatible given names;
    overlapping years active.  ``apart``: pairs a user said are two persons.

    >>> [s.evidence[0] for s in suggest_pairs({1: ["Sarychev"], 2: ["Sarychev, Kirill"],
    ...                                          3: ["Sarychev, Alexander"]})]
    ['surname alone: Sarychev (2 persons have it)', 'surname alone: Sarychev (2 persons have it)']
    """
    from rapidfuzz.fuzz import ratio

    years = years or {}
    excluded = {frozenset(pair) for pair in apart}
    parsed = {pid: [parse_name(n) for n in names] for pid, names in persons.items()}
    by_key: dict[str, set[int]] = {}
    for pid, names in parsed.items():
        for name in names:
            by_key.setdefault(name.surname_key, set()).add(pid)
    found: dict[tuple[int, int], Suggestion] = {}

    def offer(a: int, b: int, score: float, evidence: str) -> None:
        pair = (min(a, b), max(a, b))
        if a == b or frozenset(pair) in excluded:
            return
        more = _years_evidence(years.get(a), years.get(b))
        if more:
            score = min(1.0, score + 0.05)
        old = found.get(pair)
        if old is None or old.score < score:
            found[pair] = Suggestion(*pair, round(score, 2), (evidence, *more))

    for key, pids in by_key.items():
        if not key or len(pids) < 2:
            continue
        with_given = {pid for pid in pids if any(n.given for n in parsed[pid])}
        for pid in sorted(pids - with_given):
            label = next(n.surname for n in parsed[pid] if not n.given)
            for other in sorted(with_given):
                evidence = f"surname alone: {label} ({len(with_given)} persons have it)"
                offer(pid, other, 0.5 + 0.4 / len(with_given), evidence)
        for a in sorted(with_given):
            for b in sorted(with_given):
                if a < b:
                    _offer_first_names(parsed[a], parsed[b], a, b, offer)
    # surnames alike: keys of one first letter and the same digits (Surname12 and
    # Surname13 are two names, never alike), compared pairwise within each block
    blocks: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for key in sorted(k for k in by_key if len(k) >= 4):
        blocks.setdefault((key[:1], tuple(_DIGITS.findall(key))), []).append(key)
    pairs = (
        (first_key, second_key)
        for keys in blocks.values()
        for i, first_key in enumerate(keys)
        for second_key in keys[i + 1 :]
    )
    for first_key, second_key in pairs:
        similarity = ratio(first_key, second_key) / 100
        if similarity < ALIKE / 100:
            continue
        for pa in sorted(by_key[first_key]):
            for pb in sorted(by_key[second_key]):
                _offer_surnames(parsed[pa], parsed[pb], pa, pb, similarity, offer)
    return sorted(
        (s for s in found.values() if s.score >= minimum),
        key=lambda s: (-s.score, s.first, s.second),
    )


_Offer = Callable[[int, int, float, str], None]


def _offer_first_names(
    names_a: Sequence[Name], names_b: Sequence[Name], a: int, b: int, offer: _Offer
) -> None:
    for x in names_a:
        for y in names_b:
            if not (x.full_given and y.full_given) or x.surname_key != y.surname_key:
                continue
            fx, fy = x.full_given[0], y.full_given[0]
            if fx != fy and _alike(fx, fy):
                from rapidfuzz.fuzz import ratio

                offer(a, b, 0.5 + ratio(fx, fy) / 250, f"first names alike: {x.text} / {y.text}")


def _offer_surnames(
    names_a: Sequence[Name],
    names_b: Sequence[Name],
    a: int,
    b: int,
    similarity: float,
    offer: _Offer,
) -> None:
    for x in names_a:
        for y in names_b:
            if x.given and y.given and not given_compatible(x, y):
                continue
            offer(a, b, similarity * 0.8, f"surnames alike: {x.text} / {y.text}")


def _years_evidence(
    a: tuple[int | None, int | None] | None, b: tuple[int | None, int | None] | None
) -> tuple[str, ...]:
    if not a or not b or None in a or None in b:
        return ()
    (a0, a1), (b0, b1) = a, b
    if a0 is None or a1 is None or b0 is None or b1 is None or a0 > b1 or b0 > a1:
        return ()
    return (f"years overlap: {a0}-{a1} and {b0}-{b1}",)


# -- search ------------------------------------------------------------------------------


def query_names(text: str) -> list[Name]:
    """The readings of a ``--composer`` query as a name (both word orders for two words).

    >>> [(n.surname, n.given) for n in query_names("Richard Reti")]
    [('Reti', ('Richard',)), ('Richard', ('Reti',))]
    """
    name = parse_name(text)
    readings = [name]
    words = text.split()
    if "," not in text and len(words) == 2 and not _is_initial(words[0]):
        readings.append(Name(text, words[0], (words[1],)))
    return [reading for reading in readings if reading.surname_key]
