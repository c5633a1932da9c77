"""The footer of every screen but the table's: Textual's Footer, each key said in the language
of the moment.

Screens name their keys in class-level `BINDINGS` whose descriptions are UI text keys; a label
may name values ("I am {name}"), which the screen gives in `key_values`. The table's own footer
(widgets.KeyBar, one widget drawn in one go) says them through the same `described`.
"""
from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer

from ..render.textual_compat import FooterKey
from .core import described


class KeyFooter(Footer):
    def compose(self) -> ComposeResult:
        values = getattr(self.screen, "key_values", None)
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                widget.description = described(widget.description, values)
            yield widget
