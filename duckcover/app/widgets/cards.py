"""Cards drawn as cards: an outline, the family's colour AND letter, the number, the splashes
as drops, and the stack's height. Each size is a fixed block of cells, so a grid of them is
a grid of equal boxes that never run together.

    LARGE (9x5)      MEDIUM (9x4)     SMALL (7x3)    LINE (8x1)   SHORT (7x1)
    ╭─────x3╮        ╭─────x3╮        ╭──x3─╮         B12●3x3      12●3x3
    │B      │        │B    12│        │B12●3│
    │  12   │        │●●●    │        ╰cover╯
    │ ●●●   │        ╰─cover─╯
    ╰─cover─╯

The height of a stack sits in the top edge, a word for the cell (cover, duck, moving...)
in the bottom edge; LINE cells, with no edges, put a one-character marker before the card.
"""
from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from ...engine.cards import Card
from .glyphs import Box, Glyphs

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
CURSOR_STYLE = Style(color="bright_yellow", bold=True)
MOVING_STYLE = Style(bold=True)
COVER_STYLE = Style(color="bright_cyan", bold=True)
DUCK_STYLE = Style(color="bright_green", bold=True)
# A cell's jump key: reversed, so it stands out from the card's own letter without colour (NO_COLOR).
TAG_STYLE = Style(bold=True, reverse=True)


@dataclass(frozen=True)
class CardSize:
    name: str
    width: int
    height: int

    @property
    def boxed(self) -> bool:
        return self.height >= 3


LARGE = CardSize("large", 9, 5)
MEDIUM = CardSize("medium", 9, 4)
SMALL = CardSize("small", 7, 3)
LINE = CardSize("line", 8, 1)  # a gap (or a marker) and 7 characters
# A gap and 6 characters: every fact of a card of the grid's own family, its letter left out
# (`12●3x2`): five columns of an opponent's across half of 80 columns.
SHORT = CardSize("short", 7, 1)
TINY = CardSize("tiny", 6, 1)
# The last resort, for a grid too wide for its region: the family and the number only (`B12`).
MICRO = CardSize("micro", 4, 1)
SIZES = (LARGE, MEDIUM, SMALL, LINE, SHORT, TINY, MICRO)  # largest first
# A grid with marks needs its marker column AND a gap, or a marked cell runs into the next.
MARKED_LINE = CardSize("line", 9, 1)
MARKED_SHORT = CardSize("short", 8, 1)
MARKED_TINY = CardSize("tiny", 7, 1)
MARKED_MICRO = CardSize("micro", 5, 1)
MARKED_SIZES = (LARGE, MEDIUM, SMALL, MARKED_LINE, MARKED_SHORT, MARKED_TINY, MARKED_MICRO)


def fitting_size(columns: int, rows: int, width: int, height: int, sizes=SIZES, hang: int = 0) -> CardSize:
    """The largest card size that shows `columns` x `rows` cells in width x height. When none
    shows every row, the largest one-line size that shows every column (the rows below are cut,
    never a card in two); when none does that either, the smallest. `hang`: columns more that a
    one-line size may take (its first cell's leading gap, left out)."""
    def room(size: CardSize) -> int:
        return width + (hang if size.height == 1 else 0)

    for size in sizes:
        if columns * size.width <= room(size) and rows * size.height <= height:
            return size
    return next((size for size in sizes if size.height == 1 and columns * size.width <= room(size)), sizes[-1])


def family_letter(family: int) -> str:
    return FAMILY_LETTERS[family]


def card_style(card: Card) -> Style:
    fg, bg = FAMILY_COLOURS[card.family]
    return Style(color=fg, bgcolor=bg, bold=True)


def drops(splashes: int | None, glyph: str) -> str:
    """The splashes as a row of drops; none as a dash (a blank could be anything); no row at all
    when the round scores card numbers."""
    if splashes is None:
        return ""
    return glyph * splashes if splashes else "-"


def line_text(card: Card, splashes: int | None, height: int, drop: str, width: int = 7,
              home: int | None = None) -> str:
    """One line: `B12●3x2` (family, number, splashes, height of the stack). Narrower, the same
    facts: for a card of the grid's own family (`home`), without its letter (the grid's title
    and colour say it), then the number unpadded. The padding goes last, so the numbers of a
    grid stay in one column (`B1●0x10` beside `B 5●2`, issue 30, read as a glued word; now
    ` 1●0x10` beside ` 5●2`). Only when no whole form fits, a shorter one. `splashes` None:
    none to show (a round that scores card numbers)."""
    letters = [family_letter(card.family)] + ([""] if card.family == home else [])
    score = f"{drop}{splashes}" if splashes is not None else ""
    height_text = f"x{height}" if height > 1 else ""
    whole = [f"{letter}{card.number:{pad}}{score}{height_text}" for pad in (">2", "") for letter in letters]
    cut = [f"{letters[-1]}{card.number:>2}{height_text}", f"{letters[-1]}{card.number:>2}{score}"]
    for text in (*whole, *cut):
        if len(text) <= width:
            return f"{text:<{width}}"
    return text[:width]


def edge(left: str, fill: str, right: str, width: int, word: str = "", at: str = "center") -> str:
    """A top or bottom edge with a word in it (cut to fit)."""
    inner = width - 2
    word = word[:inner]
    if at == "right" and word:
        middle = fill * (inner - len(word) - 1) + word + fill
    else:
        pad = inner - len(word)
        middle = fill * (pad // 2) + word + fill * (pad - pad // 2)
    return left + middle[:inner] + right


def card_lines(card: Card, splashes: int | None, height: int, size: CardSize, glyphs: Glyphs, *,
               frame: str = "plain", label: str = "", label_style: Style | None = None,
               home: int | None = None, tag: str = "") -> list[Text]:
    """The top card of a stack in `size` cells. frame: plain, cursor, moving or target.
    `splashes` None: no drops (the round scores numbers); `home`: the grid's own family;
    `tag`: the key that jumps to the cell, at the left of a boxed card's top edge."""
    body = card_style(card)
    if not size.boxed:
        return [Text(line_text(card, splashes, height, glyphs.drop, size.width, home), style=body)]
    at_cursor = frame.endswith("cursor")  # "cursor" or "<frame>+cursor"
    frame = frame.removesuffix("+cursor").removesuffix("cursor") or "plain"
    box: Box = {"moving": glyphs.moving}.get(frame, glyphs.plain)
    # The outline is drawn on the card's own colour: a plain card is one run of one style
    # per line, which keeps a full repaint of the table small over SSH.
    outline = body + {"target": COVER_STYLE, "moving": MOVING_STYLE}.get(frame, Style())
    ends, ends_style = (glyphs.cursor, body + CURSOR_STYLE) if at_cursor else (box, outline)
    inner = size.width - 2
    letter, number = family_letter(card.family), str(card.number)
    if size is LARGE:
        rows = [f"{letter:<{inner}}", f"{number:^{inner}}", f"{drops(splashes, glyphs.drop):^{inner}}"]
    elif size is MEDIUM:
        rows = [f"{letter}{number:>{inner - 1}}", f"{drops(splashes, glyphs.drop):<{inner}}"]
    else:
        rows = [line_text(card, splashes, 1, glyphs.drop, inner, home)]
    stack = f"x{height}" if height > 1 else ""
    top = tagged(Text(edge(ends.tl, ends.h, ends.tr, size.width, stack, at="right"), style=ends_style), tag)
    bottom = Text(edge(ends.bl, ends.h, ends.br, size.width), style=ends_style)
    if label:
        bottom = labelled(bottom, label, ends_style if at_cursor else body + (label_style or Style()))
    if outline == body:
        middle = [Text(box.v + row[:inner] + box.v, style=body) for row in rows]
    else:
        middle = [Text(box.v, style=outline) + Text(row[:inner], style=body) + Text(box.v, style=outline)
                  for row in rows]
    return [top, *middle, bottom]


def labelled(edge_text: Text, label: str, style: Style) -> Text:
    """Write `label` into the middle of a bottom edge, in its own style; a word longer than the
    edge is left out whole, never cut ("movin"): the frame still tells the cell."""
    plain = edge_text.plain
    inner = len(plain) - 2
    if len(label) > inner:
        return edge_text
    word = label
    start = 1 + (inner - len(word)) // 2
    if style == edge_text.style:  # one run of one style: fewer bytes to send
        return Text(plain[:start] + word + plain[start + len(word):], style=style)
    out = edge_text[:start]
    out.append(word, style=style)
    out.append_text(edge_text[start + len(word):])
    return out


def tagged(edge_text: Text, tag: str) -> Text:
    """A top edge with the cell's jump key written over its first stroke."""
    if not tag:
        return edge_text
    return edge_text[:1] + Text(tag, style=edge_text.style + TAG_STYLE) + edge_text[1 + len(tag):]


def empty_lines(size: CardSize, glyphs: Glyphs, *, label: str = "", at_cursor: bool = False,
                marker: str | Text = " ", tag: str = "", short: str = "") -> list[Text]:
    """An empty cell; with a label (a legal duck), a dotted outline with the word inside.
    One line: `marker` first (a str is drawn as the cursor), then a blank, then the label, or
    its `short` form where the label does not fit; boxed: `tag` in the top edge."""
    if not label:
        return [Text(" " * size.width) for _ in range(size.height)]
    style = DUCK_STYLE
    if not size.boxed:
        # A blank on each side of the word: the jump key before it, or the next cell's after
        # it, read as one word with it otherwise ("aducken", "pplonger").
        room = size.width - 3
        word = next((w for w in (label, short) if w and len(w) <= room), (short or label)[:room])
        word = word if len(word) >= 3 else ""  # two letters of a word say nothing; the mark stays
        first = marker if isinstance(marker, Text) else Text(marker, style=CURSOR_STYLE)
        return [first + Text(" ") + Text(f"{word:<{room}}", style=style) + Text(" ")]
    box = glyphs.empty
    ends, ends_style = (glyphs.cursor, CURSOR_STYLE) if at_cursor else (box, style)
    inner = size.width - 2
    lines = [tagged(Text(edge(ends.tl, ends.h, ends.tr, size.width), style=ends_style), tag)]
    for row in range(size.height - 2):
        word = label if row == (size.height - 2) // 2 and len(label) <= inner else ""  # whole or not at all
        lines.append(Text(box.v + f"{word:^{inner}}" + box.v, style=style))
    lines.append(Text(edge(ends.bl, ends.h, ends.br, size.width), style=ends_style))
    return lines
