"""SQLAlchemy models, one class per table: the studies and what is kept about them.

Studies and their composers (``studies``, ``composers``, ``study_composers``),
the register of persons (``persons``, ``composer_decisions``),
the imports (``import_runs``, ``rejects``), the soundness checks (``checks``),
the position index (``positions``, ``materials``, ``study_materials``,
``study_index``) and the themes found (``study_themes``).

The schema is created and changed only by the Alembic revisions in
:mod:`studydb.migrations`; ``Base.metadata.create_all`` is for tests.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

#: Count columns in GBR order, white then black: wq wr wb wn wp bq br bb bn bp.
COUNT_COLUMNS = ("wq", "wr", "wb", "wn", "wp", "bq", "br", "bb", "bn", "bp")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _count() -> Mapped[int]:
    return mapped_column(SmallInteger, nullable=False)


class ImportRun(Base):
    """One input file read by one ``studydb import``."""

    __tablename__ = "import_runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file: Mapped[str] = mapped_column(Text, nullable=False)
    started: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    finished: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: ``running``, ``done``, ``interrupted`` or ``failed``.
    status: Mapped[str] = mapped_column(String(16), nullable=False, default="running")
    read: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    stored: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    duplicates: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    rejected: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    error: Mapped[str | None] = mapped_column(Text)


class Person(Base):
    """One composer, whatever the spellings of the name: the register of persons.

    Names (``composers`` rows) point here; :mod:`studydb.db.persons` groups them.
    """

    __tablename__ = "persons"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: The fullest of the person's names, shown for the person.
    name: Mapped[str] = mapped_column(Text, nullable=False)


class Composer(Base):
    """A composer's name as written (a variant of a person's name), with its keys."""

    __tablename__ = "composers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(Text, nullable=False, unique=True)
    #: casefolded, transliterated to ASCII (``studydb.names.fold``).
    key: Mapped[str] = mapped_column(Text, nullable=False, index=True)
    person_id: Mapped[int | None] = mapped_column(
        ForeignKey("persons.id", ondelete="SET NULL"), index=True
    )
    #: The surname's transliteration key (``studydb.names.Name.surname_key``).
    surname_key: Mapped[str | None] = mapped_column(Text, index=True)
    #: The key of the first given name written in full, if any.
    given_key: Mapped[str | None] = mapped_column(Text)
    #: The first letter of the first given name's key (an initial counts).
    given_initial: Mapped[str | None] = mapped_column(String(4))


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

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8), nullable=False)
    name: Mapped[str] = mapped_column(Text, nullable=False)
    other: Mapped[str] = mapped_column(Text, nullable=False)
    made: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)


class StudyComposer(Base):
    """Who composed a study, in the order the source names them."""

    __tablename__ = "study_composers"
    # composer -> studies without touching the table: the composer search.
    __table_args__ = (Index("ix_study_composers_composer_id_study_id", "composer_id", "study_id"),)

    study_id: Mapped[int] = mapped_column(
        ForeignKey("studies.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    composer_id: Mapped[int] = mapped_column(
        ForeignKey("composers.id", ondelete="RESTRICT"), nullable=False
    )

    composer: Mapped[Composer] = relationship(lazy="joined")


class Study(Base):
    """One study (or game) with its GBR classification and provenance."""

    __tablename__ = "studies"
    # One index for every count condition (``--where``): read alone, it answers them.
    __table_args__ = (Index(None, "men", *COUNT_COLUMNS),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)

    # Material: the code, its four piece digits, the counts and derived totals.
    gbr: Mapped[str] = mapped_column(String(7), nullable=False, index=True)
    pieces: Mapped[str] = mapped_column(String(4), nullable=False, index=True)
    wq: Mapped[int] = _count()
    wr: Mapped[int] = _count()
    wb: Mapped[int] = _count()
    wn: Mapped[int] = _count()
    wp: Mapped[int] = _count()
    bq: Mapped[int] = _count()
    br: Mapped[int] = _count()
    bb: Mapped[int] = _count()
    bn: Mapped[int] = _count()
    bp: Mapped[int] = _count()
    men: Mapped[int] = _count()
    signature: Mapped[str] = mapped_column(String(40), nullable=False, index=True)

    # Start position.
    fen: Mapped[str] = mapped_column(Text, nullable=False)
    turn: Mapped[str] = mapped_column(String(1), nullable=False)  # 'w' or 'b'
    #: ``chess.polyglot.zobrist_hash`` of the start position, as a signed 64-bit integer.
    zobrist: Mapped[int] = mapped_column(BigInteger, nullable=False, index=True)

    # What the headers say.
    stipulation: Mapped[str | None] = mapped_column(String(8), index=True)  # win, draw, mate
    result: Mapped[str | None] = mapped_column(Text)
    composer_names: Mapped[str | None] = mapped_column(Text)  # as written, '; '-joined
    source: Mapped[str | None] = mapped_column(Text)
    year: Mapped[int | None] = mapped_column(Integer, index=True)
    award: Mapped[str | None] = mapped_column(Text)
    award_kind: Mapped[str | None] = mapped_column(String(16))
    award_rank: Mapped[int | None] = mapped_column(Integer)
    headers: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    #: n of a mate-in-n stipulation (``Stipulation "#8"``).
    mate_in: Mapped[int | None] = mapped_column(Integer)
    #: EG references, the numbers space-separated: ``'1335'``, ``'6353 9212'``.
    eg: Mapped[str | None] = mapped_column(Text)
    #: A version, correction or "after" note (``(v): …``) from the Source tag.
    note: Mapped[str | None] = mapped_column(Text)
    #: ``correction``, ``modification``, ``version`` or ``solution`` (HHdb's
    #: ``(c)``, ``(m)``, ``(v)``, ``(s)`` flags), None for an original.
    version: Mapped[str | None] = mapped_column(String(12))
    #: The study's number in its source (``64#434`` → ``'434'``).
    number: Mapped[str | None] = mapped_column(Text)
    #: A second publication (``also …``): a reprint, not the original source.
    reprint: Mapped[str | None] = mapped_column(Text)
    #: ``study``, or ``text`` for an entry with no set-up position and no
    #: moves (a chapter heading, an introduction), left out of searches.
    kind: Mapped[str] = mapped_column(
        String(8), nullable=False, default="study", server_default="study", index=True
    )

    # The game exactly as read.
    pgn: Mapped[str] = mapped_column(Text, nullable=False)
    encoding: Mapped[str] = mapped_column(String(16), nullable=False)
    content_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)

    # Move validation (``studydb import --validate``): None = not validated.
    valid: Mapped[bool | None] = mapped_column(Boolean, index=True)
    errors: Mapped[list[str] | None] = mapped_column(JSON)

    # Provenance.
    run_id: Mapped[int | None] = mapped_column(ForeignKey("import_runs.id", ondelete="SET NULL"))
    file: Mapped[str | None] = mapped_column(Text)
    line: Mapped[int | None] = mapped_column(Integer)
    offset: Mapped[int | None] = mapped_column(BigInteger)

    composers: Mapped[list[StudyComposer]] = relationship(
        order_by=StudyComposer.position, cascade="all, delete-orphan", lazy="selectin"
    )


class Reject(Base):
    """A game that could not be stored, kept byte for byte with the reason."""

    __tablename__ = "rejects"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    raw: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    raw_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    reason: Mapped[str] = mapped_column(Text, nullable=False)
    run_id: Mapped[int | None] = mapped_column(
        ForeignKey("import_runs.id", ondelete="SET NULL"), index=True
    )
    file: Mapped[str | None] = mapped_column(Text)
    line: Mapped[int | None] = mapped_column(Integer)
    offset: Mapped[int | None] = mapped_column(BigInteger)


class StudyCheck(Base):
    """The last soundness check of a study (``studydb check``): verdict and plies.

    ``settings`` identifies the tables, engine and options used, so that a run
    with the same ones skips the study.  ``plies`` holds
    :meth:`studydb.soundness.report.Ply.to_dict` of every ply reported.
    """

    __tablename__ = "checks"

    study_id: Mapped[int] = mapped_column(
        ForeignKey("studies.id", ondelete="CASCADE"), primary_key=True
    )
    #: One of :data:`studydb.verdicts.VERDICTS`.
    verdict: Mapped[str] = mapped_column(String(10), nullable=False, index=True)
    table_plies: Mapped[int] = mapped_column(Integer, nullable=False)
    engine_plies: Mapped[int] = mapped_column(Integer, nullable=False)
    #: Ply of the first main-line position within the tables (0 = the start).
    claim_ply: Mapped[int | None] = mapped_column(Integer)
    #: Ply of the first solution error of the main line.
    error_ply: Mapped[int | None] = mapped_column(Integer)
    #: Largest number of men of the tables used.
    tables_men: Mapped[int | None] = mapped_column(SmallInteger)
    #: Engine name and limit (``Stockfish 15.1 depth=12``), None without engine.
    engine: Mapped[str | None] = mapped_column(Text)
    settings: Mapped[str] = mapped_column(String(64), nullable=False)
    checked: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    note: Mapped[str | None] = mapped_column(Text)
    plies: Mapped[list[dict[str, Any]]] = mapped_column(JSON, nullable=False)
    #: The main-line position from which every position was checked (0 = the start).
    checked_from: Mapped[int | None] = mapped_column(Integer)
    #: Why the start was not judged (``unchecked``'s reason; also ``no-errors``').
    reason: Mapped[str | None] = mapped_column(Text)


class Material(Base):
    """A material class reached by some indexed position (positions point here)."""

    __tablename__ = "materials"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: Exact counts, python-chess/Syzygy style (``KRPvKR``): one row per class.
    signature: Mapped[str] = mapped_column(String(40), nullable=False, unique=True)
    gbr: Mapped[str] = mapped_column(String(7), nullable=False)
    pieces: Mapped[str] = mapped_column(String(4), nullable=False)
    wq: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    wr: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    wb: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    wn: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    wp: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    bq: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    br: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    bb: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    bn: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    bp: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    men: Mapped[int] = mapped_column(SmallInteger, nullable=False)


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

    similar: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    study_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    node: Mapped[int] = mapped_column(Integer, primary_key=True)
    image: Mapped[int] = mapped_column(SmallInteger, nullable=False)
    ply: Mapped[int] = mapped_column(Integer, nullable=False)
    main: Mapped[bool] = mapped_column(Boolean, nullable=False)
    material_id: Mapped[int] = mapped_column(Integer, nullable=False)


class StudyMaterial(Base):
    """A material class a study's main line reaches (``ends``: its last position's)."""

    __tablename__ = "study_materials"
    __table_args__ = ({"sqlite_with_rowid": False},)

    material_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    study_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    ends: Mapped[bool] = mapped_column(Boolean, nullable=False)


class StudyIndex(Base):
    """A study whose positions are indexed, with how many, and their boards (pattern search).

    ``boards``: :func:`studydb.patterns.encode_boards` of every node's board, or
    None for a study indexed before pattern search (``studydb index`` adds it).
    """

    __tablename__ = "study_index"
    __table_args__ = ({"sqlite_with_rowid": False},)

    study_id: Mapped[int] = mapped_column(
        ForeignKey("studies.id", ondelete="CASCADE"), primary_key=True
    )
    positions: Mapped[int] = mapped_column(Integer, nullable=False)
    boards: Mapped[bytes | None] = mapped_column(LargeBinary)


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

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    study_id: Mapped[int] = mapped_column(
        ForeignKey("studies.id", ondelete="CASCADE"), nullable=False, index=True
    )
    theme: Mapped[str] = mapped_column(String(64), nullable=False)
    ply: Mapped[int | None] = mapped_column(Integer)
    detail: Mapped[str | None] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(4), nullable=False)
