"""A table client that speaks the protocol directly (no Textual), for the serve tests.

It keeps the same mirror a real client keeps (the public record replayed, then moved on by
flips and reveals), so it can choose legal moves and compare what it saw with the record.
"""
from __future__ import annotations

import asyncio
import json

import asyncssh

from duckcover.engine import CHOOSING, Phase
from duckcover.net import protocol as p
from duckcover.saves.record import _replay_round, replay


class Guest(asyncssh.SSHClient):
    """An SSH client without a key: keyboard-interactive with no questions, as OpenSSH does it."""

    def kbdint_auth_requested(self):
        return ""

    def kbdint_challenge_received(self, name, instructions, lang, prompts):
        return []


class ProtocolClient:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.inbox: list[dict] = []  # every message, in order
        self.game = None
        self.seat: int | None = None
        self.reveals: list[list] = []
        self.raw: list[bytes] = []
        self.acted: set = set()  # (what, round, turn, phase) already sent: one flip, one choice each

    def once(self, what: str) -> bool:
        game = self.game
        key = (what, game.round_index, game.turn_number, game.phase)
        if key in self.acted:
            return False
        self.acted.add(key)
        return True

    @classmethod
    async def connect(cls, socket_path, token: str) -> "ProtocolClient":
        reader, writer = await asyncio.open_unix_connection(str(socket_path), limit=p.SERVER_LINE_MAX + 1)
        client = cls(reader, writer)
        client.send("hello", token=token)
        return client

    def send(self, kind: str, **fields) -> None:
        self.writer.write(p.encode(kind, **fields))

    async def next(self, timeout: float = 10.0) -> dict | None:
        line = await asyncio.wait_for(self.reader.readline(), timeout)
        if not line:
            return None
        self.raw.append(line)
        message = p.decode(line, p.SERVER_TYPES, p.SERVER_LINE_MAX)
        self.inbox.append(message)
        self.apply(message)
        return message

    async def until(self, kind: str, timeout: float = 10.0) -> dict:
        while True:
            message = await self.next(timeout)
            assert message is not None, f"connection closed while waiting for {kind!r}"
            if message["type"] == kind:
                return message

    def apply(self, message: dict) -> None:
        kind = message["type"]
        if kind == "seated" and message.get("record"):
            self.seat = message["seat"]
            self.game = replay(message["record"], unseen=True)
            if message.get("pending_flips") and self.game.phase is Phase.FLIP:
                self.game.flip(*message["pending_flips"])
                if message.get("pending_gifts") and self.game.phase is Phase.GIFT:
                    self.game.play(self.moves(message["pending_gifts"]))
        elif kind == "seated":
            self.seat = message["seat"]
        elif kind == "flip" and self.game is not None:
            self.game.flip(*message["codes"])
        elif kind == "reveal" and self.game is not None:
            self.reveals.append(message["moves"])
            self.game.play(self.moves(message["moves"]))
        elif kind == "round" and self.game is not None:
            _replay_round(self.game, self.game.round_index + 2, dict(message["round"], turns=[]), unseen=True)

    def moves(self, items: list) -> list:
        return [p.move_from_json(item, seat, self.game.n) for seat, item in enumerate(items)]

    def my_turn_to_choose(self, status: dict) -> bool:
        game = self.game
        return (game is not None and self.seat is not None and game.phase in CHOOSING
                and self.seat in status.get("thinking", []) and self.seat in game.awaiting)

    def choose_first_legal(self) -> None:
        moves = self.game.view(self.seat).legal_moves()
        self.send("choose", move=p.move_to_json(moves[0]) if moves else None)

    async def close(self) -> None:
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except (ConnectionError, OSError):
            pass


async def play_until(clients: list[ProtocolClient], done, timeout: float = 60.0, think=None, heard=None) -> None:
    """Every client flips when it is Captain and chooses its first legal move when asked,
    until done() is true or the game is over. `think(client)` is awaited before each choice,
    `heard(client, message)` called on each message (the benchmark times reveals with them)."""
    def act(client: ProtocolClient, status: dict) -> bool:
        game = client.game
        if game.phase is Phase.FLIP and game.captain == client.seat and client.once("flip"):
            client.send("flip")
        return client.my_turn_to_choose(status) and client.once("choose")

    async def run(client: ProtocolClient) -> None:
        if client.game is not None:
            act(client, {})  # a Captain whose cue came before this call
        while not done():
            try:
                message = await client.next(timeout=0.5)
            except asyncio.TimeoutError:
                continue
            if message is None:
                return
            if heard is not None:
                heard(client, message)
            if client.game is None or message["type"] not in ("seated", "reveal", "round", "status", "flip"):
                continue
            if client.game.over:
                return
            if act(client, message if message["type"] == "status" else message.get("status", {})):
                if think is not None:
                    await think(client)
                client.choose_first_legal()

    await asyncio.wait_for(asyncio.gather(*(run(c) for c in clients)), timeout)


async def join(server, name: str, key: str | None = None, peer: str | None = None) -> ProtocolClient:
    """A protocol client logged in to the in-process `server` as `name` (with `key`, from the
    address `peer`), welcomed."""
    from duckcover.net.sessions import Identity

    client = await ProtocolClient.connect(server.sock, server.issue_token(Identity(name, key), peer))
    await client.until("welcome")
    return client


def carried(raw: list[bytes], text: str) -> bool:
    return any(text in json.dumps(json.loads(line)) for line in raw)
