"""How the database compresses what it keeps: zstd, with a checksum (pure).

One level and one compressor set-up for every stored block: the game texts
(:func:`studydb.pgn.deflate_text`), the index's board and facts lines.  A context
is dear to make (17 us) and must not be shared by threads at once (the web server
reads in several), so each thread makes its own, once.  zstandard is imported
then, not with this module (a ``gbr`` command never needs it).

>>> decompress(compress(b"1. e4 *"))
b'1. e4 *'
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["LEVEL", "compress", "decompress"]

#: zstd's level.  On the games of ``bench/bench_import.py`` (20,000, 47.6 MB) level 1
#: compresses to 39.0% in 0.20 s of CPU, where zlib's level 1 took 0.59 s for 39.6%
#: (texts under 2 KB come out larger than zlib's, 1 KB: 69% against 63%, still well
#: under their PGN).  On the board lines of 3,553 solved studies (40 plies each) it
#: took 8.6 us a study for 364 bytes where zlib's level 6 took 50.4 us for 395; on
#: their facts lines 3.7 us for 256 bytes against 15.7 us for 244.
LEVEL = 1
_CONTEXTS = threading.local()


def compress(data: bytes) -> bytes:
    """``data`` zstd-compressed at :data:`LEVEL`, with its size and checksum.

    >>> len(compress(b"." * 1000)) < 30
    True
    """
    try:
        compressor = _CONTEXTS.compressor
    except AttributeError:
        compressor = _CONTEXTS.compressor = _zstandard().ZstdCompressor(
            level=LEVEL, write_checksum=True
        )
    packed: bytes = compressor.compress(data)
    return packed


def decompress(data: bytes) -> bytes:
    """The bytes :func:`compress` compressed, their checksum verified.

    :raises ValueError: for data :func:`compress` did not make (zstd's own error
        is a ``ValueError`` here, with its message).

    >>> decompress(b"not zstd")
    Traceback (most recent call last):
    ...
    ValueError: not a zstd block: error determining content size from frame header
    """
    try:
        decompressor = _CONTEXTS.decompressor
    except AttributeError:
        decompressor = _CONTEXTS.decompressor = _zstandard().ZstdDecompressor()
    try:
        unpacked: bytes = decompressor.decompress(data)
    except _zstandard().ZstdError as exc:
        raise ValueError(f"not a zstd block: {exc}") from None
    return unpacked


def _zstandard() -> Any:
    import zstandard

    return zstandard
