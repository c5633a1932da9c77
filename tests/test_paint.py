"""The table's changes drawn as lines (duckcover/app/render/paint.py): whatever a terminal shows
after the painter's writes and Textual's own frames is what Textual would draw from scratch.

The headless apps of the tests write nothing, so each test wraps the app's `_display` and feeds
every frame through the lean output layer (as the real driver does) into a terminal model.
The painter is on here whatever DUCKCOVER_PAINTER says (CI runs some tests with it off); the
first test also runs with it off: Textual's own frames, through the same model."""
from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from textual._styles_cache import StylesCache
from textual.geometry import Offset, Region

from autoplay import step, table_of
from duckcover.app import AppOptions, create_app, quick_seats
from duckcover.app.render import NoPainter
from duckcover.app.render.lean_output import LeanStream
from duckcover.app.remote import RemoteApp
from duckcover.app.table.screen import TableScreen
from duckcover.app.widgets.core import KeptStyle, KeyBar, StaticLines, TableLog
from duckcover.app.render.paint import LinePainter, LinesUpdate
from duckcover.common import i18n
from duckcover.net.server import TableServer
from duckcover.net.sessions import Identity
from test_lean_output import cells_of, screen_after
from test_serve_client import ann_and_ben_with_two_bots, press_what_is_asked

pytestmark = pytest.mark.keys


@pytest.fixture(autouse=True)
def the_painter_is_on(monkeypatch):
    monkeypatch.setenv("DUCKCOVER_PAINTER", "1")
# What the widgets keep between frames (Textual's line cache, our lines, shapes and styles).
KEPT = ("_styles_cache", "_lines", "_drawn", "_shape", "_kept_styles", "_line_plan")
FRESH = {"_styles_cache": StylesCache, "_lines": StaticLines}


class Terminal:
    """What a terminal of the app's size shows: every frame the app displays, through a lean
    stream, read by the model of tests/test_lean_output.py (characters and their SGR codes)."""

    def __init__(self, app) -> None:
        self.app = app
        self.console = Console(color_system="256", force_terminal=True, width=app.size.width)
        self.stream = LeanStream(erase=True)  # as on xterm (see lean_output.BLANKS)
        self.cells: dict = self.textual_draws() if app.screen.is_mounted else {}  # what it shows already
        self.painted_frames = 0
        real = app._display

        def display(screen, update) -> None:
            if update is not None and screen is app.screen:
                self.painted_frames += isinstance(update, LinesUpdate)
                self.cells = screen_after(self.stream.lean(update.render_segments(self.console)), self.cells)
            real(screen, update)

        app._display = display

    def shows(self) -> dict:
        return cells_of(self.cells)

    def textual_draws(self) -> dict:
        """The screen as Textual draws it whole, now, from nothing kept: every widget's kept
        lines and styles are set aside for it (and put back), so a line kept wrongly shows."""
        screen = self.app.screen
        kept = {}
        for widget in screen.walk_children(with_self=False):
            kept[widget] = {name: widget.__dict__[name] for name in KEPT if name in widget.__dict__}
            for name in kept[widget]:
                widget.__dict__[name] = FRESH.get(name, lambda: None)()
        KeptStyle.LEAN_LINES = False  # Textual's own StylesCache draws every line
        try:
            strips = screen._compositor.render_strips()
        finally:
            KeptStyle.LEAN_LINES = True
            for widget, names in kept.items():
                widget.__dict__.update(names)
        frame = "".join(f"\x1b[{y + 1};1H" + strip.render(self.console) for y, strip in enumerate(strips))
        return cells_of(screen_after(frame))

    def differences(self) -> list[str]:
        shown, drawn = self.shows(), self.textual_draws()
        rows = sorted({y for (_x, y) in set(shown) ^ set(drawn)} |
                      {y for (x, y), what in drawn.items() if shown.get((x, y)) != what})
        width = self.app.size.width
        return [f"row {y}: shows {''.join(shown.get((x, y), ('?',))[0] for x in range(width))!r}, "
                f"Textual draws {''.join(drawn.get((x, y), ('?',))[0] for x in range(width))!r}" for y in rows]


def connie_and_two_bots(tmp_path):
    return create_app(AppOptions(seats=quick_seats(3, "Connie"), seed=3, speed="instant", lang="en",
                                 data_dir=tmp_path, stats=False))


async def first_step(pilot) -> TableScreen:
    """The table after the game's first step, drawn."""
    await step(pilot)
    await pilot.pause()
    return table_of(pilot.app)


@pytest.mark.parametrize("painter", ["1", "0"])
async def test_a_local_round_shows_on_the_terminal_what_textual_draws_after_every_step(tmp_path, monkeypatch, painter):
    """A whole round and the start of the next (the scorepad closing repaints the table), at
    120x40 where every part is shown (80x24: the guest's test below)."""
    monkeypatch.setenv("DUCKCOVER_PAINTER", painter)
    app = create_app(AppOptions(seats=quick_seats(3, "Connie"), seed=11, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False))
    async with app.run_test(size=(120, 40)) as pilot:
        terminal = Terminal(app)
        checked, after_round = 0, None
        for _ in range(3000):
            action = await step(pilot)
            if action == "game-over" or (after_round is not None and checked > after_round + 4):
                break
            if action == "round-end":
                after_round = checked
            await pilot.pause()
            if isinstance(app.screen, TableScreen):
                assert terminal.differences() == [], f"after {action}, step {checked}"
                checked += 1
        table = table_of(app)
        assert after_round is not None and checked > 20
        if painter == "1":  # the bots' moves and the flow's steps were drawn as lines, not by Textual's frames
            assert table.painter.painted > 20 and terminal.painted_frames > 20
        else:
            assert isinstance(table.painter, NoPainter) and terminal.painted_frames == 0


async def test_a_guest_who_is_not_choosing_sees_what_textual_draws_after_every_server_message(tmp_path):
    i18n.set_language("en")
    server = TableServer(Path(tmp_path), grace=30, pace=0)
    await server.start(Path(tmp_path) / "t.sock")
    try:
        apps = [RemoteApp(AppOptions(data_dir=Path(tmp_path), speed="instant"), str(Path(tmp_path) / "t.sock"),
                          server.issue_token(Identity(name))) for name in ("ann", "ben")]
        async with apps[0].run_test(size=(80, 24)) as ann, apps[1].run_test(size=(80, 24)) as ben:
            table = await ann_and_ben_with_two_bots(server, apps, [ann, ben])
            terminal = Terminal(apps[0])
            checked = 0
            for _ in range(200):
                if table.game.turn_number >= 5 or table.game.over:
                    break
                for app, pilot in ((apps[0], ann), (apps[1], ben)):
                    await press_what_is_asked(app, pilot)
                    await ann.pause(0.05)
                    await ben.pause(0.05)
                    if isinstance(apps[0].screen, TableScreen):
                        assert terminal.differences() == [], f"turn {table.game.turn_number}"
                        checked += 1
            assert checked > 8
            assert apps[0].table_screen.painter.painted > 8 and terminal.painted_frames > 8
    finally:
        await server.close()


async def test_a_notification_over_the_log_hands_its_lines_to_textual_and_the_terminal_stays_right(tmp_path):
    app = connie_and_two_bots(tmp_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:  # (tests have no toasts by default)
        terminal = Terminal(app)
        table = await first_step(pilot)
        log = table.query_one(TableLog)
        app.notify("A notice that covers the log", timeout=30)
        await pilot.pause()
        await pilot.pause()
        fell_back = table.painter.fell_back
        with table.painter.batch():
            for number in range(6):
                log.write(Text(f"line {number} under the notice"))
        await pilot.pause()  # (a batch's changes are drawn after the screen's queued steps)
        assert table.painter.fell_back == fell_back + 1  # covered: Textual draws it
        await pilot.pause()
        assert terminal.differences() == []
        app.clear_notifications()
        await pilot.pause()
        await pilot.pause()
        with table.painter.batch():
            log.write(Text("and one more in the open"))
        await pilot.pause()
        assert table.painter.fell_back == fell_back + 1  # in the open again: drawn as lines
        assert terminal.differences() == []


async def test_a_refresh_with_a_layout_is_textuals_and_one_outside_a_batch_is_drawn_when_its_callback_ends(tmp_path):
    app = connie_and_two_bots(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        table = await first_step(pilot)
        log = table.query_one(TableLog)
        painter: LinePainter = table.painter
        painted = painter.painted
        with painter.batch():
            assert not painter.take(log, (), layout=True)
            assert not painter.take(log, (), repaint=False)
            assert painter.take(log, ())
            assert painter.pending == {log: None}
            table.later(lambda: log.write(Text("a step queued in the batch")), 0)
        assert painter.pending == {log: None}  # drawn after the steps queued on the screen...
        await pilot.pause()
        assert painter.pending == {} and painter.painted == painted + 1  # ...with them, in one write
        painted = painter.painted
        log.write(Text("a line written outside a batch"))  # (as a key's handler would)
        assert log in painter.pending and painter.painted == painted
        await pilot.pause()
        assert painter.pending == {} and painter.painted == painted + 1


async def test_the_key_bar_reads_the_keys_once_for_a_write_however_often_the_bindings_change(tmp_path):
    """A reveal refreshed the bindings four times and the key bar read the screen's bindings at
    each (Textual's signal, then again); now once, by whichever comes first: the painter's write
    or the signal's callback."""
    app = connie_and_two_bots(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        table = await first_step(pilot)
        bar = table.query_one(KeyBar)
        reads = []
        real = bar.keys_changed
        bar.keys_changed = lambda: (reads.append(1), real())[1]
        with table.painter.batch():
            for _ in range(4):
                table.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert reads == [1]
        table.refresh_bindings()  # outside a batch (a focus change): the signal's callback reads them
        await pilot.pause()
        assert reads == [1, 1]


def test_crops_are_the_widgets_lines_each_once_in_its_own_coordinates():
    class FakeWidget:
        outer_size = (10, 5)
        content_offset = Offset(1, 0)

    crops = LinePainter.crops(FakeWidget(), [Region(0, 1, 3, 2), Region(2, 2, 4, 1), Region(0, 4, 30, 9)])
    # Content (0,1,3,2) is the widget's (1,1,3,2); line 2 also (3..7); line 4 clipped to the width.
    assert crops == [Region(1, 1, 3, 1), Region(1, 2, 6, 1), Region(1, 4, 9, 1)]
    assert LinePainter.crops(FakeWidget(), None) == [Region(0, 0, 10, 5)]


def kept_styles_now_true(screen) -> list[str]:
    """Each widget keeping its styles (widgets.core.KeptStyle) whose kept style or background is
    not what Textual works out now."""
    from textual.widget import Widget

    from duckcover.app.widgets.core import KeptStyle

    return [f"{type(w).__name__}#{w.id}" for w in screen.walk_children(with_self=False)
            if isinstance(w, KeptStyle) and (w.rich_style != Widget.rich_style.fget(w)
                                             or w.background_colors != Widget.background_colors.fget(w))]


async def test_kept_styles_follow_the_captain_the_focus_and_a_change_of_theme(tmp_path):
    app = create_app(AppOptions(seats=quick_seats(3, "Connie"), seed=11, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False))
    async with app.run_test(size=(120, 40)) as pilot:
        table = None
        for number in range(8):  # the Captain moves on, the own grid takes and loses the focus
            await step(pilot)
            await pilot.pause()
            table = table_of(app)
            if isinstance(app.screen, TableScreen):
                assert kept_styles_now_true(table) == [], f"step {number}"
        for theme in ("textual-light", "nord", "textual-dark"):
            app.theme = theme
            await pilot.pause()
            assert kept_styles_now_true(table) == [], theme
        app.stylesheet = app.stylesheet.copy()  # as Textual's reload of changed CSS files does
        app.theme = "textual-light"
        await pilot.pause()
        assert kept_styles_now_true(table) == [], "a new style sheet"


async def test_the_parts_hidden_at_80x24_show_the_table_as_it_is_once_the_terminal_grows(tmp_path):
    """At 80x24 the heaps, the table's facts and the totals are hidden and not worked out; a
    terminal grown to 120x40 shows them for the table as it is now."""
    app = create_app(AppOptions(seats=quick_seats(3, "Connie"), seed=11, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False))
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(3):
            await step(pilot)
        await pilot.pause()
        table = table_of(app)
        game = app.controller.game
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        await pilot.pause()
        totals = str(table.query_one("#totals").render())
        assert all(name in totals for name in game.names)
        assert str(table.query_one("#table-info").render()) == str(table.table_info())
        assert table.query_one("#heaps").faces == table.heap_faces()
        terminal = Terminal(app)
        await step(pilot)
        await pilot.pause()
        assert terminal.differences() == []
