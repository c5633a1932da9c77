"""One wording for the same event, live or retold after a reconnect (issue 19): a guest who
drops and comes back reads the game so far as she read it live, a stand-in bot's moves for an
absent player said as such in both, in her language (German here; English and the watcher are
in test_app_history_words.py, the stand-in's marks in test_serve_standin.py)."""
from __future__ import annotations

import asyncio

import pytest

from duckcover.app.options import AppOptions
from duckcover.app.remote import RemoteApp
from duckcover.app.table.screen import TableScreen
from duckcover.common import i18n
from duckcover.net.server import TableServer
from duckcover.net.sessions import Identity

from test_app_history_words import explanations  # noqa: F401 - a fixture
from test_serve_client import press_what_is_asked, settle
from test_serve_standin import ANN, ann_and_ben_then_ben_leaves

pytestmark = pytest.mark.keys  # a guest app against a table server: the slow tier

SIZE = (80, 24)


@pytest.fixture
async def server(tmp_path):
    srv = TableServer(tmp_path, grace=0.2, pace=0)
    await srv.start(tmp_path / "tables.sock")
    srv.sock = tmp_path / "tables.sock"
    i18n.set_language("de")
    yield srv
    await srv.close()
    i18n.set_language("en")


def not_told_on_arrival(lines: list[str], explanations: list[str]) -> list[str]:
    """The story of the game: without the table's teaching lines, and without what a player is
    told as she arrives or as others come and go (her return code, the fixed deal, connections)."""
    arrival = (i18n.t("net.return_code", login="").split(":")[0], i18n.t("net.fixed_deal", seed="").split(",")[0])
    comings = (i18n.t("net.disconnected", name=""), i18n.t("net.reconnected", name=""))
    return [line for line in lines if line not in explanations and not line.startswith(arrival)
            and not line.endswith(comings)]


async def test_back_after_a_drop_she_reads_the_game_as_she_played_it_stand_ins_and_all(server, explanations):
    stood_in = i18n.t("log.standin", name="ben")
    ann_app = RemoteApp(AppOptions(data_dir=server.data_dir, speed="instant", lang="de"), str(server.sock),
                        server.issue_token(Identity("ann")))
    async with ann_app.run_test(size=SIZE) as pilot:
        table = await ann_and_ben_then_ben_leaves(server, ann_app, pilot)
        game = table.game
        log = ann_app.table_screen.log_lines
        for _ in range(600):  # Ann plays on past two of Ben's stand-in moves, stopping where she acts
            screen = ann_app.table_screen
            if (sum(stood_in in line for line in log) >= 2 and game.turn_number >= 4
                    and (screen.state == "await-flip" or screen.chooser is not None)):
                break
            await press_what_is_asked(ann_app, pilot)
            await pilot.pause(0.02)
        live = not_told_on_arrival(list(log), explanations)
        turns = game.turn_number
        ann_app.writer.close()  # her connection drops (an SSH session's client process ends)
    for _ in range(200):  # the server sees her connection drop
        if table.seats[ANN].left_at is not None:
            break
        await asyncio.sleep(0.02)
    assert table.seats[ANN].left_at is not None
    # Ann had no key either: she comes back with her seat's return code.
    back = RemoteApp(AppOptions(data_dir=server.data_dir, speed="instant", lang="de"), str(server.sock),
                     server.issue_token(table.seats[ANN].owner))
    async with back.run_test(size=SIZE) as pilot:
        await settle([pilot], lambda: isinstance(back.screen, TableScreen))
        await pilot.pause()
        retold = back.table_screen.log_lines
        resumed = i18n.t("log.resumed", round=1, turn=turns)
        assert resumed in retold, retold[-4:]
        story = not_told_on_arrival(retold[:retold.index(resumed)], explanations)
        assert sum(stood_in in line for line in story) >= 2
        assert story and story == live[:len(story)]
        assert len(live) - len(story) <= 4  # at most the turn she stopped in is not retold yet
        assert not any(line.startswith(("Turn ", "Round ", "Zug ")) for line in story)
