"""`duckcover serve` measured: the real command, real SSH sessions, on 127.0.0.1.

Usage: python benchmarks/serve.py [--players N [N ...]] [--ssh-turns N] [--reveal-only] [--client-cpu TURNS]
                                  [--runs N] [--memory-players N] [--tables N] [--turns N] [--memory-only]
                                  [--launch-only] [--clients forked|fresh [...]]
                                  [--pace human [--in-step-players N] [--pace-seed S]]

- reveal latency through SSH, for each --players count (default 16 32 48; N // 4 tables): that
  many real SSH sessions (asyncssh, pty 80x24, `--speed instant`), each table set up by keys
  (its host creates it, three guests join it; every step waits on what the session's screen
  shows, read through a terminal model, never on a sleep), then all tables play --ssh-turns
  turns at once, choosing by keys (Space, Tab, Enter): from the last seat's keys sent to the
  end of the output burst each terminal then receives (the reveal frame: its first bytes
  waited for, up to 5 s, then nothing for 0.3 s after it), p50 and p95 (goal <= 200 ms), in
  all and by turn of the run. Beside it, measured in the same run: the PSS per
  player while at the tables (the client processes + the server's growth, shared out; goal
  <= 35 MB), the CPU a client that chose earlier spends on each reveal (its process's
  user + system time from the last seat's keys to the end of its burst, /proc ticks) and the
  same for the seat whose keys end the turn (and both together by turn of the run), and the
  CPU of the server, the clients and this benchmark while the tables played.
- launch (not with --reveal-only): a local `duckcover play --bots 3` in a pty at 120x40, from
  spawn to its first table frame, median of --runs; next to it, over SSH (pty 120x40): connect
  -> lobby on screen, and join (the key) -> first table frame. Ratio = connect->lobby / local
  launch (goal <= 1.3).
- bytes per turn (not with --reveal-only): what one player's SSH channel carried per turn at
  120x40 (the session's decrypted payload), over --turns turns.
- memory in the lobby (not with --reveal-only): PSS of each session's client process (+ the
  server's growth, shared out) with --memory-players connected (goal <= 60 MB a player).
- reveal latency of protocol clients (not with --reveal-only): --tables tables of 4 simulated
  players speaking the table protocol to a table server in its own process (no SSH, no
  terminal): from the last choice sent to every client's reveal received, p95.
- with --client-cpu TURNS, only the CPU a client that is not choosing spends per reveal, in
  process (see client_cpu_per_reveal), last line `client_cpu_ms_per_reveal=...` (the median);
  with DUCKCOVER_PROFILE=FILE also a cProfile of those counted sections in FILE (pstats).
- with --pace human, the reveal latency at a club's pace instead of in step (only that figure,
  and the in-step one as the worst case): for each --players count, N // 4 tables of 4 SSH
  sessions set up as above, then each table plays --ssh-turns turns as people do. The tables
  start a few seconds apart: each one 1-4 s (uniform) after the one before. Each turn, the
  Captain flips 0.5-2 s (uniform) after the turn's question is on screen (Space goes to all
  four, as in step: only the Captain's counts); then each seat, once its screen has shown the
  flip, thinks 1-8 s (uniform, drawn for every seat and turn alike) and chooses by keys. The
  last seat's keys -> the end of every terminal's reveal burst (nothing for 0.3 s after it),
  p50 and p95 (goal <= 200 ms at 96 players); the terminals' output is read all the time, as
  a player's terminal reads it. Memory: the PSS of all the client processes and the server's
  growth together, at the tables (goal <= 2 GB at 96 players), and per player. The draws come
  from --pace-seed (default 33), so two runs play the same evening. Then, as the worst case,
  --in-step-players (default 48; 0: none) play in step as above, and its p95 is printed beside.
The last line is `ssh_reveal_p95_ms=...`, the SSH figure of the last --players count (at the
club's pace with --pace human). With
--memory-only, only the lobby memory figure (each client under the server's limits, see
guests.limit_client; the warm parent's PSS shared out among the forked clients), last line
`pss_mb_per_guest=...`. With --launch-only, only ssh connect -> lobby against a local launch,
last line `lobby_to_launch=...`. --clients forked fresh measures both ways of starting a
guest's client, one after the other in the same run (default: forked, the server's default).
"""
from __future__ import annotations

import argparse
import asyncio
import bisect
import cProfile
import json
import os
import pty
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncssh
import pyte

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the protocol client, the SSH guest
from serve_helpers import Guest, ProtocolClient, play_until  # noqa: E402
SIZE = (120, 40)
# A player's keys for a turn: Space flips when Captain; Tab takes the cursor to the first
# legal cell and Enter plays it, twice (when a Max ties, the first pair picks the card). Once
# chosen, the second pair rings the bell and shows the "keys work again at the next question"
# hint: work the seat whose keys end the turn does beside its reveal. (Until 2026-12 this was a
# blind ten-key sequence of arrows and Enters: seven keys a player never presses, each handled
# by the terminal's client process while every table revealed.)
FLIP, CHOOSE = b" ", b"\t\r\t\r"


# --- the local launch, in a pty ------------------------------------------------------------
def local_launch(data: Path) -> float:
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update(DUCKCOVER_DATA=str(data), TERM="xterm-256color", LANG="C.UTF-8")
        os.execv(sys.executable, [sys.executable, "-m", "duckcover", "play", "--bots", "3", "--seed", "1",
                                  "--lang", "en", "--name", "You"])
    import fcntl
    import struct
    import termios

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
    start, seen = time.perf_counter(), b""
    try:
        while b"press Space" not in seen:
            seen += os.read(fd, 65536)
        return time.perf_counter() - start
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


# --- the server and its sessions --------------------------------------------------------------
CLIENTS = ["forked"]  # --clients: how the server starts its guests' clients (each mode measured in turn)


def start_server(data: Path, *extra: str, clients: str | None = None) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([sys.executable, "-m", "duckcover", "serve", "--port", "0", "--data-dir", str(data),
                             "--clients", clients or CLIENTS[0], *extra], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "DUCKCOVER_DATA": str(data), "DUCKCOVER_LANG": "en"})
    for line in proc.stdout:
        match = re.search(r"ssh -p (\d+)", line)
        if match:
            return proc, int(match.group(1))
    raise RuntimeError("the server did not start")


class Session:
    def __init__(self, conn, process) -> None:
        self.conn, self.process = conn, process
        self.seen = bytearray()
        self.received = 0

    @classmethod
    async def open(cls, port: int, user: str, size: tuple[int, int] = SIZE, source: str | None = None) -> "Session":
        """`source`: the loopback address to come from (a table's players from a network of
        their own, as at a club: the server opens at most 8 unfinished tables per network)."""
        conn = await asyncssh.connect("127.0.0.1", port, username=user, known_hosts=None, client_factory=Guest,
                                      client_keys=None, agent_path=None,
                                      local_addr=(source, 0) if source else None)
        process = await conn.create_process(term_type="xterm-256color", term_size=size, encoding=None)
        return cls(conn, process)

    async def wait_for(self, text: bytes, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            chunk = await asyncio.wait_for(self.process.stdout.read(65536), deadline - time.monotonic())
            if not chunk:
                raise RuntimeError(f"session closed before {text!r}")
            self.received += len(chunk)
            self.seen += chunk

    async def drain(self, seconds: float) -> None:
        try:
            while True:
                chunk = await asyncio.wait_for(self.process.stdout.read(65536), seconds)
                if not chunk:
                    return
                self.received += len(chunk)
                self.seen += chunk
                del self.seen[:-4096]
        except asyncio.TimeoutError:
            return

    def key(self, data: bytes) -> None:
        self.process.stdin.write(data)

    def close(self) -> None:
        self.conn.close()


def pss_kb(pid: int, field: str = "Pss:") -> int:
    """Proportional set size (shared pages divided among their users), or another smaps field."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def server_children(server_pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(server_pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def is_warm_parent(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() == "duckcover-warm"
    except OSError:
        return False


def client_pids(server_pid: int) -> list[int]:
    """The guests' client processes (forked or fresh), not their warm parent."""
    return [pid for pid in server_children(server_pid) if not is_warm_parent(pid)]


def warm_parent_pss_kb(server_pid: int) -> int:
    """The warm parent's PSS: the pages it shares with the forked clients are counted a share
    each, so a guest's cost is theirs + this, shared out (0 with --clients fresh)."""
    return sum(pss_kb(pid) for pid in server_children(server_pid) if is_warm_parent(pid))


def turns_played(data: Path) -> int:
    total = 0
    for path in (data / "serve" / "tables").glob("*.json"):
        if not path.name.endswith(".table.json"):
            total += sum(len(r["turns"]) for r in json.loads(path.read_text())["rounds"])
    return total


async def ssh_figures(runs: int, players: int, turns: int) -> dict:
    figures: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        proc, port = start_server(data, "--max-connections", str(max(players, 4)))
        try:
            await asyncio.get_running_loop().run_in_executor(None, local_launch, data / "warm")  # caches warm
            lobby, join, local = [], [], []
            for run in range(runs):
                local.append(await asyncio.get_running_loop().run_in_executor(None, local_launch, data / f"l{run}"))
                start = time.perf_counter()
                host = await Session.open(port, f"host{run}")
                await host.wait_for(b"Tables on this server")
                lobby.append(time.perf_counter() - start)
                host.key(b"c")
                await host.wait_for(b"A new table")
                host.key(b"\x13")  # you, an open seat, two medium bots
                await host.wait_for(b"waiting for players")
                guest = await Session.open(port, f"guest{run}")
                await guest.wait_for(b"Tables on this server")
                await guest.wait_for(f"host{run}'s table".encode())
                guest.key(b"\x1b[B" * run)  # the earlier runs' tables are listed above this one
                await asyncio.sleep(0.3)
                start = time.perf_counter()
                guest.key(b"j")
                await guest.wait_for(b"Round 1 begins")
                join.append(time.perf_counter() - start)
                if run == runs - 1:
                    figures["bytes_per_turn"] = await bytes_per_turn(host, guest, data, turns)
                host.close()
                guest.close()
            figures["local_launch_ms"] = statistics.median(local) * 1000
            figures["connect_to_lobby_ms"] = statistics.median(lobby) * 1000
            figures["join_to_table_ms"] = statistics.median(join) * 1000
            figures["launch_ratio"] = figures["connect_to_lobby_ms"] / figures["local_launch_ms"]
            await asyncio.sleep(1)
            figures.update(await memory(proc.pid, port, players))
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(20)
    return figures


async def bytes_per_turn(host: Session, guest: Session, data: Path, turns: int) -> float:
    """The guest's channel, from the first table frame on, while both play `turns` turns."""
    await host.wait_for(b"press Space")
    start_bytes, start_turns = guest.received, turns_played(data)
    deadline = time.monotonic() + 120
    while turns_played(data) - start_turns < turns and time.monotonic() < deadline:
        host.key(FLIP + CHOOSE)
        guest.key(FLIP + CHOOSE)
        await asyncio.gather(host.drain(0.4), guest.drain(0.4))
    done = max(1, turns_played(data) - start_turns)
    return (guest.received - start_bytes) / done


async def memory(server_pid: int, port: int, players: int) -> dict:
    before = pss_kb(server_pid)
    sessions = []
    for index in range(players):
        session = await Session.open(port, f"m{index}")
        await session.wait_for(b"Tables on this server")
        sessions.append(session)
    await asyncio.sleep(1)
    pids = client_pids(server_pid)
    clients = [pss_kb(pid) for pid in pids]
    rss = [pss_kb(pid, "Rss:") for pid in pids]
    server_growth = max(0, pss_kb(server_pid) - before) + warm_parent_pss_kb(server_pid)
    per_player = (sum(clients) + server_growth) / max(1, len(clients))
    for session in sessions:
        session.close()
    return {"mb_per_player": per_player / 1024, "players_connected": len(clients),
            "rss_mb_per_client": statistics.mean(rss) / 1024 if rss else 0.0,
            "mb_total": (sum(clients) + server_growth) / 1024}


# --- reveal latency with simulated players ------------------------------------------------------
SERVER_CODE = """
import asyncio, json, sys
from pathlib import Path
from duckcover.net.server import TableServer
from duckcover.net.sessions import Identity
async def main():
    data = Path(sys.argv[1])
    srv = TableServer(data, grace=600, pace=0, stats=False)
    await srv.start(data / "t.sock")
    print(json.dumps([srv.issue_token(Identity(f"p{i}")) for i in range(int(sys.argv[2]))]), flush=True)
    await asyncio.Event().wait()
asyncio.run(main())
"""


async def reveal_latency(tables: int, decisions: int) -> list[float]:
    latencies: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen([sys.executable, "-c", SERVER_CODE, tmp, str(tables * 4)], stdout=subprocess.PIPE,
                                  text=True)
        try:
            tokens = json.loads(server.stdout.readline())
            clients = [await ProtocolClient.connect(Path(tmp) / "t.sock", token) for token in tokens]
            for client in clients:
                await client.until("welcome")
            for t in range(tables):
                group = clients[4 * t:4 * t + 4]
                group[0].send("create", seats=["human"] * 4, seed=t)
                await group[0].until("seated")
                listed = []
                while len(listed) <= t:
                    listed = (await group[1].until("lobby"))["tables"]
                table_id = listed[-1]["id"]
                for client in group[1:]:
                    client.send("join", table=table_id)
                for client in group:
                    while client.game is None:
                        await client.until("seated")
            last_choice: dict = {}  # (table, reveal number) -> when its last choice was sent
            table_of = {id(c): i // 4 for i, c in enumerate(clients)}
            rng = random.Random(1)

            async def think(client: ProtocolClient) -> None:
                await asyncio.sleep(rng.random() * 0.05)  # a moment's thought
                last_choice[(table_of[id(client)], len(client.reveals) + 1)] = time.perf_counter()

            def heard(client: ProtocolClient, message: dict) -> None:
                if message["type"] == "reveal":
                    sent = last_choice.get((table_of[id(client)], len(client.reveals)))
                    if sent is not None:
                        latencies.append(time.perf_counter() - sent)

            await play_until(clients, lambda: len(latencies) >= decisions * tables * 4, timeout=300,
                             think=think, heard=heard)
        finally:
            server.kill()
            server.wait()
    return latencies


# --- reveal latency through SSH: real sessions, choosing by keys ------------------------------
def table_turns(data: Path, host: str) -> int:
    """Turns in the record of the table `host` created (its first seat)."""
    for path in (data / "serve" / "tables").glob("*.json"):
        if not path.name.endswith(".table.json"):
            try:
                record = json.loads(path.read_text())
            except (OSError, ValueError):
                continue  # being written
            if record["players"][0].get("name") == host:
                return sum(len(r["turns"]) for r in record["rounds"])
    return 0


async def until_quiet(session: Session, quiet: float, cap: float, first: float = 0.0) -> float:
    """When the last piece of the burst now arriving came, once `quiet` seconds pass without any.
    With `first`, the burst must begin within that many seconds: a burst that has not begun
    after `quiet` is waited for (the old benchmark took a reveal later than `quiet` for one
    drawn at once, 0 ms: it was why its first turn's median looked fast); if none comes, the
    time returned is `first` seconds on (a reveal never shown counts as a slow one)."""
    last, deadline = time.perf_counter(), time.perf_counter() + cap
    if first:
        last += first
    waiting = max(quiet, first)
    while time.perf_counter() < deadline:
        try:
            chunk = await asyncio.wait_for(session.process.stdout.read(65536), waiting)
        except asyncio.TimeoutError:
            break
        waiting = quiet
        if not chunk:
            break
        last = time.perf_counter()
        session.received += len(chunk)
        session.seen += chunk
        del session.seen[:-4096]
    return last


class Screen:
    """What a session's terminal shows (pyte), for set-up steps that wait on the screen rather
    than on sleeps. Fed only while a table is set up: during the measured turns the benchmark's
    own CPU is kept for the clients."""

    def __init__(self, session: Session, size: tuple[int, int]) -> None:
        self.session = session
        self.screen = pyte.Screen(*size)
        self.stream = pyte.ByteStream(self.screen)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def line_with(self, words: str) -> str:
        return next((line for line in self.screen.display if words in line), "")

    async def until(self, shows, what: str, timeout: float = 60) -> None:
        """Read output until `shows(self)` holds; RuntimeError naming `what` (and the screen) if not."""
        deadline = time.monotonic() + timeout
        while not shows(self):
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"set-up: no {what} within {timeout:.0f} s; the screen:\n{self.text()}")
            try:
                chunk = await asyncio.wait_for(self.session.process.stdout.read(65536), min(left, 1.0))
            except asyncio.TimeoutError:
                continue
            if not chunk:
                raise RuntimeError(f"set-up: the session closed before {what}")
            self.session.received += len(chunk)
            self.stream.feed(chunk)


SEAT_MENU_ONLY = "Hard (expert)"  # an entry of the seat menu no seat shows by default: the menu is open
DOWN, HOME = b"\x1b[B", b"\x1b[H"


async def open_seat(screen: Screen, row: str, focus: bytes) -> None:
    """Make the seat on the create screen's line `row` an open seat: `focus` (Tabs) then Enter
    opens its menu, Home picks the first entry (an open seat), Enter closes it. Each step waits
    until the screen shows it happened (a key sent before its menu was open went to the wrong
    widget and left a menu open: the old set-up's failure at its 11th table)."""
    screen.session.key(focus + b"\r")
    await screen.until(lambda s: SEAT_MENU_ONLY in s.text(), f"menu of {row}")
    screen.session.key(HOME + b"\r")
    await screen.until(lambda s: SEAT_MENU_ONLY not in s.text() and "open for a human" in s.line_with(row),
                       f"open seat on {row}")


async def set_up_table(port: int, number: int, size: tuple[int, int]) -> list[Session]:
    """One table of 4 human seats: its host creates it by keys, three guests join it by keys;
    every step waits on what the screen shows. Returns the four sessions, host first."""
    source = f"127.0.{number + 1}.1"  # each table from its own /24 (admission.TABLES_PER_NETWORK)
    host = await Session.open(port, f"h{number}", size=size, source=source)
    screen = Screen(host, size)
    await screen.until(lambda s: "Tables on this server" in s.text() and " Create table" in s.text(), "lobby")
    host.key(b"c")
    await screen.until(lambda s: "A new table" in s.text() and "Seat 4" in s.text(), "create screen")
    await open_seat(screen, "Seat 3", b"\t\t\t\t")  # focus: table name -> rated -> players -> seat 2 -> seat 3
    await open_seat(screen, "Seat 4", b"\t")
    host.key(b"\x13")  # ctrl+s: create
    await screen.until(lambda s: "waiting for players" in s.text(), "waiting screen")
    group = [host]
    for g in range(3):
        guest = await Session.open(port, f"g{number}x{g}", size=size, source=source)
        await join_table(Screen(guest, size), f"h{number}'s table", "Round 1 begins" if g == 2 else "waiting for players")
        group.append(guest)
    await asyncio.gather(*(until_quiet(s, 0.5, 10) for s in group))
    return group


def row_colour(screen: Screen, words: str):
    """The background of the lobby row showing `words` (None if no row shows it)."""
    for y, line in enumerate(screen.screen.display):
        if words in line:
            return screen.screen.buffer[y][line.index(words)].bg
    return None


async def join_table(screen: Screen, table: str, then: str) -> None:
    """From the lobby, move the row cursor to `table` by Down keys, each one after the screen
    has shown the last, and join it with j; wait until the screen shows `then`. (The cursor's
    colour is learnt from the first row, where a fresh lobby puts it. A club's later tables are
    below the screen's end at 80x24 until the cursor scrolls the list to them.)"""
    await screen.until(lambda s: "Tables on this server" in s.text() and " Create table" in s.text()
                       and "h0's table" in s.text(), "lobby")
    cursor = row_colour(screen, "h0's table")
    for _ in range(MAX_TABLES_LISTED):
        if row_colour(screen, table) == cursor:
            break
        was = screen.text(), [row_colour(screen, f"h{n}'s table") for n in range(MAX_TABLES_LISTED)]
        screen.session.key(DOWN)
        await screen.until(lambda s: (s.text(), [row_colour(s, f"h{n}'s table") for n in range(MAX_TABLES_LISTED)])
                           != was, "the cursor move", timeout=10)
    else:
        raise RuntimeError(f"set-up: the lobby's cursor never reached {table}:\n{screen.text()}")
    screen.session.key(b"j")
    await screen.until(lambda s: then in s.text(), then)


MAX_TABLES_LISTED = 64  # the server's MAX_TABLES


def cpu_ticks(pid: int) -> int:
    """User + system CPU of a process so far, in clock ticks (/proc/PID/stat)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return 0


async def ssh_reveal_latency(players: int, turns: int) -> dict:
    """players // 4 tables of 4 SSH sessions (pty 80x24, --speed instant). Each turn: the Captain
    flips, three seats choose by keys, then the fourth's keys go at t0; for every session, the
    end of the output burst that follows (no byte for 0.3 s) - t0. A sample counts only if the
    table's record gained the turn after t0, not before (so the fourth seat's keys finished it).
    Also: the CPU the three seats that chose earlier spent on each reveal (their client
    processes, from t0 to the end of their burst), and the PSS per player while at the tables."""
    tables = max(1, players // 4)
    latencies: list[float] = []
    by_turn: dict[int, list[float]] = {}  # the same, by the turn of the run they were measured in
    reveal_ticks: list[int] = []
    ticks_by_turn: dict[int, list[int]] = {}  # every client's CPU per reveal, by turn of the run
    last_seat_ticks: list[int] = []  # the same for the seat whose keys end the turn (its keys, then the reveal)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        proc, port = start_server(data, "--max-connections", str(tables * 4), "--grace", "600", "--speed", "instant")
        try:
            server_before = pss_kb(proc.pid)
            groups = []
            for t in range(tables):
                groups.append(await set_up_table(port, t, (80, 24)))
            pids = sorted(client_pids(proc.pid))  # sessions opened one after another: pid order is theirs
            pid_of = dict(zip((id(s) for group in groups for s in group), pids)) if len(pids) == tables * 4 else {}

            async def play(t: int, group: list[Session]) -> None:
                for turn in range(turns):
                    for session in group:
                        session.key(FLIP)  # the Captain flips
                    await asyncio.gather(*(until_quiet(s, 0.5, 10) for s in group))
                    for session in group[:3]:
                        session.key(CHOOSE)
                    await asyncio.gather(*(until_quiet(s, 0.5, 10) for s in group))
                    before = table_turns(data, f"h{t}")
                    onlookers = [pid_of[id(s)] for s in group[:3] if id(s) in pid_of]
                    ticks = [cpu_ticks(pid) for pid in onlookers]
                    last = pid_of.get(id(group[3]))
                    last_ticks = cpu_ticks(last) if last else 0
                    start = time.perf_counter()
                    group[3].key(CHOOSE)
                    ends = await asyncio.gather(*(until_quiet(s, 0.3, 10, first=5) for s in group))
                    if table_turns(data, f"h{t}") > before:
                        latencies.extend(end - start for end in ends)
                        by_turn.setdefault(turn, []).extend(end - start for end in ends)
                        spent = [cpu_ticks(pid) - was for pid, was in zip(onlookers, ticks)]
                        reveal_ticks.extend(spent)
                        if last:
                            last_seat_ticks.append(cpu_ticks(last) - last_ticks)
                            spent.append(last_seat_ticks[-1])
                        ticks_by_turn.setdefault(turn, []).extend(spent)

            split_before = cpu_split(proc.pid, pids)
            await asyncio.gather(*(play(t, group) for t, group in enumerate(groups)))
            cpu = {who: after - before for (who, after), before in zip(cpu_split(proc.pid, pids).items(),
                                                                      split_before.values())}
            clients = [pss_kb(pid) for pid in client_pids(proc.pid)]
            pss_per_player = (sum(clients) + max(0, pss_kb(proc.pid) - server_before)
                              + warm_parent_pss_kb(proc.pid)) / max(1, len(clients)) / 1024
            for group in groups:
                for session in group:
                    session.close()
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(20)
    tick = 1000 / os.sysconf("SC_CLK_TCK")
    return {"latencies": latencies, "by_turn": by_turn, "pss_mb_per_player": pss_per_player,
            "cpu_ms_by_turn": {turn: statistics.mean(t) * tick for turn, t in ticks_by_turn.items()},
            "onlooker_cpu_ms_per_reveal": statistics.mean(reveal_ticks) * tick if reveal_ticks else float("nan"),
            "last_seat_cpu_ms_per_reveal": statistics.mean(last_seat_ticks) * tick if last_seat_ticks else float("nan"),
            "cpu_seconds": cpu}


# --- reveal latency at a club's pace --------------------------------------------------------------
FLIP_THINK = (0.5, 2.0)  # seconds a Captain takes to flip, once the turn's question is on screen
CHOICE_THINK = (1.0, 8.0)  # seconds a seat takes to choose, once its screen has shown the flip
TABLE_GAP = (1.0, 4.0)  # seconds between one table's start and the next's


class Listener:
    """A session's output read all the time, as a player's terminal reads it: when each piece came."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.times: list[float] = []
        self.arrived = asyncio.Event()
        self.task = asyncio.create_task(self.read())

    async def read(self) -> None:
        while True:
            chunk = await self.session.process.stdout.read(65536)
            if not chunk:
                return
            self.times.append(time.perf_counter())
            self.session.received += len(chunk)
            self.arrived.set()

    async def burst_after(self, start: float, quiet: float, first: float = 5.0, cap: float = 10.0) -> float:
        """When the last piece of the first burst after `start` came (nothing for `quiet` seconds
        after it); a burst not begun within `first` seconds counts as `start + first`."""
        while True:
            now = time.perf_counter()
            index = bisect.bisect_right(self.times, start)
            if index == len(self.times):
                if now >= start + first:
                    return start + first
                wait = start + first - now
            else:
                last = self.times[-1]
                if now - last >= quiet or now >= start + cap:
                    return last
                wait = quiet - (now - last)
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), wait)
            except asyncio.TimeoutError:
                pass


async def human_pace_reveal_latency(players: int, turns: int, seed: int) -> dict:
    """players // 4 tables of 4 SSH sessions (pty 80x24, --speed instant) playing at a club's
    pace (see the module's docstring: FLIP_THINK, CHOICE_THINK, TABLE_GAP): for every turn, the
    last seat's keys -> the end of each terminal's reveal burst; and the memory of all clients."""
    tables = max(1, players // 4)
    draw = random.Random(seed)
    latencies: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        proc, port = start_server(data, "--max-connections", str(tables * 4), "--grace", "600", "--speed", "instant")
        try:
            server_before = pss_kb(proc.pid)
            groups = [await set_up_table(port, t, (80, 24)) for t in range(tables)]
            listeners = [[Listener(session) for session in group] for group in groups]
            starts = [0.0]
            for _ in range(tables - 1):
                starts.append(starts[-1] + draw.uniform(*TABLE_GAP))
            # Every think time drawn before play (the tables' tasks interleave: the same evening each run).
            flips = [[draw.uniform(*FLIP_THINK) for _ in range(turns)] for _ in range(tables)]
            choices = [[[draw.uniform(*CHOICE_THINK) for _ in range(4)] for _ in range(turns)] for _ in range(tables)]

            async def seat_chooses(listener: Listener, flipped: float, think: float, t: int,
                                   before: int) -> tuple[float, bool]:
                """When this seat's keys went, and whether its turn was still open then: a turn
                can end before a seat's keys (a seat with nothing to decide is not waited for),
                and keys sent after the reveal do not end it."""
                shown = await listener.burst_after(flipped, 0.2)  # the flip is on this seat's screen
                await asyncio.sleep(max(0.0, shown + think - time.perf_counter()))
                still_open = table_turns(data, f"h{t}") == before
                listener.session.key(CHOOSE)
                return time.perf_counter(), still_open

            async def play(t: int) -> None:
                await asyncio.sleep(starts[t])
                group = listeners[t]
                for turn in range(turns):
                    await asyncio.sleep(flips[t][turn])
                    flipped = time.perf_counter()
                    for listener in group:
                        listener.session.key(FLIP)
                    before = table_turns(data, f"h{t}")
                    sent = await asyncio.gather(*(seat_chooses(listener, flipped, think, t, before)
                                                  for listener, think in zip(group, choices[t][turn])))
                    # The last keys sent while the turn was open: the ones that can end it. (None: the
                    # turn ended at its flip, nobody could play; no choice's reveal to time.)
                    last = max((when for when, still_open in sent if still_open), default=None)
                    if last is None:
                        continue
                    ends = await asyncio.gather(*(listener.burst_after(last, 0.3) for listener in group))
                    if table_turns(data, f"h{t}") > before:
                        latencies.extend(end - last for end in ends)

            await asyncio.gather(*(play(t) for t in range(tables)))
            clients = [pss_kb(pid) for pid in client_pids(proc.pid)]
            total_kb = sum(clients) + max(0, pss_kb(proc.pid) - server_before)
            for group in listeners:
                for listener in group:
                    listener.task.cancel()
                    listener.session.close()
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(20)
    return {"latencies": latencies, "pss_mb_all": total_kb / 1024, "pss_mb_per_player": total_kb / 1024 / max(1, len(clients)),
            "wall_s": starts[-1]}


def cpu_split(server_pid: int, clients: list[int]) -> dict[str, float]:
    """CPU seconds so far of the server (SSH front and tables), its client processes together, and
    this benchmark (its SSH clients and their decryption): who the two cores serve while tables play."""
    tick = os.sysconf("SC_CLK_TCK")
    mine = os.times()
    return {"wall": time.perf_counter(), "server": cpu_ticks(server_pid) / tick,
            "clients": sum(cpu_ticks(pid) for pid in clients) / tick, "benchmark": mine.user + mine.system}



# --- one client's CPU per reveal, in process ----------------------------------------------------
async def client_cpu_per_reveal(turns: int) -> list[float]:
    """Two RemoteApps (80x24, headless) at a table with two medium bots, against an in-process
    table server; Ann chooses first, so when Ben's choice completes a turn she is a client that
    is not choosing. Per reveal: the CPU (thread time) Ann's app spends handling the reveal
    message, the flow's steps after it (TableScreen.painted) and drawing every frame until the
    next flip arrives, each counted once (a counted call inside another is the other's), each
    frame's text made as a terminal's app makes it (a headless app would skip it, and with it the
    painter's drawing); the message pump's own overhead is not in it, nor the writing. Finer than the /proc figure of the SSH run and not inflated by other
    processes waiting for the CPU, but still slower on a loaded machine (caches)."""
    from textual.app import App
    from textual.screen import Screen as TextualScreen

    from duckcover.app.options import AppOptions
    from duckcover.app.remote import RemoteApp, RemoteTable
    from duckcover.app.table.screen import TableScreen
    from duckcover.common import i18n
    from duckcover.net.server import TableServer
    from duckcover.net.sessions import Identity
    from test_serve_client import ann_and_ben_with_two_bots, press_what_is_asked

    spent: list[float] = []
    window = {"open": False, "depth": 0}
    # DUCKCOVER_PROFILE=FILE: cProfile of the counted sections only, written to FILE (pstats).
    profile_path = os.environ.get("DUCKCOVER_PROFILE")
    profiler = cProfile.Profile() if profile_path else None

    def counted(cls, name: str, app_of):
        real = getattr(cls, name)

        def wrapper(self, *args, **kwargs):
            if app_of(self) is not watched[0]:
                return real(self, *args, **kwargs)
            kind = getattr(args[0], "TYPE", "") if name == "receive" else ""  # a protocol message's wire type
            if kind == "flip":
                window["open"] = False
            elif kind == "reveal":
                window["open"] = True
                spent.append(0.0)
            if window["depth"]:  # inside a counted call: counted there
                return real(self, *args, **kwargs)
            window["depth"] += 1
            start = time.thread_time()
            if profiler is not None and window["open"]:
                profiler.enable()
            try:
                return real(self, *args, **kwargs)
            finally:
                window["depth"] -= 1
                if profiler is not None:
                    profiler.disable()
                if window["open"]:
                    spent[-1] += time.thread_time() - start

        setattr(cls, name, wrapper)
        return real

    def written(app, screen, update) -> None:
        """What a terminal's app does with a frame: its text made (a headless app returns before;
        the painter's lines are drawn only then), the writing itself left out."""
        if update is not None and hasattr(update, "render_segments"):
            update.render_segments(app.console)
        real_display(app, screen, update)

    real_display = App._display
    App._display = written
    watched: list = [None]
    patched = [(App, "_display", real_display), (RemoteTable, "receive", counted(RemoteTable, "receive", lambda s: s.send.__self__)),
               (TextualScreen, "_compositor_refresh", counted(TextualScreen, "_compositor_refresh", lambda s: s.app)),
               (App, "_display", counted(App, "_display", lambda a: a)),
               (TableScreen, "painted", counted(TableScreen, "painted", lambda s: s.app))]  # the flow's steps
    try:
        with tempfile.TemporaryDirectory() as tmp:
            i18n.set_language("en")
            server = TableServer(Path(tmp), grace=30, pace=0)
            await server.start(Path(tmp) / "t.sock")
            apps = [RemoteApp(AppOptions(data_dir=Path(tmp), speed="instant"), str(Path(tmp) / "t.sock"),
                              server.issue_token(Identity(name))) for name in ("ann", "ben")]
            watched[0] = apps[0]
            async with apps[0].run_test(size=(80, 24)) as ann, apps[1].run_test(size=(80, 24)) as ben:
                table = await ann_and_ben_with_two_bots(server, apps, [ann, ben])
                for _ in range(40 * turns):
                    if table.game.turn_number >= turns or table.game.over:
                        break
                    await press_what_is_asked(apps[0], ann)  # Ann first
                    await ann.pause(0.05)
                    await press_what_is_asked(apps[1], ben)
                    await ann.pause(0.05)
            await server.close()
    finally:
        for cls, name, real in reversed(patched):  # (the first patch's original last)
            setattr(cls, name, real)
    if profiler is not None:
        profiler.dump_stats(profile_path)
    return spent[:-1]  # the last window may still be open


def stop_on_sigterm(_signum, _frame) -> None:
    """A SIGTERM (a `timeout` around the run) unwinds like Ctrl+C, so every `finally` stops its
    server: a killed run left a server and its 48 clients behind."""
    raise KeyboardInterrupt


def main() -> None:
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--players", type=int, nargs="+", default=[16, 32, 48],
                        help="player counts for the SSH reveal figure (4 a table), one run each")
    parser.add_argument("--memory-players", type=int, default=32, help="guests in the lobby for the memory figure")
    parser.add_argument("--tables", type=int, default=8, help="tables of protocol clients")
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--decisions", type=int, default=20)
    parser.add_argument("--ssh-turns", type=int, default=6, help="turns a table plays in the SSH reveal figure")
    parser.add_argument("--reveal-only", action="store_true", help="only the SSH reveal figure per --players")
    parser.add_argument("--memory-only", action="store_true", help="only the memory of --memory-players guests")
    parser.add_argument("--pace", choices=("step", "human"), default="step",
                        help="step: every table's seats choose in the same instant (the worst case); "
                             "human: think times as at a club (see the docstring)")
    parser.add_argument("--in-step-players", type=int, default=48,
                        help="with --pace human: players of the in-step worst case printed beside (0: none)")
    parser.add_argument("--pace-seed", type=int, default=33, help="with --pace human: the draws of think times")
    parser.add_argument("--client-cpu", type=int, metavar="TURNS", default=0,
                        help="only the CPU one client that is not choosing spends per reveal, in process, over TURNS turns")
    parser.add_argument("--clients", nargs="+", choices=("forked", "fresh"), default=["forked"],
                        help="how the server starts its guests' clients; with --memory-only or --launch-only, "
                        "each mode in turn, in the same run (the last line is the first mode's)")
    parser.add_argument("--launch-only", action="store_true",
                        help="only ssh connect -> lobby against a local launch, medians of --runs")
    args = parser.parse_args()
    CLIENTS[:] = args.clients
    if any(n < 4 or n > 4 * MAX_TABLES_LISTED for n in args.players):
        parser.error(f"--players: 4 to {4 * MAX_TABLES_LISTED} (4 a table)")
    if args.memory_only:
        asyncio.run(memory_only(args.memory_players))
        return
    if args.launch_only:
        asyncio.run(launch_only(args.runs))
        return
    if args.client_cpu:
        cpu = [seconds * 1000 for seconds in asyncio.run(client_cpu_per_reveal(args.client_cpu))]
        print(f"a client that is not choosing, per reveal (thread CPU: the reveal message and the frames up to "
              f"the next flip, 80x24, over {len(cpu)} reveals): median {statistics.median(cpu):.2f} ms, "
              f"mean {statistics.mean(cpu):.2f} ms")
        print(f"client_cpu_ms_per_reveal={statistics.median(cpu):.2f}")
        return
    if args.pace == "human":
        human_pace(args)
        return
    if not args.reveal_only:
        print_other_figures(args)
    p95 = float("nan")
    for players in args.players:
        figures = asyncio.run(ssh_reveal_latency(players, args.ssh_turns))
        p95 = percentile95(figures["latencies"])[0]
        tables = max(1, players // 4)
        print(f"{tables * 4} players (SSH at 80x24, by keys, {tables} tables x 4): last seat's keys -> every "
              f"terminal's reveal burst {reveal_summary(figures['latencies'])}; PSS per player at the tables "
              f"{figures['pss_mb_per_player']:.1f} MB (goal <= 35 MB); CPU of a client that chose earlier, "
              f"per reveal {figures['onlooker_cpu_ms_per_reveal']:.1f} ms (the seat whose keys end the turn: "
              f"{figures['last_seat_cpu_ms_per_reveal']:.1f} ms)", flush=True)
        print("  by turn of the run, p50 / p95 ms: " + ", ".join(
            f"{turn + 1}: {statistics.median(values) * 1000:.0f} / {percentile95(values)[0]:.0f}"
            for turn, values in sorted(figures["by_turn"].items())), flush=True)
        print("  a client's CPU per reveal by turn of the run, ms: " + ", ".join(
            f"{turn + 1}: {ms:.1f}" for turn, ms in sorted(figures["cpu_ms_by_turn"].items())), flush=True)
        cpu = figures["cpu_seconds"]
        print(f"  CPU while the tables played ({cpu['wall']:.1f} s wall): server {cpu['server']:.1f} s, "
              f"{tables * 4} clients {cpu['clients']:.1f} s, this benchmark {cpu['benchmark']:.1f} s", flush=True)
    print(f"ssh_reveal_p95_ms={p95:.1f}")


def human_pace(args) -> None:
    """--pace human: the club's figure for each --players count, then the in-step worst case."""
    in_step = float("nan")
    if args.in_step_players:
        in_step = percentile95(asyncio.run(ssh_reveal_latency(args.in_step_players, args.ssh_turns))["latencies"])[0]
    p95 = float("nan")
    for players in args.players:
        figures = asyncio.run(human_pace_reveal_latency(players, args.ssh_turns, args.pace_seed))
        p95 = percentile95(figures["latencies"])[0]
        print(f"{players // 4 * 4} players at a club's pace (SSH at 80x24, {players // 4} tables x 4 starting over "
              f"{figures['wall_s']:.0f} s; flip after {FLIP_THINK[0]}-{FLIP_THINK[1]} s, choices after "
              f"{CHOICE_THINK[0]:.0f}-{CHOICE_THINK[1]:.0f} s): last seat's keys -> every terminal's reveal burst "
              f"{reveal_summary(figures['latencies'])} ({capped(figures['latencies'])} of them no reveal on that terminal within "
              f"5 s: counted as 5 s); memory of all at the tables {figures['pss_mb_all']:.0f} MB PSS (goal <= "
              f"2048 MB), {figures['pss_mb_per_player']:.1f} MB a player", flush=True)
    if args.in_step_players:
        print(f"  worst case, {args.in_step_players} players in step (every table's seats choose in the same "
              f"instant): p95 {in_step:.1f} ms", flush=True)
    print(f"ssh_reveal_p95_ms={p95:.1f}")


def print_other_figures(args) -> None:
    figures = asyncio.run(ssh_figures(args.runs, args.memory_players, args.turns))
    p95 = percentile95(asyncio.run(reveal_latency(args.tables, args.decisions)))
    print(f"local launch (pty 120x40, to the table):  {figures['local_launch_ms']:.0f} ms")
    print(f"ssh connect -> lobby:                     {figures['connect_to_lobby_ms']:.0f} ms "
          f"({figures['launch_ratio']:.2f}x the local launch; goal <= 1.3x)")
    print(f"ssh join -> first table frame:            {figures['join_to_table_ms']:.0f} ms "
          f"({figures['join_to_table_ms'] / figures['local_launch_ms']:.2f}x the local launch)")
    print(f"bytes per turn, one player at 120x40:     {figures['bytes_per_turn']:.0f}")
    print(f"memory per player ({figures['players_connected']} connected):        "
          f"{figures['mb_per_player']:.1f} MB PSS (total {figures['mb_total']:.0f} MB; each client's RSS "
          f"{figures['rss_mb_per_client']:.0f} MB; goal <= 60 MB)")
    print(f"protocol clients, no SSH: last choice -> every reveal, {args.tables} tables x 4: p95 {p95[0]:.1f} ms "
          f"over {p95[1]} reveals (goal <= 200 ms)", flush=True)


async def memory_only(players: int) -> None:
    first = None
    for clients in CLIENTS:
        with tempfile.TemporaryDirectory() as tmp:
            proc, port = start_server(Path(tmp), "--max-connections", str(max(players, 4)), clients=clients)
            try:
                figures = await memory(proc.pid, port, players)
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(20)
        first = first or figures
        print(f"memory per guest, {clients} clients ({figures['players_connected']} connected, lobby at 120x40): "
              f"{figures['mb_per_player']:.1f} MB PSS (total {figures['mb_total']:.0f} MB, with the server's growth "
              f"and the warm parent; each client's RSS {figures['rss_mb_per_client']:.0f} MB)", flush=True)
    print(f"pss_mb_per_guest={first['mb_per_player']:.1f}")


async def launch_only(runs: int) -> None:
    """Connect -> lobby over SSH against a local launch, alternating, in the same run, for each
    --clients mode; medians of --runs."""
    ratios = []
    for clients in CLIENTS:
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp)
            proc, port = start_server(data, clients=clients)
            loop = asyncio.get_running_loop()
            try:
                await loop.run_in_executor(None, local_launch, data / "warm")  # caches warm
                local, lobby = [], []
                for run in range(runs):
                    local.append(await loop.run_in_executor(None, local_launch, data / f"l{run}"))
                    start = time.perf_counter()
                    session = await Session.open(port, f"g{run}")
                    await session.wait_for(b"Tables on this server")
                    lobby.append(time.perf_counter() - start)
                    session.close()
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(20)
        ratio = statistics.median(lobby) / statistics.median(local)
        ratios.append(ratio)
        print(f"{clients} clients: ssh connect -> lobby {statistics.median(lobby) * 1000:.0f} ms, local launch "
              f"{statistics.median(local) * 1000:.0f} ms (pty 120x40, medians of {runs}): {ratio:.2f}x", flush=True)
    print(f"lobby_to_launch={ratios[0]:.2f}")


def reveal_summary(latencies: list[float]) -> str:
    """p50 and p95 of reveal latencies in seconds, in words."""
    p95, count = percentile95(latencies)
    p50 = statistics.median(latencies) * 1000 if latencies else float("nan")
    return f"p50 {p50:.1f} ms, p95 {p95:.1f} ms over {count} reveals (goal <= 200 ms)"


def capped(latencies: list[float]) -> int:
    """How many terminals saw no reveal burst begin within burst_after's `first` (5 s)."""
    return sum(1 for latency in latencies if latency >= 5.0 - 1e-9)


def percentile95(latencies: list[float]) -> tuple[float, int]:
    """(p95 in ms, how many) of latencies in seconds."""
    ordered = sorted(latencies)
    return (ordered[int(0.95 * (len(ordered) - 1))] * 1000 if ordered else float("nan")), len(ordered)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        print("serve.py: interrupted; its servers were stopped", file=sys.stderr)
        raise SystemExit(130)
