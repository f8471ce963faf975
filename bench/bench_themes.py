"""Themes benchmark (issue 18): what finding the themes adds to ``studydb index``'s replay.

``studydb index`` replays each stored study once (:func:`studydb.db.index.replay_study`:
read the stored PGN, replay every line, key every position) and now also
finds the main line's themes and reads the tags' in the same replay.  This
times (CPU time), on the same studies and in the same run, the median of
``--repeat`` interleaved rounds:

* the replay with the themes: ``replay_study`` as ``studydb index`` runs it;
* the replay without them: the same steps with the themes left out (the PGN
  read, the start position's legality, the index rows, boards and ply facts on
  the same board; no tags read).

The two take turns on each chunk of 50 studies within a round, so that the other
sessions' load on this shared machine, which changes from second to second,
weighs on both alike (whole rounds in turn gave ratios up to 0.1 apart from one
run to the next).

Target: the themes add at most 15% (ratio <= 1.15).  Two collections: the
studies of ``../shared/corpus/studies`` and ``data/classics.pgn`` (main lines
and variations, as ``index`` meets them), and the first ``--games`` tournament
games of ``../shared/corpus/games`` (long main lines only: the most domination
tests per position).

Run: ``python bench/bench_themes.py`` (about a minute here).  Exit status 1
when the target is missed on the studies.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import chess

from studydb import headers as meta
from studydb.db.index import StoredStudy, replay_study
from studydb.lines import PlyFacts, encode_facts, facts_keys
from studydb.movetext import Tee, is_chess960, movetext_of, walk
from studydb.pgn import open_pgn, read_games, tags_of
from studydb.positions import IndexRows

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "corpus"
CLASSICS = HERE.parent / "data" / "classics.pgn"
TARGET = 1.15
#: Studies a run replays before the next run takes its turn (a tenth of a second or so).
CHUNK = 50


def stored_studies(paths: Sequence[Path], *, limit: int | None = None) -> list[StoredStudy]:
    """The games of ``paths`` as ``index`` loads them: id, FEN, PGN, stipulation."""
    studies: list[StoredStudy] = []
    for path in paths:
        with open_pgn(path) as stream:
            for game in read_games(stream, name=str(path)):
                fen = meta.start_fen(game.headers) or chess.STARTING_FEN
                try:
                    chess.Board(fen)
                except ValueError:
                    continue
                info = meta.read_info(game.headers)
                studies.append((len(studies) + 1, fen, game.text, info.stipulation))
                if limit is not None and len(studies) >= limit:
                    return studies
    return studies


def replay_without_themes(study: StoredStudy) -> tuple[Any, ...]:
    """``replay_study`` with the themes left out: the same replay (``index_game``'s
    steps: the PGN read, the start position's legality, the index rows, boards and ply
    facts on the same board; the tags read for the Variant only, no tag themes)."""
    study_id, fen, pgn, _ = study
    movetext = movetext_of(pgn)
    board = chess.Board(fen, chess960=is_chess960(tags_of(pgn)))
    status = board.status()  # as index_game: a start position that is not legal is an error
    errors = [] if status == chess.STATUS_VALID else [f"illegal start position: {status}"]
    rows = IndexRows(board, errors)
    facts = PlyFacts(board)
    walk(board, movetext, Tee(rows, facts))
    lines = facts.text()
    return (
        study_id,
        errors,
        rows.rows,
        rows.boards(),
        rows.seen(),
        encode_facts(lines),
        facts_keys(lines),
        rows.occupancy(),
    )


def median_times(
    studies: Sequence[StoredStudy],
    runs: dict[str, Callable[[StoredStudy], Any]],
    repeat: int,
    *,
    chunk: int = CHUNK,
) -> dict[str, float]:
    """The median CPU time of each run over all ``studies``, rounds interleaved.

    CPU time of this process, not wall time: the machine is shared.  Within a round
    the runs take turns on each ``chunk`` of studies (the first run alternating), so
    that a change in the machine's load during the round weighs on every run alike.
    """
    rounds: dict[str, list[float]] = {name: [] for name in runs}
    order = list(runs.items())
    for _ in range(repeat):
        spent = dict.fromkeys(runs, 0.0)
        for start in range(0, len(studies), chunk):
            part = studies[start : start + chunk]
            for name, run in order:
                started = time.process_time()
                for study in part:
                    run(study)
                spent[name] += time.process_time() - started
            order.reverse()
        for name, total in spent.items():
            rounds[name].append(total)
    return {name: statistics.median(times) for name, times in rounds.items()}


def measure(label: str, studies: Sequence[StoredStudy], repeat: int) -> float:
    times = median_times(
        studies, {"without themes": replay_without_themes, "with themes": replay_study}, repeat
    )
    ratio = times["with themes"] / times["without themes"]
    per = 1e3 / len(studies)
    print(
        f"{label}: {len(studies)} games; replay {times['without themes'] * per:.2f} ms/game "
        f"without themes, {times['with themes'] * per:.2f} ms/game with them: "
        f"ratio {ratio:.3f} (target <= {TARGET})"
    )
    return ratio


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds; the median counts")
    parser.add_argument("--games", type=int, default=1500, help="tournament games to time")
    options = parser.parse_args(argv)
    if not SHARED.is_dir():
        print(f"{SHARED} is absent", file=sys.stderr)
        return 2
    studies = stored_studies([*sorted((SHARED / "studies").glob("*.pgn")), CLASSICS])
    ratio = measure("studies", studies, options.repeat)
    games = stored_studies(sorted((SHARED / "games").glob("*.pgn")), limit=options.games)
    measure("tournament games", games, max(3, options.repeat // 2))
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
