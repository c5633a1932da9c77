"""The SSH front of `duckcover serve`: logins, refusals, and one table client per session.

Each interactive session gets its own client process (duckcover.app.remote, forked from a warm
parent or a fresh interpreter: duckcover.net.guests) on a fresh pty; the front only copies bytes
between the SSH channel and that pty, and passes the client a token (in its environment) that
the table server knows as this login. A crashed client takes
only its own session down; the tables live in the server.

Only the game is served: an exec request, a subsystem (sftp), a session without a pty, port,
agent and X11 forwarding are all refused (the first three with one line, the forwarding by the
SSH protocol's own refusal). There is never a shell.
"""
from __future__ import annotations

import asyncio
import errno
import ipaddress
import os
import signal
import subprocess
import sys
import unicodedata
from pathlib import Path

import asyncssh

from ..common.files import read_bounded, why
from ..common.i18n import t
from ..common.untrusted import NAME_MAX, shown
from .admission import CodeGuesses
from .guests import CLIENT_ADDRESS_SPACE, CLIENT_CPU_SECONDS, Guests, inherited_env, limit_client, set_window  # noqa: F401
from .hostlog import ENV_VAR as LOG_FORMAT_VAR
from .server import TableServer
from .sessions import CODE_PREFIX, Identity, login_identity

INPUT_BUFFER_MAX = 64 * 1024  # keystrokes beyond this, waiting for the client to read, are dropped
PREAUTH_EXTRA = 256  # connections beyond --max-connections still told "full" in a line; more are cut
AUTHORIZED_KEYS_MAX = 1024 * 1024  # bytes read of an --authorized-keys file
LOGIN_TIMEOUT = 10  # seconds from the TCP connection to a finished login; then it is cut
LISTEN_BACKLOG = 1024  # a burst of connections waits in the kernel to be accepted (and counted)
PREAUTH_PER_SOURCE = 8  # connections not yet logged in from one address (an IPv6 /64) at once
CODE_WAITING_PER_SOURCE = 2  # coded logins from one address waiting their turn at once: the rest
# are refused, so one address queueing guesses cannot hold the session slots others need
MAX_COLUMNS, MAX_ROWS = 500, 200  # a window larger than any real terminal is clamped to this
TERM_MAX = 64  # characters of a TERM name; anything else (a NUL, a control) becomes xterm-256color
RESIZE_DELAY = 0.05  # seconds: resizes closer together than this reach the client as one

NO_COMMANDS = "duckcover: this server only runs the game; connect without a command: ssh -p {port} {host}"
NEEDS_PTY = "duckcover: the game needs a terminal; connect with: ssh -t -p {port} {host}"
FULL = "duckcover: the server is full ({limit} players); please try again later."
INVISIBLE_NAME = ("duckcover: a login name needs a visible letter, digit or sign; "
                  "connect with: ssh -p {port} NAME@{host}")
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


def load_host_key(path: Path) -> asyncssh.SSHKey:
    """The server's Ed25519 host key: generated on first start (mode 0600) and reused after."""
    if path.exists():
        return asyncssh.read_private_key(str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    key = asyncssh.generate_private_key("ssh-ed25519")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key.export_private_key())
    return key


def read_authorized_keys(path: Path) -> set[str]:
    """Fingerprints of the public keys in an authorized_keys file (options before a key are
    skipped). ValueError with one line if the file cannot be read or holds no key."""
    try:
        lines = read_bounded(path, AUTHORIZED_KEYS_MAX).decode("utf-8").splitlines()
    except OSError as err:
        raise ValueError(f"--authorized-keys {shown(path)}: cannot read: {why(err)}") from None
    except UnicodeDecodeError:
        raise ValueError(f"--authorized-keys {shown(path)}: not UTF-8 text") from None
    found = set()
    for line in lines:
        words = line.split()
        for start, word in enumerate(words):
            if word.startswith(("ssh-", "ecdsa-", "sk-")):
                try:
                    found.add(asyncssh.import_public_key(" ".join(words[start:start + 2])).get_fingerprint())
                except (asyncssh.KeyImportError, ValueError):
                    pass
                break
    if not found:
        raise ValueError(f"--authorized-keys {path}: no public key found")
    return found


class Front:
    """The shared state of the SSH front: limits, the table server, the running sessions."""

    def __init__(self, tables: TableServer, socket_path: Path, max_connections: int,
                 authorized: set[str] | None, port: int, host: str, speed: str = "normal",
                 guests: Guests | None = None) -> None:
        self.tables = tables
        self.guests = guests or Guests("fresh")  # how each session's client process starts
        self.socket_path = socket_path
        self.max_connections = max_connections
        self.authorized = authorized
        self.port, self.host = port, host
        self.speed = speed  # every session's table screen paces its reveals so
        self.connections = 0
        self.sessions: set[GameSession] = set()
        self.preauth: dict[str, int] = {}  # source -> connections from it not yet logged in
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


class GameSSHServer(asyncssh.SSHServer):
    def __init__(self, front: Front) -> None:
        self.front = front
        self.conn = None
        self.key_fingerprint: str | None = None
        self.peer: str | None = None  # the address the connection came from
        self.source: str | None = None  # counted in front.preauth until the login finishes

    def connection_made(self, conn) -> None:
        self.conn = conn
        front = self.front
        front.connections += 1
        self.peer = (conn.get_extra_info("peername") or ("?",))[0]
        source = source_of(self.peer)
        if front.tables.bans.refusal(self.peer) is not None:
            # Banned by the host: cut before any SSH work (a banned name is refused at its session).
            front.refused("banned", f"a connection from {self.peer} refused: banned", address=self.peer)
            conn.abort()
            return
        if front.preauth.get(source, 0) >= PREAUTH_PER_SOURCE:
            front.refused("per-address")
            conn.abort()  # one address holding many half-open logins: others still get in
            return
        self.source = source
        front.preauth[source] = front.preauth.get(source, 0) + 1
        if front.connections > front.max_connections + PREAUTH_EXTRA:
            front.refused("flood")
            conn.abort()  # a flood: not even a line for these

    def login_over(self) -> None:
        """This connection no longer counts as a login under way (it finished, or it ended)."""
        if self.source is not None:
            left = self.front.preauth.get(self.source, 1) - 1
            if left > 0:
                self.front.preauth[self.source] = left
            else:
                self.front.preauth.pop(self.source, None)
            self.source = None

    def auth_completed(self) -> None:
        self.login_over()

    def connection_lost(self, exc) -> None:
        self.front.connections -= 1
        self.login_over()

    def begin_auth(self, username: str) -> bool:
        return True  # always ask, so a client offers its key and is recognised by it

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key) -> bool:
        fingerprint = key.get_fingerprint()
        if self.front.authorized is not None and fingerprint not in self.front.authorized:
            return False
        self.key_fingerprint = fingerprint
        return True

    def kbdint_auth_supported(self) -> bool:
        return self.front.authorized is None  # open server: no key needed, no question asked

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str):
        # Authenticated without a key: a key offered before and never signed with (asyncssh
        # asks us about a key before it checks the signature) proves nothing.
        self.key_fingerprint = None
        return True  # authenticated without a question

    def password_auth_supported(self) -> bool:
        return False

    def session_requested(self):
        user = self.conn.get_extra_info("username") or "guest"
        return GameSession(self.front, login_identity(user, self.key_fingerprint), self.peer)


class GameSession(asyncssh.SSHServerSession):
    def __init__(self, front: Front, identity: Identity, peer: str | None = None) -> None:
        self.front = front
        self.identity = identity
        self.peer = peer
        self.chan = None
        self.term: str | None = None
        self.size = (80, 24)
        self.refusal: str | None = None
        self.proc = None  # the client's process (a subprocess.Popen, or a guests.ForkedClient)
        self.master: int | None = None
        self.pending = bytearray()
        self.token: str | None = None
        self.reading = False
        self.resize: asyncio.TimerHandle | None = None
        self.code_check: asyncio.Task | None = None  # a coded login's wait and check (check_code)

    def connection_made(self, chan) -> None:
        self.chan = chan

    # --- what the client asks for -------------------------------------------------------
    def pty_requested(self, term_type: str, term_size, term_modes) -> bool:
        self.term = safe_term(term_type)
        self.size = clamped_size(term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self.refusal = NO_COMMANDS
        return True  # accepted only to say why, in one line, and close

    def subsystem_requested(self, subsystem: str) -> bool:
        return False  # sftp and friends: the client reports the refusal

    def break_received(self, msec: int) -> bool:
        return True

    def signal_received(self, signal_name: str) -> None:
        pass

    def eof_received(self) -> bool:
        return False

    def session_started(self) -> None:
        front = self.front
        host = front.host if front.host not in ("0.0.0.0", "::", "") else "HOST"
        reason = "command" if self.refusal is not None else None
        if self.refusal is None and self.term is None:
            self.refusal, reason = NEEDS_PTY, "no-pty"
        if self.refusal is None and not visible_name(self.identity.user):
            self.refusal, reason = INVISIBLE_NAME, "invisible-name"
        if self.refusal is None and len(front.sessions) >= front.max_connections:
            self.refusal, reason = FULL, "full"
        line = None if self.refusal is None else self.refusal.format(port=front.port, host=host,
                                                                       limit=front.max_connections)
        if line is None:  # the host's bans, a draining server (admission.py: every door asks the same)
            refused = front.tables.refused_login(self.peer, self.identity)
            if refused is not None:
                reason, line = refused
                front.log(f"a login as {self.identity.user!r} from {self.peer} refused: {reason}", "refused",
                          self.identity.user, self.peer)
        if line is None and self.name_in_play():  # (the name is the guest's: never a format string)
            line = t("net.name_in_play", name=shown(self.identity.user, NAME_MAX), port=front.port, host=host)
            reason = "name-in-play"
        if line is not None:
            front.refused(reason)
            self.chan.write((line + "\r\n").encode())
            self.chan.exit(1)
            return
        front.sessions.add(self)
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

    async def check_code(self) -> None:
        """A keyless login with a return code (`ben+K7Q2XY`): from an address that sent wrong
        codes, it waits its turn first (admission.CodeGuesses: 1 s, 2 s, 4 s ... per address,
        asleep on the event loop, so nobody else waits); a wrong one is logged and counted.
        Either way the guest then gets the game (the lobby says what a wrong code means)."""
        front, source = self.front, source_of(self.peer)
        if front.guesses.admit(source, book=False) > 0 and front.code_waiting.get(source, 0) >= CODE_WAITING_PER_SOURCE:
            front.refused("code-queue", f"a login with a return code as {self.identity.user!r} from {source} refused: "
                          f"{CODE_WAITING_PER_SOURCE} from there are waiting already", self.identity.user, self.peer)
            self.stop()
            self.chan.write((t("net.code_queue_full", waiting=CODE_WAITING_PER_SOURCE) + "\r\n").encode())
            self.chan.exit(1)
            return
        wait = front.guesses.admit(source)
        if wait > 0:
            front.log(f"a login with a return code as {self.identity.user!r} from {source} "
                      f"waits {wait:.0f} s (wrong codes came from there)")
            front.code_waiting[source] = front.code_waiting.get(source, 0) + 1
            try:
                self.chan.write((t("net.code_wait", seconds=round(wait)) + "\r\n").encode())
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
            self.stop()  # its pty, its process and its token: nothing is left behind
            try:
                self.chan.write((CANNOT_START + "\r\n").encode())
                self.chan.exit(1)
            except OSError:
                pass

    # --- the client process on its pty -------------------------------------------------
    def start_client(self) -> None:
        self.token = self.front.tables.issue_token(self.identity, self.peer, door="ssh", end=self.ended_by_host)
        env = {
            **inherited_env(),
            "TERM": self.term,
            "COLORTERM": "truecolor" if "256" in (self.term or "") or "direct" in (self.term or "") else "",
            "DUCKCOVER_SOCKET": str(self.front.socket_path),
            "DUCKCOVER_TOKEN": self.token,
            "DUCKCOVER_DATA": str(self.front.tables.data_dir),
            "DUCKCOVER_SPEED": self.front.speed,
            # How the guest reached us, for the way back the client shows ("ssh -p 2222 ben+K7Q2XY@host").
            "DUCKCOVER_SSH_PORT": str(self.front.port),
            "DUCKCOVER_SSH_HOST": self.reached_host(),
            LOG_FORMAT_VAR: self.front.tables.log.fmt,  # a client's error line, in the server log's form
        }
        guest = self.front.guests.start(env, self.size, self.front.log_fd)
        self.proc, self.master = guest.proc, guest.master
        os.set_blocking(self.master, False)
        self.resume_reading()

    def reached_host(self) -> str:
        """The host a guest types to come back: the address we listen on, or where a wildcard
        listener was reached (the guest may know it by a name we cannot know)."""
        if self.front.host not in ("0.0.0.0", "::", ""):
            return self.front.host
        try:
            return str((self.chan.get_extra_info("sockname") or ("HOST",))[0])
        except (AttributeError, OSError):
            return "HOST"

    def set_size(self) -> None:
        if self.master is None:
            return
        set_window(self.master, self.size)
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGWINCH)
            except ProcessLookupError:
                pass

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
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

    def pause_writing(self) -> None:
        # The SSH peer is slow: stop reading the client's output, so its pty fills and it waits.
        if self.master is not None and self.reading:
            asyncio.get_running_loop().remove_reader(self.master)
            self.reading = False

    def resume_writing(self) -> None:
        self.resume_reading()

    def from_client(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except BlockingIOError:
            return
        except OSError:  # EIO: the client closed its terminal (it has ended)
            data = b""
        if data:
            try:
                self.chan.write(data)
            except OSError:  # the SSH side has already closed
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
            self.chan.exit(0 if status == 0 else 1)
        except OSError:
            pass

    def data_received(self, data: bytes, datatype) -> None:
        if self.master is None:
            return
        room = INPUT_BUFFER_MAX - len(self.pending)
        self.pending += data[:max(0, room)]  # a flood beyond the buffer is dropped, not queued
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

    def stop(self) -> None:
        """End the client (the connection is gone or the server is stopping)."""
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

    def connection_lost(self, exc) -> None:
        self.stop()

    def ended_by_host(self, line: str) -> None:
        """The host ended this session (duckcover admin kick or ban) and its client has not
        ended by itself: stop it, say why on the guest's terminal, close the connection."""
        if self not in self.front.sessions:
            return  # it ended already (its client closed when it was told)
        self.stop()
        try:
            self.chan.write((line + "\r\n").encode())
            self.chan.exit(1)
        except OSError:
            pass


def _reap(proc: subprocess.Popen) -> None:
    try:
        proc.wait(timeout=3)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


async def start(front: Front, host: str, port: int, host_key: asyncssh.SSHKey):
    """Listen for SSH; returns the acceptor (its .sockets hold the real port)."""
    return await asyncssh.create_server(
        lambda: GameSSHServer(front), host, port,
        server_host_keys=[host_key], backlog=LISTEN_BACKLOG,
        login_timeout=LOGIN_TIMEOUT,
        agent_forwarding=False, x11_forwarding=False, allow_pty=True, line_editor=False,
        encoding=None, allow_scp=False, sftp_factory=None, keepalive_interval=30, keepalive_count_max=4,
    )
