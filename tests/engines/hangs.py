#!/usr/bin/env python3
"""A UCI engine that never answers ``go`` (nor ``stop``)."""

from fake import keep, serve


def command(line: str) -> str | None:
    return None if line.startswith(("go", "stop")) else keep(line)


if __name__ == "__main__":
    serve(command=command)
