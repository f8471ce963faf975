#!/usr/bin/env python3
"""A UCI engine that answers one line (MultiPV 1) whatever was asked for."""

from fake import keep, serve


def command(line: str) -> str | None:
    if line.startswith("setoption name MultiPV"):
        return None
    return keep(line)


if __name__ == "__main__":
    serve(command=command)
