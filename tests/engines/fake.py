"""The common part of the fake UCI engines: Stockfish behind a filter, standard library only.

Each script of this folder is one misbehaviour: it calls :func:`serve` with
``command`` (what to do with a line from the checker: the line to pass on,
or None to swallow it) and ``output`` (the lines to print for a line of
Stockfish's).  ``$FAKE_ENGINE_BASE`` names the real engine (Stockfish).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable

BASE = os.environ.get("FAKE_ENGINE_BASE", "/usr/games/stockfish")


def keep(line: str) -> str | None:
    return line


def same(line: str) -> list[str]:
    return [line]


def serve(
    *,
    command: Callable[[str], str | None] = keep,
    output: Callable[[str], list[str]] = same,
) -> None:
    """Pass the checker's lines to Stockfish and Stockfish's back, each through its filter."""
    engine = subprocess.Popen(
        [BASE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    assert engine.stdin is not None and engine.stdout is not None
    source = engine.stdout

    def pump() -> None:
        for line in source:
            for shown in output(line.rstrip("\n")):
                sys.stdout.write(shown + "\n")
                sys.stdout.flush()

    threading.Thread(target=pump, daemon=True).start()
    for line in sys.stdin:
        passed = command(line.rstrip("\n"))
        if passed is not None:
            engine.stdin.write(passed + "\n")
            engine.stdin.flush()
        if line.strip() == "quit":
            break
    engine.stdin.close()
    engine.wait()
