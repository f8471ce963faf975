"""SQLAlchemy models: studies, composers, import runs and rejects.

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
    return mapped_column(SmallInteger, nullable=False, index=True)


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


class Composer(Base):
    """A composer's name as written, with a normalised key for search."""

    __tablename__ = "composers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(Text, nullable=False, unique=True)
    #: casefolded, accents stripped (``studydb.headers.normalise_name``).
    key: Mapped[str] = mapped_column(Text, nullable=False, index=True)


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
    stipulation: Mapped[str | None] = mapped_column(String(8), index=True)  # win, draw
    result: Mapped[str | None] = mapped_column(Text)
    composer_names: Mapped[str | None] = mapped_column(Text)  # as written, '; '-joined
    source: Mapped[str | None] = mapped_column(Text)
    year: Mapped[int | None] = mapped_column(Integer, index=True)
    award: Mapped[str | None] = mapped_column(Text)
    award_kind: Mapped[str | None] = mapped_column(String(16), index=True)
    award_rank: Mapped[int | None] = mapped_column(Integer)
    headers: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)

    # The game exactly as read.
    pgn: Mapped[str] = mapped_column(Text, nullable=False)
    encoding: Mapped[str] = mapped_column(String(16), nullable=False)
    content_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)

    # Move validation (``studydb import --validate``): None = not validated.
    valid: Mapped[bool | None] = mapped_column(Boolean, index=True)
    errors: Mapped[list[str] | None] = mapped_column(JSON)

    # Provenance.
    run_id: Mapped[int | None] = mapped_column(
        ForeignKey("import_runs.id", ondelete="SET NULL"), index=True
    )
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
