"""How a guest's client process starts, for every door of `duckcover serve` (SSH, the web).

A door gives `Guests.start` the session's environment and window size and gets back the
client (`Guest`: its process, and the master side of its pty, for the door to copy bytes).
The client is forked from a warm parent (duckcover.app.zygote: Python, Textual and the app
imported once and frozen, so a guest costs about a third of a fresh interpreter's memory), or,
with `--clients fresh`, or while no warm parent is ready, started as a fresh interpreter
(`python -m duckcover.app.remote`). Either way it is the server's child, in a session of its
own, under `limit_client`'s limits; the door reaps it as a subprocess.Popen (`poll`, `wait`).

The server is the forked clients' parent too: it becomes a child subreaper (Linux), and the
warm parent forks each client through a middle process that exits at once. A warm parent that
dies (killed, crashed) takes no client with it; the server starts another, and sessions start
fresh until it is warm.
"""
from __future__ import annotations

import asyncio
import fcntl
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import termios
import threading
import time
from dataclasses import dataclass

CLIENT_MODULE = "duckcover.app.remote"
WARM_PARENT_MODULE = "duckcover.app.zygote"
MODES = ("forked", "fresh")  # --clients: forked from the warm parent (default), or fresh interpreters
# Limits of each session's client process: one guest never takes more than its share.
CLIENT_ADDRESS_SPACE = 1024 ** 3  # bytes of virtual memory (a client at 500x200 peaks near 260 MB)
CLIENT_CPU_SECONDS = 4 * 3600  # CPU time of one session (an evening's play takes minutes)
READY_WITHIN = 60  # seconds a warm parent has to import the client (a loaded box takes 1-3)
REPLY_WITHIN = 5  # seconds for the warm parent to fork a client; longer, and it is started again
RESTART_AFTER_MAX = 60  # seconds: the longest wait before starting a parent that keeps failing again
REPLY_MAX = 4096
PR_SET_CHILD_SUBREAPER = 36


def limit_client(pid: int) -> None:
    """Cap one session's client process (Linux: prlimit; elsewhere it runs unlimited). Not
    niced: under load a lower priority made guests' screens lag behind their own keys."""
    import resource

    if hasattr(resource, "prlimit"):
        for which, value in ((resource.RLIMIT_AS, CLIENT_ADDRESS_SPACE), (resource.RLIMIT_CPU, CLIENT_CPU_SECONDS),
                             (resource.RLIMIT_CORE, 0)):
            resource.prlimit(pid, which, (value, value))


def inherited_env() -> dict[str, str]:
    """What every client's environment holds whoever it is for: the server's PATH, HOME and
    a few of its switches, a UTF-8 locale, and glibc's arenas kept few."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/"),
        "LANG": "C.UTF-8",
        "MALLOC_ARENA_MAX": "2",  # glibc reserves 64 MB of address space per arena: stay well under the cap
    }
    for name in ("PYTHONPATH", "DUCKCOVER_LANG", "NO_COLOR"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def set_window(master: int, size: tuple[int, int]) -> None:
    """The pty's window size (columns, rows), as the client reads it."""
    width, height = size
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))


def new_pty(size: tuple[int, int]) -> tuple[int, int]:
    """A pty (master, slave) of this window size; nothing left open if it fails."""
    master, slave = os.openpty()
    try:
        set_window(master, size)
    except BaseException:
        os.close(master)
        os.close(slave)
        raise
    return master, slave


@dataclass
class Guest:
    """One session's client: its process and the master side of its terminal."""

    proc: subprocess.Popen | ForkedClient
    master: int
    forked: bool


class ForkedClient:
    """A client the warm parent forked, now the server's own child: what the doors ask of a
    subprocess.Popen (pid, returncode, poll, wait, kill)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._lock = threading.Lock()  # (reaped off the loop, in an executor, while the loop polls)

    def poll(self) -> int | None:
        with self._lock:
            if self.returncode is None:
                try:
                    pid, status = os.waitpid(self.pid, os.WNOHANG)
                except ChildProcessError:  # reaped already: as Popen says then
                    pid, status = self.pid, 0
                if pid == self.pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
            return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(str(self.pid), timeout)
            time.sleep(0.02)
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)


def become_subreaper() -> bool:
    """Make this process the parent of its descendants' orphans (Linux), as the forked clients
    are: True if it is."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


class WarmParent:
    """The warm parent process, its socket, and its restart when it is lost."""

    def __init__(self, log, entry: str | None = None) -> None:
        self.log = log
        self.entry = entry  # MODULE:FUNCTION the children run (tests); default the table client
        self.proc: subprocess.Popen | None = None
        self.control: socket.socket | None = None
        self.ready = False
        self.settled = asyncio.Event()  # set once the first parent is ready or has failed
        self.failures = 0  # parents in a row lost before they were ready
        self.restart: asyncio.TimerHandle | None = None
        self.warming: asyncio.TimerHandle | None = None
        self.closed = False

    def spawn(self) -> None:
        self.restart = None
        loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv = [sys.executable, "-m", WARM_PARENT_MODULE, str(theirs.fileno())] + ([self.entry] if self.entry else [])
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=inherited_env(),
                                         pass_fds=(theirs.fileno(),), start_new_session=True)
            limit_client(self.proc.pid)  # (its children start under the same limits)
        except (OSError, ValueError) as err:
            ours.close()
            self.log(f"the guests' warm parent did not start ({err}); guests start as fresh interpreters")
            self.lost(started=False)
            return
        finally:
            theirs.close()
        ours.setblocking(False)
        self.control = ours
        loop.add_reader(ours, self.heard)
        self.warming = loop.call_later(READY_WITHIN, self.too_slow)

    def heard(self) -> None:
        """The parent's "ready", or the end of its socket (it has died)."""
        try:
            data = self.control.recv(REPLY_MAX)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.log(f"the guests' warm parent ended ({self.ended()}); "
                     "it is started again, and guests start as fresh interpreters until it is warm")
            self.lost()
            return
        try:
            said = json.loads(data)
        except ValueError:
            said = {}
        if isinstance(said, dict) and "ready" in said and not self.ready:
            self.ready, self.failures = True, 0
            if self.warming is not None:
                self.warming.cancel()
                self.warming = None
            self.settled.set()

    def ended(self) -> str:
        status = None
        if self.proc is not None:
            try:
                status = self.proc.wait(0.5)
            except subprocess.TimeoutExpired:
                return "still running"
        if status is not None and status < 0:
            return f"killed by {signal.Signals(-status).name}" if -status in signal.valid_signals() else f"status {status}"
        return f"status {status}"

    def too_slow(self) -> None:
        self.warming = None
        self.log(f"the guests' warm parent was not ready within {READY_WITHIN} s; guests start as fresh interpreters")
        self.lost()

    def lost(self, started: bool = True) -> None:
        """Forget this parent (killed if still there) and start another later."""
        was_ready = self.ready
        self.drop()
        self.settled.set()  # (the fresh path serves meanwhile)
        if self.closed:
            return
        self.failures = 0 if was_ready else self.failures + 1
        delay = 0.0 if was_ready else min(RESTART_AFTER_MAX, 0.5 * 2 ** self.failures)
        self.restart = asyncio.get_running_loop().call_later(delay, self.spawn)

    def drop(self) -> None:
        self.ready = False
        for handle in (self.warming, self.restart):
            if handle is not None:
                handle.cancel()
        self.warming = self.restart = None
        if self.control is not None:
            asyncio.get_running_loop().remove_reader(self.control)
            self.control.close()
            self.control = None
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            asyncio.get_running_loop().run_in_executor(None, proc.wait)

    def fork(self, env: dict[str, str], slave: int, log: bool) -> ForkedClient | None:
        """A client forked on this pty slave, or None (logged) if the parent cannot now."""
        if not self.ready:
            return None
        control = self.control
        try:
            control.setblocking(True)
            control.settimeout(REPLY_WITHIN)
            socket.send_fds(control, [json.dumps({"env": env, "log": log}).encode()], [slave])
            reply = json.loads(control.recv(REPLY_MAX) or b"{}")
        except (OSError, ValueError) as err:
            self.log(f"the guests' warm parent did not answer ({type(err).__name__}: {err}); "
                     "it is started again, and this guest starts as a fresh interpreter")
            self.lost()
            return None
        finally:
            if self.control is control:
                control.setblocking(False)
        pid = reply.get("pid") if isinstance(reply, dict) else None
        if not isinstance(pid, int) or pid <= 1:
            self.log(f"the guests' warm parent could not fork a client ({reply.get('error') if isinstance(reply, dict) else reply}); "
                     "it is started again, and this guest starts as a fresh interpreter")
            self.lost()
            return None
        return ForkedClient(pid)

    def close(self) -> None:
        self.closed = True
        self.drop()


class Guests:
    """Starts each session's client: forked from the warm parent (mode "forked"), or fresh."""

    def __init__(self, mode: str = "fresh", log=None, entry: str | None = None) -> None:
        self.mode = mode
        self.log = log or (lambda text: print(f"duckcover: {text}", file=sys.stderr, flush=True))
        self.warm: WarmParent | None = None
        if mode == "forked":
            if become_subreaper():
                self.warm = WarmParent(self.log, entry)
                self.warm.spawn()
            else:
                self.log("guests start as fresh interpreters: this system cannot adopt forked clients")

    async def settled(self, timeout: float = READY_WITHIN) -> bool:
        """Wait (up to `timeout`) until the warm parent is ready or has failed: True if ready."""
        if self.warm is None:
            return False
        try:
            await asyncio.wait_for(self.warm.settled.wait(), timeout)
        except asyncio.TimeoutError:
            pass
        return self.warm.ready

    @property
    def warm_pid(self) -> int | None:
        """The warm parent's process, while it is ready (tests, logs)."""
        warm = self.warm
        return warm.proc.pid if warm is not None and warm.ready and warm.proc is not None else None

    def start(self, env: dict[str, str], size: tuple[int, int], log_fd: int | None = None) -> Guest:
        """One session's client on a new pty of `size` (columns, rows), with this environment
        (and the server's log on `log_fd`, told to it as DUCKCOVER_LOG_FD). Raises what the
        start raised (OSError, ValueError); nothing is left open then."""
        proc = None
        if self.warm is not None and self.warm.ready:
            master, slave = new_pty(size)
            try:
                proc = self.warm.fork(env, slave, log_fd is not None)
            except BaseException:
                os.close(master)
                raise
            finally:
                os.close(slave)
            if proc is None:  # (a client it forked without saying so must not share the fresh one's terminal)
                os.close(master)
        forked = proc is not None
        if proc is None:
            master, slave = new_pty(size)
            try:
                proc = fresh_client(env, slave, log_fd)
            except BaseException:
                os.close(master)
                raise
            finally:
                os.close(slave)
        try:
            limit_client(proc.pid)
        except ProcessLookupError:
            pass  # it has ended already: the door sees its terminal close
        return Guest(proc, master, forked)

    def close(self) -> None:
        if self.warm is not None:
            self.warm.close()


def fresh_client(env: dict[str, str], slave: int, log_fd: int | None) -> subprocess.Popen:
    """The client as a new interpreter of its own on this pty slave."""
    if log_fd is not None:
        env = {**env, "DUCKCOVER_LOG_FD": str(log_fd)}
    return subprocess.Popen(
        [sys.executable, "-m", CLIENT_MODULE],
        stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True, close_fds=True,
        pass_fds=() if log_fd is None else (log_fd,),
    )
