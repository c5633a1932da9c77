"""Ratings on a server: who is rated (the SSH account, a bot by version), which tables are not
rated (marked so by their creator, or with a chosen seed), the top ten in the lobby and each
player's ordinal beside their name, through the real protocol and the Textual client."""
from __future__ import annotations

import asyncio

import pytest

from duckcover.app.options import AppOptions
from duckcover.app.remote import LobbyScreen, RemoteApp, WaitingScreen
from duckcover.common import i18n
from duckcover.net.server import TableServer
from duckcover.net.sessions import Identity
from duckcover.saves import stats
from duckcover.saves.ratings import RatedGame, account_key

from serve_helpers import ProtocolClient, join, play_until

SIZE = (80, 24)


@pytest.fixture
async def server(tmp_path):
    i18n.set_language("en")
    srv = TableServer(tmp_path, grace=30, pace=0)
    srv.sock = tmp_path / "tables.sock"
    await srv.start(srv.sock)
    yield srv
    await srv.close()


async def play_a_table(server, create: dict) -> list[ProtocolClient]:
    """Ann (with a key) creates a table with `create`, Ben joins; they play it to the end."""
    played = len(stats.games(db(server)))
    ann, ben = await join(server, "ann", "SHA256:annkey"), await join(server, "ben")
    ann.send("create", name="t", seats=["human", "human", "easy"], **create)
    await ann.until("seated")
    table = next(t for t in server.tables.values() if t.state() != "over")
    ben.send("join", table=table.id)
    await ben.until("seated")
    await play_until([ann, ben], lambda: table.game is not None and table.game.over, timeout=120)
    # The server adds the game to its statistics as the last turn resolves, and rates it in the
    # same step (persistence.finished). (This waited for the table to go as well, which it does
    # not while its players are connected: 4 s of waiting after every game.)
    for _ in range(200):
        if len(stats.games(db(server))) > played:
            break
        await asyncio.sleep(0.02)
    return [ann, ben]


def db(server):
    return server.data_dir / stats.DB_NAME


async def test_an_unrated_table_and_a_seeded_one_change_no_rating_and_a_rated_one_does(server):
    for client in await play_a_table(server, {"rated": False}):
        await client.close()
    for client in await play_a_table(server, {"seed": 12}):  # a chosen seed is never rated
        await client.close()
    assert len(stats.games(db(server))) == 2  # both still count in the statistics
    assert stats.ratings(db(server)) == {} and server.standings == {}
    clients = await play_a_table(server, {})
    board = stats.ratings(db(server))
    ann = account_key("ann", "SHA256:annkey")
    assert set(board) == {ann, account_key("ben", None), "bot:random@1"}
    assert board[ann].games == 1
    # Rated on top of the standings as the game ended: the numbers a full recompute gives.
    assert {k: v.rating for k, v in server.standings.items()} == {k: v.rating for k, v in board.items()}
    top = await clients[0].until("top")  # sent to everyone when a rated game ends
    assert [item["name"] for item in top["players"]] == [s.label for s in sorted(
        (board[ann], board[account_key("ben", None)]), key=lambda s: -s.rating.ordinal)]
    for client in clients:
        await client.close()


async def test_the_rated_flag_is_checked_and_kept_with_the_table(server):
    ann = await join(server, "ann")
    ann.send("create", seats=["human", "medium"], rated="yes")
    assert "rated" in (await ann.until("error"))["text"]
    ann.send("create", seats=["human", "human"], rated=False)
    seated = await ann.until("seated")
    assert seated["table"]["rated"] is False
    table = next(iter(server.tables.values()))
    restored = server.load_table(server.tables_dir / f"{table.id}.table.json")
    assert restored.rated is False
    await ann.close()


async def test_another_key_with_the_same_user_name_is_another_player(server):
    for client in await play_a_table(server, {}):
        await client.close()
    keys = set(stats.ratings(db(server)))
    assert account_key("ann", "SHA256:annkey") in keys and account_key("ann", None) not in keys


def seed_ratings(server, count: int) -> dict:
    """`count` accounts with distinct ratings, as the server's own statistics would hold them."""
    from duckcover.saves.ratings import compute

    players = [f"p{i:02d}" for i in range(count)]
    games = [RatedGame(i, tuple(account_key(name, None) for name in players), tuple(range(count)))
             for i in range(3)]
    return compute(games)


async def test_the_lobby_shows_the_top_ten_by_pilot_through_the_protocol(server):
    # Two rated games played through the server, then eleven more players with standings: the
    # lobby lists the ten best people (not the bots), best first.
    for client in await play_a_table(server, {}):
        await client.close()
    server.standings.update(seed_ratings(server, 11))
    best = sorted((s for s in server.standings.values() if s.kind != "bot"), key=lambda s: -s.rating.ordinal)
    app = RemoteApp(AppOptions(data_dir=server.data_dir, speed="instant"), str(server.sock),
                    server.issue_token(Identity("cy")))
    async with app.run_test(size=SIZE) as pilot:
        text = ""
        for _ in range(300):
            if isinstance(app.screen, LobbyScreen) and app.screen.is_mounted:
                text = str(app.screen.query_one("#top-ten").render())
                if "p00" in text:
                    break
            await pilot.pause(0.02)
        lines = [line for line in text.splitlines() if line[:3].strip().rstrip(".").isdigit()]
        assert len(lines) == 10
        assert [line.split()[1] for line in lines] == [s.label for s in best[:10]]
        assert f"{best[0].rating.ordinal:.1f}" in lines[0]
        top, bots = text.split("The bots' ratings on this server")
        assert "random" not in top  # the bots are listed apart, each by its one name and rating here
        easy = next(item.ordinal for item in server.level_ratings() if item.level == "easy")
        assert f"Easy (random) {easy:.1f}\n" in bots and "a cautious estimate of skill" in bots


async def test_each_players_ordinal_is_beside_their_name_at_the_table(server):
    for client in await play_a_table(server, {}):
        await client.close()
    ann_rating = server.standings[account_key("ann", "SHA256:annkey")].rating.ordinal
    ann = await join(server, "ann", "SHA256:annkey")
    ann.send("create", seats=["human", "human", "human"])
    seated = await ann.until("seated")
    assert seated["players"][0]["ordinal"] == round(ann_rating, 2)
    assert seated["players"][1]["ordinal"] is None  # an open seat has nobody to rate
    app = RemoteApp(AppOptions(data_dir=server.data_dir, speed="instant"), str(server.sock),
                    server.issue_token(Identity("dee")))
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(300):
            if isinstance(app.screen, LobbyScreen) and app.lobby_tables:
                break
            await pilot.pause(0.02)
        await pilot.press("j")
        text = ""
        for _ in range(300):
            if isinstance(app.screen, WaitingScreen) and app.screen.is_mounted:
                text = str(app.screen.query_one("#waiting").render())
                if "ann" in text:
                    break
            await pilot.pause(0.02)
        assert f"1. ann (human, rating {ann_rating:.1f})" in text and "2. dee (human)\n" in text
    await ann.close()
