"""The app's host of the one game sequencer (players/sequence.py): its pace is Textual's.

The sequence of a game (flip -> choices -> reveal -> round end -> next deal) is the
sequencer's; this host lends it time (the screen's timers), runs the bots' work in the screen's
workers, and keeps what only a table at a keyboard has: which human is asked now, the
pass-and-play hand-over, a flip typed ahead, the scorepad that holds the next deal. It tells
its screen the sequencer's events (duckcover.players.events) and its own few below; whoever
shows the table (the Textual table screen, or a test) listens and only reacts, and hands the
player's flip and moves back (`press_flip`, `submit`). No Textual here, so a test can drive a
whole game with a fake `Pace` and read the events.

A table elsewhere (app/remote.RemoteTable, a server's guest) runs the same sequencer as a
mirror (`follows`): the server's flips, reveals and deals come through `sequencer.flip`,
`.reveal` and `.deal`.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from ..engine.moves import Move
from ..players.events import (BotFlips, ChoiceOpened, Chosen, FlipAwaited, GameOver, Revealed, RoundOver,
                              RoundStarted, TurnOver)
from ..players.sequence import PAUSES, Sequencer
from .controller import TurnController


class TurnState(StrEnum):
    """Where the table is, as its screen needs to know (which keys do what)."""

    IDLE = "idle"  # between turns
    AWAIT_FLIP = "await-flip"  # a human Captain is to flip
    FLIPPING = "flipping"  # a bot Captain flips after a pause
    CHOOSING = "choosing"  # choices are open; a human at the keyboard may be choosing
    HANDOVER = "handover"  # pass-and-play: the table is hidden until the next human is ready
    WAITING = "waiting"  # every human here has chosen; bots may still be thinking
    RESOLVING = "resolving"  # the moves are being revealed
    PAUSE = "pause"  # the reveal stays on screen for a moment
    ROUND_OVER = "round-over"  # the scorepad is up
    GAME_OVER = "game-over"  # the game-over screen is up


# --- the host's own events (the game's are duckcover.players.events) -----------------------
@dataclass(frozen=True)
class HandOver:
    seat: int  # pass-and-play: hide the table, then `handed_over(seat, number)`
    number: int


@dataclass(frozen=True)
class ChoiceAsked:
    seat: int  # a human here chooses now, from flow.ctl.views[seat] (fixed at the opening)


@dataclass(frozen=True)
class Waiting:
    """Every human here has chosen (or nobody chooses here): the others are awaited."""


@dataclass(frozen=True)
class ChoiceTaken:
    """The choice asked here was made elsewhere (on a server: the time ran out)."""


@dataclass(frozen=True)
class Notices:
    lines: list[str]  # Textual markup, names escaped: bots that cannot load, failed or printed


@dataclass(frozen=True)
class BotsFailed:
    """The bots' worker itself failed."""


@dataclass(frozen=True)
class Said:
    line: str  # a line for the log from a table elsewhere (someone left, came back...)


@dataclass(frozen=True)
class StatusChanged:
    """The line under the prompt (the controller's status_line) has news."""


class Pace(Protocol):
    """How the flow's host runs time and work (the table screen; a test's fake)."""

    def later(self, callback: Callable[[], Any], delay: float) -> None:
        """Call back after `delay` seconds (0: soon, never at once)."""

    def in_worker(self, work: Callable[[], Any], done: Callable[[Any], None], failed: Callable[[], None]) -> None:
        """Run `work` off the host's thread; `done(result)` or `failed()` back on it."""

    def live(self) -> bool:
        """Whether the table is still shown (a timer can outlive its screen)."""

    # A table elsewhere (RemoteTable) also ticks its countdown and waits for the first frame:
    def set_interval(self, interval: float, callback: Callable[[], Any], *, pause: bool = False) -> Any: ...

    def call_after_refresh(self, callback: Callable[[], Any]) -> Any: ...


# The sequencer's steps, as the screen's states (the host's own: CHOOSING, HANDOVER, WAITING).
STATE_OF = {FlipAwaited: TurnState.AWAIT_FLIP, BotFlips: TurnState.FLIPPING, Revealed: TurnState.RESOLVING,
            TurnOver: TurnState.PAUSE, RoundOver: TurnState.ROUND_OVER, RoundStarted: TurnState.IDLE,
            GameOver: TurnState.GAME_OVER}


class TableFlow:
    """One game at a table: the sequencer, paced by `pace`, and who at this keyboard is asked."""

    def __init__(self, ctl: TurnController, pace: Pace, *, speed: str = "normal", watch: bool = False,
                 handover: bool = False) -> None:
        self.ctl = ctl
        self.pace = pace
        self.speed = speed
        self.watch = watch  # nobody plays here: every seat is watched
        self.handover = handover  # several humans here keep their choices from each other
        self.state = TurnState.IDLE
        self.number = 0  # the open choice's number (a hint or a hand-over for an older one is dropped)
        self.asked: int | None = None  # the human asked to choose now
        self.listeners: list[Callable[[Any], None]] = []
        ctl.table.run = self.run_bots
        previous = ctl.flow
        if previous is not None:  # the table's screen built again (a setting changed): one sequencer moves the game
            previous.sequencer.hand_over()
        ctl.flow = self
        self.took_over = previous is not None and previous.started
        self.sequencer = Sequencer(ctl.table, self, pauses=PAUSES[speed], hooks=ctl, deal_waits=True,
                                   flips_itself=lambda seat: watch or not ctl.is_human(seat), follows=ctl.follows)
        self.sequencer.listen(self.on_event)
        self.started = False

    def listen(self, listener: Callable[[Any], None]) -> None:
        self.listeners.append(listener)

    def tell(self, event) -> None:
        for listener in list(self.listeners):
            listener(event)

    def pass_and_play(self) -> bool:
        """Several humans at one keyboard, who want their choices kept from each other."""
        return self.handover and not self.watch and len(self.ctl.humans) > 1

    # --- the sequencer's pacing --------------------------------------------------------------
    def later(self, delay: float, callback: Callable[[], Any]) -> None:
        self.pace.later(lambda: self.pace.live() and callback(), delay)

    def clock(self) -> float:
        return time.monotonic()

    def cancel(self) -> None:
        pass  # (a timer left to run calls nothing)

    def run_bots(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        """The table's runner: the bots decide in a worker; their notices come with the answer."""
        number = self.number

        def answered(moves) -> None:
            if number == self.number:
                self.tell_notices()
            done(moves)

        def failed() -> None:
            if number == self.number:
                self.tell_notices()
                self.tell(BotsFailed())

        self.pace.in_worker(work, answered, failed)

    def tell_notices(self) -> None:
        lines, self.ctl.load_errors[:] = list(self.ctl.load_errors), []
        if lines:
            self.tell(Notices(lines))

    # --- the game's events -----------------------------------------------------------------
    def advance(self) -> None:
        """The table is up: the game goes on from where it is."""
        if not self.started:
            self.started = True
            self.sequencer.start(tell_bots=not self.took_over)

    def on_event(self, event) -> None:
        kind = type(event)
        if kind is ChoiceOpened:
            self.number = event.number
            self.state = TurnState.CHOOSING
            self.ctl.choice_opened()
            self.tell(event)
            self.next_human()
            return
        state = STATE_OF.get(kind)
        if state is not None:
            self.state = state
        self.tell(event)
        if kind is Chosen and event.seat == self.asked and self.state is TurnState.CHOOSING:
            self.asked = None
            self.next_human()

    # --- the humans at this keyboard -------------------------------------------------------
    def next_human(self) -> None:
        pending = self.ctl.humans_to_ask() if not self.watch else []
        if pending and self.pass_and_play():
            self.state = TurnState.HANDOVER
            self.tell(HandOver(pending[0], self.number))
        elif pending:
            self.ask(pending[0])
        else:
            self.state = TurnState.WAITING
            self.tell(Waiting())

    def handed_over(self, seat: int, number: int) -> None:
        """The next human is at the keyboard (the hand-over screen closed)."""
        if self.number == number and self.state is TurnState.HANDOVER and self.pace.live():
            self.ask(seat)

    def ask(self, seat: int) -> None:
        self.state = TurnState.CHOOSING
        self.asked = seat
        self.tell(ChoiceAsked(seat))

    def submit(self, seat: int, move: Move | None) -> None:
        """A human's move (IllegalMoveError if the rules refuse it); then the next one is asked."""
        self.ctl.submit(seat, move)

    def choice_taken(self) -> None:
        """The choice being asked here was made elsewhere (on a server, the time ran out)."""
        if self.state is TurnState.CHOOSING:
            self.asked = None
            self.state = TurnState.WAITING
            self.tell(ChoiceTaken())

    @property
    def flip_ahead(self) -> bool:
        """A flip typed while the table still moves on (the reveal, the bots' choices): it is
        played as soon as it is asked (the sequencer keeps it; a round's end drops it)."""
        return self.sequencer.flip_ahead

    @flip_ahead.setter
    def flip_ahead(self, ahead: bool) -> None:
        if ahead:
            self.sequencer.flip(ahead=True)
        else:
            self.sequencer.flip_ahead = False

    def press_flip(self) -> None:
        """The flip key: it counts while a human Captain here is asked to flip."""
        if self.state is TurnState.AWAIT_FLIP and self.ctl.flip_here():
            self.sequencer.flip()

    def flip_is_next_here(self) -> bool:
        """Whether the next thing asked at this keyboard is a human Captain's flip."""
        return self.sequencer.next_flipper() is not None

    def after_round_end(self, _result=None) -> None:
        """The scorepad is closed: the next round is dealt (a table elsewhere: once the server's
        deal has come too)."""
        if self.ctl.round_may_start():
            self.sequencer.deal()

