"""The table's widgets: one focusable grid per player, with a cursor among legal cells."""
from __future__ import annotations

from collections.abc import Mapping

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.containers import ScrollableContainer
from textual.geometry import Region
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from ..grid import Cell, Stack
from ..i18n import t
from .cards import card_style, compact_text, large_lines

TARGET_KINDS = ("cover", "duck", "pick")
CURSOR = Style(color="yellow", bold=True)
DUCK_STYLE = Style(color="green", bold=True)
COVER_STYLE = Style(color="cyan", bold=True)
MARK_KEYS = {"cover": "mark.cover", "duck": "mark.duck", "pick": "mark.pick", "called": "mark.called"}
DIRECTIONS = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}


def step_cursor(cursor: Cell, targets: list[Cell], dx: int, dy: int) -> Cell:
    """The nearest target in direction (dx, dy): straight ahead first, then off to the side."""
    best, best_score = cursor, None
    for cell in targets:
        ahead = (cell[0] - cursor[0]) * dx + (cell[1] - cursor[1]) * dy
        if ahead <= 0:
            continue
        aside = abs((cell[0] - cursor[0]) * dy) + abs((cell[1] - cursor[1]) * dx)
        score = (ahead + 2 * aside, aside, cell[1], cell[0])
        if best_score is None or score < best_score:
            best, best_score = cell, score
    return best


class KeyBar(Widget):
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

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, lambda _screen: self.refresh())

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
        for index, (binding, enabled) in enumerate(self.shown()):
            item = self.get_component_rich_style("keybar--hover" if index == self.hover else "keybar--item")
            if not enabled:
                item += Style(dim=True)
            label = Text.assemble((f" {self.app.get_key_display(binding)} ", item + key_style),
                                  (f"{binding.description} ", item + description_style))
            labels.append((label, binding, enabled))
        return labels

    def render(self) -> Text:
        return Text("").join(label for label, _, _ in self.labels())

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


class GridWidget(Widget):
    """A player's grid. `marks` says which cells are legal (cover / duck / pick) and which
    card is moving; the `cursor` moves among the legal ones only."""

    BINDINGS = [
        Binding("left,h", "move('left')", show=False),
        Binding("right,l", "move('right')", show=False),
        Binding("up,k", "move('up')", show=False),
        Binding("down,j", "move('down')", show=False),
    ]
    DEFAULT_CSS = "GridWidget { width: auto; height: auto; }"

    cursor: reactive[Cell | None] = reactive(None)

    class Confirmed(Message):
        """Enter (or a click) on a legal cell."""

        def __init__(self, grid: GridWidget, cell: Cell) -> None:
            super().__init__()
            self.grid, self.cell = grid, cell

    def __init__(self, seat: int, large: bool = False, focusable: bool = False, narrow: bool = False,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self.seat = seat
        self.large = large
        self.narrow = narrow  # compact without the marker column: for grids nobody chooses in
        self.can_focus = focusable
        self.cells: Mapping[Cell, Stack] = {}
        self.splashes: tuple[int, ...] = (0,) * 12
        self.marks: dict[Cell, str] = {}
        self._bindings.bind("enter", "confirm", t("key.confirm"))

    # --- state --------------------------------------------------------------------------
    def show(self, cells: Mapping[Cell, Stack], splashes, marks: dict[Cell, str] | None = None,
             cursor: Cell | None = None) -> None:
        marks = dict(marks or {})
        had_targets, old_bounds = bool(self.targets), self.bounds()
        if (cells, marks) == (self.cells, self.marks) and cursor == self.cursor:
            return  # nothing changed: spare the layout pass
        self.cells, self.splashes = cells, tuple(splashes)
        self.marks = marks
        self.cursor = cursor if cursor in self.targets else None
        self.refresh(layout=self.bounds() != old_bounds)
        if had_targets != bool(self.targets):
            self.refresh_bindings()

    def set_large(self, large: bool) -> None:
        if large != self.large:
            self.large = large
            self.refresh(layout=True)

    @property
    def targets(self) -> list[Cell]:
        return sorted((c for c, kind in self.marks.items() if kind in TARGET_KINDS), key=lambda c: (c[1], c[0]))

    def bounds(self) -> tuple[int, int, int, int]:
        cells = list(self.cells) + list(self.marks)
        if not cells:
            return 0, 0, 0, 0
        xs, ys = [c[0] for c in cells], [c[1] for c in cells]
        return min(xs), min(ys), max(xs), max(ys)

    @property
    def cell_size(self) -> tuple[int, int]:
        if self.large:
            return 9, 3
        return (8, 1)

    # --- keys and mouse -----------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in ("move", "confirm"):
            return bool(self.targets)
        return True

    def action_move(self, direction: str) -> None:
        targets = self.targets
        if not targets:
            return
        if self.cursor is None:
            self.cursor = targets[0]
            return
        self.cursor = step_cursor(self.cursor, targets, *DIRECTIONS[direction])

    def action_confirm(self) -> None:
        if self.cursor is not None:
            self.post_message(self.Confirmed(self, self.cursor))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        width, height = self.cell_size
        x0, y0, _, _ = self.bounds()
        cell = (x0 + offset.x // width, y0 + offset.y // height)
        if cell in self.targets:
            self.cursor = cell
            self.post_message(self.Confirmed(self, cell))

    def watch_cursor(self, cursor: Cell | None) -> None:
        self.refresh()
        if cursor is not None:
            self.call_after_refresh(self._scroll_to, cursor)

    def _scroll_to(self, cell: Cell) -> None:
        """Keep the cursor on screen when the grid is larger than its scroll area."""
        width, height = self.cell_size
        x0, y0, _, _ = self.bounds()
        region = self.content_region
        target = Region(region.x + (cell[0] - x0) * width, region.y + (cell[1] - y0) * height, width, height)
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

    def render(self) -> Text:
        x0, y0, x1, y1 = self.bounds()
        rows = [self._row(y, x0, x1) for y in range(y0, y1 + 1)]
        return Text("\n").join(line for row in rows for line in row)

    def _row(self, y: int, x0: int, x1: int) -> list[Text]:
        lines = [Text() for _ in range(self.cell_size[1])]
        for x in range(x0, x1 + 1):
            parts = self._cell((x, y))
            for line, part in zip(lines, parts):
                line.append_text(part)
        return lines

    def _cell(self, cell: Cell) -> list[Text]:
        stack = self.cells.get(cell)
        mark = self.marks.get(cell)
        at_cursor = cell == self.cursor
        if self.large:
            return self._large(stack, mark, at_cursor)
        return [self._compact(stack, mark, at_cursor)]

    def _large(self, stack: Stack | None, mark: str | None, at_cursor: bool) -> list[Text]:
        left, right = (">", "<") if at_cursor else (" ", " ")
        if stack:
            card = stack[-1]
            top, bottom = large_lines(card, self.splashes[card.number - 1], len(stack))
            style = card_style(card) + Style(reverse=True) if mark == "called" else card_style(card)
            body = [Text(top, style=style), Text(bottom, style=style)]
        elif mark == "duck":
            body = [Text(" .   . ", style=DUCK_STYLE), Text(" .   . ", style=DUCK_STYLE)]
        else:
            body = [Text(" " * 7), Text(" " * 7)]
        note = t(MARK_KEYS[mark])[:7].center(7) if mark else " " * 7
        note_style = {"duck": DUCK_STYLE, "cover": COVER_STYLE}.get(mark or "", Style(bold=True))
        if at_cursor:
            note_style = note_style + Style(reverse=True)
        lines = [Text(left, style=CURSOR) + b + Text(right, style=CURSOR) for b in body]
        lines.append(Text(" ") + Text(note, style=note_style) + Text(" "))
        return lines

    def _compact(self, stack: Stack | None, mark: str | None, at_cursor: bool) -> Text:
        sign = {"cover": "^", "duck": "+", "pick": "?", "called": "*"}.get(mark or "", " ")
        marker = Text(">" if at_cursor else sign, style=CURSOR if at_cursor else Style(bold=True))
        if self.narrow:
            marker = Text(" ")  # no marks here, but a gap so neighbouring cards never run together
        if stack:
            card = stack[-1]
            style = card_style(card)
            if mark == "called" or at_cursor:
                style += Style(reverse=True)
            elif mark in ("cover", "pick"):
                style += Style(underline=True)
            return marker + Text(compact_text(card, self.splashes[card.number - 1], len(stack)), style=style)
        if mark == "duck":
            word = t("mark.duck")[:7].center(7)
            style = DUCK_STYLE + Style(reverse=True) if at_cursor else DUCK_STYLE
            return marker + Text(word, style=style)
        return Text(" " * self.cell_size[0])
