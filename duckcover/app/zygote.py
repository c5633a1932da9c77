"""The warm parent of `duckcover serve`'s guest clients (a "zygote", as Android calls it).

A guest's client started as a fresh interpreter pays for its own copy of Python, Textual and
the app: about 34 MB PSS a guest. This process imports them once, freezes that heap out of the
collector's sight (`gc.freeze`: a collection in a child then never writes to those pages) and
forks one client per session from it. The children share those pages copy-on-write; each is
still a process of its own, under its own limits, crashing alone.

The server (duckcover.net.guests) starts this module with one end of a SOCK_SEQPACKET socket
pair, whose descriptor number is the first argument; one message each way per datagram:
- here -> server, once warm: {"ready": PID}
- server -> here: {"env": {NAME: VALUE}, "log": BOOL}, the session pty's slave side attached
  (SCM_RIGHTS). `log`: the client gets this process's stderr (the server's log) as DUCKCOVER_LOG_FD.
- here -> server: {"pid": PID} of the client, or {"error": "one line"}.
The server closing its end ends this process.

Each client is forked twice (the middle process exits at once), so it is an orphan from its
first instruction: the kernel gives it to the server, a child subreaper. The server waits for
it as for a child of its own, and it plays on if this process dies or is killed.
"""
from __future__ import annotations

import atexit
import gc
import importlib
import json
import os
import signal
import socket
import sys
import threading
from dataclasses import dataclass

REQUEST_MAX = 64 * 1024  # bytes of one request (an environment of a dozen short names)
DEFAULT_ENTRY = "duckcover.app.remote:main"
GUEST_NAME = b"duckcover-guest"  # the clients' process name (ps, top), at most 15 bytes
PARENT_NAME = b"duckcover-warm"
GUEST_LOG_FD = 3  # where a client finds the server's log (DUCKCOVER_LOG_FD)


@dataclass
class Order:
    """One session's client, as the server asked for it."""

    env: dict[str, str]
    slave: int  # the pty's slave side: the client's terminal
    log: bool


def name_process(name: bytes) -> None:
    """The name ps and top show (Linux; elsewhere it stays python's)."""
    try:
        with open("/proc/self/comm", "wb") as comm:
            comm.write(name)
    except OSError:
        pass


def warm(entry: str) -> None:
    """Import the client and what its first screens load late, then freeze the heap."""
    module, _, _function = entry.partition(":")
    importlib.import_module(module)
    if entry == DEFAULT_ENTRY:
        from textual.drivers import linux_driver  # noqa: F401 - loaded by App.run
        from textual import _xterm_parser  # noqa: F401
        from .render import lean_output  # noqa: F401
        from ..common import i18n
        from ..saves import record, settings  # noqa: F401 - a table's record, the host's settings

        for lang in i18n.LANGUAGES:
            i18n.catalogue(lang)
        try:
            rehearse()
        except Exception as err:  # noqa: BLE001 - only warmth is lost: the clients still start
            print(f"duckcover: the guests' warm parent could not rehearse a client ({type(err).__name__}: {err})",
                  file=sys.stderr, flush=True)
    gc.collect()
    gc.freeze()
    from . import freeze_imports

    freeze_imports()  # (done: a child's main must not freeze its own half-built heap)


def rehearse(size: tuple[int, int] = (120, 40)) -> None:
    """Run one client, headless, up to its lobby, against a table server of its own in a
    temporary directory; then throw it away. What every client computes alike is then computed
    here, once, before the fork: the interpreter's specialised code (Python 3.11 rewrites a
    function's bytecode in its first runs: in a child, a private copy of every page it touches),
    the late imports, the style sheets' and Textual's caches."""
    import asyncio
    import tempfile
    from pathlib import Path

    from ..net.server import TableServer
    from ..net.sessions import Identity
    from ..saves.settings import load
    from .options import AppOptions
    from .remote import RemoteApp
    from .screens.lobby import LobbyScreen

    async def to_the_lobby(data: Path) -> None:
        tables = TableServer(data, stats=False, pace=0)
        await tables.start(data / "tables.sock")
        options = AppOptions(data_dir=data, save=False, stats=False)
        app = RemoteApp(options, str(data / "tables.sock"), tables.issue_token(Identity("rehearsal")))
        app.settings, app.settings_problem = load(data)
        try:
            async with app.run_test(size=size) as pilot:
                for _ in range(200):
                    if isinstance(app.main_screen(), LobbyScreen) and app.main_screen().is_mounted:
                        break
                    await pilot.pause(0.01)
                await pilot.pause()
        finally:
            await tables.close()

    with tempfile.TemporaryDirectory(prefix="duckcover-warm-") as tmp:
        asyncio.run(to_the_lobby(Path(tmp)))


def read_order(message: bytes, fds: list[int]) -> Order:
    """A request, checked; ValueError with one line if it is not one (its descriptors closed)."""
    try:
        request = json.loads(message)
        env, log = request["env"], request.get("log", False)
        if len(fds) != 1 or not isinstance(env, dict) or not isinstance(log, bool):
            raise ValueError
        if not all(isinstance(k, str) and isinstance(v, str) and "\0" not in k + v and "=" not in k and k
                   for k, v in env.items()):
            raise ValueError
    except (ValueError, KeyError, TypeError):
        for fd in fds:
            os.close(fd)
        raise ValueError("not a request: {\"env\": {...}, \"log\": bool} and one descriptor") from None
    return Order(env, fds[0], log)


def fork_guest(order: Order) -> dict | None:
    """Fork the order's client through a middle process; the reply for the server, or None in
    the client itself."""
    if threading.active_count() > 1:  # a fork keeps only the calling thread: locks could be held
        return {"error": f"{threading.active_count()} threads in the warm parent"}
    read, write = os.pipe()
    middle = os.fork()
    if middle == 0:
        guest = -1
        try:
            os.close(read)
            guest = os.fork()
            if guest == 0:
                os.close(write)
                return None
            os.write(write, b"%d" % guest)
        finally:
            if guest != 0:
                os._exit(0)  # the client is an orphan now: the server's
    os.close(write)
    os.close(order.slave)
    said = b""
    while chunk := os.read(read, 32):
        said += chunk
    os.close(read)
    os.waitpid(middle, 0)
    return {"pid": int(said)} if said.isdigit() else {"error": "the client did not start"}


def serve(control: socket.socket) -> Order | None:
    """Answer the server's requests until it closes the socket (None), or, in a forked client,
    its order."""
    control.send(json.dumps({"ready": os.getpid()}).encode())
    while True:
        try:
            message, fds, _flags, _address = socket.recv_fds(control, REQUEST_MAX, 4)
        except OSError:
            return None
        if not message:
            return None
        try:
            order = read_order(message, fds)
        except ValueError as err:
            control.send(json.dumps({"error": str(err)}).encode())
            continue
        reply = fork_guest(order)
        if reply is None:
            control.close()  # the client has none of the parent's descriptors (become_guest)
            return order
        control.send(json.dumps(reply).encode())


def become_guest(order: Order) -> None:
    """In the forked client: start as a fresh interpreter would on this terminal. A new
    session; the pty as stdin, stdout and stderr; no descriptor of the parent's; the session's
    environment; default signal handlers. (random reseeds itself after a fork; an asyncio loop
    is made by the app, after this.)"""
    os.setsid()
    log = os.dup(2) if order.log else None
    for fd in (0, 1, 2):
        os.dup2(order.slave, fd)
    if log is not None:
        os.dup2(log, GUEST_LOG_FD)
    os.closerange(GUEST_LOG_FD + (log is not None), os.sysconf("SC_OPEN_MAX"))
    os.environ.clear()
    os.environ.update(order.env)
    if log is not None:
        os.environ["DUCKCOVER_LOG_FD"] = str(GUEST_LOG_FD)
    else:
        os.environ.pop("DUCKCOVER_LOG_FD", None)
    # A tty's streams as Python makes them at start (line-buffered, closefd=False).
    sys.stdin = sys.__stdin__ = open(0, "r", encoding="utf-8", closefd=False)
    sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", closefd=False)
    sys.stderr = sys.__stderr__ = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGCHLD, signal.SIGWINCH,
                signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    name_process(GUEST_NAME)


def run_guest(entry: str) -> int:
    """The client's own run; then out at once: atexit's functions and the streams' last bytes,
    but not the interpreter's teardown (it would touch, and so copy, every shared page)."""
    module, _, function = entry.partition(":")
    code: object = 1
    try:
        code = getattr(importlib.import_module(module), function or "main")()
    except SystemExit as stop:
        code = stop.code
    except BaseException:  # noqa: BLE001 - as an interpreter would: the traceback, status 1
        import traceback

        traceback.print_exc()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    if code is None:
        code = 0
    os._exit(code if isinstance(code, int) else 1)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or not argv[0].isdigit():
        print("usage: python -m duckcover.app.zygote FD [MODULE:FUNCTION] (started by duckcover serve)",
              file=sys.stderr)
        return 2
    entry = argv[1] if len(argv) > 1 else DEFAULT_ENTRY
    control = socket.socket(fileno=int(argv[0]))
    name_process(PARENT_NAME)
    warm(entry)
    order = serve(control)
    if order is None:
        return 0
    become_guest(order)
    return run_guest(entry)


if __name__ == "__main__":
    raise SystemExit(main())
