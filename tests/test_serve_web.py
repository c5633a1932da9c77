"""The browser door (`duckcover serve --web`), in process: its refusals and its pump.

The door is served on 127.0.0.1 by aiohttp's test server in front of a real table server;
behind each logged-in WebSocket is the same client process the SSH door starts. Every flood
here is bounded in count and time. The real browser's test is tests/test_serve_browser.py.
"""
from __future__ import annotations

import asyncio
import fcntl
import json
import struct
import termios

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from duckcover.net import webfront
from duckcover.net.guestpty import Front
from duckcover.net.server import TableServer

NOT_A_BROWSER = aiohttp.WSServerHandshakeError


@pytest.fixture
async def door(tmp_path):
    tables = TableServer(tmp_path, pace=0)
    await tables.start(tmp_path / "tables.sock")
    front = Front(tables, tmp_path / "tables.sock", 4, None, 2222, "127.0.0.1", "instant")
    web = webfront.WebDoor(front, idle_timeout=30, login_timeout=2)
    server = TestServer(web.app(), host="127.0.0.1")
    await server.start_server()
    session = aiohttp.ClientSession()
    yield web, server, session
    await session.close()
    front.stop_sessions()
    await server.close()
    await tables.close()


def origin_of(server: TestServer) -> str:
    return f"http://127.0.0.1:{server.port}"


async def open_ws(session, server, origin: str | None = "same", **options):
    headers = {} if origin is None else {"Origin": origin_of(server) if origin == "same" else origin}
    return await session.ws_connect(f"http://127.0.0.1:{server.port}/ws", headers=headers, timeout=aiohttp.ClientWSTimeout(ws_close=5), **options)


async def log_in(ws, name: str = "wendy", cols: int = 80, rows: int = 24) -> None:
    await ws.send_str(json.dumps({"type": "login", "name": name, "cols": cols, "rows": rows}))


async def read_until(ws, text: bytes, seen: bytearray, timeout: float = 30) -> None:
    async def more():
        while text not in seen:
            message = await ws.receive()
            assert message.type == aiohttp.WSMsgType.BINARY, f"{message.type} before {text!r}: {bytes(seen[-300:])!r}"
            seen.extend(message.data)
    await asyncio.wait_for(more(), timeout)


async def settled(condition, timeout: float = 5) -> bool:
    """Whether `condition()` comes true within `timeout` (the server's side of a close runs
    after the client has seen it)."""
    for _ in range(int(timeout / 0.02)):
        if condition():
            return True
        await asyncio.sleep(0.02)
    return condition()


async def until_closed(ws, seen: bytearray, timeout: float = 15) -> aiohttp.WSMessage:
    async def more():
        while True:
            message = await ws.receive()
            if message.type != aiohttp.WSMsgType.BINARY:
                return message
            seen.extend(message.data)
    return await asyncio.wait_for(more(), timeout)


# --- the page ---------------------------------------------------------------------------------
async def test_the_page_and_xterm_come_from_the_package_with_a_strict_policy(door):
    _, server, session = door
    async with session.get(f"http://127.0.0.1:{server.port}/") as page:
        html = await page.text()
        assert page.status == 200 and "connect-src 'self'" in page.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    assert 'src="xterm.js"' in html and "http" not in html.split("<body>")[1]  # nothing from elsewhere
    for name in ("xterm.js", "xterm.css", "page.js", "page.css"):
        async with session.get(f"http://127.0.0.1:{server.port}/{name}") as response:
            assert response.status == 200 and len(await response.read()) > 100
    for name in ("..%2Fserver.py", "xterm.LICENSE", "nothing.js"):
        async with session.get(f"http://127.0.0.1:{server.port}/{name}") as response:
            assert response.status == 404


# --- admission ----------------------------------------------------------------------------------
async def test_a_websocket_from_another_origin_or_none_is_refused(door):
    web, server, session = door
    for origin in ("http://evil.example", f"http://127.0.0.1:{server.port + 1 if server.port < 65535 else 1}",
                   f"https://127.0.0.1:{server.port}", None):
        with pytest.raises(NOT_A_BROWSER) as refused:
            await open_ws(session, server, origin)
        assert refused.value.status == 403
    async with await open_ws(session, server) as ws:  # the page's own origin
        await log_in(ws)
        await read_until(ws, b"Tables on this server", bytearray())
    web.origins = {"https://club.example"}  # --web-origin: only those listed
    with pytest.raises(NOT_A_BROWSER):
        await open_ws(session, server)
    async with await open_ws(session, server, "https://club.example") as ws:
        await log_in(ws, "zed")
        await read_until(ws, b"Tables on this server", bytearray())


async def test_a_flood_of_websocket_opens_from_one_address_is_refused_past_the_limit(door):
    """60 WebSockets opened at once from 127.0.0.1, none logging in: the first
    PREAUTH_PER_SOURCE are let in, the rest refused (429) at once; another address still gets
    in during the flood, and once the flood's logins time out, 127.0.0.1 does again."""
    web, server, session = door
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as flood:
        async def attempt():
            try:
                return await open_ws(flood, server)
            except NOT_A_BROWSER as err:
                return err.status
        results = await asyncio.wait_for(asyncio.gather(*(attempt() for _ in range(60))), 30)
        opened = [r for r in results if not isinstance(r, int)]
        assert len(opened) == webfront.PREAUTH_PER_SOURCE
        assert sorted(set(r for r in results if isinstance(r, int))) == [429]
        other = aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=("127.0.0.2", 0)))
        async with other:
            async with await open_ws(other, server) as ws:
                await log_in(ws, "other")
                await read_until(ws, b"Tables on this server", bytearray())
        for ws in opened:  # the login time-out closes them
            message = await asyncio.wait_for(ws.receive(), 10)
            assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING)
            await ws.close()
    assert await settled(lambda: web.preauth == {})
    async with await open_ws(session, server) as ws:
        await log_in(ws, "again")
        await read_until(ws, b"Tables on this server", bytearray())


async def test_a_page_that_never_logs_in_or_sends_no_login_first_is_closed(door):
    web, server, session = door
    async with await open_ws(session, server) as ws:
        message = await asyncio.wait_for(ws.receive(), web.login_timeout + 5)
        assert message.type == aiohttp.WSMsgType.CLOSE
    for first in (b"keys", json.dumps({"type": "resize", "cols": 80, "rows": 24}),
                  json.dumps({"type": "login", "name": "a\x1b[2Jb"}), json.dumps({"type": "login", "name": "x" * 65})):
        async with await open_ws(session, server) as ws:
            await (ws.send_bytes(first) if isinstance(first, bytes) else ws.send_str(first))
            message = await asyncio.wait_for(ws.receive(), 5)
            assert message.type == aiohttp.WSMsgType.CLOSE and "login first" in message.extra
    assert await settled(lambda: not web.front.sessions and web.connections == 0)


async def test_the_session_cap_counts_every_door_and_the_next_is_told_in_one_line(door):
    web, server, session = door
    web.front.max_connections = 1
    async with await open_ws(session, server) as first:
        await log_in(first, "ann")
        await read_until(first, b"Tables on this server", bytearray())
        async with await open_ws(session, server) as second:
            await log_in(second, "ben")
            seen = bytearray()
            await until_closed(second, seen)
            assert bytes(seen) == b"duckcover: the server is full (1 players); please try again later.\r\n"
    assert [s.door for s in web.front.sessions] in ([], ["web"])


async def test_an_idle_page_is_closed_and_its_client_ends(door):
    web, server, session = door
    async with await open_ws(session, server) as ws:
        await log_in(ws)
        seen = bytearray()
        await read_until(ws, b"Tables on this server", seen)
        web.idle_timeout = 1.0  # from the next key on (a client's start may take longer than this)
        await ws.send_bytes(b"r")
        (guest,) = web.front.sessions
        assert guest.door == "web" and guest.identity.user == "wendy" and guest.peer == "127.0.0.1"
        client = guest.proc
        message = await until_closed(ws, seen, timeout=web.idle_timeout + 10)
        assert message.type == aiohttp.WSMsgType.CLOSE
        assert b"closed after 1 seconds without a key" in seen
    assert await settled(lambda: not web.front.sessions)
    await asyncio.get_running_loop().run_in_executor(None, client.wait, 10)


async def test_an_oversized_message_closes_the_session_and_nothing_is_left(door):
    web, server, session = door
    async with await open_ws(session, server) as ws:
        await log_in(ws)
        await read_until(ws, b"Tables on this server", bytearray())
        (guest,) = web.front.sessions
        await ws.send_bytes(b"j" * (webfront.MESSAGE_MAX + 1))
        message = await until_closed(ws, bytearray())
        assert message.type == aiohttp.WSMsgType.CLOSE and message.data == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
    assert await settled(lambda: not web.front.sessions and guest.master is None)
    await asyncio.get_running_loop().run_in_executor(None, guest.proc.wait, 10)


async def test_a_resize_reaches_the_clients_terminal_clamped(door):
    web, server, session = door
    async with await open_ws(session, server) as ws:
        await log_in(ws, cols=90, rows=30)
        await read_until(ws, b"Tables on this server", bytearray())
        (guest,) = web.front.sessions

        def size() -> tuple[int, int]:
            rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(guest.master, termios.TIOCGWINSZ, b"\0" * 8))
            return cols, rows

        assert size() == (90, 30)
        await ws.send_str(json.dumps({"type": "resize", "cols": 120, "rows": 40}))
        for _ in range(100):
            if size() == (120, 40):
                break
            await asyncio.sleep(0.02)
        assert size() == (120, 40)
        await ws.send_str(json.dumps({"type": "resize", "cols": 10 ** 6, "rows": 10 ** 6}))
        await asyncio.sleep(0.3)
        assert size() == (500, 200)
        await ws.send_str("{not json")  # ignored, the session goes on
        await ws.send_bytes(b"?")
        await read_until(ws, b"Help", bytearray())


# --- the command's flags ------------------------------------------------------------------------
@pytest.mark.parametrize("flags, words", [
    (["--web", "0.0.0.0:8080"], "not a loopback address"),
    (["--web", "127.0.0.1"], "takes HOST:PORT"),
    (["--web", "127.0.0.1:99999"], "takes HOST:PORT"),
    (["--web-cert", "cert.pem"], "needs --web HOST:PORT"),
    (["--web", "127.0.0.1:0", "--web-cert", "cert.pem"], "go together"),
    (["--web", "127.0.0.1:0", "--web-origin", "evil"], "--web-origin takes"),
    (["--web", "127.0.0.1:0", "--web-cert", "/etc/hostname", "--web-key", "/etc/hostname"], "cannot use them"),
])
def test_bad_web_flags_are_one_line_and_exit_status_2(tmp_path, flags, words, capsys):
    # The command's own entry point, in this process: each of these is refused before anything
    # starts (no socket, no server), so a Python of its own each would only pay its imports again.
    from duckcover.cli import main

    status = main(["serve", "--port", "0", "--data-dir", str(tmp_path), *flags])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and err.count("\n") == 1 and words in err, err


def self_signed(folder) -> tuple[str, str]:
    """A certificate for 127.0.0.1 and its key (PEM files), made here (cryptography comes with asyncssh)."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_path), str(key_path)


async def test_with_a_certificate_the_page_and_its_websocket_are_https_and_wss(tmp_path):
    import ssl

    cert, key = self_signed(tmp_path)
    tables = TableServer(tmp_path, pace=0)
    await tables.start(tmp_path / "tables.sock")
    front = Front(tables, tmp_path / "tables.sock", 4, None, 2222, "127.0.0.1", "instant")
    runner = await webfront.start(webfront.WebDoor(front, secure=True), "127.0.0.1", 0, webfront.ssl_context(cert, key))
    port = runner.addresses[0][1]
    trust = ssl.create_default_context(cafile=cert)
    try:
        async with aiohttp.ClientSession() as session:
            async with session.get(f"https://127.0.0.1:{port}/", ssl=trust) as page:
                assert page.status == 200 and "xterm.js" in await page.text()
            with pytest.raises(aiohttp.ClientError):  # plain HTTP on the TLS port gets nothing
                async with session.get(f"http://127.0.0.1:{port}/") as plain:
                    await plain.read()
            with pytest.raises(NOT_A_BROWSER):  # the page's origin is https://, not http://
                await session.ws_connect(f"wss://127.0.0.1:{port}/ws", ssl=trust, headers={"Origin": f"http://127.0.0.1:{port}"})
            async with session.ws_connect(f"wss://127.0.0.1:{port}/ws", ssl=trust,
                                          headers={"Origin": f"https://127.0.0.1:{port}"}) as ws:
                await log_in(ws)
                await read_until(ws, b"Tables on this server", bytearray())
    finally:
        front.stop_sessions()
        await runner.cleanup()
        await tables.close()
