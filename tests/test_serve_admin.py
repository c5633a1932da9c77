"""The host's side of `duckcover serve` (issue 31): the operator's console (`duckcover admin`),
bans, the drain, backups and the JSON log.

The commands run as the real `duckcover admin` process against a server on 127.0.0.0/8 with
a temporary data directory: an in-process table server whose guests speak the protocol
(tests/serve_helpers.py), or the real `duckcover serve` reached over SSH. Every wait is bounded.
"""
from __future__ import annotations

import asyncio
import io
import ipaddress
import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duckcover.commands.numbers import duration
from duckcover.commands.serve import host_and_port as host_port
from duckcover.net.admin import admitted
from duckcover.net.admission import BANNED_LINE, DRAINING_LINE, Bans, ban_target, refused_login
from duckcover.net.hostlog import HostLog, line
from duckcover.saves.backup import SNAPSHOT_PREFIX, copy_out, snapshot

from helpers import examples


# --- bans, without a server -----------------------------------------------------------------
def test_a_ban_names_an_address_a_network_or_a_login_name():
    assert ban_target("203.0.113.7") == ("address", "203.0.113.7")
    assert ban_target("::ffff:203.0.113.7") == ("address", "203.0.113.7")  # as a dual-stack listener sees it
    assert ban_target("203.0.113.9/24") == ("network", "203.0.113.0/24")
    assert ban_target("2001:db8::5/64") == ("network", "2001:db8::/64")
    assert ban_target(" Ben ") == ("name", "Ben")
    for bad in ("", "ben\x1b[2J", "x" * 65, "a\nb"):
        with pytest.raises(ValueError):
            ban_target(bad)


def test_bans_refuse_their_address_network_and_name_and_a_timed_one_ends():
    now = [1000.0]
    bans = Bans(None, clock=lambda: now[0])
    bans.add("203.0.113.0/24")
    bans.add("Ben", seconds=60)
    bans.add("2001:db8::1")
    assert bans.refusal("203.0.113.200").target == "203.0.113.0/24"
    assert bans.refusal("::ffff:203.0.113.5") is not None
    assert bans.refusal("203.0.114.1") is None
    assert bans.refusal("198.51.100.1", "BEN").target == "Ben"  # names fold case
    assert bans.refusal("198.51.100.1", "ｂｅｎ") is not None  # and width
    assert bans.refusal("2001:db8::1").kind == "address" and bans.refusal("2001:db8::2") is None
    now[0] += 61
    assert bans.refusal("198.51.100.1", "ben") is None  # its time is up
    assert [ban.target for ban in bans.listing()] == ["203.0.113.0/24", "2001:db8::1"]
    assert bans.remove("203.0.113.77/24").target == "203.0.113.0/24"
    assert bans.remove("203.0.113.0/24") is None


@given(st.integers(0, 2**32 - 1), st.integers(8, 32))
@settings(max_examples=examples(200))
def test_an_address_is_refused_exactly_when_a_banned_network_holds_it(number, prefix):
    address = ipaddress.IPv4Address(number)
    bans = Bans(None)
    bans.add("198.51.100.0/24")
    bans.add(f"{address}/{prefix}")
    network = ipaddress.ip_network(f"{address}/{prefix}", strict=False)
    for probe in (address, network.network_address, network.broadcast_address,
                  ipaddress.IPv4Address((int(network.broadcast_address) + 1) % 2**32)):
        expected = probe in network or probe in ipaddress.ip_network("198.51.100.0/24")
        assert (bans.refusal(str(probe)) is not None) == expected, probe


def test_bans_are_kept_in_their_file_and_a_file_that_cannot_be_read_is_said_not_ignored(tmp_path):
    path = tmp_path / "serve" / "bans.json"
    bans = Bans(path)
    bans.add("203.0.113.7")
    bans.add("ben", seconds=3600)
    bans.add("carl")
    bans.remove("BEN")  # each change is on disk before it returns
    again = Bans(path).load()
    assert {(ban.kind, ban.target) for ban in again.listing()} == {("address", "203.0.113.7"), ("name", "carl")}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for broken in (b"{not json", b'{"bans": [{"target": "ben\\u001b", "kind": "name"}]}', b"[]",
                   b'{"bans": [{"target": "203.0.113.7", "kind": "name"}]}'):
        path.write_bytes(broken)
        with pytest.raises(ValueError, match="cannot read the bans"):
            Bans(path).load()


def test_a_door_refuses_the_banned_and_while_draining_all_but_players_coming_back():
    bans = Bans(None)
    bans.add("ben")
    assert refused_login(bans, False, "127.0.0.1", "Ben", returning=True) == ("banned", BANNED_LINE)
    assert refused_login(bans, True, "127.0.0.1", "ann", returning=False) == ("draining", DRAINING_LINE)
    assert refused_login(bans, True, "127.0.0.1", "ann", returning=True) is None
    assert refused_login(bans, False, "127.0.0.1", "ann", returning=False) is None


# --- the command line's values --------------------------------------------------------------
def test_durations_and_listening_addresses_are_parsed_or_refused_in_one_line():
    parse = duration(1, 10 * 365 * 24 * 3600)
    assert [parse(text) for text in ("90", "90s", "30m", "12h", "7d", "2w")] == [90, 90, 1800, 43200, 604800, 1209600]
    assert host_port("127.0.0.1:9464") == ("127.0.0.1", 9464)
    assert host_port("[::1]:0") == ("::1", 0)
    for bad in ("0", "-5m", "inf", "nan", "1e999", "5y", "", "11000d"):
        with pytest.raises(Exception, match="takes a time"):
            parse(bad)
    for bad in ("9464", "host:", "host:99999", "host:-1", ":9464"):
        with pytest.raises(Exception, match="takes HOST:PORT"):
            host_port(bad)


def test_the_socket_admits_its_own_user_only():
    assert admitted(os.getuid())
    assert not admitted(os.getuid() + 1)
    assert not admitted(None)  # a system that cannot tell who is there: nobody
    assert not admitted(0, own=1000)  # root is another user too


# --- the log ----------------------------------------------------------------------------------
def test_the_json_log_is_one_object_a_line_with_every_field_and_guest_text_escaped():
    text = line("json", "kick", "admin: kick 'b\x1b[2Jen'\nnext", table="t\x07", guest="b\x1b[2Jen", address="203.0.113.7")
    assert "\n" not in text
    entry = json.loads(text)
    assert set(entry) == {"time", "event", "table", "guest", "address", "message"}
    assert entry["time"].endswith("Z") and entry["event"] == "kick" and entry["address"] == "203.0.113.7"
    assert "\x1b" not in entry["guest"] and "\x1b" not in entry["message"] and "\x07" not in entry["table"]
    assert line("text", "kick", "admin: kick 'ben'") == "duckcover: admin: kick 'ben'"
    out = io.StringIO()
    HostLog("json", out).say("problem", "x", table="abc")
    assert json.loads(out.getvalue())["table"] == "abc" and out.getvalue().count("\n") == 1


# --- the backup's snapshot --------------------------------------------------------------------
def test_a_snapshot_keeps_each_file_as_it_was_and_each_database_as_of_one_transaction(tmp_path):
    from duckcover.common.files import atomic_write

    root = tmp_path / "data"
    atomic_write(root / "serve" / "tables" / "abc.json", "turn 1")
    (root / "serve" / "server.lock").write_text("")
    os.mkfifo(root / "serve" / "a-fifo")
    database = sqlite3.connect(root / "stats.db")
    database.execute("create table games (n)")
    database.execute("insert into games values (1)")
    database.commit()
    database.execute("insert into games values (2)")  # not committed when the snapshot is taken
    snap = root / "serve" / f"{SNAPSHOT_PREFIX}1"
    assert snapshot(root, snap) == 2  # the record and the database; no lock, no FIFO
    database.commit()
    atomic_write(root / "serve" / "tables" / "abc.json", "turn 2")  # the server goes on writing
    out = tmp_path / "backup"
    assert copy_out(snap, out) == 2
    assert (out / "serve" / "tables" / "abc.json").read_text() == "turn 1"
    assert sqlite3.connect(out / "stats.db").execute("select n from games").fetchall() == [(1,)]
    assert not (out / "serve" / "a-fifo").exists() and not (out / "serve" / "server.lock").exists()
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    assert snapshot(root, root / "serve" / f"{SNAPSHOT_PREFIX}2") == 2  # an earlier snapshot is never copied
    with pytest.raises(FileExistsError):
        copy_out(snap, out)  # a folder with something in it is never written into
    database.close()


# --- the console against a running table server --------------------------------------------
class Hosted:
    """An in-process table server with its admin console, as `duckcover serve` runs them."""

    def __init__(self, root: Path) -> None:
        from duckcover.net.server import TableServer

        self.root = root
        self.server = TableServer(root, grace=0.3, pace=0)
        self.server.sock = root / "tables.sock"
        self.log = io.StringIO()
        self.server.log = HostLog("json", self.log)
        self.stopped = asyncio.Event()

    async def __aenter__(self) -> "Hosted":
        from duckcover.net.admin import Console, socket_path

        self.server.bans.load()  # as `duckcover serve` does before it opens its doors
        await self.server.start(self.server.sock)
        self.console = Console(self.server, self.server.log, self.stopped.set)
        await self.console.start(socket_path(self.root))
        return self

    async def __aexit__(self, *exc) -> None:
        self.console.close()
        await self.server.close()

    def logged(self, event: str) -> list[dict]:
        return [entry for entry in map(json.loads, self.log.getvalue().splitlines()) if entry["event"] == event]


async def admin(root: Path, *words: str, timeout: float = 60.0) -> tuple[int, str, str]:
    """The real `duckcover admin` command (a process of this user), while this loop serves."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "duckcover", "admin", "--data-dir", str(root), *words,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "DUCKCOVER_LANG": "en"})
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    return proc.returncode, out.decode(), err.decode()


async def guest(server, name: str, peer: str, door: str = "ssh", end=None):
    """A guest logged in through `door` from `peer`, welcomed (its client speaks the protocol)."""
    from duckcover.net.sessions import Identity
    from serve_helpers import ProtocolClient

    client = await ProtocolClient.connect(server.sock, server.issue_token(Identity(name), peer, door=door, end=end))
    await client.until("welcome")
    return client


async def closed(client, timeout: float = 10.0) -> list[dict]:
    """Every message until the server closes the connection."""
    got = []
    while (message := await client.next(timeout)) is not None:
        got.append(message)
    return got


async def test_sessions_and_tables_say_who_is_where_through_which_door(tmp_path):
    async with Hosted(tmp_path) as hosted:
        ann = await guest(hosted.server, "ann", "203.0.113.7")
        ben = await guest(hosted.server, "ben", "198.51.100.2", door="web")
        ann.send("create", seats=["human", "human"], name="Friday")
        await ann.until("seated")
        code, out, err = await admin(tmp_path, "sessions", "--json")
        assert (code, err) == (0, "")
        rows = {row["name"]: row for row in json.loads(out)}
        assert rows["ann"]["door"] == "ssh" and rows["ann"]["address"] == "203.0.113.7"
        assert rows["ann"]["table_name"] == "Friday" and rows["ann"]["seat"] == 0
        assert rows["ben"]["door"] == "web" and rows["ben"]["table"] is None
        code, out, _ = await admin(tmp_path, "sessions")
        assert code == 0 and out.splitlines()[0].split() == ["NAME", "DOOR", "ADDRESS", "SINCE", "TABLE"]
        assert any(line.startswith("ben") and "(lobby)" in line for line in out.splitlines())
        code, out, _ = await admin(tmp_path, "tables", "--json")
        [table] = json.loads(out)
        assert (table["name"], table["state"]) == ("Friday", "open")
        assert [seat["name"] for seat in table["seats"]] == ["ann", ""]
        for client in (ann, ben):
            await client.close()


async def test_announce_reaches_every_guest_on_one_escaped_bounded_line(tmp_path):
    async with Hosted(tmp_path) as hosted:
        server = hosted.server
        guests = [await guest(server, name, "127.0.0.1") for name in ("ann", "ben", "cat")]
        guests[0].send("create", seats=["human", "easy"], seed=3)
        await guests[0].until("seated")
        guests[1].send("watch", table=next(iter(server.tables)))
        await guests[1].until("seated")  # at a game, watching one, in the lobby: all three hear it
        text = "Restart\nat 9 \x1b[2J" + "x" * 500
        code, out, err = await admin(tmp_path, "announce", text)
        assert (code, err) == (0, "") and "announced to 3 guest(s)" in out
        for client in guests:
            said = (await client.until("announce"))["text"]
            assert said.startswith("Restart at 9 ") and "\x1b" not in said and "\n" not in said and len(said) <= 200
        [entry] = hosted.logged("admin")
        assert "announce" in entry["message"] and "\x1b" not in entry["message"]
        for client in guests:
            await client.close()


async def test_kick_ends_that_guests_session_only_and_its_seat_waits(tmp_path):
    async with Hosted(tmp_path) as hosted:
        server = hosted.server
        ended = []
        ann = await guest(server, "ann", "127.0.0.1")
        ben = await guest(server, "ben", "127.0.0.1", end=ended.append)
        ann.send("create", seats=["human", "human", "easy"], seed=5)
        await ann.until("seated")
        ben.send("join", table=next(iter(server.tables)))
        await ben.until("seated")
        code, out, err = await admin(tmp_path, "kick", "ben")
        assert (code, err) == (0, "") and "ended 1 session(s) of ben" in out
        bye = [m for m in await closed(ben) if m["type"] == "bye"]
        assert bye and bye[0]["code"] == "ended-by-host"
        status = await ann.until("status")  # ann plays on, and sees ben away
        assert [p["connected"] for p in status["players"]][:2] == [True, False]
        ann.send("sync")
        assert (await ann.until("seated"))["seat"] == 0
        await asyncio.sleep(3.5)  # KICK_GRACE: the door closes what the client left open
        assert ended == ["duckcover: the host ended this session."]
        [entry] = hosted.logged("admin")
        assert entry["guest"] == "ben" and "kick" in entry["message"]
        code, _, err = await admin(tmp_path, "kick", "nobody")
        assert code == 2 and err.count("\n") == 1 and "nobody named 'nobody' is connected" in err
        await ann.close()


async def test_ban_ends_the_sessions_it_matches_is_refused_by_every_door_and_kept_for_the_next_start(tmp_path):
    from duckcover.net.admission import Bans
    from duckcover.net.sessions import Identity

    async with Hosted(tmp_path) as hosted:
        server = hosted.server
        ann = await guest(server, "ann", "198.51.100.9")
        eve = await guest(server, "eve", "203.0.113.66", door="web")
        code, out, err = await admin(tmp_path, "ban", "203.0.113.0/24", "--for", "2h")
        assert (code, err) == (0, "") and "banned network 203.0.113.0/24 for 7200 s; ended 1 session(s)" in out
        assert [m["code"] for m in await closed(eve) if m["type"] == "bye"] == ["banned"]
        assert server.refused_login("203.0.113.5", Identity("anyone"))[0] == "banned"
        assert server.refused_login("198.51.100.9", Identity("ann")) is None
        code, out, _ = await admin(tmp_path, "ban", "Mallory")
        assert code == 0 and server.refused_login("198.51.100.1", Identity("mallory"))[0] == "banned"
        code, out, _ = await admin(tmp_path, "bans", "--json")
        assert {(row["kind"], row["target"]) for row in json.loads(out)} == {("network", "203.0.113.0/24"),
                                                                              ("name", "Mallory")}
        assert len(hosted.logged("admin")) == 2
        ann.send("lobby")
        await ann.until("lobby")  # nobody else was touched
        await ann.close()
    restarted = Bans(tmp_path / "serve" / "bans.json").load()  # what the next `duckcover serve` reads
    assert restarted.refusal("203.0.113.200") is not None and restarted.refusal("1.2.3.4", "MALLORY") is not None
    async with Hosted(tmp_path) as hosted:
        code, out, _ = await admin(tmp_path, "unban", "mallory")
        assert code == 0 and "lifted the ban on name Mallory" in out
        code, _, err = await admin(tmp_path, "unban", "mallory")
        assert code == 2 and "'mallory' is not banned" in err
    for words in (["ban", "ben\x1b[2J"], ["ban", "ben", "--for", "0"], ["ban"], ["frobnicate"], ["kick"]):
        code, out, err = await admin(tmp_path, *words)
        assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, words


async def test_drain_refuses_new_tables_and_logins_lets_the_running_game_end_then_stops(tmp_path):
    from duckcover.net.sessions import Identity
    from serve_helpers import play_until

    async with Hosted(tmp_path) as hosted:
        server = hosted.server
        ann = await guest(server, "ann", "127.0.0.1")
        ann.send("create", seats=["human", "easy"], seed=11)
        await ann.until("seated")
        ann_identity = next(iter(server.tables.values())).seats[0].owner
        lobby = await guest(server, "ben", "127.0.0.1")
        code, out, err = await admin(tmp_path, "drain")
        assert (code, err) == (0, "") and "draining: 1 game(s) running" in out
        assert "restarts" in (await lobby.until("announce"))["text"]
        lobby.send("create", seats=["human", "easy"])
        assert (await lobby.until("error"))["code"] == "server-draining"
        assert server.refused_login("127.0.0.1", Identity("cat"))[0] == "draining"
        assert server.refused_login("127.0.0.1", ann_identity) is None  # her seat at the running game
        assert not hosted.stopped.is_set()
        await play_until([ann], lambda: ann.game is not None and ann.game.over, timeout=120)
        await asyncio.wait_for(hosted.stopped.wait(), 10)  # `duckcover serve` exits 0 on this
        assert [entry["message"] for entry in hosted.logged("admin")][-1] == "admin: drain: no game running; the server stops"
        for client in (ann, lobby):
            await client.close()


def socket_mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_the_admin_socket_is_its_users_only_and_another_uid_is_refused_and_logged(tmp_path):
    from duckcover.net.admin import socket_path

    async with Hosted(tmp_path) as hosted:
        path = socket_path(tmp_path)
        assert socket_mode(path) == 0o600 and socket_mode(path.parent) == 0o700
        if os.geteuid() != 0:
            pytest.skip("another uid's process needs root to start here (the check itself: test_the_socket_admits_its_own_user_only)")
        # Past the file modes (root opens them for the test), SO_PEERCRED still says who it is.
        for folder in (path.parent, *path.parents):
            if folder == Path("/"):
                break
            folder.chmod(folder.stat().st_mode | 0o005)
        path.chmod(0o666)
        nobody = 65534
        # (The answer comes before the request is read: the peer's uid is known at the connection.)
        script = "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.makefile().readline())"
        proc = await asyncio.create_subprocess_exec("/usr/bin/python3", "-c", script, str(path), user=nobody,
                                                    group=nobody, extra_groups=[], cwd="/",
                                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = await asyncio.wait_for(proc.communicate(), 30)
        assert out, err
        answer = json.loads(out)
        assert answer["ok"] is False and "its own user only" in answer["error"], err
        [entry] = hosted.logged("admin-refused")
        assert f"uid {nobody}" in entry["message"]


async def test_no_server_running_is_one_line_and_status_2(tmp_path):
    code, out, err = await admin(tmp_path, "sessions")
    assert code == 2 and out == "" and err.count("\n") == 1 and "no duckcover serve is running" in err


async def test_backup_while_running_copies_tables_statistics_and_host_key_consistently(tmp_path):
    from duckcover.saves import stats
    from serve_helpers import play_until

    root = tmp_path / "data"
    async with Hosted(root) as hosted:
        server = hosted.server
        ann = await guest(server, "ann", "127.0.0.1")
        ann.send("create", seats=["human", "easy"], seed=2)
        await ann.until("seated")
        await play_until([ann], lambda: ann.game is not None and ann.game.over, timeout=120)
        (root / "serve" / "ssh_host_ed25519_key").write_text("key")
        ben = await guest(server, "ben", "127.0.0.1")
        ben.send("create", seats=["human", "human"], name="waiting")
        await ben.until("seated")
        code, out, err = await admin(root, "backup", str(tmp_path / "copy"))
        assert (code, err) == (0, "") and "backed up" in out
        copy = tmp_path / "copy"
        assert (copy / "serve" / "ssh_host_ed25519_key").read_text() == "key"
        assert len(list((copy / "serve" / "tables").glob("*.table.json"))) == 1  # ben's open table
        assert len(list((copy / "games" / "finished").glob("*.json"))) == 1  # ann's finished game
        assert sqlite3.connect(copy / stats.DB_NAME).execute("select count(*) from games").fetchone()[0] == 1
        assert not list((root / "serve").glob(f"{SNAPSHOT_PREFIX}*"))  # the snapshot is gone
        assert not (copy / "serve" / "admin.sock").exists()
        code, _, err = await admin(root, "backup", str(tmp_path / "copy"))
        assert code == 2 and "exists and is not an empty folder" in err
        assert [entry["event"] for entry in hosted.logged("admin")] == ["admin"]
        for client in (ann, ben):
            await client.close()


# --- through the doors: the real `duckcover serve`, its guests over SSH -----------------------
def scrape(lines: list[str]) -> dict[str, float]:
    """The server's /metrics page (its address is on its start lines), as name{labels} -> value."""
    import re
    import urllib.request

    url = next(re.search(r"http://\S+/metrics", line).group(0) for line in lines if "/metrics" in line)
    with urllib.request.urlopen(url, timeout=10) as page:
        text = page.read().decode()
    return {name: float(value) for name, value in
            (row.rsplit(" ", 1) for row in text.splitlines() if row and not row.startswith("#"))}


async def test_through_ssh_announce_is_on_every_screen_and_kick_ends_that_session_only(tmp_path):
    from test_serve_ssh import connect, game_session, read_until, start_server, stop

    proc, port, _ = start_server(tmp_path, "--log-format", "json")
    try:
        async with await connect(port, "ann") as ann, await connect(port, "ben") as ben:
            screens = {}
            for name, conn in (("ann", ann), ("ben", ben)):
                process, seen = await game_session(conn), bytearray()
                await read_until(process.stdout, b"Tables on this server", seen)
                screens[name] = (process, seen)
            code, out, err = await admin(tmp_path, "announce", "Restart at nine")
            assert (code, err) == (0, "") and "announced to 2 guest(s)" in out
            for process, seen in screens.values():
                await read_until(process.stdout, b"From the host: Restart at nine", seen)
            code, out, err = await admin(tmp_path, "kick", "ben")
            assert (code, err) == (0, "") and "ended 1 session(s) of ben" in out
            process, seen = screens["ben"]
            await read_until(process.stdout, b"the host ended this session", seen)
            await asyncio.wait_for(process.wait_closed(), 15)
            process, seen = screens["ann"]
            process.stdin.write(b"c")  # ann's session goes on
            await read_until(process.stdout, b"A new table", seen)
            code, out, _ = await admin(tmp_path, "sessions", "--json")
            assert [(row["name"], row["door"]) for row in json.loads(out)] == [("ann", "ssh")]
            process.close()
    finally:
        stop(proc)
    logged = [json.loads(line) for line in proc.stdout.read().splitlines() if line.startswith("{")]
    assert {"admin", "stop"} <= {entry["event"] for entry in logged}  # the log is JSON, line by line
    assert proc.returncode == 0


async def test_through_ssh_a_ban_cuts_its_address_and_name_at_the_door_and_outlives_a_restart(tmp_path):
    import asyncssh

    from test_serve_ssh import connect, game_session, read_until, start_server, stop

    proc, port, lines = start_server(tmp_path, "--metrics", "127.0.0.1:0")
    try:
        async with await connect(port, "eve", local_addr=("127.0.0.2", 0)) as eve:
            process, seen = await game_session(eve), bytearray()
            await read_until(process.stdout, b"Tables on this server", seen)
            code, out, err = await admin(tmp_path, "ban", "127.0.0.2")
            assert (code, err) == (0, "") and "ended 1 session(s)" in out
            await read_until(process.stdout, b"the host has banned this login", seen)
        with pytest.raises((asyncssh.Error, OSError)):
            async with await connect(port, "eve", local_addr=("127.0.0.2", 0), connect_timeout=10):
                pass
        code, _, _ = await admin(tmp_path, "ban", "mallory")
        async with await connect(port, "Mallory") as conn:  # another address: the name is refused, one line
            result = await asyncio.wait_for(conn.run(term_type="xterm", check=False), 30)
            assert result.exit_status == 1 and result.stdout.count("\n") == 1 and "host's ban" in result.stdout
        async with await connect(port, "ann") as ann:  # nobody else is touched
            process = await game_session(ann)
            await read_until(process.stdout, b"Tables on this server", bytearray())
            process.close()
        assert scrape(lines)['duckcover_logins_refused_total{reason="banned"}'] == 2
    finally:
        stop(proc)
    assert proc.returncode == 0
    proc, port, _ = start_server(tmp_path)
    try:
        with pytest.raises((asyncssh.Error, OSError)):
            async with await connect(port, "eve", local_addr=("127.0.0.2", 0), connect_timeout=10):
                pass
        async with await connect(port, "ann") as ann:
            result = await asyncio.wait_for(ann.run("ls", check=False), 30)  # past the door: only the
            assert "only runs the game" in result.stdout  # command is refused, as everyone's is
    finally:
        stop(proc)


async def test_drain_wait_returns_when_the_server_has_exited_0(tmp_path):
    from test_serve_ssh import start_server

    proc, _, _ = start_server(tmp_path)
    try:
        code, out, err = await admin(tmp_path, "drain", "--wait")
        assert (code, err) == (0, "") and "draining: 0 game(s) running" in out and "the server has stopped" in out
        assert await asyncio.to_thread(proc.wait, 15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    code, _, err = await admin(tmp_path, "drain")
    assert code == 2 and "no duckcover serve is running" in err


async def test_through_the_web_door_a_banned_address_or_name_and_a_drain_are_refused_in_one_line(tmp_path):
    from test_serve_web import log_in, open_ws, until_closed

    import aiohttp
    from aiohttp.test_utils import TestServer

    from duckcover.net import webfront
    from duckcover.net.guestpty import Front
    from duckcover.net.server import TableServer

    tables = TableServer(tmp_path, pace=0)
    await tables.start(tmp_path / "tables.sock")
    front = Front(tables, tmp_path / "tables.sock", 4, None, 2222, "127.0.0.1", "instant")
    server = TestServer(webfront.WebDoor(front, idle_timeout=30, login_timeout=5).app(), host="127.0.0.1")
    await server.start_server()
    try:
        async with aiohttp.ClientSession() as session:
            for setup, name, words in ((lambda: tables.bans.add("127.0.0.0/8"), "wendy", BANNED_LINE),
                                       (lambda: (tables.bans.remove("127.0.0.0/8"), tables.bans.add("Mallory")),
                                        "mallory", BANNED_LINE),
                                       (lambda: setattr(tables, "draining", True), "wendy", DRAINING_LINE)):
                setup()
                async with await open_ws(session, server) as ws:
                    await log_in(ws, name)
                    seen = bytearray()
                    await until_closed(ws, seen)
                    assert bytes(seen) == (words + "\r\n").encode(), name
        page = tables.metrics.page().decode()
        assert 'duckcover_logins_refused_total{reason="banned"} 2.0' in page
        assert 'duckcover_logins_refused_total{reason="draining"} 1.0' in page
    finally:
        front.stop_sessions()
        await server.close()
        await tables.close()
