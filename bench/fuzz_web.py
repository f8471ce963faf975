"""Count 500s and tracebacks over N random hostile requests to the web pages (and CLI numbers).

    python bench/fuzz_web.py --requests 10000 --cli 300 --seed 1

Runs in-process (Starlette's test client) on data/classics.pgn imported into a
temporary SQLite file, with a fixed seed, so that two checkouts can be
compared request for request.  Prints the counts and the first few failures.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import traceback
from pathlib import Path
from urllib.parse import quote, urlencode

from starlette.testclient import TestClient
from typer.testing import CliRunner

import studydb
from studydb.cli import app
from studydb.web import create_app

CLASSICS = Path(__file__).resolve().parent.parent / "data" / "classics.pgn"
ROUTES = ["/", "/search", "/stats", "/api/search", "/export.csv", "/export.json", "/diagram.svg"]
PARAMS = [
    "material", "either_colour", "where", "composer", "stipulation", "year", "source", "eg",
    "award", "valid", "verdict", "position", "similar", "main_line", "reaches", "ends_in",
    "sort", "page", "per_page", "fen", "lastmove", "flip", "size", "node", "x",
]  # fmt: skip
NASTY = [
    "", " ", "0", "-1", "1e9", "²", "٣", "10" * 20, "9" * 5000, str(2**62), str(2**63), "\x00",
    "re\x00ti", "'; DROP TABLE studies; --", "<script>alert(1)</script>", "1920-1925",
    "1925..1920", "men<=" + "9" * 30, "0300.10", "03??", "KRPvKR", "x" * 3000, "true",
    "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1", "rook and pawn versus rook",
]  # fmt: skip
#: Whole-number options to fuzz (not --jobs: a valid one starts that many processes).
CLI = [
    ["search", "--limit"], ["search", "--offset"], ["stats", "--top"], ["show", "--node"],
    ["index", "--batch-size"], ["check", "--depth"],
    ["anticipate", "--min-men"], ["show"], ["search", "--where"], ["stats", "--where"],
    ["search", "--composer"], ["search", "--year"], ["search", "--position"],
]  # fmt: skip


def value(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.6:
        return rng.choice(NASTY)
    if roll < 0.8:
        return str(rng.randint(-(2**70), 2**70))
    return "".join(chr(rng.randint(1, 0x2FFF)) for _ in range(rng.randint(0, 12)))


def request(rng: random.Random) -> str:
    if rng.random() < 0.15:
        return f"/studies/{quote(value(rng), safe='')}?" + urlencode({"node": value(rng)})
    count = 1 if rng.random() < 0.5 else rng.randint(0, 4)
    pairs = [(rng.choice(PARAMS), value(rng)) for _ in range(count)]
    if pairs and rng.random() < 0.1:
        pairs *= rng.choice([50, 300, 1200])
    url = f"{rng.choice(ROUTES)}?{urlencode(pairs)}"
    return url[:60_000]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--cli", type=int, default=300, help="CLI invocations")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "studies.sqlite")
        with studydb.open(db) as writable:
            writable.import_paths([CLASSICS])
        served = studydb.open(db, read_only=True)
        errors: list[str] = []
        statuses: dict[int, int] = {}
        with TestClient(create_app(served), raise_server_exceptions=False) as client:
            for _ in range(args.requests):
                url = request(rng)
                try:
                    status = client.get(url).status_code
                except Exception as exc:  # a crash the server did not turn into an answer
                    status = 599
                    errors.append(f"{url[:120]}: {type(exc).__name__}: {exc}"[:300])
                statuses[status] = statuses.get(status, 0) + 1
                if status >= 500 and status != 599:
                    errors.append(f"{status} {url[:160]}")
        served.close()
        tracebacks = 0
        runner = CliRunner()
        for _ in range(args.cli):
            command = rng.choice(CLI)
            given = value(rng)
            if command[-1] == "--where" and rng.random() < 0.5:
                given = f"men<={given}"
            argv = [*command, given, "--db", db]
            if command[-1] == "--composer" and rng.random() < 0.3:
                argv += [f"--composer=x{i}" for i in range(1200)]
            result = runner.invoke(app, argv)
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                tracebacks += 1
                tail = traceback.format_exception_only(result.exception)[-1].strip()
                errors.append(f"traceback: {argv[:3]!r}: {tail}"[:300])
    server_errors = sum(n for s, n in statuses.items() if s >= 500)
    print(f"requests: {args.requests}; statuses: {dict(sorted(statuses.items()))}")
    print(f"5xx answers: {server_errors} (500: {statuses.get(500, 0)})")
    print(f"CLI invocations: {args.cli}; tracebacks: {tracebacks}")
    for line in errors[:15]:
        print("  ", line)


if __name__ == "__main__":
    main()
