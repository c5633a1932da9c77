"""One table on the server: its seats, its game and the turn's sequence (the table host).

A Table owns its engine Game and its turns (players.table), asks its bots through one Referee
per seat, runs the turn's timers (a bot Captain's pause, a human's time to choose, the grace of
a player who left) and tells everyone at the table what happens. It asks its TableServer to
save it, to rate its finished game, and for the server-wide settings (pace, turn time, grace).
"""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..common.untrusted import NAME_MAX, shown
from ..engine.errors import Refusal
from ..engine.game import CHOOSING, Game, Phase
from ..engine.moves import Move
from ..engine.rules import VARIANTS, Rules
from ..players import difficulty
from ..players.table import BY_TIME, NOT_LEGAL, NOTHING_TO_CHOOSE, Chosen, Event, Flipped, Revealed
from ..players.table import Table as Turns
from . import protocol as p
from .records import record_of
from .sessions import CODE_PREFIX, LOCAL_NETWORK, Client, Identity, Seat, new_return_code

DIFFICULTIES = tuple(difficulty.DIFFICULTIES)  # one list: duckcover/players/difficulty.py
DEFAULT_BOT = "medium"  # stands in for an absent player; plays a restored bot seat whose file names no difficulty
FLIP_PAUSE = 0.6  # seconds before a bot Captain flips
ROUND_PAUSE = 2.0  # seconds between a round's end and the next deal (clients show the scorepad)


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
            self.broadcast(p.Flipped(codes=tuple(event.codes)))
        elif isinstance(event, Chosen):
            if event.by == BY_TIME:
                self.note("time", event.seat)
            if self.turns.ready():
                self.resolve()
            else:
                self.send_status()
        elif isinstance(event, Revealed):
            self.broadcast(p.Reveal(moves=tuple(p.move_to_json(m) for m in event.moves), standins=tuple(event.standins)))

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
        self.step()

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
        with self.server.metrics.reveal(self):  # every choice is in: the time to the reveal sent
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
        self.broadcast(p.Round(round=entry))
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
        client.send(self.snapshot(seat))
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


def _flip_order(name: str) -> tuple:
    return (len(name), name)
