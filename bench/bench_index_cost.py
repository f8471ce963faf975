"""What pattern and manoeuvre search add to ``studydb index`` (issues 29, 30): CPU against
the index before them.

The reference is a checkout of the commit before pattern search's storage
(``bcc335b^``: positions and themes only), given as a worktree.  The studies are
``bench_positions``'s (a real game's position at some ply as the start and up to 60
of its next plies as the solution, every study distinct).  Each checkout imports
them header-only (``--positions none``) into a database of its own schema, indexes
it once (a warm-up), and then, in rounds that alternate the two checkouts (the load
of a shared machine falls on both alike), runs ``studydb index --reindex`` under
``/usr/bin/time``: the median CPU seconds (user + system) of the rounds and their
ratio (target: at most 1.25).

    git worktree add --detach /tmp/before-patterns bcc335b^
    python bench/bench_index_cost.py --reference /tmp/before-patterns --studies 3000
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
        "--checkout", type=Path, default=HERE.parent, help="checkout measured (default: this)"
    )
    parser.add_argument("--studies", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    pgn = OUT / f"positions-{args.studies}.pgn"
    if not pgn.exists():
        write_studies(pgn, args.studies)
    checkouts = {"before": args.reference.resolve(), "now": args.checkout.resolve()}
    times: dict[str, list[float]] = {name: [] for name in checkouts}
    with tempfile.TemporaryDirectory() as tmp:
        dbs = {name: str(Path(tmp) / f"{name}.sqlite") for name in checkouts}
        for name, checkout in checkouts.items():
            run_cli(checkout, "import", str(pgn), "--positions", "none", "--db", dbs[name])
            run_cli(checkout, "index", "--db", dbs[name])
        for _ in range(args.rounds):
            for name, checkout in checkouts.items():
                seconds = run_cli(checkout, "index", "--reindex", "--db", dbs[name], timed=True)
                times[name].append(seconds)
    before, now = (statistics.median(times[name]) for name in checkouts)
    for name, label in (("before", args.reference), ("now", args.checkout)):
        rounds = " ".join(f"{t:.2f}" for t in times[name])
        print(f"studydb index --reindex, {args.studies:,} studies, {label}: CPU s {rounds}")
    print(
        f"median CPU: before {before:.2f} s, now {now:.2f} s: x{now / before:.3f} "
        f"(target <= {TARGET})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
