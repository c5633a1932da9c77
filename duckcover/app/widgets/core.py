"""The table's widgets: one focusable grid per player, with a cursor among legal cells."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.containers import ScrollableContainer
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from ...common import i18n
from ...common.i18n import t
from ...engine.grid import Cell, Stack
from .cards import (COVER_STYLE, CURSOR_STYLE, LARGE, LINE, MARKED_SIZES, MOVING_STYLE, SIZES, TAG_STYLE, CardSize,
                    card_lines, card_style, empty_lines, fitting_size, line_text)
from .glyphs import glyphs
from ..render.paint import lean_lines, line_plan, painter_takes

TARGET_KINDS = ("cover", "duck", "pick")
MARK_KEYS = {"cover": "mark.cover", "duck": "mark.duck", "pick": "mark.pick", "called": "mark.called"}
# LINE cells have no edge to write a word in: one marker character, explained by the legend.
MARKERS = {"cover": "^", "pick": "?", "called": "="}
CURSOR_MARKER = ">"
DIRECTIONS = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}
# The keys that jump the cursor to a legal cell, one per cell in reading order, each drawn on
# its cell: the letters the table leaves free (f flips, h j k l move, o settings, q quits,
# t hints), then digits, then capitals other than the family letters A-I (random first rounds
# give up to 35 legal cells: tests/test_app_reach.py).
JUMP_KEYS = tuple("abcdegimnprsuvwxyz1234567890JKLMNPRSUVWXYZ")
ROW_BREAK = " / "  # between a folded grid's rows (see GridWidget.folded); " /" at a line's end


def described(description: str, values: dict | None = None) -> str:
    """A binding's description: a UI text key (translated when drawn, so a change of language
    in the settings reaches the footer at once) or already words. `values` fill a label's
    blanks ("I am {name}": a screen's `key_values`)."""
    return i18n.t(description, **(values or {})) if description in i18n.catalogue(i18n.DEFAULT) else description


def jump_tags(targets) -> dict[Cell, str]:
    """Each legal cell's jump key, in reading order (rows top to bottom, each left to right), so
    the eye finds a key's cell by the alphabet; cells beyond the last key keep their marks."""
    return dict(zip(sorted(targets, key=lambda c: (c[1], c[0])), JUMP_KEYS))


def step_cursor(cursor: Cell, targets: list[Cell], dx: int, dy: int) -> Cell:
    """The nearest target in direction (dx, dy): straight ahead first, then off to the side."""
    best, best_score = cursor, None
    for cell in targets:
        ahead = (cell[0] - cursor[0]) * dx + (cell[1] - cursor[1]) * dy
        if ahead <= 0:
            continue
        aside = abs((cell[0] - cursor[0]) * dy) + abs((cell[1] - cursor[1]) * dx)
        # A step aside weighs four steps ahead: with two, a cell diagonal to its neighbours
        # could be nobody's nearest and no arrow reached it (tests/test_app_reach.py).
        score = (ahead + 4 * aside, aside, cell[1], cell[0])
        if best_score is None or score < best_score:
            best, best_score = cell, score
    return best


def step_from_card(cursor: Cell, origin: Cell | None, targets: list[Cell], dx: int, dy: int) -> Cell:
    """An arrow press while a card moves. From the card itself, its neighbour that way when
    that is a legal destination (the cover, or the duck cell there); otherwise, and from
    anywhere else, the nearest legal cell that way, the card itself included (to come back)."""
    if origin is not None and cursor == origin:
        beside = (origin[0] + dx, origin[1] + dy)
        if beside in targets:
            return beside
    places = [*targets, origin] if origin is not None and origin not in targets else list(targets)
    return step_cursor(cursor, places, dx, dy)


def count_style_changes(app) -> None:
    """Count every time the app's style sheet is applied to a node (classes, pseudo-classes, a
    theme, a screen's resume, a new widget: all go through `Stylesheet.apply`), so `KeptStyle`
    knows when the styles it kept may have changed."""
    stylesheet = app.stylesheet
    apply = stylesheet.apply
    app.style_changes = getattr(app, "style_changes", 0) + 1
    app.counted_stylesheet = stylesheet

    def counted(*args, **kwargs):
        app.style_changes += 1
        return apply(*args, **kwargs)

    stylesheet.apply = counted


class KeptStyle:
    """A widget's Rich style and background colours, worked out once per change of the app's
    styles (see count_style_changes). Textual walks the styles of every ancestor for each, and
    asks for them on every repaint of the widget: a third of the drawing of a seat title or the
    status line. (Our code sets only sizes inline, never a colour, so only the style sheet
    changes them.) In an app that does not count, as Textual does: every time.

    The widgets that keep their styles are the table's drawn-by-lines parts: their refreshes go
    through the screen's painter, and their lines through `lean_lines` (render/paint.py)."""

    def _kept_style(self) -> tuple:
        app = self.app
        changes = getattr(app, "style_changes", None)
        if changes is not None and app.stylesheet is not app.counted_stylesheet:
            count_style_changes(app)  # a new style sheet (Textual's reload of changed CSS files)
            changes = app.style_changes
        kept = self.__dict__.get("_kept_styles")
        if kept is None or kept[0] != changes or changes is None:
            kept = self._kept_styles = (changes, Widget.rich_style.fget(self), Widget.background_colors.fget(self))
        return kept

    @property
    def rich_style(self) -> Style:
        return self._kept_style()[1]

    def refresh(self, *regions: Region, **kwargs) -> Widget:
        """Through the screen's painter (render/paint.py) when it draws the change as lines;
        otherwise Textual's. (A subclass forgets what it drew, then calls this.)"""
        return self if painter_takes(self, regions, kwargs) else super().refresh(*regions, **kwargs)

    LEAN_LINES = True  # (tests/test_paint.py turns it off to compare with Textual's own drawing)

    def render_lines(self, crop: Region) -> list[Strip]:
        """Textual's drawing, without the work that does not change between two repaints (a
        reveal repaints ten widgets: 40-80 us each before the first line, most of a title's)."""
        kept = self._kept_style()
        plan = self.__dict__.get("_line_plan")
        if plan is None or plan[0] is not kept or plan[1] != self.outer_size or kept[0] is None:
            plan = self._line_plan = (kept, self.outer_size, line_plan(self))
        if plan[2] is None or not self.LEAN_LINES or self.BLANK:
            return Widget.render_lines(self, crop)
        return lean_lines(self, plan[2], crop)

    @property
    def background_colors(self):
        return self._kept_style()[2]


class DrawnByLines(KeptStyle):
    """A widget whose `render()` Rich Text is drawn line by line through `StaticLines`, each
    line kept until the widget's next refresh (which every change of content, style or size
    goes through). Put it before the Widget class in the bases."""

    @property
    def lines_drawn(self) -> StaticLines:
        return self.__dict__.setdefault("_lines", StaticLines())  # (a refresh can come before __init__ ends)

    def refresh(self, *regions: Region, **kwargs) -> Widget:
        if not self.__dict__.pop("_renewed", False):  # (TextStatic.update renews the lines itself)
            self.lines_drawn.forget()
        return super().refresh(*regions, **kwargs)

    def render_line(self, y: int) -> Strip:
        return self.lines_drawn.line(self, self.render, y)


class KeyBar(DrawnByLines, Widget):
    """The table's footer as one widget: the keys that work now, drawn with the styles of
    Textual's Footer, so it looks the same. (A Footer is a widget per key, rebuilt on every
    change of bindings: about 10 ms of the table's launch.)

    It reads the screen's active bindings when it draws, so a change only repaints it.
    One key per action, as the Footer shows them; a click presses the key.
    """

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"keybar--item", "keybar--key", "keybar--description", "keybar--hover"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom; height: 1;
        color: $footer-foreground; background: $footer-background;
        & > .keybar--item { background: $footer-item-background; }
        & > .keybar--key { color: $footer-key-foreground; background: $footer-key-background; text-style: bold; }
        & > .keybar--description { color: $footer-description-foreground; background: $footer-description-background; }
        & > .keybar--hover { color: $footer-key-foreground; background: $block-hover-background; }
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.hover: int | None = None  # index of the key under the mouse
        self.drawn: tuple = ()  # the keys as last drawn
        self.drawn_bindings: list[tuple[Binding, bool]] = []  # ... and their bindings

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_updated)

    def bindings_updated(self, screen) -> None:
        """Textual's signal, a callback after the change: the table's painter may have read
        the keys for its write already (TableScreen.keys_now)."""
        keys_now = getattr(screen, "keys_now", None)
        if keys_now is not None:
            keys_now()
        else:
            self.keys_changed()

    def keys_changed(self) -> None:
        """Repaint only if the keys shown changed (the table refreshes its bindings at every
        step of a turn, mostly to the same keys)."""
        shown = self.shown()
        keys = tuple((binding.key, binding.description, enabled) for binding, enabled in shown)
        if keys != self.drawn:
            self.drawn, self.drawn_bindings = keys, shown
            self.refresh()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def shown(self) -> list[tuple[Binding, bool]]:
        """(binding, enabled) for each action with a shown key, in the Footer's order."""
        first: dict[str, tuple[Binding, bool]] = {}
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if binding.show:
                first.setdefault(binding.action, (binding, enabled))
        return list(first.values())

    def labels(self) -> list[tuple[Text, Binding, bool]]:
        """Each key as FooterKey renders it: ` key ` then `description `, the key's and the
        description's own styles over the item's (which the mouse lights up)."""
        key_style = self.get_component_rich_style("keybar--key", partial=True)
        description_style = self.get_component_rich_style("keybar--description", partial=True)
        labels = []
        # The keys as `drawn` says (a bar drawn for a set of keys is kept under it: see render_line).
        for index, (binding, enabled) in enumerate(self.drawn_bindings if self.drawn else self.shown()):
            item = self.get_component_rich_style("keybar--hover" if index == self.hover else "keybar--item")
            if not enabled:
                item += Style(dim=True)
            label = Text.assemble((f" {self.app.get_key_display(binding)} ", item + key_style),
                                  (f"{described(binding.description)} ", item + description_style))
            labels.append((label, binding, enabled))
        return labels

    def render(self) -> Text:
        return Text("").join(label for label, _, _ in self.labels())


    def notify_style_update(self) -> None:
        self.__dict__.setdefault("_drawn_keys", {}).clear()  # another theme: every bar looks different
        super().notify_style_update()

    def render_line(self, y: int) -> Strip:
        """The bar for the keys shown, drawn once for each set of keys: a table goes back and
        forth between a few (choosing, waiting, the Captain's flip), and a guest repainted
        the same bar at nearly every reveal."""
        if not self.drawn:
            return self.lines_drawn.line(self, self.render, y)
        bars = self.__dict__.setdefault("_drawn_keys", {})
        key = (self.drawn, self.hover, i18n.language())
        lines = bars.get(key)
        if lines is None:
            if len(bars) > 16:
                bars.clear()
            lines = bars[key] = StaticLines()
        return lines.line(self, self.render, y)

    def index_at(self, x: int) -> int | None:
        """Which key is drawn at column x (None: past the last one)."""
        for index, (label, _, _) in enumerate(self.labels()):
            if x < label.cell_len:
                return index
            x -= label.cell_len
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        hover = self.index_at(event.x)
        if hover != self.hover:
            self.hover = hover
            self.refresh()

    def on_leave(self) -> None:
        if self.hover is not None:
            self.hover = None
            self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        index = self.index_at(event.x)
        if index is None:
            return
        _, binding, enabled = self.labels()[index]
        if enabled:
            self.app.simulate_key(binding.key)
        else:
            self.app.bell()


def text_strip(widget: Widget, line: Text, base: Style, width: int) -> Strip:
    """One line of Rich text as the widget's line `y`: its spans over the widget's own style
    (`base`: its colour and background), cut or padded to its `width`.

    The two widgets that change on every turn (the grids, the log) draw line by line: Textual
    then asks them again for the lines a refresh names, not for the whole widget, and never
    lays their text out as a paragraph. Over SSH a reveal costs a fraction of the CPU."""
    console = widget.app.console
    # Text.render reads the line's own style only under spans: a plain bold line needs it here.
    style = base + console.get_style(line.style) if line.style else base
    return Strip(line.render(console)).apply_style(style).adjust_cell_length(width, base)


class StaticLines:
    """Rich Text drawn line by line exactly as Textual's Static draws it (wrapped at words),
    each line made once until `forget`.

    Textual's own path turns the Text into its Content and lays it out anew on every repaint
    of the widget: for the status line, the prompt, the seat titles and the keys, which
    change on every reveal, that was most of a non-choosing client's widget drawing. A widget
    calls `forget` from its refresh (which every change of content, style or size goes through)."""

    def __init__(self) -> None:
        self.drawn: tuple | None = None  # (outer size, base style, width, lines, strips by line)

    def forget(self) -> None:
        self.drawn = None

    def renew(self, widget: Widget, text: Text) -> list[int] | None:
        """Take `text` as the new content: the lines that differ from those drawn (their strips
        are made again), or None if nothing is drawn to compare with (draw it all)."""
        drawn = self.drawn
        if drawn is None or drawn[0] != widget.outer_size:
            return None
        outer, base, width, lines, strips = drawn
        new = static_lines(widget, text, width)
        changed = [y for y in range(max(len(lines), len(new)))
                   if y >= len(lines) or y >= len(new) or line_key(lines[y]) != line_key(new[y])]
        self.drawn = (outer, base, width, new, {y: strip for y, strip in strips.items() if y not in changed})
        return changed

    def line(self, widget: Widget, make_text: Callable[[], Text], y: int) -> Strip:
        """Line `y` of the text `make_text` returns (asked for only when the lines are made)."""
        drawn = self.drawn
        if drawn is None or drawn[0] != widget.outer_size:  # (a resize draws before its refresh)
            width = widget.size.width
            drawn = self.drawn = (widget.outer_size, widget.rich_style, width,
                                  static_lines(widget, make_text(), width), {})
        _, base, width, lines, strips = drawn
        if y >= len(lines):
            return Strip.blank(width, base)
        strip = strips.get(y)
        if strip is None:
            strip = strips[y] = static_strip(widget, *lines[y], base=base)
        return strip


def line_key(line: tuple[Text, tuple[int, int]]) -> tuple:
    """What a drawn line looks like (Text's own == leaves out its style) and where it starts."""
    text, origin = line
    return text.plain, text.style, text.spans, origin


def static_strip(widget: Widget, line: Text, origin: tuple[int, int], base: Style) -> Strip:
    """One line as Textual's Content draws it: each span a segment over the widget's style,
    marked with its offset in the text (x in its paragraph, the paragraph's index: what text
    selection reads; it also keeps a span's pieces apart, as in Textual's own frames). Not
    padded: Textual pads it to the width with the background alone."""
    console = widget.app.console
    style = base + console.get_style(line.style) if line.style else base
    segments, (x, y) = [], origin
    for segment in line.render(console):
        offset = offset_style(x, y)
        segments.append(Segment(segment.text, (style + segment.style if segment.style else style) + offset))
        x += segment.cell_length
    return Strip(segments)


@lru_cache(maxsize=4096)
def offset_style(x: int, y: int) -> Style:
    """The meta style marking a span's offset (static_strip): made once per place, so Rich's
    own caches of combined styles hit on the next frame too."""
    return Style.from_meta({"offset": (x, y)})


def static_lines(widget: Widget, text: Text, width: int) -> list[tuple[Text, tuple[int, int]]]:
    """`text` wrapped as a Static wraps it, each line with where it starts in the text (see
    static_strip): always at words (its no_wrap and overflow are not Textual's), a line broken
    at a space losing the spaces at its end."""
    if not width:
        return []
    lines = []
    for index, paragraph in enumerate(text.split("\n", allow_blank=True)):
        start, plain = 0, paragraph.plain
        if paragraph.cell_len <= width and "\t" not in plain and paragraph.justify in (None, "default"):
            lines.append((paragraph, (0, index)))  # what the wrap gives a line that fits, without it
            continue
        parts = list(paragraph.wrap(widget.app.console, width, no_wrap=False, overflow="fold"))
        for number, part in enumerate(parts):
            start = max(start, plain.find(part.plain, start))  # (the wrap may drop a space at a break)
            end = start + len(part.plain)
            if number < len(parts) - 1:
                part.rstrip()
            lines.append((part, (start, index)))
            start = end
    return lines


class TextStatic(DrawnByLines, Static):
    """A Static whose Rich Text content is drawn through `StaticLines` (other content as the
    Static draws it): the status line and the prompt."""

    def update(self, content="", *, layout: bool = True) -> None:
        """New content. Rich Text of a fixed size repaints only the lines that changed (the
        prompt's three lines change one at a time), and Textual's own form of it (its Content)
        is made only if something asks for it."""
        text = content if isinstance(content, Text) else None
        changed = self.lines_drawn.renew(self, text) if text is not None and not layout and self.is_mounted else None
        self._text = text
        if changed is None:
            super().update(content, layout=layout)  # (refreshes, which forgets the lines drawn)
            return
        self._Static__content, self._Static__visual = content, None  # (Static's; `visual` makes it when asked)
        if changed:
            width = self.size.width
            self._renewed = True
            self.refresh(*(Region(0, y, width, 1) for y in changed))

    def render_line(self, y: int) -> Strip:
        text = self.__dict__.get("_text")
        if text is None:
            return Static.render_line(self, y)  # (not Rich Text: as the Static draws it)
        return self.lines_drawn.line(self, lambda: text, y)


class GridWidget(KeptStyle, Widget):
    """A player's grid of cards. `marks` says which cells are legal (cover / duck / pick) and
    which card is moving ("called"); the `cursor` moves among the legal cells and the moving
    card. With `fit`, the cards take the largest size that fits the widget's fixed region
    (the region never depends on the grid, so nothing around it moves); with `ring`, the
    grid keeps a ring of room around its cards, where duck cells appear during a choice.

    A cursor move repaints the two cells it leaves and enters, nothing else."""

    BINDINGS = [
        # Described but not shown: the footer has no room for them, the Keys screen lists them.
        Binding("left,h", "move('left')", "key.move", show=False),
        Binding("right,l", "move('right')", "key.move", show=False),
        Binding("up,k", "move('up')", "key.move", show=False),
        Binding("down,j", "move('down')", "key.move", show=False),
        Binding("tab", "cycle(1)", "key.cycle", show=False),
        Binding("shift+tab", "cycle(-1)", "key.cycle", show=False),
        Binding("enter", "confirm", "key.confirm"),
        # One key per label; the footer shows the verb once, not every letter.
        *(Binding(key, f"jump({key!r})", "key.jump", show=key == JUMP_KEYS[0], key_display="abc")
          for key in JUMP_KEYS),
    ]
    DEFAULT_CSS = "GridWidget { width: auto; height: auto; }"

    cursor: reactive[Cell | None] = reactive(None, repaint=False)  # watch_cursor repaints two cells

    class OnMovingCard(Message):
        """Enter on the moving card itself, which is no destination."""

        def __init__(self, grid: "GridWidget") -> None:
            super().__init__()
            self.grid = grid

    class Confirmed(Message):
        """Enter (or a click) on a legal cell."""

        def __init__(self, grid: GridWidget, cell: Cell) -> None:
            super().__init__()
            self.grid, self.cell = grid, cell

    def __init__(self, seat: int, large: bool = False, focusable: bool = False, narrow: bool = False,
                 fit: bool = False, ring: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.seat = seat
        self.large = large
        self.narrow = narrow  # a grid nobody chooses in: no marker column to keep free
        self.fit = fit
        self.ring = ring
        self.can_focus = focusable
        self.auto_links = False  # nothing here is a link: hovering must not repaint
        self.glyphs = glyphs()
        self.cells: Mapping[Cell, Stack] = {}
        self.splashes: tuple[int, ...] | None = (0,) * 12  # None: the round scores numbers, no drops
        self._marks: dict[Cell, str] = {}
        self._targets: list[Cell] = []  # see targets
        self.tags: dict[Cell, str] = {}  # each legal cell's jump key (see JUMP_KEYS)
        self.tag_keys: frozenset[str] = frozenset()  # ... those keys
        self._kept: tuple[int, int, int, int] | None = None  # see keep_bounds
        self.fitted: tuple | None = None  # (cells, marks, large, region, card size): see fitting_card_size
        self.alike: list[GridWidget] = []  # grids drawn in one card size (this one among them)
        self.drawn_size: CardSize | None = None  # the card size of the last frame drawn
        self.made_cells: dict[tuple, list[Text]] = {}  # see _cell
        self.made_strips: dict[tuple, list[Strip]] = {}  # see _cell_strips

    # --- state --------------------------------------------------------------------------
    def show(self, cells: Mapping[Cell, Stack], splashes, marks: dict[Cell, str] | None = None,
             cursor: Cell | None = None) -> None:
        marks = dict(marks or {})
        had_targets, old_bounds = bool(self.targets), self.bounds()
        splashes = tuple(splashes) if splashes is not None else None
        if (cells, marks, splashes) == (self.cells, self.marks, self.splashes) and cursor == self.cursor:
            return  # nothing changed: spare the repaint
        # The size last drawn (a grid drawn alike with others may change size with theirs).
        old_cells, old_marks, old_cursor, old_size = self.cells, self.marks, self.cursor, self.drawn_size
        if splashes != self.splashes:
            old_cells = {}  # every card's face changes
        self.cells, self.splashes = cells, splashes
        self.marks = marks
        old_tags, self.tags = self.tags, jump_tags(self.targets)
        self.tag_keys = frozenset(self.tags.values())
        self.keep_bounds(len(old_cells))
        self.set_reactive(GridWidget.cursor, cursor if cursor in self.places else None)
        if self.bounds() != old_bounds or self.card_size() != old_size or not self.is_mounted or self.folded():
            self.refresh(layout=not self.fit)
        else:  # the same place and size: repaint the cells that changed, not the grid
            changed = {cell for cell in set(cells) | set(old_cells)
                       if cells.get(cell) != old_cells.get(cell)}
            changed |= {cell for cell in set(marks) | set(old_marks) if marks.get(cell) != old_marks.get(cell)}
            changed |= {cell for cell in set(self.tags) | set(old_tags) if self.tags.get(cell) != old_tags.get(cell)}
            changed |= {cell for cell in (old_cursor, self.cursor) if cell is not None}
            if changed:
                self.refresh(*self.cell_regions(changed))
        if had_targets != bool(self.targets):
            self.refresh_bindings()

    def set_large(self, large: bool) -> None:
        if large != self.large:
            self.large = large
            self.refresh(layout=not self.fit)

    @property
    def marks(self) -> dict[Cell, str]:
        return self._marks

    @marks.setter
    def marks(self, marks: dict[Cell, str]) -> None:
        self._marks = marks
        self._targets = sorted((c for c, kind in marks.items() if kind in TARGET_KINDS), key=lambda c: (c[1], c[0]))

    @property
    def targets(self) -> list[Cell]:
        """The legal cells, in reading order (sorted once per change of marks: the key bar asks
        each key whether it works, several times a turn)."""
        return list(self._targets)

    @property
    def origin(self) -> Cell | None:
        """The card that must move, when the choice is where it goes."""
        return next((c for c, kind in self.marks.items() if kind == "called"), None)

    @property
    def places(self) -> list[Cell]:
        """Where the cursor may stand: the legal cells and the moving card."""
        origin = self.origin
        return self.targets + ([origin] if origin is not None else [])

    def bounds(self) -> tuple[int, int, int, int]:
        """The cells drawn: (x0, y0, x1, y1)."""
        if self.fit and self.kept is not None:
            return self.kept
        return self.cell_bounds()

    def cell_bounds(self) -> tuple[int, int, int, int]:
        cells = list(self.cells) + list(self.marks)
        if not cells:
            return 0, 0, 0, 0
        xs, ys = [c[0] for c in cells], [c[1] for c in cells]
        x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
        if self.ring:  # room for the duck cells of any choice: the grid never shifts for them
            stacks = list(self.cells) or cells
            x0, x1 = min(x0, min(c[0] for c in stacks) - 1), max(x1, max(c[0] for c in stacks) + 1)
            ry0, ry1 = min(y0, min(c[1] for c in stacks) - 1), max(y1, max(c[1] for c in stacks) + 1)
            if self.rows_fit(ry0, ry1):  # ... where the lines allow: the legal cells come first
                y0, y1 = ry0, ry1
        return x0, y0, x1, y1

    def rows_fit(self, y0: int, y1: int) -> bool:
        """Whether rows y0..y1 fit the fitted region's lines, one line a row at the least (a
        region not laid out yet is taken to fit)."""
        height = self.content_size.height if self.fit and self.is_mounted else 0
        return not height or y1 - y0 + 1 <= height

    def keep_bounds(self, stacks_before: int) -> None:
        """A fitted grid only grows within a round: cards that merge or leave do not shrink
        and shift it (a repaint of every card, and a table that jumps). A round deals every
        card again (`new_round`); fewer stacks than before also means the same round."""
        bounds = self.cell_bounds()
        if self.kept is not None and len(self.cells) <= stacks_before:
            kx0, ky0, kx1, ky1 = self.kept
            x0, y0, x1, y1 = bounds
            kept = min(x0, kx0), min(y0, ky0), max(x1, kx1), max(y1, ky1)
            # ... unless the rows kept no longer fit where the cards (and legal cells) still would:
            # an opponent's grid is not folded, nor a legal cell of yours cut, for rows now empty.
            if self.rows_fit(kept[1], kept[3]) or kept[3] - kept[1] <= y1 - y0:
                bounds = kept
        self.kept = bounds

    def new_round(self) -> None:
        """The next show is a new deal: the grid takes the new cards' bounds."""
        self.kept = None

    @property
    def kept(self) -> tuple[int, int, int, int] | None:
        return self._kept

    @kept.setter
    def kept(self, bounds: tuple[int, int, int, int] | None) -> None:
        self._kept = bounds
        self.fitted = None

    @property
    def content_size(self) -> Size:
        """The widget's own size less its gutter: Textual's asks the screen's map for the region
        (a walk up the DOM), and the grid asks for it on every refresh, for each grid drawn alike."""
        width, height = self._size
        gutter = self.styles.gutter
        return Size(max(0, width - gutter.width), max(0, height - gutter.height))

    def card_size(self) -> CardSize:
        """The size this grid's cards are drawn in: the largest that fits, or, in a group of
        grids drawn alike (the opponents), the smallest any of them needs."""
        size = self.fitting_card_size()
        if self.alike:
            sizes = MARKED_SIZES if self.large else SIZES
            size = max((grid.fitting_card_size() for grid in self.alike), key=sizes.index)
        return size

    def fitting_card_size(self) -> CardSize:
        """Worked out once per change of cards, marks, bounds or region: every line drawn asks
        for it, for each grid drawn alike (a tenth of a guest's frame when it was not kept)."""
        fitted, region = self.fitted, self.content_size
        # (The cards and the marks are replaced, never changed in place: `is` tells a change.)
        if fitted is None or fitted[0] is not self.cells or fitted[1] is not self.marks \
                or fitted[2:4] != (self.large, region):
            fitted = self.fitted = (self.cells, self.marks, self.large, region, self.work_out_card_size())
        return fitted[4]

    def work_out_card_size(self) -> CardSize:
        x0, y0, x1, y1 = self.bounds()
        if self.fit:
            sizes = MARKED_SIZES if self.large else SIZES[2:]
            size = self.content_size
            return fitting_size(x1 - x0 + 1, y1 - y0 + 1, size.width, size.height, sizes, hang=self.hang)
        return LARGE if self.large else LINE

    @property
    def hang(self) -> int:
        """Columns a one-line grid may lose on its left: a grid nobody chooses in starts each
        cell with a blank gap, and the first one can be the region's own edge."""
        return 1 if self.narrow and self.fit else 0

    def match_size(self) -> None:
        """Repaint if the group's size changed since this grid was last drawn (another grid of
        the group spread out, or came back)."""
        if self.drawn_size is not None and self.drawn_size != self.card_size():
            self.refresh()

    def folded(self) -> bool:
        """A grid with more rows than its region has lines, while nobody chooses in it (an
        opponent's; yours between choices): drawn row after row, each row's cards in order and
        the rows apart by ROW_BREAK, so no row is lost (the columns are, which a grid nobody
        chooses in can spare). A choice needs the cells where they are: it is never folded."""
        if not (self.fit and self.cells) or (self.marks and not self.narrow):
            return False
        _, y0, _, y1 = self.bounds()
        return y1 - y0 + 1 > max(1, self.content_size.height)

    def folded_lines(self, width: int) -> list[Text]:
        """The folded grid (see `folded`): its rows with cards, top to bottom, packed into lines
        of `width`. A row is cut only between cards and only when it is longer than a line; a
        line that ends where a row does ends with the row break."""
        x0, y0, x1, y1 = self.cell_bounds()
        rows = [[self._folded_face(self.cells[(x, y)]) for x in range(x0, x1 + 1) if self.cells.get((x, y))]
                for y in range(y0, y1 + 1)]
        lines, line = [], Text()
        for faces in filter(None, rows):
            for index, face in enumerate(faces):
                joint = "" if not line.cell_len else ROW_BREAK if index == 0 else " "
                if line.cell_len and line.cell_len + len(joint) + face.cell_len > width - len(ROW_BREAK.rstrip()):
                    if index == 0:
                        line.append(ROW_BREAK.rstrip())
                    lines.append(line)
                    line, joint = Text(), ""
                line.append(joint)
                line.append_text(face)
        lines.append(line)
        return lines

    def _folded_face(self, stack: Stack) -> Text:
        """A card in its whole one-line form, the number unpadded: `C3●1x2`."""
        card = stack[-1]
        splashes = self.splashes[card.number - 1] if self.splashes is not None else None
        return Text(line_text(card, splashes, len(stack), self.glyphs.drop, width=7 + len(str(len(stack)))).strip()
                    .replace(" ", ""), style=card_style(card))

    @property
    def cell_size(self) -> tuple[int, int]:
        size = self.card_size()
        return size.width, size.height

    def origin_offset(self, card: CardSize | None = None) -> tuple[int, int]:
        """Where the first column and row are drawn: the grid is centred in a fitted region.
        (`card`: the card size, when the caller has it already.)"""
        if not self.fit:
            return 0, 0
        x0, y0, x1, y1 = self.bounds()
        card = card or self.card_size()
        width, height = card.width, card.height
        size = self.content_size
        hang = self.hang if height == 1 else 0  # (the first gap left out: see `hang`)
        return max(-hang, (size.width - (x1 - x0 + 1) * width) // 2), max(0, (size.height - (y1 - y0 + 1) * height) // 2)

    def cell_region(self, cell: Cell) -> Region:
        return self.cell_regions([cell])[0]

    def cell_regions(self, cells) -> list[Region]:
        """Each cell's region, the grid's shape worked out once for all of them (the card size
        asks every grid drawn alike, and each its widget's size, a walk up the DOM)."""
        card = self.card_size()
        width, height = card.width, card.height
        x0, y0, _, _ = self.bounds()
        ox, oy = self.origin_offset(card)
        return [Region(ox + (cell[0] - x0) * width, oy + (cell[1] - y0) * height, width, height) for cell in cells]

    def cursor_rows(self, cell: Cell) -> list[Region]:
        """What the cursor changes in a cell: a boxed card's top and bottom edges; a line."""
        region = self.cell_region(cell)
        if region.height < 3:
            return [region]
        return [Region(region.x, region.y, region.width, 1), Region(region.x, region.bottom - 1, region.width, 1)]

    # --- keys and mouse -----------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in ("move", "cycle", "confirm"):
            return bool(self._targets)
        if action == "jump":  # a key no cell shows now goes on to the screen's bindings
            return parameters[0] in self.tag_keys
        return True

    def action_move(self, direction: str) -> None:
        if not self.targets:
            return
        if self.cursor is None:
            self.cursor = self.origin or self.targets[0]
            return
        self.cursor = step_from_card(self.cursor, self.origin, self.targets, *DIRECTIONS[direction])

    def action_jump(self, key: str) -> None:
        """The cursor to the cell labelled `key`; Enter still confirms, so one stray key never
        places a card."""
        cell = next((cell for cell, tag in self.tags.items() if tag == key), None)
        if cell is not None:
            self.cursor = cell

    def cycle_order(self) -> list[Cell]:
        """Every legal cell once: the covers first, then the ducks, each nearest to the moving
        card first, then in reading order."""
        origin = self.origin or (0, 0)

        def rank(cell: Cell) -> tuple:
            far = abs(cell[0] - origin[0]) + abs(cell[1] - origin[1])
            return (self.marks[cell] != "cover", far, cell[1], cell[0])

        return sorted(self.targets, key=rank)

    def action_cycle(self, step: int) -> None:
        order = self.cycle_order()
        if not order:
            return
        if self.cursor in order:
            self.cursor = order[(order.index(self.cursor) + step) % len(order)]
        else:
            self.cursor = order[0] if step > 0 else order[-1]

    def action_confirm(self) -> None:
        if self.cursor in self.targets:
            self.post_message(self.Confirmed(self, self.cursor))
        elif self.targets:
            self.app.bell()  # the moving card itself is not a destination: the screen says what is
            self.post_message(self.OnMovingCard(self))

    def cell_at(self, x: int, y: int) -> Cell:
        width, height = self.cell_size
        x0, y0, _, _ = self.bounds()
        ox, oy = self.origin_offset()
        return x0 + (x - ox) // width, y0 + (y - oy) // height

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        cell = self.cell_at(offset.x, offset.y)
        if cell in self.targets:
            self.cursor = cell
            self.post_message(self.Confirmed(self, cell))

    def watch_cursor(self, old: Cell | None, new: Cell | None) -> None:
        # Only the two cells change: repainting them alone keeps a key press to a few
        # hundred bytes over SSH.
        regions = [edge for cell in (old, new) if cell is not None for edge in self.cursor_rows(cell)]
        if regions:
            self.refresh(*regions)
        if new is not None and not self.fit:
            self.call_after_refresh(self.keep_cell_in_view, new)

    def keep_cell_in_view(self, cell: Cell) -> None:
        """Keep the cursor on screen when the grid is larger than its scroll area."""
        target = self.cell_region(cell).translate(self.content_region.offset)
        for ancestor in self.ancestors:
            if isinstance(ancestor, ScrollableContainer):
                offset = ancestor.scroll_offset - ancestor.content_region.offset
                ancestor.scroll_to_region(target.translate(offset), animate=False)
                break

    # --- drawing ------------------------------------------------------------------------
    def get_content_width(self, container, viewport) -> int:
        x0, _, x1, _ = self.bounds()
        return (x1 - x0 + 1) * self.cell_size[0]

    def get_content_height(self, container, viewport, width: int) -> int:
        _, y0, _, y1 = self.bounds()
        return (y1 - y0 + 1) * self.cell_size[1]

    def refresh(self, *regions: Region, **kwargs) -> Widget:
        self._drawn = None  # Textual asks again for the lines the refresh names: draw them anew
        return super().refresh(*regions, **kwargs)

    def on_resize(self) -> None:
        self.refresh()  # new widths, maybe a new card size

    def render_line(self, y: int) -> Strip:
        """Line `y`: a row of cards is drawn (and kept until the next refresh) whole, the first
        time one of its lines is asked for. The shape is worked out once per refresh: the
        widget's style and size cost a walk up the DOM each."""
        drawn = self.__dict__.get("_drawn")
        if drawn is None or drawn["outer"] != self.outer_size:  # (a resize draws before on_resize runs)
            x0, y0, x1, y1 = self.bounds()
            self.drawn_size = self.card_size()
            drawn = self._drawn = {"outer": self.outer_size, "shape": (
                y0, y1, self.drawn_size, self.origin_offset(self.drawn_size)[1], self.size.width, self.rich_style),
                "folded": self.folded_lines(self.size.width) if self.folded() else None}
        y0, y1, size, oy, width, base = drawn["shape"]
        if drawn["folded"] is not None:
            folded = drawn["folded"]
            return text_strip(self, folded[y], base, width) if y < len(folded) else Strip.blank(width, base)
        row, part = divmod(y - oy, size.height)
        if y < oy or row > y1 - y0:
            return Strip.blank(width, base)
        strips = drawn.get(row)
        if strips is None:
            strips = drawn[row] = self._row_strips(y0 + row, size, base, width)
        return strips[part]

    def _row_lines(self, y: int, size: CardSize) -> list[Text]:
        x0, _, x1, _ = self.bounds()
        ox = self.origin_offset(size)[0]
        lines = [Text(" " * max(0, ox)) for _ in range(size.height)]
        for x in range(x0, x1 + 1):
            for line, piece in zip(lines, self._cell((x, y), size)):
                line.append_text(piece)
        return [line[-ox:] for line in lines] if ox < 0 else lines

    def as_text(self) -> Text:
        """The whole grid as the screen shows it, as one text (for tests and tools)."""
        if self.folded():
            return Text("\n").join(self.folded_lines(self.size.width))
        _, y0, _, y1 = self.bounds()
        size = self.card_size()
        lines = [Text() for _ in range(self.origin_offset()[1])]
        for y in range(y0, y1 + 1):
            lines.extend(self._row_lines(y, size))
        return Text("\n").join(lines)

    def _cell(self, cell: Cell, size: CardSize) -> list[Text]:
        """A cell's lines, made once for what it shows (callers only copy them): a reveal
        changes a card or two of a grid, and a row is drawn whole."""
        key = self._cell_key(cell, size)
        made = self.made_cells.get(key)
        if made is None:
            if len(self.made_cells) > 512:
                self.made_cells.clear()
            made = self.made_cells[key] = self._make_cell(
                self.cells.get(cell), self.marks.get(cell), cell == self.cursor, self.tags.get(cell, ""), size)
        return made

    def _cell_key(self, cell: Cell, size: CardSize) -> tuple:
        """Everything a cell's drawing depends on."""
        stack = self.cells.get(cell)
        top = stack[-1] if stack else None
        splashes = self.splashes[top.number - 1] if top is not None and self.splashes is not None else None
        return (top, len(stack) if stack else 0, splashes, self.marks.get(cell), cell == self.cursor,
                self.tags.get(cell, ""), size, self.seat, self.glyphs, i18n.language())

    def _cell_strips(self, cell: Cell, size: CardSize, base: Style) -> list[Strip]:
        """A cell's lines as strips over the grid's style, made once for what it shows: a row
        is then joined from its cells' strips, not laid out and rendered as text again."""
        key = (self._cell_key(cell, size), base)
        strips = self.made_strips.get(key)
        if strips is None:
            if len(self.made_strips) > 512:
                self.made_strips.clear()
            console = self.app.console
            strips = self.made_strips[key] = [
                Strip(text.render(console)).apply_style(base + console.get_style(text.style) if text.style else base)
                for text in self._cell(cell, size)]
        return strips

    def _row_strips(self, y: int, size: CardSize, base: Style, width: int) -> list[Strip]:
        """The lines of row `y` of cards, `width` wide: what `_row_lines` says, as strips."""
        x0, _, x1, _ = self.bounds()
        ox = self.origin_offset(size)[0]
        cells = [self._cell_strips((x, y), size, base) for x in range(x0, x1 + 1)]
        lines = []
        for part in range(size.height):
            line = Strip.join(([Strip.blank(ox, base)] if ox > 0 else []) + [strips[part] for strips in cells])
            if ox < 0:
                line = line.crop(-ox)
            lines.append(line.adjust_cell_length(width, base))
        return lines

    def _make_cell(self, stack: Stack | None, mark: str | None, at_cursor: bool, tag: str, size: CardSize) -> list[Text]:
        word = t(MARK_KEYS[mark]) if mark else ""
        if not stack:
            marker = self._line_marker(mark, at_cursor, size, tag)
            return empty_lines(size, self.glyphs, label=word if mark == "duck" else "", at_cursor=at_cursor,
                               marker=marker, tag=tag, short=t("mark.duck_short") if mark == "duck" else "")
        card = stack[-1]
        splashes = self.splashes[card.number - 1] if self.splashes is not None else None
        if not size.boxed:
            gap = 1 if size in MARKED_SIZES else 0
            face = card_lines(card, splashes, len(stack), CardSize(size.name, size.width - 1 - gap, 1), self.glyphs,
                              home=self.seat)[0]
            if mark == "called":  # still marked when the cursor's marker stands before it
                face.stylize(Style(underline=True))
            return [self._line_marker(mark, at_cursor, size, tag) + face + Text(" " * gap)]
        frame = "moving" if mark == "called" else "target" if mark else "plain"
        if at_cursor:
            frame += "+cursor"
        label_style = {"cover": COVER_STYLE, "pick": COVER_STYLE, "called": MOVING_STYLE}.get(mark or "")
        return card_lines(card, splashes, len(stack), size, self.glyphs, frame=frame, label=word,
                          label_style=label_style, tag=tag)

    def _line_marker(self, mark: str | None, at_cursor: bool, size: CardSize, tag: str = "") -> Text:
        """The character before a one-line cell: the cursor, else the cell's jump key, else its mark."""
        if at_cursor:
            return Text(CURSOR_MARKER, style=CURSOR_STYLE)
        if tag:  # a span, not the Text's own style: that one would reverse the whole line it starts
            return Text.assemble((tag, TAG_STYLE))
        if self.narrow and not mark:
            return Text(" ")  # a gap, so neighbouring cards never run together
        return Text(MARKERS.get(mark or "", " "), style=COVER_STYLE if mark != "called" else MOVING_STYLE)


class TableLog(KeptStyle, Widget):
    """The table's log: wrapped lines, the newest at the bottom.

    Cheap over SSH: a new line that fits below the last one repaints only itself; when the
    log is full it jumps by half its height (one repaint per half page) rather than
    scrolling, and so repainting every line, for each new line."""

    DEFAULT_CSS = "TableLog { height: 1fr; }"
    MAX_ENTRIES = 2000

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.auto_links = False
        self.entries: list[Text] = []
        self.wrapped: list[Text] = []
        self.top = 0  # the first wrapped line shown
        self.wrap_width = 0

    @property
    def at_end(self) -> bool:
        """The last line is on screen."""
        return len(self.wrapped) - self.top <= max(1, self.size.height)

    def write(self, line: Text) -> None:
        self.entries.append(line)
        if len(self.entries) > self.MAX_ENTRIES:
            del self.entries[: len(self.entries) - self.MAX_ENTRIES]
            self.rewrap()
            return
        if not self.wrap_width:
            return  # laid out on the first resize
        start = len(self.wrapped)
        self.wrapped.extend(self.wrap(line))
        height = self.size.height
        if len(self.wrapped) - self.top > height:
            self.top = max(0, len(self.wrapped) - max(1, height // 2))
            self.refresh()
        else:
            self.refresh(Region(0, start - self.top, self.size.width, len(self.wrapped) - start))

    def wrap(self, line: Text) -> list[Text]:
        return list(line.wrap(self.app.console, self.wrap_width)) or [Text()]

    def rewrap(self) -> None:
        self.wrap_width = self.size.width
        self.wrapped = [part for entry in self.entries for part in self.wrap(entry)] if self.wrap_width else []
        self.top = max(0, len(self.wrapped) - self.size.height)
        self.refresh()

    def on_resize(self) -> None:
        self.rewrap()

    def page(self, direction: int) -> None:
        height = max(1, self.size.height)
        last = max(0, len(self.wrapped) - height)
        top = min(last, max(0, self.top + direction * height))
        if top != self.top:
            self.top = top
            self.refresh()

    def refresh(self, *regions: Region, **kwargs) -> Widget:
        self._shape = None  # the style and width, worked out again on the next line asked for
        return super().refresh(*regions, **kwargs)

    def render_line(self, y: int) -> Strip:
        shape = self.__dict__.get("_shape")
        if shape is None or shape[0] != self.outer_size:
            shape = self._shape = (self.outer_size, self.rich_style, self.size.width)
        _, base, width = shape
        index = self.top + y
        if index >= len(self.wrapped):
            return Strip.blank(width, base)
        return text_strip(self, self.wrapped[index], base, width)
