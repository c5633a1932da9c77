"""One table on the server: its seats, and its game on the one sequencer (the table host).

A Table owns its engine Game and its turns (players.table), and hosts the game's sequencer
(players.sequence): it paces it with the asyncio loop's timers, asks its bots through one
Referee per seat in the server's thread pool, keeps the grace of a player who left, and tells
everyone at the table what the sequencer says. It asks its TableServer to save it, to rate
its finished game, and for the server-wide settings (pauses, turn time, grace).
"""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..common.untrusted import NAME_MAX, shown
from ..engine.errors import Refusal
from ..engine.game import CHOOSING, Game
from ..engine.moves import Move
from ..engine.rules import VARIANTS, Rules
from ..players import difficulty
from ..players.events import (BY_TIME, ChoiceOpened, Chosen, Event, FlipAwaited, Flipped, Revealed, RoundStarted,
                              TurnOver)
from ..players.sequence import NO_PAUSES, Sequencer, Step
from ..players.table import NOT_LEGAL, NOTHING_TO_CHOOSE
from ..players.table import Table as Turns
from . import protocol as p
from .records import record_of
from .sessions import CODE_PREFIX, LOCAL_NETWORK, Client, Identity, Seat, new_return_code

DIFFICULTIES = tuple(difficulty.DIFFICULTIES)  # one list: duckcover/players/difficulty.py
DEFAULT_BOT = "medium"  # stands in for an absent player; plays a restored bot seat whose file names no difficulty


@dataclass(eq=False)
class Table:
    id: str
    name: str
    seats: list[Seat]
    rules: Rules
    seed: int
    server: "TableServer"  # server.py (named, not imported: it imports this module)
    game: Game | None = None
    turns: Turns | None = None  # the game's turns (players.table): views, private choices, the reveal
    sequence: Sequencer | None = None  # the game's sequence (players.sequence), paced here
    watchers: set = field(default_factory=set)
    timer: asyncio.TimerHandle | None = None  # the sequence's pending step
    grace_timer: asyncio.TimerHandle | None = None  # when an absent player's stand-in is due
    referees: list = field(default_factory=list)  # one per seat: a slow bot holds up nobody else's call
    fixed: bool = False  # dealt from a seed its creator chose: everyone who sees the table is told
    idle_since: float | None = None  # monotonic time the last player left (the table may be abandoned)
    rated: bool = True  # False: a friendly table (its creator said so) or a chosen seed
    network: str = LOCAL_NETWORK  # where its creator logged in from (admission.TABLES_PER_NETWORK)
    all_chosen_at: float | None = None  # perf_counter when the open choice's last move came in

    # --- the game, on the sequencer --------------------------------------------------------
    def take_game(self, game: Game) -> None:
        """Play `game` here: its turns go through the shared table, each bot asked on its own in
        the server's thread pool (a slow bot holds up nobody else's call); the sequencer takes
        every step, paced by this table's timers."""
        server = self.server
        self.game = game
        self.turns = Turns(game, is_human=lambda seat: self.seats[seat].human, bot_plays=self.bot_plays,
                           decide=self.decide, run=self.run_bots, seat_by_seat=True)
        self.sequence = Sequencer(self.turns, self, pauses=server.pauses if server else NO_PAUSES,
                                  hooks=SeatHooks(self), turn_seconds=server.turn_seconds if server else None,
                                  flips_itself=self.bot_plays, waits=lambda: not self.anyone_here())
        self.sequence.listen(self.on_event)

    def decide(self, game: Game, seats: list[int]) -> list:
        return self.referees[seats[0]].decide(game, seats)

    def run_bots(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        async def ask() -> None:
            # In a thread: the bot reads the game, which changes only once every seat has chosen.
            done(await asyncio.get_running_loop().run_in_executor(None, work))

        self.server.spawn(ask())

    # The sequencer's pacing: the loop's timers (one pending step at a time) and its clock.
    def later(self, delay: float, callback: Callable[[], Any]) -> None:
        self.cancel()
        self.timer = asyncio.get_running_loop().call_later(delay, self._fire, callback)

    def _fire(self, callback: Callable[[], Any]) -> None:
        self.timer = None
        callback()

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def clock(self) -> float:
        return time.monotonic()

    @property
    def deadline(self) -> float | None:
        """Monotonic time the current human choice or flip ends."""
        return self.sequence.deadline if self.sequence else None

    def on_event(self, event: Event) -> None:
        """What the players are told of the game, as it happens."""
        kind = type(event)
        if kind is Flipped:
            self.broadcast(p.Flipped(codes=tuple(event.codes)))
        elif kind is Chosen:
            if event.by == BY_TIME:
                self.note("time", event.seat)
            if not self.turns.ready():  # (the last choice: the reveal says it)
                self.send_status()
            else:
                self.all_chosen_at = time.perf_counter()  # the reveal's latency, for the host's metrics
        elif kind is Revealed:
            self.broadcast(p.Reveal(moves=tuple(p.move_to_json(m) for m in event.moves), standins=tuple(event.standins)))
            self.revealed()
        elif kind is ChoiceOpened or kind is FlipAwaited:
            self.wake_for_the_absent()
            self.send_status()
        elif kind is TurnOver:
            self.send_status()
            if self.game.over:
                self.server.finished(self)
            else:
                self.server.save(self)
        elif kind is RoundStarted:
            self.broadcast(p.Round(round=self.public_record()["rounds"][-1]))
            self.server.save(self)

    def revealed(self) -> None:
        """The reveal is sent: the time since the turn's last choice came in (and the bots'
        fallbacks it brought) to the server's metrics."""
        started, self.all_chosen_at = self.all_chosen_at, None
        if started is not None and self.server is not None:
            self.server.metrics.revealed(self, time.perf_counter() - started)

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

    def activity(self) -> str:
        """The state as the host sees it (duckcover admin tables, the metrics, the drain): a
        game nobody is at is "idle" (it waits on disk for its players), not "playing"."""
        state = self.state()
        return "idle" if state == "playing" and not self.anyone_here() else state

    def free_seats(self) -> list[int]:
        return [i for i, seat in enumerate(self.seats) if seat.human and seat.owner is None]

    def seat_of(self, identity: Identity) -> int | None:
        return next((i for i, seat in enumerate(self.seats) if seat.owner == identity), None)

    def names(self) -> list[str]:
        return [seat.name or "?" for seat in self.seats]

    def summary(self) -> p.TableSummary:
        humans = sum(1 for s in self.seats if s.human)
        taken = sum(1 for s in self.seats if s.name is not None)
        return p.TableSummary(id=self.id, name=self.name, seats=len(self.seats), taken=taken,
                              humans=humans, bots=len(self.seats) - humans,
                              variants=tuple(variant_labels(self.rules)), state=self.state(),
                              free=tuple(self.free_seats()), rated=self.rated, seed=self.seed if self.fixed else None)

    def seats_json(self) -> tuple[p.SeatInfo, ...]:
        now = time.monotonic()
        return tuple(p.SeatInfo(name=s.name, kind=s.kind, bot=s.bot,
                                connected=(not s.human) or s.client is not None,
                                standin=self.standin(i, now), ordinal=self.server.ordinal(s))
                     for i, s in enumerate(self.seats))

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

    def broadcast(self, message: p.Message) -> None:
        for client in self.everyone():
            client.send(message)

    # --- the public table ---------------------------------------------------------------
    def public_record(self) -> dict:
        """The record without what nobody at the table may know: the seed, the deck order and
        which cards Surprises removed (a client replays it with the flips named, from the
        round's whole card set in plain order, as `replay(record, unseen=True)`)."""
        record = record_of(self)  # with the marks the log tells (fallbacks, stand-ins)
        record["seed"] = 0
        for entry in record["rounds"]:
            entry["deck"] = sorted(entry["deck"] + entry.pop("removed", []), key=_flip_order)
            entry.pop("reshuffles", None)
        return record

    def snapshot(self, seat: int | None) -> p.Seated:
        data: dict[str, Any] = {}
        if self.game is not None:
            game = self.game
            data["record"] = self.public_record()
            if game.phase in CHOOSING:
                data["pending_flips"] = tuple(game.flips)
                if seat is not None and self.chosen.get(seat) is not None:  # chosen while away: shown to him only
                    data["your_move"] = p.move_to_json(self.chosen[seat])
                if self.turns.gifts is not None:
                    data["pending_gifts"] = tuple(p.move_to_json(m) for m in self.turns.gifts)
        return p.Seated(table=self.summary(), seat=seat, players=self.seats_json(), status=self.status(), **data)

    def status(self) -> p.Status:
        waiting = self.turns.waiting() if self.turns else []
        left = None if self.deadline is None else max(0, round(self.deadline - time.monotonic()))
        return p.Status(chosen=tuple(sorted(self.chosen)), thinking=tuple(sorted(waiting)), seconds=left,
                        players=self.seats_json())

    def send_status(self) -> None:
        self.broadcast(self.status())

    def note(self, key: str, seat: int) -> None:
        self.broadcast(p.Note(key=key, name=self.seats[seat].name))

    # --- the flow -----------------------------------------------------------------------
    def start_game(self) -> None:
        self.take_game(Game(self.names(), self.rules, self.seed))
        self.make_referee()
        self.server.save(self)
        for i, seat in enumerate(self.seats):
            if seat.client is not None:
                seat.client.send(self.snapshot(i))
                self.tell_how_to_return(seat.client, i)
        for watcher in self.watchers:
            watcher.send(self.snapshot(None))
        self.tell_fixed_deal(self.everyone())
        self.sequence.start()

    def tell_fixed_deal(self, clients: list[Client]) -> None:
        """A table dealt from a chosen seed says so to whoever sees it: its creator may know the deal."""
        if self.fixed and self.game is not None:
            for client in clients:
                client.send(p.Note(key="seed", name="", seed=self.seed))

    def tell_how_to_return(self, client: Client, seat: int) -> None:
        """A keyless player is shown, on her own screen only, the code that brings her back to her seat."""
        owner = self.seats[seat].owner
        if self.game is not None and owner is not None and owner.key and owner.key.startswith(CODE_PREFIX):
            login = f"{shown(owner.user, NAME_MAX)}+{owner.key.removeprefix(CODE_PREFIX)}"
            client.send(p.Note(key="code", name=self.seats[seat].name, login=login))

    def make_referee(self) -> None:
        from ..players.plugins import resolve_bot
        from ..players.safety import Referee
        from ..players.seeding import bot_key_for, constructor_seed

        key = bot_key_for(self.seed)
        self.referees = []
        for i, seat in enumerate(self.seats):
            # Human seats get the medium bot that stands in when their player is gone too long.
            # Only a difficulty is ever resolved here: the server imports no bot a file names.
            spec = seat.bot if not seat.human and seat.bot in DIFFICULTIES else DEFAULT_BOT
            try:  # seeded as in every host (players.seeding): the same seed, the same game
                bot = resolve_bot(spec, seed=constructor_seed(key, i))
            except Exception:  # noqa: BLE001 - a broken plugin: the medium bot plays
                bot = resolve_bot("medium", seed=constructor_seed(key, i))
            self.referees.append(Referee([bot if j == i else None for j in range(len(self.seats))], key=key))

    def bot_plays(self, seat: int) -> bool:
        return not self.seats[seat].human or self.standin(seat)

    def close(self) -> None:
        """The table ends here (abandoned, or the server stops): no timer, no bot left running."""
        if self.sequence is not None:
            self.sequence.stop()
        self.cancel()
        self.cancel_grace()
        for referee in self.referees:
            referee.close()

    # --- a player gone: the stand-in comes after the grace ---------------------------------
    def wake_for_the_absent(self) -> None:
        """The sequence waits on a seat whose player has left: her stand-in is due after the grace."""
        for seat in self.sequence.waiting_for():
            if self.seats[seat].left_at is not None and not self.bot_plays(seat):
                self.wake_after_grace(seat)
                return

    def wake_after_grace(self, seat: int) -> None:
        left = self.seats[seat].left_at
        if left is not None:
            wait = max(0.0, left + self.server.grace - time.monotonic()) + 0.01
            self.cancel_grace()
            self.grace_timer = asyncio.get_running_loop().call_later(wait, self.grace_over)

    def cancel_grace(self) -> None:
        if self.grace_timer is not None:
            self.grace_timer.cancel()
            self.grace_timer = None

    def grace_over(self) -> None:
        self.grace_timer = None
        self.send_status()
        self.sequence.reconsider()  # a stand-in flips or chooses for her now

    # --- what a player here does -------------------------------------------------------
    def flip(self, seat: int) -> bool:
        """The Captain's player flips (during the reveal before it: the flip counts when it is
        asked). False if it is not hers to flip now."""
        sequence = self.sequence
        if self.game.captain != seat:
            return False
        return sequence.flip(ahead=sequence.step is Step.PAUSE)

    def choose(self, seat: int, move: Move | None) -> str | None:
        """A player's choice; the reason it is refused, or None. The last one resolves the turn
        (the sequencer)."""
        # A player back mid-turn may change the move his stand-in chose while the turn is open.
        refused = self.sequence.choose(seat, move, over_standin=not self.bot_plays(seat)) if self.sequence \
            else NOTHING_TO_CHOOSE
        if refused is None:
            return None
        if refused == NOT_LEGAL:
            return Refusal("move-not-legal-here", "that move is not legal here")
        return Refusal("nothing-to-choose", "nothing to choose now")

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
        client.send(self.snapshot(seat))
        if self.game is not None:
            self.tell_how_to_return(client, seat)
            self.tell_fixed_deal([client])
            self.note("back", seat)
            self.send_status()
            self.sequence.reconsider()  # a waiting table wakes up; a Captain back flips for herself
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
                if seat in self.sequence.waiting_for() and self.grace_timer is None:
                    self.wake_after_grace(seat)
        client.table, client.seat = None, None


class SeatHooks:
    """The bots' hooks for the sequencer, told to every seat's Referee (each has one bot)."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def start_game(self, game: Game) -> None:
        for referee in self.table.referees:
            referee.start_game(game)

    def start_round(self, game: Game) -> None:
        for referee in self.table.referees:
            referee.start_round(game)

    def observe(self, game: Game, turn) -> None:
        for referee in self.table.referees:
            referee.observe(game, turn)


def variant_labels(rules: Rules) -> list[str]:
    """The variants as `--variant` writes them: `competition` plays every round, `competition:3` one."""
    limited = dict(rules.variant_rounds)
    return [f"{name}:{','.join(map(str, limited[name]))}" if name in limited else name
            for name in sorted(rules.variants, key=VARIANTS.index)]


def _flip_order(name: str) -> tuple:
    return (len(name), name)
