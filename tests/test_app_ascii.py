"""Terminals that cannot draw rounded boxes or block glyphs (TERM=linux, vt100): the screens
around the table draw with ASCII only."""
from __future__ import annotations

import pytest
from textual.scrollbar import ScrollBar

from duckcover.app import AppOptions, create_app
from duckcover.app.screens.core import GameOverScreen, HelpScreen, QuitScreen, SetupScreen
from duckcover.app.screens.handover import HandoverScreen
from duckcover.app.screens.settings import SettingsScreen
from duckcover.app.screens.stats import bar
from duckcover.app.widgets.glyphs import ASCII, ascii_only
from helpers import finished_controller


@pytest.fixture
def term(monkeypatch):
    """Set TERM; the app's scrollbar renderer is put back after the test."""
    monkeypatch.setattr(ScrollBar, "renderer", ScrollBar.renderer)
    return lambda name: monkeypatch.setenv("TERM", name)


@pytest.mark.parametrize("name, plain", [("linux", True), ("vt100", True), ("vt220", True), ("dumb", True),
                                         ("xterm-256color", False), ("screen", False), ("", False)])
def test_which_terminals_get_ascii(term, name, plain):
    term(name)
    assert ascii_only() is plain


SCREENS = {
    "setup": SetupScreen,
    "settings": SettingsScreen,
    "help": HelpScreen,
    "quit": QuitScreen,
    "game over": lambda: GameOverScreen(finished_controller()),
    "hand-over": lambda: HandoverScreen("Ann", "Round 1"),
}


@pytest.mark.parametrize("terminal", ["linux", "vt100"])
async def test_the_screens_around_the_table_draw_with_ascii_only(term, tmp_path, terminal):
    term(terminal)
    app = create_app(AppOptions(speed="instant", lang="en", data_dir=tmp_path, stats=False))
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.has_class(ASCII)
        shown = {"title": app.export_screenshot()}
        for name, make in SCREENS.items():
            app.push_screen(make())
            await pilot.pause()
            shown[name] = app.export_screenshot()
            app.pop_screen()
            await pilot.pause()
    for name, svg in shown.items():
        glyphs = {char for char in screen_characters(svg) if ord(char) > 126}
        assert not glyphs, (name, sorted(glyphs))


async def test_a_usual_terminal_keeps_its_boxes(term, tmp_path):
    term("xterm-256color")
    app = create_app(AppOptions(speed="instant", lang="en", data_dir=tmp_path, stats=False))
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(HelpScreen())
        await pilot.pause()
        assert not app.has_class(ASCII)
        assert "╭" in "".join(screen_characters(app.export_screenshot()))


def test_statistics_bars_are_ascii_on_such_terminals(term):
    term("linux")
    assert bar(3, 6, width=10) == "#####"


def screen_characters(svg: str) -> list[str]:
    """The characters of an exported screenshot's text (what the terminal shows)."""
    import html
    import re

    return [char for match in re.finditer(r"<text [^>]*>(.*?)</text>", svg)
            for char in html.unescape(match.group(1)).replace("\xa0", " ")]


async def test_the_footer_names_keys_in_words_on_such_terminals(term, tmp_path):

    term("linux")
    app = create_app(AppOptions(speed="instant", lang="en", data_dir=tmp_path, stats=False))
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(HandoverScreen("Ann", "Round 1"))
        await pilot.pause()
        enter = app.screen.active_bindings["enter"].binding
        assert app.get_key_display(enter) == "Enter"
