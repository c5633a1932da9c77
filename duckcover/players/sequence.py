"""The sequence of a game, once: from the deal to Game over, for every host.

What comes after a flip, when a round ends, when the next deal comes, who is asked and when:
the `Sequencer` decides all of it from the game's phase, and nothing else does. Its hosts (the
app's table, the server's tables, the arena) differ only in

- pacing (`Pacing`): how "later" is done (a Textual timer, an asyncio timer, a queue run at
  once), where the bots' work runs (a worker thread, an executor, inline), and the clock;
- seats: who is a person (`Table.is_human`), who a bot plays now (`Table.bot_plays`), whether a
  Captain flips by itself (`flips_itself`); a person's flip and moves come in through `flip`
  and `choose`;
- where the events go (`listen`: one vocabulary, duckcover.players.events).

The bots hear the same hooks (start_game, start_round, observe, through a `BotHooks` such as
players.safety.Referee) at the same points of the game whichever host runs it, and are seeded
the same way (players.seeding), so a game's record is the same for the same seed in every host.

One pause table (PAUSES, by speed): how long before a bot Captain flips, how long a reveal
stays, how long a round's end stays before the next deal (where no scorepad holds it).

No Textual, no asyncio, no threads here: the host brings them.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from ..engine.game import CHOOSING, Game, Phase
from ..engine.moves import Move, Turn
from .events import BotFlips, ChoiceOpened, Event, FlipAwaited, GameOver, RoundOver, RoundStarted, TurnOver
from .table import Table

SPEEDS = ("slow", "normal", "fast", "instant")


@dataclass(frozen=True)
class Pauses:
    """Seconds the sequence waits: before a bot Captain flips, while a reveal stays, between a
    round's end and the next deal (a host whose scorepad holds the deal waits for that instead)."""

    flip: float
    reveal: float
    round: float

    def scaled(self, factor: float) -> Pauses:
        return Pauses(self.flip * factor, self.reveal * factor, self.round * factor)


PAUSES: dict[str, Pauses] = {
    "slow": Pauses(flip=1.5, reveal=2.0, round=4.0),
    "normal": Pauses(flip=0.8, reveal=1.0, round=2.0),
    "fast": Pauses(flip=0.3, reveal=0.4, round=0.8),
    "instant": Pauses(flip=0.0, reveal=0.0, round=0.0),
}
NO_PAUSES = PAUSES["instant"]


class Pacing(Protocol):
    """What a host lends the sequence: time and a place for the bots' work."""

    def later(self, delay: float, callback: Callable[[], Any]) -> None:
        """Call back after `delay` seconds (0: soon, after what runs now; never inside this call)."""

    def run(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        """Run the bots' `work` (at once, in a thread, in an executor); `done(result)` back in the
        host's thread."""

    def clock(self) -> float:
        """Seconds, monotonic: what a time limit's deadline is read against."""

    def cancel(self) -> None:
        """The pending "later" is not wanted any more: a host may drop it (its call would do
        nothing anyway)."""


class InlinePacing:
    """Pacing with no time at all: every "later" waits in a queue that `drain` runs, the bots
    answer at once (the arena's way, and the tests')."""

    def __init__(self) -> None:
        self.queue: deque[Callable[[], Any]] = deque()

    def later(self, delay: float, callback: Callable[[], Any]) -> None:
        self.queue.append(callback)

    def run(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        done(work())

    def clock(self) -> float:
        return 0.0

    def cancel(self) -> None:
        pass

    def drain(self) -> None:
        queue = self.queue
        while queue:
            queue.popleft()()


class BotHooks(Protocol):
    """The bots' hooks, each called with the game as it is at that point (Referee has them)."""

    def start_game(self, game: Game) -> None: ...

    def start_round(self, game: Game) -> None: ...

    def observe(self, game: Game, turn: Turn) -> None: ...


class NoHooks:
    def start_game(self, game: Game) -> None:
        pass

    def start_round(self, game: Game) -> None:
        pass

    def observe(self, game: Game, turn: Turn) -> None:
        pass


class Step(StrEnum):
    """Where the sequence is."""

    IDLE = "idle"  # not started, or stopped
    AWAIT_FLIP = "await-flip"  # a Captain's player is to flip
    FLIPPING = "flipping"  # a Captain flips by itself after its pause
    CHOOSING = "choosing"  # a choice is open
    PAUSE = "pause"  # a turn is over: the reveal stays for its pause
    ROUND_OVER = "round-over"  # the round's end stays (its pause, or until the host deals)
    GAME_OVER = "game-over"


# The steps and the phases the sequence reads on every turn, as plain names: reading a member off
# its Enum class costs Python 3.11 about three calls (EnumType has a __getattr__), and an inline
# host (the arena) takes a dozen steps a turn. The public spelling (Step.X) stays for readers.
_IDLE, _AWAIT_FLIP, _FLIPPING, _CHOOSING, _PAUSE, _ROUND_OVER, _GAME_OVER = Step
_OVER = (_ROUND_OVER, _GAME_OVER)
_PHASE_FLIP = Phase.FLIP
_PHASE_ENDED = (Phase.ROUND_OVER, Phase.GAME_OVER)


class Sequencer:
    """One game, deal to Game over, on the shared turn `table` (players.table.Table).

    `flips_itself(seat)`: whether that seat's Captain flips after the flip pause (default: a
    bot plays the seat now, Table.bot_plays); otherwise its player flips (`flip`).
    `deal_waits`: the next round is dealt when the host calls `deal` (the app: the scorepad is
    closed), not after the round pause. `turn_seconds`: a person's time to flip or choose (the
    flip is then made for them, the choice is the fallback move: Table.time_up).
    `waits()`: the table waits (everyone left a server's table): no next step starts until the
    host calls `reconsider`.
    `follows`: the table is a mirror of one elsewhere (a server's guest): the flips, the reveals
    and the deals are that table's (`flip(*codes)`, `reveal(moves)`, `deal(start)`), and this
    sequence keeps only the steps between them and their pauses.
    """

    def __init__(self, table: Table, pacing: Pacing, *, pauses: Pauses = NO_PAUSES, hooks: BotHooks | None = None,
                 flips_itself: Callable[[int], bool] | None = None, deal_waits: bool = False,
                 turn_seconds: float | None = None, follows: bool = False,
                 waits: Callable[[], bool] | None = None) -> None:
        self.table = table
        self.game: Game = table.game
        self.pacing = pacing
        self.pauses = pauses
        self.hooks: BotHooks = hooks or NoHooks()
        self.flips_itself = flips_itself or table.bot_plays
        self.deal_waits = deal_waits
        self.turn_seconds = turn_seconds
        self.follows = follows
        self.waits = waits
        self.step = _IDLE
        self.flip_ahead = False  # the next Captain's player flipped before the flip was asked
        self.deadline: float | None = None  # when a person's time to flip or choose ends
        # Who hears the events. With nobody (the arena, simulations), none is built: an event
        # costs more than a cheap bot's decision.
        self.listeners: list[Callable[[Event], None]] = []
        self._timer = 0  # the pending "later"'s number: a callback whose number is old does nothing
        self._pending = False  # a "later" or a time limit may still call back
        self._opened = 0  # the number of the last choice this sequencer opened (its listeners heard)
        table.when_all_chosen = self._all_chosen

    # --- who listens --------------------------------------------------------------------------
    def listen(self, listener: Callable[[Event], None]) -> None:
        """`listener` hears every event: the sequence's and the table's (it listens to both)."""
        self.listeners.append(listener)
        self.table.listen(listener)

    def emit(self, event: Event) -> None:
        for listener in self.listeners:  # (set up before the game, never during an event)
            listener(event)

    def _all_chosen(self) -> None:
        """The table's last seat has chosen (its `Chosen` told): the turn is revealed."""
        if self.step is _CHOOSING and not self.follows:
            self._resolve()

    # --- time ---------------------------------------------------------------------------------
    def _later(self, delay: float, callback: Callable[[], Any]) -> None:
        """One pending call at a time: a new one (or `cancel`) makes the older one do nothing."""
        self._timer += 1
        number = self._timer
        self._pending = True

        def call() -> None:
            if number == self._timer:
                self._pending = False
                self.deadline = None  # (a time limit's call: its time is over)
                callback()

        self.pacing.later(delay, call)

    def cancel(self) -> None:
        if self._pending:  # (most steps have nothing pending: they cost nothing here)
            self._pending = False
            self._timer += 1
            self.deadline = None
            self.pacing.cancel()

    def _time_limit(self, callback: Callable[[], Any]) -> None:
        seconds = self.turn_seconds
        if seconds:
            self._later(seconds, callback)
            self.deadline = self.pacing.clock() + seconds

    # --- the sequence -----------------------------------------------------------------------
    def start(self, *, tell_bots: bool = True) -> None:
        """Begin where the game is (a new game, or a resumed one at any point): the bots hear
        of the game, and of the round unless it is over (`tell_bots=False`: they heard it from
        the sequencer this one takes over from, as when a table's screen is built again)."""
        if tell_bots:
            self.hooks.start_game(self.game)
            if self.game.phase not in (Phase.ROUND_OVER, Phase.GAME_OVER):
                self.hooks.start_round(self.game)
        self.advance()

    def advance(self) -> None:
        """Take the next step from where the game is. A host calls it again when who plays a
        seat has changed (a player back, a stand-in due): a pending flip is then re-decided."""
        game = self.game
        if self.step in _OVER:
            return
        if self.waits is not None and self.waits():
            self.cancel()
            self.step = _IDLE  # (`reconsider` goes on)
            return
        if game.phase in CHOOSING and self.table.views:  # a choice is open: its time limit stays
            self.step = _CHOOSING
            table = self.table
            if self._opened != table.number:  # opened by the sequencer this one took over from
                self._opened = table.number
                if self.listeners:
                    self.emit(ChoiceOpened(table.number, tuple(table.views)))
            table.ask_bots()  # (a seat a bot plays now, since)
            return
        if self._pending:  # (the hot steps test this before calling cancel: most have nothing pending)
            self.cancel()
        if game.phase in _PHASE_ENDED:
            self.step = _ROUND_OVER
            self.flip_ahead = False  # the round's end comes first: a flip before it is not carried over
            if self.listeners:
                self.emit(RoundOver(len(game.results)))
            if not self.deal_waits:
                self._later(self.pauses.round, self.deal)
        elif game.phase in CHOOSING:  # resumed between the flip and the reveal
            self._open_choice()
        elif self.flips_itself(game.captain):
            self.step = _FLIPPING
            if self.listeners:
                self.emit(BotFlips(game.captain, self.pauses.flip))
            self._later(self.pauses.flip, self._flip)
        else:
            self.step = _AWAIT_FLIP
            self._time_limit(self._flip)
            if self.listeners:
                self.emit(FlipAwaited(game.captain))
            if self.flip_ahead and self.step is _AWAIT_FLIP:
                self.flip_ahead = False  # flipped before it was asked: it counts now
                self._flip()

    def flip(self, *codes: int | None, ahead: bool = False) -> bool:
        """The Captain's player flips (a mirror: the cards the table elsewhere flipped); with
        `ahead`, a flip for the next turn made before it is asked (during the reveal) counts
        when it is. False when no flip is awaited."""
        if self.step is _AWAIT_FLIP or (self.follows and self.step is _FLIPPING):
            self._flip(*codes)
            return True
        if ahead and not self.follows and self.next_flipper() is not None and self.step is not _ROUND_OVER:
            self.flip_ahead = True
            return True
        return False

    def _flip(self, *codes: int | None) -> None:
        if self.game.phase is not _PHASE_FLIP or (self.follows and not codes):
            return  # (a mirror's Captain flips elsewhere: its flip comes through `flip`)
        if self._pending:
            self.cancel()
        if self.table.flip(*codes) if codes else self.table.flip():  # nobody could play: resolved at the flip
            self._turn_over(self.game.last_turn)
        else:
            self._open_choice()

    def _open_choice(self) -> None:
        table = self.table
        self.step = _CHOOSING
        if self._pending:
            self.cancel()
        if self.turn_seconds and any(not table.bot_plays(seat) for seat in self.game.awaiting):
            self._time_limit(table.time_up)  # (before the opening is told: its deadline with it)
        table.open_choice()
        self._opened = table.number
        table.ask_bots()

    def choose(self, seat: int, move: Move | None, **how: Any) -> str | None:
        """A person's choice (players.table.Table.choose: None, or why it is refused); the last
        one reveals the turn."""
        return self.table.choose(seat, move, **how)

    def reveal(self, moves: list) -> bool:
        """A mirror's reveal: every seat's move as the table elsewhere played it. False when no
        choice is open."""
        table = self.table
        if self.step is not _CHOOSING:
            return False
        table.chosen = {seat: moves[seat] for seat in table.views}
        self._resolve()
        return True

    def _resolve(self) -> None:
        if self._pending:
            self.cancel()
        turn = self.table.resolve()
        if turn is None:  # low blows: the gifts are out, now everyone places
            self._open_choice()
        else:
            self._turn_over(turn)

    def _turn_over(self, turn: Turn) -> None:
        self.step = _PAUSE
        self.hooks.observe(self.game, turn)
        if self.listeners:
            self.emit(TurnOver(turn))
        self._later(self.pauses.reveal, self.advance)  # (every step of advance sets its own)

    def deal(self, start: Callable[[], Any] | None = None) -> None:
        """The round's end has been seen: the next round is dealt (a mirror: by `start`, as the
        table elsewhere dealt it), or the game is over."""
        if self.step is not _ROUND_OVER:
            return
        self.cancel()
        game = self.game
        if game.over:
            self.step = _GAME_OVER
            if self.listeners:
                self.emit(GameOver())
            return
        (start or game.start_round)()
        self.hooks.start_round(game)
        self.step = _IDLE
        if self.listeners:
            self.emit(RoundStarted(game.round_index + 1))
        self.advance()

    def stop(self) -> None:
        """The game is left: nothing pending runs."""
        self.cancel()
        self.step = _IDLE if self.step is not _GAME_OVER else _GAME_OVER

    def hand_over(self) -> None:
        """Another sequencer takes this game over (a table's screen built again): this one
        stops, and its listeners no longer hear the table, so one sequencer moves the game on
        and one screen hears it (the new sequencer answers the table's last choice itself)."""
        self.stop()
        table = self.table
        table.listeners[:] = [listener for listener in table.listeners if listener not in self.listeners]
        if table.when_all_chosen == self._all_chosen:
            table.when_all_chosen = None

    def reconsider(self) -> None:
        """Who plays a seat has changed (a player back, a stand-in due, a table no longer
        waiting): a flip still to come is decided again, bots now due are asked."""
        if self.step in (_IDLE, _AWAIT_FLIP, _FLIPPING):
            self.advance()
        elif self.step is _CHOOSING:
            self.table.ask_bots()

    # --- what a host asks -----------------------------------------------------------------
    def waiting_for(self) -> list[int]:
        """The seats the sequence waits on now: a Captain's player to flip, or the seats still
        to choose."""
        if self.step is _AWAIT_FLIP:
            return [self.game.captain]
        return self.table.waiting() if self.step is _CHOOSING else []

    def next_flipper(self) -> int | None:
        """The Captain whose flip comes next, if a person flips it: None while a bot Captain
        flips or when the round ends first."""
        game = self.game
        if self.step is _FLIPPING or game.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
            return None
        return None if self.flips_itself(game.captain) else game.captain

    @property
    def choosing(self) -> bool:
        return self.step is _CHOOSING


def play(table: Table, hooks: BotHooks | None = None) -> Game:
    """Play `table`'s game to the end at once, with no pauses (the arena's host)."""
    pacing = InlinePacing()
    Sequencer(table, pacing, hooks=hooks).start()
    pacing.drain()
    return table.game
