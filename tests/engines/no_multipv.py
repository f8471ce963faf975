#!/usr/bin/env python3
"""A UCI engine without the ``MultiPV`` option (it is optional in UCI); otherwise Stockfish."""

from fake import serve


def output(line: str) -> list[str]:
    return [] if line.startswith("option name MultiPV") else [line]


if __name__ == "__main__":
    serve(output=output)
