#!/usr/bin/env python3
"""A UCI engine whose answers have no ``pv``."""

from fake import serve


def output(line: str) -> list[str]:
    if line.startswith("info") and " pv " in line:
        return [line.split(" pv ")[0]]
    return [line]


if __name__ == "__main__":
    serve(output=output)
