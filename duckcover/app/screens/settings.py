"""The Settings screen: language, hints and colours, saved to settings.json in the data directory.

Opened from the title screen, or with `o` at the table. A new language applies at once: the
app relabels its keys and builds the screen underneath (title or table) again.
"""
from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.binding import Binding
from textual.widgets import Button, Checkbox, Label, Select, Static

from ...common import i18n
from ...common.i18n import t
from ...saves.settings import THEMES, Settings, save
from .. import places
from ..messages import SettingsSaved
from ..widgets.footer import KeyFooter
from .core import SCREENS_CSS, ascii_widgets

AUTO = "auto"  # the Selects' value for "nothing saved: decide automatically"


class SettingsScreen(Screen):
    CSS_PATH = SCREENS_CSS  # the setup rows and headings
    BINDINGS = [Binding("escape", "back", "key.back"), Binding("ctrl+s", "save", "settings.save")]
    AUTO_FOCUS = "#settings-lang"  # not the scrolling container: keys work at once
    DEFAULT_CSS = """
    #settings { padding: 0 2; }
    #settings .setup-label { width: 22; padding: 1 1 0 0; }
    #settings-lang, #settings-colours { width: 1fr; max-width: 60; }  /* 80 columns: all of it shows */
    #settings-hints { height: auto; margin: 1 0 0 0; }
    """

    def __init__(self) -> None:
        super().__init__()

    @property
    def current(self) -> Settings:
        return getattr(self.app, "settings", None) or Settings()

    def compose(self) -> ComposeResult:
        languages = [(t("settings.lang_auto"), AUTO)] + [(t(f"lang.{code}"), code) for code in i18n.LANGUAGES]
        colours = [(t("settings.colours_auto"), AUTO)] + [(t(f"colours.{name}"), name) for name in THEMES]
        with VerticalScroll(id="settings"):
            yield Label(t("settings.title"), classes="heading")
            with Horizontal(classes="setup-row"):
                yield Label(t("settings.language"), classes="setup-label")
                yield Select(languages, value=self.current.lang or AUTO, allow_blank=False, id="settings-lang")
            with Horizontal(classes="setup-row"):
                yield Label(t("settings.colours"), classes="setup-label")
                yield Select(colours, value=self.current.theme or AUTO, allow_blank=False, id="settings-colours")
            yield Checkbox(t("settings.hints"), value=self.current.hints, id="settings-hints")
            yield Static(t("settings.hints_note"), classes="dim")
            with Horizontal(classes="setup-row buttons"):
                yield Button(t("settings.save"), variant="primary", id="save")
                yield Button(t("key.back"), id="back")
        yield KeyFooter()

    def on_mount(self) -> None:
        ascii_widgets(self)

    def chosen(self) -> Settings:
        lang = self.query_one("#settings-lang", Select).value
        hints = self.query_one("#settings-hints", Checkbox).value
        colours = self.query_one("#settings-colours", Select).value
        return Settings(lang=None if lang == AUTO else str(lang), hints=bool(hints),
                        theme=None if colours == AUTO else str(colours))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_save() if event.button.id == "save" else self.action_back()

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_save(self) -> None:
        app = self.app
        settings = self.chosen()
        try:
            save(settings, app.options.data_dir)
        except OSError as err:
            app.notify(t("settings.save_failed", error=str(err)), severity="error")
            return
        self.post_message(SettingsSaved(settings))


places.place("settings", SettingsScreen, menu=places.MenuEntry("title.settings", 50))
