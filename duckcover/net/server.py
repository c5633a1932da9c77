"""The table server: the one authority for every table of `duckcover serve`.

Each table owns its engine Game, its bots (under a Referee) and its record, saved after every
turn. Clients (one process per SSH session, see sshfront.py) connect over a local socket and
present a token the SSH front issued for their login; a connection then sits at most at one
seat, and everything it asks for is done for that seat only. A client is sent its own seat's
choice options (it derives them from the public table) and the others' choices only at the
reveal, when the last seat has chosen: a pending move never leaves this process.

This module is the core that wires the rooms together: the socket, each client's messages and
the lobby (create, join, watch). The rest is in rooms of its own concern, below it:
table_host.py (one table and its game), sessions.py (logins, tokens, seats, the way back),
persistence.py (the tables on disk), standings.py (ratings), admission.py (per-address bounds)
and protocol.py (the wire).
"""
from __future__ import annotations

import asyncio
import secrets
import time
from pathlib import Path

from ..common.untrusted import LABEL_MAX, NAME_MAX, shown
from ..engine.errors import DuckError, Refusal
from ..engine.game import new_seed
from ..engine.rules import APP_VARIANTS, BOX_PLAYERS, MIN_PLAYERS
from ..players import difficulty
from ..players.sequence import PAUSES
from ..saves.record import RecordError, dumps, read_rules, reason_of
from . import protocol as p
from .admission import BANS_FILE, TABLES_PER_NETWORK, Bans
from .hostlog import HostLog
from .metrics import Metrics
from .persistence import Persistence
from .protocol import refusal_fields
from .records import record_of
from .sessions import LOCAL_NETWORK, Client, Login, Seat, Sessions, Visit
from .standings import Standings
from .table_host import DIFFICULTIES, Table

MIN_SEATS, MAX_SEATS = MIN_PLAYERS, BOX_PLAYERS  # the rules' (rules.py)
MAX_TABLES = 64
TABLES_PER_NAME = 3  # unfinished tables one login name may sit at: throw-away tables cannot fill the server
ABANDONED_AFTER = 24 * 3600.0  # seconds a table with nobody at it lives (`serve --abandoned-after`)
DRAINING = Refusal("server-draining", "the server restarts once the games now running have ended: "
                   "no new tables until then")


class TableServer(Sessions, Persistence, Standings):
    """Every table, the tokens the SSH front issued, and the local socket clients connect to."""

    def __init__(self, data_dir: Path, turn_seconds: float | None = None, grace: float = 30.0,
                 stats: bool = True, pace: float = 1.0, abandoned_after: float = ABANDONED_AFTER,
                 speed: str = "normal") -> None:
        self.root = data_dir / "serve"
        self.tables_dir = self.root / "tables"
        self.data_dir = data_dir
        self.turn_seconds = turn_seconds
        self.grace = grace
        self.stats = stats
        self.pauses = PAUSES[speed].scaled(pace)  # the sequencer's, at `serve --speed` (tests and benchmarks: pace 0)
        self.abandoned_after = abandoned_after
        self.sweeper: asyncio.TimerHandle | None = None
        self.tables: dict[str, Table] = {}
        self.tokens: dict[str, Login] = {}
        self.clients: set[Client] = set()
        self.tasks: set[asyncio.Task] = set()
        self.server: asyncio.base_events.Server | None = None
        self.problems: list[str] = []
        self.standings: dict = {}  # rating key -> ratings.Standing, from the statistics (see refresh_ratings)
        # The host's side (issue 31): who is connected through which door, the bans, the drain
        # (duckcover admin, admin.py), the metrics and the log.
        self.visits: dict[str, Visit] = {}  # token -> its guest's visit (sessions.py)
        self.bans = Bans(self.root / BANS_FILE)  # `duckcover serve` loads them before it opens its doors
        self.draining = False  # no new logins or tables; the server stops once the running games end
        self.metrics = Metrics(self)
        self.log = HostLog()

    # --- running ------------------------------------------------------------------------
    async def start(self, socket_path: Path) -> None:
        self.restore()
        self.refresh_ratings()
        socket_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        socket_path.unlink(missing_ok=True)
        self.server = await asyncio.start_unix_server(self.handle, path=str(socket_path),
                                                      limit=p.CLIENT_LINE_MAX + 1)
        socket_path.chmod(0o600)
        for table in self.tables.values():
            if table.sequence is not None:  # a restored game goes on where it was
                table.sequence.start()
        self.sweep()

    def sweep(self) -> None:
        """End the tables nobody has been at for `abandoned_after` seconds; look again soon."""
        now = time.monotonic()
        for table in list(self.tables.values()):
            if table.anyone_here():
                table.idle_since = None
            elif table.idle_since is None:
                table.idle_since = now
            elif now - table.idle_since >= self.abandoned_after:
                self.abandon(table)
        self.sweeper = asyncio.get_running_loop().call_later(min(30.0, self.abandoned_after / 4), self.sweep)

    def abandon(self, table: Table) -> None:
        """A table everyone left long ago ends: a game in progress is kept in serve/abandoned/
        (a record whose last round stops before its end), its table files go."""
        from datetime import datetime, timezone

        from ..saves.storage import STAMP, atomic_write

        table.close()
        for watcher in list(table.watchers):
            watcher.send(p.Bye(**refusal_fields(Refusal("table-abandoned", "this table was abandoned"))))
            watcher.writer.close()
        if table.game is not None and not table.game.over:
            stamp = datetime.now(timezone.utc).strftime(STAMP)
            try:
                atomic_write(self.root / "abandoned" / f"{stamp}-{table.id}.json",
                             dumps(record_of(table)), durable=True)
            except OSError as err:
                self.problem(f"table {table.id}: cannot save the abandoned game: {err}")
                table.idle_since = time.monotonic()  # its files stay; tried again a whole period later
                return
        (self.tables_dir / f"{table.id}.json").unlink(missing_ok=True)
        self.drop(table)

    async def close(self) -> None:
        if self.sweeper is not None:
            self.sweeper.cancel()
        if self.server is not None:
            self.server.close()
        for client in list(self.clients):
            client.send(p.Bye(**refusal_fields(Refusal("server-stopping", "the server is stopping"))))
            client.writer.close()
        for table in self.tables.values():
            table.close()
        for task in list(self.tasks):
            task.cancel()

    def problem(self, text: str) -> None:
        """Something the host should know (a table that cannot be saved...): one line on stderr."""
        self.problems.append(text)
        if self.server is not None:  # before the start, `duckcover serve` prints them itself
            self.log.say("problem", shown(text, 200))

    def spawn(self, coro) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.task_done)

    def task_done(self, task: asyncio.Task) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            err = task.exception()
            self.problem(f"internal error: {type(err).__name__}: {err}")

    # --- one client ---------------------------------------------------------------------
    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        client = None
        try:
            try:
                hello = await asyncio.wait_for(p.receive(reader, p.CLIENT_MESSAGES, p.CLIENT_LINE_MAX), timeout=10)
            except p.FieldError:
                hello = None  # not a hello this server can read: no token
            # Single-use: the session's client greets once; a copy of its token is worth nothing.
            login = self.tokens.pop(hello.token, None) if isinstance(hello, p.Hello) else None
            if login is None:
                writer.write(p.encode_message(p.Error(**refusal_fields(Refusal("unknown-token", "unknown token")))))
                return
            identity = login.identity
            client = Client(identity, writer, network=login.network)
            self.clients.add(client)
            if hello.token in self.visits:
                self.visits[hello.token].client = client  # (duckcover admin sessions: at which table)
            client.send(p.Welcome(name=shown(identity.user, NAME_MAX)))
            client.send(p.Top(players=self.top_ten(), levels=self.level_ratings()))
            if not self.rejoin(client):
                client.send(p.Lobby(tables=self.lobby()))
                self.tell_the_way_back(client)
            while True:
                try:
                    message = await p.receive(reader, p.CLIENT_MESSAGES, p.CLIENT_LINE_MAX)
                except p.FieldError as err:  # a message it knows, with wrong fields: refused, read on
                    client.send(p.Error(**refusal_fields(err)))
                    continue
                except p.ProtocolError as err:
                    client.send(p.Error(text=str(err)))
                    break  # a peer that breaks the framing is not read any further
                if message is None:
                    break
                try:
                    self.dispatch(client, message)
                except Exception as err:  # noqa: BLE001 - a bug must not end this player's session
                    self.problem(f"internal error on {message.TYPE!r}: {type(err).__name__}: {err}")
                    client.send(p.Error(**refusal_fields(Refusal("internal-error", "internal error: the host has the details"))))
        except (p.ProtocolError, asyncio.TimeoutError, ConnectionError):
            pass
        except asyncio.CancelledError:
            pass  # the server is stopping
        finally:
            if client is not None:
                self.clients.discard(client)
                if client.table is not None:
                    client.table.leave(client)
            writer.close()

    def dispatch(self, client: Client, message: p.Message) -> None:
        table = client.table
        try:
            if isinstance(message, (p.Create, p.Join, p.Watch)) and table is not None:
                raise ValueError(Refusal("leave-table-first", "leave your table first"))
            if isinstance(message, (p.Flip, p.Choose)) and (table is None or client.seat is None or table.game is None):
                raise ValueError(Refusal("no-seat", "you have no seat"))
            match message:
                case p.AskLobby():
                    client.send(p.Lobby(tables=self.lobby()))
                case p.Create():
                    self.create(client, message)
                case p.Join():
                    self.join(client, message)
                case p.Watch():
                    self.watch(client, message)
                case p.Leave():
                    if table is not None:
                        table.leave(client)
                    client.send(p.Left())
                    client.send(p.Lobby(tables=self.lobby()))
                case p.Sync():
                    if table is not None:
                        client.send(table.snapshot(client.seat))
                case p.Flip():
                    if not table.flip(client.seat):
                        raise ValueError(Refusal("only-captain-flips", "only the Captain flips, once a turn"))
                case p.Choose():
                    move = p.move_from_json(message.move, client.seat, table.game.n)
                    problem = table.choose(client.seat, move)
                    if problem:
                        raise ValueError(problem)
                case p.Hello():
                    raise ValueError(Refusal("already-greeted", "already greeted"))
        except (ValueError, DuckError) as err:
            client.send(p.Error(**refusal_fields(err)))

    def announce(self, text: str) -> int:
        """The host's one line to every guest connected; how many it reached."""
        for client in self.clients:
            client.send(p.Announce(text=text))
        return len(self.clients)

    def lobby(self) -> tuple[p.TableSummary, ...]:
        # A finished table stays listed while someone is still looking at it.
        return tuple(table.summary() for table in self.tables.values()
                     if table.state() != "over" or table.everyone())

    def create(self, client: Client, message: p.Create) -> None:
        if self.draining:
            raise ValueError(DRAINING)
        if len([t for t in self.tables.values() if t.state() != "over"]) >= MAX_TABLES:
            raise ValueError(Refusal("server-tables-full", "the server has as many tables as it takes"))
        user = client.identity.user
        if sum(1 for t in self.tables.values()
               if t.state() != "over" and any(s.owner is not None and s.owner.user == user for s in t.seats)
               ) >= TABLES_PER_NAME:
            raise ValueError(Refusal("tables-per-name", f"a name sits at {TABLES_PER_NAME} unfinished tables at most",
                                     count=TABLES_PER_NAME))
        # Names cost nothing, places do: many names from one network share its bound.
        if client.network != LOCAL_NETWORK and sum(
                1 for t in self.tables.values() if t.state() != "over" and t.network == client.network
        ) >= TABLES_PER_NETWORK:
            raise ValueError(Refusal("tables-per-network",
                                     f"your network has opened {TABLES_PER_NETWORK} unfinished tables, the most it may; "
                                     "join one of them or wait for one to end", count=TABLES_PER_NETWORK))
        seats_in = message.seats  # (its type, and every field's, the protocol checked)
        if not MIN_SEATS <= len(seats_in) <= MAX_SEATS:
            raise ValueError(Refusal("seat-count", f"a table has {MIN_SEATS}-{MAX_SEATS} seats", low=MIN_SEATS, high=MAX_SEATS))
        seats = []
        bot_names = iter(difficulty.BOT_NAMES)
        for item in seats_in:
            if item == "human":
                seats.append(Seat("human"))
            elif item in DIFFICULTIES:
                seats.append(Seat("bot", bot=item, name=next(bot_names)))
            else:
                raise ValueError(Refusal("seat-kind", f"a seat is 'human' or a difficulty: {', '.join(DIFFICULTIES)}",
                                         known=", ".join(DIFFICULTIES)))
        if not any(s.human for s in seats):
            raise ValueError(Refusal("needs-your-seat", "a table needs a seat for you"))
        variants = list(message.variants)
        if any(v not in APP_VARIANTS for v in variants):
            raise ValueError(Refusal("variant-not-offered", "unknown variant"))
        options = message.options or {}
        if not set(options) <= {"max_by", "captain", "variant_rounds"}:
            raise ValueError(Refusal("table-options", "options are max_by, captain and variant_rounds"))
        try:
            rules = read_rules({"rules": {"variants": variants, **options}})
            rules.check_players(len(seats))
        except (RecordError, DuckError, TypeError) as err:
            raise ValueError(reason_of(err)) from None
        seed, rated = message.seed, message.rated
        if seed is not None and not 0 <= seed < 2**63:
            raise ValueError(Refusal("seed-not-whole", "the seed is a whole number"))
        name = shown(message.name or "", LABEL_MAX // 2) or f"{shown(client.identity.user, NAME_MAX)}'s table"
        table = Table(secrets.token_hex(4), name, seats, rules,
                      seed if seed is not None else new_seed(), self,
                      rated=rated and seed is None,  # a chosen seed could be a rehearsed deal
                      network=client.network)
        self.tables[table.id] = table
        table.fixed = seed is not None  # its creator may know the deal: everyone is told
        table.sit(client, 0 if seats[0].human else table.free_seats()[0])
        self.lobby_changed()

    def join(self, client: Client, message: p.Join) -> None:
        table = self.tables.get(message.table)
        if table is None:
            raise ValueError(Refusal("no-such-table", "no such table"))
        if table.state() == "over":
            raise ValueError(Refusal("game-over", "that game is over"))
        if self.draining and table.game is None:
            raise ValueError(DRAINING)  # its last seat would start a new game
        seat = table.seat_of(client.identity)
        if seat is None:
            free = table.free_seats()
            wanted = message.seat
            if not free:
                if any(s.owner is not None and s.owner.user == client.identity.user and s.client is None
                       for s in table.seats):
                    # Her own seat, waiting: say what brings it back, not "no free seat".
                    raise ValueError(Refusal("seat-needs-return-login",
                                             "your seat here comes back only with your return login "
                                             "(NAME+CODE) or the SSH key you sat down with"))
                raise ValueError(Refusal("table-full", "that table has no free seat"))
            seat = wanted if wanted in free else free[0]
        elif table.seats[seat].client is not None:
            raise ValueError(Refusal("already-seated", "you already sit at that table"))
        table.sit(client, seat)
        self.lobby_changed()

    def watch(self, client: Client, message: p.Watch) -> None:
        table = self.tables.get(message.table)
        if table is None:
            raise ValueError(Refusal("no-such-table", "no such table"))
        table.watchers.add(client)
        client.table, client.seat = table, None
        client.send(table.snapshot(None))
        table.tell_fixed_deal([client])

    def drop(self, table: Table) -> None:
        self.tables.pop(table.id, None)
        (self.tables_dir / f"{table.id}.table.json").unlink(missing_ok=True)
        self.lobby_changed()

    def lobby_changed(self) -> None:
        tables = self.lobby()
        for client in self.clients:
            if client.table is None:
                client.send(p.Lobby(tables=tables))
