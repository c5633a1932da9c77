"""Who is who on the table server: logins, return codes, tokens, and who sits where.

A login is an Identity (the SSH user and the key she offered, or the return code a keyless
player was shown); the SSH front trades it for a single-use token, and the connection that
presents the token is a Client. A Seat is a place at a table and whom it belongs to. The
Sessions part of the TableServer issues the tokens and takes a returning player back to her
seat, or tells her in the lobby why not.
"""
from __future__ import annotations

import asyncio
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from ..common.untrusted import NAME_MAX, shown
from . import protocol as p
from .admission import name_key, network_of, refused_login

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read off a screen, typed back
CODE_LENGTH = 6  # 30 bits; each guess costs an SSH login
CODE_PREFIX = "code:"  # an Identity key that is a return code, never an SSH key's fingerprint
_CODED_LOGIN = re.compile(rf"(.+)\+([{CODE_ALPHABET}]{{{CODE_LENGTH}}})", re.DOTALL)
LOCAL_NETWORK = "local"  # a client whose token names no address (tests, the host's own tools)
SEND_BUFFER_MAX = 4 * 1024 * 1024  # a client that stops reading this far behind is dropped


class Identity(NamedTuple):
    """Who a login is: the SSH user name and the fingerprint of the key they offered (or None)."""

    user: str
    key: str | None = None


class Login(NamedTuple):
    """What a client token stands for: who logged in, and from which network (admission.py)."""

    identity: Identity
    network: str


def login_identity(user: str, key: str | None) -> Identity:
    """Who an SSH login is. Without a key, a login name ending in `+CODE` brings the return
    code a keyless player was shown when she sat down: "ben+K7Q2XY" is ben, holding that code."""
    if key is None:
        coded = _CODED_LOGIN.fullmatch(user)
        if coded:
            return Identity(coded.group(1), CODE_PREFIX + coded.group(2))
    return Identity(user, key)


def new_return_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


@dataclass
class Seat:
    kind: str  # "human" or "bot"
    bot: str | None = None  # a bot seat's difficulty
    name: str | None = None  # None: an open human seat
    owner: Identity | None = None
    client: "Client | None" = None
    left_at: float | None = None  # monotonic time the owner's connection dropped

    @property
    def human(self) -> bool:
        return self.kind == "human"


@dataclass(eq=False)
class Client:
    """One table-client connection, bound to one identity by its token."""

    identity: Identity
    writer: asyncio.StreamWriter
    network: str = LOCAL_NETWORK  # where the login came from: tables are bounded per network
    table: "Table | None" = None  # table_host.Table (named, not imported: it imports this module)
    seat: int | None = None

    def send(self, message: p.Message) -> None:
        if self.writer.is_closing():
            return
        transport = self.writer.transport
        if transport.get_write_buffer_size() > SEND_BUFFER_MAX:
            self.writer.close()  # it stopped reading: drop it rather than hold the table's memory
            return
        self.writer.write(p.encode_message(message))


DOORS = ("ssh", "web")  # the ways in: each guest's Visit names its door (metrics count by door)


@dataclass(eq=False)
class Visit:
    """One guest's session at a door, from its token to its end: who logged in (`user`, the
    login name), through which door, from which address, since when (wall-clock), and how the
    door ends it (`end`, given one line for the guest's terminal). `client` is the table
    server's Client once the session's client has greeted. Listed by `duckcover admin
    sessions`, counted by the metrics, ended by `kick` and `ban`, whatever the door."""

    user: str
    door: str = "ssh"
    address: str | None = None
    since: float = field(default_factory=time.time)
    end: Callable[[str], None] | None = None
    client: Client | None = None

    def matches(self, name: str) -> bool:
        return name_key(self.user) == name_key(name)


class Sessions:
    """The TableServer's logins: tokens for the SSH front, and the way back to a seat.
    (A part of TableServer, server.py: it reads the server's `tables` and `tokens`.)"""

    def issue_token(self, identity: Identity, peer: str | None = None, door: str = "ssh",
                    end: Callable[[str], None] | None = None) -> str:
        """A single-use token for a client of `identity`, who connected from address `peer`
        through `door`. The guest is listed (duckcover admin sessions, the metrics) until the
        door revokes the token; `end` closes its connection (duckcover admin kick)."""
        token = secrets.token_urlsafe(24)
        self.tokens[token] = Login(identity, LOCAL_NETWORK if peer is None else network_of(peer))
        self.visits[token] = Visit(identity.user, door, peer, end=end)
        return token

    def revoke_token(self, token: str) -> None:
        self.tokens.pop(token, None)
        self.visits.pop(token, None)

    def refused_login(self, peer: str | None, identity: Identity) -> tuple[str, str] | None:
        """Why a door turns a login away (the host's ban, a drain), as (reason, one line for
        the guest), or None. Every door asks this before a session starts."""
        return refused_login(self.bans, self.draining, peer, identity.user,
                             returning=self.draining and self.plays_now(identity))

    def plays_now(self, identity: Identity) -> bool:
        """Whether `identity` holds a seat at a game being played now (someone is at its table)."""
        return any(table.activity() == "playing" and table.seat_of(identity) is not None
                   for table in self.tables.values())

    def holds_seat(self, identity: Identity) -> bool:
        """Whether `identity` owns a seat at an unfinished table (a return code that is right)."""
        return any(table.seat_of(identity) is not None for table in self.tables.values() if table.state() != "over")

    def seated_elsewhere(self, identity: Identity) -> bool:
        """Whether a player of `identity`'s name sits, connected, at an unfinished table whose
        seat `identity` does not own (a second login under a name in play)."""
        return any(seat.owner is not None and seat.owner.user == identity.user and seat.owner != identity
                   and seat.client is not None
                   for table in self.tables.values() if table.state() != "over" for seat in table.seats)

    def waiting_seat(self, identity: Identity) -> tuple["Table", Seat] | None:
        """A seat of `identity`'s name, at an unfinished table, that waits for its player while
        this login does not own it (its return code or key is missing)."""
        for table in self.tables.values():
            if table.state() == "over":
                continue
            for seat in table.seats:
                if (seat.owner is not None and seat.owner.user == identity.user and seat.owner != identity
                        and seat.client is None):
                    return table, seat
        return None

    def tell_the_way_back(self, client: Client) -> None:
        """A login that was not taken back to a seat is told why, in the lobby: a return code
        that matches no waiting seat (then it is dropped, and a new one is made when she sits
        down), or a seat of her name that waits for its code or key."""
        identity = client.identity
        if identity.key is not None and identity.key.startswith(CODE_PREFIX) and not self.holds_seat(identity):
            login = f"{shown(identity.user, NAME_MAX)}+{identity.key.removeprefix(CODE_PREFIX)}"
            client.identity = Identity(identity.user, None)
            client.send(p.Note(key="wrong-code", name=shown(identity.user, NAME_MAX), login=login))
        waiting = self.waiting_seat(client.identity)
        if waiting is not None:
            table, seat = waiting
            coded = seat.owner.key is not None and seat.owner.key.startswith(CODE_PREFIX)
            client.send(p.Note(key="seat-waits" if coded else "seat-waits-key",
                               name=shown(identity.user, NAME_MAX), table=table.name))

    def rejoin(self, client: Client) -> bool:
        """A player with a seat at an unfinished table goes straight back to it."""
        for table in self.tables.values():
            seat = table.seat_of(client.identity)
            if seat is not None and table.state() != "over" and table.seats[seat].client is None:
                table.sit(client, seat)
                return True
        return False
