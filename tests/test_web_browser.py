"""The web app in a real browser: Playwright driving Chromium against a live ``uvicorn`` server.

Chromium is the system's (Debian: ``apt-get install -y chromium``). Without it, or without the
``playwright`` package, these tests are skipped with a message saying so, except under CI
(``CI=true``), where a missing browser fails them.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from camelup_cli.main import main
from webapp.app import create_app

MISSING = (
    "no browser for the web app's browser tests: they need Chromium (apt-get install -y "
    "chromium) and the pip package playwright (the dev extra)"
)


@pytest.fixture(scope="module")
def browser():
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        chromium = None
    if chromium is None:
        if os.environ.get("CI") == "true":
            pytest.fail(MISSING)
        pytest.skip(MISSING)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def server(runs_root: Path) -> Iterator[str]:
    """``camelup serve --runs RUNS`` on a free port, in a thread of this process."""
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(create_app(runs_root), host="127.0.0.1", port=port, log_level="warning")
    live = uvicorn.Server(config)
    thread = threading.Thread(target=live.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not live.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert live.started, "the server did not start"
    yield f"http://127.0.0.1:{port}"
    live.should_exit = True
    thread.join(10)


@pytest.fixture
def page(browser):
    page = browser.new_page()
    yield page
    page.close()


def click_and_wait(page, locator) -> None:
    """Click a button or link that loads the next page, and wait for it."""
    with page.expect_navigation():
        locator.click()


def test_a_whole_game_is_played_by_clicking(page, server: str) -> None:
    page.goto(f"{server}/play?preset=classic&players=2&seat=0&opponents=random&seed=11")
    clicks = 0
    while page.locator("#result").count() == 0:
        assert clicks < 300
        buttons = page.locator("button[data-action]")
        leg_bets = page.locator("button[data-action]", has_text="leg-bet tile")
        # a leg bet now and then, otherwise roll (the first group), to reach the end quickly
        click_and_wait(
            page, leg_bets.first if clicks % 5 == 0 and leg_bets.count() else buttons.first
        )
        clicks += 1
    result = page.locator("#result")
    assert re.search(r"You won!|You share the victory!|Winner: P1 \(random\)", result.inner_text())
    assert result.locator("table.scores tbody tr").count() == 2
    assert page.locator("button[data-action]").count() == 0
    assert page.locator("ol.moves li").count() >= clicks


def test_a_replay_is_stepped_and_played_on(page, server: str) -> None:
    page.goto(f"{server}/watch")
    click_and_wait(page, page.get_by_role("link", name="demo"))
    click_and_wait(page, page.locator("a.watch-game").first)
    last = int(page.locator("#steps").get_attribute("data-last"))
    assert page.locator("#where").inner_text() == f"step 0 of {last}"
    assert page.locator("#caption").inner_text().startswith("The deal: P0")
    click_and_wait(page, page.locator("#next"))
    click_and_wait(page, page.locator("#next"))
    assert page.locator("#where").inner_text() == f"step 2 of {last}"
    assert re.match(r"P\d \((random|heuristic)\): ", page.locator("#caption").inner_text())
    assert page.locator("#leg-odds tbody tr").count() == 5
    with page.expect_navigation():
        page.keyboard.press("ArrowLeft")
    assert page.locator("#where").inner_text() == f"step 1 of {last}"
    click_and_wait(page, page.locator("#play"))  # plays on by itself, a step every 0.7 s
    page.wait_for_url(re.compile(r"step=3&play=1$"), timeout=10_000)
    click_and_wait(page, page.locator("#last"))
    assert page.locator("#where").inner_text() == f"step {last} of {last}"
    assert "The race is over" in page.locator("#result").inner_text()


def test_the_coachs_numbers_are_those_of_camelup_odds(page, server: str, capsys) -> None:
    page.goto(f"{server}/play?preset=classic&players=2&seat=0&opponents=random&seed=7&coach=1")
    for _ in range(2):  # roll twice (the opponent moves in between): a position with dice out
        click_and_wait(page, page.locator("button[data-action]").first)
    argv = shlex.split(page.locator("#odds-command").inner_text())
    assert argv[:2] == ["camelup", "odds"]
    capsys.readouterr()
    assert main([*argv[1:], "--json"]) == 0
    odds = json.loads(capsys.readouterr().out)
    rows = page.locator("#leg-odds tbody tr")
    assert rows.count() == len(odds["leg"])
    for r in range(rows.count()):
        row = rows.nth(r)
        camel = row.get_attribute("data-camel")
        shown = [
            float(x)
            for x in row.locator("td[data-rank]").evaluate_all(
                "cells => cells.map(c => c.dataset.p)"
            )
        ]
        assert shown == pytest.approx(odds["leg"][camel], abs=1e-12)
    compared = 0
    for camel, ev in odds["leg_bet_ev"].items():
        top = page.locator(f'g.leg-stack[data-camel="{camel}"]').get_attribute("data-top")
        if top != "5":  # camelup odds values the first tile of a full stack
            continue
        button = page.locator("button[data-action]", has_text=f"take the top {camel} leg-bet")
        value = float(button.locator(".value").get_attribute("data-value"))
        assert value == pytest.approx(ev, abs=1e-6)
        compared += 1
    assert compared >= 1
    values = [
        float(v)
        for v in page.locator("button .value").evaluate_all(
            "spans => spans.map(s => s.dataset.value)"
        )
    ]
    best = float(page.locator("button.best .value").get_attribute("data-value"))
    assert best == max(values) and not math.isnan(best)
    chances = [
        float(p)
        for p in page.locator("#win-chances td[data-p]").evaluate_all(
            "cells => cells.map(c => c.dataset.p)"
        )
    ]
    assert len(chances) == 2 and sum(chances) == pytest.approx(1.0)
    assert "(you)" in page.locator('#win-chances tr[data-seat="0"]').inner_text()
