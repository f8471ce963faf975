#!/usr/bin/env python3
"""A UCI engine that says the side to move is mated already (``score mate 0``), on the board."""

import re

from fake import serve

SCORE = re.compile(r"score (cp|mate) -?\d+")


def output(line: str) -> list[str]:
    if line.startswith("info") and " score " in line:
        return [SCORE.sub("score mate 0", line)]
    return [line]


if __name__ == "__main__":
    serve(output=output)
