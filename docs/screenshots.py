"""Take the README's screenshots of the web pages from a running ``studydb serve``.

The pictures in ``docs/`` come from a database of the sample collection and the
corpus's studies, checked against the Syzygy tables::

    studydb import --validate data/classics.pgn ../shared/corpus/studies/*.pgn --db /tmp/s.sqlite
    studydb check --syzygy ../shared/syzygy --db /tmp/s.sqlite
    studydb serve --db /tmp/s.sqlite --port 8765 &
    python docs/screenshots.py http://127.0.0.1:8765/ --study 84 --node 25

It needs Playwright (the ``test`` extra) and Debian's Chromium.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

HERE = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def settle(page: Page) -> None:
    """Wait until every image that is not lazy has loaded."""
    page.wait_for_function(
        "() => Array.from(document.images).every(i => i.loading === 'lazy' || "
        "(i.complete && i.naturalWidth > 0))"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="the server's address, ending in /")
    parser.add_argument("--study", type=int, required=True, help="the study to show")
    parser.add_argument("--node", type=int, default=0, help="the move to show it at")
    parser.add_argument("--out", type=Path, default=HERE, help="where to write (docs/)")
    options = parser.parse_args()
    study = f"{options.url}studies/{options.study}?node={options.node}"
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        desktop = browser.new_page(viewport={"width": 1366, "height": 900})
        desktop.goto(study)
        settle(desktop)
        desktop.screenshot(path=str(options.out / "study-desktop.png"))
        desktop.goto(options.url + "search?view=table&sort=newest&per_page=20")
        settle(desktop)
        desktop.screenshot(path=str(options.out / "results-table.png"))
        desktop.goto(options.url + "editor?fen=8/8/1KP5/3r4/8/8/8/k7+w+-+-+0+1")
        desktop.click("#palette button[data-piece=wR]")
        desktop.click("#edit-board button[data-square=h1]")
        desktop.click("#palette button[data-piece=move]")
        desktop.screenshot(path=str(options.out / "board-editor.png"))
        phone = browser.new_page(viewport={"width": 390, "height": 844})
        phone.goto(study)
        phone.locator("#solution button.move.current").click()
        settle(phone)
        phone.screenshot(path=str(options.out / "study-phone.png"))
        browser.close()


if __name__ == "__main__":
    main()
