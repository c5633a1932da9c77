"""The Statistics screen: per-player figures and bar charts after finished games; a corrupt or
newer database is reported on the screen and never crashes the app."""
from __future__ import annotations

import sqlite3

import pytest
from textual.app import App
from textual.widgets import Static

from duckcover.app.screens.stats import StatsScreen, bar
from duckcover.common import i18n
from duckcover.players.harness import play_game
from duckcover.saves import stats
from duckcover.saves.record import to_record
from duckcover_bots.greedy import GreedyBot
from duckcover_bots.random_bot import RandomBot


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("DUCKCOVER_DATA", str(tmp_path))
    monkeypatch.delenv("NO_COLOR", raising=False)
    previous = i18n.language()
    i18n.set_language("en")
    yield tmp_path
    i18n.set_language(previous)


def add_two_games() -> list[stats.PlayerStats]:
    for seed in (3, 4):
        game = play_game([GreedyBot(), RandomBot()], seed=seed, names=["Connie", "Jackson"])
        assert stats.add_game(to_record(game))
    return stats.load()


class Host(App):
    ENABLE_COMMAND_PALETTE = False

    def on_mount(self) -> None:
        self.push_screen(StatsScreen())


def shown(screen: StatsScreen, part: str) -> str:
    """The lines a part of the screen draws, as plain text."""
    widget = screen.query_one(f"#stats-{part}", Static)
    return "\n".join(widget.render_line(y).text.rstrip() for y in range(widget.size.height)).strip("\n")


def test_bars_scale_to_the_largest_value():
    assert bar(10, 10, width=20) == "\u2588" * 20
    assert bar(5, 10, width=20) == "\u2588" * 10
    assert bar(0.1, 10, width=20) == "\u2588"  # never invisible
    assert bar(0, 10) == ""
    assert bar(-5, 10, width=20) == "\u2588" * 10


def test_no_color_draws_plain_ascii_bars(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert bar(3, 3, width=4) == "####"


async def test_two_finished_games_show_each_players_figures():
    players = add_two_games()
    app = Host()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        table, charts = shown(screen, "table"), shown(screen, "charts")
        assert not screen.query_one("#stats-error").display
        assert "Finished games: 2" in shown(screen, "title")
    for p in players:
        row = next(line for line in table.splitlines() if line.startswith(p.name))
        assert row.split()[1:] == [str(p.games), str(p.wins), f"{p.average:.1f}",
                                   f"{p.best_round:+d}", f"{p.worst_round:+d}", str(p.single_stacks)]
        assert p.games == 2
    wins = charts.split("\n\n")[0].splitlines()
    assert wins[0] == "Wins"
    most = max(p.wins for p in players)
    for p in players:
        line = next(line for line in wins if line.startswith(p.name))
        assert line.count("\u2588") == (max(1, round(30 * p.wins / most)) if p.wins else 0)
        assert line.endswith(f" {p.wins}")
    assert "Average score (lower is better)" in charts


async def test_no_games_yet():
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert shown(app.screen, "table") == "No finished games yet."
        assert not app.screen.query_one("#stats-charts").display


async def test_a_corrupt_database_is_reported_on_the_screen(data_dir):
    db = data_dir / stats.DB_NAME
    garbage = bytes(range(256)) * 16
    db.write_bytes(garbage)
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        error = shown(screen, "error")
        assert screen.query_one("#stats-error").display
        assert error.startswith("The statistics cannot be shown: statistics database")
        assert "corrupt" in error
        await pilot.press("r")  # reloading reports it again, still no crash
        assert shown(screen, "error") == error
        await pilot.press("escape")
        assert not isinstance(app.screen, StatsScreen)
        assert app.is_running
    assert db.read_bytes() == garbage  # never touched


async def test_a_newer_database_is_reported_not_read(data_dir):
    add_two_games()
    db = data_dir / stats.DB_NAME
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {stats.SCHEMA_VERSION + 1}")
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "newer duckcover" in shown(app.screen, "error")
        assert shown(app.screen, "table") == ""


def test_snapshot_statistics(snap_compare):
    add_two_games()
    assert snap_compare(Host(), terminal_size=(80, 24))


def test_snapshot_statistics_corrupt_database(snap_compare, data_dir, monkeypatch):
    monkeypatch.chdir(data_dir)
    monkeypatch.setenv("DUCKCOVER_DATA", "data")  # relative: the message names the same path every run
    (data_dir / "data").mkdir()
    (data_dir / "data" / stats.DB_NAME).write_bytes(b"this is not a database" * 100)
    assert snap_compare(Host(), terminal_size=(80, 24))


# --- ratings ----------------------------------------------------------------------------------
def test_sparkline_is_one_mark_per_point_scaled_to_the_range(monkeypatch):
    from duckcover.app.screens.stats import SPARKS, sparkline

    assert sparkline([0.0, 5.0, 10.0]) == SPARKS[0] + SPARKS[4] + SPARKS[7]
    assert sparkline([3.0, 3.0]) == SPARKS[0] * 2  # flat: nothing to scale
    assert len(sparkline([float(v) for v in range(500)], width=60)) == 60
    assert sparkline([]) == ""
    monkeypatch.setenv("NO_COLOR", "1")
    assert sparkline([0.0, 10.0]) == "_#"


async def test_the_screen_charts_each_players_rating_over_time_and_p_moves_on(data_dir):
    add_two_games()
    for seed in (5, 6, 7):
        game = play_game([GreedyBot(), RandomBot()], seed=seed, names=["Connie", "Jackson"])
        stats.add_game(to_record(game))
    board = stats.ratings()
    async with Host().run_test(size=(80, 24)) as pilot:
        screen = pilot.app.screen
        await pilot.pause()
        first = screen.rated[0]
        assert [s.key for s in screen.rated] == [s.key for s in sorted(board.values(), key=lambda s: -s.rating.ordinal)]
        text = str(screen.query_one("#stats-rating", Static).render())
        assert f"Rating of {first.label} over 5 rated games" in text
        assert f"rating now {first.history[-1]:.1f}" in text
        from duckcover.app.screens.stats import sparkline

        assert sparkline(first.history) in text
        await pilot.press("p")
        text = str(screen.query_one("#stats-rating", Static).render())
        assert f"Rating of {screen.rated[1].label} over" in text
