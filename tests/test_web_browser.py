"""The web pages in a real browser (Debian's Chromium through Playwright).

Layouts from 360 to 1366 px wide, the study viewer by mouse and keyboard,
the board editor, the piece picker and the colours' contrast, against the
installed ``studydb serve``; one browser and one tab for the module, the
tests taking the tab in turn.  (``docs/screenshots.py`` takes the README's
screenshots the same way.)
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import chess
import chess.pgn
import pytest
from helpers import FIXTURE, require, serving

import studydb

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
HOSTILE = Path(__file__).parent / "fixtures" / "hostile.pgn"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Viewport widths: two phones, a tablet, a laptop (and their heights).
VIEWPORTS = {360: 740, 390: 844, 768: 1024, 1366: 900}
SAAVEDRA = "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"
#: The long study's start: enough men for a long legal solution.
LONG_START = "4k3/1r3p2/2n5/8/3N4/5B2/1R3P2/4K3 w - - 0 1"
LONG_COMPOSER = "Langmoor, Lena"
#: A name with no place to break a line (a credit written without spaces, a URL).
UNBROKEN = "Unbroken" * 30
#: Contrast the pages' text keeps against its background (WCAG AA).
MIN_CONTRAST = 4.5


def long_study_pgn(path: Path) -> Path:
    """A 70-ply study with variations nested two deep, NAGs and comments (seeded moves)."""
    rng = random.Random(19)
    board = chess.Board(LONG_START)
    game = chess.pgn.Game()
    game.setup(board)
    game.headers.update(
        {
            "Event": "Tourney of the Long Lines",
            "Site": "?",
            "Date": "1931.??.??",
            "Round": "?",
            "White": "?",
            "Black": "?",
            "Result": "*",
            "Composer": LONG_COMPOSER,
            "Source": "Tourney of the Long Lines",
            "Stipulation": "win",
        }
    )
    node: chess.pgn.GameNode = game
    for ply in range(70):
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        if not moves:
            break
        move = rng.choice(moves)
        if ply % 9 == 3 and len(moves) > 1:
            side = node.add_variation(rng.choice([m for m in moves if m != move]))
            side.nags.add(143)  # "worse is"
            side_board = board.copy(stack=False)
            side_board.push(side.move)
            for depth in range(4):
                replies = sorted(side_board.legal_moves, key=lambda m: m.uci())
                if not replies:
                    break
                reply = rng.choice(replies)
                if depth == 1 and len(replies) > 1:  # a variation inside the variation
                    inner = side.add_variation(rng.choice([m for m in replies if m != reply]))
                    inner.comment = "also possible"
                side = side.add_main_variation(reply)
                side_board.push(reply)
            side.nags.add(18)  # +−
        node = node.add_main_variation(move)
        if ply % 5 == 0:
            node.nags.add(1)  # !
        if ply % 7 == 1:
            node.nags.add(10)  # =
        if ply % 11 == 4:
            node.comment = "the idea"
        board.push(move)
    path.write_text(str(game) + "\n\n", encoding="utf-8")
    return path


def bushy_study_pgn(path: Path) -> Path:
    """A study whose tree has 12,003 moves (6,000 variations of its first move): more
    than a study page reaches."""
    sides = " ".join(
        f"(1. {first} {second})"
        for _ in range(3000)
        for first, second in (("Nc3", "Nc6"), ("Nh3", "Nh6"))
    )
    path.write_text(
        f'[Event "A bushy tree"]\n[Composer "Bushy, Ben"]\n\n1. Nf3 {sides} Nf6 2. Ng1 *\n\n',
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """``studydb serve`` on the fixture collection, the hostile study and a long study."""
    require(CHROMIUM.exists(), f"{CHROMIUM} is absent (Debian package chromium)")
    folder = tmp_path_factory.mktemp("browser")
    db = str(folder / "site.sqlite")
    long_pgn = long_study_pgn(folder / "long.pgn")
    bushy_pgn = bushy_study_pgn(folder / "bushy.pgn")
    unbroken_pgn = folder / "unbroken.pgn"
    unbroken_pgn.write_text(
        f'[Event "{UNBROKEN}"]\n[Composer "{UNBROKEN}"]\n[Source "{UNBROKEN}"]\n'
        f'[Result "*"]\n[SetUp "1"]\n[FEN "8/8/1KP5/3r4/8/8/8/k5N1 w - - 0 1"]\n\n'
        f"{{{UNBROKEN}}} 1. c7 *\n"
    )
    with studydb.open(db) as writable:
        paths = [FIXTURE, HOSTILE, long_pgn, bushy_pgn, unbroken_pgn]
        writable.import_paths(paths, validate=True, jobs=1)
    with serving(db) as url:
        ids = {}
        queries = (
            ("long", "composer=Langmoor"),
            ("saavedra", "material=0300.10"),
            ("bushy", "composer=Bushy"),
            ("unbroken", "composer=Unbroken"),
        )
        for name, query in queries:
            ids[name] = _api(url, f"api/search?{query}")["results"][0]["id"]
        ids["unbroken_person"] = _api(url, "api/composers?name=Unbroken")["results"][0]["id"]
        yield {"url": url, "ids": ids}


def _api(url: str, path: str) -> dict[str, Any]:
    import json
    import urllib.request

    with urllib.request.urlopen(url + path, timeout=10) as response:
        return json.loads(response.read())


class Browser:
    """The module's Chromium and its one tab (a context and its page), which the tests take
    in turn (:class:`Tab`): a context costs 0.2-0.5 s to open and close."""

    def __init__(self, launched: Any) -> None:
        self.context = launched.new_context(accept_downloads=True)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))


@pytest.fixture(scope="module")
def browser(site: dict[str, Any]) -> Iterator[Browser]:
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        shared = Browser(launched)
        yield shared
        shared.context.close()
        launched.close()


class Tab:
    """The module's tab at one viewport size, collecting the console's errors afresh; left
    on a blank page."""

    def __init__(self, browser: Browser, width: int = 1366) -> None:
        self.page = browser.page
        self.errors = browser.errors
        self.errors.clear()
        self.page.set_viewport_size({"width": width, "height": VIEWPORTS.get(width, 900)})

    def __enter__(self) -> Any:
        return self.page

    def __exit__(self, *exc: object) -> None:
        self.page.goto("about:blank")


def wait_for_images(page: Any) -> None:
    page.wait_for_function(
        "() => Array.from(document.images).every(i => i.loading === 'lazy' || "
        "(i.complete && i.naturalWidth > 0))"
    )


def board_box(page: Any) -> dict[str, float]:
    return page.evaluate(
        "() => { const r = document.getElementById('board').getBoundingClientRect();"
        " return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,"
        " width: innerWidth, height: innerHeight}; }"
    )


# -- every page at every width ------------------------------------------------------


#: Every page, by a name: its path (``{long}`` … a study of the site, by its id).
PAGES = {
    "home": "",
    "search": "search?composer=kubbel",
    "table": "search?view=table&sort=newest",
    "table-of-a-class": "search?material=0300.10&view=table",
    "long-study": "studies/{long}?node=5",
    "saavedra": "studies/{saavedra}?node=3",
    "huge-tree-part": "studies/{bushy}?part=5",
    "stats": "stats",
    "editor": "editor",
    "gbr": "gbr",
    "composers": "composers",
    "unbroken": "studies/{unbroken}",
    "unbroken-composer": "composers/{unbroken_person}",
    "bad-search": "search?year=19x",
    "no-such-study": "studies/424242",
}
#: Pages whose status (400, 404) is an error on the console by design.
CONSOLE_ERROR_PAGES = ("bad-search", "no-such-study")
#: The pages whose text's contrast is measured (:func:`check_contrast`).
CONTRAST_PAGES = ("home", "search", "table", "long-study", "saavedra", "stats", "editor", "gbr")


def test_no_page_scrolls_sideways_keeps_the_board_in_view_or_logs_errors(
    site: dict[str, Any], browser: Browser
) -> None:
    """Each page, loaded once, at every width of :data:`VIEWPORTS` (media queries apply
    on resize): no sideways scroll, one <h1>, the board in view at a study's last move;
    nothing on the console (but on the two error pages); and, at 1366 px as loaded, the
    contrast of its text (:data:`CONTRAST_PAGES`)."""
    tab = Tab(browser, 1366)
    with tab as page:
        for name, path in PAGES.items():
            path = path.format(**site["ids"])
            logged = len(tab.errors)
            page.goto(site["url"] + path)  # at 1366 px, the last of VIEWPORTS
            wait_for_images(page)
            if name in CONTRAST_PAGES:
                check_contrast(page, path)
            for width, height in VIEWPORTS.items():
                page.set_viewport_size({"width": width, "height": height})
                check_layout(page, path, width)
            if name not in CONSOLE_ERROR_PAGES:
                assert tab.errors[logged:] == [], f"/{path} logs errors"


def check_layout(page: Any, path: str, width: int) -> None:
    """No sideways scroll, one <h1>; on a study, the board in view at its last move and
    at the end of its main line (from the start position, at the top of the page)."""
    sizes = page.evaluate(
        "() => [document.documentElement.scrollWidth, innerWidth,"
        " document.querySelectorAll('h1').length]"
    )
    assert sizes[0] <= sizes[1], f"/{path} scrolls sideways at {width} px: {sizes}"
    assert sizes[2] == 1, f"/{path} has {sizes[2]} <h1> at {width} px"
    if not path.startswith("studies/") or path.endswith("424242"):
        return
    page.keyboard.press("Home")  # the start (and its address), as loaded
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_function("() => !location.search.startsWith('?node=')")
    page.locator("#solution button.move").last.click()
    page.wait_for_function("() => location.search.startsWith('?node=')")
    box = board_box(page)
    assert box["top"] >= 0 and box["bottom"] <= box["height"], (path, width, box)
    assert box["left"] >= 0 and box["right"] <= box["width"], (path, width, box)
    current = page.locator("#solution button.move.current").bounding_box()
    assert current is not None and 0 <= current["y"] <= box["height"] - current["height"], (
        path,
        width,
        current,
    )
    page.keyboard.press("Home")
    page.keyboard.press("End")  # the end of the main line: the board still shows
    box = board_box(page)
    assert box["top"] >= 0 and box["bottom"] <= box["height"], (path, width, "End")


def test_a_huge_tree_is_paged_and_says_how_far(
    site: dict[str, Any], browser: Browser, tmp_path: Path
) -> None:
    """The parts of a tree larger than the page reaches, at 1366 and 390 px (each page loaded
    once, then resized): the note says so, the links page."""
    with Tab(browser, 1366) as page:
        page.goto(site["url"] + f"studies/{site['ids']['bushy']}")
        note = page.locator("nav.solution-parts p")
        following = page.locator("nav.solution-parts a[rel=next]")
        for width in (1366, 390):
            page.set_viewport_size({"width": width, "height": VIEWPORTS[width]})
            page.evaluate("() => window.scrollTo(0, 0)")
            text = note.inner_text()
            assert "more than 10,000 moves" in text and "part 1 of 5" in text, (width, text)
            page.screenshot(path=str(tmp_path / f"bushy-{width}.png"), full_page=False)
            note.evaluate("e => e.scrollIntoView({block: 'end'})")  # below the sticky board
            page.screenshot(path=str(tmp_path / f"bushy-parts-{width}.png"))
            following.click(trial=width != 390)  # it takes the click (nothing covers it)
        page.wait_for_url(re.compile(r"\?part=2$"))
        for width in (390, 1366):
            page.set_viewport_size({"width": width, "height": VIEWPORTS[width]})
            assert "part 2 of 5" in page.locator("nav.solution-parts p").inner_text()
            assert page.locator("#solution button.move").first.get_attribute("data-node") == "0"
            assert page.locator("#m2001").count() == 1 and page.locator("#m4001").count() == 0
            assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth"), width


# -- the study viewer ---------------------------------------------------------------


def test_nag_symbols_and_the_indented_tree(site: dict[str, Any], browser: Browser) -> None:
    with Tab(browser, 1366) as page:
        page.goto(site["url"] + f"studies/{site['ids']['long']}")
        solution = page.inner_text("#solution")
        assert not re.search(r"\$\d", solution)  # no raw NAG codes
        assert "!" in page.inner_text("#solution button.move >> nth=1")  # the 1st move's $1
        marks = page.eval_on_selector_all(
            "#solution .nag",
            "els => els.map(e => [e.querySelector('[aria-hidden]').textContent, e.title])",
        )
        assert ["≤", "worse is"] in marks and ["+−", "White has a decisive advantage"] in marks
        assert ["=", "drawish position"] in marks
        page.click("#legend summary")
        legend = page.inner_text("#legend")
        for words in ("good move", "worse is", "White has a decisive advantage"):
            assert words in legend
        # The tree: each level of variation starts further right than the line it leaves.
        lefts = page.evaluate(
            "() => [0, 1, 2].map(d => Array.from(document.querySelectorAll("
            "'#solution .row.depth-' + d)).map(r => r.getBoundingClientRect().left + "
            "parseFloat(getComputedStyle(r).paddingLeft)))"
        )
        assert lefts[0] and lefts[1] and lefts[2]
        assert min(lefts[1]) > max(lefts[0]) and min(lefts[2]) > max(lefts[1])
        # Every move after an interruption has its number: a row never starts with a bare move.
        first = page.eval_on_selector_all(
            "#solution .row:not(.start-row)",
            "rows => rows.map(r => r.querySelector('.ply').firstElementChild.className)",
        )
        assert set(first) == {"number"}


def test_keyboard_only_navigation_of_a_study(site: dict[str, Any], browser: Browser) -> None:
    with Tab(browser, 1366) as page:
        url = site["url"] + f"studies/{site['ids']['saavedra']}"
        page.goto(url)
        # The skip link comes first; the solution is one tab stop.
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.textContent") == "Skip to the content"
        stops = page.evaluate(
            "Array.from(document.querySelectorAll('#solution button')).filter("
            "b => b.tabIndex >= 0).length"
        )
        assert stops == 1
        start_alt = page.get_attribute("#board", "alt")
        assert start_alt.startswith("White Kb6, Pc6; Black Ka1, Rd5 (2+2); White to move; FEN ")
        for expected in ("1", "2", "3"):
            page.keyboard.press("ArrowRight")
            assert page.evaluate("document.activeElement.id") == f"m{expected}"
            assert parse_qs(urlsplit(page.url).query) == {"node": [expected]}
        active = page.evaluate("document.activeElement.dataset.fen")
        assert page.get_attribute("#board", "data-fen") == active
        assert page.input_value("#fen") == active
        alt = page.get_attribute("#board", "alt")
        assert alt != start_alt and alt.endswith("FEN " + active)
        assert page.inner_text("#now") == "After 2.Kb5"
        page.keyboard.press("ArrowLeft")
        assert page.evaluate("document.activeElement.id") == "m2"
        # The server describes a shared position as the script does.
        alt = page.get_attribute("#board", "alt")
        page.goto(url + "?node=2")
        assert page.get_attribute("#board", "alt") == alt
        page.keyboard.press("End")  # the end of the line
        assert page.evaluate("document.activeElement.dataset.next") == ""
        assert page.evaluate("document.activeElement.classList.contains('current')")
        page.keyboard.press("Home")
        assert page.evaluate("document.activeElement.id") == "m0"
        # Down and up step in reading order, into the variations too.
        variation = page.evaluate(
            "document.querySelector('#solution .row.depth-1 button.move').dataset.node"
        )
        for _ in range(int(variation)):
            page.keyboard.press("ArrowDown")
        assert page.evaluate("document.activeElement.dataset.node") == variation
        page.keyboard.press("ArrowUp")
        assert page.evaluate("document.activeElement.dataset.node") == str(int(variation) - 1)
        page.keyboard.press("Home")
        assert page.evaluate("document.activeElement.id") == "m0"
        assert page.url == url
        # Tab leaves the solution at once; the skip link jumps past it.
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.closest('#solution')") is None
        page.locator("#solution-title + a.skip").focus()
        page.keyboard.press("Enter")
        assert page.evaluate("document.activeElement.id") == "after-solution"


def test_first_error_link_and_study_tools(site: dict[str, Any], browser: Browser) -> None:
    with Tab(browser, 1366) as page:
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        page.goto(site["url"] + f"studies/{site['ids']['saavedra']}")
        page.locator("#m3").click()
        page.click("#copy-fen")
        assert page.evaluate("navigator.clipboard.readText()") == page.get_attribute(
            "#m3", "data-fen"
        )
        with page.expect_download() as svg:
            page.click("#download-svg")
        assert Path(svg.value.path()).read_text().startswith("<svg")
        with page.expect_download() as png:
            page.click("#download-png")
        assert png.value.suggested_filename.endswith(".png")
        assert Path(png.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        with page.expect_download() as pgn:
            page.click("#download-pgn")
        assert '[FEN "8/8/1KP5/3r4/8/8/8/k7 w - - 0 1"]' in Path(pgn.value.path()).read_text()
        page.click("h1 a >> nth=0")  # a composer's name leads to their page
        assert "/composers/" in page.url and "Saavedra" in page.inner_text("h1")


def test_search_this_position_from_a_study(site: dict[str, Any], browser: Browser) -> None:
    with Tab(browser, 390) as page:
        study = site["ids"]["saavedra"]
        page.goto(site["url"] + f"studies/{study}")
        page.locator("#m2").click()  # 1... Rd6+
        fen = page.get_attribute("#m2", "data-fen")
        page.click("#search-position")
        page.wait_for_selector("h1")
        assert parse_qs(urlsplit(page.url).query)["position"] == [fen]
        link = page.locator(f'li.result[data-study="{study}"] a.occurrence').first
        assert link.get_attribute("href") == f"/studies/{study}?node=2"
        link.click()
        assert page.get_attribute("#m2", "aria-current") == "step"
        assert page.get_attribute("#board", "data-fen") == fen


# -- the board editor and the picker ------------------------------------------------


def test_editor_builds_a_position_by_clicks_and_searches_it(
    site: dict[str, Any], browser: Browser
) -> None:
    with Tab(browser, 390) as page:
        page.goto(site["url"] + "editor")
        page.click("#clear")
        assert page.input_value("#fen-input") == "8/8/8/8/8/8/8/8 w - - 0 1"
        assert "one king" in page.inner_text("#problem")
        for piece, square in (("wK", "b6"), ("wP", "c7"), ("bR", "d5"), ("bK", "a1")):
            page.click(f"#palette button[data-piece={piece}]")
            page.click(f"#edit-board button[data-square={square}]")
        page.click("#palette button[data-piece=move]")
        page.click("#edit-board button[data-square=c7]")  # pick the pawn up …
        page.click("#edit-board button[data-square=c6]")  # … and put it down
        assert page.input_value("#fen-input") == SAAVEDRA
        assert page.inner_text("#problem") == ""
        assert "White Kb6, Pc6; Black Ka1, Rd5 (2+2)" in page.inner_text("#board-text")
        page.click("#turn-b")
        assert page.input_value("#fen-input").split()[1] == "b"
        page.click("#turn-w")
        page.click("#flip-board")  # flipped, the same position
        assert page.locator("#edit-board button.sq").first.get_attribute("data-square") == "h1"
        assert page.input_value("#fen-input") == SAAVEDRA
        page.click("#search-button")
        page.wait_for_selector("h1")
        assert parse_qs(urlsplit(page.url).query)["position"] == [SAAVEDRA]
        assert str(site["ids"]["saavedra"]) in page.eval_on_selector_all(
            "li.result", "items => items.map(i => i.dataset.study)"
        )


def _drag(page: Any, start: str, end: str | None, *, pointer: str) -> None:
    """Drag from the centre of ``start`` to ``end`` (a square, or off the board)."""
    box = page.locator(start).bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    if end is None:
        tx, ty = 5, 5  # off the board
    else:
        target = page.locator(end).bounding_box()
        tx, ty = target["x"] + target["width"] / 2, target["y"] + target["height"] / 2
    if pointer == "mouse":
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move((x + tx) / 2, (y + ty) / 2, steps=4)
        page.mouse.move(tx, ty, steps=4)
        page.mouse.up()
        return
    # A finger: the pointer events a touch screen sends.
    page.evaluate(
        """([x, y, tx, ty]) => {
          const at = (type, cx, cy) => {
            const el = document.elementFromPoint(cx, cy) || document.body;
            el.dispatchEvent(new PointerEvent(type, {bubbles: true, pointerId: 7,
              pointerType: 'touch', isPrimary: true, clientX: cx, clientY: cy, button: 0}));
          };
          at('pointerdown', x, y);
          for (let i = 1; i <= 5; i++) {
            at('pointermove', x + (tx - x) * i / 5, y + (ty - y) * i / 5);
          }
          at('pointerup', tx, ty);
        }""",
        [x, y, tx, ty],
    )


@pytest.mark.parametrize("pointer", ["mouse", "touch"])
def test_editor_drags_pieces_on_off_and_onto_the_board(
    site: dict[str, Any], browser: Browser, pointer: str
) -> None:
    with Tab(browser, 768) as page:
        page.goto(site["url"] + "editor?fen=" + SAAVEDRA.replace(" ", "+"))
        assert page.input_value("#fen-input") == SAAVEDRA
        _drag(page, "#edit-board [data-square=d5]", "#edit-board [data-square=d1]", pointer=pointer)
        assert page.input_value("#fen-input") == "8/8/1KP5/8/8/8/8/k2r4 w - - 0 1"
        _drag(page, "#palette [data-piece=wQ]", "#edit-board [data-square=h8]", pointer=pointer)
        assert page.input_value("#fen-input") == "7Q/8/1KP5/8/8/8/8/k2r4 w - - 0 1"
        _drag(page, "#edit-board [data-square=h8]", None, pointer=pointer)  # off: removed
        assert page.input_value("#fen-input") == "8/8/1KP5/8/8/8/8/k2r4 w - - 0 1"
        page.click("#reset")
        assert page.input_value("#fen-input") == SAAVEDRA
        page.fill("#fen-input", "8/8/8/8/8/8/8/K1k5 b - - 0 1")  # typing redraws the board
        assert page.locator("[data-square=a1]").get_attribute("data-piece") == "wK"
        assert page.locator("[data-square=b6]").get_attribute("data-piece") == ""
        assert page.is_checked("#turn-b")
        assert page.evaluate("document.querySelectorAll('.drag-ghost').length") == 0


def test_editor_opens_at_a_study_position(site: dict[str, Any], browser: Browser) -> None:
    with Tab(browser, 1366) as page:
        page.goto(site["url"] + f"studies/{site['ids']['saavedra']}")
        page.locator("#m1").click()
        fen = page.get_attribute("#m1", "data-fen")
        page.click("#edit-position")
        assert page.input_value("#fen-input") == fen
        # the editor's script draws the board after the page has loaded: wait for it
        expect = pytest.importorskip("playwright.sync_api").expect
        expect(page.locator("[data-square=c7]")).to_have_attribute("data-piece", "wP")


def test_the_picker_produces_a_material_search(site: dict[str, Any], browser: Browser) -> None:
    with Tab(browser, 360) as page:
        page.goto(site["url"])
        page.click("#picker summary")
        page.fill("#pick-wR", "1")
        page.fill("#pick-wP", "1")
        page.fill("#pick-bR", "1")
        assert page.input_value("#f-material") == "KRPvKR"
        page.fill("#pick-wP", "0")
        page.fill("#pick-wP", "1")
        page.click("#search-button")
        page.wait_for_selector("h1")
        assert urlsplit(page.url).query == "material=KRPvKR"  # nothing empty in the address
        found = page.eval_on_selector_all("li.result", "items => items.map(i => i.dataset.study)")
        expected = _api(site["url"], "api/search?material=0400.10")["results"]
        assert found and sorted(found) == sorted(str(r["id"]) for r in expected)


def test_the_form_adds_values_and_keeps_each_once(site: dict[str, Any], browser: Browser) -> None:
    with Tab(browser, 1366) as page:
        page.goto(site["url"] + "search?composer=kubbel")
        page.click("details.refine summary")
        assert page.locator("input[name=composer]").count() == 1  # the value, once
        assert page.input_value("#f-composer") == "kubbel"
        page.click(".field-composer button.add-value")
        page.keyboard.type("grigoriev")
        page.fill("#f-composer", "kubbel")
        page.click("#search-button")
        page.wait_for_selector("h1")
        assert urlsplit(page.url).query == "composer=kubbel&composer=grigoriev"


# -- contrast -----------------------------------------------------------------------

#: For each element with text of its own: its colour and the first opaque background above it.
CONTRAST_JS = """
() => {
  const parse = c => {
    const m = c.match(/[\\d.]+/g).map(Number);
    return m.length > 3 ? m : [...m, 1];
  };
  const channel = v => {
    v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  };
  const lum = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const background = el => {
    for (; el; el = el.parentElement) {
      const c = parse(getComputedStyle(el).backgroundColor);
      if (c[3] > 0.5) return c;
    }
    return [255, 255, 255, 1];
  };
  const found = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
    const style = getComputedStyle(el);
    if (!own || !el.getBoundingClientRect().width || style.visibility === 'hidden') continue;
    if (el.closest('.sr, [hidden], svg, a.skip')) continue;
    const [a, b] = [lum(parse(style.color)), lum(background(el))].sort((x, y) => y - x);
    const what = el.tagName + '.' + el.className + ' ' + el.textContent.trim().slice(0, 30);
    found.push([what, (a + 0.05) / (b + 0.05)]);
  }
  return found;
}
"""


def check_contrast(page: Any, path: str) -> None:
    """Every text's contrast with its background is :data:`MIN_CONTRAST` or more (a study's
    with its legend open, then closed again), no hover colours."""
    study = path.startswith("studies/")
    if study:
        page.click("#legend summary")
    page.hover("header.top")  # no hover colours
    low = [(what, round(ratio, 2)) for what, ratio in page.evaluate(CONTRAST_JS)]
    low = [item for item in low if item[1] < MIN_CONTRAST]
    assert low == [], (path, low)
    if study:
        page.click("#legend summary")


@pytest.mark.parametrize(
    ("choice", "pattern"),
    [
        ("#empty-any", "????????/????????/?KP?????/???r????/????????/????????/????????/k???????"),
        ("#empty-run", "*/*/*KP*/*r*/*/*/*/k*"),
    ],
)
def test_editor_searches_the_pieces_placed_as_a_pattern(
    site: dict[str, Any], browser: Browser, choice: str, pattern: str
) -> None:
    """'Search this pattern': empty squares become ? or * as chosen; the study is found."""
    with Tab(browser, 390) as page:
        page.goto(site["url"] + "editor?fen=" + SAAVEDRA.replace(" ", "+"))
        page.click(choice)
        assert page.inner_text("#pattern-text") == pattern
        page.click("#pattern-side")
        page.click("#pattern-button")
        page.wait_for_selector("h1")
        query = parse_qs(urlsplit(page.url).query)
        assert query["pattern"] == [pattern] and query["side_to_move"] == ["white"]
        assert str(site["ids"]["saavedra"]) in page.eval_on_selector_all(
            "li.result", "items => items.map(i => i.dataset.study)"
        )


def test_the_form_searches_a_line_and_each_match_opens_its_move(
    site: dict[str, Any], browser: Browser, tmp_path: Path
) -> None:
    """A line typed into the form (at 390 px) is in the URL as line=, and each result
    says where its steps matched, in moves; a match opens the study at its last step."""
    with Tab(browser, 390) as page:
        page.goto(site["url"])
        page.fill("#f-line", "P-c8=R next r-a4")
        page.locator(".field-line").screenshot(path=str(tmp_path / "line-field-390.png"))
        page.check("#f-main_line")
        page.click("#search-button")
        page.wait_for_selector("li.result")
        query = parse_qs(urlsplit(page.url).query)
        assert query["line"] == ["P-c8=R next r-a4"] and query["main_line"] == ["1"]
        assert page.input_value("#f-line") == "P-c8=R next r-a4"  # kept in the form
        matches = page.eval_on_selector_all(
            "a.line-match", "links => links.map(a => a.textContent)"
        )
        assert matches == ["6.c8=R 6...Ra4"]
        wait_for_images(page)
        page.screenshot(path=str(tmp_path / "line-390.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        page.click("a.line-match")
        page.wait_for_selector("#board")
        assert parse_qs(urlsplit(page.url).query)["node"] == ["15"]  # 6...Ra4, after 6.c8=Q…
        page.goto(site["url"] + "search?line=P-%5Ba-h%5D9")
        assert "at character 3" in page.inner_text("body")


# -- the installed server, searched and stepped through ------------------------------


def test_in_a_real_browser(site: dict[str, Any], browser: Browser, tmp_path: Path) -> None:
    """A search by the form, its result opened and its solution stepped through (the
    diagram redrawn each time), flipped; the hostile study's scripts never run."""
    url = site["url"]
    tab = Tab(browser, 1200)
    with tab as page:
        # Search for a class with the form.
        page.goto(url)
        page.fill("#f-material", "0300")
        page.click("#search-button")
        page.wait_for_selector("#total")
        assert "/search?" in page.url and "material=0300" in page.url
        assert page.inner_text("h1") == "1 study found"
        wait_for_images(page)
        page.screenshot(path=str(tmp_path / "search.png"), full_page=True)

        # Open the result and step through the solution.
        page.click("ol.results a.title")
        page.wait_for_selector("#board")
        assert page.inner_text("h1") == "Saavedra, Fernando, 1895"
        wait_for_images(page)
        seen = [board_state(page)]

        def step(action: str) -> None:
            if action.startswith("#") or action.startswith("button"):
                page.click(action)
            else:
                page.keyboard.press(action)
            page.wait_for_function(
                "(previous) => document.getElementById('board').dataset.fen !== previous",
                arg=seen[-1][0],
            )
            wait_for_images(page)
            seen.append(board_state(page))
            assert seen[-1][1] != seen[-2][1], f"the diagram did not change after {action}"

        step("#next")  # 1. c7
        assert seen[-1][0] == "8/2P5/1K6/3r4/8/8/8/k7 b - - 0 1"
        step("ArrowRight")  # 1... Rd6+
        step("ArrowRight")  # 2. Kb5
        step("ArrowLeft")  # back to 1... Rd6+
        assert seen[-1][0] == seen[2][0]
        step("#prev")  # back to 1. c7
        assert seen[-1][0] == seen[1][0]
        step("button.move:has-text('c8=Q?')")  # a move of the variation, clicked
        assert seen[-1][0].startswith("2Q5/")
        flipped_before = page.get_attribute("#board", "src")
        page.click("#flip")
        page.wait_for_function("() => document.getElementById('board').src.includes('flip=1')")
        wait_for_images(page)
        assert page.get_attribute("#board", "src") != flipped_before
        assert "current" in (page.get_attribute("button.move:has-text('c8=Q?')", "class") or "")
        page.screenshot(path=str(tmp_path / "study.png"), full_page=True)

        # The hostile study: its scripts are text on the page, and never run.
        page.goto(url + "search?source=Evil")
        page.click("ol.results a.title")
        page.wait_for_selector("#solution")
        solution = page.inner_text("#solution")
        assert "<script>window.hackedComment = 1</script>" in solution
        assert "<script>window.hackedTag = 1</script>Mallory" in page.inner_text("h1")
        ran = page.evaluate(
            "[window.hackedComment, window.hackedIntro, window.hackedTag, window.hackedImg]"
        )
        assert ran == [None, None, None, None]
        step_hostile = page.get_attribute("#board", "src")
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "(previous) => document.getElementById('board').src !== previous", arg=step_hostile
        )
    assert tab.errors == []
    assert (tmp_path / "search.png").stat().st_size > 0
    assert (tmp_path / "study.png").stat().st_size > 0
    if os.environ.get("STUDYDB_KEEP_SCREENSHOTS"):  # to look at them
        keep = Path(os.environ["STUDYDB_KEEP_SCREENSHOTS"])
        keep.mkdir(parents=True, exist_ok=True)
        for name in ("search.png", "study.png"):
            (keep / name).write_bytes((tmp_path / name).read_bytes())


def board_state(page: Any) -> tuple[str, bytes]:
    """The position the page says it shows, and the pixels of its diagram."""
    return page.get_attribute("#board", "data-fen"), page.locator("#board").screenshot()


def test_the_judges_report_reads_on_a_phone(browser: Browser, tmp_path: Path) -> None:
    """At 390 px the report's summary table widened the whole page (sideways scroll);
    it now scrolls in its own box, and an entry's diagram stands above its facts."""
    from helpers import sample_report

    from studydb import report

    page_file = tmp_path / "report.html"
    page_file.write_text(report.to_html(sample_report()), encoding="utf-8")
    for width in (390, 1366):
        with Tab(browser, width) as page:
            page.goto(page_file.as_uri())
            assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), width
            head = page.eval_on_selector(".head", "e => getComputedStyle(e).flexDirection")
            assert head == ("column" if width == 390 else "row"), width
