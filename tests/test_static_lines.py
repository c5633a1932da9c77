"""The table's text widgets drawn line by line (issue 22): the status line and the prompt
(TextStatic), the seat titles and the keys keep their drawn lines until their content changes.
They must draw exactly what Textual's Static draws, and a kept line must never outlive its
content (a stale line would show an old score, prompt or key)."""
import pytest
from rich.text import Text
from textual.app import App
from textual.binding import Binding
from textual.geometry import Region
from textual.widgets import Static

from duckcover.app.widgets.cards import CURSOR_STYLE, MOVING_STYLE, TAG_STYLE
from duckcover.app.table.screen import SeatTitle
from duckcover.app.widgets.core import KeyBar, TextStatic


def status_like() -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")  # as the table's status: Textual wraps it all the same
    text.append(" Call: 8 ", style="bold reverse")
    text.append("  Round 1/3  Flip 11  Captain: Connie  ")
    text.append("[Low blows, quack]", style="dim")
    text.append("\n")
    text.append("0 discarded - 4 more end the round | Deck 15 | Pile 1 | Discard: - and more words", style="bold")
    return text


def prompt_like() -> Text:
    text = Text()
    text.append("Move your 8: a cell's letter or arrows, Enter.", style="bold")
    text.append("\n")
    text.append(">", style=CURSOR_STYLE)
    text.append(" cursor  ")
    text.append("=", style=MOVING_STYLE)
    text.append(" moving  ")
    text.append("a", style=TAG_STYLE)
    text.append(" ... go to that cell")
    text.append("\nB12●5x2: family B, card 12, 5 splashes, stack of 2; a legend long enough to wrap", style="dim")
    return text


TEXTS = [status_like(), prompt_like(), Text("Duck & Cover  Round 1/3  Flip 2   [x]", no_wrap=True),
         Text("word " * 30), Text("averyveryverylongwordthatcannotbreakatall and more"), Text(""),
         Text("two  spaces  between   words and trailing   "), Text.assemble(("a", "bold"), ("b", "bold"), "c")]


class Side(App):
    CSS = "Static { height: 5; padding: 0 1; background: $panel; }"

    def compose(self):
        for index in range(len(TEXTS)):
            yield Static(id=f"static-{index}")
            yield TextStatic(id=f"text-{index}")


def lines(widget) -> list[list[tuple]]:
    """The widget as drawn: each segment's text, style and offset mark."""
    strips = widget.render_lines(Region(0, 0, widget.outer_size.width, widget.outer_size.height))
    return [[(segment.text, segment.style) for segment in strip] for strip in strips]


@pytest.mark.parametrize("width", [14, 41, 80, 120])
async def test_text_static_draws_what_a_static_draws(width):
    app = Side()
    async with app.run_test(size=(width, 100)) as pilot:
        for index, text in enumerate(TEXTS):
            app.query_one(f"#static-{index}", Static).update(text.copy())
            app.query_one(f"#text-{index}", TextStatic).update(text.copy())
        await pilot.pause()
        for index, text in enumerate(TEXTS):
            assert lines(app.query_one(f"#text-{index}")) == lines(app.query_one(f"#static-{index}")), text.plain


async def test_text_static_draws_its_new_content_and_its_new_width():
    app = Side()
    async with app.run_test(size=(60, 100)) as pilot:
        widget = app.query_one("#text-0", TextStatic)
        widget.update(Text("Waiting for Ben"))
        await pilot.pause()
        assert "Waiting for Ben" in widget.render_line(0).text
        widget.update(Text("Move your 8"))
        await pilot.pause()
        assert "Move your 8" in widget.render_line(0).text and "Ben" not in widget.render_line(0).text
        widget.update(Text("one two three four five six seven eight nine"))
        await pilot.pause()
        assert widget.render_line(1).text.strip() == ""
        await pilot.resize_terminal(30, 100)
        await pilot.pause()
        assert widget.render_line(1).text.strip()  # wrapped anew at the new width
        widget.update("plain [b]markup[/b]")  # not Text: the Static draws it
        await pilot.pause()
        assert "plain markup" in widget.render_line(0).text


class Titles(App):
    def compose(self):
        yield SeatTitle()


async def test_a_seat_title_draws_its_new_score():
    app = Titles()
    async with app.run_test(size=(60, 5)) as pilot:
        title = app.query_one(SeatTitle)
        title.set_parts("Ann", "human", False, 12, 3, 10)
        await pilot.pause()
        assert "3 now, total 10" in title.render_line(0).text
        title.set_parts("Ann", "human", False, 12, 4, 10)  # the same length: a partial repaint
        await pilot.pause()
        assert "4 now, total 10" in title.render_line(0).text
        title.set_parts("Ann", "human", True, 11, 4, 10)
        await pilot.pause()
        assert "Captain" in title.render_line(0).text and "11 stacks" in title.render_line(0).text


class Keys(App):
    BINDINGS = [Binding("f", "flip", "Flip"), Binding("t", "hint", "Hint")]

    def __init__(self) -> None:
        super().__init__()
        self.can_hint = True

    def compose(self):
        yield KeyBar()

    def check_action(self, action: str, parameters) -> bool | None:
        return self.can_hint if action == "hint" else True

    def action_flip(self) -> None:
        pass

    def action_hint(self) -> None:
        pass


async def test_the_key_bar_draws_the_keys_of_the_moment():
    app = Keys()
    async with app.run_test(size=(60, 5)) as pilot:
        bar = app.query_one(KeyBar)
        await pilot.pause()
        assert "Hint" in bar.render_line(0).text
        app.can_hint = False
        app.refresh_bindings()
        await pilot.pause()
        assert "Flip" in bar.render_line(0).text and "Hint" not in bar.render_line(0).text


class OneGrid(App):
    def __init__(self, grid) -> None:
        super().__init__()
        self.grid = grid

    def compose(self):
        self.grid.styles.width, self.grid.styles.height = 60, 12
        yield self.grid


async def test_a_grid_draws_the_card_that_changed_not_the_kept_row():
    """The grid keeps each drawn row until its next refresh; a card that changes in place (the
    same bounds and size: a repaint of its cell alone) must show at once, and the regions of
    several changed cells are each cell's own region."""
    from duckcover.app.widgets.core import GridWidget
    from duckcover.engine import CARDS
    grid = GridWidget(0, large=True, focusable=True, fit=True, ring=False)
    async with OneGrid(grid).run_test(size=(60, 12)) as pilot:
        cells = {(x, y): (CARDS[0][x + 3 * y + 1],) for x in range(3) for y in range(2)}
        grid.show(cells, (0,) * 12)
        await pilot.pause()

        def drawn() -> str:
            return "\n".join(grid.render_line(y).text for y in range(grid.content_size.height))

        before = drawn()
        changed = dict(cells)
        changed[(1, 1)] = (CARDS[1][12],)  # a card of another family, in place
        grid.show(changed, (0,) * 12)
        await pilot.pause()
        after = drawn()
        assert after != before
        drawn_lines = [line.rstrip() for line in after.splitlines()]
        shown = [line.rstrip() for line in grid.as_text().plain.splitlines()]
        assert drawn_lines[:len(shown)] == shown and not any(drawn_lines[len(shown):])
        assert grid.cell_regions([(0, 0), (1, 1)]) == [grid.cell_region((0, 0)), grid.cell_region((1, 1))]


class OneHeaps(App):
    def compose(self):
        from duckcover.app.table.screen import Heaps
        yield Heaps()


async def test_the_heaps_draw_the_new_top_card():
    from duckcover.app.table.screen import Heaps
    app = OneHeaps()
    async with app.run_test(size=(60, 8)) as pilot:
        heaps = app.query_one(Heaps)
        heaps.set_faces((("Call", "7", ""), ("Pile", "", ""), ("Discard", "", "")))
        await pilot.pause()
        assert " 7 " in heaps.render_line(3).text
        heaps.set_faces((("Call", "9", ""), ("Pile", "7", ""), ("Discard", "", "")))  # one row per heap repaints
        await pilot.pause()
        middle = heaps.render_line(3).text
        assert " 9 " in middle and " 7 " in middle and middle.index(" 9 ") < middle.index(" 7 ")
