"""Themes benchmark (issue 18): what finding the themes adds to ``studydb index``'s replay.

``studydb index`` replays each stored study once (:func:`studydb.db.index.replay_study`:
read the stored PGN, replay every line, key every position) and now also
finds the main line's themes and reads the tags' in the same replay.  This
times (CPU time), on the same studies and in the same run, the median of
``--repeat`` interleaved rounds:

* the replay with the themes: ``replay_study`` as ``studydb index`` runs it;
* the replay without them: ``replay_study`` itself with the themes left out
  (:func:`themes_left_out`: the main line's themes visitor finds nothing and is
  told nothing, the tags give none), so that whatever the replay shares between
  its visitors is timed alike in both.

The two take turns on each chunk of 50 studies within a round, so that the other
sessions' load on this shared machine, which changes from second to second,
weighs on both alike (whole rounds in turn gave ratios up to 0.1 apart from one
run to the next).

Targets: the themes add at most 15% (ratio <= 1.15) to the studies of
``../shared/corpus/studies`` and ``data/classics.pgn`` (main lines and
variations, as ``index`` meets them), and at most 20% to the first ``--games``
tournament games of ``../shared/corpus/games`` (long main lines only: the most
domination tests per position).

Run: ``python bench/bench_themes.py`` (about a minute here).  Exit status 1
when a target is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import chess

from studydb import headers as meta
from studydb.db import classify, index
from studydb.db.index import StoredStudy, replay_study
from studydb.movetext import Visitor
from studydb.pgn import open_pgn, read_games

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "corpus"
CLASSICS = HERE.parent / "data" / "classics.pgn"
TARGET = 1.15
#: The tournament games' (issue 28, restated 2026-12-05: see ``bench_import.py``).
GAMES_TARGET = 1.2
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


class _NoThemes(Visitor):
    """In place of ``index_game``'s themes visitor: it overrides nothing, so the walk's
    Tee tells it nothing, and it finds nothing."""

    def __init__(self, *_: Any, **__: Any) -> None:
        self.found: list[Any] = []


@contextlib.contextmanager
def themes_left_out() -> Iterator[None]:
    """``replay_study`` (and ``index_game``) with no theme looked for, meanwhile."""
    saved = classify._Themes, classify.MainLine, index.tag_themes
    classify._Themes, classify.MainLine, index.tag_themes = _NoThemes, _NoThemes, _no_themes
    try:
        yield
    finally:
        classify._Themes, classify.MainLine, index.tag_themes = saved


def _no_themes(_: Any) -> list[Any]:
    return []


def replay_without_themes(study: StoredStudy) -> Any:
    """``replay_study`` with the themes left out (:func:`themes_left_out`)."""
    with themes_left_out():
        return replay_study(study)


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


def measure(
    label: str, studies: Sequence[StoredStudy], repeat: int, *, target: float = TARGET
) -> float:
    times = median_times(
        studies, {"without themes": replay_without_themes, "with themes": replay_study}, repeat
    )
    ratio = times["with themes"] / times["without themes"]
    per = 1e3 / len(studies)
    print(
        f"{label}: {len(studies)} games; replay {times['without themes'] * per:.2f} ms/game "
        f"without themes, {times['with themes'] * per:.2f} ms/game with them: "
        f"ratio {ratio:.3f} (target <= {target})"
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
    games_ratio = measure(
        "tournament games", games, max(3, options.repeat // 2), target=GAMES_TARGET
    )
    return 0 if ratio <= TARGET and games_ratio <= GAMES_TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
