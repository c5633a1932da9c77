"""The operator's console of `duckcover serve`: the admin socket (`duckcover admin COMMAND`).

The server listens on `<data dir>/serve/admin.sock`, a Unix socket of mode 0600 in a folder of
mode 0700, and takes a command only from a process of its own user: the kernel says who is at
the other end (SO_PEERCRED), and any other uid (root too) is refused with one line and logged.

One request a connection, one JSON line each way (bounded):
  -> {"v": 1, "command": "kick", "name": "ben"}
  <- {"v": 1, "ok": true, "text": "ended 1 session of ben", "data": ...}
  <- {"v": 1, "ok": false, "error": "nobody named ben is connected"}
`drain` with "wait" keeps the connection open until the server has exited (systemd's
ExecStop waits on it); `backup` keeps it open while the admin command copies the snapshot the
server took, which goes when the connection closes. Every command is logged ("admin" events).
"""
from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import socket
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..common.untrusted import LABEL_MAX, NAME_MAX, shown
from ..engine.errors import Refusal
from .admission import Bans
from .hostlog import HostLog

VERSION = 1
SOCKET_NAME = "admin.sock"  # in <data dir>/serve/
REQUEST_MAX = 16 * 1024  # bytes of one request line
RESPONSE_MAX = 8 * 1024 * 1024  # bytes of one answer (a listing of every session and table)
REQUEST_TIMEOUT = 10.0  # seconds to send the request
ANNOUNCE_MAX = 200  # characters of an announcement (one line on an 80-column screen, near enough)
KICK_GRACE = 3.0  # seconds a kicked guest's client has to end by itself before its door closes it
DRAIN_CHECK = 1.0  # seconds between looks at whether the running games have ended
BACKUP_HOLD = 24 * 3600.0  # seconds a snapshot waits for its copy at most
COMMANDS = ("sessions", "tables", "announce", "kick", "ban", "unban", "bans", "drain", "backup")


class AdminError(Exception):
    """A command the console refuses: one line for the operator."""


def socket_path(data_dir: Path) -> Path:
    return data_dir / "serve" / SOCKET_NAME


def encode(**fields: Any) -> bytes:
    return (json.dumps({"v": VERSION, **fields}, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end of a Unix socket (Linux: SO_PEERCRED; elsewhere
    getpeereid is not in Python's standard library, and None refuses everyone)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    creds = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return uid


def admitted(uid: int | None, own: int | None = None) -> bool:
    """Whether a peer of `uid` may command this server: only the server's own user."""
    return uid is not None and uid == (os.getuid() if own is None else own)


class Console:
    """The admin socket's commands, on the server's event loop. `server` is the TableServer
    (its tables, guests, bans, drain flag); `stop` ends `duckcover serve` (exit 0)."""

    def __init__(self, server: Any, log: HostLog, stop: Callable[[], None]) -> None:
        self.server = server
        self.log = log
        self.stop = stop
        self.listener: asyncio.base_events.Server | None = None
        self.path: Path | None = None
        self.drainer: asyncio.Task | None = None

    @property
    def banned(self) -> Bans:
        return self.server.bans

    # --- the socket ------------------------------------------------------------------------
    async def start(self, path: Path) -> None:
        """Listen on `path` (a stale socket a killed server left is replaced: the data
        directory's lock says no other server runs). OSError if it cannot."""
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.unlink(missing_ok=True)
        old = os.umask(0o177)  # created 0600: no moment when another user could connect
        try:
            self.listener = await asyncio.start_unix_server(self.handle, path=str(path), limit=REQUEST_MAX + 1)
        finally:
            os.umask(old)
        os.chmod(path, 0o600)
        self.path = path

    def close(self) -> None:
        if self.listener is not None:
            self.listener.close()
        if self.path is not None:
            self.path.unlink(missing_ok=True)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            sock = writer.get_extra_info("socket")
            uid = peer_uid(sock) if sock is not None else None
            if not admitted(uid):
                self.log.say("admin-refused", f"admin socket: a process of uid {uid} was refused (only uid {os.getuid()} may)")
                writer.write(encode(ok=False, error="this server takes commands from its own user only"))
                return
            try:
                line = await asyncio.wait_for(reader.readuntil(b"\n"), REQUEST_TIMEOUT)
                request = json.loads(line.decode("utf-8"))
                if not isinstance(request, dict) or request.get("v") != VERSION:
                    raise ValueError
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError,
                    UnicodeDecodeError, ValueError):
                writer.write(encode(ok=False, error="not a request of this console's protocol"))
                return
            await self.answer(request, reader, writer)
        except (ConnectionError, OSError):
            pass
        except asyncio.CancelledError:
            pass  # the server is stopping: a `drain --wait` sees the connection close
        finally:
            writer.close()

    async def answer(self, request: dict, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        command = request.get("command")
        if command not in COMMANDS:
            writer.write(encode(ok=False, error=f"unknown command {shown(command, 40)!r}"))
            return
        try:
            if command == "backup":
                await self.backup(request, reader, writer)
                return
            text, data = getattr(self, command)(request)
        except AdminError as err:
            writer.write(encode(ok=False, error=str(err)))
            return
        except Exception as err:  # noqa: BLE001 - a bug in a command must not take the server down
            self.log.say("problem", f"admin {command}: internal error: {type(err).__name__}: {err}")
            writer.write(encode(ok=False, error="internal error: the server's log has the details"))
            return
        writer.write(encode(ok=True, text=text, data=data))
        await writer.drain()
        if command == "drain" and request.get("wait") is True:
            await reader.read()  # the server closes it as it exits (or the operator gave up)

    def said(self, message: str, **fields) -> None:
        """Every admin action goes into the host's log."""
        self.log.say("admin", f"admin: {message}", **fields)

    # --- what is going on --------------------------------------------------------------------
    def sessions(self, request: dict) -> tuple[str, list[dict]]:
        rows = []
        for guest in sorted(self.server.visits.values(), key=lambda g: g.since):
            client = guest.client
            table = client.table if client is not None else None
            rows.append({"name": shown(guest.user, NAME_MAX * 4), "door": guest.door,
                         "address": shown(guest.address or "", 64), "since": guest.since,
                         "table": None if table is None else table.id,
                         "table_name": None if table is None else shown(table.name, LABEL_MAX),
                         "seat": None if client is None else client.seat})
        return f"{len(rows)} session(s)", rows

    def tables(self, request: dict) -> tuple[str, list[dict]]:
        rows = []
        for table in self.server.tables.values():
            game = table.game
            rows.append({"id": table.id, "name": shown(table.name, LABEL_MAX), "state": table.activity(),
                         "seats": [{"name": shown(seat.name or "", NAME_MAX), "kind": seat.kind,
                                    "here": seat.client is not None or not seat.human} for seat in table.seats],
                         "watchers": len(table.watchers),
                         "round": None if game is None else game.round_index + 1,
                         "turn": None if game is None else game.turn_number})
        return f"{len(rows)} table(s)", rows

    def bans(self, request: dict) -> tuple[str, list[dict]]:
        rows = [{"target": ban.target, "kind": ban.kind, "until": ban.until, "since": ban.since}
                for ban in self.banned.listing()]
        return f"{len(rows)} ban(s)", rows

    # --- what the host does --------------------------------------------------------------
    def announce(self, request: dict) -> tuple[str, dict]:
        text = request.get("text")
        if not isinstance(text, str) or not text.strip():
            raise AdminError("announce needs a text")
        text = shown(" ".join(text.split()), ANNOUNCE_MAX)  # one line, whatever it held
        reached = self.server.announce(text)
        self.said(f"announce {text!r} to {reached} guest(s)")
        return f"announced to {reached} guest(s)", {"text": text, "reached": reached}

    def kick(self, request: dict) -> tuple[str, dict]:
        name = request.get("name")
        if not isinstance(name, str) or not name:
            raise AdminError("kick needs a login name")
        guests = [guest for guest in self.server.visits.values() if guest.matches(name)]
        if not guests:
            raise AdminError(f"nobody named {shown(name, NAME_MAX * 4)!r} is connected (see duckcover admin sessions)")
        for guest in guests:
            self.end(guest, Refusal("ended-by-host", "the host ended this session"))
        self.said(f"kick {shown(name, NAME_MAX * 4)!r}: ended {len(guests)} session(s)", guest=name)
        return f"ended {len(guests)} session(s) of {shown(name, NAME_MAX * 4)}", {"ended": len(guests)}

    def end(self, guest: Any, why: Refusal) -> None:
        """End one guest's session: its client is told why and closes (its screen restored, the
        line left on its terminal), and the door closes the connection if it has not ended by
        then. A seat the guest held waits for its return like any dropped player's."""
        from .protocol import Bye, refusal_fields

        client = guest.client
        if client is not None:
            client.send(Bye(**refusal_fields(why)))
            client.writer.close()
        if guest.end is not None:
            line = f"duckcover: {why}."
            if client is None:
                guest.end(line)
            else:
                asyncio.get_running_loop().call_later(KICK_GRACE, guest.end, line)

    def ban(self, request: dict) -> tuple[str, dict]:
        target, seconds = request.get("target"), request.get("seconds")
        if not isinstance(target, str) or not (seconds is None or isinstance(seconds, (int, float)) and seconds > 0):
            raise AdminError("ban needs an address, a network or a name, and a time above 0 if any")
        try:
            ban = self.banned.add(target, seconds)
        except ValueError as err:
            raise AdminError(str(err)) from None
        except OSError as err:
            raise AdminError(f"cannot keep the ban: {err.strerror or err}") from None
        ended = 0
        for guest in list(self.server.visits.values()):
            if self.banned.refusal(guest.address, guest.user) is not None:
                self.end(guest, Refusal("banned", "the host has banned this login"))
                ended += 1
        until = "until unbanned" if ban.until is None else f"for {seconds:g} s"
        self.said(f"ban {ban.kind} {shown(ban.target, 64)!r} {until}; ended {ended} session(s)",
                  **({"guest": ban.target} if ban.kind == "name" else {"address": ban.target}))
        return (f"banned {ban.kind} {shown(ban.target, 64)} {until}; ended {ended} session(s)",
                {"target": ban.target, "kind": ban.kind, "until": ban.until, "ended": ended})

    def unban(self, request: dict) -> tuple[str, dict]:
        target = request.get("target")
        if not isinstance(target, str):
            raise AdminError("unban needs what was banned")
        try:
            ban = self.banned.remove(target)
        except ValueError as err:
            raise AdminError(str(err)) from None
        except OSError as err:
            raise AdminError(f"cannot lift the ban: {err.strerror or err}") from None
        if ban is None:
            raise AdminError(f"{shown(target, 64)!r} is not banned (see duckcover admin bans)")
        self.said(f"unban {ban.kind} {shown(ban.target, 64)!r}")
        return f"lifted the ban on {ban.kind} {shown(ban.target, 64)}", {"target": ban.target, "kind": ban.kind}

    def drain(self, request: dict) -> tuple[str, dict]:
        """No new logins or tables from now on; the running games play on; when none is left
        the server exits 0 (a restart that loses nothing)."""
        running = self.running_games()
        if not self.server.draining:
            self.server.draining = True
            self.said(f"drain: no new logins or tables; {running} game(s) running")
            reached = self.server.announce("The server restarts when the games now running have ended; "
                                           "no new tables until then.")
            self.said(f"drain announced to {reached} guest(s)")
            self.drainer = asyncio.get_running_loop().create_task(self.drained())
        return f"draining: {running} game(s) running; the server exits when they have ended", {"running": running}

    def running_games(self) -> int:
        """Games that go on now: started, not over, and someone is at the table. (A game nobody
        is at waits on disk, and comes back after the restart.)"""
        return sum(1 for table in self.server.tables.values() if table.activity() == "playing")

    async def drained(self) -> None:
        while self.running_games():
            await asyncio.sleep(DRAIN_CHECK)
        self.said("drain: no game running; the server stops")
        self.stop()

    async def backup(self, request: dict, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """A snapshot of the data directory, taken here on the event loop (between two of the
        server's own writes), for the admin command to copy; it goes when the command is done."""
        from ..saves.backup import SNAPSHOT_PREFIX, snapshot

        target = shown(request.get("path"), 200)
        snap = self.server.root / f"{SNAPSHOT_PREFIX}{secrets.token_hex(4)}"
        try:
            files = snapshot(self.server.data_dir, snap)
        except OSError as err:
            shutil.rmtree(snap, ignore_errors=True)
            raise AdminError(f"cannot take a snapshot of the data directory: {err.strerror or err}") from None
        self.said(f"backup: snapshot of {files} file(s) for {target!r}")
        try:
            writer.write(encode(ok=True, text=f"snapshot of {files} file(s)", data={"snapshot": str(snap), "files": files}))
            await writer.drain()
            await asyncio.wait_for(reader.read(), BACKUP_HOLD)  # the command closes it once copied
        except (asyncio.TimeoutError, ConnectionError, OSError):
            pass
        finally:
            await asyncio.get_running_loop().run_in_executor(None, shutil.rmtree, snap, True)
