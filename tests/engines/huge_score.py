#!/usr/bin/env python3
"""A UCI engine whose centipawn scores are beyond any position's (and would read as mates)."""

import re

from fake import serve

SCORE = re.compile(r"score (cp|mate) -?\d+")


def output(line: str) -> list[str]:
    if line.startswith("info") and " score " in line:
        return [SCORE.sub("score cp 999999999999", line)]
    return [line]


if __name__ == "__main__":
    serve(output=output)
