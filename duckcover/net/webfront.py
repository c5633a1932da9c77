"""The browser door of `duckcover serve --web HOST:PORT` (docs/serve.md, "The browser door").

A page (web/static/: xterm.js, shipped in the package, never fetched from elsewhere) opens a
WebSocket to /ws and sends its login first; from then on binary messages are the terminal's
bytes both ways and a text message `{"type": "resize", "cols": C, "rows": R}` resizes. Behind
the WebSocket is the same per-session client the SSH door starts (guestpty.GuestSession): the
same admission (the session cap shared with the SSH door, a name in play, a return code's wait
after wrong codes), the same limits on the client process.

What the door adds for the web: an `Origin` check (a page of another site cannot open a guest's
session: cross-site WebSocket hijacking), logins under way counted per address as at the SSH
door, a login time-out, a bound on each message, an idle time-out, and flow control (a page that
stops reading stalls only its own client). A guest has no key: the name alone gets the lobby,
and a dropped page comes back to its seat by the return login (`ann+K7Q2XY`) its table showed.
"""
from __future__ import annotations

import asyncio
import json
import ssl
import unicodedata
from importlib import resources

from aiohttp import WSMsgType, web

from .guestpty import Front, GuestSession, clamped_size, source_of
from .sessions import login_identity

LOGIN_TIMEOUT = 10.0  # seconds from the WebSocket's opening to its login message; then it is closed
IDLE_TIMEOUT = 3600.0  # seconds without a key or a resize from the page; then it is closed (seat held)
PREAUTH_PER_SOURCE = 8  # WebSockets not yet logged in from one address (an IPv6 /64) at once
PREAUTH_EXTRA = 256  # WebSockets beyond --max-connections still accepted to be told "full"
MESSAGE_MAX = 16 * 1024  # bytes of one message from a page (keys, a paste, a resize, the login)
LOGIN_NAME_MAX = 64  # characters of a typed login (a name and its return code)
OUTBOX_HIGH = 256 * 1024  # bytes for a page not yet sent: past this its client's pty is not read
HEARTBEAT = 30.0  # seconds between pings: a page gone without a word is noticed
STATIC = ("index.html", "page.js", "page.css", "xterm.js", "xterm.css")
TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}
# The page loads only its own files and talks only to its own origin; no frame may hold it.
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                               "connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
                               "base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}

INVISIBLE_NAME = "duckcover: a login name needs a visible letter, digit or sign; type another."
NAME_IN_PLAY = ("duckcover: {name} is playing at a table on this server now. If that is you, type the return "
                "login your table showed ({name}+CODE); otherwise type another name.")
IDLE = ("duckcover: closed after {time} without a key. A seat you had waits for you: "
        "log in again with the return login your table showed.")
BAD_LOGIN = "duckcover: the page must send its login first."


class WebDoor:
    """The web door's own state beside the shared Front: its logins under way per address."""

    def __init__(self, front: Front, origins: set[str] | None = None, secure: bool = False,
                 idle_timeout: float = IDLE_TIMEOUT, login_timeout: float = LOGIN_TIMEOUT) -> None:
        self.front = front
        self.origins = {origin.rstrip("/").lower() for origin in origins} if origins else None
        self.scheme = "https" if secure else "http"
        self.idle_timeout = idle_timeout
        self.login_timeout = login_timeout
        self.connections = 0  # WebSockets open now
        self.preauth: dict[str, int] = {}  # source -> its WebSockets not yet logged in

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MESSAGE_MAX)
        app.router.add_get("/", self.page)
        app.router.add_get("/ws", self.websocket)
        app.router.add_get("/{name}", self.static)
        return app

    # --- the page ---------------------------------------------------------------------------
    async def page(self, request: web.Request) -> web.Response:
        return static_file("index.html")

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in STATIC:
            raise web.HTTPNotFound()
        return static_file(name)

    # --- admission ----------------------------------------------------------------------------
    def origin_allowed(self, request: web.Request) -> bool:
        """A WebSocket from this server's own page (or an origin the host listed): a browser
        always sends `Origin`, and another site's page would send its own."""
        origin = request.headers.get("Origin", "").rstrip("/").lower()
        if not origin:
            return False
        if self.origins is not None:
            return origin in self.origins
        return origin == f"{self.scheme}://{request.host}".lower()

    def begin_login(self, source: str) -> bool:
        if self.preauth.get(source, 0) >= PREAUTH_PER_SOURCE:
            return False
        if self.connections >= self.front.max_connections + PREAUTH_EXTRA:
            return False
        self.preauth[source] = self.preauth.get(source, 0) + 1
        self.connections += 1
        return True

    def login_over(self, source: str) -> None:
        left = self.preauth.get(source, 1) - 1
        if left > 0:
            self.preauth[source] = left
        else:
            self.preauth.pop(source, None)

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        front = self.front
        if not self.origin_allowed(request):
            front.log(f"a web login from {request.remote} refused: Origin {request.headers.get('Origin', '')!r}")
            raise web.HTTPForbidden(text="duckcover: this page's origin may not open a session here\n")
        source = source_of(request.remote)
        if not self.begin_login(source):
            raise web.HTTPTooManyRequests(text="duckcover: too many logins under way from your address\n")
        try:
            ws = web.WebSocketResponse(max_msg_size=MESSAGE_MAX, heartbeat=HEARTBEAT)
            try:
                await ws.prepare(request)
                login = await self.read_login(ws)
            finally:
                self.login_over(source)
            if login is None:
                await ws.close(message=BAD_LOGIN.encode())
                return ws
            name, size = login
            session = WebSession(self, ws, login_identity(name, None), request.remote)
            session.term = "xterm-256color"
            session.size = size
            await session.run()
            return ws
        finally:
            self.connections -= 1

    async def read_login(self, ws: web.WebSocketResponse) -> tuple[str, tuple[int, int]] | None:
        """The page's first message, `{"type": "login", "name": N, "cols": C, "rows": R}`, within
        the login time-out; None if it is late, malformed or not a login."""
        try:
            message = await asyncio.wait_for(ws.receive(), self.login_timeout)
        except asyncio.TimeoutError:
            return None
        if message.type != WSMsgType.TEXT:
            return None
        try:
            fields = json.loads(message.data)
        except ValueError:
            return None
        if not isinstance(fields, dict) or fields.get("type") != "login":
            return None
        name = fields.get("name")
        if not isinstance(name, str):
            return None
        name = name.strip()
        if not name or len(name) > LOGIN_NAME_MAX or any(unicodedata.category(c) == "Cc" for c in name):
            return None  # (the SSH layer refuses control characters in a user name alike)
        return name, window_size(fields)


def window_size(fields: dict) -> tuple[int, int]:
    cols, rows = fields.get("cols"), fields.get("rows")
    if type(cols) is not int or type(rows) is not int or cols < 1 or rows < 1:
        return (80, 24)
    return clamped_size(cols, rows)


def static_file(name: str) -> web.Response:
    data = resources.files(__package__).joinpath("web", "static", name).read_bytes()
    suffix = name[name.rfind("."):]
    return web.Response(body=data, content_type=TYPES[suffix], charset="utf-8", headers=HEADERS)


class WebSession(GuestSession):
    """A web guest's session: the page's messages in, the client's bytes out, in order."""

    door = "web"

    def __init__(self, door: WebDoor, ws: web.WebSocketResponse, identity, peer: str | None) -> None:
        super().__init__(door.front, identity, peer)
        self.web = door
        self.ws = ws
        self.outbox = bytearray()
        self.ready = asyncio.Event()  # the outbox has something, or the session is closing
        self.closing = False

    # --- how bytes and lines reach the guest --------------------------------------------
    def send_output(self, data: bytes) -> None:
        if self.closing:
            return
        self.outbox += data
        self.ready.set()
        if len(self.outbox) > OUTBOX_HIGH:
            self.pause_reading()  # the page is slow: its client's pty fills and it waits

    def say_and_end(self, line: str, status: int = 1) -> None:
        self.send_output((line + "\r\n").encode())
        self.ended(status)

    def ended(self, status: int) -> None:
        self.closing = True
        self.ready.set()

    def stop(self) -> None:
        super().stop()
        self.ended(0)  # the page is told by its WebSocket closing (the server may be stopping)

    def invisible_name_line(self) -> str:
        return INVISIBLE_NAME

    def name_in_play_line(self) -> str:
        return NAME_IN_PLAY.format(name=self.shown_name())  # (the name is the guest's: never a format string)

    # --- the two directions ---------------------------------------------------------------
    async def run(self) -> None:
        writer = asyncio.get_running_loop().create_task(self.write_out())
        try:
            self.admit()
            await self.read_in()
        finally:
            self.stop()
            self.closing = True
            self.ready.set()
            await writer
            if not self.ws.closed:
                await self.ws.close()

    async def read_in(self) -> None:
        """The page's keys and resizes, until it goes, the session ends or it is idle too long."""
        ws = self.ws
        while not self.closing and not ws.closed:
            try:
                message = await asyncio.wait_for(ws.receive(), self.web.idle_timeout)
            except asyncio.TimeoutError:
                self.front.log(f"the web session of {self.identity.user!r} from {self.peer} closed: idle")
                idle = self.web.idle_timeout
                self.say_and_end(IDLE.format(time=f"{idle / 60:.0f} minutes" if idle >= 120 else f"{idle:.0f} seconds"))
                return
            if message.type == WSMsgType.BINARY:
                self.keys(message.data)
            elif message.type == WSMsgType.TEXT:
                self.control(message.data)
            else:  # closed, closing, an error (an oversized message among them)
                return

    def control(self, text: str) -> None:
        try:
            fields = json.loads(text)
        except ValueError:
            return
        if isinstance(fields, dict) and fields.get("type") == "resize":
            self.resize_to(*window_size(fields))

    async def write_out(self) -> None:
        """The client's bytes to the page, in order, one send at a time (aiohttp waits for the
        socket to drain), until the session closes and what is left has gone."""
        ws = self.ws
        while True:
            await self.ready.wait()
            self.ready.clear()
            if self.outbox and not ws.closed:
                data, self.outbox = bytes(self.outbox), bytearray()
                try:
                    await ws.send_bytes(data)
                except (ConnectionError, RuntimeError):
                    self.closing = True
                self.resume_reading()
            if self.closing and not self.outbox:
                if not ws.closed:
                    await ws.close()
                return


def ssl_context(cert: str, key: str) -> ssl.SSLContext:
    """TLS for the web door from a certificate and its key (PEM files); OSError or
    ssl.SSLError if they cannot be read or do not match."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context


async def start(door: WebDoor, host: str, port: int, context: ssl.SSLContext | None = None) -> web.AppRunner:
    """Listen for the web door; the runner's addresses hold the real port."""
    runner = web.AppRunner(door.app(), access_log=None, handle_signals=False, shutdown_timeout=2.0)
    await runner.setup()
    site = web.TCPSite(runner, host, port, ssl_context=context, backlog=1024)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    return runner
