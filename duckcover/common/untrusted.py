"""Text that came from outside (records, names, settings files, network peers), made safe to show.

Untrusted text is shown as text, never as markup or terminal codes. Two steps, used everywhere:

- `shown(text)` replaces every control character (C0, DEL, C1), every bidirectional override
  and every lone surrogate by a visible ASCII placeholder such as `\\x1b` or `\\u202e`, and cuts
  the result to a bound. The result is printable text: a terminal cannot be driven by it and a
  newline cannot forge a line of output.
- Callers then hand it to Textual or Rich as *text*: `Content(...)`/`Text(...)`, or through
  `textual_escaped()`/`rich_escaped()` where a markup string is unavoidable (the two markup
  dialects escape differently). Never interpolate untrusted text into markup unescaped.

`name_problem()` is the stricter check for a name the player types: it refuses rather than
repairs, so nobody's name at the table carries a placeholder they did not choose.

This module is pure (no Textual, no I/O): the engine, the command line and the app share it.
"""
from __future__ import annotations

import re
import unicodedata

NAME_MAX = 16  # characters in a player's name
SOUND_MAX = 12  # characters in a Madness sound
LABEL_MAX = 64  # characters in a bot label or any other short record string
EXCERPT_MAX = 40  # characters of an untrusted value quoted in an error line

ELLIPSIS = "..."

# Bidirectional controls reorder what follows them on screen (the "Trojan Source" trick).
_BIDI = frozenset(
    [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
)


_RICH_TAG = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")  # as rich.markup.escape


def _placeholder(code: int) -> str:
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def _unsafe(char: str) -> bool:
    code = ord(char)
    if code < 0x20 or 0x7F <= code < 0xA0:  # C0, DEL, C1
        return True
    if code in _BIDI or 0xD800 <= code <= 0xDFFF:  # bidi controls, lone surrogates
        return True
    # Other invisible format characters (zero-width joiners stay: scripts need them).
    return code in (0x2028, 0x2029, 0xFEFF)


def shown(text: object, limit: int | None = None) -> str:
    """`text` as printable, one-line text: unsafe characters become visible placeholders,
    then the whole is cut to `limit` characters (an ellipsis marks a cut)."""
    if not isinstance(text, str):
        text = str(text)
    # (isprintable, in C, is True only for text with none of the unsafe characters: the names
    # on a table are shown at every repaint.)
    if not text.isprintable() and any(_unsafe(char) for char in text):
        text = "".join(_placeholder(ord(char)) if _unsafe(char) else char for char in text)
    if limit is not None and len(text) > limit:
        keep = max(limit - len(ELLIPSIS), 1)
        text = text[:keep] + ELLIPSIS
    return text


def excerpt(value: object, limit: int = EXCERPT_MAX) -> str:
    """A short, safe quotation of an untrusted value for an error line: `'Gw\\x1b[2J...'`."""
    if isinstance(value, str):
        # Cut before escaping too, so a 50 MB value costs nothing to quote.
        return "'" + shown(value[: limit * 2], limit) + "'"
    return shown(repr(value)[: limit * 2], limit)


def textual_escaped(text: object, limit: int | None = None) -> str:
    """`shown(text)` for a *Textual* markup string (`Static("...")`, `notify`): every `[`
    becomes `\\[`, so `[/]`, `[@click=...]` and `[AFK]` are shown, never applied. Textual
    reads a backslash as an escape only before `[`. Prefer `Content(shown(text))`."""
    return shown(text, limit).replace("[", "\\[")


def rich_escaped(text: object, limit: int | None = None) -> str:
    """`shown(text)` for a *Rich* markup string (`console.print("...")`); Rich's own rule
    (backslashes before a tag are doubled). Prefer `Text(shown(text))`."""
    text = _RICH_TAG.sub(lambda match: match.group(1) * 2 + "\\" + match.group(2), shown(text, limit))
    if text.endswith("\\") and not text.endswith("\\\\"):
        text += "\\"
    return text


def name_problem(name: str, limit: int = NAME_MAX) -> str | None:
    """Why a name a player typed cannot be used, or None if it can. Names are refused
    (not repaired) when they hold control characters, are blank, or are too long."""
    if not name.strip():
        return "a name cannot be blank"
    if any(_unsafe(char) for char in name):
        return "a name cannot hold control characters or bytes that are not UTF-8"
    if len(name) > limit:
        return f"a name has at most {limit} characters"
    if any(unicodedata.category(char) == "Cn" for char in name):
        return "a name cannot hold unassigned characters"
    return None
