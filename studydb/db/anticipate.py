"""Anticipation checks and versions: which stored studies share positions with a game.

A game (from a file, or a stored study) is replayed once; its positions with
at least ``min_men`` men are looked up in the position index by their
similar key (one indexed range per key), and the rows found are matched
exactly, or by symmetry with ``similar``, in Python.

>>> DEFAULT_MIN_MEN
5
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, fields, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

import chess
from sqlalchemy import Engine, Select, and_, func, select

from studydb.db.conditions import build_condition
from studydb.db.connect import database_errors, describe
from studydb.db.models import Material, Position, Study
from studydb.db.persons import Credit, persons_of
from studydb.db.search import (
    chunks,
    composers_of,
    is_id_in_range,
    moves_to_nodes,
    not_compared,
    stored_id,
)
from studydb.errors import PgnError, QueryError
from studydb.facts import start_men
from studydb.filters import DEFAULT_MIN_MEN, Filters
from studydb.headers import read_info, start_fen
from studydb.movetext import StopWalk, Visitor, movetext_of, numbered_san, walk
from studydb.pgn import open_pgn, read_games
from studydb.positions import Keys, colour_reversed, keys, transformation
from studydb.vocabulary import STUDY

if TYPE_CHECKING:
    from studydb.db.search import StoredStudy

__all__ = [
    "DEFAULT_MIN_MEN",
    "Anticipation",
    "CheckedGame",
    "GameToCheck",
    "GroupedVersion",
    "Related",
    "Shared",
    "Version",
    "anticipations",
    "games_named",
    "study_game",
    "versions",
]

#: Positions with fewer men are not counted: four-man endings (K+Q v K, K+R v K+P …)
#: are textbook material that thousands of studies share.
#: Keys per ``IN (…)`` list.
_CHUNK = 500


@dataclass(frozen=True)
class Shared:
    """A position both games reach: where in the game checked, where in the other study."""

    ply: int
    main: bool
    other_ply: int
    other_main: bool
    fen: str
    colour_reversed: bool = False
    #: The position's node in the other study (``studydb show ID --node N``).
    other_node: int = 0
    #: The move that reached it in the game checked (``'2.Kf6'``; ``''`` at the start).
    move: str = ""
    #: The move that reached it in the other study.
    other_move: str = ""
    #: How the game's position becomes the other's (``mirrored``, ``rotated 90°
    #: clockwise``, ``shifted 1 file to the left``; ``''``: the same position).
    transformation: str = ""


@dataclass
class Anticipation:
    """A stored study sharing positions with the game checked."""

    id: int
    composers: list[str]
    year: int | None
    source: str | None
    gbr: str
    shared: list[Shared] = field(default_factory=list)
    #: Dated the same year as the game checked: which came first is not known.
    same_year: bool = False
    #: The persons credited, in credit order.
    persons: list[Credit] = field(default_factory=list)

    @property
    def first_ply(self) -> int:
        return min(s.ply for s in self.shared)

    @property
    def first_move(self) -> str:
        """The move after which the first shared position stands (``''``: the start)."""
        return min(self.shared, key=lambda s: (s.ply, not s.main)).move

    @property
    def positions(self) -> int:
        """How many distinct positions of the game checked the study shares (each once)."""
        return len({_placement(s.fen) for s in self.shared})

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["persons"] = [{"id": pid, "name": name} for pid, name in self.persons]
        data["first_ply"] = self.first_ply
        data["first_move"] = self.first_move
        data["positions"] = self.positions
        return data


def _placement(fen: str) -> str:
    """A FEN's men and side to move: a position reached twice is one position."""
    return " ".join(fen.split()[:2])


class _Mine(NamedTuple):
    """A position of the game checked (:func:`_my_positions`)."""

    keys: Keys  # of the position, or of its colour reversal
    node: int
    ply: int
    main: bool
    reversed: bool


class _MyPositions(Visitor):
    """The walk behind :func:`_my_positions`: every position with enough men."""

    def __init__(
        self, board: chess.Board, *, either_colour: bool, min_men: int, most: int | None = None
    ) -> None:
        self.either_colour = either_colour
        self.min_men = min_men
        self.most = most  # the last node to look at (None: all)
        self.mine: list[_Mine] = []
        self.add(board, 0, True)

    def visit_move(self, board: chess.Board, move: chess.Move, node: int, parent: int) -> None:
        if self.most is not None and node > self.most:
            raise StopWalk

    def visit_position(self, board: chess.Board, node: int, parent: int, main: bool) -> None:
        self.add(board, node, main)

    def add(self, board: chess.Board, node: int, main: bool) -> None:
        if chess.popcount(board.occupied) < self.min_men:
            return
        ply = len(board.move_stack)
        self.mine.append(_Mine(keys(board), node, ply, main, False))
        if self.either_colour:
            self.mine.append(_Mine(keys(colour_reversed(board)), node, ply, main, True))


@lru_cache(maxsize=8)
def _my_positions(
    fen: str, text: str, *, either_colour: bool, min_men: int, most: int | None = None
) -> tuple[_Mine, ...]:
    """The game's positions with enough men, in its first ``most`` moves (None: all).

    Kept for the last few games asked about: a study page asks again for each part of a
    long solution, and a position costs some 30 us (its keys).

    >>> [(node, ply) for _, node, ply, _, _ in _my_positions(
    ...     chess.STARTING_FEN, "1. e4 (1. d4) e5 *", either_colour=False, min_men=5)]
    [(0, 0), (1, 1), (2, 1), (3, 2)]
    """
    board = chess.Board(fen)
    visitor = _MyPositions(board, either_colour=either_colour, min_men=min_men, most=most)
    return tuple(walk(board, text, visitor).mine)


class _Reached(Visitor):
    """The walk behind :func:`_reached`."""

    def __init__(self, board: chess.Board, nodes: set[int]) -> None:
        self.nodes = nodes
        self.last = max(nodes, default=0)
        self.move = ""
        self.found = {0: (board.fen(), "")} if 0 in nodes else {}

    def visit_move(self, board: chess.Board, move: chess.Move, node: int, parent: int) -> None:
        if node > self.last:
            raise StopWalk
        if node in self.nodes:
            self.move = numbered_san(board, move)

    def visit_position(self, board: chess.Board, node: int, parent: int, main: bool) -> None:
        if node in self.nodes:
            self.found[node] = (board.fen(), self.move)


def _reached(fen: str, text: str, nodes: set[int]) -> dict[int, tuple[str, str]]:
    """The FEN of each of the game's ``nodes`` and the numbered move that reaches it
    (``''`` at the start): written out only for the positions some study shares, in a walk
    that stops at the last of them.

    >>> _reached("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1", "1. c7 Rd6+ 2. Kb5 *", {2})
    {2: ('8/2P5/1K1r4/8/8/8/8/k7 w - - 1 2', '1...Rd6+')}
    """
    if not nodes:
        return {}
    board = chess.Board(fen)
    return walk(board, text, _Reached(board, nodes)).found


def _same_year(year: int | None, before: int | None) -> bool:
    """Whether a study of ``year`` is of the year anticipations are looked for up to (an
    undated one is of no year).

    >>> _same_year(1925, 1925), _same_year(None, None), _same_year(1900, 1925)
    (True, False, False)
    """
    return before is not None and year == before


def anticipations(
    engine: Engine,
    fen: str,
    movetext: str,
    *,
    similar: bool = False,
    either_colour: bool = False,
    min_men: int = DEFAULT_MIN_MEN,
    before: int | None = None,
    exclude: int | None = None,
    filters: Filters | None = None,
    most: int | None = None,
) -> list[Anticipation]:
    """The stored studies sharing positions with the game, best first.

    Ranked by how early in the game the first shared position comes, then by
    how many positions are shared.  ``before`` keeps studies dated earlier and
    those of the same year (``same_year``: which came first is not known;
    undated ones are left out); ``exclude`` is the game's own id.  ``most``
    looks at the positions of the game's first ``most`` moves only (nodes, in
    reading order), so that the cost is bounded by them.
    """
    mine = _my_positions(fen, movetext, either_colour=either_colour, min_men=min_men, most=most)
    by_key: dict[int, list[_Mine]] = {}
    for position in mine:
        by_key.setdefault(position.keys.similar, []).append(position)
    condition = build_condition(filters)
    if before is not None:
        condition = and_(condition, Study.year <= before)
    if exclude is not None:
        condition = and_(condition, Study.id != exclude)
    found: dict[int, Anticipation] = {}
    #: (study, a position of the game, its ply, line, node and image in the study)
    matches: list[tuple[Anticipation, _Mine, int, bool, int, int]] = []
    with database_errors(engine), engine.connect() as conn:
        for chunk in chunks(sorted(by_key), _CHUNK):
            rows = conn.execute(
                select(
                    Position.similar,
                    Position.image,
                    Position.ply,
                    Position.main,
                    Position.node,
                    Study.id,
                    Study.year,
                    Study.source,
                    Study.gbr,
                )
                .join(Study, Study.id == Position.study_id)
                .join(Material, Material.id == Position.material_id)
                .where(Position.similar.in_(chunk), Material.men >= min_men, condition)
            )
            for key, image, ply, main, node, study_id, year, source, code in rows:
                for position in by_key[key]:
                    if not similar and position.keys.image != image:
                        continue
                    hit = found.get(study_id)
                    if hit is None:
                        hit = found[study_id] = Anticipation(
                            study_id, [], year, source, code, same_year=_same_year(year, before)
                        )
                    matches.append((hit, position, ply, bool(main), node, image))
        names = composers_of(conn, list(found))
        credited = persons_of(conn, list(found))
        their_nodes: dict[int, set[int]] = {study_id: set() for study_id in found}
        for hit, _, _, _, node, _ in matches:
            their_nodes[hit.id].add(node)
        their_moves = moves_to_nodes(conn, their_nodes)
    reached = _reached(fen, movetext, {position.node for _, position, *_ in matches})
    for hit, (my_keys, at, my_ply, my_main, reverse), ply, main, node, image in matches:
        position_fen, move = reached[at]
        hit.shared.append(
            Shared(
                my_ply,
                my_main,
                ply,
                main,
                position_fen,
                reverse,
                node,
                move,
                transformation=transformation(my_keys.image, image),
            )
        )
    for hit in found.values():
        hit.composers = names.get(hit.id, [])
        hit.persons = credited.get(hit.id, [])
        moves = their_moves.get(hit.id, {})
        hit.shared = sorted(
            {replace(s, other_move=moves.get(s.other_node, ("", ""))[0]) for s in hit.shared},
            key=lambda s: (s.ply, not s.main, s.other_ply),
        )
    return sorted(found.values(), key=lambda h: (h.first_ply, -h.positions, h.year or 9999, h.id))


@dataclass(frozen=True)
class GameToCheck:
    """A game to look for anticipations of: a stored study, or a game of a PGN file."""

    #: How messages name it: ``study 412`` or ``entries.pgn:17`` (file and line).
    name: str
    #: Its stored copy's id (never its own anticipation), None if it is not stored.
    id: int | None
    fen: str
    movetext: str
    year: int | None


@dataclass(frozen=True)
class CheckedGame:
    """A game checked for anticipations (``anticipate``): the studies sharing positions
    with it, dated up to ``before``; ``studies`` counts them, ``anticipations`` lists the
    first (all, or as many as were asked for), among the positions of ``min_men`` men
    or more."""

    game: GameToCheck
    before: int | None
    studies: int
    anticipations: tuple[Anticipation, ...]
    min_men: int = DEFAULT_MIN_MEN

    @property
    def men(self) -> int:
        """The men of its start (:func:`studydb.facts.start_men`)."""
        return start_men(self.game.fen)

    @property
    def compared(self) -> bool:
        """Whether any of its positions has ``min_men`` men: if not, nothing was looked up."""
        return self.men >= self.min_men

    def as_dict(self) -> dict[str, Any]:
        """The JSON record ``anticipate --format json`` writes for the game; ``studies`` is
        None when nothing was compared.

        >>> game = GameToCheck("study 3", 3, "8/8/8/8/8/8/8/K1k5 w - - 0 1", "*", None)
        >>> CheckedGame(game, None, 0, ()).as_dict()
        {'game': 'study 3', 'id': 3, 'year': None, 'before': None, \
'fen': '8/8/8/8/8/8/8/K1k5 w - - 0 1', 'compared': False, 'studies': None, 'anticipations': []}
        """
        return {
            "game": self.game.name,
            "id": self.game.id,
            "year": self.game.year,
            "before": self.before,
            "fen": self.game.fen,
            "compared": self.compared,
            "studies": self.studies if self.compared else None,
            "anticipations": [hit.as_dict() for hit in self.anticipations],
        }


def study_game(engine: Engine, study_id: int) -> GameToCheck | None:
    """A stored study's id, start FEN, movetext and year; None if there is no such study."""
    if not is_id_in_range(study_id):
        return None
    statement = select(Study.id, Study.fen, Study.pgn, Study.year).where(Study.id == study_id)
    with database_errors(engine), engine.connect() as conn:
        row = conn.execute(statement).first()
    if row is None:
        return None
    return GameToCheck(f"study {row.id}", row.id, row.fen, movetext_of(row.pgn), row.year)


def games_named(engine: Engine, arguments: Iterable[str]) -> Iterator[GameToCheck]:
    """Each game an argument names: a stored study by its id (a number that is not a file's
    name), else every game of a PGN file, in order.

    :raises QueryError: for an id no study has.
    :raises PgnError: for a game whose start position or headers cannot be read (with
        its file and line).
    """
    for argument in arguments:
        if argument.isdigit() and not os.path.exists(argument):
            study = study_game(engine, int(argument))
            if study is None:
                raise QueryError(f"no study with id {argument} in {describe(str(engine.url))}")
            yield study
            continue
        from studydb.db.classify import unusable

        with open_pgn(argument) as stream:
            for game in read_games(stream, name=argument):
                where = f"{argument}:{game.line}"
                fen = start_fen(game.headers) or chess.STARTING_FEN
                try:
                    chess.Board(fen)
                except ValueError as exc:
                    raise PgnError(f"{where}: bad FEN {fen!r}: {exc}") from None
                try:
                    year = read_info(game.headers).year
                except ValueError as exc:  # a number too long for int()
                    raise PgnError(f"{where}: unreadable header: {str(exc)[:200]}") from None
                problem = unusable(game)  # what import rejects: binary data, a variant …
                if problem:
                    raise PgnError(f"{where}: {problem}")
                yield GameToCheck(where, stored_id(engine, game), fen, game.movetext, year)


# -- versions --------------------------------------------------------------------


def versions(
    engine: Engine,
    filters: Filters | None = None,
    *,
    similar: bool = False,
    either_colour: bool = False,
) -> list[list[GroupedVersion]]:
    """Groups of selected studies whose start positions match, each oldest first.

    Groups come in the order of their oldest member (undated last).  Games from the
    initial position are left out (:func:`from_the_initial_position`).
    """
    statement = select(Study.id, Study.fen, Study.year, Study.source, Study.gbr).where(
        build_condition(filters), Study.fen != chess.STARTING_FEN
    )
    with database_errors(engine), engine.connect() as conn:
        rows = [row for row in conn.execute(statement) if not from_the_initial_position(row.fen)]
    start_keys: dict[str, tuple[int, ...]] = {}  # one key a distinct start position
    by_key: dict[tuple[int, ...], list[Any]] = {}
    for row in rows:
        key = start_keys.get(row.fen)
        if key is None:
            key = start_keys[row.fen] = _group_key(chess.Board(row.fen), similar, either_colour)
        by_key.setdefault(key, []).append(row)
    shared = [members for members in by_key.values() if len(members) > 1]
    with database_errors(engine), engine.connect() as conn:
        names = composers_of(conn, [row.id for members in shared for row in members])
    found = [
        _oldest_first(
            [
                GroupedVersion(
                    row.id,
                    tuple(names.get(row.id, ())),
                    row.year,
                    row.source,
                    gbr=row.gbr,
                    fen=row.fen,
                )
                for row in members
            ]
        )
        for members in shared
    ]
    return sorted(found, key=lambda g: _age(g[0]))


def _group_key(board: chess.Board, similar: bool, either_colour: bool) -> tuple[int, ...]:
    candidates: Iterable[chess.Board] = (
        (board, colour_reversed(board)) if either_colour else (board,)
    )
    keyed = [keys(b) for b in candidates]
    return min((k.similar,) if similar else (k.similar, k.image) for k in keyed)


def _age(member: Version) -> tuple[bool, int, int]:
    """Oldest first, undated last, then by id."""
    return member.year is None, member.year or 0, member.id


def _oldest_first(members: list[GroupedVersion]) -> list[GroupedVersion]:
    return sorted(members, key=_age)


@dataclass(frozen=True)
class Version:
    """Another stored study from the same start position: who, when and where."""

    id: int
    composers: tuple[str, ...]
    year: int | None
    source: str | None

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field, in order (``composers`` as a list).

        >>> Version(7, ("Saavedra, Fernando",), 1895, None).as_dict()
        {'id': 7, 'composers': ['Saavedra, Fernando'], 'year': 1895, 'source': None}
        """
        data = {item.name: getattr(self, item.name) for item in fields(self)}
        data["composers"] = list(self.composers)
        return data


@dataclass(frozen=True)
class GroupedVersion(Version):
    """A member of a group of versions (:func:`versions`): with its class and start position."""

    gbr: str = ""
    fen: str = ""


@dataclass(frozen=True)
class Related:
    """The studies sharing positions with a stored one, and a page of its other versions."""

    #: The studies sharing positions, best first (:func:`anticipations`).
    shared: tuple[Anticipation, ...]
    #: Page ``versions_page`` of :data:`VERSIONS_PER_PAGE` versions, oldest first.
    versions: tuple[Version, ...]
    #: All the versions (not only the page's).
    versions_total: int
    versions_page: int
    versions_pages: int
    #: The number of the page's first version (1 on the first page).
    versions_first: int
    min_men: int
    #: The men of the study's start (:func:`studydb.facts.start_men`).
    men: int
    #: The other studies of ``min_men`` men or more not in the position index: not
    #: compared (:func:`studydb.db.search.not_compared`).
    not_compared: int = 0

    @property
    def compared(self) -> bool:
        """Whether the study has positions of ``min_men`` men to compare: if not,
        ``shared`` is empty unlooked."""
        return self.men >= self.min_men

    def as_dict(self, *, listed: bool = False) -> dict[str, Any]:
        """The JSON fields ``show --format json`` and the web API add for related studies:
        how many share positions (with ``listed``, which: ``anticipations``) and the page of
        versions.

        ``shares_positions_with`` is None (``compared`` false) for a study with no
        position of ``min_men`` men.

        >>> related = Related((), (Version(2, (), None, None),), 1, 1, 1, 1, 5, 6)
        >>> related.as_dict()
        {'shares_positions_with': 0, 'compared': True, 'not_compared': 0, 'versions': \
[{'id': 2, 'composers': [], 'year': None, 'source': None}], 'versions_total': 1, \
'versions_page': 1, 'versions_pages': 1}
        """
        record: dict[str, Any] = {
            "shares_positions_with": len(self.shared) if self.compared else None,
            "compared": self.compared,
            "not_compared": self.not_compared,
            "versions": [version.as_dict() for version in self.versions],
            "versions_total": self.versions_total,
            "versions_page": self.versions_page,
            "versions_pages": self.versions_pages,
        }
        if listed:
            record["anticipations"] = [hit.as_dict() for hit in self.shared]
        return record


#: Versions listed at once (a page): the study page, the JSON API and ``show`` alike.
VERSIONS_PER_PAGE = 20


def same_start(
    engine: Engine,
    fen: str,
    *,
    exclude: int | None = None,
    limit: int | None = None,
    offset: int = 0,
) -> list[Version]:
    """The studies starting from exactly this position (its versions), oldest first:
    indexed or not, castling and en-passant rights ignored, as ``versions`` groups them;
    none from the initial position (:func:`from_the_initial_position`).

    ``limit`` and ``offset`` page them (:func:`count_same_start` counts them all).
    """
    if from_the_initial_position(fen):
        return []
    statement = (
        select(Study.id, Study.year, Study.source)
        .where(Study.id.in_(_same_start_ids(fen, exclude)))
        .order_by(Study.year.is_(None), Study.year, Study.id)
        .limit(limit)
        .offset(offset or None)
    )
    with database_errors(engine), engine.connect() as conn:
        rows = list(conn.execute(statement))
        names = composers_of(conn, [row.id for row in rows])
    return [Version(row.id, tuple(names.get(row.id, ())), row.year, row.source) for row in rows]


def count_same_start(engine: Engine, fen: str, *, exclude: int | None = None) -> int:
    """How many studies start from exactly this position (``exclude`` left out): none from
    the initial position."""
    if from_the_initial_position(fen):
        return 0
    statement = select(func.count()).select_from(_same_start_ids(fen, exclude).subquery())
    with database_errors(engine), engine.connect() as conn:
        return int(conn.execute(statement).scalar_one())


def _same_start_ids(fen: str, exclude: int | None) -> Select[Any]:
    """The ids of the studies starting from ``fen``'s position: the indexed ones by their
    start's keys, and every study by the Zobrist hash of its start (a study imported with
    ``--positions none`` is in no index), text entries left out."""
    board = chess.Board(fen)
    key = keys(board)
    indexed = (
        select(Position.study_id.label("id"))
        .join(Study, Study.id == Position.study_id)
        .where(
            Position.similar == key.similar,
            Position.image == key.image,
            Position.node == 0,
            Study.kind == STUDY,
        )
    )
    stored = select(Study.id.label("id")).where(
        Study.zobrist.in_(start_hashes(board)), Study.kind == STUDY
    )
    if exclude is not None:
        indexed = indexed.where(Position.study_id != exclude)
        stored = stored.where(Study.id != exclude)
    union = indexed.union(stored).subquery()
    return select(union.c.id)


def from_the_initial_position(fen: str) -> bool:
    """Whether ``fen`` is chess's initial position, whatever its castling, en-passant and
    move counters: the start of every game of a games collection (and of a proof game),
    so that sharing it makes no versions.

    >>> from_the_initial_position(chess.STARTING_FEN.replace("KQkq", "-"))
    True
    >>> from_the_initial_position("8/8/8/8/8/8/8/K1k5 w - - 0 1")
    False
    """
    return fen.split(" ", 2)[:2] == _INITIAL_START


#: The initial position's placement and side to move.
_INITIAL_START = chess.STARTING_FEN.split(" ", 2)[:2]


def start_hashes(board: chess.Board) -> list[int]:
    """The stored Zobrist hashes (``studies.zobrist``, signed) that a start position with
    ``board``'s men and side to move may have: with any castling rights, and any
    en-passant square or none (the hash counts them, a start position does not).

    >>> board = chess.Board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
    >>> len(start_hashes(board)), _signed(chess.polyglot.zobrist_hash(board)) in start_hashes(board)
    (144, True)
    """
    import chess.polyglot

    plain = board.copy(stack=False)
    plain.castling_rights = chess.BB_EMPTY
    plain.ep_square = None
    base = chess.polyglot.zobrist_hash(plain)
    table = chess.polyglot.POLYGLOT_RANDOM_ARRAY
    castling = [0]
    for right in table[768:772]:
        castling += [hashed ^ right for hashed in castling]
    passing = [0, *table[772:780]]
    return sorted({_signed(base ^ c ^ p) for c in castling for p in passing})


def _signed(value: int) -> int:
    """A 64-bit hash as the signed integer the database stores."""
    return value - (1 << 64) if value >= 1 << 63 else value


def related_studies(
    engine: Engine,
    study: StoredStudy,
    *,
    min_men: int = DEFAULT_MIN_MEN,
    versions_page: int = 1,
    most: int | None = None,
) -> Related:
    """The studies sharing positions with a stored one, and page ``versions_page`` of its
    other versions (:data:`VERSIONS_PER_PAGE` a page, as :func:`same_start`): what
    ``show`` and the web's study page show.  With ``most``, the shared positions are
    looked for in the study's first ``most`` moves only.
    """
    game = study_game(engine, study.id)
    hits = []
    if game is not None:
        hits = anticipations(
            engine, game.fen, game.movetext, exclude=study.id, min_men=min_men, most=most
        )
    total = count_same_start(engine, study.fen, exclude=study.id)
    pages = max(1, -(-total // VERSIONS_PER_PAGE))
    page = min(max(versions_page, 1), pages)
    versions = same_start(
        engine,
        study.fen,
        exclude=study.id,
        limit=VERSIONS_PER_PAGE,
        offset=(page - 1) * VERSIONS_PER_PAGE,
    )
    return Related(
        shared=tuple(hits),
        versions=tuple(versions),
        versions_total=total,
        versions_page=page,
        versions_pages=pages,
        versions_first=(page - 1) * VERSIONS_PER_PAGE + 1,
        min_men=min_men,
        men=start_men(study.fen),
        not_compared=not_compared(engine, min_men=min_men, exclude=study.id),
    )
