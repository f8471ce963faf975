"""A judge's report on tourney entries: the model, and its HTML, Markdown and JSON forms.

Pure: no database (:mod:`studydb.db.report` gathers the facts).  Each
:class:`Entry` holds what a judge asks of one entry: who, where, the
material (GBR and extended), the start position, the soundness verdict with
its findings, the anticipations in the database, the versions (same start)
and the themes.  The three forms carry the same facts; the HTML is one
self-contained file (inline SVG diagrams and CSS, no script, nothing fetched)
that prints with no entry split across pages.

>>> report = Report("entries.pgn", [Entry(1, "entries.pgn:1", fen=chess.STARTING_FEN)])
>>> to_markdown(report).splitlines()[0]
'# Judge’s report: entries.pgn'
"""

from __future__ import annotations

import html
import json
from dataclasses import asdict, dataclass, field
from typing import Any

import chess

from studydb import render
from studydb.facts import not_compared_phrase, study_facts, too_few_men_phrase
from studydb.filters import DEFAULT_MIN_MEN
from studydb.headers import task_sentence
from studydb.themes import Theme
from studydb.vocabulary import BADGE_COLOURS, VERDICTS

__all__ = [
    "Anticipation",
    "Entry",
    "Finding",
    "MoveNote",
    "Report",
    "Soundness",
    "Version",
    "entry_facts",
    "to_html",
    "to_json",
    "to_markdown",
]

#: Diagram sizes in the HTML (printed): the start position, a shared position.
START_DIAGRAM_CM = 5.5
SHARED_DIAGRAM_CM = 4.2
# -- the model --------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """A main-line move with something to say: ``3. Kb4: also Kb5 DTZ 9``."""

    ply: int
    number: str
    san: str
    text: str

    def describe(self) -> str:
        return f"{self.number} {self.san}: {self.text}"


@dataclass(frozen=True)
class MoveNote:
    """A main-line move and what the check found there (``text`` may be empty)."""

    ply: int
    number: str
    san: str
    text: str = ""
    flags: tuple[str, ...] = ()
    first_error: bool = False


@dataclass
class Soundness:
    """The soundness verdict of an entry, its first error, duals and per-move notes."""

    verdict: str
    checked_with: str = ""
    note: str = ""
    #: ``no errors found from move 8`` for ``no-errors``; why the start was not judged.
    summary: str = ""
    reason: str = ""
    first_error: Finding | None = None
    duals: list[Finding] = field(default_factory=list)
    moves: list[MoveNote] = field(default_factory=list)


@dataclass(frozen=True)
class Anticipation:
    """A stored study sharing positions with the entry: who, when, and where they meet.

    ``ply``/``other_ply``: the first shared position's ply in the entry and in
    the study (``main``/``other_main``: on their main lines); ``fen`` is it.
    ``same_year``: dated the year anticipations are looked for up to (which came
    first is not known).
    """

    id: int
    composers: list[str]
    year: int | None
    source: str | None
    gbr: str
    ply: int
    main: bool
    other_ply: int
    other_main: bool
    fen: str
    positions: int
    same_year: bool = False


@dataclass(frozen=True)
class Version:
    """A stored study with the entry's start position."""

    id: int
    composers: list[str]
    year: int | None
    source: str | None


@dataclass
class Entry:
    """One tourney entry and what was found about it."""

    number: int
    where: str
    composers: list[str] = field(default_factory=list)
    source: str | None = None
    year: int | None = None
    award: str | None = None
    stipulation: str | None = None
    mate_in: int | None = None
    gbr: str = ""
    extended: str = ""
    form: str | None = None
    fen: str = ""
    solution: str = ""
    errors: list[str] = field(default_factory=list)
    soundness: Soundness | None = None
    #: Anticipations listed (best first), how many there are, the year they precede.
    anticipations: list[Anticipation] = field(default_factory=list)
    anticipation_count: int = 0
    earliest_year: int | None = None
    before: int | None = None
    #: The first versions (20, as `show` lists them), oldest first, and how many there are.
    versions: list[Version] = field(default_factory=list)
    versions_total: int = 0
    themes: list[Theme] = field(default_factory=list)
    #: The main line's move to each theme's ply (``6.c8=R``), by ply.
    theme_moves: dict[int, str] = field(default_factory=dict)
    #: Men of the tables mutual zugzwangs were looked for with (None: not looked for).
    zugzwang_tables: int | None = None
    #: The id of the entry's own copy in the database, if it is stored.
    stored_id: int | None = None
    #: The men of its start position (no later position has more); None: not known.
    men: int | None = None

    def too_few_men(self, min_men: int) -> bool:
        """Whether it has fewer men than a compared position: none of its positions was
        compared for anticipations."""
        return self.men is not None and self.men < min_men

    @property
    def anticipated(self) -> bool:
        return self.anticipation_count > 0

    @property
    def unread(self) -> bool:
        """Whether the entry could not be read (no start position): nothing was checked."""
        return not self.fen

    @property
    def verdict(self) -> str:
        return self.soundness.verdict if self.soundness else "unchecked"

    @property
    def title(self) -> str:
        """``Composers, Source Year`` or the entry's place in its file."""
        who = "; ".join(self.composers) or "composer unknown"
        year = self.year if self.year and str(self.year) not in (self.source or "") else None
        where = " ".join(str(part) for part in (self.source, year) if part)
        return f"{who}, {where}" if where else who

    @property
    def white(self) -> bool:
        """Whether White plays first (without a start position: White)."""
        return self.fen.split(" ")[1:2] != ["b"]

    def task(self) -> str:
        """``White to play and win`` (:func:`studydb.headers.task_sentence`)."""
        return task_sentence(self.stipulation, self.mate_in, white=self.white)


@dataclass
class Report:
    """The report on one file of entries, and how it was made."""

    file: str
    entries: list[Entry]
    database: str = ""
    studies: int = 0
    tables: str = "none"
    engine: str = "none"
    min_men: int = DEFAULT_MIN_MEN
    limit: int = 4
    #: Table files that could not be read (their positions counted as missing).
    bad_tables: list[str] = field(default_factory=list)
    #: Stored studies of ``min_men`` men or more not in the position index: no entry's
    #: positions were compared with theirs.
    not_compared: int = 0

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for entry, raw in zip(self.entries, data["entries"], strict=True):
            compared = not entry.unread and not entry.too_few_men(self.min_men)
            raw["anticipated"] = entry.anticipated if compared else None  # not looked for
            raw["verdict"] = entry.verdict
            moves = raw.pop("theme_moves")  # each theme says its move
            raw["themes"] = [_theme_dict(t, moves) for t in entry.themes]
        return data


def _theme_dict(theme: Theme, moves: dict[int, str]) -> dict[str, Any]:
    move = moves.get(theme.ply) if theme.ply else None
    return {
        "name": theme.name,
        "ply": theme.ply,
        "move": move,
        "detail": theme.detail,
        "source": theme.source,
    }


def theme_summary(themes: list[Theme]) -> str:
    """The theme names, each once, in order: ``mate, underpromotion``.

    >>> theme_summary([Theme("underpromotion", 3, "N"), Theme("underpromotion", 5, "B")])
    'underpromotion'
    """
    return ", ".join(dict.fromkeys(t.name for t in themes))


#: What the report says of what it did not look at in an entry it could not read.
UNREAD = (
    "Not checked: the entry could not be read, so neither its soundness nor anticipations,"
    " versions or themes were looked for."
)


def _anticipated_text(entry: Entry, not_compared: int = 0, min_men: int = DEFAULT_MIN_MEN) -> str:
    if entry.unread:
        return "not looked for"
    if entry.too_few_men(min_men):  # no position of the entry was compared
        return f"not compared ({entry.men} men)"
    if not entry.anticipated:
        return f"no ({not_compared:,} not compared)" if not_compared else "no"
    if entry.earliest_year is not None and entry.earliest_year == entry.before:
        return f"maybe: {entry.earliest_year}, the same year, order unknown"  # none earlier
    return f"yes, {entry.earliest_year}" if entry.earliest_year else "yes (undated)"


def _zugzwang_note(entry: Entry) -> str | None:
    if entry.unread:
        return None
    if entry.zugzwang_tables is None:
        return "mutual zugzwang not looked for (no tables)"
    if not any(t.name == "mutual-zugzwang" for t in entry.themes):
        return f"no mutual zugzwang within the {entry.zugzwang_tables}-man tables"
    return None


def _settings_line(report: Report) -> str:
    count = len(report.entries)
    return (
        f"{count} entr{'y' if count == 1 else 'ies'}; database {report.database} "
        f"({report.studies:,} studies); tables: {report.tables}; engine: {report.engine}; "
        f"anticipations: positions of {report.min_men}+ men, {report.limit or 'all'} listed"
        " per entry" + _not_compared_text(report)
    )


def _not_compared_text(report: Report) -> str:
    """What the anticipations leave out: the studies not in the position index.

    >>> _not_compared_text(Report("t.pgn", [], not_compared=21)).split(" and ")[0]
    '; 21 stored studies of 5+ men are not in the position index'
    """
    if not report.not_compared:
        return ""
    phrase = not_compared_phrase(report.not_compared, report.min_men)
    return f"; {phrase} (studydb index indexes them)"


# -- JSON ---------------------------------------------------------------------------------


def to_json(report: Report) -> str:
    """The report as one JSON object (every fact of the other forms)."""
    return json.dumps(report.as_dict(), ensure_ascii=False, indent=2) + "\n"


# -- Markdown ---------------------------------------------------------------------------


def to_markdown(report: Report) -> str:
    """The report as Markdown: a summary table, then one section per entry."""
    lines = [f"# Judge’s report: {report.file}", "", _settings_line(report), "", "## Summary", ""]
    lines += [
        "| # | Entry | GBR | Stipulation | Verdict | Anticipated | Themes |",
        "|---|---|---|---|---|---|---|",
    ]
    for entry in report.entries:
        cells = [
            str(entry.number),
            entry.title,
            entry.gbr,
            entry.stipulation or "",
            entry.verdict,
            _anticipated_text(entry, report.not_compared, report.min_men),
            theme_summary(entry.themes),
        ]
        lines.append("| " + " | ".join(_md_cell(c) for c in cells) + " |")
    for entry in report.entries:
        lines += ["", *_markdown_entry(entry, report.not_compared, report.min_men)]
    return "\n".join(lines) + "\n"


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def entry_facts(entry: Entry, *, start: str | None = None) -> list[tuple[str, str]]:
    """An entry's labelled facts, the given ones only, as every form of the report lists
    them (:func:`studydb.facts.study_facts`, between the entry's place and where it is
    stored); ``start``: the start position as the form shows it (the HTML draws it instead).

    >>> entry_facts(Entry(number=1, where="entries.pgn #1", composers=["Kubbel"], year=1922))
    [('Entry', 'entries.pgn #1'), ('Composers', 'Kubbel'), ('Year', '1922'), \
('Stipulation', 'White to play (no stipulation)')]
    """
    facts = study_facts(
        composers=entry.composers,
        source=entry.source,
        year=entry.year,
        award=entry.award,
        stipulation=entry.stipulation,
        mate_in=entry.mate_in,
        white=entry.white,
        gbr=entry.gbr,
        extended=entry.extended,
        form=entry.form,
    )
    labelled = [
        ("Entry", entry.where),
        *((fact.label, fact.value) for fact in facts),
        ("Start", start),
        ("Stored as", f"study {entry.stored_id}" if entry.stored_id else None),
    ]
    return [(label, value) for label, value in labelled if value]


def _markdown_entry(
    entry: Entry, not_compared: int = 0, min_men: int = DEFAULT_MIN_MEN
) -> list[str]:
    lines = [f"## {entry.number}. {entry.title}", ""]
    facts = entry_facts(entry, start=f"`{entry.fen}`" if entry.fen else None)
    lines += [f"- **{label}:** {value}" for label, value in facts]
    if entry.fen:
        lines += ["", "```text", *render.text_diagram(chess.Board(entry.fen)), "```"]
    lines.append("")
    lines += [f"- **Error:** {error}" for error in entry.errors]
    if entry.solution:
        lines += [f"Solution: {entry.solution}", ""]
    if entry.unread:  # no soundness, anticipations, versions or themes to claim
        return [*lines, "### Soundness: unchecked", "", UNREAD]
    lines += _markdown_soundness(entry.soundness)
    lines += ["", *_markdown_anticipations(entry, not_compared, min_men)]
    lines += ["", "### Versions (same start position)", ""]
    lines += [f"- {_version_text(v)}" for v in entry.versions] or ["none"]
    more = _more_versions(entry)
    if more:
        lines.append(f"- {more}")
    lines += ["", "### Themes", ""]
    lines += [f"- {_theme_text(t, entry.theme_moves)}" for t in entry.themes] or ["none found"]
    note = _zugzwang_note(entry)
    if note:
        lines.append(f"- ({note})")
    return lines


def _markdown_soundness(soundness: Soundness | None) -> list[str]:
    if soundness is None:
        return ["### Soundness: unchecked", "", "Not checked: no tables given."]
    lines = [f"### Soundness: {soundness.verdict}", ""]
    if soundness.checked_with:
        lines.append(f"- Checked with: {soundness.checked_with}")
    if soundness.verdict == "no-errors" and soundness.summary:
        lines.append(f"- {soundness.summary[0].upper()}{soundness.summary[1:]}")
    if soundness.reason:
        lines.append(f"- Not judged at the start: {soundness.reason}")
    if soundness.note:
        lines.append(f"- Note: {soundness.note}")
    if soundness.verdict == "unchecked":  # nothing looked at: no finding to claim
        return lines
    first = soundness.first_error.describe() if soundness.first_error else "none"
    lines.append(f"- First error: {first}")
    lines.append("- Duals: " + ("; ".join(d.describe() for d in soundness.duals) or "none"))
    if any(note.text for note in soundness.moves):
        lines += ["", "Moves:", ""]
        for note in soundness.moves:
            text = f" ({note.text})" if note.text else ""
            mark = " **← first error**" if note.first_error else ""
            lines.append(f"- {note.number} {note.san}{text}{mark}")
    return lines


def _markdown_anticipations(
    entry: Entry, not_compared: int = 0, min_men: int = DEFAULT_MIN_MEN
) -> list[str]:
    if entry.men is not None and entry.too_few_men(min_men):
        return ["### Anticipations", "", too_few_men_phrase(entry.men, min_men)]
    lines = [f"### Anticipations ({_count_text(entry)})", ""]
    for rank, hit in enumerate(entry.anticipations, 1):
        lines.append(f"{rank}. {_anticipation_text(hit)}; first shared position `{hit.fen}`")
    if not entry.anticipations:
        lines.append(_none_found(not_compared))
    return lines


def _none_found(not_compared: int) -> str:
    """What an entry without anticipations says: none, among the studies compared.

    >>> _none_found(0), _none_found(3)
    ('none', 'none among the indexed studies (3 not compared: not in the position index)')
    """
    if not not_compared:
        return "none"
    return (
        f"none among the indexed studies ({not_compared:,} not compared: not in the position index)"
    )


def _count_text(entry: Entry) -> str:
    before = f" dated up to {entry.before}" if entry.before is not None else ""
    shown = len(entry.anticipations)
    if entry.anticipation_count > shown:
        return f"{shown} of {entry.anticipation_count} studies{before}"
    return (
        f"{entry.anticipation_count} stud{'y' if entry.anticipation_count == 1 else 'ies'}{before}"
    )


def _anticipation_text(hit: Anticipation) -> str:
    who = "; ".join(hit.composers) or "composer unknown"
    year = hit.year if hit.year is not None else "undated"
    if hit.same_year:
        year = f"{year} (same year, order unknown)"
    source = f", {hit.source}" if hit.source else ""
    line = "" if hit.main else " (variation)"
    other = "" if hit.other_main else " (variation)"
    return (
        f"study {hit.id}: {who}, {year}{source} ({hit.gbr}): shared from ply {hit.ply}{line}"
        f" = its ply {hit.other_ply}{other}; {hit.positions} position(s) shared"
    )


def _more_versions(entry: Entry) -> str:
    """What an entry with more versions than are listed says of the others, else ``''``.

    >>> _more_versions(Entry(1, "e.pgn:1", versions=[Version(2, [], None, None)],
    ...                      versions_total=7))
    '… and 6 more (studydb versions lists them all)'
    """
    more = entry.versions_total - len(entry.versions)
    return f"… and {more:,} more (studydb versions lists them all)" if more > 0 else ""


def _version_text(version: Version) -> str:
    who = "; ".join(version.composers) or "composer unknown"
    year = version.year if version.year is not None else "undated"
    source = f", {version.source}" if version.source else ""
    return f"study {version.id}: {who}, {year}{source}"


def _theme_text(theme: Theme, moves: dict[int, str]) -> str:
    return f"{theme.name} {theme.place(moves.get(theme.ply) if theme.ply else None)}"


# -- HTML -------------------------------------------------------------------------------

_CSS = """
:root { --ink: #1d1d1f; --muted: #5f6368; --rule: #d9d9de; --band: #f4f4f6; }
* { box-sizing: border-box; }
body { font: 15px/1.45 "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: var(--ink);
  max-width: 62rem; margin: 1.5rem auto; padding: 0 1.2rem; }
h1 { font-size: 1.6rem; margin: 0 0 .2rem; }
h2 { font-size: 1.2rem; margin: 0 0 .6rem; }
h3 { font-size: 1rem; margin: .9rem 0 .35rem; }
.settings { color: var(--muted); font-size: .85rem; margin: 0 0 1rem; }
table.summary { border-collapse: collapse; width: 100%; font-size: .85rem; margin-bottom: 1.5rem; }
table.summary th, table.summary td { border-bottom: 1px solid var(--rule); padding: .3rem .45rem;
  text-align: left; vertical-align: top; }
table.summary th { background: var(--band); }
table.summary td:nth-child(2) { width: 34%; }
.wide { overflow-x: auto; }
@media (max-width: 40rem) {  /* a phone: the summary scrolls sideways, a diagram above its facts */
  .head { flex-direction: column; }
  table.summary td:nth-child(2) { min-width: 9rem; }
}
article.entry { border-top: 3px solid var(--ink); padding: .8rem 0 1rem; margin-top: 1rem;
  break-inside: avoid; page-break-inside: avoid; }
.head { display: flex; gap: 1.2rem; align-items: flex-start; }
figure { margin: 0; }
figure.start svg { width: @START@cm; height: @START@cm; display: block; }
figure.shared svg { width: @SHARED@cm; height: @SHARED@cm; display: block; flex: none; }
figcaption { font-size: .75rem; color: var(--muted); margin-top: .2rem; max-width: @START@cm;
  overflow-wrap: anywhere; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .8rem; margin: 0;
  font-size: .9rem; }
dl.facts dt { font-weight: bold; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.verdict { display: inline-block; border-radius: .25rem; padding: 0 .45rem;
  font-weight: bold; font-size: .85rem; -webkit-print-color-adjust: exact;
  print-color-adjust: exact; }
.moves { font-size: .85rem; }
.moves .note { color: var(--muted); }
.moves .error { color: #b3261e; font-weight: bold; }
ul.findings { margin: .2rem 0; padding-left: 1.2rem; font-size: .88rem; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(8.6cm, 1fr)); gap: .6rem; }
.grid figure { display: flex; gap: .4rem; align-items: flex-start; }
.grid figcaption { max-width: none; margin: 0; }
.themes span { display: inline-block; background: var(--band); border: 1px solid var(--rule);
  border-radius: .8rem; padding: 0 .5rem; margin: 0 .25rem .25rem 0; font-size: .85rem; }
.muted { color: var(--muted); font-size: .85rem; }
@page { size: A4; margin: 14mm 12mm; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 10.5pt; }
  table.summary { break-inside: auto; }
  table.summary tr { break-inside: avoid; }
}
""".replace("@START@", f"{START_DIAGRAM_CM:g}").replace("@SHARED@", f"{SHARED_DIAGRAM_CM:g}")


def to_html(report: Report) -> str:
    """The report as one self-contained HTML page (inline CSS and SVG, no script)."""
    esc = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Judge’s report: {esc(report.file)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>Judge’s report: {esc(report.file)}</h1>",
        f'<p class="settings">{esc(_settings_line(report))}</p>',
        _html_summary(report),
    ]
    parts += [_html_entry(entry, report.not_compared, report.min_men) for entry in report.entries]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _badge(verdict: str) -> str:
    back, text = next(
        (BADGE_COLOURS[known] for known in VERDICTS if known == verdict),
        BADGE_COLOURS["unchecked"],
    )
    style = f"background:{back};color:{text}"
    return f'<span class="verdict" style="{style}">{html.escape(verdict)}</span>'


def _html_summary(report: Report) -> str:
    esc = html.escape
    rows = [
        "<tr>"
        f'<td><a href="#entry-{e.number}">{e.number}</a></td>'
        f"<td>{esc(e.title)}</td><td>{esc(e.gbr)}</td><td>{esc(e.stipulation or '')}</td>"
        f"<td>{_badge(e.verdict)}</td>"
        f"<td>{esc(_anticipated_text(e, report.not_compared, report.min_men))}</td>"
        f"<td>{esc(theme_summary(e.themes))}</td></tr>"
        for e in report.entries
    ]
    return (
        '<h2>Summary</h2><div class="wide"><table class="summary"><thead><tr><th>#</th>'
        "<th>Entry</th><th>GBR</th><th>Stipulation</th><th>Verdict</th><th>Anticipated</th>"
        "<th>Themes</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>"
    )


def _diagram(fen: str, css_class: str, caption: str) -> str:
    board = chess.Board(fen)
    svg = render.svg_diagram(board, size=360)
    return (
        f'<figure class="{css_class}">{svg}<figcaption>{html.escape(caption)}</figcaption></figure>'
    )


def _html_entry(entry: Entry, not_compared: int = 0, min_men: int = DEFAULT_MIN_MEN) -> str:
    esc = html.escape
    rows = "".join(
        f"<dt>{esc(label)}</dt><dd>{esc(value)}</dd>" for label, value in entry_facts(entry)
    )
    errors = "".join(f'<p class="moves error">{esc(e)}</p>' for e in entry.errors)
    head = (
        f'<article class="entry" id="entry-{entry.number}">'
        f"<h2>{entry.number}. {esc(entry.title)} {_badge(entry.verdict)}</h2>"
        f'<div class="head">{_diagram(entry.fen, "start", entry.fen) if entry.fen else ""}'
        f'<dl class="facts">{rows}</dl></div>{errors}'
    )
    if entry.unread:  # no soundness, anticipations, versions or themes to claim
        return head + f'<p class="muted">{esc(UNREAD)}</p></article>'
    return (
        head
        + _html_soundness(entry)
        + _html_anticipations(entry, not_compared, min_men)
        + _html_versions(entry)
        + _html_themes(entry)
        + "</article>"
    )


def _html_soundness(entry: Entry) -> str:
    esc = html.escape
    soundness = entry.soundness
    solution = (
        f'<p class="moves"><b>Solution:</b> {esc(entry.solution)}</p>' if entry.solution else ""
    )
    if soundness is None:
        return f'{solution}<h3>Soundness</h3><p class="muted">Not checked: no tables given.</p>'
    items = []
    if soundness.verdict == "no-errors" and soundness.summary:
        items.append(f'<li class="checked-from">{esc(soundness.summary)}</li>')
    if soundness.reason:
        items.append(f"<li>Not judged at the start: {esc(soundness.reason)}</li>")
    if soundness.note:
        items.append(f"<li>{esc(soundness.note)}</li>")
    if soundness.verdict != "unchecked":  # nothing looked at: no finding to claim
        first = soundness.first_error
        items.append(
            "<li>First error: "
            + (f'<span class="error">{esc(first.describe())}</span>' if first else "none")
            + "</li>"
        )
        duals = "; ".join(d.describe() for d in soundness.duals) or "none"
        items.append(f"<li>Duals: {esc(duals)}</li>")
    moves = []
    for note in soundness.moves:
        cls = ' class="error"' if note.first_error else ""
        text = f' <span class="note">({esc(note.text)})</span>' if note.text else ""
        moves.append(f"<span{cls}>{esc(note.number)}&#8239;{esc(note.san)}</span>{text}")
    annotated = any(note.text for note in soundness.moves)
    moves_html = f'<p class="moves">{" ".join(moves)}</p>' if annotated else ""
    with_what = f' <span class="muted">({esc(soundness.checked_with)})</span>'
    return (
        f"{solution}<h3>Soundness: {_badge(soundness.verdict)}"
        f"{with_what if soundness.checked_with else ''}</h3>"
        f'<ul class="findings">{"".join(items)}</ul>{moves_html}'
    )


def _html_anticipations(entry: Entry, not_compared: int = 0, min_men: int = DEFAULT_MIN_MEN) -> str:
    if entry.men is not None and entry.too_few_men(min_men):
        text = too_few_men_phrase(entry.men, min_men)
        return f'<h3>Anticipations</h3><p class="muted">{html.escape(text)}</p>'
    head = f"<h3>Anticipations ({html.escape(_count_text(entry))})</h3>"
    if not entry.anticipations:
        text = _none_found(not_compared) if not_compared else "none in the database"
        return head + f'<p class="muted">{html.escape(text)}</p>'
    figures = "".join(
        _diagram(hit.fen, "shared", f"{rank}. {_anticipation_text(hit)}; {hit.fen}")
        for rank, hit in enumerate(entry.anticipations, 1)
    )
    return head + f'<div class="grid">{figures}</div>'


def _html_versions(entry: Entry) -> str:
    if not entry.versions:
        return '<h3>Versions</h3><p class="muted">no other study has this start position</p>'
    texts = [_version_text(v) for v in entry.versions] + [_more_versions(entry)]
    items = "".join(f"<li>{html.escape(text)}</li>" for text in texts if text)
    return f'<h3>Versions (same start position)</h3><ul class="findings">{items}</ul>'


def _html_themes(entry: Entry) -> str:
    chips = "".join(
        f"<span>{html.escape(_theme_text(t, entry.theme_moves))}</span>" for t in entry.themes
    )
    note = _zugzwang_note(entry)
    extra = f'<p class="muted">{html.escape(note)}</p>' if note else ""
    body = f'<p class="themes">{chips}</p>' if chips else '<p class="muted">none found</p>'
    return f"<h3>Themes</h3>{body}{extra}"
