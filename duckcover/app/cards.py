"""Cards as Rich Text: family colour AND letter, number, splashes, stack height. ASCII only."""
from __future__ import annotations

from rich.style import Style

from ..cards import Card

FAMILY_LETTERS = "ABCDEFGHI"
# (text, background) per family: ANSI names, so 16-colour terminals and ansi themes work.
FAMILY_COLOURS = (
    ("bright_white", "red"),
    ("bright_white", "blue"),
    ("black", "green"),
    ("black", "yellow"),
    ("bright_white", "magenta"),
    ("black", "cyan"),
    ("black", "white"),
    ("bright_white", "bright_black"),
    ("black", "bright_magenta"),
)


def family_letter(family: int) -> str:
    return FAMILY_LETTERS[family]


def card_style(card: Card) -> Style:
    fg, bg = FAMILY_COLOURS[card.family]
    return Style(color=fg, bgcolor=bg, bold=True)


def large_lines(card: Card, splashes: int, height: int) -> tuple[str, str]:
    """Two 7-character lines: ` B   12 ` over ` *5 x3 `."""
    top = f" {family_letter(card.family)}  {card.number:>2} "
    bottom = f" *{splashes}" + (f" x{height}" if height > 1 else "")
    return top, f"{bottom:<7}"[:7]


def compact_text(card: Card, splashes: int, height: int) -> str:
    """One 7-character line: `B12*5x3`. A stack of ten or more drops the padding and then
    the splashes rather than cutting its height short (`B 1*0x11`, `B12x10`)."""
    letter, height_text = family_letter(card.family), f"x{height}" if height > 1 else ""
    for text in (
        f"{letter}{card.number:>2}*{splashes}{height_text}",
        f"{letter}{card.number}*{splashes}{height_text}",
        f"{letter}{card.number}{height_text}",
    ):
        if len(text) <= 7:
            return f"{text:<7}"
    return text[:7]
