#!/usr/bin/env python3
"""A UCI engine that prints garbage while it searches, and a best move of garbage."""

from fake import serve


def output(line: str) -> list[str]:
    if line.startswith("info"):
        return ["info depth pv score cp", "%$#@ ∞ garbage", "info multipv x"]
    if line.startswith("bestmove"):
        return ["bestmove zz9"]
    return [line]


if __name__ == "__main__":
    serve(output=output)
