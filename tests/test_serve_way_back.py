"""The way back to a seat over SSH, as a player meets it (issue 30, item 4), through the real
command and an SSH client on 127.0.0.1: the return login stays where she can find it (the
quit dialog, a line left on her terminal), a returning name is told how to get back, a wrong
code says what it means, and a second login under a name in play is refused in one line."""
from __future__ import annotations

import asyncio
import re
import time

import pytest

from test_serve_ssh import (_SCREENS, ann_opens_a_table_and_ben_joins, connect, game_session, painted_lines, read_until,
                            start_server, stop)

RETURN_LOGIN = re.compile(rb"ssh -p (\d+) (ben\+[A-Z2-9]{6})@127\.0\.0\.1")


@pytest.fixture
def served(tmp_path):
    # A server of its own each: a table an earlier test left would be the first row of the lobby.
    proc, port, _ = start_server(tmp_path, "--grace", "60")
    yield port
    stop(proc)
    assert proc.returncode == 0


async def said(stream, seen: bytearray, text: str, timeout: float = 30.0) -> None:
    """Read until the screen shows `text`, in the lines it wraps it into (a paragraph of the
    lobby: its lines joined, spaces collapsed)."""
    deadline = time.monotonic() + timeout
    while True:
        painted_lines(seen)
        if text in " ".join(" ".join(_SCREENS[id(seen)][0].display).split()):
            return
        left = deadline - time.monotonic()
        assert left > 0, f"never said {text!r}"
        try:
            chunk = await asyncio.wait_for(stream.read(65536), min(left, 0.5))
        except asyncio.TimeoutError:
            continue
        assert chunk, f"closed before {text!r}"
        seen += chunk


async def ann_and_ben_playing(port):
    """Ann (keyless) opens a table, Ben (keyless) joins: both at the first turn."""
    ann, ben = await connect(port, user="ann"), await connect(port, user="ben")
    a, b = await game_session(ann), await game_session(ben)
    seen_a, seen_b = await ann_opens_a_table_and_ben_joins(a, b)
    await read_until(b.stdout, b"Round 1 begins", seen_b)
    return (ann, a, seen_a), (ben, b, seen_b)


async def ben_quits(b, seen_b: bytearray) -> tuple[bytes, str]:
    """Ben presses q mid-game: what the quit dialog says, and his return login from the line
    left on his terminal once the game's screen is gone."""
    b.stdin.write(b"q")
    await read_until(b.stdout, b"To come back", seen_b)
    painted_lines(seen_b)
    dialog = "\n".join(_SCREENS[id(seen_b)][0].display)  # the screen now: the dialog on the table
    b.stdin.write(b"y")
    while chunk := await b.stdout.read(65536):
        seen_b += chunk
    parting = bytes(seen_b).rsplit(b"\x1b", 1)[-1]  # after the screen's last escape sequence
    return parting, dialog


async def test_quitting_mid_game_shows_the_return_login_in_the_dialog_and_leaves_it_on_the_terminal(served):
    port = served
    (ann, a, seen_a), (ben, b, seen_b) = await ann_and_ben_playing(port)
    try:
        parting, dialog = await ben_quits(b, seen_b)
        assert "Quit duckcover?" in dialog and "a stand-in bot (Medium) plays your" in dialog
        shown_login = re.search(r"To come back: ssh -p (\d+)[\s\S]{0,300}?(ben\+[A-Z2-9]{6})@127\.0\.0\.1", dialog)
        assert shown_login and int(shown_login.group(1)) == port  # (the box wraps it where it likes)
        assert b"You left ann's table mid-game: a stand-in bot (Medium) plays your seat" in parting
        found = RETURN_LOGIN.search(parting)
        assert found and int(found.group(1)) == port and found.group(2).decode() == shown_login.group(2)
        async with await connect(port, user=found.group(2).decode()) as again:  # the way it said
            process = await game_session(again)
            await read_until(process.stdout, b"ben is back at the table", bytearray())  # at his own seat
            await read_until(a.stdout, b"ben is back", seen_a)
            process.close()
    finally:
        ann.close()
        ben.close()


async def test_a_returning_name_is_told_how_to_get_back_and_a_wrong_code_says_what_it_means(served):
    port = served
    (ann, a, seen_a), (ben, b, seen_b) = await ann_and_ben_playing(port)
    try:
        parting, _ = await ben_quits(b, seen_b)
        login = RETURN_LOGIN.search(parting).group(2).decode()
        wrong = "ben+" + ("A" * 6 if not login.endswith("A" * 6) else "B" * 6)
        async with await connect(port, user="ben") as plain:  # his name, without the code
            process = await game_session(plain, size=(120, 32))
            seen = bytearray()
            await said(process.stdout, seen, f"Your seat at ann's table waits for ben, but only the return login "
                                             f"it showed brings it back: ssh -p {port} ben+CODE@127.0.0.1")
            process.stdin.write(b"j")  # the table's row: his own seat, waiting
            await read_until(process.stdout, b"comes back only with your return login", seen)
            process.close()
        async with await connect(port, user=wrong) as guess:
            process = await game_session(guess, size=(120, 32))
            seen = bytearray()
            await said(process.stdout, seen, f"{wrong} is not the return login of any seat waiting on this server: "
                                             "the code is mistyped, or that game has ended. You are in the lobby as ben.")
            process.close()
    finally:
        ann.close()
        ben.close()


async def test_a_second_plain_login_under_a_name_seated_now_is_refused_in_one_line(served):
    port = served
    (ann, a, seen_a), (ben, b, seen_b) = await ann_and_ben_playing(port)
    try:
        async with await connect(port, user="ben") as second:
            process = await game_session(second)
            out = await process.stdout.read()
            assert out.count(b"\n") == 1 and b"ben is playing at a table on this server now" in out
            assert b"ben+CODE" in out and f"ssh -p {port} OTHER@".encode() in out
            assert (await process.wait()).exit_status == 1
        b.stdin.write(b"q")  # the seated ben still plays: his screen answers
        await read_until(b.stdout, b"To come back", seen_b)
    finally:
        ann.close()
        ben.close()
