"""Textual's and Rich's insides, behind one door: the only package of duckcover that touches
their private names (tests/test_private_names.py checks the rest of the package).

- `paint`: the table's changes drawn as lines, without Textual's frame; the widgets' lines
  drawn as Textual's StylesCache would (the compositor's map, the line cache); the count of
  the style sheet's applications that lets widgets keep their styles.
- `lean_output`: fewer bytes to the terminal for the same picture (a driver that writes itself).
- `textual_compat`: the rest (the backdrop screen's private method, a guest's crash kept off
  its terminal).

This module is the door and touches nothing private itself. `DUCKCOVER_PAINTER=0` in the
environment runs the app on Textual's public drawing path alone: no painter, no lean output,
no kept styles or lean lines, no backdrop, and `paint` (the module importing Textual's private
modules) never imported; tests/test_painter_switch.py checks it, and CI runs the snapshot
tests both ways (they draw the same).
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from textual.dom import NoScreen
from textual.screen import Screen

from .switch import SWITCH, painter_on  # noqa: F401 - (the package's door names them)


class NoPainter:
    """A table screen's painter with the painter off: every refresh is Textual's own."""

    painted = fell_back = 0
    pending: dict = {}

    def __init__(self) -> None:
        self.before_flush: list = []  # (never run: Textual's signals update the keys)

    @contextmanager
    def batch(self) -> Iterator[None]:
        yield

    def take(self, widget, regions, **kwargs) -> bool:
        return False


def new_painter(screen):
    """The painter of a table screen: `paint.LinePainter`, or a NoPainter with the painter off."""
    if not painter_on():
        return NoPainter()
    from .paint import LinePainter

    return LinePainter(screen)


def painter_takes(widget, regions: tuple, kwargs: dict) -> bool:
    """Asked by the refresh of a widget drawn by lines: whether its screen's painter draws it."""
    if not widget.is_mounted:
        return False
    try:
        painter = getattr(widget.screen, "painter", None)
    except NoScreen:  # (not on a screen yet)
        return False
    return painter is not None and painter.take(widget, regions, **kwargs)


def line_plan(widget):
    """What a widget's lines take to be drawn lean (`paint.lean_lines`), or None: Textual's own
    drawing (a widget it does not fit, or the painter off)."""
    if not painter_on():
        return None
    from .paint import line_plan as plan

    return plan(widget)


def lean_lines(widget, plan, crop):
    """`Widget.render_lines` for a widget with a plan from `line_plan` (no import per call)."""
    return plan.draw(widget, crop)


def count_style_changes(app) -> None:
    """Let widgets keep their styles until the style sheet may have changed them (the painter
    off: nothing counted, so they work them out every time, as Textual does)."""
    if painter_on():
        from .paint import count_style_changes as count

        count(app)


def driver_class(base: type) -> type:
    """The terminal's driver: `base` writing through the lean output, unless the painter is off
    or DUCKCOVER_LEAN_OUTPUT=0 (to compare, or to rule the layer out of a bug)."""
    if not painter_on() or os.environ.get("DUCKCOVER_LEAN_OUTPUT") == "0":
        return base
    from .lean_output import lean_driver

    return lean_driver(base)


def terminal_resized(app) -> None:
    """The lean driver forgets what the terminal shows: a resized terminal may have redrawn."""
    if painter_on():
        from .lean_output import forget_terminal

        forget_terminal(app)


def default_screen() -> Screen:
    """The app's first screen, under every other: the backdrop (textual_compat), or Textual's
    own with the painter off."""
    if not painter_on():
        return Screen(id="_default")
    from .textual_compat import Backdrop

    return Backdrop(id="_default")
