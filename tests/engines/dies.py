#!/usr/bin/env python3
"""A UCI engine that exits when it is asked to search."""

import os

from fake import keep, serve


def command(line: str) -> str | None:
    if line.startswith("go"):
        os._exit(3)
    return keep(line)


if __name__ == "__main__":
    serve(command=command)
