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

import inspect
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

# Bytecode is written, whatever the environment says (PYTHONDONTWRITEBYTECODE is common in
# containers): without it every xdist worker rewrites the asserts of every test module again
# (about 6 s of CPU a worker here) and every process a test starts compiles duckcover again.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

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


# --- two tiers, by what a test does ---------------------------------------------------------
# `fast` (rules, records, codecs, units): run it on every change with `pytest -m fast`. `keys` is
# every test that starts an app (Pilot, snapshots), a process, an SSH session or a table server;
# the README's command runs both, on every core (pytest-xdist).
#
# The tier is chosen at collection from what the test uses, never from its file's name:
# - the fixtures it asks for (`snap_compare`, or a fixture of ours whose code starts one of those);
# - the names its code uses (`run_test`, `subprocess`, `asyncssh`, ...), followed into the test
#   modules' own helpers and classes, however deep;
# - `@pytest.mark.keys` (or a module's `pytestmark`), where the start is out of sight (a
#   duckcover function that starts bot processes) or the work is long (whole searches).
# A fast test cannot start one by accident: the `fast_tier_starts_nothing` guard below stops any
# process, app or SSH connection a fast test starts, and fails the test naming what it started.
KEYS_FIXTURES = {"snap_compare"}
KEYS_NAMES = {
    "app": {"run_test", "run_async", "snap_compare"},
    "process": {"subprocess", "Popen", "create_subprocess_exec", "create_subprocess_shell", "multiprocessing",
                "ProcessPoolExecutor", "fork", "forkpty", "posix_spawn", "spawnv"},
    "SSH": {"asyncssh"},
    "a table server": {"TableServer"},  # in process, but sockets, timers and whole games
}
TESTS = Path(__file__).resolve().parent


def _ours(obj) -> bool:
    """A function or class written in tests/ (the helpers worth reading into)."""
    code = getattr(obj, "__code__", None)
    if code is None and isinstance(obj, type):
        return getattr(sys.modules.get(obj.__module__), "__file__", "").startswith(str(TESTS))
    return code is not None and code.co_filename.startswith(str(TESTS))


def _code_names(code) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _code_names(const)
    return names


def _uses(obj, seen: set[int]) -> set[str]:
    """The names `obj`'s code uses, with those of every helper of ours it names (transitively)."""
    obj = inspect.unwrap(getattr(getattr(obj, "hypothesis", None), "inner_test", obj))
    obj = getattr(obj, "__func__", obj)
    if id(obj) in seen:
        return set()
    seen.add(id(obj))
    if isinstance(obj, type):
        return set().union(*(_uses(member, seen) for member in vars(obj).values() if _ours(member)))
    code = getattr(obj, "__code__", None)
    if code is None:
        return set()
    names = _code_names(code)
    found = set(names)
    spaces = [getattr(obj, "__globals__", {})]
    spaces += [vars(module) for module in (spaces[0].get(name) for name in names)
               if inspect.ismodule(module) and getattr(module, "__file__", "").startswith(str(TESTS))]
    for space in spaces:
        for name in names:
            helper = space.get(name)
            if helper is not None and helper is not obj and _ours(helper):
                found |= _uses(helper, seen)
    return found


def what_it_starts(item) -> str | None:
    """Why `item` belongs in the keys tier (an app, a process, SSH), or None."""
    used = KEYS_FIXTURES & set(item.fixturenames)
    if used:
        return f"app, by {sorted(used)[0]}"
    seen: set[int] = set()
    names = _uses(item.obj, seen)
    for name in set(item.fixturenames) - {"fast_tier_starts_nothing"}:  # (the guard names what it stops)
        for fixturedef in item._fixtureinfo.name2fixturedefs.get(name, ()):
            if _ours(fixturedef.func):
                names |= _uses(fixturedef.func, seen)
    for what, signs in KEYS_NAMES.items():
        if names & signs:
            return f"{what}, by {sorted(names & signs)[0]}"
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("keys") is None:
            item.add_marker(pytest.mark.keys if what_it_starts(item) else pytest.mark.fast)


class StartedInFastTier(AssertionError):
    pass


@pytest.fixture(autouse=True)
def fast_tier_starts_nothing(request, monkeypatch):
    """In a `fast` test, starting a process, an app or an SSH connection fails the test with one
    line saying what started and how the test says it belongs in the keys tier."""
    if request.node.get_closest_marker("fast") is None:
        yield
        return
    started: list[str] = []

    def refuse(what: str):
        def refused(*args, **kwargs):
            started.append(what)
            raise StartedInFastTier(
                f"a test of the fast tier started {what}: it belongs in the keys tier (tests/conftest.py "
                "finds that from its fixtures and the names its code uses; where it cannot see the "
                "start, say @pytest.mark.keys)")
        return refused

    import _posixsubprocess
    import subprocess

    from textual.app import App

    try:  # imported before the guard: its import looks for a library with ldconfig (a process)
        import asyncssh
    except ImportError:
        asyncssh = None
    for module, name in ((_posixsubprocess, "fork_exec"), (subprocess, "_fork_exec"), (os, "fork"), (os, "forkpty"),
                         (os, "posix_spawn"), (os, "posix_spawnp")):
        if getattr(module, name, None) is not None:
            monkeypatch.setattr(module, name, refuse(f"a process ({module.__name__}.{name})"))
    for name in ("run", "run_async", "run_test"):
        monkeypatch.setattr(App, name, refuse(f"an app (App.{name})"))
    for name in ("connect", "listen", "create_server", "create_connection"):
        if asyncssh is not None and hasattr(asyncssh, name):
            monkeypatch.setattr(asyncssh, name, refuse(f"an SSH connection (asyncssh.{name})"))
    yield
    if started:  # even where the test caught the error and went on
        pytest.fail(f"a test of the fast tier started {started[0]}: it belongs in the keys tier "
                    "(@pytest.mark.keys, or a fixture or name tests/conftest.py sees)", pytrace=False)
