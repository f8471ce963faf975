#!/usr/bin/env python3
"""A UCI engine that exits when a search is limited to some moves (``go searchmoves``)."""

import os

from fake import keep, serve


def command(line: str) -> str | None:
    if line.startswith("go") and " searchmoves " in line:
        os._exit(3)
    return keep(line)


if __name__ == "__main__":
    serve(command=command)
