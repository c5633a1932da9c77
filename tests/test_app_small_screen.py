"""80x24 and what it showed wrong (issue 19): with six or seven seats late in a round, an opponent's
grid with more rows than its panel has lines is folded (its rows one after another, apart by
" / ") and loses no card; no "Flip 0" before the first flip; a dead Repeat said once; the
create-table screen's "Rated game" in sight without scrolling."""
import pytest
from textual.app import App

from autoplay import settle, step, table_of
from duckcover.app import AppOptions, create_app, quick_seats
from duckcover.app.table.screen import SeatPanel
from duckcover.app.widgets.core import ROW_BREAK, GridWidget
from duckcover.common.i18n import t
from duckcover.engine import CARDS
from test_app_table_facts import expected_cards, grid_text, screen_lines, shown_cards

# Seven seats, seed 5: at flip 11 of round 1, Gwen's grid spans four rows in a panel of three lines.
SEVEN = (6, 5, 11)


def make(tmp_path, bots, seed):
    return create_app(AppOptions(seats=quick_seats(bots, "Connie"), seed=seed, speed="instant", lang="en",
                                 data_dir=tmp_path, stats=False, save=False))


async def at_flip(pilot, flip):
    for _ in range(300):
        await step(pilot)
        table = table_of(pilot.app)
        if table is not None and table.chooser is not None and table.ctl.game.turn_number + 1 >= flip:
            await pilot.pause()
            return table
    raise AssertionError(f"flip {flip} never came")


def rows(game, seat) -> int:
    ys = [y for _, y in game.grid(seat)]
    return max(ys) - min(ys) + 1


async def test_seven_seats_at_80x24_show_every_card_of_every_grid(tmp_path):
    bots, seed, flip = SEVEN
    app = make(tmp_path, bots, seed)
    async with app.run_test(size=(80, 24)) as pilot:
        table = await at_flip(pilot, flip)
        game = table.ctl.game
        panels = list(table.query(".opponent").results(SeatPanel))
        tall = [panel for panel in panels if rows(game, panel.seat) > panel.grid.content_size.height]
        assert tall, "the position no longer has a grid taller than its panel"
        for panel in table.query(SeatPanel):
            assert shown_cards(grid_text(app, panel), panel.seat) == expected_cards(game, panel.seat), panel.seat
        for panel in tall:
            text = grid_text(app, panel)
            assert ROW_BREAK.strip() in text  # folded, its rows apart
            assert text.count(ROW_BREAK.strip()) == rows(game, panel.seat) - 1 - empty_rows(game, panel.seat)


def empty_rows(game, seat) -> int:
    ys = {y for _, y in game.grid(seat)}
    return rows(game, seat) - len(ys)


def test_snapshot_seven_seats_late_in_a_round(snap_compare, tmp_path):
    bots, seed, flip = SEVEN

    async def late(pilot):
        await at_flip(pilot, flip)

    assert snap_compare(make(tmp_path, bots, seed), terminal_size=(80, 24), run_before=late)


async def test_no_flip_number_before_the_first_flip(tmp_path):
    app = create_app(AppOptions(seats=quick_seats(1, "Ann"), seed=7, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False, save=False))
    async with app.run_test(size=(80, 24)) as pilot:
        table = table_of(app)
        await settle(pilot)
        assert table.state == "await-flip" and app.controller.game.turn_number == 0
        status = table.status_text().plain
        assert "Round 1/3" in status and "Flip" not in status
        await pilot.press("space")
        await settle(pilot)
        assert "Flip 1" in table.status_text().plain


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_dead_repeat_is_explained_once(tmp_path, size):
    # Seed 7: Ann, the Captain, flips Repeat first: nothing to repeat.
    app = create_app(AppOptions(seats=quick_seats(1, "Ann"), seed=7, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False, save=False))
    async with app.run_test(size=size) as pilot:
        table = table_of(app)
        await settle(pilot)
        await pilot.press("space")
        await settle(pilot, lambda: app.controller.game.turn_number == 1)
        await pilot.pause()
        assert app.controller.game.last_turn.call.kind == "dead"
        assert [line.strip() for line in table.log_lines].count(t("log.repeat_dead")) == 1
        assert t("explain.repeat_first") not in table.log_lines
        log = table.query_one("#log")
        shown = " ".join(" ".join(line.plain.split()) for line in log.wrapped)  # as wrapped on screen
        assert shown.count("straight to the Discard area") == 1


async def test_rated_game_is_in_sight_on_the_create_table_screen_at_80x24(tmp_path):
    from duckcover.app.remote import CreateTableScreen

    app = make(tmp_path, 1, 7)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(CreateTableScreen())
        await pilot.pause()
        form, rated = app.screen.query_one("#setup"), app.screen.query_one("#rated")
        assert form.scroll_y == 0 and form.region.contains_region(rated.region)
        await pilot.press("tab")  # ... and one Tab from the table's name
        assert app.focused is rated


class OneGrid(App):
    """A grid alone in a region of 60x5, as your grid is with seven seats at 80x24."""

    def __init__(self, grid: GridWidget) -> None:
        super().__init__()
        self.grid = grid

    def compose(self):
        self.grid.styles.width, self.grid.styles.height = 60, 5
        yield self.grid


async def test_your_grid_gives_up_its_ring_before_a_legal_cell():
    # Four rows of cards in five lines: the ring (a row above and below, for ducks to come) no
    # longer fits; the legal cells, all within the rows, must stay in sight.
    card = CARDS[0][5]
    cells = {(x, y): (card,) for x in range(3) for y in range(4)}
    grid = GridWidget(0, large=True, focusable=True, fit=True, ring=True)
    async with OneGrid(grid).run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        marks = {(1, 1): "called", (0, 0): "cover", (2, 3): "cover", (3, 1): "duck"}
        grid.show(cells, (0,) * 12, marks, (1, 1))
        await pilot.pause()
        height = grid.content_size.height
        for cell in grid.targets:
            region = grid.cell_region(cell)
            assert 0 <= region.y and region.bottom <= height, (cell, region)
        assert grid.bounds()[1] == 0  # no ring row above the first row of cards


async def test_your_grid_taller_than_its_region_is_folded_between_choices_and_not_during_one():
    # A column of twelve cards (a player who ducked upwards all round) in seven lines: between
    # choices every card stays in sight, folded; during a choice the cells keep their places.
    cells = {(0, y): (CARDS[0][y + 1],) for y in range(12)}
    grid = GridWidget(0, large=True, focusable=True, fit=True, ring=True)
    async with OneGrid(grid).run_test(size=(60, 7)) as pilot:
        await pilot.pause()
        grid.show(cells, (0,) * 12)
        await pilot.pause()
        assert grid.folded()
        text = "".join(seg.text for y in range(grid.content_size.height) for seg in grid.render_line(y))
        for number in range(1, 13):
            assert f"A{number}\u25cf" in text.replace(grid.glyphs.drop, "\u25cf"), (number, text)
        grid.show(cells, (0,) * 12, {(0, 5): "called", (1, 5): "duck"}, (0, 5))
        await pilot.pause()
        assert not grid.folded()
