"""Box and mark glyphs, with an ASCII-safe set for terminals that cannot draw boxes.

The Linux console and VT100-style terminals (TERM=linux, vt100, ...) have no rounded
corners or drops in their fonts: they get `+-|` boxes and letters. DUCKCOVER_ASCII=1 asks
for the ASCII set anywhere (and =0 refuses it).
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

ASCII_TERMS = ("linux", "vt100", "vt102", "vt220", "vt52", "dumb", "ansi", "cons25")


def ascii_borders(environ: Mapping[str, str] | None = None) -> bool:
    """True when the terminal is not expected to draw box-drawing characters."""
    env = os.environ if environ is None else environ
    forced = env.get("DUCKCOVER_ASCII", "")
    if forced in ("0", "1"):
        return forced == "1"
    term = env.get("TERM", "").lower()
    return any(term == name or term.startswith(name + "-") for name in ASCII_TERMS)


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
    css_border: str  # the Textual border type for panels


UNICODE = Glyphs(
    plain=Box("╭", "╮", "╰", "╯", "─", "│"),
    cursor=Box("┏", "┓", "┗", "┛", "━", ""),
    moving=Box("╔", "╗", "╚", "╝", "═", "║"),
    empty=Box("╭", "╮", "╰", "╯", "┄", "┆"),
    drop="●",
    css_border="round",
)
ASCII = Glyphs(
    plain=Box("+", "+", "+", "+", "-", "|"),
    cursor=Box("#", "#", "#", "#", "#", ""),
    moving=Box("+", "+", "+", "+", "=", "H"),
    empty=Box(".", ".", ".", ".", ".", ":"),
    drop="o",
    css_border="ascii",
)


def glyphs(environ: Mapping[str, str] | None = None) -> Glyphs:
    return ASCII if ascii_borders(environ) else UNICODE
