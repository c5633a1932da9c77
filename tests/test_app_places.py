"""Screens registered by name (duckcover.app.places): every place opens, the title menu is made
of the registered entries, and a place declared twice fails at import."""
from __future__ import annotations

import asyncio
import shutil
import sys

import pytest
from hypothesis import given, settings, strategies as st
from textual.widgets import OptionList

from autoplay import settle
from helpers import examples
from duckcover.app import AppOptions, create_app, quick_seats
from duckcover.app import messages, places
from duckcover.app.messages import Navigate
from duckcover.app.table.screen import TableScreen
from duckcover.common import i18n
from duckcover.saves import storage


def title_app(tmp_path, lang="en"):
    return create_app(AppOptions(speed="instant", lang=lang, data_dir=tmp_path, stats=False))


@pytest.fixture(scope="module")
def saved_games(tmp_path_factory):
    """A data folder holding one unfinished game, so that "resume" has something to open."""
    folder = tmp_path_factory.mktemp("saved")

    async def play_a_little():
        app = create_app(AppOptions(seats=quick_seats(1, "Ann"), seed=2, speed="instant", lang="en",
                                    data_dir=folder, stats=False))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, lambda: isinstance(app.screen, TableScreen))
        app.flush_saves()

    asyncio.run(play_a_little())
    assert storage.has_unfinished(folder)
    return folder


# Places that open no screen of their own: what going there shows instead.
SCREENLESS = {"resume": TableScreen}


@pytest.mark.parametrize("name", places.names())
async def test_every_registered_place_opens_at_80x24(tmp_path, saved_games, name):
    place = places.find(name)
    shutil.copytree(saved_games, tmp_path, dirs_exist_ok=True)  # a copy each: resuming claims the game
    app = title_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.post_message(Navigate(name))
        if name == "quit":
            await settle(pilot, lambda: not app.is_running)
            return
        expected = place.screen or SCREENLESS.get(name)
        assert expected is not None, f"place {name!r} opens no screen: say in SCREENLESS what it shows"
        await settle(pilot, lambda: isinstance(app.screen, expected))
        assert app.is_running and not app._notifications  # no error said on the way
        assert app.size == (80, 24) and type(app.screen).__name__ != "TooSmallScreen"


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
async def test_the_title_menu_lists_exactly_the_registered_entries_in_order(tmp_path, lang):
    app = title_app(tmp_path, lang)
    async with app.run_test(size=(80, 24)):
        menu = app.screen.query_one("#title-menu", OptionList)
        options = [menu.get_option_at_index(i) for i in range(menu.option_count)]
        entries = places.menu()
        assert [o.id for o in options] == [p.name for p in entries]
        assert [str(o.prompt) for o in options] == [i18n.t(p.menu.label) for p in entries]
        orders = [p.menu.order for p in entries]
        assert orders == sorted(orders) and len(set(orders)) == len(orders)  # no two lines in one place
        assert options[0].id == "setup" and options[-1].id == "quit"
        assert menu.get_option("resume").disabled  # nothing saved: an entry's `offered` says so
        assert menu.max_scroll_y == 0  # every entry shows at 80x24: the menu does not scroll


def test_every_menu_label_is_said_in_every_language():
    for place in places.menu():
        for lang in i18n.LANGUAGES:
            assert place.menu.label in i18n.catalogue(lang), (place.name, lang)


async def test_a_menu_entrys_own_key_leads_there_from_the_title(tmp_path):
    keyed = [p for p in places.menu() if p.menu.key]
    if not keyed:
        pytest.skip("no menu entry has a key of its own")
    place = keyed[0]
    app = title_app(tmp_path)
    asked = []
    async with app.run_test(size=(80, 24), message_hook=lambda m: isinstance(m, Navigate) and asked.append(m.place)) as pilot:
        await pilot.press(place.menu.key)
        await settle(pilot, lambda: isinstance(app.screen, place.screen))
        assert set(asked) == {place.name}  # the hook sees the message at the screen and at the app
        assert sum(isinstance(screen, place.screen) for screen in app.screen_stack) == 1


def test_places_are_the_names_navigate_accepts():
    assert messages.PLACES == places.names()
    assert {"title", "setup", "resume", "games", "statistics", "settings", "rules", "quit"} <= set(places.names())
    for name in places.names():
        assert Navigate(name).place == name


def test_a_module_declaring_a_place_twice_fails_loudly_at_import(tmp_path, monkeypatch):
    places.fill()
    before = places.places()
    (tmp_path / "second_games.py").write_text(
        "from duckcover.app import places\n"
        "places.place('games', go=lambda app, game: None)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(places.DuplicatePlace) as raised:
        import second_games  # noqa: F401
    message = str(raised.value)
    assert "'games'" in message and "duckcover.app.screens.games" in message and "second_games" in message
    assert places.places() == before  # the first declaration stands
    sys.modules.pop("second_games", None)


def test_a_place_needs_a_screen_or_a_way_there():
    with pytest.raises(TypeError):
        places.place("nowhere-at-all")
    assert "nowhere-at-all" not in places.names()


async def test_the_table_place_leads_back_to_the_game_in_progress(tmp_path):
    app = create_app(AppOptions(seats=quick_seats(1, "Ann"), seed=2, speed="instant", lang="en",
                                data_dir=tmp_path, stats=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, TableScreen))
        controller = app.controller
        app.post_message(Navigate("setup"))
        await settle(pilot, lambda: type(app.screen).__name__ == "SetupScreen")
        app.post_message(Navigate("table"))
        await settle(pilot, lambda: isinstance(app.screen, TableScreen))
        assert app.controller is controller and app.screen.ctl is controller  # the same game, not a new one


def test_a_place_names_its_keys_and_what_it_is_called():
    from duckcover.app.widgets.core import GridWidget

    table = places.find("table")
    assert table.heading == "place.table" and table.widgets == (GridWidget,)
    assert table.bindings() == [*TableScreen.BINDINGS, *GridWidget.BINDINGS]
    games = places.find("games")
    assert games.heading == "title.games" and games.bindings() == list(games.screen.BINDINGS)
    assert places.find("quit").bindings() == []  # no screen of its own


@given(st.permutations(range(len(places.names()))))
@settings(max_examples=examples(50))
def test_the_menu_order_does_not_depend_on_the_order_modules_are_imported(order):
    """pkgutil lists modules in the file system's order: the menu must not follow it."""
    declared = list(places.places().values())
    expected = [p.name for p in places.menu()]
    saved = places._places
    try:
        places._places = {declared[i].name: declared[i] for i in order}
        assert [p.name for p in places.menu()] == expected
    finally:
        places._places = saved
