"""Take the web app's screenshot for the README and docs/web.md: ``python docs/web_screenshot.py``.

Starts ``camelup serve``'s app on a free port, plays a few moves of a fixed four-player game
against greedy, heuristic and random with the coach on, and saves the page as
``docs/img/web-play.png`` with Playwright driving the system's Chromium (Debian: ``apt-get
install chromium``).
"""

from __future__ import annotations

import shutil
import socket
import sys
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: import this checkout
    sys.path.insert(0, str(ROOT))

from webapp.app import create_app  # noqa: E402

OUT = ROOT / "docs" / "img" / "web-play.png"
GAME = "/play?preset=classic&players=4&seat=0&opponents=greedy,heuristic,random&seed=3&coach=1"
#: the person's moves before the picture (button texts): a leg bet, two rolls, a leg bet
MOVES = (
    "take the top yellow leg-bet tile",
    "take a pyramid tile and roll a die",
    "take a pyramid tile and roll a die",
    "leg-bet tile",
)


def main() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(create_app(None), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=shutil.which("chromium"))
            page = browser.new_page(viewport={"width": 1400, "height": 1080})
            page.goto(f"http://127.0.0.1:{port}{GAME}")
            for text in MOVES:
                with page.expect_navigation():
                    page.locator("button[data-action]", has_text=text).first.click()
            page.screenshot(path=OUT)
            browser.close()
    finally:
        server.should_exit = True
        thread.join(10)
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
