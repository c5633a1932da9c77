"""The Textual app. `create_app(options)` is the one way in, for the CLI and the tests alike."""
from __future__ import annotations

import gc
from functools import cache

from ..common import i18n
from .options import AppOptions, SeatSpec, quick_seats


@cache
def freeze_imports() -> None:
    """Move everything the imports made (modules, classes, functions: it lives as long as the
    process) out of the garbage collector's sight, once. Otherwise the first full collection
    walks all of Textual while the first frame is being built (about 12 ms at launch)."""
    gc.freeze()


def create_app(options: AppOptions | None = None):
    """A ready DuckCoverApp for these options (language set before any screen is built:
    `--lang`, else the saved settings, else the locale)."""
    options = options or AppOptions()
    from ..saves.settings import load

    settings, problem = load(options.data_dir)  # a broken file: defaults, and a notice in the app
    i18n.set_language(options.lang or settings.lang or i18n.detect())
    from .app import DuckCoverApp

    freeze_imports()
    app = DuckCoverApp(options)
    app.settings, app.settings_problem = settings, problem
    return app


__all__ = ["AppOptions", "SeatSpec", "create_app", "quick_seats"]
