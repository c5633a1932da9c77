"""The Games screen: saved and finished games listed with date, players, scores and winner;
replay one, delete one (after confirming), an unreadable record stays listed to be deleted."""
from __future__ import annotations

import os
from datetime import datetime, timezone

import pytest
from textual.app import App
from textual.widgets import DataTable, Static

from duckcover.app.screens.games import ConfirmDeleteScreen, GamesScreen
from duckcover.app.screens.replay import ReplayScreen
from duckcover.common import i18n
from duckcover.players.harness import play_game
from duckcover.saves import storage
from duckcover.saves.record import replay, to_record
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.random_bot import RandomBot

SAVED_AT = datetime(2026, 3, 14, 15, 9, 26, tzinfo=timezone.utc)
FINISHED_AT = datetime(2026, 2, 1, 20, 30, 0, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("DUCKCOVER_DATA", str(tmp_path))
    previous = i18n.language()
    i18n.set_language("en")
    yield tmp_path
    i18n.set_language(previous)


def record(seed: int, names=("Connie", "Jackson")) -> dict:
    game = play_game([GreedyBot(), RandomBot()], seed=seed, names=list(names))
    return to_record(game, bots=["greedy", "random"])


def save_two_games() -> tuple[dict, dict]:
    """One finished game and one in progress, with fixed times (the file name; the mtime)."""
    finished = record(3)
    storage.save_finished(finished, now=FINISHED_AT)
    current = record(5, names=("Gwen", "Dan"))
    current["rounds"] = current["rounds"][:1]
    current["rounds"][0]["turns"] = current["rounds"][0]["turns"][:6]
    path = storage.save_unfinished(current, storage.new_game_path())
    os.utime(path, (SAVED_AT.timestamp(), SAVED_AT.timestamp()))
    return finished, current


class Host(App):
    ENABLE_COMMAND_PALETTE = False

    def on_mount(self) -> None:
        self.push_screen(GamesScreen())


def rows(screen: GamesScreen) -> list[list[str]]:
    table = screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def test_lists_the_game_in_progress_then_the_finished_ones():
    finished, _ = save_two_games()
    app = Host()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        shown = rows(app.screen)
    assert shown[0] == ["2026-03-14 15:09", "Gwen, Dan", "0 / 0", "in progress, round 1"]
    assert shown[1][:2] == ["2026-02-01 20:30", "Connie, Jackson"]
    game = replay(finished)
    assert shown[1][2] == " / ".join(str(total) for total in game.totals)
    assert shown[1][3] == ", ".join(game.names[s] for s in game.outcome().winners)


async def test_delete_asks_first_and_removes_the_file(data_dir):
    save_two_games()
    finished_file = storage.finished_paths()[0]
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        await pilot.press("down", "d")
        assert isinstance(app.screen, ConfirmDeleteScreen)
        await pilot.press("n")  # keep it
        assert app.screen is screen and len(rows(screen)) == 2 and finished_file.exists()
        await pilot.press("d")
        await pilot.press("y")
        await pilot.pause()
        assert app.screen is screen
        assert [row[1] for row in rows(screen)] == ["Gwen, Dan"]
        assert not finished_file.exists()
        assert storage.has_unfinished()


async def test_enter_replays_the_selected_game():
    save_two_games()
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)
        assert "Round 1/3  Turn 0/" in str(app.screen.query_one("#replay-status", Static).render())
        await pilot.press("escape")
        assert isinstance(app.screen, GamesScreen)


async def test_an_unreadable_record_is_listed_and_can_be_deleted(data_dir):
    broken = storage.games_dir() / storage.FINISHED / "20260101T000000000000Z.json"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"\x00\xffnot a record")
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert rows(screen) == [["2026-01-01 00:00", "?", "-", "unreadable"]]
        assert "cannot be read" in str(screen.query_one("#games-note", Static).render())
        await pilot.press("enter")  # nothing to replay
        assert app.screen is screen
        await pilot.press("d", "y")
        await pilot.pause()
        assert rows(screen) == [] and not broken.exists()
        assert "No saved or finished games yet." in str(screen.query_one("#games-note", Static).render())


async def test_resume_is_offered_only_for_the_game_in_progress_in_the_main_app(data_dir):
    from duckcover.app import AppOptions, create_app

    save_two_games()
    app = create_app(AppOptions(data_dir=data_dir, lang="en"))
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(GamesScreen())
        await pilot.pause()
        screen = app.screen
        assert screen.check_action("resume", ()) is True
        await pilot.press("down")
        assert not screen.check_action("resume", ())
        await pilot.press("up", "r")
        await pilot.pause()
        assert type(app.screen).__name__ == "TableScreen"
        assert app.controller.game.names == ("Gwen", "Dan")


def test_snapshot_games_screen(snap_compare):
    save_two_games()
    assert snap_compare(Host(), terminal_size=(80, 24))


async def test_the_title_screen_opens_games_and_statistics(data_dir):
    from textual.widgets import OptionList

    from duckcover.app import AppOptions, create_app
    from duckcover.app.screens.stats import StatsScreen

    save_two_games()
    app = create_app(AppOptions(data_dir=data_dir, lang="en"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for choice, screen_type in (("games", GamesScreen), ("statistics", StatsScreen)):
            menu = app.screen.query_one("#title-menu", OptionList)
            menu.focus()
            menu.highlighted = menu.get_option_index(choice)
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, screen_type)
            if screen_type is GamesScreen:
                assert len(rows(app.screen)) == 2
            await pilot.press("escape")
            await pilot.pause()
            assert type(app.screen).__name__ == "TitleScreen"


async def test_deleting_the_game_in_progress_disables_resume_on_the_title(data_dir):
    from textual.widgets import OptionList

    from duckcover.app import AppOptions, create_app

    save_two_games()
    app = create_app(AppOptions(data_dir=data_dir, lang="en"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        menu = app.screen.query_one("#title-menu", OptionList)
        assert not menu.get_option("resume").disabled
        app.push_screen(GamesScreen())
        await pilot.pause()
        await pilot.press("d", "y", "escape")  # the first row is the game in progress
        await pilot.pause()
        assert not storage.has_unfinished()
        assert menu.get_option("resume").disabled
