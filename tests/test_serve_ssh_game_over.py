"""The end of an SSH game as a guest meets it: Game over, then `n` and `q` (issue 19).

The guest's terminal is read through a terminal model (pyte), as in test_serve_ssh.py.
"""
from __future__ import annotations

import asyncio
import re
import time

from test_serve_ssh import (SYNC_SUPPORTED, connect, game_session, play_by_keys, read_until, screen_now, start_server,
                            stop)

DOWN, UP, TAB, ENTER, ESC = b"\x1b[B", b"\x1b[A", b"\t", b"\r", b"\x1b"


async def read_more(process, seen: bytearray, wait: float = 0.2) -> None:
    """What the terminal is sent within `wait` seconds."""
    deadline = time.monotonic() + wait
    while (left := deadline - time.monotonic()) > 0:
        try:
            chunk = await asyncio.wait_for(process.stdout.read(1 << 20), left)
        except asyncio.TimeoutError:
            return
        if not chunk:
            return
        seen += chunk


async def until_shown(process, seen: bytearray, text: str, timeout: float = 30) -> None:
    """Until the terminal model shows `text` now (not merely at some time before)."""
    deadline = time.monotonic() + timeout
    while text not in screen_now(seen):
        assert time.monotonic() < deadline and not process.stdout.at_eof(), f"never showed {text!r}: " + screen_now(seen)
        await read_more(process, seen)


async def until_gone(process, seen: bytearray, text: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while text in screen_now(seen):
        assert time.monotonic() < deadline, f"still shows {text!r}: " + screen_now(seen)
        await read_more(process, seen)


async def test_n_then_q_after_an_ssh_game_shows_the_new_table_then_the_lobby_and_ends_cleanly(tmp_path):
    proc, port, _ = start_server(tmp_path, "--grace", "600", "--speed", "instant")
    try:
        async with await connect(port, user="ann") as conn:
            guest = await game_session(conn, size=(120, 40))  # the whole set-up in view of the model
            seen = bytearray()
            await read_until(guest.stdout, b"Tables on this server", seen)
            guest.stdin.write(SYNC_SUPPORTED)  # whole frames: the model never reads half a frame
            guest.stdin.write(b"c")
            await read_until(guest.stdout, b"A new table", seen)
            # Two seats: the players list (Tab past "Rated game", Tab, open, up twice from 4, choose),
            # then seat 2 from an open seat to a medium bot (Tab, open, down past the levels listed
            # before it, choose); Ctrl+S creates.
            guest.stdin.write(TAB + TAB + ENTER)
            await until_shown(guest, seen, "▲")  # the list is open
            guest.stdin.write(UP + UP + ENTER)
            await until_gone(guest, seen, "Seat 3")
            guest.stdin.write(TAB + ENTER)
            await until_shown(guest, seen, "Hard (")
            from duckcover.players.difficulty import DIFFICULTIES

            guest.stdin.write(DOWN * (1 + list(DIFFICULTIES).index("medium")) + ENTER)
            await until_gone(guest, seen, "Hard (")
            assert "Medium" in screen_now(seen)
            guest.stdin.write(b"\x13")
            await until_shown(guest, seen, "Round 1")
            # Turns by keys, and past each round's scorepad, to the Game over screen.
            await play_by_keys([guest], [seen], lambda: "n: new game, q: quit" in screen_now(seen),
                               "the game did not finish")
            guest.stdin.write(b"n")
            await until_shown(guest, seen, "A new table")  # a new game starts here
            await read_more(guest, seen, 1.0)  # time for a crash to show, were there one
            assert "A new table" in screen_now(seen)
            guest.stdin.write(ESC)
            await until_shown(guest, seen, "Tables on this server")
            await read_more(guest, seen, 0.5)
            assert "Tables on this server" in screen_now(seen)
            guest.stdin.write(b"q")  # the quit question
            await until_shown(guest, seen, "Quit duckcover?")
            question = screen_now(seen)
            assert "saved after every turn" not in question  # a guest has no game of their own
            guest.stdin.write(b"y")
            remaining = await asyncio.wait_for(guest.stdout.read(), 15)
            seen += remaining
            await asyncio.wait_for(guest.wait_closed(), 15)
            assert guest.exit_status == 0
            for word in (b"Traceback", b"NoMatches", b"Error"):
                assert word not in seen, re.sub(rb"\x1b\[[0-9;?]*[a-zA-Z]", b"", bytes(seen[seen.find(word) - 3000:seen.find(word) + 3000]))
    finally:
        stop(proc)


async def test_an_error_in_a_guests_app_is_one_line_for_the_guest_and_logged_on_the_server(tmp_path, capsys):
    """Whatever fails inside the guest's app: Textual's traceback is kept off the guest's
    terminal, the server's log gets it whole and its stderr one line."""
    import os

    import pytest

    from duckcover.app.options import AppOptions
    from duckcover.app.remote import CRASH_LOG, LobbyScreen, RemoteApp, report_crash
    from duckcover.common import i18n
    from duckcover.net.server import TableServer
    from duckcover.net.sessions import Identity

    i18n.set_language("en")
    server = TableServer(tmp_path, grace=30, pace=0)
    await server.start(tmp_path / "tables.sock")
    try:
        app = RemoteApp(AppOptions(data_dir=tmp_path, speed="instant"), str(tmp_path / "tables.sock"),
                        server.issue_token(Identity("ann")))

        class Broken(Exception):
            pass

        def fail() -> None:
            raise Broken("a handler failed")

        with pytest.raises(Broken):
            async with app.run_test(size=(80, 24)) as pilot:
                for _ in range(200):
                    if isinstance(app.screen, LobbyScreen):
                        break
                    await pilot.pause(0.02)
                app.call_later(fail)
                await pilot.pause(0.2)
    finally:
        await server.close()
    assert "Traceback" in app.crash and "Broken: a handler failed" in app.crash
    app._print_error_renderables()  # what Textual prints on the way out: nothing
    assert "Traceback" not in capsys.readouterr().err
    read_end, write_end = os.pipe()
    report_crash(app.crash, "ann\x1b[2J", tmp_path, str(write_end))
    os.close(write_end)
    line = os.read(read_end, 4096).decode()
    os.close(read_end)
    assert line.count("\n") == 1 and "ann" in line and "Broken: a handler failed" in line and "\x1b" not in line
    log = (tmp_path / "serve" / CRASH_LOG).read_text()
    assert "Traceback" in log and 'File "' not in line and 'raise Broken("a handler failed")' in log and "\x1b" not in log
