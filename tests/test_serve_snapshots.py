"""Snapshots of the `duckcover serve` client's screens at 80x24 and 120x40, fed canned server
messages (no socket): the lobby, a new table, a table waiting for players, and the table from
a player's own seat while others think.

Update after an intended change with `pytest tests/test_serve_snapshots.py --snapshot-update`.
"""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import duckcover.app as app_module
from duckcover.app.options import AppOptions
from duckcover.app.remote import RemoteApp
from duckcover.engine import Game, Rules
from duckcover.net import protocol as p
from duckcover.net.sessions import Seat
from duckcover.net.table_host import Table

SIZES = [(80, 24), (120, 40)]
TABLES = [
    {"id": "a1", "name": "Friday night", "seats": 4, "taken": 3, "humans": 2, "bots": 2, "variants": [],
     "state": "open", "free": [1], "rated": True},
    {"id": "b2", "name": "[red]not markup[/]", "seats": 5, "taken": 5, "humans": 3, "bots": 2,
     "variants": ["competition", "pressure"], "state": "playing", "free": [], "rated": True},
]


class Scripted(RemoteApp):
    """The client with the server's messages given up front."""

    CSS_PATH = str(Path(app_module.__file__).parent / "duckcover.tcss")  # relative paths follow the subclass

    def __init__(self, tmp_path, messages) -> None:
        super().__init__(AppOptions(data_dir=tmp_path, speed="instant", lang="en"), "", "")
        self.messages = messages

    async def talk(self) -> None:
        for message in self.messages:
            self.on_server(p.from_json({"v": 1, **message}, p.SERVER_MESSAGES))  # as the line would bring it
        await asyncio.Event().wait()


def table_messages() -> list[dict]:
    seats = [Seat("human", name="ann"), Seat("human", name="ben"), Seat("bot", bot="medium", name="Jackson")]
    table = Table("t1", "Friday night", seats, Rules(), 5, server=None)
    table.take_game(Game(["ann", "ben", "Jackson"], Rules(), seed=5))
    table.game.flip()
    players = [{"name": s.name, "kind": s.kind, "bot": s.bot, "connected": i != 1, "standin": False, "ordinal": None}
               for i, s in enumerate(seats)]
    status = {"chosen": [2], "thinking": [0, 1], "seconds": None, "players": players}
    return [{"type": "welcome", "name": "ann"},
            {"type": "seated", "table": p.to_json(table.summary()), "seat": 0, "players": players,
             "record": table.public_record(), "pending_flips": list(table.game.flips), "status": status}]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_lobby(snap_compare, tmp_path, size):
    app = Scripted(tmp_path, [{"type": "welcome", "name": "ann"}, {"type": "lobby", "tables": TABLES}])
    assert snap_compare(app, terminal_size=size)


def test_create_a_table(snap_compare, tmp_path):
    app = Scripted(tmp_path, [{"type": "welcome", "name": "ann"}, {"type": "lobby", "tables": []}])
    assert snap_compare(app, terminal_size=(80, 24), press=["c"])


def test_waiting_for_players(snap_compare, tmp_path):
    players = [{"name": name, "kind": kind, "bot": bot, "connected": True, "standin": False, "ordinal": None}
               for name, kind, bot in (("ann", "human", None), (None, "human", None), ("Gwen", "bot", "hard"))]
    app = Scripted(tmp_path, [{"type": "welcome", "name": "ann"},
                              {"type": "seated", "table": TABLES[0], "seat": 0, "players": players,
                               "status": {"chosen": [], "thinking": [], "seconds": None, "players": players}}])
    assert snap_compare(app, terminal_size=(80, 24))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_table_from_my_seat_while_others_think(snap_compare, tmp_path, size):
    app = Scripted(tmp_path, table_messages())
    assert snap_compare(app, terminal_size=size)
