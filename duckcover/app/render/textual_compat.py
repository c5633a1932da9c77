"""The few things the app needs from Textual that have no public API yet, in one place.

The app's backdrop screen overrides one private method; a guest's app keeps an error that ends
it off the guest's terminal through two. tests/test_textual_compat.py fails loudly if a Textual
upgrade changes what these rely on.
"""
from __future__ import annotations

from textual.app import App
from textual.screen import Screen


class Backdrop(Screen):
    """Textual's empty first screen, under every screen of the app (`get_default_screen`).

    Nobody ever sees it, but Textual lays it out once after launch and, since it sits under
    the table, sends its dirty regions up as a full repaint of the screen on top: the first
    frame was painted twice (20 KB more over SSH). It only paints while it is on top."""

    def _compositor_refresh(self) -> None:
        if self.app.screen is self:
            super()._compositor_refresh()


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
