"""Snapshots of every screen at 80x24 and 120x40: seeded, speed instant, no blinking, no clock.

Update after an intended change with `pytest tests/test_app_snapshots.py --snapshot-update`
and look at the report before committing.
"""
import pytest

from duckcover.app import AppOptions, SeatSpec, create_app, quick_seats
from autoplay import play_to_end, settle, step, table_of
from duckcover.app.screens.core import RoundEndScreen, SetupScreen

SIZES = [(80, 24), (120, 40)]


def make(tmp_path, seats=None, seed=1):
    return create_app(AppOptions(seats=seats, seed=seed, speed="instant", lang="en", data_dir=tmp_path,
                                 stats=False, save=False))


async def choosing(pilot):
    """Flip, and stop with the human's legal cells marked."""
    for _ in range(40):
        await step(pilot)
        table = table_of(pilot.app)
        if table.chooser is not None:
            return
    raise AssertionError("the human never had to choose")


async def log_at_its_end(pilot):
    """The log behind a modal scrolls to its last line after a refresh: wait for it, or the
    picture depends on timing."""
    log = table_of(pilot.app).query_one("#log")
    assert await settle(pilot, lambda: log.at_end)
    await pilot.wait_for_scheduled_animations()


async def round_over(pilot):
    for _ in range(500):
        await step(pilot)
        await settle(pilot)
        if isinstance(pilot.app.screen, RoundEndScreen):
            await log_at_its_end(pilot)
            return
    raise AssertionError("the round never ended")


async def game_over(pilot):
    await play_to_end(pilot)
    await log_at_its_end(pilot)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_title(snap_compare, tmp_path, size):
    assert snap_compare(make(tmp_path), terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_setup(snap_compare, tmp_path, size):
    async def open_setup(pilot):
        pilot.app.push_screen(SetupScreen())
        await pilot.pause()

    assert snap_compare(make(tmp_path), terminal_size=size, run_before=open_setup)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_table_two_players(snap_compare, tmp_path, size):
    app = make(tmp_path, quick_seats(1, "Connie"), seed=5)
    assert snap_compare(app, terminal_size=size, run_before=choosing)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_table_seven_players(snap_compare, tmp_path, size):
    app = make(tmp_path, quick_seats(6, "Connie"), seed=5)
    assert snap_compare(app, terminal_size=size, run_before=choosing)


def test_table_seven_players_at_the_smallest_full_layout(snap_compare, tmp_path):
    """Six opponents beside a marked grid at 120x34: every panel fits, nothing scrolls."""
    app = make(tmp_path, quick_seats(6, "Connie"), seed=5)
    assert snap_compare(app, terminal_size=(120, 34), run_before=choosing)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_round_end(snap_compare, tmp_path, size):
    app = make(tmp_path, quick_seats(3, "Connie"), seed=5)
    assert snap_compare(app, terminal_size=size, run_before=round_over)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_game_end(snap_compare, tmp_path, size):
    seats = [SeatSpec("Connie"), SeatSpec("Jackson", "medium"), SeatSpec("Gwen", "medium")]
    app = make(tmp_path, seats, seed=5)  # a tie on total, decided by the fewest visible cards
    assert snap_compare(app, terminal_size=size, run_before=game_over)
