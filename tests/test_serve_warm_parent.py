"""The guests' warm parent (duckcover.app.zygote, started by duckcover.net.guests): forked
clients start as fresh ones would, each under its limits and with its own random state, and a
killed warm parent takes no session with it and is started again."""
from __future__ import annotations

import asyncio
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from duckcover.app import zygote
from duckcover.net.guests import CLIENT_ADDRESS_SPACE, CLIENT_CPU_SECONDS
from test_serve_attacks import server_children
from test_serve_ssh import connect, game_session, read_until, start_server, stop

LINUX = sys.platform.startswith("linux")
pytestmark = pytest.mark.skipif(not LINUX, reason="a child subreaper, /proc and prlimit are Linux's")
TESTS = Path(__file__).resolve().parent

# Two clients forked from a warm parent whose entry is tests/zygote_probe.py, by the guests
# module itself, in a process of their own (it becomes a child subreaper: not pytest's worker).
TWO_PROBES = """
import asyncio, json, os, sys
from duckcover.net.guests import Guests

async def main():
    guests = Guests("forked", entry="zygote_probe:main")
    assert await guests.settled(60), "the warm parent was not ready"
    said = []
    for n in range(2):
        guest = guests.start({"PATH": os.environ["PATH"], "PROBE": str(n), "LANG": "C.UTF-8"}, (90, 30),
                             log_fd=sys.stderr.fileno())
        out = b""
        while b"}" not in out:
            out += os.read(guest.master, 65536)
        with open(f"/proc/{guest.proc.pid}/stat") as stat:  # (a zombie's too, until it is reaped)
            parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        said.append({**json.loads(out[out.index(b"{"):out.rindex(b"}") + 1]), "status": guest.proc.wait(30),
                     "forked": guest.forked, "parent": parent})
        os.close(guest.master)
    guests.close()
    print(json.dumps({"me": os.getpid(), "said": said}))

asyncio.run(main())
"""


def two_probes() -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", TWO_PROBES], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_forked_clients_start_as_fresh_ones_would_and_do_not_share_random_state():
    found = two_probes()
    first, second = found["said"]
    assert first["forked"] and second["forked"]
    assert first["random"] != second["random"]  # random reseeds itself in each child
    for n, probe in enumerate(found["said"]):
        assert probe["parent"] == found["me"]  # the server's child, not the warm parent's
        assert probe["sid"] == probe["pid"]  # a session of its own (its pty its terminal)
        assert probe["tty"] and probe["threads"] == 1 and probe["sigterm_default"]
        assert probe["fds"] == [0, 1, 2, zygote.GUEST_LOG_FD]  # nothing of the parent's: not its socket
        assert probe["env"]["PROBE"] == str(n) and probe["env"]["DUCKCOVER_LOG_FD"] == str(zygote.GUEST_LOG_FD)
        assert probe["name"] == zygote.GUEST_NAME.decode()
        assert probe["status"] == 7  # its end, seen by the server as a child's


def warm_parents(server: int) -> list[int]:
    found = []
    for task in os.listdir(f"/proc/{server}/task"):
        found += [int(n) for n in Path(f"/proc/{server}/task/{task}/children").read_text().split()]
    return [pid for pid in found if Path(f"/proc/{pid}/comm").read_bytes().strip() == zygote.PARENT_NAME]


async def only_new_client(server: int, known: set[int]) -> int:
    deadline = time.monotonic() + 45
    while not (new := set(server_children(server)) - known):
        assert time.monotonic() < deadline, "no client process started"
        await asyncio.sleep(0.1)
    assert len(new) == 1, new
    return new.pop()


async def test_a_forked_client_is_the_servers_child_under_its_limits(tmp_path):
    proc, port, _ = start_server(tmp_path)
    try:
        async with await connect(port, user="ann") as conn:
            process = await game_session(conn)
            await read_until(process.stdout, b"Tables on this server", bytearray())
            client = await only_new_client(proc.pid, set())
            assert Path(f"/proc/{client}/comm").read_bytes().strip() == zygote.GUEST_NAME  # forked, not fresh
            assert os.getsid(client) == client
            assert resource.prlimit(client, resource.RLIMIT_AS) == (CLIENT_ADDRESS_SPACE, CLIENT_ADDRESS_SPACE)
            assert resource.prlimit(client, resource.RLIMIT_CPU) == (CLIENT_CPU_SECONDS, CLIENT_CPU_SECONDS)
            assert resource.prlimit(client, resource.RLIMIT_CORE) == (0, 0)
            process.close()
    finally:
        stop(proc)
    assert proc.returncode == 0


async def test_a_killed_warm_parent_is_started_again_and_the_sessions_play_on(tmp_path):
    proc, port, lines = start_server(tmp_path)
    try:
        [parent] = warm_parents(proc.pid)
        async with await connect(port, user="ann") as before:
            ann = await game_session(before)
            seen_a = bytearray()
            await read_until(ann.stdout, b"Tables on this server", seen_a)
            ann_client = await only_new_client(proc.pid, set())
            os.kill(parent, signal.SIGKILL)
            deadline = time.monotonic() + 60
            while not (parents := warm_parents(proc.pid)) or parents == [parent]:
                assert time.monotonic() < deadline, "no new warm parent"
                await asyncio.sleep(0.1)
            # Ann's client outlived it, and still answers.
            assert ann_client in server_children(proc.pid)
            ann.stdin.write(b"c")
            await read_until(ann.stdout, b"A new table", seen_a)
            ann.stdin.write(b"\x13")  # her table, with the default seats
            await read_until(ann.stdout, b"waiting for players", seen_a)
            # The next login works, and its client is forked again, once the new parent is warm.
            while True:
                async with await connect(port, user="ben") as after:
                    ben = await game_session(after)
                    seen_b = bytearray()
                    await read_until(ben.stdout, b"Tables on this server", seen_b)
                    await read_until(ben.stdout, b"ann's table", seen_b)
                    ben_client = await only_new_client(proc.pid, {ann_client})
                    forked = Path(f"/proc/{ben_client}/comm").read_bytes().strip() == zygote.GUEST_NAME
                    ben.close()
                deadline_ben = time.monotonic() + 15
                while ben_client in server_children(proc.pid):  # reaped by the server, as before
                    assert time.monotonic() < deadline_ben, "ben's client was not reaped"
                    await asyncio.sleep(0.1)
                if forked:
                    break
                assert time.monotonic() < deadline, "no client forked by the new warm parent"
                await asyncio.sleep(0.5)
            ann.close()
        deadline = time.monotonic() + 15
        while ann_client in server_children(proc.pid):  # the server still sees its end
            assert time.monotonic() < deadline, "ann's client was not reaped"
            await asyncio.sleep(0.1)
    finally:
        stop(proc)
    assert proc.returncode == 0
    log = "".join(lines) + proc.stdout.read()
    assert "warm parent ended (killed by SIGKILL)" in log
    assert "could not rehearse" not in log  # each warm parent ran a client to its lobby before it forked


BROKEN_PARENT = """
import asyncio, json, os
from duckcover.net.guests import Guests

async def main():
    guests = Guests("forked", entry="no_such_module_here:main")
    ready = await guests.settled(60)
    guest = guests.start({"PATH": os.environ["PATH"], "LANG": "C.UTF-8"}, (80, 24))
    guest.proc.kill()
    guest.proc.wait(30)
    os.close(guest.master)
    guests.close()
    print(json.dumps({"ready": ready, "forked": guest.forked}))

asyncio.run(main())
"""


def test_a_warm_parent_that_cannot_start_leaves_guests_to_fresh_clients_and_says_so():
    done = subprocess.run([sys.executable, "-c", BROKEN_PARENT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[-1]) == {"ready": False, "forked": False}
    assert "the guests' warm parent ended (status 1); it is started again, and guests start as fresh " \
           "interpreters until it is warm" in done.stderr
