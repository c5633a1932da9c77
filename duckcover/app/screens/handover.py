"""The hand-over screen of pass-and-play: hides the whole table while the keyboard changes hands.

It is a full Screen, not a modal: nothing of the table (grids, marks, prompt, log) shows
through, so the next player cannot see what the previous one was about to choose.
"""
from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.binding import Binding
from textual.widgets import Static

from ...common.i18n import t
from ..widgets.footer import KeyFooter


class HandoverScreen(Screen[None]):
    BINDINGS = [
        Binding("enter", "ready", "handover.key"),  # "I am {name}": the name is in key_values
    ]
    SCOPED_CSS = False  # its ASCII rule starts at the App
    DEFAULT_CSS = """
    HandoverScreen { align: center middle; }
    #handover { width: 64; max-width: 95%; height: auto; border: heavy $accent; padding: 1 2; }
    App.-ascii #handover { border: ascii $accent; }
    #handover-title { text-style: bold; text-align: center; width: 100%; color: $accent; }
    #handover-where { text-align: center; width: 100%; margin: 1 0 0 0; }
    #handover-body { text-align: center; width: 100%; margin: 1 0 0 0; }
    """

    def __init__(self, name: str, where: str) -> None:
        super().__init__()
        self.player = name
        self.where = where
        self.key_values = {"name": name}  # "I am {name}" (the footer says it)

    def compose(self) -> ComposeResult:
        with Vertical(id="handover"):
            # The name is untrusted text: Content is never read as markup.
            yield Static(Content(t("handover.title", name=self.player)), id="handover-title")
            yield Static(Content(self.where), id="handover-where")
            yield Static(Content(t("handover.body", name=self.player)), id="handover-body")
        yield KeyFooter()

    def action_ready(self) -> None:
        if self.is_attached and self.app.screen is self:
            self.dismiss()
