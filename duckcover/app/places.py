"""Where a screen can lead (`messages.Navigate`): every place, declared by the screen modules
themselves, and the title menu made from those declarations.

A module of `duckcover.app.screens` declares its place when it is imported:

    place("games", GamesScreen, menu=MenuEntry("title.games", order=30))

The registry is filled once, when first asked, by importing every module of that package (and
the app module, which declares the table): our own modules, never a name read from a file or a
setting. So a new screen is its module, its locale lines and its test; the app, `messages` and
the title menu need no edit.
"""
from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SCREENS_PACKAGE = "duckcover.app.screens"
APP_MODULE = "duckcover.app.app"  # declares the table, whose package sits above the screens

# What going to a place does, given the app and the game `Navigate` named (only "resume" uses it).
Opener = Callable[[object, Path | None], object]


class DuplicatePlace(ValueError):
    """Two declarations of one place: the second module fails at import, naming both."""


@dataclass(frozen=True)
class MenuEntry:
    label: str  # UI text key of its line in the title menu
    order: int  # the menu's lines go in increasing order
    key: str | None = None  # a key that leads there from the title, as Textual names it ("k")
    # Given the data folder: whether the line can be chosen now (None: always). Asked when the
    # title shows and whenever it shows again.
    offered: Callable[[Path | None], bool] | None = None


@dataclass(frozen=True)
class Place:
    name: str
    screen: type | None  # the screen it opens, if one
    go: Opener
    menu: MenuEntry | None
    module: str  # who declared it (said when a name is declared twice)
    title: str | None = None  # UI text key naming the place where no menu line does
    # Widgets that take the keyboard there: their class-level BINDINGS are the place's keys too.
    widgets: tuple[type, ...] = ()

    @property
    def heading(self) -> str | None:
        """UI text key of what the place is called: its own title, else its menu line."""
        return self.title or (self.menu.label if self.menu else None)

    def bindings(self) -> list:
        """Every key bound there, the screen's then its widgets' (as declared: BindingType)."""
        classes = ((self.screen,) if self.screen else ()) + self.widgets
        return [binding for cls in classes for binding in cls.BINDINGS]


_places: dict[str, Place] = {}
_filled = False


def pushes(screen: type) -> Opener:
    """The usual way there: the screen, built without arguments, over the current one."""
    return lambda app, game: app.push_screen(screen())


def place(name: str, screen: type | None = None, *, go: Opener | None = None, menu: MenuEntry | None = None,
          title: str | None = None, widgets: tuple[type, ...] = ()) -> Place:
    """Declare `name`: it opens `screen` (pushed over the current one unless `go` says otherwise).
    DuplicatePlace if another declaration has the name already."""
    if go is None:
        if screen is None:
            raise TypeError(f"place {name!r}: a screen or a way to go there (go=) is needed")
        go = pushes(screen)
    module = getattr(screen or go, "__module__", "?")
    if name in _places:
        raise DuplicatePlace(f"place {name!r} is declared twice: by {_places[name].module} and by {module}")
    declared = Place(name, screen, go, menu, module, title, widgets)
    _places[name] = declared
    return declared


def fill() -> None:
    """Import the app module and every module of the screens package once: each declares its places."""
    global _filled
    if _filled:
        return
    importlib.import_module(APP_MODULE)
    package = importlib.import_module(SCREENS_PACKAGE)
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{SCREENS_PACKAGE}.{module.name}")
    _filled = True


def places() -> dict[str, Place]:
    """Every place, by name (in the order the modules declared them)."""
    fill()
    return dict(_places)


def names() -> tuple[str, ...]:
    return tuple(places())


def find(name: str) -> Place:
    """The place called `name`; KeyError if none is."""
    return places()[name]


def menu() -> list[Place]:
    """The title menu's places, in its order."""
    return sorted((p for p in places().values() if p.menu is not None), key=lambda p: (p.menu.order, p.name))
