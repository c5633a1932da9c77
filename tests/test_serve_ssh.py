"""`duckcover serve` as users meet it: the real command, reached over SSH on 127.0.0.1.

One test drives the real OpenSSH client in a pty; the others use asyncssh's client. Every
load here is bounded in count and time, and every port is chosen free by the server (--port 0).
"""
from __future__ import annotations

import asyncio
import json
import os
import pty
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import asyncssh
import pyte
import pytest

from serve_helpers import Guest

SSH = shutil.which("ssh")
MAX = 4  # --max-connections of the server under test
# Blind keys that play a turn: flip if Captain; Enter (picks a card, or takes the cursor's
# cell); then an arrow to a legal cell and Enter, each way round (where the cursor starts on
# the moving card, arrows walk the legal cells; once chosen, more keys do nothing).
CHOOSE = b" \r\x1b[C\r\x1b[B\r\x1b[D\r\x1b[A\r"


def start_server(data: Path, *extra: str) -> tuple[subprocess.Popen, int, list[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "duckcover", "serve", "--port", "0", "--data-dir", str(data), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "DUCKCOVER_DATA": str(data), "DUCKCOVER_LANG": "en"},
    )
    lines = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if "players join with" in line:
            port = int(re.search(r"ssh -p (\d+)", line).group(1))
            return proc, port, lines
    proc.kill()
    raise AssertionError(f"the server did not start: {lines}")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    data = tmp_path_factory.mktemp("serve")
    proc, port, lines = start_server(data, "--max-connections", str(MAX), "--grace", "1")
    yield port, data, lines
    stop(proc)
    assert proc.returncode == 0  # SIGTERM: a clean stop


# A flip's line in the log, up to where an 80x24 screen's log wraps it (before "(Captain ann)").
FLIP_LINE = re.compile(r"Round (\d+), flip (\d+): (\w+(?: \+ \w+)?)")


def log_flips(screen: bytes) -> dict[tuple[int, int], str]:
    """The flips a screen's log showed, from the bytes it was sent: (round, flip) -> card(s).
    A line may be painted again (the log jumps by half a page): the same line."""
    text = re.sub(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78])", "",
                  screen.decode("utf-8", "replace"))
    return {(int(r), int(t)): card for r, t, card in FLIP_LINE.findall(text)}


def record_flips(record: dict) -> dict[tuple[int, int], str]:
    from duckcover.app.words import flip_word
    from duckcover.engine import parse_flip

    lines = {}
    for r, entry in enumerate(record["rounds"], start=1):
        for t, turn in enumerate(entry["turns"], start=1):
            codes = turn["flip"] if isinstance(turn["flip"], list) else [turn["flip"]]
            lines[(r, t)] = " + ".join(flip_word(parse_flip(c)) for c in codes)
    return lines


async def connect(port: int, user: str = "ann", **options):
    options.setdefault("client_keys", None)
    return await asyncssh.connect("127.0.0.1", port, username=user, known_hosts=None, client_factory=Guest,
                                  agent_path=None, **options)


_SCREENS: dict[int, tuple[pyte.Screen, pyte.ByteStream, list[int], list[str], bytearray, list[str]]] = {}


def painted_lines(seen: bytearray) -> list[str]:
    """Every line the terminal that received `seen` has shown so far, read off a terminal
    model after each piece fed to it. The app sends only the cells that change
    (duckcover/app/render/lean_output.py), so a line of text may reach the wire in pieces around
    cells already on screen: the bytes alone do not hold it."""
    entry = _SCREENS.get(id(seen))
    if entry is None or entry[4] is not seen:  # an id is reused once its bytearray is gone
        screen = pyte.Screen(120, 40)
        entry = _SCREENS[id(seen)] = (screen, pyte.ByteStream(screen), [0], [], seen, [""])
    screen, stream, fed, history, _, now = entry
    end = len(seen)
    if SYNC_START in seen:  # frames come bracketed: a read may end mid-frame, so whole frames only
        last = seen.rfind(SYNC_END)
        end = last + len(SYNC_END) if last >= fed[0] else fed[0]
    if fed[0] < end:
        stream.feed(bytes(seen[fed[0]:end]))
        fed[0] = end
        display = screen.display  # pyte builds it anew at each call: once a feed
        history.extend(line for line in display if line.strip())
        now[0] = "\n".join(display)
    return history


def screen_now(seen: bytearray) -> str:
    """What the terminal that received `seen` shows now (its whole frames so far)."""
    painted_lines(seen)
    return _SCREENS[id(seen)][5][0]


def shows(seen: bytearray, text: bytes) -> bool:
    """Whether `text` went out in one piece or the terminal model showed it on a line."""
    if text in seen:
        return True
    return text.decode() in screen_now(seen)


async def read_until(stream, text: bytes, seen: bytearray, timeout: float = 30.0) -> bytes:
    deadline = time.monotonic() + timeout
    while not shows(seen, text):
        left = deadline - time.monotonic()
        assert left > 0, f"never saw {text!r}; got {bytes(seen[-400:])!r}"
        chunk = await asyncio.wait_for(stream.read(65536), left)
        if not chunk:
            raise AssertionError(f"closed before {text!r}; got {bytes(seen[-400:])!r}")
        seen += chunk
    return bytes(seen)


async def return_login(stream, seen: bytearray, user: str, timeout: float = 30.0) -> str:
    """The login a keyless player was shown on her own screen to come back to her seat."""
    pattern = re.compile(re.escape(user) + r"\+[A-Z2-9]{6}")
    deadline = time.monotonic() + timeout
    while not (found := pattern.search("\n".join(painted_lines(seen)))):
        left = deadline - time.monotonic()
        assert left > 0, f"no return code on screen; got {bytes(seen[-400:])!r}"
        chunk = await asyncio.wait_for(stream.read(65536), left)
        assert chunk, "closed before the return code was shown"
        seen += chunk
    return found.group(0)


async def until_screen(stream, seen: bytearray, pattern: re.Pattern, timeout: float = 30.0) -> None:
    """Read until the terminal's current screen (not only its history) matches `pattern`."""
    deadline = time.monotonic() + timeout
    while True:
        if pattern.search(screen_now(seen)):
            return
        left = deadline - time.monotonic()
        assert left > 0, f"the screen never matched {pattern.pattern!r}: " + screen_now(seen)
        try:
            chunk = await asyncio.wait_for(stream.read(65536), min(left, 0.5))
        except asyncio.TimeoutError:
            continue
        assert chunk, f"closed before the screen matched {pattern.pattern!r}"
        seen += chunk


# Prompts while the others act: keys do nothing then but cost the client a look (and the test
# a frame to read), so a player who sees one waits.
WAITING = ("Waiting for the other players", "(Captain) is flipping", "is Captain: press Space")


async def play_by_keys(procs, seen: list[bytearray], done, what: str, timeout: float = 240) -> None:
    """Each terminal is sent CHOOSE (a turn by keys, or past a round's scorepad) when its screen
    asks something of it, until done(): once, then again only when its screen has changed since
    (the keys took effect, or the game moved on) or after a second without a change (the keys came
    too early: sent again). Not a flood of keys the client must each look at and redraw for."""
    deadline = time.monotonic() + timeout
    sent_at = [0.0] * len(procs)
    changed = [True] * len(procs)
    while not done():
        assert time.monotonic() < deadline, f"{what}: " + " || ".join(screen_now(s) for s in seen)
        for index, process in enumerate(procs):
            if any(words in screen_now(seen[index]) for words in WAITING):
                continue
            if changed[index] or time.monotonic() - sent_at[index] > 1.0:
                process.stdin.write(CHOOSE)
                sent_at[index], changed[index] = time.monotonic(), False
        await asyncio.sleep(0.1)
        for index, process in enumerate(procs):
            try:
                chunk = await asyncio.wait_for(process.stdout.read(1 << 20), 0.02)
            except asyncio.TimeoutError:
                continue
            if chunk:
                seen[index] += chunk
                changed[index] = True


async def game_session(conn, size=(100, 32)):
    return await conn.create_process(term_type="xterm-256color", term_size=size, encoding=None)


async def ann_opens_a_table_and_ben_joins(a, b) -> tuple[bytearray, bytearray]:
    """By keys: Ann creates a table with the default seats, Ben's lobby lists it, he joins.
    What each terminal was sent so far."""
    seen_a, seen_b = bytearray(), bytearray()
    await read_until(a.stdout, b"Tables on this server", seen_a)
    a.stdin.write(b"c")
    await read_until(a.stdout, b"A new table", seen_a)
    a.stdin.write(b"\x13")
    await read_until(a.stdout, b"waiting for players", seen_a)
    await read_until(b.stdout, b"ann's table", seen_b)  # Ben's lobby lists the table
    b.stdin.write(b"j")
    return seen_a, seen_b


# Synchronized output (DEC mode 2026): a terminal that has it (most do today) is sent every frame
# between these two, and shows it at the second; Textual asks at start and uses it if told yes.
SYNC_START, SYNC_END, SYNC_SUPPORTED = b"\x1b[?2026h", b"\x1b[?2026l", b"\x1b[?2026;2$y"


# --- the server's face -----------------------------------------------------------------------
def test_start_prints_the_ssh_command_and_a_host_key_kept_private_and_reused(served, tmp_path):
    port, data, lines = served
    text = "".join(lines)
    assert f"ssh -p {port} NAME@127.0.0.1" in text
    fingerprint = re.search(r"fingerprint: (SHA256:\S+)", text).group(1)
    key = data / "serve" / "ssh_host_ed25519_key"
    assert key.stat().st_mode & 0o777 == 0o600
    assert asyncssh.read_private_key(str(key)).get_fingerprint() == fingerprint


@pytest.mark.skipif(SSH is None, reason="needs the OpenSSH client")
def test_the_real_openssh_client_reaches_the_lobby_and_creates_a_table(served):
    port, _, _ = served
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(SSH, [SSH, "-p", str(port), "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                       "-o", "LogLevel=ERROR", "-o", "BatchMode=no", "-o", "PubkeyAuthentication=no",
                       "-tt", "olga@127.0.0.1"])
    seen = bytearray()

    def wait_for(text: bytes, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        # Read off the terminal model too: the lean output can send a line in pieces.
        while text not in seen and text.decode() not in "\n".join(painted_lines(seen)):
            left = deadline - time.monotonic()
            assert left > 0, f"never saw {text!r}: {bytes(seen[-300:])!r}"
            if not select.select([fd], [], [], min(left, 0.5))[0]:
                continue  # nothing yet: a read now would block past the deadline
            try:
                seen.extend(os.read(fd, 65536))
            except OSError:
                raise AssertionError(f"ssh ended before {text!r}: {bytes(seen[-300:])!r}") from None

    try:
        wait_for(b"Tables on this server")
        wait_for(b"olga")
        os.write(fd, b"c")  # create a table: you + an open seat + 2 medium bots
        wait_for(b"A new table")
        os.write(fd, b"\x13")  # Ctrl+S
        wait_for(b"waiting for players")
    finally:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        os.close(fd)


# --- only the game ---------------------------------------------------------------------------
async def test_exec_sftp_forwarding_and_sessions_without_a_pty_are_refused(served):
    port, _, _ = served
    async with await connect(port) as conn:
        result = await conn.run("ls /", check=False)
        assert result.exit_status == 1
        assert result.stdout.count("\n") == 1 and "only runs the game" in result.stdout
        result = await conn.run(check=False)  # a shell without a pty
        assert result.exit_status == 1 and "needs a terminal" in result.stdout
        with pytest.raises(asyncssh.ChannelOpenError):
            async with conn.start_sftp_client():
                pass
        with pytest.raises(asyncssh.ChannelOpenError):  # the SSH port itself listens: still refused
            await conn.create_connection(asyncssh.SSHTCPSession, "127.0.0.1", port)
        with pytest.raises(asyncssh.ChannelListenError):
            await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", port)


async def test_a_user_name_with_escape_sequences_is_refused_and_markup_is_shown_as_text(served, monkeypatch):
    port, _, _ = served
    evil = "\x1b]0;pwned\x07\x1b[2Jmallory"
    monkeypatch.setattr(asyncssh.connection, "saslprep", lambda text: text)  # our client sends it as is
    with pytest.raises(asyncssh.Error):  # the SSH layer refuses control characters in a user name
        async with await connect(port, user=evil):
            pass
    async with await connect(port, user="[red]mal[/]") as conn:
        process = await game_session(conn)
        seen = bytearray()
        await read_until(process.stdout, b"Tables on this server", seen)
        await read_until(process.stdout, b"you are [red]mal[/])", seen)  # literally, not as markup
        process.close()


# --- load and abuse --------------------------------------------------------------------------
async def test_200_simultaneous_connections_the_limit_holds_and_the_excess_get_one_line(served):
    port, _, _ = served

    async def attempt(index: int):
        try:
            # From 50 loopback addresses: one address has only a few logins under way at once
            # (sshfront.PREAUTH_PER_SOURCE; tests/test_serve_attacks.py).
            conn = await connect(port, user=f"p{index}", connect_timeout=40, local_addr=(f"127.0.0.{2 + index % 50}", 0))
        except (OSError, asyncssh.Error):
            return "refused", None
        process = await game_session(conn)
        seen = bytearray()
        try:
            while True:
                chunk = await asyncio.wait_for(process.stdout.read(65536), 40)
                if not chunk:
                    return "line", bytes(seen)
                seen += chunk
                if b"\x1b[" in seen:  # a full-screen client started
                    return "game", conn
        except asyncio.TimeoutError:
            return "silent", bytes(seen)

    results = await asyncio.wait_for(asyncio.gather(*(attempt(i) for i in range(200))), 90)
    games = [conn for kind, conn in results if kind == "game"]
    lines = [out for kind, out in results if kind == "line"]
    assert len(games) <= MAX and len(games) + len(lines) == 200  # every excess attempt was told why
    assert lines and all(out.count(b"\n") == 1 and b"server is full" in out for out in lines)
    for conn in games:
        conn.close()
    await asyncio.sleep(1)
    async with await connect(port, user="after") as conn:  # still responsive
        process = await game_session(conn)
        await read_until(process.stdout, b"Tables on this server", bytearray())
        process.close()


async def test_garbage_and_a_keystroke_flood_32_times_the_input_buffer_break_nothing(served):
    """Garbage at the SSH port, then keystrokes far past what a session holds for its client
    (guestpty.INPUT_BUFFER_MAX, 64 kB; the rest is dropped): 2 MB, 32 times over. (It was 10 MB:
    past the bound, more only cost the server's decryption.)"""
    from duckcover.net.guestpty import INPUT_BUFFER_MAX

    port, _, _ = served
    for garbage in (os.urandom(4096), b"SSH-2.0-x\r\n" + os.urandom(65536), b"\x00" * 100):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            try:
                raw.sendall(garbage)
                raw.recv(1024)
            except OSError:
                pass
    async with await connect(port, user="flood") as conn:
        process = await game_session(conn)
        seen = bytearray()
        await read_until(process.stdout, b"Tables on this server", seen)
        chunk = b"jwxr\x1b[A" * 1024
        for _ in range((32 * INPUT_BUFFER_MAX) // len(chunk)):
            process.stdin.write(chunk)
            await process.stdin.drain()
        process.close()
    async with await connect(port, user="after-flood") as conn:
        process = await game_session(conn)
        await read_until(process.stdout, b"Tables on this server", bytearray())
        process.close()


# --- resilience through SSH --------------------------------------------------------------------
async def test_killed_server_restarts_with_its_tables_and_a_player_returns_to_her_seat(tmp_path):
    proc, port, _ = start_server(tmp_path, "--grace", "60")
    try:
        async with await connect(port, user="ann") as ann, await connect(port, user="ben") as ben:
            a, b = await game_session(ann), await game_session(ben)
            seen_a, seen_b = await ann_opens_a_table_and_ben_joins(a, b)
            await read_until(b.stdout, b"Round 1 begins", seen_b)
            await read_until(a.stdout, b"press Space", seen_a)
            login = await return_login(b.stdout, seen_b, "ben")  # ben has no key: his code holds his seat
            tables = tmp_path / "serve" / "tables"
            record_path = next(p for p in tables.glob("*.json") if not p.name.endswith(".table.json"))
            deadline = time.monotonic() + 40
            while len(json.loads(record_path.read_text())["rounds"][0]["turns"]) < 2:
                assert time.monotonic() < deadline, "no turn was played"
                a.stdin.write(CHOOSE)
                b.stdin.write(CHOOSE)
                await asyncio.sleep(0.3)
            ben.abort()  # Ben's connection dies mid-turn; he comes back to his seat
            async with await connect(port, user="ben") as impostor:  # his name alone is not enough
                process = await game_session(impostor)
                seen = bytearray()
                await read_until(process.stdout, b"Tables on this server", seen)
                await read_until(process.stdout, b"playing", seen)
                assert not shows(seen, b"Game resumed")
            async with await connect(port, user=login) as again:
                process = await game_session(again)
                await read_until(process.stdout, b"Game resumed", bytearray())
                await read_until(a.stdout, b"ben is back", seen_a)
            os.kill(proc.pid, signal.SIGKILL)  # mid-round, no goodbye
            proc.wait()
            before = json.loads(record_path.read_text())
    finally:
        if proc.poll() is None:
            proc.kill()
    proc, port, lines = start_server(tmp_path, "--grace", "60")
    try:
        assert any("1 table(s) restored" in line for line in lines)
        async with await connect(port, user=login) as ben:
            b = await game_session(ben)
            seen = bytearray()
            await read_until(b.stdout, b"Game resumed", seen)  # straight back to his seat
            assert json.loads(record_path.read_text())["rounds"] == before["rounds"]
    finally:
        stop(proc)


async def test_authorized_keys_let_in_only_those_keys(tmp_path):
    friend, stranger = asyncssh.generate_private_key("ssh-ed25519"), asyncssh.generate_private_key("ssh-ed25519")
    keys = tmp_path / "authorized_keys"
    keys.write_text('from="127.0.0.1" ' + friend.export_public_key().decode() + "\n# a comment\n")
    missing = subprocess.run([sys.executable, "-m", "duckcover", "serve", "--authorized-keys", str(tmp_path / "none")],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "cannot read" in missing.stderr
    proc, port, _ = start_server(tmp_path / "data", "--authorized-keys", str(keys))
    try:
        for key in (stranger, None):
            with pytest.raises(asyncssh.PermissionDenied):
                async with await connect(port, user="ann", client_keys=[key] if key else None):
                    pass
        async with await connect(port, user="ann", client_keys=[friend]) as conn:
            process = await game_session(conn)
            await read_until(process.stdout, b"you are ann", bytearray())
    finally:
        stop(proc)


async def test_three_humans_and_a_bot_play_a_whole_game_through_ssh_by_keys(tmp_path):
    """Three players at their own 80x24 terminals, keys only, and a bot: every screen's log
    shows the same flips as the record, round by round, and ends on the record's result.
    (At --speed instant: the same game, without the pauses that let people read.)"""
    from duckcover.app.controller import TurnController
    from duckcover.app.screens.core import winner_text
    from duckcover.common import i18n
    from duckcover.saves.record import replay

    proc, port, _ = start_server(tmp_path, "--grace", "600", "--speed", "instant")
    try:
        conns = [await connect(port, user=name) for name in ("ann", "ben", "cy")]
        sizes = [(120, 40), (80, 24), (80, 24)]  # the host at 120x40, two guests at the smallest
        procs = [await game_session(conn, size=size) for conn, size in zip(conns, sizes)]
        seen = [bytearray() for _ in procs]
        await read_until(procs[0].stdout, b"Tables on this server", seen[0])
        for process in procs:  # terminals with synchronized output: each frame arrives whole
            process.stdin.write(SYNC_SUPPORTED)
        procs[0].stdin.write(b"c")
        await read_until(procs[0].stdout, b"A new table", seen[0])
        # Seat 3 from a medium bot to an open seat: Tab to its list, open it, its first entry.
        # Each step waits for the screen (on a loaded machine a fixed pause was not enough: the
        # keys came before the list was open).
        procs[0].stdin.write(b"\t\t\t\t\r")  # name -> rated -> players -> seat 2 -> seat 3
        # the list is open and has the keys: its entries and its own key in the footer
        await until_screen(procs[0].stdout, seen[0], re.compile(r"Hard \(expert\)(.|\n)*Dismiss menu"))
        procs[0].stdin.write(b"\x1b[H\r")  # Home: the first entry, an open seat (as benchmarks/serve.py does)
        await until_screen(procs[0].stdout, seen[0], re.compile(r"Seat 3 +\W+open for a human"))
        procs[0].stdin.write(b"\x13")
        await read_until(procs[0].stdout, b"waiting for players", seen[0])
        for index in (1, 2):
            await read_until(procs[index].stdout, b"ann's table", seen[index])
            procs[index].stdin.write(b"j")
        finished = tmp_path / "games" / "finished"
        await play_by_keys(procs, seen, lambda: finished.is_dir() and any(finished.iterdir()), "the game did not finish")
        record = json.loads(next(finished.iterdir()).read_text())
        assert [p.get("bot") for p in record["players"]] == [None, None, None, "medium"]
        i18n.set_language("en")
        expected = winner_text(TurnController(replay(record), [])).encode()[:30]
        for index, process in enumerate(procs):  # every screen ends on the record's result
            deadline = time.monotonic() + 30
            while expected not in seen[index]:
                assert time.monotonic() < deadline, f"{index}: {bytes(seen[index][-300:])!r}"
                process.stdin.write(b"\r")  # past the last round's scorepad
                try:
                    seen[index] += await asyncio.wait_for(process.stdout.read(1 << 20), 0.5)
                    painted_lines(seen[index])
                except asyncio.TimeoutError:
                    pass
        # The reveals: every flip a screen's log showed (read off each whole frame) is the
        # record's, at the record's place, and each screen shows flips of every round. Not every
        # flip reaches a screen's log: a log holds a few lines, and when a turn's lines come in
        # one frame (nobody has a choice to make) its flip can be pushed out before it is shown;
        # the lean output then sends only the cells that changed, so the bytes do not hold it
        # whole either. That every reveal reaches every client is the protocol-level test's
        # (test_serve_client.py::test_lobby_create_join_and_play_by_keys_all_see_the_same_reveals).
        truth = record_flips(record)
        shown = [log_flips("\n".join(painted_lines(screen)).encode()) for screen in seen]
        for flips in shown:
            wrong = {place: (card, truth.get(place)) for place, card in flips.items() if truth.get(place) != card}
            around = {place: truth.get(place) for r, f in wrong for place in ((r, f - 1), (r, f), (r, f + 1))}
            lines = [line for screen in seen for line in painted_lines(screen)
                     if any(f"flip {f}:" in line or f"flip {f - 1}:" in line for _, f in wrong)]
            assert not wrong, f"(round, flip): (shown, the record's) {wrong}; the record around: {around}; {lines[:12]}"
            assert {r for r, _ in flips} == set(range(1, len(record["rounds"]) + 1))
        for conn in conns:
            conn.close()
    finally:
        stop(proc)


async def test_a_returning_player_is_known_by_her_key_not_her_name_alone(tmp_path):
    """Ann's seat goes back to "ann" with Ann's key: not to "ann" with another key, nor to
    one who shows Ann's public key (public by nature) but cannot sign with it."""
    key_a, key_b = asyncssh.generate_private_key("ssh-ed25519"), asyncssh.generate_private_key("ssh-ed25519")
    forged = asyncssh.load_keypairs([key_b])[0]
    forged.public_data = key_a.public_data  # offers A, signs with B
    proc, port, _ = start_server(tmp_path, "--grace", "60")
    try:
        async with await connect(port, user="ben") as ben:
            async with await connect(port, user="ann", client_keys=[key_a]) as ann:
                a, b = await game_session(ann), await game_session(ben)
                seen_a, seen_b = await ann_opens_a_table_and_ben_joins(a, b)
                await read_until(a.stdout, b"press Space", seen_a)
                ann.abort()  # Ann's connection dies: her seat is held for her
            await read_until(b.stdout, b"ann disconnected", seen_b)
            for impostor in (key_b, forged):
                async with await connect(port, user="ann", client_keys=[impostor]) as other:
                    process = await game_session(other)
                    seen = bytearray()
                    await read_until(process.stdout, b"Tables on this server", seen, timeout=15)
                    await read_until(process.stdout, b"playing", seen)  # the lobby lists her table
                    assert not shows(seen, b"You are the Captain")  # and she is not at her seat
            async with await connect(port, user="ann", client_keys=[key_a]) as again:
                process = await game_session(again)
                await read_until(process.stdout, b"You are the Captain: press Space", bytearray())  # her seat
                await read_until(b.stdout, b"ann is back", seen_b)
    finally:
        stop(proc)
