"""Bots you did not write, each in a process of its own, speaking a small protocol over pipes.

Protocol `duckcover-bot/1` (docs/bots.md has the full text, so a bot can be written in any
language): one JSON object per line in each direction. The parent sends requests
(`{"do": "new" | "start_game" | "start_round" | "observe" | "choose", ...}`); the bot answers
each with exactly one line, in order: `{"ok": true, ...}` or `{"ok": false, "error": "..."}`.
Before the first request the bot says hello (`{"protocol": "duckcover-bot/1", "ok": true,
"name": ..., ...}`). Views travel as plain data: no object of the parent ever reaches the bot,
and the move it sends back is rebuilt and checked by the Referee.

The process has no terminal: standard input is /dev/null, standard output and error go to a
file only the parent reads (bounded by RLIMIT_FSIZE), and it runs in a session of its own.
Its address space is capped (RLIMIT_AS), the parent enforces the wall-clock limit by killing
it (and starting a fresh one), and it dies with the parent (PR_SET_PDEATHSIG on Linux, and
end of input everywhere).
"""
from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from collections import deque
from pathlib import Path
from typing import Any

from ..engine.codec import (decode_call, decode_card, decode_card_move, decode_cell, decode_turn, encode_call, encode_card,
                    encode_card_move, encode_cell, encode_turn)
from ..engine.errors import ParseError
from .confine import Protections, available, private_paths, readable_paths

PROTOCOL = "duckcover-bot/1"
MEMORY_LIMIT = 1 << 30  # bytes of address space a bot process may use (1 GiB)
OUTPUT_LIMIT = 64 << 10  # bytes of output (stdout + stderr) a bot process may write
STARTUP_LIMIT = 30.0  # seconds for a bot process to start and load its bot
MAX_LINE = 64 << 10  # bytes in one answer line: a move, a hello or an error is far less
MAX_DEPTH = 8  # nesting of one answer: a move inside the answer, its card and cell inside that: 3
MAX_THREADS = 64  # threads a bot process may run at once (a thread pool, not a flood)
THREAD_LOOK = 0.05  # seconds between looks at a bot's thread count while its answer is awaited
MAX_RESTARTS = 3  # per game: then the seat plays fallback moves to the end
SHOWN_OUTPUT = 2000  # bytes of a bot's output read for a notice
SHOWN_LINES = 3  # lines of it shown


# --- plain data: what crosses the pipe ------------------------------------------------------------
# Cards, moves and turns cross the pipe in the codec's shapes (duckcover.engine.codec).
card_data, move_data, turn_data = encode_card, encode_card_move, encode_turn


def view_data(view) -> dict:
    """A PlayerView as plain JSON-ready data (the protocol's `view`)."""
    return {**_own_view_data(view), "rules": view.rules.to_json(), "grids": [grid_data(grid) for grid in view.grids],
            "history": [turn_data(t) for t in view.history]}


def grid_data(grid) -> list:
    return [[x, y, [card_data(c) for c in stack]] for (x, y), stack in grid.cells.items()]


def _own_view_data(view) -> dict:
    """The view's fields but those ViewEncoder encodes once (rules, grids, history)."""
    return {
        "seat": view.seat,
        "names": list(view.names),
        "round_index": view.round_index,
        "rounds": view.rounds,
        "captain": view.captain,
        "phase": view.phase.value,
        "call": encode_call(view.call),
        "flips": list(view.flips),
        "captain_pile_top": view.captain_pile_top,
        "discard": list(view.discard),
        "discard_limit": view.discard_limit,
        "draw_size": view.draw_size,
        "totals": list(view.totals),
        "round_scores": [list(s) for s in view.round_scores],
        "candidates": [[card_data(c), encode_cell(cell)] for c, cell in view.candidates],
        "received": None if view.received is None else [card_data(view.received[0]), view.received[1]],
    }


class ViewEncoder:
    """view_data(view) as compact JSON text, encoding each rules, grid and history turn once.

    The engine shares these objects between views (a grid is replaced when it changes, the
    history only grows), so a view costs the encoding of what changed plus a join; every
    process bot at the table and every request of a turn reuse the same texts.
    """

    MAX_KEPT = 4096  # texts kept; past that the cache starts afresh (a very long session)

    def __init__(self) -> None:
        self._texts: dict[int, tuple[object, str]] = {}  # id -> (the object, kept so the id stays its, text)

    def _text(self, item, to_data) -> str:
        kept = self._texts.get(id(item))
        if kept is None or kept[0] is not item:
            if len(self._texts) >= self.MAX_KEPT:
                self._texts.clear()
            kept = self._texts[id(item)] = (item, _compact(to_data(item)))
        return kept[1]

    def encode(self, view) -> str:
        text = self._text
        return "".join((
            _compact(_own_view_data(view))[:-1],
            ',"rules":', text(view.rules, lambda rules: rules.to_json()),
            ',"grids":[', ",".join(text(grid, grid_data) for grid in view.grids),
            '],"history":[', ",".join(text(turn, turn_data) for turn in view.history), "]}",
        ))


def _compact(data) -> str:
    return json.dumps(data, separators=(",", ":"))


def view_from_data(data: dict):
    """The PlayerView a bot gets from the protocol's `view` (in the bot's own process)."""
    from ..engine.moves import Phase
    from ..engine.rules import Rules
    from ..engine.view import PlayerView, grid_view

    rules = data["rules"]
    received = data["received"]
    return PlayerView(
        seat=data["seat"],
        names=tuple(data["names"]),
        rules=Rules(max_by=rules["max_by"], captain=rules["captain"], variants=frozenset(rules["variants"]),
                    splashes=tuple(rules["splashes"])),
        round_index=data["round_index"],
        rounds=data["rounds"],
        captain=data["captain"],
        phase=Phase(data["phase"]),
        call=decode_call(data["call"]),
        flips=tuple(data["flips"]),
        grids=tuple(grid_view({(x, y): tuple(decode_card(c) for c in stack) for x, y, stack in grid})
                    for grid in data["grids"]),
        captain_pile_top=data["captain_pile_top"],
        discard=tuple(data["discard"]),
        discard_limit=data["discard_limit"],
        draw_size=data["draw_size"],
        totals=tuple(data["totals"]),
        round_scores=tuple(tuple(s) for s in data["round_scores"]),
        history=tuple(decode_turn(t) for t in data["history"]),
        candidates=tuple((decode_card(c), None if cell is None else decode_cell(cell)) for c, cell in data["candidates"]),
        received=None if received is None else (decode_card(received[0]), received[1]),
    )


def move_from_data(data: Any):
    """A bot's answer (`move` of a choose reply) as a Move of engine values; MalformedMove if it
    is not one. Legality is the Referee's to check."""
    from .answers import MalformedMove

    try:
        return decode_card_move(data)
    except ParseError as err:
        raise MalformedMove(str(err)) from None


# --- the bot's side -----------------------------------------------------------------------------
HOOKS = ("start_game", "start_round", "observe")

# The interpreter starts isolated (-I: no PYTHON* variables, no user site) in a minimal
# environment; it imports duckcover with the parent's sys.path, before any wall and any bot code.
CHILD = "import sys, json; sys.path[:] = json.loads(sys.argv[1])['path']; from duckcover.players.sandbox import child_main; child_main(sys.argv[1])"

# What of the player's environment a bot process gets: the locale (its messages, its
# encoding) and facts about the hardware some numeric libraries need; never a token, a
# path or anything else of the game's. Thread pools of numeric libraries start at one
# thread: a bot shares the cores with the game, and its threads are bounded (MAX_THREADS).
KEPT_ENVIRONMENT = ("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_NUMERIC", "TZ",
                    "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
BOT_ENVIRONMENT = {"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
                   "MKL_NUM_THREADS": "1"}

# Python's audit events of the operations the walls refuse with EPERM (a process, a socket):
# counted, so a bot's report says what it tried. The count is a report, not a wall: the kernel
# refuses these calls whatever the bot does to the counter.
REFUSED_EVENTS = frozenset({"os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.system", "os.exec",
                            "subprocess.Popen", "socket.__new__", "os.startfile"})


def child_environment(environ: dict | None = None) -> dict[str, str]:
    """The environment a bot process starts with (an allow-list of the game's)."""
    environ = os.environ if environ is None else environ
    kept = {name: environ[name] for name in KEPT_ENVIRONMENT if name in environ}
    return {**kept, **BOT_ENVIRONMENT}


def child_main(config_text: str) -> None:
    """The bot process: confine itself, load the bot, say hello, answer requests until the input ends."""
    config = json.loads(config_text)
    requests, answers = config["requests"], config["answers"]
    refused: dict[str, int] = {}

    def answer(message: dict) -> None:
        if refused:
            message = {**message, "refused": refused}
        data = (json.dumps(message) + "\n").encode()
        while data:
            data = data[os.write(answers, data):]

    _limit(config)
    from .plugins import prime_registry

    if config["modules"]:  # a bot by entry point or module: read the metadata while it is readable
        prime_registry()
        sys.meta_path.insert(0, _KnownModules(config["modules"]))
    try:
        _wall_in(config)
    except OSError as err:  # a wall this system offers did not go up: no bot code runs unwalled
        answer({"protocol": PROTOCOL, "ok": False, "error": f"cannot confine it: {err}"})
        return
    sys.path[:] = config["bot_path"]  # only what it may read: the rest would be refused anyway
    sys.addaudithook(_refusal_counter(refused))
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(line_buffering=True)  # what a bot prints is there to show even if it is killed

    try:
        from .bot import Bot
        from .plugins import load_bot_class
        from .seeding import DecisionRandom

        cls, source = load_bot_class(config["spec"])
        hooks = [h for h in HOOKS if getattr(cls, h, None) is not getattr(Bot, h)]
        answer({"protocol": PROTOCOL, "ok": True, "name": _text(getattr(cls, "name", "bot")),
                "description": _text(getattr(cls, "description", "")), "class": cls.__qualname__,
                "source": source, "hooks": hooks})
    except BaseException as err:  # noqa: BLE001 - anything a bot's import does
        from .plugins import BotLoadError

        answer({"protocol": PROTOCOL, "ok": False, "error": str(err) if isinstance(err, BotLoadError) else _describe(err)})
        return
    bot = None
    with os.fdopen(requests, "rb") as lines:
        for line in lines:
            try:
                request = json.loads(line)
                what = request["do"]
                if what == "new":
                    bot = cls(seed=request["seed"], budget=request["budget"])
                    if request.get("time_limit") is not None:
                        bot.time_limit = request["time_limit"]
                    try:
                        bot.rng = DecisionRandom()
                    except Exception:  # noqa: BLE001 - an rng property without a setter: the bot's loss
                        pass
                    answer({"ok": True, "time_limit": _seconds(bot)})
                elif what == "choose":
                    view = view_from_data(request["view"])
                    try:
                        rng = bot.rng
                    except Exception:  # noqa: BLE001 - a raising property: the bot has no coin to flip
                        rng = None
                    if isinstance(rng, DecisionRandom):
                        rng.seed(request["rng"])
                    chosen = bot.choose(view)
                    try:
                        answer({"ok": True, "move": _plain_move(chosen)})
                    except Exception as err:  # noqa: BLE001 - not a Move of a real card to a cell
                        answer({"ok": False, "error": f"malformed answer: {_describe_malformed(err)}"})
                elif what in HOOKS:
                    view = view_from_data(request["view"])
                    extra = (decode_turn(request["turn"]),) if what == "observe" else ()
                    getattr(bot, what)(view, *extra)
                    answer({"ok": True})
                else:
                    answer({"ok": False, "error": f"unknown request {what!r}"})
            except BaseException as err:  # noqa: BLE001 - sys.exit(), KeyboardInterrupt, MemoryError, ...
                answer({"ok": False, "error": f"raised {_describe(err)}"})


def _refusal_counter(refused: dict[str, int]):
    def count(event: str, _args) -> None:
        if event in REFUSED_EVENTS and len(refused) < 32:
            refused[event] = refused.get(event, 0) + 1
        elif event in refused:
            refused[event] += 1
    return count


def _wall_in(config: dict) -> None:
    """The kernel's walls (duckcover.players.confine), as the parent found this system offers them."""
    from .confine import Protections, confine_self

    facts = config["confine"]
    confine_self(Protections.of(facts["system"], facts["landlock_abi"], facts["seccomp"]), config["readable"])


def _limit(config: dict) -> None:
    """Limits the process puts on itself before any bot code runs."""
    import resource

    for limit, value in ((resource.RLIMIT_AS, config["memory"]), (resource.RLIMIT_FSIZE, config["output"]),
                         (resource.RLIMIT_CORE, 0)):
        try:
            resource.setrlimit(limit, (value, value))
        except (ValueError, OSError):
            pass  # a hard limit already lower than ours
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # too much output: the write fails, the bot goes on
    if sys.platform.startswith("linux"):
        _bound_tasks()
        try:
            import ctypes

            # PR_SET_PDEATHSIG: die with the parent. The allow-list refuses any later change.
            ctypes.CDLL(None).prctl(1, signal.SIGKILL)
        except (OSError, AttributeError):
            pass
    if os.getppid() != config["parent"]:
        os._exit(0)  # the parent ended before the line above took effect


def _bound_tasks() -> None:
    """RLIMIT_NPROC at the user's task count now plus MAX_THREADS: the kernel then refuses the
    bot's thread past that, however fast it starts them (the parent also counts them at each
    look). The kernel exempts root from this limit: there the parent's count alone bounds it."""
    import resource

    if os.geteuid() == 0:
        return
    tasks = _user_tasks(os.getuid())
    if tasks:
        try:
            resource.setrlimit(resource.RLIMIT_NPROC, (tasks + MAX_THREADS, tasks + MAX_THREADS))
        except (ValueError, OSError):
            pass  # a hard limit already lower


def _user_tasks(uid: int) -> int:
    """Threads of every process of `uid` (the count RLIMIT_NPROC is checked against); 0 if unknown."""
    total = 0
    try:
        entries = os.scandir("/proc")
    except OSError:
        return 0
    with entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                if entry.stat().st_uid != uid:
                    continue
                with open(f"/proc/{entry.name}/stat", "rb") as file:
                    stat = file.read()
                total += int(stat[stat.rindex(b")") + 2:].split()[17])
            except (OSError, ValueError, IndexError):
                continue
    return total


def _plain_move(answer: Any) -> dict | None:
    from .answers import sanitize

    return move_data(sanitize(answer))


def _describe_malformed(err: Exception) -> str:
    from .answers import MalformedMove, describe

    return str(err) if isinstance(err, MalformedMove) else describe(err)


def _seconds(bot) -> float | None:
    try:
        value = bot.time_limit
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    except Exception:  # noqa: BLE001 - a raising property: no time limit of its own
        return None


def _text(value: Any) -> str:
    try:
        return str(value)[:200]
    except Exception:  # noqa: BLE001
        return "?"


def _describe(err: BaseException) -> str:
    from .answers import describe

    return describe(err)


# --- the parent's side --------------------------------------------------------------------------
_SPAWNER = None


def bot_code(spec: str) -> list[str]:
    """Where a bot's own code is: duckcover and its built-in bots (the base classes and helpers a
    bot imports; an editable install keeps them off sys.path), and the bot's file - the file
    alone, never the folder it lies in (a bot in ~/Downloads must not read what lies beside
    it) - or, for a package (its __init__.py named), that package's folder."""
    import importlib.util

    own = importlib.util.find_spec("duckcover")  # the whole package, whichever folder this module is in
    places = [os.path.abspath(p) for p in own.submodule_search_locations or []]
    builtin = importlib.util.find_spec("duckcover_bots")
    places += list(builtin.submodule_search_locations or []) if builtin else []
    head, sep, tail = spec.rpartition(":")
    path = head if sep and not (tail.endswith(".py") or "/" in tail or "\\" in tail) else spec
    if path.endswith(".py") or os.sep in path:
        file = os.path.abspath(os.path.expanduser(path))
        places.append(os.path.dirname(file) if os.path.basename(file) == "__init__.py" else file)
    else:
        places += list(installed_module(spec).values())
    return places


def installed_module(spec: str) -> dict[str, str]:
    """For a bot named by entry point or module (`name`, `package.module:Class`): its top-level
    module and where it lies ({} if it cannot be found without running it). The bot process
    reads only that, wherever the package was installed from (an editable install, a folder on
    PYTHONPATH), and imports it through `_KnownModules` rather than a listing of that folder."""
    import importlib.util

    from .plugins import DIFFICULTIES, _looks_like_file, registered

    name = DIFFICULTIES.get(spec.strip(), spec.strip())
    head, sep, tail = name.rpartition(":")
    if _looks_like_file(head if sep and not _looks_like_file(tail) else name):
        return {}  # a file: bot_code grants it, and plugins loads it by its path
    module = head if sep else getattr(registered().get(name), "module", None) if name.isidentifier() else None
    if not module:
        return {}
    top = module.split(".")[0]
    try:
        found = importlib.util.find_spec(top)  # a top-level name: nothing of it runs
    except (ImportError, ValueError):
        return {}
    if found is None:
        return {}
    if found.submodule_search_locations:
        folders = list(found.submodule_search_locations)
        return {top: os.path.abspath(folders[0])} if len(folders) == 1 else {}
    return {top: os.path.abspath(found.origin)} if found.origin and os.path.isfile(found.origin) else {}


class _KnownModules:
    """A finder for the bot's own top-level module at the place the game found it (its folder
    is not readable to the bot, so the import system could not list it)."""

    def __init__(self, modules: dict[str, str]) -> None:
        self.modules = modules

    def find_spec(self, name, path=None, target=None):
        import importlib.util

        where = self.modules.get(name)
        if where is None:
            return None
        if os.path.isdir(where):
            return importlib.util.spec_from_file_location(name, os.path.join(where, "__init__.py"),
                                                          submodule_search_locations=[where])
        return importlib.util.spec_from_file_location(name, where)


def bot_path(sys_path: list[str], readable: list[str]) -> list[str]:
    """The bot's sys.path once walled in: the parent's entries it may read, in their order."""
    granted = [Path(p) for p in readable]
    return [entry for entry in sys_path if entry and any(
        Path(entry).resolve() == g or g in Path(entry).resolve().parents for g in granted)]


_LIVE: weakref.WeakSet = weakref.WeakSet()  # every bot process alive, to end at exit


def _end_every_bot() -> None:
    """However the game ends (short of SIGKILL, where PR_SET_PDEATHSIG ends them), every bot
    process it started ends with it."""
    for process in list(_LIVE):
        process.kill()


atexit.register(_end_every_bot)


def _spawner():
    """The one thread that starts bot processes. Linux's PR_SET_PDEATHSIG fires when the
    *thread* that started a process ends, and the app asks bots from short-lived worker
    threads: this thread lives as long as the game's process, so a bot dies with that."""
    global _SPAWNER
    if _SPAWNER is None:
        from concurrent.futures import ThreadPoolExecutor

        _SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="duckcover-bot-spawner")
    return _SPAWNER


class BotFailure(Exception):
    """The bot process did not answer properly: it was stopped; the message says why."""


class BotProcess:
    """One bot seat's process, seen from the game: requests go out, answers come back in order.

    `start(seed, budget, time_limit)` makes a fresh bot in it; `request(...)` sends one request;
    `answers(deadline_for)` reads the answers of every request sent so far. When an answer is
    late, malformed or never comes (the process died), the process is killed, every request
    still waiting fails, and `restart()` may bring up a new one.
    """

    def __init__(self, spec: str, budget: int | None = None, time_limit: float | None = None,
                 memory: int = MEMORY_LIMIT, output: int = OUTPUT_LIMIT, startup_limit: float = STARTUP_LIMIT,
                 protections: Protections | None = None) -> None:
        self.spec = spec
        # The walls to put up (what this system offers; a test may ask for fewer).
        self.protections = available() if protections is None else protections
        self.readable = readable_paths(sys.path, bot_code(spec), private_paths())
        self.budget, self.time_limit = budget, time_limit  # what every new bot in it is given
        self.memory, self.output_limit, self.startup_limit = memory, output, startup_limit
        self.info: dict = {}  # the hello: name, description, class, source, hooks
        self.bot_time_limit: float | None = None  # what the bot asked for (the Referee clamps it)
        self.restarts = 0
        self.refused: dict[str, int] = {}  # operations the walls refused it (audit events), all its processes
        self._refused_here: dict[str, int] = {}  # the same, of the process now running
        self.proc: subprocess.Popen | None = None
        self._out = None
        self._printed = ""
        self._spawn()

    # --- life ------------------------------------------------------------------------------------
    def _spawn(self) -> None:
        requests_read, requests_write = os.pipe()
        answers_read, answers_write = os.pipe()
        here = os.getcwd()  # the child runs in "/": "" on the parent's path is this folder
        config = {
            "spec": self.spec, "modules": installed_module(self.spec), "path": [p or here for p in sys.path], "bot_path": bot_path(sys.path, self.readable),
            "requests": requests_read, "answers": answers_write,
            "memory": self.memory, "output": self.output_limit, "parent": os.getpid(),
            "confine": {"system": self.protections.system, "landlock_abi": self.protections.landlock_abi,
                        "seccomp": self.protections.seccomp},
            "readable": self.readable,
        }
        if self._out is None:
            self._out = tempfile.TemporaryFile()
        try:
            self.proc = _spawner().submit(
                subprocess.Popen, [sys.executable, "-I", "-c", CHILD, json.dumps(config)],
                stdin=subprocess.DEVNULL, stdout=self._out, stderr=self._out, env=child_environment(), cwd="/",
                pass_fds=(requests_read, answers_write), start_new_session=True, close_fds=True,
            ).result()
        finally:
            os.close(requests_read)
            os.close(answers_write)
        self._write_fd, self._read_fd = requests_write, answers_read
        os.set_blocking(self._write_fd, False)
        self._buffer = bytearray()
        self._pending: deque = deque()  # (what, sent at, limit)
        self._last_answer = time.monotonic()
        self._pending.append(("hello", self._last_answer, self.startup_limit))
        self.alive = True
        self._refused_here = {}
        _LIVE.add(self)

    def start(self, seed: int, budget: int | None, time_limit: float | None) -> None:
        """A fresh bot in this process (the hello is read with its answer)."""
        self.request({"do": "new", "seed": seed, "budget": budget, "time_limit": time_limit}, self.startup_limit)

    def restart(self) -> bool:
        """A new process after a failure; False once MAX_RESTARTS are used up."""
        self.kill()
        if self.restarts >= MAX_RESTARTS:
            return False
        self.restarts += 1
        self._spawn()
        return True

    def kill(self) -> None:
        if self.proc is None or not self.alive:
            return
        self.alive = False
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the bot's own children too
        except (ProcessLookupError, PermissionError):
            pass
        for fd in (self._write_fd, self._read_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        self.proc.wait()
        self._pending.clear()

    def close(self) -> None:
        """End the process; what it printed stays readable (`output`)."""
        if self.proc is not None and self.alive:
            self.kill()
        if self._out is not None:
            self._printed = self.output()
            self._out.close()
            self._out = None

    # --- talk ------------------------------------------------------------------------------------
    @property
    def waiting(self) -> int:
        """Requests sent whose answer has not been read."""
        return len(self._pending)

    def fileno(self) -> int:
        """The end answers are read from (to wait on several processes at once with select)."""
        return self._read_fd

    def request(self, message: dict, limit: float, view: str | None = None) -> None:
        """Send `message`; `view`, already JSON (ViewEncoder), goes in as its "view"."""
        if not self.alive:
            raise BotFailure("its process has stopped")
        text = _compact(message)
        if view is not None:
            text = f'{text[:-1]},"view":{view}}}'
        data = (text + "\n").encode()
        self._pending.append((message["do"], time.monotonic(), limit))
        deadline = time.monotonic() + limit
        while data:
            try:
                data = data[os.write(self._write_fd, data):]
            except BlockingIOError:
                if not select.select([], [self._write_fd], [], max(0.0, deadline - time.monotonic()))[1]:
                    self._fail(f"did not read its input within {limit:g} s")
            except OSError as err:  # the process is gone
                self._fail(self._ended(f"stopped reading ({err.strerror})"))

    def answer(self, block: bool = True) -> tuple[str, dict, float] | None:
        """The next answer as (what was asked, answer, seconds it took); None if `block` is False
        and it has not come yet. BotFailure (the process is then killed) if it is late or bad."""
        what, sent, limit = self._pending[0]
        started = max(sent, self._last_answer)
        deadline = started + limit
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                break
            if len(self._buffer) > MAX_LINE:
                self._fail(f"sent an answer longer than {MAX_LINE} bytes")
            self._watch_threads()
            wait = 0.0 if not block else min(THREAD_LOOK, max(0.0, deadline - time.monotonic()))
            if not select.select([self._read_fd], [], [], wait)[0]:
                if time.monotonic() < deadline:
                    if not block:
                        return None
                    continue
                self._fail(f"no answer within the hard limit of {limit:g} s")
            chunk = os.read(self._read_fd, 1 << 16)
            if not chunk:
                self._fail(self._ended("ended"))
            self._buffer += chunk
        self._last_answer = time.monotonic()
        self._pending.popleft()
        message = parse_answer(line)
        if message is None:
            self._fail("sent something that is not a protocol answer")
        self._note_refused(message.get("refused"))
        if what == "hello":
            if message.get("protocol") != PROTOCOL:
                self._fail(f"speaks {_quoted(message.get('protocol'))}, not {PROTOCOL}")
            if message["ok"]:
                self.info = {k: _quoted(message.get(k), 200) for k in ("name", "description", "class", "source")}
                hooks = message.get("hooks")
                self.info["hooks"] = [h for h in HOOKS if isinstance(hooks, list) and h in hooks]
        elif what == "new" and message["ok"]:
            limit_asked = message.get("time_limit")
            self.bot_time_limit = limit_asked if isinstance(limit_asked, (int, float)) else None
        return what, message, self._last_answer - started

    def _fail(self, reason: str):
        self.kill()
        raise BotFailure(reason)

    def _watch_threads(self) -> None:
        """Stop a bot running more than MAX_THREADS threads (looked at while its answer is awaited,
        so a flood is cut within THREAD_LOOK seconds; RLIMIT_NPROC stops it sooner where the
        kernel applies it)."""
        threads = thread_count(self.proc.pid)
        if threads > MAX_THREADS:
            self._fail(f"ran {threads} threads (at most {MAX_THREADS})")

    def _note_refused(self, refused: Any) -> None:
        """The child's count of refused operations (of its current process) into the seat's total."""
        if not isinstance(refused, dict):
            return
        for event, count in list(refused.items())[:len(REFUSED_EVENTS)]:
            if event in REFUSED_EVENTS and isinstance(count, int) and count > self._refused_here.get(event, 0):
                self.refused[event] = self.refused.get(event, 0) + count - self._refused_here.get(event, 0)
                self._refused_here[event] = count

    def _ended(self, what: str) -> str:
        try:
            status = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return f"{what}"
        if status < 0:
            name = signal.Signals(-status).name if -status in signal.Signals._value2member_map_ else str(-status)
            if name == "SIGSYS":  # duckcover.players.confine's seccomp filter
                return f"its process {what} (killed by SIGSYS: a forbidden system call)"
            return f"its process {what} (killed by {name})"
        return f"its process {what} (exit status {status})"

    def output(self) -> str:
        """The start of what the bot printed (standard output and error): a few lines, each made
        printable, joined by " / "; "" if nothing."""
        from ..common.untrusted import shown

        if self._out is None:
            return self._printed
        lines = os.pread(self._out.fileno(), SHOWN_OUTPUT, 0).decode("utf-8", "replace").splitlines()
        kept = [shown(line.strip(), 120) for line in lines[:SHOWN_LINES] if line.strip()]
        more = " / ..." if len(lines) > SHOWN_LINES else ""
        return " / ".join(kept) + more


def parse_answer(line: bytes) -> dict | None:
    """One answer line as a protocol answer (a dict with a boolean "ok"); None if it is not one.
    Bounded before it is parsed: a bot's "[[[[..." must cost the Referee nothing but a refusal
    (5,000 levels raised RecursionError out of json.loads, which the game did not expect)."""
    if len(line) > MAX_LINE or nesting(line) > MAX_DEPTH:
        return None
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    if not isinstance(message, dict) or not isinstance(message.get("ok"), bool):
        return None
    return message


def nesting(line: bytes) -> int:
    """How deep the arrays and objects of a JSON text go (brackets inside strings do not count)."""
    if line.count(b"[") + line.count(b"{") <= MAX_DEPTH:
        return 0  # the usual answer: too few brackets to be too deep
    depth = deepest = 0
    in_string = escaped = False
    for byte in line:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                return deepest
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def thread_count(pid: int) -> int:
    """The threads of process `pid` now (0 if it is gone or this is not Linux)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat = file.read()
        return int(stat[stat.rindex(b")") + 2:].split()[17])
    except (OSError, ValueError, IndexError):
        return 0


def seat_bot(spec: str, seed: int = 0, budget: int | None = None, time_limit: float | None = None,
             trusted: bool = False):
    """What plays a seat: the built-in bots (or any bot when `trusted`) as a Bot in this process,
    every other bot in a process of its own (BotProcess). BotLoadError if a
    bot to run here cannot load; a bot process that cannot load says so at its first decision."""
    from .plugins import is_builtin, resolve_bot

    if trusted or is_builtin(spec):
        return resolve_bot(spec, seed, budget, time_limit)
    return BotProcess(spec, budget=budget, time_limit=time_limit)


def probe(spec: str, budget: int | None = None, startup_limit: float = STARTUP_LIMIT) -> dict:
    """Start `spec` in a bot process and make one bot: its hello (name, description, class,
    source, hooks) and the time_limit it asks for; BotLoadError with one line if it cannot."""
    from .plugins import BotLoadError

    process = BotProcess(spec, budget=budget, startup_limit=startup_limit)
    try:
        process.start(0, budget, None)
        for _ in range(2):
            what, message, _ = process.answer()
            if not message["ok"]:
                error = _quoted(message.get("error"), 400)
                raise BotLoadError(error if what == "hello" else f"bot {_quoted(spec)}: cannot create it: {error}")
        return {**process.info, "time_limit": process.bot_time_limit}
    except BotFailure as err:
        raise BotLoadError(f"bot {_quoted(spec)}: {err}; it printed: {process.output() or 'nothing'}") from None
    finally:
        process.close()


def _quoted(value: Any, limit: int = 60) -> str:
    from ..common.untrusted import shown

    return shown(value if isinstance(value, str) else json.dumps(value), limit)
