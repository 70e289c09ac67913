"""The web app against a hostile page or client: code it may not run, files it may not probe,
other sites, guessable dice, abandoned games, and bots that must outlive the server's threads.
Real bot processes over Starlette's TestClient, or a live uvicorn server where threads matter."""

from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from agents import shipped
from camelup_cli.main import main
from camelup_env.game.actions import TakePyramidTile, action_table
from camelup_env.game.rules import RuleSet
from camelup_env.game.setup import new_game
from camelup_env.match import game_rngs
from camelup_env.observation import public_view
from tournament.bots import BotFault, BotProcess
from tournament.config import AgentEntry, TournamentConfig
from webapp.app import create_app
from webapp.games import GameStore
from webapp.play_options import SEED_BITS, play_options, suggested_opponents
from webapp.specs import Allowed

BASE = "http://localhost"
TESTS = Path(__file__).resolve().parent
PLAY = "/play?preset=classic&players=2&seat=0&opponents="


def one_line(response, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.text.startswith("error: ") and response.text.count("\n") == 1
    return response.text


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(None), base_url=BASE) as c:
        yield c


@pytest.fixture
def marker_bot(tmp_path: Path) -> tuple[Path, Path]:
    """A Camel Up Cup bot file that writes a marker file when it is loaded at all."""
    marker = tmp_path / "ran"
    bot = tmp_path / "bot.py"
    bot.write_text(f"open({str(marker)!r}, 'w').write('ran')\nclass Bot:\n    pass\n")
    return bot, marker


# Code and files a page names ------------------------------------------------------------------
def test_a_cup_file_is_not_run_without_allow_code(
    client: TestClient, marker_bot: tuple[Path, Path]
) -> None:
    bot, marker = marker_bot
    assert "--allow-code" in one_line(client.get(PLAY + f"cup:{bot}"), 400)
    assert not marker.exists()


@pytest.mark.parametrize("spec", ["py:os:getcwd", "cmd:sh", "cup:x.py", "py:antigravity:x"])
def test_code_specs_are_refused_without_allow_code(client: TestClient, spec: str) -> None:
    assert "--allow-code" in one_line(client.get(PLAY + spec), 400)
    assert "antigravity" not in sys.modules  # nothing was imported to check it


def test_allow_code_runs_code_only_from_the_named_folders(
    tmp_path: Path, marker_bot: tuple[Path, Path]
) -> None:
    bot, marker = marker_bot
    with TestClient(create_app(None, code=(TESTS,)), base_url=BASE) as c:
        for spec in (
            f"cup:{bot}",  # a file outside tests/
            "cmd:sh",  # a program outside it
            "cmd:../../bin/sh",
            "py:os:getcwd",  # a module outside it
            "py:antigravity:x",
            "py:tests.nowhere:X",
        ):
            assert "--allow-code names" in one_line(c.get(PLAY + spec), 400), spec
        assert not marker.exists() and "antigravity" not in sys.modules
        page = c.get(PLAY + "py:tests.faulty_bots:RaisingBot")  # inside: it plays
        assert page.status_code == 200 and "/game/" in str(page.url)


def test_a_model_path_outside_the_models_folder_looks_like_a_missing_file(
    client: TestClient, tmp_path: Path
) -> None:
    """``ppo:/etc/shadow`` (exists) and ``ppo:/no/such`` (does not) get the same answer, for
    every model prefix (``rollout:`` included), so a page learns nothing of the server's files."""
    (tmp_path / "real.zip").write_bytes(b"PK")
    for prefix in ("ppo", "search", "rollout", "rllib"):
        answers = set()
        for path in ("/etc/shadow", "/no/such/file.zip", str(tmp_path / "real.zip"), "../../x"):
            text = one_line(client.get(PLAY + f"{prefix}:{path}"), 400)
            answers.add(re.sub(r"opponent '[^']*'", "opponent SPEC", text))  # echoed, cut at 80
        assert len(answers) == 1 and "served models folder" in answers.pop(), prefix


def test_a_shipped_model_plays_by_its_path_in_the_models_folder(tmp_path: Path) -> None:
    """A model named relative to the served folder is given to the bot by absolute path (bots
    run in a folder of their own); a link out of the folder is refused."""
    models = tmp_path / "models"
    (models / "m").mkdir(parents=True)
    outside = tmp_path / "outside.zip"
    outside.write_bytes(b"PK")
    (models / "m" / "link.zip").symlink_to(outside)
    allowed = Allowed.of(models)
    (models / "m" / "model.zip").write_bytes(b"PK")
    options = play_options({"opponents": "ppo:m/model.zip"}, allowed)
    assert options.opponents[0].label == "ppo:m/model.zip"
    assert options.opponents[0].spec == f"ppo:{(models / 'm' / 'model.zip').resolve()}"
    with pytest.raises(ValueError, match="served models folder"):
        play_options({"opponents": "ppo:m/link.zip"}, allowed)


def test_the_shipped_models_are_served_and_offered_by_name() -> None:
    """By default the served folder is the package's shipped models: the start page offers each
    as ``ppo:NAME`` and that name starts its file; a file at a folder's top plays by its name."""
    allowed = Allowed.of()
    offered = suggested_opponents(allowed)
    assert [s for s in offered if s.startswith("ppo:")] == [f"ppo:{n}" for n in shipped.names()]
    options = play_options({"opponents": "ppo:classic4", "players": "4"}, allowed)
    assert {o.spec for o in options.opponents} == {f"ppo:{shipped.model_path('classic4')}"}


def test_bots_that_cannot_load_refuse_the_game_instead_of_sharing_a_win() -> None:
    """Two opponents that fail to load: one line naming both, no game kept, no bot left (a
    forfeit by one would have ranked the other with the person, as co-winner)."""
    store = GameStore()
    with TestClient(create_app(None, code=(TESTS,), store=store), base_url=BASE) as c:
        url = "/play?players=3&opponents=py:tests.faulty_bots:NoSuch,py:tests.faulty_bots:Nope"
        text = one_line(c.get(url), 400)
        assert "could not start P1" in text and "P2" in text and "raised AttributeError" in text
        assert len(store) == 0


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--allow-code", "/nonexistent/bots"],
        ["serve", "--allow-code"],
        ["serve", "--models", "/nonexistent/models"],
        ["serve", "--idle-timeout", "0"],
        ["serve", "--idle-timeout", "nan"],
        ["serve", "--max-games-per-client", "0"],
    ],
)
def test_bad_serve_options_are_one_line_and_exit_2(argv: list[str], capsys) -> None:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "error" in err, err


# Other sites ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("headers", "path", "status"),
    [
        ({"host": "evil.example"}, "/", 400),  # DNS rebinding: a site's name for 127.0.0.1
        ({"host": "evil.example:8000"}, PLAY + "random", 400),
        ({"origin": "http://evil.example"}, PLAY + "random", 403),
        ({"origin": "null"}, PLAY + "random", 403),
        ({"sec-fetch-site": "cross-site"}, PLAY + "random", 403),  # a link or an <img>
        ({"sec-fetch-site": "same-site"}, "/watch", 403),
        ({"sec-fetch-site": "cross-site"}, "/game/x/move/0/0", 403),
    ],
)
def test_another_site_cannot_drive_the_server(
    client: TestClient, headers: dict, path: str, status: int
) -> None:
    method = client.post if "/move/" in path else client.get
    one_line(method(path, headers=headers), status)


def test_own_pages_scripts_and_links_to_the_start_page_are_let_through(client: TestClient) -> None:
    assert client.get("/", headers={"sec-fetch-site": "cross-site"}).status_code == 200
    assert client.get("/", headers={"host": "127.0.0.1:8000"}).status_code == 200
    assert client.get("/", headers={"host": "[::1]:8000"}).status_code == 200
    own = {"origin": BASE, "sec-fetch-site": "same-origin"}
    assert client.get("/watch", headers=own).status_code == 404  # the app's answer: Watch off
    with TestClient(
        create_app(None, allowed_hosts=("camel.lan",)), base_url="http://camel.lan"
    ) as c:
        assert c.get("/").status_code == 200


# The dice --------------------------------------------------------------------------------------
def test_default_seeds_are_drawn_from_the_whole_64_bit_range() -> None:
    """32 default seeds, as ``/play`` draws them: all different and spread over 64 bits (with
    seeds below 10**6, as once, every one of these checks fails)."""
    allowed = Allowed.of()
    seeds = [play_options({}, allowed).seed for _ in range(32)]
    assert len(set(seeds)) == 32
    assert all(0 <= s < 2**SEED_BITS for s in seeds)
    assert any(s >= 2**63 for s in seeds) and sum(s < 2**48 for s in seeds) <= 1


def test_the_opening_does_not_single_out_a_seed_from_a_small_set(client: TestClient) -> None:
    """The attack on guessable seeds: replay every seed of a small set and keep those whose
    opening matches the page's. The game's own seed is not among them, and the seed is in no
    answer before the end."""
    page = client.get(PLAY + "random")
    game = client.app.state.games.get(re.search(r"/game/([\w-]+)", str(page.url))[1])
    rules = RuleSet("classic", num_players=2)
    opening = client.get(f"/game/{game.id}/state.json").json()["state"]
    assert str(game.seed) not in page.text and str(game.seed) not in str(opening)

    def seen(seed: int) -> dict:  # the opening seat 0 sees, as the JSON shows it
        return json.loads(
            json.dumps(public_view(new_game(rules, seed=game_rngs(seed)[0]), 0).to_dict())
        )

    assert seen(game.seed) == opening  # the search would find the game's seed if it tried it
    candidates = [s for s in range(3000) if seen(s) == opening]
    assert game.seed not in candidates and game.seed >= 3000


# Bots ---------------------------------------------------------------------------------------
NET_BOT = """
import json, socket, sys, os
line = sys.stdin.readline()
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2).close()
    what = "connected"
except OSError as exc:
    what = type(exc).__name__
print(json.dumps({"error": f"net={what} cwd={os.getcwd()}"}), flush=True)
"""


def test_a_web_bot_has_no_network_and_a_folder_of_its_own(tmp_path: Path) -> None:
    """A bot tries to reach a port that listens on this machine and reports where it runs; its
    folder is gone once it is killed."""
    probe = "from tournament.sandbox import isolate_network as i; print(i())"
    can = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    if can.stdout.strip() != "True":
        pytest.skip("this platform keeps a bot on the network (docs/web.md says so)")
    script = tmp_path / "net_bot.py"
    script.write_text(NET_BOT)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        entry = AgentEntry("net", f"cmd:{sys.executable} {script} {port}")
        bot = BotProcess(entry, TournamentConfig().limits(), private_dir=True)
        with pytest.raises(BotFault) as fault:
            bot.begin(0, 1, 1, RuleSet("classic", num_players=2))
        folder = bot.folder
        bot.kill()
    assert "net=ConnectionRefusedError" in str(fault.value) or "net=OSError" in str(fault.value)
    assert f"cwd={folder}" in str(fault.value) and folder is not None
    assert not folder.exists()


def test_abandoned_games_expire_on_a_timer_and_free_their_bots() -> None:
    """Two games left alone: the store's own timer closes them (no new request needed), their
    bot processes end, and a client at its limit may start games again."""
    store = GameStore(max_games=2, per_client=2, idle_seconds=4.0)
    with TestClient(create_app(None, store=store), base_url=BASE) as c:
        pages = [c.get(PLAY + "random") for _ in range(2)]
        assert all(p.status_code == 200 for p in pages)
        games = [store.get(re.search(r"/game/([\w-]+)", str(p.url))[1]) for p in pages]
        pids = [b.process.pid for g in games for b in g._bots.values()]
        assert "games are open already" in one_line(c.get(PLAY + "random"), 429)
        deadline = time.monotonic() + 20
        alive = pids
        while (len(store) or alive) and time.monotonic() < deadline:
            time.sleep(0.1)
            alive = [pid for pid in pids if Path(f"/proc/{pid}").exists()]
        assert len(store) == 0 and alive == []
        assert "no such game" in one_line(c.get(f"/game/{games[0].id}"), 404)
        assert c.get(PLAY + "random").status_code == 200


def test_one_client_may_hold_only_its_share_of_the_games() -> None:
    store = GameStore(max_games=8, per_client=1)
    with TestClient(create_app(None, store=store), base_url=BASE) as c:
        assert c.get(PLAY + "random").status_code == 200
        assert "you have 1 unfinished" in one_line(c.get(PLAY + "random"), 429)


def test_finished_games_are_forgotten_soon_and_the_oldest_first() -> None:
    store = GameStore(finished_seconds=3600.0, max_finished=1)
    with TestClient(create_app(None, store=store), base_url=BASE) as c:
        ids = []
        for _ in range(3):
            page = c.get(PLAY + "random")
            game = store.get(re.search(r"/game/([\w-]+)", str(page.url))[1])
            with game.lock:
                game.forfeit = {"seat": 1, "reason": "test: the game is over"}
                game.close()
            ids.append(game.id)
        store.sweep()
        assert [c.get(f"/game/{i}").status_code for i in ids] == [404, 404, 200]


@pytest.fixture
def live_app() -> Iterator[str]:
    """The app on uvicorn in a thread of this process: the server's own worker threads."""
    import uvicorn

    store = GameStore(max_games=8, per_client=8)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(
        create_app(None, store=store), host="127.0.0.1", port=port, log_level="warning"
    )
    live = uvicorn.Server(config)
    thread = threading.Thread(target=live.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not live.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert live.started
    yield f"127.0.0.1:{port}"
    live.should_exit = True
    thread.join(10)


def test_bots_outlive_the_server_threads_that_started_them(live_app: str) -> None:
    """Six games start at once from six request threads, then every player is idle for longer
    than the server keeps an idle worker thread (10 s); the bots were started by threads that
    have ended since, and still every game is played to its end without a forfeit."""
    host, port = live_app.split(":")
    button = re.compile(r'formaction="(/game/[\w-]+/move/\d+/\d+)"')
    results: list[object] = []

    def get(path: str, method: str = "GET") -> tuple[str, str]:
        connection = http.client.HTTPConnection(host, int(port), timeout=60)
        try:
            connection.request(method, path)
            answer = connection.getresponse()
            return answer.getheader("location") or "", answer.read().decode()
        finally:
            connection.close()

    def player() -> None:
        try:
            where, _ = get(PLAY + "random")
            _, page = get(where)
            time.sleep(12)
            while buttons := button.findall(page):
                after, _ = get(buttons[0], "POST")  # the first button: always the roll
                _, page = get(after)
            results.append(json.loads(get(where + "/state.json")[1])["result"])
        except Exception as exc:  # told to the test below
            results.append(exc)

    threads = [threading.Thread(target=player) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 6
    assert [r["forfeit"] for r in results] == [None] * 6  # type: ignore[index]


# Memory over many games ----------------------------------------------------------------------
def _rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", status)[1]) / 1024


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc for RSS")
def test_the_server_memory_stays_flat_over_hundreds_of_games(tmp_path: Path) -> None:
    """A real ``camelup serve`` plays 40 games to warm up, then 200 more, four at a time (the
    person rolls, the bot is random); finished games are forgotten after 2 s. The server's
    resident memory after the 200 is within 25 MB of what it was after the 40."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "camelup_cli", "serve", "--port", str(port)]
    command += ["--idle-timeout", "2"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None and "camelup serve" in server.stdout.readline()
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)

        def request(path: str, method: str = "GET") -> tuple[int, str, str]:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            try:
                connection.request(method, path)
                answer = connection.getresponse()
                return answer.status, answer.getheader("location") or "", answer.read().decode()
            finally:
                connection.close()

        forfeits: list[object] = []
        table = action_table(RuleSet("classic", num_players=2)).actions
        roll = next(i for i, a in enumerate(table) if isinstance(a, TakePyramidTile))

        def play(games: int) -> None:
            for _ in range(games):
                status, where, text = request(PLAY + "random")
                assert status == 303, text
                while True:
                    state = json.loads(request(where + "/state.json")[2])
                    if state["result"] is not None:
                        forfeits.append(state["result"]["forfeit"])
                        break
                    request(f"{where}/move/{len(state['moves'])}/{roll}", "POST")

        def rounds(games: int) -> None:
            threads = [threading.Thread(target=play, args=(games // 4,)) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()

        rounds(40)
        time.sleep(3)  # the finished games are swept
        warm = _rss_mb(server.pid)
        rounds(200)
        time.sleep(3)
        after = _rss_mb(server.pid)
    finally:
        server.terminate()
        server.wait(30)
    assert len(forfeits) == 240 and not any(forfeits)
    assert after - warm < 25, f"server RSS {warm:.0f} MB after 40 games, {after:.0f} after 240"
