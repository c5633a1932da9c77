"""A guest's table client on its own pty, whichever door the guest came in by (SSH or web).

Both doors (sshfront.py, webfront.py) hand a logged-in guest to a `GuestSession`: the same
admission (a visible name, the server's session cap, a name already in play, a return code's
wait after wrong codes from that address), then one client process
(`python -m duckcover.app.remote`) on a fresh pty under the same limits, its bytes pumped to
and from the door, resizes coalesced, and everything ended with the session. A door only
says how bytes and lines reach its guest (`send_output`, `say_and_end`, `ended`).

`start_guest_client` is the one place a client process is started: a faster way to start one
(a pre-forked client) plugs in there for both doors.
"""
from __future__ import annotations

import asyncio
import errno
import ipaddress
import os
import signal
import subprocess
import sys
import time
import unicodedata
from pathlib import Path

from ..common.i18n import t
from ..common.untrusted import NAME_MAX, shown
from .admission import CodeGuesses
from .hostlog import ENV_VAR as LOG_FORMAT_VAR
from .guests import (CLIENT_ADDRESS_SPACE, CLIENT_CPU_SECONDS, Guest, Guests,  # noqa: F401 - the limits: known here too
                     inherited_env, limit_client, set_window)
from .server import TableServer
from .sessions import CODE_PREFIX, Identity

INPUT_BUFFER_MAX = 64 * 1024  # keystrokes beyond this, waiting for the client to read, are dropped
CODE_WAITING_PER_SOURCE = 2  # coded logins from one address waiting their turn at once: the rest
# are refused, so one address queueing guesses cannot hold the session slots others need
MAX_COLUMNS, MAX_ROWS = 500, 200  # a window larger than any real terminal is clamped to this
TERM_MAX = 64  # characters of a TERM name; anything else (a NUL, a control) becomes xterm-256color
RESIZE_DELAY = 0.05  # seconds: resizes closer together than this reach the client as one
WILDCARDS = ("0.0.0.0", "::", "")

FULL = "duckcover: the server is full ({limit} players); please try again later."
CANNOT_START = "duckcover: cannot start the game here; please try again later."


def source_of(peer: str | None) -> str:
    """The address a per-source limit counts under: an IPv4 address, or the /64 of an IPv6 one
    (one machine commonly holds a whole /64)."""
    try:
        address = ipaddress.ip_address(peer or "")
    except ValueError:
        return str(peer)
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def clamped_size(width: int, height: int) -> tuple[int, int]:
    """A window size as the client's pty gets it: 0 means the default, more than a real
    terminal has is cut to MAX_COLUMNS x MAX_ROWS (a huge screen costs the client memory)."""
    return (min(width or 80, MAX_COLUMNS), min(height or 24, MAX_ROWS))


def safe_term(term: str | None) -> str:
    """The TERM name handed to the client: printable ASCII of a sane length, else a default."""
    if term and len(term) <= TERM_MAX and term.isascii() and term.isprintable() and " " not in term:
        return term
    return "xterm-256color"


def visible_name(name: str) -> bool:
    """Whether a login name shows something: at least one letter, digit, punctuation or symbol
    (a name of only U+200B, spaces, format characters or combining marks shows blank)."""
    return any(unicodedata.category(char)[0] in "LNPS" for char in name)


class Front:
    """What every door shares: the table server, the session cap, the running sessions (of
    both doors: `sessions`, each with its `identity`, `peer`, `door` and `since`), and the
    wrong return codes per address."""

    def __init__(self, tables: TableServer, socket_path: Path, max_connections: int,
                 authorized: set[str] | None, port: int, host: str, speed: str = "normal",
                 guests: Guests | None = None) -> None:
        self.tables = tables
        self.guests = guests or Guests("fresh")  # how each session's client process starts
        self.socket_path = socket_path
        self.max_connections = max_connections
        self.authorized = authorized
        self.port, self.host = port, host  # the SSH door's
        self.speed = speed  # every session's table screen paces its reveals so
        self.connections = 0
        self.sessions: set[GuestSession] = set()
        self.preauth: dict[str, int] = {}  # source -> SSH connections from it not yet logged in
        self.guesses = CodeGuesses()  # wrong return codes per source, and the wait they cost
        self.code_waiting: dict[str, int] = {}  # source -> its coded logins waiting their turn now
        # The server's stderr, lent to each client (whose own stderr is the guest's terminal):
        # a client that stops on an error says so there (duckcover.app.remote.report_crash).
        try:
            self.log_fd: int | None = os.dup(sys.stderr.fileno())
        except (OSError, ValueError, AttributeError):
            self.log_fd = None

    def log(self, text: str, event: str = "login", guest: str | None = None, address: str | None = None) -> None:
        """One line for the host's log (guest text in it is shown escaped and bounded)."""
        self.tables.log.say(event, text, guest=guest, address=address)

    def refused(self, reason: str, text: str | None = None, guest: str | None = None,
                address: str | None = None) -> None:
        """A login turned away: counted by its reason (metrics), and logged if `text` says how."""
        self.tables.metrics.refused(reason)
        if text is not None:
            self.log(text, "refused", guest, address)

    def stop_sessions(self) -> None:
        for session in list(self.sessions):
            session.stop()


def start_guest_client(front: Front, token: str, term: str, way_back: dict[str, str],
                       size: tuple[int, int]) -> Guest:
    """Start one guest's client on a fresh pty of `size`, under its limits (forked from the warm
    parent or a fresh interpreter: front.guests); its pty's master end is made non-blocking.
    `way_back` is what the client says to come back (DUCKCOVER_SSH_PORT / DUCKCOVER_SSH_HOST for
    an SSH guest; nothing for a web guest, who types the bare return login on the page)."""
    env = {
        **inherited_env(),
        "TERM": term,
        "COLORTERM": "truecolor" if "256" in term or "direct" in term else "",
        "DUCKCOVER_SOCKET": str(front.socket_path),
        "DUCKCOVER_TOKEN": token,
        "DUCKCOVER_DATA": str(front.tables.data_dir),
        "DUCKCOVER_SPEED": front.speed,
        LOG_FORMAT_VAR: front.tables.log.fmt,  # a client's error line, in the server log's form
        **way_back,
    }
    guest = front.guests.start(env, size, front.log_fd)
    os.set_blocking(guest.master, False)
    return guest


class GuestSession:
    """One logged-in guest at either door: admission, the client on its pty, the pump."""

    door = "?"  # "ssh" or "web": for the host's views of the sessions

    def __init__(self, front: Front, identity: Identity, peer: str | None = None) -> None:
        self.front = front
        self.identity = identity
        self.peer = peer
        self.since = time.time()  # when the guest logged in (wall clock, for the host's views)
        self.term: str | None = None
        self.size = (80, 24)
        self.proc = None  # the client's process (a subprocess.Popen, or a guests.ForkedClient)
        self.master: int | None = None
        self.pending = bytearray()
        self.token: str | None = None
        self.reading = False
        self.resize: asyncio.TimerHandle | None = None
        self.code_check: asyncio.Task | None = None  # a coded login's wait and check (check_code)

    # --- what a door says how ---------------------------------------------------------------
    def send_output(self, data: bytes) -> None:
        """The client's bytes to the guest (OSError: the guest is gone)."""
        raise NotImplementedError

    def say_and_end(self, line: str, status: int = 1) -> None:
        """One line to the guest, then the session's end (the client never started)."""
        raise NotImplementedError

    def ended(self, status: int) -> None:
        """The client has ended: close the guest's side with its status."""
        raise NotImplementedError

    def way_back(self) -> dict[str, str]:
        """What the client says to come back to a seat (start_guest_client)."""
        return {}

    def invisible_name_line(self) -> str:
        raise NotImplementedError

    def name_in_play_line(self) -> str:
        raise NotImplementedError

    # --- admission ------------------------------------------------------------------------
    def refusal(self) -> tuple[str, str] | None:
        """Why this login may not start, as (reason, one line), or None: a name that shows
        nothing, the server full (both doors' sessions count), the host's ban or a drain
        (admission.refused_login, the same for both doors), a name seated and connected now."""
        front = self.front
        if not visible_name(self.identity.user):
            return "invisible-name", self.invisible_name_line()
        if len(front.sessions) >= front.max_connections:
            return "full", FULL.format(limit=front.max_connections)
        refused = front.tables.refused_login(self.peer, self.identity)
        if refused is not None:
            front.log(f"a {self.door} login as {self.identity.user!r} from {self.peer} refused: {refused[0]}",
                      "refused", self.identity.user, self.peer)
            return refused
        if self.name_in_play():
            return "name-in-play", self.name_in_play_line()
        return None

    def admit(self) -> None:
        """Start this login's session, or tell it in one line why not."""
        refused = self.refusal()
        if refused is not None:
            reason, line = refused
            self.front.refused(reason)
            self.say_and_end(line)
            return
        self.front.sessions.add(self)
        if self.identity.key is not None and self.identity.key.startswith(CODE_PREFIX):
            self.code_check = asyncio.get_running_loop().create_task(self.check_code())
        else:
            self.start()

    def name_in_play(self) -> bool:
        """Whether this login's name is already playing, from another live session, at a table
        this login does not own: a second plain `ben` beside the seated one would be shown as
        "ben" too (his own return code or key still brings him back)."""
        identity = self.identity
        if identity.key is not None and identity.key.startswith(CODE_PREFIX):
            return False  # the code decides (check_code)
        if not any(other.identity.user == identity.user for other in self.front.sessions if other is not self):
            return False  # the name's other session is gone: its seat waits (the lobby says how to get it back)
        return self.front.tables.seated_elsewhere(identity)

    def shown_name(self) -> str:
        return shown(self.identity.user, NAME_MAX)

    async def check_code(self) -> None:
        """A keyless login with a return code (`ben+K7Q2XY`): from an address that sent wrong
        codes, it waits its turn first (admission.CodeGuesses: 1 s, 2 s, 4 s ... per address,
        asleep on the event loop, so nobody else waits); a wrong one is logged and counted.
        Either way the guest then gets the game (the lobby says what a wrong code means)."""
        front, source = self.front, source_of(self.peer)
        if front.guesses.admit(source, book=False) > 0 and front.code_waiting.get(source, 0) >= CODE_WAITING_PER_SOURCE:
            front.refused("code-queue", f"a login with a return code as {self.identity.user!r} from {source} refused: "
                          f"{CODE_WAITING_PER_SOURCE} from there are waiting already", self.identity.user, self.peer)
            self.say_and_end(t("net.code_queue_full", waiting=CODE_WAITING_PER_SOURCE))
            self.stop()
            return
        wait = front.guesses.admit(source)
        if wait > 0:
            front.log(f"a login with a return code as {self.identity.user!r} from {source} "
                      f"waits {wait:.0f} s (wrong codes came from there)")
            front.code_waiting[source] = front.code_waiting.get(source, 0) + 1
            try:
                self.send_output((t("net.code_wait", seconds=round(wait)) + "\r\n").encode())
                await asyncio.sleep(wait)
            except OSError:
                return
            finally:
                left = front.code_waiting.pop(source, 1) - 1
                if left > 0:
                    front.code_waiting[source] = left
            if self not in front.sessions:
                return  # the guest left while waiting
        if not front.tables.holds_seat(self.identity):
            wrong = front.guesses.wrong(source)
            front.log(f"a wrong return code for {self.identity.user!r} from {source} (wrong codes from there: "
                      f"{wrong}; its next login with a code waits {front.guesses.wait(wrong):.0f} s)")
        self.start()

    def start(self) -> None:
        front = self.front
        try:
            self.start_client()
        except Exception as err:  # noqa: BLE001 - whatever a guest sent, the server stays up
            front.refused("cannot-start", f"a session of {self.identity.user!r} did not start: {type(err).__name__}: {err}",
                          self.identity.user, self.peer)
            try:
                self.say_and_end(CANNOT_START)
            except OSError:
                pass
            self.stop()  # its pty, its process and its token: nothing is left behind

    # --- the client process on its pty -------------------------------------------------
    def start_client(self) -> None:
        self.token = self.front.tables.issue_token(self.identity, self.peer, door=self.door, end=self.ended_by_host)
        guest = start_guest_client(self.front, self.token, safe_term(self.term), self.way_back(), self.size)
        self.proc, self.master = guest.proc, guest.master
        self.resume_reading()

    def set_size(self) -> None:
        if self.master is None:
            return
        set_window(self.master, self.size)
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGWINCH)
            except ProcessLookupError:
                pass

    def resize_to(self, width: int, height: int) -> None:
        # A flood of resizes reaches the client as one: each would cost it a whole repaint.
        self.size = clamped_size(width, height)
        if self.resize is None:
            self.resize = asyncio.get_running_loop().call_later(RESIZE_DELAY, self.resized)

    def resized(self) -> None:
        self.resize = None
        try:
            self.set_size()
        except OSError:
            pass  # the pty is going away

    def resume_reading(self) -> None:
        if self.master is not None and not self.reading:
            asyncio.get_running_loop().add_reader(self.master, self.from_client)
            self.reading = True

    def pause_reading(self) -> None:
        # The guest is slow: stop reading the client's output, so its pty fills and it waits.
        if self.master is not None and self.reading:
            asyncio.get_running_loop().remove_reader(self.master)
            self.reading = False

    def from_client(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except BlockingIOError:
            return
        except OSError:  # EIO: the client closed its terminal (it has ended)
            data = b""
        if data:
            try:
                self.send_output(data)
            except OSError:  # the guest's side has already closed
                self.stop()
            return
        self.client_ended()

    def client_ended(self) -> None:
        """The client closed its terminal: it has ended (or is ending; reaped off the loop)."""
        status = self.proc.poll() if self.proc is not None else 0
        if status is None:
            asyncio.get_running_loop().run_in_executor(None, _reap, self.proc)
            status = 0
        self.close_pty()
        try:
            self.ended(0 if status == 0 else 1)
        except OSError:
            pass

    def keys(self, data: bytes) -> None:
        """The guest's keystrokes, to the client (a flood beyond the buffer is dropped)."""
        if self.master is None:
            return
        room = INPUT_BUFFER_MAX - len(self.pending)
        self.pending += data[:max(0, room)]
        self.to_client()

    def to_client(self) -> None:
        loop = asyncio.get_running_loop()
        while self.pending and self.master is not None:
            try:
                written = os.write(self.master, self.pending[:4096])
            except BlockingIOError:
                break
            except OSError as err:
                if err.errno != errno.EAGAIN:
                    self.pending.clear()
                break
            del self.pending[:written]
        if self.master is None:
            return
        if self.pending:
            loop.add_writer(self.master, self.to_client)
        else:
            loop.remove_writer(self.master)

    def close_pty(self) -> None:
        self.front.sessions.discard(self)
        if self.resize is not None:
            self.resize.cancel()
            self.resize = None
        if self.token is not None:
            self.front.tables.revoke_token(self.token)
        if self.master is not None:
            loop = asyncio.get_running_loop()
            loop.remove_reader(self.master)
            loop.remove_writer(self.master)
            os.close(self.master)
            self.master = None

    def ended_by_host(self, line: str) -> None:
        """The host ended this session (duckcover admin kick or ban) and its client has not
        ended by itself: stop it, say why to the guest, close the connection."""
        if self not in self.front.sessions:
            return  # it ended already (its client closed when it was told)
        self.stop()
        try:
            self.say_and_end(line)
        except OSError:
            pass

    def stop(self) -> None:
        """End the client (the guest is gone or the server is stopping)."""
        if self.code_check is not None:
            self.code_check.cancel()  # a guest who left during the wait: nothing more starts
        proc = self.proc
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGHUP)
            except ProcessLookupError:
                pass
            asyncio.get_running_loop().run_in_executor(None, _reap, proc)
        self.close_pty()


def _reap(proc: subprocess.Popen) -> None:
    try:
        proc.wait(timeout=3)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def reached_host(listening: str, sockname) -> str:
    """The host a guest types to come back: the address we listen on, or where a wildcard
    listener was reached (the guest may know it by a name we cannot know)."""
    if listening not in WILDCARDS:
        return listening
    try:
        return str((sockname or ("HOST",))[0])
    except (TypeError, IndexError):
        return "HOST"
