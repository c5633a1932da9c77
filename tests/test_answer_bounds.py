"""A bot's answer line is bounded before it is parsed (issue 28): whatever bytes a bot writes,
the Referee's reader returns an answer or None, never an exception."""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from duckcover.players.sandbox import MAX_DEPTH, MAX_LINE, nesting, parse_answer

from helpers import examples


def test_a_5000_deep_answer_is_no_answer_and_raises_nothing():
    assert parse_answer(b"[" * 5000) is None
    assert parse_answer(b'{"ok": true, "move": ' + b"[" * 5000 + b"]" * 5000 + b"}") is None


def test_an_ordinary_answer_passes():
    line = json.dumps({"ok": True, "move": {"card": [1, 5], "to": [2, 0]}, "refused": {"os.fork": 2}}).encode()
    assert parse_answer(line)["move"] == {"card": [1, 5], "to": [2, 0]}
    assert parse_answer(b'{"ok": false, "error": "raised ValueError: [[[[[[[[[[[[ in a string"}')["ok"] is False


def test_too_long_or_not_an_answer_is_none():
    assert parse_answer(b'{"ok": true, "pad": "' + b"x" * MAX_LINE + b'"}') is None
    for line in (b"", b"null", b"[]", b'{"ok": 1}', b"\xff\xfe", b'{"ok": true', b"NaN"):
        assert parse_answer(line) is None, line


def test_brackets_inside_strings_do_not_count():
    assert nesting(b'{"a": "' + b"[" * 50 + b'"}') == 1
    assert nesting(b'{"a": "\\"' + b"[" * 50 + b'"}') == 1


@settings(max_examples=examples(60))
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=40))
def test_nesting_is_the_depth_json_gives(value):
    def depth(v) -> int:
        if isinstance(v, list):
            return 1 + max(map(depth, v), default=0)
        if isinstance(v, dict):
            return 1 + max(map(depth, v.values()), default=0)
        return 0

    line = json.dumps(value).encode()
    expected = depth(value)
    if line.count(b"[") + line.count(b"{") > MAX_DEPTH:  # the quick path reports 0 below that
        assert nesting(line) == expected or (expected > MAX_DEPTH and nesting(line) > MAX_DEPTH)


@settings(max_examples=examples(300))
@given(st.binary(max_size=300))
def test_any_bytes_give_an_answer_or_none(data):
    result = parse_answer(data)
    assert result is None or (isinstance(result, dict) and isinstance(result["ok"], bool))
