"""The ladder's pages over HTTP (Starlette's TestClient) and in Chromium, the model uploads and
their refusals, and the trusted-proxy setting of ``camelup serve`` against a live server."""

from __future__ import annotations

import http.client
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from camelup_cli.main import main, parser_for
from tournament.ladder.runner import run_ladder
from tournament.ladder.store import Ladder
from webapp.app import create_app
from webapp.ladder import LadderSite
from webapp.serve import server_config

ROOT = Path(__file__).resolve().parents[1]
BASE = "http://localhost"


def shipped_model(name: str) -> Path:
    """A shipped model file (wherever this checkout keeps them)."""
    for path in (
        ROOT / "agents" / "models" / f"{name}.zip",
        ROOT / "results" / "models" / name / "model.zip",
    ):
        if path.exists():
            return path
    raise FileNotFoundError(name)


@pytest.fixture(scope="module")
def ladder_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("web") / "club"
    assert main(["ladder", "init", str(folder), "--players", "2", "--newcomer-games", "1"]) == 0
    ladder = Ladder.open(folder)  # the command's start-up check of each bot is tested elsewhere
    for name, spec in [("ann", "heuristic"), ("bob", "random"), ("eve", "random")]:
        ladder.add(name, spec)
    run_ladder(folder, workers=2, games=8)
    return folder


@pytest.fixture(scope="module")
def client(ladder_dir: Path) -> Iterator[TestClient]:
    site = LadderSite(Ladder.open(ladder_dir), upload_kb=2048)
    app = create_app(None, ladder=site)
    with TestClient(app, base_url=BASE, raise_server_exceptions=False) as c:
        yield c


def one_line(response, status: int) -> str:
    assert response.status_code == status, response.text[:200]
    assert response.text.count("\n") == 1 and response.text.startswith("error: ")
    return response.text


def test_the_table_page_and_its_json_show_every_bot(client: TestClient) -> None:
    page = client.get("/ladder").text
    rows = client.get("/ladder/table.json").json()["rows"]
    assert {r["bot"] for r in rows} == {"ann@1", "bob@1", "eve@1"}
    assert sum(r["games"] for r in rows) == 16
    for r in rows:
        assert f'href="/ladder/bot/{r["bot"].replace("@", "%40")}"' in page
    assert '<a href="/ladder">Ladder</a>' in page


def test_a_bot_page_has_its_rating_plot_head_to_head_and_games(client: TestClient) -> None:
    page = client.get("/ladder/bot/ann@1").text
    assert 'id="rating-plot"' in page and "<polyline" in page
    assert "bob@1" in page.split('id="h2h"')[1] and 'href="/ladder/game?game=' in page
    one_line(client.get("/ladder/bot/nobody"), 404)


def test_every_game_replays_in_the_watch_view(client: TestClient) -> None:
    first = client.get("/ladder/game?game=1")
    assert first.status_code == 200 and 'data-base="/ladder/game?game=1&amp;step="' in first.text
    last = int(first.text.split('data-last="')[1].split('"')[0])
    assert 'id="result"' in client.get(f"/ladder/game?game=1&step={last}").text
    one_line(client.get(f"/ladder/game?game=1&step={last + 1}"), 400)
    one_line(client.get("/ladder/game?game=99999"), 404)
    one_line(client.get("/ladder/game?game=x"), 400)


def test_uploads_take_model_files_under_a_name_and_its_token(client: TestClient) -> None:
    model = shipped_model("classic2").read_bytes()

    def upload(name: str, token: str, data: bytes):
        files = {"model": ("m.zip", data, "application/zip")}
        return client.post(
            "/ladder/submit",
            data={"name": name, "token": token},
            files=files,
            follow_redirects=False,
        )

    made = upload("zed", "secret-one", model)
    assert made.status_code == 303 and made.headers["location"] == "/ladder/bot/zed@1"
    assert "token" in one_line(upload("zed", "wrong-token", model), 403)
    assert upload("zed", "secret-one", model).headers["location"] == "/ladder/bot/zed@2"
    one_line(upload("ann", "secret-one", model), 403)  # the owner's bot: no page replaces it
    assert "not a usable model file" in one_line(
        upload("yan", "secret-one", b"PK\x03\x04junk"), 400
    )
    four = shipped_model("classic4").read_bytes()
    assert "4 players" in one_line(upload("yan", "secret-one", four), 400)
    one_line(upload("big", "secret-one", b"x" * (2048 * 1024 + 10)), 413)
    one_line(upload("bad name", "secret-one", model), 400)
    one_line(upload("yan", "short", model), 400)
    labels = {r["bot"] for r in client.get("/ladder/table.json").json()["rows"]}
    assert (
        "zed@2" in labels and "zed@1" not in labels and not any(b.startswith("yan") for b in labels)
    )


def test_without_submissions_there_is_no_upload(ladder_dir: Path) -> None:
    app = create_app(None, ladder=LadderSite(Ladder.open(ladder_dir)))
    with TestClient(app, base_url=BASE, raise_server_exceptions=False) as c:
        one_line(c.get("/ladder/submit"), 404)
        one_line(c.post("/ladder/submit", data={"name": "x"}), 404)


def live_server(app, args) -> tuple[str, object, threading.Thread]:
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    args.port = port
    server = uvicorn.Server(server_config(app, args))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    return f"127.0.0.1:{port}", server, thread


@pytest.mark.parametrize("trusted", [True, False])
def test_a_trusted_proxy_s_forwarded_address_is_the_client(trusted: bool) -> None:
    """Two people behind one proxy each get their own game limit only when the proxy is
    trusted; otherwise the header is ignored and they share the proxy's one limit."""
    from webapp.games import GameStore

    flags = ["serve", "--max-games-per-client", "1"] + (
        ["--trusted-proxy", "127.0.0.1"] if trusted else []
    )
    args = parser_for(flags).parse_args(flags)
    app = create_app(None, store=GameStore(4, per_client=1))
    address, server, thread = live_server(app, args)
    statuses = []
    try:
        for person in ("10.0.0.1", "10.0.0.2"):
            conn = http.client.HTTPConnection(address, timeout=60)
            conn.request(
                "GET",
                "/play?preset=classic&players=2&seat=0&opponents=random",
                headers={"X-Forwarded-For": person},
            )
            statuses.append(conn.getresponse().status)
            conn.close()
    finally:
        server.should_exit = True
        thread.join(10)
    assert statuses == ([303, 303] if trusted else [303, 429])


def test_serve_refuses_bad_ladder_options(tmp_path: Path, capsys) -> None:
    assert main(["serve", "--ladder", str(tmp_path)]) == 2
    assert "no ladder there" in capsys.readouterr().err
    assert main(["serve", "--submissions"]) == 2
    assert "--submissions needs --ladder" in capsys.readouterr().err


@pytest.fixture(scope="module")
def browser():
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        chromium = None
    if chromium is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the ladder's browser test needs Chromium and playwright")
        pytest.skip("the ladder's browser test needs Chromium and playwright")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        yield browser
        browser.close()


def test_in_chromium_the_table_follows_the_games_and_links_to_bots_and_replays(
    browser, tmp_path: Path
) -> None:
    folder = tmp_path / "club"
    assert main(["ladder", "init", str(folder), "--players", "2"]) == 0
    for name in ("ann", "bob"):
        Ladder.open(folder).add(name, "random")
    run_ladder(folder, workers=1, games=2)
    args = parser_for(["serve"]).parse_args(["serve"])
    app = create_app(None, ladder=LadderSite(Ladder.open(folder)))
    address, server, thread = live_server(app, args)
    page = browser.new_page()
    try:
        page.goto(f"http://{address}/ladder")
        games = page.locator("#ladder tbody tr td:nth-child(5)")
        assert sorted(games.all_inner_texts()) == ["2", "2"]
        run_ladder(folder, workers=1, games=4)  # two more games while the page is open
        page.wait_for_function(
            "Array.from(document.querySelectorAll('#ladder tbody tr td:nth-child(5)'))"
            ".every(td => td.textContent === '4')",
            timeout=15000,
        )
        page.click("text=ann@1")
        page.wait_for_selector("#rating-plot polyline")
        assert page.locator("#recent tbody tr").count() == 4
        page.locator("a.watch-game").first.click()
        page.wait_for_selector("#steps")
        page.click("#next")
        page.wait_for_selector("text=step 1 of")
    finally:
        page.close()
        server.should_exit = True
        thread.join(10)
