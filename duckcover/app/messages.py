"""What a screen asks of the app. Screens post these and never build one another: the app
decides which screen comes next (so no screen module imports another screen module)."""
from __future__ import annotations

from pathlib import Path

from textual.message import Message

from ..engine.rules import Rules
from ..saves.settings import Settings
from . import places
from .options import SeatSpec


def __getattr__(name: str):
    """PLACES: where `Navigate` can lead, the names the screen modules declare (see places)."""
    if name == "PLACES":
        return places.names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Navigate(Message):
    """Go to one of the places the screen modules declare (see places): the title, the set-up for
    a new game, the game to resume (`game`: its file; None: the app offers the unfinished games,
    or resumes the only one)..."""

    def __init__(self, place: str, game: Path | None = None) -> None:
        if place not in places.names():
            raise ValueError(f"unknown place {place!r}")
        super().__init__()
        self.place, self.game = place, game


class StartGame(Message):
    """The set-up screen's table: start this game."""

    def __init__(self, seats: list[SeatSpec], rules: Rules, seed: int | None, handover: bool) -> None:
        super().__init__()
        self.seats, self.rules, self.seed, self.handover = seats, rules, seed, handover


class SettingsSaved(Message):
    """The player saved these settings (they are on disk): the app puts them in force."""

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings
