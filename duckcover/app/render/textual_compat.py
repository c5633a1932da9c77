"""The few things the app needs from Textual that have no public API yet, in one place.

The app's backdrop screen overrides one private method, its first screen two; a guest's app
keeps an error that ends it off the guest's terminal through two. tests/test_textual_compat.py fails loudly if a Textual
upgrade changes what these rely on.
"""
from __future__ import annotations

from textual.app import App
from textual.screen import Screen

from .switch import painter_on


class Backdrop(Screen):
    """Textual's empty first screen, under every screen of the app (`get_default_screen`).

    Nobody ever sees it, but Textual lays it out once after launch and, since it sits under
    the table, sends its dirty regions up as a full repaint of the screen on top: the first
    frame was painted twice (20 KB more over SSH). It only paints while it is on top."""

    def _compositor_refresh(self) -> None:
        if self.app.screen is self:
            super()._compositor_refresh()


class PaintedOnceAtStart(Screen):
    """A screen that can be the app's first (the table of `duckcover play --bots`): painted once
    when the app's start ends, instead of twice.

    Textual holds the frames of the app's start in a batch until its Mount is handled, and that
    waits for the first screen pushed from `on_mount` to mount; meanwhile the screen lays out and
    renders the whole screen, which `App._display` then drops (nothing is written in a batch).
    The driver's first Resize, handled after the batch, paints only what changed since: a first
    frame without the panels' borders and the keys, which a full render completed a moment
    later. Here the render inside the start's batch is not made, its dirty regions kept, so the
    Resize paints the whole screen once (issue 33: launch). Put it before Screen in the bases.
    With the painter off (DUCKCOVER_PAINTER=0) it does what Textual's Screen does."""

    def _compositor_refresh(self) -> None:
        if self.app_starting() and self is self.app.screen:
            return
        super()._compositor_refresh()

    def _on_screen_resume(self, event) -> None:
        """(Before Screen's own handler.) The screen's first resume, at the app's start, styles
        no widget again: each was styled when it mounted, a moment ago, and the focus given
        since restyled what it changes; Textual's resume restyles the whole screen, for a
        screen coming back from under another."""
        if self.app_starting():
            event.refresh_styles = False

    def app_starting(self) -> bool:
        """Whether the app's start is under way: its Mount not handled yet, so its frames held."""
        app = self.app
        return bool(app._batch_count) and not app._is_mounted and painter_on()


class CrashKept(App):
    """An app whose unhandled error is kept in `crash` (its traceback, for the server's log),
    never printed to its terminal: Textual ends the app on such an error and prints the
    traceback to the terminal, a guest's. Put it before the app's class in the bases."""

    crash: str | None = None

    def _handle_exception(self, error: Exception) -> None:
        import traceback

        if self.crash is None:
            self.crash = "".join(traceback.format_exception(error))
        super()._handle_exception(error)

    def _print_error_renderables(self) -> None:
        self._exit_renderables.clear()  # the guest sees one line (remote.main), never a traceback


def warm_imports() -> None:
    """What a guest's client loads late, loaded ahead (the warm parent's heap, before its freeze):
    Textual's input parser (a private module) and the lean output."""
    from textual import _xterm_parser  # noqa: F401

    from . import lean_output  # noqa: F401
