"""The Games screen: the game in progress and the finished games, to resume, replay or delete.

Every record is replayed when listed (the scores and winner come from the engine, never
from the file's word); a record that cannot be read stays listed, marked, so it can be
deleted.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.content import Content
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.binding import Binding
from textual.widgets import Static

from ...common.i18n import shown_name, t
from ...common.untrusted import NAME_MAX, shown
from ...engine.errors import DuckError
from ...engine.game import Game
from ...saves import storage
from ...saves.record import RecordError, replay
from .. import places
from ..messages import Navigate
from ..widgets.footer import KeyFooter
from ..words import error_text
from .core import SCREENS_CSS, ConfirmScreen, answer_bindings

DATE_FORMAT = "%Y-%m-%d %H:%M"


@dataclass
class SavedGame:
    path: Path
    in_progress: bool
    saved: datetime | None
    record: dict | None = None
    game: Game | None = None
    error: str | None = None

    @property
    def readable(self) -> bool:
        return self.game is not None

    def date_text(self) -> str:
        return self.saved.strftime(DATE_FORMAT) if self.saved else "?"

    def players_text(self) -> str:
        """The names, made printable (a record is untrusted; show it as Text or Content)."""
        if self.game is not None:
            return ", ".join(self.game.names)
        players = (self.record or {}).get("players")
        seats = [p for p in players[:7] if isinstance(p, dict)] if isinstance(players, list) else []
        # The player at the keyboard in today's language, as a readable record says her ("You": "Du").
        names = [shown(p.get("name"), NAME_MAX) if isinstance(p.get("bot"), str) else shown_name(shown(p.get("name"), NAME_MAX))
                 for p in seats if p.get("name")]
        return ", ".join(names) or "?"

    def scores_text(self) -> str:
        return " / ".join(str(total) for total in self.game.totals) if self.game else "-"

    def winner_text(self) -> str:
        if self.game is None:
            return t("games.unreadable")
        outcome = self.game.outcome()
        if outcome is None:
            # The round being played, or the next one once a round has just ended.
            return t("games.in_progress", round=min(len(self.game.results) + 1, self.game.rules.rounds()))
        return ", ".join(self.game.names[s] for s in outcome.winners)


def read_saved(path: Path, in_progress: bool) -> SavedGame:
    saved = None if in_progress else storage.finished_time(path)
    try:
        if saved is None:
            saved = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
        entry = SavedGame(path, in_progress, saved)
        entry.record = storage.load(path)  # bounded, regular files only
        entry.game = replay(entry.record)
    except OSError as err:
        entry = SavedGame(path, in_progress, saved, error=str(err.strerror or err))
    except (RecordError, DuckError) as err:
        entry.error = error_text(err)
    except (TypeError, ValueError, KeyError, AttributeError) as err:  # a shape replay did not foresee
        entry.error = f"{type(err).__name__}: {err}"
    return entry


def list_saved(root: Path | None) -> list[SavedGame]:
    """The unfinished games (most recent first), then the finished ones (newest first)."""
    unfinished = storage.unfinished_paths(root)
    return ([read_saved(path, True) for path in unfinished]
            + [read_saved(path, False) for path in storage.finished_paths(root)])


class ConfirmDeleteScreen(ConfirmScreen):
    CSS_PATH = [SCREENS_CSS, "history.tcss"]

    YES, NO = "games.yes", "games.no"
    BINDINGS = answer_bindings(YES, NO)


class GamesScreen(Screen):
    """One table of saved games; Enter replays, r resumes the game in progress, d deletes."""

    BINDINGS = [
        # Priority: ahead of the table's own (silent) Enter, so the Footer names the verb.
        Binding("enter", "replay", "games.key_replay", priority=True),
        Binding("r", "resume", "games.key_resume"),
        Binding("v", "review", "review.key.review"),
        Binding("d,delete", "delete", "games.key_delete"),
        Binding("escape", "back", "games.key_back"),
    ]

    CSS_PATH = "history.tcss"
    AUTO_FOCUS = "#games-table"

    def __init__(self, root: Path | None = None) -> None:
        super().__init__()
        self.root = root
        self.entries: list[SavedGame] = []

    def compose(self) -> ComposeResult:
        yield Static(t("games.title"), id="games-title")
        from textual.widgets import DataTable  # here, not at import: the title imports this module

        yield DataTable(id="games-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="games-note")
        yield KeyFooter()

    def table(self):
        """The list of games (a DataTable)."""
        return self.query_one("#games-table")

    def on_mount(self) -> None:
        table = self.table()
        for key in ("games.date", "games.players", "games.scores", "games.winner"):
            table.add_column(t(key), key=key)
        self.reload()

    @property
    def data_root(self) -> Path | None:
        return self.root if self.root is not None else getattr(self.app, "data_root", None)

    def reload(self, keep: int | None = None) -> None:
        self.entries = list_saved(self.data_root)
        table = self.table()
        table.clear()
        for index, entry in enumerate(self.entries):
            # Text cells: a str cell of a DataTable is read as markup, and names are untrusted.
            cells = (entry.date_text(), entry.players_text(), entry.scores_text(), entry.winner_text())
            table.add_row(*(Text(shown(cell, 200)) for cell in cells), key=str(index))
        if self.entries:
            table.move_cursor(row=min(keep or 0, len(self.entries) - 1))
        self.show_note()
        self.refresh_bindings()

    @property
    def selected(self) -> SavedGame | None:
        try:
            table = self.table()
        except NoMatches:  # check_action can run while the screen is still being built
            return None
        if not self.entries or not 0 <= table.cursor_row < len(self.entries):
            return None
        return self.entries[table.cursor_row]

    def show_note(self) -> None:
        entry = self.selected
        if not self.entries:
            note = t("games.empty")
        elif entry is not None and entry.error:
            note = t("games.error", error=shown(entry.error, 300))
        else:
            note = t("games.count", count=len(self.entries))
        self.query_one("#games-note", Static).update(Content(note))  # it may quote a record: text

    def on_data_table_row_highlighted(self, _event) -> None:
        self.show_note()
        self.refresh_bindings()

    def on_data_table_row_selected(self, _event) -> None:
        self.action_replay()

    # --- actions ------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        entry = self.selected
        if action in ("replay", "review"):
            return entry is not None and entry.readable
        if action == "resume":
            return (entry is not None and entry.in_progress and entry.readable
                    and hasattr(self.app, "resume_game"))
        if action == "delete":
            return entry is not None
        return True

    def action_replay(self) -> None:
        entry = self.selected
        if entry is None or entry.record is None or not entry.readable:
            return
        from .replay import ReplayScreen, build_timeline

        try:
            timeline = build_timeline(entry.record)
        except (RecordError, DuckError) as err:
            self.app.notify(shown(t("games.error", error=error_text(err)), 400), severity="error", markup=False)
            return
        self.app.push_screen(ReplayScreen(timeline, entry.date_text()))

    def action_review(self) -> None:
        entry = self.selected
        if entry is None or entry.record is None or entry.game is None or not entry.readable:
            return
        from ...saves.record import read_players
        from .review import ReviewScreen

        self.app.push_screen(ReviewScreen(entry.game, read_players(entry.record)[1], entry.date_text()))

    def action_resume(self) -> None:
        entry = self.selected
        if entry is not None and entry.in_progress and hasattr(self.app, "resume_game"):
            self.post_message(Navigate("resume", entry.path))

    def action_delete(self) -> None:
        entry = self.selected
        if entry is None:
            return
        row = self.table().cursor_row
        question = t("games.confirm", date=entry.date_text(), players=entry.players_text())

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            try:
                storage.delete_saved(entry.path)
            except (OSError, RecordError) as err:  # RecordError: GameInUse
                error = error_text(err) if isinstance(err, RecordError) else str(err.strerror or err)
                self.app.notify(shown(t("games.delete_failed", error=error), 400), severity="error", markup=False)
                return
            self.app.notify(t("games.deleted"))
            self.reload(keep=row)

        self.app.push_screen(ConfirmDeleteScreen(question), answered)

    def action_back(self) -> None:
        self.dismiss()


places.place("games", GamesScreen, menu=places.MenuEntry("title.games", 30))
