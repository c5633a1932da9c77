"""The table's flow: flip -> choices -> reveal -> (round end) -> flip, one turn after another.

`TableFlow` sequences a game at the table (a `TurnController`, which wraps the shared
`players.table.Table`) and says what happened through events; whoever shows the table (the
Textual table screen, or a test) listens and only reacts, and hands the player's flip and
moves back (`press_flip`, `submit`). It paces itself through a `Pace` its host gives it: call
later or after a delay, run the bots' work in a worker. No Textual here, so a test can drive a
whole game with a fake `Pace` and read the events.

A table elsewhere (app/remote.RemoteTable: a server decides) feeds the server's flips, reveals
and deals into the same flow: `do_flip`, `choice_taken`, `maybe_resolve`, `after_round_end`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from ..engine.game import CHOOSING, Phase
from ..engine.moves import Move
from .controller import Reveal, TurnController
from .options import FLIP_PAUSE, REVEAL_PAUSE


class TurnState(StrEnum):
    """Where the table is in a turn. The flow: flip -> choices -> reveal -> (round end) -> flip."""

    IDLE = "idle"  # between turns: `advance` decides what comes next
    AWAIT_FLIP = "await-flip"  # a human Captain is to flip
    FLIPPING = "flipping"  # a bot Captain flips after a pause
    CHOOSING = "choosing"  # choices are open; a human at the keyboard may be choosing
    HANDOVER = "handover"  # pass-and-play: the table is hidden until the next human is ready
    WAITING = "waiting"  # every human here has chosen; bots may still be thinking
    RESOLVING = "resolving"  # the joint move is being played
    PAUSE = "pause"  # the reveal stays on screen for a moment
    ROUND_OVER = "round-over"  # the scorepad is up
    GAME_OVER = "game-over"  # the game-over screen is up


S = TurnState
TRANSITIONS: dict[TurnState, frozenset[TurnState]] = {
    S.IDLE: frozenset({S.AWAIT_FLIP, S.FLIPPING, S.CHOOSING, S.ROUND_OVER}),
    S.AWAIT_FLIP: frozenset({S.CHOOSING, S.PAUSE}),
    S.FLIPPING: frozenset({S.CHOOSING, S.PAUSE}),
    S.CHOOSING: frozenset({S.CHOOSING, S.HANDOVER, S.WAITING}),
    S.HANDOVER: frozenset({S.CHOOSING}),
    S.WAITING: frozenset({S.RESOLVING}),
    S.RESOLVING: frozenset({S.CHOOSING, S.PAUSE}),
    S.PAUSE: frozenset({S.IDLE}),
    S.ROUND_OVER: frozenset({S.IDLE, S.GAME_OVER}),
    S.GAME_OVER: frozenset(),
}


# --- events, in the order a game makes them (a dataclass compares its kind too) ------------
@dataclass(frozen=True)
class FlipAwaited:
    seat: int  # a human Captain here is to flip


@dataclass(frozen=True)
class BotFlips:
    seat: int  # the Captain flips by itself, after `pause` seconds
    pause: float


@dataclass(frozen=True)
class Flipped:
    line: str  # the log's line for the flip
    explain: str  # what the flip means ("" if nothing to say)


@dataclass(frozen=True)
class ChoiceOpened:
    number: int  # counts the choices: what answers an older one is dropped


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
class GiftsRevealed:
    lines: list[str]  # low blows: the gifts are out, now everyone places


@dataclass(frozen=True)
class TurnRevealed:
    lines: list[str]  # one per player (and the fallbacks'): the reveal stays for its pause


@dataclass(frozen=True)
class RoundOver:
    """The round has ended: the scorepad, then `after_round_end`."""


@dataclass(frozen=True)
class RoundStarted:
    round: int  # counted from 1


@dataclass(frozen=True)
class GameOver:
    """The last round has been scored."""


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


class TableFlow:
    """One game's sequence at a table; `state` is where it is, every change in TRANSITIONS."""

    def __init__(self, ctl: TurnController, pace: Pace, *, speed: str = "normal", watch: bool = False,
                 handover: bool = False) -> None:
        self.ctl = ctl
        self.pace = pace
        self.speed = speed
        self.watch = watch  # nobody plays here: every seat is watched
        self.handover = handover  # several humans here keep their choices from each other
        self.state = TurnState.IDLE
        self.number = 0  # bumps per choice, so a stale worker's answer is ignored
        self.flip_ahead = False  # a flip typed while the reveal was still on the table
        self.listeners: list[Callable[[Any], None]] = []

    def listen(self, listener: Callable[[Any], None]) -> None:
        self.listeners.append(listener)

    def tell(self, event) -> None:
        for listener in list(self.listeners):
            listener(event)

    def go(self, state: TurnState) -> None:
        if state not in TRANSITIONS[self.state]:
            raise RuntimeError(f"table: no transition from {self.state.value} to {state.value}")
        self.state = state

    def pass_and_play(self) -> bool:
        """Several humans at one keyboard, who want their choices kept from each other."""
        return self.handover and not self.watch and len(self.ctl.humans) > 1

    # --- the sequence -----------------------------------------------------------------------
    def advance(self) -> None:
        self.next_step()
        self.ctl.moved_on()

    def next_step(self) -> None:
        game = self.ctl.game
        if self.state in (TurnState.ROUND_OVER, TurnState.GAME_OVER):
            return
        if game.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
            self.show_round_end()
        elif game.phase is not Phase.FLIP:
            self.start_choice()
        elif self.ctl.is_human(game.captain) and not self.watch:
            self.go(TurnState.AWAIT_FLIP)
            self.tell(FlipAwaited(game.captain))
            if self.flip_ahead:  # typed during the reveal: it counts now
                self.flip_ahead = False
                self.do_flip()
        else:
            self.go(TurnState.FLIPPING)
            self.tell(BotFlips(game.captain, FLIP_PAUSE[self.speed]))
            self.pace.later(self.do_flip, FLIP_PAUSE[self.speed])

    def press_flip(self) -> None:
        """The flip key: it counts while a human Captain here is asked to flip."""
        if self.state is TurnState.AWAIT_FLIP:
            self.do_flip()

    def flip_is_next_here(self) -> bool:
        """Whether the next thing asked at this keyboard is a human Captain's flip."""
        game = self.ctl.game
        if self.state is TurnState.FLIPPING or game.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
            return False
        return self.ctl.is_human(game.captain)

    def do_flip(self) -> None:
        game, ctl = self.ctl.game, self.ctl
        if game.phase is not Phase.FLIP or not self.pace.live() or not ctl.flip_here(self.state):
            return  # (a remote table sends a flip of this keyboard's, and plays it when the server says)
        before = game.turn_number
        ctl.flip()
        explain = ctl.explain_flip(before)
        if game.phase not in CHOOSING and game.last_turn is not None and game.last_turn.call.kind == "dead":
            explain = None  # the turn's own line says what a dead Repeat does: once is enough
        self.tell(Flipped(ctl.flip_line(before), explain or ""))
        if game.phase in CHOOSING:
            self.start_choice()
        else:  # nobody could play: the turn resolved at the flip
            self.finish_turn(Reveal(ctl.turn_lines(game.last_turn), game.last_turn))

    def start_choice(self) -> None:
        ctl = self.ctl
        ctl.open_choice()
        self.number += 1
        self.go(TurnState.CHOOSING)
        self.tell(ChoiceOpened(self.number))
        bots, number = ctl.bot_seats(), self.number
        if bots:
            self.pace.in_worker(lambda: ctl.decide_bots(bots), lambda moves: self.bots_answered(number, moves),
                                lambda: self.bots_failed(number))
        self.next_human()

    def next_human(self) -> None:
        pending = self.ctl.humans_to_ask() if not self.watch else []
        if pending and self.pass_and_play():
            self.go(TurnState.HANDOVER)
            self.tell(HandOver(pending[0], self.number))
        elif pending:
            self.ask(pending[0])
        else:
            self.go(TurnState.WAITING)
            self.tell(Waiting())
            self.maybe_resolve()

    def handed_over(self, seat: int, number: int) -> None:
        """The next human is at the keyboard (the hand-over screen closed)."""
        if self.number == number and self.state is TurnState.HANDOVER and self.pace.live():
            self.ask(seat)

    def ask(self, seat: int) -> None:
        self.go(TurnState.CHOOSING)
        self.tell(ChoiceAsked(seat))

    def submit(self, seat: int, move: Move | None) -> None:
        """A human's move (IllegalMoveError if the rules refuse it); then the next one is asked."""
        self.ctl.submit(seat, move)
        self.next_human()

    def bots_answered(self, number: int, moves: dict) -> None:
        if number != self.number:
            return
        self.tell_notices()
        self.ctl.take_bot_moves(moves)
        self.maybe_resolve()

    def bots_failed(self, number: int) -> None:
        if number == self.number:
            self.tell_notices()
            self.tell(BotsFailed())

    def tell_notices(self) -> None:
        lines, self.ctl.load_errors[:] = list(self.ctl.load_errors), []
        if lines:
            self.tell(Notices(lines))

    def maybe_resolve(self) -> None:
        if self.state is TurnState.WAITING and self.ctl.ready():
            self.go(TurnState.RESOLVING)
            reveal = self.ctl.resolve()
            if reveal.turn is None:  # low blows: the gifts are out, now everyone places
                self.tell(GiftsRevealed(reveal.lines))
                self.start_choice()
            else:
                self.finish_turn(reveal)

    def finish_turn(self, reveal: Reveal) -> None:
        self.go(TurnState.PAUSE)
        self.tell(TurnRevealed(reveal.lines))
        self.pace.later(self.after_pause, REVEAL_PAUSE[self.speed])

    def choice_taken(self) -> None:
        """The choice being asked here was made elsewhere (on a server, the time ran out)."""
        if self.state is TurnState.CHOOSING:
            self.go(TurnState.WAITING)
            self.tell(ChoiceTaken())

    def after_pause(self) -> None:
        if self.state is TurnState.PAUSE and self.pace.live():
            self.go(TurnState.IDLE)
            self.advance()

    def show_round_end(self) -> None:
        self.go(TurnState.ROUND_OVER)
        self.flip_ahead = False  # the scorepad comes first: a flip typed before it is not carried over
        self.tell(RoundOver())

    def after_round_end(self, _result=None) -> None:
        """The scorepad is closed (or, at a remote table, the server's next deal came)."""
        game = self.ctl.game
        if not game.over and not self.ctl.round_may_start():
            return  # a remote table: the next deal comes from the server, and it calls again
        if game.over:
            self.go(TurnState.GAME_OVER)
            self.tell(GameOver())
            return
        self.ctl.start_round()
        self.go(TurnState.IDLE)
        self.tell(RoundStarted(game.round_index + 1))
        self.advance()
