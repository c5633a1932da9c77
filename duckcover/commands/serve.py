"""`duckcover serve`: tables for friends at their own terminals, over SSH (docs/serve.md)."""
from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import stat
import sys
import tempfile
from pathlib import Path

from ..players.sequence import SPEEDS
from ..common.untrusted import shown
from .numbers import seconds, whole

DEFAULT_PORT = 2222
DAY, YEAR = 24 * 3600, 365 * 24 * 3600
CLIENTS_ENV = "DUCKCOVER_CLIENTS"  # forked or fresh, when --clients is not given
WARM_WAIT = 15  # seconds the server waits for its guests' warm parent before it listens (then: fresh clients until it is ready)
PRIVATE_PREFIX = "duckcover-serve-"  # the socket's private directory, in the system's temp folder


def add_parser(sub) -> None:
    parser = sub.add_parser("serve", help="host tables that friends join with ssh (or a browser: --web)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 opens it)")
    parser.add_argument("--port", type=whole(0, 65535, meaning=" (0 picks a free one)"), default=DEFAULT_PORT,
                        help=f"SSH port, 0-65535 (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--max-connections", type=whole(1, 10_000), default=32, metavar="N",
                        help="players connected at once, 1-10000 (default 32); more get one line and are closed")
    parser.add_argument("--authorized-keys", type=Path, metavar="FILE",
                        help="only the public keys in FILE may enter (default: anyone who reaches the port)")
    parser.add_argument("--turn-seconds", type=seconds(1, DAY, meaning=" (a day)"), metavar="S",
                        help=f"time to choose, 1-{DAY} seconds; a human who has not chosen gets the referee's fallback move")
    parser.add_argument("--speed", choices=SPEEDS, default="normal",
                        help="the pace of every table: how long a reveal stays, how soon a bot flips (default normal)")
    parser.add_argument("--abandoned-after", type=seconds(1, YEAR, meaning=" (a year)"), default=float(DAY),
                        metavar="S", help=f"a table nobody has been at for S seconds (1-{YEAR}) ends, "
                        "kept in serve/abandoned/ (default 86400: a day)")
    parser.add_argument("--clients", choices=("forked", "fresh"), default=None,
                        help="how each guest's game client starts: forked from a warm parent process (default; "
                        "about a third of the memory) or as a fresh interpreter; also $DUCKCOVER_CLIENTS")
    web = parser.add_argument_group("the browser door (docs/serve.md)")
    web.add_argument("--web", type=host_and_port, metavar="HOST:PORT",
                     help="also serve a page whose terminal plays the same tables (HTTPS with --web-cert/--web-key; "
                     "plain HTTP only on loopback or with --web-insecure)")
    web.add_argument("--web-cert", type=Path, metavar="FILE", help="the web door's TLS certificate (PEM)")
    web.add_argument("--web-key", type=Path, metavar="FILE", help="the web door's TLS private key (PEM)")
    web.add_argument("--web-insecure", action="store_true",
                     help="allow plain HTTP on an address other than loopback (logins and keys travel in clear)")
    web.add_argument("--web-origin", action="append", metavar="ORIGIN",
                     help="a page origin allowed to open sessions (scheme://host:port; repeatable; "
                     "default: the address the page was served from)")
    web.add_argument("--web-idle", type=seconds(1, DAY, above=False), default=3600.0, metavar="S",
                     help="a web session without a key for S seconds is closed, its seat held (default 3600)")
    parser.add_argument("--metrics", type=host_and_port, metavar="HOST:PORT",
                        help="serve Prometheus metrics at http://HOST:PORT/metrics (keep it on 127.0.0.1 "
                        "or a monitoring network)")
    parser.add_argument("--log-format", choices=("text", "json"), default="text",
                        help="the log on stderr: readable lines (default) or one JSON object per line")
    parser.add_argument("--grace", type=seconds(0, DAY), default=30.0, help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    parser.set_defaults(command="serve")


def host_and_port(text: str) -> tuple[str, int]:
    """`HOST:PORT` (an IPv6 address in brackets: `[::1]:8080`) for --web."""
    host, colon, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not colon or not host or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"takes HOST:PORT (port 0-65535; 0 picks a free one), not {shown(text, 64)!r}")
    return host, int(port)


def loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def web_problem(args) -> str | None:
    """What is wrong with the web door's flags, in one line, or None."""
    if args.web is None:
        given = [flag for flag, value in (("--web-cert", args.web_cert), ("--web-key", args.web_key),
                                          ("--web-insecure", args.web_insecure), ("--web-origin", args.web_origin))
                 if value]
        return f"{given[0]} needs --web HOST:PORT" if given else None
    if (args.web_cert is None) != (args.web_key is None):
        return "--web-cert and --web-key go together (a certificate and its private key)"
    if args.web_cert is None and not args.web_insecure and not loopback(args.web[0]):
        return (f"--web {shown(args.web[0], 64)} is not a loopback address: give --web-cert and --web-key for HTTPS, "
                "or --web-insecure for plain HTTP")
    for origin in args.web_origin or ():
        scheme, _, rest = origin.partition("://")
        if scheme not in ("http", "https") or not rest or "/" in rest.rstrip("/"):
            return f"--web-origin takes scheme://host[:port], not {shown(origin, 64)!r}"
    return None


def fail(message: str) -> int:
    print(f"duckcover: {message}", file=sys.stderr)
    return 2


def run(args) -> int:
    try:
        import asyncssh  # noqa: F401 - only to say clearly when it is missing
    except ImportError:
        return fail("serve needs the asyncssh package (pip install asyncssh)")
    from ..net.sshfront import read_authorized_keys

    args.clients = args.clients or os.environ.get(CLIENTS_ENV) or "forked"
    if args.clients not in ("forked", "fresh"):
        return fail(f"${CLIENTS_ENV} must be forked or fresh, not {shown(args.clients, 40)}")
    problem = web_problem(args)
    if problem is not None:
        return fail(problem)
    context = None
    if args.web is not None:
        try:
            import aiohttp  # noqa: F401 - only to say clearly when it is missing
        except ImportError:
            return fail("serve --web needs the aiohttp package (pip install aiohttp)")
        if args.web_cert is not None:
            from ..net.webfront import ssl_context

            try:
                context = ssl_context(str(args.web_cert), str(args.web_key))
            except (OSError, ValueError) as err:  # ssl.SSLError is an OSError
                return fail(f"--web-cert {shown(args.web_cert)} / --web-key {shown(args.web_key)}: cannot use them: "
                            f"{shown(getattr(err, 'strerror', None) or err, 120)}")
    authorized = None
    if args.authorized_keys is not None:
        try:
            authorized = read_authorized_keys(args.authorized_keys)
        except ValueError as err:
            return fail(str(err))
    try:
        return asyncio.run(serve(args, authorized, context))
    except KeyboardInterrupt:
        return 0


async def serve(args, authorized: set[str] | None, context=None) -> int:
    from ..net.hostlog import HostLog
    from ..net.server import TableServer
    from ..net.sshfront import load_host_key
    from ..saves.paths import data_dir
    from ..saves.storage import GameInUse

    root = args.data_dir or data_dir()
    try:
        lock = own_data_dir(root)
    except GameInUse:
        return fail(f"another duckcover serve is running on {shown(root)}; only one may serve a data directory")
    except OSError as err:
        return fail(f"cannot use {shown(root)}: {err.strerror or err}")
    tables = TableServer(root, turn_seconds=args.turn_seconds, grace=args.grace, speed=args.speed,
                         abandoned_after=args.abandoned_after)
    tables.log = HostLog(args.log_format)
    try:
        tables.bans.load()
    except ValueError as err:  # starting without them would let every banned guest back in
        return fail(f"{err}; fix or remove it")
    try:
        key = load_host_key(root / "serve" / "ssh_host_ed25519_key")
    except (OSError, ValueError) as err:
        return fail(f"cannot read or create the host key: {err}")
    with tempfile.TemporaryDirectory(prefix=PRIVATE_PREFIX) as private:
        remember_private_dir(lock, private)
        status = await run_server(args, tables, authorized, key, Path(private) / "tables.sock", context)
    lock.release()
    return status


async def run_server(args, tables, authorized: set[str] | None, key, socket_path: Path, context) -> int:
    """Open the doors (SSH, and the web's if asked), the admin socket and the metrics; serve
    until a signal or a finished drain; then a clean stop (clients told, tables on disk)."""
    from ..net import metrics
    from ..net.admin import Console, socket_path as admin_socket
    from ..net.guests import Guests
    from ..net.sshfront import Front, start

    stop = asyncio.Event()
    guests = Guests(args.clients)  # (its warm parent imports while the tables are read)
    await tables.start(socket_path)
    restored = len(tables.tables)  # (said below; a table abandoned meanwhile was restored all the same)
    await guests.settled(WARM_WAIT)  # the first guests are forked too (a warm parent takes a second or two)
    front = Front(tables, socket_path, args.max_connections, authorized, args.port, args.host, args.speed, guests)
    listeners, web, where = [], None, f"{args.host}:{args.port}"
    try:
        listeners.append(await start(front, args.host, args.port, key))
        front.port = listeners[0].sockets[0].getsockname()[1]
        if args.web is not None:
            from ..net import webfront

            where = f"{shown(args.web[0], 64)}:{args.web[1]}"
            door = webfront.WebDoor(front, set(args.web_origin or ()) or None, secure=context is not None,
                                    idle_timeout=args.web_idle)
            web = await webfront.start(door, args.web[0], args.web[1], context)
        if args.metrics is not None:
            where = "{}:{}".format(*args.metrics)
            listeners.append(await metrics.serve(tables.metrics, *args.metrics))
    except OSError as err:
        for listener in listeners:
            listener.close()
        if web is not None:
            await web.cleanup()
        guests.close()
        await tables.close()
        return fail(f"cannot listen on {where}: {err.strerror or err}")
    console = Console(tables, tables.log, stop.set)
    try:
        await console.start(admin_socket(tables.data_dir))
    except OSError as err:  # the game goes on; the host is told what is missing
        tables.problems.append(f"no admin console (duckcover admin): cannot open {admin_socket(tables.data_dir)}: "
                               f"{err.strerror or err}")
    say_started(args, tables, key, front.port, restored, web, context,
                listeners[1] if args.metrics is not None else None)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    tables.log.say("stop", "duckcover serve: stopping")
    for listener in listeners:
        listener.close()
    front.stop_sessions()
    guests.close()
    if web is not None:
        await web.cleanup()
    await tables.close()
    console.close()
    await asyncio.sleep(0.1)
    return 0


def say_started(args, tables, key, port: int, restored: int, web, context, metrics_listener) -> None:
    """What the host needs at the start: the problems found, where it listens, the host key's
    fingerprint and the lines to give the guests (on stdout; JSON lines with --log-format json)."""
    from ..net.hostlog import HostLog

    for problem in tables.problems:
        tables.log.say("problem", problem)
    shown_host = args.host if args.host not in ("0.0.0.0", "::", "") else "THIS-MACHINE"
    lines = [f"duckcover serve: listening on {args.host} port {port}",
             f"  host key fingerprint: {key.get_fingerprint()}"]
    if restored:
        lines.append(f"  {restored} table(s) restored")
    if metrics_listener is not None:
        where = metrics_listener.sockets[0].getsockname()
        lines.append(f"  metrics:              http://{where[0]}:{where[1]}/metrics")
    if web is not None:
        web_port = web.addresses[0][1]
        scheme = "https" if context is not None else "http"
        named = args.web[0] if args.web[0] not in ("0.0.0.0", "::", "") else "THIS-MACHINE"
        named = f"[{named}]" if ":" in named else named
        lines.append(f"  or in a browser at:   {scheme}://{named}:{web_port}/")
    lines.append(f"  players join with:    ssh -p {port} NAME@{shown_host}")
    if args.log_format == "json":
        out = HostLog("json", sys.stdout)
        for text in lines:
            out.say("start", text.strip())
    else:
        for text in lines:
            print(text, flush=True)


def own_data_dir(root: Path):
    """One server per data directory: hold `serve/.server.lock` (storage's game lock, an flock
    the kernel drops however the process ends) for as long as this server runs. GameInUse if
    another holds it. What a killed server left behind (its socket's private directory) goes."""
    from ..saves.storage import claim

    held = claim(root / "serve" / "server")
    if held.fd is None:
        raise OSError(f"cannot lock {root / 'serve'}")
    previous = os.pread(held.fd, 4096, 0).decode("utf-8", "replace").strip()
    if previous:
        remove_private_dir(Path(previous))
    return held


def remember_private_dir(lock, private: str) -> None:
    os.ftruncate(lock.fd, 0)
    os.pwrite(lock.fd, private.encode(), 0)


def remove_private_dir(path: Path) -> None:
    """A private directory a killed server left: removed only if it is what it claims to be (a
    directory of ours, named as ours, straight in the temp folder), never followed if a link."""
    try:
        info = path.lstat()
    except OSError:
        return
    if (path.parent == Path(tempfile.gettempdir()) and path.name.startswith(PRIVATE_PREFIX)
            and stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()):
        shutil.rmtree(path, ignore_errors=True)
