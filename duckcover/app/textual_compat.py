"""The few things the app needs from Textual that have no public API yet, in one place.

Key labels are translated, and the language is chosen at run time (and may change in
Settings), so a screen's keys cannot be a class-level `BINDINGS` list: each screen binds its
keys when it is built, in the language of the moment. Textual offers `App.bind` for the app
but nothing public for a screen, so both go through here. The app's backdrop screen overrides
one private method. tests/test_textual_compat.py
fails loudly if a Textual upgrade changes what these rely on.
"""
from __future__ import annotations

from textual.dom import DOMNode
from textual.screen import Screen


def bind(node: DOMNode, keys: str, action: str, description: str = "", *, show: bool = True,
         key_display: str | None = None, priority: bool = False) -> None:
    """Bind `keys` (comma-separated) to `action` on this screen, widget or app."""
    node._bindings.bind(keys, action, description, show=show, key_display=key_display, priority=priority)


def unbind(node: DOMNode, key: str) -> None:
    """Forget what `key` was bound to on `node` (before binding it again with a new label)."""
    node._bindings.key_to_bindings.pop(key, None)


class Backdrop(Screen):
    """Textual's empty first screen, under every screen of the app (`get_default_screen`).

    Nobody ever sees it, but Textual lays it out once after launch and, since it sits under
    the table, sends its dirty regions up as a full repaint of the screen on top: the first
    frame was painted twice (20 KB more over SSH). It only paints while it is on top."""

    def _compositor_refresh(self) -> None:
        if self.app.screen is self:
            super()._compositor_refresh()
