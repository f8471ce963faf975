"""Benchmark the start-up of the read-only commands against ``import sqlalchemy``.

Run:  .venv/bin/python bench/bench_startup.py [--runs 15]

Target (issue 25): ``studydb search 0300.10 --count`` end to end takes at most
1.5x the time of ``python -c "import sqlalchemy"``.  Both are measured in the
same run, interleaved (so that a busy machine slows both alike), on a
database of the sample classics imported into a temporary folder first; the
medians of each are compared, of wall time and of CPU time (user + system,
which a machine busy with other work disturbs less).  ``show 1``, ``stats``
and ``search 0300.10`` are timed too, each against the same reference.  ``--importtime`` prints the
modules that ``search --count`` spends most of its import time in
(``python -X importtime``).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CLASSICS = HERE.parent / "data" / "classics.pgn"
STUDYDB = Path(sys.executable).with_name("studydb")
REFERENCE = [sys.executable, "-c", "import sqlalchemy"]
TARGET = 1.5


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU time (user + system) of one run of ``argv`` (which must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{argv} exited {done.returncode}: {done.stderr.decode(errors='replace')}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return took, cpu


def medians(commands: dict[str, list[str]], runs: int) -> dict[str, tuple[float, float]]:
    """The median wall and CPU times of each command, the commands run in turn ``runs`` times."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for argv in commands.values():  # once each first: files into the page cache
        timed(argv)
    for _ in range(runs):
        for name, argv in commands.items():
            times[name].append(timed(argv))
    return {
        name: (statistics.median(t[0] for t in found), statistics.median(t[1] for t in found))
        for name, found in times.items()
    }


def import_times(argv: list[str], most: int = 15) -> list[tuple[int, str]]:
    """The modules with the largest cumulative import times (µs) of a command, top-level first."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "studydb", *argv[1:]],
        capture_output=True,
        check=False,
    )
    found = []
    for line in done.stderr.decode(errors="replace").splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.split("|")
        depth = (len(name) - len(name.lstrip())) // 2
        if depth <= 2:
            found.append((int(cumulative), name.rstrip()))
    return sorted(found, reverse=True)[:most]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each command")
    parser.add_argument("--importtime", action="store_true", help="where the imports go")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "classics.sqlite")
        subprocess.run(
            [str(STUDYDB), "import", str(CLASSICS), "--db", db],
            stdout=subprocess.DEVNULL,
            check=True,
        )
        commands = {
            "python -c 'import sqlalchemy'": REFERENCE,
            "studydb search 0300.10 --count": [str(STUDYDB), "search", "0300.10", "--count"],
            "studydb search 0300.10": [str(STUDYDB), "search", "0300.10"],
            "studydb show 1": [str(STUDYDB), "show", "1"],
            "studydb stats": [str(STUDYDB), "stats"],
        }
        for argv in commands.values():
            if argv is not REFERENCE:
                argv += ["--db", db]
        found = medians(commands, args.runs)
        wall, cpu = found["python -c 'import sqlalchemy'"]
        print(f"medians of {args.runs} runs each, interleaved")
        print(f"{'command':<32} {'wall ms':>8} {'ratio':>6} {'CPU ms':>8} {'ratio':>6}")
        for name, (seconds, used) in found.items():
            print(
                f"{name:<32} {seconds * 1000:>8.0f} {seconds / wall:>6.2f}"
                f" {used * 1000:>8.0f} {used / cpu:>6.2f}"
            )
        count_wall, count_cpu = found["studydb search 0300.10 --count"]
        for what, ratio in (("wall", count_wall / wall), ("CPU", count_cpu / cpu)):
            verdict = "met" if ratio <= TARGET else "missed"
            print(f"search --count / import sqlalchemy, {what}: {ratio:.2f}", end=" ")
            print(f"(target <= {TARGET}: {verdict})")
        if args.importtime:
            print("\nlargest cumulative import times of search --count (python -X importtime):")
            for micros, name in import_times(commands["studydb search 0300.10 --count"]):
                print(f"{micros / 1000:>8.1f} ms  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
