"""Settings: chosen on their screen, saved as JSON, read back at start; a broken file is a notice."""
from __future__ import annotations

import json

import pytest

from duckcover.app import AppOptions, create_app
from duckcover.app.screens.core import TitleScreen
from duckcover.app.screens.settings import SettingsScreen
from duckcover.app.render.textual_compat import FooterKey
from duckcover.common import i18n
from duckcover.saves.settings import Settings, load, save, settings_path


@pytest.fixture(autouse=True)
def keep_language():
    previous = i18n.language()
    yield
    i18n.set_language(previous)


def title_app(tmp_path, lang=None):
    return create_app(AppOptions(speed="instant", lang=lang, data_dir=tmp_path, save=False, stats=False))


def menu_texts(app) -> list[str]:
    from textual.widgets import OptionList

    menu = app.screen.query_one("#title-menu", OptionList)
    return [str(menu.get_option_at_index(i).prompt) for i in range(menu.option_count)]


async def open_settings(pilot):
    from textual.widgets import OptionList

    menu = pilot.app.screen.query_one("#title-menu", OptionList)
    menu.highlighted = [o.id for o in menu._options].index("settings")
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(pilot.app.screen, SettingsScreen)


async def test_settings_screen_saves_language_and_hints_and_the_title_speaks_german(tmp_path):
    app = title_app(tmp_path, lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        assert "Settings" in menu_texts(app)
        await open_settings(pilot)
        from textual.widgets import Checkbox, Select

        app.screen.query_one("#settings-lang", Select).value = "de"
        app.screen.query_one("#settings-hints", Checkbox).value = False
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, TitleScreen)
        assert "Neues Spiel" in menu_texts(app) and "Einstellungen" in menu_texts(app)
        assert app.settings == Settings(lang="de", hints=False)
        # The app's own keys are relabelled.
        words = {key.key: key.description for key in app.screen.query(FooterKey)}
        assert words["q"] == "Beenden" and words["question_mark"] == "Hilfe"
    assert json.loads(settings_path(tmp_path).read_text()) == {"lang": "de", "hints": False, "theme": None}


async def test_saved_settings_choose_the_language_at_start(tmp_path):
    save(Settings(lang="fr"), tmp_path)
    app = title_app(tmp_path)
    async with app.run_test(size=(100, 30)):
        assert "Nouvelle partie" in menu_texts(app)
    # --lang still wins over the saved choice.
    app = title_app(tmp_path, lang="de")
    async with app.run_test(size=(100, 30)):
        assert "Neues Spiel" in menu_texts(app)


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"lang": "xx"}', '{"hints": "yes"}', '{"theme": "pink"}'])
async def test_a_broken_settings_file_is_ignored_with_a_notice(tmp_path, content):
    settings_path(tmp_path).write_text(content)
    app = title_app(tmp_path, lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TitleScreen)
        notices = [n.message for n in app._notifications]
        assert any("Settings file ignored" in n and "settings.json" in n for n in notices)
        assert app.settings == Settings()


def test_load_without_a_file_gives_the_defaults(tmp_path):
    assert load(tmp_path) == (Settings(), None)
    save(Settings(lang="de", hints=False, theme="ansi-light"), tmp_path / "new" / "dir")
    assert load(tmp_path / "new" / "dir") == (Settings(lang="de", hints=False, theme="ansi-light"), None)


async def test_the_colours_setting_applies_at_start_and_at_once_when_saved(tmp_path):
    from textual.widgets import Select

    save(Settings(theme="light"), tmp_path)
    app = title_app(tmp_path, lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.theme == "textual-light"
        for choice, theme in [("ansi-dark", "ansi-dark"), ("auto", "textual-dark")]:  # auto, headless: dark
            await open_settings(pilot)
            app.screen.query_one("#settings-colours", Select).value = choice
            await pilot.pause()
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert isinstance(app.screen, TitleScreen) and app.theme == theme
    assert load(tmp_path)[0].theme is None  # "auto" is saved as no choice


async def test_settings_at_the_table_switch_the_language_and_the_game_goes_on(tmp_path):
    from textual.widgets import Checkbox, Select

    from duckcover.app import quick_seats
    from autoplay import settle, step, table_of

    app = create_app(AppOptions(seats=quick_seats(2, "Connie"), seed=5, speed="instant", lang="en",
                                data_dir=tmp_path, save=False, stats=False))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(60):
            await step(pilot)
            if table_of(app).chooser is not None:
                break
        old = table_of(app)
        turn = app.controller.game.turn_number
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        app.screen.query_one("#settings-lang", Select).value = "de"
        app.screen.query_one("#settings-hints", Checkbox).value = False
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        table = table_of(app)
        assert table is not old and app.screen is table
        assert table.log_lines[0] == (f"Spiel fortgesetzt: Runde 1, nach Zug {turn}." if turn else "Runde 1 beginnt.")
        status = table.query_one("#status").render()
        assert "Runde 1/3" in getattr(status, "plain", str(status))
        # The same game, the same choice still open, and without the hint key now.
        assert app.controller.game.turn_number == turn and table.chooser is not None
        assert "t" not in {b.key for (_, b, enabled, _) in app.screen.active_bindings.values() if enabled}


async def test_settings_that_cannot_be_saved_say_so_and_stay_open(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    app = title_app(blocked, lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        await open_settings(pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        assert any("Could not save the settings" in n.message for n in app._notifications)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_snapshot_of_the_settings_screen(snap_compare, tmp_path, lang):
    async def open_it(pilot):
        await open_settings(pilot)

    assert snap_compare(title_app(tmp_path, lang=lang), terminal_size=(80, 24), run_before=open_it)
