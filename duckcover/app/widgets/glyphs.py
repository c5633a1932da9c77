"""Terminals that cannot draw rounded boxes or block glyphs (the Linux console, a vt100): the
app draws with ASCII there. Decided from TERM, once per screen built; the app marks itself with
the ASCII class and the style sheets give every border an ASCII twin under it."""
from __future__ import annotations

import os
from dataclasses import dataclass

ASCII = "-ascii"  # the App's CSS class on such a terminal
ASCII_TERMS = ("linux", "dumb", "ansi", "cons25")  # and every vt* (vt52, vt100, vt220...)


def ascii_only() -> bool:
    """True when TERM names a terminal without box-drawing and block glyphs beyond ASCII."""
    term = os.environ.get("TERM", "").lower()
    return term in ASCII_TERMS or term.startswith("vt")


KEY_NAMES = {"⏎": "Enter", "↑": "Up", "↓": "Down", "←": "Left", "→": "Right", "⇥": "Tab", "⌫": "Backspace"}


def plain_key(shown: str) -> str:
    """A key as the Footer shows it ("⏎", "←"), in ASCII words for an ASCII terminal."""
    return "".join(KEY_NAMES.get(char, char if ord(char) < 127 else "?") for char in shown)


def use_ascii_scrollbars() -> None:
    """Scrollbars without the eighth-block glyphs of their smooth ends (Textual's documented
    way to change how every scrollbar draws: `ScrollBar.renderer`)."""
    from textual.scrollbar import ScrollBar, ScrollBarRender

    class AsciiScrollBarRender(ScrollBarRender):
        VERTICAL_BARS = [" "] * 8
        HORIZONTAL_BARS = [" "] * 8

    ScrollBar.renderer = AsciiScrollBarRender


class PlainKeys:
    """An App mixin: on an ASCII terminal, the Footer names keys in words ("Enter", "Left")."""

    def get_key_display(self, binding) -> str:
        shown = super().get_key_display(binding)
        return plain_key(shown) if self.has_class(ASCII) else shown


def adapt(app) -> None:
    """Mark `app` for an ASCII terminal (its style sheets switch every border), if this is one.
    Its keys then show in words if it is a `PlainKeys` app."""
    if ascii_only():
        app.add_class(ASCII)
        use_ascii_scrollbars()


# --- cards and cells at the table -----------------------------------------------------------
@dataclass(frozen=True)
class Box:
    """Corners and edges: top-left, top-right, bottom-left, bottom-right, horizontal, vertical."""

    tl: str
    tr: str
    bl: str
    br: str
    h: str
    v: str


@dataclass(frozen=True)
class Glyphs:
    plain: Box  # a card
    cursor: Box  # the card or cell under the cursor: its top and bottom edges (no sides of
    # its own, so a cursor move repaints two rows per cell, not the whole card)
    moving: Box  # the card that must move
    empty: Box  # a legal empty cell (duck)
    drop: str  # one splash


UNICODE_GLYPHS = Glyphs(
    plain=Box("╭", "╮", "╰", "╯", "─", "│"),
    cursor=Box("┏", "┓", "┗", "┛", "━", ""),
    moving=Box("╔", "╗", "╚", "╝", "═", "║"),
    empty=Box("╭", "╮", "╰", "╯", "┄", "┆"),
    drop="●",
)
ASCII_GLYPHS = Glyphs(
    plain=Box("+", "+", "+", "+", "-", "|"),
    cursor=Box("#", "#", "#", "#", "#", ""),
    moving=Box("+", "+", "+", "+", "=", "H"),
    empty=Box(".", ".", ".", ".", ".", ":"),
    drop="o",
)


def glyphs() -> Glyphs:
    """The glyphs cards are drawn with on this terminal."""
    return ASCII_GLYPHS if ascii_only() else UNICODE_GLYPHS
