"""The web application: routes, pages and the JSON API over a read-only database.

The pages read through :class:`studydb.db.database.Database` and run no SQL
of their own.

>>> from sqlalchemy import create_engine
>>> app = create_app(create_engine("sqlite://"))
>>> sorted(r.path for r in app.routes)[:4]
['/', '/api/composers', '/api/composers/{person_id}', '/api/search']
"""

from __future__ import annotations

import functools
import itertools
import json
import logging
import threading
import time
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import anyio
import chess
import jinja2
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from studydb import export, render, vocabulary
from studydb.db import persons, search, stats
from studydb.db.anticipate import Anticipation, Version
from studydb.db.database import Database
from studydb.db.search import StoredStudy
from studydb.errors import DatabaseError, QueryError, QueryTimeoutError, StudydbError, quote
from studydb.facts import count_men
from studydb.movetext import main_moves, movetext_of, start_board
from studydb.soundness.annotate import Annotation, annotate_main_line
from studydb.soundness.verdict import StoredCheck
from studydb.web import solution
from studydb.web.hosts import HostCheck
from studydb.web.params import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    PAGE_PARAMS,
    PAGE_SIZES,
    SORT_LABELS,
    Query,
    form_fields,
    is_clean,
    read_query,
)

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = ["create_app"]

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
#: Formats offered for download at ``/export.{format}``.
#: Bytes of an export sent at a time (rows are joined into pieces about this size).
EXPORT_PIECE = 64 << 10
#: Seconds an export may take, from its request to its last byte, however slowly its
#: client reads: then it is cut, and its connection and its place are given back.
EXPORT_SECONDS = 600
#: Pixel sizes of the result-list and study-page diagrams, and the largest allowed.
SMALL_DIAGRAM = 160
LARGE_DIAGRAM = 480
#: Pixel size of the result table's thumbnails.
THUMBNAIL = 64
#: Page links the pager shows on each side of the current page.
PAGER_SPAN = 2
MAX_DIAGRAM = 1000
#: Diagrams this size and larger have coordinates round the board.
COORDINATES_FROM = 240
#: Moves of a solution one study page shows; a longer solution is shown in parts.
SOLUTION_PART_MOVES = 2000
#: Moves of a solution the study page reaches at most (in parts): a page costs its part
#: and the replay of at most these; the moves after them are in the study's PGN only.
SOLUTION_PAGE_MOVES = 10_000
#: Studies sharing positions listed on one page of a study page's sharing list.
SHARED_PER_PAGE = 20
#: The study page's own parameters.
STUDY_PARAMS = ("node", "part", "shared_page", "versions_page")
#: The parameters of a study's JSON record (``/api/studies/ID``).
API_STUDY_PARAMS = ("node", "part", "versions_page")
#: How many occurrences of a searched position a result lists.
MAX_OCCURRENCES = 5
#: Studies listed on a page of a composer's studies (``/composers/ID``, ``/api/composers/ID``).
PERSON_STUDIES = 500
#: The parameters of a composer's page and record.
PERSON_PARAMS = ("page",)
#: Composers listed on a page of ``/composers`` and ``/api/composers``.
PERSONS_PER_PAGE = 500
#: The parameters of the composers' list.
PERSONS_PARAMS = ("name", "page")
#: How many classes and composers the statistics page lists.
STATS_TOP = 20
#: Security headers of every answer: our own scripts, styles and images only.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
#: The pieces of the board editor: colour letter and piece letter, as ``/pieces/wK.svg``.
EDITOR_PIECES = tuple(c + p for c in "wb" for p in "KQRBNP")
#: What the colours of the solution's annotations mean (the legend), by kind.
NOTE_LEGEND = {
    "plain": (
        "(win, DTZ 5)",
        "the tablebase's value of the move: win, draw or loss for the "
        "side that moved; DTZ counts the moves to the next capture or pawn move",
    ),
    "engine": ("(engine +3.20)", "the engine's evaluation, where the tables do not reach"),
    "dual": ("(also Kb5)", "a dual: another move keeps the result as well"),
    "error": ("(error)", "an error: the move changes the stipulated result"),
    "first-error": ("⟵ first solution error", "the first move of the solution that spoils it"),
    "try": ("(try)", "a try that fails, as the variation intends"),
    "weak": ("(weak defence)", "a defence that does not resist longest"),
    "doubt": ("(engine doubt)", "the engine doubts the move"),
    "cook": ("(possible cook)", "another move may also win: a possible cook"),
    "claim": ("(claim)", "the stipulated result as the tables see it"),
}
#: Positions the GBR page encodes as examples: name and FEN.
GBR_EXAMPLES = (
    ("Saavedra: pawn against rook", "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"),
    ("Rook and pawn against rook", "8/8/4k3/8/3KP3/8/8/4R2r w - - 0 1"),
    ("Bishop and knight against king", "8/8/8/4k3/8/8/8/KBN5 w - - 0 1"),
    ("Queen against rook", "8/8/3k4/3r4/8/8/8/2KQ4 w - - 0 1"),
    ("Two knights against pawn", "8/8/8/8/p7/8/1k1N4/K2N4 w - - 0 1"),
    ("Three queens against one", "Q7/8/8/8/3k4/8/1QQ5/K5q1 w - - 0 1"),
)
#: Route paths an application keeps once computed (``url_for``: Starlette tries each route
#: in turn, and a page links to the same few many times): the site's links, the studies'.
PATHS_KEPT = 4096
#: Diagrams depend on their URL only; browsers may keep them a day.
DIAGRAM_CACHE = "public, max-age=86400"


def create_app(
    database: Database | Engine,
    *,
    title: str = "studydb",
    allowed_hosts: Collection[str] | None = None,
    export_seconds: float = EXPORT_SECONDS,
) -> Starlette:
    """The Starlette application serving ``database`` (opened read-only, or its engine).

    ``title`` ends each page's title (``Search · studydb``).  ``allowed_hosts``
    (see :func:`studydb.web.hosts.allowed_hosts`) are the Host headers answered;
    any other gets a 400.  ``None`` answers every host,
    for an application mounted behind a server that checks them itself.
    ``export_seconds``: an export running longer (a client reading slowly, or
    not at all) is cut, its database connection given back.
    """
    pages = _Pages(
        database if isinstance(database, Database) else Database(database),
        _templates(),
        title=title,
        export_seconds=export_seconds,
    )
    app = Starlette(
        routes=[
            Route("/", pages.home, name="home"),
            Route("/search", pages.search_page, name="search"),
            Route("/studies/{study_id}.pgn", pages.study_pgn, name="study_pgn"),
            Route("/studies/{study_id}", pages.study_page, name="study"),
            Route("/editor", pages.editor_page, name="editor"),
            Route("/gbr", pages.gbr_page, name="gbr_help"),
            Route("/pieces/{name}.svg", pages.piece, name="piece"),
            Route("/verdicts.css", pages.verdict_styles, name="verdict_styles"),
            Route("/stats", pages.stats_page, name="stats"),
            Route("/composers", pages.composers_page, name="composers"),
            Route("/composers/{person_id}", pages.composer_page, name="composer"),
            Route("/api/composers", pages.api_composers, name="api_composers"),
            Route("/api/composers/{person_id}", pages.api_composer, name="api_composer"),
            Route("/api/search", pages.api_search, name="api_search"),
            Route("/api/studies/{study_id}", pages.api_study, name="api_study"),
            Route("/export.{format}", pages.export, name="export"),
            Route("/diagram.svg", pages.diagram, name="diagram"),
            Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        ],
        exception_handlers={
            HTTPException: pages.http_error,
            StudydbError: pages.library_error,
            Exception: pages.internal_error,
        },
    )
    app.state.exports = pages.exports  # the export slots (tests fill them)
    app.state.paths = {}  # url_for's answers, by route name and parameters
    app.add_middleware(_SecurityHeaders)
    if allowed_hosts is not None:
        app.add_middleware(HostCheck, allowed=allowed_hosts)
    return app


@functools.cache
def _templates() -> Jinja2Templates:
    """The pages' templates, one environment for the process: each template is compiled
    once, however many applications are made (a test makes one per collection).

    Autoescape everything: headers and comments come from untrusted PGN.  What differs
    between applications (the site's title) is each page's context, not a global.
    """
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True
    )
    environment.globals.update(
        url_for=_path_for,
        composer_link=_composer_link,
        max_page_size=MAX_PAGE_SIZE,
        default_page_size=DEFAULT_PAGE_SIZE,
        page_sizes=PAGE_SIZES,
        sort_labels=list(SORT_LABELS.items()),
    )
    return Jinja2Templates(env=environment)


class _SecurityHeaders:
    """ASGI middleware adding :data:`SECURITY_HEADERS` to every answer."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.headers = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], *self.headers]
            await send(message)

        await self.app(scope, receive, send_with_headers)


@jinja2.pass_context
def _path_for(context: dict[str, Any], name: str, /, **params: Any) -> str:
    """A route's path (not a full URL: the pages work behind any host name or proxy)."""
    app = context["request"].app
    key = (name, *sorted(params.items()))
    path: str | None = app.state.paths.get(key)
    if path is None:
        path = str(app.url_path_for(name, **params))
        if len(app.state.paths) < PATHS_KEPT:
            app.state.paths[key] = path
    return path


def _composer_link(name: str) -> str:
    """Where a composer's name links: the search for their studies."""
    return "/search?" + urlencode({"composer": name})


def _over_budget(request: Request) -> tuple[str | None, str]:
    """What a request that ran over the time budget is told: the filter to narrow first.

    The parameter given most often is named (fifty composers cost more than one).
    """
    counts: dict[str, int] = {}
    for name, value in request.query_params.multi_items():
        if value.strip() and name not in PAGE_PARAMS:
            counts[name] = counts.get(name, 0) + 1
    if not counts:
        return None, "the query took longer than this server allows and was stopped; try again"
    name = max(counts, key=lambda n: counts[n])
    given = f"{counts[name]} values of {name}" if counts[name] > 1 else name
    return name, (
        f"the query took longer than this server allows and was stopped: narrow the search"
        f" ({given} given), or run it with the studydb command, which has no time limit"
    )


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


class _Pages:
    """The route handlers, sharing the database and the templates."""

    #: Exports streamed at once; one more is answered 503 with ``Retry-After``.
    EXPORTS_AT_ONCE = 2
    #: Seconds a client is told to wait before asking for an export again.
    EXPORT_RETRY_AFTER = 30

    def __init__(
        self, database: Database, templates: Jinja2Templates, *, title: str, export_seconds: float
    ) -> None:
        self.db = database
        self.templates = templates
        self.title = title
        self.exports = threading.BoundedSemaphore(self.EXPORTS_AT_ONCE)
        self.export_seconds = export_seconds

    # -- helpers ---------------------------------------------------------------------

    def render(
        self, request: Request, name: str, status_code: int = 200, **context: Any
    ) -> Response:
        context.setdefault("fields", form_fields())
        context.setdefault("site_title", self.title)
        return self.templates.TemplateResponse(request, name, context, status_code=status_code)

    def error(
        self, request: Request, status: int, message: str, param: str | None = None
    ) -> Response:
        if _is_api(request):
            body: dict[str, Any] = {"error": message, "status": status}
            if param:
                body["param"] = param
            return JSONResponse(body, status_code=status)
        context: dict[str, Any] = {}
        if status == 400 and request.url.path in ("/", "/search"):
            # The form again, with what was given, so that the bad value can be mended.
            known = {f.name for f in form_fields()}
            given = [(n, v) for n, v in request.query_params.multi_items() if n in known]
            context = {"query": Query(values=tuple(given)), "form_again": True}
        return self.render(
            request, "error.html", status, status=status, message=message, param=param, **context
        )

    def query(self, request: Request) -> Query:
        return read_query(request.query_params.multi_items())

    def study_id(self, request: Request) -> int:
        text = request.path_params["study_id"]
        if not text.isascii() or not text.isdigit() or len(text) > 18:
            raise HTTPException(404, f"no study with id {text!r}")
        return int(text)

    def person(self, request: Request) -> persons.PersonRow:
        text = request.path_params["person_id"]
        found = None
        if text.isascii() and text.isdigit() and len(text) <= 18:
            found = self.db.person(int(text))
        if found is None:
            raise HTTPException(404, f"no composer with id {text!r}")
        return found

    def fetch(self, request: Request) -> StoredStudy:
        study_id = self.study_id(request)
        study = self.db.study(study_id)
        if study is None:
            raise HTTPException(404, f"no study with id {study_id}")
        return study

    def results(self, query: Query) -> tuple[int, list[search.StudyRow]]:
        filters = self.db.resolved(query.filters)  # a pattern scanned once: count and page
        total = self.db.count(filters)
        rows = list(
            self.db.search(
                filters,
                sort=query.sort,
                limit=query.per_page,
                offset=query.offset,
            )
        )
        return total, rows

    def verdicts(self, rows: list[search.StudyRow]) -> dict[int, str]:
        """The stored verdicts of a page's studies (those never checked are absent)."""
        if not rows:
            return {}
        return self.db.verdicts([row.id for row in rows])

    def related(
        self,
        study: StoredStudy,
        *,
        page: int = 1,
        versions_page: int = 1,
        most: int | None = None,
    ) -> RelatedPage:
        """The studies sharing positions with ``study``, a page of them, the first shared described,
        and a page of its versions.

        ``total`` counts them all; ``page`` and ``pages`` say which part is listed
        (``versions_total``, ``versions_page``, ``versions_pages`` for the versions).
        ``most``: the positions are those of the study's first ``most`` moves.
        """
        related = self.db.related(study, versions_page=versions_page, most=most)
        total = len(related.shared)
        pages = max(1, -(-total // SHARED_PER_PAGE))
        page = min(page, pages)
        start = (page - 1) * SHARED_PER_PAGE
        hits = related.shared[start : start + SHARED_PER_PAGE]
        starts = self.db.start_fens([hit.id for hit in hits])
        return RelatedPage(
            shared=[_shared_row(hit, study.fen, starts) for hit in hits],
            total=total,
            page=page,
            pages=pages,
            first=start + 1,
            min_men=related.min_men,
            versions=related.versions,
            versions_total=related.versions_total,
            versions_page=related.versions_page,
            versions_pages=related.versions_pages,
            versions_first=related.versions_first,
            not_compared=related.not_compared,
        )

    # -- error handlers --------------------------------------------------------------

    async def http_error(self, request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return self.error(request, exc.status_code, exc.detail)

    async def library_error(self, request: Request, exc: Exception) -> Response:
        if isinstance(exc, QueryError):
            return self.error(request, 400, str(exc), exc.param)
        if isinstance(exc, QueryTimeoutError):
            log.warning("%s: %s", request.url.path, exc)
            name, message = _over_budget(request)
            return self.error(request, 503, message, name)
        if isinstance(exc, DatabaseError):
            log.error("%s", exc)
            return self.error(request, 503, str(exc))
        return self.error(request, 400, str(exc))

    async def internal_error(self, request: Request, exc: Exception) -> Response:
        """The 500 page, saying that the connection closes.

        Starlette raises the error again once the page is sent, and uvicorn then closes
        the connection: without ``Connection: close`` a keep-alive client's next request
        on it would be reset.
        """
        log.exception("internal error on %s", request.url.path)
        response = self.error(request, 500, "internal error: the server log has the details")
        response.headers["connection"] = "close"
        return response

    # -- pages -----------------------------------------------------------------------

    def home(self, request: Request) -> Response:
        query = self.query(request)
        return self.render(request, "index.html", query=query)

    def search_page(self, request: Request) -> Response:
        query = self.query(request)
        if not is_clean(request.query_params.multi_items()):
            # A form sends its empty fields and defaults: keep the address short.
            return RedirectResponse(f"{request.url.path}?{query.url()}".rstrip("?"), 303)
        total, rows = self.results(query)
        last_page = max(1, -(-total // query.per_page))
        groups = self.db.same_start_among(query.filters, [row.id for row in rows])
        return self.render(
            request,
            "results.html",
            query=query,
            total=total,
            rows=rows,
            shown=_fold_versions(rows, groups),
            verdicts=self.verdicts(rows),
            max_occurrences=MAX_OCCURRENCES,
            last_page=last_page,
            pages=_page_numbers(min(query.page, last_page), last_page),
            export_formats=vocabulary.WEB_EXPORT_FORMATS,
            diagram_size=SMALL_DIAGRAM if query.view == "cards" else THUMBNAIL,
            searched_fen=_searched_fen(query),
            unindexed=self.db.unindexed(query.filters),
            unchecked=self.db.unchecked(query.filters),
        )

    def study_page(self, request: Request) -> Response:
        study = self.fetch(request)
        board = start_board(study.fen, study.headers)
        extended, form = render.gbr_notations(board, study.stipulation)
        check = self.db.stored_check(study.id)
        params = _study_params(request.query_params.multi_items())
        text = movetext_of(study.pgn)
        part, current = _solution_part(board, text, params.get("node", "0"), params.get("part"))
        tokens = part.tokens
        annotations = _annotations(check, tokens, white_first=board.turn == chess.WHITE)
        rows = solution.lay_out(tokens, annotations)
        moves = {m.node: m for row in rows for m in row.moves}
        first_error = next((moves[n] for n, a in annotations.items() if a.first_error), None)
        shown = moves[current.node] if current else None
        facts = study.facts(extended=extended, form=form)
        themes = self.db.study_themes(study.id)
        elsewhere = [study.source or "", study.award or "", str(study.year or ""), *study.composers]
        return self.render(
            request,
            "study.html",
            study=study,
            heading=_heading(study),
            rows=rows,
            first_node=next((m.node for row in rows[:1] for m in row.moves[:1]), None),
            check=check,
            first_error=first_error,
            legend=_legend(rows),
            extended=extended,
            form=form,
            side=render.SIDE_NAMES.get(study.turn, study.turn),
            facts=facts,
            task=next(fact.value for fact in facts if fact.key == "stipulation"),
            men=count_men(study.fen),
            diagram_size=LARGE_DIAGRAM,
            current=current,
            current_label=shown.label + shown.glyphs if shown else "",
            position_text=solution.describe_position(current.fen if current else study.fen),
            headers=solution.other_headers(study.headers or {}, shown=elsewhere),
            related=self.related(
                study,
                page=_page_param(params, "shared_page"),
                versions_page=_page_param(params, "versions_page"),
                most=SOLUTION_PAGE_MOVES,
            ),
            part=part,
            themes=themes,
            theme_moves=main_moves(board, text, [t.ply for t in themes.themes if t.ply]),
        )

    def study_pgn(self, request: Request) -> Response:
        study = self.fetch(request)
        return Response(
            export.pgn_text(study.pgn),
            media_type=export.MEDIA_TYPES["pgn"],
            headers={"Content-Disposition": f'attachment; filename="study-{study.id}.pgn"'},
        )

    def editor_page(self, request: Request) -> Response:
        fen = _editor_fen(request.query_params.multi_items())
        return self.render(
            request,
            "editor.html",
            fen=fen,
            from_study="fen" in request.query_params,
            position_text=solution.describe_position(fen),
            pieces=EDITOR_PIECES,
        )

    def gbr_page(self, request: Request) -> Response:
        return self.render(request, "gbr.html", examples=_gbr_examples())

    def piece(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in EDITOR_PIECES:
            raise HTTPException(404, f"no piece {name!r}: use one of {', '.join(EDITOR_PIECES)}")
        return Response(
            _piece_svg(name), media_type="image/svg+xml", headers={"Cache-Control": DIAGRAM_CACHE}
        )

    def verdict_styles(self, request: Request) -> Response:
        """The verdict badges' colours, from :mod:`studydb.vocabulary` (the names defined once)."""
        return Response(
            vocabulary.badge_css(), media_type="text/css", headers={"Cache-Control": DIAGRAM_CACHE}
        )

    def stats_page(self, request: Request) -> Response:
        query = self.query(request)
        result = self.db.stats(query.filters, top=STATS_TOP)
        return self.render(
            request,
            "stats.html",
            query=query,
            stats=result,
            charts=_charts(result),
            unindexed=self.db.unindexed(query.filters, theme_counts=True),  # its theme chart
            unchecked=self.db.unchecked(query.filters),
        )

    def persons_page(self, request: Request) -> tuple[str, list[persons.PersonRow], dict[str, int]]:
        """The name asked for (``?name=``), a page of the composers it finds
        (:data:`PERSONS_PER_PAGE`, ``?page=N``) and which page of how many."""
        params = _study_params(request.query_params.multi_items(), known=PERSONS_PARAMS)
        name = params.get("name", "").strip()
        found = self.db.persons(name or None)
        pages = max(1, -(-len(found) // PERSONS_PER_PAGE))
        page = min(_page_param(params, "page"), pages)
        start = (page - 1) * PERSONS_PER_PAGE
        paged = {"page": page, "pages": pages, "first": start + 1, "total": len(found)}
        return name, found[start : start + PERSONS_PER_PAGE], paged

    def composers_page(self, request: Request) -> Response:
        name, found, paged = self.persons_page(request)
        return self.render(request, "composers.html", persons=found, query_name=name, paged=paged)

    def person_page(
        self, request: Request
    ) -> tuple[persons.PersonRow, list[persons.PersonStudy], dict[str, int]]:
        """A composer, a page of their studies (:data:`PERSON_STUDIES`, ``?page=N``) and which
        page of how many (``page``, ``pages``, ``first``: the first's number, ``total``)."""
        person = self.person(request)
        params = _study_params(request.query_params.multi_items(), known=PERSON_PARAMS)
        pages = max(1, -(-person.studies // PERSON_STUDIES))
        page = min(_page_param(params, "page"), pages)
        start = (page - 1) * PERSON_STUDIES
        studies = self.db.person_studies(person.id, limit=PERSON_STUDIES, offset=start)
        return (
            person,
            studies,
            {"page": page, "pages": pages, "first": start + 1, "total": person.studies},
        )

    def composer_page(self, request: Request) -> Response:
        person, studies, paged = self.person_page(request)
        return self.render(request, "composer.html", person=person, studies=studies, paged=paged)

    # -- JSON and downloads ----------------------------------------------------------

    def api_composers(self, request: Request) -> Response:
        name, found, paged = self.persons_page(request)
        record: dict[str, Any] = {"total": paged["total"], "page": paged["page"]}
        record["pages"] = paged["pages"]
        record.update(_page_links(request.url.path, {"name": name} if name else {}, paged))
        record["results"] = [p.as_dict() for p in found]
        return JSONResponse(record)

    def api_composer(self, request: Request) -> Response:
        person, studies, paged = self.person_page(request)
        record = person.as_dict()
        record["study_ids"] = [study.id for study in studies]
        record["studies_page"], record["studies_pages"] = paged["page"], paged["pages"]
        record.update(_page_links(request.url.path, {}, paged))
        return JSONResponse(record)

    def api_search(self, request: Request) -> Response:
        query = self.query(request)
        total, rows = self.results(query)
        return JSONResponse(
            {
                "total": total,
                "page": query.page,
                "per_page": query.per_page,
                "results": [row.as_dict() for row in rows],
                # the selected studies a search of the position index could not search
                "unindexed": self.db.unindexed(query.filters),
                # with --theme mutual-zugzwang: the selected studies never checked with tables
                "unchecked": self.db.unchecked(query.filters),
            }
        )

    def api_study(self, request: Request) -> Response:
        study = self.fetch(request)
        params = _study_params(request.query_params.multi_items(), known=API_STUDY_PARAMS)
        board = start_board(study.fen, study.headers)
        text = movetext_of(study.pgn)
        part, current = _solution_part(board, text, params.get("node", "0"), params.get("part"))
        extended, form = render.gbr_notations(chess.Board(study.fen), study.stipulation)
        check = self.db.stored_check(study.id)
        record = export.study_record(study.as_dict(), extended=extended, form=form, check=check)
        versions_page = _page_param(params, "versions_page")
        related = self.db.related(study, versions_page=versions_page, most=SOLUTION_PAGE_MOVES)
        record.update(related.as_dict())
        record.update(self.db.study_themes(study.id).as_dict())
        record["solution"] = _part_record(part, current, request.url.path, params)
        body = json.dumps(record, ensure_ascii=False, default=str)
        return Response(body, media_type="application/json")

    def export(self, request: Request) -> Response:
        output = request.path_params["format"]
        if output not in vocabulary.WEB_EXPORT_FORMATS:
            raise HTTPException(
                404, f"no export format {output!r}: use {', '.join(vocabulary.WEB_EXPORT_FORMATS)}"
            )
        query = read_query(request.query_params.multi_items(), allowed=("sort",))
        if not self.exports.acquire(blocking=False):
            response = self.error(
                request, 503, f"{self.EXPORTS_AT_ONCE} exports are being written: try again soon"
            )
            response.headers["Retry-After"] = str(self.EXPORT_RETRY_AFTER)
            return response
        slot = _Slot(self.exports)
        deadline = time.monotonic() + self.export_seconds
        try:
            filters = self.db.resolved(query.filters)
            self.db.count(filters)  # a database error is a page, not a cut stream
            rows = self.db.search(filters, sort=query.sort, with_pgn=output == "pgn")
            pieces = _encoded(export.FORMATS[output](rows), slot)
            first = next(pieces, b"")  # its query's errors (the time budget) are a page too
        except BaseException:
            slot.release()
            raise
        return _ExportResponse(
            itertools.chain([first], pieces),
            sources=(pieces, rows),
            deadline=deadline,
            media_type=export.MEDIA_TYPES[output],
            headers={"Content-Disposition": f'attachment; filename="studies.{output}"'},
            background=BackgroundTask(slot.release),  # also when the client went away
        )

    def diagram(self, request: Request) -> Response:
        board, lastmove, flipped, size = _diagram_params(request.query_params.multi_items())
        svg = render.svg_diagram(
            board,
            flipped=flipped,
            size=size,
            lastmove=lastmove,
            coordinates=size >= COORDINATES_FROM,
        )
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": DIAGRAM_CACHE})


class _ExportResponse(StreamingResponse):
    """A streamed export that a database error (the time budget, a lost file) or its own
    deadline (:data:`EXPORT_SECONDS`: a client reading slowly, or not at all) cuts off.

    The headers are out by then: the cut is logged in one line and the response
    is left unfinished (no last chunk), so that the client sees the export is cut
    rather than taking it for whole.  However it ends, its ``sources`` (the pieces'
    and the rows' generators) are closed, which gives its database connection back.
    """

    def __init__(
        self,
        content: Iterator[bytes],
        *,
        sources: tuple[Iterator[Any], ...],
        deadline: float,
        **options: Any,
    ) -> None:
        super().__init__(content, **options)
        self.sources = sources
        self.deadline = deadline

    async def stream_response(self, send: Any) -> None:
        try:
            with anyio.move_on_after(self.deadline - time.monotonic()) as scope:
                await super().stream_response(send)
            if scope.cancelled_caught:
                log.warning("export cut off: over its time budget (its client reads too slowly)")
        except StudydbError as exc:
            log.warning("export cut off: %s", exc)
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(_close, self.sources)


def _close(sources: tuple[Iterator[Any], ...]) -> None:
    """Close generators (their ``finally`` blocks run: the database connection goes back)."""
    for source in sources:
        close = getattr(source, "close", None)
        if close is not None:
            close()


class _Slot:
    """One export's place among :attr:`_Pages.EXPORTS_AT_ONCE`, given back once."""

    def __init__(self, semaphore: threading.BoundedSemaphore) -> None:
        self.semaphore = semaphore
        self.held = True
        self.lock = threading.Lock()

    def release(self) -> None:
        with self.lock:
            if self.held:
                self.held = False
                self.semaphore.release()


def _encoded(parts: Iterator[str], slot: _Slot | None = None) -> Iterator[bytes]:
    """The parts as UTF-8, joined into pieces of about :data:`EXPORT_PIECE` bytes.

    The server takes each piece from this iterator in a worker thread: a piece
    a row cost a thread hop and allocations spread over many threads' heaps a
    row (time, and memory never given back).

    >>> [len(piece) for piece in _encoded(iter(["é" * 40_000, "x", "y" * 70_000]))]
    [80000, 70001]
    """
    try:
        held: list[bytes] = []
        size = 0
        for part in parts:
            data = part.encode("utf-8")
            held.append(data)
            size += len(data)
            if size >= EXPORT_PIECE:
                yield b"".join(held)
                held, size = [], 0
        if held:
            yield b"".join(held)
    finally:
        if slot is not None:
            slot.release()


def _study_params(
    items: list[tuple[str, str]], *, known: tuple[str, ...] = STUDY_PARAMS
) -> dict[str, str]:
    """A study page's parameters (``known``: :data:`STUDY_PARAMS`), each given once at most.

    :raises QueryError: for another parameter.
    """
    params = dict(items)
    unknown = set(params) - set(known)
    if unknown:
        name = sorted(unknown)[0]
        raise QueryError(f"unknown parameter {name!r}; known: {', '.join(known)}", param=name)
    return params


def _page_param(params: dict[str, str], name: str) -> int:
    """A page number parameter (1 when absent); beyond the last page means the last."""
    text = params.get(name, "1").strip() or "1"
    if not (text.isascii() and text.isdigit() and len(text) <= 7) or int(text) < 1:
        raise QueryError(f"bad {name} {quote(text)}: expected a page number", param=name)
    return int(text)


#: Digits of the largest node number read (a study of a billion moves is not stored).
MAX_NODE_DIGITS = 9


def _node_number(text: str) -> int | None:
    """The move ``?node=N`` names (None for the start position), unchecked against a study.

    :raises QueryError: for anything but a number.
    """
    text = text.strip() or "0"
    if not text.isascii() or not text.isdigit():
        raise QueryError(
            f"bad node {quote(text)}: expected a move's number (0 = the start)", param="node"
        )
    if len(text.lstrip("0")) > MAX_NODE_DIGITS:  # int() refuses 4,300 digits and more
        raise QueryError(f"bad node {quote(text)}: no study has that many moves", param="node")
    return int(text) or None


@dataclass(frozen=True)
class SolutionPart:
    """The part of a long solution a study page shows: its tokens, and which part of how many.

    ``moves`` counts the solution's moves up to :data:`SOLUTION_PAGE_MOVES`; ``more``:
    it has more, which the page does not reach (nor count its parts).
    """

    tokens: list[render.SolutionToken]
    number: int
    parts: int
    moves: int
    more: bool
    first_node: int
    last_node: int


def _solution_part(
    board: chess.Board, text: str, node: str, given: str | None
) -> tuple[SolutionPart, render.SolutionToken | None]:
    """The part of the solution to show, and the move the page opens at (None: the start).

    ``?part=K``, else the part holding the move ``?node=N``.  A part holds
    :data:`SOLUTION_PART_MOVES` moves in reading order (with the comments
    between them), starting inside as many variations as were open there; only
    its moves are written out (:func:`studydb.render.solution_part`), and the page
    reaches the first :data:`SOLUTION_PAGE_MOVES` moves only, so that its cost
    stays bounded however large the tree.

    :raises QueryError: for a node the solution does not have, or past those moves.
    """
    wanted = _node_number(node)
    most = SOLUTION_PAGE_MOVES
    if given is not None:
        number = min(_page_param({"part": given}, "part"), -(-most // SOLUTION_PART_MOVES))
    elif wanted is not None:
        number = (min(wanted, most) - 1) // SOLUTION_PART_MOVES + 1
    else:
        number = 1
    walked = _walk_part(board, text, number)
    if walked.moves < (number - 1) * SOLUTION_PART_MOVES + 1 and walked.moves:  # past the end
        number = (walked.moves - 1) // SOLUTION_PART_MOVES + 1
        walked = _walk_part(board, text, number)
    moves = {t.node: t for t in walked.tokens if t.kind == "move"}
    shown = sorted(moves)
    current = None if wanted is None else moves.get(wanted)
    if wanted is not None and current is None:
        if wanted > most and walked.more:
            problem = f"the study page reaches the solution's first {most:,} moves only"
            raise QueryError(f"bad node {wanted}: {problem} (its PGN has them all)", param="node")
        if wanted <= walked.moves:  # another part's
            problem = f"part {number} has nodes {shown[0]} to {shown[-1]}"
        else:
            problem = f"this study's moves are nodes 1 to {walked.moves} (0 = the start)"
        raise QueryError(f"bad node {wanted}: {problem}", param="node")
    parts = max(1, -(-walked.moves // SOLUTION_PART_MOVES))
    part = SolutionPart(
        walked.tokens,
        number,
        parts,
        walked.moves,
        walked.more,
        shown[0] if shown else 0,
        shown[-1] if shown else 0,
    )
    return part, current


def _page_links(path: str, params: dict[str, str], paged: dict[str, int]) -> dict[str, str | None]:
    """The addresses of the next and the previous page (None past either end).

    >>> _page_links("/api/composers", {"name": "reti"}, {"page": 1, "pages": 2})
    {'next': '/api/composers?name=reti&page=2', 'previous': None}
    """
    links: dict[str, str | None] = {}
    for name, number in (("next", paged["page"] + 1), ("previous", paged["page"] - 1)):
        within = 1 <= number <= paged["pages"]
        links[name] = f"{path}?{urlencode({**params, 'page': number})}" if within else None
    return links


def _part_record(
    part: SolutionPart,
    current: render.SolutionToken | None,
    path: str,
    params: dict[str, str],
) -> dict[str, Any]:
    """The JSON of the part of a solution ``/api/studies/ID`` gives, with its links.

    ``moves`` counts the solution's moves up to :data:`SOLUTION_PAGE_MOVES`
    (``more``: it has more, which no part reaches); ``next`` and ``previous``
    are the addresses of the neighbouring parts (None at either end).
    """
    others = {k: v for k, v in params.items() if k not in ("node", "part")}

    def link(number: int) -> str | None:
        if not 1 <= number <= part.parts or number == part.number:
            return None
        return f"{path}?{urlencode({**others, 'part': number})}"

    return {
        "part": part.number,
        "parts": part.parts,
        "part_moves": SOLUTION_PART_MOVES,
        "moves": part.moves,
        "more": part.more,
        "first_node": part.first_node,
        "last_node": part.last_node,
        "node": current.node if current is not None else None,
        "next": link(part.number + 1),
        "previous": link(part.number - 1),
        "tokens": [_token_record(token) for token in part.tokens],
    }


def _token_record(token: render.SolutionToken) -> dict[str, Any]:
    """One token of a solution as JSON: a move's fields, a comment's or illegal line's text.

    >>> _token_record(render.SolutionToken("open"))
    {'kind': 'open'}
    >>> _token_record(render.SolutionToken("comment", text="only move"))
    {'kind': 'comment', 'text': 'only move'}
    """
    if token.kind in ("open", "close"):
        return {"kind": token.kind}
    if token.kind != "move":
        return {"kind": token.kind, "text": token.text}
    return {
        "kind": "move",
        "node": token.node,
        "parent": token.parent,
        "next": token.next,
        "number": token.number,
        "san": token.text,
        "uci": token.uci,
        "fen": token.fen,
        "nags": list(token.nags),
        "ply": token.ply,
    }


def _walk_part(board: chess.Board, text: str, number: int) -> render.SolutionPart:
    first = (number - 1) * SOLUTION_PART_MOVES + 1
    return render.solution_part(
        board,
        text,
        first=first,
        last=first + SOLUTION_PART_MOVES - 1,
        most=SOLUTION_PAGE_MOVES,
    )


@dataclass(frozen=True)
class SharedRow:
    """A study sharing positions as the study page lists it: who, when, how many positions,
    and where the first shared one stands in each study (``node``: in the other)."""

    id: int
    composers: list[str]
    year: int | None
    positions: int
    here: str
    there: str
    node: int


@dataclass(frozen=True)
class RelatedPage:
    """:meth:`Database.related` as the study page shows it: a page of the studies sharing
    positions (``total`` counts them all; page ``page`` of ``pages``, whose first is number
    ``first``) and the page of versions."""

    shared: list[SharedRow]
    total: int
    page: int
    pages: int
    first: int
    min_men: int
    versions: tuple[Version, ...]
    versions_total: int
    versions_page: int
    versions_pages: int
    versions_first: int
    #: The other studies of ``min_men``+ men not in the position index: not compared.
    not_compared: int


def _shared_row(hit: Anticipation, fen: str, starts: dict[int, str]) -> SharedRow:
    """A study sharing positions with the one of start ``fen``, its first shared described."""
    first = hit.shared[0]
    return SharedRow(
        id=hit.id,
        composers=hit.composers,
        year=hit.year,
        positions=hit.positions,
        here=_where(fen, first.ply, first.main),
        there=_where(starts.get(hit.id, ""), first.other_ply, first.other_main),
        node=first.other_node,
    )


def _where(fen: str, ply: int, main: bool) -> str:
    """``ply 3 (after 2.) main``: where a shared position stands in each study."""
    after = "start" if ply == 0 else f"after {search.move_label(fen, ply)}"
    return f"ply {ply} ({after}) {'main' if main else 'variation'}"


def _annotations(
    check: StoredCheck | None, tokens: list[render.SolutionToken], *, white_first: bool
) -> dict[int, Annotation]:
    """The stored check's annotations by the node of the main-line move they belong to."""
    if check is None:
        return {}
    by_ply = {a.ply: a for a in annotate_main_line(check, white_first=white_first)}
    found = {}
    for token in tokens:
        note = by_ply.get(token.ply) if token.kind == "move" and token.ply else None
        if note is not None and token.text.startswith(note.san):
            found[token.node] = note
    return found


def _diagram_params(
    items: list[tuple[str, str]],
) -> tuple[chess.Board, chess.Move | None, bool, int]:
    """Read ``fen``, ``lastmove`` (UCI), ``flip`` and ``size`` of a diagram's URL."""
    params = dict(items)
    unknown = set(params) - {"fen", "lastmove", "flip", "size"}
    if unknown:
        name = sorted(unknown)[0]
        raise QueryError(
            f"unknown parameter {name!r}; known: fen, lastmove, flip, size", param=name
        )
    fen = params.get("fen", chess.STARTING_FEN)
    try:
        board = chess.Board(fen)
    except ValueError as exc:
        raise QueryError(f"bad fen {fen!r}: {exc}", param="fen") from None
    lastmove = None
    if params.get("lastmove"):
        try:
            lastmove = chess.Move.from_uci(params["lastmove"])
        except ValueError:
            raise QueryError(
                f"bad lastmove {params['lastmove']!r}: expected a move in UCI like 'e2e4'",
                param="lastmove",
            ) from None
    flip = params.get("flip", "0")
    if flip not in ("0", "1"):
        raise QueryError(f"bad flip {flip!r}: expected 0 or 1", param="flip")
    size_text = params.get("size", str(LARGE_DIAGRAM))
    if not (size_text.isascii() and size_text.isdigit() and len(size_text) <= 4) or not (
        16 <= int(size_text) <= MAX_DIAGRAM
    ):
        raise QueryError(f"bad size {quote(size_text)}: expected 16 to {MAX_DIAGRAM}", param="size")
    return board, lastmove, flip == "1", int(size_text)


def _composer_label(person: stats.TopComposer) -> str:
    """``Réti, Richard (also R. Reti; Reti)``."""
    if not person.variants:
        return person.name
    return f"{person.name} (also {'; '.join(person.variants)})"


def _charts(result: stats.Stats) -> list[dict[str, Any]]:
    """The statistics as charts: a title and bars of (label, count, search parameters)."""

    def chart(title: str, items: list[tuple[Any, int]], label: Any, link: Any) -> dict[str, Any]:
        peak = max((n for _, n in items), default=0) or 1
        bars = [
            {"label": label(v), "count": n, "share": n / peak, "params": link(v)} for v, n in items
        ]
        return {"title": title, "bars": bars}

    def decade_range(d: int | None) -> dict[str, str] | None:
        return None if d is None else {"year": f"{d}..{d + 9}"}

    return [
        chart("Most common GBR classes", result.gbr, str, lambda c: {"material": c}),
        chart("By number of men", result.men, str, lambda m: {"where": f"men={m}"}),
        chart(
            "By decade",
            result.decades,
            lambda d: "undated" if d is None else f"{d}s",
            decade_range,
        ),
        chart(
            "By stipulation",
            result.stipulations,
            lambda s: "not given" if s is None else s,
            lambda s: None if s is None else {"stipulation": s},
        ),
        chart(
            "Most represented composers",
            [(c, c.studies) for c in result.top_composers],
            _composer_label,
            lambda c: {"composer": c.name},
        ),
        chart("By soundness verdict", result.verdicts, str, lambda v: {"verdict": v}),
        chart("By theme", result.themes, str, lambda t: {"theme": t}),
    ]


def _heading(study: StoredStudy) -> str:
    """A study's title: its composers and year (``Saavedra, Fernando, 1895``)."""
    names = "; ".join(study.composers) or study.composer_names or "Composer unknown"
    return f"{names}, {study.year}" if study.year else names


def _legend(rows: list[solution.Row]) -> dict[str, Any]:
    """The signs and annotation colours a solution uses, with what they mean."""
    glyphs: dict[tuple[str, str], solution.Glyph] = {}
    kinds: dict[str, None] = {}
    for row in rows:
        for move in row.moves:
            for mark in [*move.assessments, *move.marks]:
                if mark.symbol:
                    glyphs.setdefault((mark.shown, mark.meaning), mark)
            if move.note:
                kinds[move.note.kind] = None
                if move.note.first_error:
                    kinds["first-error"] = None
    return {
        "glyphs": sorted(glyphs.values(), key=lambda g: g.nag),
        "notes": [(kind, NOTE_LEGEND[kind]) for kind in NOTE_LEGEND if kind in kinds],
    }


def _editor_fen(items: list[tuple[str, str]]) -> str:
    """The position the board editor opens with (``?fen=``; the initial position without).

    :raises QueryError: for another parameter or a FEN python-chess cannot read.
    """
    params = dict(items)
    unknown = set(params) - {"fen"}
    if unknown:
        name = sorted(unknown)[0]
        raise QueryError(f"unknown parameter {name!r}; known: fen", param=name)
    fen = params.get("fen", "").strip() or chess.STARTING_FEN
    try:
        return chess.Board(fen).fen()
    except ValueError as exc:
        raise QueryError(f"bad fen {fen!r}: {exc}", param="fen") from None


def _gbr_examples() -> list[dict[str, str]]:
    """The GBR page's examples: each position's code, signature and diagram."""
    from studydb import gbr

    rows = []
    for name, fen in GBR_EXAMPLES:
        material = gbr.material(fen)
        rows.append(
            {
                "name": name,
                "fen": fen,
                "code": material.code,
                "signature": material.signature,
                "description": solution.describe_position(fen),
            }
        )
    return rows


def _piece_svg(name: str) -> str:
    """One piece as a standalone SVG image (python-chess's drawing), for the board editor."""
    import chess.svg

    piece = chess.Piece.from_symbol(name[1] if name[0] == "w" else name[1].lower())
    return chess.svg.piece(piece)


def _fold_versions(
    rows: list[search.StudyRow], groups: dict[int, list[int]]
) -> list[tuple[search.StudyRow, list[int]]]:
    """A page's rows with each study's versions folded into its first row.

    Each item is a row and the ids of the selected studies with its start
    position (itself included); a later row of the page with the same start
    is left out.
    """
    shown = []
    folded: set[int] = set()
    for row in rows:
        if row.id in folded:
            continue
        group = groups.get(row.id, [row.id])
        folded.update(group)
        shown.append((row, group))
    return shown


def _page_numbers(page: int, last: int) -> list[int | None]:
    """The pager's page numbers: the first, the last, a span round ``page``; None for a gap.

    >>> _page_numbers(7, 20)
    [1, None, 5, 6, 7, 8, 9, None, 20]
    >>> _page_numbers(2, 4)
    [1, 2, 3, 4]
    """
    wanted = {1, last, *range(page - PAGER_SPAN, page + PAGER_SPAN + 1)}
    numbers: list[int | None] = []
    for number in sorted(n for n in wanted if 1 <= n <= last):
        if numbers and number - (numbers[-1] or 0) == 2:
            numbers.append(number - 1)  # a gap of one page: show it rather than '…'
        elif numbers and number - (numbers[-1] or 0) > 2:
            numbers.append(None)
        numbers.append(number)
    return numbers


def _searched_fen(query: Query) -> str | None:
    """The position a search looks for exactly, which its results show (None for another search).

    With ``similar`` or ``either_colour`` a study may hold an image of it, so
    its results show their start positions.
    """
    filters = query.filters
    if filters.position is None or filters.similar or filters.either_colour:
        return None
    return chess.Board(filters.position).fen()
