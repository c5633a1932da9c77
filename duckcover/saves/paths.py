"""Where duckcover keeps the user's files (saved games, statistics).

One function so every part of the app agrees: `$DUCKCOVER_DATA` when set (tests point it at
a temporary directory; a user can move everything elsewhere), else the platform's user data
directory (`~/.local/share/duckcover` on Linux).
"""
from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "DUCKCOVER_DATA"


def data_dir() -> Path:
    """The data directory. Not created here: whoever writes into it creates it."""
    override = os.environ.get(ENV_VAR, "").strip()
    if override:
        return Path(override).expanduser()
    try:
        from platformdirs import user_data_dir  # installed with Textual
    except ImportError:  # pragma: no cover - engine used without Textual
        return Path.home() / ".local" / "share" / "duckcover"
    return Path(user_data_dir("duckcover", appauthor=False))
