"""What pattern and manoeuvre search add to ``studydb index`` (issues 29, 30): CPU against
the index before them.

The reference is a checkout of the commit before pattern search's storage
(``bcc335b^``: positions and themes only), given as a worktree.  The studies are
``bench_positions``'s (a real game's position at some ply as the start and up to 60
of its next plies as the solution, every study distinct).  Each checkout imports
them header-only (``--positions none``) into a database of its own schema, indexes
it once (a warm-up), and then, in rounds that alternate the two checkouts (the load
of a shared machine falls on both alike), runs ``studydb index --reindex`` under
``/usr/bin/time``: the median and the least CPU seconds (user + system) of the rounds
and their ratios to the reference's (target: at most 1.25; the least is the one the
load of other processes inflates least).

    git worktree add --detach /tmp/before-patterns bcc335b^
    python bench/bench_index_cost.py --reference /tmp/before-patterns --studies 3000
    python bench/bench_index_cost.py --reference /tmp/before-patterns --checkout /tmp/a \\
        --checkout /tmp/b --rounds 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_positions import OUT, write_studies

HERE = Path(__file__).resolve().parent
#: Runs the checkout's CLI (the reference has no ``studydb.__main__``).
_CLI = "import sys; from studydb.cli import main; sys.argv[0] = 'studydb'; main()"
TARGET = 1.25


def run_cli(checkout: Path, *args: str, timed: bool = False) -> float:
    """Run ``studydb ARGS`` from ``checkout``'s sources; its CPU seconds when ``timed``."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    command = [sys.executable, "-c", _CLI, *args]
    if not timed:
        subprocess.run(command, env=env, check=True, capture_output=True)
        return 0.0
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        subprocess.run(
            ["/usr/bin/time", "-f", "%U %S", "-o", report.name, *command],
            env=env,
            check=True,
            capture_output=True,
        )
        user, system = report.read().split()[-2:]
    return float(user) + float(system)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", type=Path, required=True, help="checkout of bcc335b^")
    parser.add_argument(
        "--checkout",
        type=Path,
        action="append",
        help="a checkout measured against the reference (again for more; default: this one)",
    )
    parser.add_argument("--studies", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    pgn = OUT / f"positions-{args.studies}.pgn"
    if not pgn.exists():
        write_studies(pgn, args.studies)
    measured = [path.resolve() for path in args.checkout or [HERE.parent]]
    checkouts = {str(path): path for path in [args.reference.resolve(), *measured]}
    times: dict[str, list[float]] = {name: [] for name in checkouts}
    with tempfile.TemporaryDirectory() as tmp:
        dbs = {name: str(Path(tmp) / f"{n}.sqlite") for n, name in enumerate(checkouts)}
        for name, checkout in checkouts.items():
            run_cli(checkout, "import", str(pgn), "--positions", "none", "--db", dbs[name])
            run_cli(checkout, "index", "--jobs", "1", "--db", dbs[name])
        for _ in range(args.rounds):
            for name, checkout in checkouts.items():
                # One process, as the reference's default: CPU against CPU, no workers' start.
                seconds = run_cli(
                    checkout, "index", "--reindex", "--jobs", "1", "--db", dbs[name], timed=True
                )
                times[name].append(seconds)
    reference = times[str(args.reference.resolve())]
    for name, seconds in times.items():
        rounds = " ".join(f"{t:.2f}" for t in seconds)
        median, least = statistics.median(seconds), min(seconds)
        print(
            f"studydb index --reindex, {args.studies:,} studies, {name}: CPU s {rounds}; "
            f"median {median:.2f} s = x{median / statistics.median(reference):.3f} the "
            f"reference's, least {least:.2f} s = x{least / min(reference):.3f} "
            f"(target <= {TARGET})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
