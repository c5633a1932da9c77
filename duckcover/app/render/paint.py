"""A table's changes drawn as lines, without Textual's frame (issue 22: 48 SSH players on 2 cores).

Textual draws a change in steps: each refreshed widget posts messages (Prompt, Idle, Update) through
its own message pump, the screen's update timer fires (up to a 60th of a second later), and the
compositor asks every widget the dirty regions' bounding box touches for its lines (a reveal dirties
the status line at the top and the keys at the bottom, so: every widget), cuts them into chops and
writes them. When a server message or a step of the flow changes the table, almost every part
changes, and a guest paid that machinery on every reveal (docs/serve.md, round four).

A refresh of a widget drawn by lines (`DrawnByLines`, `GridWidget`, `TableLog` in app/widgets/core.py)
is only noted by its screen's painter: inside `LinePainter.batch()` (a server message, a step of the
flow, a bot's move) until the batch ends and the steps the screen queued meanwhile have run (a
reveal and the step after its pause are one write); outside one (a key, a focus or style change)
until the callback that asked ends. Then each noted widget that the screen shows whole and that
nothing covers has its changed lines drawn through Textual's own line cache (so its styles apply
and a later Textual frame finds them current), and they go out as one write through the app's
output (the lean layer included). Anything else falls back to Textual's own refresh: a widget that needs a
layout, one partly hidden or covered (a notification, a tooltip), a screen that is not on top, a
screen waiting for a layout.

`lean_lines` draws the lines of a widget with no top or bottom gutter, outline, tint or opacity
(every table part at 80x24) as Textual's StylesCache would, without its per-call work.

This leans on private names of Textual (the compositor's map, the widget's line cache), pinned
exactly in pyproject.toml; tests/test_paint.py compares what a terminal shows with Textual's frame
drawn from nothing kept, by Textual's own StylesCache.
"""
from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual._border import get_box
from textual._compositor import CompositorUpdate
from textual._segment_tools import line_pad
from textual.color import Color
from textual.dom import NoScreen
from textual.geometry import Region
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget


class LinesUpdate(CompositorUpdate):
    """Parts of widgets at their places on the screen, each line written as a cursor move, then
    the line. The lines are drawn when the update is written: a headless app (the tests')
    writes nothing, so it draws nothing (a later frame of Textual's draws them if it needs them)."""

    def __init__(self, parts: list[tuple[Widget, Region, Region]]) -> None:
        self.parts = parts  # (a widget, its region on the screen, the part of it to draw)

    def lines(self) -> list[tuple[int, int, Strip]]:
        lines = []
        for widget, region, crop in self.parts:
            strips = widget.render_lines(crop)
            lines.extend((region.y + crop.y + dy, region.x + crop.x, strip) for dy, strip in enumerate(strips))
        return sorted(lines, key=lambda line: (line[0], line[1]))

    def render_segments(self, console) -> str:
        move = "\x1b[{};{}H".format
        return "".join(move(y + 1, x + 1) + strip.render(console) for y, x, strip in self.lines())


class LinePainter:
    """One per screen. `batch()` around changes made outside Textual's events (a server message,
    a step of the table's flow); `take()` is asked by each widget's refresh."""

    def __init__(self, screen) -> None:
        self.screen = screen
        self.depth = 0
        self.pending: dict[Widget, list[Region] | None] = {}  # widget -> dirty regions (None: whole)
        self._plan: tuple[object, dict[Widget, Region]] | None = None
        self.flush_asked = False  # a flush waits for the end of the callback that refreshed
        self.flush_queued = False  # a flush waits for the steps queued on the screen
        self.before_flush: list = []  # work done once per write, not at each change (the key bar)
        self.painted = self.fell_back = 0  # frames drawn here / refreshes handed to Textual (tests, benchmarks)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Changes noted until the batch ends; then drawn after the steps the screen has queued
        by then (a reveal's pause at speed instant, the step after it): one write, not three."""
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if not self.depth and self.pending:
                self.flush_after_queued()

    def flush_after_queued(self) -> None:
        """Flush once the screen's message queue has run what is in it now (Textual's call_later
        posts to the end of it). Lines the server sends together are read without a pause in
        between, so they join the same write too."""
        if not self.flush_queued:
            self.flush_queued = self.screen.call_later(self.flush_queued_now)
            if not self.flush_queued:  # (the screen is not running)
                self.flush()

    def flush_queued_now(self) -> None:
        self.flush_queued = False
        if self.pending and not self.depth:
            self.flush()

    def take(self, widget: Widget, regions: tuple[Region, ...], repaint: bool = True, layout: bool = False,
             recompose: bool = False) -> bool:
        """Whether this painter draws the refresh: a mounted widget, its content only. Outside a
        batch (a key, a focus change), it is drawn as soon as the callback that asked ends:
        Textual's own frame would wait for its update timer (up to a 60th of a second, more
        on a busy machine), and a reveal's last bytes with it."""
        if not repaint or layout or recompose or not widget.is_mounted:
            return False
        if not self.depth:
            if not self.screen.is_current:
                return False
            self.flush_soon()
        if regions and self.pending.get(widget, []) is not None:
            self.pending.setdefault(widget, []).extend(regions)
        else:
            self.pending[widget] = None
        # (Textual's line cache forgets the lines when they are drawn: a frame of Textual's own
        # before that draws what the terminal shows already.)
        return True

    def flush_soon(self) -> None:
        if not self.flush_asked:
            self.flush_asked = True
            asyncio.get_running_loop().call_soon(self.flush_asked_for)

    def flush_asked_for(self) -> None:
        self.flush_asked = False
        if self.pending and not self.depth:
            self.flush()

    @staticmethod
    def forget_lines(widget: Widget, regions) -> None:
        widget._layout_cache.clear()
        widget._rich_style_cache.clear()
        if regions:
            offset = widget.content_offset
            widget._styles_cache.set_dirty(*(region.translate(offset) for region in regions))
        else:
            widget._styles_cache.clear()

    def places(self) -> dict[Widget, Region]:
        """Each widget the screen shows whole and nothing covers -> its region on the screen,
        worked out once per arrangement of the screen."""
        visible = self.screen._compositor.visible_widgets  # front to back; a new dict after each layout
        if self._plan is None or self._plan[0] is not visible:
            places: dict[Widget, Region] = {}
            in_front: list[Region] = []
            for widget, (region, clip) in visible.items():
                if clip.contains_region(region) and not any(region.overlaps(other) for other in in_front):
                    places[widget] = region
                in_front.append(region)
            self._plan = (visible, places)
        return self._plan[1]

    def can_paint(self) -> bool:
        screen = self.screen
        app = screen.app
        return (screen.is_current and not app._batch_count and not screen._layout_required
                and not screen._scroll_required and not screen._recompose_required)

    def flush(self) -> None:
        self.depth += 1  # (what the hooks refresh joins this write)
        try:
            for hook in self.before_flush:
                hook()
        finally:
            self.depth -= 1
        pending, self.pending = self.pending, {}
        places = self.places() if self.can_paint() else {}
        arranged = self.screen._compositor.widgets  # (not: hidden by display none, not yet placed)
        parts: list[tuple[Widget, Region, Region]] = []
        for widget, regions in pending.items():
            if places and widget not in arranged and not widget._layout_required:
                self.forget_lines(widget, regions)  # not on the screen: drawn when it is placed again
                continue
            region = places.get(widget)
            if region is None or widget._layout_required or not widget.is_mounted:
                self.fell_back += 1
                Widget.refresh(widget, *(regions or ()))  # Textual's way (our overrides forgot their lines)
                continue
            self.forget_lines(widget, regions)
            parts.extend((widget, region, crop) for crop in self.crops(widget, regions))
        if parts:
            self.painted += 1
            self.screen.app._display(self.screen, LinesUpdate(parts))

    @staticmethod
    def crops(widget: Widget, regions: list[Region] | None) -> list[Region]:
        """The widget's regions to draw, in its own coordinates (Textual's refresh regions are the
        content's), each clipped to the widget, none overlapping by a line."""
        whole = Region(0, 0, *widget.outer_size)
        if not regions:
            return [whole]
        offset = widget.content_offset
        crops = [region.translate(offset).intersection(whole) for region in regions]
        rows: dict[int, tuple[int, int]] = {}  # line -> (x0, x1) drawn on it
        for crop in crops:
            for y in crop.line_range:
                x0, x1 = rows.get(y, (crop.x, crop.right))
                rows[y] = (min(x0, crop.x), max(x1, crop.right))
        merged: list[Region] = []  # lines after one another with the same span: one region
        for y, (x0, x1) in sorted(rows.items()):
            last = merged[-1] if merged else None
            if last is not None and last.bottom == y and (last.x, last.right) == (x0, x1):
                merged[-1] = Region(x0, last.y, x1 - x0, last.height + 1)
            elif x1 > x0:
                merged.append(Region(x0, y, x1 - x0, 1))
        return merged


def painter_takes(widget: Widget, regions: tuple[Region, ...], kwargs: dict) -> bool:
    """Asked by the refresh of a widget drawn by lines: whether its screen's painter draws it."""
    if not widget.is_mounted:
        return False
    try:
        painter = getattr(widget.screen, "painter", None)
    except NoScreen:  # (not on a screen yet)
        return False
    return painter is not None and painter.take(widget, regions, **kwargs)


class LinePlan(NamedTuple):
    """What Textual's StylesCache works out for every line it draws, worked out once per change
    of the widget's styles or size (app.widgets.core.KeptStyle keeps it)."""

    width: int
    content_width: int
    pad_left: int
    pad_right: int
    fill: RichStyle  # the style of padding and of a short line's rest
    left: Segment | None  # the left border's segment, if it has one
    right: Segment | None
    background: Color  # the widget's background (the filters blend with it)


def line_plan(widget: Widget) -> LinePlan | None:
    """The plan of a widget whose lines are its content padded left and right and between side
    borders at most: no top or bottom gutter, outline, tint, opacity, hatch, border title or
    link. None for any other (Textual's StylesCache draws it)."""
    styles = widget.styles
    (top, _), (right, right_color), (bottom, _), (left, left_color) = styles.border
    pad_top, pad_right, pad_bottom, pad_left = styles.padding
    if (top or bottom or pad_top or pad_bottom or any(edge for edge, _ in styles.outline)
            or styles.tint.a or styles.text_opacity != 1.0 or widget.opacity != 1.0
            or (styles.has_rule("hatch") and styles.hatch != "none")
            or widget._border_title is not None or widget._border_subtitle is not None
            or widget.hover_style._link_id):
        return None
    width = widget.outer_size.width
    base_background, background = widget.background_colors
    inner, outer = widget._styles_cache.get_inner_outer(base_background, background)
    side = {}
    for name, edge, color, at in (("left", left, left_color, 0), ("right", right, right_color, 2)):
        side[name] = get_box(edge, inner, outer, Style(foreground=base_background + color))[1][at] if edge else None
    content_width = width - pad_left - pad_right - (left != "") - (right != "")
    return LinePlan(width, content_width, pad_left, pad_right, inner.rich_style, side["left"], side["right"],
                    background)


def lean_lines(widget: Widget, plan: LinePlan, crop: Region) -> list[Strip]:
    """Widget.render_lines for a widget with a plan: Textual's StylesCache.render_widget and
    render_line less what the plan rules out, with the same line cache (so a refresh's dirty
    lines, the painter's forget_lines and a Textual frame all see the same lines)."""
    cache = widget._styles_cache
    if plan.width != cache._width:
        cache.clear()
        cache._width = plan.width
    lines, dirty = cache._cache, cache._dirty_lines
    filters = widget.app.get_line_filters()
    strips = []
    for y in crop.line_range:
        strip = lines.get(y)
        if strip is None or y in dirty:
            line = widget.render_line(y).adjust_cell_length(plan.content_width, plan.fill)
            if plan.pad_left or plan.pad_right:
                line = line_pad(line, plan.pad_left, plan.pad_right, plan.fill)
            if plan.left is not None:
                line = [plan.left, *line]
            if plan.right is not None:
                line = [*line, plan.right]
            strip = lines[y] = Strip(line, plan.width)
        for line_filter in filters:
            strip = strip.apply_filter(line_filter, plan.background)
        strips.append(strip)
    dirty.difference_update(crop.line_range)
    if crop.column_span != (0, plan.width):
        x1, x2 = crop.column_span
        strips = [strip.crop(x1, x2) for strip in strips]
    return strips
