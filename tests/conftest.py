"""What every test runs under: the published defaults, whatever the user has configured,
and Hypothesis runs that come back the same.

Hypothesis profiles (choose with HYPOTHESIS_PROFILE=NAME):
- `ci` (the default): derandomized, so a failure seen once is seen on every run; no deadline
  (a loaded machine must not turn a slow example into a failure); no example database.
- `thorough`: random and ten times as many examples, for a search on demand:
  `HYPOTHESIS_PROFILE=thorough .venv/bin/python -m pytest tests/test_properties.py`.
A property states its example count for `ci` through `helpers.examples(n)`, which scales it
with the profile.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, max_examples=100, deadline=None, database=None, print_blob=True)
settings.register_profile("thorough", max_examples=1000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The user's own configuration that would change what the tests see.
USER_SETTINGS = ("DUCKCOVER_SPLASHES", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "LC_ALL", "LC_MESSAGES", "NO_COLOR")


def _isolate(set_env, del_env, home: Path) -> None:
    """HOME, the XDG directories and DUCKCOVER_DATA inside `home`; no user overrides; English."""
    for name in USER_SETTINGS:
        del_env(name)
    set_env("HOME", str(home))
    set_env("XDG_CONFIG_HOME", str(home / ".config"))
    set_env("XDG_DATA_HOME", str(home / ".local" / "share"))
    set_env("DUCKCOVER_DATA", str(home / "data"))
    set_env("LANG", "C.UTF-8")


_SESSION_HOME = Path(tempfile.mkdtemp(prefix="duckcover-tests-"))


def pytest_configure(config):
    # Before any test module is imported: a Rules() built at import time must see the defaults too.
    _isolate(os.environ.__setitem__, lambda name: os.environ.pop(name, None), _SESSION_HOME)


def pytest_unconfigure(config):
    shutil.rmtree(_SESSION_HOME, ignore_errors=True)


@pytest.fixture(autouse=True)
def published_defaults(tmp_path_factory, monkeypatch):
    """Each test gets its own empty home and data directory, and the packaged splash table."""
    from duckcover.common.i18n import DEFAULT, set_language
    from duckcover.engine.cards import default_splashes

    _isolate(monkeypatch.setenv, lambda name: monkeypatch.delenv(name, raising=False),
             tmp_path_factory.mktemp("home"))
    default_splashes.cache_clear()  # it may have read a user's table before the session began
    set_language(DEFAULT)
    yield
    default_splashes.cache_clear()


# Two tiers. `fast` (engine, records, codecs, units; under a minute): run it on every change with
# `pytest -m fast`. `keys` (whole games by keys, the app, SSH sessions, snapshots) is the rest.
# The README's command runs both, on every core (pytest-xdist). A module joins the keys tier by
# its name, so a new app or server test file lands there without a list to keep; a test (or a
# module, with `pytestmark`) elsewhere that starts processes or an app says `@pytest.mark.keys`.
KEYS_TIER = ("test_app_", "test_serve_", "_app", "snapshot", "test_lean_output", "textual")


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.path.stem
        if item.get_closest_marker("keys") is None:
            keys = any(part in module for part in KEYS_TIER)
            item.add_marker(pytest.mark.keys if keys else pytest.mark.fast)
