"""The browser door beside the SSH door: what a guest's screen costs on the wire, and in memory.

Usage: python benchmarks/web.py [--keys N] [--guests N] | --reveal PLAYERS [--turns N]

- bytes per cursor key and per watched game: a table server, its SSH door and its web door in
  this process (`--speed instant`, each guest's terminal 80x24), each guest reached through a
  counting TCP relay on 127.0.0.1 (so "wire" is every byte the guest's socket received: SSH's
  encryption and packets, or the WebSocket's frames over plain HTTP; "payload" is the terminal
  bytes the door delivered). A protocol client (no terminal) hosts a table of 4 (itself, two open
  seats, a medium bot); one SSH guest and one web guest join it by keys. When both are asked
  to choose, each picks its card (Enter) and then sends --keys cursor keys (Right and Left in
  turn), each followed by 0.3 s of quiet: the bytes each key brought, averaged over the keys
  that moved the cursor. Then the same table host plays a whole game against bots at a new
  table while one SSH guest and one web guest watch it from the lobby (`w`): the bytes each
  received from their `w` to Game over.
- PSS per guest in the lobby: the real `duckcover serve --web` command, --guests web guests,
  then as many SSH guests: each client process's PSS, and the server's growth, shared out.
- with --reveal PLAYERS: only benchmarks/serve.py's reveal latency (tables of 4, set up and played
  by keys, 80x24, instant), half the guests at the web door; last line `mixed_reveal_p95_ms=...`.
The last line is `web_bytes_per_key=...` (the web guest's wire bytes per cursor key).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import asyncssh
import pyte

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve import client_pids, pss_kb  # noqa: E402
from serve_helpers import Guest, ProtocolClient, play_until  # noqa: E402

SIZE = (80, 24)
RIGHT, LEFT = b"\x1b[C", b"\x1b[D"
SOCK: list[Path] = []  # the in-process table server's socket


class Relay:
    """A TCP relay on 127.0.0.1 that counts the bytes each way (`down`: to the guest)."""

    def __init__(self, port: int) -> None:
        self.target, self.down, self.up = port, 0, 0

    async def start(self) -> int:
        self.server = await asyncio.start_server(self.pair, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def pair(self, reader, writer) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)

        async def pump(source, sink, down: bool) -> None:
            try:
                while data := await source.read(65536):
                    if down:
                        self.down += len(data)
                    else:
                        self.up += len(data)
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                sink.close()

        await asyncio.gather(pump(up_reader, writer, True), pump(reader, up_writer, False))


class Terminal:
    """A guest's screen: bytes in, a terminal model, and the payload counted."""

    def __init__(self) -> None:
        self.screen = pyte.Screen(*SIZE)
        self.stream = pyte.ByteStream(self.screen)
        self.payload = 0
        self.last = time.monotonic()

    def feed(self, data: bytes) -> None:
        self.payload += len(data)
        self.last = time.monotonic()
        self.stream.feed(data)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def shows(self, pattern: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.text()):
            if time.monotonic() > deadline:
                raise RuntimeError(f"never showed {pattern!r}:\n{self.text()}")
            await asyncio.sleep(0.05)

    async def quiet(self, seconds: float = 0.3, cap: float = 10) -> None:
        start = time.monotonic()
        while time.monotonic() - self.last < seconds and time.monotonic() - start < cap:
            await asyncio.sleep(0.02)


class SshGuest(Terminal):
    async def open(self, port: int, user: str) -> "SshGuest":
        self.conn = await asyncssh.connect("127.0.0.1", port, username=user, known_hosts=None, client_factory=Guest,
                                           client_keys=None, agent_path=None)
        self.process = await self.conn.create_process(term_type="xterm-256color", term_size=SIZE, encoding=None)
        self.reader = asyncio.get_running_loop().create_task(self.read())
        return self

    async def read(self) -> None:
        while chunk := await self.process.stdout.read(65536):
            self.feed(chunk)

    def key(self, data: bytes) -> None:
        self.process.stdin.write(data)

    def close(self) -> None:
        self.reader.cancel()
        self.conn.close()


class WebGuest(Terminal):
    async def open(self, port: int, user: str) -> "WebGuest":
        self.session = aiohttp.ClientSession()
        self.ws = await self.session.ws_connect(f"http://127.0.0.1:{port}/ws", headers={"Origin": f"http://127.0.0.1:{port}"},
                                                max_msg_size=0)
        await self.ws.send_str(json.dumps({"type": "login", "name": user, "cols": SIZE[0], "rows": SIZE[1]}))
        self.reader = asyncio.get_running_loop().create_task(self.read())
        return self

    async def read(self) -> None:
        async for message in self.ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.feed(message.data)

    def key(self, data: bytes) -> None:
        asyncio.get_running_loop().create_task(self.ws.send_bytes(data))

    async def aclose(self) -> None:
        self.reader.cancel()
        await self.ws.close()
        await self.session.close()


async def in_process_doors(data: Path):
    from duckcover.net import sshfront, webfront
    from duckcover.net.guestpty import Front
    from duckcover.net.server import TableServer

    tables = TableServer(data, pace=0, grace=600)
    sock = data / "tables.sock"
    await tables.start(sock)
    SOCK[:] = [sock]
    front = Front(tables, sock, 32, None, 0, "127.0.0.1", "instant")
    acceptor = await sshfront.start(front, "127.0.0.1", 0, sshfront.load_host_key(data / "host_key"))
    front.port = acceptor.sockets[0].getsockname()[1]
    runner = await webfront.start(webfront.WebDoor(front), "127.0.0.1", 0)
    return tables, front, acceptor, runner


async def cursor_keys(tables, ssh_relay: Relay, web_relay: Relay, keys: int) -> dict:
    from duckcover.net.sessions import Identity

    host = await ProtocolClient.connect(SOCK[0], tables.issue_token(Identity("host")))
    await host.until("welcome")
    host.send("create", seats=["human", "human", "human", "medium"], name="keys")
    await host.until("seated")
    ssh, web = await SshGuest().open(await ssh_relay.start(), "sam"), await WebGuest().open(await web_relay.start(), "wendy")
    for guest in (ssh, web):
        await guest.shows("keys")
        guest.key(b"j")
    done = asyncio.Event()
    playing = asyncio.get_running_loop().create_task(play_until([host], done.is_set, timeout=600))
    figures = {}
    for guest, relay, door in ((ssh, ssh_relay, "ssh"), (web, web_relay, "web")):
        await guest.shows("Round 1")
        await guest.quiet(1.0)
        guest.key(b" ")  # the Captain flips (anyone else: nothing)
        await guest.quiet(1.0)
        guest.key(b"\r")  # the card: the cursor walks the legal cells from here
        await guest.quiet(1.0)
        payloads, wires = [], []
        for n in range(keys):
            payload, wire = guest.payload, relay.down
            guest.key(RIGHT if n % 2 == 0 else LEFT)
            await asyncio.sleep(0.05)
            await guest.quiet(0.3)
            if guest.payload > payload:
                payloads.append(guest.payload - payload)
                wires.append(relay.down - wire)
        figures[door] = (payloads, wires)
    done.set()
    await asyncio.gather(playing, return_exceptions=True)
    await host.close()
    ssh.close()
    await web.aclose()
    return figures


async def watched_game(tables, ssh_relay: Relay, web_relay: Relay) -> dict:
    from duckcover.net.sessions import Identity

    ssh, web = await SshGuest().open(await ssh_relay.start(), "sally"), await WebGuest().open(await web_relay.start(), "wanda")
    await ssh.shows("Tables on this server")
    await web.shows("Tables on this server")
    host = await ProtocolClient.connect(SOCK[0], tables.issue_token(Identity("hostess")))
    await host.until("welcome")
    host.send("create", seats=["human", "human", "medium"], name="watched")
    await host.until("seated")
    for guest in (ssh, web):
        guest.key(b"r")  # the lobby again, with the new table
        await guest.shows("watched")
    start = {"ssh": (ssh.payload, ssh_relay.down), "web": (web.payload, web_relay.down)}
    for guest in (ssh, web):
        guest.key(b"w")
        await asyncio.sleep(0.5)
        await guest.quiet(1.0)
    partner = await ProtocolClient.connect(SOCK[0], tables.issue_token(Identity("partner")))
    await partner.until("welcome")
    partner.send("join", table=next(t for t, table in tables.tables.items() if table.name == "watched"))
    await play_until([host, partner], lambda: False, timeout=600)
    for guest in (ssh, web):
        await guest.shows("Game over|wins", timeout=120)
        await guest.quiet(1.0)
    figures = {"ssh": (ssh.payload - start["ssh"][0], ssh_relay.down - start["ssh"][1]),
               "web": (web.payload - start["web"][0], web_relay.down - start["web"][1])}
    await host.close()
    await partner.close()
    ssh.close()
    await web.aclose()
    return figures


async def with_doors(measure, *args):
    """`measure(tables, ssh relay, web relay, *args)` against doors of a fresh server of its own."""
    with tempfile.TemporaryDirectory() as folder:
        tables, front, acceptor, runner = await in_process_doors(Path(folder))
        try:
            return await measure(tables, Relay(front.port), Relay(runner.addresses[0][1]), *args)
        finally:
            front.stop_sessions()
            acceptor.close()
            await runner.cleanup()
            await tables.close()


async def bytes_figures(keys: int) -> None:
    keyed = await with_doors(cursor_keys, keys)
    for door in ("ssh", "web"):
        payloads, wires = keyed[door]
        print(f"{door}: per cursor key (80x24, {len(payloads)} of {keys} keys moved the cursor): payload "
              f"{statistics.mean(payloads):.0f} B, wire {statistics.mean(wires):.0f} B "
              f"(median {statistics.median(wires):.0f})", flush=True)
    watched = await with_doors(watched_game)
    for door in ("ssh", "web"):
        payload, wire = watched[door]
        print(f"{door}: a watched game (3 rounds, 80x24, from `w` to Game over): payload {payload / 1000:.1f} kB, "
              f"wire {wire / 1000:.1f} kB", flush=True)
    print(f"web_bytes_per_key={statistics.mean(keyed['web'][1]):.0f}")


def start_server(data: Path, *extra: str) -> tuple[subprocess.Popen, int, int]:
    """The real command: its process, its SSH port and its web port."""
    proc = subprocess.Popen([sys.executable, "-m", "duckcover", "serve", "--port", "0", "--data-dir", str(data), *extra],
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "DUCKCOVER_DATA": str(data)})
    web_port = None
    for line in proc.stdout:
        if match := re.search(r"in a browser at: +http://[^:]+:(\d+)/", line):
            web_port = int(match.group(1))
        if match := re.search(r"ssh -p (\d+)", line):
            return proc, int(match.group(1)), web_port
    raise RuntimeError("the server did not start")


async def memory(guests: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        proc, ssh_port, web_port = start_server(Path(folder), "--web", "127.0.0.1:0",
                                                "--max-connections", str(2 * guests + 2))
        try:
            base = pss_kb(proc.pid)
            for door in ("web", "ssh"):
                opened = []
                for n in range(guests):
                    guest = WebGuest() if door == "web" else SshGuest()
                    await guest.open(web_port if door == "web" else ssh_port, f"{door}{n}")
                    await guest.shows("Tables on this server")
                    opened.append(guest)
                await asyncio.sleep(2.0)
                clients = client_pids(proc.pid)
                client_pss = sum(pss_kb(pid) for pid in clients) / max(1, len(clients))
                server_growth = (pss_kb(proc.pid) - base) / guests
                print(f"{door}: {guests} guests in the lobby: client PSS {client_pss / 1024:.1f} MB each; "
                      f"the server grew {server_growth:.0f} kB a guest", flush=True)
                for guest in opened:
                    await guest.aclose() if door == "web" else guest.close()
                await asyncio.sleep(3.0)
                base = pss_kb(proc.pid)
        finally:
            proc.terminate()
            proc.wait(10)


class WebStdout:
    """A web guest's output read as an SSH process's stdout is (`read(n)`: the next piece; a
    read cancelled by a time-out loses nothing: one task receives, a queue holds the pieces)."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.pieces: asyncio.Queue[bytes] = asyncio.Queue()
        self.task = asyncio.get_running_loop().create_task(self.receive())

    async def receive(self) -> None:
        async for message in self.ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.pieces.put_nowait(message.data)
        self.pieces.put_nowait(b"")

    async def read(self, _n: int = -1) -> bytes:
        return await self.pieces.get()


class WebSession:
    """benchmarks/serve.py's Session, through the web door: what its reveal benchmark uses."""

    def __init__(self, http, ws) -> None:
        self.http, self.ws = http, ws
        self.process = self  # (session.process.stdout.read, as an SSH session is read)
        self.stdout = WebStdout(ws)
        self.seen = bytearray()
        self.received = 0

    @classmethod
    async def open(cls, port: int, user: str, size: tuple[int, int]) -> "WebSession":
        http = aiohttp.ClientSession()
        ws = await http.ws_connect(f"http://127.0.0.1:{port}/ws", headers={"Origin": f"http://127.0.0.1:{port}"},
                                   max_msg_size=0)
        await ws.send_str(json.dumps({"type": "login", "name": user, "cols": size[0], "rows": size[1]}))
        return cls(http, ws)

    def key(self, data: bytes) -> None:
        asyncio.get_running_loop().create_task(self.ws.send_bytes(data))

    def close(self) -> None:
        loop = asyncio.get_running_loop()
        loop.create_task(self.ws.close())
        loop.create_task(self.http.close())


def mixed_reveal_p95(players: int, turns: int) -> None:
    """benchmarks/serve.py's reveal latency (tables of 4 set up and played by keys, 80x24,
    --speed instant) with half the guests at the web door: at each table the host and its third
    guest by SSH, the first and second guests in by the web door."""
    import serve

    ssh_open, web_port = serve.Session.open, []

    def start_with_web(data: Path, *extra: str):
        proc, ssh_port, port = start_server(data, *extra, "--web", "127.0.0.1:0")
        web_port[:] = [port]
        return proc, ssh_port

    async def open_either(port: int, user: str, size=serve.SIZE):
        if re.fullmatch(r"g\d+x[01]", user):
            return await WebSession.open(web_port[0], user, size)
        return await ssh_open(port, user, size=size)

    serve.start_server, serve.Session.open = start_with_web, open_either
    figures = asyncio.run(serve.ssh_reveal_latency(players, turns))
    p95, count = serve.percentile95(figures["latencies"])
    p50 = statistics.median(figures["latencies"]) * 1000
    print(f"reveal, {players} players ({players // 2} by SSH, {players // 2} by the web door, {players // 4} tables), "
          f"{count} samples: p50 {p50:.1f} ms, p95 {p95:.1f} ms; load average before: {os.getloadavg()[0]:.1f}", flush=True)
    print(f"mixed_reveal_p95_ms={p95:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=20)
    parser.add_argument("--guests", type=int, default=8)
    parser.add_argument("--reveal", type=int, metavar="PLAYERS",
                        help="only the reveal latency with PLAYERS guests, half of them at the web door")
    parser.add_argument("--turns", type=int, default=6)
    args = parser.parse_args()
    os.environ.setdefault("DUCKCOVER_LANG", "en")
    if args.reveal:
        print(f"load average at the start: {os.getloadavg()}", flush=True)
        mixed_reveal_p95(args.reveal, args.turns)
        return
    asyncio.run(bytes_figures(args.keys))
    asyncio.run(memory(args.guests))


if __name__ == "__main__":
    main()
