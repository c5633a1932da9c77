"""Screens open ready for the keyboard, Game over's keys, the bot list, and the screens asking
the app (by message) where to go next."""
from __future__ import annotations

from textual.screen import Screen
from textual.binding import Binding
from textual.widgets import Select

from duckcover.app import AppOptions, create_app
from duckcover.app.messages import PLACES, Navigate
from duckcover.app.screens import core as screens
from duckcover.app.screens.core import GameOverScreen, QuitScreen, SetupScreen, TitleScreen, bot_choices
from duckcover.app.screens.settings import SettingsScreen
from duckcover.app.render.textual_compat import FooterKey
from duckcover.app.widgets.footer import KeyFooter
from helpers import finished_controller


def title_app(tmp_path, lang="en"):
    return create_app(AppOptions(speed="instant", lang=lang, data_dir=tmp_path, stats=False))


async def test_the_setup_screen_opens_with_its_first_field_focused_and_enter_works(tmp_path):
    app = title_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")  # New game
        assert isinstance(app.screen, SetupScreen)
        players = app.screen.query_one("#players", Select)
        assert app.focused is players
        await pilot.press("enter", "down", "enter")  # open the list, one more player, take it
        assert players.value == 5 and app.screen.seat_count == 5


async def test_the_settings_screen_opens_with_its_first_field_focused_and_enter_works(tmp_path):
    app = title_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("down", "down", "down", "enter")  # Settings (Resume is off: nothing saved)
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        language = app.screen.query_one("#settings-lang", Select)
        assert app.focused is language
        await pilot.press("enter")
        assert language.expanded


async def test_n_on_game_over_opens_the_setup_of_a_new_game_and_back_leads_to_the_title(tmp_path):
    app = title_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(GameOverScreen(finished_controller()))
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        assert not any(isinstance(s, GameOverScreen) for s in app.screen_stack)
        await pilot.press("escape")
        assert isinstance(app.screen, TitleScreen)


async def test_q_on_game_over_quits_at_once_whatever_has_focus(tmp_path):
    app = title_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(GameOverScreen(finished_controller()))
        await pilot.pause()
        app.screen.query_one("#game-over").focus()  # the scrolling box takes keys too
        await pilot.press("q")
        await pilot.pause()
        assert not isinstance(app.screen, QuitScreen)  # the game is over and saved: no question
        assert app.return_code == 0 and not app.is_running


async def test_game_over_footer_names_new_game_and_quit(tmp_path):
    app = title_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(GameOverScreen(finished_controller()))
        await pilot.pause()
        shown = footer_words(app.screen)
        assert shown["n"] == "New game" and shown["q"] == "Quit"


def test_the_bot_list_offers_each_bot_once_with_its_difficulty(monkeypatch):
    from duckcover.players.difficulty import LEVEL_RATINGS

    monkeypatch.setattr(screens, "installed_bots", lambda: ["expert", "greedy", "random", "novice", "casual", "owl"])
    choices = bot_choices()

    def rated(label: str, level: str) -> str:  # each level says its published rating, `easy` too
        mu, sigma = LEVEL_RATINGS[level]
        return f"{label} {mu - 3 * sigma:.1f}"

    assert choices == [("Near my rating", "near"), (rated("Easy (random)", "easy"), "easy"),
                       (rated("Novice (novice)", "novice"), "novice"), (rated("Casual (casual)", "casual"), "casual"),
                       (rated("Medium (greedy)", "medium"), "medium"), (rated("Hard (expert)", "hard"), "hard"),
                       ("bot: owl", "owl")]


async def test_the_setup_screen_lists_the_installed_bots_once(tmp_path):
    app = title_app(tmp_path, lang="de")
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(SetupScreen())
        await pilot.pause()
        kinds = app.screen.query_one("#kind-1", Select)
        labels = [str(prompt) for prompt, _ in kinds._options]
        assert labels[:2] == ["Mensch", "Nahe meiner Wertung"] and labels[2].startswith("Leicht (random) -")
        assert labels[5].startswith("Mittel (greedy) ") and labels[6].startswith("Schwer (expert) ")
        values = [value for _, value in kinds._options]
        assert len(values) == len(set(values))
        assert not {"random", "greedy", "expert"} & set(values)  # not again under their own names


async def test_the_title_menu_asks_the_app_by_message(tmp_path):
    app = title_app(tmp_path)
    asked = []

    def hook(message) -> None:
        if isinstance(message, Navigate):
            asked.append(message.place)

    async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
        await pilot.press("down", "enter")  # Games (Resume is off: nothing saved)
        await pilot.pause()
        assert set(asked) == {"games"} and type(app.screen).__name__ == "GamesScreen"


def test_screens_do_not_build_one_another():
    """The title, set-up, games and settings screens name no other screen module: they post
    messages and the app decides (generic dialogs and shared styles come from screens.py)."""
    import ast
    import importlib
    import importlib.util
    from pathlib import Path

    # Full module names (not file names): they hold wherever the modules live.
    screens = {"duckcover.app.screens.core", "duckcover.app.screens.settings", "duckcover.app.screens.stats",
               "duckcover.app.screens.handover"}
    others = {"duckcover.app.screens.games", "duckcover.app.screens.settings", "duckcover.app.screens.stats",
              "duckcover.app.table.screen", "duckcover.app.screens.replay", "duckcover.app.screens.handover"}
    for name in screens:
        module = importlib.import_module(name)
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = importlib.util.resolve_name("." * node.level + (node.module or ""), module.__package__)
                imported |= {base} | {f"{base}.{alias.name}" for alias in node.names}
        assert not imported & (others - {name}), (name, imported & others)


def test_navigate_refuses_an_unknown_place():
    try:
        Navigate("nowhere")
    except ValueError as err:
        assert "nowhere" in str(err)
    else:
        raise AssertionError("an unknown place was accepted")


class Bound(Screen):
    """Keys as every screen names them: class-level, by UI text key, one with a blank to fill."""

    BINDINGS = [Binding("x", "mark", "handover.key", priority=True), Binding("y", "mark", "key.back", show=False),
                Binding("z", "app.bell", "Plain words")]

    def __init__(self) -> None:
        super().__init__()
        self.key_values = {"name": "Zoë"}
        self.marked = 0

    def compose(self):
        yield KeyFooter()

    def action_mark(self) -> None:
        self.marked += 1


def footer_words(screen) -> dict[str, str]:
    """What the footer shows: key -> its label."""
    return {key.key: key.description for key in screen.query(FooterKey)}


async def test_the_footer_says_class_level_keys_in_the_language_of_the_moment(tmp_path):
    """Also fails loudly if a Textual upgrade changes the Footer's FooterKey (textual_compat)."""
    app = title_app(tmp_path, lang="de")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = Bound()
        app.push_screen(screen)
        await pilot.pause()
        words = footer_words(app.screen)
        assert words["x"] == "Ich bin Zoë" and words["z"] == "Plain words" and "y" not in words
        assert words["q"] == "Beenden"  # the app's own keys, in the same language
        await pilot.press("x", "y")
        assert screen.marked == 2


def test_every_place_a_screen_may_ask_for_has_a_way(tmp_path):
    app = title_app(tmp_path)
    assert all(callable(app.way_to(place)) for place in PLACES)
