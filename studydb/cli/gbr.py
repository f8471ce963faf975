"""``studydb gbr`` commands: GBR codes from the shell.

Starts fast: imports neither SQLAlchemy nor ``chess.pgn`` (``--pgn`` uses the
standard-library PGN reader of ``studydb.pgn``), and writes output in
chunks rather than one print per line.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from studydb import gbr
from studydb.cli.light import LightCommand, LightGroup
from studydb.cli.options import output_options
from studydb.cli.output import RecordWriter
from studydb.terminal import visible

if TYPE_CHECKING:
    pass


#: This module's commands, which :mod:`studydb.cli` adds to its ``app``.
commands = typer.Typer()

gbr_app = typer.Typer(
    cls=LightGroup,
    help="GBR codes: encode positions, decode codes, set up extended notation.",
    no_args_is_help=True,
)
commands.add_typer(gbr_app, name="gbr")

CHUNK = 4096
"""Inputs per output chunk (one write to stdout per chunk)."""


#: The output formats of the gbr commands.
FORMATS = ("text", "json", "jsonl")
FORMAT_HELP = "Output: text, json (one array) or jsonl (one object a line)."

_PIECE_NAMES = {"q": "queen", "r": "rook", "b": "bishop", "n": "knight", "p": "pawn"}


class _Writer:
    """Writes results in chunks (:class:`~studydb.cli.output.RecordWriter`); counts failures."""

    def __init__(self, output: str) -> None:
        self.failed = 0
        self._out: RecordWriter[dict[str, Any]] = RecordWriter(
            output, layout="indented", chunk=CHUNK
        )

    def text(self, line: str) -> None:
        self._out.line(line)

    def record(self, obj: dict[str, Any]) -> None:
        if obj.get("error") is not None:
            self.failed += 1
        self._out.write(obj)

    def error(self, where: str, reason: str) -> None:
        self.failed += 1
        self._out.flush()
        sys.stderr.write(f"{where}: {visible(reason)}\n")

    def close(self) -> None:
        self._out.close()
        if self.failed:
            raise typer.Exit(1)


def _stdin_lines() -> Iterator[tuple[str, str]]:
    for number, line in enumerate(sys.stdin, 1):
        text = (line.removeprefix("\ufeff") if number == 1 else line).strip()
        if text:
            yield f"line {number}", text


def _argument_inputs(values: Iterable[str]) -> Iterator[tuple[str, str]]:
    for number, value in enumerate(values, 1):
        yield f"argument {number}", value


def _pgn_inputs(path: Path, errors: list[str]) -> Iterator[tuple[str, str]]:
    """The start FEN of every game of a PGN file, with the game's first line.

    Uses studydb's own reader (standard library only, no database): it keeps
    the games python-chess's reader splits or merges, and reads .gz/.bz2/.xz.
    A file that cannot be read to its end adds its error to ``errors``.
    """
    import chess

    from studydb.db.classify import unusable
    from studydb.headers import start_fen
    from studydb.pgn import PgnError, open_pgn, read_games

    try:
        with open_pgn(path) as stream:
            for game in read_games(stream, name=str(path)):
                problem = unusable(game)  # binary data, no game, a variant: no code to give
                if problem:
                    errors.append(f"{path}:{game.line}: {problem}")
                else:
                    yield f"{path}:{game.line}", start_fen(game.headers) or chess.STARTING_FEN
    except PgnError as exc:
        errors.append(str(exc))


def _encode_record(where: str, fen: str, *, extended: bool) -> dict[str, Any]:
    try:
        material = gbr.material(fen)
        notation = gbr.encode_extended(fen)
    except gbr.GbrError as exc:
        return {
            "input": fen,
            "source": where,
            "gbr": None,
            "signature": None,
            "extended": None,
            "men": None,
            "error": str(exc),
        }
    return {
        "input": fen,
        "source": where,
        "gbr": material.code,
        "signature": material.signature,
        "extended": notation,
        "men": material.men,
        "error": None,
    }


@gbr_app.command("encode", cls=LightCommand)
@output_options(*FORMATS, help=FORMAT_HELP)
def encode_command(
    fens: list[str] | None = typer.Argument(
        None, help="FENs to encode (quote each). Without any, FENs are read from stdin."
    ),
    pgn: str | None = typer.Option(
        None,
        "--pgn",
        metavar="FILE",
        help="Encode the start of every game of a PGN file (- for standard input).",
    ),
    extended: bool = typer.Option(False, "--extended", help="Print ARVES extended notation."),
    output: str = "text",
) -> None:
    """Print the GBR code of each position, in input order.

    Reads FENs from the arguments, from a PGN file (--pgn: the FEN tag of each
    game, or the initial position), or one per line from stdin.

    Example:

        studydb gbr encode "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"    # 0300.10
    """
    sources: list[Iterable[tuple[str, str]]] = []
    read_errors: list[str] = []
    if fens:
        sources.append(_argument_inputs(fens))
    if pgn is not None:
        pgn_path = Path(pgn)
        if pgn == "":  # Path('') is '.', the folder
            raise typer.BadParameter("an empty path names no file", param_hint="'--pgn'")
        if pgn != "-" and not pgn_path.exists():  # a pipe, FIFO or /dev/stdin is read too
            raise typer.BadParameter(f"no such file: {pgn}", param_hint="'--pgn'")
        if pgn_path.is_dir():
            raise typer.BadParameter(f"{pgn} is a folder, not a PGN file", param_hint="'--pgn'")
        sources.append(_pgn_inputs(pgn_path, read_errors))
    if not sources:
        if sys.stdin.isatty():
            raise typer.BadParameter("give FENs as arguments, --pgn FILE, or pipe FENs to stdin")
        sources.append(_stdin_lines())
    inputs = itertools.chain.from_iterable(sources)
    writer = _Writer(output)
    if output == "text":
        convert = gbr.encode_extended if extended else gbr.encode
        error = gbr.GbrError
        for where, fen in inputs:
            try:
                writer.text(convert(fen))
            except error as exc:
                writer.error(where, str(exc))
    else:
        for where, fen in inputs:
            writer.record(_encode_record(where, fen, extended=extended))
    for message in read_errors:
        writer.error("--pgn", message)
    writer.close()


def _counts_text(counts: gbr.Counts) -> str:
    parts = ["king"]
    for field, count in zip("qrbnp", counts, strict=True):
        name = _PIECE_NAMES[field]
        if count is None:
            continue
        if count:
            parts.append(f"{count} {name}s" if count > 1 else name)
    return ", ".join(parts)


def _unknowns_text(material: gbr.Material) -> list[str]:
    notes = []
    for letter, digit in zip("qrbn", material.digits, strict=True):
        if digit == 9 and getattr(material.white, letter) is None:
            notes.append(
                f"{_PIECE_NAMES[letter]}s: three or more on at least one side, split unknown"
            )
    if material.pawns is None:
        notes.append("pawns: unspecified")
    return notes


def _decode_one(text: str) -> tuple[gbr.Material, str | None, tuple[str, str] | None]:
    """Material, stipulation and kings of a code, stipulation form or signature."""
    stripped = text.strip()
    if stripped[:1] in ("+", "="):
        form = gbr.parse_stipulation_form(stripped)
        return form.material, form.stipulation, (form.white_king, form.black_king)
    if gbr.looks_like_material(stripped):
        return gbr.read_material(stripped), None, None
    return gbr.parse(stripped), None, None


def _counts_json(counts: gbr.Counts) -> dict[str, int | None]:
    return dict(zip("qrbnp", counts, strict=True))


@gbr_app.command("decode", cls=LightCommand)
@output_options(*FORMATS, help=FORMAT_HELP)
def decode_command(
    codes: list[str] = typer.Argument(
        ..., help="GBR codes ('0300.10', '4100'), stipulation forms or material ('KRP v KR')."
    ),
    output: str = "text",
) -> None:
    """Say what GBR codes mean: each side's men, signature, men counted, flipped code.

    Also reads stipulation forms ('=0323.12g3g1') and material written as
    signatures ('KRPvKR', 'KRP v KR', 'KRPKR', 'R+P v R') or in words
    ('rook and pawn versus rook').

    Example:

        studydb gbr decode 0300.10 0009.00 =0323.12g3g1
    """
    writer = _Writer(output)
    for number, code in enumerate(codes, 1):
        try:
            material, stipulation, kings = _decode_one(code)
        except gbr.GbrError as exc:
            if output == "text":
                writer.error(f"argument {number}", str(exc))
            else:
                writer.record({"input": code, "gbr": None, "signature": None, "error": str(exc)})
            continue
        flipped = material.flipped()
        if output != "text":
            writer.record(
                {
                    "input": code,
                    "gbr": material.code,
                    "signature": material.signature,
                    "white": _counts_json(material.white),
                    "black": _counts_json(material.black),
                    "digits": list(material.digits),
                    "pawns": list(material.pawns) if material.pawns else None,
                    "men": material.men,
                    "flipped": flipped.code,
                    "stipulation": stipulation,
                    "kings": list(kings) if kings else None,
                    "error": None,
                }
            )
            continue
        men = "unknown" if material.men is None else str(material.men)
        writer.text(f"{material.code}  {material.signature}")
        if stipulation:
            writer.text(f"  Stipulation: {_task(stipulation)}")
        writer.text(f"  White: {_counts_text(material.white)}")
        writer.text(f"  Black: {_counts_text(material.black)}")
        for note in _unknowns_text(material):
            writer.text(f"  Also:  {note}")
        if kings:
            writer.text(f"  Kings: White {kings[0]}, Black {kings[1]}")
        writer.text(f"  Men:   {men}")
        writer.text(f"  Flipped (colours swapped): {flipped.code}  {flipped.signature}")
    writer.close()


def _split_notations(words: list[str]) -> list[str]:
    if len(words) > 1 and all(len(w.split()) > 1 for w in words):
        return words
    return [" ".join(words)]


@gbr_app.command("position", cls=LightCommand)
@output_options(*FORMATS, help=FORMAT_HELP)
def position_command(
    notation: list[str] = typer.Argument(
        ..., help="Extended notation, quoted or as separate words ('b6a1 0300.10 d5.c6 2/2')."
    ),
    black: bool = typer.Option(False, "--black", help="Black to move (default White)."),
    ascii_only: bool = typer.Option(False, "--ascii", help="ASCII letters instead of figurines."),
    output: str = "text",
) -> None:
    """Set up the position of ARVES extended notation: print its FEN and a diagram.

    Several quoted notations give several positions.

    Example:

        studydb gbr position "b6a1 0300.10 d5.c6 2/2"
    """
    writer = _Writer(output)
    turn = not black
    for number, text in enumerate(_split_notations(notation), 1):
        try:
            result = gbr.parse_extended(text, turn=turn)
        except gbr.GbrError as exc:
            if output == "text":
                writer.error(f"argument {number}", str(exc))
            else:
                writer.record(
                    {"input": text, "gbr": None, "signature": None, "fen": None, "error": str(exc)}
                )
            continue
        material = result.material
        if output != "text":
            writer.record(
                {
                    "input": text,
                    "gbr": material.code,
                    "signature": material.signature,
                    "fen": result.fen,
                    "stipulation": result.stipulation,
                    "control": list(result.control) if result.control else None,
                    "error": None,
                }
            )
            continue
        if number > 1:
            writer.text("")
        writer.text(result.fen)
        summary = f"{material.code}  {material.signature}"
        if result.stipulation:
            summary += f"  {_task(result.stipulation)}"
        writer.text(summary)
        from studydb.render import text_diagram

        for row in text_diagram(result.board, ascii_only=ascii_only):
            writer.text(row)
    writer.close()


def _task(stipulation: str) -> str:
    """The task sentence (:func:`studydb.headers.task_sentence`), imported when needed."""
    from studydb.headers import task_sentence

    return task_sentence(stipulation)
