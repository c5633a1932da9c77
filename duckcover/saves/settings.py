"""The player's settings (language, hints, colours), kept as JSON in the data directory.

`load()` never raises: a missing file gives the defaults, a broken one gives the defaults and
a one-line reason the app shows as a notice. `save()` writes atomically.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from ..common import i18n
from .paths import data_dir

FILE_NAME = "settings.json"
SETTINGS_MAX = 64 * 1024  # bytes: the file holds three short values


# The colour schemes a player may pick: setting -> Textual theme. The ANSI ones use the
# terminal's own 16 colours (a light or dark terminal palette, as the player set it up).
THEMES = {"dark": "textual-dark", "light": "textual-light", "ansi-dark": "ansi-dark", "ansi-light": "ansi-light"}


@dataclass(frozen=True)
class Settings:
    lang: str | None = None  # None: --lang or the locale decides
    hints: bool = True  # the hint key at the table; off for serious games
    theme: str | None = None  # a THEMES key; None: automatic (ANSI on a 16-colour terminal)


def settings_path(root: Path | None = None) -> Path:
    return (root or data_dir()) / FILE_NAME


def load(root: Path | None = None) -> tuple[Settings, str | None]:
    """The saved settings and, if the file was unreadable, why (the defaults are used then)."""
    from ..common.files import read_bounded, why
    from ..common.untrusted import excerpt, shown

    path = settings_path(root)
    try:
        raw = read_bounded(path, SETTINGS_MAX)
    except FileNotFoundError:
        return Settings(), None
    except OSError as err:
        return Settings(), f"{path}: {why(err)}"
    try:
        data = json.loads(raw.decode("utf-8"))  # UnicodeDecodeError is a ValueError too
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        lang = data.get("lang")
        if lang is not None and lang not in i18n.LANGUAGES:
            raise ValueError(f"unknown language {excerpt(lang)}")
        hints = data.get("hints", True)
        if not isinstance(hints, bool):
            raise ValueError("hints must be true or false")
        theme = data.get("theme")
        if theme is not None and theme not in THEMES:
            raise ValueError(f"unknown colours {excerpt(theme)} (known: {', '.join(THEMES)})")
    except (ValueError, RecursionError) as err:  # json.JSONDecodeError is a ValueError
        return Settings(), f"{path}: {shown(str(err), 120)}"
    return Settings(lang=lang, hints=hints, theme=theme), None


def save(settings: Settings, root: Path | None = None) -> Path:
    from ..common.files import atomic_write

    path = settings_path(root)
    atomic_write(path, json.dumps(asdict(settings), indent=2) + "\n", durable=True)
    return path
