"""The Keys screen: every screen's keys from its own BINDINGS, in the language of the moment,
reached from the title by keys only, at 80x24."""
from __future__ import annotations

from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import OptionList, Static

from duckcover.app import AppOptions, create_app, places
from duckcover.app.screens.core import TitleScreen
from duckcover.app.screens.keys import KeysScreen


def title_app(tmp_path, lang="en"):
    return create_app(AppOptions(speed="instant", lang=lang, data_dir=tmp_path, stats=False, save=False))


def rows_under(screen, heading: str) -> list[tuple[str, str]]:
    """The (keys, label) rows of the key table under `heading`."""
    statics = list(screen.query("#keys > Static"))
    for index, static in enumerate(statics):
        if str(static.content) == heading:
            keys, labels = statics[index + 1].content.columns
            return [(str(k), str(label)) for k, label in zip(keys._cells, labels._cells)]
    raise AssertionError(f"no heading {heading!r} on the Keys screen")


async def test_k_on_the_title_opens_the_keys_and_escape_leads_back(tmp_path):
    app = title_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("k")
        await pilot.pause()
        assert isinstance(app.screen, KeysScreen)
        keys = app.screen.query_one("#keys")
        assert app.focused is keys  # the arrows scroll at once
        await pilot.press("end")
        await pilot.pause()
        assert keys.max_scroll_y > 0 and keys.scroll_y == keys.max_scroll_y  # longer than 24 lines, and it scrolls
        await pilot.press("escape")
        assert isinstance(app.screen, TitleScreen)


async def test_the_title_menu_line_opens_the_keys_by_the_cursor_keys(tmp_path):
    app = title_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        menu = app.screen.query_one("#title-menu", OptionList)
        while menu.highlighted_option.id != "keys":
            await pilot.press("down")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, KeysScreen)


async def test_the_keys_are_said_in_the_language_of_the_moment(tmp_path):
    app = title_app(tmp_path, lang="de")
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(KeysScreen())
        await pilot.pause()
        assert rows_under(app.screen, "Überall") == [("q", "Beenden"), ("?", "Hilfe")]
        assert ("space / f", "Aufdecken") in rows_under(app.screen, "Am Tisch")
        assert rows_under(app.screen, "Einstellungen") == [("esc", "Zurück"), ("^s", "Speichern")]
        assert rows_under(app.screen, "Titelmenü") == [("k", "Tasten")]
        assert rows_under(app.screen, "Regeln") == [("esc / ? / q", "Schließen")]  # three keys, one line


async def test_the_tables_cursor_tab_and_log_keys_are_listed(tmp_path):
    """Issue 30: the arrows, Tab and Page Up/Down were missing; q is listed as everywhere."""
    app = title_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(KeysScreen())
        await pilot.pause()
        table = rows_under(app.screen, "At the table")
        assert ("← / h / → / l / ↑ / k / ↓ / j", "Move the cursor") in table
        assert ("tab / shift+tab", "Every legal cell in turn") in table
        assert ("pgup / pgdn", "Scroll the log") in table and ("abc", "Jump") in table
        assert ("q", "Quit") in rows_under(app.screen, "Everywhere")


async def test_the_screens_of_a_games_moments_have_their_keys_listed_from_their_bindings(tmp_path):
    """Game over, the review, the replay viewer, the lobby...: each a section, each described
    key of its BINDINGS in it (the section is read from them, so it cannot fall behind)."""
    from importlib import import_module

    from duckcover.app.screens.keys import MOMENTS
    from duckcover.common.i18n import t

    app = title_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(KeysScreen())
        await pilot.pause()
        headings = {heading for heading, _, _ in MOMENTS}
        assert {"keys.game_over", "keys.review", "keys.lobby"} <= headings
        for heading, module, name in MOMENTS:
            screen = getattr(import_module(f"duckcover.app.screens.{module}"), name)
            listed = " / ".join(keys for keys, _ in rows_under(app.screen, t(heading))).split(" / ")
            for binding in Binding.make_bindings(screen.BINDINGS):
                if binding.description:
                    assert app.get_key_display(binding) in listed, (name, binding.key)
        assert rows_under(app.screen, "Game over") == [("n", "New game"), ("q", "Quit"), ("v", "Review")]
        assert ("⏎", "I am …") in rows_under(app.screen, "Pass-and-play hand-over")  # the blank named


class Extra(Screen):
    BINDINGS = [Binding("x,y", "one", "key.back"), Binding("z", "two", "key.hint", show=False),
                Binding("pagedown", "scroll")]  # no description: not a key to tell


async def test_a_newly_registered_screen_has_its_keys_listed_and_a_line_in_the_title(tmp_path, monkeypatch):
    extra = places.Place("extra", Extra, places.pushes(Extra), places.MenuEntry("title.games", 80), __name__)
    monkeypatch.setitem(places._places, "extra", extra)
    app = title_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert [o.id for o in app.screen.query_one("#title-menu", OptionList)._options][-2:] == ["extra", "quit"]
        app.push_screen(KeysScreen())
        await pilot.pause()
        sections = [str(s.content) for s in app.screen.query("#keys > Static.heading")]
        assert sections.count("Games") == 2 and sections[-1] == "Games"  # the extra's heading: its menu label
        statics = list(app.screen.query("#keys > Static"))
        keys, labels = statics[-1].content.columns
        assert [(str(k), str(v)) for k, v in zip(keys._cells, labels._cells)] == [("x / y", "Back"), ("z", "Hint")]


def test_the_keys_screen_at_80x24(snap_compare, tmp_path):
    async def open_keys(pilot):
        await pilot.press("k")
        await pilot.pause()

    assert snap_compare(title_app(tmp_path), terminal_size=(80, 24), run_before=open_keys)
