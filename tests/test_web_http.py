"""The web app over plain HTTP (Starlette's TestClient, real bot processes): games, hidden
information, Watch's folder boundary, and a one-line 4xx answer to every bad request."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from camelup_env.game.actions import TakePyramidTile, action_table
from webapp.app import create_app
from webapp.games import GameStore

PLAY = "/play?preset=classic&players=2&seat=0&opponents=random"
#: the address the test client sends (a name the server answers to)
BASE = "http://localhost"
TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def client(runs_root: Path) -> Iterator[TestClient]:
    with TestClient(create_app(runs_root), base_url=BASE, raise_server_exceptions=False) as c:
        yield c


def game_id(response) -> str:
    return re.search(r"/game/([\w-]+)", str(response.url))[1]


def roll_button(rules, html: str) -> str:
    """The form action of the page's roll button (always legal on the person's turn here)."""
    roll = next(
        i for i, a in enumerate(action_table(rules).actions) if isinstance(a, TakePyramidTile)
    )
    return re.search(rf'formaction="([^"]+)" data-action="{roll}"', html)[1].replace("&amp;", "&")


def one_line_refusal(response, status: int) -> str:
    assert response.status_code == status, response.text
    text = response.text
    assert text.endswith("\n") and text.count("\n") == 1 and text.startswith("error: ")
    return text


def test_the_play_url_starts_a_game_whose_legal_actions_are_buttons(client: TestClient) -> None:
    page = client.get(PLAY + "&seed=1")
    assert page.status_code == 200 and "/game/" in str(page.url)
    state = client.get(f"/game/{game_id(page)}/state.json").json()
    buttons = sorted(int(i) for i in re.findall(r'data-action="(\d+)"', page.text))
    assert buttons == state["legal"] and buttons  # seat 0 moves first
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="board"' in page.text
    assert 'id="result"' not in page.text


def test_opponents_race_bet_colours_never_reach_the_page_or_the_json(client: TestClient) -> None:
    """A whole game in which the person only rolls: every page and JSON answer before the end
    shows the random opponent's race-bet cards without their colour, in the board, the moves
    and the state, though the real game knows them (R10)."""
    app = client.app
    page = client.get(PLAY + "&seed=4")
    game = app.state.games.get(game_id(page))
    colours = game.rules.colours
    seen_hidden = 0
    while 'id="result"' not in page.text:
        real = game._state  # the referee's game: the truth the page must not tell
        theirs = [c for c in (*real.winner_pile, *real.loser_pile) if c[0] != 0]
        seen_hidden = max(seen_hidden, len(theirs))
        cards = re.findall(
            r'class="card" data-pile="\w+" data-owner="(\d)" data-camel="(\w+)"', page.text
        )
        assert len(cards) == len(real.winner_pile) + len(real.loser_pile)
        assert all(camel == "hidden" for owner, camel in cards if owner != "0")
        assert not re.search(rf"P1 \(random\): bet on ({'|'.join(colours)})", page.text)
        state = client.get(f"/game/{game.id}/state.json").json()
        piles = state["state"]["winner_pile"] + state["state"]["loser_pile"]
        assert all(camel == -1 for owner, camel in piles if owner != 0)
        assert state["state"]["hands"][1] == -1
        assert all(m["action"] is None for m in state["moves"] if "colour hidden" in m["text"])
        page = client.post(roll_button(game.rules, page.text))
        assert page.status_code == 200
    assert seen_hidden >= 1  # the opponent did bet: the checks above saw hidden cards
    final = re.findall(
        r'class="card" data-pile="\w+" data-owner="\d" data-camel="(\w+)"', page.text
    )
    assert len(final) >= seen_hidden and "hidden" not in final  # the final scoring showed them
    assert re.search(r'class="verdict">\s*(You won!|You share|Winner: P1)', page.text)
    assert f"Seed {game.seed}" in page.text  # told only now: it decides the dice


def test_a_repeated_or_illegal_click_is_refused_and_the_game_goes_on(client: TestClient) -> None:
    page = client.get(PLAY + "&seed=2")
    gid = game_id(page)
    legal = client.get(f"/game/{gid}/state.json").json()["legal"]
    illegal = next(i for i in range(len(legal) + 50) if i not in legal)
    one_line_refusal(client.post(f"/game/{gid}/move/0/{illegal}"), 400)
    one_line_refusal(client.post(f"/game/{gid}/move/0/99999"), 400)
    assert client.post(f"/game/{gid}/move/0/{legal[0]}").status_code == 200
    text = one_line_refusal(client.post(f"/game/{gid}/move/0/{legal[0]}"), 409)
    assert "the game is at move" in text
    assert len(client.get(f"/game/{gid}/state.json").json()["moves"]) >= 2  # ours, then P1's


def test_tabs_play_separate_games(client: TestClient) -> None:
    first, second = client.get(PLAY + "&seed=5"), client.get(PLAY + "&seed=6")
    assert game_id(first) != game_id(second)
    client.post(roll_button(client.app.state.games.get(game_id(first)).rules, first.text))
    moves = [
        len(client.get(f"/game/{game_id(p)}/state.json").json()["moves"]) for p in (first, second)
    ]
    assert moves[0] >= 2 and moves[1] == 0


@pytest.mark.parametrize(
    ("url", "status", "words"),
    [
        ("/play?preset=chess", 400, "unknown preset"),
        ("/play?players=12", 400, "players"),
        ("/play?players=two", 400, "whole number"),
        ("/play?seat=2", 400, "seat must be 0..1"),
        ("/play?opponents=nobody", 400, "unknown agent"),
        ("/play?opponents=human", 400, "you are the human"),
        ("/play?opponents=random,random", 400, "need 1 opponent (or one for all), got 2"),
        ("/play?opponents=ppo:no/such/model.zip", 400, "no such model in the served models"),
        ("/play?opponents=py:agents.random_agent:RandomAgent", 400, "--allow-code"),
        ("/play?opponents=cmd:sh", 400, "--allow-code"),
        ("/game/not-a-game", 404, "no such game"),
        ("/watch/games?dir=../..", 404, "not a folder under the runs root"),
        ("/watch/games?dir=/etc", 404, "not a folder under the runs root"),
        ("/watch/games?dir=", 404, "not a folder under the runs root"),
        ("/watch/games?dir=.", 404, "holds no tournament"),
        ("/watch/game?dir=demo&game=99", 404, "no game 99"),
        ("/watch/game?dir=demo&game=x", 400, "whole number"),
        ("/watch/game?dir=demo&game=0&step=-1", 400, "step must be"),
        ("/nowhere", 404, "Not Found"),
    ],
)
def test_a_bad_request_gets_a_one_line_4xx_and_the_server_goes_on(
    client: TestClient, url: str, status: int, words: str
) -> None:
    assert words in one_line_refusal(client.get(url), status)
    assert client.get("/").status_code == 200


def test_watch_cannot_follow_a_link_out_of_the_runs_root(
    client: TestClient, runs_root: Path, tmp_path: Path
) -> None:
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "games.jsonl").write_text("")
    (runs_root / "escape").symlink_to(tmp_path, target_is_directory=True)
    try:
        assert "escape" not in client.get("/watch").text.split("<main>")[1].split("demo")[0]
        one_line_refusal(client.get("/watch/games?dir=escape"), 404)
    finally:
        (runs_root / "escape").unlink()


def test_watch_lists_the_folders_and_replays_every_step(client: TestClient) -> None:
    assert 'href="/watch/games?dir=demo"' in client.get("/watch").text
    listing = client.get("/watch/games?dir=demo").text
    assert listing.count('class="watch-game"') == 2
    first = client.get("/watch/game?dir=demo&game=0")
    last = int(re.search(r'data-last="(\d+)"', first.text)[1])
    assert "The deal: P0" in first.text and 'id="leg-odds"' in first.text
    end = client.get(f"/watch/game?dir=demo&game=0&step={last}")
    assert 'id="result"' in end.text and "The race is over" in end.text
    one_line_refusal(client.get(f"/watch/game?dir=demo&game=0&step={last + 1}"), 400)


def test_watch_is_off_without_a_runs_folder() -> None:
    with TestClient(create_app(None), base_url=BASE) as c:
        assert "--runs" in one_line_refusal(c.get("/watch"), 404)


def test_a_bot_that_cannot_start_forfeits_and_the_page_says_why(tmp_path: Path) -> None:
    with TestClient(create_app(None, code=(TESTS,)), base_url=BASE) as c:
        page = c.get("/play?players=2&opponents=py:tests.faulty_bots:RaisingBot&seed=1")
        while 'id="result"' not in page.text:  # it raises at its first move
            page = c.post(re.search(r'formaction="([^"]+)"', page.text)[1])
        assert "P1 (py:tests.faulty_bots:RaisingBot) forfeited: raised RuntimeError" in page.text
        assert "You won!" in page.text


def test_more_unfinished_games_than_allowed_are_refused() -> None:
    with TestClient(create_app(None, store=GameStore(max_games=1)), base_url=BASE) as c:
        assert c.get(PLAY + "&seed=1").status_code == 200
        assert "games are open already" in one_line_refusal(c.get(PLAY + "&seed=2"), 429)
