r"""Classifying a game for storage: pure work, run in the import's worker processes.

A game read by :mod:`studydb.pgn` becomes a study row (material, position
and header columns, see :mod:`studydb.headers`) or a reject row with its
reason.  Nothing here touches the database, so a worker process never
imports SQLAlchemy.

>>> import io
>>> from studydb.pgn import read_games
>>> text = b'[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n1. c7 *'
>>> (game,) = read_games(io.BytesIO(text), name="x")
>>> prepare(game).row["gbr"]
'0300.10'
"""

from __future__ import annotations

import hashlib
import re
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, reduce
from itertools import chain, compress, repeat
from operator import getitem, itemgetter, xor
from typing import Any

import chess
import chess.polyglot

from studydb import gbr, movetext
from studydb.errors import quote
from studydb.headers import read_info, start_fen
from studydb.lines import CHECKED, FACTS_WIDTH, MATED, STALEMATED, PlyFacts, encode_facts
from studydb.movetext import CHESS960_VARIANTS, is_chess960
from studydb.pgn import KEPT_BYTES, MAX_GAME_BYTES, RawGame, deflate_text, header_leftovers
from studydb.positions import IndexRow, IndexRows
from studydb.themes import MainLine, Theme, tag_themes
from studydb.vocabulary import REJECT, STUDY, TEXT

#: Characters of an error message kept in a reject's reason.
REASON_CHARS = 300
#: A game with a longer tag value (a name, a source, …) is a reject: no study's
#: field holds that much, and nothing false or cut is stored.
MAX_TAG_CHARS = 1_000
#: The reason of a reject that studydb failed on, before the error's type and message.
INTERNAL_ERROR = "studydb failed on this game (an error of its own: please report it)"
#: A game crediting more composers than this is a reject.
MAX_COMPOSERS = 50
#: Where a facts line (:func:`studydb.lines.facts_line`) says its node is check: before
#: its newline.
_STATUS = FACTS_WIDTH - 2
#: The statuses of a position in check (mate is check too).
_CHECKS = (CHECKED, MATED)

#: ``--positions``: which games the import replays and indexes.
INDEX_NONE, INDEX_STUDIES, INDEX_ALL = "none", "studies", "all"

#: Variants whose positions have a GBR code; other variants are rejected.
STANDARD_VARIANTS = frozenset({"", "standard", "chess", "from position", "normal"})

# A token that looks like a move or a result: enough to call headerless text a game.
_MOVE_TOKEN = re.compile(
    r"(?:^|[\s.])(?:[KQRBN]?[a-h]?[1-8]?x?[a-h][1-8](?:=?[QRBN])?|O-O(?:-O)?|0-0(?:-0)?"
    r")[+#!?]*(?=\s|$)"
)
# Comments, which hold no moves: {…} and ; to the end of the line.
_COMMENTS = re.compile(r"\{[^}]*\}?|;[^\n]*")
# Control characters that no PGN text holds (tab, line ends, form feed and the
# DOS end-of-file mark 0x1a are allowed).
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x19\x1b-\x1f\x7f]")
#: A side with more men besides its king has no signature search can read (the one rule
#: of :func:`studydb.gbr.parse_signature` a position's material can break).
_MEN = 15
#: Integer columns hold 32-bit values on PostgreSQL.
_INT32 = 1 << 31
# A FEN read without chess.Board (its columns, its board): castling rights in KQkq
# letters, an en-passant square, both optional, single spaces (chess.Board reads any
# other).
_FEN = re.compile(
    r"([1-8PNBRQKpnbrqk/]{15,71}) ([wb])"
    r"(?: (-|[KQ]{1,2}[kq]{0,2}|[kq]{1,2}) (-|[a-h][1-8])(?: ([0-9]{1,6}) ([0-9]{1,6}))?)?",
    re.ASCII,
)
# Polyglot Zobrist keys by piece symbol and square (a1 = 0), as chess.polyglot uses them.
_ZOBRIST = {
    symbol: chess.polyglot.POLYGLOT_RANDOM_ARRAY[
        64 * ((chess.PIECE_SYMBOLS.index(symbol.lower()) - 1) * 2 + symbol.isupper()) :
    ][:64]
    for symbol in "pnbrqkPNBRQK"
}
_ZOBRIST_WHITE = chess.polyglot.POLYGLOT_RANDOM_ARRAY[780]
# The same keys by place in an expanded placement (:func:`studydb.gbr.expand_placement`:
# a8 first, nine characters a rank with its ``/``), 0 for an empty square or a ``/``.
_ZOBRIST_AT = tuple(
    {"/": 0}
    if place % 9 == 8
    else {".": 0} | {man: keys[(7 - place // 9) * 8 + place % 9] for man, keys in _ZOBRIST.items()}
    for place in range(71)
)
# Each castling right's letter, where its king and rook stand in an expanded placement
# (:func:`studydb.gbr.expand_placement`: a8 first, nine characters a rank), the men
# there, and its polyglot key.  python-chess keeps a right only with its king and rook
# at home (chess.Board.clean_castling_rights).
_CASTLING = tuple(
    (letter, king, rook, men, chess.polyglot.POLYGLOT_RANDOM_ARRAY[768 + number])
    for number, (letter, king, rook, men) in enumerate(
        [("K", 67, 70, "KR"), ("Q", 67, 63, "KR"), ("k", 4, 7, "kr"), ("q", 4, 0, "kr")]
    )
)
#: The columns of a ``materials`` row, in the order :func:`material_values` gives them.
MATERIAL_COLUMNS = (
    "signature", "gbr", "pieces", "wq", "wr", "wb", "wn", "wp", "bq", "br", "bb", "bn", "bp", "men"
)  # fmt: skip
#: A ``materials`` row's values (:data:`MATERIAL_COLUMNS`), by the counts it stands for.
MaterialValues = dict[tuple[int, ...], tuple[Any, ...]]
#: How many ``materials`` rows a worker remembers (:func:`material_values`): the classes
#: of 5,000 distinct studies' positions number about 7,800.
MATERIAL_CACHE = 8192


@dataclass(slots=True)
class Prepared:
    """A game classified for storage: a study row, or a reject row."""

    kind: str
    row: dict[str, Any]
    composers: tuple[str, ...] = ()
    #: The indexed positions (see :func:`studydb.positions.index_rows`), or None.
    positions: list[IndexRow] | None = None
    #: Their boards, for pattern search (:meth:`studydb.positions.IndexRows.boards`).
    boards: bytes | None = None
    #: Their ply facts and prefilter keys, for manoeuvre search (:class:`Replay`).
    moves: bytes | None = None
    move_keys: dict[int, bool] = field(default_factory=dict)
    #: The themes: the tags' always, the main line's when it was replayed.
    themes: list[Theme] = field(default_factory=list)
    #: Where each kind of man stood (:meth:`studydb.positions.IndexRows.seen`).
    seen: tuple[int, ...] | None = None
    #: Each node's occupied squares (:meth:`studydb.positions.IndexRows.occupancy`).
    occupancy: bytes | None = None
    #: The ``materials`` rows of the indexed positions' counts, made here in the workers.
    materials: MaterialValues = field(default_factory=dict)


def prepare_batch(
    games: Sequence[tuple[RawGame, str | None]], validate: bool, positions: str = INDEX_NONE
) -> list[PreparedSlice]:
    """Classify a slice of a batch, (game, content hash) pairs: the unit of work of a worker.

    One result for the whole slice (:class:`PreparedSlice`): its games' rows, and the index
    rows of those replayed packed in a few columns.
    """
    items = [
        _prepared(game, validate=validate, digest=digest, positions=positions)
        for game, digest in games
    ]
    return [PreparedSlice(items, pack_index(items))]


def _prepared(game: RawGame, *, validate: bool, digest: str | None, positions: str) -> Prepared:
    """:func:`prepare`; a game it fails on (an error of studydb's own) is kept as a reject
    saying so, and the import goes on: one odd game does not stop a collection's import."""
    try:
        return prepare(game, validate=validate, digest=digest, positions=positions)
    except Exception as exc:  # any error: the game is kept, the reason says which
        return _reject(game, failure(exc))


def failure(exc: Exception) -> str:
    """What studydb failing on a game says: :data:`INTERNAL_ERROR`, the error's type and
    message.

    >>> failure(KeyError("e9"))
    "studydb failed on this game (an error of its own: please report it): KeyError: 'e9'"
    """
    return f"{INTERNAL_ERROR}: {type(exc).__name__}: {shorten(str(exc))}"


@dataclass(slots=True)
class IndexPack:
    r"""The index rows of a slice's replayed games, packed for the trip to the writer.

    A worker sends a slice's results to the importing process pickled: a tuple a
    position, a dict of move keys and one of materials a game cost that process more
    to unpickle, and its Python a row more to write, than SQLite's storing them.  So
    the rows travel as columns (a few arrays of numbers a slice), each row naming its
    game by the slice's item number and its material by the slice's class number;
    the writer zips them into rows with the games' and the classes' ids, in C
    (:func:`studydb.db.bulk.write_packed_index`).  Positions come sorted by
    ``similar`` and move keys by ``key``, the items' order among equals: the primary
    keys' order, as the ids rise with the items.

    >>> import io
    >>> from studydb.pgn import read_games
    >>> text = b'[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]\n\n1. c7 *'
    >>> (game,) = read_games(io.BytesIO(text), name="x")
    >>> pack = pack_index([prepare(game, positions=INDEX_STUDIES)])
    >>> pack.items, list(pack.item), list(pack.node), list(pack.main), pack.counts
    ([0], [0, 0], [1, 0], [1, 1], [(0, 0, 0, 0, 1, 0, 1, 0, 0, 0)])
    """

    #: The replayed items (their numbers in the slice), in order.
    items: list[int] = field(default_factory=list)
    #: Each replayed item's ``study_index`` values after its id: positions, boards,
    #: moves, occupancy, then where each man stood.
    studies: list[tuple[Any, ...]] = field(default_factory=list)
    #: The material classes of the slice's positions (counts), and their ``materials`` rows.
    counts: list[tuple[int, ...]] = field(default_factory=list)
    materials: list[tuple[Any, ...]] = field(default_factory=list)
    #: ``positions``: one entry a row in each column; ``material`` numbers a class of
    #: :attr:`counts`, ``item`` an item of the slice.  The columns are arrays
    #: (:data:`_NUMBERS`, flags 0 or 1 as :data:`_FLAGS`).
    similar: Sequence[int] = ()
    item: Sequence[int] = ()
    node: Sequence[int] = ()
    image: Sequence[int] = ()
    ply: Sequence[int] = ()
    main: Sequence[int] = ()
    material: Sequence[int] = ()
    #: ``study_moves``: key, item, main line.
    move_key: Sequence[int] = ()
    move_item: Sequence[int] = ()
    move_main: Sequence[int] = ()
    #: ``study_materials``: each item's main-line classes, and whether the line ends in it.
    reached: Sequence[int] = ()
    reached_item: Sequence[int] = ()
    reached_ends: Sequence[int] = ()


#: The array typecodes of :class:`IndexPack`'s columns: numbers as 64-bit integers, flags
#: as bytes.  An array is pickled as its bytes, a tuple number by number: the importing
#: process unpickled a slice's tuples in four times the time.
_NUMBERS, _FLAGS = "q", "b"
_POSITION_TYPES = (_NUMBERS,) * 4 + (_FLAGS,) + (_NUMBERS,) * 2  # similar … main, material, item
_MOVE_TYPES = (_NUMBERS, _NUMBERS, _FLAGS)  # key (class), item, main (ends)


@dataclass(slots=True)
class PreparedSlice:
    """A slice of a batch classified (:func:`prepare_batch`): each game's row, and the
    replayed games' index rows in one :class:`IndexPack` (the items' own index fields
    are emptied: ``positions`` None, the others empty)."""

    items: list[Prepared]
    index: IndexPack


def pack_index(items: Sequence[Prepared]) -> IndexPack:
    """Move the index rows of ``items`` (those replayed) into one :class:`IndexPack`.

    Column by column (``zip(*rows)``, ``chain``, ``itemgetter``: no Python line a row),
    sorted by ``similar`` and ``key`` (stable: the items' order among equals).
    """
    pack = IndexPack()
    classes: dict[tuple[int, ...], int] = {}
    positions: list[list[Any]] = [[] for _ in range(7)]
    moves: list[list[Any]] = [[], [], []]
    reached: list[list[Any]] = [[], [], []]
    for number, item in enumerate(items):
        rows = item.positions
        if rows is None:
            continue
        pack.items.append(number)
        pack.studies.append(
            (len(rows), item.boards, item.moves, item.occupancy, *(item.seen or ()))
        )
        for counts, values in item.materials.items():
            if counts not in classes:
                classes[counts] = len(classes)
                pack.counts.append(counts)
                pack.materials.append(values)
        if rows:
            similar, image, node, ply, on_main, counts_of = zip(*rows, strict=True)
            material = map(classes.__getitem__, counts_of)
            parts = (similar, node, image, ply, on_main, material, repeat(number, len(rows)))
            for column, part in zip(positions, parts, strict=True):
                column.append(part)
            # the main line's classes, in order, and the one its last (longest) ply has
            line = list(compress(counts_of, on_main))
            if line:
                plies = list(compress(ply, on_main))
                last = line[plies.index(max(plies))]
                line = list(dict.fromkeys(line))
                reached[0].append(map(classes.__getitem__, line))
                reached[1].append(repeat(number, len(line)))
                reached[2].append(map(last.__eq__, line))
        keys = item.move_keys
        moves[0].append(keys)
        moves[1].append(repeat(number, len(keys)))
        moves[2].append(keys.values())
        item.positions, item.boards, item.moves, item.occupancy = None, None, None, None
        item.seen, item.move_keys, item.materials = None, {}, {}
    (pack.similar, pack.node, pack.image, pack.ply, pack.main, pack.material, pack.item) = map(
        array, _POSITION_TYPES, _sorted_columns(positions)
    )
    pack.move_key, pack.move_item, pack.move_main = map(array, _MOVE_TYPES, _sorted_columns(moves))
    pack.reached, pack.reached_item, pack.reached_ends = (
        array(code, chain.from_iterable(parts))
        for code, parts in zip(_MOVE_TYPES, reached, strict=True)
    )
    return pack


def _sorted_columns(parts: list[list[Any]]) -> list[tuple[Any, ...]]:
    """Columns given in parts, joined, their entries sorted by the first column's (stable).

    >>> _sorted_columns([[(3, 1), (2,)], [("c", "a"), ("b",)]])
    [(1, 2, 3), ('a', 'b', 'c')]
    """
    columns = [tuple(chain.from_iterable(column)) for column in parts]
    if len(columns[0]) < 2:
        return columns
    order = itemgetter(*sorted(range(len(columns[0])), key=columns[0].__getitem__))
    return [order(column) for column in columns]


def prepare(
    game: RawGame,
    *,
    validate: bool = False,
    digest: str | None = None,
    positions: str = INDEX_NONE,
) -> Prepared:
    """Classify one game: a study row ready to insert, or a reject with its reason.

    ``digest`` is the game's :func:`content_hash` when the caller has it already.
    ``positions`` (``none``, ``studies``: games with a FEN tag, ``all``) says
    which games are replayed once to be both validated and indexed.
    """
    problem = unusable(game)
    if problem:
        return _reject(game, problem)
    headers = game.headers
    fen = start_fen(headers) or chess.STARTING_FEN
    chess960 = is_chess960(headers)
    try:
        position = classify_position(fen, chess960)
    except ValueError as exc:  # GbrError is a ValueError
        return _reject(game, f"no usable start position: {exc}")
    try:
        info = read_info(headers)
    except ValueError as exc:  # a number too long for int() (4,300 digits and more)
        return _reject(game, f"unreadable header: {shorten(str(exc))}")
    if len(info.composers) > MAX_COMPOSERS:
        return _reject(
            game,
            f"credits {len(info.composers):,} composers, over the bound of {MAX_COMPOSERS}:"
            " not a study",
        )
    kind = entry_kind(headers, game.movetext)
    row: dict[str, Any] = {
        **position,
        "stipulation": info.stipulation,
        "result": headers.get("Result"),
        "composer_names": "; ".join(info.composers) or None,
        "source": info.source,
        "year": _int32(info.year),
        "award": info.award,
        "award_kind": info.award_kind,
        "award_rank": _int32(info.award_rank),
        "mate_in": info.mate_in,
        "eg": " ".join(map(str, info.eg)) or None,
        "note": info.note,
        "version": info.version,
        "number": info.number,
        "reprint": info.reprint,
        "kind": kind,
        "pgn": deflate_text(game.text),  # here, in the workers: not in the writing process
        "encoding": game.encoding,
        "content_hash": digest or content_hash(game),
        "valid": None,
        "errors": None,
        "file": game.file,
        "line": game.line,
        "offset": game.offset,
    }
    indexed = None
    boards = moves = seen = occupancy = None
    move_keys: dict[int, bool] = {}
    themes = tag_themes(headers)
    errors: list[str] | None = None  # None: not replayed, so neither valid nor invalid
    if indexes(headers, positions=positions):
        replay = index_game(game.movetext, fen, chess960=chess960, stipulation=info.stipulation)
        errors, indexed, boards, seen = replay.errors, replay.rows, replay.boards, replay.seen
        moves, move_keys, occupancy = replay.moves, replay.move_keys, replay.occupancy
        themes += replay.themes
    elif validate:
        errors = validate_game(game, fen, chess960=chess960)
    if errors is not None:
        row["valid"] = not errors
        row["errors"] = errors or None
    composers = info.composers if kind == STUDY else ()
    return Prepared(
        STUDY,
        row,
        composers,
        indexed,
        boards,
        moves,
        move_keys,
        themes,
        seen,
        occupancy,
        material_rows(indexed) if indexed else {},
    )


def indexes(headers: Mapping[str, str], *, positions: str) -> bool:
    """Whether :func:`prepare` replays a game to index its positions (``--positions``).

    >>> indexes({"FEN": "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"}, positions=INDEX_STUDIES)
    True
    >>> indexes({"Event": "London"}, positions=INDEX_STUDIES)
    False
    """
    return positions == INDEX_ALL or (positions == INDEX_STUDIES and start_fen(headers) is not None)


def material_rows(rows: Iterable[IndexRow]) -> MaterialValues:
    """The ``materials`` rows of the classes of index rows (:func:`material_values`), by counts.

    >>> material_rows([(0, 0, 0, 0, True, (0, 0, 0, 0, 1, 0, 1, 0, 0, 0))])
    {(0, 0, 0, 0, 1, 0, 1, 0, 0, 0): ('KPvKR', '0300.10', '0300', 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 4)}
    """
    return {counts: material_values(counts) for counts in {row[5] for row in rows}}


@lru_cache(maxsize=MATERIAL_CACHE)
def material_values(counts: tuple[int, ...]) -> tuple[Any, ...]:
    """The ``materials`` row of counts wq wr wb wn wp bq br bb bn bp (:data:`MATERIAL_COLUMNS`).

    >>> material_values((0, 0, 0, 0, 1, 0, 1, 0, 0, 0))
    ('KPvKR', '0300.10', '0300', 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 4)
    """
    material = gbr.material_from_counts(counts)
    code = material.code
    return (material.signature, code, code[:4], *material.white, *material.black, material.men)


def entry_kind(headers: Mapping[str, str], movetext: str) -> str:
    """``'study'``, or ``'text'`` for an entry with no set-up position and no moves.

    A chapter heading, a book's introduction, a workbook's header: stored as
    read, and left out of searches, statistics and versions.

    >>> entry_kind({"Event": "Pawn Endgames"}, "{ Chapter 3 } *")
    'text'
    >>> entry_kind({"Event": "Game"}, "1. e4 *")
    'study'
    >>> entry_kind({"FEN": "8/8/8/8/8/8/8/K1k5 w - - 0 1"}, "*")
    'study'
    """
    if start_fen(headers) is not None:
        return STUDY
    # The moves before the first comment decide most games, searched in place.
    brace, semicolon = movetext.find("{"), movetext.find(";")
    first = semicolon if brace < 0 or 0 <= semicolon < brace else brace
    if _MOVE_TOKEN.search(movetext, 0, len(movetext) if first < 0 else first):
        return STUDY
    if first < 0:
        return TEXT
    return STUDY if _MOVE_TOKEN.search(_COMMENTS.sub(" ", movetext)) else TEXT


@dataclass(slots=True)
class Replay:
    """What one replay of a game finds: errors, index rows, the boards, where each man
    stood and each node's occupied squares (pattern search), themes, and the ply facts
    and their prefilter keys (manoeuvre search)."""

    errors: list[str]
    rows: list[IndexRow]
    boards: bytes
    seen: tuple[int, ...]
    themes: list[Theme]
    moves: bytes
    move_keys: dict[int, bool]
    occupancy: bytes


def index_game(
    text: str, fen: str, *, chess960: bool = False, stipulation: str | None = None
) -> Replay:
    """Replay a game once: its errors (as :func:`validate_game`), positions, boards and themes.

    The themes are those of the main line (:class:`studydb.themes.MainLine`;
    ``stipulation`` decides the positional draw), none when the start
    position is not legal.

    >>> replay = index_game("1. e4 e5 2. Ke3 *", chess.STARTING_FEN)
    >>> replay.errors, len(replay.rows), replay.themes
    (["illegal san: 'Ke3' in rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"], 3, [])
    """
    board = _read_board(fen, chess960=chess960)
    errors: list[str] = []
    rows = IndexRows(board, errors)
    facts = PlyFacts(board, rows.texts)
    status = board.status()
    if status != chess.STATUS_VALID:
        errors.append(f"illegal start position: {_status_text(status)}")
        movetext.walk(board, text, movetext.Tee(rows, facts))
        found: list[Theme] = []
    else:
        themes = _Themes(MainLine(board, stipulation=stipulation), facts, rows)
        movetext.walk(board, text, movetext.Tee(rows, facts, themes))
        found = themes.found
    return Replay(
        errors,
        rows.rows,
        rows.boards(),
        rows.seen(),
        found,
        encode_facts(facts.text()),
        facts.keys(),
        rows.occupancy(),
    )


#: A FEN man's piece type and colour, by its letter.
_MAN_PLACES = {
    symbol: (chess.PIECE_SYMBOLS.index(symbol.lower()), symbol.isupper())
    for symbol in "PNBRQKpnbrqk"
}
_BB_SQUARES = chess.BB_SQUARES


def _read_board(fen: str, *, chess960: bool = False) -> chess.Board:
    """``chess.Board(fen, chess960=chess960)``, quicker for a FEN in the usual form (a
    study's, a game's with castling rights): its men are set from
    :func:`studydb.gbr.expand_placement`'s reading, the one fast FEN reader, its castling
    rights by ``set_castling_fen`` (as python-chess reads them, not cleaned).  Any other
    FEN goes to python-chess, which says what is wrong with it.

    >>> _read_board("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1") == chess.Board("8/8/1KP5/3r4/8/8/8/k7 w")
    True
    """
    m = _FEN.fullmatch(fen)
    expanded = None if m is None else gbr.expand_placement(m.group(1))
    if m is None or expanded is None:
        return chess.Board(fen, chess960=chess960)
    _, turn, castling, passed, halfmove, fullmove = m.groups()
    pieces = [0] * 7  # by piece type
    sides = [0, 0]  # by colour: black, white
    for square, symbol in _men_placed(expanded):
        bit = _BB_SQUARES[square]
        piece_type, white = _MAN_PLACES[symbol]
        pieces[piece_type] |= bit
        sides[white] |= bit
    board = chess.Board(None, chess960=chess960)
    (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings) = pieces[1:]
    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = sides[1], sides[0]
    board.occupied = sides[0] | sides[1]
    board.turn = turn == "w"
    if castling and castling != "-":
        board.set_castling_fen(castling)
    if passed and passed != "-":
        board.ep_square = chess.parse_square(passed)
    if halfmove is not None:
        board.halfmove_clock, board.fullmove_number = int(halfmove), max(int(fullmove), 1)
    return board


class _Themes(movetext.Visitor):
    """The main line's themes, found in the walk that makes the index rows.

    ``facts`` visit each position first: whether it is check (and at the end of the main
    line, mate or stalemate) is read off their line.  A draw study's repetitions are read
    off the ``rows``' keys of the main line's positions at the end.
    """

    def __init__(self, line: MainLine, facts: PlyFacts, rows: IndexRows) -> None:
        self.line = line
        self.found: list[Theme] = []
        self.moved, self.solver = line.moved, line.solver
        self.statuses = facts.lines  # the facts' list: each position's line is appended
        self.rows = rows

    def visit_position(self, board: chess.Board, node: int, parent: int, main: bool) -> None:
        if main and board.turn != self.solver:  # only domination looks at positions
            self.moved(board, check=self.statuses[-1][_STATUS] == CHECKED)

    def end_variation(self, board: chess.Board, node: int) -> None:
        if self.statuses[node][_STATUS] == STALEMATED:  # the facts ended the line first
            self.line.variation_stalemate(len(board.move_stack))

    def end_game(self, board: chess.Board, node: int) -> None:
        status = self.statuses[node][_STATUS]  # the main line's last node
        positions: list[tuple[int, int]] | None = None
        checks: list[bool] | None = None
        if self.line.repetitions:  # a position's similar key and image number tell it exactly
            main = [row for row in self.rows.rows if row[4]]
            positions = [(row[0], row[1]) for row in main]
            checks = [self.statuses[row[2]][_STATUS] in _CHECKS for row in main]
        self.found = self.line.finish(
            board,
            mate=status == MATED,
            stalemate=status == STALEMATED,
            positions=positions,
            checks=checks,
        )


def shorten(text: str, limit: int = REASON_CHARS) -> str:
    """``text`` cut to ``limit`` characters, an ellipsis marking the cut.

    >>> shorten("x" * 10, 4)
    'xxx…'
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def unusable(game: RawGame) -> str | None:
    """Why a game cannot be stored at all, or None: the one rule of what is no storable
    game, for the import and for every reader of games (``gbr encode --pgn``,
    ``anticipate``, ``report``).

    >>> import io
    >>> from studydb.pgn import read_games
    >>> games = read_games(io.BytesIO(b'[Variant "Antichess"]\\n\\n1. e3 *\\n'), name="x")
    >>> unusable(next(games))
    "unsupported variant 'Antichess': no GBR code for it"
    """
    if game.truncated:
        return "incomplete at end of file: the data read ends inside this game"
    if game.oversize:
        return f"{game.oversize}: not a study; only its first {KEPT_BYTES >> 10} KB are kept here"
    if len(game.raw) > MAX_GAME_BYTES:
        return (
            f"game larger than {MAX_GAME_BYTES >> 20} MB ({len(game.raw):,} bytes):"
            " not a study; split it or check the file"
        )
    headers = game.headers
    if headers and max(map(len, headers.values())) > MAX_TAG_CHARS:
        name, value = next(item for item in headers.items() if len(item[1]) > MAX_TAG_CHARS)
        return (
            f"tag {name} is {len(value):,} characters long, over the bound of"
            f" {MAX_TAG_CHARS:,}: not a study (its start: {quote(value, limit=40)})"
        )
    nul = game.text.find("\x00")
    if nul >= 0:
        line = game.line + game.text.count("\n", 0, nul)
        hint = f" ({UTF16_HINT})" if _looks_utf16(game.text) else ""
        return f"NUL byte in the game text at line {line}{hint}"
    if not game.headers:
        control = _CONTROL.search(game.text)
        if control:
            line = game.line + game.text.count("\n", 0, control.start())
            return f"not a PGN game: binary data (byte {ord(control.group()):#04x} at line {line})"
        if not _MOVE_TOKEN.search(game.movetext):
            return "not a PGN game: no tag pairs and no moves"
    variant = game.headers.get("Variant", "").strip().lower()
    if variant not in STANDARD_VARIANTS and variant not in CHESS960_VARIANTS:
        return f"unsupported variant {game.headers['Variant']!r}: no GBR code for it"
    return None


#: What a game with a NUL byte every other character is said to look like.
UTF16_HINT = "it reads like UTF-16 without a byte-order mark: save the file as UTF-8"


def _looks_utf16(text: str) -> bool:
    r"""Whether ``text`` begins as UTF-16 read byte by byte does: a NUL every other character.

    >>> _looks_utf16('[\x00E\x00v\x00e\x00n\x00t\x00'), _looks_utf16('[Event "\x00"]')
    (True, False)
    """
    head = text[:64]
    return len(head) >= 8 and any(
        half.count("\x00") * 10 >= len(half) * 9 for half in (head[0::2], head[1::2])
    )


def _reject(game: RawGame, reason: str) -> Prepared:
    return Prepared(
        REJECT,
        {
            "raw": game.raw,
            # a game too large to keep whole is known by the digest of all its bytes
            "raw_hash": game.digest or hashlib.blake2b(game.raw, digest_size=16).hexdigest(),
            "reason": reason,
            "file": game.file,
            "line": game.line,
            "offset": game.offset,
        },
    )


@lru_cache(maxsize=4096)
def classify_position(fen: str, chess960: bool = False) -> dict[str, Any]:
    """The material and position columns of a start FEN.

    A FEN in the usual form (a study's, or a game's with castling rights) is
    read from the string alone (:func:`_plain_position`); one where a pawn could
    take en passant, or in another form, goes through ``chess.Board``.  Both give
    the same columns (a test checks).

    >>> classify_position("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")["gbr"]
    '0300.10'

    :raises ValueError: (``GbrError`` included) for a FEN that gives no
        usable start position, or a material search could not read back.
    """
    columns = _plain_position(fen, chess960)
    if columns is None:
        try:
            board = chess.Board(fen, chess960=chess960)
        except ValueError as exc:
            raise gbr.GbrError(f"invalid FEN {fen!r}: {exc}") from None
        material = gbr.material(board)
        columns = _position_columns(material, board.fen(), chess.polyglot.zobrist_hash(board))
    if max(_men_of(columns, "w"), _men_of(columns, "b")) > _MEN:
        gbr.parse_signature(columns["signature"])  # raises, in the words search uses
    return columns


def _men_of(columns: dict[str, Any], side: str) -> int:
    """How many men a side has besides its king (``side``: ``w`` or ``b``), by its columns.

    >>> _men_of(classify_position("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"), "w")
    1
    """
    return sum(columns[side + man] for man in "qrbnp")


def _plain_position(fen: str, chess960: bool = False) -> dict[str, Any] | None:
    """The columns of a FEN read from the string, as ``chess.Board`` gives them; else None.

    The castling rights kept are those whose king and rook stand at home, and an
    en-passant square is dropped when no pawn could take there (the polyglot key
    hashes it when a pawn stands beside the pawn that passed, as chess.polyglot
    does).  A FEN with a pawn that could take en passant (is it legal?), castling
    rights in Chess960, or in any other form goes to ``chess.Board``: None.

    >>> _plain_position("4k2r/8/8/8/8/8/8/R3K3 w KQkq e3 0 1")["fen"]
    '4k2r/8/8/8/8/8/8/R3K3 w Qk - 0 1'
    """
    m = _FEN.fullmatch(fen.strip())
    if m is None:
        return None
    placement, turn, castling, passed, halfmove, fullmove = m.groups()
    expanded = gbr.expand_placement(placement)
    if expanded is None or (chess960 and castling and castling != "-"):
        return None  # chess.Board words the error, or knows Chess960's castling
    material = gbr.material_from_expanded(expanded, f"{placement} {turn}")
    zobrist = reduce(xor, map(getitem, _ZOBRIST_AT, expanded), _ZOBRIST_WHITE if turn == "w" else 0)
    rights = "-"
    if castling and castling != "-":
        kept = [
            (letter, key)
            for letter, king, rook, home, key in _CASTLING
            if letter in castling and expanded[king] + expanded[rook] == home
        ]
        for _, key in kept:
            zobrist ^= key
        rights = "".join(letter for letter, _ in kept) or "-"
    if passed and passed != "-":
        passed_key = _passed_key(_men_placed(expanded), turn == "w", chess.parse_square(passed))
        if passed_key is None:
            return None
        zobrist ^= passed_key
    clocks = f"{int(halfmove)} {max(int(fullmove), 1)}" if halfmove is not None else "0 1"
    return _position_columns(material, f"{placement} {turn} {rights} - {clocks}", zobrist)


def _passed_key(
    men: list[tuple[chess.Square, str]], white: bool, square: chess.Square
) -> int | None:
    """The polyglot key of an en-passant square the FEN drops (no pawn can take there),
    0 when it has none; None when a pawn of the side to move could take there.

    >>> _passed_key([(4, "K"), (60, "k"), (35, "P")], True, chess.E6)
    >>> _passed_key([(4, "K"), (60, "k")], True, chess.E6)
    0
    """
    pawns = 0
    for at, symbol in men:
        if symbol == ("P" if white else "p"):
            pawns |= _BB_SQUARES[at]
    rank = chess.BB_RANK_5 if white else chess.BB_RANK_4
    occupied = any(at == square for at, _ in men)
    if square and not occupied and pawns & rank & chess.BB_PAWN_ATTACKS[not white][square]:
        return None  # chess.Board decides whether the capture is legal
    behind = chess.shift_down(_BB_SQUARES[square]) if white else chess.shift_up(_BB_SQUARES[square])
    if square and pawns & (chess.shift_left(behind) | chess.shift_right(behind)):
        return chess.polyglot.POLYGLOT_RANDOM_ARRAY[772 + chess.square_file(square)]
    return 0


def _men_placed(expanded: str) -> list[tuple[chess.Square, str]]:
    """The square and FEN letter of each man of a placement :func:`studydb.gbr.expand_placement`
    expanded (a8 first, nine characters a rank with its ``/``).

    >>> _men_placed(gbr.expand_placement("8/8/8/8/8/8/8/K6k"))
    [(0, 'K'), (7, 'k')]
    """
    return [
        ((7 - index // 9) * 8 + index % 9, symbol)
        for index, symbol in enumerate(expanded)
        if symbol != "." and symbol != "/"
    ]


def _position_columns(material: gbr.Material, fen: str, zobrist: int) -> dict[str, Any]:
    code = material.code
    white, black = material.white, material.black
    return {
        "gbr": code,
        "pieces": code[:4],
        "wq": white.q,
        "wr": white.r,
        "wb": white.b,
        "wn": white.n,
        "wp": white.p,
        "bq": black.q,
        "br": black.r,
        "bb": black.b,
        "bn": black.n,
        "bp": black.p,
        "men": material.men,
        "signature": material.signature,
        "fen": fen,
        "turn": fen.split(" ", 2)[1],
        "zobrist": zobrist - (1 << 64) if zobrist >= 1 << 63 else zobrist,
    }


def _int32(value: int | None) -> int | None:
    """A header number, or None when it does not fit an integer column."""
    return value if value is None or -_INT32 <= value < _INT32 else None


def content_hash(game: RawGame) -> str:
    """Identify a game by its tags and moves, whatever its layout or encoding.

    Text the tags do not hold (a repeated tag, an unterminated value, a ``;``
    comment) counts too: a duplicate loses nothing but whitespace.  A game too
    large to store is identified by its bytes.
    """
    digest = hashlib.blake2b(digest_size=16)
    if game.digest:  # too large to hold: known by all its bytes
        digest.update(b"\x1cdigest" + game.digest.encode())
        return digest.hexdigest()
    if len(game.raw) > MAX_GAME_BYTES:
        digest.update(b"\x1craw")
        digest.update(game.raw)
        return digest.hexdigest()
    headers = game.headers
    tags = "\x1e".join(map("\x1f".join, headers.items())) + "\x1e" if headers else ""
    leftovers = header_leftovers(game)
    if leftovers:
        tags += "\x1c" + leftovers
    digest.update(f"{tags}\x1d".encode())
    digest.update(_collapsed(game.movetext))
    return digest.hexdigest()


#: The ASCII white space of ``str.split``: tab, line feed, vertical tab, form feed,
#: carriage return and the four separators (0x1c-0x1f), made spaces.
_SPACED = bytes.maketrans(b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f", b"         ")


#: Up to this length an ASCII text is collapsed by replacing its spaces; a longer one
#: has comments as often as not (a tournament game's clocks and evaluations: runs of
#: spaces after each), where splitting it in words costs less.
_COLLAPSED_BY_REPLACING = 1500


def _collapsed(text: str) -> bytes:
    """``' '.join(text.split())`` in UTF-8; a short ASCII text without splitting it in words.

    >>> _collapsed(" 1. e4\\t e5 \\n\\n  *\\r\\n")
    b'1. e4 e5 *'
    """
    if len(text) > _COLLAPSED_BY_REPLACING or not text.isascii():
        return " ".join(text.split()).encode()
    data = text.encode().translate(_SPACED)
    while b"  " in data:
        data = data.replace(b"  ", b" ")
    return data.strip(b" ")


def validate_game(game: RawGame, fen: str, *, chess960: bool = False) -> list[str]:
    """Replay every move of a game, main line and variations; return the errors.

    >>> import io
    >>> from studydb.pgn import read_games
    >>> (game,) = read_games(io.BytesIO(b"1. e4 e5 2. Ke3 *"), name="x")
    >>> validate_game(game, chess.STARTING_FEN)
    ["illegal san: 'Ke3' in rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"]
    """
    errors = []
    board = chess.Board(fen, chess960=chess960)
    status = board.status()
    if status != chess.STATUS_VALID:
        errors.append(f"illegal start position: {_status_text(status)}")
    errors.extend(movetext.errors_of(board, game.movetext))
    return errors


def _status_text(status: chess.Status) -> str:
    return ", ".join(text for flag, text in _STATUS_TEXTS if flag & status)


#: Each way a start position can be illegal, and how an error names it.
_STATUS_TEXTS = tuple(
    (getattr(chess, name), name.removeprefix("STATUS_").lower().replace("_", " "))
    for name in dir(chess)
    if name.startswith("STATUS_") and name != "STATUS_VALID"
)
