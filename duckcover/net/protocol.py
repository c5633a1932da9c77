"""The table protocol: what a table client and the server say to each other (docs/protocol.md).

One message is one line of UTF-8 JSON: an object with a "type" and the protocol version "v".
Lines are bounded both ways (a peer is untrusted): a client may send at most CLIENT_LINE_MAX
bytes a line, the server at most SERVER_LINE_MAX (a whole table's public record fits).
Parsing errors are ProtocolError, one line of text, never a traceback.
"""
from __future__ import annotations

import asyncio
import json
from typing import Any

from ..engine.codec import decode_move, encode_move
from ..engine.errors import ParseError

VERSION = 1
CLIENT_LINE_MAX = 4 * 1024  # a client's message is a few dozen bytes; 4 KiB is generous
SERVER_LINE_MAX = 2 * 1024 * 1024  # a snapshot carries the table's public record

# What each side may send (anything else is refused with an "error" message).
CLIENT_TYPES = frozenset({"hello", "lobby", "create", "join", "watch", "leave", "flip", "choose", "sync"})
SERVER_TYPES = frozenset({"welcome", "error", "lobby", "seated", "flip", "status", "reveal", "round",
                          "note", "left", "bye", "top", "announce"})


class ProtocolError(ParseError):
    """A line that is not a message of this protocol (too long, not JSON, wrong shape)."""


def encode(kind: str, **fields: Any) -> bytes:
    return (json.dumps({"v": VERSION, "type": kind, **fields}, separators=(",", ":"), ensure_ascii=True)
            + "\n").encode("ascii")


def decode(line: bytes, allowed: frozenset[str], limit: int) -> dict:
    """One received line as a message of a type in `allowed`; ProtocolError otherwise."""
    if len(line) > limit:
        raise ProtocolError(f"message longer than {limit} bytes")
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ProtocolError("a message is one line of JSON") from None
    if not isinstance(message, dict):
        raise ProtocolError("a message is a JSON object")
    if message.get("v") != VERSION:
        raise ProtocolError(f"protocol version {VERSION} only")
    if message.get("type") not in allowed:
        raise ProtocolError("unknown message type")
    return message


async def read_message(reader: asyncio.StreamReader, allowed: frozenset[str], limit: int) -> dict | None:
    """The next message, or None at the end of the stream. ProtocolError on a bad line."""
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as err:
        if err.partial:
            raise ProtocolError("the stream ended inside a message") from None
        return None
    except asyncio.LimitOverrunError:
        raise ProtocolError(f"message longer than {limit} bytes") from None
    return decode(line, allowed, limit)


def move_to_json(move) -> dict | None:
    """A move as the record writes it (RECORD.md), its "family" always: {"card", "family", "to"} or null."""
    return encode_move(move)


def move_from_json(data: object, seat: int, players: int):
    """A move a peer sent, checked for shape only (legality is the engine's); ProtocolError."""
    try:
        return decode_move(data, seat, players)
    except ParseError as err:
        raise ProtocolError(str(err)) from None
