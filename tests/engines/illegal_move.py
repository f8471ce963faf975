#!/usr/bin/env python3
"""A UCI engine that answers with a move from an empty square (a1a2 in the test studies)."""

import re

from fake import serve

PV = re.compile(r" pv .*")


def output(line: str) -> list[str]:
    if line.startswith("info") and " pv " in line:
        return [PV.sub(" pv a1a2", line)]
    if line.startswith("bestmove"):
        return ["bestmove a1a2"]
    return [line]


if __name__ == "__main__":
    serve(output=output)
