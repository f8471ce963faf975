#!/usr/bin/env python3
"""A UCI engine that sends three lines (MultiPV 3) whatever was asked for."""

from fake import keep, serve


def command(line: str) -> str | None:
    if line.startswith("setoption name MultiPV"):
        return None
    if line.startswith("go"):
        return "setoption name MultiPV value 3\n" + line
    return keep(line)


if __name__ == "__main__":
    serve(command=command)
