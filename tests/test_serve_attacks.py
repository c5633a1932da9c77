"""`duckcover serve` against a hostile guest (issue 17): each attack from the issue, against the
real thing, bounded in count and time, on loopback addresses only (127.0.0.0/8).

The table server's own defences are tested in process; the SSH front's through the real
command (`duckcover serve --port 0`), as tests/test_serve_ssh.py does.
"""
from __future__ import annotations

import asyncio
import fcntl
import json
import os
import resource
import signal
import socket
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

import asyncssh
import pytest
from hypothesis import given
from hypothesis import strategies as st

from duckcover.app import zygote
from duckcover.common import i18n
from duckcover.net import guestpty, sshfront
from duckcover.net import protocol as p
from duckcover.net.admission import (GUESS_FORGET_AFTER, GUESS_MAX_WAIT, TABLES_PER_NETWORK, CodeGuesses,
                                     network_of)
from duckcover.net.server import MAX_TABLES, TABLES_PER_NAME, TableServer
from duckcover.net.sessions import CODE_PREFIX, Identity, login_identity
from duckcover.net.sshfront import (CLIENT_ADDRESS_SPACE, MAX_COLUMNS, MAX_ROWS, clamped_size, safe_term,
                                    source_of, visible_name)

from serve_helpers import Guest, ProtocolClient, carried, join, play_until
from test_serve_ssh import connect, game_session, read_until, start_server, stop

LINUX = sys.platform.startswith("linux")
linux_only = pytest.mark.skipif(not LINUX, reason="reads /proc and uses prlimit (Linux)")


# --- in process: the table server ------------------------------------------------------------
@pytest.fixture
async def server(tmp_path):
    srv = TableServer(tmp_path, grace=0.2, pace=0, abandoned_after=0.4)
    srv.sock = tmp_path / "tables.sock"
    await srv.start(srv.sock)
    yield srv
    await srv.close()


async def ann_and_ben_at_a_started_table(server, seed=None):
    ann, ben = await join(server, "ann"), await join(server, "ben")
    ann.send("create", seats=["human", "human"], **({} if seed is None else {"seed": seed}))
    await ann.until("seated")
    table = next(iter(server.tables.values()))
    ben.send("join", table=table.id)
    await ben.until("seated")
    return ann, ben, table


class Sweeps:
    """Every run of the server's abandonment sweep from now on: when it began and ended, and how
    many problems the server had said by its end. A test waits for the sweeps that decide what
    it asserts (events, with a bound of time), never for a stretch of time that should suffice."""

    def __init__(self, server: TableServer) -> None:
        self.runs: list[tuple[float, float, int]] = []
        real = server.sweep

        def sweep() -> None:  # the next run and every later one (each schedules `server.sweep`)
            began = time.monotonic()
            real()
            self.runs.append((began, time.monotonic(), len(server.problems)))

        server.sweep = sweep

    async def until(self, condition: Callable[[], bool], what: str, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, f"no sweep {what} in {timeout} s: {self.runs[-3:]}"
            await asyncio.sleep(0.02)


async def until(condition: Callable[[], bool], what: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.02)


async def note(client: ProtocolClient, key: str) -> dict:
    while (message := await client.until("note"))["key"] != key:
        pass
    return message


async def test_a_held_seat_goes_back_only_to_its_owner_never_to_an_impostor_without_the_code(server):
    ann, ben, table = await ann_and_ben_at_a_started_table(server)
    code = await note(ann, "code")  # on ann's screen only: how to come back without a key
    assert code["login"].startswith("ann+")
    await ann.close()
    await note(ben, "left")
    guessed = "ann+" + ("A" * 6 if not code["login"].endswith("A" * 6) else "B" * 6)
    for impostor in (Identity("ann"), login_identity(guessed, None), Identity("ann", "SHA256:some-key")):
        other = await join(server, *impostor)
        assert (await other.until("lobby"))["tables"][0]["id"] == table.id and other.seat is None
        other.send("join", table=table.id)
        assert (await other.until("error"))["code"] == "seat-needs-return-login"  # and what would bring it back
        assert table.seats[0].client is None
        await other.close()
    back = await join(server, *login_identity(code["login"], None))
    assert (await back.until("seated"))["seat"] == 0
    await note(ben, "back")
    assert not carried(ben.raw, code["login"][4:])  # nobody else is ever sent ann's code

async def test_a_table_with_a_seed_is_marked_for_everyone_who_sees_it(server):
    ann, ben = await join(server, "ann"), await join(server, "ben")
    ann.send("create", seats=["human", "human"], seed=4242)
    await ann.until("seated")
    lobby = await ben.until("lobby")
    while not lobby["tables"]:
        lobby = await ben.until("lobby")
    assert lobby["tables"][0]["seed"] == 4242  # in the lobby, before anyone joins
    ben.send("join", table=lobby["tables"][0]["id"])
    await ben.until("seated")
    cy = await join(server, "cy")
    cy.send("watch", table=lobby["tables"][0]["id"])
    await cy.until("seated")
    for client in (ann, ben, cy):  # at the table: every seat and every watcher is told
        seeds = [m for m in client.inbox if m["type"] == "note" and m["key"] == "seed"]
        while not seeds:
            message = await client.until("note")
            seeds = [message] if message["key"] == "seed" else []
        assert seeds[0]["seed"] == 4242
    dee = await join(server, "dee")
    dee.send("create", seats=["human", "human"])
    await dee.until("seated")
    unseeded = [t for t in server.lobby() if t.id != lobby["tables"][0]["id"]]
    assert len(unseeded) == 1 and unseeded[0].seed is None and "seed" not in p.to_json(unseeded[0])


async def test_a_client_token_is_good_for_one_greeting_only(server):
    token = server.issue_token(Identity("ann"))
    first = await ProtocolClient.connect(server.sock, token)
    await first.until("welcome")
    second = await ProtocolClient.connect(server.sock, token)  # a copy, while the first lives
    refused = await second.next()
    assert (refused["type"], refused["code"], refused["text"]) == ("error", "unknown-token", "unknown token")
    hostile = await ProtocolClient.connect(server.sock, ["not", "a", "string"])
    refused = await hostile.next()
    assert (refused["type"], refused["code"], refused["text"]) == ("error", "unknown-token", "unknown token")
    assert not server.problems


async def test_an_abandoned_table_ends_and_is_kept_as_abandoned(server, tmp_path):
    ann, ben, table = await ann_and_ben_at_a_started_table(server)
    await play_until([ann, ben], lambda: table.game.turn_number >= 2, timeout=20)
    await ann.close()
    await ben.close()
    await until(lambda: table.id not in server.tables, "the abandoned table never ended")
    kept = list((tmp_path / "serve" / "abandoned").glob(f"*-{table.id}.json"))
    assert len(kept) == 1
    from duckcover.saves.record import read_file, replay
    game = replay(read_file(kept[0]))
    assert game.turn_number == table.game.turn_number and not game.over  # a game in progress, as it stood
    assert not list((tmp_path / "serve" / "tables").glob(f"{table.id}*"))
    assert server.lobby() == ()


async def test_an_abandoned_table_that_cannot_be_kept_stays_with_its_files_and_one_line(server, tmp_path):
    """It stays with its files, and is tried (and said) again a whole period later, not sooner:
    every sweep that ends within the period after the failure adds nothing; the first that begins
    after it tries again and says so once more."""
    (tmp_path / "serve").mkdir(exist_ok=True)
    (tmp_path / "serve" / "abandoned").write_text("a file where the folder would go")
    ann, ben, table = await ann_and_ben_at_a_started_table(server)
    sweeps = Sweeps(server)
    await ann.close()
    await ben.close()
    await until(lambda: server.problems, "nothing was said")
    assert len(server.problems) == 1 and "cannot save the abandoned game" in server.problems[0]
    assert "\n" not in server.problems[0]
    assert table.id in server.tables and (tmp_path / "serve" / "tables" / f"{table.id}.json").is_file()
    failed_at = table.idle_since  # the failure starts the period again
    retry = failed_at + server.abandoned_after
    await sweeps.until(lambda: any(began >= retry for began, _, _ in sweeps.runs), "after the period")
    early = [said for began, ended, said in sweeps.runs if began >= failed_at and ended < retry]
    assert all(said == 1 for said in early)  # not tried (nor said) again within the period
    said_then = next(said for began, _, said in sweeps.runs if began >= retry)
    assert said_then == 2 and "cannot save the abandoned game" in server.problems[1]  # tried again, said again
    assert table.id in server.tables and (tmp_path / "serve" / "tables" / f"{table.id}.json").is_file()


async def test_a_table_someone_is_at_is_never_abandoned(server):
    """Sweeps a whole --abandoned-after apart see ann there: the table is never counted idle."""
    ann, ben, table = await ann_and_ben_at_a_started_table(server)
    sweeps = Sweeps(server)
    await ben.close()
    await until(lambda: table.seats[1].client is None, "the server never saw ben leave")
    since = time.monotonic()
    await sweeps.until(lambda: any(began >= since + 2 * server.abandoned_after for began, _, _ in sweeps.runs),
                       "two periods after ben left")
    assert table.id in server.tables and table.idle_since is None


async def test_a_login_name_holds_a_bounded_number_of_tables(server):
    hosts = [await join(server, "spam") for _ in range(TABLES_PER_NAME + 1)]
    for host in hosts[:TABLES_PER_NAME]:
        host.send("create", seats=["human", "human"])
        await host.until("seated")
    hosts[-1].send("create", seats=["human", "human"])
    refused = await hosts[-1].until("error")
    assert (refused["code"], refused["params"]) == ("tables-per-name", {"count": TABLES_PER_NAME})
    assert refused["text"] == f"a name sits at {TABLES_PER_NAME} unfinished tables at most"
    assert len(server.tables) == TABLES_PER_NAME
    other = await join(server, "ann")  # another name still opens a table
    other.send("create", seats=["human", "human"])
    await other.until("seated")


async def test_many_names_from_one_network_cannot_fill_the_table_slots(server):
    """22 names x 3 tables filled all 64 slots; now one /24 (or IPv6 /64) opens
    TABLES_PER_NETWORK unfinished tables, whatever names it logs in under, and a guest from
    another network still opens one."""
    opened, hosts = 0, []  # (each host kept: a client let go closes, and its waiting table goes)
    for n in range(22):
        for _ in range(TABLES_PER_NAME):
            host = await join(server, f"spam{n}", peer=f"203.0.113.{n + 1}")
            hosts.append(host)
            host.send("create", seats=["human", "human"])
            message = await host.until("seated" if opened < TABLES_PER_NETWORK else "error")
            if message["type"] == "error":
                assert message["code"] == "tables-per-network" and "\n" not in message["text"]
                break
            opened += 1
    assert len(server.tables) == TABLES_PER_NETWORK < MAX_TABLES
    for address in ("2001:db8::1", "2001:db8::ffff:2", "2001:db8::abcd:3"):  # one IPv6 /64: one network
        for _ in range(TABLES_PER_NAME):
            v6 = await join(server, address, peer=address)
            hosts.append(v6)
            v6.send("create", seats=["human", "human"])
            await v6.until("seated" if len(server.tables) < 2 * TABLES_PER_NETWORK else "error")
    assert len(server.tables) == 2 * TABLES_PER_NETWORK
    honest = await join(server, "ann", peer="198.51.100.7")
    honest.send("create", seats=["human", "human"])
    assert (await honest.until("seated"))["seat"] == 0


def test_a_network_is_an_ipv4_24_or_an_ipv6_64():
    assert network_of("203.0.113.9") == network_of("203.0.113.200") == "203.0.113.0/24"
    assert network_of("203.0.114.9") != network_of("203.0.113.9")
    assert network_of("::ffff:203.0.113.9") == "203.0.113.0/24"
    assert network_of("2001:db8::1") == network_of("2001:db8::ffff:2") == "2001:db8::/64"
    assert network_of("2001:db8:0:1::1") != network_of("2001:db8::1")


def test_wrong_return_codes_from_one_address_make_its_coded_logins_wait_growing_and_capped():
    """The waits are the bookkeeping's own, on a fake clock: the first wrong code costs
    nothing, the second login waits 1 s, then 2 s, 4 s ... up to GUESS_MAX_WAIT; logins sent
    side by side queue; another address never waits; an hour later the address starts afresh."""
    now = [1000.0]
    guesses = CodeGuesses(clock=lambda: now[0])
    here, there = "203.0.113.9", "198.51.100.7"
    assert guesses.admit(here) == 0
    waits = []
    for _ in range(10):
        guesses.wrong(here)
        waited = guesses.admit(here)
        waits.append(waited)
        now[0] += waited  # the login waits, then its code is checked (wrong again)
    assert waits[:5] == [1, 2, 4, 8, 16] and max(waits) == GUESS_MAX_WAIT == waits[-1]
    assert guesses.admit(there) == 0  # another address: no wait at all
    side_by_side = [guesses.admit(here) for _ in range(3)]
    assert side_by_side[0] < side_by_side[1] < side_by_side[2]  # parallel guesses are no faster
    now[0] += GUESS_FORGET_AFTER + max(side_by_side)
    assert guesses.admit(here) == 0


@pytest.mark.skipif(not os.path.exists("/dev/zero") or not hasattr(os, "mkfifo"), reason="needs a FIFO and /dev/zero")
async def test_table_files_that_cannot_be_read_are_set_aside_and_the_server_starts(tmp_path):
    tables = tmp_path / "serve" / "tables"
    tables.mkdir(parents=True)
    os.mkfifo(tables / "aaaa0001.table.json")
    (tables / "aaaa0002.table.json").symlink_to("/dev/zero")
    (tables / "aaaa0003.table.json").write_text('{"id": "aaaa0003", "name": "' + "x" * 70_000 + '"}')
    (tables / "aaaa0004.table.json").write_text("[" * 50_000)
    (tables / "aaaa0005.table.json").write_text('{"id": "../../escape", "name": "x"}')
    (tables / "aaaa0006.table.json").write_text(
        '{"id": "aaaa0006", "name": "t", "seed": 1, "rules": {}, "seats": [{"kind": "human"}, {"kind": "human"}]}')
    (tables / "aaaa0006.json").symlink_to("/dev/zero")  # its record: endless
    srv = TableServer(tmp_path, pace=0)
    await asyncio.wait_for(srv.start(tmp_path / "tables.sock"), 10)
    try:
        assert srv.tables == {}
        assert len(srv.problems) == 6 and all("\n" not in line for line in srv.problems)
        assert all("not restored" in line and "set-aside" in line for line in srv.problems)
        assert "not a regular file" in srv.problems[0] and "larger than" in srv.problems[2]
        aside = sorted(path.name for path in (tables / "set-aside").iterdir())
        assert aside == sorted([f"aaaa000{n}.table.json" for n in range(1, 7)] + ["aaaa0006.json"])
        assert [path.name for path in tables.iterdir()] == ["set-aside"]
    finally:
        await srv.close()


async def test_a_table_file_restores_bot_seats_by_difficulty_only_and_imports_nothing_it_names(
        tmp_path, monkeypatch):
    """A bot spec written into serve/tables/*.table.json (a file, a module:Class) is never
    imported by the server: the seat is set aside with one line and the default difficulty
    plays it, so the people at the table keep their game (issue 28, item 6)."""
    planted = tmp_path / "planted"
    planted.mkdir()
    marker = tmp_path / "imported"
    evil = f"open({str(marker)!r}, 'a').write(__name__)\n"
    (planted / "evil_file.py").write_text(evil)
    (planted / "evil_module.py").write_text(evil)
    monkeypatch.syspath_prepend(str(planted))
    srv = TableServer(tmp_path, pace=0)
    srv.sock = tmp_path / "tables.sock"
    await srv.start(srv.sock)
    try:
        ann = await join(srv, "ann")
        ann.send("create", seats=["human", "medium", "hard", "easy"])
        await ann.until("seated")
        table = next(iter(srv.tables.values()))
    finally:
        await srv.close()
    meta_path = tmp_path / "serve" / "tables" / f"{table.id}.table.json"
    meta = json.loads(meta_path.read_text())
    meta["seats"][1]["bot"] = str(planted / "evil_file.py")
    meta["seats"][2]["bot"] = "evil_module:GreedyBot"
    meta_path.write_text(json.dumps(meta))
    srv = TableServer(tmp_path, pace=0)
    await srv.start(tmp_path / "tables.sock")
    try:
        restored = srv.tables[table.id]
        assert [seat.bot for seat in restored.seats] == [None, "medium", "medium", "easy"]
        assert len(srv.problems) == 2 and all("\n" not in line for line in srv.problems)
        assert "seat 2's bot '/" in srv.problems[0]
        assert "seat 3's bot 'evil_module:GreedyBot'" in srv.problems[1]
        assert all("not a built-in difficulty" in line and "medium plays the seat" in line for line in srv.problems)
        back = await ProtocolClient.connect(tmp_path / "tables.sock", srv.issue_token(restored.seats[0].owner))
        assert (await back.until("seated"))["seat"] == 0  # the game goes on, its bots made
        assert len(restored.referees) == 4
    finally:
        await srv.close()
    assert not marker.exists() and "evil_module" not in sys.modules and "evil_file" not in sys.modules


# --- pure parts: hypothesis ------------------------------------------------------------------
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
def test_every_window_size_a_guest_can_send_fits_a_real_terminal_and_the_pty(width, height):
    columns, rows = clamped_size(width, height)
    assert 1 <= columns <= MAX_COLUMNS and 1 <= rows <= MAX_ROWS
    struct.pack("HHHH", rows, columns, 0, 0)  # never a struct.error
    if 0 < width <= MAX_COLUMNS and 0 < height <= MAX_ROWS:
        assert (columns, rows) == (width, height)


@given(st.text(max_size=200))
def test_every_term_a_guest_can_send_becomes_a_safe_environment_value(term):
    value = safe_term(term)
    assert value.isascii() and value.isprintable() and "\0" not in value and 0 < len(value) <= 64
    if term.isascii() and term.isprintable() and " " not in term and 0 < len(term) <= 64:
        assert value == term


@given(st.text(alphabet=st.characters(categories=["Mn", "Me", "Cf", "Zs", "Cc"]), max_size=20))
def test_a_name_of_only_invisible_characters_is_not_visible(name):
    assert not visible_name(name)


def test_visible_names():
    assert visible_name("ann") and visible_name("Zoë") and visible_name("李") and visible_name("-")
    assert not visible_name("\u200b") and not visible_name("\u0301\u0302") and not visible_name("\u2060 ")


@given(st.text(min_size=1, max_size=30), st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZ23456789", min_size=6, max_size=6))
def test_a_coded_login_names_its_player_and_code_and_a_key_always_wins(name, code):
    assert login_identity(f"{name}+{code}", None) == Identity(name, CODE_PREFIX + code)
    assert login_identity(f"{name}+{code}", "SHA256:k") == Identity(f"{name}+{code}", "SHA256:k")


@given(st.text(max_size=30))
def test_a_login_without_a_well_formed_code_is_its_name(name):
    identity = login_identity(name, None)
    assert identity == Identity(name, None) or (identity.key.startswith(CODE_PREFIX) and name.endswith(identity.key[5:]))


def test_one_source_is_an_ipv4_address_or_an_ipv6_64():
    assert source_of("127.0.0.1") != source_of("127.0.0.2")
    assert source_of("::ffff:127.0.0.1") == source_of("127.0.0.1")
    assert source_of("2001:db8::1") == source_of("2001:db8::ffff:2") == "2001:db8::/64"
    assert source_of("2001:db8:0:1::1") != source_of("2001:db8::1")


# --- in process: the SSH front's start of a session ------------------------------------------
def open_fds() -> int:
    return len(os.listdir(f"/proc/{os.getpid()}/fd"))


@linux_only
async def test_a_session_that_fails_to_start_is_logged_in_one_line_and_leaves_nothing(tmp_path, monkeypatch, capsys):
    tables = TableServer(tmp_path, pace=0)
    await tables.start(tmp_path / "tables.sock")
    front = sshfront.Front(tables, tmp_path / "tables.sock", 4, None, 2222, "127.0.0.1")

    class Channel:
        def __init__(self):
            self.out, self.status = b"", None

        def write(self, data):
            self.out += data

        def exit(self, status):
            self.status = status

    def broken_popen(*args, **kwargs):
        raise ValueError("embedded null byte")  # as a TERM with a NUL did before it was checked

    monkeypatch.setattr(guestpty.subprocess, "Popen", broken_popen)
    before = open_fds()
    for _ in range(20):
        session = sshfront.GameSession(front, Identity("mallory"))
        session.connection_made(Channel())
        session.pty_requested("xterm", (65536, 70000, 0, 0), {})
        session.shell_requested()
        session.session_started()
        assert session.chan.status == 1 and session.chan.out.count(b"\n") == 1
    assert open_fds() == before and not front.sessions and not tables.tokens
    logged = capsys.readouterr().err.splitlines()
    assert len(logged) == 20 and all("did not start: ValueError" in line for line in logged)
    await tables.close()


async def test_coded_logins_queued_from_one_address_cannot_hold_the_session_slots(tmp_path, capsys):
    """An address that sent wrong codes has at most CODE_WAITING_PER_SOURCE coded logins waiting
    their turn at once: the next gets one line and is closed, so queued guesses cannot fill
    --max-connections; another address still waits for nothing."""
    tables = TableServer(tmp_path, pace=0)
    front = sshfront.Front(tables, tmp_path / "tables.sock", 32, None, 2222, "127.0.0.1")
    front.guesses.wrong("203.0.113.9")

    class Channel:
        def __init__(self):
            self.out, self.status = b"", None

        def write(self, data):
            self.out += data

        def exit(self, status):
            self.status = status

    def coded_login(peer: str) -> sshfront.GameSession:
        session = sshfront.GameSession(front, login_identity("ben+AAAAAA", None), peer)
        session.connection_made(Channel())
        session.pty_requested("xterm", (80, 24, 0, 0), {})
        session.shell_requested()
        session.session_started()
        return session

    sessions = [coded_login("203.0.113.9") for _ in range(sshfront.CODE_WAITING_PER_SOURCE + 3)]
    await asyncio.sleep(0)  # each begins its check
    waiting, refused = sessions[:sshfront.CODE_WAITING_PER_SOURCE], sessions[sshfront.CODE_WAITING_PER_SOURCE:]
    assert all(b"waits its turn" in s.chan.out and s.chan.status is None for s in waiting)
    assert all(s.chan.status == 1 and s.chan.out.count(b"\n") == 1 and b"waiting their turn already" in s.chan.out
               for s in refused)
    assert front.sessions == set(waiting) and front.code_waiting == {"203.0.113.9": len(waiting)}
    for session in waiting:
        session.stop()
    await asyncio.sleep(0)
    assert front.code_waiting == {} and not front.sessions
    logged = capsys.readouterr().err
    assert logged.count("refused: 2 from there are waiting already") == len(refused)


async def test_a_flood_of_resizes_reaches_the_client_as_one(tmp_path, monkeypatch):
    tables = TableServer(tmp_path, pace=0)
    front = sshfront.Front(tables, tmp_path / "tables.sock", 4, None, 2222, "127.0.0.1")
    session = sshfront.GameSession(front, Identity("ann"))
    applied = []
    monkeypatch.setattr(session, "set_size", lambda: applied.append(session.size))
    for n in range(20_000):
        session.terminal_size_changed(80 + n % 100, 24 + n % 7, 0, 0)
    await asyncio.sleep(sshfront.RESIZE_DELAY * 4)
    assert applied == [clamped_size(80 + 19_999 % 100, 24 + 19_999 % 7)]


# --- through SSH, the real command -----------------------------------------------------------
@pytest.fixture(scope="module")
def served(tmp_path_factory):
    data = tmp_path_factory.mktemp("attacks")
    proc, port, lines = start_server(data, "--max-connections", "8")
    yield proc, port, data
    stop(proc)
    assert proc.returncode == 0


def server_children(pid: int) -> list[int]:
    """The server's client processes (its guests' warm parent, also its child, is not one)."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            found += [int(n) for n in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
        except OSError:
            pass
    return [child for child in found if not is_warm_parent(child)]


def is_warm_parent(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/comm").read_bytes().strip() == zygote.PARENT_NAME
    except OSError:
        return False


def proc_status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(field)


async def only_client(pid: int) -> int:
    """The one client process of the server (earlier sessions' clients are reaped first: on a
    loaded machine that took more than 10 s in CI, so the bound is generous; it is not a speed)."""
    deadline = time.monotonic() + 45
    while len(children := server_children(pid)) != 1:
        assert time.monotonic() < deadline, f"clients: {children}"
        await asyncio.sleep(0.1)
    return children[0]


def server_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@linux_only
async def test_a_10000_by_10000_window_is_clamped_and_the_client_runs_under_its_limits(served):
    proc, port, _ = served
    async with await connect(port, user="huge") as conn:
        process = await game_session(conn, size=(10_000, 10_000))
        seen = bytearray()
        await read_until(process.stdout, b"Tables on this server", seen)
        client = await only_client(proc.pid)
        with open(f"/proc/{client}/fd/0", "rb", buffering=0) as tty:
            rows, columns, _, _ = struct.unpack("HHHH", fcntl.ioctl(tty, termios.TIOCGWINSZ, b"\0" * 8))
        assert (columns, rows) == (MAX_COLUMNS, MAX_ROWS)
        assert resource.prlimit(client, resource.RLIMIT_AS) == (CLIENT_ADDRESS_SPACE, CLIENT_ADDRESS_SPACE)
        assert resource.prlimit(client, resource.RLIMIT_CPU)[0] == sshfront.CLIENT_CPU_SECONDS
        await asyncio.sleep(3)  # the old client grew by about 75 MB a second here
        assert proc_status(client, "VmPeak") < CLIENT_ADDRESS_SPACE
        assert proc_status(client, "VmHWM") < 200 * 1024 * 1024
        process.stdin.write(b"c")  # and it still answers
        await read_until(process.stdout, b"A new table", seen)
        process.close()


@linux_only
async def test_65536_columns_or_rows_and_a_nul_in_term_leak_no_descriptor(served):
    proc, port, _ = served

    async def session(size, term="xterm-256color"):
        async with await connect(port, user="sizes") as conn:
            process = await conn.create_process(term_type=term, term_size=size, encoding=None)
            seen = bytearray()
            await read_until(process.stdout, b"Tables on this server", seen)
            process.close()

    await session((80, 24))  # warm: the first session's lazy imports and threads
    await asyncio.sleep(1)
    before = server_fds(proc.pid)
    # Each kind once: a session that leaked would leave its descriptor (or its client) behind
    # every time, and the count below is exact (four of a kind only multiplied what one shows,
    # at a client's start and a 500x200 lobby each).
    attempts = [(65536, 24), (80, 65536), (70000, 70000), (2**32 - 1, 2**32 - 1)]
    attempts = [(size, "xterm-256color") for size in attempts] + [((80, 24), "xterm\0evil")]
    for size, term in attempts:
        await session(size, term)
    deadline = time.monotonic() + 15
    while (server_fds(proc.pid) > before or server_children(proc.pid)) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)  # each ended client is reaped off the loop
    assert server_fds(proc.pid) <= before
    assert server_children(proc.pid) == []


WRITE_SYSCALL = {"x86_64": 1, "aarch64": 64}.get(os.uname().machine)
STALL_WINDOW = 32 * 1024  # bytes of SSH receive window the reader who stops reading gives


def blocked_writing(pid: int) -> bool:
    """The process's main thread waits in write(2) on its terminal (fd 1 or 2)."""
    try:
        fields = Path(f"/proc/{pid}/syscall").read_text().split()
    except OSError:
        return False
    return len(fields) > 1 and fields[0] == str(WRITE_SYSCALL) and int(fields[1], 16) in (1, 2)


@linux_only
@pytest.mark.skipif(WRITE_SYSCALL is None, reason=f"write(2)'s number on {os.uname().machine} is not known here")
async def test_a_guest_who_stops_reading_stalls_only_its_own_client_which_ends_with_the_session(served):
    """The guest's client writes its frames itself (lean_output's direct driver): a peer that
    never reads stalls that client in write(2) once the SSH window and the pty are full. The
    server still serves everyone else, and the stalled client ends when the session does."""
    proc, port, _ = served
    conn = await connect(port, user="stall")
    # A small receive window, never opened again (nothing is read): the lean output writes a
    # blank 500x200 frame in a few kB, which an SSH window of asyncssh's default 2 MB would take
    # for minutes.
    process = await conn.create_process(term_type="xterm-256color", term_size=(MAX_COLUMNS, MAX_ROWS),
                                        encoding=None, window=STALL_WINDOW)
    seen = bytearray()
    await read_until(process.stdout, b"Tables on this server", seen)
    client = await only_client(proc.pid)
    # Each resize: a whole new frame of 500x200, never read. Resized until the client is seen
    # blocked in write(2) (a bound of time, not a count: a loaded machine draws fewer frames in a
    # count's time), then looked at a while longer (its queued frames are still being written).
    deadline, n = time.monotonic() + 60, 0
    while not blocked_writing(client) and time.monotonic() < deadline:
        process.change_terminal_size(MAX_COLUMNS - n % 2, MAX_ROWS)
        n += 1
        await asyncio.sleep(sshfront.RESIZE_DELAY * 1.4)  # (closer resizes reach the client as one)
    for _ in range(100):
        if blocked_writing(client):
            break
        await asyncio.sleep(0.1)
    assert blocked_writing(client), "the client never filled its terminal"
    async with await connect(port, user="other") as other:
        lobby = await game_session(other)
        await read_until(lobby.stdout, b"Tables on this server", bytearray())
        lobby.close()
    conn.close()
    deadline = time.monotonic() + 15
    while client in server_children(proc.pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    assert client not in server_children(proc.pid)
    assert not Path(f"/proc/{client}").exists() or "Z" in Path(f"/proc/{client}/stat").read_text().split()[2]


async def test_300_idle_sockets_from_one_address_do_not_keep_another_out(served):
    _, port, _ = served
    idle = []
    try:
        for _ in range(300):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            sock.setblocking(False)
            try:
                sock.connect(("127.0.0.1", port))
            except BlockingIOError:
                pass
            idle.append(sock)
        await asyncio.sleep(0.5)
        conn = await asyncssh.connect("127.0.0.1", port, username="other", known_hosts=None,
                                      client_factory=Guest, agent_path=None,
                                      client_keys=None, local_addr=("127.0.0.2", 0), connect_timeout=20)
        async with conn:
            process = await game_session(conn)
            await read_until(process.stdout, b"Tables on this server", bytearray())
            process.close()
        # A login that never finishes is cut: every idle socket the server took (it sent its
        # version line) is closed by it LOGIN_TIMEOUT later. (Sockets still in the kernel's
        # queue are not the server's yet; taken later, they are cut the same way.)
        greeted: dict[socket.socket, float] = {}
        open_ones = list(idle)
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            still = []
            for sock in open_ones:
                try:
                    if sock.recv(4096):
                        greeted.setdefault(sock, time.monotonic())
                        still.append(sock)
                    # b"": closed by the server
                except BlockingIOError:
                    still.append(sock)
                except OSError:
                    pass  # reset: closed
            open_ones = still
            waiting = [greeted[sock] for sock in open_ones if sock in greeted]
            if greeted and not waiting:
                break
            assert all(time.monotonic() - since < sshfront.LOGIN_TIMEOUT + 10 for since in waiting), \
                "a login that never finished was not cut"
            await asyncio.sleep(0.25)
        assert greeted and not [sock for sock in open_ones if sock in greeted]
    finally:
        for sock in idle:
            sock.close()


async def test_a_name_of_only_invisible_characters_is_refused_in_one_line(served, monkeypatch):
    _, port, _ = served
    monkeypatch.setattr(asyncssh.connection, "saslprep", lambda text: text)  # sent as is
    for name in ("\u200b", "\u0301\u0301", "\u200b\u2060"):
        async with await connect(port, user=name) as conn:
            process = await game_session(conn)
            out = await asyncio.wait_for(process.stdout.read(), 20)
            assert out.count(b"\n") == 1 and b"needs a visible letter" in out


async def test_the_lobby_opens_during_a_flood_of_resizes(served):
    proc, port, _ = served
    async with await connect(port, user="resizer") as conn:
        process = await game_session(conn)
        for n in range(5000):
            process.change_terminal_size(60 + n % 60, 20 + n % 10)
        process.change_terminal_size(90, 30)
        seen = bytearray()
        await read_until(process.stdout, b"Tables on this server", seen)
        if LINUX:
            client = await only_client(proc.pid)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                with open(f"/proc/{client}/fd/0", "rb", buffering=0) as tty:
                    rows, columns, _, _ = struct.unpack("HHHH", fcntl.ioctl(tty, termios.TIOCGWINSZ, b"\0" * 8))
                if (columns, rows) == (90, 30):
                    break
                await asyncio.sleep(0.1)
            assert (columns, rows) == (90, 30)  # the last size wins
        process.close()


def follow(proc: subprocess.Popen) -> list[str]:
    """The server's log lines from now on, as they come (read in a thread: a pipe's readline blocks)."""
    import threading

    lines: list[str] = []

    def read() -> None:
        for line in proc.stdout:
            lines.append(line)

    threading.Thread(target=read, daemon=True).start()
    return lines


async def logged(lines: list[str], text: str, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    while not (found := [line for line in lines if text in line]):
        assert time.monotonic() < deadline, f"never logged {text!r}: {lines[-5:]}"
        await asyncio.sleep(0.05)
    return found[0]


async def test_wrong_return_codes_are_logged_and_slowed_per_address_through_ssh(tmp_path):
    """Guesses of a keyless player's `name+CODE` through the real command: each wrong code is
    logged; the second coded login from one address waits (said on its terminal and in the
    log, from the front's own bookkeeping), and another address is not held up by it."""
    proc, port, _ = start_server(tmp_path)
    lines = follow(proc)
    try:
        seen = []
        for attempt in range(2):
            async with await connect(port, user="ben+AAAAAA") as conn:
                process = await game_session(conn)
                seen.append(bytearray())
                await read_until(process.stdout, b"Tables on this server", seen[-1])
                process.close()
            await logged(lines, f"from 127.0.0.1 (wrong codes from there: {attempt + 1};")
        assert b"waits its turn" not in seen[0]  # a first wrong code costs nothing
        assert b"a wrong return code came from your address" in seen[1] and b": 1 s" in seen[1]
        assert "waits 1 s (wrong codes came from there)" in await logged(lines, "'ben' from 127.0.0.1 waits")
        async with await connect(port, user="cy+BBBBBB", local_addr=("127.0.0.2", 0)) as conn:
            process = await game_session(conn)
            other = bytearray()
            await read_until(process.stdout, b"Tables on this server", other)
            assert b"waits its turn" not in other
            process.close()
        await logged(lines, "'cy' from 127.0.0.2 (wrong codes from there: 1;")
        assert not [line for line in lines if "127.0.0.2 waits" in line]
        assert all(line.count("\n") == 1 and "Traceback" not in line for line in lines)
    finally:
        stop(proc)


# --- the data directory ----------------------------------------------------------------------
# For a server no guest logs in to: fresh clients, so no warm parent is started (it imports the
# app, about half a CPU-second) for sessions that never come. The data directory is the same.
NO_GUESTS = ("--clients", "fresh")


def test_a_second_server_on_the_same_data_directory_says_so_and_exits_2(tmp_path):
    first, _, _ = start_server(tmp_path, *NO_GUESTS)
    try:
        second = subprocess.run(
            [sys.executable, "-m", "duckcover", "serve", "--port", "0", "--data-dir", str(tmp_path)],
            capture_output=True, text=True, timeout=60)
        assert second.returncode == 2 and second.stdout == ""
        assert second.stderr.count("\n") == 1 and "another duckcover serve is running" in second.stderr
    finally:
        stop(first)


@linux_only
def test_a_killed_server_leaves_no_private_directory_after_the_next_start(tmp_path):
    proc, _, _ = start_server(tmp_path, *NO_GUESTS)
    private = Path((tmp_path / "serve" / ".server.lock").read_text())
    assert private.is_dir() and private.name.startswith("duckcover-serve-")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert private.is_dir()  # what SIGKILL leaves
    proc, _, _ = start_server(tmp_path, *NO_GUESTS)
    try:
        assert not private.exists()
    finally:
        stop(proc)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
def test_a_fifo_and_a_dev_zero_link_in_serve_tables_do_not_stop_the_real_server(tmp_path):
    tables = tmp_path / "serve" / "tables"
    tables.mkdir(parents=True)
    os.mkfifo(tables / "0000beef.table.json")
    (tables / "0000feed.table.json").symlink_to("/dev/zero")
    proc, _, lines = start_server(tmp_path, *NO_GUESTS)  # it listens: it says how to join
    try:
        told = [line for line in lines if "not restored" in line]
        assert len(told) == 2 and all("set-aside" in line for line in told)
    finally:
        stop(proc)


# --- the lobby shows a fixed deal (the Textual client) --------------------------------------
async def test_the_lobby_row_of_a_table_with_a_seed_says_fixed_deal(tmp_path):
    from textual.widgets import DataTable

    from duckcover.app.options import AppOptions
    from duckcover.app.remote import LobbyScreen, RemoteApp

    i18n.set_language("en")
    srv = TableServer(tmp_path, pace=0)
    await srv.start(tmp_path / "tables.sock")
    try:
        host = await ProtocolClient.connect(tmp_path / "tables.sock", srv.issue_token(Identity("ann")))
        host.send("create", seats=["human", "human"], seed=99, name="seeded")
        await host.until("seated")
        app = RemoteApp(AppOptions(data_dir=tmp_path, speed="instant"), str(tmp_path / "tables.sock"),
                        srv.issue_token(Identity("ben")))
        async with app.run_test(size=(100, 24)) as pilot:
            for _ in range(200):
                if isinstance(app.screen, LobbyScreen) and app.screen.tables:
                    break
                await pilot.pause(0.02)
            grid = app.screen.query_one("#tables", DataTable)
            row = [str(cell) for cell in grid.get_row_at(0)]
            assert "fixed deal, seed 99" in row[3]
            await pilot.press("j")  # ben takes the last seat: the game starts, and says so again
            for _ in range(200):
                if app.table_screen is not None and any("Fixed deal, seed 99" in line
                                                        for line in app.table_screen.log_lines):
                    break
                await pilot.pause(0.02)
            assert any("Fixed deal, seed 99" in line for line in app.table_screen.log_lines)
            assert any("log in as ben+" in line for line in app.table_screen.log_lines)  # his code, keyless
    finally:
        await srv.close()



async def test_serve_abandoned_after_ends_a_restored_table_nobody_comes_back_to(tmp_path):
    """`serve --abandoned-after 1`: a table restored from its files, that nobody comes back to."""
    srv = TableServer(tmp_path, pace=0)
    srv.sock = tmp_path / "tables.sock"
    await srv.start(srv.sock)
    try:
        _, _, table = await ann_and_ben_at_a_started_table(srv)
    finally:
        await srv.close()
    assert (tmp_path / "serve" / "tables" / f"{table.id}.json").is_file()
    proc, _, lines = start_server(tmp_path, "--abandoned-after", "1", *NO_GUESTS)
    try:
        assert any("1 table(s) restored" in line for line in lines)
        abandoned = tmp_path / "serve" / "abandoned"
        deadline = time.monotonic() + 20
        while not (abandoned.is_dir() and list(abandoned.glob(f"*-{table.id}.json"))):
            assert time.monotonic() < deadline, "the restored table never ended"
            await asyncio.sleep(0.2)
        assert not list((tmp_path / "serve" / "tables").glob(f"{table.id}*"))
    finally:
        stop(proc)
