"""The SSH front of `duckcover serve`: logins, refusals, and one table client per session.

Each interactive session gets its own process (`python -m duckcover.app.remote`) on a fresh
pty (guestpty.py, shared with the web door); the front only copies bytes between the SSH
channel and that pty, and passes the client a token (in its environment) that the table server
knows as this login. A crashed client takes only its own session down; the tables live in the
server.

Only the game is served: an exec request, a subsystem (sftp), a session without a pty, port,
agent and X11 forwarding are all refused (the first three with one line, the forwarding by the
SSH protocol's own refusal). There is never a shell.
"""
from __future__ import annotations

import os
from pathlib import Path

import asyncssh

from ..common.files import read_bounded, why
from ..common.i18n import t
from ..common.untrusted import shown
from .guestpty import (CLIENT_ADDRESS_SPACE, CLIENT_CPU_SECONDS, CODE_WAITING_PER_SOURCE,  # noqa: F401 - the
                       MAX_COLUMNS, MAX_ROWS, RESIZE_DELAY, WILDCARDS, Front, GuestSession,  # names tests and
                       clamped_size, limit_client, reached_host, safe_term, source_of,  # benchmarks know here
                       visible_name)
from .sessions import Identity, login_identity

PREAUTH_EXTRA = 256  # connections beyond --max-connections still told "full" in a line; more are cut
AUTHORIZED_KEYS_MAX = 1024 * 1024  # bytes read of an --authorized-keys file
LOGIN_TIMEOUT = 10  # seconds from the TCP connection to a finished login; then it is cut
LISTEN_BACKLOG = 1024  # a burst of connections waits in the kernel to be accepted (and counted)
PREAUTH_PER_SOURCE = 8  # connections not yet logged in from one address (an IPv6 /64) at once

NO_COMMANDS = "duckcover: this server only runs the game; connect without a command: ssh -p {port} {host}"
NEEDS_PTY = "duckcover: the game needs a terminal; connect with: ssh -t -p {port} {host}"
INVISIBLE_NAME = ("duckcover: a login name needs a visible letter, digit or sign; "
                  "connect with: ssh -p {port} NAME@{host}")


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


class GameSession(GuestSession, asyncssh.SSHServerSession):
    """An SSH guest's session: what the channel asks for, then the shared GuestSession."""

    door = "ssh"

    def __init__(self, front: Front, identity: Identity, peer: str | None = None) -> None:
        GuestSession.__init__(self, front, identity, peer)
        self.chan = None
        self.refusal_line: str | None = None  # an exec request: said in one line instead of the game

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
        self.refusal_line = NO_COMMANDS
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
        line, reason = self.refusal_line, "command"
        if line is None and self.term is None:
            line, reason = NEEDS_PTY, "no-pty"
        if line is not None:
            self.front.refused(reason)
            self.say_and_end(line.format(port=self.front.port, host=self.shown_host()))
            return
        self.admit()

    def shown_host(self) -> str:
        host = self.front.host
        return host if host not in WILDCARDS else "HOST"

    def invisible_name_line(self) -> str:
        return INVISIBLE_NAME.format(port=self.front.port, host=self.shown_host())

    def name_in_play_line(self) -> str:  # (the name is the guest's: never a format string)
        return t("net.name_in_play", name=self.shown_name(), port=self.front.port, host=self.shown_host())

    # --- how bytes and lines reach the guest --------------------------------------------
    def send_output(self, data: bytes) -> None:
        self.chan.write(data)

    def say_and_end(self, line: str, status: int = 1) -> None:
        self.chan.write((line + "\r\n").encode())
        self.chan.exit(status)

    def ended(self, status: int) -> None:
        self.chan.exit(status)

    def way_back(self) -> dict[str, str]:
        # How the guest reached us, for the way back the client shows ("ssh -p 2222 ben+K7Q2XY@host").
        return {"DUCKCOVER_SSH_PORT": str(self.front.port), "DUCKCOVER_SSH_HOST": self.reached_host()}

    def reached_host(self) -> str:
        try:
            sockname = self.chan.get_extra_info("sockname")
        except (AttributeError, OSError):
            sockname = None
        return reached_host(self.front.host, sockname)

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self.resize_to(width, height)

    def pause_writing(self) -> None:
        self.pause_reading()  # the SSH peer is slow: its client's pty fills and it waits

    def resume_writing(self) -> None:
        self.resume_reading()

    def data_received(self, data: bytes, datatype) -> None:
        self.keys(data)

    def connection_lost(self, exc) -> None:
        self.stop()


async def start(front: Front, host: str, port: int, host_key: asyncssh.SSHKey):
    """Listen for SSH; returns the acceptor (its .sockets hold the real port)."""
    return await asyncssh.create_server(
        lambda: GameSSHServer(front), host, port,
        server_host_keys=[host_key], backlog=LISTEN_BACKLOG,
        login_timeout=LOGIN_TIMEOUT,
        agent_forwarding=False, x11_forwarding=False, allow_pty=True, line_editor=False,
        encoding=None, allow_scp=False, sftp_factory=None, keepalive_interval=30, keepalive_count_max=4,
    )
