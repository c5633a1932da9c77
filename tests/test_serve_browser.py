"""The browser door as people meet it: Debian's Chromium, driven by Playwright, at the real
`duckcover serve --web`, beside the real OpenSSH client at the same table.

The page's terminal is read from xterm.js's own buffer (`term.buffer`, page.evaluate), as the
SSH tests read theirs through a terminal model. Only loopback; every wait is bounded. Chromium
is the system's (`apt-get install chromium`): Playwright's own browser download is never used.
"""
from __future__ import annotations

import asyncio
import json
import os
import pty
import re
import shutil
import signal
import struct
import termios
import time
from pathlib import Path

import pytest

from test_serve_ssh import CHOOSE, SYNC_SUPPORTED, WAITING, screen_now, start_server, stop

CHROMIUM = "/usr/bin/chromium"
SSH = shutil.which("ssh")
# As the machine's notes say Chromium runs here: as root (no sandbox), and nothing of its own
# on the network (a closed network refuses it, many connections at a time).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}  # a phone held upright: 80 columns, the font scaled to fit

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"needs Debian's Chromium at {CHROMIUM} (apt-get install chromium)"),
    pytest.mark.skipif(SSH is None, reason="needs the OpenSSH client"),
]

# The same keys as CHOOSE (test_serve_ssh.py), as a person presses them on the page.
CHOOSE_KEYS = ("Space", "Enter", "ArrowRight", "Enter", "ArrowDown", "Enter", "ArrowLeft", "Enter", "ArrowUp", "Enter")
assert CHOOSE == b" \r\x1b[C\r\x1b[B\r\x1b[D\r\x1b[A\r"
GAME_OVER = "n: new game, q: quit"


async def page_text(page) -> str:
    """What the page's terminal shows now, line by line (xterm.js's buffer)."""
    return await page.evaluate("""() => {
        const buffer = window.duckTerm.buffer.active, lines = [];
        for (let y = buffer.viewportY; y < buffer.viewportY + window.duckTerm.rows; y++) {
            const line = buffer.getLine(y);
            lines.push(line ? line.translateToString(true) : "");
        }
        return lines.join("\\n");
    }""")


async def page_shows(page, pattern: str, timeout: float = 30) -> re.Match:
    deadline = time.monotonic() + timeout
    while not (found := re.search(pattern, text := await page_text(page))):
        assert time.monotonic() < deadline, f"the page never showed {pattern!r}:\n{text}"
        await asyncio.sleep(0.1)
    return found


async def page_loses(page, text: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while text in (shown := await page_text(page)):
        assert time.monotonic() < deadline, f"the page still shows {text!r}:\n{shown}"
        await asyncio.sleep(0.1)


async def press(page, *keys: str) -> None:
    for key in keys:
        await page.keyboard.press(key)


async def open_page(browser, url: str, login: str):
    """A new page at the door, logged in as `login` by the form, as a person does it."""
    page = await browser.new_page(viewport=PHONE)
    await page.goto(url)
    note = await page.text_content("#note")
    assert "return login" in note  # the page says what to type
    await page.fill("#name", login)
    await page.press("#name", "Enter")
    return page


class SshGuest:
    """The real `ssh` client on a pty of 120x40 (the size of the SSH tests' terminal model)."""

    def __init__(self, port: int, user: str) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execv(SSH, [SSH, "-p", str(port), "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                           "-o", "LogLevel=ERROR", "-o", "PubkeyAuthentication=no", "-tt", f"{user}@127.0.0.1"])
        import fcntl

        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        os.set_blocking(self.fd, False)
        self.seen = bytearray()

    def read(self) -> None:
        try:
            while chunk := os.read(self.fd, 65536):
                self.seen += chunk
        except (BlockingIOError, OSError):
            pass

    def text(self) -> str:
        self.read()
        return screen_now(self.seen)

    async def shows(self, pattern: str, timeout: float = 30) -> re.Match:
        deadline = time.monotonic() + timeout
        while not (found := re.search(pattern, text := self.text())):
            assert time.monotonic() < deadline, f"the SSH guest never showed {pattern!r}:\n{text}"
            await asyncio.sleep(0.1)
        return found

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def close(self) -> None:
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def scorepad_rows(text: str, names: list[str]) -> dict[str, list[int]]:
    """Each player's row of numbers in a Game over screen's scorepad table (what the screen
    behind the dialog shows around it is left out)."""
    rows = {}
    for line in text.split("Scorepad", 1)[-1].splitlines():
        for name in names:
            match = re.search(rf"│ {re.escape(name)}(?: \*)? *│(.*)", line)
            if match and name not in rows:
                numbers = []
                for cell in match.group(1).split("│"):
                    if not re.fullmatch(r" *[-+]?\d+ *", cell):
                        break
                    numbers.append(int(cell))
                rows[name] = numbers
    return rows


async def test_a_web_guest_and_an_ssh_guest_play_a_whole_game_and_the_page_comes_back_to_its_seat(tmp_path):
    playwright_api = pytest.importorskip("playwright.async_api")
    proc, port, lines = start_server(tmp_path, "--grace", "600", "--speed", "instant", "--web", "127.0.0.1:0")
    url = re.search(r"in a browser at: +(http://\S+)", "".join(lines)).group(1)
    ssh = None
    try:
        async with playwright_api.async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = await open_page(browser, url, "wendy")
            await page_shows(page, "Tables on this server")
            assert (await page.evaluate("() => window.duckTerm.cols")) == 80  # the phone's width: 80 columns
            await page.click("#terminal")  # a tap on the terminal, as on a phone
            # A table of three: wendy, an open seat, one medium bot (players 4 -> 3: its list, up, choose).
            await press(page, "c")
            await page_shows(page, "A new table")
            await press(page, "Tab", "Tab", "Enter")
            await page_shows(page, "▲")
            await press(page, "ArrowUp", "Enter")
            await page_loses(page, "Seat 4")
            assert re.search(r"Seat 3 +\W+Medium", await page_text(page))
            await press(page, "Control+s")
            await page_shows(page, "waiting for players")

            ssh = SshGuest(port, "sam")
            await ssh.shows("wendy's table")
            ssh.write(SYNC_SUPPORTED)  # whole frames: the model never reads half a frame
            ssh.write(b"j")
            login = (await page_shows(page, r"wendy\+[A-Z2-9]{6}")).group(0)  # her way back, on her screen only
            assert login not in ssh.text()

            tables = tmp_path / "serve" / "tables"
            record_path = next(p for p in tables.glob("*.json") if not p.name.endswith(".table.json"))
            deadline = time.monotonic() + 60
            while len(json.loads(record_path.read_text())["rounds"][0]["turns"]) < 2:
                assert time.monotonic() < deadline, "no turn was played"
                await press(page, *CHOOSE_KEYS)
                ssh.write(CHOOSE)
                await asyncio.sleep(0.2)
            # The page found her way back on the screen and keeps it to offer if it drops.
            assert await page.evaluate("() => sessionStorage.getItem('duckcover-way-back')") == login
            await page.close()  # the page is gone mid-game
            await ssh.shows("wendy disconnected")
            page = await open_page(browser, url, "wendy")  # the name alone: the lobby, not her seat
            await page_shows(page, "Tables on this server")
            await page_shows(page, "waits for wendy, but only the return login")
            await page.close()
            page = await open_page(browser, url, login)
            await page_shows(page, "Game resumed")
            await ssh.shows("wendy is back")

            # Each player's keys (a turn, or past a round's scorepad) when the screen asks something
            # of them, and again only once it has changed or after a second without a change:
            # every key costs a client a look and a frame (see play_by_keys, test_serve_ssh.py).
            deadline = time.monotonic() + 180
            pressed = {"web": ("", 0.0), "ssh": ("", 0.0)}

            def asked(door: str, text: str) -> bool:
                if GAME_OVER in text or any(words in text for words in WAITING):
                    return False
                before, at = pressed[door]
                if text == before and time.monotonic() - at < 1.0:
                    return False
                pressed[door] = (text, time.monotonic())
                return True

            while True:
                web_text, ssh_text = await page_text(page), ssh.text()
                if GAME_OVER in web_text and GAME_OVER in ssh_text:
                    break
                assert time.monotonic() < deadline, f"the game did not finish:\n{web_text}\n----\n{ssh_text}"
                if asked("web", web_text):
                    await press(page, *CHOOSE_KEYS)
                if asked("ssh", ssh_text):
                    ssh.write(CHOOSE)
                await asyncio.sleep(0.1)
            finished = tmp_path / "games" / "finished"
            record = json.loads(next(finished.iterdir()).read_text())
            names = [player["name"] for player in record["players"]]
            web_rows, ssh_rows = scorepad_rows(web_text, names), scorepad_rows(ssh_text, names)
            assert set(web_rows) == set(names) and web_rows == ssh_rows, f"{web_text}\n----\n{ssh_text}"
            rounds = len(record["rounds"])
            assert all(len(row) == rounds + 1 and sum(row[:-1]) == row[-1] for row in web_rows.values()), web_rows
            await browser.close()
    finally:
        if ssh is not None:
            ssh.close()
        stop(proc)
