"""The tables, one class each: the studies and what is kept about them.

Studies and their composers (``studies``, ``composers``, ``study_composers``),
the register of persons (``persons``, ``composer_decisions``),
the imports (``import_runs``, ``rejects``), the soundness checks (``checks``),
the position index (``positions``, ``materials``, ``study_materials``,
``study_index``) and the themes found (``study_themes``).

Each class is SQLAlchemy Core, not the ORM (which costs a command's start-up
a third of its time and which nothing here uses): its columns are class
attributes (``Study.gbr``), ``__table__`` is the :class:`~sqlalchemy.Table`
built from them, and the class stands for its table in a statement
(``select(func.count()).select_from(Study)``, ``insert(Reject)``).  Rows
come back as Core rows (``row.gbr``).

The schema is created and changed only by the Alembic revisions in
:mod:`studydb.db.migrations`; ``Base.metadata.create_all`` is for tests.

>>> from sqlalchemy import select
>>> " ".join(str(select(Study.gbr).where(Study.men <= 5)).split())
'SELECT studies.gbr FROM studies WHERE studies.men <= :men_1'
>>> Study.__table__.c.gbr is Study.gbr
True
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, TypeVar, overload

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    ColumnClause,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator, TypeEngine

from studydb.pgn import deflate_text, inflate_text

_T = TypeVar("_T")

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

#: Count columns in GBR order, white then black: wq wr wb wn wp bq br bb bn bp.
COUNT_COLUMNS = ("wq", "wr", "wb", "wn", "wp", "bq", "br", "bb", "bn", "bp")


class Base:
    """A table written as a class: each :class:`~sqlalchemy.Column` attribute is a
    column named after it, in order; ``__table_args__`` holds the table's indexes
    (and a dict of dialect options last); every table is in ``metadata``."""

    metadata: ClassVar[MetaData] = MetaData(naming_convention=NAMING_CONVENTION)
    __tablename__: ClassVar[str]
    __table_args__: ClassVar[tuple[Any, ...]] = ()
    __table__: ClassVar[Table]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        columns = []
        for name, value in vars(cls).items():
            if isinstance(value, Column):
                value.name = value.key = name
                columns.append(value)
        args = cls.__table_args__
        options = args[-1] if args and isinstance(args[-1], dict) else {}
        items = args[:-1] if options else args
        cls.__table__ = Table(cls.__tablename__, cls.metadata, *columns, *items, **options)

    @classmethod
    def __clause_element__(cls) -> Table:
        """The table, when the class stands in a statement."""
        return cls.__table__


_Kind = TypeEngine[_T] | type[TypeEngine[_T]]


@overload
def _column(
    kind: _Kind[_T], *args: Any, nullable: Literal[False] = False, **options: Any
) -> ColumnClause[_T]: ...
@overload
def _column(
    kind: _Kind[_T], *args: Any, nullable: Literal[True], **options: Any
) -> ColumnClause[_T | None]: ...
def _column(kind: _Kind[_T], *args: Any, nullable: bool = False, **options: Any) -> Any:
    """A column of a :class:`Base` table, named after its attribute: NOT NULL unless
    ``nullable``, and typed as it is (``Study.gbr`` is a ``ColumnClause[str]``,
    ``Study.year`` a ``ColumnClause[int | None]``)."""
    return Column(kind, *args, nullable=nullable, **options)


class DeflatedText(TypeDecorator[str]):
    """A text column stored deflated (:func:`studydb.pgn.deflate_text`): a game's PGN in
    a third to two thirds of its bytes, read back exactly as written.  Values read are
    strings; written, strings or bytes already deflated (the import deflates in its
    worker processes)."""

    impl = LargeBinary
    cache_ok = True

    def process_bind_param(self, value: str | bytes | None, dialect: Dialect) -> bytes | None:
        if value is None or isinstance(value, bytes):
            return value
        return deflate_text(value)

    def process_result_value(self, value: bytes | None, dialect: Dialect) -> str | None:
        return None if value is None else inflate_text(value)


def _count() -> ColumnClause[int]:
    return _column(SmallInteger)


class ImportRun(Base):
    """One input file read by one ``studydb import``."""

    __tablename__ = "import_runs"

    id = _column(Integer, primary_key=True)
    file = _column(Text)
    started = _column(DateTime(timezone=True))
    finished = _column(DateTime(timezone=True), nullable=True)
    #: ``running``, ``done``, ``interrupted`` or ``failed``.
    status = _column(String(16), default="running")
    read = _column(Integer, default=0)
    stored = _column(Integer, default=0)
    duplicates = _column(Integer, default=0)
    rejected = _column(Integer, default=0)
    error = _column(Text, nullable=True)


class Person(Base):
    """One composer, whatever the spellings of the name: the register of persons.

    Names (``composers`` rows) point here; :mod:`studydb.db.persons` groups them.
    """

    __tablename__ = "persons"
    #: SQLite gives no id twice (revision 0018): a removed person's id names no other.
    __table_args__ = ({"sqlite_autoincrement": True},)

    id = _column(Integer, primary_key=True)
    #: The fullest of the person's names, shown for the person.
    name = _column(Text)


class Composer(Base):
    """A composer's name as written (a variant of a person's name), with its keys."""

    __tablename__ = "composers"

    id = _column(Integer, primary_key=True)
    name = _column(Text, unique=True)
    #: casefolded, transliterated to ASCII (``studydb.names.fold``).
    key = _column(Text, index=True)
    person_id = _column(
        Integer, ForeignKey("persons.id", ondelete="SET NULL"), index=True, nullable=True
    )
    #: The surname's transliteration key (``studydb.names.Name.surname_key``).
    surname_key = _column(Text, index=True, nullable=True)
    #: The key of the first given name written in full, if any.
    given_key = _column(Text, nullable=True)
    #: The first letter of the first given name's key (an initial counts).
    given_initial = _column(String(4), nullable=True)


class ComposerDecision(Base):
    """A user's decision about two names: ``same`` person, ``apart``, or an ``alias``.

    Kept by name, not by id, so that decisions outlive re-imports and can be
    exported to another database.  ``alias``: ``name`` is another name of
    ``other``'s person (a pseudonym, a spelling no study carries yet).
    """

    __tablename__ = "composer_decisions"
    __table_args__ = (
        Index("uq_composer_decisions_kind_name_other", "kind", "name", "other", unique=True),
    )

    id = _column(Integer, primary_key=True)
    kind = _column(String(8))
    name = _column(Text)
    other = _column(Text)
    made = _column(DateTime(timezone=True))


class StudyComposer(Base):
    """Who composed a study, in the order the source names them."""

    __tablename__ = "study_composers"
    # composer -> studies without touching the table: the composer search.
    __table_args__ = (Index("ix_study_composers_composer_id_study_id", "composer_id", "study_id"),)

    study_id = _column(Integer, ForeignKey("studies.id", ondelete="CASCADE"), primary_key=True)
    position = _column(SmallInteger, primary_key=True)
    composer_id = _column(Integer, ForeignKey("composers.id", ondelete="RESTRICT"))


class Study(Base):
    """One study (or game) with its GBR classification and provenance."""

    __tablename__ = "studies"
    # One index for every count condition (``--where``): read alone, it answers them.
    __table_args__ = (Index(None, "men", *COUNT_COLUMNS),)

    id = _column(Integer, primary_key=True)

    # Material: the code, its four piece digits, the counts and derived totals.
    gbr = _column(String(7), index=True)
    pieces = _column(String(4), index=True)
    wq = _count()
    wr = _count()
    wb = _count()
    wn = _count()
    wp = _count()
    bq = _count()
    br = _count()
    bb = _count()
    bn = _count()
    bp = _count()
    men = _count()
    signature = _column(String(40), index=True)

    # Start position.
    fen = _column(Text)
    turn = _column(String(1))
    #: ``chess.polyglot.zobrist_hash`` of the start position, as a signed 64-bit integer.
    zobrist = _column(BigInteger, index=True)

    # What the headers say.
    stipulation = _column(String(8), index=True, nullable=True)
    result = _column(Text, nullable=True)
    composer_names = _column(Text, nullable=True)
    source = _column(Text, nullable=True)
    year = _column(Integer, index=True, nullable=True)
    award = _column(Text, nullable=True)
    award_kind = _column(String(16), nullable=True)
    award_rank = _column(Integer, nullable=True)
    #: n of a mate-in-n stipulation (``Stipulation "#8"``).
    mate_in = _column(Integer, nullable=True)
    #: EG references, the numbers space-separated: ``'1335'``, ``'6353 9212'``.
    eg = _column(Text, nullable=True)
    #: A version, correction or "after" note (``(v): …``) from the Source tag.
    note = _column(Text, nullable=True)
    #: ``correction``, ``modification``, ``version`` or ``solution`` (HHdb's
    #: ``(c)``, ``(m)``, ``(v)``, ``(s)`` flags), None for an original.
    version = _column(String(12), nullable=True)
    #: The study's number in its source (``64#434`` → ``'434'``).
    number = _column(Text, nullable=True)
    #: A second publication (``also …``): a reprint, not the original source.
    reprint = _column(Text, nullable=True)
    #: ``study``, or ``text`` for an entry with no set-up position and no
    #: moves (a chapter heading, an introduction), left out of searches.
    kind = _column(String(8), default="study", server_default="study", index=True)

    # The game exactly as read (stored deflated: a third of its bytes).
    pgn = _column(DeflatedText)
    encoding = _column(String(16))
    content_hash = _column(String(64), unique=True)

    # Move validation (``studydb import --validate``): None = not validated.
    valid = _column(Boolean, index=True, nullable=True)
    errors = _column(JSON, nullable=True)

    # Provenance.
    run_id = _column(Integer, ForeignKey("import_runs.id", ondelete="SET NULL"), nullable=True)
    file = _column(Text, nullable=True)
    line = _column(Integer, nullable=True)
    offset = _column(BigInteger, nullable=True)


class Reject(Base):
    """A game that could not be stored, kept byte for byte with the reason."""

    __tablename__ = "rejects"

    id = _column(Integer, primary_key=True)
    raw = _column(LargeBinary)
    raw_hash = _column(String(64), unique=True)
    reason = _column(Text)
    run_id = _column(
        Integer, ForeignKey("import_runs.id", ondelete="SET NULL"), index=True, nullable=True
    )
    file = _column(Text, nullable=True)
    line = _column(Integer, nullable=True)
    offset = _column(BigInteger, nullable=True)


class StudyCheck(Base):
    """The last soundness check of a study (``studydb check``): verdict and plies.

    ``settings`` identifies the tables, engine and options used, so that a run
    with the same ones skips the study.  ``plies`` holds
    :meth:`studydb.soundness.verdict.Ply.as_dict` of every ply reported.
    """

    __tablename__ = "checks"

    study_id = _column(Integer, ForeignKey("studies.id", ondelete="CASCADE"), primary_key=True)
    #: One of :data:`studydb.vocabulary.VERDICTS`.
    verdict = _column(String(10), index=True)
    table_plies = _column(Integer)
    engine_plies = _column(Integer)
    #: Ply of the first main-line position within the tables (0 = the start).
    claim_ply = _column(Integer, nullable=True)
    #: Ply of the first solution error of the main line.
    error_ply = _column(Integer, nullable=True)
    #: Largest number of men of the tables used.
    tables_men = _column(SmallInteger, nullable=True)
    #: Engine name and limit (``Stockfish 15.1 depth=12``), None without engine.
    engine = _column(Text, nullable=True)
    settings = _column(String(64))
    checked = _column(DateTime(timezone=True))
    note = _column(Text, nullable=True)
    plies = _column(JSON)
    #: The main-line position from which every position was checked (0 = the start).
    checked_from = _column(Integer, nullable=True)
    #: Why the start was not judged (``unchecked``'s reason; also ``no-errors``').
    reason = _column(Text, nullable=True)


class Material(Base):
    """A material class reached by some indexed position (positions point here)."""

    __tablename__ = "materials"

    id = _column(Integer, primary_key=True)
    #: Exact counts, python-chess/Syzygy style (``KRPvKR``): one row per class.
    signature = _column(String(40), unique=True)
    gbr = _column(String(7))
    pieces = _column(String(4))
    wq = _column(SmallInteger)
    wr = _column(SmallInteger)
    wb = _column(SmallInteger)
    wn = _column(SmallInteger)
    wp = _column(SmallInteger)
    bq = _column(SmallInteger)
    br = _column(SmallInteger)
    bb = _column(SmallInteger)
    bn = _column(SmallInteger)
    bp = _column(SmallInteger)
    men = _column(SmallInteger)


class Position(Base):
    """One position of a study's main line or variations (the position index).

    Keyed by the similar key first, so one index answers exact and similar
    search: the exact position is (``similar``, ``image``), see
    :mod:`studydb.positions`.  ``node`` numbers the moves in text order (0 =
    start) and points at the position.  No foreign keys: the table is
    written only by the import and ``studydb index``, and SQLite would need a
    second index on ``study_id`` to check them.  A WITHOUT ROWID table on SQLite.
    """

    __tablename__ = "positions"
    __table_args__ = ({"sqlite_with_rowid": False},)

    similar = _column(BigInteger, primary_key=True)
    study_id = _column(Integer, primary_key=True)
    node = _column(Integer, primary_key=True)
    image = _column(SmallInteger)
    ply = _column(Integer)
    main = _column(Boolean)
    material_id = _column(Integer)


class StudyMaterial(Base):
    """A material class a study's main line reaches (``ends``: its last position's)."""

    __tablename__ = "study_materials"
    __table_args__ = ({"sqlite_with_rowid": False},)

    material_id = _column(Integer, primary_key=True)
    study_id = _column(Integer, primary_key=True)
    ends = _column(Boolean)


class StudyMove(Base):
    """A prefilter key of a study's moves (:func:`studydb.lines.facts_keys`): a man to a
    square, a man's capture, a promotion, a check, mate or stalemate; ``main``: it
    occurs on the main line."""

    __tablename__ = "study_moves"
    __table_args__ = ({"sqlite_with_rowid": False},)

    key = _column(SmallInteger, primary_key=True)
    study_id = _column(Integer, primary_key=True)
    main = _column(Boolean)


class StudyIndex(Base):
    """A study whose positions are indexed, with how many, their boards (pattern search)
    and their ply facts (manoeuvre search).

    ``boards``: :func:`studydb.patterns.encode_boards` of every node's board, or
    None for a study indexed before pattern search; ``seen_wp`` … ``seen_bk``
    (:data:`SEEN`): where each kind of man stood; ``occupancy``:
    :func:`studydb.patterns.encode_occupancy` of every node's occupied squares; ``moves``:
    :func:`studydb.lines.encode_facts` of every node's facts, or None for a study
    indexed before manoeuvre search (``studydb index`` adds them).
    """

    __tablename__ = "study_index"
    __table_args__ = ({"sqlite_with_rowid": False},)

    study_id = _column(Integer, ForeignKey("studies.id", ondelete="CASCADE"), primary_key=True)
    positions = _column(Integer)
    boards = _column(LargeBinary, nullable=True)
    moves = _column(LargeBinary, nullable=True)
    # Where each kind of man stood in some node's position: a signed 64-bit bitboard
    # (a1 = bit 0), NULL for a study indexed before revision 0012 (pattern search's
    # prefilter, studydb.positions.IndexRows.seen).
    seen_wp = _column(BigInteger, nullable=True)
    seen_wn = _column(BigInteger, nullable=True)
    seen_wb = _column(BigInteger, nullable=True)
    seen_wr = _column(BigInteger, nullable=True)
    seen_wq = _column(BigInteger, nullable=True)
    seen_wk = _column(BigInteger, nullable=True)
    seen_bp = _column(BigInteger, nullable=True)
    seen_bn = _column(BigInteger, nullable=True)
    seen_bb = _column(BigInteger, nullable=True)
    seen_br = _column(BigInteger, nullable=True)
    seen_bq = _column(BigInteger, nullable=True)
    seen_bk = _column(BigInteger, nullable=True)
    # Every node's occupied squares, by rank, and flags: studydb.patterns.encode_occupancy,
    # NULL for a study indexed before revision 0013 (pattern search's exact prefilter).
    occupancy = _column(LargeBinary, nullable=True)


#: The ``seen_*`` columns in the order of :mod:`studydb.positions`' man codes (white pawn
#: … king, black pawn … king): ``SEEN[code & 15]``.
SEEN = (
    StudyIndex.seen_wp,
    StudyIndex.seen_wn,
    StudyIndex.seen_wb,
    StudyIndex.seen_wr,
    StudyIndex.seen_wq,
    StudyIndex.seen_wk,
    StudyIndex.seen_bp,
    StudyIndex.seen_bn,
    StudyIndex.seen_bb,
    StudyIndex.seen_br,
    StudyIndex.seen_bq,
    StudyIndex.seen_bk,
)


class StudyTheme(Base):
    """A theme of a study, with the ply where it happens and its source.

    ``source`` is ``auto`` (found by :mod:`studydb.themes` in the main line)
    or ``pgn`` (named by a ``Keywords``/``Theme`` tag; no ply).  ``detail``
    is the theme's particular (``N`` for an underpromotion to a knight,
    ``full``/``half`` for a mutual zugzwang).
    """

    __tablename__ = "study_themes"
    # theme -> studies without touching the table: search --theme and the counts.
    __table_args__ = (Index("ix_study_themes_theme_study_id", "theme", "study_id"),)

    id = _column(Integer, primary_key=True)
    study_id = _column(Integer, ForeignKey("studies.id", ondelete="CASCADE"), index=True)
    theme = _column(String(64))
    ply = _column(Integer, nullable=True)
    detail = _column(Text, nullable=True)
    source = _column(String(4))
