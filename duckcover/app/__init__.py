"""The Textual app. `create_app(options)` is the one way in, for the CLI and the tests alike."""
from __future__ import annotations

from .. import i18n
from .options import AppOptions, SeatSpec, quick_seats


def create_app(options: AppOptions | None = None):
    """A ready DuckCoverApp for these options (language set before any screen is built)."""
    options = options or AppOptions()
    i18n.set_language(options.lang or i18n.detect())
    from .app import DuckCoverApp

    return DuckCoverApp(options)


__all__ = ["AppOptions", "SeatSpec", "create_app", "quick_seats"]
