"""The few things the app needs from Textual that have no public API yet, in one place.

Every screen names its keys in a class-level `BINDINGS` list whose descriptions are UI text
keys; the footers say them in the language of the moment (duckcover.app.widgets.footer). The
translating Footer needs `FooterKey`, which Textual does not export; the app's backdrop screen
overrides one private method. tests/test_textual_compat.py fails loudly if a Textual upgrade
changes what these rely on.
"""
from __future__ import annotations

from textual.screen import Screen
from textual.widgets._footer import FooterKey  # noqa: F401 - not exported by textual.widgets


class Backdrop(Screen):
    """Textual's empty first screen, under every screen of the app (`get_default_screen`).

    Nobody ever sees it, but Textual lays it out once after launch and, since it sits under
    the table, sends its dirty regions up as a full repaint of the screen on top: the first
    frame was painted twice (20 KB more over SSH). It only paints while it is on top."""

    def _compositor_refresh(self) -> None:
        if self.app.screen is self:
            super()._compositor_refresh()
