#!/usr/bin/env python3
"""A UCI engine whose answers have no ``score``."""

import re

from fake import serve

SCORE = re.compile(r" score (cp|mate) -?\d+( (lowerbound|upperbound))?")


def output(line: str) -> list[str]:
    return [SCORE.sub("", line) if line.startswith("info") else line]


if __name__ == "__main__":
    serve(output=output)
