"""Issue 10, the app: hostile names shown by every screen through Pilot, read back from what the
screen really draws. Text only: no markup applied, no escape byte of a name on screen, no
action run by clicking a name, no crash (a saved game whose round has just ended resumes)."""
from __future__ import annotations

import asyncio
import json

import pytest
from textual.app import App

from duckcover.app import AppOptions, SeatSpec, create_app
from duckcover.app.controller import TurnController
from duckcover.saves import stats, storage
from autoplay import settle, step
from duckcover.app.passplay import read_sounds
from duckcover.app.screens.core import GameOverScreen, RoundEndScreen
from duckcover.app.screens.games import ConfirmDeleteScreen
from duckcover.app.screens.games import ConfirmDeleteScreen, GamesScreen
from duckcover.app.screens.handover import HandoverScreen
from duckcover.app.screens.replay import ReplayScreen, build_timeline
from duckcover.app.screens.stats import NAME_WIDTH, StatsScreen
from duckcover.app.table.screen import TableScreen
from duckcover.saves.record import dumps, loads, replay
from untrusted_payloads import (BIG, ESCAPES, MARKUPS, RAW_MARKERS, SURROGATE, assert_safe, finished_record,
                                tables, visible)

NAME_TABLES = tables(ESCAPES + MARKUPS + [SURROGATE, BIG], size=3)
SIZE = (160, 50)


def screen_text(app) -> str:
    """What the terminal shows now, line by line (the screen's own rendering)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def assert_clean(text: str, where: str) -> None:
    for marker in RAW_MARKERS:
        assert marker not in text, f"{where}: raw {marker!r} on screen"


def watch_options(tmp_path, names, **kw) -> AppOptions:
    kw = {"seed": 2, "speed": "instant", "lang": "en", "data_dir": tmp_path, "watch": True, **kw}
    return AppOptions(seats=[SeatSpec(name, "random") for name in names], **kw)


class Host(App):
    """Screens alone, as the app shows them."""

    ENABLE_COMMAND_PALETTE = False

    def __init__(self, screen, root=None) -> None:
        super().__init__()
        self.first, self.data_root = screen, root

    def on_mount(self) -> None:
        self.push_screen(self.first)


async def shows(app, pilot, screen) -> str:
    app.push_screen(screen)
    await pilot.pause()
    return screen_text(app)


@pytest.mark.parametrize("names", NAME_TABLES, ids=lambda names: "+".join(map(ascii, names))[:40])
async def test_every_screen_around_the_table_shows_hostile_names_as_text(tmp_path, names):
    """Round end, game over, Games (table, note, delete question), replay viewer, Statistics.
    The names are those the app seats (start_game cuts them to printable text of 16 at most)."""
    record = finished_record([visible(name) for name in names])
    storage.save_finished(record, tmp_path)
    # The statistics list bots by what they are, not by their seats' names: people by these names.
    stats.add_game(finished_record([visible(name) for name in names], people=True), tmp_path / stats.DB_NAME)
    game = replay(record)
    ctl = TurnController(game, [SeatSpec(name, "greedy") for name in game.names])
    app = Host(RoundEndScreen(ctl), root=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert_safe(screen_text(app), names, "round end")
        assert_safe(await shows(app, pilot, GameOverScreen(ctl)), names, "game over")
        assert_safe(await shows(app, pilot, GamesScreen()), names, "Games screen")
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmDeleteScreen)
        assert_safe(screen_text(app), names, "delete question")
        await pilot.press("n")
        await pilot.press("enter")  # replay the finished game
        assert isinstance(app.screen, ReplayScreen)
        await pilot.pause()
        assert_safe(screen_text(app), names, "replay viewer")
        text = await shows(app, pilot, StatsScreen(tmp_path / stats.DB_NAME))
        assert_clean(text, "Statistics screen")
        for name in names:  # the charts cut names to their column (the seated name is cut already)
            assert visible(visible(name), NAME_WIDTH) in text, visible(visible(name), NAME_WIDTH)
        assert app.is_running


async def test_the_games_screen_note_quotes_a_broken_record_as_text(tmp_path):
    record = finished_record(["Ann", "Ben"])
    record["rules"]["variants"] = ["[@click=app.quit]\x1b[2J"]
    storage.save_unfinished(record, storage.new_game_path(tmp_path))
    app = Host(GamesScreen(), root=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "[@click=app.quit]\\x1b[2J" in text and "unreadable" in text
        assert_clean(text, "Games note")


async def test_the_table_shows_hostile_names_as_text(tmp_path):
    names = ["[/]", "a[/]", "[b]Gwen[/b]"]  # the first Captain (seat 0 here) is named in the prompt
    app = create_app(watch_options(tmp_path, names, speed="slow"))
    async with app.run_test(size=SIZE) as pilot:
        # "... (Captain) is flipping": the prompt names the first Captain, a hostile name.
        await settle(pilot, lambda: isinstance(app.screen, TableScreen) and "is flipping" in screen_text(app),
                     limit=3000)
        assert_safe(screen_text(app), names, "table")


async def test_pass_and_play_hand_over_shows_names_as_text(tmp_path):
    names = ["[b]Ann[/b]", "\x1b]0;pwned\x07Gwen"]
    options = AppOptions(seats=[SeatSpec(names[0]), SeatSpec(names[1]), SeatSpec("Dan", "random")], seed=3,
                         speed="instant", lang="en", data_dir=tmp_path, stats=False)
    app = create_app(options)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(40):
            if isinstance(app.screen, HandoverScreen):
                break
            await step(pilot)
        assert isinstance(app.screen, HandoverScreen)
        text = screen_text(app)
        assert_clean(text, "hand-over")
        assert any(visible(name) in text for name in names)


CLICKERS = ["[@click=app.screenshot('victim.txt','.')]Gwen[/]", "[@click=app.quit]Quit[/]"]


@pytest.mark.parametrize("payload", CLICKERS)
async def test_clicking_a_name_runs_no_action(tmp_path, monkeypatch, payload):
    monkeypatch.chdir(tmp_path)
    for screen in (HandoverScreen(payload, "where"), ConfirmDeleteScreen(f"Delete {payload}?")):
        app = Host(screen)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            lines = screen_text(app).splitlines()
            row = next(y for y, line in enumerate(lines) if payload[:12] in line)
            start = lines[row].index(payload[:12])
            for x in (start, start + len(payload) // 2, start + len(payload) - 1):
                await pilot.click(offset=(x, row))
            assert app.is_running and payload in screen_text(app)
        assert not list(tmp_path.glob("victim*"))


async def test_notifications_quote_record_values_as_text(tmp_path):
    record = finished_record(["Ann", "Ben"])
    record["rounds"] = record["rounds"][:1]
    record["rules"]["variants"] = ["[@click=app.quit]\x1b[2J"]
    storage.save_unfinished(record, storage.new_game_path(tmp_path))
    app = create_app(AppOptions(resume=True, lang="en", data_dir=tmp_path, stats=False))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot, lambda: "Cannot resume" in screen_text(app))
        text = screen_text(app)
        assert "Cannot resume" in text and "[@click=app.quit]" in text and "\\x1b[2J" in text
        assert_clean(text, "notification")
        assert app.is_running


@pytest.mark.parametrize("names", [["[/]", "Ann"], [SURROGATE, "\x1b[2JBob"]])
async def test_a_game_whose_round_has_just_ended_resumes(tmp_path, names):
    record = finished_record(names)
    record["rounds"] = record["rounds"][:1]  # round 1 over, round 2 not dealt
    record["players"][0]["sound"] = "[/]\x1b[2J"
    path = storage.new_game_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(record), encoding="utf-8")  # \u escapes: the surrogate stays
    app = create_app(AppOptions(resume=True, lang="en", data_dir=tmp_path, stats=False, speed="instant"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: app.controller is not None)
        await pilot.pause()
        assert app.controller.game.names == tuple(visible(name) for name in names)
        assert_clean(screen_text(app), "resumed table")
        await step(pilot)
        assert app.is_running
    saved = loads(path.read_text(encoding="utf-8"))  # written back as printable text
    assert [p["name"] for p in saved["players"]] == [visible(name) for name in names]
    assert read_sounds(record)[0] == "[/]\\x1b[2J"  # a sound is read as printable text too
    assert "\\udce9" not in dumps(saved)


async def test_the_set_up_screen_refuses_a_name_with_control_characters(tmp_path):
    from duckcover.app.screens.core import SetupScreen

    app = create_app(AppOptions(speed="instant", lang="en", data_dir=tmp_path, stats=False))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.press("enter")  # New game
        assert isinstance(app.screen, SetupScreen)
        app.screen.query_one("#name-0").value = "\x1b[2JAnn"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen) and app.controller is None
        assert "control characters" in screen_text(app)


async def test_a_settings_file_quoting_markup_is_told_as_text(tmp_path):
    (tmp_path / "settings.json").write_text('{"lang": "[/]\\u001b[2J"}', encoding="utf-8")
    app = create_app(AppOptions(lang="en", data_dir=tmp_path, stats=False))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot, lambda: "[/]" in screen_text(app))
        text = screen_text(app)
        assert "'[/]\\x1b[2J'" in text
        assert_clean(text, "settings notice")
