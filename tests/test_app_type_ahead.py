"""Keys typed while the table moves on by itself (issue 19): a flip typed during the reveal is
kept and played when the flip is asked for; a key of the next choice is refused visibly.
At the app's real pacing (speed normal: the reveal stays up 1 s)."""
from __future__ import annotations

import time

import pytest

from autoplay import table_of
from duckcover.app import AppOptions, create_app, quick_seats
from duckcover.players.sequence import PAUSES
from duckcover.app.table.screen import TurnState


def options(tmp_path, seed):
    return AppOptions(seats=quick_seats(1, "Ann"), seed=seed, speed="normal", lang="en",
                      data_dir=tmp_path, stats=False)


async def until(pilot, condition, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the table never got there"
        await pilot.pause(0.02)


async def choose_by_keys(pilot, table) -> None:
    """Tab to a legal cell and Enter, as often as the choice asks (a pick, then a place)."""
    while table.chooser is not None:
        await pilot.press("tab", "enter")


async def ann_is_captain(pilot, app) -> object:
    table = table_of(app)
    await until(pilot, lambda: table.state in (TurnState.AWAIT_FLIP, TurnState.CHOOSING))
    return table if app.controller.game.captain == 0 else None


async def test_a_space_typed_0_3_s_after_enter_flips_when_the_reveal_is_over(tmp_path):
    for seed in range(1, 40):  # a deal where Ann, at 80x24, is Captain of the first round
        app = create_app(options(tmp_path / str(seed), seed))
        async with app.run_test(size=(80, 24)) as pilot:
            table = await ann_is_captain(pilot, app)
            if table is None:
                continue
            assert PAUSES["normal"].reveal > 0.5  # the Space below comes during the reveal
            await pilot.press("space")
            await until(pilot, lambda: table.chooser is not None)
            await choose_by_keys(pilot, table)
            await pilot.pause(0.3)
            assert table.state in table.WAIT_STATES  # the reveal is still on the table
            await pilot.press("space")
            assert "Flip noted" in table.prompt_text  # the key is kept, and it says so
            await until(pilot, lambda: any("Round 1, flip 2" in line for line in table.log_lines))
            assert app.controller.game.phase.name in ("MOVE", "GIFT", "PLACE")  # flipped: the choice is open
            return
    raise AssertionError("no seed gave Ann the first round's Captain")


@pytest.mark.parametrize("key", ["enter", "b"])  # Enter, and a cell's jump key
async def test_a_key_of_the_next_choice_during_the_reveal_is_refused_visibly(tmp_path, key):
    app = create_app(options(tmp_path, 1))
    async with app.run_test(size=(80, 24)) as pilot:
        table = table_of(app)
        await until(pilot, lambda: table.state in (TurnState.AWAIT_FLIP, TurnState.CHOOSING))
        if table.state is TurnState.AWAIT_FLIP:
            await pilot.press("space")
        await until(pilot, lambda: table.chooser is not None)
        turn = app.controller.game.turn_number
        await choose_by_keys(pilot, table)
        await until(pilot, lambda: table.state is TurnState.PAUSE)
        cursor = table.query_one("#own-grid").cursor
        await pilot.press(key)
        assert table.prompt_text.startswith("Wait:")  # said, not silently dropped
        assert table.query_one("#own-grid").cursor == cursor and app.controller.game.turn_number == turn + 1
        await until(pilot, lambda: table.state in (TurnState.AWAIT_FLIP, TurnState.CHOOSING))
        assert not table.prompt_text.startswith("Wait:")  # the next question replaces it
