"""The table protocol: what a table client and the server say to each other (docs/protocol.md).

One message is one line of UTF-8 JSON: an object with a "type" and the protocol version "v".
Lines are bounded both ways (a peer is untrusted): a client may send at most CLIENT_LINE_MAX
bytes a line, the server at most SERVER_LINE_MAX (a whole table's public record fits).
Parsing errors are ProtocolError, one line of text, never a traceback.

Every message is a typed value (a frozen dataclass below) that the codec writes to its line
and reads back, each field checked: see "the messages, as typed values".
"""
from __future__ import annotations

import asyncio
import json
import math
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from functools import partial
from types import UnionType
from typing import Any, ClassVar, Union, get_args, get_origin, get_type_hints

from ..common.untrusted import LABEL_MAX, shown
from ..engine.codec import decode_move, encode_move
from ..engine.errors import ParseError, Refusal
from ..engine.rules import BOX_PLAYERS, MIN_PLAYERS
from ..saves.record import reason_of

VERSION = 1
CLIENT_LINE_MAX = 4 * 1024  # a client's message is a few dozen bytes; 4 KiB is generous
SERVER_LINE_MAX = 2 * 1024 * 1024  # a snapshot carries the table's public record



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
    except RecursionError:  # "[[[[...": deeper than the JSON reader goes, within the line's bound
        raise ProtocolError("a message nests too deep") from None
    if not isinstance(message, dict):
        raise ProtocolError("a message is a JSON object")
    if message.get("v") != VERSION:
        raise ProtocolError(f"protocol version {VERSION} only")
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in allowed:  # (a list would not even hash)
        raise ProtocolError("unknown message type")
    return message


async def read_line(reader: asyncio.StreamReader, limit: int) -> bytes | None:
    """The next line, or None at the end of the stream. ProtocolError on a bad line."""
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as err:
        if err.partial:
            raise ProtocolError("the stream ended inside a message") from None
        return None
    except asyncio.LimitOverrunError:
        raise ProtocolError(f"message longer than {limit} bytes") from None
    return line


async def receive(reader: asyncio.StreamReader, registry: dict[str, type[Message]],
                  limit: int) -> Message | None:
    """The next message of `registry`, or None at the end of the stream. ProtocolError on a
    line that is no message (the caller ends the connection), FieldError (a ProtocolError) on
    one whose fields are wrong (the caller may answer it and read on)."""
    line = await read_line(reader, limit)
    return None if line is None else decode_message(line, registry, limit)


def move_to_json(move) -> dict | None:
    """A move as the record writes it (RECORD.md), its "family" always: {"card", "family", "to"} or null."""
    return encode_move(move)


def move_from_json(data: object, seat: int, players: int):
    """A move a peer sent, checked for shape only (legality is the engine's); ProtocolError."""
    try:
        return decode_move(data, seat, players)
    except ParseError as err:
        raise ProtocolError(str(err)) from None


def refusal_fields(err: object) -> dict:
    """A refusal as a guest is sent it: the English `text`, and where it has one its `code`
    and values, for the guest's app to say it in its player's language (docs/protocol.md)."""
    reason = reason_of(err) if isinstance(err, Exception) else err
    said: dict[str, Any] = {"text": shown(str(err), LABEL_MAX * 2)}
    code = getattr(reason, "code", None)
    if code:
        said.update(code=code, params={key: list(v) if isinstance(v, tuple) else v for key, v in reason.params.items()})
    return said


# --- the messages, as typed values ---------------------------------------------------------
# Each message is a frozen dataclass; its class names its wire "type" and the side that sends
# it. `encode_message` writes one as the JSON line above, `decode_message` reads a line back
# into one, checking every field against the class: a field the class does not have, a field
# it needs and did not get, or a value of another type is refused (FieldError, with the
# field's own refusal where it has one, so the guest's app can say it in its language). A new
# message is a class here, its sender and its receiver (docs/changing.md).
JSON_OBJECT = dict[str, Any]  # a JSON object its receiver reads with its own reader (a record, a move)


class FieldError(ProtocolError):
    """A message of a known type whose fields are wrong: refused, and the connection stays."""


def _field_refusal(kind: str, name: str, problem: str) -> Refusal:
    return Refusal("message-field", f"{kind}: {name} {problem}", field=name)


def optional(refusal: Refusal | None = None) -> Any:
    """A field left out of the line when it is None (and None when a line leaves it out)."""
    return field(default=None, metadata={"omit": True, "refusal": refusal})


def checked(refusal: Refusal, default: Any = MISSING) -> Any:
    """A field whose wrong type is refused with its own refusal."""
    if default is MISSING:
        return field(metadata={"refusal": refusal})
    return field(default=default, metadata={"refusal": refusal})


@dataclass(frozen=True)
class Message:
    """One message of the protocol; TYPE is its wire "type"."""

    TYPE: ClassVar[str] = ""


CLIENT_MESSAGES: dict[str, type[Message]] = {}  # "type" -> class, for what a client sends
SERVER_MESSAGES: dict[str, type[Message]] = {}  # ... and what the server sends
_HINTS: dict[type, dict[str, Any]] = {}


def _message(kind: str, registry: dict[str, type[Message]]):
    def register(cls: type[Message]) -> type[Message]:
        cls.TYPE = kind
        registry[kind] = cls
        return cls
    return register


client_message = partial(_message, registry=CLIENT_MESSAGES)
server_message = partial(_message, registry=SERVER_MESSAGES)


def to_json(value: Any) -> Any:
    """A message (or one of its parts) as plain JSON values: fields in order, omitted ones left out."""
    if is_dataclass(value):
        return {f.name: to_json(getattr(value, f.name)) for f in fields(value)
                if not (f.metadata.get("omit") and getattr(value, f.name) is None)}
    if isinstance(value, (tuple, list)):
        return [to_json(item) for item in value]
    return value


def encode_message(message: Message) -> bytes:
    return encode(message.TYPE, **to_json(message))


def decode_message(line: bytes, registry: dict[str, type[Message]], limit: int) -> Message:
    """One received line as a message of `registry`: ProtocolError for a line that is no message
    of this protocol (the connection ends), FieldError for one whose fields are wrong."""
    return from_json(decode(line, frozenset(registry), limit), registry)


def from_json(data: dict, registry: dict[str, type[Message]]) -> Message:
    """A message from its JSON object (with "v" and "type"), every field checked."""
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in registry:
        raise ProtocolError("unknown message type")
    body = {key: value for key, value in data.items() if key not in ("v", "type")}
    return _build(registry[kind], body, kind)


def _build(cls: type, data: dict, kind: str) -> Any:
    hints = _HINTS.get(cls) or _HINTS.setdefault(cls, get_type_hints(cls))
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        name = shown(unknown[0], 32)
        raise FieldError(Refusal("message-field", f"{kind}: no field {name} in this message", field=name))
    values = {}
    for name, f in known.items():
        if name not in data:
            if f.default is MISSING and f.default_factory is MISSING:
                raise FieldError(_field_refusal(kind, name, "is missing"))
            continue
        try:
            values[name] = _check(data[name], hints[name], kind)
        except _WrongType:
            refusal = f.metadata.get("refusal")
            if refusal:
                raise FieldError(refusal) from None
            raise FieldError(_field_refusal(kind, name, f"is not {_shape(hints[name])}")) from None
    return cls(**values)


class _WrongType(Exception):
    pass


def _check(value: Any, hint: Any, kind: str) -> Any:
    """`value` as a field of type `hint` holds it (a list as a tuple, an object as its part)."""
    origin = get_origin(hint)
    if origin in (Union, UnionType):
        for member in get_args(hint):
            try:
                return _check(value, member, kind)
            except _WrongType:
                continue
        raise _WrongType
    if origin is tuple:
        if not isinstance(value, list):
            raise _WrongType
        item = get_args(hint)[0]
        return tuple(_check(v, item, kind) for v in value)
    if origin is dict or hint is dict:
        if not isinstance(value, dict):
            raise _WrongType
        return value
    if is_dataclass(hint):
        if not isinstance(value, dict):
            raise _WrongType
        return _build(hint, value, kind)
    if hint is type(None):
        if value is not None:
            raise _WrongType
        return value
    if hint is bool or hint is str:
        if type(value) is not hint:
            raise _WrongType
        return value
    if hint is int:
        if type(value) is not int or not -2**63 <= value < 2**63:
            raise _WrongType
        return value
    if hint is float:
        if type(value) is int:  # (a whole number beyond a float's range would not even convert)
            return _check(value, int, kind)
        if type(value) is not float or not math.isfinite(value):
            raise _WrongType
        return value
    raise TypeError(f"no check for {hint!r}")  # a field type this codec does not know: a bug here


def _shape(hint: Any) -> str:
    """A field's type in words, for a refusal."""
    origin = get_origin(hint)
    if origin in (Union, UnionType):
        return " or ".join(_shape(member) for member in get_args(hint))
    if origin is tuple:
        return f"a list of {_shape(get_args(hint)[0]).removeprefix('a ')}"
    if origin is dict or hint is dict or is_dataclass(hint):
        return "an object"
    return {type(None): "null", bool: "true or false", str: "a text", int: "a whole number",
            float: "a number"}.get(hint, str(hint))


# --- the parts of messages -----------------------------------------------------------------
@dataclass(frozen=True)
class SeatInfo:
    """A seat as everyone sees it: who, whether there, whether a stand-in plays it, its rating."""

    name: str | None
    kind: str
    bot: str | None
    connected: bool
    standin: bool
    ordinal: float | None


@dataclass(frozen=True)
class TableSummary:
    """A table as the lobby lists it (the `table` of a snapshot too)."""

    id: str
    name: str
    seats: int
    taken: int
    humans: int
    bots: int
    variants: tuple[str, ...]
    state: str
    free: tuple[int, ...]
    rated: bool
    seed: int | None = optional()  # only for a table created with one: a fixed deal


@dataclass(frozen=True)
class TopPlayer:
    name: str
    ordinal: float
    games: int


@dataclass(frozen=True)
class LevelRating:
    level: str
    ordinal: float


# --- client -> server ----------------------------------------------------------------------
@client_message("hello")
@dataclass(frozen=True)
class Hello(Message):
    token: str


@client_message("lobby")
@dataclass(frozen=True)
class AskLobby(Message):
    pass


@client_message("create")
@dataclass(frozen=True)
class Create(Message):
    seats: tuple[str, ...] = checked(Refusal("seat-count", f"a table has {MIN_PLAYERS}-{BOX_PLAYERS} seats",
                                             low=MIN_PLAYERS, high=BOX_PLAYERS))
    variants: tuple[str, ...] = checked(Refusal("variant-not-offered", "unknown variant"), default=())
    options: JSON_OBJECT | None = optional(Refusal("table-options", "options are max_by, captain and variant_rounds"))
    seed: int | None = optional(Refusal("seed-not-whole", "the seed is a whole number"))
    name: str | None = optional()
    rated: bool = checked(Refusal("rated-not-bool", "rated is true or false"), default=True)


@client_message("join")
@dataclass(frozen=True)
class Join(Message):
    table: str = checked(Refusal("no-such-table", "no such table"))
    seat: int | None = optional()


@client_message("watch")
@dataclass(frozen=True)
class Watch(Message):
    table: str = checked(Refusal("no-such-table", "no such table"))


@client_message("leave")
@dataclass(frozen=True)
class Leave(Message):
    pass


@client_message("flip")
@dataclass(frozen=True)
class Flip(Message):
    pass


@client_message("choose")
@dataclass(frozen=True)
class Choose(Message):
    move: JSON_OBJECT | None  # as the record writes a move (move_from_json reads it)


@client_message("sync")
@dataclass(frozen=True)
class Sync(Message):
    pass


# --- server -> client ----------------------------------------------------------------------
@server_message("welcome")
@dataclass(frozen=True)
class Welcome(Message):
    name: str


@dataclass(frozen=True)
class Refused(Message):
    """Why: the English `text`, and a `code` with its `params` for the guest's language
    (refusal_fields makes them from a refusal)."""

    text: str
    code: str | None = optional()
    params: JSON_OBJECT | None = optional()


@server_message("error")
@dataclass(frozen=True)
class Error(Refused):
    """A message refused; the connection stays (unless the line was no message at all)."""


@server_message("bye")
@dataclass(frozen=True)
class Bye(Refused):
    """The server is stopping, or the watched table was abandoned."""


@server_message("lobby")
@dataclass(frozen=True)
class Lobby(Message):
    tables: tuple[TableSummary, ...]


@server_message("top")
@dataclass(frozen=True)
class Top(Message):
    players: tuple[TopPlayer, ...]
    levels: tuple[LevelRating, ...]


@server_message("status")
@dataclass(frozen=True)
class Status(Message):
    chosen: tuple[int, ...]
    thinking: tuple[int, ...]
    seconds: int | None
    players: tuple[SeatInfo, ...]


@server_message("seated")
@dataclass(frozen=True)
class Seated(Message):
    table: TableSummary
    seat: int | None
    players: tuple[SeatInfo, ...]
    status: Status
    record: JSON_OBJECT | None = optional()  # the public record, once the game runs
    pending_flips: tuple[int, ...] | None = optional()
    your_move: JSON_OBJECT | None = optional()
    pending_gifts: tuple[JSON_OBJECT | None, ...] | None = optional()


@server_message("flip")
@dataclass(frozen=True)
class Flipped(Message):
    codes: tuple[int, ...]


@server_message("reveal")
@dataclass(frozen=True)
class Reveal(Message):
    moves: tuple[JSON_OBJECT | None, ...]
    standins: tuple[int, ...] = ()


@server_message("round")
@dataclass(frozen=True)
class Round(Message):
    round: JSON_OBJECT  # the new round's public entry


@server_message("note")
@dataclass(frozen=True)
class Note(Message):
    key: str
    name: str | None
    login: str | None = optional()
    seed: int | None = optional()
    table: str | None = optional()


@server_message("left")
@dataclass(frozen=True)
class Left(Message):
    pass


@server_message("announce")
@dataclass(frozen=True)
class Announce(Message):
    """The host's one line to every guest (`duckcover admin announce`)."""

    text: str


CLIENT_TYPES = frozenset(CLIENT_MESSAGES)
SERVER_TYPES = frozenset(SERVER_MESSAGES)
