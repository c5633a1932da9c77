"""The Textual client of `duckcover serve`, played by keys (Pilot) against a real table server.

Each app here is the same RemoteApp an SSH session runs, connected over the server's local
socket; the SSH layer itself is tested in test_serve_ssh.py.
"""
from __future__ import annotations

import pytest

from autoplay import keys_to
from duckcover.app.options import AppOptions
from duckcover.app.remote import LobbyScreen, RemoteApp, RemoteTable, WaitingScreen
from duckcover.app.screens.core import RoundEndScreen
from duckcover.app.table.screen import TableScreen
from duckcover.app.render.paint import LinePainter
from duckcover.common import i18n
from duckcover.net import protocol as p
from duckcover.net.server import TableServer
from duckcover.net.sessions import Identity

SIZE = (80, 24)


@pytest.fixture
async def server(tmp_path):
    i18n.set_language("en")
    srv = TableServer(tmp_path, grace=30, pace=0)
    await srv.start(tmp_path / "tables.sock")
    srv.sock = tmp_path / "tables.sock"
    yield srv
    await srv.close()


def client(server, name: str) -> RemoteApp:
    app = RemoteApp(AppOptions(data_dir=server.data_dir, speed="instant"), str(server.sock),
                    server.issue_token(Identity(name)))
    return app


async def settle(pilots, until, rounds: int = 400) -> None:
    for _ in range(rounds):
        if until():
            return
        await pilots[0].pause(0.02)
    raise AssertionError("the clients never got there")


async def press_what_is_asked(app: RemoteApp, pilot) -> None:
    """A player who flips when Captain, takes the cursor's cell when asked, and reads on."""
    screen = app.screen
    if isinstance(screen, RoundEndScreen):
        await pilot.press("enter")
    elif isinstance(screen, TableScreen):
        if screen.state == "await-flip":
            await pilot.press("space")
        elif screen.state == "choosing" and screen.chooser is not None:
            grid = screen.query_one("#own-panel").grid
            keys = []
            if hasattr(grid, "origin"):  # arrows walk the legal cells; the moving card is none of them
                offer = grid.cursor if grid.cursor in grid.targets else grid.cycle_order()[0]
                keys = keys_to(grid.cursor, offer, grid.targets, grid.origin)
            await pilot.press(*keys, "enter")


async def ann_and_ben_with_two_bots(server, apps, pilots):
    """Ann creates the default table (her seat, an open seat, two medium bots) by keys and Ben
    joins it; returns the server's table once both sit at it."""
    ann, ben = pilots
    await settle(pilots, lambda: all(isinstance(a.screen, LobbyScreen) for a in apps))
    await ann.press("c")
    await settle(pilots, lambda: type(apps[0].screen).__name__ == "CreateTableScreen")
    await ann.pause(0.2)
    await ann.press("ctrl+s")
    await settle(pilots, lambda: isinstance(apps[0].screen, WaitingScreen))
    await settle(pilots, lambda: apps[1].lobby_tables)
    await ben.press("j")
    await settle(pilots, lambda: all(isinstance(a.screen, TableScreen) for a in apps))
    return next(iter(server.tables.values()))


async def test_lobby_create_join_and_play_by_keys_all_see_the_same_reveals(server):
    apps = [client(server, name) for name in ("ann", "ben", "cy")]
    async with apps[0].run_test(size=SIZE) as ann, apps[1].run_test(size=SIZE) as ben, \
            apps[2].run_test(size=SIZE) as cy:
        pilots = [ann, ben, cy]
        await settle(pilots, lambda: all(isinstance(a.screen, LobbyScreen) for a in apps))
        await ann.press("c")
        await settle(pilots, lambda: type(apps[0].screen).__name__ == "CreateTableScreen")
        screen = apps[0].screen
        from textual.widgets import Select

        screen.query_one("#kind-2", Select).value = "human"  # you, two open seats, a medium bot
        await ann.press("ctrl+s")
        await settle(pilots, lambda: isinstance(apps[0].screen, WaitingScreen))
        await settle(pilots, lambda: apps[1].lobby_tables and apps[2].lobby_tables)
        await ben.press("j")
        await cy.press("j")
        await settle(pilots, lambda: all(isinstance(a.screen, TableScreen) for a in apps))
        table = next(iter(server.tables.values()))
        assert [s.name for s in table.seats] == ["ann", "ben", "cy", "Jackson"]
        assert [a.controller.my_seat for a in apps] == [0, 1, 2]
        for app in apps:  # the local table screen itself, asking a table whose answers are the server's
            assert type(app.screen) is TableScreen and isinstance(app.screen.ctl, RemoteTable)
            assert app.screen.check_action("settings", ()) is False  # the settings file is the host's
        # Play by keys until four turns are revealed.
        for _ in range(600):
            if table.game.turn_number >= 4:
                break
            for app, pilot in zip(apps, pilots):
                await press_what_is_asked(app, pilot)
            await ann.pause(0.02)
        await settle(pilots, lambda: all(a.controller.game.turn_number == table.game.turn_number for a in apps))
        game = table.game
        reveals = [[line for line in a.table_screen.log_lines if line.startswith("  ")] for a in apps]
        assert reveals[0] and reveals[0] == reveals[1] == reveals[2]
        for app in apps:
            mirror = app.controller.game
            assert mirror.totals == game.totals and mirror.draw_size == game.draw_size
            assert [dict(mirror.grid(s)) for s in range(4)] == [dict(game.grid(s)) for s in range(4)]
            assert mirror.seed == 0  # the seed (and with it the deck order) never left the server


async def test_countdown_ends_with_the_referee_fallback_said_in_the_log(tmp_path):
    i18n.set_language("en")
    srv = TableServer(tmp_path, turn_seconds=1, grace=30, pace=0)
    await srv.start(tmp_path / "t.sock")
    srv.sock = tmp_path / "t.sock"
    try:
        apps = [client(srv, "ann"), client(srv, "ben")]
        async with apps[0].run_test(size=SIZE) as ann, apps[1].run_test(size=SIZE) as ben:
            pilots = [ann, ben]
            await settle(pilots, lambda: all(isinstance(a.screen, LobbyScreen) for a in apps))
            apps[0].send(p.Create(seats=("human", "human"), seed=4))
            await settle(pilots, lambda: apps[1].lobby_tables)
            await ben.press("j")
            await settle(pilots, lambda: all(isinstance(a.screen, TableScreen) for a in apps))
            # Nobody presses anything: the Captain's flip and both choices run out of time.
            await settle(pilots, lambda: any("Played for ben: time." in line
                                             for line in apps[0].table_screen.log_lines), rounds=250)
            assert any("Played for ann: time." in line for line in apps[1].table_screen.log_lines)
            assert "s left" in apps[0].table_screen.prompt_text or apps[0].table_screen.state == "pause"
    finally:
        await srv.close()


async def test_a_watcher_sees_the_table_without_a_seat(server):
    apps = [client(server, "ann"), client(server, "wes")]
    async with apps[0].run_test(size=SIZE) as ann, apps[1].run_test(size=SIZE) as wes:
        pilots = [ann, wes]
        await settle(pilots, lambda: all(isinstance(a.screen, LobbyScreen) for a in apps))
        apps[0].send(p.Create(seats=("human", "easy", "easy"), seed=2))
        await settle(pilots, lambda: apps[1].lobby_tables and apps[1].lobby_tables[0]["state"] == "playing")
        await wes.press("w")
        await settle(pilots, lambda: isinstance(apps[1].screen, TableScreen))
        watcher = apps[1].controller
        assert watcher.my_seat is None and watcher.humans == []
        await ann.press("space")  # Ann flips; the watcher sees the flip but is never asked anything
        await settle(pilots, lambda: apps[1].controller.game.turn_number >= 1 or apps[1].controller.views)
        assert apps[1].table_screen.chooser is None


async def test_a_new_table_plays_a_variant_in_some_rounds_only_and_the_lobby_says_which(server):
    from textual.widgets import Checkbox, Input

    apps = [client(server, "ann"), client(server, "ben")]
    async with apps[0].run_test(size=SIZE) as ann, apps[1].run_test(size=SIZE) as ben:
        pilots = [ann, ben]
        await settle(pilots, lambda: all(isinstance(a.screen, LobbyScreen) for a in apps))
        await ann.press("c")
        await settle(pilots, lambda: type(apps[0].screen).__name__ == "CreateTableScreen")
        screen = apps[0].screen
        screen.query_one("#variant-pressure", Checkbox).value = True  # ticked: every round
        screen.query_one("#variant-rounds", Input).value = "competition:9"
        await ann.press("ctrl+s")
        await ann.pause()
        assert type(apps[0].screen).__name__ == "CreateTableScreen"  # refused here, nothing sent
        assert not server.tables
        screen.query_one("#variant-rounds", Input).value = "competition:3"
        await ann.press("ctrl+s")
        await settle(pilots, lambda: isinstance(apps[0].screen, WaitingScreen))
        rules = next(iter(server.tables.values())).rules
        assert rules.variants == {"pressure", "competition"}
        assert dict(rules.variant_rounds) == {"competition": (3,)}
        await settle(pilots, lambda: apps[1].lobby_tables)
        assert apps[1].lobby_tables[0]["variants"] == ["competition:3", "pressure"]
        row = apps[1].screen.query_one("#tables").get_row_at(0)
        assert "competition:3, pressure" in str(row[3])


async def test_the_server_takes_only_the_rules_options_a_new_table_has(server):

    app = client(server, "ann")
    async with app.run_test(size=SIZE) as ann:
        await settle([ann], lambda: isinstance(app.screen, LobbyScreen))
        app.send(p.Create(seats=("human", "easy"), options={"splashes": [0] * 12}))
        app.send(p.Create(seats=("human", "easy"), options={"variant_rounds": {"competition": [4]}},
                          variants=("competition",)))
        await ann.pause(0.3)
        assert not server.tables


async def test_a_player_who_is_not_choosing_sees_all_a_reveal_changes_in_its_first_frame(server):
    """Over SSH every frame is a write for every onlooker of a reveal (and was a compositor pass
    each). Everything the reveal changes (the grids, the seat titles, the log and the status line
    that says nobody is thinking any more) is drawn in the reveal's first frame, as lines
    (render/paint.py), not by Textual's compositor: widgets that told their screen one by one,
    and the server's status after the reveal, had spread it over two or three. (What the step
    after the reveal changes, such as the Captain's flip prompt, may follow in a frame of its
    own.)"""
    apps = [client(server, name) for name in ("ann", "ben")]
    frames: list[list[set[str]]] = []  # Ann's frames after each reveal, up to the next flip or round
    real_receive, real_refresh, real_flush = RemoteTable.receive, TableScreen._compositor_refresh, LinePainter.flush

    def receive(table, message):
        if table is apps[0].controller and message.TYPE in ("reveal", "flip", "round"):
            counting[0] = message.TYPE == "reveal"
            if counting[0]:
                frames.append([])
        return real_receive(table, message)

    def drawn(widgets, by: str) -> set[str]:
        return {type(widget).__name__ for widget in widgets} | {widget.id for widget in widgets if widget.id} | {by}

    def refresh(screen):
        if screen is apps[0].table_screen and counting[0] and screen._dirty_widgets:
            frames[-1].append(drawn(screen._dirty_widgets, "compositor"))
        return real_refresh(screen)

    def flush(painter):
        if painter.screen is apps[0].table_screen and counting[0]:
            places = painter.places()
            frames[-1].append(drawn([widget for widget in painter.pending if widget in places], "lines"))
        return real_flush(painter)

    counting = [False]
    RemoteTable.receive, TableScreen._compositor_refresh, LinePainter.flush = receive, refresh, flush
    try:
        async with apps[0].run_test(size=SIZE) as ann, apps[1].run_test(size=SIZE) as ben:
            table = await ann_and_ben_with_two_bots(server, apps, [ann, ben])
            for _ in range(300):
                if table.game.turn_number >= 5 or table.game.round_index > 0:
                    break
                await press_what_is_asked(apps[0], ann)  # Ann first: Ben's choice completes the turn
                await ann.pause(0.05)
                await press_what_is_asked(apps[1], ben)
                await ann.pause(0.1)
    finally:
        RemoteTable.receive, TableScreen._compositor_refresh, LinePainter.flush = real_receive, real_refresh, real_flush
    after_reveals = [after for after in frames if after]  # (none: the next flip came in the same read)
    assert len(after_reveals) >= 3, frames
    for first, *later in after_reveals:
        assert {"GridWidget", "SeatTitle", "log", "lines"} <= first, after_reveals
        assert not any(frame & {"log", "status"} for frame in later), after_reveals
        # What Textual changes after it (the focus leaving the own grid, a Captain's title restyled)
        # is drawn as lines too, at once: never a compositor frame waiting for Textual's timer.
        assert all("lines" in frame for frame in later), after_reveals


async def test_a_seated_guest_keeps_its_table_out_of_the_collectors_sight(server):
    """Everything on screen once a table is up lasts as long as the table: it is frozen, so a
    full collection in the middle of a reveal no longer walks it (see keep_out_of_collections)."""
    import gc

    apps = [client(server, name) for name in ("ann", "ben")]
    before = gc.get_freeze_count()
    try:
        async with apps[0].run_test(size=SIZE) as ann, apps[1].run_test(size=SIZE) as ben:
            await ann_and_ben_with_two_bots(server, apps, [ann, ben])
            await settle([ann, ben], lambda: gc.get_freeze_count() > before)
            screen = apps[0].table_screen
            assert gc.is_tracked(screen)
            assert not any(obj is screen for obj in gc.get_objects())  # frozen: no generation holds it
    finally:
        gc.unfreeze()


async def test_a_guest_without_a_time_limit_has_no_clock_ticking(server):
    """The countdown's once-a-second clock runs only while the server counts down: at a table
    without a time limit a guest's process sleeps between messages (48 guests woke 48 times a
    second for nothing)."""
    apps = [client(server, name) for name in ("ann", "ben")]
    ticks = []
    real = RemoteTable.tick
    RemoteTable.tick = lambda table: ticks.append(table) or real(table)
    try:
        async with apps[0].run_test(size=SIZE) as ann, apps[1].run_test(size=SIZE) as ben:
            await ann_and_ben_with_two_bots(server, apps, [ann, ben])
            await ann.pause(1.3)  # (the clock's interval is a second)
            assert apps[0].controller.deadline is None and ticks == []
            apps[0].controller.receive(p.Status(chosen=(), thinking=(0,), seconds=30, players=()))
            await ann.pause(1.3)
            assert apps[0].controller in ticks  # a countdown: the clock runs and the line counts down
            assert "s left" in apps[0].table_screen.prompt_text
    finally:
        RemoteTable.tick = real
