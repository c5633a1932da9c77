"""`DUCKCOVER_PAINTER=0` runs the app on Textual's public drawing path alone (issue 29): no
painter, no lean output, no kept styles or lean lines, no backdrop screen; the modules of
duckcover/app/render/ that touch Textual's private names are never even imported. And the app
draws the same either way (CI also runs the snapshot tests with the painter off)."""
from __future__ import annotations

import sys

import pytest
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen

from autoplay import settle, step, table_of
from duckcover.app import AppOptions, create_app, quick_seats
from duckcover.app.render import NoPainter, painter_on
from duckcover.app.table.screen import TableScreen

pytestmark = pytest.mark.keys
INSIDES = ("duckcover.app.render.paint", "duckcover.app.render.lean_output", "duckcover.app.render.textual_compat")


def connie_and_two_bots(tmp_path):
    return create_app(AppOptions(seats=quick_seats(3, "Connie"), seed=11, speed="instant", lang="en",
                                 data_dir=tmp_path, stats=False))


@pytest.mark.parametrize("value, on", [(None, True), ("1", True), ("0", False), (" 0 ", False), ("", True)])
def test_the_switch_is_read_from_the_environment(monkeypatch, value, on):
    if value is None:
        monkeypatch.delenv("DUCKCOVER_PAINTER", raising=False)
    else:
        monkeypatch.setenv("DUCKCOVER_PAINTER", value)
    assert painter_on() is on


async def test_with_the_painter_off_a_round_by_keys_never_imports_the_render_packages_insides(tmp_path, monkeypatch):
    """The modules that touch Textual's private names cannot be imported (an import of one
    raises), and what they would have put in place is Textual's own."""
    monkeypatch.setenv("DUCKCOVER_PAINTER", "0")
    for name in INSIDES:
        monkeypatch.setitem(sys.modules, name, None)  # `import` of it raises ImportError now
    app = connie_and_two_bots(tmp_path)
    assert not hasattr(app.get_driver_class(), "forget_screen")  # Textual's driver, not the lean one
    async with app.run_test(size=(80, 24)) as pilot:
        actions = []
        for _ in range(400):  # a round, its scorepad and the next round's first steps
            actions.append(await step(pilot))
            if "round-end" in actions and len(actions) - actions.index("round-end") > 4:
                break
        await pilot.resize_terminal(100, 30)  # (the lean driver would forget the screen)
        await pilot.pause()
        assert "round-end" in actions and type(app.screen_stack[0]) is Screen
        assert isinstance(table_of(app).painter, NoPainter)
        assert app.stylesheet.apply.__func__ is Stylesheet.apply  # not counted (kept styles)


async def screens_of_a_round(tmp_path, monkeypatch, painter: str) -> list[str]:
    """The table as Textual exports it (an SVG of every cell) each time the human's turn comes
    in a round (nothing moves then until a key: the same moment in both runs)."""
    monkeypatch.setenv("DUCKCOVER_PAINTER", painter)
    app = connie_and_two_bots(tmp_path / painter)
    shots = []
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(60):
            action = await step(pilot)
            if action in ("round-end", "game-over"):
                break
            await settle(pilot)
            await pilot.pause()
            if isinstance(app.screen, TableScreen):
                shots.append(f"{action}\n{app.export_screenshot()}")
    return shots


async def test_the_painter_on_and_off_draw_the_same_table_after_every_step_of_a_round(tmp_path, monkeypatch):
    on = await screens_of_a_round(tmp_path, monkeypatch, "1")
    off = await screens_of_a_round(tmp_path, monkeypatch, "0")
    assert len(on) > 10
    for number, (with_painter, without) in enumerate(zip(on, off, strict=True)):
        assert with_painter == without, f"step {number}: {with_painter.splitlines()[0]}"
