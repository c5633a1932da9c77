"""duckcover.common.untrusted: untrusted text becomes printable, bounded text; markup is never applied."""
from __future__ import annotations

from hypothesis import given, strategies as st
from rich.text import Text
from textual.content import Content

from duckcover.common.untrusted import excerpt, name_problem, rich_escaped, shown, textual_escaped

PAYLOADS = [
    "\x1b]0;pwned\x07Gwen",  # window title (OSC)
    "\x1b]52;c;aGk=\x07",  # clipboard (OSC 52)
    "\x1b[2J\x1b[HBob",  # clear screen (CSI)
    "Ann\nWinner: Eve",  # forged line
    "\u202eevE",  # bidi override
    "\x9b31m",  # C1 CSI
    "del\x7f",
    "Jos\udce9",  # surrogate-escaped byte
]
MARKUP = ["[/]", "[@click=app.quit]Gwen[/]", "[link=file:///etc/passwd]x[/link]", "[AFK] Bob", "a\\[b]"]


def test_shown_leaves_no_control_character():
    for payload in PAYLOADS:
        text = shown(payload)
        assert text.isprintable(), repr(text)
        assert "\x1b" not in text and "\n" not in text


def test_shown_makes_escape_sequences_visible():
    assert shown("\x1b[2J") == "\\x1b[2J"
    assert shown("Jos\udce9") == "Jos\\xe9"
    assert shown("\u202e") == "\\u202e"


def test_shown_bounds_length():
    assert len(shown("x" * 1_000_000, 16)) == 16
    assert shown("Ann", 16) == "Ann"


def test_excerpt_is_short_whatever_the_value():
    assert len(excerpt("y" * 50_000_000)) <= 42
    assert excerpt(2**70).startswith("118059")


@given(st.text())
def test_escaped_markup_shows_the_text_itself(text):
    assert Content.from_markup(textual_escaped(text)).plain == shown(text)
    for payload in MARKUP:
        assert Content.from_markup(textual_escaped(payload)).plain == payload
        assert Text.from_markup(rich_escaped(payload)).plain == payload


def test_typed_names_with_controls_are_refused():
    assert name_problem("Ann") is None
    for bad in ["", "   ", "\x1b[2J", "a\nb", "Jos\udce9", "x" * 17, "\u202eevE"]:
        assert name_problem(bad), repr(bad)


def test_no_unsafe_character_counts_as_printable_so_shown_may_skip_printable_text():
    """`shown` looks for unsafe characters only in text that is not `isprintable()`: that is
    right only if no unsafe character is printable (every code point checked)."""
    import sys

    from duckcover.common.untrusted import _unsafe

    assert not [hex(code) for code in range(sys.maxunicode + 1) if chr(code).isprintable() and _unsafe(chr(code))]
