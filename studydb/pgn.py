"""Streaming PGN reader: split a (possibly compressed) PGN stream into raw games.

Pure: the standard library (and :mod:`studydb.compression`, the stored texts' zstd), so
import workers can use it without SQLAlchemy.

The reader works on bytes, line by line, and decodes each game once.  It never
parses moves; it only decides where each game begins and ends, the way
``pgn-extract`` does, and hands every byte on to the caller:

* A tag line (``[Name "value"]``; several tags on one line and leading
  whitespace allowed) that follows movetext starts a new game, blank line or not.
* Blank lines inside the tag section, or between the tags and the movetext
  (any number of them), do not split a game.
* Movetext after a game's result (``1-0``, ``0-1``, ``1/2-1/2``, ``*`` as the
  last token of a line, outside comments and variations) starts a new game with
  no tags.  A line holding only a comment or an escape line after a result
  stays with the game it follows (``1-0 {White won on time}``).
* Tags written on the line of a result (``1-0 [Event "B"]``) start a new
  game there, in the middle of the line, also when the line starts by closing
  a comment (``} 1-0 [Event "B"]``).
* ``{...}`` comments span lines; a ``[`` inside one is not a tag, nor is
  anything after ``;`` on its line, even at the start of a line: a comment
  holding a line ``[Event "x"]`` is one comment of one game, as for
  python-chess and pgn-extract.  Lines starting with ``%`` are escape lines:
  skipped for parsing, kept in ``raw``.  Braces inside tag values mean nothing.
* Recovery from a ``{`` comment that is never closed (up to the end of the
  stream): the game ends before the first line in that comment that is
  entirely tag pairs and comes straight after a blank line, or starts with an
  ``[Event`` tag, and the rest is read again from there.  So a stray ``{``
  swallows at most the rest of its own game.
* Bytes that are not PGN at all (random data, a text file) still come out:
  as one or more :class:`RawGame` with empty ``headers`` and a ``movetext``
  that no move parser accepts; the importer rejects them with file and line.
  Nothing is dropped: every byte outside the blank lines between games (and
  the DOS end-of-file marks, Ctrl-Z, on lines of their own there) belongs to
  exactly one game's ``raw``.
* A damaged compressed stream (truncated ``.gz``, ``.bz2``, ``.xz``): every
  game read before the damage is yielded; the game being read when the stream
  broke is yielded with ``truncated=True`` (if any of it was read); then
  :class:`PgnError` is raised naming the file, the byte offset and the line.

Lines end at ``\\n`` (so ``\\r\\n`` files work and keep their ``\\r``); in an
old-Mac file (the first line end read is a lone ``\\r``) they end at ``\\r``.
A UTF-8 BOM is skipped at the start of any game (files concatenated with a BOM
each); :func:`open_pgn` turns UTF-16 (with its BOM, compressed or not) into UTF-8.  One very long
line costs linear time, and blank lines between games are not held.
"""

from __future__ import annotations

import bz2
import codecs
import hashlib
import io
import lzma
import os
import re
import stat
import sys
import tempfile
import zlib
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO

from studydb import compression
from studydb.errors import PgnError

__all__ = [
    "MAX_GAME_BYTES",
    "PGN_SUFFIXES",
    "Damage",
    "PgnError",
    "RawGame",
    "ends_complete",
    "find_pgn_files",
    "header_leftovers",
    "open_pgn",
    "open_verified",
    "read_games",
    "stream_grew",
    "tags_of",
]

PGN_SUFFIXES = (".pgn", ".pgn.gz", ".pgn.bz2", ".pgn.xz")

#: Games larger than this are rejected (the importer says so, with the size), while
#: they are read: only their first :data:`KEPT_BYTES` are held.
MAX_GAME_BYTES = 32 << 20
#: What is kept of a game too large to keep (its headers, for the reject's record).
KEPT_BYTES = 64 << 10
#: A tag line longer than this makes its game a reject as it is read (no tag value
#: may be that long: see ``studydb.db.classify.MAX_TAG_CHARS``).
MAX_TAG_LINE = 1 << 20

_BOM = b"\xef\xbb\xbf"
_CHUNK = 1 << 20
#: Bytes read to tell the compression (or UTF-16) of an input.
_MAGIC = 6

# A tag's name where a tag line is looked for (a game's start, its tag section): words,
# the spaces between them too.  A name with a space in it is no tag (it is not read into
# the headers, and stays in the tag section's text), but its line is one of the tags'
# lines, as pgn-extract takes it: "[My Tag "v"]" between two tags did split a game.
_NAME = r"[A-Za-z0-9_]+(?:[ \t]+[A-Za-z0-9_]+)*"
# What opens a tag pair: '[', a name, '"' (in decoded text, and in bytes).
_OPENS_TAG = r"\[[ \t]*" + _NAME + r'[ \t]*"'
_BYTES_OPENS_TAG = _OPENS_TAG.encode()
# A line that opens a tag pair.
_TAG_START = re.compile(rb"[ \t]*" + _BYTES_OPENS_TAG)
# A line made only of tag pairs (used to recover from an unterminated comment).
_TAG_ONLY_LINE = re.compile(
    rb"[ \t]*(?:" + _BYTES_OPENS_TAG + rb'(?:[^"\\]|\\.)*"[ \t]*\][ \t]*)+\r?'
)
# One tag pair in decoded text; the value may hold escaped quotes and backslashes.
_TAG = re.compile(r'\[[ \t]*(\w+)[ \t]*"([^"\\\r\n]*(?:\\.[^"\\\r\n]*)*)"[ \t]*\]', re.ASCII)
# A tag pair as most files write it: one space, no escapes (see _parse_headers).
_PLAIN_TAG = re.compile(r'\[([A-Za-z0-9_]+) "([^"\\\r\n]*)"\]')
# A tag section of tag pairs (as _TAG reads them, no '[' in their values) and white space
# only (str.isspace's, as str.strip's: \s in a str pattern), which header_leftovers
# need not take apart.
_CLEAN_HEAD = re.compile(
    r'(?:\s*\[[ \t]*[A-Za-z0-9_]+[ \t]*"[^"\\\r\n\[]*(?:\\[^\n\[][^"\\\r\n\[]*)*"[ \t]*\])*\s*'
)
# The most common of these: lines of one plain tag pair each (LF or CRLF).
_PLAIN_HEAD = re.compile(r'(?:\[[A-Za-z0-9_]+ "[^"\\\r\n\[]*"\]\r?\n)*')
# Fallback for a line holding one tag whose value has bare quotes in it.
_LOOSE_TAG = re.compile(r'[ \t]*\[[ \t]*([A-Za-z0-9_]+)[ \t]*"(.*)"[ \t]*\][ \t]*\r?')
# An Event tag: where a game starts, even straight after a stray '{' line.
_EVENT_LINE = re.compile(rb'[ \t]*\[[ \t]*Event[ \t]*"')
_UNESCAPE = re.compile(r"\\([\\\"])")
# Characters that need the slow scan of a movetext line.
_SPECIAL = re.compile(rb"[{};()]")
#: White space (between games), matched where it starts: no copy of the buffer.
_WHITE = re.compile(rb"[ \t\r\n]*")
_TAG_LINE = rb"[ \t]*" + _BYTES_OPENS_TAG + rb"[^\n]*\n"
# A tag section: tag lines, blank lines allowed between them.
_HEADER = re.compile(rb"(?:(?:[ \t\r]*\n)*" + _TAG_LINE + rb")+")
# The next tag line: search from just before a line start; match.start() + 1
# is where that line begins.
_NEXT_TAG = re.compile(rb"\n[ \t]*" + _BYTES_OPENS_TAG)
# A result (or anything ending like one) at a line end with more text after it.
_RESULT_THEN_MORE = re.compile(rb"(?:-[01]|/2|\*)[ \t\r]*\n[ \t\r\n]*[^ \t\r\n]")
#: A result's last bytes (outside comments or not) and a byte that may follow them
#: there when text follows the result (see _maybe_result_then_more): one pattern for
#: each, as a pattern starting with a fixed byte is searched for quickly, one starting
#: with a set of bytes slowly.
_FOLLOWER = rb"[ \t\r\n{\[]"
_MINUS_FOLLOWED = re.compile(rb"-[01]" + _FOLLOWER)
_HALF_FOLLOWED = re.compile(rb"/2" + _FOLLOWER)
_STAR_FOLLOWED = re.compile(rb"\*" + _FOLLOWER)
#: The bytes a match of it starts with, and how many of them are tried one by one.
_RESULT_STARTS = (b"-", b"/", b"*")
_MAX_RESULT_STARTS = 16
_NEED_MORE = -1
_MAX_PENDING = 8 << 20
# Old-Mac files (lone CR line ends) are split with CR and LF swapped: one
# byte for one, so offsets hold and the swap undone gives back the raw bytes.
_LONE_CR = re.compile(rb"\r[^\n]")
_SWAP_CR_LF = bytes.maketrans(b"\r\n", b"\n\r")
#: Blank lines after a game's result that end it (a comment after them is not its).
_MAX_BLANKS = 1024
_CLOSED_COMMENT = re.compile(rb"\{[^}]*\}")
_OPENER = re.compile(rb"[{;]")
_RESULTS = (b"1-0", b"0-1", b"1/2-1/2", b"*")
# A result followed on its line by a tag pair (group 1): a new game starts there.
_RESULT_THEN_TAG = re.compile(rb"(?:1-0|0-1|1/2-1/2|\*)[ \t]*(" + _BYTES_OPENS_TAG + rb")")

# Reader phases for the game being collected.
_NONE, _PRE, _TAGS, _MOVES, _ENDED = range(5)


def _latin1_fallback(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):  # the handler is for decoding only
        raise exc
    return exc.object[exc.start : exc.end].decode("latin-1"), exc.end


codecs.register_error("studydb-latin1", _latin1_fallback)


@dataclass(slots=True)
class RawGame:
    """One game as it stands in the file, split but not parsed."""

    raw: bytes
    text: str
    encoding: str
    headers: dict[str, str]
    movetext: str
    file: str
    line: int
    offset: int
    end_offset: int
    truncated: bool = False
    #: Why only the start of the game is in ``raw`` (it ends at ``end_offset``): it
    #: was too large to hold; empty for a game read whole.
    oversize: str = ""
    #: Of a game too large to hold: a digest of all its bytes (BLAKE2b, 16 bytes, hex).
    digest: str = ""

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickle the game without what its other fields give again (for the import's
        workers): no ``text`` when it is ``raw`` decoded as UTF-8, and the length of
        ``movetext`` when it is the end of ``text``.

        >>> import pickle
        >>> (game,) = read_games(io.BytesIO(b'[Event "A"]\\n\\n1. e4 *\\n'), name="x")
        >>> game.__reduce__()[1][1:5]
        (None, 'utf-8', {'Event': 'A'}, 9)
        >>> pickle.loads(pickle.dumps(game)) == game
        True
        """
        text, movetext = self.text, self.movetext
        sent_text = None if self.encoding == "utf-8" and self.raw == _utf8_or_none(text) else text
        return _unpickled_game, (
            self.raw,
            sent_text,
            self.encoding,
            self.headers,
            len(movetext) if text.endswith(movetext) else movetext,
            self.file,
            self.line,
            self.offset,
            self.end_offset,
            self.truncated,
            self.oversize,
            self.digest,
        )


def _utf8_or_none(text: str) -> bytes | None:
    """``text`` in UTF-8; None if it has no UTF-8 (a lone surrogate).

    >>> _utf8_or_none("é"), _utf8_or_none("\\ud800")
    (b'\\xc3\\xa9', None)
    """
    try:
        return text.encode()
    except UnicodeEncodeError:
        return None


def _unpickled_game(
    raw: bytes,
    text: str | None,
    encoding: str,
    headers: dict[str, str],
    movetext: str | int,
    *rest: Any,
) -> RawGame:
    """The game :meth:`RawGame.__reduce__` pickled.

    >>> _unpickled_game(b"1. e4 *", None, "utf-8", {}, 2, "x", 1, 0, 7, False, "", "").movetext
    ' *'
    """
    if text is None:
        text = raw.decode()
    if isinstance(movetext, int):
        movetext = text[len(text) - movetext :]
    return RawGame(raw, text, encoding, headers, movetext, *rest)


def open_pgn(path: str | os.PathLike[str], *, verify: bool = True) -> BinaryIO:
    """Open a PGN file for :func:`read_games`, decompressing gzip, bzip2 and xz.

    The input is opened once and read as a stream, so pipes, FIFOs,
    ``/dev/stdin`` and ``<(…)`` work.  The compression is told by the magic
    bytes, not the suffix; UTF-16 text (with its BOM) is turned into UTF-8;
    ``'-'`` is standard input (compressed or not).  A compressed input is
    checked to its end first (:func:`open_verified`): damaged or truncated, it
    is a :class:`PgnError` saying where, and none of it is read.  With
    ``verify=False`` it is read as it is decoded, and its damage raises from
    :func:`read_games` once the games before it are out.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".pgn") as f:
    ...     _ = f.write('[Event "é"]'.encode("utf-16"))
    ...     f.flush()
    ...     with open_pgn(f.name) as stream:
    ...         stream.read()
    b'[Event "\\xc3\\xa9"]'
    """
    if verify:
        stream, damage = open_verified(path)
        if damage is not None:
            stream.close()
            raise PgnError(f"{damage.where()}; none of it was read")
        return stream
    name = "-" if str(path) == "-" else os.fsdecode(path)
    try:
        stream = sys.stdin.buffer if name == "-" else open(path, "rb")  # noqa: SIM115
    except OSError as exc:
        raise PgnError(f"cannot open {name}: {exc.strerror or exc}") from exc
    try:
        # A regular file is read up to the size it had when opened: lines a
        # writer appends meanwhile (maybe half a game) wait for the next import.
        size = None if name == "-" else _regular_size(stream)
        magic = stream.read(_MAGIC if size is None else min(_MAGIC, size))
        return _wrap(_Prefixed(magic, stream, limit=size), magic, name)
    except OSError as exc:
        stream.close()
        raise PgnError(f"cannot read {name}: {exc.strerror or exc}") from exc
    except PgnError:
        stream.close()
        raise


#: Compressed bytes fed to a decoder at a time while verifying: the damage is
#: located to within this many bytes.
_VERIFY_CHUNK = 8192
_KIND_NAMES = {"gz": "gzip", "bz2": "bzip2", "xz": "xz"}
#: What a verified unit of each format is: the data its check covers.
_UNITS = {"gz": "gzip member", "bz2": "bzip2 block", "xz": "xz stream"}
#: What a format checks as one whole: damage is known to be somewhere in it only.
_CONTAINERS = {"gz": "gzip member", "bz2": "bzip2 stream", "xz": "xz stream"}


@dataclass(frozen=True, slots=True)
class Damage:
    """Where a compressed file is damaged, found before any of its games is read.

    ``start``-``end``: the compressed bytes whose decoding failed; ``decoded``:
    uncompressed bytes out when it failed; ``verified``: the uncompressed bytes
    before it that a check covers (whole gzip members, bzip2 blocks, xz streams);
    ``unit_start``: where the gzip member or bzip2/xz stream that failed starts
    (compressed): a check failing at a member's end says only that the damage
    is somewhere from there on.
    """

    name: str
    kind: str
    start: int
    end: int
    decoded: int
    verified: int
    reason: str
    truncated: bool
    #: What a verified unit is, when not the format's usual one (xz blocks, from the index).
    unit: str = ""
    unit_start: int = 0

    @property
    def first(self) -> int:
        """The first compressed byte that the damage may be at (the message's range)."""
        return min(self.start, self.unit_start)

    def where(self) -> str:
        """The file, where its data is damaged or cut, and what the decoder said.

        Damage is named as far as it is known: from the start of the member or
        stream that failed when that is before the bytes whose decoding failed.
        Data that stops before its end was cut, or damaged so that it looks
        unfinished: the message says both.

        >>> print(Damage("a.gz", "gz", 3116, 3116, 28301, 0, "truncated",
        ...              True).where())  # doctest: +NORMALIZE_WHITESPACE
        a.gz: truncated or damaged gzip file: its data stops at compressed byte 3,116
        (uncompressed byte 28,301) before its end: cut there, or damaged in compressed
        bytes 0-3,116

        >>> print(Damage("a.gz", "gz", 8192, 9000, 60000, 0, "incorrect data check",
        ...              False, unit_start=100).where())  # doctest: +NORMALIZE_WHITESPACE
        a.gz: damaged gzip data in compressed bytes 100-9,000 (somewhere in its gzip
        member: its decoding failed in compressed bytes 8,192-9,000, after uncompressed
        byte 60,000: incorrect data check)
        """
        fmt = _KIND_NAMES[self.kind]
        if self.truncated:  # a cut, or a change that makes the data look unfinished
            return (
                f"{self.name}: truncated or damaged {fmt} file: its data stops at compressed"
                f" byte {self.end:,} (uncompressed byte {self.decoded:,}) before its end: cut"
                f" there, or damaged in compressed bytes {self.first:,}-{self.end:,}"
            )
        failed = f"compressed bytes {self.start:,}-{self.end:,}"
        if self.first == self.start:
            return (
                f"{self.name}: damaged {fmt} data in {failed}"
                f" (after uncompressed byte {self.decoded:,}: {self.reason})"
            )
        return (
            f"{self.name}: damaged {fmt} data in compressed bytes {self.first:,}-{self.end:,}"
            f" (somewhere in its {_CONTAINERS[self.kind]}: its decoding failed in {failed},"
            f" after uncompressed byte {self.decoded:,}: {self.reason})"
        )

    def describe(self, *, salvage: bool) -> str:
        """The message for this damage, saying what became of the file's games.

        >>> damage = Damage("a.pgn.gz", "gz", 8192, 16384, 60000, 0, "invalid", False, "", 8192)
        >>> print(damage.describe(salvage=False))  # doctest: +NORMALIZE_WHITESPACE
        a.pgn.gz: damaged gzip data in compressed bytes 8,192-16,384 (after uncompressed
        byte 60,000: invalid); no game of this file was stored (none is in a verified gzip
        member before the damage)
        """
        what = self.where()
        unit = self.unit or _UNITS[self.kind]
        if not self.verified:
            return (
                f"{what}; no game of this file was stored"
                f" (none is in a verified {unit} before the damage)"
            )
        if salvage:
            return (
                f"{what}; salvaged the games in the first {self.verified:,} uncompressed bytes"
                f" (whole verified {unit}s), the games from there on were not stored"
            )
        return (
            f"{what}; no game of this file was stored; --salvage stores the games in its"
            f" first {self.verified:,} uncompressed bytes (whole verified {unit}s)"
        )


def open_verified(
    path: str | os.PathLike[str], *, salvage: bool = False
) -> tuple[BinaryIO, Damage | None]:
    """Open a PGN file like :func:`open_pgn`, a compressed one checked to its end first.

    gzip checks its data only at the end of a member, so the whole compressed
    input is decoded once and its checks (CRCs, lengths, end markers) verified
    before a game is read; a pipe is spooled to a temporary file for that.
    Damaged or truncated, the stream returned is empty and the
    :class:`Damage` says where; with ``salvage`` the stream holds the
    verified data before the damage (whole gzip members, bzip2 blocks, xz streams).

    >>> import gzip, tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".pgn.gz") as f:
    ...     _ = f.write(gzip.compress(b'[Event "A"] *')[:-3])
    ...     f.flush()
    ...     stream, damage = open_verified(f.name)
    ...     (stream.read(), damage.truncated)
    (b'', True)
    """
    name = "-" if str(path) == "-" else os.fsdecode(path)
    try:
        stream: BinaryIO = sys.stdin.buffer if name == "-" else open(path, "rb")  # noqa: SIM115
    except OSError as exc:
        raise PgnError(f"cannot open {name}: {exc.strerror or exc}") from exc
    try:
        size = None if name == "-" else _regular_size(stream)
        magic = stream.read(_MAGIC if size is None else min(_MAGIC, size))
        kind = _compression(magic, name)
        if kind not in _KIND_NAMES:
            return _wrap(_Prefixed(magic, stream, limit=size), magic, name), None
        spool = None if size is not None else tempfile.TemporaryFile()  # noqa: SIM115
        checking = _Decoding(
            io.BufferedReader(_Prefixed(magic, stream, limit=size, owner=False), _CHUNK),
            kind,
            name,
            spool=spool,
        )
        damage = _decode_all(checking)
        if spool is not None and damage is not None:  # the rest too: an xz index is at the end
            while rest := checking.source.read(_CHUNK):
                spool.write(rest)
        if spool is None:
            source: BinaryIO = stream
        else:  # a pipe is read once: its bytes were kept for the second reading
            stream.close()
            source = spool
        if damage is not None and kind == "xz":
            damage = _xz_blocks_verified(damage, source, size if spool is None else None)
        source.seek(0)
        if damage is not None and not (salvage and damage.verified):
            source.close()
            return io.BufferedReader(io.BytesIO()), damage
        limit = None if damage is None else damage.verified
        return _wrap(_Prefixed(b"", source, limit=size), magic, name, limit=limit), damage
    except OSError as exc:
        stream.close()
        raise PgnError(f"cannot read {name}: {exc.strerror or exc}") from exc
    except PgnError:
        stream.close()
        raise


class _Broken(OSError):
    """Raised by :class:`_Decoding` where the compressed data is damaged."""

    def __init__(self, damage: Damage) -> None:
        super().__init__(damage.reason)
        self.damage = damage


class _Unit:
    """One gzip member, bzip2 stream or xz stream being decoded, output bounded."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.zlib = kind == "gz"
        self.decoder: Any = (
            zlib.decompressobj(wbits=31)
            if self.zlib
            else bz2.BZ2Decompressor()
            if kind == "bz2"
            else lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
        )
        self.data = b""

    def feed(self, data: bytes) -> None:
        self.data = data

    def out(self, size: int) -> bytes:
        """Up to ``size`` decoded bytes; empty when it needs more input (or is at its end)."""
        decoder = self.decoder
        while not decoder.eof:
            found: bytes = decoder.decompress(self.data, size)
            self.data = decoder.unconsumed_tail if self.zlib else b""
            if found or decoder.eof:
                return found
            if self.zlib:
                if not self.data:
                    return b""
            elif decoder.needs_input:
                return b""
        return b""

    @property
    def eof(self) -> bool:
        return bool(self.decoder.eof)

    @property
    def unused_data(self) -> bytes:
        return bytes(self.decoder.unused_data)


class _Decoding(io.RawIOBase):
    """The decoded bytes of a gzip, bzip2 or xz file: members or streams one after
    the other (NUL padding between them skipped), every check verified; damage
    raises :class:`_Broken` with where it is.  ``spool`` gets a copy of every
    compressed byte read; ``limit`` stops the output after that many bytes."""

    def __init__(
        self,
        source: BinaryIO,
        kind: str,
        name: str,
        *,
        spool: BinaryIO | None = None,
        limit: int | None = None,
    ) -> None:
        self.source, self.kind, self.name = source, kind, name
        self.spool, self.limit = spool, limit
        self.unit = _Unit(kind)
        self.fed = False  # the unit has had some input
        self.offset = 0  # compressed bytes read
        self.chunk_start = 0  # where the last chunk read starts
        self.unit_start = 0  # where the member or stream being decoded starts
        self.decoded = 0
        self.verified = 0  # decoded bytes in whole units whose checks held
        self.done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        want = len(buffer)
        if self.limit is not None:
            want = min(want, self.limit - self.decoded)
        while want > 0 and not self.done:
            try:
                data = self.unit.out(want)
            except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as exc:
                raise self._broken(str(exc) or type(exc).__name__, truncated=False) from exc
            if data:
                buffer[: len(data)] = data
                self.decoded += len(data)
                return len(data)
            if self.unit.eof:
                self.verified = self.decoded
                rest = self.unit.unused_data
                self.unit, self.fed = _Unit(self.kind), False
                self._feed(rest, at=self.offset - len(rest))
                continue
            if self.kind == "bz2":
                # libbz2 gives out a block only once all its input is in (the BWT needs
                # the whole block), and checks its CRC as its last byte goes out, before
                # it asks for input again: what is out now is in blocks whose CRC held.
                self.verified = self.decoded
            chunk = self.source.read(_VERIFY_CHUNK)
            if self.spool is not None:
                self.spool.write(chunk)
            self.chunk_start, self.offset = self.offset, self.offset + len(chunk)
            if not chunk:
                self.done = True
                if self.fed:
                    raise self._broken("truncated", truncated=True)
                break
            self._feed(chunk, at=self.chunk_start)
        return 0

    def _feed(self, data: bytes, *, at: int) -> None:
        """Give the unit ``data``, which starts at compressed byte ``at``."""
        if not self.fed:
            stripped = data.lstrip(b"\x00")  # padding after a member or stream
            if not stripped:
                return
            self.unit_start = at + len(data) - len(stripped)
            data = stripped
        self.unit.feed(data)
        self.fed = True

    def _broken(self, reason: str, *, truncated: bool) -> _Broken:
        start = self.offset if truncated else self.chunk_start
        damage = Damage(
            self.name,
            self.kind,
            start,
            self.offset,
            self.decoded,
            self.verified,
            reason,
            truncated,
            unit_start=self.unit_start,
        )
        return _Broken(damage)

    def close(self) -> None:
        if not self.closed:
            self.source.close()
        super().close()


def _regular_size(stream: BinaryIO) -> int | None:
    """The size of a regular file, else None (a pipe, a FIFO, a terminal)."""
    status = os.fstat(stream.fileno())
    return status.st_size if stat.S_ISREG(status.st_mode) else None


class _Prefixed(io.RawIOBase):
    """A stream whose first bytes were already read (the magic-number probe),
    read up to ``limit`` bytes in all when that is given."""

    def __init__(
        self, prefix: bytes, stream: BinaryIO, *, limit: int | None = None, owner: bool = True
    ) -> None:
        self.prefix = prefix
        self.stream = stream
        self.owner = owner  # closing this closes the stream
        self.position = 0
        self.limit = limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.prefix:
            data, self.prefix = self.prefix[: len(buffer)], self.prefix[len(buffer) :]
        else:
            wanted = len(buffer)
            if self.limit is not None:
                wanted = min(wanted, self.limit - self.position)
                if wanted <= 0:
                    return 0
            read1 = getattr(self.stream, "read1", None) or self.stream.read
            data = read1(wanted)
        buffer[: len(data)] = data
        self.position += len(data)
        return len(data)

    def tell(self) -> int:
        return self.position

    def close(self) -> None:
        if not self.closed and self.owner:
            self.stream.close()
        super().close()


class _Utf16(io.RawIOBase):
    """UTF-16 text (told by its BOM) read as UTF-8 bytes, chunk by chunk."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.decoder = codecs.getincrementaldecoder("utf-16")("replace")
        self.pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self.pending:
            chunk = self.stream.read(_CHUNK)
            self.pending = self.decoder.decode(chunk, final=not chunk).encode("utf-8")
            if not chunk:
                break
        data, self.pending = self.pending[: len(buffer)], self.pending[len(buffer) :]
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self.stream.close()
        super().close()


def _compression(magic: bytes, name: str) -> str | None:
    if magic.startswith(b"\x1f\x8b"):
        return "gz"
    if magic.startswith(b"BZh"):
        return "bz2"
    if magic.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    if magic.startswith(b"PK\x03\x04"):
        raise PgnError(f"{name}: is a zip archive, not PGN; unzip it first")
    if magic.startswith(b"\x28\xb5\x2f\xfd"):
        raise PgnError(f"{name}: is zstd-compressed; decompress it first (zstd -d)")
    if magic.startswith(_UTF16_BOMS):
        return "utf-16"
    return None


def _xz_blocks_verified(damage: Damage, source: BinaryIO, size: int | None) -> Damage:
    """The damage with ``verified`` at the end of the last xz block decoded past (its
    check held), the blocks told by the stream's index when that is intact."""
    if size is None:
        size = source.seek(0, os.SEEK_END)
    ends = _xz_block_ends(source, size)
    verified = max((end for end in ends if end < damage.decoded), default=0)
    if verified <= damage.verified:
        return damage
    return replace(damage, verified=verified, unit="xz block")


def _xz_block_ends(source: BinaryIO, size: int) -> list[int]:
    """Where each block of a one-stream xz file ends, uncompressed, from its index
    (checked by its CRC32 and by the layout adding up to ``size``); [] if not known.

    >>> _xz_block_ends(io.BytesIO(lzma.compress(b"x" * 100)), len(lzma.compress(b"x" * 100)))
    [100]
    """
    if size < 32:
        return []
    source.seek(size - 12)
    footer = source.read(12)
    if footer[10:] != b"YZ" or zlib.crc32(footer[4:10]) != int.from_bytes(footer[:4], "little"):
        return []
    backward = (int.from_bytes(footer[4:8], "little") + 1) * 4
    if backward > size - 24:
        return []
    source.seek(size - 12 - backward)
    index = source.read(backward)
    if index[:1] != b"\x00" or zlib.crc32(index[:-4]) != int.from_bytes(index[-4:], "little"):
        return []
    numbers = _varints(index[1:-4])
    if not numbers or len(numbers) != 1 + 2 * numbers[0]:
        return []
    pairs = list(zip(numbers[1::2], numbers[2::2], strict=True))
    blocks = sum((unpadded + 3) & ~3 for unpadded, _ in pairs)
    if 12 + blocks + backward + 12 != size:  # not one stream as the index says
        return []
    ends, total = [], 0
    for _, uncompressed in pairs:
        total += uncompressed
        ends.append(total)
    return ends


def _varints(data: bytes) -> list[int]:
    """The xz multibyte integers in ``data`` (zero padding at the end ignored).

    >>> _varints(bytes([0x05, 0x80, 0x01, 0, 0]))
    [5, 128]
    """
    numbers, value, shift = [], 0, 0
    end = len(data.rstrip(b"\x00"))
    for byte in data[:end]:
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            numbers.append(value)
            value, shift = 0, 0
    return numbers if shift == 0 else []


def _decode_all(stream: _Decoding) -> Damage | None:
    """Decode a compressed stream to its end, keeping nothing; its damage, if any.

    The output is taken in small pieces, so that ``decoded`` at the damage, and the
    xz blocks known verified from it, fall short of it by at most one piece.
    """
    buffer = bytearray(_VERIFY_CHUNK * 2)
    try:
        while stream.readinto(buffer):
            pass
    except _Broken as exc:
        return exc.damage
    return None


def _wrap(stream: _Prefixed, magic: bytes, name: str, *, limit: int | None = None) -> BinaryIO:
    kind = _compression(magic, name)
    buffered = io.BufferedReader(stream, _CHUNK)
    if kind is None:
        return buffered
    inner: Any
    if kind in _KIND_NAMES:
        inner = _Decoding(buffered, kind, name, limit=limit)
        head = _read_head(inner, 2)  # compressed UTF-16 (with its BOM) is UTF-16 too
        inner = _Prefixed(head, inner)
        if head in _UTF16_BOMS:
            inner = _Utf16(io.BufferedReader(inner, _CHUNK))
    else:
        inner = _Utf16(buffered)
    return io.BufferedReader(_Owning(inner, stream), _CHUNK)


#: The byte-order marks of UTF-16 text, little- and big-endian.
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def _read_head(stream: io.RawIOBase, size: int) -> bytes:
    """The first ``size`` bytes of ``stream`` (fewer at its end)."""
    head = b""
    while len(head) < size:
        data = stream.read(size - len(head))
        if not data:
            break
        head += data
    return head


class _Owning(io.RawIOBase):
    """A decoding stream that closes the file under it too; ``fileobj`` tells
    how far into that file the reading is (for progress)."""

    def __init__(self, inner: Any, fileobj: _Prefixed) -> None:
        self.inner = inner
        self.fileobj = fileobj

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        read1 = getattr(self.inner, "read1", None)
        if read1 is None:
            count: int = self.inner.readinto(buffer)
            return count
        data = read1(len(buffer))  # what is decoded so far: damage later loses nothing
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self.inner.close()
            self.fileobj.close()
        super().close()


def find_pgn_files(
    paths: Iterable[str | os.PathLike[str]],
    *,
    errors: list[str] | None = None,
    skipped: list[str] | None = None,
) -> Iterator[Path | str]:
    """Yield the files to import: files as given, directories searched recursively.

    In directories only regular files named ``*.pgn``, ``*.pgn.gz``,
    ``*.pgn.bz2`` and ``*.pgn.xz`` (any case) are taken, in sorted order: a
    FIFO, socket or device found there is named in ``skipped`` (when given)
    and not opened (it could block forever); a path given is read whatever it
    is, and ``'-'`` (standard input) passes through.  A path that does not
    exist is yielded as given, so that :func:`open_pgn` reports it.  A folder
    that cannot be listed is named in ``errors`` (when given) and skipped.
    """

    def note(exc: OSError) -> None:
        if errors is not None:
            where = os.fsencode(exc.filename or "?").decode("utf-8", "backslashreplace")
            errors.append(f"cannot read folder {where}: {exc.strerror or exc}")

    for entry in paths:
        if str(entry) == "-":
            yield "-"
            continue
        path = Path(entry)
        if not path.is_dir():
            yield path
            continue
        found: list[Path] = []
        for root, files in _walk(path, note):
            found.extend(Path(root, name) for name in files if name.lower().endswith(PGN_SUFFIXES))
        for file in sorted(found):
            kind = _special_kind(file)
            if kind is None:
                yield file
            elif skipped is not None:
                where = os.fsencode(file).decode("utf-8", "backslashreplace")
                skipped.append(f"skipped {where}: a {kind}, not a regular file")


def _walk(top: Path, note: Callable[[OSError], None]) -> Iterator[tuple[str, list[str]]]:
    """Each folder under ``top`` (``top`` too) and the names in it that are not folders,
    as :func:`os.walk` gives them (links to folders not followed), but without recursion:
    folders nested deeper than Python's recursion limit are searched too.  A folder that
    cannot be listed goes to ``note``."""
    stack = [os.fspath(top)]
    while stack:
        root = stack.pop()
        try:
            with os.scandir(root) as listing:
                entries = list(listing)
        except OSError as exc:
            note(exc)
            continue
        folders, files = [], []
        for entry in entries:
            try:
                is_folder = entry.is_dir()
            except OSError:
                is_folder = False
            if not is_folder:
                files.append(entry.name)
            elif not entry.is_symlink():
                folders.append(os.path.join(root, entry.name))
        yield root, files
        stack.extend(sorted(folders, reverse=True))


def _special_kind(path: Path) -> str | None:
    """What a path found in a folder is when it is not a regular file (None if it is,
    or if it cannot be told: opening it then says why)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


def stream_grew(stream: BinaryIO) -> bool:
    """Whether the regular file under ``stream`` (from :func:`open_pgn`) is now larger
    than when it was opened: a writer is still adding to it.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".pgn") as f:
    ...     _ = f.write(b"1. e4")
    ...     f.flush()
    ...     stream = open_pgn(f.name)
    ...     _ = f.write(b" e5")
    ...     f.flush()
    ...     stream_grew(stream)
    True
    """
    inner: Any = getattr(stream, "raw", stream)
    inner = getattr(inner, "fileobj", inner)
    if not isinstance(inner, _Prefixed) or inner.limit is None:
        return False
    try:
        return os.fstat(inner.stream.fileno()).st_size > inner.limit
    except (OSError, ValueError):
        return False


def ends_complete(game: RawGame) -> bool:
    """Whether a game's last line is whole and ends with a result (``1-0``, ``*``, …).

    >>> (game,) = read_games(io.BytesIO(b"1. e4 e5 *\\n"), name="x")
    >>> ends_complete(game)
    True
    """
    raw = game.raw
    if not raw.endswith(b"\n"):
        return False
    last = raw.rstrip(b" \t\r\n").rsplit(b"\n", 1)[-1]
    return _ends_with_result(_scan(last, False, 0)[2])


def read_games(
    stream: BinaryIO, *, name: str, max_bytes: int = MAX_GAME_BYTES
) -> Iterator[RawGame]:
    """Yield the games of a binary PGN stream, one :class:`RawGame` each, in order.

    Memory stays flat: only the current chunk and the game being read are held.
    ``name`` is the file name put in each game and in error messages.  A game
    larger than ``max_bytes``, or with a tag line over :data:`MAX_TAG_LINE`, is
    not held: only its first :data:`KEPT_BYTES` come in ``raw``, and
    ``oversize`` says why.
    """
    return _read_games(stream, name=name, fast=True, max_bytes=max_bytes)


def _read_games(
    stream: BinaryIO, *, name: str, fast: bool, max_bytes: int = MAX_GAME_BYTES
) -> Iterator[RawGame]:
    """:func:`read_games`; ``fast=False`` runs the line-by-line splitter only
    (the reference the fast path is tested against).

    A DOS end-of-file mark (Ctrl-Z, ``\\x1a``) on lines of its own between games,
    as old DOS files end, is no game: such lines are passed over as blank lines are.
    """
    for game in _split_games(stream, name=name, fast=fast, max_bytes=max_bytes):
        if b"\x1a" in game.raw and not game.raw.strip(_DOS_EOF_LINE):
            continue
        yield game


#: What a line between games may hold besides a DOS end-of-file mark (Ctrl-Z).
_DOS_EOF_LINE = b" \t\r\n\x1a"


def _split_games(
    stream: BinaryIO, *, name: str, fast: bool, max_bytes: int = MAX_GAME_BYTES
) -> Iterator[RawGame]:
    """The games of :func:`_read_games`, as the splitter cuts them."""
    read = getattr(stream, "read1", None) or stream.read
    state = _Splitter(name, max_bytes=max_bytes)
    held: list[bytes] = []  # bytes after the last complete line, in pieces
    held_size = 0
    lone_cr: bool | None = None  # decided by the first chunk with a line end
    try:
        while True:
            chunk = read(_CHUNK)
            if not chunk:
                break
            if lone_cr is None:  # an old-Mac file: a CR before anything but LF, and no LF
                if b"\n" in chunk:
                    lone_cr = False
                elif _LONE_CR.search(chunk):
                    lone_cr = True
            if lone_cr:
                state.swap = True
                chunk = chunk.translate(_SWAP_CR_LF)
            if state.long is not None:  # inside a line too long to hold
                end = chunk.find(b"\n")
                if end < 0:
                    state.long.add(chunk)
                    continue
                state.long.add(chunk[:end])
                state.end_long(newline=True)
                chunk = chunk[end + 1 :]
                if not chunk:
                    continue
            newline = chunk.rfind(b"\n")
            if newline < 0:  # no line ends yet: keep the pieces, join them once
                held.append(chunk)
                held_size += len(chunk)
                if held_size > MAX_TAG_LINE:
                    if b"\n" in held[0]:  # complete lines first, so that the state is current
                        held = yield from state.flush(held)
                        held_size = sum(map(len, held))
                    if state.too_long(held, held_size):
                        if state.recoverable():  # a stray '{' first ends its game
                            yield from state.recover()
                        else:
                            yield from state.start_long(held)
                            held, held_size = [], 0
                continue
            buf = b"".join((*held, chunk)) if held else chunk
            cut = held_size + newline + 1
            used = yield from state.process(buf, cut, fast=fast)
            yield from state.trim()
            rest = buf[used:]
            held, held_size = ([rest], len(rest)) if rest else ([], 0)
    except (EOFError, OSError, zlib.error, lzma.LZMAError) as exc:
        # The stream broke: hand over what we have, the game in progress marked
        # as truncated, then say where it broke.
        if state.long is not None:
            state.end_long(newline=False)
        buf = b"".join(held)
        where = state.offset + len(buf)
        yield from state.finish(buf, truncated=True)
        raise PgnError(
            f"{name}: the stream is damaged or truncated after byte {where}"
            f" (line {state.lineno}): {exc}"
        ) from exc
    if state.long is not None:
        state.end_long(newline=False)
    yield from state.finish(b"".join(held), truncated=False)


def _amount(size: int) -> str:
    """A size for messages: whole megabytes as such.

    >>> _amount(32 << 20), _amount(1000)
    ('32 MB', '1,000 bytes')
    """
    return f"{size >> 20} MB" if size and not size % (1 << 20) else f"{size:,} bytes"


#: Why a game with a tag line over :data:`MAX_TAG_LINE` is a reject.
_TAG_LINE_REASON = f"a tag line longer than {_amount(MAX_TAG_LINE)}"


class _LongLine:
    """A line too long to hold, followed piece by piece: its comments and
    variations (for where its game ends), its size, and its last text."""

    def __init__(self, *, moves: bool, in_comment: bool, depth: int, hasher: Any) -> None:
        self.hasher = hasher  # the digest of its game, fed every piece
        self.moves = moves  # movetext (else a tag or escape line: nothing to follow)
        self.in_comment, self.depth = in_comment, depth
        self.after_semicolon = False
        self.size = 0
        self.tail = b""  # the last text outside comments

    def add(self, piece: bytes) -> None:
        self.size += len(piece)
        self.hasher.update(piece)
        if not self.moves or self.after_semicolon:
            return
        pos = 0
        while pos < len(piece):
            if self.in_comment:
                close = piece.find(b"}", pos)
                if close < 0:
                    return
                self.in_comment, pos = False, close + 1
                continue
            opener = _OPENER.search(piece, pos)
            end = opener.start() if opener else len(piece)
            text = piece[pos:end]
            if text:
                self.tail = (self.tail + text)[-64:]
            self.depth = max(0, self.depth + text.count(b"(") - text.count(b")"))
            if opener is None:
                return
            if piece[end] == 0x3B:  # ';': the rest of the line is a comment
                self.after_semicolon = True
                return
            self.in_comment, pos = True, end + 1


class _Splitter:
    """The line-by-line state machine behind :func:`read_games`."""

    def __init__(self, name: str, *, max_bytes: int = MAX_GAME_BYTES) -> None:
        self.name = name
        self.max_bytes = max_bytes
        self.long: _LongLine | None = None  # a line too long to hold, being read
        #: The current game is too large to hold: why, its start (headers), and
        #: the bytes of its lines let go.
        self.oversize = ""
        self.oversize_head: RawGame | None = None
        self.dropped = 0
        self.hasher = hashlib.blake2b(digest_size=16)  # its bytes let go, and the rest
        self.offset = 0  # byte offset of the next line
        self.lineno = 0  # lines consumed so far
        self.phase = _NONE
        self.in_comment = False
        self.depth = 0
        self.game: list[bytes] = []  # lines of the current game, without '\n'
        self.head_start = 0  # index in game of the first tag line
        self.head_end = 0  # index in game just past the last tag line
        self.game_line = 0
        self.game_offset = 0
        self.blanks: list[bytes] = []  # blank lines not yet given to a game
        self.prev_blank = True
        self.swap = False  # an old-Mac file, read with CR and LF swapped
        self.stream_end: int | None = None  # set when the last line has no '\n'
        self.cut_line = False  # the game ends inside its last line (tags after a result)
        #: Where to end the game if its open comment is never closed:
        #: (index in game, offset, lines consumed) of the first tag line inside it.
        self.recover_at: tuple[int, int, int] | None = None

    def process(self, buf: bytes, cut: int, *, fast: bool) -> Generator[RawGame, None, int]:
        """Consume the complete lines ``buf[:cut]``; return how many bytes were used.

        Games in the common layout (tag lines, then movetext with no escape
        lines, no ``;`` comments, no unclosed ``{`` and nothing after the
        result) are cut out with a few regex calls; anything else goes
        through :meth:`feed` line by line, which hands back at the next game
        that starts with a tag line.
        """
        pos = 0
        while pos < cut:
            hint = None
            if self.phase == _NONE:
                pos = self._skip_blank_lines(buf, pos, cut)
                if pos >= cut:
                    break
            if fast and self.phase == _NONE:
                found = self._fast_game(buf, pos, cut)
                if isinstance(found, RawGame):
                    yield self._limited(found)
                    end = pos + (found.end_offset - self.offset)
                    self.lineno += _line_ends(buf, pos, end)
                    self.offset = found.end_offset
                    pos = end
                    continue
                if found == _NEED_MORE:
                    if cut - pos <= _MAX_PENDING:
                        return pos
                    hint = cut
                else:
                    hint = found
            if hint is None:
                head = _HEADER.match(buf, pos, cut)
                scan_from = head.end() if head else buf.index(b"\n", pos) + 1
                nxt = _NEXT_TAG.search(buf, scan_from - 1, cut)
                hint = nxt.start() + 1 if nxt else cut
            lines = buf[pos:hint].split(b"\n")
            lines.pop()
            stopped = yield from self.feed(lines, handoff=fast)
            if stopped is None:
                pos = hint
            else:
                pos += sum(len(line) + 1 for line in lines[:stopped])
        return pos

    def too_long(self, held: list[bytes], size: int) -> bool:
        """Whether the line being held (``held``, no line end in it) is too long to keep
        holding: a tag line over :data:`MAX_TAG_LINE`, or any line making its game
        larger than the limit."""
        # After a result the line starts a new game (unless it is a comment).
        game = self.offset - self.game_offset if self.phase not in (_NONE, _ENDED) else 0
        if game + size > self.max_bytes:
            return True
        if size <= MAX_TAG_LINE:
            return False
        return bool(_TAG_START.match(held[0])) and not self.in_comment

    def flush(self, held: list[bytes]) -> Generator[RawGame, None, list[bytes]]:
        """Read the complete lines at the start of ``held``; return the pieces of the
        line after them (only the first piece can hold line ends)."""
        newline = held[0].rfind(b"\n")
        if newline < 0:
            return held
        buf = held[0][: newline + 1]
        yield from self.process(buf, len(buf), fast=False)
        return [held[0][newline + 1 :], *held[1:]]

    def start_long(self, held: list[bytes]) -> Iterator[RawGame]:
        """Follow the line held in ``held`` (no line end in it) as a long line."""
        pieces = held
        first = b"".join(pieces)[:KEPT_BYTES] if len(pieces[0]) < KEPT_BYTES else pieces[0]
        yield from self._begin_long(first[:KEPT_BYTES])
        assert self.long is not None
        for piece in pieces:
            self.long.add(piece)

    def _begin_long(self, first: bytes) -> Iterator[RawGame]:
        """Start following a long line whose first bytes are ``first``: it belongs to
        the current game or starts a new one, which is then too large to hold."""
        body = first[3:] if first.startswith(_BOM) else first
        tag = not self.in_comment and bool(_TAG_START.match(body))
        escape = not self.in_comment and body[:1] == b"%"
        # A line that starts with a comment after a result stays with its game, as
        # a comment-only line does (the rest of the line cannot be seen first).
        comment = self.in_comment or body.lstrip(b" \t")[:1] in (b"{", b";")
        if tag:
            if self.phase >= _MOVES:
                yield self._emit(False)
            reason = _TAG_LINE_REASON
        else:
            if self.phase == _ENDED and not escape and not comment:
                yield self._emit(False)
            reason = f"game larger than {_amount(self.max_bytes)}"
        if self.phase == _NONE:
            self._start_game(self.offset, self.lineno)
            self.phase = _PRE
        if self.blanks:
            self.game.extend(self.blanks)
            self.blanks.clear()
        self._let_go(reason, first)
        if tag:
            self.phase = _TAGS
        elif not escape and not (comment and self.phase in (_PRE, _ENDED)):
            self.phase = max(self.phase, _MOVES) if self.phase != _ENDED else _MOVES
        moves = not (tag or escape)
        self.long = _LongLine(
            moves=moves, in_comment=self.in_comment, depth=self.depth, hasher=self.hasher
        )

    def end_long(self, *, newline: bool) -> None:
        """The long line ended (at a line end, or at the end of the stream)."""
        long = self.long
        assert long is not None
        self.long = None
        size = long.size + (1 if newline else 0)
        if newline:
            self.hasher.update(b"\n")
        self.offset += size
        self.lineno += 1
        self.dropped += size
        self.prev_blank = False
        if long.moves:
            self.in_comment, self.depth = long.in_comment, long.depth
            if not long.in_comment and long.depth == 0 and _ends_with_result(long.tail.strip()):
                self.phase = _ENDED

    def trim(self) -> Iterator[RawGame]:
        """Let go of the lines of a game that grew larger than the limit.

        A comment never closed by then ends its game as at the end of the
        stream (the module docstring's recovery), so a stray ``{`` costs at most
        the limit's worth of games.
        """
        if self.phase == _NONE or self.offset - self.game_offset <= self.max_bytes:
            return
        if self.recoverable():
            yield from self._recover()
            return
        self._let_go(f"game larger than {_amount(self.max_bytes)}", b"")

    def recoverable(self) -> bool:
        """Whether the game is in a comment never closed so far, with a tag line in it."""
        return not self.oversize and self.in_comment and self.recover_at is not None

    def recover(self) -> Iterator[RawGame]:
        """End the game at the tag line in its open comment (see :meth:`trim`)."""
        return self._recover()

    def _let_go(self, reason: str, more: bytes) -> None:
        """Mark the current game too large to hold (keeping its start, and ``more``
        after it) and let go of its lines."""
        lines = self.game
        if not self.oversize:
            self.oversize = reason
            self.hasher = hashlib.blake2b(digest_size=16)
            start = bytearray()
            for line in lines:
                start += line + b"\n"
                if len(start) >= KEPT_BYTES:
                    break
            start += more
            self.oversize_head = self._build(bytes(start[:KEPT_BYTES]), lines, False)
            self.recover_at = None
        for line in lines:
            self.hasher.update(line)
            self.hasher.update(b"\n")
            self.dropped += len(line) + 1
        lines.clear()

    def _skip_blank_lines(self, buf: bytes, pos: int, cut: int) -> int:
        """Pass over the blank lines at ``pos`` between games (they belong to none)."""
        white = _WHITE.match(buf, pos, cut)
        assert white is not None  # the pattern matches the empty string too
        first = white.end()
        end = buf.rfind(b"\n", pos, first) + 1 if first < cut else cut
        if end > pos:
            self.lineno += buf.count(b"\n", pos, end)
            self.offset += end - pos
            self.prev_blank = True
        return max(end, pos)

    def _fast_game(self, buf: bytes, pos: int, cut: int) -> RawGame | int | None:
        """Cut one simple game at ``pos``; else where the slow path should stop
        (an offset), ``_NEED_MORE``, or None.

        ``pos`` is where :meth:`_skip_blank_lines` stopped: the start of a line that
        is not blank.
        """
        head = _HEADER.match(buf, pos, cut)
        if head is None:
            return None
        head_end = head.end()
        if head_end - pos > MAX_TAG_LINE:  # it may hold a tag line too long to keep
            return None
        nxt = _NEXT_TAG.search(buf, head_end - 1, cut)
        if nxt is None:
            return _NEED_MORE
        end = nxt.start() + 1
        block = buf[head_end:end]
        if b"%" in block and (block[:1] == b"%" or b"\n%" in block):
            return end
        comments = b"{" in block
        if comments and block.rfind(b"{") > block.rfind(b"}"):
            return end  # a '{' with no '}' after it: a comment never closed
        body = block.rstrip(b" \t\r\n")
        if b";" in block or _maybe_result_then_more(body):
            # Look closer, in the text outside the comments.
            rest = _CLOSED_COMMENT.sub(b" ", block) if comments else block
            if b";" in rest or _result_then_more(rest):
                return end
            if b"[" in rest and _RESULT_THEN_TAG.search(rest):
                return end
        body_end = head_end + len(body)
        body_end = buf.index(b"\n", body_end) + 1
        return _make_game(
            buf[pos:body_end],
            0,
            head_end - pos,
            name=self.name,
            line=self.lineno + 1,
            offset=self.offset,
            truncated=False,
            swap=self.swap,
        )

    def feed(
        self, lines: list[bytes], *, handoff: bool = False
    ) -> Generator[RawGame, None, int | None]:
        """Consume complete lines (split at '\\n', newline removed).

        With ``handoff``, stop at a tag line that starts a new game, once the
        previous game is out, and return its index (the line is not consumed).
        State lives in locals and goes back to ``self`` before anything that
        reads it (building a game) and at the end.
        """
        special = _SPECIAL.search
        tag_start = _TAG_START.match
        offset, lineno = self.offset, self.lineno
        phase, in_comment, depth = self.phase, self.in_comment, self.depth
        prev_blank = self.prev_blank
        game, blanks = self.game, self.blanks
        for index, line in enumerate(lines):
            body = line
            if line.startswith(_BOM):  # each of several concatenated files may have one
                body = line[3:]
            if in_comment:
                if blanks:
                    game.extend(blanks)
                    blanks.clear()
                if (
                    self.recover_at is None
                    and not self.oversize
                    and (prev_blank or _EVENT_LINE.match(body))
                    and _TAG_ONLY_LINE.fullmatch(body)
                ):
                    self.recover_at = (len(game), offset, lineno)  # see the module docstring
                close = body.find(b"}")
                split = None
                if close >= 0 and b"[" in body[close:]:  # ``} 1-0 [Event "B"]``
                    after = _tags_after_result(body[close + 1 :], depth)
                    if after is not None:
                        split = len(line) - len(body) + close + 1 + after
                if split is not None:
                    game = yield from self._cut_after_result(game, line, split, offset, lineno)
                    in_comment, depth, phase = False, 0, _TAGS
                    offset += len(line) + 1
                    lineno += 1
                    prev_blank = False
                    continue
                game.append(line)
                in_comment, depth, tail = _scan(body, True, depth)
                if close >= 0:
                    self.recover_at = None  # that comment is closed
                if tail:
                    if phase in (_PRE, _ENDED):
                        phase = _MOVES
                    if phase == _MOVES and depth == 0 and _ends_with_result(tail):
                        phase = _ENDED
                offset += len(line) + 1
                lineno += 1
                prev_blank = not body.strip(b" \t\r")
                continue
            first = body[:1]
            if not first or first in b" \t\r":
                stripped = body.lstrip(b" \t\r")
                if not stripped:
                    if phase != _NONE:  # blank lines before a game are dropped anyway
                        blanks.append(line)
                        if phase == _ENDED and len(blanks) > _MAX_BLANKS:
                            # So many blank lines after a result end the game.
                            self.game = game
                            yield self._emit(False)
                            game = self.game
                            phase = _NONE
                    offset += len(line) + 1
                    lineno += 1
                    prev_blank = True
                    continue
                first = stripped[:1]
            prev_blank = False
            if first == b"[" and tag_start(body):
                if phase >= _MOVES:
                    self.game = game
                    yield self._emit(False)
                    game = self.game
                    phase = _NONE
                    if handoff:
                        self._store(offset, lineno, phase, False, 0, prev_blank, game)
                        return index
                if phase == _NONE:
                    game = self._start_game(offset, lineno)
                    in_comment, depth = False, 0
                else:
                    if blanks:
                        game.extend(blanks)
                        blanks.clear()
                    if phase == _PRE:
                        self.head_start = len(game)
                game.append(line)
                self.head_end = len(game)
                phase = _TAGS
                if len(line) > MAX_TAG_LINE:  # as when it is too long to hold
                    game = self._let_go_of(game, _TAG_LINE_REASON)
                offset += len(line) + 1
                lineno += 1
                continue
            if first == b"%" and body[:1] == b"%":
                # Escape line: belongs to whatever game is open, changes nothing.
                if phase == _NONE:
                    game = self._start_game(offset, lineno)
                    in_comment, depth = False, 0
                    phase = _PRE
                elif blanks:
                    game.extend(blanks)
                    blanks.clear()
                game.append(line)
                offset += len(line) + 1
                lineno += 1
                continue
            comment_only = first == b";" or (first == b"{" and not _scan(body, False, depth)[2])
            if phase == _ENDED and not comment_only:
                self.game = game
                yield self._emit(False)
                game = self.game
                phase = _NONE
            if phase == _NONE:
                game = self._start_game(offset, lineno)
                in_comment, depth = False, 0
                phase = _PRE if comment_only else _MOVES
            else:
                if blanks:
                    game.extend(blanks)
                    blanks.clear()
                if phase == _TAGS or (phase == _PRE and not comment_only):
                    phase = _MOVES
            split = _tags_after_result(body, depth) if b"[" in body else None
            if split is not None:  # tags on the result's line: a new game starts there
                split += len(line) - len(body)
                game = yield from self._cut_after_result(game, line, split, offset, lineno)
                in_comment, depth, phase = False, 0, _TAGS
                offset += len(line) + 1
                lineno += 1
                continue
            game.append(line)
            if special(body) is None:
                tail = body
            else:
                in_comment, depth, tail = _scan(body, False, depth)
            if phase == _MOVES and not in_comment and depth == 0 and _ends_with_result(tail):
                phase = _ENDED
            offset += len(line) + 1
            lineno += 1
        self._store(offset, lineno, phase, in_comment, depth, prev_blank, game)
        return None

    def _cut_after_result(
        self, game: list[bytes], line: bytes, split: int, offset: int, lineno: int
    ) -> Generator[RawGame, None, list[bytes]]:
        """End the game at ``line[:split]`` (tags after its result) and start the next
        with ``line[split:]`` as its first tag line; return the new game's lines."""
        game.append(line[:split])
        self.game, self.cut_line = game, True
        yield self._emit(False)
        game = self._start_game(offset + split, lineno)
        game.append(line[split:])
        self.head_start, self.head_end = 0, 1
        if len(line) - split > MAX_TAG_LINE:
            game = self._let_go_of(game, _TAG_LINE_REASON)
        return game

    def _let_go_of(self, game: list[bytes], reason: str) -> list[bytes]:
        """:meth:`_let_go` of ``game`` (feed's lines); return the game's lines after it."""
        self.game = game
        self._let_go(reason, b"")
        return self.game

    def _start_game(self, offset: int, lineno: int) -> list[bytes]:
        """Start collecting a new game at the line at ``offset`` (line ``lineno`` + 1).

        The blank lines seen before it are dropped; it has no tag lines yet.
        Returns its (empty) list of lines, ``self.game``.
        """
        self.blanks.clear()
        self.game = []
        self.recover_at = None
        self.head_start = self.head_end = 0
        self.game_line = lineno + 1
        self.game_offset = offset
        return self.game

    def _store(
        self,
        offset: int,
        lineno: int,
        phase: int,
        in_comment: bool,
        depth: int,
        prev_blank: bool,
        game: list[bytes],
    ) -> None:
        self.offset, self.lineno = offset, lineno
        self.phase, self.in_comment, self.depth = phase, in_comment, depth
        self.prev_blank = prev_blank
        self.game = game

    def _emit(self, truncated: bool) -> RawGame:
        """Build the RawGame from the collected lines (trailing blanks excluded)."""
        lines = self.game
        if self.oversize:
            return self._emit_oversize(truncated)
        raw = b"\n".join(lines) + b"\n"
        end = self.game_offset + len(raw)
        if self.cut_line or (self.stream_end is not None and end > self.stream_end):
            raw = raw[:-1]  # the game ends inside its last line, or that line had no newline
        game = self._limited(self._build(raw, lines, truncated))
        self.game = []
        self.cut_line = False
        self.recover_at = None
        self.blanks.clear()
        self.phase = _NONE
        self.in_comment = False
        self.depth = 0
        return game

    def _limited(self, game: RawGame) -> RawGame:
        """A game read whole but larger than the limit, cut to its start like one let go."""
        size = len(game.raw)
        if size <= self.max_bytes:
            return game
        game.digest = hashlib.blake2b(game.raw, digest_size=16).hexdigest()
        game.raw = game.raw[:KEPT_BYTES]
        game.text = game.text[:KEPT_BYTES]
        game.movetext = ""
        game.oversize = f"game larger than {_amount(self.max_bytes)} ({size:,} bytes)"
        return game

    def _emit_oversize(self, truncated: bool) -> RawGame:
        """The RawGame of a game too large to hold: its start, its true extent."""
        rest = b"\n".join(self.game) + b"\n" if self.game else b""
        end = self.game_offset + self.dropped + len(rest)
        if rest and (self.cut_line or (self.stream_end is not None and end > self.stream_end)):
            rest = rest[:-1]
        self.hasher.update(rest)
        size = self.dropped + len(rest)
        game = self.oversize_head
        assert game is not None
        game.end_offset = game.offset + size
        game.oversize = f"{self.oversize} ({size:,} bytes)"
        game.digest = self.hasher.hexdigest()
        game.truncated = truncated
        self.oversize, self.oversize_head, self.dropped = "", None, 0
        self.game = []
        self.cut_line = False
        self.recover_at = None
        self.blanks.clear()
        self.phase = _NONE
        self.in_comment = False
        self.depth = 0
        return game

    def _build(self, raw: bytes, lines: list[bytes], truncated: bool) -> RawGame:
        if self.head_end > self.head_start:
            cut1 = sum(len(line) + 1 for line in lines[: self.head_start])
            cut2 = cut1 + sum(len(line) + 1 for line in lines[self.head_start : self.head_end])
        else:
            cut1 = cut2 = 0
        return _make_game(
            raw,
            cut1,
            cut2,
            name=self.name,
            line=self.game_line,
            offset=self.game_offset,
            truncated=truncated,
            bom=raw.startswith(_BOM),
            swap=self.swap,
        )

    def finish(self, buf: bytes, *, truncated: bool) -> Iterator[RawGame]:
        """Consume the last bytes of the stream (the final line may lack its
        newline) and yield the last game."""
        self.stream_end = self.offset + len(buf)
        lines = buf.split(b"\n")
        rest = lines.pop()
        yield from self.feed(lines)
        if rest:
            yield from self.feed([rest])
        while self.game and self.in_comment and self.recover_at is not None:
            yield from self._recover()
        if self.game or self.oversize:
            # After a break, a game that had not reached its result (or that
            # got the broken last line) may be incomplete.
            broken_line = bool(rest) and bool(self.game) and self.game[-1] is rest
            partial = truncated and (self.phase != _ENDED or broken_line)
            yield self._emit(partial)

    def _recover(self) -> Iterator[RawGame]:
        """End the game before the tag line in its never-closed comment, and read
        the lines from there again."""
        assert self.recover_at is not None
        index, offset, lineno = self.recover_at
        lines = self.game
        rest = lines[index:]
        del lines[index:]
        while lines and not lines[-1].strip(b" \t\r"):
            lines.pop()  # blank lines between games belong to none
        yield self._emit(False)
        self._store(offset, lineno, _NONE, False, 0, True, self.game)
        yield from self.feed(rest)


def _line_ends(buf: bytes, start: int, end: int) -> int:
    """How many line feeds ``buf[start:end]`` holds (``0 <= start <= end <= len(buf)``):
    ``bytes.count`` looks at one byte at a time (it stops at a maximum count), where
    ``replace`` finds them with ``memchr``: a game's lines (some 80 bytes each) are
    counted in two thirds of the time.

    >>> _line_ends(b"1. e4\\n\\n1-0\\n", 0, 11), _line_ends(b"\\n\\n\\n", 1, 3)
    (3, 2)
    """
    return end - start - len(buf[start:end].replace(b"\n", b""))


def _tags_after_result(line: bytes, depth: int) -> int | None:
    """Where a tag pair starts after a result on a movetext line, outside
    comments and variations (``1-0 [Event "B"]``); None if nowhere.

    >>> _tags_after_result(b'1. e4 e5 1-0 [Event "B"]', 0)
    13
    >>> _tags_after_result(b'1. e4 {1-0 [Event "B"]}', 0) is None
    True
    """
    for match in _RESULT_THEN_TAG.finditer(line):
        before = line[: match.start(1)]
        in_comment, after, tail = _scan(before, False, depth)
        if in_comment or after or not _ends_with_result(tail):
            continue
        if b";" in _CLOSED_COMMENT.sub(b" ", before):
            continue  # inside a ';' comment
        return match.start(1)
    return None


def _make_game(
    raw: bytes,
    cut1: int,
    cut2: int,
    *,
    name: str,
    line: int,
    offset: int,
    truncated: bool,
    bom: bool = False,
    swap: bool = False,
) -> RawGame:
    """Decode one game; ``raw[cut1:cut2]`` is its tag section.

    With ``swap`` (an old-Mac file read with CR and LF swapped) the text keeps
    ``\\n`` line ends and ``raw`` gets the file's bytes back.
    """
    if raw.isascii():  # most games: one decode, the parts cut from the text (no BOM)
        text = raw.decode("ascii")
        head_text = text[cut1:cut2]
        body_text = text[cut2:]
        encoding = "utf-8"
    else:
        skip = 3 if bom else 0
        pre = raw[skip:cut1]
        head = raw[max(skip, cut1) : cut2]
        body = raw[max(skip, cut2) :]
        try:
            pre_text = pre.decode("utf-8")
            head_text = head.decode("utf-8")
            body_text = body.decode("utf-8")
            encoding = "utf-8"
        except UnicodeDecodeError:
            pre_text = pre.decode("cp1252", "studydb-latin1")
            head_text = head.decode("cp1252", "studydb-latin1")
            body_text = body.decode("cp1252", "studydb-latin1")
            encoding = "cp1252"
        text = pre_text + head_text + body_text if pre_text else head_text + body_text
    return RawGame(
        raw=raw.translate(_SWAP_CR_LF) if swap else raw,
        text=text,
        encoding=encoding,
        headers=_parse_headers(head_text),
        movetext=body_text,
        file=name,
        line=line,
        offset=offset,
        end_offset=offset + len(raw),
        truncated=truncated,
    )


def _maybe_result_then_more(body: bytes) -> bool:
    """Whether a movetext, its comments in it and its end stripped, may have text after a
    result outside its comments: :func:`_result_then_more` or :data:`_RESULT_THEN_TAG`
    on the text with its comments made spaces.  False means neither is found there, at
    a fraction of the cost of making the comments spaces (a tournament game may have a
    hundred clock and evaluation comments).

    Either needs a result (it ends with ``-0``, ``-1``, ``/2`` or ``*``) outside the
    comments and after it, still before the body's end, a space, tab, CR, line feed
    or ``[``, or a comment (``{``, a space once made one): :data:`_MINUS_FOLLOWED`,
    :data:`_HALF_FOLLOWED` or :data:`_STAR_FOLLOWED` is found in the body (in a
    comment too, where it means nothing: then the closer look finds nothing).

    >>> _maybe_result_then_more(b"1. e4 {[%eval -0.3]} e5 {[%clk 0:01:00]}  1-0")
    False
    >>> _maybe_result_then_more(b"1. e4 1-0 {won}"), _maybe_result_then_more(b"1. e4 *\\n2. d4")
    (True, True)
    """
    return (
        _MINUS_FOLLOWED.search(body) is not None
        or _found_from(body, (b"/",), _HALF_FOLLOWED)
        or _found_from(body, (b"*",), _STAR_FOLLOWED)
    )


def _found_from(text: bytes, starts: tuple[bytes, ...], pattern: re.Pattern[bytes]) -> bool:
    """Whether ``pattern`` is found in ``text``, looked for where a match can start: at
    ``starts``, bytes a movetext holds few of, which ``find`` looks for with ``memchr``
    (a pattern's search steps through the text a byte at a time, and so does ``find``
    of two bytes); past :data:`_MAX_RESULT_STARTS` of them, one search.

    >>> _found_from(b"1. e4 {1/2} 1/2-1/2", (b"/",), _HALF_FOLLOWED)
    False
    >>> _found_from(b"1. e4 *\\n2. d4", (b"*",), _STAR_FOLLOWED)
    True
    """
    tried = 0
    for start in starts:
        at = text.find(start)
        while at >= 0:
            if pattern.match(text, at):
                return True
            tried += 1
            if tried > _MAX_RESULT_STARTS:  # many: one search, whatever its cost
                return pattern.search(text) is not None
            at = text.find(start, at + 1)
    return False


def _result_then_more(text: bytes) -> bool:
    """Whether :data:`_RESULT_THEN_MORE` is found in ``text`` (:func:`_found_from`: a
    movetext has a few of its first bytes, castling and its result).

    >>> _result_then_more(b"1. O-O-O Kb8 1-0\\n"), _result_then_more(b"1. e4 *\\n\\n2. d4")
    (False, True)
    """
    return _found_from(text, _RESULT_STARTS, _RESULT_THEN_MORE)


def _scan(line: bytes, in_comment: bool, depth: int) -> tuple[bool, int, bytes]:
    """Follow comments and variations over one movetext line.

    Returns whether a ``{`` comment is still open at the end of the line, the
    variation depth after it, and the line's text outside comments (stripped).
    """
    if in_comment:
        close = line.find(b"}")
        if close < 0:
            return True, depth, b""
        line = line[close + 1 :]
    if b"{" in line:
        line = _CLOSED_COMMENT.sub(b" ", line)
    cut = _OPENER.search(line)
    if cut is not None:
        in_comment = line[cut.start()] == 0x7B  # '{' opens a comment, ';' ends the line
        line = line[: cut.start()]
    else:
        in_comment = False
    if b"(" in line or b")" in line:
        depth = max(0, depth + line.count(b"(") - line.count(b")"))
    return in_comment, depth, line.strip()


def _ends_with_result(tail: bytes) -> bool:
    tail = tail.rstrip()
    if not tail.endswith(_RESULTS):
        return False
    for result in _RESULTS:
        if tail.endswith(result):
            before = tail[-len(result) - 1 : -len(result)]
            return not before or before in b" \t.)}]"
    return False


def _parse_headers(head: str) -> dict[str, str]:
    """Tag pairs of a tag section, in order; the first of a repeated name wins."""
    if not head:
        return {}
    brackets = head.count("[")
    # Tags as most files write them first: where each '[' opens one of them, these
    # are the very pairs _TAG finds (each matches it, over the same characters).
    pairs = _PLAIN_TAG.findall(head)
    if len(pairs) != brackets:
        pairs = _tag_pairs(head, brackets)
    headers = dict(pairs)
    if len(headers) != len(pairs):
        headers = {}
        for name, value in pairs:
            headers.setdefault(name, value)
    if "\\" in head:
        for name, value in headers.items():
            if "\\" in value:
                headers[name] = _UNESCAPE.sub(r"\1", value)
    return headers


def _tag_pairs(head: str, brackets: int) -> list[tuple[str, str]]:
    """The tag pairs of a tag section holding ``brackets`` '[', by the general pattern
    (values still escaped, repeated names kept).

    >>> _tag_pairs('[Event "A"]\\n[Site "x "y""]\\n', 2)
    [('Event', 'A'), ('Site', 'x "y"')]
    """
    pairs: list[tuple[str, str]] = _TAG.findall(head)
    if len(pairs) == brackets:
        return pairs
    # Something on a tag line is not a clean tag pair: go line by line, taking a lone
    # tag with bare quotes in its value as written.
    pairs = []
    for line in head.split("\n"):
        found = _TAG.findall(line)
        if not found:
            loose = _LOOSE_TAG.fullmatch(line)
            found = [loose.groups()] if loose else []
        pairs.extend(found)
    return pairs


def header_leftovers(game: RawGame) -> str:
    """Text before the movetext that ``headers`` do not hold, whitespace collapsed.

    Empty when every tag parsed once and nothing else stands there; else the
    whole tag section (a repeated tag, an unterminated value, a ``;`` comment).

    >>> import io
    >>> (game,) = read_games(io.BytesIO(b'[Event "A"] ; note\\n\\n1. e4 *'), name="x")
    >>> header_leftovers(game)
    '[Event "A"] ; note'
    """
    text = game.text
    cut = len(text) - len(game.movetext)  # the tag section, looked at in place first
    if text.count("[", 0, cut) == len(game.headers) and (
        _PLAIN_HEAD.fullmatch(text, 0, cut) or _CLEAN_HEAD.fullmatch(text, 0, cut)
    ):
        return ""  # each '[' opens a tag pair, nothing else but white space: subn's case
    head = text[:cut]
    rest, pairs = _TAG.subn("", head)
    if pairs == len(game.headers) and not rest.strip():
        return ""
    return " ".join(head.split())


# -- stored text ------------------------------------------------------------------------

# A stored game's tag section when its text starts with a tag line: tag lines, with
# blank and escape lines between them (the reader's cut, in decoded text).
_FIRST_TAG = re.compile(r"[ \t]*" + _OPENS_TAG)
_TAG_SECTION = re.compile(r"(?:(?:[ \t\r]*\n|%[^\n]*\n)*[ \t]*" + _OPENS_TAG + r"[^\n]*(?:\n|\Z))+")
# A line after it that starts with a BOM: the reader strips one there, the pattern does not.
_BOM_LINE_AFTER = re.compile(r"(?:[ \t\r]*\n|%[^\n]*\n)*\ufeff")


def tag_section_end(text: str) -> int | None:
    """Where a stored game's tag section ends, when its text starts with a tag line and
    can be cut without the reader (as :func:`read_games` cuts it); else None.

    >>> text = '[Event "x"]\\n[My Tag "y"]\\n\\n1. e4 *\\n'
    >>> text[tag_section_end(text) :]
    '\\n1. e4 *\\n'
    >>> tag_section_end("1. e4 *") is None
    True
    """
    if not _FIRST_TAG.match(text):
        return None
    head = _TAG_SECTION.match(text)
    if head is None or _BOM_LINE_AFTER.match(text, head.end()):
        return None  # a line starting with a BOM: the reader's own rules
    return head.end()


def tags_of(text: str) -> dict[str, str]:
    """A stored game's tags, read from its text (:attr:`RawGame.text`) as by the reader.

    The dict :func:`read_games` gave in :attr:`RawGame.headers`: the same names, order
    and unescaping, the first of a repeated name kept.  Only the tag section is read, up
    to the movetext (12 µs a game on the corpus).  A text that does not start with a tag
    line (a comment or an escape line first), or with a line starting with a BOM after
    its tags, is read by the reader itself, line by line (its reference rules).

    >>> tags_of('[Event "A \\\\"B\\\\""]\\n[Event "C"]\\n[Result "*"]\\n\\n1. e4 [Site "x"] *\\n')
    {'Event': 'A "B"', 'Result': '*'}
    >>> tags_of("1. e4 *"), tags_of("")
    ({}, {})
    """
    end = tag_section_end(text)
    if end is not None:
        return _parse_headers(text[:end])
    if "[" not in text:
        return {}
    game = next(_read_games(io.BytesIO(text.encode("utf-8")), name="stored", fast=False), None)
    return game.headers if game is not None else {}


#: The first byte of a stored text: the format it is kept in.  1: zlib (with its
#: Adler-32), written before revision 0016; 2: zstd (with its checksum), written since.
DEFLATED = b"\x01"
ZSTD = b"\x02"


def deflate_text(text: str) -> bytes:
    """A game's text as the database keeps it: its UTF-8, zstd-compressed with its
    checksum (:func:`studydb.compression.compress`), after a format byte (:data:`ZSTD`).

    >>> inflate_text(deflate_text("1. e4 *")) == "1. e4 *"
    True
    """
    return ZSTD + compression.compress(text.encode("utf-8"))


def inflate_text(stored: bytes | str) -> str:
    """The text :func:`deflate_text` kept, its checksum verified (either format).

    A column written as text (not by :func:`deflate_text`) comes back as a ``str``:

    >>> inflate_text(DEFLATED + zlib.compress(b"1. e4 *"))
    '1. e4 *'
    >>> inflate_text(b"1. e4 *")
    Traceback (most recent call last):
    ...
    ValueError: not a deflated text: format byte b'1'
    >>> inflate_text("1. e4 *")
    Traceback (most recent call last):
    ...
    ValueError: not a deflated text: stored as text, '1. e4 *'
    """
    if isinstance(stored, str):
        raise ValueError(f"not a deflated text: stored as text, {stored[:40]!r}")
    kind = stored[:1]
    if kind == ZSTD:
        return compression.decompress(stored[1:]).decode("utf-8")
    if kind != DEFLATED:
        raise ValueError(f"not a deflated text: format byte {bytes(kind)!r}")
    return zlib.decompress(stored[1:]).decode("utf-8")
