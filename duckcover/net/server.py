"""The table server: the one authority for every table of `duckcover serve`.

Each table owns its engine Game, its bots (under a Referee) and its record, saved after every
turn. Clients (one process per SSH session, see sshfront.py) connect over a local socket and
present a token the SSH front issued for their login; a connection then sits at most at one
seat, and everything it asks for is done for that seat only. A client is sent its own seat's
choice options (it derives them from the public table) and the others' choices only at the
reveal, when the last seat has chosen: a pending move never leaves this process.
"""
from __future__ import annotations

import asyncio
import json
import re
import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ..engine.errors import DuckError, Refusal
from ..engine.game import CHOOSING, Game, Phase, new_seed
from ..engine.moves import Move
from ..players import difficulty
from ..players.table import BY_TIME, NOT_LEGAL, NOTHING_TO_CHOOSE, Chosen, Event, Flipped, Revealed
from ..players.table import Table as Turns
from ..saves.record import (RecordError, add_turn_seats, dumps, read_rules, read_turn_seats, reason_of, replay,
                      to_record)
from ..common.untrusted import LABEL_MAX, NAME_MAX, shown
from ..engine.rules import APP_VARIANTS, BOX_PLAYERS, MIN_PLAYERS, VARIANTS, Rules
from . import protocol as p
from .admission import TABLES_PER_NETWORK, network_of

DIFFICULTIES = tuple(difficulty.DIFFICULTIES)  # one list: duckcover/players/difficulty.py
MIN_SEATS, MAX_SEATS = MIN_PLAYERS, BOX_PLAYERS  # the rules' (rules.py)
MAX_TABLES = 64
TABLES_PER_NAME = 3  # unfinished tables one login name may sit at: throw-away tables cannot fill the server
ABANDONED_AFTER = 24 * 3600.0  # seconds a table with nobody at it lives (`serve --abandoned-after`)
META_MAX = 64 * 1024  # bytes of a table's own file (its record is read with the record's bound)
SET_ASIDE = "set-aside"  # where table files that cannot be read are moved, under serve/tables/
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read off a screen, typed back
CODE_LENGTH = 6  # 30 bits; each guess costs an SSH login
CODE_PREFIX = "code:"  # an Identity key that is a return code, never an SSH key's fingerprint
_CODED_LOGIN = re.compile(rf"(.+)\+([{CODE_ALPHABET}]{{{CODE_LENGTH}}})", re.DOTALL)
DEFAULT_BOT = "medium"  # stands in for an absent player; plays a restored bot seat whose file names no difficulty
FLIP_PAUSE = 0.6  # seconds before a bot Captain flips
ROUND_PAUSE = 2.0  # seconds between a round's end and the next deal (clients show the scorepad)
LOCAL_NETWORK = "local"  # a client whose token names no address (tests, the host's own tools)
SEND_BUFFER_MAX = 4 * 1024 * 1024  # a client that stops reading this far behind is dropped


class Identity(NamedTuple):
    """Who a login is: the SSH user name and the fingerprint of the key they offered (or None)."""

    user: str
    key: str | None = None


class Login(NamedTuple):
    """What a client token stands for: who logged in, and from which network (admission.py)."""

    identity: Identity
    network: str


def login_identity(user: str, key: str | None) -> Identity:
    """Who an SSH login is. Without a key, a login name ending in `+CODE` brings the return
    code a keyless player was shown when she sat down: "ben+K7Q2XY" is ben, holding that code."""
    if key is None:
        coded = _CODED_LOGIN.fullmatch(user)
        if coded:
            return Identity(coded.group(1), CODE_PREFIX + coded.group(2))
    return Identity(user, key)


def refusal_fields(err: object) -> dict:
    """A refusal as a guest is sent it: the English `text`, and where it has one its `code`
    and values, for the guest's app to say it in its player's language (docs/protocol.md)."""
    reason = reason_of(err) if isinstance(err, Exception) else err
    fields: dict[str, Any] = {"text": shown(str(err), LABEL_MAX * 2)}
    code = getattr(reason, "code", None)
    if code:
        fields.update(code=code, params={key: list(v) if isinstance(v, tuple) else v for key, v in reason.params.items()})
    return fields


def new_return_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


@dataclass
class Seat:
    kind: str  # "human" or "bot"
    bot: str | None = None  # a bot seat's difficulty
    name: str | None = None  # None: an open human seat
    owner: Identity | None = None
    client: "Client | None" = None
    left_at: float | None = None  # monotonic time the owner's connection dropped

    @property
    def human(self) -> bool:
        return self.kind == "human"


@dataclass(eq=False)
class Client:
    """One table-client connection, bound to one identity by its token."""

    identity: Identity
    writer: asyncio.StreamWriter
    network: str = LOCAL_NETWORK  # where the login came from: tables are bounded per network
    table: "Table | None" = None
    seat: int | None = None

    def send(self, kind: str, **fields: Any) -> None:
        if self.writer.is_closing():
            return
        transport = self.writer.transport
        if transport.get_write_buffer_size() > SEND_BUFFER_MAX:
            self.writer.close()  # it stopped reading: drop it rather than hold the table's memory
            return
        self.writer.write(p.encode(kind, **fields))


@dataclass(eq=False)
class Table:
    id: str
    name: str
    seats: list[Seat]
    rules: Rules
    seed: int
    server: "TableServer"
    game: Game | None = None
    turns: Turns | None = None  # the game's turns (players.table): views, private choices, the reveal
    watchers: set = field(default_factory=set)
    deadline: float | None = None  # monotonic time the current human choice or flip ends
    timer: asyncio.TimerHandle | None = None
    referees: list = field(default_factory=list)  # one per seat: a slow bot holds up nobody else's call
    fixed: bool = False  # dealt from a seed its creator chose: everyone who sees the table is told
    idle_since: float | None = None  # monotonic time the last player left (the table may be abandoned)
    rated: bool = True  # False: a friendly table (its creator said so) or a chosen seed
    network: str = LOCAL_NETWORK  # where its creator logged in from (admission.TABLES_PER_NETWORK)

    # --- the turn, as the shared table holds it ---------------------------------------------
    def take_game(self, game: Game) -> None:
        """Play `game` here: its turns go through the shared table, each bot asked on its own in
        the server's thread pool (a slow bot holds up nobody else's call)."""
        self.game = game
        self.turns = Turns(game, is_human=lambda seat: self.seats[seat].human, bot_plays=self.bot_plays,
                           decide=self.decide, run=self.run_bots, seat_by_seat=True)
        self.turns.listen(self.on_turn_event)

    def decide(self, game: Game, seats: list[int]) -> list:
        return self.referees[seats[0]].decide(game, seats)

    def run_bots(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        async def ask() -> None:
            # In a thread: the bot reads the game, which changes only once every seat has chosen.
            done(await asyncio.get_running_loop().run_in_executor(None, work))

        self.server.spawn(ask())

    def on_turn_event(self, event: Event) -> None:
        """What the players are told of the turn, as it happens."""
        if isinstance(event, Flipped):
            self.broadcast("flip", codes=list(event.codes))
        elif isinstance(event, Chosen):
            if event.by == BY_TIME:
                self.note("time", event.seat)
            if self.turns.ready():
                self.resolve()
            else:
                self.send_status()
        elif isinstance(event, Revealed):
            self.broadcast("reveal", moves=[p.move_to_json(m) for m in event.moves], standins=event.standins)

    @property
    def views(self) -> dict:  # seat -> the PlayerView fixed when the choice opened
        return self.turns.views if self.turns else {}

    @property
    def chosen(self) -> dict:  # seat -> Move | None: never sent to anyone before the reveal
        return self.turns.chosen if self.turns else {}

    # --- who sits here ------------------------------------------------------------------
    def state(self) -> str:
        if self.game is None:
            return "open"
        return "over" if self.game.over else "playing"

    def free_seats(self) -> list[int]:
        return [i for i, seat in enumerate(self.seats) if seat.human and seat.owner is None]

    def seat_of(self, identity: Identity) -> int | None:
        return next((i for i, seat in enumerate(self.seats) if seat.owner == identity), None)

    def names(self) -> list[str]:
        return [seat.name or "?" for seat in self.seats]

    def summary(self) -> dict:
        humans = sum(1 for s in self.seats if s.human)
        taken = sum(1 for s in self.seats if s.name is not None)
        return {"id": self.id, "name": self.name, "seats": len(self.seats), "taken": taken,
                "humans": humans, "bots": len(self.seats) - humans,
                "variants": variant_labels(self.rules), "state": self.state(),
                "free": self.free_seats(), "rated": self.rated, **({"seed": self.seed} if self.fixed else {})}

    def seats_json(self) -> list[dict]:
        now = time.monotonic()
        return [{"name": s.name, "kind": s.kind, "bot": s.bot,
                 "connected": (not s.human) or s.client is not None,
                 "standin": self.standin(i, now), "ordinal": self.server.ordinal(s)}
                for i, s in enumerate(self.seats)]

    def anyone_here(self) -> bool:
        return any(s.client is not None for s in self.seats if s.human)

    def standin(self, seat: int, now: float | None = None) -> bool:
        """A medium bot plays a human seat whose player has been gone longer than the grace
        period, while somebody else is still at the table (a table everyone left waits)."""
        s = self.seats[seat]
        if not s.human or s.left_at is None or s.client is not None or not self.anyone_here():
            return False
        return (now or time.monotonic()) - s.left_at >= self.server.grace

    def everyone(self) -> list[Client]:
        return [s.client for s in self.seats if s.client is not None] + list(self.watchers)

    def broadcast(self, kind: str, **fields: Any) -> None:
        for client in self.everyone():
            client.send(kind, **fields)

    # --- the public table ---------------------------------------------------------------
    def public_record(self) -> dict:
        """The record without what nobody at the table may know: the seed, the deck order and
        which cards Surprises removed (a client replays it with the flips named, from the
        round's whole card set in plain order, as `replay(record, unseen=True)`)."""
        record = TableServer.record_of(self)  # with the marks the log tells (fallbacks, stand-ins)
        record["seed"] = 0
        for entry in record["rounds"]:
            entry["deck"] = sorted(entry["deck"] + entry.pop("removed", []), key=_flip_order)
            entry.pop("reshuffles", None)
        return record

    def snapshot(self, seat: int | None) -> dict:
        data: dict[str, Any] = {"table": self.summary(), "seat": seat, "players": self.seats_json()}
        if self.game is not None:
            game = self.game
            data["record"] = self.public_record()
            if game.phase in CHOOSING:
                data["pending_flips"] = list(game.flips)
                if seat is not None and self.chosen.get(seat) is not None:  # chosen while away: shown to him only
                    data["your_move"] = p.move_to_json(self.chosen[seat])
                if self.turns.gifts is not None:
                    data["pending_gifts"] = [p.move_to_json(m) for m in self.turns.gifts]
        data["status"] = self.status()
        return data

    def status(self) -> dict:
        waiting = self.turns.waiting() if self.turns else []
        left = None if self.deadline is None else max(0, round(self.deadline - time.monotonic()))
        return {"chosen": sorted(self.chosen), "thinking": sorted(waiting), "seconds": left,
                "players": self.seats_json()}

    def send_status(self) -> None:
        self.broadcast("status", **self.status())

    def note(self, key: str, seat: int) -> None:
        self.broadcast("note", key=key, name=self.seats[seat].name)

    # --- the flow -----------------------------------------------------------------------
    def start_game(self) -> None:
        self.take_game(Game(self.names(), self.rules, self.seed))
        self.make_referee()
        self.server.save(self)
        for i, seat in enumerate(self.seats):
            if seat.client is not None:
                seat.client.send("seated", **self.snapshot(i))
                self.tell_how_to_return(seat.client, i)
        for watcher in self.watchers:
            watcher.send("seated", **self.snapshot(None))
        self.tell_fixed_deal(self.everyone())
        self.step()

    def tell_fixed_deal(self, clients: list[Client]) -> None:
        """A table dealt from a chosen seed says so to whoever sees it: its creator may know the deal."""
        if self.fixed and self.game is not None:
            for client in clients:
                client.send("note", key="seed", name="", seed=self.seed)

    def tell_how_to_return(self, client: Client, seat: int) -> None:
        """A keyless player is shown, on her own screen only, the code that brings her back to her seat."""
        owner = self.seats[seat].owner
        if self.game is not None and owner is not None and owner.key and owner.key.startswith(CODE_PREFIX):
            login = f"{shown(owner.user, NAME_MAX)}+{owner.key.removeprefix(CODE_PREFIX)}"
            client.send("note", key="code", name=self.seats[seat].name, login=login)

    def make_referee(self) -> None:
        from ..players.plugins import resolve_bot
        from ..players.safety import Referee

        self.referees = []
        for i, seat in enumerate(self.seats):
            # Human seats get the medium bot that stands in when their player is gone too long.
            # Only a difficulty is ever resolved here: the server imports no bot a file names.
            spec = seat.bot if not seat.human and seat.bot in DIFFICULTIES else DEFAULT_BOT
            try:
                bot = resolve_bot(spec, seed=self.seed + i)
            except Exception:  # noqa: BLE001 - a broken plugin: the medium bot plays
                bot = resolve_bot("medium", seed=self.seed + i)
            self.referees.append(Referee([bot if j == i else None for j in range(len(self.seats))]))

    def bot_plays(self, seat: int) -> bool:
        return not self.seats[seat].human or self.standin(seat)

    def step(self) -> None:
        """Do whatever comes next: a bot's flip, opening a choice, the next round."""
        game = self.game
        if game is None or game.over:
            return
        self.cancel_timer()
        if not self.anyone_here():
            return  # everybody left: the table waits for its first player back (sit() steps)
        if game.phase is Phase.FLIP:
            captain = game.captain
            if self.bot_plays(captain):
                self.later(FLIP_PAUSE * self.server.pace, self.flip)
            elif self.server.turn_seconds:
                self.later(self.server.turn_seconds, self.flip)
                self.deadline = time.monotonic() + self.server.turn_seconds
                self.send_status()
            elif self.seats[captain].left_at is not None:
                self.wake_after_grace(captain)
            return
        if game.phase is Phase.ROUND_OVER:
            self.later(ROUND_PAUSE * self.server.pace, self.next_round)
            return
        if game.phase in CHOOSING and not self.views:
            self.open_choice()

    def later(self, delay: float, callback: Callable[[], None]) -> None:
        self.cancel_timer()
        self.timer = asyncio.get_running_loop().call_later(delay, callback)

    def close(self) -> None:
        """The table ends here (abandoned, or the server stops): no timer, no bot left running."""
        self.cancel_timer()
        for referee in self.referees:
            referee.close()

    def cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.deadline = None

    def wake_after_grace(self, seat: int) -> None:
        left = self.seats[seat].left_at
        if left is not None:
            wait = max(0.0, left + self.server.grace - time.monotonic()) + 0.01
            self.later(wait, self.grace_over)

    def grace_over(self) -> None:
        self.timer = None
        self.send_status()
        if self.game.phase is Phase.FLIP:
            self.step()
        elif self.views:
            self.turns.ask_bots()

    def flip(self, by: int | None = None) -> None:
        game = self.game
        if game is None or game.phase is not Phase.FLIP:
            return
        self.cancel_timer()
        self.turns.flip()  # told to everyone (on_turn_event)
        if game.phase in CHOOSING:
            self.open_choice()
        else:  # nobody could play: the turn resolved at the flip
            self.after_turn()

    def open_choice(self) -> None:
        self.turns.open_choice()
        humans = [s for s in self.views if not self.bot_plays(s)]
        if humans and self.server.turn_seconds:
            self.later(self.server.turn_seconds, self.time_up)
            self.deadline = time.monotonic() + self.server.turn_seconds
        for seat in humans:
            if self.seats[seat].left_at is not None:
                self.wake_after_grace(seat)
                break
        self.send_status()
        self.turns.ask_bots()

    def time_up(self) -> None:
        self.timer = None
        self.turns.time_up()  # each late seat is told (on_turn_event) and gets the fallback move

    def choose(self, seat: int, move: Move | None) -> str | None:
        """A player's choice; the reason it is refused, or None. The last one resolves the turn
        (on_turn_event)."""
        # A player back mid-turn may change the move his stand-in chose while the turn is open.
        refused = self.turns.choose(seat, move, over_standin=not self.bot_plays(seat)) if self.turns \
            else NOTHING_TO_CHOOSE
        if refused is None:
            return None
        if refused == NOT_LEGAL:
            return Refusal("move-not-legal-here", "that move is not legal here")
        return Refusal("nothing-to-choose", "nothing to choose now")

    def resolve(self) -> None:
        self.cancel_timer()
        revealed = self.turns.resolve()  # told to everyone (on_turn_event)
        if revealed.phase is Phase.GIFT:
            self.open_choice()  # everyone places what they received
            return
        self.after_turn()

    def after_turn(self) -> None:
        self.send_status()
        if self.game.over:
            self.server.finished(self)
            return
        self.server.save(self)
        self.step()

    def next_round(self) -> None:
        game = self.game
        self.timer = None
        if game.phase is not Phase.ROUND_OVER:
            return
        game.start_round()
        entry = self.public_record()["rounds"][-1]
        self.broadcast("round", round=entry)
        self.server.save(self)
        self.step()

    # --- players coming and going ------------------------------------------------------
    def sit(self, client: Client, seat: int) -> None:
        s = self.seats[seat]
        if s.owner is None:
            identity = client.identity
            if identity.key is None:  # no key: a code only this player is shown holds the seat
                identity = client.identity = Identity(identity.user, CODE_PREFIX + new_return_code())
            s.owner, s.name = identity, self.unique_name(identity.user)
        s.client, s.left_at = client, None
        client.table, client.seat = self, seat
        self.idle_since = None
        self.server.save_meta(self)
        if self.game is None and not self.free_seats():
            self.start_game()
            return
        client.send("seated", **self.snapshot(seat))
        if self.game is not None:
            self.tell_how_to_return(client, seat)
            self.tell_fixed_deal([client])
            self.note("back", seat)
            self.send_status()
            if self.game.phase is Phase.FLIP or (self.game.phase is Phase.ROUND_OVER and self.timer is None):
                self.step()  # a waiting table wakes up; a Captain back flips for herself
            elif self.views:
                self.turns.ask_bots()
        else:
            self.send_status()

    def unique_name(self, user: str) -> str:
        base = shown(user, NAME_MAX) or "guest"
        taken = {s.name for s in self.seats}
        name, n = base, 2
        while name in taken:
            name = f"{base[:NAME_MAX - 3]}({n})"
            n += 1
        return name

    def leave(self, client: Client) -> None:
        if client in self.watchers:
            self.watchers.discard(client)
        elif client.seat is not None and self.seats[client.seat].client is client:
            seat = client.seat
            s = self.seats[seat]
            s.client = None
            if not self.anyone_here():
                self.idle_since = time.monotonic()
            if self.game is None:  # before the game: the seat opens again
                s.owner, s.name = None, None
                if any(other.owner is not None for other in self.seats):
                    self.server.save_meta(self)
                    self.send_status()
                else:  # nobody is waiting at it any more: the table goes
                    self.server.drop(self)
            elif not self.game.over:
                s.left_at = time.monotonic()
                self.note("left", seat)
                self.send_status()
                if (self.game.phase is Phase.FLIP and seat == self.game.captain) or seat in self.views:
                    if self.timer is None:
                        self.wake_after_grace(seat)
        client.table, client.seat = None, None


def variant_labels(rules: Rules) -> list[str]:
    """The variants as `--variant` writes them: `competition` plays every round, `competition:3` one."""
    limited = dict(rules.variant_rounds)
    return [f"{name}:{','.join(map(str, limited[name]))}" if name in limited else name
            for name in sorted(rules.variants, key=VARIANTS.index)]


def str_or_none(value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ValueError("a seat's owner is a name and a key")
    return value


def _flip_order(name: str) -> tuple:
    return (len(name), name)


class TableServer:
    """Every table, the tokens the SSH front issued, and the local socket clients connect to."""

    def __init__(self, data_dir: Path, turn_seconds: float | None = None, grace: float = 30.0,
                 stats: bool = True, pace: float = 1.0, abandoned_after: float = ABANDONED_AFTER) -> None:
        self.root = data_dir / "serve"
        self.tables_dir = self.root / "tables"
        self.data_dir = data_dir
        self.turn_seconds = turn_seconds
        self.grace = grace
        self.stats = stats
        self.pace = pace  # scales the pauses (tests and benchmarks: 0)
        self.abandoned_after = abandoned_after
        self.sweeper: asyncio.TimerHandle | None = None
        self.tables: dict[str, Table] = {}
        self.tokens: dict[str, Login] = {}
        self.clients: set[Client] = set()
        self.tasks: set[asyncio.Task] = set()
        self.server: asyncio.base_events.Server | None = None
        self.problems: list[str] = []
        self.standings: dict = {}  # rating key -> ratings.Standing, from the statistics (see refresh_ratings)

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
            table.step()
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
            watcher.send("bye", **refusal_fields(Refusal("table-abandoned", "this table was abandoned")))
            watcher.writer.close()
        if table.game is not None and not table.game.over:
            stamp = datetime.now(timezone.utc).strftime(STAMP)
            try:
                atomic_write(self.root / "abandoned" / f"{stamp}-{table.id}.json",
                             dumps(self.record_of(table)), durable=True)
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
            client.send("bye", **refusal_fields(Refusal("server-stopping", "the server is stopping")))
            client.writer.close()
        for table in self.tables.values():
            table.close()
        for task in list(self.tasks):
            task.cancel()

    def problem(self, text: str) -> None:
        """Something the host should know (a table that cannot be saved...): one line on stderr."""
        self.problems.append(text)
        if self.server is not None:  # before the start, `duckcover serve` prints them itself
            print(f"duckcover: {shown(text, 200)}", file=sys.stderr, flush=True)

    def spawn(self, coro) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.task_done)

    def task_done(self, task: asyncio.Task) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            err = task.exception()
            self.problem(f"internal error: {type(err).__name__}: {err}")

    def issue_token(self, identity: Identity, peer: str | None = None) -> str:
        """A single-use token for a client of `identity`, who connected from address `peer`."""
        token = secrets.token_urlsafe(24)
        self.tokens[token] = Login(identity, LOCAL_NETWORK if peer is None else network_of(peer))
        return token

    def revoke_token(self, token: str) -> None:
        self.tokens.pop(token, None)

    # --- one client ---------------------------------------------------------------------
    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        client = None
        try:
            hello = await asyncio.wait_for(
                p.read_message(reader, p.CLIENT_TYPES, p.CLIENT_LINE_MAX), timeout=10)
            token = hello.get("token") if hello and hello["type"] == "hello" else None
            # Single-use: the session's client greets once; a copy of its token is worth nothing.
            login = self.tokens.pop(token, None) if isinstance(token, str) else None
            if login is None:
                writer.write(p.encode("error", **refusal_fields(Refusal("unknown-token", "unknown token"))))
                return
            identity = login.identity
            client = Client(identity, writer, network=login.network)
            self.clients.add(client)
            client.send("welcome", name=shown(identity.user, NAME_MAX))
            client.send("top", players=self.top_ten(), levels=self.level_ratings())
            if not self.rejoin(client):
                client.send("lobby", tables=self.lobby())
                self.tell_the_way_back(client)
            while True:
                try:
                    message = await p.read_message(reader, p.CLIENT_TYPES, p.CLIENT_LINE_MAX)
                except p.ProtocolError as err:
                    client.send("error", text=str(err))
                    break  # a peer that breaks the framing is not read any further
                if message is None:
                    break
                try:
                    self.dispatch(client, message)
                except Exception as err:  # noqa: BLE001 - a bug must not end this player's session
                    self.problem(f"internal error on {message['type']!r}: {type(err).__name__}: {err}")
                    client.send("error", **refusal_fields(Refusal("internal-error", "internal error: the host has the details")))
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

    def holds_seat(self, identity: Identity) -> bool:
        """Whether `identity` owns a seat at an unfinished table (a return code that is right)."""
        return any(table.seat_of(identity) is not None for table in self.tables.values() if table.state() != "over")

    def seated_elsewhere(self, identity: Identity) -> bool:
        """Whether a player of `identity`'s name sits, connected, at an unfinished table whose
        seat `identity` does not own (a second login under a name in play)."""
        return any(seat.owner is not None and seat.owner.user == identity.user and seat.owner != identity
                   and seat.client is not None
                   for table in self.tables.values() if table.state() != "over" for seat in table.seats)

    def waiting_seat(self, identity: Identity) -> tuple[Table, Seat] | None:
        """A seat of `identity`'s name, at an unfinished table, that waits for its player while
        this login does not own it (its return code or key is missing)."""
        for table in self.tables.values():
            if table.state() == "over":
                continue
            for seat in table.seats:
                if (seat.owner is not None and seat.owner.user == identity.user and seat.owner != identity
                        and seat.client is None):
                    return table, seat
        return None

    def tell_the_way_back(self, client: Client) -> None:
        """A login that was not taken back to a seat is told why, in the lobby: a return code
        that matches no waiting seat (then it is dropped, and a new one is made when she sits
        down), or a seat of her name that waits for its code or key."""
        identity = client.identity
        if identity.key is not None and identity.key.startswith(CODE_PREFIX) and not self.holds_seat(identity):
            login = f"{shown(identity.user, NAME_MAX)}+{identity.key.removeprefix(CODE_PREFIX)}"
            client.identity = Identity(identity.user, None)
            client.send("note", key="wrong-code", name=shown(identity.user, NAME_MAX), login=login)
        waiting = self.waiting_seat(client.identity)
        if waiting is not None:
            table, seat = waiting
            coded = seat.owner.key is not None and seat.owner.key.startswith(CODE_PREFIX)
            client.send("note", key="seat-waits" if coded else "seat-waits-key",
                        name=shown(identity.user, NAME_MAX), table=table.name)

    def rejoin(self, client: Client) -> bool:
        """A player with a seat at an unfinished table goes straight back to it."""
        for table in self.tables.values():
            seat = table.seat_of(client.identity)
            if seat is not None and table.state() != "over" and table.seats[seat].client is None:
                table.sit(client, seat)
                return True
        return False

    def dispatch(self, client: Client, message: dict) -> None:
        kind = message["type"]
        table = client.table
        try:
            if kind in ("create", "join", "watch") and table is not None:
                raise ValueError(Refusal("leave-table-first", "leave your table first"))
            if kind == "lobby":
                client.send("lobby", tables=self.lobby())
            elif kind == "create":
                self.create(client, message)
            elif kind == "join":
                self.join(client, message)
            elif kind == "watch":
                self.watch(client, message)
            elif kind == "leave":
                if table is not None:
                    table.leave(client)
                client.send("left")
                client.send("lobby", tables=self.lobby())
            elif kind == "sync":
                if table is not None:
                    client.send("seated", **table.snapshot(client.seat))
            elif kind in ("flip", "choose") and (table is None or client.seat is None or table.game is None):
                raise ValueError(Refusal("no-seat", "you have no seat"))
            elif kind == "flip":
                if table.game.phase is not Phase.FLIP or table.game.captain != client.seat:
                    raise ValueError(Refusal("only-captain-flips", "only the Captain flips, once a turn"))
                table.flip()
            elif kind == "choose":
                move = p.move_from_json(message.get("move"), client.seat, table.game.n)
                problem = table.choose(client.seat, move)
                if problem:
                    raise ValueError(problem)
            elif kind == "hello":
                raise ValueError(Refusal("already-greeted", "already greeted"))
        except (ValueError, DuckError) as err:
            client.send("error", **refusal_fields(err))

    def lobby(self) -> list[dict]:
        # A finished table stays listed while someone is still looking at it.
        return [table.summary() for table in self.tables.values()
                if table.state() != "over" or table.everyone()]

    def create(self, client: Client, message: dict) -> None:
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
        seats_in = message.get("seats")
        if not isinstance(seats_in, list) or not MIN_SEATS <= len(seats_in) <= MAX_SEATS:
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
        variants = message.get("variants", [])
        if not isinstance(variants, list) or any(v not in APP_VARIANTS for v in variants):
            raise ValueError(Refusal("variant-not-offered", "unknown variant"))
        options = message.get("options", {})
        if not isinstance(options, dict) or not set(options) <= {"max_by", "captain", "variant_rounds"}:
            raise ValueError(Refusal("table-options", "options are max_by, captain and variant_rounds"))
        try:
            rules = read_rules({"rules": {"variants": variants, **options}})
            rules.check_players(len(seats))
        except (RecordError, DuckError, TypeError) as err:
            raise ValueError(reason_of(err)) from None
        seed = message.get("seed")
        if seed is not None and (type(seed) is not int or not 0 <= seed < 2**63):
            raise ValueError(Refusal("seed-not-whole", "the seed is a whole number"))
        rated = message.get("rated", True)
        if type(rated) is not bool:
            raise ValueError(Refusal("rated-not-bool", "rated is true or false"))
        name = shown(message.get("name") or "", LABEL_MAX // 2) or f"{shown(client.identity.user, NAME_MAX)}'s table"
        table = Table(secrets.token_hex(4), name, seats, rules,
                      seed if seed is not None else new_seed(), self,
                      rated=rated and seed is None,  # a chosen seed could be a rehearsed deal
                      network=client.network)
        self.tables[table.id] = table
        table.fixed = seed is not None  # its creator may know the deal: everyone is told
        table.sit(client, 0 if seats[0].human else table.free_seats()[0])
        self.lobby_changed()

    def join(self, client: Client, message: dict) -> None:
        table = self.tables.get(message.get("table"))
        if table is None:
            raise ValueError(Refusal("no-such-table", "no such table"))
        if table.state() == "over":
            raise ValueError(Refusal("game-over", "that game is over"))
        seat = table.seat_of(client.identity)
        if seat is None:
            free = table.free_seats()
            wanted = message.get("seat")
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

    def watch(self, client: Client, message: dict) -> None:
        table = self.tables.get(message.get("table"))
        if table is None:
            raise ValueError(Refusal("no-such-table", "no such table"))
        table.watchers.add(client)
        client.table, client.seat = table, None
        client.send("seated", **table.snapshot(None))
        table.tell_fixed_deal([client])

    def drop(self, table: Table) -> None:
        self.tables.pop(table.id, None)
        (self.tables_dir / f"{table.id}.table.json").unlink(missing_ok=True)
        self.lobby_changed()

    def lobby_changed(self) -> None:
        tables = self.lobby()
        for client in self.clients:
            if client.table is None:
                client.send("lobby", tables=tables)

    # --- records ------------------------------------------------------------------------
    @staticmethod
    def record_of(table: Table) -> dict:
        from ..players.safety import Fallback, add_fallbacks

        record = rated_record(to_record(table.game, bots=[s.bot for s in table.seats]), table)
        found = [f for referee in table.referees for f in referee.fallbacks]
        found += [Fallback(seat, r, t, "time") for seat, r, t in table.turns.timeouts]
        return add_turn_seats(add_fallbacks(record, found), "standins", table.turns.standins)

    def save(self, table: Table) -> None:
        from ..saves.storage import atomic_write

        if table.game is not None:
            try:
                atomic_write(self.tables_dir / f"{table.id}.json", dumps(self.record_of(table)))
            except OSError as err:  # the game goes on; the host is told
                self.problem(f"table {table.id}: cannot save: {err}")
        self.save_meta(table)

    def save_meta(self, table: Table) -> None:
        from ..saves.storage import atomic_write

        meta = {"id": table.id, "name": table.name, "seed": table.seed, "fixed": table.fixed,
                "rules": table.rules.to_json(), "rated": table.rated, "network": table.network,
                "seats": [{"kind": s.kind, "bot": s.bot, "name": s.name,
                           "owner": list(s.owner) if s.owner else None} for s in table.seats]}
        try:
            atomic_write(self.tables_dir / f"{table.id}.table.json", json.dumps(meta))
        except OSError as err:
            self.problem(f"table {table.id}: cannot save: {err}")

    def finished(self, table: Table) -> None:
        """A finished game joins the host's finished games and statistics; its table files go."""
        from ..saves import stats
        from ..saves.storage import save_finished

        record = self.record_of(table)
        try:
            save_finished(record, self.data_dir)  # (the host's own unfinished local game stays)
            for path in (self.tables_dir / f"{table.id}.json", self.tables_dir / f"{table.id}.table.json"):
                path.unlink(missing_ok=True)
        except OSError as err:
            self.problem(f"table {table.id}: cannot save the finished game: {err}")
        if self.stats:
            try:
                if stats.add_game(record, self.data_dir / stats.DB_NAME, accounts=True):
                    self.rate(record, table)
            except Exception as err:  # noqa: BLE001 - statistics never end a game
                self.problem(f"table {table.id}: statistics: {err}")
        self.lobby_changed()

    # --- ratings (duckcover.saves.ratings, derived from the statistics) -----------------------
    def refresh_ratings(self) -> None:
        from ..saves import stats

        if not self.stats:
            return
        try:
            self.standings = stats.ratings(self.data_dir / stats.DB_NAME)
        except Exception as err:  # noqa: BLE001 - ratings never stop the server
            self.problem(f"ratings: {err}")

    def rate(self, record: dict, table: Table) -> None:
        """The game just added to the statistics, rated on top of the standings: the last game
        in the database's order, so the same numbers as recomputing them all, without the wait."""
        from ..saves.ratings import RatedGame, model, rate_game, ranks, seat_keys

        if record.get("rated") is False:
            return
        outcome = table.game.outcome()
        keys = seat_keys(record["players"], table.game.names, accounts_trusted=True)
        rate_game(model(), self.standings, RatedGame(-1, tuple(keys), ranks(outcome.totals, outcome.winners)))
        table.send_status()  # the new ordinals beside the names
        for client in self.clients:
            client.send("top", players=self.top_ten(), levels=self.level_ratings())

    def top_ten(self) -> list[dict]:
        """The server's ten best rated people (bots are rated too, but not listed here)."""
        from ..saves.ratings import leaderboard

        return [{"name": shown(s.label, NAME_MAX), "ordinal": round(s.rating.ordinal, 2), "games": s.games}
                for s in leaderboard(self.standings, kinds=("account", "human"))[:10]]

    def level_ratings(self) -> list[dict]:
        """Each difficulty's rating on this server: its bot's published rating moved by the games
        played here (the number a guest's lobby and new-table screen show beside the level)."""
        from ..players.plugins import bot_identity
        from ..saves.ratings import bot_rating

        return [{"level": level, "ordinal": round(bot_rating(*bot_identity(bot), self.standings).ordinal, 2)}
                for level, bot in difficulty.DIFFICULTIES.items()]

    def ordinal(self, seat: Seat) -> float | None:
        """A seat's rating on this server, as the conservative ordinal (a measured bot not yet
        rated here: its published one, as everywhere); None when unrated."""
        from ..saves.ratings import current_rating

        key = seat_rating_key(seat)
        rating = current_rating(key, self.standings or {}) if key else None
        return None if rating is None else round(rating.ordinal, 2)

    def restore(self) -> None:
        """Bring back every unfinished table from its files, exactly where its last turn left it."""
        from ..common.files import why

        if not self.tables_dir.is_dir():
            return
        for meta_path in sorted(self.tables_dir.glob("*.table.json")):
            try:
                table = self.load_table(meta_path)
            except OSError as err:
                self.set_aside(meta_path, why(err))
                continue
            except (ValueError, KeyError, TypeError, IndexError, RecursionError, DuckError) as err:
                self.set_aside(meta_path, str(err))
                continue
            if table.state() != "over":
                self.tables[table.id] = table

    def set_aside(self, meta_path: Path, reason: str) -> None:
        """A table whose files cannot be read is moved out of the way (never read again, never
        lost), with one line for the host; the server starts without it."""
        table_id = meta_path.name.removesuffix(".table.json")
        aside = self.tables_dir / SET_ASIDE
        moved = []
        for path in (meta_path, self.tables_dir / f"{table_id}.json"):
            if path.is_symlink() or path.exists():
                try:
                    aside.mkdir(exist_ok=True)
                    path.rename(aside / path.name)
                    moved.append(path.name)
                except OSError:
                    pass
        where = f"; moved to serve/tables/{SET_ASIDE}/" if moved else ""
        self.problem(f"table {shown(table_id, 40)}: not restored: {shown(reason, 120)}{where}")

    def restored_bot(self, table_id: str, number: int, seat: dict) -> str | None:
        """A restored seat's bot: only a built-in difficulty, by name. The file is the server's
        own, but whoever can write it must not make the server import their code (a file path
        or `module:Class` would be imported here, outside every wall a bot process gets): any
        other spec is set aside with one line, and the default difficulty plays the seat, so
        the people at the table keep their game."""
        if seat["kind"] == "human":
            return None
        if seat["kind"] != "bot":
            raise ValueError("a seat is human or bot")
        spec = seat.get("bot")
        if isinstance(spec, str) and spec in DIFFICULTIES:
            return spec
        self.problem(f"table {shown(table_id, 40)}: seat {number}'s bot '{shown(spec, 60)}' is not a built-in "
                     f"difficulty, so it is not loaded; {DEFAULT_BOT} plays the seat")
        return DEFAULT_BOT

    def load_table(self, meta_path: Path) -> Table:
        from ..common.files import read_bounded
        from ..saves.record import read_file

        meta = json.loads(read_bounded(meta_path, META_MAX).decode("utf-8"))
        table_id = meta_path.name.removesuffix(".table.json")
        if meta["id"] != table_id or not re.fullmatch(r"[0-9a-f]{1,32}", table_id):
            raise ValueError("the table's id is not its file's name")
        seats = []
        for number, s in enumerate(meta["seats"], start=1):
            owner = Identity(*map(str_or_none, s["owner"][:2])) if s.get("owner") else None
            seats.append(Seat(s["kind"], bot=self.restored_bot(table_id, number, s), name=s.get("name"), owner=owner))
        rules = read_rules({"rules": meta["rules"]})
        network = meta.get("network", LOCAL_NETWORK)
        if not isinstance(network, str) or len(network) > 64:
            raise ValueError("the table's network is not a network")
        table = Table(table_id, shown(meta["name"], LABEL_MAX), seats, rules, int(meta["seed"]), self,
                      rated=meta.get("rated", True) is True, network=network)
        table.fixed = meta.get("fixed") is True
        record_path = self.tables_dir / f"{table.id}.json"
        if record_path.is_symlink() or record_path.exists():
            record = read_file(record_path)
            table.take_game(replay(record))
            table.turns.standins = [(seat, r, n) for (r, n), marked in read_turn_seats(record, "standins").items()
                              for seat in marked]
            table.make_referee()
            now = time.monotonic()
            for seat in seats:
                if seat.human:
                    seat.left_at = now  # everybody has to come back; the grace starts now
        return table


def seat_rating_key(seat: Seat) -> str | None:
    """Who a seat is to the ratings: the SSH account of its owner, or its bot and version."""
    from ..players.plugins import bot_identity
    from ..saves.ratings import account_key, bot_key

    if seat.human:
        return account_key(*rated_account(seat.owner)) if seat.owner else None
    return bot_key(*bot_identity(seat.bot)) if seat.bot else None


def rated_account(owner: Identity) -> tuple[str, str | None]:
    """Who a seat's owner is to the ratings: the SSH user and key fingerprint, or the user alone.
    A return code is a keyless player's seat ticket, not an identity: it is new at every table,
    and it must never reach the record that every client is sent."""
    key = owner.key if owner.key is not None and not owner.key.startswith(CODE_PREFIX) else None
    return owner.user, key


def rated_record(record: dict, table: Table) -> dict:
    """The record with who is rated: each owner's account, each bot's version, and
    `"rated": false` for a table that is not rated (the statistics then leave it out)."""
    from ..players.plugins import stamp_bot_versions

    stamp_bot_versions(record)
    for player, seat in zip(record["players"], table.seats):
        if seat.human and seat.owner is not None:
            player["account"] = list(rated_account(seat.owner))
    if not table.rated:
        record["rated"] = False
    return record
