"""The screens around the table, the grid widget and the saved-game files."""
import os

from duckcover.app import AppOptions, create_app, quick_seats
from autoplay import keys_to, press, settle, step, table_of
from duckcover.app.screens.core import HelpScreen, QuitScreen, SetupScreen, TitleScreen, TooSmallScreen
from duckcover.app.table.screen import TableScreen
from duckcover.app.widgets.cards import LARGE, MARKED_SIZES, MEDIUM, SMALL, card_lines, empty_lines, fitting_size, line_text
from duckcover.app.widgets.core import KeyBar, step_cursor, step_from_card
from duckcover.app.widgets.glyphs import ASCII_GLYPHS as ASCII, UNICODE_GLYPHS as UNICODE
from duckcover.engine import CARDS
from duckcover.saves import storage


def title_app(tmp_path, **kw):
    return create_app(AppOptions(speed="instant", lang="en", data_dir=tmp_path, stats=False, **kw))


async def test_title_new_game_setup_start_reaches_the_table(tmp_path):
    app = title_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        assert isinstance(app.screen, TitleScreen)
        assert app.screen.query_one("#title-menu").get_option("resume").disabled  # nothing saved yet
        await pilot.press("enter")  # New game
        assert isinstance(app.screen, SetupScreen)
        app.screen.query_one("#seed").value = "11"
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: isinstance(app.screen, TableScreen))
        game = app.controller.game
        assert game.names == ("You", "Jackson", "Gwen", "Dan") and game.seed == 11
        assert [s.bot for s in app.controller.seats] == [None, "medium", "medium", "medium"]
        await step(pilot)  # the human is Captain in round 1: Space flips
        assert game.turn_number == 1 or game.phase.value == "move"
    assert storage.has_unfinished(tmp_path)


async def test_setup_refuses_a_table_the_rules_do_not_allow(tmp_path):
    app = title_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(SetupScreen())
        await pilot.pause()
        app.screen.query_one("#variant-low-blows").value = True
        app.screen.query_one("#variant-two-flips").value = True
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen) and app.controller is None
        assert any("cannot be combined" in n.message for n in app._notifications)


async def test_resume_from_the_title_screen(tmp_path):
    first = create_app(AppOptions(seats=quick_seats(2, "Ann"), seed=4, speed="instant", lang="en",
                                  data_dir=tmp_path, stats=False))
    async with first.run_test(size=(120, 40)) as pilot:
        for _ in range(6):
            await step(pilot)
    first.flush_saves()  # the app has stopped: its last save is on disk
    turns = first.controller.game.turn_number
    app = title_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        assert not app.screen.query_one("#title-menu").get_option("resume").disabled
        await pilot.press("down", "enter")
        await settle(pilot, lambda: isinstance(app.screen, TableScreen))
        assert app.controller.game.turn_number == turns and app.controller.game.names[0] == "Ann"


async def test_help_and_quit_confirmation(tmp_path):
    app = create_app(AppOptions(seats=quick_seats(1, "Ann"), seed=1, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)
        await pilot.press("q")
        assert isinstance(app.screen, QuitScreen)
        await pilot.press("n")  # stay
        assert isinstance(app.screen, TableScreen) and app.is_running
        await pilot.press("q", "y")
        await pilot.pause()
        assert not app.is_running


async def test_the_footer_names_the_keys_of_the_moment_and_a_click_presses_one(tmp_path):
    app = create_app(AppOptions(seats=quick_seats(1, "Ann"), seed=1, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = table_of(app)
        bar = table.query_one(KeyBar)
        assert table.state == "await-flip"
        assert str(bar.render()) == " space Flip  q Quit  ? Help "  # one key per action, as Textual's Footer
        await pilot.hover(KeyBar, offset=(13, 0))
        assert bar.hover == 1  # q Quit, drawn with the Footer's hover style
        await pilot.click(KeyBar, offset=(len(" space Flip  q Quit  "), 0))  # on "? Help"
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.click(KeyBar, offset=(1, 0))  # on "space Flip"
        await settle(pilot)
        assert table.state != "await-flip"  # the Captain flipped


async def test_a_terminal_below_80x24_gets_a_notice_not_a_broken_table(tmp_path):
    app = create_app(AppOptions(seats=quick_seats(3, "Ann"), seed=1, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False))
    async with app.run_test(size=(70, 20)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        assert "too small (70x20)" in str(app.screen.query_one("#too-small").render())
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)


async def test_the_table_speaks_german(tmp_path):
    app = create_app(AppOptions(seats=quick_seats(2, "Ann"), seed=1, speed="instant", lang="de",
                                data_dir=tmp_path, stats=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = table_of(app)
        assert "Kapitän" in str(table.query_one("#status").render())
        assert "Runde 1 beginnt." in table.log_lines


def test_cards_show_family_letter_number_splashes_and_height():
    card = CARDS[1][12]
    assert [line.plain for line in card_lines(card, 5, 3, LARGE, UNICODE)] == [
        "╭────x3─╮",
        "│B      │",
        "│  12   │",
        "│ ●●●●● │",
        "╰───────╯",
    ]
    assert [line.plain for line in card_lines(card, 0, 1, MEDIUM, ASCII, frame="moving", label="moving")] == [
        "+=======+",
        "HB    12H",
        "H-      H",
        "+moving=+",
    ]
    assert [line.plain for line in card_lines(card, 5, 2, SMALL, UNICODE, label="cover")] == [
        "╭──x2─╮", "│B12●5│", "╰cover╯"]
    # A word longer than the edge is left out, never cut to "movin"; the moving frame remains.
    assert [line.plain for line in card_lines(card, 5, 2, SMALL, UNICODE, frame="moving", label="moving")][-1] == "╚═════╝"
    assert [line.plain for line in empty_lines(SMALL, UNICODE, label="plonger")][1] == "┆     ┆"
    assert line_text(card, 5, 1, "●") == "B12●5  "
    assert line_text(CARDS[8][7], 3, 4, "o") == "I 7o3x4"
    assert line_text(CARDS[8][7], 3, 11, "o") == "I7o3x11"


def test_cards_take_the_largest_size_that_fits():
    assert fitting_size(6, 5, 54, 25) is LARGE
    assert fitting_size(6, 5, 54, 24) is MEDIUM
    assert fitting_size(6, 5, 53, 25) is SMALL
    assert fitting_size(6, 5, 48, 5).name == "line"
    assert fitting_size(7, 5, 48, 5).name == "tiny"
    assert fitting_size(6, 5, 54, 5, MARKED_SIZES).width == 9  # a marker and a gap beside 7 characters
    # Five columns of an opponent's at 80x24 (26 x 4): the family and the number, no card cut in two.
    assert fitting_size(5, 3, 26, 4).name == "micro"
    assert line_text(CARDS[1][12], 5, 1, "●", 3) == "B12"
    # More rows than lines: every column still shows, in the largest one-line size that fits.
    assert fitting_size(4, 3, 34, 2).name == "line"
    assert fitting_size(9, 3, 26, 2).name == "micro"  # nothing fits: the smallest


def test_the_cursor_moves_among_legal_cells_only():
    targets = [(0, 0), (2, 0), (1, 1), (0, 6)]  # (0, 6): a step aside weighs four ahead
    assert step_cursor((0, 0), targets, 1, 0) == (2, 0)  # straight ahead first
    assert step_cursor((0, 0), targets, 0, 1) == (1, 1)  # then off to the side
    assert step_cursor((0, 0), targets, -1, 0) == (0, 0)  # nothing there: stay
    for target in targets:
        path = keys_to((0, 0), target, targets)
        cell = (0, 0)
        for key in path:
            cell = step_cursor(cell, targets, *{"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}[key])
        assert cell == target


def test_saves_are_atomic_and_leave_no_temporary_files(tmp_path):
    record = {"format": "duckcover-record/1", "players": []}
    path = storage.new_game_path(tmp_path)
    storage.save_unfinished(record, path)
    storage.save_unfinished({**record, "seed": 3}, path)
    assert storage.load(path)["seed"] == 3
    assert os.listdir(tmp_path / "games") == [path.name]
    finished = storage.save_finished(record, tmp_path, unfinished=path)
    assert finished.parent.name == "finished" and not storage.has_unfinished(tmp_path)


async def test_keys_press_helper_reaches_the_grid(tmp_path):
    app = create_app(AppOptions(seats=quick_seats(1, "Ann"), seed=1, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "space")
        await settle(pilot)
        table = table_of(app)
        grid = table.query_one("#own-grid")
        if table.chooser is not None:
            start = grid.cursor
            await pilot.press("right")
            assert grid.cursor in grid.targets
            assert grid.cursor == step_from_card(start, grid.origin, grid.targets, 1, 0)


async def test_a_click_on_a_marked_cell_plays_it(tmp_path):
    app = create_app(AppOptions(seats=quick_seats(1, "Ann"), seed=1, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False))
    async with app.run_test(size=(140, 60)) as pilot:  # tall enough that the grid never scrolls
        table = table_of(app)
        for _ in range(20):
            if table.chooser is not None:
                break
            await step(pilot)
        await pilot.pause()  # the marked grid is laid out and drawn: click what is on screen
        grid = table.query_one("#own-grid")
        target = next(cell for cell, kind in grid.marks.items() if kind == "duck")
        region = grid.cell_region(target)
        turns = app.controller.game.turn_number
        await pilot.click("#own-grid", offset=(region.x + 2, region.y + 1))
        await settle(pilot, lambda: app.controller.game.turn_number > turns)
        assert app.controller.game.last_turn.moves[0].to == target
