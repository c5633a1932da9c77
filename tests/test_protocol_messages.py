"""The protocol's messages as typed values (duckcover/net/protocol.py): every message type
goes through its line and back unchanged, and a line whose fields are wrong is refused with
a reason that names the field, never a traceback."""
from __future__ import annotations

import json
import math
import re
import typing
from dataclasses import fields, is_dataclass
from pathlib import Path
from types import UnionType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duckcover.net import protocol as p

JSON_SCALARS = st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.text(max_size=12) \
    | st.floats(allow_nan=False, allow_infinity=False)
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)
JSON_OBJECTS = st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4)


def values_of(hint) -> st.SearchStrategy:
    """Every value a field of type `hint` may hold, as the codec types it."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, UnionType):
        return st.one_of([values_of(member) for member in typing.get_args(hint)])
    if origin is tuple:
        return st.lists(values_of(typing.get_args(hint)[0]), max_size=4).map(tuple)
    if origin is dict:
        return JSON_OBJECTS
    if is_dataclass(hint):
        return instances_of(hint)
    return {type(None): st.none(), bool: st.booleans(), str: st.text(max_size=20),
            int: st.integers(-2**63, 2**63 - 1),
            float: st.floats(allow_nan=False, allow_infinity=False)}[hint]


def instances_of(cls) -> st.SearchStrategy:
    hints = typing.get_type_hints(cls)
    return st.builds(cls, **{f.name: values_of(hints[f.name]) for f in fields(cls)})


EVERY_MESSAGE = sorted([*p.CLIENT_MESSAGES.values(), *p.SERVER_MESSAGES.values()], key=lambda c: c.__name__)


def registry_of(cls) -> dict:
    return p.CLIENT_MESSAGES if p.CLIENT_MESSAGES.get(cls.TYPE) is cls else p.SERVER_MESSAGES


@pytest.mark.parametrize("cls", EVERY_MESSAGE, ids=lambda c: c.__name__)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_message_type_comes_back_from_its_line_unchanged(cls, data):
    message = data.draw(instances_of(cls))
    line = p.encode_message(message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1 and line.isascii()
    assert p.decode_message(line, registry_of(cls), p.SERVER_LINE_MAX) == message


def test_the_line_is_the_json_the_protocol_has_always_sent():
    """The typed values write the lines docs/protocol.md describes: same keys, omitted fields
    left out (not null), a seat that is null kept."""
    assert json.loads(p.encode_message(p.Flip())) == {"v": 1, "type": "flip"}
    assert json.loads(p.encode_message(p.Flipped(codes=(3, 14)))) == {"v": 1, "type": "flip", "codes": [3, 14]}
    assert json.loads(p.encode_message(p.Note(key="left", name="Ann"))) == \
        {"v": 1, "type": "note", "key": "left", "name": "Ann"}
    assert json.loads(p.encode_message(p.Error(text="no"))) == {"v": 1, "type": "error", "text": "no"}
    assert json.loads(p.encode_message(p.Join(table="ab12"))) == {"v": 1, "type": "join", "table": "ab12"}
    status = p.Status(chosen=(0,), thinking=(1,), seconds=None, players=())
    assert json.loads(p.encode_message(status)) == {"v": 1, "type": "status", "chosen": [0], "thinking": [1],
                                                    "seconds": None, "players": []}


def documented_types(heading: str) -> set[str]:
    """The message types docs/protocol.md's table under `heading` lists (its rows' first cells)."""
    text = (Path(__file__).parent.parent / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([a-z]+)` \|", section, flags=re.M))


def test_each_side_sends_exactly_the_types_the_document_lists():
    assert p.CLIENT_TYPES == documented_types("Client -> server") >= {"hello", "choose"}
    assert p.SERVER_TYPES == documented_types("Server -> client") >= {"welcome", "seated"}


def line(**message) -> bytes:
    return json.dumps({"v": 1, **message}).encode() + b"\n"


@pytest.mark.parametrize("message, says", [
    ({"type": "hello"}, "hello: token is missing"),
    ({"type": "hello", "token": 5}, "hello: token is not a text"),
    ({"type": "lobby", "extra": 1}, "lobby: no field extra in this message"),
    ({"type": "choose", "move": "e4"}, "choose: move is not an object or null"),
    ({"type": "join", "table": "t", "seat": "2"}, "join: seat is not a whole number or null"),
    ({"type": "join", "table": "t", "seat": True}, "join: seat is not a whole number or null"),
    ({"type": "join", "table": "t", "seat": 2**70}, "join: seat is not a whole number or null"),
    ({"type": "create", "seats": ["human", 3]}, "a table has 2-7 seats"),
    ({"type": "create", "seats": ["human", "easy"], "seed": 1.5}, "the seed is a whole number"),
    ({"type": "create", "seats": ["human", "easy"], "rated": "yes"}, "rated is true or false"),
    ({"type": "create", "seats": ["human", "easy"], "name": ["x"]}, "create: name is not a text or null"),
])
def test_a_message_with_wrong_fields_is_refused_with_a_reason_that_names_it(message, says):
    with pytest.raises(p.FieldError) as refused:
        p.decode_message(line(**message), p.CLIENT_MESSAGES, p.CLIENT_LINE_MAX)
    assert str(refused.value) == says
    assert refused.value.code  # the guest's app says it in its player's language


def test_a_number_beyond_64_bits_is_refused_where_a_number_is_due():
    for players in ([{"name": "a", "ordinal": 10**400, "games": 1}], [{"name": "a", "ordinal": 1.5, "games": 2**64}]):
        with pytest.raises(p.FieldError):
            p.decode_message(line(type="top", players=players, levels=[]), p.SERVER_MESSAGES, p.SERVER_LINE_MAX)
    top = p.decode_message(line(type="top", players=[{"name": "a", "ordinal": 3, "games": 1}], levels=[]),
                           p.SERVER_MESSAGES, p.SERVER_LINE_MAX)
    assert top.players[0].ordinal == 3  # a whole number is a number too


def test_a_field_error_names_the_field_for_the_translations():
    with pytest.raises(p.FieldError) as refused:
        p.decode_message(line(type="watch", table="t", seat=1), p.CLIENT_MESSAGES, p.CLIENT_LINE_MAX)
    assert (refused.value.code, refused.value.params) == ("message-field", {"field": "seat"})


@pytest.mark.parametrize("bad", [
    b'{"v": 1, "type": "seated"}\n',  # a server's message, from a client
    b'{"v": 1, "type": "ping"}\n',
    b'{"v": 1}\n',
    b'{"v": 1, "type": ["hello"]}\n',
    b"[" * 3000 + b"]" * 3000 + b"\n",  # deeper than the JSON reader's recursion: still one line of refusal
])
def test_a_line_that_is_no_client_message_is_a_protocol_error_and_not_a_field_error(bad):
    with pytest.raises(p.ProtocolError) as refused:
        p.decode_message(bad, p.CLIENT_MESSAGES, 10**6)
    assert not isinstance(refused.value, p.FieldError)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["type", "v", "token", "move", "table", "seat", "seats", "seed",
                                        "name", "rated", "options", "variants", "x"]),
                       JSON_VALUES, max_size=5))
def test_any_json_object_is_a_message_or_a_protocol_error_never_another_exception(data):
    try:
        message = p.decode_message(json.dumps(data).encode() + b"\n", p.CLIENT_MESSAGES, p.CLIENT_LINE_MAX)
    except p.ProtocolError:
        return
    assert p.decode_message(p.encode_message(message), p.CLIENT_MESSAGES, p.CLIENT_LINE_MAX) == message
    assert all(not isinstance(getattr(message, f.name), float) or math.isfinite(getattr(message, f.name))
               for f in fields(message))
