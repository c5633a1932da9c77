"""One wording for the same event, live or retold (issue 19): the story the log tells first after
`--resume`, a reconnect, or to a watcher who joins mid-game reads as live play did
(`Round 1, flip 1: 11 (Captain ann)`, never `Turn 1: ...`); a watcher who joins is told he
watches from there, not that a game was resumed."""
from __future__ import annotations

import pytest

from autoplay import step, table_of
from duckcover.app import AppOptions, create_app, quick_seats
from duckcover.app.controller import TurnController
from duckcover.app.remote import LobbyScreen, RemoteApp
from duckcover.app.screens.replay import build_timeline, story_lines
from duckcover.app.table.screen import TableScreen
from duckcover.common import i18n
from duckcover.engine import Phase
from duckcover.net import protocol as p
from duckcover.net.server import TableServer
from duckcover.net.sessions import Identity

from test_serve_client import press_what_is_asked
from test_serve_client import settle as settle_clients


@pytest.fixture
def explanations(monkeypatch) -> list[str]:
    """What the table explains of each flip (Max, Repeat): the live log's teaching lines, which
    are not events and are not retold."""
    said = []
    explain = TurnController.explain_flip

    def kept(self, turns_before):
        line = explain(self, turns_before)
        if line:
            said.append(line)
        return line

    monkeypatch.setattr(TurnController, "explain_flip", kept)
    return said


@pytest.mark.parametrize("code", ["en", "de", "fr"])
async def test_the_story_of_a_game_reads_as_its_live_log(tmp_path, code, explanations):
    i18n.set_language(code)
    try:
        app = create_app(AppOptions(seats=quick_seats(2, "Ann"), seed=4, speed="instant", lang=code,
                                    data_dir=tmp_path, stats=False, save=False))
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(300):  # into round 2, past round 1's end and its scores
                await step(pilot)
                game = app.controller.game
                if game.round_index >= 1 and game.turn_number >= 3 and game.phase is Phase.FLIP:
                    break
            assert game.round_index >= 1
            live = [line for line in table_of(app).log_lines if line not in explanations]
            record = app.controller.record()
            story = story_lines(build_timeline(record), record)
            assert story == live
            assert i18n.t("log.round_start", round=2) in story
            assert not any(line.startswith(("Turn ", "Zug ", "Tour ")) for line in story)
    finally:
        i18n.set_language("en")


async def test_a_watcher_who_joins_mid_game_reads_the_same_story_and_is_told_he_watches(tmp_path, explanations):
    i18n.set_language("en")
    srv = TableServer(tmp_path, grace=30, pace=0)
    await srv.start(tmp_path / "t.sock")
    srv.sock = tmp_path / "t.sock"
    try:
        apps = [RemoteApp(AppOptions(data_dir=srv.data_dir, speed="instant"), str(srv.sock),
                          srv.issue_token(Identity(name))) for name in ("ann", "wes")]
        async with apps[0].run_test(size=(80, 24)) as ann, apps[1].run_test(size=(80, 24)) as wes:
            pilots = [ann, wes]
            await settle_clients(pilots, lambda: all(isinstance(a.screen, LobbyScreen) for a in apps))
            apps[0].send(p.Create(seats=("human", "easy", "easy"), seed=2))
            await settle_clients(pilots, lambda: isinstance(apps[0].screen, TableScreen))
            table = next(iter(srv.tables.values()))
            game = table.game
            for _ in range(400):  # Ann plays three turns, and stops where she is to flip or choose
                if game.turn_number >= 3 and (apps[0].table_screen.state == "await-flip"
                                              or apps[0].table_screen.chooser is not None):
                    break
                await press_what_is_asked(apps[0], ann)
                await ann.pause(0.02)
            assert game.turn_number >= 3
            await settle_clients(pilots, lambda: apps[1].lobby_tables)
            await wes.press("w")
            await settle_clients(pilots, lambda: isinstance(apps[1].screen, TableScreen))
            watched = apps[1].table_screen.log_lines
            turns = table.game.turn_number
            assert f"Watching from round 1, after flip {turns}." in watched
            assert not any(line.startswith("Game resumed") for line in watched)
            # Ann's own log also holds her return code (hers alone) and the fixed-deal warning, which
            # everyone is told when they arrive: neither is part of the story of the game.
            told_on_arrival = ("You have no SSH key", "Fixed deal")
            live = [line for line in apps[0].table_screen.log_lines
                    if line not in explanations and not line.startswith(told_on_arrival)]
            watched = [line for line in watched if not line.startswith(told_on_arrival)]
            story = watched[:watched.index(f"Watching from round 1, after flip {turns}.")]
            assert story and story == live[:len(story)]
    finally:
        await srv.close()
