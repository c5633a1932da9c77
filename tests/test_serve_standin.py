"""A player away over SSH (issue 19): the stand-in bot's move is said as such in every log and
marked in the record, and a player back mid-turn sees the move chosen for him before the reveal.
Ann plays by keys in the Textual client; Ben speaks the protocol (tests/serve_helpers.py), then
comes back in the Textual client."""
from __future__ import annotations

import pytest

from duckcover.app.options import AppOptions
from duckcover.app.remote import LobbyScreen, RemoteApp
from duckcover.app.table.screen import TableScreen
from duckcover.common import i18n
from duckcover.engine import CHOOSING
from duckcover.net import protocol as p
from duckcover.net.records import record_of
from duckcover.net.server import TableServer
from duckcover.net.sessions import Identity
from duckcover.saves.record import read_turn_seats

from serve_helpers import ProtocolClient
from test_serve_client import press_what_is_asked, settle

SIZE = (80, 24)
ANN, BEN = 0, 1
STOOD_IN = "(ben is away: a stand-in bot chose this move.)"


@pytest.fixture
async def server(tmp_path):
    i18n.set_language("en")
    srv = TableServer(tmp_path, grace=0.2, pace=0)
    await srv.start(tmp_path / "tables.sock")
    srv.sock = tmp_path / "tables.sock"
    yield srv
    await srv.close()


def client(server, name: str) -> RemoteApp:
    return RemoteApp(AppOptions(data_dir=server.data_dir, speed="instant"), str(server.sock),
                     server.issue_token(Identity(name)))


async def ann_and_ben_then_ben_leaves(server, ann_app, pilot):
    """Ann opens a two-seat table, Ben joins over the protocol and drops; returns the table."""
    await settle([pilot], lambda: isinstance(ann_app.screen, LobbyScreen))
    ann_app.send(p.Create(seats=("human", "human"), seed=4, name="t"))
    await settle([pilot], lambda: server.tables)
    table = next(iter(server.tables.values()))
    ben = await ProtocolClient.connect(server.sock, server.issue_token(Identity("ben")))
    await ben.until("welcome")
    ben.send("join", table=table.id)
    await ben.until("seated")
    await settle([pilot], lambda: isinstance(ann_app.screen, TableScreen))
    await ben.close()
    await settle([pilot], lambda: table.seats[BEN].left_at is not None)
    return table


async def test_a_stand_in_move_is_said_in_the_log_and_marked_in_the_record(server):
    ann_app = client(server, "ann")
    async with ann_app.run_test(size=SIZE) as pilot:
        table = await ann_and_ben_then_ben_leaves(server, ann_app, pilot)
        log = ann_app.table_screen.log_lines
        for _ in range(400):
            if any(STOOD_IN in line for line in log):
                break
            await press_what_is_asked(ann_app, pilot)
            await pilot.pause(0.02)
        at = next(i for i, line in enumerate(log) if STOOD_IN in line)
        # Said right below that turn's moves, after Ben's own line.
        assert any(line.strip().startswith("ben ") for line in log[at - 3:at]), log[at - 4:at + 1]
        marks = read_turn_seats(record_of(table), "standins")
        assert marks and all(seats == [BEN] for seats in marks.values())
        # What anyone joining now reads of the game so far tells the same marks, in the same words.
        story = ann_app.story_so_far(table.public_record(), table.game)
        assert sum(STOOD_IN in line for line in story) == len(marks)


async def test_back_mid_turn_he_sees_the_move_chosen_for_him_and_nobody_else_does(server):
    ann_app = client(server, "ann")
    async with ann_app.run_test(size=SIZE) as pilot:
        table = await ann_and_ben_then_ben_leaves(server, ann_app, pilot)
        game = table.game

        def ben_chosen_ann_to_choose() -> bool:
            return game.phase in CHOOSING and table.chosen.get(BEN) is not None and ANN in table.views \
                and ANN not in table.chosen

        for _ in range(400):  # Ann flips when Captain and plays on until a turn where Ben must move
            if ben_chosen_ann_to_choose():
                break
            screen = ann_app.screen
            if not (isinstance(screen, TableScreen) and screen.chooser is not None and BEN in table.views):
                await press_what_is_asked(ann_app, pilot)
            await pilot.pause(0.02)
        assert ben_chosen_ann_to_choose()
        assert table.snapshot(ANN).your_move is None and table.snapshot(None).your_move is None
        # Ben has no key: he comes back with the return code his seat was given (serve's rule).
        ben_app = RemoteApp(AppOptions(data_dir=server.data_dir, speed="instant"), str(server.sock),
                            server.issue_token(table.seats[BEN].owner))
        async with ben_app.run_test(size=SIZE) as ben_pilot:
            await settle([ben_pilot], lambda: isinstance(ben_app.screen, TableScreen))
            await ben_pilot.pause()
            lines = ben_app.table_screen.log_lines
            told = [line for line in lines if line.startswith("You were away: a stand-in bot chose your move: ben ")]
            assert told, lines[-5:]
            assert table.chosen.get(BEN) is not None and ANN not in table.chosen  # still before the reveal


async def test_back_mid_turn_he_may_change_the_stand_ins_move_while_the_turn_is_open(server):
    """Issue 30: the returning player sees the move his stand-in chose and is asked to choose;
    his own choice replaces the stand-in's (no longer marked as the stand-in's) before the reveal."""
    ann_app = client(server, "ann")
    async with ann_app.run_test(size=SIZE) as pilot:
        table = await ann_and_ben_then_ben_leaves(server, ann_app, pilot)
        game = table.game

        def ben_chosen_ann_to_choose() -> bool:
            return game.phase in CHOOSING and table.chosen.get(BEN) is not None and ANN in table.views \
                and ANN not in table.chosen

        for _ in range(400):
            if ben_chosen_ann_to_choose():
                break
            screen = ann_app.screen
            if not (isinstance(screen, TableScreen) and screen.chooser is not None and BEN in table.views):
                await press_what_is_asked(ann_app, pilot)
            await pilot.pause(0.02)
        assert ben_chosen_ann_to_choose() and table.turns.standin_chose(BEN)
        ben_app = RemoteApp(AppOptions(data_dir=server.data_dir, speed="instant"), str(server.sock),
                            server.issue_token(table.seats[BEN].owner))
        async with ben_app.run_test(size=SIZE) as ben_pilot:
            await settle([ben_pilot], lambda: isinstance(ben_app.screen, TableScreen)
                         and ben_app.screen.chooser == BEN)  # asked to choose, though his stand-in has
            lines = ben_app.table_screen.log_lines
            assert any("a stand-in bot chose your move" in line and "Choose another while the turn is open"
                       in line for line in lines), lines[-4:]
            turn = (game.round_index, game.turn_number)
            await press_what_is_asked(ben_app, ben_pilot)  # by keys, as he would
            await settle([ben_pilot], lambda: not table.turns.standin_chose(BEN))
            assert table.chosen.get(BEN) is not None and ANN not in table.chosen  # still before the reveal
            await press_what_is_asked(ann_app, pilot)  # Ann chooses: the reveal
            await settle([ben_pilot], lambda: (game.round_index, game.turn_number) != turn)
            assert turn not in read_turn_seats(record_of(table), "standins")  # his own move, unmarked
