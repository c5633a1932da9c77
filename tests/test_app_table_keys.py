"""The table by keys: arrows from the moving card at every edge of the grid, Tab during a
choice, focus that stays visible, regions that keep their size, and the too-small notice."""
from __future__ import annotations

import pytest

from duckcover.app import AppOptions, create_app, quick_seats
from autoplay import press, settle, step, table_of
from duckcover.app.screens.core import TooSmallScreen
from duckcover.app.table.screen import SeatPanel, TableScreen
from duckcover.app.widgets.core import DIRECTIONS, GridWidget


def options(tmp_path, seed=7, bots=3, **kw):
    return AppOptions(seats=quick_seats(bots, "Ann"), seed=seed, speed="instant", lang="en",
                      data_dir=tmp_path, stats=False, **kw)


async def until_moving(pilot, table, turns=60):
    """Play (first offers) until Ann must say where a card goes."""
    for _ in range(turns):
        if table.chooser is not None and table.stage == "dest":
            return table.query_one("#own-grid", GridWidget)
        await step(pilot)
        await settle(pilot)
    raise AssertionError("Ann never had a card to move")


async def test_tab_during_a_choice_keeps_the_keys_on_the_choice(tmp_path):
    app = create_app(options(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        table = table_of(app)
        grid = await until_moving(pilot, table)
        assert app.focused is grid
        order = grid.cycle_order()
        seen = []
        for _ in order:
            await pilot.press("tab")
            assert app.focused is grid  # Tab never takes the keyboard away from the choice
            seen.append(grid.cursor)
        assert seen == order  # ... it visits every legal destination once
        await pilot.press("shift+tab")
        assert app.focused is grid and grid.cursor == order[-2 % len(order)]
        # The footer still offers Confirm, and Enter plays the cell under the cursor.
        assert "Confirm" in str(table.query_one("KeyBar").render())
        turn = app.controller.game.turn_number
        wanted = grid.cursor
        await pilot.press("enter")
        await settle(pilot, lambda: app.controller.game.turn_number > turn)
        assert app.controller.game.last_turn.moves[0].to == wanted


async def test_nothing_at_the_table_but_the_grid_takes_focus(tmp_path):
    app = create_app(options(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        table = table_of(app)
        await settle(pilot)
        focusable = [w for w in table.query("*") if w.can_focus]
        assert focusable == [table.query_one("#own-grid")]
        # ... and its focus shows: the panel's border takes the accent colour.
        panel = table.query_one("#own-panel", SeatPanel)
        assert panel.has_pseudo_class("focus-within")


async def test_the_cursor_starts_on_the_moving_card(tmp_path):
    app = create_app(options(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        table = table_of(app)
        grid = await until_moving(pilot, table)
        assert grid.cursor == grid.origin == table.picked[1]
        assert grid.marks[grid.origin] == "called"


def edge_grids():
    """A seeded sequence of choices gives many moving cards; the test checks each arrow
    from each of them, so cards on every edge of the grid are covered."""
    return [5, 7, 11]


@pytest.mark.parametrize("seed", edge_grids())
async def test_one_arrow_from_the_card_reaches_its_neighbour_that_way(tmp_path, seed):
    app = create_app(options(tmp_path, seed=seed))
    edges_seen = set()
    async with app.run_test(size=(120, 40)) as pilot:
        table = table_of(app)
        for _ in range(12):  # a dozen choices
            grid = await until_moving(pilot, table)
            origin = grid.origin
            cells = table.ctl.views[table.chooser].grid.cells
            xs, ys = [c[0] for c in cells], [c[1] for c in cells]
            edges = {name for name, hit in (("left", origin[0] == min(xs)), ("right", origin[0] == max(xs)),
                                            ("top", origin[1] == min(ys)), ("bottom", origin[1] == max(ys))) if hit}
            edges_seen |= edges
            for key, (dx, dy) in DIRECTIONS.items():
                grid.cursor = origin
                await press(pilot, key)
                beside = (origin[0] + dx, origin[1] + dy)
                if beside in grid.targets:
                    assert grid.cursor == beside, (key, origin)  # the cover or the duck cell there
                else:
                    assert grid.cursor in grid.targets + [origin]
                    if grid.cursor != origin:  # the nearest legal cell that way
                        ahead = (grid.cursor[0] - origin[0]) * dx + (grid.cursor[1] - origin[1]) * dy
                        assert ahead > 0, (key, origin, grid.cursor)
                # ... and the opposite arrow comes back to the card.
                back = {"left": "right", "right": "left", "up": "down", "down": "up"}[key]
                if grid.cursor != origin and grid.cursor == beside:
                    await press(pilot, back)
                    assert grid.cursor == origin
            grid.cursor = origin
            await step(pilot)
    assert edges_seen == {"left", "right", "top", "bottom"}


async def test_regions_keep_their_size_through_a_turn(tmp_path):
    app = create_app(options(tmp_path, bots=6))
    async with app.run_test(size=(120, 40)) as pilot:
        table = table_of(app)
        await settle(pilot)

        def regions():
            return {w.id or f"{type(w).__name__}{i}": w.region for i, w in enumerate(table.query("*"))
                    if w.id or isinstance(w, SeatPanel)}

        before = regions()
        grid = await until_moving(pilot, table)  # Ann's grid grew a ring of duck cells
        assert grid.targets
        assert regions() == before
        # Every player's total is on screen, whole.
        totals = str(table.query_one("#totals").render())
        assert all(name in totals for name in app.controller.game.names)
        assert table.query_one("#totals").region.height == len(app.controller.game.names) + 1
        await step(pilot)
        await settle(pilot)
        assert regions() == before


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
async def test_opponent_headers_never_wrap_and_show_this_rounds_splashes(tmp_path, lang):
    seats = quick_seats(6, "Ann")
    app = create_app(AppOptions(seats=seats, seed=3, speed="instant", lang=lang, data_dir=tmp_path, stats=False))
    async with app.run_test(size=(80, 24)) as pilot:
        table = table_of(app)
        await settle(pilot)
        game = app.controller.game
        for panel in table.query(SeatPanel):
            title = panel.title
            assert title.region.height == 1
            text = title.render()
            assert text.cell_len <= title.region.width
            grid = game.grid(panel.seat)
            now = sum(game.rules.value(stack[-1].number) for stack in grid.values())
            assert str(now) in text.plain and str(game.totals[panel.seat]) in text.plain


async def test_the_too_small_notice_comes_on_the_first_shrink(tmp_path):
    app = create_app(options(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        await pilot.resize_terminal(70, 20)
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)


async def test_names_at_the_table_are_text_never_markup_or_controls(tmp_path):
    evil = "[b]Eve[/b]\x1b[2J\u202e"
    app = create_app(AppOptions(seats=quick_seats(2, evil), seed=3, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False))
    async with app.run_test(size=(120, 40)) as pilot:
        table = table_of(app)
        await settle(pilot)
        shown_texts = [str(table.query_one(selector).render()) for selector in ("#status", "#totals")]
        shown_texts += [panel.title.render().plain for panel in table.query(SeatPanel)]
        shown_texts += table.log_lines
        everything = "\n".join(shown_texts)
        assert "[b]Eve" in everything  # the brackets are shown as typed
        assert "\x1b" not in everything and "\u202e" not in everything


def test_the_textual_api_the_table_relies_on_is_there():
    """Public but less common Textual API the table uses: an upgrade that changes it fails here."""
    import inspect

    from textual.screen import Screen
    from textual.widget import Widget

    assert "regions" in str(inspect.signature(Widget.refresh))  # refresh(*regions): two cells only
    assert hasattr(Widget, "set_reactive") and hasattr(Widget, "auto_links")
    assert hasattr(Screen, "active_bindings") and hasattr(Screen, "refresh_bindings")
    screen = Screen()
    assert hasattr(screen, "bindings_updated_signal")  # the KeyBar listens to it


async def test_a_cursor_move_draws_again_only_the_rows_of_cards_it_touches(tmp_path):
    app = create_app(options(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        table = table_of(app)
        grid = await until_moving(pilot, table)
        await pilot.pause()
        drawn = []
        real = grid._row_strips

        def counted(y, size, base, width):
            drawn.append(y)
            return real(y, size, base, width)

        grid._row_strips = counted
        real_display = app._display  # a headless app writes nothing: write as a terminal's would

        def display(screen, update):
            if update is not None and hasattr(update, "render_segments"):
                update.render_segments(app.console)
            return real_display(screen, update)

        app._display = display
        start, target = grid.cursor, grid.cycle_order()[0]
        await pilot.press("tab")
        await pilot.pause()
        assert grid.cursor == target
        assert sorted(set(drawn)) == sorted({start[1], target[1]})  # not the whole grid
        # ... and the lines Textual is given are the grid's own text, line for line.
        lines = [grid.render_line(y).text.rstrip() for y in range(grid.size.height)]
        whole = [line.rstrip() for line in grid.as_text().plain.split("\n")]
        assert lines[:len(whole)] == whole and not any(lines[len(whole):])


@pytest.mark.parametrize("size", [(120, 34), (120, 40), (110, 34)])
async def test_every_opponent_shows_every_row_of_cards_with_seven_players(tmp_path, size):
    app = create_app(options(tmp_path, bots=6))
    async with app.run_test(size=size) as pilot:
        table = table_of(app)
        await settle(pilot)
        grids = [g for g in table.query(GridWidget) if g.id != "own-grid"]
        assert len(grids) == 6
        for grid in grids:
            _, y0, _, y1 = grid.bounds()
            assert (y1 - y0 + 1) * grid.card_size().height <= grid.size.height, grid.seat


async def test_the_table_shows_the_rules_of_the_round_when_a_variant_skips_it(tmp_path):
    """Competition in round 3 only: round 1 scores splashes, and the header does not name it."""
    from duckcover.app.screens.core import card_values
    from duckcover.app.table.screen import SeatTitle
    from duckcover.engine import rules_with_variants

    rules = rules_with_variants(["competition:3"])
    app = create_app(options(tmp_path, rules=rules))
    async with app.run_test(size=(120, 40)) as pilot:
        table = table_of(app)
        await settle(pilot)
        assert "Competition" not in table.status_text().plain
        titles = [title.drawn.plain for title in table.query(SeatTitle)]
        assert titles and all("30 now" in title for title in titles)  # splashes 0-5 sum to 30; numbers to 78
        values = card_values(app.controller, 0, 0)
        assert "12(5)" in values  # a 12 scores its five splashes in round 1
        rules3 = app.controller.game.rules.for_round(2)
        assert rules3.value(12) == 12 and app.controller.game.round_rules.value(12) == 5


async def test_the_key_bar_draws_each_set_of_keys_once_and_shows_the_keys_of_the_moment():
    """A table goes back and forth between a few sets of keys; the bar drawn for each is kept
    (a guest had drawn the same bar again at nearly every reveal), and never shown for another set."""
    from textual.app import App
    from textual.binding import Binding
    from textual.screen import Screen

    from duckcover.app.widgets.core import KeyBar

    class Keys(Screen):
        BINDINGS = [Binding("f", "flip", "Flip"), Binding("h", "hint", "Hint")]
        flip_allowed = True

        def compose(self):
            yield KeyBar()

        def check_action(self, action, parameters):
            return self.flip_allowed if action == "flip" else True

    class Bar(App):
        def on_mount(self):
            self.push_screen(Keys())

    app = Bar()
    made = []
    real = KeyBar.labels
    KeyBar.labels = lambda bar: made.append(1) or real(bar)
    try:
        async with app.run_test(size=(40, 3)) as pilot:
            screen, seen = app.screen, []
            for allowed in (True, False, True, False, True):
                screen.flip_allowed = allowed
                screen.refresh_bindings()
                await pilot.pause()
                bar = screen.query_one(KeyBar)
                seen.append((allowed, "".join(segment.text for segment in bar.render_line(0))))
            for allowed, line in seen:
                assert ("Flip" in line) is allowed and "Hint" in line
            assert seen[0][1] == seen[2][1] == seen[4][1] and seen[1][1] == seen[3][1]
            drawn_once = len(made)
            screen.flip_allowed = False
            screen.refresh_bindings()
            await pilot.pause()
            screen.query_one(KeyBar).render_line(0)
            assert len(made) == drawn_once  # a set of keys seen before: nothing made again
    finally:
        KeyBar.labels = real


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_row_joined_from_its_cells_strips_is_the_row_drawn_as_text(tmp_path, size):
    """Each grid row is joined from its cells' kept strips; character for character and style
    for style, it is the row laid out as one text and rendered (what the grid drew before)."""
    from duckcover.app.widgets.core import GridWidget, text_strip

    def cells(strip):
        return [(char, segment.style) for segment in strip for char in segment.text]

    app = create_app(options(tmp_path))
    async with app.run_test(size=size) as pilot:
        table = table_of(app)
        await until_moving(pilot, table)  # the own grid with its marks, tags and cursor
        await pilot.pause()
        compared = 0
        for grid in table.query(GridWidget):
            if grid.folded() or not grid.cells:
                continue
            x0, y0, x1, y1 = grid.bounds()
            size, base, width = grid.card_size(), grid.rich_style, grid.size.width
            for y in range(y0, y1 + 1):
                joined = grid._row_strips(y, size, base, width)
                laid_out = [text_strip(grid, line, base, width) for line in grid._row_lines(y, size)]
                assert [cells(s) for s in joined] == [cells(s) for s in laid_out]
                compared += 1
        assert compared >= 4
