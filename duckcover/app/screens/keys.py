"""The Keys screen: the keys of the whole app and of every place (see places) with a name, the
table and each screen of the title menu, and of the screens that come at a moment of play
(MOMENTS: the round end, Game over, the review, the lobby...), read from their class-level
BINDINGS and said in the language of the moment, so the list never falls behind a screen's
keys. Reached from the title menu (or `k` there).
"""
from __future__ import annotations

from collections.abc import Iterable

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from ...common.i18n import t
from .. import places
from ..widgets.core import described
from ..widgets.footer import KeyFooter
from .core import SCREENS_CSS


class KeysScreen(Screen):
    CSS_PATH = SCREENS_CSS  # the headings
    DEFAULT_CSS = """
    #keys { padding: 0 2; }
    """
    BINDINGS = [Binding("escape", "back", "key.back")]
    AUTO_FOCUS = "#keys"  # the list scrolls by the cursor keys, Page Up/Down, Home and End

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="keys"):
            yield Static(t("keys.title"), classes="heading")
            yield Static(t("keys.note"), classes="dim")
            for heading, rows in key_sections(self.app):
                yield Static(Text(heading), classes="heading")
                yield Static(key_table(rows))
        yield KeyFooter()

    def action_back(self) -> None:
        self.app.pop_screen()


# Screens that are no place of their own but come when their moment does (over the table, from
# the Games screen, in an SSH session), with keys a player needs as much: (heading, module of
# duckcover.app.screens, screen class). Imported only when the Keys screen opens.
MOMENTS = (
    ("keys.round_end", "core", "RoundEndScreen"),
    ("keys.game_over", "core", "GameOverScreen"),
    ("keys.handover", "handover", "HandoverScreen"),
    ("keys.quit_question", "core", "QuitScreen"),
    ("keys.replay", "replay", "ReplayScreen"),
    ("keys.review", "review", "ReviewScreen"),
    ("keys.lobby", "lobby", "LobbyScreen"),
    ("keys.create_table", "lobby", "CreateTableScreen"),
    ("keys.waiting", "lobby", "WaitingScreen"),
)


def key_sections(app) -> list[tuple[str, list[tuple[str, str]]]]:
    """(heading, rows): the whole app's keys; then each place that has a name and no menu line
    (the table); the screens of the moments; the title menu's own keys; then each place of the
    title menu, in its order. A part without a described key is left out."""
    menu = places.menu()
    elsewhere = [p for p in places.places().values() if p.menu is None and p.heading]
    sections = [(t("keys.everywhere"), key_rows(app, type(app).BINDINGS))]
    sections += [(t(p.heading), key_rows(app, p.bindings())) for p in elsewhere]
    sections += moment_sections(app, MOMENTS)
    sections.append((t("keys.title_menu"), [(app.get_key_display(Binding(p.menu.key, "")), t(p.menu.label))
                                            for p in menu if p.menu.key]))
    sections += [(t(p.heading), key_rows(app, p.bindings())) for p in menu]
    return [(heading, rows) for heading, rows in sections if rows]


def moment_sections(app, moments) -> list[tuple[str, list[tuple[str, str]]]]:
    from importlib import import_module

    return [(t(heading), key_rows(app, getattr(import_module(f"{__package__}.{module}"), name).BINDINGS))
            for heading, module, name in moments]


class _Blanks(dict):
    """A label's blanks as the Keys screen says them: "I am {name}" is "I am …" there."""

    def __missing__(self, key: str) -> str:
        return "…"


def key_rows(app, bindings: Iterable[BindingType]) -> list[tuple[str, str]]:
    """(keys, what they do) for each described binding, the keys of one description together
    ("esc / ? / q") in the order bound; keys without a description (scrolling...) are left out."""
    keys_of: dict[str, list[str]] = {}
    for binding in Binding.make_bindings(bindings):
        if not binding.description:
            continue
        keys = keys_of.setdefault(described(binding.description).format_map(_Blanks()), [])
        shown = app.get_key_display(binding)
        if shown not in keys:  # the table's jump letters all show as "abc"
            keys.append(shown)
    return [(" / ".join(keys), label) for label, keys in keys_of.items()]


def key_table(rows: list[tuple[str, str]]) -> Table:
    """Two columns, the keys then what they do: cells are Text, never markup ("[" is a key)."""
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True, min_width=12)
    table.add_column()
    for keys, label in rows:
        table.add_row(Text(keys, style="bold"), Text(label))
    return table


places.place("keys", KeysScreen, menu=places.MenuEntry("title.keys", 70, key="k"))
