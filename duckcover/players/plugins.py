"""Finding and loading bots: one mechanism for the built-in bots and everybody else's.

A bot spec is one of
  - a name registered in the `duckcover.bots` entry-point group (`random`, `greedy`, ...),
  - a difficulty (`easy`, `novice`, `casual`, `medium`, `hard`; see duckcover.players.difficulty),
  - `package.module:Class`, importable from sys.path,
  - `path/to/file.py:Class` (or just `path/to/file.py` when the file defines one Bot).

The built-in bots are not special: they ship in this distribution's top-level `bots/`
folder (installed as `duckcover_bots`) and are registered as entry points in pyproject.toml.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import NamedTuple

from ..engine.errors import DuckError
from .bot import Bot
from .difficulty import DIFFICULTIES

GROUP = "duckcover.bots"
BUILTIN_PACKAGE = "duckcover_bots"  # where this distribution's own bots live
# This distribution's own entry points, as pyproject.toml declares them (a test holds the two
# equal): a built-in bot is found without reading every installed distribution's metadata
# (importlib.metadata and its scan were tens of milliseconds of `duckcover play`'s launch).
# No other distribution's entry point of the same name shadows one of them.
BUILTIN_BOTS: dict[str, str] = {
    "random": "duckcover_bots.random_bot:RandomBot",
    "greedy": "duckcover_bots.greedy:GreedyBot",
    "expert": "duckcover_bots.expert:ExpertBot",
    "novice": "duckcover_bots.ladder:NoviceBot",
    "casual": "duckcover_bots.ladder:CasualBot",
    "master": "duckcover_bots.master:MasterBot",
}


class BotLoadError(DuckError):
    """A bot spec that names nothing loadable; the message is one line for the user."""


class BotInfo(NamedTuple):
    name: str
    description: str
    source: str  # "entry point random (duckcover 0.1.0)", "module x.y", "file a/b.py"
    error: str | None = None  # why it cannot be loaded, for `duckcover bots`


_PRIMED: dict | None = None  # a bot process reads the entry points once, before its walls


def registered() -> dict:
    """Entry points of the `duckcover.bots` group by name (first distribution wins, but never
    over a built-in bot's name: see BUILTIN_BOTS)."""
    if _PRIMED is not None:
        return _PRIMED
    from importlib.metadata import entry_points

    found: dict = {}
    for ep in entry_points(group=GROUP):
        if ep.name not in found or BUILTIN_BOTS.get(ep.name) == ep.value:
            found[ep.name] = ep
    return found


def prime_registry() -> None:
    """Keep the entry points as they are now (a bot process, before its walls close the
    folders the metadata lies in)."""
    global _PRIMED
    _PRIMED = None
    _PRIMED = registered()


def _entry_point_source(ep) -> str:
    dist = getattr(ep, "dist", None)
    where = f"{dist.metadata['Name']} {dist.version}" if dist is not None else "unknown distribution"
    return f"entry point {ep.name} = {ep.value} ({where})"


def available_bots() -> list[BotInfo]:
    """Every registered bot, sorted by name; one that fails to load is listed with its error."""
    infos = []
    for name, ep in sorted(registered().items()):
        source = _entry_point_source(ep)
        try:
            cls = _check_class(ep.load(), name)
        except BotLoadError as err:
            infos.append(BotInfo(name, "", source, str(err)))
        except Exception as err:  # noqa: BLE001 - somebody else's package: report, don't crash
            infos.append(BotInfo(name, "", source, _describe(err)))
        else:
            infos.append(BotInfo(name, _one_line(cls.description), source))
    return infos


def load_bot_class(spec: str) -> tuple[type[Bot], str]:
    """The Bot subclass a spec names and where it came from; BotLoadError otherwise."""
    if not isinstance(spec, str) or not spec.strip():
        raise BotLoadError("empty bot spec")
    spec = spec.strip()
    spec = DIFFICULTIES.get(spec, spec)
    target, attr = spec, ""
    head, sep, tail = spec.rpartition(":")
    if sep and not _looks_like_file(tail):  # "C:\\bots\\x.py" is a path, not module "C"
        target, attr = head, tail
    if _looks_like_file(target):
        return _from_file(target, attr or None)
    if attr or "." in target:
        return _from_module(target, attr), f"module {target}"
    return _from_entry_point(target)


def is_builtin(spec: str) -> bool:
    """A bot that comes with duckcover (by name or difficulty): it may run in the game's process."""
    if not isinstance(spec, str):
        return False
    return DIFFICULTIES.get(spec.strip(), spec.strip()) in BUILTIN_BOTS


def is_installed(spec: str) -> bool:
    """A name the installation knows: a difficulty or an entry point (code the player installed).
    Never a file or a module path, which is all a saved game's label could otherwise make run."""
    if not isinstance(spec, str):
        return False
    name = DIFFICULTIES.get(spec.strip(), spec.strip())
    return name in BUILTIN_BOTS or (name.isidentifier() and name in registered())


def resolve_bot(spec: str, seed: int = 0, budget: int | None = None, time_limit: float | None = None) -> Bot:
    """A ready bot for a spec or a difficulty name; BotLoadError says why not."""
    return instantiate(load_bot_class(spec)[0], spec, seed, budget, time_limit)


def instantiate(cls: type[Bot], spec: str, seed: int = 0, budget: int | None = None, time_limit: float | None = None) -> Bot:
    """A bot of an already loaded class (what resolve_bot does after loading)."""
    try:
        bot = cls(seed=seed, budget=budget)
    except Exception as err:  # noqa: BLE001 - a third-party constructor may fail any way it likes
        raise BotLoadError(f"bot {spec!r}: cannot create {cls.__name__}: {_describe(err)}") from None
    if time_limit is not None:
        bot.time_limit = time_limit
    return bot


# --- the three ways in ---------------------------------------------------------------------------
def _from_entry_point(name: str) -> tuple[type[Bot], str]:
    if name in BUILTIN_BOTS:
        return _builtin(name)
    eps = registered()
    ep = eps.get(name)
    if ep is None:
        known = ", ".join(sorted(set(eps) | set(DIFFICULTIES))) or "none"
        raise BotLoadError(f"unknown bot {name!r} (known: {known}; or use package.module:Class or file.py:Class)")
    try:
        obj = ep.load()
    except Exception as err:  # noqa: BLE001
        raise BotLoadError(f"bot {name!r} ({ep.value}): cannot load: {_describe(err)}") from None
    return _check_class(obj, name), _entry_point_source(ep)


def _builtin(name: str) -> tuple[type[Bot], str]:
    """A built-in bot, loaded as its entry point would be, and said the same way."""
    from .. import __version__

    value = BUILTIN_BOTS[name]
    module_name, _, attr = value.partition(":")
    try:
        obj = getattr(importlib.import_module(module_name), attr)
    except Exception as err:  # noqa: BLE001
        raise BotLoadError(f"bot {name!r} ({value}): cannot load: {_describe(err)}") from None
    return _check_class(obj, name), f"entry point {name} = {value} (duckcover {__version__})"


def _from_module(module_name: str, attr: str) -> type[Bot]:
    if not attr:
        raise BotLoadError(f"bot {module_name!r}: say which class, as {module_name}:ClassName")
    try:
        module = importlib.import_module(module_name)
    except Exception as err:  # noqa: BLE001 - the module's own import errors included
        raise BotLoadError(f"bot '{module_name}:{attr}': cannot import {module_name}: {_describe(err)}") from None
    if not hasattr(module, attr):
        raise BotLoadError(f"bot '{module_name}:{attr}': module {module_name} has no {attr}")
    return _check_class(getattr(module, attr), f"{module_name}:{attr}")


def _from_file(path_text: str, attr: str | None) -> tuple[type[Bot], str]:
    path = Path(path_text).expanduser()
    label = f"{path_text}:{attr}" if attr else path_text
    if not path.is_file():
        raise BotLoadError(f"bot {label!r}: no such file {path_text}")
    resolved = path.resolve()
    # One module per file, under a private name, so loading the same file twice reuses it.
    import hashlib

    name = "duckcover_file_bot_" + hashlib.sha1(str(resolved).encode()).hexdigest()[:12]
    module = sys.modules.get(name)
    if module is None:
        module_spec = importlib.util.spec_from_file_location(name, resolved)
        if module_spec is None or module_spec.loader is None:
            raise BotLoadError(f"bot {label!r}: {path_text} is not a Python file")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        try:
            module_spec.loader.exec_module(module)
        except Exception as err:  # noqa: BLE001 - syntax errors, import errors, anything
            del sys.modules[name]
            raise BotLoadError(f"bot {label!r}: cannot load {path_text}: {_describe(err)}") from None
    if attr:
        if not hasattr(module, attr):
            raise BotLoadError(f"bot {label!r}: {path_text} has no {attr}")
        return _check_class(getattr(module, attr), label), f"file {resolved}"
    defined = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj) and issubclass(obj, Bot) and obj is not Bot and obj.__module__ == name
    ]
    if len(defined) != 1:
        what = "no Bot subclass" if not defined else f"{len(defined)} Bot classes"
        raise BotLoadError(f"bot {label!r}: {path_text} defines {what}; name one as {path_text}:ClassName")
    return defined[0], f"file {resolved}"


# --- helpers --------------------------------------------------------------------------------------
def _looks_like_file(target: str) -> bool:
    return target.endswith(".py") or "/" in target or "\\" in target


def _check_class(obj: object, label: str) -> type[Bot]:
    if not (inspect.isclass(obj) and issubclass(obj, Bot)):
        raise BotLoadError(f"bot {label!r}: {obj!r} is not a subclass of duckcover.players.bot.Bot")
    if obj.choose is Bot.choose:
        raise BotLoadError(f"bot {label!r}: {obj.__name__} does not define choose(view)")
    return obj


def _describe(err: BaseException) -> str:
    text = _one_line(str(err))
    described = f"{type(err).__name__}: {text}" if text else type(err).__name__
    moved = moved_to(err.name) if isinstance(err, ModuleNotFoundError) and err.name else None
    return f"{described} ({err.name} moved to {moved}: import it from there)" if moved else described


# The rooms (README.md): where a top-level module of an older duckcover lives now.
ROOMS = ("engine", "common", "players", "saves")


def moved_to(module: str) -> str | None:
    """`duckcover.cards` -> `duckcover.engine.cards`: the new home of a module a bot written for an
    older duckcover imports; None if it is not one that moved."""
    import importlib.util

    parts = module.split(".")
    if len(parts) != 2 or parts[0] != "duckcover":
        return None
    for room in ROOMS:
        home = f"duckcover.{room}.{parts[1]}"
        try:
            if importlib.util.find_spec(home) is not None:
                return home
        except ImportError:
            continue
    return None


def _one_line(text: object) -> str:
    lines = str(text or "").strip().splitlines()
    return lines[0].strip() if lines else ""


# --- versions, for the ratings ----------------------------------------------------------------
def bot_version(spec: str) -> str | None:
    """The version a bot spec plays as, for the ratings (a changed bot is a new entry): a built-in
    bot's `version` attribute; an installed plugin's distribution version; a file's or module's
    source hash (`sha256:` and 16 hex digits). Never imports a bot that is not built in (those
    run in their own process). None when it cannot be told."""
    if not isinstance(spec, str) or not spec.strip():
        return None
    spec = spec.strip()
    name = DIFFICULTIES.get(spec, spec)
    try:
        if is_builtin(spec):
            cls = load_bot_class(name)[0]
            return str(cls.version) if cls.version is not None else _source_hash(inspect.getsourcefile(cls))
        ep = registered().get(name) if name.isidentifier() else None
        if ep is not None:
            dist = getattr(ep, "dist", None)
            return f"{dist.metadata['Name']}-{dist.version}" if dist is not None else None
        target = name.rpartition(":")[0] if ":" in name and not _looks_like_file(name.rpartition(":")[2]) else name
        if _looks_like_file(target):
            return _source_hash(Path(target).expanduser())
        return _source_hash(_module_file(target))
    except (BotLoadError, OSError, TypeError, ValueError):
        return None


def stamp_bot_versions(record: dict) -> dict:
    """Write each bot seat's `bot_name` (what its label stands for: `hard` -> `expert`) and
    `bot_version` (see bot_version) into the record's players: who the ratings rate."""
    for player in record.get("players", []):
        if isinstance(player, dict) and isinstance(player.get("bot"), str):
            name, version = _cached_identity(player["bot"])
            player["bot_name"] = name
            if version is not None:
                player["bot_version"] = version
    return record


_IDENTITIES: dict[str, tuple[str, str | None]] = {}


def bot_identity(spec: str) -> tuple[str, str | None]:
    """(name, version) a bot spec is rated as: a difficulty is the bot it stands for."""
    if spec not in _IDENTITIES:
        # A game saves its record every turn; a bot's code does not change under a running game.
        _IDENTITIES[spec] = (DIFFICULTIES.get(spec.strip(), spec.strip()), bot_version(spec))
    return _IDENTITIES[spec]


_cached_identity = bot_identity


def _source_hash(path) -> str | None:
    import hashlib

    if path is None:
        return None
    return "sha256:" + hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def _module_file(module_name: str) -> Path | None:
    """Where a module's source is, found on sys.path without importing anything."""
    parts = module_name.split(".")
    for entry in sys.path:
        base = Path(entry or ".").joinpath(*parts)
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None
